"""A sync over the verified state another git-hn build left (an upgrade trial, f60): whatever
that state was, and whatever the other build's killed sync left pending, a completed sync leaves
the state at the refs, so ``index verify`` passes after it (CONTRACT §8.4 amendment)."""

from __future__ import annotations

import json
import sqlite3

from git_hn.store import statedb
from git_hn.store.repo import open_repo
from helpers import hn, hn_proc, shared_remote


def _rec(repo, content):
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _written_by_another_build(repo):
    """The state as another git-hn build leaves it, sealed: its checker (the identity of the code
    that verified it) is another, and under ``CONTENT_FROM`` memories it records no content
    digest, so this build discards it (``statedb.open_sealed``)."""
    conn = sqlite3.connect(repo / ".git" / "hn" / "memory" / statedb.NAME)
    with conn:
        conn.execute("UPDATE meta SET value = 'another build' WHERE key = 'checker'")
        conn.execute("DELETE FROM meta WHERE key IN ('content', 'signatures')")
    conn.close()
    opened = open_repo(str(repo))
    statedb.write_seal(opened)
    opened.close()


def _sources(repo):
    conn = sqlite3.connect(repo / ".git" / "hn" / "memory" / statedb.NAME)
    try:
        return sorted(r[0] for r in conn.execute("SELECT ref FROM sources"))
    finally:
        conn.close()


def test_a_sync_after_another_builds_sync_stopped_after_validation_leaves_the_state_at_the_refs(tmp_path):
    """The trial: an older build's sync killed after its ``validated`` receipt (anchor and receipt
    left, nothing promoted, its state in place); this build's next sync promoted, but its state
    could take nothing (another build's), and the publication built one of the user's own
    streams only: ``index verify`` then said ``stale`` until some read caught up."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    _rec(alice, "alice decides")
    assert hn(alice, "sync").code == 0
    _rec(bob, "bob decides")
    assert hn(bob, "memory", "recall").code == 0  # the state exists
    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_INTERRUPT_AFTER": "before-promotion"}
    assert hn_proc(bob, "sync", env=env).code == 1
    replication = bob / ".git" / "hn" / "replication"
    [receipt] = (replication / "transactions").iterdir()
    assert json.loads(receipt.read_text())["state"] == "validated" and list((replication / "anchors").iterdir())
    _written_by_another_build(bob)
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert "promoted" in r.out
    r = hn(bob, "memory", "index", "verify")
    assert (r.code, r.err) == (0, "")
    assert len(_sources(bob)) == 3  # Bob's stream, its published copy and Alice's accepted one


def test_an_up_to_date_sync_after_an_upgrade_leaves_the_state_at_the_refs(tmp_path):
    """With nothing to import, the publication's check of the user's own streams built a state of
    those alone over another build's, and ``index verify`` said ``stale`` after the sync."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    _rec(alice, "alice decides")
    assert hn(alice, "sync").code == 0
    _rec(bob, "bob decides")
    assert hn(bob, "sync").code == 0  # imports Alice's stream, publishes Bob's
    assert hn(bob, "sync").code == 0  # imports Bob's published copy
    _written_by_another_build(bob)
    r = hn(bob, "sync")
    assert (r.code, r.out) == (0, "Replication from origin: 2 streams up to date\nSynchronized with origin: up to date\n")
    r = hn(bob, "memory", "index", "verify")
    assert (r.code, r.err) == (0, "")
    assert len(_sources(bob)) == 3
