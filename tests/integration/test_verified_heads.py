"""Appending from the verified state (CONTRACT §4.4, issue 11) gives exactly what full
verification gives, and costs the same whatever the length of the stream."""

from __future__ import annotations

import pytest

from git_hn.core import envelope as envmod
from git_hn.core.envelope import Anchor, Applicability, Record
from git_hn.core.grammar import default_stream, local_ref
from git_hn.errors import ValidationError
from git_hn.store import append as appendmod
from git_hn.store import statedb, streams
from git_hn.store.identity import load_active
from git_hn.store.repo import open_repo
from helpers import git, hn, staged_commits


_COUNT = [0]


def _record_n(repo, n):
    """``n`` new memories (distinct contents: an identical request would be a replay)."""
    for _ in range(n):
        _COUNT[0] += 1
        r = hn(repo, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
               "--content", f"memory {_COUNT[0]}")
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


def test_append_verifies_only_the_head_not_the_chain(inited, monkeypatch):
    _record_n(inited, 3)
    staged = staged_commits(monkeypatch)
    _record_n(inited, 1)
    assert len(staged) == 1  # the head commit (§4.4), not the three below it
    # without a state the whole chain is verified again, once
    (inited / ".git" / "hn" / "memory" / statedb.NAME).unlink()
    staged.clear()
    _record_n(inited, 1)
    assert len(staged) == 4 + 1
    staged.clear()
    _record_n(inited, 1)
    assert len(staged) == 1


def test_garbage_state_never_causes_an_error(inited):
    _record_n(inited, 2)
    db = inited / ".git" / "hn" / "memory" / statedb.NAME
    for garbage in (b"not sqlite", b"SQLite format 3\x00" + b"\xff" * 200, b""):
        db.write_bytes(garbage)
        db.chmod(0o600)
        _record_n(inited, 1)
    db.chmod(0o644)  # unsafe permissions: ignored, then replaced by a safe file
    _record_n(inited, 1)
    repo = open_repo(str(inited))
    assert statedb.open_sealed(repo, readonly=True) is not None
    repo.close()
    assert hn(inited, "memory", "recall", "--include-untrusted", "--json").json()["matched"] == 2 + 3 + 1


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
                     f"has sequence 2, want 1; it is your own stream, changed after git-hn last verified it: "
                     f"git update-ref {ref} {head} puts back that tip\n")
    assert git(inited, "rev-parse", ref) == forged
    repo.close()


def test_a_tampered_state_is_not_used_for_the_position(inited):
    """A state edited behind git-hn's back (its seal no longer matches) is rebuilt, not used."""
    import sqlite3

    _record_n(inited, 2)
    repo = open_repo(str(inited))
    ident = load_active(repo)
    db = inited / ".git" / "hn" / "memory" / statedb.NAME
    conn = sqlite3.connect(db)
    conn.execute("UPDATE sources SET length = length + 5")
    conn.execute("UPDATE chain SET id = 'sha256:' || substr('0000000000000000000000000000000000000000000000000000000000000000', 1, 64)")
    conn.commit()
    conn.close()
    pos = appendmod.position(repo, ident.actor, default_stream(ident.actor))
    assert pos.sequence == 2 and pos.memory_id != "sha256:" + "0" * 64
    repo.close()


def test_verify_errors_are_validation_errors(inited):
    repo = open_repo(str(inited))
    with pytest.raises(ValidationError):
        streams.read_chain(repo, streams.Source("refs/hn/memory/x/y", "", "x", "y"))
    repo.close()
