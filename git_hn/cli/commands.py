"""Command bodies: each turns parsed values into one service call and renders the result.

Typer (``app``) and the fast path (``fast``) both call these, so argument semantics live in one
place. Nothing here imports typer.
"""

from __future__ import annotations

from ..core.limits import LIMITS
from ..errors import InputError, UsageError
from . import advice, render

RECORD_FIELD_DESTS = ("kind", "at", "applies", "content", "content_file", "subject", "outcome",
                      "stream", "actor", "topic", "evidence", "path", "blob", "completed",
                      "assumption", "blocker", "next_action")


def record_command(values: dict, positional: list[str], *, handoff: bool) -> int:
    from ..service import memory as service
    from ..service.requests import RecordFlags, read_explicit, request_from_flags, request_from_input
    from ..store.process import stops_after_write
    from ..store.repo import open_repo

    flags = RecordFlags(**{k: values[k] for k in RECORD_FIELD_DESTS if k in values},
                        positional=list(positional))
    with stops_after_write():  # (a stop once the memory is stored: its ID is still printed)
        allow = bool(values.get("allow_secret_shaped"))
        if values.get("input") is not None:
            extra = flags.items()
            extra.pop("positional")
            if handoff:
                extra.pop("at")
                extra.pop("applies")
            if positional or any(v not in (None, []) for v in extra.values()):
                raise InputError("--input cannot be combined with record flags or positional content")
            if not values.get("json"):
                raise InputError("--input requires --json")
            repo = open_repo()
            data = read_explicit(values["input"], LIMITS.max_request, option="--input")
            req = request_from_input(repo, data, handoff=handoff, handoff_at=flags.at,
                                     handoff_applies=flags.applies, whole=True)
            result = service.record(repo, req, from_input=True, allow_secret_shaped=allow)
        else:
            repo = open_repo()
            notes: list = []
            flags.evidence = _evidence(repo, flags.evidence)
            req = request_from_flags(repo, flags, kind="handoff" if handoff else None, notes=notes)
            result = service.record(repo, req, allow_secret_shaped=allow)
            advice.signed_notes(notes)
        advice.recall_bound(req.record.content)
        advice.hooks_gone(repo)
        code = _emit_result(result, bool(values.get("json")), bool(values.get("no_color")))
        advice.applies(req.record)
        advice.new_stream(result, repo, req.stream)
        advice.hidden(repo, result)
        advice.waits(repo, result)
        return code


def show_command(query: str, as_json: bool, no_color: bool = False) -> int:
    from ..service import show
    from ..store.repo import open_repo

    repo = open_repo()
    notes: list[str] | None = None if as_json else []  # (§7.13's JSON keeps §6.1's failure)
    reasons: dict[str, str] | None = {} if not as_json and render.on_terminal() else None
    doc = show.show(repo, query, notes, reasons)
    render.warnings(notes or ())
    from ..service.policy_drift import shown_trusted

    if as_json:
        render.json_line(doc)
        advice.policy_drift(repo, "HEAD", shown_trusted(doc))  # (with --json too: an agent reads it)
        advice.lost_streams(repo)
        return 0
    if render.on_terminal():
        from . import terminal

        render.write(terminal.show(doc, no_color, reasons=reasons))
    else:
        render.lines(show.human_lines(doc))
    advice.challenged_show(doc)
    why = show.inapplicable_hint(repo, doc)
    if why:
        render.hint(why)
    advice.policy_drift(repo, "HEAD", shown_trusted(doc))
    advice.lost_streams(repo)
    return 0


def demo_command() -> int:
    from ..service.demo import run_demo

    run_demo(render.lines)
    return 0


def _emit_result(result, as_json: bool, no_color: bool = False) -> int:
    from ..service import memory as service

    if as_json:
        render.json_line(service.result_json(result))
    elif render.on_terminal():
        from . import terminal

        render.write(terminal.result(result.memory_id, result.envelope, result.replayed, no_color))
    else:
        render.lines(service.result_lines(result))
    return 0


def parse_int(value: str | None, usage: str, name: str | None = None) -> int | None:
    """Decimal integers only; non-integers and values above 2^63-1 are usage errors (§10.1),
    which say what option ``name`` takes (the value is not repeated: it may be anything pasted)."""
    if value is None:
        return None
    text = value.strip()
    body = text[1:] if text[:1] in "+-" else text
    digits = body.isdigit() and body.isascii()
    # (the length first: Python's int() refuses more than 4,300 digits with a ValueError, an
    # internal error; 2^63-1 has 19)
    if not digits or len(body.lstrip("0")) > 19 or not -(2**63) <= int(text) <= 2**63 - 1:
        from ..core import hints  # error paths only

        big = digits
        raise UsageError(hints.append(usage, hints.whole_number(name) + (" up to 2^63-1" if big else "")
                                      if name else ""))
    n = int(text)
    return n


def _target(repo, query: str) -> str:
    """A full memory ID, or the memory a unique prefix names (as ``show`` resolves it)."""
    from ..core.grammar import is_digest_id
    from ..service import show

    return query if is_digest_id(query) else show.resolve(repo, query)


def _evidence(repo, items: list[str]) -> list[str]:
    """``--evidence memory:<prefix>`` (git-hn, the command line only): each ``memory:`` item that
    names a memory by a unique prefix of at least 8 hex digits (``sha256:`` optional), as ``show``
    takes it, becomes that memory's full typed ID before anything is signed, with ``show``'s
    errors for an unknown or ambiguous prefix. A newcomer trial: ``challenge -h`` says "give it as
    --evidence memory:ID" and the README "a short ID works wherever a memory is named", yet
    ``memory:deea7652947b`` was refused. What is signed is always the full ID; request documents
    (``--input``, MCP) keep the contract's strict form."""
    if not any(item.startswith("memory:") for item in items):
        return list(items)  # (nothing to resolve: ``show``'s modules are not loaded for it)
    from ..core.grammar import is_typed_evidence
    from ..service import show

    from ..core.gostr import quoted
    from ..errors import InputError

    out = []
    for item in items:
        query = item[len("memory:"):]
        digits = query[len("sha256:"):] if query.startswith("sha256:") else query
        # (a review: an unknown or uppercase prefix was refused without naming --evidence, or
        # generically; show's refusal after the item it refuses. Then: an uppercase one led with
        # "not found", and 7 digits got the generic line: each says its own rule first)
        if item.startswith("memory:") and not is_typed_evidence(item) and show.is_query(query.lower()) \
                and digits != digits.lower():
            raise InputError(f"--evidence {quoted(item)}: memory IDs are lowercase hex: give "
                             f"{quoted('memory:' + query.lower())}")
        if item.startswith("memory:") and 0 < len(digits) < 8 and all(c in "0123456789abcdefABCDEF" for c in digits):
            raise InputError(f"--evidence {quoted(item)}: a memory prefix needs at least 8 hex digits (git hn "
                             "memory log prints 12)")
        if item.startswith("memory:") and not is_typed_evidence(item) and show.is_query(query.lower()):
            try:
                item = "memory:" + show.resolve(repo, query)
            except InputError as exc:
                raise InputError(f"--evidence {quoted(item)}: {exc.message}") from None
        out.append(item)
    return out


def policy_show_command(rev: str | None, as_json: bool) -> int:
    from ..service import recall as service
    from ..store.repo import open_repo

    if rev == "":  # (as an option's empty value: not HEAD in silence; options.empty)
        raise UsageError("usage: git hn policy show [REV] [--json]; REV is empty: give a revision, or leave it out")
    repo = open_repo()
    maintainers: list = []
    doc = service.policy_show(repo, "HEAD" if rev is None else rev, maintainers)
    if as_json:
        from .trust import absent_hint, names_hint, working_hint

        render.json_line(doc)
        names_hint(repo, (doc.get("memory") or {}).get("trustedActors") or [], maintainers)
        if not working_hint(repo, doc, waiting=False):
            absent_hint(repo, doc)
    else:
        from .trust import show_policy

        show_policy(repo, doc, maintainers)
    return 0


def index_command(which: str) -> int:
    from ..service import index
    from ..store.repo import open_repo

    repo = open_repo()
    bound = _test_index_bound()
    built = index.rebuild(repo, bound) if which == "rebuild" else index.verify(repo, bound)
    label = "rebuild" if which == "rebuild" else "verify"
    lines = [f"Memory index {label}: version 0, source {built.fingerprint}, records {built.count}"]
    if built.omitted:
        lines.append("index-v0.json omitted: it would exceed its size bound (CONTRACT §8.1); "
                     "recall is served from the verified state")
    render.lines(lines)
    advice.not_imported(repo)
    return 0


def _test_index_bound() -> int | None:
    """§8.1's bound, or (only under ``HN_INTERNAL_TESTING=1``) ``HN_TEST_INDEX_MAX_BYTES``, so
    that tests reach the bound without writing 256 MiB (a test seam, read here at the edge)."""
    import os

    if os.environ.get("HN_INTERNAL_TESTING") == "1":
        value = os.environ.get("HN_TEST_INDEX_MAX_BYTES", "")
        if value.isdigit():
            return int(value)
    return None


SELECT_USAGE = ("usage: git hn replication select [REMOTE] [--actor ACTOR]... [--proposal ID]... "
                "[--memory STREAM]... [--all] [budgets]")
SYNC_USAGE = "usage: git hn sync [REMOTE] [--recover-shallow] [--rebase] [--json]"


def select_command(values: dict, positional: list[str]) -> int:
    from ..core import selection as selmod
    from ..core.grammar import is_remote_name
    from ..store import replication
    from ..store.repo import open_repo

    if len(positional) > 1:
        from .options import stray

        raise stray(SELECT_USAGE, positional[1:])
    remote = positional[0] if positional else "origin"
    if not is_remote_name(remote):
        from ..core.remotes import REMOTE_NAME_RULE

        raise InputError(f"invalid replication remote name; {REMOTE_NAME_RULE}")
    given = {key: parse_int(values.get(flag.replace("-", "_")), SELECT_USAGE, "--" + flag)
             for flag, key, _default in selmod.BUDGETS}
    given = {key: value for key, value in given.items() if value is not None}
    streams = parse_int(values.get("max_streams"), SELECT_USAGE, "--max-streams")
    for flag, key, _default in (*selmod.BUDGETS, ("max-streams", "", None)):  # §9.1's text, then which option
        value = streams if flag == "max-streams" else given.get(key)
        if value is not None and value <= 0:
            raise InputError(f"{flag} must be a positive integer; --{flag} takes 1 or more")
    selectors = (tuple(values.get("actor") or ()), tuple(values.get("proposal") or ()),
                 tuple(values.get("memory") or ()), bool(values.get("all")))
    repo = None
    if not any(selectors) and (given or streams is not None):
        # git-hn: budgets alone change the saved selection's budgets and keep its selectors (the
        # command an over-budget outcome names); without a saved selection, the usual error
        repo = open_repo()
        saved = replication.load_selection(repo, remote)
        if saved.saved:
            sel = saved._replace(budgets={**saved.budgets, **given},
                                 max_streams=saved.max_streams if streams is None else streams)
        else:
            sel = selmod.Selection(remote, budgets={**selmod.DEFAULT_BUDGETS, **given})
    else:
        sel = selmod.Selection(remote, *selectors, {**selmod.DEFAULT_BUDGETS, **given},
                               max_streams=selmod.DEFAULT_MAX_STREAMS if streams is None else streams)
    try:
        sel = selmod.check(sel)
    except InputError as exc:
        if exc.message != selmod.NO_SELECTOR:
            raise
        raise InputError(selmod.no_selector_help(remote)) from None
    repo = repo or open_repo()
    replication.save_selection(repo, sel)
    from ..service.replication import learn_owners, remotes_here

    learn_owners(repo, sel)
    render.lines([f"Saved replication selection for {remote}", *selmod.show_lines(sel)])
    if (sel.actors or sel.proposals) and not sel.all:  # (a team trial: "--actor" imported nothing, unsaid)
        render.hint("git-hn imports no stream for an --actor or --proposal selector (saved as hn saves it, CONTRACT "
                    "§11(c)): --memory STREAM or --all selects streams")
    from ..store.transport import url_question

    asked = repo.git.run(list(url_question(remote)))
    if asked.returncode == 0:  # (a rename of the remote keeps its selection: ``replication.renamed``)
        from ..service.replication.renamed import note_url

        note_url(repo, remote, asked.stdout.decode("utf-8", "surrogateescape").strip())
    if asked.returncode != 0:
        # §9.2: the remote need not exist, and the selection is saved; a typo would otherwise
        # show only at the first sync (in sync's words: the remotes here, and the remote add)
        render.hint(f'remote "{remote}" does not exist yet{remotes_here(repo)[0]}; git hn sync {remote} needs '
                    f"it: add it with git remote add {remote} URL")
    else:  # (a selection imports nothing by itself: a newcomer's git fetch that moved no branch did not)
        render.hint(f"a selection imports nothing by itself: git hn sync {remote} imports what it selects now; "
                    "with git-hn's hooks installed, so does each later git fetch that moves a branch")
    return 0


def show_selection_command(positional: list[str]) -> int:
    from ..core import selection as selmod
    from ..core.grammar import is_remote_name
    from ..store import replication
    from ..store.repo import open_repo

    if len(positional) > 1:
        from .options import stray

        raise stray("usage: git hn replication show [REMOTE]", positional[1:])
    remote = positional[0] if positional else "origin"
    if not is_remote_name(remote):
        from ..core.remotes import REMOTE_NAME_RULE

        raise InputError(f"invalid replication remote name; {REMOTE_NAME_RULE}")
    repo = open_repo()
    sel = replication.load_selection(repo, remote)
    render.lines(selmod.show_lines(sel))
    from ..store.transport import url_question

    if repo.git.run(list(url_question(remote))).returncode != 0:
        # (a newcomer trial: "show" of a typo, or of the name a rename left, printed defaults as if
        # it were a remote, where select and sync name the remotes here)
        from shlex import quote

        from ..service.replication import remotes_here

        known, usable = remotes_here(repo)
        if sel.saved:  # (select's words: §9.2 lets a selection wait for its remote)
            render.hint(f'remote "{remote}" does not exist yet{known}; git hn sync {remote} needs it: add it with '
                        f"git remote add {remote} URL")
        else:
            other = f"name one of them (git hn replication show {quote(usable[0])}), or " if usable else ""
            render.hint(f'remote "{remote}" does not exist{known}, and nothing is saved for it (the lines above are '
                        f"the defaults); {other}add it with git remote add {remote} URL")
        return 0
    if not sel.saved:  # (a trial: after git remote rename, "saved: false" with the old name's still there)
        from ..service.replication.renamed import fits

        old = fits(repo, remote)
        if old:
            render.hint(f"the replication selection saved for {old}, which is no remote any more, is this one's "
                        f"(the same URL): git hn sync {remote} moves it here and imports what it selects")
    return 0


def parse_sync_args(args: list[str]) -> tuple[str, bool, bool, bool]:
    """§9.3: at most one REMOTE, one --recover-shallow and one --json; nothing else but git-hn's
    --rebase. (remote, recover, as_json, rebase)."""
    from .options import select_instead, switches

    seen, words = switches(args, SYNC_OPTIONS, SYNC_USAGE, operands=1, instead=lambda n: select_instead(n, args))
    return (words or ["origin"])[0], "--recover-shallow" in seen, "--json" in seen, "--rebase" in seen


SYNC_OPTIONS = ("--json", "--recover-shallow", "--rebase", "--no-color")  # (its lines are never coloured)


def interrupt_after() -> str | None:
    """The crash seam of CONTRACT §9.19, read here at the edge: only when
    ``HN_INTERNAL_TESTING=1``, ``HN_TEST_REPLICATION_INTERRUPT_AFTER`` names where a replication
    transaction stops as if it had crashed (any other value is ignored). git-hn's own test hook,
    under the same switch: ``HN_TEST_REPLICATION_SIGNAL_AT`` names a seam at which the sync sends
    itself SIGINT and goes on, as if Ctrl-C were pressed there (``signal:<step>``); with
    ``HN_TEST_REPLICATION_SIGNAL_TWICE=1`` (``signal2:<step>``) a second as the quarantine's
    removal begins (Git and the terminal both give git-hn one for a Ctrl-C); with
    ``HN_TEST_REPLICATION_SIGNAL_LOST=1`` (``signal-lost:<step>``) its exception is dropped, as
    Python drops one raised while ``compile()`` runs (``errors.Signalled.unless_lost``)."""
    import os

    if os.environ.get("HN_INTERNAL_TESTING") != "1":
        return None
    if os.environ.get("HN_TEST_REPLICATION_SIGNAL_AT"):
        how = "signal2:" if os.environ.get("HN_TEST_REPLICATION_SIGNAL_TWICE") == "1" else \
            "signal-lost:" if os.environ.get("HN_TEST_REPLICATION_SIGNAL_LOST") == "1" else "signal:"
        return how + os.environ["HN_TEST_REPLICATION_SIGNAL_AT"]
    return os.environ.get("HN_TEST_REPLICATION_INTERRUPT_AFTER") or None


def _stopped(repo, remote: str, name: str, promoted: int) -> str:
    """The one line of a sync stopped by a signal, saying what it left: nothing promoted (and its
    quarantine removed, or where it was left: ``quarantine.left_behind``), its promotion done
    (what follows it not run), or, should a stop have come between a promotion and its completion
    receipt (they are held apart from signals: ``promote.accept``), an acceptance left pending,
    which every memory read waits for until the next sync completes it."""
    from ..service.replication.promote import unfinished

    said = f"sync with {remote} stopped by {name}"
    if unfinished(repo, remote):
        return (f"{said} before it finished accepting what it fetched, so memory reads fail until it is "
                f"completed: run git hn sync {remote}")
    if promoted:
        from ..service.replication.outcomes import counted

        return (f"{said} after it promoted {counted(promoted, 'stream', 'streams')}; the rest of the sync "
                f"did not run: run git hn sync {remote} again")
    from ..store.quarantine import left_behind

    left = left_behind()
    if left:
        return (f"{said}; nothing was promoted, and its quarantine {left[0]} is left behind (a later git hn sync "
                f"removes it): run git hn sync {remote} again")
    return f"{said}; its quarantine was removed and nothing was promoted: run git hn sync {remote} again"


def _signals_raise(ending: bool = False):
    """SIGTERM, SIGINT and SIGHUP raise ``Signalled`` for the duration (then the previous
    handlers come back), so that a stopped sync removes its quarantine and says so. Only the
    first: those that come after it are ignored, so that the cleanup it starts runs whole (Git
    passes the terminal's Ctrl-C on to git-hn, which so gets two at once: a review found a second
    raised inside the quarantine's removal, left behind while the line said it was removed).
    ``ending`` (the command ends once stopped): after a stop they stay ignored to its end, so
    that its line is not cut either (trials saw ``git-hn: interrupted`` in its place)."""
    import _signal as signal  # (not ``signal``: its enums load ``enum`` and ``functools``, ~1 ms
    from contextlib import contextmanager  # before a sync's quarantine fetch starts)

    from ..errors import Signalled

    @contextmanager
    def scope():
        stopping = Signalled.taken  # (read again before promotion: ``Signalled.unless_lost``)
        stopping.clear()

        def stop(signum, _frame):
            from ..store import process

            if stopping:  # the first is on its way: the cleanup it started is not cut
                return
            stopping.append(signum)
            if process.defer_signal(signum):  # a child is being started: raised once it exists
                return
            raise Signalled(signum)

        previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, signal.SIG_IGN if stopping and ending else handler)
            stopping.clear()

    return scope()


def sync_command(args: list[str]) -> int:
    import sys

    from ..errors import HnError, Signalled
    from ..service import replication as service
    from ..store.repo import open_repo

    remote, recover, as_json, rebase = parse_sync_args(args)
    repo = open_repo()
    status = progress = None
    if not as_json and sys.stderr.isatty():
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner
        from rich.text import Text

        console = Console(stderr=True, markup=False, emoji=False, highlight=False)
        # Text, never a str: rich reads a str given to Spinner as markup
        spinner = Spinner("dots", text=Text("git hn sync"))
        status = Live(spinner, console=console, transient=True, refresh_per_second=12.5)
        status.start()

        def draw(text: str) -> None:  # every step is drawn, however short
            spinner.update(text=Text(f"git hn sync {remote}: {text}"))
            status.refresh()

        progress = draw
        from ..store import progress as store_progress
        from .notice import waiting_words

        # a wait for another git-hn's lock (the state's, a stream's) shows on the spinner's line
        store_progress.listen(None, lambda what, pid: draw(waiting_words(what, pid)))
    try:
        with _signals_raise(ending=True):
            result = service.sync(repo, remote, recover_shallow=recover, progress=progress,
                                  interrupt_after=interrupt_after(), rebase=rebase)
    except Signalled as stop:
        import signal

        if status is not None:
            status.stop()
            status = None
        render.error(_stopped(repo, remote, signal.Signals(stop.signum).name, getattr(stop, "promoted", 0)))
        return 128 + stop.signum
    finally:
        if status is not None:
            status.stop()
    if result.repaired_only and not result.outcomes and not result.current:
        if as_json:
            render.json_line(result.to_json())
        else:
            render.lines([f"Repaired pending replication state for {remote}; run git hn sync {remote}"])
        return 0
    if as_json:
        render.json_line(result.to_json())
        for line in result.reminders:  # (an agent or CI job reads --json: a trial found them dropped)
            sys.stderr.write(render.fitted(f"git-hn: warning: {line}") + "\n")
    elif render.on_terminal():
        from . import terminal

        render.write(terminal.shortened_lines(result.lines() + [result.summary()]))
    else:
        render.lines(result.lines() + [result.summary()])
    advice.lost_streams(repo)  # (a forced fetch into refs/hn/memory/* took them: said before any failure)
    message = result.exit_message(human=True)
    if message:
        raise HnError(message + result.failure_pointer(as_json))
    advice.imported_not_merged(repo, result)
    if result.compatibility and result.imported and not as_json:
        # (hooks install and an empty recall say a fetch imports nothing without a selection: a
        # newcomer whose sync then imported everything was told two things); shorter for ten
        # minutes once said in full (a burst of syncs heard all of it each time)
        select = f"git hn replication select {'' if remote == 'origin' else remote + ' '}"
        advice.said_lately(repo, f"no replication selection is saved for {remote}, so this sync imported every "
                           f"stream it advertises; {select}--memory sha256:<stream> (or --all) saves one, which the "
                           "fetch hook follows too",
                           [(f"still no replication selection is saved for {remote}, so this sync imported every "
                             "stream it advertises", f"{select}--all, or --memory sha256:<stream>, saves one")])
    advice.hooks_gone(repo)  # (a team trial: husky's `npm install` rewrote its stubs, and pushes stopped publishing)
    return 0


BRIEF_USAGE = ("usage: git hn memory brief [--at REV] [--max-bytes N] [--include-untrusted] "
               "[--json|--markdown]")
DIGEST_USAGE = "usage: git hn memory digest [--month YYYY-MM] [--include-untrusted] [--json]"
MCP_USAGE = "usage: git hn mcp [--allow-write] [--repo PATH]"


def brief_command(at: str | None, max_bytes: str | None, include_untrusted: bool, as_json: bool,
                  as_markdown: bool, base: str | None = None, paths: list | None = None,
                  topics: list | None = None) -> int:
    import sys

    from ..core.brief import DEFAULT_MAX_BYTES
    from ..service import brief
    from ..store.repo import open_repo

    if as_json and as_markdown:
        raise UsageError(f"{BRIEF_USAGE}; --json and --markdown exclude each other (the brief is one or the other)")
    bound = parse_int(max_bytes, BRIEF_USAGE, "--max-bytes")
    if bound is not None and bound <= 0:  # (the contract's text, then which option, as recall says it)
        raise InputError("brief bound must be positive; --max-bytes takes 1 or more")
    repo = open_repo()
    if at is None and not as_json and not repo.head_commit():
        # a new repository (HEAD unborn): the brief an agent's session-start hook prints is empty,
        # not an error (issue 13's `setup` installs that hook before the first commit)
        from ..core.limits import WARNING

        # (the advice in recall's and view's words: they fail there, as CONTRACT §10.0 has recall)
        situation, action = repo.unborn_advice()
        sys.stdout.write(f"> {WARNING}\n\nNo memory yet: {situation}, and memory is anchored on "
                         f"commits: {action}.\n")
        return 0
    left: dict = {}
    newer: list = []
    _doc, data = brief.brief(repo, at or "HEAD",
                             max_bytes=DEFAULT_MAX_BYTES if bound is None else bound,
                             include_untrusted=include_untrusted,
                             fmt="json" if as_json else "markdown", base=base, paths=tuple(paths or ()),
                             topics=tuple(topics or ()), left_out=left, newer=newer)
    # written as bytes, never through rich: the bound counts these exact bytes
    sys.stdout.buffer.write(data if as_json else render.for_terminal(data))
    sys.stdout.flush()
    from .trust import brief_hint, brief_json_hint

    if as_json:  # (an agent trial: the form agents use hid untrusted memories without a word)
        brief_json_hint(repo, _doc, left.get("authors"))
    else:
        brief_hint(repo, _doc, left.get("authors"), left.get("revoked"))  # issue 13: what the body cannot say of the trust policy
    # (what the Markdown header says and the document does not: a stream's newer handoff elsewhere,
    # f177 with the count of memories not merged here whose brief its line names; f178: all the
    # header's notes after a Markdown brief whose bound left them no room)
    said = advice.brief_notes(repo, left, newer, _doc, as_json)
    advice.brief_left_out(left, as_json)
    advice.brief_unmerged(repo, left, newer, _doc, said)
    advice.brief_omitted(_doc, DEFAULT_MAX_BYTES if bound is None else bound, as_json)
    if as_json:  # (the Markdown brief's header says it: ``brief.header_notes``, ``brief.drift_notes``)
        from ..core.brief import SECTIONS
        from ..service.policy_drift import shown_trusted

        advice.policy_drift(repo, _doc["atCommit"], shown_trusted(_doc, SECTIONS))
        advice.no_selection(repo)
        advice.not_imported(repo)
    advice.failed_imports(repo)
    advice.lost_streams(repo)
    return 0


def digest_command(month: str | None, include_untrusted: bool, as_json: bool,
                   no_color: bool = False) -> int:
    from ..service import digest
    from ..store.repo import open_repo

    from ..service.recall import Hidden

    repo = open_repo()
    hidden = Hidden()
    doc = digest.digest(repo, month, include_untrusted=include_untrusted, hidden=hidden)
    if as_json:
        render.json_line(doc)
    elif render.on_terminal():
        from ..service.names import author_names, known_authors
        from . import terminal

        names = author_names(repo, [row["id"] for row in doc["memories"]])
        render.write(terminal.digest(doc, names, no_color, known=known_authors(repo) if doc["memories"] else ()))
    else:
        render.lines(digest.digest_lines(doc))
    from ..service.policy_drift import shown_trusted
    from .trust import hint

    hint(hidden, repo, "HEAD")  # as recall and the brief say it (the digest reads HEAD's policy)
    advice.policy_drift(repo, "HEAD", shown_trusted(doc))
    return 0


def parse_mcp_args(args: list[str]) -> tuple[bool, str | None]:
    """``git hn mcp``: at most one ``--allow-write`` and one ``--repo PATH`` (and ``--no-color``, which
    changes nothing); nothing else."""
    from .options import bad_option, is_option_word, missing_value, stray

    allow_write, no_color, repo, words, rest = False, False, None, [], iter(args)
    for arg in rest:
        if arg == "--":
            words += rest
        elif arg.partition("=")[0] == "--repo":
            value = arg[len("--repo="):] if "=" in arg else next(rest, None)
            if "=" not in arg and value is not None and is_option_word(value, ("--repo", "--allow-write",
                                                                               "--no-color")):
                raise UsageError(f"{MCP_USAGE}; {missing_value('--repo', 'PATH', value)}")
            if value == "":
                from .options import empty

                raise empty(MCP_USAGE, "--repo", "PATH")
            if repo is not None or value is None:
                raise UsageError(f"{MCP_USAGE}; --repo {'was given twice' if repo else 'needs a value PATH'}")
            repo = value
        elif arg == "--allow-write" and not allow_write:
            allow_write = True
        elif arg == "--no-color" and not no_color:  # (every command takes it: ``options.GLOBAL_OPTS``)
            no_color = True
        elif arg.startswith("-"):
            raise bad_option(MCP_USAGE, arg, ("--allow-write", "--no-color"), ("--repo",), operands=False)
        else:
            words.append(arg)
    if words:
        raise stray(MCP_USAGE, words)
    return allow_write, repo


def mcp_command(allow_write: bool, repo: str | None = None) -> int:
    from ..service import mcp_server
    from ..store.argpath import os_path

    root, prefix = mcp_server.server_root(None if repo is None else os_path(repo))  # (fails before MCP)
    mcp_server.serve(root, allow_write=allow_write, prefix=prefix)
    return 0
