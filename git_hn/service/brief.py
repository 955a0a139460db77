"""``git hn memory brief`` (CONTRACT §7.15; the digest is ``service.digest``'s).

A read-only view of the verified state: no fetch, no ref update, no clock. Counts come from the
state's grouped rows (each group's classes decided once, ``service.rows``); only the items the
byte bound admits are projected (from their closure, like recall's page), so an item is exactly
the row recall would return for the same context. ``brief_full`` answers from a full projection;
a test compares both ways after every kind of change.

Staleness is decided offline against the query commit with the literal tree lookup of §5.5
(``Resolver.entry``), so a memory anchored to a file that later commits changed is flagged without
any service.
"""

from __future__ import annotations

from ..core import away as aside
from ..core import brief as core
from ..core.invisible import lookalikes
from ..core.lines import lines_of
from ..core.projection import Context, ProbeError, project, row_index_json
from ..errors import InputError
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy


def _projection(repo: Repo, at: str):
    collection = streams.collect(repo)
    resolver = Resolver(repo)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    policy = load_policy(repo, resolver, at)
    proj = project(list(collection.memories), Context(at, "", "", policy.memory, policy.digest),
                   resolver)
    return collection, resolver, policy, proj


def _blob_at(resolver: Resolver, commit: str):
    memo: dict[str, str] = {}

    def blob_at(path: str) -> str:
        if path not in memo:
            try:
                found = resolver.entry(commit, path)
            except ProbeError:
                found = (b"", "unreadable", "unreadable")  # cannot confirm it is unchanged
            memo[path] = "absent" if found is None else (found[2] if found[1] == "blob" else
                                                          f"{found[1]}:{found[2]}")
        return memo[path]

    return blob_at


def stale_at_head(repo: Repo, record) -> list[str]:
    """The anchored paths of ``record`` whose blob at HEAD differs from the anchored one (what the
    brief at HEAD marks ``stale``), in anchor order; [] when it is anchored on HEAD, has no paths
    or HEAD is unborn, and when it does not apply at HEAD (a review: the hint marked "stale at
    HEAD", with ``supersede --at HEAD``, a memory of another branch the brief at HEAD leaves out):
    only a ``descendants`` record whose anchor is in HEAD's history (``merge-base
    --is-ancestor``, a hint's question). One tree lookup per path (a supersede's hint: a trial's
    successor kept the old anchor and was stale at once, with no word)."""
    head = repo.head_commit()
    if record is None or not head or record.anchor.commit == head or not record.anchor.paths \
            or record.applicability.mode != "descendants":
        return []
    if repo.git.run(["merge-base", "--is-ancestor", "--end-of-options", record.anchor.commit, head]).returncode:
        return []
    blob_at = _blob_at(Resolver(repo), head)  # (the repository's batch process: nothing of its own to close)
    return [p.path for p in record.anchor.paths if blob_at(p.path) != p.blob]


def _item(row, data: dict, blob_at, challengers: list | None) -> dict:
    return core.item(data, core.stale_paths(data, blob_at), challengers)


def _challengers(row, envelope_of) -> list[dict]:
    out = []
    for cid in row.lifecycle.challengers:
        env = envelope_of(cid)
        out.append({"memoryId": cid, "actor": env.actor, "reason": env.reason,
                    "evidence": list(env.evidence or ())})
    return out


def brief_sections(repo: Repo, at: str, include_untrusted: bool, focus: core.Focus = core.Focus(),
                   left_out: dict | None = None):
    """(head of the document, full sections, actor names, ``away.newer_elsewhere``'s answer) for
    the brief at commit ``at``; ``left_out["inapplicable"]`` (when given): the active memories the
    trust filter keeps that do not apply at ``at``; ``left_out["trusted"]``: (actor, kind) of the
    candidates the policy trusts (``drift_notes``)."""
    collection, resolver, policy, proj = _projection(repo, at)
    by_id = collection.by_id()
    blob_at = _blob_at(resolver, at)
    sequences = {m.memory_id: m.envelope.sequence for m in collection.memories}
    candidates, excluded, elsewhere, away, onward = [], 0, [], {}, {}
    for row in proj.rows.values():
        if (row.lifecycle.lifecycle == "active" and row.record.kind == "handoff"
                and row.applicability in aside.ELSEWHERE and (include_untrusted or row.trust == "qualified")):
            elsewhere.append(aside.Away(row.id, row.actor, row.stream, sequences[row.id], row.record.anchor.commit,
                                        row.record.applicability.mode, row.record.applicability.subject,
                                        row.signed_timestamp))
        if (row.lifecycle.lifecycle != "active" or row.applicability != "applicable"
                or row.evidence != "resolved"):
            if (row.lifecycle.lifecycle == "active" and row.applicability == "inapplicable"
                    and (include_untrusted or row.trust == "qualified")):
                away[row.record.anchor.commit] = away.get(row.record.anchor.commit, 0) + 1
                if row.record.applicability.mode == "descendants":
                    key = (row.record.anchor.commit, row.actor)
                    onward[key] = onward.get(key, 0) + 1
            continue
        if row.trust != "qualified" and not include_untrusted:
            excluded += 1
            _untrusted_author(left_out, row.trust, row.actor, 1)
            continue
        challenged_by = _challengers(row, lambda c: by_id[c].envelope) if row.lifecycle.challengers else None
        candidates.append(_item(row, row_index_json(row), blob_at, challenged_by))
    names = core.Authors(policy.memory, {m.memory_id: m.envelope.actor_name for m in collection.memories})
    names.lookalike = lookalikes(p["path"] for c in candidates for p in c["anchor"].get("paths", ()))
    top = core.head(at, policy.digest, excluded)
    if left_out is not None:
        left_out["inapplicable"] = left_behind_count(repo, away, onward, left_out, elsewhere)
        left_out["trusted"] = {(c["actor"], c["kind"]) for c in candidates if c["trust"] == "qualified"}
    full = core.sections(candidates, sequences, focus)
    shown = [(h["id"], h["actor"], h["stream"], sequences[h["id"]]) for h in full["handoffs"]]
    refs = _unmerged_refs(left_out)
    anchors = sorted(left_out["unmerged"]) if refs is not None else ()
    return top, full, names, placed(repo, at, aside.newer_elsewhere(shown, elsewhere), anchors, refs)


MAX_FOCUS_PATHS = 256  # changed paths that rank a brief (a branch that changed more ranks by these)


def focus(repo: Repo, at: str, base: str | None, paths=(), topics=()) -> core.Focus:
    """The work at hand: the paths changed between the merge base of ``base`` (default: the
    current branch's upstream, if any) and ``at``, plus ``paths`` and ``topics``. One
    ``git diff`` when there is a base; none otherwise. A path or topic that no memory could
    carry is refused as recall refuses it."""
    from ..core.grammar import is_path, is_topic, normalize_topic
    from ..core.limits import LIMITS, PATH_RULE, path_rule

    if not all(is_path(p, LIMITS.max_path) for p in paths):
        raise InputError(f"invalid path filter; {PATH_RULE}", f"invalid path filter; {path_rule('each paths item')}")
    topics = [normalize_topic(t) for t in topics]
    if not all(is_topic(t, LIMITS.max_topic) for t in topics):
        from ..core.recall import topic_error

        raise InputError(topic_error(topics))
    changed: list[str] = []
    if base is None:
        up = repo.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", "@{upstream}"])
        base = up.stdout.decode("ascii", "replace").strip() if up.returncode == 0 else ""
    else:
        base = repo.resolve_commit(base)
    if base:
        diff = repo.git.run(["diff", "--name-only", "-z", "--no-renames", "--end-of-options", f"{base}...{at}"])
        if diff.returncode != 0:
            raise InputError(f"cannot compare the brief commit with its base {base}")
        changed = [p for p in diff.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    return core.Focus(frozenset(sorted(changed)[:MAX_FOCUS_PATHS]) | frozenset(paths),
                      frozenset(topics))


def brief(repo: Repo, at: str, *, max_bytes: int = core.DEFAULT_MAX_BYTES,
          include_untrusted: bool = False, fmt: str = "markdown",
          from_input: bool = False, base: str | None = None, paths=(), topics=(),
          left_out: dict | None = None, newer: list | None = None) -> tuple[dict, bytes]:
    """The bounded brief from the verified state: (document, exact output bytes of ``fmt``).
    ``left_out`` (when given) gets ``inapplicable``: how many active memories it left out
    because they do not apply at the commit, and ``unmerged`` (``left_behind_count``) when some
    are work not merged here, and (Markdown) ``notes``, the header's own notes, for the CLI to say
    when the bound leaves them no room (``_away``); ``newer`` (when given) gets
    ``away.newer_elsewhere``'s answer (placed): the handoffs shown as their stream's latest while
    a newer one does not apply at the commit, and the latest handoffs of streams it shows none of. The Markdown header says both; the JSON document has no
    field for them, so the CLI says them on stderr (``unmerged`` there only, in both formats)."""
    from ..store import stateview

    commit = _brief_commit(repo, at, max_bytes, from_input)
    aim = focus(repo, commit, base, paths, topics)
    listing = streams.list_sources(repo)  # (the state's, read first: the header's line reads it too)
    notes = header_notes(repo) if fmt == "markdown" else ()
    found: list = []
    left_out = {} if left_out is None else left_out

    def counted(make):
        found.clear()  # (the state may fail over to the full projection half way)
        left_out.pop("unmerged", None), left_out.pop("unmerged_mine", None), left_out.pop("unmerged_refs", None)
        return make()

    out = stateview.serve(
        repo, lambda view: counted(lambda: _brief_view(repo, view, commit, include_untrusted, max_bytes, fmt, aim,
                                                       notes, left_out, found)),
        lambda: counted(lambda: _brief_full(repo, commit, include_untrusted, max_bytes, fmt, aim, notes, left_out,
                                            found)), listing)
    if newer is not None:  # (only handoffs the bound kept: a review found one named that was not shown)
        newer.extend(aside.kept(found, {h["id"] for h in out[0]["handoffs"]}))
    return out


def brief_full(repo: Repo, at: str, *, max_bytes: int = core.DEFAULT_MAX_BYTES,
               include_untrusted: bool = False, fmt: str = "markdown",
               from_input: bool = False, base: str | None = None, paths=(), topics=(),
               newer: list | None = None) -> tuple[dict, bytes]:
    """The same brief from a full projection (the reference)."""
    commit = _brief_commit(repo, at, max_bytes, from_input)
    found: list = []
    out = _brief_full(repo, commit, include_untrusted, max_bytes, fmt, focus(repo, commit, base, paths, topics),
                      header_notes(repo) if fmt == "markdown" else (), newer=found)
    if newer is not None:
        newer.extend(aside.kept(found, {h["id"] for h in out[0]["handoffs"]}))
    return out


NOT_IMPORTED = ("This clone holds no memory imported from its remotes: if they hold some, git hn replication "
                "select --all, then git hn sync, imports it")
NOT_SYNCED = ("This clone holds no memory imported from its remotes yet: git hn sync imports what its replication "
              "selection names")


def header_notes(repo: Repo) -> tuple[str, ...]:
    """git-hn's lines for the Markdown brief's header: that this clone holds no accepted memory
    (no ``refs/hn/remotes/*/memory/*``) while a remote is configured, so that an agent whose
    session starts in a fresh clone with an empty brief knows why. Decided from the memory
    listing this command read (``Repo.listed_remotes``; else it reads one), the configured
    remotes (``git remote``, asked only then, as recall and log ask it: a review found the header
    naming a removed remote, whose sync fails) and the saved replication selections (an agent
    trial: with a selection saved and synced, the line still said to select): with one saved for
    a configured remote, only the sync part; nothing once a sync served every selected remote
    (``rstate.selections_settled``), unless the saved selection of a configured remote selects
    no stream (``--actor`` alone, which git-hn imports nothing for: ``unimported.streamless``,
    every read's test), when the line says which selection imports instead. So the line is a
    function of the refs, the configured remotes and what ``replication select`` and imports left
    under ``.git/hn/replication`` (docs/decisions.md); the brief's items never depend on them."""
    imported = repo.listed_remotes
    if imported is None:  # (this command read no listing yet: ``brief_full``)
        imported = {s.remote for s in streams.list_sources(repo) if s.remote is not None}
    configured = () if imported else repo.remote_names()
    if not configured:
        return ()
    from ..store import replication as rstate

    selected, served = rstate.selections_settled(repo, configured)  # (a removed remote's selection: none)
    if not selected:
        return (NOT_IMPORTED,)
    from .unimported import streamless, streamless_text

    lost = streamless(repo, imported=False)  # (a selection a sync imports nothing for: what does, instead)
    if lost:
        text = streamless_text(lost)
        return (text[:1].upper() + text[1:],)
    return () if served == selected else (NOT_SYNCED,)


def _brief_full(repo: Repo, commit: str, include_untrusted: bool, max_bytes: int, fmt: str,
                aim: core.Focus = core.Focus(), notes: tuple[str, ...] = (), left_out: dict | None = None,
                newer: list | None = None):
    left_out = {} if left_out is None else left_out
    top, full, names, found = brief_sections(repo, commit, include_untrusted, aim, left_out)
    names.advice = trust_advice(repo, commit, top, left_out, fmt)
    notes = (*notes, *drift_notes(repo, commit, fmt, left_out["trusted"]))
    return core.bounded(top, full, max_bytes, fmt, names,
                        *_noted(_away(notes, fmt, left_out["inapplicable"], left_out), found, fmt, newer,
                                _unmerged(repo, left_out, fmt)))


def trust_advice(repo: Repo, at: str, top: dict, left_out: dict | None, fmt: str) -> str:
    """What the Markdown brief's line on memories left out for trust says qualifies them, when
    the usual advice would fail (``core.brief.Authors.advice``; "" for the usual): without a policy
    at ``at``, by what the working tree holds (a trial: "policy init writes one" of a file init
    refuses); when the policy no longer trusts any author of those left out as
    ``actor-untrusted`` (``service.revoked``, whose answer goes to ``left_out["revoked"]`` for the
    CLI's hint: one lookup), no offer to trust them; to a reader known not to be a maintainer of
    the policy (``policy_edit.not_maintainer``), what a maintainer runs, as the CLI's and the MCP
    tools' hints say. Asked only when memories were left out."""
    if fmt != "markdown" or not top["excludedUntrusted"]:
        return ""
    from ..core.policy import MISSING_DIGEST

    if top["policyDigest"] == MISSING_DIGEST:
        from .policy_working import working_policy

        return core.NO_POLICY_HERE.get(working_policy(repo), "")
    from .policy_edit import not_maintainer

    outsider = not_maintainer(repo)
    authors = (left_out or {}).get("authors")
    every = False
    if authors:
        from .revoked import among

        _revoked, every = left_out["revoked"] = among(repo, at, authors)
    if not every:
        return core.TRUST_BY_MAINTAINER if outsider else ""
    if sum(authors.values()) >= top["excludedUntrusted"]:
        return core.REVOKED["all"]
    return core.REVOKED["kinds-by-maintainer" if outsider else "kinds"]


def _unmerged_refs(left_out: dict | None) -> dict | None:
    """``left_out["unmerged_refs"]``, made (empty) when some memories are counted as work not merged
    here, for ``placed`` to fill: the refs that hold their anchors (``core.not_merged.folded``)."""
    if left_out is None or not left_out.get("unmerged"):
        return None
    refs = left_out["unmerged_refs"] = {}
    return refs


def left_behind_count(repo: Repo, away: dict[str, int], onward: dict[tuple[str, str], int] | None = None,
                      left_out: dict | None = None, elsewhere=()) -> int:
    """How many of the memories ``away`` counts (anchor commit -> memories on it that do not
    apply at the commit) are anchored on commits no branch, tag or remote-tracking ref here
    contains, nor HEAD (``held.off_branches``: a branch squash-merged or rebased, then deleted; an
    ``hn-anchor/*`` keep branch holds nothing open). A memory on an open branch does not apply on
    main either, but nothing was lost: a review found
    the line said on every brief and recall of a team with open branches, suggesting to carry
    work in progress over to HEAD. One ``rev-list``, only when something does not apply.
    ``onward``: those of ``away`` recorded ``--applies descendants`` ((anchor, actor) -> memories);
    of them, the ones another actor signed whose anchor a ref still holds (work not merged here,
    f169: an agent's brief left a teammate's decisions on a fetched branch out without a word) go
    to ``left_out["unmerged"]`` (anchor -> memories; ``core.not_merged.brief_left_out`` words
    it), from the same walk: no process more. One's own are not counted, as f163's import hint
    does not count them: a person's own open branches leave memories out of most briefs on main
    (a review pinned silence there: ``test_squash_left_out``), and the newer-handoff lines name a
    session's own handoff on another branch. ``left_out["unmerged_mine"]``: the IDs of one's own
    handoffs of ``elsewhere`` (``away.Away`` each), which the newer-handoff lines may name while
    the count has none of them."""
    if not away:
        return 0
    from .held import off_branches  # (git-hn's hn-anchor/* keep branches hold nothing open)

    gone = off_branches(repo, away)
    held = {key: n for key, n in (onward or {}).items() if key[0] not in gone}
    if held and left_out is not None:
        from ..store.identity import active_actor  # (one small file, read only then)

        me, others = active_actor(repo), {}
        for (commit, actor), n in held.items():
            if actor != me:
                others[commit] = others.get(commit, 0) + n
        if others:
            left_out["unmerged"] = others
            left_out["unmerged_mine"] = {a.id for a in elsewhere if a.actor == me}
    return sum(n for commit, n in away.items() if commit in gone)


def drift_notes(repo: Repo, at: str, fmt: str, trusted) -> tuple[str, ...]:
    """The Markdown header's line when the policy at ``at`` trusts an actor or kind of the brief's
    trusted candidates (``trusted``: their (actor, kind) pairs) that the policy at the reference
    branch does not (``policy_drift``: a trial's agent read a revoked key's handoff, and a
    self-trusting branch's, as trusted). An agent reads the brief, not stderr."""
    if fmt != "markdown" or not trusted:
        return ()  # (none trusted: no drift to say, and ``policy_drift`` is not loaded for it)
    from .policy_drift import hint

    text = hint(repo, at, trusted, markdown=True)
    return (text[:1].upper() + text[1:],) if text else ()


def _away(notes: tuple[str, ...], fmt: str, n: int, left_out: dict | None = None) -> tuple[str, ...]:
    """The Markdown header's notes, with the line for ``n`` memories left out as not applying
    at the commit (a team trial: after a squash merge the feature's decisions dropped out of
    the brief without a word); also ``left_out["notes"]``, for the CLI to say on stderr when the
    bound leaves the header no room for them (f178: the newer-handoff lines it says itself)."""
    from ..core.hints import brief_not_applying

    notes = (*notes, brief_not_applying(n)) if n and fmt == "markdown" else notes
    if left_out is not None and fmt == "markdown":
        left_out["notes"] = notes
    return notes


def _unmerged(repo: Repo, left_out: dict | None, fmt: str):
    """The Markdown header's newer-handoff lines with the count of the memories left out as work
    not merged here, as a function of their handoffs (``core.not_merged.brief_lines``: those named
    are not counted again, and a line whose brief lists all the count has says it, f177), or None
    when there is none, or in a shallow clone (as the CLI's hint). A
    function of ``left_behind_count``'s ``unmerged``: the state's rows (or the projection), the
    refs that hold their anchors, the policy and flags, and the active identity (one's own are
    not counted, as the trust advice's maintainer words already depend on it); no clock, no memo."""
    held = (left_out or {}).get("unmerged")
    if fmt != "markdown" or not held:
        return None  # (nothing left out: no stat, no module)
    if repo.is_shallow():
        return None
    from ..core.not_merged import brief_lines

    mine, refs = left_out.get("unmerged_mine", ()), left_out.get("unmerged_refs")
    return lambda newer: brief_lines(newer, held, "markdown", mine, refs)


def _noted(notes: tuple[str, ...], found: list, fmt: str, newer: list | None, unmerged=None):
    """(the Markdown header's notes with a line for each newer handoff elsewhere, ``found``, also
    given to ``newer``, and the count ``unmerged`` adds to them (``_unmerged``: f173, a
    session-start hook passes the agent stdout alone; on a line of its own, or on the line whose
    brief lists them all, f177); the function that settles them once the bound chose the items,
    for ``core.bounded_items``: a handoff the bound left out gets no line, as in JSON and MCP,
    and is counted instead, and the count goes when that makes the notes longer than the room
    the fill reserved for them: the bound is never exceeded)."""
    if newer is not None:
        newer.extend(found)
    if fmt != "markdown":
        return notes, None

    def lines(handoffs: list, counted: bool = True) -> tuple[str, ...]:
        if unmerged is not None and counted:
            return (*notes, *unmerged(handoffs))
        return (*notes, *aside.newer_notes(handoffs, "markdown"))

    reserved = lines(found)

    def settle(doc) -> tuple[str, ...]:
        kept = aside.kept(found, {h["id"] for h in doc["handoffs"]})
        out = lines(kept)
        if core.notes_size(out) > core.notes_size(reserved):
            return lines(kept, False)  # (the count grew by the handoffs no line names now)
        return out

    return reserved, settle


def placed(repo: Repo, at: str, newer: list, anchors=(), refs: dict | None = None) -> list:
    """``away.placed`` with Git's answers: whether a commit is here, whether it is in the
    history of the brief's commit ``at`` (``merge-base --is-ancestor``: a hint's question, never
    a trust decision) and the first branch, tag or remote-tracking ref that holds it (its short
    name; a symbolic ``…/HEAD`` is skipped). At most ``NEWER_NAMED`` handoffs are asked about:
    an exact one, one ``merge-base`` each; the refs of the others, all at once (``held``: one to
    three ``name-rev``); none when there are none. ``refs`` (when given) gets a ref holding each
    of ``anchors`` that those processes name (``held.holding_refs``' ``also``: none more for
    them; the anchors of the memories ``left_behind_count`` may count, f177)."""
    if not newer:
        return newer

    def present(commit: str) -> bool:
        info = repo.git.object_info(commit)
        return info is not None and info[1] == "commit"

    def is_ancestor(commit: str) -> bool:
        return repo.git.run(["merge-base", "--is-ancestor", "--end-of-options", commit, at]).returncode == 0

    held: dict | None = None
    kept: dict = {}  # (the keep branch that alone holds a commit: named by the same walk)

    def holder(commit: str) -> str:
        nonlocal held
        if held is None:  # (every commit ``aside.placed`` will ask a ref of, in one walk)
            from .held import holding_refs

            held = holding_refs(repo, [n.commit for n in newer[:aside.NEWER_NAMED]
                                       if n.mode not in ("subject", "exact") and present(n.commit)] + [commit],
                                kept=kept, also=anchors)
            if refs is not None:
                refs.update((c, held[c]) for c in anchors if c in held)
        return held.get(commit, "")

    return aside.placed(newer, is_ancestor, present, holder, kept.get)


ITEM_BATCH = 8  # items projected at a time: the byte bound usually admits a few dozen


def _untrusted_author(left_out: dict | None, trust: str, actor: str, n: int) -> None:
    """``left_out["authors"]``: actor -> how many ``actor-untrusted`` memories of it the brief
    left out (for the hint naming those no longer trusted, ``service.revoked``)."""
    if left_out is not None and trust == "actor-untrusted":
        authors = left_out.setdefault("authors", {})
        authors[actor] = authors.get(actor, 0) + n


def _brief_view(repo: Repo, view, at: str, include_untrusted: bool, max_bytes: int, fmt: str,
                aim: core.Focus = core.Focus(), notes: tuple[str, ...] = (), left_out: dict | None = None,
                newer: list | None = None):
    from . import rows as select

    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, at)
    ctx = Context(at, "", "", policy.memory, policy.digest)
    where = ["r.lifecycle = 'active'"]
    groups = select.groups(view, where, [])
    where = ["r.lifecycle = 'active'", "r.lrank = 0"]  # the same rows, said so an index serves the order
    classes = select.Classes(ctx, resolver)
    classes.prefetch(groups)
    keep, excluded, by_kind, away, onward = set(), 0, {}, {}, {}
    for g in groups:
        if not classes.candidate(g):
            if classes.applicability(g) == "inapplicable" and (include_untrusted or classes.trust(g) == "qualified"):
                away[g.anchor] = away.get(g.anchor, 0) + g.count
                if g.mode == "descendants":  # (exact and subject ones: merging would not list them)
                    onward[(g.anchor, g.actor)] = onward.get((g.anchor, g.actor), 0) + g.count
            continue
        if classes.trust(g) != "qualified" and not include_untrusted:
            excluded += g.count
            _untrusted_author(left_out, classes.trust(g), g.actor, g.count)
            continue
        keep.add(g.key)
        by_kind[g.kind] = by_kind.get(g.kind, 0) + g.count
    order = "r.ts DESC, r.id"  # every candidate is applicable and active: §7.7 reduces to this
    latest: dict = {}
    for ident, actor, stream, seq, ts in select.ordered(
            view, where + ["r.kind = 'handoff'"], [], keep, "r.id, r.actor, r.stream, r.seq, r.ts", order):
        have = latest.get((actor, stream))
        if have is None or seq > have[0]:
            latest[(actor, stream)] = (seq, ts, ident)
    handoffs = [i for _s, _t, i in sorted(latest.values(), key=lambda v: (_desc(v[1]), v[2]))]
    # the newest handoff of each stream, when it does not apply here (``away.newer_elsewhere``)
    others = {g.key for g in groups if g.kind == "handoff" and g.key not in keep
            and classes.applicability(g) in aside.ELSEWHERE
            and (include_untrusted or classes.trust(g) == "qualified")}
    elsewhere = [aside.Away(*r) for r in select.ordered(
        view, where + ["r.kind = 'handoff'"], [], others,
        "r.id, r.actor, r.stream, r.seq, a.anchor, a.mode, a.app_subject, r.ts", order)]
    shown = {i: (i, actor, stream, seq) for (actor, stream), (seq, _t, i) in latest.items()}
    refs: dict = {}  # (the count of memories not merged here is made below, from the same anchors)
    found = placed(repo, at, aside.newer_elsewhere([shown[i] for i in handoffs], elsewhere),
                   sorted({c for c, _actor in onward}) if left_out is not None else (), refs)
    failed = challenged = 0
    if keep:
        clause, args = select.keep_clause(view, keep)
        failed = view.conn.execute(
            "SELECT count(*) FROM rows r WHERE r.kind = 'attempt' AND r.lrank = 0 AND r.lifecycle = 'active' "
            f"AND r.outcome = 'failed' AND {clause}", args).fetchone()[0]
        challenged = view.conn.execute(
            "SELECT count(*) FROM rows r WHERE r.challenged = 1 AND r.lrank = 0 AND r.lifecycle = 'active' "
            f"AND {clause}", args).fetchone()[0]
    blob_at = _blob_at(resolver, at)
    stale_keys = {g.key for g in groups if g.key in keep and _stale_group(g, blob_at)}
    counts = {"handoffs": len(handoffs),
              "decisions": by_kind.get("decision", 0), "observations": by_kind.get("observation", 0),
              "assumptions": by_kind.get("assumption", 0),
              "failedAttempts": min(failed, core.FAILED_ATTEMPTS), "challenges": challenged,
              "staleAnchors": sum(g.count for g in groups if g.key in stale_keys)}
    names = core.Authors(policy.memory)
    names.lookalike = lookalikes(line.split("\t", 1)[0] for g in groups if g.key in keep
                                 for line in g.paths.splitlines())

    def project(batch: list[str], with_challengers: bool):
        proj, mems = view.project(batch, ctx, resolver)
        for ident in batch:
            row = proj.rows[ident]
            names[ident] = mems[ident].envelope.actor_name
            challengers = _challengers(row, lambda c: mems[c].envelope) \
                if with_challengers and row.lifecycle.challengers else None
            for c in challengers or ():  # (the Markdown names a challenger as it names an author)
                names[c["memoryId"]] = mems[c["memoryId"]].envelope.actor_name
            yield _item(row, row_index_json(row), blob_at, challengers)

    latest_items = list(project(handoffs[:core.FROM_HANDOFFS], False))  # their entries are counted
    for name in core.DERIVED:
        counts[name] = len(core.derived(name, latest_items))

    def ids(name):
        import itertools

        if name == "handoffs":
            return iter(handoffs[len(latest_items):])
        if not counts[name]:
            return iter(())
        if name == "staleAnchors":  # rows of the stale groups, the relevant ones first
            columns = "r.id, r.akey, r.ev_memory, r.actor, r.kind"
            anchored = where + ["a.paths != ''"]  # only rows with anchored paths can be stale
            tests = [_focus_clause(aim)] if aim else []
            parts = [select.ordered(view, anchored + [test], args, keep, columns, order) for test, args in tests]
            parts.append(select.ordered(view, anchored, [], keep, columns, order))
            seen: set = set()

            def stale_ids():
                for part in parts:
                    for ident, *key in part:
                        if tuple(key) in stale_keys and ident not in seen:
                            seen.add(ident)
                            yield ident

            return itertools.islice(stale_ids(), counts[name])
        extra = {"decisions": ["r.kind = 'decision'"], "observations": ["r.kind = 'observation'"],
                 "assumptions": ["r.kind = 'assumption'"],
                 "failedAttempts": ["r.kind = 'attempt'", "r.outcome = 'failed'"],
                 "challenges": ["r.challenged = 1"]}[name]
        if name in core.RANKED and aim:  # the relevant ones first, each part in §7.7 order
            test, args = _focus_clause(aim)
            first = [row[0] for row in select.ordered(view, where + extra + [test], args, keep, "r.id", order)]
            seen = set(first)
            rest = (row[0] for row in select.ordered(view, where + extra, [], keep, "r.id", order)
                    if row[0] not in seen)
            return itertools.islice(itertools.chain(first, rest), counts[name])
        cursor = select.ordered(view, where + extra, [], keep, "r.id", order)
        # never past the section's last item: the rest of the index holds only rows not kept
        return itertools.islice((row[0] for row in cursor), counts[name])

    def items(name):
        if name in core.DERIVED:
            yield from core.derived(name, latest_items)
            return
        if name == "handoffs":
            yield from latest_items
        pending = ids(name)
        while True:
            batch = [i for _n, i in zip(range(ITEM_BATCH), pending)]
            if not batch:
                break
            for it in project(batch, name == "challenges"):
                yield core.stale_anchor(it) if name == "staleAnchors" else it

    top = core.head(at, policy.digest, excluded)
    names.advice = trust_advice(repo, at, top, left_out, fmt)
    away = left_behind_count(repo, away, onward, left_out, elsewhere)
    if left_out is not None:
        left_out["inapplicable"] = away
        if "unmerged" in left_out:
            left_out["unmerged_refs"] = refs
    notes = (*notes, *drift_notes(repo, at, fmt, {(g.actor, g.kind) for g in groups
                                                   if g.key in keep and classes.trust(g) == "qualified"}))
    return core.bounded_items(top, counts, {n: items(n) for n in core.SECTIONS}, max_bytes, fmt, names,
                              *_noted(_away(notes, fmt, away, left_out), found, fmt, newer,
                                      _unmerged(repo, left_out, fmt)))


def _stale_group(group, blob_at) -> bool:
    """Whether a group's anchored paths (``path<TAB>blob`` lines) changed at the query commit:
    the test ``core.stale_paths`` makes for each of its rows."""
    for line in lines_of(group.paths):  # (a path may hold U+2028: ``core.lines``)
        path, _tab, blob = line.rpartition("\t")
        if blob_at(path) != blob:
            return True
    return False


def _focus_clause(aim: core.Focus) -> tuple[str, list]:
    """SQL for "anchored to a focus path or carrying a focus topic" over ``rows r``."""
    tests, args = [], []
    for p in sorted(aim.paths):
        tests.append("instr(r.pathset, ?) > 0")
        args.append(f"\n{p}\n")
    for t in sorted(aim.topics):
        tests.append("instr(r.topics, ?) > 0")
        args.append(f"\n{t}\n")
    return "(" + " OR ".join(tests) + ")", args


def _desc(ts: str) -> bytes:
    return bytes(255 - b for b in ts.encode("utf-8")) + b"\xff"


def _brief_commit(repo: Repo, at: str, max_bytes: int, from_input: bool) -> str:
    if max_bytes <= 0:
        raise InputError("brief bound must be positive")
    if from_input:
        from .recall import resolve_input_commit

        try:
            commit = resolve_input_commit(repo, at)
        except InputError as exc:
            raise InputError(exc.message.replace("recall input", "brief input")) from None
    else:
        commit = repo.resolve_commit(at)
    return commit
