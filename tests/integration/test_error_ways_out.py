"""Error lines that said what was wrong but not what to do (an audit): each now names the file
and the way out, after the contract's own words. Real repositories and real triggers; where
root ignores the permission that triggers one (mode 000), the wording is checked on a real
``OSError`` of a real failing operation instead."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers import git, hn, make_repo, record_id
from independent import Writer, b64

# two Ed25519 seeds whose actor IDs share their first 8 hex digits (e191cfeb: the audit searched
# 82,758 keypairs for them); test keys only
TWINS = ("b316781e6075971c3de1bf53604eb7f0fd320a3f7a4e67d88d40df2ea32b3a53",
         "729b6b2281be74eee5bd7fe97f5bf9340c8f838364f1d19d68699b6d354e6539")


def _identity_file(path: Path, seed_hex: str, name: str) -> str:
    """An identity file as ``identity export`` writes one, made by hand: its actor ID."""
    w = Writer(bytes.fromhex(seed_hex), name)
    doc = {"version": 1, "actor": w.actor, "name": name, "publicKey": b64(w.pub),
           "privateKey": b64(bytes.fromhex(seed_hex) + w.pub), "lifecycle": "available"}
    path.write_text(json.dumps(doc))
    path.chmod(0o600)
    return w.actor


def test_a_garbage_active_file_is_named_with_the_way_out(inited):
    active = inited / ".git" / "hn" / "active"
    actor = active.read_text()[:-1]
    active.write_text("garbage\n")
    r = hn(inited, "identity", "show")
    assert (r.code, r.err) == (1, f"git-hn: active identity contains an invalid actor fingerprint; {active} only names "
                                  f"the identity in use: remove it (rm {active}), then git hn identity use ACTOR picks "
                                  "one of this keyring's (git hn identity list lists them)\n")
    active.unlink()  # the way out, as given
    assert actor in hn(inited, "identity", "list").out
    assert hn(inited, "identity", "use", actor[:12]).code == 0
    assert active.read_text() == actor + "\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000 (the wording is checked below)")
def test_an_unreadable_key_says_how_to_make_it_readable(inited):
    key = next((inited / ".git" / "hn" / "identities").iterdir())
    key.chmod(0o000)
    r = hn(inited, "identity", "show")
    assert (r.code, r.err) == (1, f"git-hn: private identity file {key} is unreadable: Permission denied: "
                                  f"chmod 600 {key}\n")
    key.chmod(0o600)
    assert hn(inited, "identity", "show").code == 0


def test_the_unreadable_wording_on_a_real_permission_error(tmp_path):
    """(Root reads a mode 000 file: the error comes from a real refused operation, the execution
    of a file no one may execute, which root is refused too.)"""
    from git_hn.store import private

    key = tmp_path / "hn" / "identities" / ("a" * 64 + ".json")
    key.parent.mkdir(parents=True)
    key.write_text("{}")
    key.chmod(0o600)
    with pytest.raises(PermissionError) as refused:
        subprocess.run([str(key)])
    assert refused.value.errno == errno.EACCES
    assert private.unreadable(str(key), refused.value, os.lstat(key)) == (
        f"private identity file {key} is unreadable: {os.strerror(errno.EACCES)}: chmod 600 {key}")


def test_a_missing_index_says_how_to_build_it(tmp_path):
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    fresh = make_repo(tmp_path / "fresh")
    for repo in (bare, fresh):
        r = hn(repo, "memory", "index", "verify")
        assert (r.code, r.err) == (1, "git-hn: memory index missing: no memory state is stored here (none was built "
                                      "yet, or it was removed); git hn memory index rebuild builds it\n"), repo
        assert hn(repo, "memory", "index", "rebuild").code == 0  # the way out, as given
        assert hn(repo, "memory", "index", "verify").code == 0


@contextmanager
def _unwritable(directory: Path):
    """``directory`` mode 0500, and for root (whom modes do not stop) immutable too (``chattr
    +i``; skipped where that is not allowed): the system's words for a refused write."""
    directory.chmod(0o500)
    immutable = os.geteuid() == 0
    try:
        if immutable and subprocess.run(["chattr", "+i", str(directory)], capture_output=True).returncode != 0:
            pytest.skip("root cannot make a directory unwritable here (chattr +i)")
        yield os.strerror(errno.EPERM if immutable else errno.EACCES)
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(directory)], capture_output=True)
        directory.chmod(0o700)


def test_a_lock_file_that_cannot_be_made_says_to_make_git_hn_writable(inited):
    record_id(inited, content="first")  # (the locks directory exists, this stream's lock too)
    hn_dir = inited / ".git" / "hn"
    for lock in (hn_dir / "locks").iterdir():
        if lock.name.startswith("memory-"):
            lock.unlink()  # (none is held: this case is the lock of a stream's first write here)
    refs = git(inited, "for-each-ref")
    with _unwritable(hn_dir / "locks") as denied:
        r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
               "--content", "second")
    assert r.code == 1 and r.err.startswith(f"git-hn: private identity file {hn_dir}/locks/memory-"), r.err
    assert r.err.endswith(f".lock cannot be opened: {denied} (a lock file, not a key); this command writes in "
                          f"{hn_dir}: make it and its files writable (chmod -R u+w {hn_dir})\n"), r.err
    assert git(inited, "for-each-ref") == refs
    record_id(inited, content="second")  # once writable


def test_an_oversized_working_tree_policy_is_named_with_the_way_out(inited):
    assert hn(inited, "policy", "init").code == 0
    policy = inited / ".hn" / "policy.json"
    doc = json.loads(policy.read_text())
    policy.write_text(json.dumps(doc) + " " * (1 << 20))
    before = policy.read_bytes()
    r = hn(inited, "policy", "trust", "--kind", "observation")
    assert (r.code, r.err) == (1, "git-hn: .hn/policy.json in the working tree is invalid: policy exceeds 1048576 "
                                  "bytes; fix it by hand, or remove it and run git hn policy init\n")
    assert policy.read_bytes() == before


def test_identity_remove_of_an_ambiguous_prefix_says_to_give_more_of_it(inited, tmp_path):
    twins = [_identity_file(tmp_path / f"twin{i}.id", seed, f"Twin {i}") for i, seed in enumerate(TWINS)]
    assert twins[0][:8] == twins[1][:8] == "e191cfeb"
    for i in range(2):
        assert hn(inited, "identity", "import", str(tmp_path / f"twin{i}.id")).code == 0
    keyring = sorted(os.listdir(inited / ".git" / "hn" / "identities"))
    r = hn(inited, "identity", "remove", "e191cfeb")
    assert r.code == 1 and r.err.startswith("git-hn: 2 identities of this keyring have actor IDs starting with "
                                            "e191cfeb (it holds "), r.err
    assert r.err.endswith("); use a longer prefix or the full actor ID; nothing was removed\n"), r.err
    assert sorted(os.listdir(inited / ".git" / "hn" / "identities")) == keyring


def test_every_chmod_way_out_is_spelled_by_one_function():
    """A reread found "make … writable (chmod …)" written out by the lock, the state, the hooks
    and setup's refusals: ``errors.chmod_way_out`` spells them all (the wordings above, byte for
    byte), the path one shell word."""
    from git_hn.errors import chmod_way_out

    assert chmod_way_out("it and its files", "/r/.git/hn", recursive=True) \
        == "make it and its files writable (chmod -R u+w /r/.git/hn)"
    assert chmod_way_out("its directory", "/a b/.claude") == "make its directory writable (chmod u+w '/a b/.claude')"
