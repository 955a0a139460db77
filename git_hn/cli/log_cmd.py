"""``git hn memory log``: parse, call ``service.log``, render, page (issue 14).

Output: ``--json`` is one canonical JSON line, never paged. Human output is the plain lines of
``core.log`` when stdout is not a terminal (a pipe, a file: never paged, never cut, no colour).
On a terminal each line is cut to the terminal's width (the summary first, then the author name;
never the short ID), coloured through rich in the styles every command shares (``terminal``)
unless ``--no-color``, ``NO_COLOR`` or ``TERM=dumb``, and
written through Git's pager like ``git log``: ``git var GIT_PAGER`` (``GIT_PAGER``,
``core.pager``, ``PAGER``, then less), nothing when that is ``cat`` or empty or with
``--no-pager``, and ``LESS=FRX``/``LV=-c`` unless set, as Git does. The pager command is user
configuration that Git itself runs through the shell, so it is run the same way (``sh -c``),
except that a command of plain words whose first is on no ``PATH`` is said in git-hn's own line
and not run (``pager_missing``); what it reads is the already inert text. rich always runs with markup, emoji and highlighting off:
author text is never interpreted (*markup injection*).
"""

from __future__ import annotations

import os
import sys

from ..errors import InputError, UsageError
from . import render

LOG_USAGE = ("usage: git hn memory log [--kind K] [--actor A] [--topic T] [--path P] [--subject ID] "
             "[--lifecycle L] [--trust T] [--query TEXT] [-n N | -N] [--graph] [--no-pager] [--json]")


def git_counts(args: list[str], opts=None, bare: bool = True) -> list[str]:
    """``git log``'s count spellings as ``-n N``: ``-5`` (with ``bare``) and ``-n5``, ``-n-1`` (an option's
    own value, and anything after ``--``, are left as they are; ``opts``: the command's option
    table, default log's)."""
    from .options import LOG_OPTS

    takes_value = {o.name for o in (opts or LOG_OPTS) if o.metavar is not None}
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return out + args[i:]
        if arg in takes_value and i + 1 < len(args):
            out += [arg, args[i + 1]]
            i += 2
            continue
        if bare and len(arg) > 1 and arg[0] == "-" and arg[1:].isascii() and arg[1:].isdigit():
            out += ["-n", arg[1:]]
        elif arg.startswith("-n") and len(arg) > 2 and arg[2] != "=":  # (-n-1 is -n -1, as git log takes it)
            out += ["-n", arg[2:]]
        else:
            out.append(arg)
        i += 1
    return out


def log(values: dict, positional: list[str]) -> int:
    """The body shared by the fast dispatcher and the typer command."""
    from .commands import parse_int
    from .options import stray

    if positional:
        raise stray(LOG_USAGE, positional)
    counts = [*(("--max-count", c) for c in values.get("max_count") or ()), *(("-n", c) for c in values.get("n") or ())]
    if len(counts) > 1:
        raise UsageError(f"{LOG_USAGE}; give -n N, -N or --max-count N once")
    # (recall's and the brief's words: a count that is no number, or past 2^63-1, said "0 or more")
    name, text = counts[0] if counts else ("", None)
    max_count = parse_int(text, LOG_USAGE, name)
    if max_count is not None and max_count < 0:
        raise UsageError(f"{LOG_USAGE}; {name} takes 0 or more")
    from ..service import log as service
    from ..service.names import actor_filters
    from ..store.repo import open_repo

    repo = open_repo()
    try:
        req = service.request(kind=values.get("kind") or (), actor=actor_filters(repo, values.get("actor")),
                              topic=values.get("topic") or (), path=values.get("path"),
                              subject=values.get("subject"), lifecycle=values.get("lifecycle") or (),
                              trust_=values.get("trust") or (), query=values.get("query"))
    except InputError as exc:
        from ..service.names import ACTOR_FILTER, explain_actor_filter

        if exc.message != ACTOR_FILTER:
            raise
        raise InputError(explain_actor_filter(repo, values.get("actor") or ())) from None
    notes: list[str] = []  # an invalid policy at HEAD: listed anyway, trust policy-invalid
    held = service.spooled(repo, req, max_count, notes)  # (verified whole before a line is written)
    try:
        return _written(repo, values, req, max_count, held, notes)
    finally:
        held.close()


def _written(repo, values: dict, req, max_count, held, notes: list) -> int:
    """Write the log ``held`` (``service.log.spooled``), its hints first: a page at a time, so a
    whole history is never in memory at once (issue 11)."""
    from ..core import log as core
    from ..service import log as service

    render.warnings(notes)
    from . import advice

    qualified, authors = set(), set()  # (a first pass over what is held: the hints come first)
    for batch in service.items(held):
        qualified.update((it.actor, it.kind) for it in batch if it.trust == "qualified")
        authors.update((it.actor_name, it.actor) for it in batch)
    # (before the lines: a pager takes the terminal once they are written)
    advice.policy_drift(repo, "HEAD", qualified)
    advice.lost_streams(repo)
    # the brief's header line, when nothing of the team's is imported (a review: a log of one's own
    # memory alone said nothing); not for -n 0, which asks for nothing, nor where ``nothing_here`` says it
    filtered = any(values.get(k) for k in ("kind", "actor", "topic", "path", "subject", "lifecycle", "trust",
                                           "query"))
    if held.count:
        advice.no_selection(repo, saved_any=True)

    if values.get("json"):
        out = sys.stdout.buffer
        for chunk in core.document_chunks(service.items(held)):
            out.write(chunk)
        out.flush()
        if not held.count and max_count != 0:
            advice.path_hint(repo, 0, req.path, None, "HEAD", req, "log")  # (stderr, as recall's with --json)
            advice.no_selection(repo, saved_any=True)
        return 0
    graph = bool(values.get("graph"))
    from ..service.names import known_authors

    known = known_authors(repo) if held.count else []
    if not held.count and max_count != 0:
        # (nothing on stdout reads as a command that did nothing: said on stderr, on a terminal
        # and in a pipe alike, as recall's hints are; a newcomer trial got a silent empty log)
        if filtered:
            # (recall's hints for a --path that names a directory, a file from here, a renamed file)
            if not advice.path_hint(repo, 0, req.path, None, "HEAD", req, "log"):
                render.hint("no memory matches these filters")
            advice.no_selection(repo, saved_any=True)
            return 0
        from ..service import unimported

        again: list = []  # (said shorter within ten minutes of the full line: a burst of commands)
        advice.said_lately(repo, unimported.nothing_here(repo, again), again)
        return 0
    if not sys.stdout.isatty():
        shared = core.shared_names([*authors, *known])
        for batch in service.items(held):
            render.lines(core.lines(batch, graph, shared=shared))
        return 0
    items = [it for batch in service.items(held) for it in batch]  # (a terminal: fitted, maybe paged)
    text = terminal_text(items, graph, no_color=bool(values.get("no_color")), known=known)
    pager = None if values.get("no_pager") else _pager(repo)
    if pager is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    _page(pager, text)
    return 0


# Below this many columns a terminal's log leaves out what is usual (a newcomer trial at 80
# columns: ``3343a192a056 2026-12-05 Alice Ex observation active qualified bulk note number …``,
# metadata in 60 columns and the text that tells memories apart cut off): the lifecycle when it is
# active, the trust when it is qualified, the year of a date in the current year. Every other
# class is shown, and a pipe or a file gets every column (``core.lines``).
COMPACT_BELOW = 120
USUAL = {"lifecycle": "active", "trust": "qualified"}


def this_year() -> str:
    import time

    return time.strftime("%Y", time.gmtime())


def compact(f, year: str):
    """``f`` (``core.Fields``) without its usual classes and, in ``year``, without its year."""
    return f._replace(date=f.date[5:] if f.date[:4] == year else f.date,
                      lifecycle="" if f.lifecycle == USUAL["lifecycle"] else f.lifecycle,
                      trust="" if f.trust == USUAL["trust"] else f.trust)


def terminal_text(items, graph: bool, width: int | None = None, no_color: bool = False, known=()) -> str:
    """The log as a terminal shows it: each line fitted to ``width`` columns, in the styles of
    ``terminal`` (shared by every command), coloured unless ``--no-color``, ``NO_COLOR`` or
    ``TERM=dumb``; ``known`` as for ``core.lines``. Narrower than ``COMPACT_BELOW`` columns, the
    usual classes are left out (``compact``); a summary that hides lines says ``(+N lines)``; a
    challenged memory says ``challenged`` after its classes, as recall does (never piped)."""
    from rich.cells import cell_len
    from rich.text import Text

    from ..core import log as core
    from . import terminal

    screen = terminal.Screen(no_color, width)
    shared = core.shared_names([*((it.actor_name, it.actor) for it in items), *known])
    year = this_year() if screen.width < COMPACT_BELOW else None
    for it in items:
        # (a newcomer trial: recall marked a challenged memory, the log showed it undisputed)
        whole = core.fields(it, shared)._replace(marks=" ".join(terminal.challenge_mark(core.challengers(it))))
        if year is not None:
            whole = compact(whole, year)
        note = terminal.more_note(it.more)
        # (the summary's room beside the fixed columns, the name cut as far as ``fit`` cuts it)
        bare = whole._replace(name=whole.name[:0], summary="")
        room = (screen.width or 0) - cell_len(core.join(bare)) - min(cell_len(whole.name), core.MIN_NAME) - 2
        if note:  # (a review: "(+N lines)" beside it squeezed the summary to one character)
            room -= cell_len(note) + 2
        if screen.width and whole.summary and room < core.MIN_SUMMARY:
            # a terminal too narrow for the summary beside the fixed columns and the whole name (40
            # columns: a trial saw no content at all): the summary on a line of its own, indented
            # as relations are
            terminal.memory_lines(screen, whole._replace(summary=""))  # (classes continue below if need be)
            terminal.summary_line(screen, whole.summary, 4, note)
        else:
            terminal.memory_lines(screen, whole, note=note)
        if graph:
            for rel in core.relation_lines(it):
                screen.line(Text(rel, style=terminal.LABEL))
    return screen.text()


def _pager(repo) -> str | None:
    got = repo.git.run(["var", "GIT_PAGER"])
    pager = got.stdout.decode("utf-8", "replace").strip() if got.returncode == 0 else ""
    return None if pager in ("", "cat") else pager


# what makes ``sh -c`` more than one command run with its words (Git's ``prepare_shell_cmd`` set,
# less the blanks that separate words); a builtin or a keyword is the shell's, on no PATH
_SHELL_SYNTAX = frozenset("|&;<>()$`\\\"'\n*?[#~=%")
_SHELL_WORDS = frozenset({".", ":", "!", "{", "}", "alias", "bg", "break", "builtin", "case", "cd", "command",
                          "continue", "do", "done", "echo", "elif", "else", "esac", "eval", "exec", "exit",
                          "export", "false", "fg", "fi", "for", "getopts", "hash", "if", "in", "jobs", "kill",
                          "local", "printf", "pwd", "read", "readonly", "return", "set", "shift", "test", "then",
                          "time", "times", "trap", "true", "type", "ulimit", "umask", "unset", "until", "wait",
                          "while"})


def pager_missing(pager: str) -> str | None:
    """Why ``pager`` cannot run, when git-hn can tell without the shell: a command of plain words
    whose first is on no ``PATH`` (or, with a ``/``, is no executable file). Else None, and the
    shell decides (its 126/127 are said in ``_page``). Told here, the shell's own ``sh: 1: …: not
    found`` line, which repeated the command raw before git-hn's (a newcomer trial), is not
    printed (f171)."""
    word = pager.split()[0] if pager.split() else ""
    if not word or _SHELL_SYNTAX.intersection(pager) or word in _SHELL_WORDS or _runnable(word):
        return None
    from ..core.gostr import echoed

    return f"{echoed(word)} is not an executable file" if "/" in word else f"no command {echoed(word)} on PATH"


def _runnable(word: str) -> bool:
    """Whether ``sh`` finds ``word`` as a command: an executable file at that path when it has a
    ``/``, else in a directory of ``PATH`` (as ``shutil.which``, whose import alone took longer
    than the pager's start: a stat per directory here)."""
    def executable(path: str) -> bool:
        return os.path.isfile(path) and os.access(path, os.X_OK)

    if "/" in word:
        return executable(word)
    return any(executable(os.path.join(d or ".", word)) for d in os.environ.get("PATH", os.defpath).split(os.pathsep))


def _page(pager: str, text: str) -> None:
    import subprocess

    missing = pager_missing(pager)
    if missing is not None:  # (the command is the user's config, spelled once: see below)
        from ..core.gostr import echoed

        render.error(f"cannot run pager {echoed(pager)}: {missing}; the log follows without it")
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(["sh", "-c", pager], stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    import signal

    # as Git does: an interrupt typed in the pager is the pager's, never ends git-hn under it
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        try:
            proc.stdin.write(render.for_terminal(text.encode("utf-8", "replace")))
            proc.stdin.close()
        except BrokenPipeError:  # the reader quit (q in less): not an error, as in git log
            pass
        proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    if proc.returncode in (126, 127):  # the shell found no such pager, or could not run it: as
        from ..core.gostr import echoed  # git log does, say so and show the text unpaged

        # (the command is the user's config, spelled once: a direction control in it never raw)
        render.error(f"cannot run pager {echoed(pager)}; the log follows without it")
        sys.stdout.write(text)
        sys.stdout.flush()
