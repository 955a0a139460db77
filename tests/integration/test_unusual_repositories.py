"""Publication and messages in unusual repositories: a bare clone, a mirror, a remote of the other
object format, a repository Git cannot open, a read-only mount (a trial, S52)."""

from __future__ import annotations

from helpers import git, hn, make_repo


def _bare_clone(tmp_path):
    work = make_repo(tmp_path / "w")
    team = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(team))
    bare = tmp_path / "b2.git"
    git(tmp_path, "clone", "-q", "--bare", str(team), str(bare))
    assert hn(bare, "init", "--name", "B2").code == 0
    return work, team, bare


def test_a_bare_clone_publishes_a_memory_anchored_on_a_commit_of_the_remotes_branch(tmp_path):
    """A bare clone has no ``remote.origin.fetch``, so no remote-tracking ref: the memory anchored
    on the remote's own ``main`` waited for good, and the advice (``git fetch origin``) moved
    nothing. The remote's branches are asked instead."""
    _work, team, bare = _bare_clone(tmp_path)
    r = hn(bare, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD", "--applies",
           "descendants", "--content", "bare obs")
    assert r.code == 0, r.err
    ref = f"refs/hn/memory/{r.json()['actor']}/{r.json()['stream'][7:]}"
    s = hn(bare, "sync")
    assert s.code == 0 and "waits" not in s.out + s.err, (s.out, s.err)
    assert git(team, "rev-parse", ref) == git(bare, "rev-parse", ref)


def test_a_bare_clone_whose_anchor_is_on_no_remote_branch_is_told_how_to_track_them(tmp_path):
    """What still waits in a bare clone says to push the commit, and gives the refspec that makes
    the remote's branches tracked: never ``git fetch origin`` alone."""
    work, _team, bare = _bare_clone(tmp_path)
    git(work, "commit", "-q", "--allow-empty", "-m", "side")
    git(work, "push", "-q", str(bare), "main:side")
    side = git(bare, "rev-parse", "side")
    assert hn(bare, "memory", "record", "--kind", "observation", "--at", "side", "--applies", "descendants",
              "--content", "on side").code == 0
    s = hn(bare, "sync")
    assert s.code == 0, s.err
    assert (f": 1 memory waits until commit {side[:12]} is on a branch of origin, and no remote.origin.fetch "
            "maps its branches (a bare clone?): push a branch that contains it, then git hn sync origin; to "
            "track them, git config --add remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*' && "
            "git fetch origin") in s.out, s.out
