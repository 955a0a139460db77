"""A fresh clone's first sync makes its verified state while its quarantine fetch runs, when it
does not exist and that verifies nothing (no memory ref listed: ``meanwhile.state_ahead``, f127);
a clone with memory refs of its own verifies nothing then, and lists its refs only after the fetch. Either
way the sync promotes and every read answers from the state. Real repositories, a real remote
(slowed by a ``uploadpack.packObjectsHook``, so that the order does not depend on timing), real
Git processes seen in Git's own trace (``GIT_TRACE2_EVENT``)."""

from __future__ import annotations

from pathlib import Path

from helpers import hn, record_doc, shared_remote, slow_packing, trace2_when, traced_sync

from git_hn.store.git import MEMORY_LISTING


def _traced_sync(repo: Path, trace: Path, monkeypatch) -> tuple[list[float], float]:
    """Sync ``repo`` with Git's trace on: (the start times of its memory ref listings, the end
    time of its quarantine fetch)."""
    starts, fetches = traced_sync(repo, trace, monkeypatch)
    assert len(fetches) == 1, fetches
    listings = [trace2_when(e) for e in starts.values() if tuple(e["argv"][-len(MEMORY_LISTING):]) == MEMORY_LISTING]
    return listings, trace2_when(fetches[0])


def test_a_first_sync_with_no_memory_ref_brings_its_state_up_while_the_fetch_runs(tmp_path, monkeypatch):
    _remote, (alice, bob, carol) = shared_remote(tmp_path, "Alice", "Bob", "Carol")
    mem = record_doc(alice, content="alice decides")
    assert hn(alice, "sync").code == 0
    own = record_doc(carol, content="carol decides first")  # (Carol has a memory ref of her own)
    for repo in (bob, carol):
        assert hn(repo, "replication", "select", "--memory", mem["stream"]).code == 0
    slow_packing(tmp_path)

    # Bob lists no memory ref: his refs are listed (and his state made) during the fetch, and
    # once more after it, under the acceptance lock
    listings, fetched = _traced_sync(bob, tmp_path / "trace-bob", monkeypatch)
    assert len(listings) == 2, listings
    assert listings[0] < fetched - 0.5 < fetched < listings[1], (listings, fetched)  # (the pack took a second)

    # Carol has a memory ref (and a state): nothing is listed, nor verified, before the fetch ends
    listings, fetched = _traced_sync(carol, tmp_path / "trace-carol", monkeypatch)
    assert listings and all(t > fetched for t in listings), (listings, fetched)

    for repo in (bob, carol):
        assert hn(repo, "memory", "show", mem["memoryId"]).code == 0
    assert hn(carol, "memory", "show", own["memoryId"]).code == 0
    r = hn(bob, "memory", "index", "verify")
    assert r.code == 0, r.err
