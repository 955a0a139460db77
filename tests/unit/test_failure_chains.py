"""``SyncResult.failures``/``root``: streams failing only because another failed (§9.9 step 6's
"depends on failed memory") are followed to the cause in time linear in the outcomes, whatever a
hostile remote serves. A review (hostile remote, DoS): each step of such a chain scanned every
outcome and memory, cubic in the failing streams, which anyone can sign with a key of their own:
500 chained streams took 14 s per ``failures()``, and every import's end (the fetch hook's, inside
``git fetch``) asked for it twice. Pure: synthetic outcomes, no repository."""

from __future__ import annotations

import random
import time

import pytest

from git_hn.service.replication import failures as record
from git_hn.service.replication.outcomes import UP_TO_DATE, Outcome, SyncResult


class Budget(Exception):
    pass


class Memory:
    """A verified memory as outcomes read it: its ID (each read counted, so that a walk that
    scans every memory at each step fails at once rather than after minutes) and its name."""

    reads = 0
    limit = None

    def __init__(self, memory_id: str, name: str = "Mallory"):
        self._id = memory_id
        self.envelope = type("Envelope", (), {"actor_name": name})()

    @property
    def memory_id(self) -> str:
        Memory.reads += 1
        if Memory.limit is not None and Memory.reads > Memory.limit:
            raise Budget(f"{Memory.reads} reads of a memory ID")
        return self._id


def _stream(n: int) -> str:
    return "sha256:" + f"{n:064x}"


def _mem(n: int) -> str:
    return "sha256:" + f"{n + (1 << 200):064x}"


def _result(edges: dict[int, int | None], count: int, order=None) -> SyncResult:
    """Streams 0..count-1, stream i holding memory i; ``edges[i] = j``: stream i fails only
    because it depends on memory j (in failed stream j); else it fails on its own."""
    result = SyncResult("origin")
    for i in order or range(count):
        o = Outcome("memory", _stream(i))
        o.actor = "a" * 64
        o.memories = [Memory(_mem(i))]
        j = edges.get(i)
        if j is None:
            o.fail("structurally-invalid", f"selection memory {o.id} is structurally invalid: bad")
        else:
            o.fail("dependency-missing", f"selection memory {o.id} depends on failed memory {_mem(j)}",
                   dependencyKind="memory", missingId=_mem(j), ownerMemoryId=_mem(i),
                   recovery=f"repair or replace exact selection {o.id}")
        result.outcomes.append(o)
    return result


def _reference_root(result: SyncResult, o: Outcome):
    """The walk as it was written before (one step at a time, scanning every outcome)."""
    found, seen = None, {o.id}
    while o.status == "dependency-missing" and (o.fields.get("diagnostic") or "").startswith(
            f"selection memory {o.id} depends on failed memory "):
        missing = o.fields.get("missingId") or ""
        holder = next((x for x in result.outcomes if x.id not in seen and x.status not in (
            "promoted", "skipped", UP_TO_DATE) and any(m._id == missing for m in x.memories)), None)
        if holder is None:
            break
        found = o = holder
        seen.add(o.id)
    return found


def test_a_hostile_remotes_long_chain_of_dependent_failures_is_ordered_in_linear_time():
    """2,000 streams, each failing only because it depends on the previous one's memory, the
    first failing on its own (listed last, so that a walk from the start of the list is longest).
    Every reader of the order (the record ``note`` writes, the stderr pointer, the lines, the
    fetch hook's ``root``) answers well under 2 s, reading each memory ID a few times; the old
    walk read them about n³/6 times (minutes), and is stopped here by the count."""
    n = 2000
    result = _result({i: i - 1 for i in range(1, n)}, n, order=range(n - 1, -1, -1))
    Memory.reads, Memory.limit = 0, 20 * n
    try:
        start = time.monotonic()
        failed = result.failures()
        entries = record.entries_of(result)
        pointer = result.failure_pointer()
        lines = result.lines()
        roots = [result.root(o) for o in result.outcomes[::100]]  # (the fetch hook asks of one)
        took = time.monotonic() - start
    finally:
        Memory.limit = None
    assert took < 2.0, took
    first = result.outcomes[-1]
    assert failed[0] is first and len(failed) == n
    assert entries[0]["stream"] == first.id and len(entries) == record.MAX_STREAMS
    assert f"the first cause of {n} failures: memory {first.id} failed (structurally-invalid)" in pointer, pointer
    assert all(r is first for r in roots) and result.root(first) is None
    because = (f"; it fails only because stream {first.id[7:19]} of actor {'a' * 12} (\"Mallory\", a self-chosen "
               "name) failed: fixing that stream imports this one too")
    assert sum(x.endswith(because) for x in lines) == n - 1


def test_the_order_is_made_once_while_the_outcomes_do_not_change():
    """``note`` and then the CLI's pointer (or the fetch hook's line) ask for the order of the same
    finished import: it is made once; a changed outcome is seen."""
    result = _result({1: 0, 2: 1}, 3)
    result.failures()
    made = result._chained[1]
    record.entries_of(result)
    result.failure_pointer()
    result.lines()
    assert result._chained[1] is made
    result.outcomes[0].status = "promoted"
    assert [o.id for o in result.failures()] == [_stream(1), _stream(2)]
    # (stream 1's missing memory is in no failed stream now: it is the cause of stream 2's failure)
    assert result.root(result.outcomes[1]) is None and result.root(result.outcomes[2]) is result.outcomes[1]


@pytest.mark.parametrize("seed", range(40))
def test_root_and_order_agree_with_the_step_by_step_walk(seed):
    """Random graphs of a few streams, circles (which memories citing across streams can make)
    and shared causes among them: each outcome's root is what the step-by-step walk finds, and
    the order puts each dependent stream after every stream failing on its own."""
    rng = random.Random(seed)
    count = rng.randint(1, 12)
    edges = {i: rng.randrange(count) for i in range(count) if rng.random() < 0.7}
    edges = {i: j for i, j in edges.items() if j != i}
    order = list(range(count))
    rng.shuffle(order)
    result = _result(edges, count, order)
    for o in result.outcomes:
        assert result.root(o) is _reference_root(result, o), (seed, edges, o.id)
    kinds = [result.root(o) is not None for o in result.failures()]
    assert kinds == sorted(kinds)
