"""Entry point of the ``git-hn`` executable (CONTRACT §0.5, §10.0, §10.1).

``main`` owns process-level behaviour: dispatching to the fast record path or to the typer app,
mapping every error (click's usage errors included) to exactly one ``git-hn: …`` line on stderr
with exit status 1, and never letting a traceback or a local variable reach the terminal. Unknown
exceptions print only their type name: their text could carry data (a payload, a key) that must
not be echoed. It also answers the shell completion scripts' hidden ``__complete memory-ids``
(``complete``), which prints verified memory IDs and nothing else.
"""

from __future__ import annotations

import os
import sys

from ..errors import HnError, UsageError
from . import render

SUMMARY = """\
usage: git hn <command> [options]

Start here: 'git hn demo' shows the whole flow in a throwaway repository.
In your project, 'git hn init' creates your signing identity,
'git hn hooks install' keeps memory in step with push and fetch,
'git hn replication select --all' chooses your teammates' memory and
'git hn sync' imports it (so does a git fetch that moves a branch,
with the hooks and a selection saved; with none saved, sync imports
every stream and a fetch nothing),
'git hn policy init' (then commit it) says whose memory to trust, and
'git hn setup claude' (or codex, cursor, agents-md) lets an agent use it.

git hn init [--name NAME]
git hn identity show|list|public
git hn identity export --output FILE | import FILE [--activate]
git hn identity use ACTOR | remove ACTOR [--backup FILE]
git hn memory record --kind KIND --at REV --applies MODE [record fields]
git hn memory record --input FILE|- --json
git hn memory handoff --at REV --applies MODE [record fields]
git hn memory handoff --input FILE|- --json [--at REV] [--applies MODE]
git hn memory supersede MEMORY [record fields]
git hn memory retract MEMORY --reason REASON
git hn memory challenge MEMORY --reason REASON [--evidence TYPED-ID]...
git hn memory show MEMORY [--json]
git hn memory recall [filters] [bounds] [--json]
git hn memory index rebuild|verify
git hn memory brief [--at REV] [--max-bytes N] [--include-untrusted]
                    [--json|--markdown]
git hn memory digest [--month YYYY-MM] [--include-untrusted] [--json]
git hn memory log [filters] [-n N | -N] [--graph] [--no-pager] [--json]
git hn memory export [--format jsonl|markdown] [filters] [--output FILE]
git hn memory import FILE|- [--stream ID] [--json]
git hn memory view [--at REV] [--output FILE] [--open]
git hn memory reanchor OLD NEW [--files-only]|--drop [--json]
git hn policy show [REV] [--json]
git hn policy init | trust [ACTOR] [--kind KIND]...
git hn policy untrust ACTOR|--kind KIND...
git hn replication select|show [REMOTE] ...
git hn replication forget-anchors REMOTE [COMMIT]... [--dry-run] [--json]
git hn sync [REMOTE] [--recover-shallow] [--rebase] [--json]
git hn hooks install|uninstall|status [--global]
git hn hooks run pre-push|post-rewrite|reference-transaction [ARGS]...
git hn mcp [--allow-write] [--repo PATH]
git hn setup claude|codex|cursor|agents-md [--remove] [--print]
git hn demo
git hn help [COMMAND]
git hn version [--json]

Run 'git hn <command> -h' for the options of a command. --no-color turns
colour off on a terminal for any command, given before or after it
(git hn --no-color memory log, git hn memory log --no-color).

The manual: man git-hn (or git help hn, git hn --help), with a page per
command group (man git-hn-memory) and the memory model (man 7 hn-memory).
"""

GROUPS = {
    "identity": ({"show", "list", "public", "export", "import", "use", "remove"},
                 "usage: git hn identity <show|list|public>", 'unknown identity command "{}"'),
    "memory": ({"record", "handoff", "show", "supersede", "retract", "challenge", "recall", "index",
                "brief", "digest", "log", "export", "import", "view", "reanchor"},
               None,  # bare, it prints the group's help (GROUP_HELP)
               'unknown memory command "{}"'),
    "policy": ({"show", "init", "trust", "untrust"}, "usage: git hn policy show [REV] [--json]",
               'unknown policy command "{}"'),
    "replication": ({"select", "show", "forget-anchors"}, "usage: git hn replication <select|show> [REMOTE]",
                    'unknown replication command "{}"'),
    "hooks": ({"install", "uninstall", "status"}, "usage: git hn hooks install|uninstall|status [--global]",
              'unknown hooks command "{}"'),
}
WRITES = ("record", "handoff", "supersede", "retract", "challenge", "import")  # (they choose a stream)
FAST_MEMORY = ("show", "brief", "digest", "retract", "challenge", "supersede", "log", "export", "import",
               "view")  # parsed without typer
TOP = {"init", "identity", "memory", "policy", "replication", "sync", "hooks", "demo", "version", "help",
       "mcp", "setup"}
HELP = ("-h", "--help")
GROUP_HELP = {"memory"}  # bare groups that print their help (the others: a usage error)
NESTED = (["memory", "index"], ["hooks", "run"])  # (a command word follows them: ``_without_no_color``)
COMPLETE = "__complete"  # hidden entry point of the shell completion scripts, never in help


def _wants_help(args: list[str]) -> bool:
    for a in args:
        if a == "--":
            return False
        if a in HELP:
            return True
    return False


def _start_git_early(listing: bool, stream: bool = False) -> None:
    """Start the git processes every such command begins with (discovery, the object reader and,
    for reads, the memory ref listing; for a write that may need it, ``git config hn.stream``)
    before importing the rest of git-hn: their start-up then overlaps with the imports (see
    ``store.git.start_early``)."""
    from ..store import git

    try:
        runner = git.start_early(os.path.abspath(os.getcwd()), listing)
        if stream and not os.environ.get("GIT_HN_STREAM"):  # (``store.streamchoice``'s order)
            runner.ask_early(list(git.STREAM_CONFIG))
    except (OSError, HnError):
        pass  # the command starts them itself and reports what fails


def _start_sync_early(args: list[str]) -> None:
    """``git hn sync``: besides discovery, ask for the remote's URL and, when its transport is
    allowed, start the advertisement and the accepted-ref listing, so that the remote's round
    trip overlaps with the imports. Anything unusual (a bad command line, a refused or missing
    remote) starts nothing more: the command itself then reports it."""
    from ..core.remotes import is_remote_name
    from ..store import git
    from .commands import parse_sync_args

    try:
        remote = parse_sync_args(args)[0]
        if not is_remote_name(remote):
            return
        # no object reader: a sync reads the main store's objects rarely, and late (it reads
        # what it fetched through the quarantine's own)
        _ask_remote_early(git.start_early(os.path.abspath(os.getcwd()), listing=False, batch=False), remote,
                          publishing=True)
    except (OSError, HnError):
        pass


def _start_pre_push_early() -> None:
    """The pre-push hook: the memory ref listing (10,000 streams: ~15 ms of Git), the object
    reader, the remote names and ``hn.prePush``, started before the rest of git-hn is imported."""
    from ..store import git

    try:
        runner = git.start_early(os.path.abspath(os.getcwd()), listing=True)
        for question in git.PRE_PUSH_QUESTIONS:
            runner.ask_early(question)
    except (OSError, HnError):
        pass  # the hook asks them itself and reports what fails


def _start_import_early(data: bytes) -> None:
    """The fetch-side hook: when a committed transaction moved remote-tracking refs of a remote
    with a saved selection, start that remote's advertisement (as ``git hn sync`` does) before
    importing the rest of git-hn. A remote without a selection is never contacted. Nothing here
    loads ``re`` or ``json`` before the advertisement has started (``core.remotes``)."""
    from ..core.lines import lines_of
    from ..core.remotes import is_remote_name, selection_file_name

    touched = set()
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split(" ")
        if len(parts) == 3 and parts[2].startswith("refs/remotes/") and "/" in parts[2][13:] \
                and parts[1].strip("0"):  # (a deletion brings nothing: ``run_reference_transaction``)
            touched.add(parts[2][13:].split("/", 1)[0])
    touched = {r for r in touched if is_remote_name(r)}
    if not touched:
        return
    from ..store import git

    try:
        cwd = os.path.abspath(os.getcwd())
        runner = git.start_early(cwd, listing=False, batch=False)
        lines = git.discovery(runner)
        if lines is None:
            return
        selections = os.path.join(os.path.normpath(os.path.join(cwd, lines[1])), "hn", "replication",
                                  "selections")
        for remote in sorted(touched):
            if os.path.isfile(os.path.join(selections, selection_file_name(remote))):
                _ask_remote_early(runner, remote)
    except (OSError, HnError):
        pass


def _ask_remote_early(runner, remote: str, publishing: bool = False) -> None:
    """Start what the sync of ``remote`` asks first on ``runner``: its URL, the accepted-ref
    listing and, for a selection of exact streams and a sync that publishes (``git hn sync``,
    which fetches such a selection by name), the listing of the user's own streams, in the same
    process (``store.shared_early``); else, once the URL is known and its transport allowed,
    the advertisement (the fetch hook's import always reads it; else nothing more: the sync
    reports it); then the stall setting (with the publication setting, when the sync
    publishes, in one process) and the Git version when it is not remembered yet. The
    advertisement is the longest of them and the sync waits for it first: it starts before the
    questions it does not need yet, and before anything loads ``re`` or ``json``. A sync by name
    does not wait for the URL here (it needs no advertisement): the sync collects it."""
    from ..core.remotes import REMOTES_PREFIX
    from ..store import git, shared_early, transport
    from ..store.git import LOCAL_LISTING

    url_question = runner.ask_early(transport.url_question(remote))
    accepted = ("for-each-ref", "--format=%(objectname) %(refname)", f"{REMOTES_PREFIX}{remote}/memory/")
    # a sync fetches a selection of exact streams by name; the fetch hook's import reads the
    # advertisement in any case (``fetch_hook.run_reference_transaction``)
    exact = publishing and _selects_exact_streams(runner, remote)
    if exact:  # and learns the user's own streams' names (``run._fetch_exact``): one listing of both;
        shared_early.ask_listings(runner, accepted, LOCAL_LISTING)  # no advertisement (the sync
    else:  # collects the URL itself)
        runner.ask_early(accepted)
        got = url_question.finish()
        url = got.stdout.decode("utf-8", "surrogateescape").strip()
        if got.returncode == 0 and transport.transport_allowed(url):
            runner.ask_early(transport.advertisement(url), env=transport.remote_env())
    stall = ("config", "--get", "hn.syncStallTimeout")
    if publishing:  # (read at the sync's start, before its ref writes would drop the answer)
        shared_early.ask_settings(runner, stall, git.publication_off_question(remote), remote)
    else:
        runner.ask_early(stall)
    _ask_version_early(runner)


def _ask_version_early(runner) -> None:
    """``git version`` now, when the repository does not remember this Git's version yet (a
    fresh clone's first command): ``open_repo`` collects the answer."""
    common = _common_dir(runner)
    if common is not None and not os.path.exists(os.path.join(common, "hn", "git-version-v0")):
        runner.ask_early(("version",))


def _common_dir(runner) -> str | None:
    from ..store import git

    lines = git.discovery(runner)
    return os.path.join(os.path.abspath(os.getcwd()), lines[1]) if lines is not None else None


def _selects_exact_streams(runner, remote: str) -> bool:
    """Whether ``remote``'s saved selection names memory streams only: a sync that knows their
    owners then fetches exactly their refs and needs no advertisement (``run._fetch_exact``).
    A hint read before the sync loads the selection properly; anything unusual says False. A
    file without the key ``"memories"`` names no stream, so it says False unparsed (the JSON
    parser's imports would delay the advertisement of an ``--all`` or actor selection)."""
    from ..core.remotes import SELECTION_MAX_BYTES, selection_file_name

    common = _common_dir(runner)
    if common is None:
        return False
    path = os.path.join(common, "hn", "replication", "selections", selection_file_name(remote))
    try:  # (an audit: a FIFO planted there held every sync for good; the sync's own read refuses it)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        data = os.read(fd, SELECTION_MAX_BYTES + 1)
    except OSError:
        return False
    finally:
        os.close(fd)
    if b'"memories"' not in data:
        return False
    from ..core import selection

    try:
        return selection.decode(data, remote).streams_only
    except HnError:
        return False


def complete(args: list[str]) -> int:
    """``git-hn __complete memory-ids [--targets] [PREFIX]``: the verified memory IDs that start
    with PREFIX, one per line, for the shell completion scripts (``docgen``).

    PREFIX is lowercase hex, optionally after ``sha256:``; each ID is printed in the same form
    (bare 64-hex IDs complete within one shell word, since ``:`` splits words in bash). With
    ``--targets`` only records and supersedes are listed: what ``supersede``, ``retract`` and
    ``challenge`` can target. Only IDs are printed, never author text. The IDs come from the
    verified state (``stateview``: one ``for-each-ref`` and one SQL query when it is current),
    or from the full collection when the state cannot answer, exactly as ``show`` finds them.
    Anything unusual (no repository, a bad prefix, an invalid stream, a lock) prints nothing
    and exits 0: completion must never write into the user's command line or terminal."""
    import contextlib

    targets = "--targets" in args
    words = [a for a in args if a != "--targets"]
    if not words or words[0] != "memory-ids" or len(words) > 2:
        return 0
    prefix = words[1] if len(words) == 2 else ""
    form = "sha256:" if prefix.startswith("sha256:") else ""
    hexpart = prefix[len(form):]
    if len(hexpart) > 64 or hexpart.strip("0123456789abcdef"):
        return 0
    with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
        try:
            from ..service.names import memory_ids
            from ..store.repo import open_repo

            ids = memory_ids(open_repo(), hexpart, targets)
        except Exception:  # noqa: BLE001 - see the docstring: nothing, whatever went wrong
            return 0
    sys.stdout.write("".join(f"{form}{mid[len('sha256:'):]}\n" for mid in ids))
    return 0


PUBLISHER_WAIT = 600.0  # seconds: ``service.replication.background.WAIT`` (a test holds them equal)


# ``version -h`` in the layout of every other command's help (typer's), which it does not go
# through: the version answers without importing typer
VERSION_HELP = """\
usage: git hn version [OPTIONS]

  Print git-hn's version and build (a digest of its code); with --json, one
  line of JSON with the protocol it speaks.

Options:
  --json      print one line of JSON
  -h, --help  Show this message and exit.
"""


def _fitted(text: str, width: int | None) -> str:
    """``SUMMARY`` on a terminal narrower than it: a paragraph of prose with a line too long
    is filled again to ``width``; a usage line too long goes on under its command's words (``git
    hn memory brief ``), as the summary's own continuation lines do."""
    if width is None or all(len(line) <= width for line in text.split("\n")):
        return text
    import textwrap

    out: list[str] = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        if all(len(line) <= width for line in lines):
            out.append(block)
        elif not any(line.startswith("git hn ") for line in lines):  # (a quoted command stays whole)
            out.append(textwrap.fill(render.together(" ".join(lines)), width, break_long_words=False,
                                     break_on_hyphens=False).replace(render.KEPT, " "))
        else:
            fitted = []
            for line in lines:
                words = line.split(" ")
                lead = next((i for i, w in enumerate(words)  # (the command's words: lower case, maybe a hyphen)
                             if w.startswith("-") or not (w.replace("-", "").isalpha() and w.islower())), len(words))
                indent = len(" ".join(words[:lead])) + 1 if line.startswith("git hn ") else 4
                fitted += [part.replace(render.KEPT, " ") for part in textwrap.wrap(
                    render.together(line, commands=False), width,
                    subsequent_indent=" " * (indent if indent <= width // 2 else 4), break_long_words=False,
                    break_on_hyphens=False)] if len(line) > width else [line]
            out.append("\n".join(fitted))
    return "\n\n".join(out)


def _without_no_color(argv: list[str]) -> list[str]:
    """``argv`` without the ``--no-color`` given where a command's word may stand, which then
    holds for this run (``render.no_color_first``): before the command, as Git takes ``-c`` there
    (a newcomer trial was told 'unknown command "--no-color"'), between a group and its command
    (``memory --no-color log``), after ``memory index`` and after ``hooks run`` (before the hook's
    name: what follows the name is Git's). After the command its parser takes it
    (``options.GLOBAL_OPTS``)."""
    render.no_color_first = False
    if argv[:1] == ["help"] and "--no-color" in argv[1:]:  # (``git hn help --no-color memory``)
        render.no_color_first = True
        return [a for a in argv if a != "--no-color"]
    argv, at = list(argv), 0
    while True:
        while argv[at:at + 1] == ["--no-color"]:
            render.no_color_first = True
            del argv[at]
        if not (at == 0 and argv[:1] and argv[0] in GROUPS or at == 1 and argv[:2] in NESTED):
            return argv
        at += 1


def dispatch(argv: list[str]) -> int:
    argv = _without_no_color(argv)
    if argv[:1] in (["help"], *([h] for h in HELP)) and argv[1:2] and not argv[1].startswith("-"):
        # ``git hn help memory``, ``git hn -h memory``: as ``git hn memory -h`` (they printed the summary)
        argv = [*argv[1:], "--help"]
        if argv[:2] == ["hooks", "run"]:  # (``help hooks run pre-push``: that help, never the hook; a review
            argv = ["hooks", "run", "--help"]  # found it ran the hook, which read stdin first)
    if not argv or argv[0] in ("help", *HELP):  # (fitted to a narrower terminal: a newcomer trial's 60 columns)
        sys.stdout.write(_fitted(SUMMARY, render.terminal_width(sys.stdout)) if render.on_terminal() else SUMMARY)
        return 0
    cmd = argv[0]
    if cmd == COMPLETE:
        return complete(argv[1:])
    if cmd in ("version", "--version"):
        rest = argv[1:]
        if _wants_help(rest):
            sys.stdout.write(VERSION_HELP)
            return 0
        if rest not in ([], ["--json"]):
            from .options import switches

            switches(rest, ("--json", "--no-color"), "usage: git hn version [--json]")  # (``GLOBAL_OPTS``)
        from ..version import report

        sys.stdout.write(report("--json" in rest) + "\n")
        return 0
    if cmd == "hooks" and argv[1:2] == ["run"]:
        # ``hooks run HOOK -h`` too: Git never calls a hook so (pre-push gets a remote and a URL,
        # the others a word of their own), and a help must not wait for stdin (a review)
        if argv[2:3] in (["-h"], ["--help"]) or argv[3:] in (["-h"], ["--help"]):
            from .app import run_app  # (laid out as every command's -h, as git-hn-hooks(1) says it)

            return run_app(["hooks", "run", "--help"])
        if argv[2:3] not in (["pre-push"], ["post-rewrite"], ["reference-transaction"], ["publish"]):
            from .hooks_cmd import hooks_run_usage  # (no hook: its usage, without reading stdin)

            return hooks_run_usage(argv[2:])
        data = sys.stdin.buffer.read()
        mark = os.environ.pop("HN_WRAPPER", "")  # (the wrapper's; not for the processes started below)
        from ..store.process_tree import is_pid

        if argv[2:3] == ["publish"] and len(argv) == 5 and is_pid(argv[4]):  # (int() of "²" or 4,301 digits raised)
            # the background publisher: the user's push it waits for ends first, before this
            # process loads the rest of git-hn (its imports would compete with that push for CPU)
            from ..store.process import wait_for_exit

            wait_for_exit(int(argv[4]), PUBLISHER_WAIT)
        if argv[2:4] == ["reference-transaction", "committed"] and argv[4:5] not in (["quiet"], ["unanswered"],
                                                                                     ["own"]):
            # (``quiet``: the wrapper found nothing to import, and asks nothing more; ``unanswered``:
            # it asked, and the remote did not answer in time: the import fails without asking again)
            _start_import_early(data)
        elif argv[2:3] == ["pre-push"] and not os.environ.get("HN_HOOK_ACTIVE"):
            # pre-commit's "migration mode" runs the wrapper as pre-push.legacy with this set; it
            # must not reach git-hn's own publication push (pre-commit's hook there refuses it),
            # nor the Git runner, which takes the environment as it is when it starts
            os.environ.pop("PRE_COMMIT_RUNNING_LEGACY", None)
            _start_pre_push_early()
        from .hooks_cmd import hooks_run_command

        return hooks_run_command(argv[2:], data, mark)
    if cmd == "sync" and not _wants_help(argv[1:]):
        _start_sync_early(argv[1:])
        from .commands import sync_command

        return sync_command(argv[1:])
    if cmd == "mcp" and not _wants_help(argv[1:]):  # typer-free: tools/list is answered sooner
        from .commands import mcp_command, parse_mcp_args

        return mcp_command(*parse_mcp_args(argv[1:]))
    if render.stderr_on_terminal():  # (nothing more is loaded for agents and scripts)
        from . import notice

        notice.install()  # a person at a terminal sees a full verification that takes a while
    if cmd not in TOP:
        from ..core.gostr import quoted
        from ..core.hints import append
        from ..core.mistyped import closest

        # a group's command typed without its group (git hn log, git hn recal): memory's first
        words = {s: f"git hn {g} {s}" for g in sorted(GROUPS, key=lambda g: g == "memory") for s in GROUPS[g][0]}
        words.update((t, t) for t in TOP)
        words.update((w, "git hn sync") for w in ("fetch", "pull", "push"))  # (a trial typed git hn fetch)
        best = words.get(cmd) or words.get(closest(cmd, words))
        hint = f"did you mean {best}?" if best else ""
        raise HnError(append(f"unknown command \"{quoted(cmd)}\"; run 'git hn help'", hint))
    if cmd in GROUPS:
        subs, usage, unknown = GROUPS[cmd]
        if len(argv) == 1:
            if cmd not in GROUP_HELP:
                listed = usage.split(" ", 4)[-1]  # the contract's usage names only some of them
                more = sorted(s for s in subs if s not in listed)
                raise UsageError(f"{usage}; missing the {cmd} command" +
                                 (f" (git hn {cmd} -h also lists {', '.join(more)})" if more else ""))
            from .app import run_app

            return run_app([cmd, "--help"])
        sub = argv[1]
        if sub not in subs and sub not in HELP:
            from ..core.gostr import quoted
            from ..core.hints import append
            from ..core.mistyped import did_you_mean

            raise HnError(append(unknown.format(quoted(sub)),
                                 did_you_mean(sub, sorted(subs)) or f"git hn {cmd} -h lists them"))
        if cmd == "memory" and sub == "index" and (len(argv) == 2 or argv[2] not in ("rebuild", "verify", *HELP)):
            if _wants_help(argv[2:]):  # (``memory index bogus -h``: the index's help, as -h anywhere)
                from .app import run_app

                return run_app(["memory", "index", "--help"])
            raise UsageError(_index_usage(argv[2:]))
        if cmd == "memory" and sub in ("record", "handoff", "recall", *FAST_MEMORY) \
                and not _wants_help(argv[2:]):
            _start_git_early(listing=sub not in ("record", "handoff"),
                             stream=sub in WRITES and not any(a == "--stream" or a.startswith("--stream=")
                                                              for a in argv[2:]))
        if cmd == "memory" and sub in ("record", "handoff") and not _wants_help(argv[2:]):
            from .fast import run_record

            return run_record(argv[2:], handoff=(sub == "handoff"))
        if cmd == "memory" and sub == "recall" and not _wants_help(argv[2:]):
            from .fast import run_recall

            return run_recall(argv[2:])
        if cmd == "memory" and sub in FAST_MEMORY and not _wants_help(argv[2:]):
            from .fast import run_memory

            return run_memory(sub, argv[2:])
    from .app import run_app

    return run_app(argv)


def _index_usage(words: list[str]) -> str:
    """``git hn memory index`` without ``rebuild`` or ``verify``: its usage, and what it was given."""
    from ..core import hints, mistyped
    from ..core.gostr import quoted
    from .options import every_option

    usage = "usage: git hn memory index rebuild|verify"
    if not words:
        return f"{usage}; missing the index command"
    if words[0].startswith("-"):
        return f"{usage}; {mistyped.unknown_option(words[0].partition('=')[0], (), every_option())}"
    return hints.append(f'{usage}; unknown index command "{quoted(words[0])}"',
                        mistyped.did_you_mean(words[0], ("rebuild", "verify")))


def _dispatch_and_close(args: list[str]) -> int:
    try:
        return dispatch(args)
    finally:
        repo_module = sys.modules.get("git_hn.store.repo")
        if repo_module is not None:
            repo_module.close_all()
        git_module = sys.modules.get("git_hn.store.git")
        if git_module is not None:
            git_module.close_early()


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the exit's flush does not fail again on what is left."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:  # pragma: no cover
        pass


# the usage texts CONTRACT §10.1 fixes (its table): they stay first, any reason after them;
# git-hn's own commands (log, view, export, …) say the reason first (``hints.reason_first``)
CONTRACT_USAGES = tuple(f"usage: git hn {c}" for c in (
    "init", "identity <", "identity show", "identity list", "identity public", "memory <", "memory record",
    "memory handoff", "memory supersede", "memory retract", "memory challenge", "memory <retract",
    "memory show", "memory recall", "memory brief", "memory digest", "memory index", "policy show",
    "replication <", "replication select", "replication show", "sync", "hooks", "mcp", "demo"))


# a git-hn usage line longer than this, after its reason, is named by its -h instead: log's 172
# characters after ``unknown option --bogus`` buried the reason (a newcomer trial)
LONG_USAGE = 100


def short_usage(message: str) -> str:
    """``reason; usage: git hn memory log [--kind K] …`` (``reason_first``'s form) as ``reason;
    git hn memory log -h shows the options`` when that usage line is longer than ``LONG_USAGE``."""
    reason, sep, usage = message.rpartition("; usage: ")
    asked = not sep and message.endswith(")")  # (after a question: ``hints.append``'s parentheses)
    if asked:
        reason, sep, usage = message[:-1].rpartition(" (usage: ")
    if not sep or len("usage: " + usage) <= LONG_USAGE:
        return message
    words = []
    for word in usage.split(" "):
        if not word or not word.replace("-", "").isalpha() or not word.islower():
            break
        words.append(word)
    named = f"{' '.join(words)} -h shows the options"
    return f"{reason} ({named})" if asked else f"{reason}; {named}"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None and sys.getfilesystemencoding() != "utf-8":
        # argv's bytes as UTF-8, as Git and the file system have them: Python decoded them in
        # the locale's codec, and ISO-8859-1 signed ``--path café.txt`` as ``cafÃ©.txt``; a byte
        # that is not UTF-8 stays a lone surrogate, which every signed field refuses, as in a
        # UTF-8 locale (``store.argpath``: files named by arguments are opened from the same bytes)
        args = [os.fsencode(a).decode("utf-8", "surrogateescape") for a in args]
    render.set_up_streams()
    render.ignore_bad_sizes()
    try:
        return _dispatch_and_close(args)
    except HnError as exc:
        if isinstance(exc, UsageError):
            from ..core.hints import reason_first

            render.error(short_usage(reason_first(exc.message, CONTRACT_USAGES)))
        else:
            render.error(exc.message)
        return 1
    except KeyboardInterrupt:
        # before anything else (no call into Python code first, whose entry would run a pending
        # handler): git passes the terminal's Ctrl-C on to git-hn, which so often gets two, and the
        # second, raised while the first is reported, printed a traceback (a trial: 11 in 79)
        import _signal

        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
        render.error(INTERRUPTED)
        return 1
    except BrokenPipeError:
        _quiet_stdout()
        return 1
    except OSError as exc:
        # what the services do not word themselves: mostly the output (a full disk or a closed
        # terminal under stdout: the system's fixed text only, never data); a file's error names
        # its file (a read-only .git under hooks install is not "the output")
        if os.environ.get("GIT_HN_DEBUG") == "1":
            import traceback

            traceback.print_exception(type(exc), exc, None)
        if exc.filename is not None and exc.strerror:
            from ..core.gostr import bounded, spell_backslash

            render.error(f"cannot change {spell_backslash(bounded(os.fsdecode(exc.filename), 1024))}: {exc.strerror}")
            return 1
        _quiet_stdout()
        render.error(f"cannot write the output: {exc.strerror}" if exc.strerror else
                     f"internal error: {type(exc).__name__}")
        return 1
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback, no locals
        if os.environ.get("GIT_HN_DEBUG") == "1":
            import traceback

            traceback.print_exception(type(exc), exc, None)
        render.error(f"internal error: {type(exc).__name__}")
        return 1


GC_EVERY = 50_000  # (``run``)


def run() -> None:
    """The ``git-hn`` executable: ``main``, then an exit that skips the interpreter's teardown
    (about 4 ms with a read command's modules loaded, a tenth of its whole cost). Nothing is
    left for the teardown to do: every ref was written by git, state and private files were
    committed or renamed into place, child processes were waited for and pools closed before
    ``main`` returned; only the standard streams need flushing, done here.

    The cyclic garbage collector runs every ``GC_EVERY`` allocations, not Python's 700: a command
    allocates some 13,000 objects that outlive it (its modules' functions, classes, tables), and the
    default ran about 18 collections in a record or a recall, 3 ms of it (issue 11, fixed cost),
    to free about a hundred objects. A long command (``sync``, ``mcp``) is still collected. The
    executable (``bin/git-hn``) sets the same threshold on its first line, before any import."""
    import gc

    gc.set_threshold(GC_EVERY, *gc.get_threshold()[1:])
    try:
        code = main()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a reader that went away: the exit status says so
                code = code or 1
    except KeyboardInterrupt:  # Ctrl-C while the output was flushed (a pager not reading yet)
        import _signal

        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # first, as in ``main``
        render.error(INTERRUPTED)
        code = 1
    if "git_hn.store.process_tree" in sys.modules:  # (loaded by any Git in a session of its own)
        sys.modules["git_hn.store.process_tree"].stop_sessions()
    os._exit(code)


# Ctrl-C's one line, on every command (status 1, as every error: CONTRACT §0.5); ``sync``, which
# cleans up first, names the signal instead
INTERRUPTED = "interrupted"
