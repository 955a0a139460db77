"""Partial clones (``git clone --filter=blob:none``; F45, a trial): a sync imports into one with
real repositories and a real file:// server that serves filters and objects by ID, as a hosting
service does. Git fetches any object a partial clone lacks from its promisor remote when asked
about it (a *lazy fetch*): nothing git-hn asks may start one, and what a memory needs that the
clone lacks (an anchored file) comes with the sync's own fetch, through the quarantine."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import git, hn, make_repo


def _team(tmp_path: Path, bare_remote) -> tuple[Path, Path]:
    """A server that serves partial clones, and Alice's clone with an identity and app.py."""
    server = bare_remote("team.git")
    git(server, "config", "uploadpack.allowFilter", "true")
    git(server, "config", "uploadpack.allowAnySHA1InWant", "true")
    alice = make_repo(tmp_path / "alice", files={"app.py": "v1\n"})
    git(alice, "remote", "add", "origin", server.as_uri())
    git(alice, "push", "-q", "-u", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    return server, alice


def _partial(tmp_path: Path, server: Path, name: str = "pat") -> Path:
    """A blob:none clone that selects every stream (its checkout fetched main's files)."""
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", "--filter=blob:none", server.as_uri(), str(clone))
    assert git(clone, "config", "remote.origin.promisor") == "true"
    assert hn(clone, "replication", "select", "--all").code == 0
    return clone


def _promisor_packs(repo: Path) -> set[str]:
    """The packs Git fetched from the promisor remote (each lazy fetch writes one)."""
    return {p.name for p in (repo / ".git" / "objects" / "pack").glob("*.promisor")}


def test_a_partial_clone_imports_without_a_lazy_fetch_per_memory_object(tmp_path, bare_remote):
    """The sync asked the main repository which fetched memory objects it already has, and in a
    partial clone Git fetched each one it lacked from the remote, one ``git fetch`` (and one
    ``git maintenance run --auto``) per object: 69 for 30 memories, ten times a full clone's
    time, and each object of a memory not yet validated went into the main store, past the
    quarantine. None does now: the memories come through the quarantine only."""
    server, alice = _team(tmp_path, bare_remote)
    for n in range(5):
        assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--content", f"memory {n}").code == 0
    assert hn(alice, "sync").code == 0
    pat = _partial(tmp_path, server)
    before = _promisor_packs(pat)
    doc = json.loads(hn(pat, "sync", "--json").out)
    assert (doc["promoted"], doc["importedMemories"]) == (1, 5), doc
    assert _promisor_packs(pat) == before  # no lazy fetch
    assert hn(pat, "sync", "--json").json()["importedMemories"] == 0
    assert _promisor_packs(pat) == before

