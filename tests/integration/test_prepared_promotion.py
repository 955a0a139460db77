"""The promotion's ref transaction is prepared while the sync validates (``Git.prepare``,
``promote.prepare``): Git locks and checks the accepted refs early, and nothing is written
before the commit that follows validation. These tests hold the parts that make that safe:
an aborted, refused, mismatched or orphaned transaction writes no ref and leaves no lock file,
and a sync whose streams do not all validate promotes exactly what it promoted before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from git_hn.store.git import Git
from helpers import actor_of, forged_commit, git, hn, make_repo, read_blob, shared_remote, tree_entries


def _locks(repo: Path) -> list[str]:
    return sorted(str(p.relative_to(repo)) for p in (repo / ".git").rglob("*.lock")
                  if "hn" not in p.relative_to(repo / ".git").parts[:1])


def _two_commits(repo: Path) -> tuple[str, str]:
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    second = git(repo, "rev-parse", "HEAD")
    return head, second


def test_a_prepared_transaction_writes_only_when_committed(repo):
    head, second = _two_commits(repo)
    g = Git(str(repo))
    tx = g.prepare([f"create refs/hn/remotes/o/memory/a/{'1' * 64} {head}",
                    f"create refs/hn/remotes/o/memory/b/{'2' * 64} {second}"])
    assert tx.ready()
    # prepared: locked and checked, not yet written
    assert git(repo, "for-each-ref", "refs/hn") == ""
    assert len(_locks(repo)) == 2
    status, out, err = tx.commit().wait()
    assert (status, out, err) == (0, b"commit: ok\n", b"")
    assert git(repo, "for-each-ref", "--format=%(objectname)", "refs/hn").split() == [head, second]
    assert _locks(repo) == []


def test_an_aborted_transaction_writes_nothing_and_releases_its_locks(repo):
    head, _ = _two_commits(repo)
    tx = Git(str(repo)).prepare([f"create refs/hn/remotes/o/memory/a/{'1' * 64} {head}"])
    assert tx.ready()
    tx.abort()
    assert git(repo, "for-each-ref", "refs/hn") == "" and _locks(repo) == []
    assert tx.wait()[0] == 0  # asked again: the same outcome


def test_a_refused_prepare_is_reported_and_writes_nothing(repo):
    """Another process's lock (or a stale one) on one ref: Git refuses the whole transaction."""
    head, second = _two_commits(repo)
    locked = f"refs/hn/remotes/o/memory/b/{'2' * 64}"
    lock = repo / ".git" / (locked + ".lock")
    lock.parent.mkdir(parents=True)
    lock.write_bytes(b"")
    tx = Git(str(repo)).prepare([f"create refs/hn/remotes/o/memory/a/{'1' * 64} {head}",
                                 f"create {locked} {second}"])
    assert tx.ready() is False
    tx.abort()
    status, _out, err = tx.wait()
    assert status != 0 and locked.encode() in err
    assert git(repo, "for-each-ref", "refs/hn") == ""
    assert _locks(repo) == [str(lock.relative_to(repo))]  # only the one that was there


def _hook(repo: Path, body: str) -> None:
    hook = repo / ".git" / "hooks" / "reference-transaction"
    hook.write_text("#!/bin/sh\ncat >/dev/null\n" + body)
    hook.chmod(0o755)


def test_readiness_can_be_asked_without_waiting(repo):
    """While Git prepares (a reference-transaction hook that takes its time), the question
    without waiting answers None; waiting answers True, and the commit writes the ref."""
    head, _ = _two_commits(repo)
    _hook(repo, 'if [ "$1" = prepared ]; then sleep 1; fi\n')
    tx = Git(str(repo)).prepare([f"create refs/hn/remotes/o/memory/a/{'1' * 64} {head}"])
    assert tx.ready(block=False) is None
    assert tx.ready() is True and tx.ready(block=False) is True
    assert tx.commit().wait() == (0, b"commit: ok\n", b"")
    assert git(repo, "rev-parse", f"refs/hn/remotes/o/memory/a/{'1' * 64}") == head


def test_a_hook_that_refuses_the_prepared_transaction_writes_nothing(repo):
    head, _ = _two_commits(repo)
    _hook(repo, 'if [ "$1" = prepared ]; then echo refused >&2; exit 1; fi\n')
    tx = Git(str(repo)).prepare([f"create refs/hn/remotes/o/memory/a/{'1' * 64} {head}"])
    assert tx.ready() is False
    tx.abort()
    status, _out, err = tx.wait()
    assert status != 0 and b"refused" in err
    assert git(repo, "for-each-ref", "refs/hn") == "" and _locks(repo) == []


def test_an_old_value_that_moved_is_refused_at_prepare(repo):
    head, second = _two_commits(repo)
    ref = f"refs/hn/remotes/o/memory/a/{'1' * 64}"
    git(repo, "update-ref", ref, second)
    tx = Git(str(repo)).prepare([f"update {ref} {second} {head}"])
    assert tx.ready() is False
    tx.abort()
    assert git(repo, "rev-parse", ref) == second and _locks(repo) == []


def test_new_tips_are_read_from_an_alternate_given_to_that_process_only(tmp_path):
    """As a sync prepares before the fetched objects reach the main store: the tip is checked
    in the quarantine's store, and the commit still writes the ref once they are moved."""
    main = make_repo(tmp_path / "main")
    other = make_repo(tmp_path / "other", files={"x": "only here\n"})
    tip = git(other, "rev-parse", "HEAD")
    assert subprocess.run(["git", "cat-file", "-e", tip], cwd=main).returncode != 0
    g = Git(str(main))
    ref = f"refs/hn/remotes/o/memory/a/{'1' * 64}"
    refused = g.prepare([f"create {ref} {tip}"])
    assert refused.ready() is False  # Git checks that the new value exists
    refused.abort()
    objects = str(other / ".git" / "objects")
    tx = g.prepare([f"create {ref} {tip}"], env={"GIT_ALTERNATE_OBJECT_DIRECTORIES": objects})
    assert tx.ready()
    git(main, "fetch", "-q", str(other), "HEAD")  # the objects arrive before the commit
    assert tx.commit().wait()[0] == 0
    assert git(main, "rev-parse", ref) == tip


def test_a_process_that_dies_after_prepare_leaves_refs_and_locks_as_they_were(repo):
    """SIGKILL or a crash of git-hn between prepare and commit: Git reads the end of its input
    and aborts the transaction itself."""
    head, _ = _two_commits(repo)
    code = ("import os, sys\n"
            "from git_hn.store.git import Git\n"
            f"tx = Git({str(repo)!r}).prepare(['create refs/hn/remotes/o/memory/a/{'1' * 64} {head}'])\n"
            "assert tx.ready()\n"
            "print('prepared', flush=True)\n"
            "os._exit(9)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 9 and proc.stdout == "prepared\n", proc.stderr
    for _ in range(200):  # Git notices the closed pipe at once; give it a moment to clean up
        if not _locks(repo):
            break
        time.sleep(0.01)
    assert git(repo, "for-each-ref", "refs/hn") == "" and _locks(repo) == []


# -- whole syncs -------------------------------------------------------------------------------


def _rec(repo, content):
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _world(tmp_path):
    remote, (alice, carol, bob) = shared_remote(tmp_path, "Alice", "Carol", "Bob")
    return remote, alice, carol, bob


def test_a_stream_that_fails_validation_leaves_the_others_promoted_and_no_lock(tmp_path):
    """The transaction prepared for both streams does not match the one promotion commits (one
    stream is forged): it is aborted, and the valid stream is promoted as before."""
    _remote, alice, carol, bob = _world(tmp_path)
    a = _rec(alice, "alice decides")
    c = _rec(carol, "carol decides")
    assert hn(alice, "sync").code == 0 and hn(carol, "sync").code == 0
    # Carol's published stream is replaced on the remote by a commit whose payload was altered
    local = f"refs/hn/memory/{actor_of(carol)}/{c['stream'][7:]}"
    head = git(carol, "rev-parse", local)
    entries = tree_entries(carol, head)
    payload = read_blob(carol, entries["memory.json"]).replace(b"carol decides", b"carol decided")
    blob = git(carol, "hash-object", "-w", "--stdin", input=payload)
    forged = forged_commit(carol, f"100644 blob {blob}\tmemory.json\n"
                                  f"100644 blob {entries['signature']}\tsignature\n")
    git(carol, "push", "-q", "--force", "origin", f"{forged}:{local}")
    assert hn(bob, "replication", "select", "--memory", a["stream"], "--memory", c["stream"]).code == 0
    r = hn(bob, "sync", "--json")
    outcomes = {o["id"]: o["status"] for o in json.loads(r.out)["outcomes"]}
    assert outcomes == {a["stream"]: "promoted", c["stream"]: "structurally-invalid"}, r.out
    accepted = git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/remotes").split()
    assert accepted == [f"refs/hn/remotes/origin/memory/{actor_of(alice)}/{a['stream'][7:]}"]
    assert _locks(bob) == []
    assert hn(bob, "memory", "index", "verify").code == 0


def test_a_locked_accepted_ref_fails_the_promotion_whole_and_a_rerun_converges(tmp_path):
    """A lock another process holds on one accepted ref: no ref is written, the lock stays its
    owner's, and the sync after it is released promotes everything."""
    _remote, alice, carol, bob = _world(tmp_path)
    a = _rec(alice, "alice decides")
    c = _rec(carol, "carol decides")
    assert hn(alice, "sync").code == 0 and hn(carol, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", a["stream"], "--memory", c["stream"]).code == 0
    held = f"refs/hn/remotes/origin/memory/{actor_of(carol)}/{c['stream'][7:]}"
    lock = bob / ".git" / (held + ".lock")
    lock.parent.mkdir(parents=True)
    lock.write_bytes(b"")
    r = hn(bob, "sync")
    assert r.code == 1
    assert r.err == ("git-hn: import phase failed (publication phase completed): replication accepted-ref "
                     "transaction failed for remote origin before accepted-ref commit; accepted refs and "
                     "trust projection are unchanged; unreferenced object residue may remain in the "
                     f"object database; Git could not lock a ref: {lock} exists (another Git command holds it, "
                     "or one that was stopped left it); if no Git command is running in this repository, delete "
                     "it and sync again\n")
    assert git(bob, "for-each-ref", "refs/hn/remotes") == ""
    assert _locks(bob) == [str(lock.relative_to(bob))]
    os.unlink(lock)
    assert hn(bob, "sync").code == 0
    assert len(git(bob, "for-each-ref", "refs/hn/remotes").splitlines()) == 2
    assert _locks(bob) == []
