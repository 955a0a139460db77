"""Classification of replication candidates by their relationships and dependencies (CONTRACT
§9.9, §11(c)).

Pure: it takes the projection of the accepted memories and the still-promotable candidates
(computed by the caller, with an empty context), the set of exact Git objects that are available
(in quarantine, or in the main repository and not pending), and plain facts about the
candidates; it returns, per candidate stream, the first failure in the contract's order, or
nothing. No Git, no files: a test can drive it with hand-made projections, as python-tuf's
``TrustedMetadataSet`` is driven with hand-made metadata.

Why each rule exists: a memory whose relationship is invalid, or whose anchor or evidence is
invalid, must not become trusted input (*relationship poisoning*); a memory whose lifecycle
target, cited memory or exact Git object is not available would be promoted with a dangling
reference that later readers cannot check (*unverifiable import*); and a candidate that depends
on another candidate that failed must fail with it, repeated until nothing changes, so that no
promoted memory depends on one that was refused (*transitive acceptance*).
"""

from __future__ import annotations

from .tuples import NamedTuple

REASONS = {"anchor-commit": "anchor-commit-unavailable", "anchor-path": "anchor-path-object-unavailable",
           "evidence-git": "object-unavailable"}


class Candidate(NamedTuple):
    """One selected stream whose new chain validated: its stream ID, owner, memories (in chain
    order) and whether its selector was saved explicitly (or by ``--all``)."""

    stream: str
    actor: str
    memories: tuple
    selected: bool


class Failure(NamedTuple):
    """Why a candidate cannot be promoted whole. ``prefix``: how many of its memories, from the
    start of its new chain, can still be promoted (a missing dependency stops the chain at the
    first memory that has one, never the memories before it; issue 12)."""

    status: str
    diagnostic: str
    fields: dict
    prefix: int = 0


def exact_needs(memories) -> dict[str, str]:
    """Every exact Git object the memories name: oid -> dependency kind (§9.9 step 5)."""
    needs: dict[str, str] = {}
    for m in memories:
        rec = m.envelope.record
        if rec is not None:
            needs.setdefault(rec.anchor.commit, "anchor-commit")
            for p in rec.anchor.paths:
                if p.blob != "absent":
                    needs.setdefault(p.blob, "anchor-path")
            for e in rec.evidence or ():
                if e.startswith("git:"):
                    needs.setdefault(e[4:], "evidence-git")
        for e in m.envelope.evidence or ():
            if e.startswith("git:"):
                needs.setdefault(e[4:], "evidence-git")
    return needs


def memory_needs(mem) -> list[str]:
    """The memory IDs one memory depends on: its target and the memories it cites."""
    env = mem.envelope
    needs = [env.target] if env.target else []
    if env.record is not None:
        needs += [e[len("memory:"):] for e in env.record.evidence or () if e.startswith("memory:")]
    needs += [e[len("memory:"):] for e in env.evidence or () if e.startswith("memory:")]
    return needs


DEEPEN = "deepen"  # ``shallow``: a shallow repository whose selection is not exact (git-hn)


def recovery_for(dep: dict, holders: dict[str, Candidate], remote: str, shallow: bool | str):
    """(recovery text, required selectors, required ref) for one missing dependency (§9.9).
    ``shallow`` is true in a shallow repository; ``DEEPEN`` when its selection is not exact
    (``--all`` or none saved), where §9.18 refuses ``--recover-shallow``: the recovery then
    names what does work, deepening the clone (git-hn)."""
    kind, missing = dep["kind"], dep["missingId"]
    recover = bool(shallow) and shallow != DEEPEN
    suffix = " --recover-shallow" if recover else ""
    if kind in ("lifecycle-target", "evidence-memory"):
        holder = holders.get(missing)
        if holder is not None:
            ref = f"refs/hn/memory/{holder.actor}/{holder.stream[7:]}"
            if holder.selected:
                text = (f"git hn sync {remote} --recover-shallow" if recover else
                        f"repair the exact advertised dependency, then git hn sync {remote}")
            else:
                text = (f"git hn replication select {remote} --memory {holder.stream} (preserve "
                        f"existing selectors and budgets), then git hn sync {remote}{suffix}")
            return text, [f"memory:{holder.stream}"], ref
        return (f"supplier for exact {kind} dependency {missing} is not derivable from signed "
                "facts; select its exact supplier, then retry"), [], ""
    return git_recovery(missing, remote, shallow), [], ""


def git_recovery(oid: str, remote: str, shallow: bool | str, *, kind: str = "", at: tuple[str, str] | None = None,
                 partial: bool = False) -> str:
    """The recovery for a Git object a memory needs and the repository lacks. ``at``: the (anchor
    commit, path) whose file the object is, for an ``anchor-path`` blob: a branch "contains" a
    commit, never a blob, and the commit is here (projection read its tree), only the file is not.
    ``partial``: the repository is a partial clone (``git clone --filter``), where Git fetches a
    file it lacks from its promisor remote when asked for it: ``git cat-file -e <oid>`` (as Git
    does it, offering no commit as had; a plain ``git fetch <remote> <blob>`` was refused by a
    server with bitmaps, "did not send all necessary objects"). A sync fetches anchored files
    itself (``service.replication.partial``); this is for when it could not."""
    if shallow == DEEPEN:
        return (f"deepen this shallow clone until it has {oid} (git fetch --deepen=N, or "
                f"--unshallow), then git hn sync {remote}")
    if shallow:
        return f"git hn sync {remote} --recover-shallow"
    if at is not None:
        from .gostr import cut

        # (short: sync's stderr line cuts the IDs of a recovery over 200 characters, and a cut ID
        # cannot be fetched)
        path = cut(at[1], 40)
        if partial:
            return f"git cat-file -e {oid} (it fetches the file {path} of commit {at[0][:12]}), then git hn sync {remote}"
        return (f"this repository has commit {at[0][:12]} but not its file {path}: repair it (git fsck names "
                f"what is missing), then git hn sync {remote}")
    if partial and kind == "evidence-git":  # (a commit most often: the branch brings it as this clone fetches)
        return f"fetch a branch that contains {oid} (a file: git cat-file -e {oid}), then git hn sync {remote}"
    return f"fetch a branch that contains {oid}, then git hn sync {remote}"


def classify(live: list[Candidate], proj, present, holders: dict[str, Candidate], *, remote: str,
             shallow: bool | str, partial: bool = False) -> dict[str, Failure]:
    """§9.9 steps 2–6 for the candidates that are still promotable.

    ``proj`` projects the accepted set and every memory of ``live``; ``present(oid)`` says
    whether an exact object is available (asked once per object here); ``holders`` maps every
    memory ID of every requested stream (failed ones included, for the recovery text) to its
    candidate; ``partial``: the repository is a partial clone (``git_recovery``).
    """
    facts = _Facts(proj, present, live)
    failed: dict[str, Failure] = {}
    relationships = facts.diagnostics or facts.invalid  # (none: a candidate's memory IDs are not looked up)
    for c in live:
        mine = {m.memory_id for m in c.memories} if relationships else frozenset()
        got = _first_failure(c, mine, facts, holders, remote, shallow, partial)
        if got is not None:
            failed[c.stream] = _with_prefix(c, got, facts, holders, remote, shallow)
    if not failed:  # (nothing refused: nothing to propagate)
        return failed
    owner = {m.memory_id: (c, i) for c in live for i, m in enumerate(c.memories)}

    def refused(memory_id: str) -> Candidate | None:
        """The candidate holding ``memory_id`` if that memory is not promoted."""
        got = owner.get(memory_id)
        if got is None:
            return None
        c, i = got
        f = failed.get(c.stream)
        return c if f is not None and i >= f.prefix else None

    changed = True
    while changed:  # propagation: lifecycle targets and memory evidence in refused memories
        changed = False
        for c in live:
            f = failed.get(c.stream)
            limit = len(c.memories) if f is None else f.prefix
            for i, m in enumerate(c.memories[:limit]):
                hit = next(((t, d) for t in memory_needs(m) for d in [refused(t)] if d is not None and d is not c),
                           None)
                if hit is not None:
                    t, dep = hit
                    failed[c.stream] = Failure(
                        "dependency-missing", f"selection memory {c.stream} depends on failed memory {t}",
                        {"missingId": t, "recovery": f"repair or replace exact selection {dep.stream}"},
                        prefix=i)
                    changed = True
                    break
    return failed


class _Facts:
    """What each candidate's checks look up in the projection, gathered once, and each exact
    object's presence and each memory's exact needs, asked once: 10,000 candidates scanned the
    projection's whole lists each, and asked ``present`` for the same anchor commit again and
    again (~100 ms of a 10,000-stream sync). The answers are the same as scanning: the first
    diagnostic of a candidate in the projection's order, its memories' dependencies in the
    projection's order (those that block: never ``evidence-event``, §11(c))."""

    def __init__(self, proj, present, live: list[Candidate]):
        self.proj = proj
        self._present = present
        self._known: dict[str, bool] = {}
        self._needs: dict[str, dict[str, str]] = {}
        # the exact objects the candidates name that are not available (each asked once)
        self.missing = {oid for oid in exact_needs(m for c in live for m in c.memories) if not self.present(oid)}
        self.diagnostics: dict[str, tuple[int, dict]] = {}  # memory ID -> (position, its first diagnostic)
        for n, d in enumerate(proj.diagnostics):
            self.diagnostics.setdefault(d["memoryId"], (n, d))
        self.dependencies: dict[str, list[dict]] = {}  # owner memory ID -> its blocking dependencies
        for d in proj.dependencies:
            if d["kind"] != "evidence-event":
                self.dependencies.setdefault(d["ownerId"], []).append(d)
        # memory IDs whose anchor or evidence relationship is invalid
        self.invalid = {mid for mid, row in proj.rows.items()
                        if row.applicability == "anchor-invalid" or row.evidence == "invalid"}

    def present(self, oid: str) -> bool:
        got = self._known.get(oid)
        if got is None:
            got = self._known[oid] = bool(self._present(oid))
        return got

    def needs(self, m) -> dict[str, str]:
        """``exact_needs([m])`` (never changed by a caller)."""
        got = self._needs.get(m.memory_id)
        if got is None:
            got = self._needs[m.memory_id] = exact_needs([m])
        return got


def _with_prefix(c: Candidate, f: Failure, facts: _Facts, holders, remote: str,
                 shallow: bool | str) -> Failure:
    """``f`` with the number of memories before the first one whose dependency is missing, when
    those memories pass every check on their own (a relationship error refuses the whole chain:
    it is wrong, not missing)."""
    if f.status != "dependency-missing":
        return f
    first = _first_missing(c, facts)
    if first <= 0:
        return f
    head = c._replace(memories=c.memories[:first])
    if _first_failure(head, {m.memory_id for m in head.memories}, facts, holders, remote,
                      shallow) is not None:
        return f
    return f._replace(prefix=first)


def _first_missing(c: Candidate, facts: _Facts) -> int:
    """The chain index of the first memory of ``c`` with a missing dependency (or -1)."""
    deps = facts.dependencies
    firsts = [i for i, m in enumerate(c.memories) if m.memory_id in deps][:1] if deps else []
    if facts.missing:  # (else no memory lacks an object)
        for i, m in enumerate(c.memories[:firsts[0] if firsts else None]):
            if not facts.missing.isdisjoint(facts.needs(m)):
                firsts.append(i)
                break
    return min(firsts, default=-1)


def _first_failure(c: Candidate, mine: set, facts: _Facts, holders, remote: str, shallow: bool | str,
                   partial: bool = False):
    if facts.diagnostics:
        hits = [facts.diagnostics[mid] for mid in mine if mid in facts.diagnostics]
        if hits:
            d = min(hits, key=lambda hit: hit[0])[1]
            return Failure("relationship-invalid", f"selection memory {c.stream} memory {d['memoryId']} "
                           f"({d['operation']}) has invalid relationship {d['code']}", {})
    invalid = mine & facts.invalid if facts.invalid else ()
    if invalid:
        return Failure("relationship-invalid", f"selection memory {c.stream} memory {min(invalid)} has invalid "
                       "anchor or evidence relationship", {})
    # the missing dependency named is one of the first memory, in chain order, that has one: where
    # the stream stops (``_with_prefix``). ``proj.dependencies`` is sorted by the missing object's
    # ID, and its first entry named a later memory ("promoted the 1 memory before it") past an
    # earlier one that was not promoted (a single-branch clone lacking two topic branches' anchors)
    first = _first_missing(c, facts)
    if first < 0:
        return None
    owner = c.memories[first]
    for d in facts.dependencies.get(owner.memory_id, ()):  # (among that memory's own: in the projection's
        recovery, selectors, ref = recovery_for(d, holders, remote, shallow)  # order, §9.9 step 4)
        return Failure("dependency-missing", f"selection memory {c.stream} memory {d['ownerId']} missing "
                       f"{d['kind']} dependency {d['missingId']}: {d['reason']}; recovery: {recovery}",
                       {"dependencyKind": d["kind"], "missingId": d["missingId"], "ownerMemoryId": d["ownerId"],
                        "ownerStream": d["stream"], "requiredRef": ref, "requiredSelectors": selectors,
                        "recovery": recovery})
    needs = facts.needs(owner)
    for oid in sorted(needs):  # (§9.9 step 5's sorted OID order, within that memory)
        if facts.present(oid):
            continue
        kind = needs[oid]
        recovery = git_recovery(oid, remote, shallow, kind=kind, at=_file_at(owner, oid), partial=partial)
        return Failure("dependency-missing", f"selection memory {c.stream} has unavailable exact Git "
                       f"dependency {oid}; recovery: {recovery}",
                       {"dependencyKind": kind, "missingId": oid, "recovery": recovery, "reason": REASONS[kind]})
    return None


def _file_at(mem, oid: str) -> tuple[str, str] | None:
    """(anchor commit, path) where ``mem``'s anchor names blob ``oid``, or None."""
    rec = mem.envelope.record
    if rec is None:
        return None
    path = next((p.path for p in rec.anchor.paths if p.blob == oid), None)
    return None if path is None else (rec.anchor.commit, path)
