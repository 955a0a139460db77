"""Races between a running sync's acceptance and other commands of the same clone (a concurrency
trial, docs/decisions.md "A live acceptance is waited for …"): real Git, real processes; the
window is held open by a lock the test holds, as the sync would."""

from __future__ import annotations

import subprocess
import sys
import time

from helpers import hn, hn_proc, shared_remote


def _rec(repo, content):
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _holding(path: str) -> subprocess.Popen:
    """Another process holding the ``flock`` at ``path`` (a running sync) until it is killed."""
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], "
                               "os.O_RDWR | os.O_CREAT, 0o600); fcntl.flock(fd, fcntl.LOCK_EX); "
                               "print('held', flush=True); time.sleep(60)", path], stdout=subprocess.PIPE)
    assert holder.stdout.readline() == b"held\n"
    return holder


def test_a_read_between_a_live_syncs_ref_transaction_and_its_complete_receipt_waits_for_it(tmp_path):
    """A trial's case: while a sync imported a teammate's memory, 2–3 % of reads in the same clone
    (brief, recall, supersede, an index rebuild) failed with ``replication acceptance pending; …;
    recovery=retry git hn sync origin --recover-shallow``: the sync commits its accepted-ref
    transaction and then writes the ``complete`` receipt, and a read between the two found the
    new tip denied. While that remote's sync runs (its import lock held), the read waits for it
    and reads the pending state again; a leftover with no sync running is still refused at once
    (CONTRACT §9.17: fail closed)."""
    from git_hn.service.replication.serial import lock_path
    from git_hn.store import replication as rstate
    from git_hn.store.repo import open_repo

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    a = _rec(alice, "teammate's decision")
    assert hn(alice, "sync").code == 0
    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_INTERRUPT_AFTER": "before-completion-receipt"}
    assert hn_proc(bob, "sync", env=env).code == 1  # the refs moved; the ``complete`` receipt not written
    started = time.monotonic()
    r = hn_proc(bob, "memory", "log", "--json")  # no sync running: a crash's leftover, refused at once
    assert r.code == 1 and "replication acceptance pending" in r.err and "--recover-shallow" in r.err, r.err
    assert time.monotonic() - started < 10
    repo = open_repo(str(bob))
    (txn, (owner, objs)), = rstate.load_anchors(repo).items()
    rec = rstate.load_receipt(repo, txn)
    holder = _holding(lock_path(repo, "origin", "import"))  # the sync is running, about to write its receipt
    try:
        reader = subprocess.Popen([sys.executable, "-m", "git_hn", "memory", "log", "--json"], cwd=bob,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.5)
        assert reader.poll() is None, reader.communicate()  # (waiting, not refused)
        rstate.write_receipt(repo, txn, owner, "complete", rec.get("outcomes") or [], rec["promotions"], objs,
                             rec.get("acceptedObjects") or objs)
        rstate.remove_anchor(repo, txn)
    finally:
        holder.kill()
        holder.wait()
    out, err = reader.communicate(timeout=60)
    repo.close()
    assert reader.returncode == 0, err
    assert a["memoryId"] in out.decode()


def test_a_sync_that_asked_git_before_another_sync_promoted_asks_again_once_it_holds_the_lock(tmp_path,
                                                                                                monkeypatch):
    """A trial's case: two syncs in one clone (or in two of its worktrees) sometimes failed,
    blaming a valid teammate stream (``commit … has sequence 2, want 3; whoever pushed it can
    push a valid one``) or losing the accepted-ref transaction's compare-and-swap. A sync asks
    Git for the accepted tips and the advertisement as it starts (``store.git.start_early``),
    before it takes the remote's import lock; when the other sync promoted and released the lock
    in between, the lock was free at once, so nothing was asked again, and the second sync
    validated the new memories above the tips as they were before the first one's promotion.
    Here the first sync runs, whole, after the second asked its early questions."""
    from git_hn.cli.main import _ask_remote_early
    from git_hn.service.replication import sync
    from git_hn.store import git as gitmod
    from git_hn.store.repo import open_repo

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    _rec(alice, "first")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "sync").code == 0  # Bob accepts Alice's first memory
    _rec(alice, "second")
    assert hn(alice, "sync").code == 0
    monkeypatch.chdir(bob)
    runner = gitmod.start_early(str(bob), listing=False, batch=False)  # the second sync starts
    _ask_remote_early(runner, "origin", publishing=True)
    for answer in [("for-each-ref", "--format=%(objectname) %(refname)", "refs/hn/remotes/origin/memory/")]:
        assert runner.early_answer(answer).returncode == 0  # (asked and answered: the tips before)
    first = hn_proc(bob, "sync")  # the first sync, in another process, accepts Alice's second memory
    assert first.code == 0, first.err
    repo = open_repo(str(bob))  # the second sync goes on: the import lock is free at once
    try:
        result = sync(repo, "origin")
    finally:
        repo.close()
    assert result.exit_message(human=True) in (None, ""), result.lines()
    assert [o.status for o in result.outcomes if o.kind == "memory"] in ([], ["up-to-date"]), result.lines()
    assert hn(bob, "memory", "index", "verify").code == 0


def test_a_read_of_many_denied_streams_waits_once(tmp_path, monkeypatch):
    """A review of the wait above: a read of three streams a held sync denied waited for each in
    turn (90 s with the 30 s bound) before it refused. One wait a command, shared by every stream
    it reads; still refused once it is over (fail closed)."""
    from git_hn.service.replication.serial import lock_path
    from git_hn.store import pending
    from git_hn.store.repo import open_repo

    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for label in ("a", "b", "c"):
        r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
               "--stream", f"label:{label}", "--content", f"decision {label}")
        assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_REPLICATION_INTERRUPT_AFTER": "before-completion-receipt"}
    assert hn_proc(bob, "sync", env=env).code == 1  # three streams' tips moved, none accepted yet
    repo = open_repo(str(bob))
    holder = _holding(lock_path(repo, "origin", "import"))  # and a sync holding the import lock, for good
    repo.close()
    monkeypatch.setattr(pending, "ACCEPTANCE_WAIT", 1.0)
    try:
        started = time.monotonic()
        r = hn(bob, "memory", "log", "--json")
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert r.code == 1 and "replication acceptance pending" in r.err, r.err
    assert 1.0 <= took < 2.5, took  # (one wait, not one a stream)
