"""Refused requests and dry runs make no lock file (an audit): lock files under ``.git/hn/locks``
are never deleted (``store/lock.py``: deleting one another process holds would let a third lock
a new inode beside it), so a lock taken before a refusal left a file behind for good, named after
another actor's stream, a memory or a policy. A refusal that needs no lock now comes before the
lock, and a dry run takes none, so it also works where ``.git/hn`` cannot be written. Writers
still take their locks (``test_concurrency``)."""

from __future__ import annotations

import os
import subprocess

import pytest

from helpers import git, hn, make_repo, record_id, shared_remote


def locks(repo):
    d = repo / ".git" / "hn" / "locks"
    return sorted(os.listdir(d)) if d.is_dir() else []


def no_locks(repo):
    """No lock file left but the verified state's (every read takes it: the state is derived, and
    rebuilt by any command), none being held (no git-hn runs): each case sees what it makes."""
    for name in locks(repo):
        if name != "state.lock":
            os.unlink(repo / ".git" / "hn" / "locks" / name)
    return locks(repo)


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """Alice's clone, with Bob's stream imported and a committed policy; Bob's record."""
    remote, (alice, bob) = shared_remote(tmp_path_factory.mktemp("team"), "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "replication", "select", "--all").code == 0
    bobs = hn(bob, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob's").json()
    assert hn(bob, "sync").code == 0
    record_id(alice, content="alice's")
    assert hn(alice, "sync").code == 0
    assert hn(alice, "policy", "init").code == 0
    git(alice, "add", ".hn/policy.json")
    git(alice, "commit", "-q", "-m", "policy")
    assert hn(alice, "memory", "log").code == 0
    return alice, bobs


REFUSED = {
    "record to another actor's stream": lambda b: ["memory", "record", "--kind", "decision", "--at", "HEAD",
                                                   "--applies", "descendants", "--stream", b["stream"], "--content",
                                                   "x"],
    "retract another actor's memory": lambda b: ["memory", "retract", b["memoryId"], "--reason", "wrong"],
    # (a guard: supersede already refused before its lock; it passed before the audit's fix)
    "supersede another actor's memory": lambda b: ["memory", "supersede", b["memoryId"], "--content", "new"],
    "trust an unknown actor": lambda b: ["policy", "trust", "nobody"],
    "trust a kind that does not exist": lambda b: ["policy", "trust", b["actor"], "--kind", "bogus"],
    "untrust an unknown actor": lambda b: ["policy", "untrust", "nobody"],
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_request_makes_no_lock_file(team, case):
    alice, bobs = team
    before, refs = no_locks(alice), git(alice, "for-each-ref")
    r = hn(alice, *REFUSED[case](bobs))
    assert r.code == 1 and r.err.count("\n") == 1, r
    assert locks(alice) == before
    assert git(alice, "for-each-ref") == refs


def test_dry_runs_make_no_lock_file(team, tmp_path):
    alice, _bobs = team
    before = no_locks(alice)
    assert hn(alice, "setup", "claude", "--print").code == 0
    r = hn(alice, "replication", "forget-anchors", "origin", "--dry-run", "--json")
    assert r.code == 0, r
    assert locks(alice) == before
    fresh = make_repo(tmp_path / "fresh")  # (no .git/hn at all: the preview makes none)
    assert hn(fresh, "setup", "claude", "--print").code == 0
    assert not (fresh / ".git" / "hn").exists()


def test_dry_runs_and_index_verify_work_on_a_read_only_mount(team, tmp_path):
    """A read-only mount of the repository (root only: a bind mount remounted read-only): what
    writes nothing answers; each took a lock there before, and failed to open it."""
    alice, _bobs = team
    assert hn(alice, "replication", "forget-anchors", "origin", "--dry-run").code == 0  # (its derived records)
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "--bind", str(alice), str(ro)], capture_output=True).returncode:
        pytest.skip("a read-only bind mount needs root")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], capture_output=True).returncode:
            pytest.skip("this kernel does not remount a bind mount read-only")
        r = hn(ro, "memory", "index", "verify")
        assert (r.code, r.err) == (0, ""), r
        r = hn(ro, "setup", "claude", "--print")
        assert (r.code, r.err) == (0, "") and r.out.startswith("--- /dev/null\n+++ b/.mcp.json\n"), r
        r = hn(ro, "replication", "forget-anchors", "origin", "--dry-run")
        assert r.code == 0, r
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)
