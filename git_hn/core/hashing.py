"""SHA-256 and SHA-1 for the whole program, without loading OpenSSL for a handful of hashes.

``hashlib`` loads OpenSSL's ``libcrypto`` on import (3–6 ms, a tenth of a one-memory
``record``), while the interpreter's built-in implementations cost nothing to load but are ~3x
slower per byte. A command that hashes little (record, recall, show, a sync of a few hundred
memories: well under a megabyte) uses the built-ins; one that hashes much (a rebuild, a large
sync) switches to ``hashlib`` once ``_SWITCH_BYTES`` have been hashed, or at one large input,
where loading it has paid for itself. Both give the same digests; nothing else differs.
Pure: no I/O.
"""

from __future__ import annotations

try:  # CPython 3.12+
    from _sha2 import sha256 as _small_sha256
except ImportError:  # pragma: no cover - version dependent
    try:  # CPython 3.11
        from _sha256 import sha256 as _small_sha256
    except ImportError:
        _small_sha256 = None
try:
    from _sha1 import sha1 as _small_sha1
except ImportError:  # pragma: no cover - version dependent
    _small_sha1 = None

_SWITCH_BYTES = 2 << 20  # hashed by the built-ins, at ~3x the time: more than loading OpenSSL
_LARGE = 1 << 16
_hashed = 0
_hashlib = None


def _bulk():
    global _hashlib
    if _hashlib is None:
        import hashlib

        _hashlib = hashlib
    return _hashlib


def load_bulk() -> None:
    """Switch to ``hashlib`` now: for a caller about to hash much, with time to spare."""
    _bulk()


def _small(data) -> bool:
    global _hashed
    if _hashlib is not None:
        return False
    _hashed += len(data)
    if _hashed > _SWITCH_BYTES or len(data) > _LARGE:
        _bulk()
        return False
    return True


def sha256(data: bytes = b""):
    """A ``hashlib``-compatible SHA-256 object (``update``, ``digest``, ``hexdigest``)."""
    if _small_sha256 is not None and _small(data):
        return _small_sha256(data)
    return _bulk().sha256(data)


def sha1(data: bytes = b""):
    """A ``hashlib``-compatible SHA-1 object (Git object IDs of sha1 repositories only)."""
    if _small_sha1 is not None and _small(data):
        return _small_sha1(data)
    return _bulk().sha1(data)


def sha256_hex(data: bytes) -> str:
    return sha256(data).hexdigest()


def object_id(kind: str, data: bytes, object_format: str) -> bytes:
    """The Git object ID (raw digest) of an object of ``kind`` with content ``data``, by the
    implementation ``data``'s size calls for (it was chosen for an empty input, so always the
    built-in: the fetch hook's quiet record, 2 MB at 5,000 streams, took 8–14 ms where
    ``hashlib`` takes 1 ms and 3 to load)."""
    small = _small(data)
    if object_format == "sha256":
        h = _small_sha256() if small and _small_sha256 is not None else _bulk().sha256()
    else:
        h = _small_sha1() if small and _small_sha1 is not None else _bulk().sha1()
    h.update(b"%s %d\x00" % (kind.encode(), len(data)))
    h.update(data)
    return h.digest()
