"""``core.hashing``: the interpreter's built-in SHA-256/SHA-1 for small amounts, ``hashlib`` once
enough has been hashed that loading OpenSSL pays for itself; the digests never differ."""

from __future__ import annotations

import hashlib

from git_hn.core import hashing


def test_small_amounts_use_the_built_ins_and_agree_with_hashlib(monkeypatch):
    monkeypatch.setattr(hashing, "_hashlib", None)
    monkeypatch.setattr(hashing, "_hashed", 0)
    payloads = [b"", b"a", b"x" * 1000, bytes(range(256)) * 200]
    for data in payloads * 10:
        assert hashing.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        assert hashing.sha1(data).hexdigest() == hashlib.sha1(data).hexdigest()
    assert hashing._hashlib is None  # ~1 MB hashed: still the built-ins
    assert hashing._hashed == 2 * 10 * sum(len(p) for p in payloads)


def test_hashlib_takes_over_after_enough_bytes_or_one_large_input(monkeypatch):
    monkeypatch.setattr(hashing, "_hashlib", None)
    monkeypatch.setattr(hashing, "_hashed", 0)
    chunk = b"y" * 60_000
    n = hashing._SWITCH_BYTES // len(chunk)
    for _ in range(n):
        hashing.sha256(chunk)
    assert hashing._hashlib is None
    assert hashing.sha256_hex(chunk) == hashlib.sha256(chunk).hexdigest()  # past the budget
    assert hashing._hashlib is hashlib
    monkeypatch.setattr(hashing, "_hashlib", None)
    monkeypatch.setattr(hashing, "_hashed", 0)
    big = b"z" * (hashing._LARGE + 1)
    assert hashing.sha1(big).hexdigest() == hashlib.sha1(big).hexdigest()
    assert hashing._hashlib is hashlib


def test_a_large_object_s_id_is_hashed_by_hashlib(monkeypatch):
    """``object_id`` chose its implementation for an empty input, so a large object (the fetch
    hook's quiet record hashes the whole advertisement and accepted-ref listing: 2 MB at 5,000
    streams) was always hashed by the slow built-in; a small one still is by the built-in."""
    monkeypatch.setattr(hashing, "_hashlib", None)
    monkeypatch.setattr(hashing, "_hashed", 0)
    small = b"s" * 100
    for fmt, name in (("sha1", "sha1"), ("sha256", "sha256")):
        want = hashlib.new(name, b"blob %d\x00" % len(small) + small).digest()
        assert hashing.object_id("blob", small, fmt) == want
    assert hashing._hashlib is None
    big = b"b" * (hashing._LARGE + 1)
    for fmt, name in (("sha1", "sha1"), ("sha256", "sha256")):
        want = hashlib.new(name, b"blob %d\x00" % len(big) + big).digest()
        assert hashing.object_id("blob", big, fmt) == want
    assert hashing._hashlib is hashlib
