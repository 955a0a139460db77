"""The way out of an own stream that no longer verifies, bounded (``source_fault._last_whole``).

A review (S99, finding 5): the search for the last commit that still verifies walked and verified
the whole chain, root first, on every failing command, and applied its 64-commit bound only
afterwards: 3000 memories added 1.1-1.8 s to each. Real repositories, real Git, real signatures.
"""

from __future__ import annotations

from pathlib import Path

from helpers import git, hn, one_stream


def _drop_tip_blob(repo, ref) -> None:
    blob = git(repo, "rev-parse", f"{ref}:memory.json")
    (Path(repo) / ".git" / "objects" / blob[:2] / blob[2:]).unlink()


def test_the_way_out_of_a_long_stream_verifies_only_the_commits_under_its_bound(tmp_path, monkeypatch):
    """150 memories, the tip's object removed: the way out still names the parent (sequence 149),
    and verifies at most ``BELOW`` + 1 commits to find it (all 150 before)."""
    from git_hn.store import source_fault, verify
    from git_hn.store.repo import open_repo

    repo = one_stream(tmp_path, 150)
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    tip = git(repo, "rev-parse", ref)
    assert hn(repo, "memory", "log").code == 0  # (the state knows the chain)
    _drop_tip_blob(repo, ref)
    failed = hn(repo, "memory", "log")
    parent = git(repo, "rev-parse", f"{tip}^")
    assert failed.code == 1 and f"git update-ref {ref} {parent} puts back its last commit that verifies " \
        "(sequence 149)" in failed.err, failed.err
    staged = []
    real = verify.stage_commits

    def counting(repo_, commits, *args, **kwargs):
        staged.append(len(commits))
        return real(repo_, commits, *args, **kwargs)

    monkeypatch.setattr(verify, "stage_commits", counting)
    line = source_fault.way_out(open_repo(str(repo)), ref)
    assert f"git update-ref {ref} {parent} puts back its last commit that verifies (sequence 149)" in line, line
    assert staged and sum(staged) <= source_fault.BELOW + 1, staged


def test_a_state_built_for_another_stream_keeps_the_way_out_of_the_broken_one(tmp_path):
    """A record to another stream of one's own builds a state for that stream only. The broken
    stream's way out reads what the set-aside state recorded, not the new state (which knows
    nothing of it): it names the last commit that verifies and that the loss above is noted, not
    ``update-ref -d``."""
    repo = one_stream(tmp_path, 3)
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    tip = git(repo, "rev-parse", ref)
    assert hn(repo, "memory", "log").code == 0
    _drop_tip_blob(repo, ref)
    assert hn(repo, "memory", "log").code == 1
    other = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
               "--content", "elsewhere", "--stream", "label:other")
    assert other.code == 0, other.err
    failed = hn(repo, "memory", "log")
    parent = git(repo, "rev-parse", f"{tip}^")
    assert failed.code == 1 and len(failed.err.splitlines()) == 1, failed.err
    assert f"git update-ref {ref} {parent} puts back its last commit that verifies (sequence 2), and git-hn " \
        "notes the memories above it as lost" in failed.err and "update-ref -d" not in failed.err, failed.err
