"""Object copy out of a quarantine (CONTRACT §9.10 step 5): exactly the accepted objects reach
the main store; a fetched pack is adopted whole only when every object in it is accepted."""

from __future__ import annotations

import os

import pytest

from git_hn.store.quarantine import Quarantine
from git_hn.store.repo import open_repo
from helpers import git, make_repo


def _blobs(q: Quarantine, texts: list[str]) -> list[str]:
    return [q.git.out(["hash-object", "-w", "--stdin"], input=t.encode()) for t in texts]


def _pack(q: Quarantine, oids: list[str]) -> None:
    """What a fetch that keeps its pack leaves: one pack (and index) in the quarantine."""
    git(q.path, "pack-objects", "-q", os.path.join(q.path, "objects", "pack", "pack"),
        input="".join(o + "\n" for o in oids).encode())


def _present(path, oid: str) -> bool:
    return git(path, "cat-file", "-e", oid, check=False) == "" and \
        git(path, "cat-file", "-t", oid, check=False) == "blob"


def _packs(path) -> set[str]:
    return set(os.listdir(os.path.join(path, ".git", "objects", "pack")))


@pytest.fixture
def main(tmp_path):
    path = make_repo(tmp_path / "main")
    return path, open_repo(str(path))


def test_a_fully_accepted_pack_is_adopted_by_name(main):
    path, repo = main
    q = Quarantine(repo)
    try:
        oids = _blobs(q, ["one\n", "two\n", "three\n"])
        _pack(q, oids)
        ((base, listed),) = q.own_packs()
        assert sorted(listed) == sorted(oids)
        before = _packs(path)
        q.copy_to_main(oids, set(oids))
        added = _packs(path) - before
        name = os.path.basename(base)
        assert {name + ".pack", name + ".idx"} <= added  # the same pack, not a re-packed copy
        assert not [n for n in added if n.startswith("tmp_")]
    finally:
        q.remove()
    assert all(_present(path, o) for o in oids)
    assert git(path, "fsck", "--no-dangling") == ""


def test_a_pack_with_an_unaccepted_object_is_not_adopted(main):
    path, repo = main
    q = Quarantine(repo)
    try:
        wanted = _blobs(q, ["accepted a\n", "accepted b\n"])
        (extra,) = _blobs(q, ["never validated\n"])
        _pack(q, wanted + [extra])
        ((base, _listed),) = q.own_packs()
        q.copy_to_main(wanted, set(wanted))
        assert os.path.basename(base) + ".idx" not in _packs(path)
    finally:
        q.remove()
    assert all(_present(path, o) for o in wanted)
    assert not _present(path, extra)


def test_loose_quarantine_objects_are_packed_for_the_main_store(main):
    path, repo = main
    q = Quarantine(repo)
    try:
        oids = _blobs(q, ["loose one\n", "loose two\n"])
        (extra,) = _blobs(q, ["loose but unaccepted\n"])
        assert q.own_packs() == []
        q.copy_to_main(oids, set(oids))
    finally:
        q.remove()
    assert all(_present(path, o) for o in oids)
    assert not _present(path, extra)
