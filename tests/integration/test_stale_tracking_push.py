"""A push Git refuses itself ("fetch first", "non-fast-forward") gets no line of git-hn, however
stale this clone's remote-tracking ref is (``hook_runs._removals``; docs/decisions.md). A team
soak trial (S98, finding 1): Bob's ``git hn sync`` moved his refs/remotes/origin/main to Alice's
commit C2, which her decision is anchored on; Alice pushed C3; Bob committed without pulling and
pushed. With ``hn.prePush=block`` git-hn refused the push for "taking C2 off origin", told him to
push C2 to an hn-anchor branch (it was still on main), and offered a forced push whose lease was
the remote's current tip: pasted, it deleted C2 and C3 from the server. In warn mode the same false
line came before Git's own rejection. Real repositories, a real remote over git:// (``git
daemon``) and file://, real pushes with the hooks installed."""

from __future__ import annotations

import subprocess

import pytest

from helpers import commit_on, git, hn, hn_lines, push_waited, shared_remote


def _teammate_pushed_twice(tmp_path, git_daemon, mode: str, transport: str):
    """Alice pushes C2 with a decision anchored on it; Bob syncs (his origin/main is C2 then);
    Alice pushes C3; Bob commits on his main, which never pulled either: (remote, alice, bob, C2)."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    if transport == "daemon":
        url = git_daemon(remote)
        for repo in (alice, bob):
            git(repo, "remote", "set-url", "origin", url)
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
        assert hn(repo, "replication", "select", "--all").code == 0
    git(bob, "config", "hn.prePush", mode)
    c2 = commit_on(alice, None, "two.txt")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice decided on C2").code == 0
    assert push_waited(alice, "-q", "origin", "main").returncode == 0
    assert hn(alice, "sync").code == 0
    assert hn(bob, "sync").code == 0
    assert git(bob, "rev-parse", "refs/remotes/origin/main") == c2
    commit_on(alice, None, "three.txt")
    assert push_waited(alice, "-q", "origin", "main").returncode == 0
    commit_on(bob, None, "g.txt")
    return remote, alice, bob, c2


@pytest.mark.parametrize("mode", ["block", "warn"])
@pytest.mark.parametrize("transport", ["daemon", "file"])
def test_a_push_git_refuses_as_fetch_first_over_a_stale_tracking_ref_gets_no_line(tmp_path, git_daemon,
                                                                                  mode, transport):
    remote, _alice, bob, _c2 = _teammate_pushed_twice(tmp_path, git_daemon, mode, transport)
    before = git(remote, "for-each-ref")
    pushed = push_waited(bob, "origin", "main")
    assert pushed.returncode != 0 and "(fetch first)" in pushed.stderr, pushed.stderr
    assert not hn_lines(pushed.stderr), pushed.stderr
    assert git(remote, "for-each-ref") == before


@pytest.mark.parametrize("mode", ["block", "warn"])
def test_a_push_git_refuses_as_non_fast_forward_gets_no_line(tmp_path, git_daemon, mode):
    """Fetched, so Git knows the remote's tip: "non-fast-forward", its own rejection, still no line.
    (A guard that passed before the fix too: Git gives pre-push no ref it already knows is not a
    fast-forward; it is here so that a Git which did would find the hook quiet.)"""
    remote, _alice, bob, _c2 = _teammate_pushed_twice(tmp_path, git_daemon, mode, "file")
    git(bob, "fetch", "-q", "origin")
    before = git(remote, "for-each-ref")
    pushed = push_waited(bob, "origin", "main")
    assert pushed.returncode != 0 and "(non-fast-forward)" in pushed.stderr, pushed.stderr
    assert not hn_lines(pushed.stderr), pushed.stderr
    assert git(remote, "for-each-ref") == before


def test_a_forced_push_that_takes_the_anchor_off_is_still_refused(tmp_path, git_daemon):
    """Forced after fetching, the push does take C2 off: refused in block, and the way out's
    lease is the tip this clone last saw there (its remote-tracking ref). (A guard: it passed
    before the fix too.)"""
    remote, _alice, bob, c2 = _teammate_pushed_twice(tmp_path, git_daemon, "block", "daemon")
    git(bob, "fetch", "-q", "origin")
    before = git(remote, "for-each-ref")
    seen = git(bob, "rev-parse", "refs/remotes/origin/main")
    pushed = push_waited(bob, "--force", "origin", "main")
    assert pushed.returncode != 0, pushed.stderr
    lines = hn_lines(pushed.stderr)
    assert len(lines) == 1 and lines[0].startswith(f"git-hn: this push takes commit {c2[:12]} off origin"), \
        pushed.stderr
    assert f"--force-with-lease=refs/heads/main:{seen} origin" in lines[0], lines[0]
    assert git(remote, "for-each-ref") == before
    # pasted, the way out does what the user forced, with the warning
    way_out = lines[0].split("only if it goes on purpose (a secret): ", 1)[1].removesuffix(
        " repeats this push with a warning instead")
    anyway = subprocess.run(way_out, shell=True, cwd=bob, capture_output=True, text=True)
    assert anyway.returncode == 0 and f"this push takes commit {c2[:12]} off origin" in anyway.stderr, anyway.stderr
    assert git(remote, "rev-parse", "main") == git(bob, "rev-parse", "main")


def test_a_forced_push_over_a_tip_this_clone_has_not_seen_offers_no_forcing_command(tmp_path, git_daemon):
    """The soak's push, forced without fetching: refused (fetch first), and no lease is offered,
    since the only tip there to name is one this clone has not seen (the remote's, C3), and its
    remote-tracking ref (C2) would not be the one replaced."""
    remote, _alice, bob, _c2 = _teammate_pushed_twice(tmp_path, git_daemon, "block", "daemon")
    before = git(remote, "for-each-ref")
    pushed = push_waited(bob, "--force", "origin", "main")
    assert pushed.returncode != 0, pushed.stderr
    lines = hn_lines(pushed.stderr)
    assert lines and "which this clone has not fetched: git fetch origin first" in pushed.stderr, pushed.stderr
    assert "force-with-lease" not in pushed.stderr and "hn.prePush=warn" not in pushed.stderr, pushed.stderr
    assert git(remote, "for-each-ref") == before
