"""Partial clones (``git clone --filter=blob:none``; F45, a trial): a sync imports into one with
real repositories and a real file:// server that serves filters and objects by ID, as a hosting
service does. Git fetches any object a partial clone lacks from its promisor remote when asked
about it (a *lazy fetch*): nothing git-hn asks may start one, and what a memory needs that the
clone lacks (an anchored file) comes with the sync's own fetch, through the quarantine."""

from __future__ import annotations

import json
import os
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


def _on_app_py(tmp_path: Path, bare_remote):
    """Pat's partial clone, then Alice's commit changing app.py (pushed) and her memory on that
    file there (published): a blob Pat's clone does not have. The server has bitmaps: told that
    the clone has a commit, it counts that commit's files as had (a fetch of app.py that offered
    the clone's commits got nothing). (team server, alice, pat, memory, commit, blob)"""
    server, alice = _team(tmp_path, bare_remote)
    pat = _partial(tmp_path, server)
    (alice / "app.py").write_text("v2\n")
    git(alice, "commit", "-qam", "two")
    git(alice, "push", "-q")
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "app.py", "--content", "about app.py v2")
    assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    git(server, "repack", "-adbq")  # (bitmaps, as a hosting service has: see the fetch's negotiation)
    return server, alice, pat, r.json()["memoryId"], git(alice, "rev-parse", "HEAD"), git(alice, "rev-parse",
                                                                                              "HEAD:app.py")


def _has(repo: Path, oid: str) -> bool:
    """Whether ``oid`` is in the repository's store (listed: asking Git would fetch it)."""
    listed = git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    return oid in listed.split()


def test_a_memory_on_a_file_imports_into_a_partial_clone(tmp_path, bare_remote):
    """A trial: a teammate's memory made with ``--path app.py`` never imported into a blob:none
    clone. The quarantine has no promisor remote, so app.py's blob was unavailable, and the
    advice "fetch a branch that contains <blob>" could not bring it. The sync fetches the file
    itself, with the memory, and copies it into the main store with the memory objects."""
    server, alice, pat, memory, commit, blob = _on_app_py(tmp_path, bare_remote)
    git(pat, "fetch", "-q", "origin")  # (the commit: a branch fetch brings no file)
    assert not _has(pat, blob)
    doc = json.loads(hn(pat, "sync", "--json").out)
    assert (doc["promoted"], doc["importedMemories"]) == (1, 1), doc
    assert _has(pat, blob)
    shown = hn(pat, "memory", "show", "--json", memory)
    assert shown.code == 0 and commit in shown.out and blob in shown.out, shown
    git(pat, "fsck", "--no-progress")


def test_a_partial_clone_is_told_to_fetch_the_file_from_its_promisor_remote(tmp_path, bare_remote):
    """When the remote synced with cannot send the file (it holds memories, not the code), the
    recovery names the file at its commit and a command that fetches it from the remote the
    clone is partial from (Git's own lazy fetch: ``git fetch origin <blob>`` gets nothing from a
    server with bitmaps), never "fetch a branch that contains" a blob, which cannot work."""
    server, alice, pat, memory, commit, blob = _on_app_py(tmp_path, bare_remote)
    mem = bare_remote("memories.git")
    git(alice, "push", "-q", mem.as_uri(), "refs/hn/*:refs/hn/*")
    git(pat, "remote", "add", "mem", mem.as_uri())
    git(pat, "fetch", "-q", "origin")
    assert hn(pat, "replication", "select", "mem", "--all").code == 0
    r = hn(pat, "sync", "mem", "--json")
    out = json.loads(r.out)["outcomes"][0]
    assert (out["status"], out["dependencyKind"], out["missingId"]) == ("dependency-missing", "anchor-path", blob)
    fix = f"git cat-file -e {blob} (it fetches the file app.py of commit {commit[:12]}), then git hn sync mem"
    assert out["recovery"] == fix, out
    assert out["diagnostic"].endswith(f"; recovery: {fix}; fetching the anchored files from mem failed: mem did not "
                                      "send them"), out
    said = hn(pat, "sync", "mem")
    assert "fetch a branch" not in said.out + said.err and fix in said.err, said
    git(pat, "cat-file", "-e", blob)  # what the recovery says
    doc = hn(pat, "sync", "mem", "--json").json()
    assert (doc["promoted"], doc["importedMemories"]) == (1, 1)
    assert hn(pat, "memory", "show", memory).code == 0


def test_only_the_files_of_promoted_memories_reach_the_main_store(tmp_path, bare_remote):
    """CONTRACT §9.10, an independent review: Alice's stream m1 (on app.py at C1), m2 (anchored
    on a commit she never pushed), m3 (on other.py at C1). Pat's blob:none clone promotes m1
    alone, yet other.py's blob, which only m3 names, was fetched and copied into the main store
    and counted in the receipt's accepted objects. Only the files of promoted memories are; and
    only those are fetched (other.py is larger than the selection's byte budget: fetched with
    app.py, it failed the fetch, and m1 with it)."""
    server, alice = _team(tmp_path, bare_remote)
    pat = _partial(tmp_path, server)
    assert hn(pat, "replication", "select", "--all", "--max-total-bytes", "100000").code == 0
    (alice / "app.py").write_text("v2\n")
    (alice / "other.py").write_bytes(os.urandom(2 << 20))  # (incompressible)
    git(alice, "add", "other.py")
    git(alice, "commit", "-qam", "C1")
    git(alice, "push", "-q")
    c1 = git(alice, "rev-parse", "HEAD")
    app, other = git(alice, "rev-parse", "HEAD:app.py"), git(alice, "rev-parse", "HEAD:other.py")
    git(alice, "commit", "-q", "--allow-empty", "-m", "never pushed")
    secret = git(alice, "rev-parse", "HEAD")
    for args in (["--at", c1, "--path", "app.py"], ["--at", secret], ["--at", c1, "--path", "other.py"]):
        assert hn(alice, "memory", "record", "--kind", "decision", "--applies", "descendants",
                  "--content", f"on {args}", *args).code == 0
    git(alice, "push", "-q", "--no-verify", "origin", "refs/hn/memory/*:refs/hn/memory/*")
    git(server, "repack", "-adbq")
    git(pat, "fetch", "-q", "origin")  # (C1: a branch fetch brings no file)
    assert not _has(pat, app) and not _has(pat, other)
    doc = json.loads(hn(pat, "sync", "--json").out)
    assert doc["importedMemories"] == 1, doc
    assert _has(pat, app) and not _has(pat, other)
    txdir = pat / ".git" / "hn" / "replication" / "transactions"
    accepted = {o for path in txdir.iterdir() for o in json.loads(path.read_text())["acceptedObjects"]}
    assert app in accepted and other not in accepted
    git(pat, "fsck", "--no-progress")


def test_the_files_of_a_stream_that_fails_are_not_copied_when_another_promotes(tmp_path, bare_remote):
    """The same review: a stream whose file was fetched and which then fails on another
    dependency (Bob's memory on other.py cites Alice's m2, which does not promote: its anchor
    commit was never pushed) promotes nothing, but its file was copied into the main store all
    the same, since Alice's stream promoted m1 and every file fetched went with the memory
    objects. Only what a promoted memory names is copied."""
    server, alice = _team(tmp_path, bare_remote)
    pat = _partial(tmp_path, server)
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", server.as_uri(), str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    (alice / "app.py").write_text("v2\n")
    (alice / "other.py").write_text("other v1\n")
    git(alice, "add", "other.py")
    git(alice, "commit", "-qam", "C1")
    git(alice, "push", "-q")
    c1 = git(alice, "rev-parse", "HEAD")
    app, other = git(alice, "rev-parse", "HEAD:app.py"), git(alice, "rev-parse", "HEAD:other.py")
    git(alice, "commit", "-q", "--allow-empty", "-m", "never pushed")
    secret = git(alice, "rev-parse", "HEAD")
    assert hn(alice, "memory", "record", "--kind", "decision", "--applies", "descendants", "--at", c1,
              "--path", "app.py", "--content", "on app.py").code == 0
    m2 = hn(alice, "memory", "record", "--json", "--kind", "decision", "--applies", "descendants", "--at", secret,
            "--content", "on the commit not pushed").json()["memoryId"]
    git(alice, "push", "-q", "--no-verify", "origin", "refs/hn/memory/*:refs/hn/memory/*")
    git(bob, "pull", "-q")
    git(bob, "fetch", "-q", str(alice), secret)  # (Bob imports m2: he has its commit)
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync", "--json").json()["importedMemories"] == 2
    assert hn(bob, "memory", "record", "--kind", "decision", "--applies", "descendants", "--at", c1,
              "--path", "other.py", "--evidence", f"memory:{m2}", "--content", "on other.py").code == 0
    git(bob, "push", "-q", "--no-verify", "origin", "refs/hn/memory/*:refs/hn/memory/*")
    git(server, "repack", "-adbq")
    git(pat, "fetch", "-q", "origin")
    doc = json.loads(hn(pat, "sync", "--json").out)
    assert doc["importedMemories"] == 1, doc
    reasons = sorted(o["diagnostic"].split(";")[0] for o in doc["outcomes"] if o["status"] == "dependency-missing")
    assert len(reasons) == 2 and [r for r in reasons if "depends on failed memory" in r], reasons
    assert _has(pat, app) and not _has(pat, other)
    git(pat, "fsck", "--no-progress")


def test_the_files_count_against_the_selections_one_byte_budget(tmp_path, bare_remote):
    """The same review: the files' fetch had a byte budget of its own (max-total-bytes for each
    stream) on top of the one the memories' fetch had. A stream's memory objects and its files
    share its one budget: a file that takes it over is not fetched into the main store, and the
    stream stops before its memory, saying so."""
    server, alice, pat, memory, commit, blob = _on_app_py(tmp_path, bare_remote)
    git(pat, "fetch", "-q", "origin")
    assert hn(pat, "sync", "--json").json()["importedMemories"] == 1 and _has(pat, blob)
    (alice / "app.py").write_bytes(os.urandom(300_000).hex().encode())  # (600,000 bytes)
    git(alice, "commit", "-qam", "big")
    git(alice, "push", "-q")
    big = git(alice, "rev-parse", "HEAD:app.py")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--path", "app.py", "--content", "about the big app.py").code == 0
    git(alice, "push", "-q", "--no-verify", "origin", "refs/hn/memory/*:refs/hn/memory/*")
    git(pat, "fetch", "-q", "origin")
    assert hn(pat, "replication", "select", "--all", "--max-total-bytes", "500000").code == 0
    doc = json.loads(hn(pat, "sync", "--json").out)
    (out,) = doc["outcomes"]
    assert doc["importedMemories"] == 0 and out["dependencyKind"] == "anchor-path" and out["missingId"] == big, doc
    assert out["diagnostic"].endswith("fetching the anchored files from origin failed: the files exceed the byte "
                                      "budget (500000 bytes a selection, max-total-bytes)"), out
    assert _has(pat, blob) and not _has(pat, big)
    git(pat, "fsck", "--no-progress")



def _treeless(tmp_path: Path, bare_remote):
    """Alice's memory on app.py at a commit behind main's tip (published), and a treeless clone
    of the server, which has that commit but not its tree. (server, alice, clone, memory, commit)"""
    server, alice = _team(tmp_path, bare_remote)
    (alice / "app.py").write_text("v2\n")
    git(alice, "commit", "-qam", "two")
    old = git(alice, "rev-parse", "HEAD")
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "app.py", "--content", "about app.py v2")
    assert r.code == 0, r.err
    (alice / "app.py").write_text("v3\n")
    git(alice, "commit", "-qam", "three")
    git(alice, "push", "-q")
    assert hn(alice, "sync").code == 0
    git(server, "repack", "-adbq")
    tl = tmp_path / "tl"
    git(tmp_path, "clone", "-q", "--filter=tree:0", server.as_uri(), str(tl))
    assert not _has(tl, git(alice, "rev-parse", f"{old}^{{tree}}"))
    assert hn(tl, "replication", "select", "--all").code == 0
    return server, alice, tl, r.json()["memoryId"], old


def test_a_treeless_clone_imports_a_memory_on_a_file(tmp_path, bare_remote):
    """A trial (F100): a ``--filter=tree:0`` clone has the commits of its branches but only the
    trees of what it checked out. Alice's memory on app.py at an older commit (its tree never
    fetched) failed her whole stream as ``relationship-invalid``, "whoever pushed it can push a
    valid one in its place", though the memory is valid and imports into every other clone: the
    quarantine, with no promisor remote, lacked the anchor commit's tree and a missing tree read
    as an invalid anchor. The sync fetches the trees it needs, as it fetches anchored files, and
    copies them into the main store with the memory: it reads offline, and nothing was fetched
    lazily (the clone's config names no new promisor)."""
    server, alice, tl, memory, old = _treeless(tmp_path, bare_remote)
    config = (tl / ".git" / "config").read_bytes()
    r = hn(tl, "sync")
    assert r.code == 0 and "relationship-invalid" not in r.out + r.err, r
    assert (tl / ".git" / "config").read_bytes() == config
    assert _has(tl, git(alice, "rev-parse", f"{old}^{{tree}}")) and _has(tl, git(alice, "rev-parse", f"{old}:app.py"))
    server.rename(server.with_name("offline.git"))
    shown = hn(tl, "memory", "show", memory)
    assert shown.code == 0 and "Applicability: applicable" in shown.out, shown
    git(tl, "fsck", "--no-progress")


def test_a_treeless_clone_is_told_how_to_fetch_a_folder_the_remote_cannot_send(tmp_path, bare_remote):
    """When the remote synced with holds memories, not the code, the folder cannot come from it:
    the stream is missing a dependency, which Git's own lazy fetch from the clone's promisor
    remote supplies, never relationship-invalid (its author blamed, its memory valid)."""
    server, alice, tl, memory, old = _treeless(tmp_path, bare_remote)
    mem = bare_remote("memories.git")
    git(alice, "push", "-q", mem.as_uri(), "refs/hn/*:refs/hn/*")
    git(tl, "remote", "add", "mem", mem.as_uri())
    assert hn(tl, "replication", "select", "mem", "--all").code == 0
    r = hn(tl, "sync", "mem", "--json")
    (out,) = json.loads(r.out)["outcomes"]
    tree = git(alice, "rev-parse", f"{old}^{{tree}}")
    assert (out["status"], out["dependencyKind"], out["missingId"]) == ("dependency-missing", "anchor-path", tree), out
    fix = f"git cat-file -e {tree} (it fetches the folders of app.py at commit {old[:12]}), then git hn sync mem"
    assert out["recovery"] == fix, out
    said = hn(tl, "sync", "mem")
    assert said.code == 1 and fix in said.err and "whoever pushed" not in said.err, said
    git(tl, "cat-file", "-e", tree)  # what the recovery says; then the file's, the same way
    blob = git(alice, "rev-parse", f"{old}:app.py")
    (out,) = json.loads(hn(tl, "sync", "mem", "--json").out)["outcomes"]
    assert (out["status"], out["missingId"]) == ("dependency-missing", blob), out
    git(tl, "cat-file", "-e", blob)
    doc = hn(tl, "sync", "mem", "--json").json()
    assert (doc["promoted"], doc["importedMemories"]) == (1, 1), doc
    assert hn(tl, "memory", "show", memory).code == 0
