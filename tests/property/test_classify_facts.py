"""Classification with its facts gathered once (``dependencies._Facts``) gives exactly what
scanning the projection for each candidate gives: the reference below is the scanning code as it
was (each candidate read the projection's whole lists, and asked ``present`` for each object
of each memory), and both run on the same hand-made projections (``dependencies`` is pure: no
Git), with invalid relationships, invalid anchors, missing dependencies (blocking or not),
missing objects and candidates that depend on failed ones, in any mix.

Runs under the fixed "ci" hypothesis profile of tests/conftest.py (200 examples, derandomized).
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from git_hn.core import dependencies as dep
from git_hn.core.dependencies import Candidate, Failure, exact_needs, memory_needs, recovery_for

MIDS = [f"m{i}" for i in range(12)]
OIDS = [f"{c}" * 40 for c in "abcdef"]
KINDS = ["lifecycle-target", "evidence-memory", "anchor-commit", "evidence-event", "evidence-git"]


def _reference(live, proj, present, holders, *, remote, shallow, partial=False):
    """``dependencies.classify`` before ``_Facts`` (scanning), verbatim but for names."""

    def first_missing(c):
        index = {m.memory_id: i for i, m in enumerate(c.memories)}
        firsts = [index[d["ownerId"]] for d in proj.dependencies
                  if d["ownerId"] in index and d["kind"] != "evidence-event"]
        for i, m in enumerate(c.memories):
            if any(not present(oid) for oid in exact_needs([m])):
                firsts.append(i)
                break
        return min(firsts, default=-1)

    def first_failure(c, mine, partial=False):
        for d in proj.diagnostics:
            if d["memoryId"] in mine:
                return Failure("relationship-invalid", f"selection memory {c.stream} memory {d['memoryId']} "
                               f"({d['operation']}) has invalid relationship {d['code']}", {})
        for mid in sorted(mine):
            row = proj.rows.get(mid)
            if row is not None and (row.applicability == "anchor-invalid" or row.evidence == "invalid"):
                return Failure("relationship-invalid", f"selection memory {c.stream} memory {mid} has invalid "
                               "anchor or evidence relationship", {})
        first = first_missing(c)
        if first < 0:
            return None
        owner = c.memories[first]
        for d in proj.dependencies:
            if d["ownerId"] != owner.memory_id or d["kind"] == "evidence-event":
                continue
            recovery, selectors, ref = recovery_for(d, holders, remote, shallow)
            return Failure("dependency-missing", f"selection memory {c.stream} memory {d['ownerId']} missing "
                           f"{d['kind']} dependency {d['missingId']}: {d['reason']}; recovery: {recovery}",
                           {"dependencyKind": d["kind"], "missingId": d["missingId"], "ownerMemoryId": d["ownerId"],
                            "ownerStream": d["stream"], "requiredRef": ref, "requiredSelectors": selectors,
                            "recovery": recovery})
        needs = exact_needs([owner])
        for oid in sorted(needs):
            if present(oid):
                continue
            kind = needs[oid]
            recovery = dep.git_recovery(oid, remote, shallow, kind=kind, at=dep._file_at(owner, oid),
                                        partial=partial)
            return Failure("dependency-missing", f"selection memory {c.stream} has unavailable exact Git "
                           f"dependency {oid}; recovery: {recovery}",
                           {"dependencyKind": kind, "missingId": oid, "recovery": recovery,
                            "reason": dep.REASONS[kind]})
        return None

    def with_prefix(c, f):
        if f.status != "dependency-missing":
            return f
        first = first_missing(c)
        if first <= 0:
            return f
        head = c._replace(memories=c.memories[:first])
        if first_failure(head, {m.memory_id for m in head.memories}) is not None:
            return f
        return f._replace(prefix=first)

    failed = {}
    for c in live:
        got = first_failure(c, {m.memory_id for m in c.memories}, partial)
        if got is not None:
            failed[c.stream] = with_prefix(c, got)
    owner = {m.memory_id: (c, i) for c in live for i, m in enumerate(c.memories)}

    def refused(memory_id):
        got = owner.get(memory_id)
        if got is None:
            return None
        c, i = got
        f = failed.get(c.stream)
        return c if f is not None and i >= f.prefix else None

    changed = True
    while changed:
        changed = False
        for c in live:
            f = failed.get(c.stream)
            limit = len(c.memories) if f is None else f.prefix
            for i, m in enumerate(c.memories[:limit]):
                hit = next(((t, d) for t in memory_needs(m) for d in [refused(t)] if d is not None and d is not c),
                           None)
                if hit is not None:
                    t, d = hit
                    failed[c.stream] = Failure(
                        "dependency-missing", f"selection memory {c.stream} depends on failed memory {t}",
                        {"missingId": t, "recovery": f"repair or replace exact selection {d.stream}"}, prefix=i)
                    changed = True
                    break
    return failed


def _memory(mid, target, commit, blobs, evidence):
    record = SimpleNamespace(anchor=SimpleNamespace(commit=commit, paths=[SimpleNamespace(blob=b, path=f"f{n}")
                                                                         for n, b in enumerate(blobs)]),
                             evidence=[f"memory:{e}" if e.startswith("m") else f"git:{e}" for e in evidence])
    return SimpleNamespace(memory_id=mid, envelope=SimpleNamespace(target=target, record=record, evidence=()))


@st.composite
def world(draw):
    mids = draw(st.permutations(MIDS))
    cut = sorted(draw(st.lists(st.integers(0, len(mids)), min_size=2, max_size=4)))
    chains = [mids[a:b] for a, b in zip([0, *cut], [*cut, len(mids)]) if b > a]
    memories = {}
    for mid in mids:
        memories[mid] = _memory(mid, draw(st.sampled_from(["", *MIDS])), draw(st.sampled_from(OIDS)),
                                draw(st.lists(st.sampled_from([*OIDS, "absent"]), max_size=2)),
                                draw(st.lists(st.sampled_from([*MIDS, *OIDS]), max_size=2)))
    live = [Candidate(f"sha256:{n}", f"actor{n}", tuple(memories[m] for m in chain), draw(st.booleans()))
            for n, chain in enumerate(chains)]
    holders = {m.memory_id: c for c in live for m in c.memories}
    proj = SimpleNamespace(
        diagnostics=[{"memoryId": draw(st.sampled_from(MIDS)), "operation": "op", "code": f"c{n}"}
                     for n in range(draw(st.integers(0, 2)))],
        dependencies=[{"ownerId": draw(st.sampled_from(MIDS)), "kind": draw(st.sampled_from(KINDS)),
                       "missingId": draw(st.sampled_from([*MIDS, *OIDS])), "reason": "r", "stream": "s"}
                      for _ in range(draw(st.integers(0, 4)))],
        rows={mid: SimpleNamespace(applicability=draw(st.sampled_from(["ok", "ok", "ok", "anchor-invalid"])),
                                   evidence=draw(st.sampled_from(["ok", "ok", "ok", "invalid"])))
              for mid in mids if draw(st.booleans())})
    missing = set(draw(st.lists(st.sampled_from(OIDS), max_size=3)))
    return live, proj, (lambda oid: oid not in missing), holders, draw(st.sampled_from([False, True, dep.DEEPEN]))


@given(world())
def test_classification_with_facts_gathered_once_equals_scanning(w):
    live, proj, present, holders, shallow = w
    assert dep.classify(live, proj, present, holders, remote="origin", shallow=shallow) == \
        _reference(live, proj, present, holders, remote="origin", shallow=shallow)


def test_each_object_is_asked_once():
    """10,000 candidates anchored on the same commit ask ``present`` once for it."""
    asked = []
    memories = [_memory(f"x{n}", "", OIDS[0], [], []) for n in range(50)]
    live = [Candidate(f"sha256:{n}", "a", (m,), True) for n, m in enumerate(memories)]
    proj = SimpleNamespace(diagnostics=[], dependencies=[], rows={})
    assert dep.classify(live, proj, lambda oid: asked.append(oid) or True, {}, remote="o", shallow=False) == {}
    assert asked == [OIDS[0]]
