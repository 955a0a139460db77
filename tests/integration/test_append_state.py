"""An append records its memory in the verified state while Git writes the objects and moves the
ref, and commits that only once the ref moved (``store.append._state_append``): the state ends at
the new head after a success, exactly as it was after a failure, and is never rebuilt for it."""

from __future__ import annotations

import os
import random
import sqlite3
import string

from helpers import actor_of, git, hn

STATE = (".git", "hn", "memory", "state-v0.sqlite")


def _record(repo, content: str):
    return hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
              "exact", "--content", content)


def _state(repo) -> tuple[int, dict, int]:
    """(inode of the state file, {ref: (head, length)}, number of memories) read with sqlite3."""
    path = os.path.join(repo, *STATE)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        sources = {ref: (head, length) for ref, head, length in
                   conn.execute("SELECT ref, head, length FROM sources")}
        count = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
    finally:
        conn.close()
    return os.stat(path).st_ino, sources, count


def _ref(repo, stream: str) -> str:
    return f"refs/hn/memory/{actor_of(repo)}/{stream.split(':')[1]}"


def test_an_append_leaves_the_state_at_its_new_head(inited):
    first = _record(inited, "the first")
    assert first.code == 0, first.err
    ref = _ref(inited, first.json()["stream"])
    inode, _sources, _count = _state(inited)
    # a small memory (its objects handed to Git at once) and one whose pack is larger than a
    # pipe's atomic write (written the other way): both recorded by the append itself
    words = random.Random(7).choices(string.ascii_letters + string.digits, k=30_000)
    for n, content in enumerate(["the second", "".join(words)], start=2):
        r = _record(inited, content)
        assert r.code == 0, r.err
        again_inode, sources, count = _state(inited)
        assert again_inode == inode  # the same file: recorded, not rebuilt
        assert sources[ref] == (git(inited, "rev-parse", ref), n) and count == n
    assert hn(inited, "memory", "index", "verify").code == 0


def test_a_failed_compare_and_swap_leaves_the_state_as_it_was(inited):
    """A ref lock Git cannot take fails every attempt of the append: the state's transaction is
    rolled back each time, and the state is still sealed and served as it was."""
    first = _record(inited, "before")
    assert first.code == 0, first.err
    ref = _ref(inited, first.json()["stream"])
    before = _state(inited)
    lock = inited / ".git" / (ref + ".lock")
    lock.write_bytes(b"")
    r = _record(inited, "refused")
    assert r.code == 1 and "the lock file" in r.err
    assert _state(inited) == before
    lock.unlink()
    listed = hn(inited, "memory", "recall", "--json", "--include-untrusted")
    assert [m["id"] for m in listed.json()["memories"]] == [first.json()["memoryId"]]
    assert _state(inited) == before  # served as it was: nothing to verify, nothing rebuilt
    assert hn(inited, "memory", "index", "verify").code == 0
