"""Which remote-tracking refs a push moves once it lands (``replication.tracked.after_push``), as
Git maps them: the pre-push check records the tracking refs so, since Git's own move of them after
the push is seen by no git-hn (a team trial: a teammate's force-push back to the old tip then
looked like no move, and the author was never told). Pure: the hook's input and the remote's
fetch refspecs, and the same mapping checked against a real push."""

from __future__ import annotations

import os
import subprocess

from git_hn.service.replication.tracked import after_push

A, B, Z = "a" * 40, "b" * 40, "0" * 40
DEFAULT = ["+refs/heads/*:refs/remotes/origin/*"]


def _input(*lines: tuple[str, str]) -> bytes:
    return "".join(f"refs/heads/x {oid} {dst} {B}\n" for dst, oid in lines).encode()


def test_a_branch_push_and_a_deletion_move_their_tracking_refs():
    data = _input(("refs/heads/main", A), ("refs/heads/feature/q", Z), ("refs/tags/v1", A))
    assert after_push("origin", DEFAULT, data) == {"refs/remotes/origin/main": A,
                                                   "refs/remotes/origin/feature/q": ""}


def test_the_first_refspec_that_maps_a_ref_decides_and_a_negative_one_excludes_nothing():
    specs = ["refs/heads/main:refs/remotes/elsewhere/main", "^refs/heads/wip/*", *DEFAULT]
    data = _input(("refs/heads/main", A), ("refs/heads/wip/1", A), ("refs/heads/topic", B))
    assert after_push("origin", specs, data) == {"refs/remotes/origin/wip/1": A,
                                                 "refs/remotes/origin/topic": B}


def test_the_mapping_is_the_one_a_real_push_makes(tmp_path):
    """Against Git itself (a review: Git 2.39 moves the tracking ref of a pushed branch that a
    negative fetch refspec names, where the first version left it out): each push's hook input,
    mapped, is exactly the tracking refs that push moved."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}

    def git(*args, cwd=tmp_path / "a"):
        return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True).stdout.decode()

    git("init", "-q", "--bare", "s.git", cwd=tmp_path)
    git("init", "-q", "a", cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "x")
    git("remote", "add", "origin", "../s.git")
    git("config", "--add", "remote.origin.fetch", "^refs/heads/wip/*")
    git("config", "--add", "remote.origin.fetch", "refs/heads/main:refs/remotes/origin/trunk")
    specs = git("config", "--get-all", "remote.origin.fetch").split()
    for name in ("wip/1", "topic"):
        git("branch", name)
    head = git("rev-parse", "HEAD").strip()
    pushes = [["HEAD:refs/heads/main"], ["wip/1", "topic"], [":refs/heads/topic"]]
    for refs in pushes:
        before = dict(line.split(" ")[::-1] for line in git(
            "for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes").splitlines())
        local = {r: head for r in refs}
        data = "".join(f"{'(delete)' if r.startswith(':') else 'refs/heads/x'} "
                       f"{Z if r.startswith(':') else local[r]} "
                       f"{r.split(':')[-1] if ':' in r else 'refs/heads/' + r} {Z}\n" for r in refs).encode()
        git("push", "-q", "origin", *refs)
        after = dict(line.split(" ")[::-1] for line in git(
            "for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes").splitlines())
        moved = {ref: after.get(ref, "") for ref in set(before) | set(after) if before.get(ref) != after.get(ref)}
        assert after_push("origin", specs, data) == moved, refs
    assert "refs/remotes/origin/wip/1" in after  # (the case the first version had wrong)


def test_a_push_only_remote_or_a_malformed_line_moves_nothing():
    assert after_push("origin", [], _input(("refs/heads/main", A))) == {}
    assert after_push("origin", DEFAULT, b"refs/heads/main nothex refs/heads/main x\ngarbage\n") == {}
