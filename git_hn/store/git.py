"""The one Git runner: every Git process git-hn starts goes through here (CONTRACT §10.0); the
child process itself (spawning, pipes, waiting, signals) is ``store.process``'s.

Owns: argv construction (lists only, never a shell), the process environment, timeouts, when to use
the reusable object readers (``store.reader``: ``cat-file --batch-command``, or ``--batch``/
``--batch-check`` before Git 2.36), and processes started early: a command that knows which
read-only questions it will ask starts them first (``start_early``), so that Git's start-up
overlaps with Python's imports; ``run`` with the same arguments collects the answer. Trusts: the
``git`` found on PATH. Does not trust: object names, ref names or paths from users or remotes
(callers put ``--end-of-options`` before them; never interpreted here). Presence by listing a
whole store is ``store.bulk_objects``' (with this runner).

Every process runs with ``GIT_NO_REPLACE_OBJECTS=1`` (one who can write ``refs/replace/*`` must not
substitute memory objects) and ``GIT_LITERAL_PATHSPECS=1`` (paths are bytes, never pathspec magic
such as ``:(glob)``). A scrubbed runner (quarantine work) also drops every inherited variable that
could redirect Git to another repository, object store, hook or configuration: those Git itself sets
for hooks (``GIT_DIR``, ``GIT_OBJECT_DIRECTORY``, ``GIT_QUARANTINE_PATH``…) and ``git -c`` settings
(``GIT_CONFIG_PARAMETERS``, ``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n``), which would outrank the
quarantine's own configuration. It keeps the user's transport and credential settings (``GIT_SSH``,
``GIT_SSH_COMMAND``, ``GIT_SSH_VARIANT``, ``GIT_PROXY_COMMAND``, ``GIT_ASKPASS``, ``SSH_AUTH_SOCK``,
proxy variables) and the choice of the user's own configuration files (``GIT_CONFIG_GLOBAL``,
``GIT_CONFIG_SYSTEM``, ``GIT_CONFIG_NOSYSTEM``, as ``HOME`` is kept): they say how to reach a
remote, not which repository, objects or hooks Git uses. A process that may contact a remote
(``transport.remote_env``) runs in a session of its own (with ``run``'s ``tty``): with no terminal,
neither Git nor ssh asks.
"""

from __future__ import annotations

import os
import time

from ..core.lines import lines_of
from ..errors import GitError, GitTimedOut, OutputTooLarge
from .process import DEVNULL, PIPE, Child, Completed, Oversize, Timeout, exchange, not_started, popen
from .reader import Reader, answer_fields, object_names
from .threads import Background

_FORCED = {"GIT_NO_REPLACE_OBJECTS": "1", "GIT_LITERAL_PATHSPECS": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
_SCRUBBED = frozenset({
    "GIT_DIR", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
    "GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER", "GIT_EXEC_PATH", "GIT_TRACE",
    "GIT_QUARANTINE_PATH", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE"})
# dropped by every runner, scrubbed or not: they change the parents Git reports (``git log``,
# ``rev-list``) without changing the raw headers that decide ancestry (CONTRACT §10.0), and the
# shortcuts that trust Git's report look for ``info/grafts`` and ``shallow`` only
_ANCESTRY = ("GIT_GRAFT_FILE", "GIT_SHALLOW_FILE")
# which configuration files are the user's own: kept, unlike every other GIT_CONFIG* variable
_CONFIG_FILES = frozenset({"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"})


# The questions almost every command asks first, started early when the command is known.
DISCOVERY = ("rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-object-format")
STREAM_CONFIG = ("config", "--get", "hn.stream")  # the stream a write chooses (``store.streamchoice``)
MEMORY_LISTING = ("for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory",
                  "refs/hn/remotes")
LOCAL_LISTING = ("for-each-ref", "--format=%(refname)", "refs/hn/memory/")  # the user's own streams
def config_false(value: str | None) -> bool:
    """Whether Git reads a boolean setting's ``value`` as false (None: a bare key, true)."""
    return value is not None and value.strip().lower() in ("false", "no", "off", "0", "")


def publication_off_question(remote: str) -> tuple[str, ...]:
    return ("config", "--type=bool", "--get", f"remote.{remote}.hnPublish")  # (Git's own reading)


# besides the listing, in one answer: the remotes; hn.prePush; every remote's hnPublish, fetch
# refspecs, push refspecs, mirror setting and URLs; URL rewrites (``hook_runs`` then asks Git for no push URL)
PRE_PUSH_QUESTIONS = (("remote",), ("config", "--get-regexp",
                                    r"^(hn\.prepush|remote\..*\.(hnpublish|fetch|push|mirror|url|pushurl)"
                                    r"|url\..*\.(insteadof|pushinsteadof))$"))
# a ref transaction of full object IDs: without the ambiguity check Git does not look each one up
# as a ref name (a dozen stats per ref at 10,000 refs)
REF_TRANSACTION = ("-c", "core.warnAmbiguousRefs=false", "update-ref", "--stdin")


def scrubbed(name: str) -> bool:
    """Whether a scrubbed runner drops the inherited variable ``name``."""
    return name in _SCRUBBED or (name.startswith("GIT_CONFIG") and name not in _CONFIG_FILES)


def git_environment(extra: dict | None = None, scrub: bool = False) -> dict:
    env = dict(os.environ)
    for key in _ANCESTRY:
        env.pop(key, None)
    if scrub:
        for key in list(env):
            if scrubbed(key):
                del env[key]
    env.update(_FORCED)
    if extra:
        env.update(extra)
    return env


class Git:
    """Runs ``git`` in one directory with one environment."""

    def __init__(self, cwd: str | None = None, extra_env: dict | None = None, scrub: bool = False,
                 timeout: float = 300.0):
        self.cwd = cwd
        self.env = git_environment(extra_env, scrub)
        self.timeout = timeout
        self.version = (0, 0)  # (major, minor), set by the repository's version check
        self._batch: Reader | None = None
        self._check: Reader | None = None
        self._early: dict[tuple, Started] = {}
        self._early_batch: Child | None = None
        self.found: tuple[str, str, str] | None = None  # ``discover.find``'s answer, if it had one

    # -- processes started ahead of need ---------------------------------------------------------

    def spawn(self, args, *, stdin: bool = False, env: dict | None = None, stdout_bytes: int = 0) -> Started:
        """Start ``git <args>`` now; ``finish`` gives its result. For read-only questions, and
        for writers that do nothing until fed on stdin (``update-ref --stdin``,
        ``unpack-objects``): a writer that is never fed is ``abandon``ed without effect.
        ``stdout_bytes``: what its output pipe holds unread (``process.Child``)."""
        full_env = self.env if env is None else {**self.env, **env}
        try:
            proc = popen(["git", *args], stdin=PIPE if stdin else DEVNULL, stdout=PIPE, stderr=PIPE, cwd=self.cwd,
                         env=full_env, stdout_bytes=stdout_bytes, start_new_session="GIT_ALLOW_PROTOCOL" in (env or ()))
        except OSError as exc:
            raise not_started(args, exc) from None
        return Started(proc, args, self.timeout)

    def start_early(self, questions=(DISCOVERY,), batch: bool = True) -> None:
        """Start read-only ``questions`` (argument tuples) and, with ``batch``, the object
        reader; ``run`` with equal arguments (and no input) collects an early answer."""
        for args in questions:
            self.ask_early(args)
        if batch:  # --batch-command needs Git 2.36; an older git's refusal is simply discarded
            self._early_batch = Reader.popen(self, "--batch-command")

    def early_answer(self, args, env: dict | None = None) -> Completed | None:
        """The answer of an early question, now (it stays there for ``run`` to collect)."""
        started = self._early.get(_early_key(args, env))
        return started.finish() if started is not None else None

    LISTING_PIPE_BYTES = 1 << 20  # an early ref listing up to this size (Linux's limit for a
    # user; ~5,000 memory refs) is written while the command imports: with the default 64 KiB
    # pipe, Git stopped there and wrote the rest only when the answer was collected. Only
    # listings: a larger pipe counts against the user's pipe quota while it exists (milliseconds)
    LISTINGS = ("for-each-ref", "ls-remote")

    def ask_early(self, args, env: dict | None = None) -> Started:
        """Start one read-only question now; ``run(args, env=env)`` later collects its answer."""
        if _early_key(args, env) in self._early:  # (asked, not collected: that answer; writes drop them)
            return self._early[_early_key(args, env)]
        size = self.LISTING_PIPE_BYTES if args and args[0] in self.LISTINGS else 0
        self._early_since = self._early_since if self._early else time.time_ns()  # (``early_since``)
        started = self._early[_early_key(args, env)] = self.spawn(args, env=env, stdout_bytes=size)
        return started

    def early_since(self) -> int | None:
        """``time.time_ns()`` before the oldest uncollected early question (None: none left)."""
        return self._early_since if self._early else None

    def forget_early(self) -> None:
        """Drop every early answer not yet collected: stale once this process changed refs."""
        for early in self._early.values():
            early.abandon()
        self._early.clear()

    def run(self, args: list[str], *, input: bytes | None = None, env: dict | None = None,
            timeout: float | None = None, on_start=None, limit: int | None = None, tty: bool = False) -> Completed:
        """Run ``git <args>``; never raises for a non-zero exit (callers decide). ``on_start``
        gets the process ID once Git runs (a push records it: ``store.given.pushing``); more
        than ``limit`` bytes of output stop Git and raise ``OutputTooLarge``. ``tty``: one that may
        contact a remote keeps this process's terminal (a push whose pre-push hook asks there)."""
        if self._early:
            if args and args[0] in _WRITERS:
                self.forget_early()
            elif input is None:
                early = self._early.pop(_early_key(args, env), None)
                if early is not None:
                    if timeout is not None:  # (counted from now: the bound still holds)
                        early.timeout = timeout
                    return early.finish(limit=limit)
        full_env = self.env if env is None else {**self.env, **env}
        try:  # (one that may contact a remote in a session of its own: ``transport.remote_env``)
            proc = popen(["git", *args], stdin=PIPE if input is not None else DEVNULL, stdout=PIPE,
                         stderr=PIPE, cwd=self.cwd, env=full_env,
                         start_new_session="GIT_ALLOW_PROTOCOL" in (env or ()) and not tty)
        except OSError as exc:
            raise not_started(args, exc) from None
        if on_start is not None:
            on_start(proc.pid)
        try:
            out, err = exchange(proc, input, timeout or self.timeout, limit)
        except (Timeout, Oversize) as exc:
            proc.kill_tree()  # (and ssh, its proxy: a remote's call that did not end)
            proc.wait()
            raise _stopped(args, exc, limit) from None
        return Completed(proc.args, proc.returncode, out, err)

    DETACHED: list = []  # processes ``detach`` started, for a caller that must see them end (a test)

    def detach(self, args: list[str], *, env: dict | None = None) -> None:
        """Start ``git <args>`` in a session of its own, with no input and its output discarded,
        and return at once: it outlives this command if it must (a thread reaps it when this
        process lives on). For housekeeping whose result nothing waits for, which Git makes
        safe to run beside other Git commands (``pack-refs``), as ``git gc --auto`` detaches.
        Best effort: a git that cannot be started is a no-op."""
        self.forget_early()
        try:
            proc = popen(["git", *args], stdin=DEVNULL, stdout=DEVNULL, stderr=DEVNULL, cwd=self.cwd,
                         env=self.env if env is None else {**self.env, **env}, start_new_session=True)
        except OSError:
            return
        self.DETACHED[:] = [p for p in self.DETACHED if p.returncode is None] + [proc]  # (no history kept)
        Background(proc.wait)

    def start(self, args: list[str], *, input: bytes = b"", env: dict | None = None):
        """Start ``git <args>`` with ``input`` on its stdin and return at once; ``.wait()`` on
        the result gives (exit status, stdout, stderr). For work that can overlap with Python
        (a ref transaction: early answers are dropped, as for every writer)."""
        self.forget_early()
        full_env = self.env if env is None else {**self.env, **env}
        try:  # (a session of its own: see ``prepare``)
            proc = popen(["git", *args], stdin=PIPE, stdout=PIPE, stderr=PIPE, cwd=self.cwd, env=full_env,
                         start_new_session=True)
        except OSError as exc:
            raise not_started(args, exc) from None
        box: dict = {}
        thread = Background(lambda: box.setdefault("io", proc.communicate(input)))

        class Overlapped:
            pid = proc.pid

            def wait(self_inner):
                thread.join()
                out, err = box["io"]
                return proc.returncode, out, err

        return Overlapped()

    def prepare(self, updates: list[str], *, env: dict | None = None) -> Prepared:
        """Start a ref transaction and return at once: ``update-ref --stdin`` reads ``start``,
        the ``updates`` (``create``/``update`` lines) and ``prepare``, then locks and checks
        every ref while Python works. Nothing is written before ``Prepared.commit``; ``abort``,
        or the end of this process (Git aborts a started transaction at the end of its input),
        leaves every ref as it was.

        Git runs in a session of its own: a Ctrl-C or a ``kill`` of the command's process group
        reached it while it created its lock files, and Git registers a lock for removal only
        once the file exists, so a signal in between left a ``.lock`` that stopped every later
        transaction on that ref. Interrupted, git-hn aborts the transaction (or, killed, closes
        its input), and Git removes every lock itself."""
        full_env = self.env if env is None else {**self.env, **env}
        try:
            proc = popen(["git", *REF_TRANSACTION], stdin=PIPE, stdout=PIPE, stderr=PIPE, cwd=self.cwd,
                         env=full_env, start_new_session=True)
        except OSError as exc:
            raise not_started(REF_TRANSACTION, exc) from None
        err: list[bytes] = []  # drained meanwhile: a hook's chatter must never block Git
        drain = Background(lambda: err.append(proc.stderr.read()))
        prepared = Prepared(self, proc, updates, drain, err)
        try:
            proc.stdin.write(("start\n" + "".join(u + "\n" for u in updates) + "prepare\n").encode())
            proc.stdin.flush()
        except OSError:  # it ended early: ``ready`` says so
            pass
        return prepared

    def stdout_only(self, args: list[str]) -> tuple[int, bytes]:
        """(exit status, stdout) of ``git <args>`` with stderr discarded: one blocking read, for
        large listings (``run`` multiplexes two pipes in small reads)."""
        try:
            proc = popen(["git", *args], stdin=DEVNULL, stdout=PIPE, stderr=DEVNULL, cwd=self.cwd, env=self.env)
        except OSError as exc:
            raise not_started(args, exc) from None
        with proc:
            data = proc.stdout.read()
        return proc.returncode, data

    def out(self, args: list[str], *, input: bytes | None = None, env: dict | None = None,
            error: str | None = None) -> str:
        """Run and return stdout without the final newline; a failure raises ``GitError``."""
        proc = self.run(args, input=input, env=env)
        if proc.returncode != 0:
            raise GitError(error or f"git {args[0]} failed: {first_line(proc.stderr)}")
        return proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n")

    def lines(self, args: list[str]):
        """Yield stdout lines of ``git <args>`` as they come; closing the generator stops Git:
        for answers usually found early in a long listing (a recent commit in a long chain), so
        that the rest is never produced."""
        try:
            proc = popen(["git", *args], stdout=PIPE, stderr=DEVNULL, cwd=self.cwd, env=self.env)
        except OSError as exc:
            raise not_started(args, exc) from None
        try:
            for line in proc.stdout:
                yield line.rstrip(b"\n").decode("ascii", "replace")
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            proc.wait()

    # -- batch processes -----------------------------------------------------------------------

    def _reader(self) -> Reader:
        """The persistent process for object contents: with Git 2.36 or newer one
        ``--batch-command`` process answers contents and info questions alike."""
        if self._batch is None:
            mode = "--batch-command" if self.version >= (2, 36) else "--batch"
            early, self._early_batch = self._early_batch, None
            if early is not None and mode != "--batch-command":
                Reader.end(early)
                early = None
            self._batch = Reader(self, mode, early)
        return self._batch

    def _checker(self) -> Reader:
        if self.version >= (2, 36):
            return self._reader()
        if self._check is None:
            self._check = Reader(self, "--batch-check")
        return self._check

    def read_object(self, oid: str) -> tuple[str, bytes] | None:
        """(type, content) of an object, or None when it is missing."""
        return self._reader().read(oid)

    def read_objects(self, oids: list[str]) -> list[tuple[str, bytes] | None]:
        return self._reader().read_many(oids)

    def read_objects_bounded(self, oids: list[str], max_size: int) -> list[tuple[str, int, bytes | None] | None]:
        """(type, size, content) per object; content is None when size exceeds ``max_size``.
        An oversize object is drained from the pipe in chunks, never held in memory, so a hostile
        object costs time but not memory, and no second process is needed to learn sizes first."""
        return self._reader().read_many(oids, max_size)

    def object_info(self, name: str) -> tuple[str, str, int] | None:
        """(oid, type, size) for an object name, or None when it is missing."""
        return self._checker().info(name)

    def object_infos(self, names: list[str]) -> list[tuple[str, str, int] | None]:
        return self._checker().info_many(names)

    # -- bulk reads: one process, one buffered exchange, parsed in C-sized steps ----------------

    INFOS_BY_READER = 512
    BULK_NAMES = 32768  # names a process: 200,000 at once parsed into ~180 MiB for a moment

    def infos_bulk(self, names: list[str], *, oneshot: bool = False) -> list[tuple[str, str, int] | None]:
        """(oid, type, size) per name with one ``cat-file --batch-check --buffer`` process, or
        through the persistent process when that costs less: for a few names, and with Git 2.36
        or newer for up to ``INFOS_BY_READER`` (starting a process costs the caller about a
        millisecond; the persistent ``--batch-command`` process answers 512 names in less).

        ``oneshot`` never uses the persistent process, so another thread may call it while this
        one reads through that process.
        """
        if not names:
            return []
        if not oneshot and (len(names) < 8 or (self.version >= (2, 36) and len(names) <= self.INFOS_BY_READER)):
            return self.object_infos(names)
        if len(names) > self.BULK_NAMES:  # (``BULK_NAMES``: one process's, whose parse is transient)
            return [i for k in range(0, len(names), self.BULK_NAMES) for i in self.infos_bulk(
                names[k:k + self.BULK_NAMES], oneshot=oneshot)]
        data = object_names(names)
        proc = self.run(["cat-file", "--batch-check", "--buffer"], input=data)
        if proc.returncode != 0:
            raise GitError("git cat-file failed")
        lines = proc.stdout.split(b"\n") + [b""] * len(names)  # (one answer a name, in order)
        fields = [answer_fields(lines[i], n) for i, n in enumerate(names)]
        return [None if f is None else (f[0].decode("ascii"), f[1].decode("ascii"), int(f[2])) for f in fields]

    # Asked about an object it lacks, ``cat-file --batch-check`` rescans the pack directory
    # before it answers "missing" (about 17 us a miss here, 2.4 us a hit); listing a whole store
    # costs about 0.7 us an object. A fresh clone's first sync asks about every fetched object,
    # nearly all missing: 40,000 of them cost 0.6-0.8 s of Git asked one by one, 30 ms listed.
    LIST_FROM = 512  # questions from which listing the store may be cheaper
    LIST_RATIO = 8  # ... when the store holds at most this many objects per question

    def presence(self, oids: list[str], expected: bool = False) -> list[bool]:
        """Whether the repository has each of ``oids`` (full object IDs), in one or two processes:
        one ``cat-file --batch-check`` (``infos_bulk``), or, when many are asked of a store small
        against them (``count-objects -v``; no alternates), one listing of the store (``cat-file
        --batch-all-objects``) compared with them: the same answer (tested), and never a rescan
        (Git rescans its packs for each missing object asked); asked when ``expected`` (a check
        after a copy). A partial clone: through a view that never fetches (``store.promisor``)."""
        if self.without_lazy_fetch() is not self:
            return self._view.presence(oids, expected)
        if len(oids) >= self.LIST_FROM and not expected:
            listed = self._listed_presence(oids)
            if listed is not None:
                return listed
        return [i is not None for k in range(0, len(oids), self.BULK_NAMES)
                for i in self.infos_bulk(oids[k:k + self.BULK_NAMES], oneshot=True)]

    objects_of: tuple[str, str] | None = None  # (common git directory, object format: ``store.repo``)
    _view: Git | None = None  # whom ``presence`` asks (itself, or a partial clone's promisor-free view)

    def without_lazy_fetch(self) -> Git:
        """In a partial clone, a scrubbed runner reading the same objects that never fetches one
        (``store.promisor``); else this runner."""
        if self._view is None:
            from .promisor import view_env

            env = view_env(*self.objects_of, self.env) if self.objects_of else None
            self._view = self if env is None else Git(env["GIT_DIR"], extra_env=env, scrub=True, timeout=self.timeout)
            self._view.version = self.version
        return self._view

    def _listed_presence(self, oids: list[str]) -> list[bool] | None:
        """``presence`` by listing the store (``store.bulk_objects.listed_presence``)."""
        from .bulk_objects import listed_presence

        return listed_presence(self, oids)

    def close(self) -> None:
        for b in (self._batch, self._check):
            if b is not None:
                b.close()
        self._batch = self._check = None
        self.forget_early()
        if self._early_batch is not None:
            Reader.end(self._early_batch)
            self._early_batch = None


def _stopped(args, exc: Exception, limit: int | None) -> GitError:
    """The error for a git process stopped at its time or output bound."""
    if isinstance(exc, Oversize):
        return OutputTooLarge(f"git {args[0]} wrote more than {limit} bytes", limit or 0)
    return GitTimedOut(f"git {args[0]} timed out")


class Started:
    """A git process started before its answer is needed (``Git.spawn``)."""

    def __init__(self, proc: Child, args, timeout: float):
        self.proc, self.args, self.timeout = proc, args, timeout
        self.result: Completed | None = None

    def finish(self, data: bytes | None = None, limit: int | None = None) -> Completed:
        """Feed ``data`` (if stdin is a pipe), then collect the exit status and output (once:
        asking again returns the same result; ``limit`` as ``Git.run``'s)."""
        if self.result is not None:
            return self.result
        try:
            out, err = exchange(self.proc, data, self.timeout, limit)
        except (Timeout, Oversize) as exc:
            self.proc.kill_tree()  # (an early advertisement over ssh: ssh and its proxy too)
            self.abandon()
            raise _stopped(self.args, exc, limit) from None
        self.result = Completed(self.proc.args, self.proc.returncode, out, err)
        return self.result

    def feed(self, data: bytes) -> bool:
        """Give a writer all of its input now and return at once (it works while the caller
        does), when ``data`` fits in one atomic pipe write (``PIPE_BUF``: it never blocks on the
        fresh pipe); False, feeding nothing, otherwise. ``finish()`` then collects the result."""
        import select

        if self.result is not None or self.proc.stdin is None or len(data) > select.PIPE_BUF:
            return False
        try:
            os.write(self.proc.stdin.fileno(), data)
        except BrokenPipeError:
            pass  # it ended already: ``finish`` reports how
        self.proc.stdin.close()
        return True

    def abandon(self) -> None:
        """Stop it unheard: killed before it was fed, a writer has written nothing."""
        if self.proc.returncode is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


class Prepared:
    """A ref transaction Git prepares while Python works (``Git.prepare``)."""

    def __init__(self, git: Git, proc: Child, updates: list[str], drain, err: list[bytes]):
        self.git, self.proc, self.updates = git, proc, tuple(updates)
        self._drain, self._err = drain, err
        self._answer: bool | None = None
        self._result: tuple[int, bytes, bytes] | None = None
        self._out = b""  # stdout so far, read from its descriptor (never through a buffer)

    PREPARED = b"start: ok\nprepare: ok\n"

    def ready(self, block: bool = True) -> bool | None:
        """Git's answer to ``prepare``: True when every ref is locked and its old value checked
        (then only ``commit`` writes them); False when Git refused (nothing was written:
        ``abort`` it). With ``block`` False, None while Git is still preparing."""
        import select

        fd = self.proc.stdout.fileno()
        while self._answer is None:
            if len(self._out) >= len(self.PREPARED) or b"\n" in self._out[len(b"start: ok\n"):]:
                self._answer = self._out.startswith(self.PREPARED)
                break
            if not block and not select.select([fd], [], [], 0)[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:  # Git ended without preparing
                self._answer = False
                break
            self._out += chunk
        return self._answer

    def commit(self) -> Prepared:
        """Write the refs (Git renames its lock files); ``wait`` gives the outcome."""
        self.git.forget_early()  # answers taken before the refs moved are stale
        try:
            self.proc.stdin.write(b"commit\n")
        except (OSError, ValueError):
            pass  # Git ended: its status says so
        self._close_stdin()
        return self

    def wait(self) -> tuple[int, bytes, bytes]:
        """(exit status, the rest of stdout, stderr), once Git has ended."""
        if self._result is None:
            self._close_stdin()
            fd, rest = self.proc.stdout.fileno(), [self._out]
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                rest.append(chunk)
            out = b"".join(rest)
            if self._answer:
                out = out[len(self.PREPARED):]  # what follows the answers ``ready`` read
            self._drain.join()
            self.proc.wait()
            for stream in (self.proc.stdout, self.proc.stderr):
                stream.close()
            self._result = (self.proc.returncode, out, b"".join(self._err))
        return self._result

    def abort(self) -> None:
        """Release every lock unwritten (Git aborts at the end of its input) and wait for it:
        never a kill, which would leave Git's lock files behind."""
        if self._result is None:
            try:
                self.proc.stdin.write(b"abort\n")
            except (OSError, ValueError):
                pass
        self.wait()

    def _close_stdin(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass


# commands that change refs: early answers do not survive them (``Git.forget_early``)
_WRITERS = frozenset({"update-ref", "push", "fetch", "pack-refs", "unpack-objects", "symbolic-ref"})


def _early_key(args, env: dict | None) -> tuple:
    return tuple(args), tuple(sorted(env.items())) if env else ()


_early_runner: Git | None = None


def start_early(cwd: str, listing: bool, batch: bool = True) -> Git:
    """Start discovery, (``batch``) the object reader and (``listing``) the memory ref listing
    in ``cwd`` before the command imports the rest of git-hn; ``open_repo`` adopts the runner,
    which is returned for more early questions."""
    global _early_runner
    close_early()
    from .discover import find

    runner = Git(cwd)
    runner.found = find(cwd, runner.env)
    questions = () if runner.found is not None else (DISCOVERY,)
    runner.start_early(questions + ((MEMORY_LISTING,) if listing else ()), batch=batch)
    _early_runner = runner
    return runner


def discovery(runner: Git) -> list[str] | None:
    """What discovery found for an early runner (Git directory, common directory, object
    format: the lines of ``DISCOVERY``), from the file system or Git's early answer; None when
    Git found no repository or was not asked."""
    if runner.found is not None:
        return list(runner.found)
    found = runner.early_answer(DISCOVERY)
    lines = lines_of(found.stdout.decode("utf-8", "surrogateescape")) if found else []
    return lines if found is not None and found.returncode == 0 and len(lines) == 3 else None


def take_early(cwd: str) -> Git | None:
    """The runner ``start_early`` made for ``cwd`` (once), or None."""
    global _early_runner
    runner, _early_runner = _early_runner, None
    if runner is not None and runner.cwd != cwd:
        runner.close()
        return None
    return runner


def close_early() -> None:
    """Stop early processes nobody collected (a command that failed before opening its
    repository)."""
    global _early_runner
    if _early_runner is not None:
        _early_runner.close()
        _early_runner = None


def first_line(stderr: bytes) -> str:
    # (split on "\n", and a progress line's "\r": not ``splitlines``, which also cuts at the
    # U+2028 or U+0085 a name Git quotes may hold)
    text = [seg for row in stderr.decode("utf-8", "replace").split("\n")
            for seg in (row.rstrip("\r").rsplit("\r", 1)[-1].strip(),) if seg]
    line = text[-1] if text else "unknown error"
    for prefix in ("fatal: ", "error: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
    from ..core.gostr import one_line

    return one_line(line)[:240]
