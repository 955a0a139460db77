"""A push that forces or deletes a remote ref whose tip this clone has not fetched
(publish.removed_by_push, push_removals.unimported_there; docs/decisions.md): the walk of what the
push takes off cannot start at a commit this clone lacks. A team trial (S54): with
``hn.prePush=block``, Bob force-pushed main over Alice's commit he had not fetched, on which her
published decision was anchored, and deleted her branch the same way; both went on without a
git-hn line. Real repositories, a real bare remote, real pushes with the hooks installed."""

from __future__ import annotations

import subprocess

from helpers import commit_on, git, hn, hn_lines, push_waited, shared_remote, wait_publication


def _alice_published_bob_not_fetched(tmp_path, mode: str = "block", memory: bool = True):
    """Alice pushes a commit on main and a branch feat/x beside it, each with a decision anchored on it
    (``memory``); Bob, who cloned before and has the hooks and ``--all``, commits without fetching."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
        assert hn(repo, "replication", "select", "--all").code == 0
    git(bob, "config", "hn.prePush", mode)
    commit_on(alice, None, "two.txt")
    if memory:
        assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--content", "Alice's decision on commit two").code == 0
    git(alice, "switch", "-q", "-c", "feat/x", "HEAD~1")  # (not on main's history: deleting it takes x off)
    commit_on(alice, None, "x.txt")
    if memory:
        assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--content", "Alice's decision on feat/x").code == 0
    git(alice, "switch", "-q", "main")
    push = subprocess.run(["git", "push", "-q", "origin", "main", "feat/x"], cwd=alice, capture_output=True, text=True)
    assert push.returncode == 0, push.stderr
    wait_publication(alice)
    assert hn(alice, "sync").code == 0
    commit_on(bob, None, "b.txt")
    return remote, alice, bob


def test_block_refuses_a_force_push_over_a_commit_this_clone_has_not_fetched(tmp_path):
    remote, _alice, bob = _alice_published_bob_not_fetched(tmp_path)
    before = git(remote, "for-each-ref")
    tip = git(remote, "rev-parse", "main")
    pushed = push_waited(bob, "--force", "origin", "main")
    assert pushed.returncode != 0
    lines = hn_lines(pushed.stderr)
    assert len(lines) == 1, pushed.stderr
    # (no way out that forces it: a lease could name only the remote's tip, which this clone has not seen)
    assert lines[0] == (f"git-hn: origin's main is at {tip[:12]}, which this clone has not fetched: "
                        "git fetch origin first, then push again (what the push takes off cannot be "
                        "checked)"), lines[0]
    assert git(remote, "for-each-ref") == before
    # fetched (the fetch imports Alice's decision), the push is refused for the anchor it takes off
    git(bob, "fetch", "-q", "origin")
    again = push_waited(bob, "--force", "origin", "main")
    assert again.returncode != 0 and "not fetched" not in again.stderr, again.stderr
    assert f"this push takes commit {tip[:12]} off origin, and memory" in again.stderr, again.stderr
    assert git(remote, "for-each-ref") == before


def test_block_refuses_deleting_a_branch_this_clone_has_not_fetched(tmp_path):
    remote, _alice, bob = _alice_published_bob_not_fetched(tmp_path)
    tip = git(remote, "rev-parse", "feat/x")
    pushed = push_waited(bob, "origin", "--delete", "feat/x")
    assert pushed.returncode != 0
    lines = hn_lines(pushed.stderr)
    assert len(lines) == 1 and lines[0].startswith(
        f"git-hn: origin's feat/x is at {tip[:12]}, which this clone has not fetched: git fetch origin first"), \
        pushed.stderr
    assert git(remote, "rev-parse", "feat/x") == tip


def test_warn_says_it_once_and_the_push_goes_on(tmp_path):
    remote, _alice, bob = _alice_published_bob_not_fetched(tmp_path, "warn")
    tip = git(remote, "rev-parse", "main")
    pushed = push_waited(bob, "-f", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert hn_lines(pushed.stderr) == [
        f"git-hn: warning: origin's main is at {tip[:12]}, which this clone has not fetched, so git-hn cannot "
        "check what this push takes off origin for memories' anchor commits (git fetch origin before such a "
        "push lets it)"], pushed.stderr
    assert git(remote, "rev-parse", "main") == git(bob, "rev-parse", "HEAD")


def test_only_a_remote_holding_memory_holds_the_push_up(tmp_path):
    """No memory ref on the remote: nothing the push takes off is an anchor, whatever it is."""
    remote, alice, bob = _alice_published_bob_not_fetched(tmp_path, memory=False)
    pushed = push_waited(bob, "--force", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert not hn_lines(pushed.stderr), pushed.stderr
    assert git(remote, "rev-parse", "main") == git(bob, "rev-parse", "HEAD")
    # once Alice publishes a decision there, the same kind of push is refused
    git(alice, "pull", "-q", "--rebase", "origin", "main")
    commit_on(alice, None, "three.txt")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's decision on commit three").code == 0
    assert push_waited(alice, "-q", "origin", "main").returncode == 0
    assert hn(alice, "sync").code == 0
    commit_on(bob, None, "b2.txt")
    again = push_waited(bob, "--force", "origin", "main")
    assert again.returncode != 0 and "which this clone has not fetched" in again.stderr, again.stderr


def test_a_push_git_refuses_as_fetch_first_gets_no_line_of_git_hn(tmp_path):
    """Git runs pre-push for an update it then refuses ("fetch first"): not forced, it takes
    nothing off, and Git's own advice is the same."""
    remote, _alice, bob = _alice_published_bob_not_fetched(tmp_path, "warn")
    tip = git(remote, "rev-parse", "main")
    pushed = push_waited(bob, "origin", "main")
    assert pushed.returncode != 0 and "fetch first" in pushed.stderr, pushed.stderr
    assert not hn_lines(pushed.stderr), pushed.stderr
    # a + refspec forces as --force does
    forced = push_waited(bob, "origin", "+main")
    assert forced.returncode == 0 and f"origin's main is at {tip[:12]}" in forced.stderr, forced.stderr
