"""A stopping signal (Ctrl-C, SIGTERM) that reaches git-hn while it accepts what it fetched:
never between a pending anchor and its receipt, nor between the ref transaction and the
completion receipt (CONTRACT §9.17: either leaves every memory read failing until a sync),
whoever runs the import and whatever signal handler it has. Real repositories, a real
``git fetch`` through the installed hooks; the import signals itself at a seam
(``HN_TEST_REPLICATION_SIGNAL_AT``, git-hn's own test hook) and goes on, as if Ctrl-C were
pressed there."""

from __future__ import annotations

import os
import subprocess

import pytest

from helpers import git, hn, shared_remote


@pytest.fixture
def team(tmp_path):
    """Alice publishes a memory to ``origin``; Bob, who selected every stream and installed the
    hooks, has yet to fetch."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    mid = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "stopped import").json()["memoryId"]
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "hooks", "install").code == 0
    git(alice, "commit", "-q", "--allow-empty", "-m", "moves main")
    git(alice, "push", "-q", "origin", "main")
    return bob, mid


@pytest.mark.parametrize("seam", ["after-pending-anchor", "before-completion-receipt"])
def test_ctrl_c_in_the_fetch_hooks_import_never_leaves_reads_waiting_for_a_sync(team, seam):
    """A review: Ctrl-C typed during a plain ``git fetch`` whose hook imported memory left an
    anchor without its receipt, and every read then failed with "replication acceptance
    pending" until a sync: the hold worked only under the handler ``git hn sync`` installs, and
    the hook's import runs with Python's own, whose ``KeyboardInterrupt`` came inside it."""
    bob, mid = team
    proc = subprocess.run(["git", "fetch", "-q", "origin"], cwd=bob, capture_output=True, text=True,
                          env={**os.environ, "HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_SIGNAL_AT": seam})
    assert proc.returncode == 0, proc.stderr
    assert "git-hn: interrupted" in proc.stderr  # the stop came, once the step was whole
    anchors = bob / ".git" / "hn" / "replication" / "anchors"
    assert not anchors.exists() or os.listdir(anchors) == [] or seam == "after-pending-anchor"
    r = hn(bob, "memory", "recall", "--include-untrusted", "--json")
    assert r.code == 0, r.err
    assert [m["id"] for m in r.json()["memories"]] == ([] if seam == "after-pending-anchor" else [mid])
    assert hn(bob, "sync").code == 0  # and the next sync completes what the stop left
    assert [m["id"] for m in hn(bob, "memory", "recall", "--include-untrusted", "--json").json()["memories"]] \
        == [mid]
    assert os.listdir(anchors) == []
