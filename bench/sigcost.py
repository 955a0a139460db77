"""The baselines' signature cost: verifying Ed25519 signatures on one core, with the verifier
git-hn itself uses (``git_hn.core.keys``): libsodium through PyNaCl's compiled module where it
is installed, the cryptography library (OpenSSL) otherwise. Both are timed when both exist, so a
report can show what the choice of library is worth; the baseline is always the faster path
git-hn takes, never the slower one (a library git-hn switched to must not flatter its ratio)."""

from __future__ import annotations

import base64
import json
import subprocess
import time


def _payload_key(payload: bytes) -> bytes:
    return base64.b64decode(json.loads(payload)["publicKey"] + "=")


def cryptography_seconds(pairs) -> float:
    """Seconds to verify ``pairs`` ((memory.json bytes, signature blob)) with cryptography."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    cache = {}
    t0 = time.perf_counter()
    for payload, sig in pairs:
        raw = _payload_key(payload)
        key = cache.get(raw)
        if key is None:
            key = cache[raw] = Ed25519PublicKey.from_public_bytes(raw)
        key.verify(base64.b64decode(sig + b"=="), payload)
    return time.perf_counter() - t0


def sodium_seconds(pairs) -> float | None:
    """The same with libsodium (``crypto_sign_open``, as ``git_hn.core.keys`` calls it), or None
    when PyNaCl's compiled module is not installed."""
    try:
        from nacl._sodium import ffi, lib
    except ImportError:
        return None
    lib.sodium_init()
    t0 = time.perf_counter()
    for payload, sig in pairs:
        raw = _payload_key(payload)
        signed = base64.b64decode(sig + b"==") + payload
        if lib.crypto_sign_open(ffi.NULL, ffi.NULL, signed, len(signed), raw) != 0:
            raise RuntimeError("a benchmark signature does not verify")
    return time.perf_counter() - t0


def baseline(pairs) -> dict:
    """``{"seconds": the baseline's verification, "verifier": its library, "cryptographySeconds"}``."""
    crypto = cryptography_seconds(pairs)
    sodium = sodium_seconds(pairs)
    if sodium is None:
        return {"seconds": crypto, "verifier": "cryptography", "cryptographySeconds": crypto}
    return {"seconds": sodium, "verifier": "libsodium", "cryptographySeconds": crypto}


def signed_pairs(repo: str, commits: list[str], env: dict) -> list[tuple[bytes, bytes]]:
    """(memory.json, signature) of each of ``commits`` in ``repo``, read with one ``cat-file``."""
    names = "".join(f"{c}:memory.json\n{c}:signature\n" for c in commits).encode()
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=repo, env=env, input=names,
                         capture_output=True, check=True).stdout
    items, pos = [], 0
    while pos < len(out):
        nl = out.index(b"\n", pos)
        size = int(out[pos:nl].split()[2])
        items.append(out[nl + 1:nl + 1 + size])
        pos = nl + 1 + size + 1
    return [(items[i], items[i + 1]) for i in range(0, len(items), 2)]
