"""A memory ref of this clone whose chain does not verify (F100, a trial): every read, record and
sync fails closed on it, and its one line says what to do, which depends on whose ref it is.

The trial's ways in: a fetch refspec that writes ``refs/hn/`` from a remote holding a forged
commit (``+refs/hn/memory/*:refs/hn/remotes/evil/memory/*``, or ``+refs/hn/*:refs/hn/*`` over the
user's own stream), and an accepted ref changed by hand. The line said only "memory source REF:
verify memory commit C: invalid memory signature", and the sync blamed the remote ("whoever
pushed it can push a valid one in its place", an equivocation) when the remote's copy was fine.
"""

from __future__ import annotations

import json

import pytest

from helpers import git, hn, read_blob, refs_snapshot, shared_remote, tree_entries, write_blob


def _forge(repo, ref: str) -> str:
    """The tip of ``ref`` with one byte of its memory changed and its signature kept (a forgery):
    the new commit's ID (the ref is left as it was)."""
    head = git(repo, "rev-parse", ref)
    entries = tree_entries(repo, head)
    payload = read_blob(repo, entries["memory.json"]).replace(b'"content":"', b'"content":"!', 1)
    tree = git(repo, "mktree", input=(f"100644 blob {write_blob(repo, payload)}\tmemory.json\n"
                                      f"100644 blob {entries['signature']}\tsignature\n").encode())
    args = ["commit-tree", tree, "-m", "forged"]
    for p in git(repo, "log", "-1", "--format=%P", head).split():
        args += ["-p", p]
    return git(repo, *args)


def _team(tmp_path):
    """Alice's published stream, and Bob's clone which imported it and records his own (published
    too). (remote, alice, bob, Alice's stream ref, Bob's stream ref)"""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "replication", "select", "--all").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "alice one").code == 0
    assert hn(alice, "sync").code == 0
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob one").code == 0
    assert hn(bob, "sync").code == 0
    mine = git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    theirs = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    return remote, alice, bob, theirs, mine


def _evil(tmp_path, remote, ref: str):
    """A copy of the team's remote whose ``ref`` holds a forged tip."""
    evil = tmp_path / "evil.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(evil))
    git(evil, "update-ref", ref, _forge(evil, ref))
    return evil


def test_a_forged_stream_fetched_past_the_quarantine_names_the_refspec_and_the_way_out(tmp_path):
    """The trial's ``eve``: a fetch refspec writes evil's forged copy of Alice's stream to an
    accepted ref, past the quarantine. Every read fails closed; the line names the refspec, and
    that deleting the ref and syncing imports the stream again; done, reads serve again."""
    remote, alice, bob, theirs, _mine = _team(tmp_path)
    evil = _evil(tmp_path, remote, theirs)
    git(bob, "remote", "add", "evil", str(evil))
    spec = "+refs/hn/memory/*:refs/hn/remotes/evil/memory/*"
    git(bob, "config", "--add", "remote.evil.fetch", spec)
    git(bob, "fetch", "-q", "evil")
    bad = theirs.replace("refs/hn/memory/", "refs/hn/remotes/evil/memory/")
    forged = git(bob, "rev-parse", bad)
    before = refs_snapshot(bob)
    for args in (["memory", "recall"], ["memory", "brief"], ["memory", "index", "rebuild"]):
        r = hn(bob, *args)
        assert r.code == 1 and r.err.count("\n") == 1, (args, r)
        assert r.err == (f"git-hn: memory source {bad}: verify memory commit {forged}: invalid memory signature; "
                         f"the fetch refspec {spec} of remote evil writes refs/hn/ past the quarantine: remove it "
                         f"(git config --fixed-value --unset remote.evil.fetch '{spec}'); this clone's copy from "
                         f"evil was changed after its import (not by evil): git update-ref -d {bad} removes it, "
                         "then git hn sync evil imports it again through the quarantine\n"), (args, r.err)
    assert refs_snapshot(bob) == before  # (nothing unverified served, nothing changed)
    git(bob, "config", "--fixed-value", "--unset", "remote.evil.fetch", spec)
    git(bob, "update-ref", "-d", bad)
    assert hn(bob, "memory", "recall", "--include-untrusted").code == 0
    r = hn(bob, "sync", "evil")  # (the quarantine keeps the forgery out, blamed on evil's copy)
    assert r.code == 1 and "structurally-invalid" in r.out and git(bob, "for-each-ref", bad) == "", r
    assert "alice one" in hn(bob, "memory", "recall", "--include-untrusted").out


def test_the_users_own_stream_overwritten_by_a_fetch_is_put_back_to_its_last_verified_tip(tmp_path):
    """The trial's ``eve2``: ``git fetch evil '+refs/hn/*:refs/hn/*'`` replaced Bob's own stream
    tip with evil's forged copy, and record failed with no way out. Deleting his own ref would
    lose his memories not published (and the next record would sign their sequence again): the
    line names the tip git-hn last verified, and putting it back loses nothing."""
    remote, alice, bob, _theirs, mine = _team(tmp_path)
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "bob unpublished").code == 0
    assert hn(bob, "memory", "recall", "--include-untrusted").code == 0  # (the state verifies it)
    tip = git(bob, "rev-parse", mine)
    evil = _evil(tmp_path, remote, mine)
    git(bob, "fetch", "-q", str(evil), "+refs/hn/*:refs/hn/*")
    assert git(bob, "rev-parse", mine) != tip
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "blocked")
    fix = f"git update-ref {mine} {tip} puts back that tip"
    assert r.code == 1 and r.err.rstrip("\n").endswith(f"; it is your own stream, changed after git-hn last "
                                                         f"verified it: {fix}"), r.err
    assert hn(bob, "memory", "recall").err.rstrip("\n").endswith(fix)
    git(bob, "update-ref", mine, tip)
    out = hn(bob, "memory", "recall", "--include-untrusted").out
    assert "bob unpublished" in out and "bob one" in out


def test_a_sync_blames_this_clones_changed_copy_not_the_remote(tmp_path):
    """The trial's ``forge``: Bob's accepted copy of Alice's stream was changed in his clone. His
    sync called the remote's valid chain an equivocation against it, and his own stream
    relationship-invalid, "whoever pushed it can push a valid one in its place". The import
    fails as a whole on this clone's ref, saying so and what to do; done, it imports again."""
    remote, alice, bob, theirs, _mine = _team(tmp_path)
    accepted = theirs.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/")
    git(bob, "update-ref", accepted, _forge(bob, accepted))
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "alice two").code == 0
    assert hn(alice, "sync").code == 0
    r = hn(bob, "sync")
    assert r.code == 1, r
    said = r.out + r.err
    for blame in ("whoever pushed", "equivocation", "relationship-invalid", "does not descend"):
        assert blame not in said, (blame, said)
    assert r.err.rstrip("\n").endswith(f"; this clone's copy from origin was changed after its import (not by "
                                       f"origin): git update-ref -d {accepted} removes it, then git hn sync origin "
                                       "imports it again through the quarantine"), r.err
    doc = json.loads(hn(bob, "sync", "--json").out)
    assert "not by origin" in doc["error"], doc
    git(bob, "update-ref", "-d", accepted)
    assert hn(bob, "sync").code == 0
    assert "alice two" in hn(bob, "memory", "recall", "--include-untrusted").out


def test_the_users_own_stream_unknown_to_the_state_is_put_back_from_a_remotes_copy(tmp_path):
    """With no verified state to name a tip (removed, as a restored backup lacks it), the line
    names the remote's accepted copy of the stream, and that the memories not published to it
    are lost; never ``update-ref -d`` of the user's own stream while a copy is known."""
    remote, alice, bob, _theirs, mine = _team(tmp_path)
    published = git(bob, "rev-parse", mine)
    assert hn(bob, "sync").code == 0  # (his own stream, as origin has it: its accepted copy)
    accepted = mine.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/")
    assert git(bob, "rev-parse", accepted) == published
    git(bob, "update-ref", mine, _forge(bob, mine))
    import shutil

    shutil.rmtree(bob / ".git" / "hn" / "memory")
    r = hn(bob, "memory", "recall")
    assert r.code == 1 and r.err.rstrip("\n").endswith(
        f"; it is your own stream: git update-ref {mine} {published} puts back origin's copy (memories not "
        "published to origin are lost)"), r.err
    git(bob, "update-ref", mine, published)
    assert "bob one" in hn(bob, "memory", "recall", "--include-untrusted").out


@pytest.mark.parametrize("dst, writes", [("refs/hn/remotes/evil/memory/*", True), ("refs/*", True),
                                         ("refs/h*", True), ("refs/hn/memory/x", True), ("*", True),
                                         ("refs/remotes/origin/*", False), ("refs/heads/*", False),
                                         ("refs/tags/*", False), ("", False)])
def test_a_refspec_that_can_write_memory_refs_is_named(dst, writes):
    """A review (S96): only a destination starting with ``refs/hn/`` was named as what wrote an
    invalid memory ref, so a mirror's ``+refs/*:refs/*`` went unnamed and the next fetch wrote the
    forged ref again. A pattern whose fixed part is a prefix of ``refs/hn/memory/`` is named too."""
    from git_hn.store.source_fault import _writes_memory

    assert _writes_memory(dst) is writes
