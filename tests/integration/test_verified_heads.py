"""The verified-head shortcut (CONTRACT §4.4) gives exactly what full verification gives."""

from __future__ import annotations

import pytest

from git_hn.core import envelope as envmod
from git_hn.core.envelope import Anchor, Applicability, Record
from git_hn.core.grammar import default_stream, local_ref
from git_hn.errors import ValidationError
from git_hn.store import append as appendmod
from git_hn.store import headcache, streams
from git_hn.store.identity import load_active
from git_hn.store.repo import open_repo
from helpers import git, hn


def _record_n(repo, n):
    for i in range(n):
        r = hn(repo, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
               "--content", f"memory {i}")
        assert r.code == 0, r.err


def test_shortcut_and_full_verification_sign_identical_envelopes(inited):
    _record_n(inited, 5)
    repo = open_repo(str(inited))
    ident = load_active(repo)
    stream = default_stream(ident.actor)
    cached = appendmod.position(repo, ident.actor, stream, use_cache=True)
    full = appendmod.full_position(repo, ident.actor, stream,
                                   streams.stream_sources(repo, ident.actor, stream))
    assert (cached.parent, cached.sequence, cached.memory_id, cached.local_head) == \
        (full.parent, full.sequence, full.memory_id, full.local_head)
    head = git(inited, "rev-parse", "HEAD")
    draft = appendmod.Draft("record", stream, Record("decision", "same", Anchor(head),
                                                     Applicability("exact"), (), ()))
    a = envmod.encode(appendmod.build_envelope(ident, draft, cached, "2026-01-01T00:00:00Z"))
    b = envmod.encode(appendmod.build_envelope(ident, draft, full, "2026-01-01T00:00:00Z"))
    assert a == b
    repo.close()


def test_cached_append_does_not_reverify_the_chain(inited, monkeypatch):
    _record_n(inited, 3)
    calls = []
    real = streams.read_chain

    def counting(repo, source):
        calls.append(source.ref)
        return real(repo, source)

    monkeypatch.setattr(streams, "read_chain", counting)
    _record_n(inited, 1)
    assert calls == []
    # without a cache the whole chain is verified again
    repo = open_repo(str(inited))
    (inited / ".git" / "hn" / "memory" / "verified-heads-v0.json").unlink()
    _record_n(inited, 1)
    assert len(calls) == 1
    repo.close()


def test_garbage_cache_never_causes_an_error(inited):
    _record_n(inited, 2)
    cache = inited / ".git" / "hn" / "memory" / "verified-heads-v0.json"
    for garbage in (b"not json", b'{"version":0,"heads":[{"ref":1}]}', b"\xff", b""):
        cache.write_bytes(garbage)
        cache.chmod(0o600)
        _record_n(inited, 1)
    cache.chmod(0o644)  # unsafe permissions: ignored, then replaced by a safe file
    _record_n(inited, 1)
    repo = open_repo(str(inited))
    assert headcache.load(repo) != {}
    repo.close()


def test_rewritten_ref_is_fully_verified_and_refused(inited):
    """A ref moved to a forged chain no longer matches the cache, so the append verifies it all."""
    _record_n(inited, 2)
    repo = open_repo(str(inited))
    ident = load_active(repo)
    ref = local_ref(ident.actor, default_stream(ident.actor))
    head = git(inited, "rev-parse", ref)
    tree = git(inited, "rev-parse", f"{head}^{{tree}}")
    forged = git(inited, "commit-tree", tree, "-m", "orphaned copy of the head")  # no parent
    git(inited, "update-ref", ref, forged)
    r = hn(inited, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
           "--content", "after the rewrite")
    assert r.code == 1
    assert r.err == (f"git-hn: read memory stream head {forged}: memory source {ref} commit {forged} "
                     "has sequence 2, want 1\n")
    assert git(inited, "rev-parse", ref) == forged
    repo.close()


def test_shortcut_refuses_a_tampered_head_object_cache(inited):
    """A cache entry whose memory ID disagrees with the head falls back to full verification."""
    _record_n(inited, 2)
    repo = open_repo(str(inited))
    ident = load_active(repo)
    ref = local_ref(ident.actor, default_stream(ident.actor))
    heads = headcache.load(repo)
    h, _mid, seq = heads[ref]
    headcache.store(repo, {ref: (h, "sha256:" + "0" * 64, seq + 5)})
    pos = appendmod.position(repo, ident.actor, default_stream(ident.actor))
    assert pos.sequence == 2 and pos.memory_id != "sha256:" + "0" * 64
    repo.close()


def test_verify_errors_are_validation_errors(inited):
    repo = open_repo(str(inited))
    with pytest.raises(ValidationError):
        streams.read_chain(repo, streams.Source("refs/hn/memory/x/y", "", "x", "y"))
    repo.close()
