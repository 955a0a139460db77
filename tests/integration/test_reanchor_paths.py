"""Re-anchoring memories whose anchored paths are awkward at the new commit (a trial with odd
paths): a path with spaces that the new commit lacks stopped every re-anchoring ("internal error:
ValueError", or "git cat-file answered unexpectedly"), by hand and in the ``post-rewrite`` hook.
Real repositories, real ``git commit --amend`` with the hooks installed."""

from __future__ import annotations

import subprocess

import pytest

from helpers import git, hn

SPACED = ["a b.txt", "a b c.txt", " both ends "]


def _record(repo, *paths, content="about it") -> str:
    words = [w for p in paths for w in ("--path", p)]
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           *words, "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _memories(repo) -> dict[str, dict]:
    """content -> anchor of each memory here."""
    doc = hn(repo, "memory", "recall", "--json", "--include-untrusted").json()
    return {m["data"]["content"]: m["anchor"] for m in doc["memories"]}


def _amend(repo) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", "commit", "-q", "--amend", "-m", "amended"], cwd=repo, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def _with(repo, name: str) -> str:
    (repo / name).write_text("spaced\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add")
    return git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize("name", SPACED)
def test_reanchor_moves_a_memory_on_a_spaced_path_the_new_commit_lacks(inited, name):
    old = _with(inited, name)
    _record(inited, name, content="spaced")
    _record(inited, content="plain")
    git(inited, "mv", "--", name, "moved.txt")
    git(inited, "commit", "-q", "--amend", "-m", "moved")  # (no hooks: the memories stay on OLD)
    new = git(inited, "rev-parse", "HEAD")
    r = hn(inited, "memory", "reanchor", old, "HEAD")
    assert r.code == 0, r.err
    assert "internal error" not in r.err and "answered unexpectedly" not in r.err, r.err
    got = _memories(inited)
    assert got["spaced"] == {"commit": new, "paths": [{"path": name, "blob": "absent"}]}
    assert got["plain"]["commit"] == new


@pytest.mark.parametrize("name", SPACED)
def test_the_post_rewrite_hook_moves_a_memory_on_a_spaced_path_the_amend_removed(inited, name):
    assert hn(inited, "hooks", "install").code == 0
    _with(inited, name)
    _record(inited, name, content="spaced")
    _record(inited, "never here.txt", content="never there")  # (absent from the start: a space too)
    git(inited, "mv", "--", name, "moved.txt")
    proc = _amend(inited)
    new = git(inited, "rev-parse", "HEAD")
    assert "internal error" not in proc.stderr and "not re-anchored" not in proc.stderr, proc.stderr
    assert "git-hn: re-anchored 2 unpublished memories" in proc.stderr, proc.stderr
    got = _memories(inited)
    assert got["spaced"] == {"commit": new, "paths": [{"path": name, "blob": "absent"}]}
    assert got["never there"] == {"commit": new, "paths": [{"path": "never here.txt", "blob": "absent"}]}
