"""A large promotion keeps SQLite's rollback journal in a file, not in memory (issue 11, f123): the
journal holds the original of every page a transaction changes, and the state's rows, keyed by
memory ID, change pages all over the file; the last of three transactions of a 100,000-memory
sync held ~175 MiB of them in the process. Here the threshold is lowered: the promotions journal
on disk, the clone ends exactly as one whose promotions journalled in memory, no journal is left
beside the state, and a refused ref transaction still rolls the state's part back."""

from __future__ import annotations

import os

from helpers import git, hn

from test_receipt_bound import _converged, _heads, _remote
from test_sync_lean_batches import _receipts_without_ids, _state_rows, _two_clones


def _modes(monkeypatch) -> list:
    """The journal mode of each state write a promotion stages (``stateview.staged``)."""
    from git_hn.store import state

    modes = []
    real = state.apply

    def apply(conn, changes, removed, commit=True):
        modes.append((conn.execute("PRAGMA journal_mode").fetchone()[0], sum(len(ch.new) for ch in changes)))
        return real(conn, changes, removed, commit)

    monkeypatch.setattr(state, "apply", apply)
    return modes


def _side_files(b) -> list:
    return sorted(n for n in os.listdir(b / ".git" / "hn" / "memory") if n.endswith(("-journal", "-wal", "-shm")))


def test_a_large_promotion_journals_on_disk_and_ends_as_one_journalled_in_memory(tmp_path, monkeypatch):
    remote, one, two = _two_clones(tmp_path, monkeypatch)  # 120 memories, 6 streams, several transactions
    modes = _modes(monkeypatch)
    r = hn(one, "sync")  # (the threshold as shipped: a few dozen memories journal in memory)
    assert r.code == 0, r.err
    staged = [m for m in modes if m[1]]
    assert len(staged) >= 2 and all(mode == "memory" for mode, _n in staged), modes
    modes.clear()
    monkeypatch.setattr("git_hn.store.statedb.DISK_JOURNAL_FROM", 1)
    r2 = hn(two, "sync")
    assert r2.code == 0, r2.err
    staged = [m for m in modes if m[1]]
    assert len(staged) >= 2 and all(mode == "delete" for mode, _n in staged), modes
    assert r2.out.replace(str(two), "") == r.out.replace(str(one), "")
    assert _heads(two, "refs/hn/remotes") == _heads(one, "refs/hn/remotes")
    assert _state_rows(two) == _state_rows(one)
    assert _receipts_without_ids(two) == _receipts_without_ids(one)
    assert _side_files(two) == []
    for b in (one, two):
        _converged(remote, b, 120)


def test_a_refused_ref_transaction_rolls_back_a_state_write_journalled_on_disk(tmp_path, monkeypatch):
    remote, b = _remote(tmp_path, 1, 2, 20)
    assert hn(b, "memory", "recall", "--include-untrusted", "--json").code == 0  # (a state to roll back to)
    before = _state_rows(b)
    monkeypatch.setattr("git_hn.store.statedb.DISK_JOURNAL_FROM", 1)
    modes = _modes(monkeypatch)
    refs = _heads(remote, "refs/hn/memory")
    name = sorted(refs)[0]
    lock = b / ".git" / "refs" / "hn" / "remotes" / "origin" / "memory" / (name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")  # (another Git's lock: the ref transaction is refused)
    r = hn(b, "sync")
    assert r.code != 0 and "accepted-ref transaction failed" in r.err, r.err
    assert [mode for mode, n in modes if n] == ["delete"], modes
    assert _heads(b, "refs/hn/remotes") == {}
    assert _state_rows(b) == before
    assert _side_files(b) == []
    lock.unlink()
    r = hn(b, "sync")
    assert r.code == 0, r.err
    _converged(remote, b, 40)


def _imported_back(tmp_path):
    """The clone that authored a remote's streams, with a state, selecting them all back."""
    remote, _b = _remote(tmp_path, 1, 2, 20)
    src = tmp_path / "src"
    assert hn(src, "memory", "recall", "--include-untrusted", "--json").code == 0
    git(src, "remote", "add", "origin", f"file://{remote}")
    assert hn(src, "replication", "select", "--all").code == 0
    return remote, src


def test_streams_imported_back_journal_on_disk_for_the_rows_their_local_copies_lend(tmp_path, monkeypatch):
    """A clone that syncs back the streams it authored verifies nothing again: each accepted
    copy's chain rows are lent by the local stream's, in SQL, with no new memory; those rows count
    towards the disk journal too (100,000 of them: ~60 MiB of journal held in memory)."""
    remote, src = _imported_back(tmp_path)
    monkeypatch.setattr("git_hn.store.statedb.DISK_JOURNAL_FROM", 20)
    modes = _modes(monkeypatch)
    r = hn(src, "sync")
    assert r.code == 0, r.err
    assert modes and all(n == 0 for _mode, n in modes) and {mode for mode, _n in modes} == {"delete"}, modes
    assert _heads(src, "refs/hn/remotes/origin/memory") == _heads(remote, "refs/hn/memory")
    assert _side_files(src) == []
    assert hn(src, "memory", "index", "verify").code == 0


def test_what_validation_did_not_read_of_a_stream_imported_back_is_let_go(tmp_path, monkeypatch):
    """Measurement reads each new commit and (up to a bound) its blobs for validation; of a stream
    imported back none is verified again, and after validation only the trees stay (the commits
    and blobs of 100,000 memories held ~85 MiB to the plan)."""
    from git_hn.service.replication import run as runmod

    _remote_, src = _imported_back(tmp_path)
    held = []
    real = runmod.Import.continuity

    def continuity(self, wanted):
        held.append(sorted({obj[0] for obj in (self.prefetched or {}).values()}))
        return real(self, wanted)

    monkeypatch.setattr(runmod.Import, "continuity", continuity)
    r = hn(src, "sync")
    assert r.code == 0, r.err
    assert held == [["tree"]]


def test_the_background_probe_answers_into_what_the_import_remembers(tmp_path, monkeypatch):
    """Which new objects the main store has is asked in a background thread while measurement goes
    on; its answers go straight into ``known_main`` (nothing reads it before the join), not into a
    dict of their own merged after (400,000 answers held twice for a moment at 100k memories)."""
    from git_hn.service.replication import run as runmod

    remote, b = _remote(tmp_path, 1, 2, 20)
    seen = []
    real = runmod.Import._join_probe

    def join(self):
        probe = getattr(self, "_probe", None)
        if probe is not None:
            probe[0].join()
            seen.append(len(self.known_main))
        return real(self)

    monkeypatch.setattr(runmod.Import, "_join_probe", join)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert seen and seen[0] >= 4 * 40, seen  # (a commit, a tree and two blobs a memory)
    _converged(remote, b, 40)
