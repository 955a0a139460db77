"""Which remote-tracking refs a push moves once it lands (``replication.tracked.after_push``), as
Git maps them: the pre-push check records the tracking refs so, since Git's own move of them after
the push is seen by no git-hn (a team trial: a teammate's force-push back to the old tip then
looked like no move, and the author was never told). Pure: the hook's input and the remote's
fetch refspecs."""

from __future__ import annotations

from git_hn.service.replication.tracked import after_push

A, B, Z = "a" * 40, "b" * 40, "0" * 40
DEFAULT = ["+refs/heads/*:refs/remotes/origin/*"]


def _input(*lines: tuple[str, str]) -> bytes:
    return "".join(f"refs/heads/x {oid} {dst} {B}\n" for dst, oid in lines).encode()


def test_a_branch_push_and_a_deletion_move_their_tracking_refs():
    data = _input(("refs/heads/main", A), ("refs/heads/feature/q", Z), ("refs/tags/v1", A))
    assert after_push("origin", DEFAULT, data) == {"refs/remotes/origin/main": A,
                                                   "refs/remotes/origin/feature/q": ""}


def test_the_first_refspec_that_maps_a_ref_decides_and_a_negative_one_excludes_it():
    specs = ["refs/heads/main:refs/remotes/elsewhere/main", "^refs/heads/wip/*", *DEFAULT]
    data = _input(("refs/heads/main", A), ("refs/heads/wip/1", A), ("refs/heads/topic", B))
    assert after_push("origin", specs, data) == {"refs/remotes/origin/topic": B}


def test_a_push_only_remote_or_a_malformed_line_moves_nothing():
    assert after_push("origin", [], _input(("refs/heads/main", A))) == {}
    assert after_push("origin", DEFAULT, b"refs/heads/main nothex refs/heads/main x\ngarbage\n") == {}
