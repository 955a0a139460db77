"""Anchors a teammate's force-push took off the remote's branches (replication/tracked.py,
docs/decisions.md 2j): the author published a memory on a commit of ``main``, someone else
force-pushed ``main`` without it, and every importer of the author's stream stops there. The
author's next push, sync and fetch-hook import say so, from the remote's own answer; nothing more
is asked while the remote-tracking refs do not move. Real repositories, a real bare remote, real
pushes and fetches with the hooks installed."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers import commit_on, git, git_processes, hn, shared_remote, wait_publication


def _record(repo, content) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _run(repo, *args):
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _published_then_force_pushed_away(tmp_path):
    """Carol (hooks installed) publishes a memory on her commit of main and syncs; Alice then
    force-pushes main without that commit. (remote, alice, carol, the commit, the memory)"""
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    assert hn(carol, "hooks", "install").code == 0
    c = commit_on(carol, None, "carol.txt")
    mem = _record(carol, "Carol's decision on main")
    _run(carol, "push", "-q", "origin", "main")
    assert hn(carol, "sync").code == 0
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(carol, "rev-parse", ref)
    git(alice, "commit", "-q", "--allow-empty", "-m", "Alice's rewrite")  # (on main~1 of the remote)
    git(alice, "push", "-q", "--force", "origin", "main")
    assert git(remote, "rev-parse", "main") != c
    return remote, alice, carol, c, mem


def _reminder(c, mem) -> str:
    return (f"commit {c[:12]}, which memory {mem['memoryId'][7:19]} is anchored on, is no longer on any branch of origin "
            "(a force-push, or a branch deleted or squash-merged there): whoever imports its stream from origin "
            f"stops there; a clone that has it puts it back with git push origin {c}:refs/heads/hn-anchor/{c[:12]}; "
            f"only if it was taken off on purpose (a secret), git hn replication forget-anchors origin {c[:12]} "
            "ends this reminder, and importers still stop at the memory")


def test_the_author_is_told_at_sync_and_push_until_the_anchor_is_back(tmp_path):
    """A team trial: Alice's force-push took Carol's anchor off main; Bob's import stopped at
    Carol's memory and every later one, while Carol's sync said "up to date"."""
    _remote, _alice, carol, c, mem = _published_then_force_pushed_away(tmp_path)
    reminder = _reminder(c, mem)
    # before Carol fetches, her tracking refs still hold the commit: nothing is said on a guess
    assert "Anchors of origin" not in hn(carol, "sync").out
    git(carol, "fetch", "-q", "origin")
    synced = hn(carol, "sync")
    assert synced.code == 0, synced.err
    assert f"Anchors of origin: {reminder}" in synced.out.splitlines(), synced.out
    assert f"Anchors of origin: {reminder}" in hn(carol, "sync").out.splitlines()  # (again, until it is back)
    git(carol, "reset", "-q", "--hard", "origin/main")
    commit_on(carol, None, "later.txt")
    later = _run(carol, "push", "-q", "origin", "main")
    assert f"git-hn: {reminder}\n" in later.stderr, later.stderr
    _run(carol, "push", "-q", "origin", f"{c}:refs/heads/hn-anchor/{c[:12]}")
    assert "Anchors of origin" not in hn(carol, "sync").out


def test_the_fetch_hooks_import_says_it(tmp_path):
    """The fetch that brings the force-pushed main (and a memory to import, so the hook's import
    runs) says it once, on stderr."""
    _remote, alice, carol, c, mem = _published_then_force_pushed_away(tmp_path)
    assert hn(carol, "replication", "select", "--all").code == 0
    theirs = _record(alice, "Alice's, on her rewrite")
    hn(alice, "sync")  # (its import of Carol's stream stops at the memory: the trial's failure)
    ref = f"refs/hn/memory/{theirs['actor']}/{theirs['stream'][7:]}"
    assert git(_remote, "rev-parse", ref) == git(alice, "rev-parse", ref)
    fetched = _run(carol, "fetch", "-q", "origin")
    assert f"git-hn: Anchors of origin: {_reminder(c, mem)}\n" in fetched.stderr, fetched.stderr


def test_a_tracking_ref_moved_by_hand_says_nothing(tmp_path):
    """The remote still holds the commit on main; only this clone's tracking ref went back: the
    remote's answer decides, and nothing stays remembered."""
    remote, (carol,) = shared_remote(tmp_path, "Carol")
    c = commit_on(carol, None, "carol.txt")
    _record(carol, "on main")
    git(carol, "push", "-q", "origin", "main")
    assert hn(carol, "sync").code == 0
    git(carol, "update-ref", "refs/remotes/origin/main", f"{c}~1")
    synced = hn(carol, "sync")
    assert synced.code == 0 and "Anchors of origin" not in synced.out, synced.out
    assert not [p for p in (carol / ".git" / "hn" / "replication").iterdir() if p.name.startswith("atrisk-")]
    assert git(remote, "rev-parse", "main") == c


def test_a_teammates_force_push_of_their_own_memory_is_not_said_here(tmp_path):
    """Only this clone's own publications count: Carol does not hear of Alice's memory, which
    Alice's own push took off (Alice's pre-push warned her)."""
    _remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    assert hn(carol, "replication", "select", "--all").code == 0
    a = commit_on(alice, None, "alice.txt")
    git(alice, "push", "-q", "origin", "main")
    _record(alice, "Alice's on main")
    assert hn(alice, "sync").code == 0
    git(carol, "pull", "-q", "origin", "main")
    assert hn(carol, "sync").code == 0
    git(alice, "reset", "-q", "--hard", f"{a}~1")
    git(alice, "push", "-q", "--force", "origin", "main")
    git(carol, "fetch", "-q", "origin")
    synced = hn(carol, "sync")
    assert "Anchors of origin" not in synced.out, synced.out


def test_a_sync_whose_tracking_refs_did_not_move_asks_one_listing(tmp_path):
    """The cost when nothing changed: one for-each-ref of the tracking refs, no walk, no
    state, no question to the remote."""
    _remote, (carol,) = shared_remote(tmp_path, "Carol")
    commit_on(carol, None, "carol.txt")
    _record(carol, "on main")
    git(carol, "push", "-q", "origin", "main")
    assert hn(carol, "sync").code == 0
    assert hn(carol, "sync").code == 0
    trace = tmp_path / "trace"
    trace.mkdir()
    proc = subprocess.run([sys.executable, "-m", "git_hn", "sync"], cwd=carol, capture_output=True, text=True,
                          env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    assert proc.returncode == 0, proc.stderr
    started = git_processes(trace)
    assert len([argv for argv in started if "refs/remotes/origin/" in argv]) == 1, started
    assert not [argv for argv in started if "rev-list" in argv or "--heads" in argv], started


def test_a_changed_url_or_a_renamed_remote_still_says_it(tmp_path):
    """An audit: after ``git remote set-url`` to another form of the same URL (or ``git remote
    rename``), any change of URL digest was taken for another server and the commits a
    teammate's force-push took off were dropped: the sync said "up to date" and
    ``forget-anchors --dry-run`` "Nothing is remembered"."""
    remote, _alice, carol, c, mem = _published_then_force_pushed_away(tmp_path)
    git(carol, "remote", "set-url", "origin", "file://" + str(remote))
    git(carol, "fetch", "-q", "origin")
    synced = hn(carol, "sync")
    assert synced.code == 0, synced.err
    assert [line for line in synced.out.splitlines() if line.startswith(f"Anchors of origin: commit {c[:12]}")], \
        synced.out
    assert hn(carol, "replication", "forget-anchors", "origin", "--dry-run").out.startswith(f"Would forget {c}")


def test_a_renamed_remote_still_says_it(tmp_path):
    remote, _alice, carol, c, mem = _published_then_force_pushed_away(tmp_path)
    git(carol, "remote", "rename", "origin", "upstream")
    git(carol, "fetch", "-q", "upstream")
    synced = hn(carol, "sync", "upstream")
    assert synced.code == 0, synced.err
    assert [line for line in synced.out.splitlines() if line.startswith(f"Anchors of upstream: commit {c[:12]}")], \
        synced.out


def test_a_remote_that_cannot_say_which_repository_it_is_leaves_the_record(tmp_path):
    """A URL that cannot be asked (moved, offline) is no proof of another server: the record
    stays as it was, and once the remote answers again the force-push is said."""
    from git_hn.service.replication import tracked
    from git_hn.store.repo import open_repo

    remote, _alice, carol, c, _mem = _published_then_force_pushed_away(tmp_path)
    git(carol, "fetch", "-q", "origin")
    record = [p for p in (carol / ".git" / "hn" / "replication").iterdir() if p.name.startswith("tracked-")]
    before = record[0].read_bytes()
    git(carol, "remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    assert tracked.check(open_repo(str(carol)), "origin", timeout=5) is False
    assert record[0].read_bytes() == before
    git(carol, "remote", "set-url", "origin", "file://" + str(remote))
    synced = hn(carol, "sync")
    assert [line for line in synced.out.splitlines() if line.startswith(f"Anchors of origin: commit {c[:12]}")], \
        synced.out


def test_a_force_push_right_after_the_authors_own_push_is_said(tmp_path):
    """A team trial (s27, r7 with MEM1): once the author's stream had a published memory, a memory
    recorded on a new commit went out with ``git push`` (the pre-push hook publishes it), a
    teammate force-pushed main back, and the author's fetch and sync said nothing: the pre-push
    check recorded the tracking refs as they were before the push, so the force-push that put
    them back looked like no move at all."""
    _remote, (carol, alice) = shared_remote(tmp_path, "Carol", "Alice")
    assert hn(carol, "hooks", "install").code == 0
    assert hn(carol, "replication", "select", "--all").code == 0
    _record(carol, "Carol's first, on c1")
    assert hn(carol, "sync").code == 0
    c = commit_on(carol, None, "c2.txt")
    mem = _record(carol, "Carol's second, on c2")
    _run(carol, "push", "-q", "origin", "main")
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(_remote, "rev-parse", ref) == git(carol, "rev-parse", ref)
    git(alice, "fetch", "-q", "origin")
    git(alice, "reset", "-q", "--hard", f"{c}~1")
    git(alice, "push", "-q", "--force", "origin", "main")
    reminder = f"Anchors of origin: {_reminder(c, mem)}"
    fetched = _run(carol, "fetch", "-q", "origin")
    assert f"git-hn: {reminder}\n" in fetched.stderr, fetched.stderr
    synced = hn(carol, "sync")
    assert synced.code == 0, synced.err
    assert reminder in synced.out.splitlines(), synced.out


def test_a_push_that_did_not_land_says_nothing(tmp_path):
    """The record takes the tracking refs as the author's push moves them; a rejected push never
    moved them, and the commit it carried, never on the remote, is no anchor the remote lost."""
    _remote, (carol, alice) = shared_remote(tmp_path, "Carol", "Alice")
    assert hn(carol, "hooks", "install").code == 0
    _record(carol, "Carol's first, on c1")
    assert hn(carol, "sync").code == 0
    commit_on(alice, None, "alice.txt")
    git(alice, "push", "-q", "origin", "main")
    commit_on(carol, None, "c2.txt")
    _record(carol, "Carol's second, on c2")
    rejected = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=carol, capture_output=True, text=True)
    wait_publication(carol)
    assert rejected.returncode != 0
    git(carol, "fetch", "-q", "origin")
    synced = hn(carol, "sync")
    assert synced.code == 0, synced.err
    assert "Anchors of origin" not in synced.out + synced.err, synced.out
    assert not [p for p in (carol / ".git" / "hn" / "replication").iterdir() if p.name.startswith("atrisk-")]


def test_a_push_the_hook_refused_leaves_the_record(tmp_path):
    """A review: with ``hn.prePush block`` the hook refused Carol's force-push (it took her anchor
    off main), Git never pushed, but the record already held the refused tip; Alice's force-push
    off the anchor then looked like a move from that tip, and Carol's sync said "up to date"."""
    _remote, (carol, alice) = shared_remote(tmp_path, "Carol", "Alice")
    assert hn(carol, "hooks", "install").code == 0
    c = commit_on(carol, None, "c1.txt")
    mem = _record(carol, "Carol's, on c1")
    _run(carol, "push", "-q", "origin", "main")
    assert hn(carol, "sync").code == 0
    git(carol, "config", "hn.prePush", "block")
    git(carol, "checkout", "-q", "-b", "tmp", f"{c}~1")
    git(carol, "commit", "-q", "--allow-empty", "-m", "Carol's rewrite")
    refused = subprocess.run(["git", "push", "-q", "--force", "origin", "tmp:main"], cwd=carol,
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "git -c hn.prePush=warn push" in refused.stderr, refused.stderr
    assert git(_remote, "rev-parse", "main") == c
    git(alice, "fetch", "-q", "origin")
    git(alice, "reset", "-q", "--hard", f"{c}~1")
    git(alice, "commit", "-q", "--allow-empty", "-m", "Alice's rewrite")
    git(alice, "push", "-q", "--force", "origin", "main")
    git(carol, "checkout", "-q", "main")
    git(carol, "fetch", "-q", "origin")
    synced = hn(carol, "sync")
    assert synced.code == 0, synced.err
    assert f"Anchors of origin: {_reminder(c, mem)}" in synced.out.splitlines(), synced.out
