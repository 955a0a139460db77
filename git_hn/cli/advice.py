"""What a command adds on stderr after its answer: the warnings of a record that was signed,
and hints that say what to do next. Each is one line; author text in them goes through
``one_line``; nothing here changes the answer on stdout.
"""

from __future__ import annotations

import os

from ..core.limits import LIMITS
from . import render


def signed_notes(notes: list) -> None:
    """The warnings of a record that was signed (``anchor_paths.absent_notes``), each path passed
    through the whole secret lint first (``shaped``: the library alone misses the named detectors'
    shapes): one it flags (signed only with --allow-secret-shaped) is not echoed."""
    if not notes:
        return
    from ..service.secretscan import shaped

    render.warnings([text for path, text in notes if not shaped(path)])


def recall_bound(content: str) -> None:
    """After a record was signed: a warning when its content, encoded as recall measures it, is
    over recall's default bound (``requests.encoded_over_recall_bound``)."""
    from ..service.requests import encoded_over_recall_bound, recall_bound_note

    size = encoded_over_recall_bound(content)
    if size:
        warn(recall_bound_note(size))


def hidden(repo, result) -> None:
    """After a record, handoff or supersede: a hint when the trust policy at HEAD hides it from
    the next recall and brief (``memory.hidden_hint``), with ``--json`` too: an agent reads it."""
    from ..service.memory import hidden_hint

    again: list = []
    text = hidden_hint(repo, result, again=again)
    if text:
        said_lately(repo, text, again)


def applies(record) -> None:
    """After a handoff was signed: where the next brief leaves it out, when it applies at one
    commit or to one subject only (``hints.handoff_applies``); with ``--json`` too. Nothing for
    another kind (a record: the hints' module is not loaded for it)."""
    if record.kind != "handoff":
        return
    from ..core.gostr import one_line
    from ..core.hints import handoff_applies

    text = handoff_applies(record.kind, record.applicability.mode, one_line(record.applicability.subject),
                           record.anchor.commit)
    if text:
        render.hint(text)


def stale_successor(repo, result) -> None:
    """After a supersede: when the successor's anchored paths differ at HEAD (it kept an old
    anchor), that the brief marks it stale and how ``--at HEAD`` anchors it there; with
    ``--json`` too. Paths the secret lint flags are not echoed."""
    from ..core.gostr import one_line
    from ..core.hints import stale_successor as text_of
    from ..service.brief import stale_at_head
    from ..service.secretscan import shaped

    record = result.envelope.record
    paths = [one_line(p) for p in stale_at_head(repo, record) if not shaped(p)]
    text = text_of(result.memory_id, record.anchor.commit, paths) if paths else ""
    if text:
        render.hint(text)


def challenges_left(repo, target: str, result) -> None:
    """After a supersede (a replay too): a warning when the target has challenges its successor
    does not (a challenge names one memory ID: ``lineage.left_on``), by challengers who have not
    challenged the successor yet; with ``--json`` too. Advice: a state that cannot answer says
    nothing."""
    from ..errors import HnError
    from ..service.lineage import challenges, left_on

    try:
        found = challenges(repo, {target, result.memory_id})
    except HnError:
        return
    again = {c.actor for c in found.get(result.memory_id, ())}
    left = [c for c in found.get(target, ()) if c.actor not in again]
    if left:
        warn(left_on(target, result.memory_id, left))


def new_stream(result, repo=None, stream: str | None = None) -> None:
    """After a memory was signed: a hint when it started a stream that is not the signer's
    default one (``memory.new_stream_hint``: a mistyped ``--stream`` or label is not silent);
    ``stream`` is the one the request named."""
    from ..service.memory import new_stream_hint

    text = new_stream_hint(result, repo=repo, stream=stream)
    if text:
        render.hint(text)


def waits(repo, result) -> None:
    """After a record, handoff or supersede: a hint when its anchor commit is on no
    remote-tracking ref, so its publication and every later memory of its stream wait for a push
    (``unpushed.waits_hint``), with ``--json`` too."""
    from ..service.unpushed import waits_hint

    risks: list[str] = []  # (a mirror clone: a pruning fetch deletes it, a trial)
    again: list = []
    text = waits_hint(repo, result, risks, risks, again)  # (and git: evidence commits not pushed)
    if text:
        said_lately(repo, text, again)
    for risk in risks:
        warn(risk)


def imported_not_merged(repo, result) -> None:
    """After a sync that imported memories: how many of them recall at HEAD leaves out because
    their anchor commit is not merged here, and the recall that lists them
    (``replication.not_merged``; a newcomer trial took their absence for a failed sync); with
    ``--json`` too, shorter within ten minutes of saying it (the fetch hook then says nothing)."""
    if not result.imported:
        return
    from ..service.replication.not_merged import hint

    found = hint(repo, result)
    if found:
        said_lately(repo, found[0], [found[1]])


def said_lately(repo, text: str, again: list) -> None:
    """A hint, ``text``; when this clone said the same text in full within the last ten minutes
    (``store.hints_said``), its shorter form (``again``: what is still so, and the way out) and
    when it was said in full instead: an agent's burst of records repeated the same long lines on
    each one (a write's hints), as a burst of syncs, empty recalls or empty logs did the one that
    no replication selection is saved. A hint whose count moves at each write (how many memories
    wait) is known by the words its shorter form gives with it (``again``'s third item). The file
    is read and written only here, when there is a hint to print; a hint with no shorter form is
    said in full every time."""
    if not again:
        render.hint(text)
        return
    import time

    from ..store import hints_said

    state, way_out, *known_as = again[0]  # (a hint whose count moves at each write: known by its words)
    key = known_as[0] if known_as else text
    now = time.time()
    when = hints_said.said_at(repo, key, now)
    if when is None:
        render.hint(text)
        hints_said.remember(repo, key, now)
        return
    minutes = int(now - when) // 60
    ago = "less than a minute ago" if not minutes else f"{minutes} minute{'s' if minutes > 1 else ''} ago"
    render.hint(f"{state} ({way_out}; said in full {ago})")


def warn(text: str) -> None:
    """One ``git-hn: warning:`` line on stderr."""
    import sys

    sys.stderr.write(render.fitted(f"git-hn: warning: {text}") + "\n")


def hooks_gone(repo) -> None:
    """After a record or a sync: a warning when git-hn's hooks were installed here and some are
    gone (a hook manager regenerated its hooks directory, husky's ``prepare`` on every ``npm
    install``: a team trial found memory silently no longer published on push, and amends no
    longer re-anchored). No Git process (``gone_since_install``)."""
    import os

    if not os.path.exists(os.path.join(repo.hn_dir, "hooks.json")):
        return  # (no install here: nothing imported for it)
    from ..service.hook_hints import gone_since_install

    gone = gone_since_install(repo)
    if gone:
        import sys

        sys.stderr.write(render.fitted(
            f"git-hn: warning: git-hn's {', '.join(gone)} hook{'s' if len(gone) > 1 else ''} "
            f"{'were' if len(gone) > 1 else 'was'} installed here and {'are' if len(gone) > 1 else 'is'} gone (did "
            "a hook manager rewrite its hooks?), so memory is not kept in step with push and fetch: git hn hooks "
            "install puts them back") + "\n")


def elsewhere_hint(repo, hidden) -> bool:
    """After a recall: how many matching memories it left out because they do not apply at the
    query commit (``recall.Hidden.elsewhere``), with a command for the reader's own and one for
    a teammate's, also when others matched (a team trial: after a squash merge, the feature's
    decisions dropped out of a recall that still listed main's). Not in a shallow clone (its
    history may be what is missing: ``shallow_hint``). Whether it said so."""
    from ..core.hints import not_applying, places

    n = getattr(hidden, "elsewhere", 0)
    text = "" if not n or repo.is_shallow() else \
        not_applying(n, hidden.mine, hidden.theirs, **places(hidden))
    if text:
        render.hint(text)
    return bool(text)


def unmerged_hint(repo, hidden) -> None:
    """After a recall that found memories (the human forms, not ``--json``): how many more that
    match it left out only because their anchor commit, which a ref here holds, is not in the
    query commit's history (``recall.Hidden.unmerged``; a newcomer trial took their absence after
    a sync for a failed import), with the recall that lists them; shorter within ten minutes of
    saying it in full (a team with open branches leaves some out of most recalls). Not in a
    shallow clone (``elsewhere_hint``)."""
    anchor, on_anchor, n = getattr(hidden, "unmerged", ("", 0, 0))
    if not n or repo.is_shallow():
        return
    from ..core.not_merged import left_out

    text, again = left_out(n, anchor, on_anchor)
    said_lately(repo, text, [again])


def brief_notes(repo, left: dict, newer: list, doc, as_json: bool) -> bool:
    """After a brief, on stderr: the header's notes the document does not carry, one hint each, so
    that an agent or a person learns what the brief could not say. With ``--json`` (its keys are
    §7.15's) the newer-handoff lines (``away.newer_notes``, with the count of memories not merged
    here on the line whose brief lists them all: ``unmerged_fold``, f177); the other notes have
    hints of their own. After a Markdown brief whose bound left its header no room for the notes
    (``doc.dropped``; f178: only the not-merged count reached stderr, and said "2 more" of a
    handoff line never printed): the header's own notes (``left["notes"]``: no remote's memory
    imported here, the policy drift, the memories not applying here; as computed for the header,
    no Git process more), then those lines. Nothing when the header carries them. Returns whether
    the newer-handoff lines were said here (``brief_unmerged``'s count then takes the same form)."""
    if not as_json and not getattr(doc, "dropped", ()):
        return False
    from ..core.away import newer_notes

    own = () if as_json else left.get("notes", ())
    for text in (*own, *newer_notes(newer, also=unmerged_fold(repo, left, newer))):
        render.hint(text[:1].lower() + text[1:])
    return True


def brief_unmerged(repo, left: dict, newer: list, doc, lines_said: bool = False) -> None:
    """After a brief (on stderr: the JSON document's keys are §7.15's): how many active memories
    it left out only because their anchor commit, which a ref here holds, is not in the brief
    commit's history (``brief.left_behind_count``'s ``unmerged``; f169: an agent's brief left a
    teammate's decisions on a fetched branch out without a word), and the brief there. In full each
    time: each brief starts a session; the handoffs ``newer``'s lines name are not counted again.
    Not when the Markdown ``doc`` carries the same line in its header (``doc.notes``, f173: a
    session-start hook passes the agent stdout alone, and a reader of both read it twice); said
    when the byte bound left it no room. Not in a shallow clone (``unmerged_hint``). Not on a line
    of its own when a newer-handoff line names the brief that lists them all (``unmerged_fold``,
    f177): when the newer-handoff lines were said on stderr (``lines_said``, ``brief_notes``: with
    ``--json``, and after a Markdown brief that went without its notes, f178) that line, said
    before, says the count, and "N more" speaks of the lines said just before it."""
    if not left.get("unmerged") or repo.is_shallow():
        return
    from ..core.away import newer_notes
    from ..core.not_merged import brief_left_out, brief_lines, folded

    held, mine, refs = left["unmerged"], left.get("unmerged_mine", ()), left.get("unmerged_refs")
    if lines_said and folded(held, newer, mine, refs)[0]:
        return  # (said on the handoff's line)
    notes = getattr(doc, "notes", ())
    plain = newer_notes(newer, "markdown") if notes else ()
    if notes and any(line in notes for line in brief_lines(newer, held, "markdown", mine, refs) if line not in plain):
        return  # (the Markdown header says the count: on a line of its own or on a handoff's)
    text = brief_left_out(held, newer, mine=mine)
    if text:
        render.hint(text)


def unmerged_fold(repo, left: dict, newer: list) -> tuple[str, int]:
    """``core.not_merged.folded`` for the CLI's newer-handoff lines after a ``--json`` brief: the
    handoff whose line says the count of memories left out as work not merged here, since its
    brief lists them all; ("", 0) when none does, or in a shallow clone (``brief_unmerged``)."""
    if not left.get("unmerged") or repo.is_shallow():
        return "", 0
    from ..core.not_merged import folded

    return folded(left["unmerged"], newer, left.get("unmerged_mine", ()), left.get("unmerged_refs"))


def not_imported(repo) -> None:
    """After a read (recall, a JSON brief, ``index verify``): that a remote's saved selection has
    imported nothing yet, and the sync that does (``service.unimported``; a team trial's fresh
    clone answered "Matched: 0" with nothing said). No Git process without a selection that no
    sync served; with no replication record at all (no selection saved, no sync), one ``lstat`` and
    no module of sync's loaded."""
    if not os.path.lexists(repo.replication_dir()):
        return
    from ..service.unimported import hint

    text = hint(repo)
    if text:
        render.hint(text)


def lost_streams(repo) -> None:
    """After a read (recall, the brief, log, show) and a sync: a warning when a stream of the
    active identity lost memories outside git-hn (its ref deleted or moved back: ``store.rewound``),
    with the command that restores it; with ``--json`` too. One ``lstat`` when none did."""
    from ..service.lost_streams import hint

    text = hint(repo)
    if text:
        warn(text)


def failed_imports(repo) -> None:
    """After recall and the brief (every form): the streams the last import of a remote did not
    import (``replication.failures``; a team trial: one stream failed at sync, and recall and the
    brief showed the rest with nothing said). One file read; with no record, one ``lstat`` and
    no module of sync's loaded."""
    if not os.path.lexists(repo.failed_imports_path()):
        return
    from ..service.replication.failures import hint

    text = hint(repo)
    if text:
        render.hint(text)


def policy_drift(repo, at: str, shown) -> None:
    """After a read that shows memories as trusted (``shown``: their (actor, kind) pairs) at
    revision ``at``: the actors (or kinds) the policy there trusts that the policy at the
    reference branch does not (``service.policy_drift``; a trial: a revoked key's new handoff read
    as trusted on a release branch, with no word). With ``--json`` too: an agent reads it."""
    shown = set(shown)
    if not shown:
        return
    from ..core.grammar import is_oid
    from ..service.policy_drift import hint

    commit = at if is_oid(at) and len(at) == repo.oid_hex_len else repo.resolve_commit(at)
    text = hint(repo, commit, shown)
    if text:
        render.hint(text)


def no_selection(repo, saved_any: bool = False) -> None:
    """After a JSON brief, recall and log: the Markdown header's line that this clone holds no
    memory imported from its remotes and has no replication selection (``brief.NOT_IMPORTED``; an
    agent trial: a fresh clone's JSON brief was empty with nothing on stderr, while the Markdown
    brief and MCP said what to run; a review: recall and log listed one's own memory alone without
    a word). With a selection saved, ``not_imported`` names the remote instead. ``saved_any``
    (recall and log, on every read): nothing is asked once any selection is saved, so a clone that
    selected but has nothing to import yet starts no ``git remote`` for the line on each read (a
    selection left by a removed remote then hides it)."""
    if saved_any:
        from ..store import replication as rstate

        if rstate.selections_settled(repo)[0] or not repo.may_have_remotes():
            return
    from ..service.brief import NOT_IMPORTED, header_notes

    if NOT_IMPORTED in header_notes(repo):
        render.hint(NOT_IMPORTED[:1].lower() + NOT_IMPORTED[1:])


def brief_left_out(left: dict, as_json: bool) -> None:
    """After a JSON brief: how many active memories it left out as not applying at its commit
    (the Markdown brief says it in its header; the JSON document has no field for it)."""
    from ..core.hints import brief_not_applying

    text = brief_not_applying(left.get("inapplicable", 0)) if as_json else ""
    if text:
        render.hint(text)


def shallow_hint(repo, doc: dict) -> bool:
    """After a recall that matched nothing in a shallow clone (a CI or an agent's ``--depth 1``
    checkout: a team trial found recall empty, with nothing saying why): a memory anchored on a
    commit beyond the clone's history is left out, since HEAD's descent from it cannot be
    checked. On stderr (``--json`` too: an agent reads it); one stat. Whether it said so."""
    if doc["matched"] or not repo.is_shallow():
        return False
    from . import render

    render.hint("nothing matched, and this clone is shallow: a memory anchored on a commit beyond its history is "
                "left out (HEAD's descent from it cannot be checked); git fetch --unshallow, or --deepen=N, "
                "brings that history")
    return True


def path_hint(repo, matched: int, path: str, hidden: dict | None = None, at: str = "HEAD", req=None,
              command: str = "recall") -> bool:
    """After a ``command`` (``recall``, ``log``, ``export``: one text for the three, a trial found
    log and export silent where recall hinted) by path that matched nothing (``matched``: how
    many did): when the path is a directory at the query
    commit ``at``, that ``--path`` takes a file (``recall.directory_hint``); run from a
    subdirectory, that paths are relative to the top of the repository (§13.6), so ``--path
    lexer.py`` in ``src/parser`` names nothing: the hint (stderr, with ``--json`` too: an agent
    reads it) gives the path from the top, when that path is a file here and the one given is
    none from the top (a review: given from the top already, it was told to prefix it again);
    when the file was renamed, the memories anchored to its earlier name (``renamed_paths``,
    given ``req``: the command's normalized request); and nothing was hidden by the trust policy
    (that hint explains the empty answer). Whether it said so."""
    import os

    if matched or not path or any((hidden or {}).values()):
        return False
    from ..service.recall import directory_hint
    from ..store.resolver import Resolver

    resolver = Resolver(repo)  # (one for both lookups: the directory is read once)
    tree = directory_hint(repo, at, path, resolver=resolver)
    if tree:
        render.hint(tree)
        return True
    from ..core.grammar import is_path

    proc = repo.git.run(["rev-parse", "--show-prefix"])
    prefix = proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""
    if prefix and is_path(prefix + path, LIMITS.max_path):
        top = os.path.normpath(os.path.join(os.getcwd(), *[".."] * prefix.count("/")))
        # (``path`` from here names a file, and none from the top)
        if os.path.lexists(path) and not os.path.lexists(os.path.join(top, path)):
            from shlex import quote

            from ..core.gostr import echoed

            # (shell-quoted, as record's hint is: a trial pasted ``--path dïr ü/ñ.txt`` and got two arguments)
            render.hint(f"nothing is anchored to {echoed(path)}; paths are relative to the top of the repository, "
                        f"so from here that is --path {echoed(quote(prefix + path))}")
            return True
    if req is None:
        return False
    from ..service.renamed_paths import renamed_hint

    text = renamed_hint(repo, req, path, at, command, resolver)
    if text:
        render.hint(text)
    return bool(text)


CHALLENGES_NAMED = 3  # challengers or challenged memories a piped hint names by ID (``--json`` has every one)


def _named(ids: list[str]) -> str:
    """Up to ``CHALLENGES_NAMED`` IDs by 12 characters, then how many more."""
    from ..core.gostr import and_joined, short_id

    shown = [short_id(i) for i in ids[:CHALLENGES_NAMED]]
    more = len(ids) - len(shown)
    return and_joined(shown + ([f"{more} more"] if more > 0 else []))


def challenged_show(doc: dict) -> None:
    """After a piped ``show`` (§7.13's lines, which have no place for it): who challenged the
    memory, and how to read why (a trial: agents run the CLI through a pipe, and a challenged
    memory read as undisputed; a terminal prints ``Challenged by``)."""
    from ..core.gostr import short_id

    challengers = (doc.get("projection") or {}).get("challengers") or []
    if not challengers or render.on_terminal():
        return
    one = short_id(challengers[0])
    # (a challenge's piped show has no line for its reason either: its JSON envelope has)
    read = f"git hn memory show --json {one} gives its reason (envelope.reason)" if len(challengers) == 1 else \
        ("git hn memory show --json ID of each gives its reason (envelope.reason; this memory's --json lists "
         "every one: projection.challengers)")
    render.hint(f"memory {short_id(doc['memoryId'])} is challenged by {_named(challengers)}, which these lines do "
                f"not show: {read}")


def challenged_recall(doc: dict) -> None:
    """After a piped recall (§7.12's lines, which have no place for it): how many returned rows are
    challenged, and how to read the challenges (a terminal marks each ``challenged``)."""
    rows = [row["id"] for row in doc["memories"] if row.get("challengers")]
    if not rows or render.on_terminal():
        return
    what = "1 returned memory is" if len(rows) == 1 else f"{len(rows)} returned memories are"
    render.hint(f"{what} challenged, which these lines do not show: {_named(rows)}; git hn memory show ID names "
                "its challengers (--json: each row's challengers)")


def brief_omitted(doc: dict, bound: int, as_json: bool) -> None:
    """After a JSON brief that left items out for its bound: how many, and what shows them (a
    trial: ``omitted`` was the only word of it, while the Markdown brief names them and MCP's
    ``hint`` says it; §7.15 fixes the document's keys). The bound that would fit every item is not
    said: only a brief that builds every item would know it."""
    from ..core.brief import SECTIONS

    n = doc["omitted"]
    if not as_json or not n:
        return
    one_fits = getattr(doc, "one_fits", None)
    if not any(doc[name] for name in SECTIONS) and one_fits:  # (none listed: the bound that lists one)
        render.hint(f"none of the brief's {n} items fits in --max-bytes {bound} (an item is never cut): "
                    f"--max-bytes {one_fits} lists one")
        return
    what = "1 item of the brief" if n == 1 else f"{n} items of the brief"
    them = "it" if n == 1 else "them"
    render.hint(f"{what} did not fit in --max-bytes {bound} (an item is never cut): a larger --max-bytes shows "
                f"{them}, the Markdown brief (without --json) names those it leaves out, and git hn memory recall "
                f"lists {them} by kind, path or topic")
