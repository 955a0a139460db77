"""A memory commit missing from the object database (``git gc --prune=now`` or ``git prune``
racing a write, Git's documented hazard; an alternate that lost objects) is named with its way
back: the stream's ref fetched again, with ``--refetch``, from a remote that has it. Reading then
works again, and
nothing was changed by the failing reads."""

from __future__ import annotations

from helpers import git, hn, record_id, refs_snapshot, shared_remote


def _drop_loose(repo, oid: str) -> None:
    """Remove ``oid`` from ``repo``'s objects: packs are first unpacked into loose objects."""
    packs = repo / ".git" / "objects" / "pack"
    for pack in sorted(packs.glob("*.pack")):
        moved = repo.parent / pack.name
        pack.rename(moved)
        pack.with_suffix(".idx").unlink()
        for extra in packs.glob(pack.stem + ".*"):
            extra.unlink()
        git(repo, "unpack-objects", "-q", input=moved.read_bytes())
        moved.unlink()
    (repo / ".git" / "objects" / oid[:2] / oid[2:]).unlink()


def test_a_pruned_tip_of_an_own_stream_is_named_with_the_fetch_that_brings_it_back(tmp_path):
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    record_id(alice, content="first")
    record_id(alice, content="second")
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory").strip()
    git(alice, "push", "-q", str(remote), f"{ref}:{ref}")
    git(alice, "remote", "remove", "origin")
    tip = git(alice, "rev-parse", ref).strip()
    _drop_loose(alice, tip)
    before = refs_snapshot(alice)

    r = hn(alice, "memory", "log")
    assert r.code == 1 and r.out == ""
    assert r.err == (f"git-hn: memory source {ref}: memory commit {tip} is unavailable while reading parents: "
                     "object not found in this repository (git gc --prune=now or git prune during a write removes "
                     f"new objects); git fetch --refetch REMOTE {ref} (Git 2.36+) brings the stream back from a remote "
                     "you pushed it to\n")
    assert refs_snapshot(alice) == before

    # a sync says why, in the import's outcome and in the publication's line (they said no cause)
    git(alice, "remote", "add", "origin", str(remote))
    r = hn(alice, "sync", "origin")
    missing = f"memory commit {tip} is unavailable while reading parents: object not found in this repository"
    assert r.code == 1
    assert f"cannot inspect accepted memory projection: memory source {ref}: {missing}" in r.out
    assert r.err.startswith("git-hn: publication phase failed after replication: replication memory publication "
                            f"failed for remote origin: memory source {ref}: {missing}"), r.err
    assert refs_snapshot(alice) == before

    git(alice, "fetch", "-q", "--refetch", str(remote), ref)  # the way out, as said (REMOTE: the bare remote)
    r = hn(alice, "memory", "log")
    assert r.code == 0 and "second" in r.out and "first" in r.out


def test_a_pruned_commit_of_an_imported_stream_names_the_remote_it_came_from(tmp_path):
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    record_id(alice, content="from alice")
    assert hn(alice, "sync", "origin").code == 0
    assert hn(bob, "replication", "select", "origin", "--all").code == 0
    assert hn(bob, "sync", "origin").code == 0
    accepted = git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/remotes/origin/memory").strip()
    own = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory").strip()
    tip = git(bob, "rev-parse", accepted).strip()
    _drop_loose(bob, tip)

    r = hn(bob, "memory", "log")
    assert r.code == 1
    assert r.err.endswith(f"git fetch --refetch origin {own} (Git 2.36+) brings the stream back\n"), r.err
    git(bob, "fetch", "-q", "--refetch", "origin", own)
    r = hn(bob, "memory", "log")
    assert r.code == 0 and "from alice" in r.out


def test_a_pruned_commit_below_the_tip_comes_back_with_the_fetch_said(tmp_path):
    """A review: with the tip here and a commit below it gone (an alternate that lost old objects),
    a plain fetch of the ref sends nothing (the tip is a "have"), and the advice looped; the said
    ``--refetch`` brings it back."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    for n in range(3):
        record_id(alice, content=f"m{n}")
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory").strip()
    git(alice, "push", "-q", str(remote), f"{ref}:{ref}")
    middle = git(alice, "rev-parse", f"{ref}~1").strip()
    _drop_loose(alice, middle)
    r = hn(alice, "memory", "log")
    assert r.code == 1 and f"memory commit {middle} is unavailable" in r.err
    assert f"git fetch --refetch REMOTE {ref} (Git 2.36+)" in r.err, r.err
    git(alice, "fetch", "-q", str(remote), ref)  # (what the advice said before: nothing comes)
    assert hn(alice, "memory", "log").code == 1
    git(alice, "fetch", "-q", "--refetch", str(remote), ref)
    r = hn(alice, "memory", "log")
    assert r.code == 0 and all(f"m{n}" in r.out for n in range(3)), r.err
