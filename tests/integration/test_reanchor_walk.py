"""What the verified state reads when ``git hn memory reanchor`` rewrote a stream (issue 11, the
scale sweep: at 100,000 memories ``state._change`` walked the rewritten stream's 6,250 commits from
its head to the root, ~430 ms, to find the commit one rebuilt memory chains onto). It now lists
only the commits the old tip does not reach (``store.suffix_walk``), and stops where the whole
walk stopped; the state is the one a full re-derivation gives."""

from __future__ import annotations

from helpers import git, hn, one_stream


def _reanchored(tmp_path, monkeypatch, moved: int = 2):
    """A stream of 40 memories at the first commit, then ``moved`` more recorded at a commit that
    ``git reset`` throws away, moved by ``reanchor OLD HEAD`` to a new commit: (repository, the
    calls of the whole walk, what each suffix walk returned)."""
    from git_hn.store import state, suffix_walk

    repo = one_stream(tmp_path, 40)
    assert hn(repo, "memory", "recall", "--include-untrusted").code == 0  # (the state holds the 40)
    (repo / "x.txt").write_text("x\n")
    git(repo, "add", "x.txt")
    git(repo, "commit", "-q", "-m", "x")
    old = git(repo, "rev-parse", "HEAD")
    for i in range(moved):
        r = hn(repo, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
               "--content", f"to move {i}")
        assert r.code == 0, r.err
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    assert hn(repo, "memory", "recall", "--include-untrusted").code == 0  # (and the 2 on x)
    git(repo, "commit", "-q", "--allow-empty", "-m", "y")
    whole, suffixes = [], []
    walk_to_known, walk_rewritten = state._walk_to_known, suffix_walk.walk_rewritten

    def counted_whole(*args):
        whole.append(args[2].ref)
        return walk_to_known(*args)

    def counted_suffix(*args):
        got = walk_rewritten(*args)
        suffixes.append(got)
        return got

    monkeypatch.setattr(state, "_walk_to_known", counted_whole)
    monkeypatch.setattr(suffix_walk, "walk_rewritten", counted_suffix)
    r = hn(repo, "memory", "reanchor", old, "HEAD")
    assert r.code == 0, r.err
    assert hn(repo, "memory", "recall", "--include-untrusted").code == 0
    monkeypatch.undo()
    return repo, whole, suffixes


def test_a_reanchored_stream_is_read_from_the_commit_it_was_rewritten_above(tmp_path, monkeypatch):
    repo, whole, suffixes = _reanchored(tmp_path, monkeypatch)
    assert whole == []  # (before: the whole stream, head to root)
    assert len(suffixes) == 1 and suffixes[0] is not None
    walked, (_sid, seq) = suffixes[0]
    assert len(walked) == 2 and seq == 40  # (the two rebuilt memories, on the 40th)
    assert hn(repo, "memory", "index", "verify").code == 0  # (the state a full re-derivation gives)


def test_a_stream_moved_back_by_hand_is_still_read_by_the_whole_walk(tmp_path, monkeypatch):
    """A ref moved back below its recorded tip, to a commit the verified chain holds, is answered
    from the state with no listing and no walk (the test of many moved sources pins that a rewind
    starts no Git process: the suffix walk's listing ran first and broke that), and it reads as
    a full verification does."""
    from git_hn.store import state, suffix_walk

    repo = one_stream(tmp_path, 40)
    assert hn(repo, "memory", "recall", "--include-untrusted").code == 0
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    tip = git(repo, "rev-parse", ref)
    git(repo, "update-ref", ref, f"{tip}~3", tip)
    whole, suffixes = [], []
    walk_to_known, walk_rewritten = state._walk_to_known, suffix_walk.walk_rewritten
    monkeypatch.setattr(state, "_walk_to_known", lambda *a: whole.append(a[2].ref) or walk_to_known(*a))
    monkeypatch.setattr(suffix_walk, "walk_rewritten", lambda *a: suffixes.append(walk_rewritten(*a)) or suffixes[-1])
    r = hn(repo, "memory", "recall", "--include-untrusted", "--json")
    monkeypatch.undo()
    assert r.code == 0 and r.json()["matched"] == 37, r.err
    assert whole == [] and len(suffixes) == 1 and suffixes[0] is not None and suffixes[0][0] == [], suffixes
    assert hn(repo, "memory", "index", "verify").code == 0
