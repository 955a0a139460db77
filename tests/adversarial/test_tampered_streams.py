"""Tampered, forged and malformed streams fail closed (CONTRACT §4.2, §4.3, §11(e)).

Each test plants the attack with plain Git plumbing, then checks that ``show`` (which collects
every stream) refuses with the contract's text and that no ref changed.
"""

from __future__ import annotations

import json

import pytest

from git_hn.core import chain
from git_hn.errors import ValidationError
from helpers import git, hn, refs_snapshot
from helpers import forged_commit as _commit, read_blob as _blob, tree_entries as _entries, write_blob as _write
from independent import b64, canonical, unb64


def _record(repo, content="a memory"):
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _ref(repo):
    return git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory")


def _replace_head(repo, payload: bytes | None = None, signature: bytes | None = None,
                  extra: str = "", mode: str = "100644", parents=None) -> str:
    ref = _ref(repo)
    head = git(repo, "rev-parse", ref)
    entries = _entries(repo, head)
    m = _write(repo, payload) if payload is not None else entries["memory.json"]
    s = _write(repo, signature) if signature is not None else entries["signature"]
    if parents is None:
        parents = git(repo, "log", "-1", "--format=%P", head).split()
    lines = f"{mode} blob {m}\tmemory.json\n100644 blob {s}\tsignature\n{extra}"
    commit = _commit(repo, lines, parents)
    git(repo, "update-ref", ref, commit)
    return commit


def _own_way_out(repo, head: str) -> str:
    """What the line says to do about the user's own stream whose tip was changed: put back the
    tip git-hn last verified (F100: the line gave no way out)."""
    return (f"; it is your own stream, changed after git-hn last verified it: git update-ref {_ref(repo)} {head} "
            "puts back that tip")


def _show_fails(repo, mid, expected_suffix, head):
    before = refs_snapshot(repo)
    r = hn(repo, "memory", "show", mid)
    assert r.code == 1
    assert r.err.startswith("git-hn: memory source refs/hn/memory/"), r.err
    assert r.err.rstrip("\n").endswith(expected_suffix + _own_way_out(repo, head)), r.err
    assert r.err.count("\n") == 1
    assert refs_snapshot(repo) == before


def test_flipped_payload_byte_fails_signature(inited):
    first = _record(inited, "first")
    _record(inited, "second")
    head = git(inited, "rev-parse", _ref(inited))
    payload = _blob(inited, _entries(inited, head)["memory.json"])
    tampered = payload.replace(b"second", b"secand")
    commit = _replace_head(inited, payload=tampered)
    _show_fails(inited, first, f"verify memory commit {commit}: invalid memory signature", head)


def test_every_signed_byte_is_covered(inited):
    """Changing any single byte of a stored payload makes verification fail (unit-speed sweep)."""
    _record(inited, "sweep")
    head = git(inited, "rev-parse", _ref(inited))
    entries = _entries(inited, head)
    payload = _blob(inited, entries["memory.json"])
    signature = _blob(inited, entries["signature"])
    assert chain.check_memory(head, payload, signature).memory_id.startswith("sha256:")
    for i in range(len(payload)):
        for delta in (1, 0x20, 0x80):
            mutated = payload[:i] + bytes([(payload[i] + delta) % 256]) + payload[i + 1:]
            with pytest.raises(ValidationError):
                chain.check_memory(head, mutated, signature)


def test_signature_with_newline_or_padding(inited):
    mid = _record(inited)
    head = git(inited, "rev-parse", _ref(inited))
    sig = _blob(inited, _entries(inited, head)["signature"])
    commit = _replace_head(inited, signature=sig + b"\n")
    _show_fails(inited, mid, f"memory commit {commit} has invalid signature encoding", head)
    git(inited, "update-ref", _ref(inited), head)
    commit = _replace_head(inited, signature=b"***")
    _show_fails(inited, mid, f"memory commit {commit} has invalid signature encoding", head)


def test_extra_tree_entry_and_wrong_mode(inited):
    mid = _record(inited)
    head = git(inited, "rev-parse", _ref(inited))
    extra_blob = _write(inited, b"payload smuggling")
    commit = _replace_head(inited, extra=f"100644 blob {extra_blob}\tREADME\n")
    _show_fails(inited, mid, f"memory commit {commit} tree contains unexpected entry README", head)
    git(inited, "update-ref", _ref(inited), head)
    commit = _replace_head(inited, mode="100755")
    _show_fails(inited, mid, f"memory commit {commit} has invalid tree entry", head)


def test_second_parent_is_refused(inited):
    first = _record(inited, "first")
    _record(inited, "second")
    head = git(inited, "rev-parse", _ref(inited))
    parent = git(inited, "log", "-1", "--format=%P", head)
    other = git(inited, "rev-parse", "HEAD")
    commit = _replace_head(inited, parents=[parent, other])
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "show", first)
    assert r.err == f"git-hn: memory source {_ref(inited)} commit {commit} has 2 parents; exactly one is allowed\n"
    assert refs_snapshot(inited) == before


def _identity_seed(repo) -> tuple[bytes, dict]:
    hn_dir = repo / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    doc = json.loads((hn_dir / "identities" / f"{actor}.json").read_text())
    return unb64(doc["privateKey"])[:32], doc


def _resign(repo, env: dict) -> tuple[bytes, bytes]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed, _doc = _identity_seed(repo)
    payload = canonical(env)
    return payload, b64(Ed25519PrivateKey.from_private_bytes(seed).sign(payload)).encode()


def test_validly_signed_but_wrong_sequence(inited):
    first = _record(inited, "first")
    _record(inited, "second")
    head = git(inited, "rev-parse", _ref(inited))
    env = json.loads(_blob(inited, _entries(inited, head)["memory.json"]))
    env["sequence"] = 3
    payload, sig = _resign(inited, env)
    commit = _replace_head(inited, payload=payload, signature=sig)
    r = hn(inited, "memory", "show", first)
    assert r.err == (f"git-hn: memory source {_ref(inited)} commit {commit} has sequence 3, want 2"
                     f"{_own_way_out(inited, head)}\n")


def test_validly_signed_but_wrong_previous(inited):
    first = _record(inited, "first")
    _record(inited, "second")
    head = git(inited, "rev-parse", _ref(inited))
    env = json.loads(_blob(inited, _entries(inited, head)["memory.json"]))
    env["previous"] = "sha256:" + "0" * 64
    payload, sig = _resign(inited, env)
    _replace_head(inited, payload=payload, signature=sig)
    r = hn(inited, "memory", "show", first)
    assert r.err == (f"git-hn: memory source {_ref(inited)} sequence 2 previous memory does not "
                     f"match its predecessor{_own_way_out(inited, head)}\n")


def test_stream_under_foreign_owner_ref(inited):
    mid = _record(inited)
    ref = _ref(inited)
    head = git(inited, "rev-parse", ref)
    other = "f" * 64
    forged_ref = f"refs/hn/memory/{other}/{ref.rsplit('/', 1)[1]}"
    git(inited, "update-ref", forged_ref, head)
    r = hn(inited, "memory", "show", mid)
    actor = ref.split("/")[3]
    assert r.err == (f"git-hn: memory source {forged_ref} commit {head} has owner {actor}, want {other}; no "
                     f"identity of this clone signs it, so it was written here past the quarantine: git update-ref "
                     f"-d {forged_ref} removes it, then git hn sync REMOTE imports the stream through the quarantine\n")


@pytest.mark.parametrize("bad", ["refs/hn/memory/" + "A" * 64 + "/" + "b" * 64,
                                 "refs/hn/memory/" + "a" * 64 + "/" + "b" * 63,
                                 "refs/hn/memory/" + "a" * 64 + "/" + "b" * 64 + "/x",
                                 "refs/hn/memory/" + "a" * 64])
def test_malformed_memory_ref_fails_collection(inited, bad):
    mid = _record(inited)
    git(inited, "update-ref", bad, git(inited, "rev-parse", "HEAD"))
    r = hn(inited, "memory", "show", mid)
    assert r.err == f"git-hn: malformed memory ref {bad}\n"


def test_malformed_accepted_ref_and_ignored_collaboration_ref(inited):
    mid = _record(inited)
    head = git(inited, "rev-parse", "HEAD")
    git(inited, "update-ref", "refs/hn/remotes/origin/actors/" + "a" * 64, head)
    assert hn(inited, "memory", "show", mid).code == 0
    bad = "refs/hn/remotes/-bad/memory/" + "a" * 64 + "/" + "b" * 64
    git(inited, "update-ref", bad, head)
    assert hn(inited, "memory", "show", mid).err == f"git-hn: malformed accepted memory ref {bad}\n"


def test_replace_refs_never_change_what_is_read(inited):
    mid = _record(inited, "original")
    head = git(inited, "rev-parse", _ref(inited))
    forged = _commit(inited, f"100644 blob {_write(inited, b'x')}\tmemory.json\n")
    git(inited, "replace", head, forged)
    r = hn(inited, "memory", "show", mid, "--json")
    assert r.code == 0, r.err
    assert r.json()["projection"]["data"]["content"] == "original"
