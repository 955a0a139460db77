"""Sync's summary when what it imported is the remote's copy of the user's own streams (f159).

A push with the hooks in block mode, or without a replication selection saved, publishes the
user's memory from the hook; the first ``git hn sync`` after it then copies that stream back from
the remote into the accepted refs (``refs/hn/remotes/<remote>/…``: the verified record of what the
remote holds, which continuity checks, the writer and re-anchoring read). It said "imported 1
memory (your own)", which read as if something new had come in. Now it says the remote's copy of
the user's own stream was promoted and nothing new came in; memories of the user's own identity
that this clone did not hold (signed in another clone) are still said as imported. Refs, the
outcome lines and the JSON's counts are unchanged; the JSON adds ``importedAlreadyHere``.
Real repositories, a real bare remote, real pushes with the hooks installed.
"""

from __future__ import annotations

from helpers import commit_on, git, hn, one_identity_in_two_clones, shared_remote, wait_publication

COPY = "Synchronized with origin: promoted 1 stream (origin's copy of your own: nothing new came in)"


def _record(repo, content: str) -> str:
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content, "--json")
    assert r.code == 0, r.err
    return r.json()["stream"]


def _refs(repo, prefix: str) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(objectname)", prefix).split()


def _pushed(tmp_path, mode: str, select: bool):
    """Alice's clone, hooks installed (``hn.prePush`` ``mode``), a memory recorded and a commit
    pushed, the memory published by the push: (remote, alice, its stream)."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    git(alice, "config", "hn.prePush", mode)
    if select:
        assert hn(alice, "replication", "select", "--all").code == 0
    stream = _record(alice, "published by the push")
    commit_on(alice, None, "b.txt")
    git(alice, "push", "-q", "origin", "main")
    wait_publication(alice)
    assert _refs(remote, "refs/hn/memory") == _refs(alice, "refs/hn/memory")  # (the push published it)
    return remote, alice, stream


def test_the_first_sync_after_a_block_mode_push_says_it_promoted_the_remotes_copy_of_your_own(tmp_path):
    remote, alice, stream = _pushed(tmp_path, "block", select=True)
    r = hn(alice, "sync")
    assert r.code == 0, r.err
    assert r.out.splitlines() == [f"Replication memory {stream}: promoted", COPY]  # (was: "imported 1 memory
    # (your own), promoted 1 stream")
    assert _refs(alice, "refs/hn/remotes/origin/memory") == _refs(alice, "refs/hn/memory")  # (the copy, as before)
    # the next memory, pushed the same way: its stream's accepted copy continues, and the JSON
    # keeps its counts, adding how many of the imported memories this clone already held
    _record(alice, "the second")
    commit_on(alice, None, "c.txt")
    git(alice, "push", "-q", "origin", "main")
    doc = hn(alice, "sync", "--json").json()
    assert (doc["promoted"], doc["importedMemories"], doc["importedAlreadyHere"], doc["published"]) == (1, 1, 1, 1)
    assert [o["status"] for o in doc["outcomes"]] == ["promoted"]
    assert _refs(alice, "refs/hn/remotes/origin/memory") == _refs(alice, "refs/hn/memory") == \
        _refs(remote, "refs/hn/memory")
    r = hn(alice, "sync")
    assert r.code == 0 and "importedAlreadyHere" not in hn(alice, "sync", "--json").out
    assert r.out.splitlines()[-1].startswith("Synchronized with origin: up to date")


def test_the_first_sync_without_a_selection_after_a_push_says_the_same(tmp_path):
    _remote, alice, stream = _pushed(tmp_path, "warn", select=False)
    r = hn(alice, "sync")
    assert r.code == 0, r.err
    assert r.out.splitlines() == [f"Replication memory {stream}: promoted", COPY]


def test_your_own_memories_signed_in_another_clone_are_still_said_as_imported(tmp_path):
    """The same identity in two clones: what the other clone signed is new here, and said so; the
    memory this clone signed itself, coming back with it, is not counted as imported."""
    _remote, a, b = one_identity_in_two_clones(tmp_path)
    _record(a, "signed here")
    assert hn(a, "sync").code == 0 and hn(b, "sync").code == 0
    _record(b, "signed in the second clone")
    assert hn(b, "sync").code == 0
    r = hn(a, "sync")
    assert r.code == 0 and r.out.splitlines()[-1] == \
        "Synchronized with origin: imported 1 memory (your own), promoted 1 stream", r.out
    _record(b, "another in the second clone")
    assert hn(b, "sync").code == 0
    doc = hn(a, "sync", "--json").json()
    assert (doc["promoted"], doc["importedMemories"]) == (1, 1) and "importedAlreadyHere" not in doc
