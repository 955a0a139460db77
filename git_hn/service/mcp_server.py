"""``git hn mcp [--allow-write] [--repo PATH]``: memory tools, the brief resource and the handoff
prompt for agents over MCP stdio (CONTRACT §10.6), on the official Python MCP SDK's low-level
server. What is offered is declared in ``mcp_tools``; how each call binds its arguments is in
``mcp_calls``; what is read off the wire is screened in ``mcp_wire``; this module decides what
may run, serves it and speaks MCP.

Each result is one text item holding the command's ``--json`` document; every document carries
the constant warning at top level and nests author text as inert data. An error is a tool error
whose text is the one line ``git-hn: <message>``, in the MCP tools' words when the error has them
(``HnError.for_mcp``: a tool and its arguments where the CLI names a command); a secret refusal
names the argument ``allowSecretShaped``, not the CLI flag an MCP client cannot pass.

Trust boundary: write tools (and the handoff prompt) exist only when the person who started the
server asked for them with ``--allow-write``; they pass through the same secret lint and replay
check as the CLI. Start-up does nothing but find the repository: ``tools/list`` is answered from
constants, whatever the history size. Tool calls and resource reads are served one at a time, in
the order the client sent them (``Arrivals``), each with a freshly opened repository (so ``HEAD``
and refs are read anew on every call) at the work tree's top, so a server started in a
subdirectory keeps working when that directory goes away.
"""

from __future__ import annotations

import contextlib
import os
import threading

from ..core.limits import WARNING
from ..errors import HnError, InputError, SecretShapedError
from . import mcp_calls, mcp_tools
from .mcp_tools import READ_TOOLS, WRITE_TOOLS, tool_names
from .mcp_wire import Screened, malformed, screened

__all__ = ["READ_TOOLS", "WRITE_TOOLS", "tool_names", "call", "read_resource", "get_prompt",
           "server_root", "build_server", "serve", "first_cause"]

# the SDK modules the server imports before it can answer (bench/bench_mcp.py times importing
# exactly these as the baseline of start-up)
SDK_MODULES = ("anyio", "anyio.to_thread", "mcp_types", "mcp.server.lowlevel", "mcp.shared.exceptions",
               "mcp.server.stdio")
_LOCK = threading.Lock()
OVERRIDE = '"allowSecretShaped": true'  # what a secret refusal tells an MCP client to send


# -- serving ------------------------------------------------------------------------------------


def _serve_one(root: str, work) -> tuple[bool, str]:
    """``work(repo)`` under the lock with a freshly opened repository: (is_error, text), text
    being ``work``'s answer or one line ``git-hn: <message>``."""
    from ..core.gostr import one_line
    from ..store.repo import open_repo

    with _LOCK:
        repo = None
        if not os.path.isdir(root):  # (Git said: git version failed: cannot change to '<root>')
            return True, ("git-hn: the directory this MCP server serves is gone (a removed worktree?): "
                          f"{one_line(root)}; restart git hn mcp from an existing checkout")
        try:
            repo = open_repo(root)
            return False, work(repo)
        except SecretShapedError as exc:
            if exc.finding is None:
                return True, "git-hn: " + one_line(exc.message)
            from ..core import secretlint

            return True, "git-hn: " + one_line(secretlint.refusal(exc.finding, override=OVERRIDE))
        except HnError as exc:  # (in the MCP tools' words when it has them: ``HnError.for_mcp``)
            return True, "git-hn: " + one_line(exc.for_mcp())
        except Exception as exc:  # noqa: BLE001 - like main(): no traceback, no locals, no text
            return True, f"git-hn: internal error: {type(exc).__name__}"
        finally:
            if repo is not None:
                _release(repo)


def call(root: str, name: str, arguments, *, allow_write: bool, prefix: str = "") -> tuple[bool, str]:
    """Run one tool call: (is_error, text). Text is the compact JSON document, or one line
    ``git-hn: <message>``. Synchronous; serialized by a lock. ``prefix``: ``server_root``'s."""
    from ..core import canonical
    from ..core.gostr import quoted

    if name not in mcp_calls.CALLS:
        return True, f'git-hn: unknown tool "{quoted(name)}"'
    if name in WRITE_TOOLS and not allow_write:
        return True, f"git-hn: tool {name} is not enabled; start git hn mcp --allow-write"
    arguments = {} if arguments is None else arguments
    work = mcp_calls.CALLS[name]
    return _serve_one(root, lambda repo: canonical.compact(work(repo, arguments, prefix)).decode("utf-8"))


def read_resource(root: str, uri: str) -> tuple[bool, str]:
    """The Markdown brief at ``HEAD`` (``hn://brief``): (is_error, text)."""
    from ..core.gostr import quoted

    if uri != mcp_tools.BRIEF_URI:
        return True, f'git-hn: unknown resource "{quoted(uri)}"'

    def work(repo):
        from . import brief

        _doc, data = brief.brief(repo, "HEAD", fmt="markdown")
        return data.decode("utf-8", "replace")

    return _serve_one(root, work)


def get_prompt(name: str, arguments, *, allow_write: bool) -> tuple[bool, str]:
    """The handoff prompt's text: (is_error, text). It is offered with the write tools only."""
    from ..core.gostr import quoted

    if name != mcp_tools.HANDOFF_PROMPT:
        return True, f'git-hn: unknown prompt "{quoted(name)}"'
    if not allow_write:
        return True, f"git-hn: prompt {name} is not enabled; start git hn mcp --allow-write"
    notes = (arguments or {}).get(mcp_tools.HANDOFF_ARGUMENT[0]) or ""
    return False, mcp_tools.handoff_prompt(notes if isinstance(notes, str) else "")


def _release(repo) -> None:
    """Close a per-call repository and forget it: a long-running server must not keep one
    entry per call in the process-wide list that ``main`` closes at exit."""
    from ..store import repo as repomod

    repo.close()
    opened = getattr(repomod, "OPENED", None)
    if opened is not None and repo in opened:
        opened.remove(repo)


def server_root(path: str | None = None) -> tuple[str, str]:
    """(the directory every call opens the repository from, the start directory's path from
    there). The first is the top of the work tree around ``path`` (``--repo``; default the
    current directory), or the directory itself in a bare repository; the second
    (``rev-parse --show-prefix``: "" at the top and in a bare repository) is what a path an agent
    gives is checked against, as the CLI checks ``--path`` against the current directory (the
    server keeps one: the directory it was started in). Outside a repository this fails before
    the server speaks MCP."""
    from ..core.gostr import shown_path
    from ..store.repo import NOT_A_REPOSITORY, open_repo

    start = os.path.abspath(os.getcwd() if path is None else path)
    if path is not None and not os.path.isdir(start):
        raise InputError(f"--repo {shown_path(path)} is not a directory")
    try:
        repo = open_repo(start)
    except InputError as exc:  # (an audit: the CLI's way out left --repo, made for this, unnamed)
        if not exc.message.startswith(NOT_A_REPOSITORY + "; "):
            raise
        if path is not None:
            raise InputError(f"{NOT_A_REPOSITORY}: --repo {shown_path(path)} is not inside one; give the directory "
                             "of a Git repository") from None
        raise InputError(f"{NOT_A_REPOSITORY}; start git hn mcp inside a Git repository, or give one with --repo "
                         "PATH (an agent's MCP configuration may start it in another directory)") from None
    try:
        proc = repo.git.run(["rev-parse", "--show-toplevel", "--show-prefix"])
        top, _nl, prefix = proc.stdout.decode("utf-8", "surrogateescape").partition("\n")
        if proc.returncode != 0 or not top or not os.path.isdir(top):
            return start, ""
        return top, prefix.removesuffix("\n")
    finally:
        _release(repo)


class Arrivals:
    """The tool calls and resource reads received and not yet answered, in the order they came
    off the wire, so each runs only when every one before it is done.

    The SDK starts a task per request and ran them concurrently: of a pipelined handoff, the same
    handoff again (a client's retry) and a retract, the retract could be signed between the two,
    so the retry was no longer the stream's last record and was signed as a second handoff
    instead of being answered as the replay it is. ``relay`` notes each request as it reads it
    (``arrive``) and each answer as it writes it (``answered``): a request the SDK refuses
    before the handler runs is answered, too, so nothing waits for it. A request the client
    cancels (``cancelled``) holds no one up. A request that never arrived here (a server run
    without ``relay``) is served at once."""

    WAITED = ("tools/call", "resources/read")

    def __init__(self):
        self._queue: list[_Turn] = []
        self._moved = None  # (an anyio event, made in the event loop when someone waits)

    def arrive(self, ident) -> None:
        self._queue.append(_Turn(ident))

    def answered(self, ident) -> None:
        """An answer went out: a request the SDK answered without running its handler (a refusal)
        leaves. A claimed turn leaves when its handler ends (``turn``), never here: a client that
        reused a waiting call's id for a ping (against JSON-RPC) took the waiting call's place out
        of the queue with the ping's answer, and that call failed with an internal error (an
        audit)."""
        turn = self._find(ident, claimed=False)
        if turn is not None:
            self._queue.remove(turn)
            self._wake()

    def cancelled(self, ident) -> None:
        turn = self._find(ident) or next((t for t in self._queue if str(t.ident) == str(ident)), None)
        if turn is not None:
            turn.cancelled = True
            self._wake()

    @contextlib.asynccontextmanager
    async def turn(self, ident):
        """Wait until every request that arrived before ``ident`` is done (its handler ended, or
        the SDK answered it without one) or cancelled."""
        import anyio

        mine = self._find(ident, claimed=False)
        try:
            if mine is not None:
                mine.claimed = True
                while mine in self._queue and any(not t.cancelled for t in self._queue[:self._queue.index(mine)]):
                    if self._moved is None:
                        self._moved = anyio.Event()
                    await self._moved.wait()
            yield
        finally:  # (it leaves when its handler ends: answered, cancelled or failed)
            if mine is not None and mine in self._queue:
                self._queue.remove(mine)
                self._wake()

    def _find(self, ident, claimed: bool | None = None):
        return next((t for t in self._queue if t.ident == ident and claimed in (None, t.claimed)), None)

    def _wake(self) -> None:
        if self._moved is not None:
            self._moved.set()
            self._moved = None


class _Turn:
    __slots__ = ("ident", "claimed", "cancelled")

    def __init__(self, ident):
        self.ident, self.claimed, self.cancelled = ident, False, False


def build_server(root: str, *, allow_write: bool, arrivals: Arrivals | None = None, prefix: str = ""):
    """The low-level MCP server (separate from ``serve`` so tests could run it in-process);
    ``arrivals``, shared with ``relay``, keeps calls in the order they came; ``prefix``:
    ``server_root``'s."""
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from ..store import process

    process.in_main()  # (loaded here, in the main thread, for its ``_MAIN_THREAD``: tool calls run in others)
    from ..version import VERSION, build

    tools = [types.Tool(name=n, description=mcp_tools.DESCRIPTIONS[n] + " " + WARNING,
                        input_schema=mcp_tools.SCHEMAS[n],
                        annotations=types.ToolAnnotations(**mcp_tools.annotations(n)))
             for n in tool_names(allow_write)]

    async def list_tools(_ctx, _params):
        return types.ListToolsResult(tools=tools)

    arrivals = Arrivals() if arrivals is None else arrivals

    async def call_tool(ctx, params):
        async with arrivals.turn(ctx.request_id):
            is_error, text = await anyio.to_thread.run_sync(
                lambda: call(root, params.name, params.arguments, allow_write=allow_write, prefix=prefix))
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)

    async def list_resources(_ctx, _params):
        return types.ListResourcesResult(resources=[types.Resource(**mcp_tools.BRIEF_RESOURCE)])

    async def read(ctx, params):
        uri = str(params.uri)
        async with arrivals.turn(ctx.request_id):
            is_error, text = await anyio.to_thread.run_sync(lambda: read_resource(root, uri))
        if is_error:
            raise MCPError(code=types.INVALID_PARAMS, message=text)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type=mcp_tools.BRIEF_RESOURCE["mime_type"], text=text)])

    async def list_prompts(_ctx, _params):
        prompts = []
        if allow_write:
            arg, about = mcp_tools.HANDOFF_ARGUMENT
            prompts.append(types.Prompt(name=mcp_tools.HANDOFF_PROMPT, description=mcp_tools.HANDOFF_DESCRIPTION,
                                        arguments=[types.PromptArgument(name=arg, description=about,
                                                                        required=False)]))
        return types.ListPromptsResult(prompts=prompts)

    async def prompt(_ctx, params):
        is_error, text = get_prompt(params.name, params.arguments, allow_write=allow_write)
        if is_error:
            raise MCPError(code=types.INVALID_PARAMS, message=text)
        return types.GetPromptResult(description=mcp_tools.HANDOFF_DESCRIPTION, messages=[
            types.PromptMessage(role="user", content=types.TextContent(text=text))])

    # the release with the build as semver build metadata: a client or its log names which code answers
    server = Server("git-hn", version=f"{VERSION}+{build()}", instructions=WARNING, on_list_tools=list_tools,
                    on_call_tool=call_tool, on_list_resources=list_resources, on_read_resource=read,
                    on_list_prompts=list_prompts, on_get_prompt=prompt)
    if isinstance(getattr(server, "middleware", None), list):  # (the SDK's context-tier middleware, 2.x)
        server.middleware.append(_not_initialized(types, MCPError))
    return server


NOT_INITIALIZED = "Not initialized: send initialize first (then notifications/initialized)"


def _not_initialized(types, MCPError):
    """A middleware that words the SDK's refusal of a request sent before the handshake: it said
    ``-32602 Invalid request parameters`` with empty data (an agent trial: a client that called a
    tool first could not tell why). The code stays (clients may key off it); the message says
    what to do. The handshake is taken as done when ``initialize`` was answered or
    ``notifications/initialized`` came, as the SDK takes it; before that, only the SDK's own
    refusal (an ``MCPError`` with exactly that text and no data) is reworded: invalid
    parameters raise a validation error, which is left as it is."""
    done = [False]

    async def gate(ctx, call_next):
        try:
            result = await call_next(ctx)
        except MCPError as exc:
            error = exc.error
            if not done[0] and error.code == types.INVALID_PARAMS and not error.data \
                    and error.message == "Invalid request parameters":
                raise MCPError(code=types.INVALID_PARAMS, message=NOT_INITIALIZED) from None
            raise
        if ctx.method in ("initialize", "notifications/initialized"):
            done[0] = True
        return result

    return gate


DRAIN_SECONDS = 600.0  # after stdin closes, how long requests already received may take to answer


def serve(root: str, *, allow_write: bool, prefix: str = "") -> None:
    """Serve MCP over stdin/stdout until the client closes stdin, then answer the requests it
    had sent (``relay``) and end. ``root`` and ``prefix``: ``server_root``'s."""
    import anyio
    from mcp.server.stdio import stdio_server

    arrivals = Arrivals()
    server = build_server(root, allow_write=allow_write, arrivals=arrivals, prefix=prefix)
    lines, restore = _claim_stdin()

    async def main():
        async with stdio_server(stdin=anyio.wrap_file(lines)) as (read, write):
            await relay(read, write, lambda r, w: server.run(r, w, server.create_initialization_options()),
                        arrivals=arrivals)

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # (anyio's task groups wrap what their tasks raised)
        raise first_cause(group) from None
    finally:
        restore()


def first_cause(group: BaseExceptionGroup) -> BaseException:
    """What ``main`` words of a task group's failure: a client that went away (the SDK's writer
    met a closed stdout) ended the server with ``internal error: ExceptionGroup`` and status 1,
    and a full disk under stdout was no better. The leaf that says most: an interruption, a
    closed pipe (``main`` exits quietly), a git-hn error, another ``OSError`` (``main``: cannot
    write the output: <reason>), else the first."""
    leaves, todo = [], [group]
    while todo:
        exc = todo.pop(0)
        if isinstance(exc, BaseExceptionGroup):
            todo[:0] = exc.exceptions
        else:
            leaves.append(exc)
    for says_most in (lambda e: not isinstance(e, Exception), lambda e: isinstance(e, BrokenPipeError),
                      lambda e: isinstance(e, HnError), lambda e: isinstance(e, OSError)):
        found = [e for e in leaves if says_most(e)]
        if found:
            return found[0]
    return leaves[0] if leaves else group


def _claim_stdin():
    """(the screened lines of the client's input, a function putting fd 0 back): the wire is
    read from a private duplicate of fd 0 while fd 0 points at the null device, as the SDK does
    for the stdin it opens itself, so a Git child never reads the client's messages."""
    import fcntl
    import sys

    try:
        if sys.stdin is None or sys.stdin.buffer.fileno() != 0:
            raise OSError
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except (OSError, ValueError, AttributeError):
        return Screened(sys.stdin.buffer), lambda: None
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    # (never closed: the SDK's reading thread may still block on it after the transport ends)
    return Screened(os.fdopen(private, "rb", closefd=False)), lambda: os.dup2(private, 0)


async def relay(read, write, run, drain_seconds: float = DRAIN_SECONDS, arrivals: Arrivals | None = None) -> None:
    """``run(read, write)`` between the transport's streams and the server, with three things the
    SDK's server does not do:

    - *calls run in the order they arrived* (``arrivals``, see ``Arrivals``);

    - *a request sent just before the client closes stdin is answered.* The SDK cancels every
      handler in flight at end of input, so ``printf '<init>\\n<call>\\n' | git hn mcp`` got no
      answer to the call, although a write it made was signed (its thread cannot be cancelled).
      At end of input the server's input stays open until every request received has its
      response or error written (or was cancelled by the client), for at most
      ``drain_seconds``;
    - *a line that is not a JSON-RPC message gets the JSON-RPC error* (``-32700`` parse error, or
      ``-32600`` invalid request, with ``id`` null) instead of nothing."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    to_server, server_reads = anyio.create_memory_object_stream(0)
    server_writes, from_server = anyio.create_memory_object_stream(0)
    pending: set = set()
    answered = anyio.Event()

    async def inward():
        nonlocal answered
        async with to_server:
            async for item in read:
                if isinstance(item, Exception):
                    await write.send(SessionMessage(malformed(types, item)))
                    continue
                message = item.message
                if isinstance(message, types.JSONRPCError) and screened(message):
                    error = types.ErrorData(code=message.error.code, message=message.error.message)
                    await write.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=message.id,
                                                                       error=error)))
                    continue
                if isinstance(message, types.JSONRPCRequest):
                    pending.add(message.id)
                    if arrivals is not None and message.method in Arrivals.WAITED:
                        arrivals.arrive(message.id)
                elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
                    pending.discard((message.params or {}).get("requestId"))
                    if arrivals is not None:
                        arrivals.cancelled((message.params or {}).get("requestId"))
                await to_server.send(item)
            with anyio.move_on_after(drain_seconds):
                while pending:
                    await answered.wait()
                    answered = anyio.Event()

    async def outward():
        async with from_server, write:  # (the transport writes until its stream is closed)
            async for item in from_server:
                message = item.message
                await write.send(item)
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
                    pending.discard(message.id)
                    if arrivals is not None:
                        arrivals.answered(message.id)
                    answered.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(inward)
        tg.start_soon(outward)
        await run(server_reads, server_writes)
