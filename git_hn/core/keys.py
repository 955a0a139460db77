"""Ed25519 keys and signatures for hn-memory/0 (CONTRACT §2.1, §1.5 step 4, §11(e)).

Pure functions: no I/O; the signing seed is passed in. Verification raises, it never returns a
bool. Two libraries compute: libsodium (PyNaCl) signs and may accept a signature first, and the
cryptography library decides every signature libsodium refuses (``_sodium``), so that every
verdict is the cryptography library's.

Key admission defends against *universal forgery under weak keys*: the ``cryptography`` library
(OpenSSL, cofactorless like Go's verifier) accepts signatures under small-order public keys that
anybody can produce without a private key, and it accepts non-canonical encodings (``y >= p``,
negative zero) of the same points. Such keys prove nothing, so every admitted key is decoded
strictly here, and a key whose point has order dividing 8, or whose encoding is not canonical, is
refused as weak before any signature is checked.
"""

from __future__ import annotations

import binascii

from ..errors import ValidationError
from . import hashing

_B64_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

# Curve25519 in twisted Edwards form (RFC 8032 §5.1): d = -121665/121666 mod p and sqrt(-1) =
# 2^((p-1)/4) mod p, written out (a test derives them again): their two modular powers at import
# cost every signing command ~2.4 M instructions (issue 11, fixed cost)
_P = 2**255 - 19
_D = 0x52036CEE2B6FFE738CC740797779E89800700A4D4141D8AB75EB4DCA135978A3
_SQRT_M1 = 0x2B8324804FC1DF0B2B4D00993DFBD7A72F431806AD2FE478C4EE1B274A0EA0B0


def b64_decode_go(text: str) -> bytes | None:
    """Go ``base64.RawStdEncoding.DecodeString``: None when Go reports an error.

    Go drops ``\\r`` and ``\\n`` first; any other character outside the alphabet (``=`` included)
    or a length of 1 mod 4 is an error; non-zero trailing bits decode (callers detect them by
    re-encoding).
    """
    raw = text.replace("\r", "").replace("\n", "")
    try:
        data = raw.encode("ascii")
    except UnicodeEncodeError:
        return None
    if data.translate(None, _B64_BYTES) or len(data) % 4 == 1:
        return None
    try:
        return binascii.a2b_base64(data + b"=" * (-len(data) % 4))  # what base64.b64decode calls
    except binascii.Error:  # pragma: no cover - alphabet and length were checked
        return None


def b64_encode(data: bytes) -> str:
    """Unpadded standard base64 (Go ``RawStdEncoding``)."""
    # what base64.b64encode calls: the base64 module's import (with struct) costs every command
    # ~1.3 M instructions for these two calls
    return binascii.b2a_base64(data, newline=False).decode("ascii").rstrip("=")


def holds_seed(data: bytes, seed: bytes) -> bool:
    """Whether ``data`` holds the private key ``seed`` in a spelling a person pastes: standard or
    URL-safe base64 (alone, or as the 64-byte key the identity file stores, whose first 40
    characters are the seed's), or hex (its first 40 digits: a Git object ID's length);
    compared without regard to case (a topic is signed lowercased). 160 bits of the secret or
    more must match, so no other text ever does."""
    head = binascii.b2a_base64(seed, newline=False).decode("ascii")[:40].lower()
    spellings = (head, head.replace("+", "-").replace("/", "_"), seed.hex()[:40])
    text = data.decode("ascii", "replace").lower()
    return any(s in text for s in spellings)


def _recover_x(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    # the inverse by extended Euclid (pow(·, -1, p)) costs a tenth of Fermat's pow(·, p-2, p);
    # d·y²+1 is never 0 mod p, since -1/d is not a square
    x2 = (y * y - 1) * pow(_D * y * y + 1, -1, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _add(p, q):
    (x1, y1, z1, t1), (x2, y2, z2, t2) = p, q
    a = (y1 - x1) * (y2 - x2) % _P
    b = (y1 + x1) * (y2 + x2) % _P
    c = t1 * 2 * _D * t2 % _P
    d = z1 * 2 * z2 % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


_WEAK_MEMO: dict[bytes, bool] = {}
_KEY_MEMO: dict = {}

# The y coordinates of the eight points of order dividing 8 (each point with either sign bit):
# the identity, (0, -1), (±sqrt(-1), 0) and the four points of order 8.
_SMALL_Y = frozenset(int.from_bytes(bytes.fromhex(h), "little") for h in (
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"))


def is_weak_before_decoding(raw: bytes) -> bool:
    """The part of ``is_weak_public_key`` that needs no square root: a wrong length, an unreduced
    ``y`` (``y >= p``), or a point of small order (its ``y`` is one of five torsion values; the
    non-canonical "negative zero" encodings have one of them too).

    Every forgeable key is refused here. A key that passes and is still weak is not a curve
    point at all, and no signature verifies under it (OpenSSL decodes the key before anything
    else), so signature checks use this alone: a signature that verifies proves the rest
    (``verify`` remembers that), and one that fails is judged by ``is_weak_public_key`` for the
    error's wording (``chain.signature_failure``). The full check costs ~0.1 ms per new key.
    """
    got = _WEAK_MEMO.get(raw)
    if got is not None:
        return got
    if len(raw) != 32:
        return True
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    return y >= _P or y in _SMALL_Y


def is_weak_public_key(raw: bytes) -> bool:
    """True for a key that must never be admitted (CONTRACT §11(e)).

    Memoized per key: a stream carries one key in every memory, and the decision is a pure
    function of the 32 bytes.
    """
    got = _WEAK_MEMO.get(raw)
    if got is None:
        got = _is_weak(raw)
        if len(_WEAK_MEMO) > 4096:
            _WEAK_MEMO.clear()
        _WEAK_MEMO[raw] = got
    return got


def _is_weak(raw: bytes) -> bool:
    """The uncached decision of ``is_weak_public_key``.

    Weak means: not a canonical encoding (``y >= p``, or x = 0 with the sign bit set), not a point
    on the curve, or a point of small order (its multiple by the cofactor 8 is the identity).
    """
    if len(raw) != 32:
        return True
    n = int.from_bytes(raw, "little")
    sign = n >> 255
    y = n & ((1 << 255) - 1)
    x = _recover_x(y, sign)
    if x is None:
        return True
    point = (x, y, 1, x * y % _P)
    for _ in range(3):
        point = _add(point, point)
    px, py, pz, _t = point
    return px % _P == 0 and (py - pz) % _P == 0


_ED25519 = None


def _ed25519():
    """cryptography's Ed25519 constructors (``from_private_bytes``, ``from_public_bytes``).

    They are taken from the library's Rust module, which its public ``ed25519`` module wraps
    without changing what they compute; importing the public module's Python layer (enum,
    typing, serialization) costs a signing command ~4 ms more. A library without that module
    (an older or a future layout) is used through its public API instead.
    """
    global _ED25519
    if _ED25519 is None:
        try:
            from cryptography.hazmat.bindings._rust import openssl as rust_openssl

            ed = rust_openssl.ed25519
            _ED25519 = (ed.from_private_bytes, ed.from_public_bytes)
        except (ImportError, AttributeError):
            _ED25519 = _public_api()
    return _ED25519


def load() -> None:
    """Load the verifier now, for a caller that is only waiting, such as a sync while its fetch
    runs: libsodium (~2 ms of imports), else the cryptography library (~14 ms), which is then
    loaded only if a signature libsodium refused needs its verdict. What fails to load fails
    again, and is reported, when used."""
    if _sodium():
        return
    try:
        _ed25519()
    except Exception:  # noqa: BLE001 - reported by the first real use
        pass


def _public_api():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    return (Ed25519PrivateKey.from_private_bytes, Ed25519PublicKey.from_public_bytes)


_SODIUM = None  # (ffi, lib) of libsodium, False when not available (``_sodium``)


def _sodium():
    """libsodium (``ffi``, ``lib``) through PyNaCl's compiled module, or False.

    Why a second library: on the machines measured, libsodium checks an Ed25519 signature in
    about half the time OpenSSL takes (134 vs 256 us here), and its cffi call releases the GIL,
    so two threads check two signatures at once. It is only ever a shortcut to *accept*:
    libsodium verifies the same cofactorless equation over the same bytes (``[S]B = R + [k]A``,
    ``k = SHA-512(R || A || M)``, the computed R compared byte for byte with the sent one) with
    stricter preconditions (``S < L``, canonical A, neither A nor R of small order), so what it
    accepts the cryptography library accepts too. What it refuses goes to the cryptography
    library, whose verdict stands (``verify``): every verdict is the cryptography library's,
    which the vectors pin (tests/unit/test_ed25519_vectors.py checks the equality on every
    vector, both ways). The compiled module is used directly because ``nacl.bindings`` imports
    every binding PyNaCl has (~25 ms, against ~2 ms); a PyNaCl without it (or without
    libsodium) leaves the cryptography library alone."""
    global _SODIUM
    if _SODIUM is None:
        try:
            from nacl._sodium import ffi, lib

            if lib.sodium_init() == -1:
                raise OSError("libsodium did not initialise")
            _SODIUM = (ffi, lib)
        except Exception:  # noqa: BLE001 - absent or unusable: the cryptography library alone
            _SODIUM = False
    return _SODIUM


def sodium_version() -> str:
    """PyNaCl's version when libsodium is used (each PyNaCl release bundles one libsodium), else
    "" (what a test checks to know libsodium is in use; a reused signature check depends on
    the libraries' bytes instead: ``store.statedb.signatures``)."""
    if not _sodium():
        return ""
    try:
        import nacl

        return f"pynacl/{nacl.__version__}"
    except (ImportError, AttributeError):  # pragma: no cover - the module loaded above
        return "pynacl/unknown"


def public_key_from_seed(seed: bytes) -> bytes:
    pair = _sodium_pair(seed)
    if pair is not None:
        return pair[0]
    return _ed25519()[0](seed).public_key().public_bytes_raw()


def actor_of(public_key: bytes) -> str:
    """Actor fingerprint: lowercase hex SHA-256 of the raw public key (CONTRACT §1.9)."""
    return hashing.sha256(public_key).hexdigest()


def sign(seed: bytes, message: bytes) -> bytes:
    """The Ed25519 signature of ``message`` under the key of ``seed``. Ed25519 signatures are
    deterministic (RFC 8032), so libsodium's equal the cryptography library's byte for byte
    (tested); libsodium is used where it is loaded because it loads in ~2 ms against ~9."""
    pair = _sodium_pair(seed, message)
    if pair is not None:
        return pair[1]
    return _ed25519()[0](seed).sign(message)


def _sodium_pair(seed: bytes, message: bytes | None = None) -> tuple[bytes, bytes | None] | None:
    """(public key, signature of ``message`` or None) computed by libsodium, or None when it is
    not available. The expanded secret key is wiped after use."""
    fast = _sodium()
    if not fast or len(seed) != 32:
        return None
    ffi, lib = fast
    public = ffi.new("unsigned char[32]")
    secret = ffi.new("unsigned char[64]")
    try:
        if lib.crypto_sign_seed_keypair(public, secret, seed) != 0:
            return None
        signature = None
        if message is not None:
            signed = ffi.new("unsigned char[]", len(message) + 64)
            if lib.crypto_sign(signed, ffi.NULL, message, len(message), secret) != 0:
                return None
            signature = bytes(ffi.buffer(signed, 64))
        return bytes(ffi.buffer(public, 32)), signature
    finally:
        lib.sodium_memzero(secret, 64)


def _sodium_accepts(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """True when libsodium verifies the signature (lengths checked by the caller: the C code
    reads exactly 32 bytes of key). Never raises."""
    fast = _SODIUM if _SODIUM is not None else _sodium()
    if not fast or len(public_key) != 32 or len(signature) != 64:
        return False
    ffi, lib = fast
    signed = signature + message
    return lib.crypto_sign_open(ffi.NULL, ffi.NULL, signed, len(signed), public_key) == 0


def verify(public_key: bytes, signature: bytes, message: bytes) -> None:
    """Raise ``ValidationError('invalid memory signature')`` unless the signature verifies.

    The key must already have been admitted (not weak); this function refuses forgeable keys
    again (``is_weak_before_decoding``) so that no caller can verify under one by mistake. A
    signature that verifies proves the key a curve point, so the key is remembered as not weak.
    libsodium may accept first (``_sodium``); the cryptography library decides the rest.
    """
    if len(signature) != 64 or is_weak_before_decoding(public_key):
        raise ValidationError("invalid memory signature")
    if _sodium_accepts(public_key, signature, message):
        if public_key not in _WEAK_MEMO:
            if len(_WEAK_MEMO) > 4096:
                _WEAK_MEMO.clear()
            _WEAK_MEMO[public_key] = False
        return
    try:
        key = _KEY_MEMO.get(public_key)
        if key is None:
            key = _ed25519()[1](public_key)
            if len(_KEY_MEMO) > 4096:
                _KEY_MEMO.clear()
            _KEY_MEMO[public_key] = key
        key.verify(signature, message)
        if public_key not in _WEAK_MEMO:
            if len(_WEAK_MEMO) > 4096:
                _WEAK_MEMO.clear()
            _WEAK_MEMO[public_key] = False
    except ValueError:
        raise ValidationError("invalid memory signature") from None
    except Exception as exc:  # the library imports its exception module only to raise one
        from cryptography.exceptions import InvalidSignature

        if isinstance(exc, InvalidSignature):
            raise ValidationError("invalid memory signature") from None
        raise
