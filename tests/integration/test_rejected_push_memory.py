"""A push Git refuses itself says nothing of the memory that waits for it (f162, a newcomer trial;
docs/decisions.md). Bob records a decision on a commit of his main and pushes, behind Alice's
push. Fetched first, Git refuses it as a non-fast-forward and hands pre-push no line for it: git-hn
told him to "push a branch that contains it", the push he had just made, and Git's ``! [rejected]``
followed. Not fetched, Git refuses it as "fetch first" but gives the line: nothing was said. Both
now say nothing (Git's own rejection says to integrate and push again); the memory follows the
push that goes through. Real repositories, real pushes with the hooks installed."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from helpers import commit_on, git, hn, hn_lines, push_waited, recall_json, shared_remote, wait_publication

ADVICE = "push a branch that contains it"


def _push_named(branch: str) -> str:
    """The advice that names the branch holding the anchor (f176: as record's hint gives it)."""
    return f"branch {branch}: git push origin {shlex.quote(branch)}; or git fetch origin if it is there already"


def _bob_behind_with_a_memory(tmp_path, mode: str):
    """Alice and Bob clone; Bob commits and records a decision on it; Alice pushes a commit
    first: (remote, bob, the anchor)."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
    git(bob, "config", "hn.prePush", mode)
    anchor = commit_on(bob, None, "bob.txt")
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Bob decided on his commit").code == 0
    commit_on(alice, None, "alice.txt")
    assert push_waited(alice, "-q", "origin", "main").returncode == 0
    return remote, bob, anchor


@pytest.mark.parametrize("mode", ["warn", "block"])
@pytest.mark.parametrize("kind", ["non-fast-forward", "fetch first"])
def test_a_push_git_refuses_says_nothing_of_the_memory_that_waits_for_it(tmp_path, mode, kind):
    remote, bob, anchor = _bob_behind_with_a_memory(tmp_path, mode)
    if kind == "non-fast-forward":  # (fetched: Git knows the remote's tip, and gives pre-push no line)
        git(bob, "fetch", "-q", "origin")
    before = git(remote, "for-each-ref")
    pushed = push_waited(bob, "origin", "main")
    assert pushed.returncode != 0 and f"({kind})" in pushed.stderr, pushed.stderr
    assert not hn_lines(pushed.stderr), pushed.stderr
    assert git(remote, "for-each-ref") == before  # (no memory went up without its anchor)
    # what Git says to do, done: the memory follows the push that goes through
    git(bob, "pull", "-q", "--rebase", "origin", "main")
    again = push_waited(bob, "origin", "main")
    assert again.returncode == 0 and not hn_lines(again.stderr), again.stderr
    head = git(bob, "rev-parse", "HEAD")
    assert head != anchor and git(remote, "rev-parse", "main") == head
    assert git(remote, "for-each-ref", "refs/hn/memory/")  # published
    memories = recall_json(bob, "--include-untrusted")["memories"]
    assert [(m["data"]["content"], m["anchor"]["commit"]) for m in memories] == [("Bob decided on his commit", head)]


def test_a_memory_on_a_branch_not_pushed_yet_still_gets_the_advice(tmp_path):
    """(A guard, true before too: the advice is kept where pushing a branch is the way on.) The
    branch containing the anchor has no remote-tracking branch, and main, pushed, lacks it."""
    remote, (bob,) = shared_remote(tmp_path, "Bob")
    assert hn(bob, "hooks", "install").code == 0
    anchor = commit_on(bob, "side", "side.txt")
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on a side branch").code == 0
    git(bob, "checkout", "-q", "main")
    commit_on(bob, None, "more.txt")
    pushed = push_waited(bob, "origin", "main")
    assert pushed.returncode == 0
    assert [x for x in hn_lines(pushed.stderr) if f"waits until commit {anchor[:12]} is on origin "
            f"({_push_named('side')}" in x], pushed.stderr


def test_a_memory_on_a_branch_behind_its_remote_gets_no_advice_from_another_branch_push(tmp_path):
    """Bob's main, holding the anchor, is behind origin/main (fetched); he pushes another branch,
    which Git takes: pushing main is what Git refuses, so "push a branch" would send him there."""
    remote, bob, anchor = _bob_behind_with_a_memory(tmp_path, "warn")
    git(bob, "fetch", "-q", "origin")
    git(bob, "branch", "other", "origin/main")
    pushed = push_waited(bob, "origin", "other")
    assert pushed.returncode == 0, pushed.stderr
    assert not [x for x in hn_lines(pushed.stderr) if "waits until commit" in x], pushed.stderr
    assert not git(remote, "for-each-ref", "refs/hn/memory/")  # (its anchor is not there: held, as before)
    assert git(remote, "rev-parse", "other") != anchor


@pytest.mark.parametrize("branch", ["main", "topic$(touch${IFS}pwned)"])
def test_sync_says_the_branch_holding_the_anchor_is_behind_the_remotes_not_to_push_it(tmp_path, branch):
    """(f166; f162 left it) After Git refused Bob's push as a non-fast-forward, ``git hn sync``'s
    own line told him to "push a branch that contains it", the push just refused. It names the
    branch, the remote-tracking branch it is behind, and Git's way on: pull --rebase, then push.
    Pasted into a shell as it is (a branch may be named ``$(…)``), it runs no command of the
    name, and the memory follows the push. Not fetched yet, the line is the old one (Bob has not
    pushed: pushing is the way on)."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
    if branch != "main":
        git(alice, "push", "-q", "origin", f"main:refs/heads/{branch}")
        git(bob, "fetch", "-q", "origin")
        git(bob, "checkout", "-q", "-b", branch, f"origin/{branch}")
    anchor = commit_on(bob, None, "bob.txt")
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Bob decided on his commit").code == 0
    commit_on(alice, None, "alice.txt")
    assert push_waited(alice, "-q", "origin", f"HEAD:refs/heads/{branch}").returncode == 0
    first = hn(bob, "sync", "origin")
    assert first.code == 0 and f"waits until commit {anchor[:12]} is on origin ({_push_named(branch)}" \
        in first.out, first.out
    git(bob, "fetch", "-q", "origin")
    pushed = push_waited(bob, "origin", branch)
    assert pushed.returncode != 0 and "(non-fast-forward)" in pushed.stderr, pushed.stderr
    before = git(remote, "for-each-ref")
    synced = hn(bob, "sync", "origin")
    assert synced.code == 0, synced.err
    held = [x for x in synced.out.splitlines() if "waits until commit" in x]
    quoted = shlex.quote(branch)
    assert len(held) == 1 and held[0].endswith(
        f": 1 memory waits until commit {anchor[:12]} is on origin (branch {branch} contains it but is behind "
        f"origin/{branch}, so Git refuses its push: on that branch, git pull --rebase origin {quoted}, then git "
        f"push origin {quoted}; the memory follows that push, or git hn sync origin)"), synced.out
    assert ADVICE not in synced.out and _push_named(branch) not in synced.out
    assert git(remote, "for-each-ref") == before  # (words only: nothing went up without its anchor)
    commands = re.search(r"on that branch, (git pull .*), then (git push .*); the memory follows", held[0])
    for command in commands.groups():  # the advice, pasted into a shell, works
        done = subprocess.run(["sh", "-c", command], cwd=bob, capture_output=True, text=True)
        wait_publication(bob)
        assert done.returncode == 0, (command, done.stderr)
    assert not list(tmp_path.rglob("pwned"))
    head = git(bob, "rev-parse", "HEAD")
    assert head != anchor and git(remote, "rev-parse", f"refs/heads/{branch}") == head
    assert git(remote, "for-each-ref", "refs/hn/memory/")  # published, anchored on the rebased commit
    memories = recall_json(bob, "--include-untrusted")["memories"]
    assert [(m["data"]["content"], m["anchor"]["commit"]) for m in memories] == [("Bob decided on his commit", head)]
    again = hn(bob, "sync", "origin")
    assert again.code == 0 and "waits until commit" not in again.out, again.out
