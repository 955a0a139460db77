"""A large sync holds what promotion needs of each memory, and no more (issue 11, f120): a
100,000-memory sync into a fresh clone peaked at ~0.9 GB, most of it every memory's payload, its
repeated values once per memory, and every staged payload held until the last batch was read.
Its validation now keeps lean memories, collects the verifier's batches as it reads, and drops
what it read once staged; here the batches are made tiny (a few commits, one in flight, in
worker processes as a 2,048-memory sync has them) and the receipt bound lowered (several
transactions), and the clone ends exactly as one synced in a single batch: the same refs, the
same verified state, row for row, the same receipts but for their transaction IDs, and an index
that verifies."""

from __future__ import annotations

import json
import sqlite3

import pytest

from helpers import git, hn

from test_receipt_bound import BOUND, _converged, _heads, _remote


def _state_rows(b) -> dict:
    from git_hn.store import statedb
    from git_hn.store.repo import open_repo

    repo = open_repo(str(b))
    path = statedb.paths(repo)[1]
    repo.close()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))) for t in tables}
    finally:
        conn.close()


def _receipts_without_ids(b) -> list:
    txdir = b / ".git" / "hn" / "replication" / "transactions"
    out = []
    for path in txdir.iterdir():
        rec = json.loads(path.read_bytes())
        rec.pop("id")
        out.append(json.dumps(rec, sort_keys=True))
    return sorted(out)


def _two_clones(tmp_path, monkeypatch):
    """A remote of 120 memories in 6 streams, the clone that wrote them (``one``) and a second
    clone (``two``) with an identity and every stream selected; the receipt bound a quarter of
    the tests' ``BOUND``, so that a sync of them all promotes in several transactions."""
    remote, one = _remote(tmp_path, 2, 3, 20)
    two = tmp_path / "two"
    git(tmp_path, "clone", "-q", f"file://{remote}", str(two))
    assert hn(two, "init", "--name", "B").code == 0
    assert hn(two, "replication", "select", "--all").code == 0
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND // 4)
    return remote, one, two


def test_a_sync_in_tiny_lean_batches_ends_as_one_in_a_single_batch(tmp_path, monkeypatch):
    from git_hn.store import verify

    remote, one, two = _two_clones(tmp_path, monkeypatch)  # 120 memories, 6 streams, several transactions
    init = verify.Verifier.__init__

    def processes(self, expected):
        init(self, expected)
        self.kind = "processes"

    monkeypatch.setattr(verify.Verifier, "__init__", processes)
    batches = []
    real_submit = verify._submit

    def submit(repo, verifier, batch, read=None, lean=False):
        batches.append(sum(len(part) for _ref, part in batch))
        return real_submit(repo, verifier, batch, read, lean)

    monkeypatch.setattr(verify, "_submit", submit)
    monkeypatch.setattr(verify, "FIRST_BATCH", 1 << 20)  # one batch, collected after it was read
    r = hn(one, "sync")
    assert r.code == 0, r.err
    assert batches == [120]
    batches.clear()
    monkeypatch.setattr(verify, "FIRST_BATCH", 2)
    monkeypatch.setattr(verify, "WINDOW", 1)
    r2 = hn(two, "sync")
    assert r2.code == 0, r2.err
    assert len(batches) > 4 and sum(batches) == 120
    assert r2.out.replace(str(two), "") == r.out.replace(str(one), "")
    assert _heads(two, "refs/hn/remotes") == _heads(one, "refs/hn/remotes")
    assert _state_rows(two) == _state_rows(one)
    receipts = _receipts_without_ids(two)
    assert len(receipts) >= 2 and receipts == _receipts_without_ids(one)
    for b in (one, two):
        _converged(remote, b, 120)


def test_each_transaction_lets_go_of_the_memories_it_promoted(tmp_path, monkeypatch):
    """The trees measurement read are not held past the plan, and once a transaction completed,
    the verified memories of the streams it promoted are not held through the next one (a 100,000-memory sync held the first transaction's 50,000 through the
    second's state update); what the sync says is the same (the lines above compare it with a
    sync in one batch), and a stream promoted only up to a missing dependency keeps them (its
    failure is looked into for the sync's lines)."""
    from git_hn.service.replication import promote

    remote, b = _remote(tmp_path, 2, 3, 20)
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND // 4)
    seen = []
    real = promote._accept_group

    def accept_group(run, group, txn, last, accepted):
        assert getattr(run, "prefetched", None) is None  # (the trees measurement read: not held past the plan)
        real(run, group, txn, last, accepted)
        seen.append([(o.status, len(o.memories), len(getattr(o, "whole", o).memories)) for o in group.streams])

    monkeypatch.setattr(promote, "_accept_group", accept_group)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert len(seen) >= 2 and sum(len(g) for g in seen) == 6
    assert all(entry == ("promoted", 0, 0) for g in seen for entry in g), seen
    assert "imported 120 memories" in r.out
    _converged(remote, b, 120)


def test_a_large_import_holds_its_memories_compact_and_ends_as_one_that_held_them_whole(tmp_path, monkeypatch):
    """From ``SPILL_FROM`` new memories (lowered here), validation writes each batch's memories
    whole to a temporary file and holds them compact (no content, timestamp or signature) through
    classification and the plan; each transaction's state update reads its own back. The clone
    ends exactly as one that held them whole: the same refs, output, receipts and state rows."""
    from git_hn.service.replication import run as runmod
    from git_hn.service.replication import spilled

    remote, one, two = _two_clones(tmp_path, monkeypatch)  # 120 memories, 6 streams, several transactions
    monkeypatch.setattr("git_hn.store.verify.FIRST_BATCH", 16)
    from git_hn.store import verify

    init = verify.Verifier.__init__

    def processes(self, expected):  # (as a large import has them: the memories come pickled)
        init(self, expected)
        self.kind = "processes"

    monkeypatch.setattr(verify.Verifier, "__init__", processes)
    held = []
    real = runmod.Import.classify

    def classify(self, wanted, targets=None):
        held.append((getattr(self, "spilled", None), [spilled.is_compact(m) for o in wanted for m in o.memories]))
        if self.spilled is not None:  # (each compact memory's commit ID is the walk's own string)
            assert all(m.commit is c for o in wanted for m, (c, _t) in zip(o.memories, reversed(o.walked)))
        return real(self, wanted, targets)

    monkeypatch.setattr(runmod.Import, "classify", classify)
    r = hn(one, "sync")
    assert r.code == 0, r.err
    assert held == [(None, [False] * 120)]
    held.clear()
    monkeypatch.setattr(runmod, "SPILL_FROM", 1)
    from git_hn.store import insertion, state

    applied, inserted = [], []
    real_apply, real_insert = state.apply, state.insert_memories

    def apply(conn, changes, removed, commit=True):  # (a transaction's memories: compact, signed)
        applied.extend((spilled.is_compact(m), bool(m.signature)) for ch in changes for m in ch.new)
        return real_apply(conn, changes, removed, commit)

    def insert_memories(conn, mems):  # (each part's: read back whole)
        inserted.extend(spilled.is_compact(m) for m in mems)
        return real_insert(conn, mems)

    monkeypatch.setattr(state, "apply", apply)
    monkeypatch.setattr(state, "insert_memories", insert_memories)
    monkeypatch.setattr(insertion, "PART", 16)
    for b in (two,):  # (a state the promotions update)
        assert hn(b, "memory", "recall", "--include-untrusted", "--json").code == 0
    r2 = hn(two, "sync")
    assert r2.code == 0, r2.err
    assert len(held) == 1 and held[0][1] == [True] * 120 and held[0][0].written == 120
    assert applied == [(True, True)] * 120 and inserted == [False] * 120
    assert r2.out.replace(str(two), "") == r.out.replace(str(one), "")
    assert _heads(two, "refs/hn/remotes") == _heads(one, "refs/hn/remotes")
    assert _state_rows(two) == _state_rows(one)
    assert _receipts_without_ids(two) == _receipts_without_ids(one)
    for b in (one, two):
        _converged(remote, b, 120)


def test_a_state_update_in_tiny_parts_ends_as_one_in_a_single_part(tmp_path, monkeypatch):
    """Each transaction's new memories are written into the state ``insertion.PART`` at a time
    (lowered here; its indexes rebuilt once around the parts when the insert is bulk), and the
    state is row for row the one a single insert of each transaction gives, anchor keys included."""
    from git_hn.store import state

    remote, one = _remote(tmp_path, 2, 3, 20)
    two = tmp_path / "two"
    git(tmp_path, "clone", "-q", f"file://{remote}", str(two))
    assert hn(two, "init", "--name", "B").code == 0
    assert hn(two, "replication", "select", "--all").code == 0
    for b in (one, two):  # (a state the promotions update: a clone without one builds it after)
        assert hn(b, "memory", "recall", "--include-untrusted", "--json").code == 0
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND // 4)
    sizes = []
    real = state.insert_memories

    def insert_memories(conn, mems):
        sizes.append(len(mems))
        return real(conn, mems)

    monkeypatch.setattr(state, "insert_memories", insert_memories)
    r = hn(one, "sync")
    assert r.code == 0, r.err
    whole = [n for n in sizes if n]
    sizes.clear()
    monkeypatch.setattr("git_hn.store.insertion.PART", 7)
    monkeypatch.setattr("git_hn.store.state.BULK_ROWS", 16)  # (the parts rebuild the indexes once, too)
    r2 = hn(two, "sync")
    assert r2.code == 0, r2.err
    parts = [n for n in sizes if n]
    assert max(parts) == 7 and sum(parts) == sum(whole) == 120 and len(parts) > len(whole)
    assert _state_rows(two) == _state_rows(one)
    assert r2.out.replace(str(two), "") == r.out.replace(str(one), "")
    for b in (one, two):
        _converged(remote, b, 120)


def test_a_large_import_gives_freed_memory_back_between_its_phases(tmp_path, monkeypatch):
    """From ``SPILL_FROM`` new memories, what measurement, validation, classification, the plan
    and each transaction freed is handed back to the system after each (glibc's
    ``malloc_trim``: where the C library has none, nothing is done and this test is skipped); a
    small import, the usual one, never looks it up."""
    from git_hn.store import trim

    if not trim.release():
        pytest.skip("no malloc_trim in this C library")
    remote, b = _remote(tmp_path, 1, 2, 20)
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND // 4)  # several transactions
    before = trim.calls
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert trim.calls == before
    receipts = len(_receipts_without_ids(b))
    remote2, c = _remote(tmp_path / "c", 1, 2, 20)
    monkeypatch.setattr("git_hn.service.replication.run.SPILL_FROM", 1)
    r = hn(c, "sync")
    assert r.code == 0, r.err
    assert receipts >= 2 and trim.calls - before == 4 + len(_receipts_without_ids(c))
    _converged(remote2, c, 40)



def test_the_plan_asks_only_for_objects_measurement_did_not(tmp_path, monkeypatch):
    """Measurement asked the main store about every new object already; the plan of the
    transactions asks only about the others (none here), without making the union of every
    stream's objects (400,000 object IDs at 100,000 memories) nor a set of each stream's, and
    plans the same transactions."""
    from git_hn.service.replication import groups
    from git_hn.service.replication import run as runmod

    remote, b = _remote(tmp_path, 2, 3, 20)
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND // 4)
    asked, planning = [], []
    real_plan, real_probe = groups.plan, runmod.Import.probe_main

    def plan(run, promotable, bound=None):
        # (a stream's objects are its own list of them: not copied into a set of each stream's)
        assert all(groups.objects_of(run, [o])[0] is o.reachable for o in promotable)
        planning.append(True)
        try:
            return real_plan(run, promotable, bound)
        finally:
            planning.pop()

    def probe_main(self, oids):
        if planning:
            asked.append(len(oids))
        return real_probe(self, oids)

    monkeypatch.setattr(groups, "plan", plan)
    monkeypatch.setattr(runmod.Import, "probe_main", probe_main)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert asked and set(asked) == {0}, asked
    assert len(_receipts_without_ids(b)) >= 2
    _converged(remote, b, 120)


@pytest.mark.parametrize("fault", ["no-file", "full-disk"])
def test_a_large_import_without_room_for_its_temporary_file_holds_its_memories_whole(tmp_path, monkeypatch, fault):
    """No temporary file can be made (``no-file``), or its writes fail after the first batch (a
    full disk): the memories not in it are held whole, and the sync ends as any other."""
    import errno
    import tempfile

    from git_hn.service.replication import run as runmod
    from git_hn.service.replication import spilled

    remote, b = _remote(tmp_path, 2, 3, 20)
    assert hn(b, "memory", "recall", "--include-untrusted", "--json").code == 0
    monkeypatch.setattr(runmod, "SPILL_FROM", 1)
    monkeypatch.setattr("git_hn.store.verify.FIRST_BATCH", 16)
    real_file = tempfile.TemporaryFile

    class Full:
        def __init__(self, fh):
            self.fh, self.writes = fh, 0

        def write(self, data):
            self.writes += 1
            if self.writes > 1:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.fh.write(data)

        def __getattr__(self, name):
            return getattr(self.fh, name)

    def temporary(*args, **kwargs):
        if fault == "no-file":
            raise OSError(errno.EROFS, "Read-only file system")
        return Full(real_file(*args, **kwargs))

    monkeypatch.setattr(tempfile, "TemporaryFile", temporary)
    held = []
    real = runmod.Import.classify

    def classify(self, wanted, targets=None):
        held.append((self.spilled, [spilled.is_compact(m) for o in wanted for m in o.memories]))
        return real(self, wanted, targets)

    monkeypatch.setattr(runmod.Import, "classify", classify)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    ((kept, compact),) = held
    if fault == "no-file":
        assert kept is None and not any(compact)
    else:
        assert kept.failed and 0 < sum(compact) < 120 and not all(compact)
    assert "imported 120 memories" in r.out
    _converged(remote, b, 120)


def test_the_objects_each_transaction_accepted_are_not_gathered_unless_an_anchor_is_pending(tmp_path, monkeypatch):
    """§9.12's reconciliation after each transaction is given the objects of each transaction so
    far, as the plan holds them, and their union is made only when another pending anchor of the
    remote is there to compare (a set of 200,000 object IDs was held to the end of a
    100,000-memory sync); that comparison is ``test_stopped_imports``'s."""
    from git_hn.service.replication import promote

    remote, b = _remote(tmp_path, 2, 3, 20)
    monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", BOUND // 4)
    seen = []
    real = promote.reconcile

    def reconcile(repo, remote_, txn, accepted, n):
        seen.append([len(objs) for objs in accepted])
        return real(repo, remote_, txn, accepted, n)

    monkeypatch.setattr(promote, "reconcile", reconcile)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert len(seen) >= 2 and [len(s) for s in seen] == list(range(1, len(seen) + 1)), seen
    assert all(s[:-1] == t for s, t in zip(seen[1:], seen))
    _converged(remote, b, 120)


def test_a_verifier_batch_is_kept_in_groups_of_about_keep_every_memories(tmp_path, monkeypatch):
    """Validation hands the temporary file a verifier batch's memories a group of streams at a
    time (``verify.KEEP_EVERY`` memories or a little more: one write and flush each, not one per
    stream, and few whole memories waiting), every memory once, in chain order; all are held
    compact and the sync ends converged (f129)."""
    from git_hn.service.replication import run as runmod
    from git_hn.service.replication import spilled
    from git_hn.store import verify

    remote, b = _remote(tmp_path, 2, 3, 20)  # 120 memories, 6 streams
    assert hn(b, "memory", "recall", "--include-untrusted", "--json").code == 0
    monkeypatch.setattr(runmod, "SPILL_FROM", 1)
    monkeypatch.setattr(verify, "FIRST_BATCH", 16)
    monkeypatch.setattr(verify, "KEEP_EVERY", 25)
    init = verify.Verifier.__init__

    def processes(self, expected):  # (as a large import has them)
        init(self, expected)
        self.kind = "processes"

    monkeypatch.setattr(verify.Verifier, "__init__", processes)
    calls = []
    real_keep = spilled.Spilled.keep

    def keep(self, batch):
        calls.append([(ref, [m.envelope.sequence for m in mems]) for ref, mems, _c in batch])
        return real_keep(self, batch)

    monkeypatch.setattr(spilled.Spilled, "keep", keep)
    held = []
    real = runmod.Import.classify

    def classify(self, wanted, targets=None):
        held.append([spilled.is_compact(m) for o in wanted for m in o.memories])
        return real(self, wanted, targets)

    monkeypatch.setattr(runmod.Import, "classify", classify)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert held == [[True] * 120]
    sizes = [sum(len(seqs) for _r, seqs in call) for call in calls]
    assert sum(sizes) == 120 and len(calls) > 4  # (batches of 16, 32, 64, 8: 4 without groups)
    assert all(size < 25 + 20 for size in sizes) and sum(size >= 25 for size in sizes) >= 2, sizes
    by_ref: dict = {}
    for call in calls:
        for ref, seqs in call:
            by_ref.setdefault(ref, []).extend(seqs)
    assert len(by_ref) == 6 and all(seqs == list(range(1, 21)) for seqs in by_ref.values())
    _converged(remote, b, 120)
