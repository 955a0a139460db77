"""Ed25519 edge cases (CONTRACT §11(e), §13.13): Wycheproof, ed25519-speccheck, weak keys.

git-hn verifies with the ``cryptography`` library (OpenSSL): the cofactorless equation
``[S]B = R + [k]A`` with ``S < L`` and canonical ``R``, like Go's ``crypto/ed25519``. On top of that
``keys.is_weak_public_key`` refuses every key whose encoding is a small-order point (the eight
canonical encodings and their non-canonical aliases), any encoding with ``y >= p``, and any
encoding that is not a curve point: under a small-order key the library accepts signatures that
anybody can make without a private key (a universal forgery is shown below).

The small-order and alias encodings are checked against an independent affine implementation of
edwards25519 in this file, not against git-hn's own point code. Vectors come only from
tests/vectors/ (wycheproof/ed25519_test.json, ed25519-speccheck/cases.json).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from git_hn.core import chain, envelope, keys
from git_hn.errors import ValidationError

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
WYCHEPROOF = json.loads((VECTORS / "wycheproof" / "ed25519_test.json").read_text(encoding="utf-8"))
SPECCHECK = json.loads((VECTORS / "ed25519-speccheck" / "cases.json").read_text(encoding="utf-8"))

# ---------------------------------------------------------------------------------------------
# An independent, slow, affine edwards25519 (RFC 8032 §5.1) used only to check the vectors.

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, -1, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
IDENTITY = (0, 1)


def ed_add(p1, p2):
    (x1, y1), (x2, y2) = p1, p2
    t = D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + x2 * y1) * pow(1 + t, -1, P) % P,
            (y1 * y2 + x1 * x2) * pow(1 - t, -1, P) % P)


def ed_mul(n, pt):
    acc = IDENTITY
    while n:
        if n & 1:
            acc = ed_add(acc, pt)
        pt = ed_add(pt, pt)
        n >>= 1
    return acc


def x_squared(y):
    return (y * y - 1) * pow(D * y * y + 1, -1, P) % P


def is_square(v):
    return v == 0 or pow(v, (P - 1) // 2, P) == 1


def ed_decode_lenient(raw: bytes):
    """Decode like a lenient verifier: y taken mod p, x = 0 with any sign. None if off-curve."""
    n = int.from_bytes(raw, "little")
    sign, y = n >> 255, (n & ((1 << 255) - 1)) % P
    x2 = x_squared(y)
    if not is_square(x2):
        return None
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    assert (x * x - x2) % P == 0
    if x != 0 and (x & 1) != sign:
        x = P - x
    return (x, y)


def ed_encode(pt) -> bytes:
    x, y = pt
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def is_canonical(raw: bytes) -> bool:
    pt = ed_decode_lenient(raw)
    return pt is not None and ed_encode(pt) == raw


def ed_order_class(raw: bytes) -> str:
    pt = ed_decode_lenient(raw)
    if pt is None:
        return "off-curve"
    if ed_mul(8, pt) == IDENTITY:
        return "small"
    if ed_mul(L, pt) == IDENTITY:
        return "prime"
    return "mixed"


# The eight canonical encodings of the points of order dividing 8 (the torsion subgroup).
SMALL_ORDER = [
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity, order 1
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # (0, -1), order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  # (+sqrt(-1), 0), order 4
    "0000000000000000000000000000000000000000000000000000000000000080",  # (-sqrt(-1), 0), order 4
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  # order 8
]


def small_order_aliases() -> set[bytes]:
    """Non-canonical encodings of the small-order points: y + p (when < 2^255), x = 0 with sign."""
    out = set()
    for hex_ in SMALL_ORDER:
        raw = bytes.fromhex(hex_)
        n = int.from_bytes(raw, "little")
        sign, y = n >> 255, n & ((1 << 255) - 1)
        x, _ = ed_decode_lenient(raw)
        ys = [y] + ([y + P] if y + P < 2**255 else [])
        signs = [sign] + ([1] if x == 0 else [])
        for yy in ys:
            for s in signs:
                enc = (yy | (s << 255)).to_bytes(32, "little")
                if enc != raw:
                    out.add(enc)
    return out


# ---------------------------------------------------------------------------------------------
# Self-checks of the independent arithmetic


def test_independent_arithmetic_matches_cryptography():
    base = ed_decode_lenient((4 * pow(5, -1, P) % P).to_bytes(32, "little"))
    assert ed_mul(L, base) == IDENTITY
    seed = bytes(range(32))
    scalar_bytes = bytearray(hashlib.sha512(seed).digest()[:32])
    scalar_bytes[0] &= 248
    scalar_bytes[31] &= 127
    scalar_bytes[31] |= 64
    pub = ed_encode(ed_mul(int.from_bytes(scalar_bytes, "little"), base))
    assert pub == keys.public_key_from_seed(seed)


def test_the_curve_constants_written_out_are_the_derived_ones():
    """``keys`` writes d and sqrt(-1) as literals (their modular powers cost every signing
    command's import ~2.4 M instructions); they are the RFC 8032 values derived here. A guard: it
    passes with the derivation too, and fails only on a mistyped digit."""
    assert keys._P == P
    assert keys._D == D == (-121665 * pow(121666, P - 2, P)) % P
    assert keys._SQRT_M1 == SQRT_M1 and SQRT_M1 * SQRT_M1 % P == P - 1


def test_small_order_list_is_the_whole_torsion_subgroup():
    points = [ed_decode_lenient(bytes.fromhex(h)) for h in SMALL_ORDER]
    assert len(set(points)) == 8
    for h, pt in zip(SMALL_ORDER, points):
        assert is_canonical(bytes.fromhex(h)), h
        assert ed_mul(8, pt) == IDENTITY, h
    # Closed under addition: a group of order 8.
    for a in points:
        for b in points:
            assert ed_add(a, b) in points
    # Exactly four points of order 8, two of order 4, one of order 2, the identity.
    orders = sorted(min(k for k in (1, 2, 4, 8) if ed_mul(k, pt) == IDENTITY) for pt in points)
    assert orders == [1, 2, 4, 4, 8, 8, 8, 8]


def test_alias_list():
    aliases = small_order_aliases()
    # identity and (0,-1) with the sign bit; y = 0 and y = 1 plus p, each with and without sign.
    assert len(aliases) == 6
    for raw in aliases:
        assert not is_canonical(raw)
        assert ed_order_class(raw) == "small"


# ---------------------------------------------------------------------------------------------
# is_weak_public_key


@pytest.mark.parametrize("hex_", SMALL_ORDER)
def test_small_order_encodings_are_weak(hex_):
    raw = bytes.fromhex(hex_)
    assert keys.is_weak_public_key(raw)
    with pytest.raises(ValidationError) as exc:
        envelope.check_public_key(keys.b64_encode(raw))
    assert exc.value.message == "memory publicKey is weak"


@pytest.mark.parametrize("raw", sorted(small_order_aliases()), ids=lambda r: r.hex()[:8] + ".." + r.hex()[-2:])
def test_non_canonical_small_order_aliases_are_weak(raw):
    assert keys.is_weak_public_key(raw)


def _on_curve_y_at_least_p():
    """y = p + k for small k such that k is the y of a point that is not small order."""
    for k in range(2, 19):
        if is_square(x_squared(k)):
            raw = (P + k).to_bytes(32, "little")
            if ed_order_class(raw) != "small":
                return raw, k.to_bytes(32, "little")
    raise AssertionError("no on-curve y in [2, 18]")  # pragma: no cover


def test_unreduced_y_is_weak_even_for_a_large_order_point():
    noncanon, canon = _on_curve_y_at_least_p()
    assert ed_order_class(noncanon) in ("mixed", "prime")
    assert not is_canonical(noncanon) and is_canonical(canon)
    assert keys.is_weak_public_key(noncanon)
    assert not keys.is_weak_public_key(canon)  # the same point, canonically encoded
    # All bits set: y = 2^255 - 1 >= p, sign set.
    assert keys.is_weak_public_key(b"\xff" * 32)
    assert keys.is_weak_public_key(b"\xff" * 31 + b"\x7f")


def test_off_curve_encoding_is_weak():
    y = next(y for y in range(2, 1000) if not is_square(x_squared(y)))
    raw = y.to_bytes(32, "little")
    assert ed_decode_lenient(raw) is None
    assert keys.is_weak_public_key(raw)
    assert keys.is_weak_public_key(raw[:31] + bytes([raw[31] | 0x80]))


def test_wrong_length_is_weak():
    good = keys.public_key_from_seed(bytes(range(32)))
    for raw in (b"", good[:31], good + b"\x00"):
        assert keys.is_weak_public_key(raw)


def test_mixed_order_keys_are_not_weak():
    """Only small-order points are refused: a key with a torsion component is admitted (the
    owner of its prime-order part can sign; nobody else can)."""
    mixed = {c["pub_key"] for c in SPECCHECK if ed_order_class(bytes.fromhex(c["pub_key"])) == "mixed"}
    assert mixed
    for hex_ in mixed:
        assert not keys.is_weak_public_key(bytes.fromhex(hex_))


def test_random_keys_are_not_weak():
    for _ in range(64):
        sk = Ed25519PrivateKey.generate()
        raw = sk.public_key().public_bytes_raw()
        assert not keys.is_weak_public_key(raw)
        assert ed_order_class(raw) == "prime"
        msg = os.urandom(40)
        keys.verify(raw, sk.sign(msg), msg)
    for _ in range(64):
        seed = os.urandom(32)
        assert not keys.is_weak_public_key(keys.public_key_from_seed(seed))


def test_weak_key_order_in_public_key_admission():
    """§1.5 step 4: invalid, then not canonical, then weak, then actor mismatch."""
    weak = bytes.fromhex(SMALL_ORDER[0])
    text = keys.b64_encode(weak)
    actor_of_weak = keys.actor_of(weak)
    cases = [
        (text + "=", "memory publicKey is invalid"),
        (text[:-1] + "B", "memory publicKey is not canonical"),  # non-zero trailing bits
        (text, "memory publicKey is weak"),
    ]
    for value, message in cases:
        with pytest.raises(ValidationError) as exc:
            envelope.check_public_key(value, "0" * 64)
        assert exc.value.message == message, value
    with pytest.raises(ValidationError) as exc:
        envelope.check_public_key(text, actor_of_weak)
    assert exc.value.message == "memory publicKey is weak"  # even when the actor matches
    good = keys.public_key_from_seed(bytes(range(32)))
    with pytest.raises(ValidationError) as exc:
        envelope.check_public_key(keys.b64_encode(good), "0" * 64)
    assert exc.value.message == "memory actor does not match publicKey"


def test_stream_scan_refuses_weak_key():
    weak = keys.b64_encode(bytes.fromhex(SMALL_ORDER[4]))
    payload = b'{"protocol":"hn-memory/0","publicKey":"' + weak.encode() + b'"}'
    with pytest.raises(ValidationError) as exc:
        chain.scan_public_key(payload)
    assert exc.value.message == "memory publicKey is weak"


def test_universal_forgery_under_identity_key_is_refused():
    """Why weak keys are refused: with A = R = identity and S = 0, [S]B = R + [k]A holds for
    every message. The cryptography library accepts it; git-hn does not."""
    ident = bytes.fromhex(SMALL_ORDER[0])
    forged = ident + bytes(32)
    for msg in (b"hello", b"any message at all", b""):
        Ed25519PublicKey.from_public_bytes(ident).verify(forged, msg)  # library: accepted
        with pytest.raises(ValidationError) as exc:
            keys.verify(ident, forged, msg)
        assert exc.value.message == "invalid memory signature"


# ---------------------------------------------------------------------------------------------
# Wycheproof

WYCHE_CASES = [
    (g["publicKey"]["pk"], t)
    for g in WYCHEPROOF["testGroups"]
    for t in g["tests"]
]


def test_wycheproof_file_shape():
    assert WYCHEPROOF["algorithm"] == "EDDSA"
    assert WYCHEPROOF["numberOfTests"] == len(WYCHE_CASES) == 151
    results = [t["result"] for _, t in WYCHE_CASES]
    assert results.count("valid") == 88 and results.count("invalid") == 63
    assert set(results) == {"valid", "invalid"}  # no "acceptable" cases in this set
    assert len({t["tcId"] for _, t in WYCHE_CASES}) == 151


def test_no_wycheproof_key_is_weak():
    """No Wycheproof key is a weak key, so there is no exception to document: every "valid"
    case must verify and every "invalid" one must fail."""
    for g in WYCHEPROOF["testGroups"]:
        raw = bytes.fromhex(g["publicKey"]["pk"])
        assert len(raw) == 32
        assert not keys.is_weak_public_key(raw), g["publicKey"]["pk"]


@pytest.mark.parametrize("pk,case", WYCHE_CASES, ids=[f"tc{t['tcId']}" for _, t in WYCHE_CASES])
def test_wycheproof(pk, case):
    public_key = bytes.fromhex(pk)
    sig = bytes.fromhex(case["sig"])
    msg = bytes.fromhex(case["msg"])
    if case["result"] == "valid":
        keys.verify(public_key, sig, msg)
    else:
        with pytest.raises(ValidationError) as exc:
            keys.verify(public_key, sig, msg)
        assert exc.value.message == "invalid memory signature"
        assert type(exc.value) is ValidationError


# ---------------------------------------------------------------------------------------------
# ed25519-speccheck ("Taming the many EdDSAs", 10-case set)

# case -> (git-hn accepts?, reason). Cofactorless = [S]B = R + [k]A; cofactored = the same times 8.
SPECCHECK_EXPECTED = {
    0: (False, "small-order A (and small-order R, S = 0) -> A refused as weak"),
    1: (False, "small-order A, mixed-order R -> A refused as weak"),
    2: (True, "mixed-order A, small-order R; both equations hold -> accepted"),
    3: (True, "mixed-order A and R; both equations hold -> accepted"),
    4: (False, "mixed-order A and R; only the cofactored equation holds -> cofactorless rejects"),
    5: (False, "mixed-order A, order-L R; only the cofactored equation holds -> cofactorless rejects"),
    6: (False, "S >= L (S < 2^253, passes a high-bits check) -> S < L required, rejected"),
    7: (False, "S >= 2^253 -> S < L required, rejected"),
    8: (False, "non-canonical R (y >= p); holds only if R is reduced before hashing -> rejected"),
    9: (False, "non-canonical R (y >= p); holds with R hashed as sent -> R must be canonical, rejected"),
}

# What the independent arithmetic says about each case: (order of A, order of R, S < L, R canonical).
SPECCHECK_SHAPE = {
    0: ("small", "small", True, True),
    1: ("small", "mixed", True, True),
    2: ("mixed", "small", True, True),
    3: ("mixed", "mixed", True, True),
    4: ("mixed", "mixed", True, True),
    5: ("mixed", "prime", True, True),
    6: ("prime", "prime", False, True),
    7: ("prime", "prime", False, True),
    8: ("mixed", "small", True, False),
    9: ("mixed", "small", True, False),
}


def test_speccheck_has_ten_cases():
    assert len(SPECCHECK) == 10 == len(SPECCHECK_EXPECTED) == len(SPECCHECK_SHAPE)


@pytest.mark.parametrize("i", range(10))
def test_speccheck_case_shape(i):
    """The reasons above describe the case: checked with the independent arithmetic."""
    case = SPECCHECK[i]
    sig = bytes.fromhex(case["signature"])
    a_class = ed_order_class(bytes.fromhex(case["pub_key"]))
    r_class = ed_order_class(sig[:32])
    s = int.from_bytes(sig[32:], "little")
    assert (a_class, r_class, s < L, is_canonical(sig[:32])) == SPECCHECK_SHAPE[i]
    assert keys.is_weak_public_key(bytes.fromhex(case["pub_key"])) == (a_class == "small")
    if i == 6:
        assert s < 2**253
    if i == 7:
        assert s >= 2**253


@pytest.mark.parametrize("i", range(10))
def test_speccheck_pinned_outcome(i):
    case = SPECCHECK[i]
    public_key = bytes.fromhex(case["pub_key"])
    sig = bytes.fromhex(case["signature"])
    msg = bytes.fromhex(case["message"])
    accept, reason = SPECCHECK_EXPECTED[i]
    if accept:
        keys.verify(public_key, sig, msg)
    else:
        with pytest.raises(ValidationError) as exc:
            keys.verify(public_key, sig, msg)
        assert exc.value.message == "invalid memory signature", reason


def test_speccheck_accepted_set():
    accepted = []
    for i, case in enumerate(SPECCHECK):
        try:
            keys.verify(bytes.fromhex(case["pub_key"]), bytes.fromhex(case["signature"]),
                        bytes.fromhex(case["message"]))
        except ValidationError:
            continue
        accepted.append(i)
    assert accepted == [2, 3]


def test_speccheck_weak_key_cases_are_accepted_by_the_library_alone():
    """Cases 0 and 1 are what the weak-key refusal adds: the library itself accepts them."""
    for i in (0, 1):
        case = SPECCHECK[i]
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(case["pub_key"])).verify(
            bytes.fromhex(case["signature"]), bytes.fromhex(case["message"]))
    for i in (4, 5, 6, 7, 8, 9):
        case = SPECCHECK[i]
        with pytest.raises(InvalidSignature):
            Ed25519PublicKey.from_public_bytes(bytes.fromhex(case["pub_key"])).verify(
                bytes.fromhex(case["signature"]), bytes.fromhex(case["message"]))


def test_the_rust_constructors_and_the_public_api_agree():
    """``core.keys`` signs and verifies through cryptography's Rust module (a faster import); the
    public API it falls back to must compute the same keys, signatures and verdicts."""
    seeds = [bytes([i]) * 32 for i in (1, 7, 200)] + [hashlib.sha256(b"seed").digest()]
    fast_priv, fast_pub = keys._ed25519()
    slow_priv, slow_pub = keys._public_api()
    for seed in seeds:
        message = b"hn-memory/0 " + seed
        pub = keys.public_key_from_seed(seed)
        assert pub == Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()
        assert fast_priv(seed).public_key().public_bytes_raw() == slow_priv(seed).public_key().public_bytes_raw()
        sig = keys.sign(seed, message)
        assert sig == slow_priv(seed).sign(message) == fast_priv(seed).sign(message)
        keys.verify(pub, sig, message)
        slow_pub(pub).verify(sig, message)
        bad = bytes([sig[0] ^ 1]) + sig[1:]
        with pytest.raises(ValidationError, match="invalid memory signature"):
            keys.verify(pub, bad, message)
        with pytest.raises(InvalidSignature):
            fast_pub(pub).verify(bad, message)


def test_the_quick_weak_check_is_the_full_one_for_every_curve_point():
    """``keys.is_weak_before_decoding`` (what signature checks use) differs from the full check
    only on encodings that are not curve points, under which no signature verifies: weak =
    quick-weak or off-curve, for the small-order encodings, their aliases, every vector key and
    random bytes."""
    import random

    rng = random.Random(7)
    samples = [bytes.fromhex(h) for h in SMALL_ORDER] + sorted(small_order_aliases())
    samples += [bytes.fromhex(g["publicKey"]["pk"]) for g in WYCHEPROOF["testGroups"]]
    samples += [bytes.fromhex(c["pub_key"]) for c in SPECCHECK]
    samples += [rng.randbytes(32) for _ in range(400)]
    samples += [(P + k).to_bytes(32, "little") for k in range(3)]
    for raw in samples:
        keys._WEAK_MEMO.pop(raw, None)
        quick = keys.is_weak_before_decoding(raw)  # before the full check fills the memo
        off_curve = ed_decode_lenient(raw) is None
        assert keys.is_weak_public_key(raw) == (quick or off_curve), raw.hex()
        if not off_curve and ed_order_class(raw) == "small":
            assert quick, raw.hex()


def test_an_off_curve_key_admitted_quickly_is_refused_as_weak_after_its_signature_fails():
    """The scan admits an off-curve key on the quick check; its signature cannot verify, and the
    error is the weak-key one the full check would have given first."""
    off = next(bytes([i]) + bytes(31) for i in range(2, 256) if ed_decode_lenient(bytes([i]) + bytes(31)) is None)
    keys._WEAK_MEMO.pop(off, None)
    assert not keys.is_weak_before_decoding(off)
    payload = b'{"publicKey":"' + keys.b64_encode(off).encode() + b'"}'
    got = chain.scan_public_key(payload)
    assert got == off
    with pytest.raises(ValidationError, match="invalid memory signature"):
        keys.verify(off, bytes(64), payload)
    keys._WEAK_MEMO.pop(off, None)
    err = chain.signature_failure("c0ffee", off)
    assert err.message == "verify memory commit c0ffee: memory publicKey is weak"
    good = keys.public_key_from_seed(bytes([9]) * 32)
    assert chain.signature_failure("c0ffee", good).message == "verify memory commit c0ffee: invalid memory signature"


def test_a_verified_signature_remembers_its_key_as_not_weak():
    seed = hashlib.sha256(b"remember").digest()
    pub = keys.public_key_from_seed(seed)
    keys._WEAK_MEMO.pop(pub, None)
    keys.verify(pub, keys.sign(seed, b"m"), b"m")
    assert keys._WEAK_MEMO[pub] is False and not keys.is_weak_public_key(pub)


# ---------------------------------------------------------------------------------------------
# libsodium (PyNaCl) as a shortcut to accept: every verdict stays the cryptography library's


def _library_accepts(public_key: bytes, sig: bytes, msg: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(sig, msg)
        return True
    except (InvalidSignature, ValueError):
        return False


def _all_vector_cases():
    cases = [(bytes.fromhex(pk), bytes.fromhex(t["sig"]), bytes.fromhex(t["msg"])) for pk, t in WYCHE_CASES]
    cases += [(bytes.fromhex(c["pub_key"]), bytes.fromhex(c["signature"]), bytes.fromhex(c["message"]))
              for c in SPECCHECK]
    ident = bytes.fromhex(SMALL_ORDER[0])
    cases += [(ident, ident + bytes(32), b"any message at all")]  # the universal forgery
    return cases


def _verdict(public_key: bytes, sig: bytes, msg: bytes) -> bool:
    try:
        keys.verify(public_key, sig, msg)
        return True
    except ValidationError:
        return False


def test_libsodium_is_used_where_pynacl_is_installed():
    """PyNaCl is a declared dependency: a release whose compiled module moved would silently
    leave every signature to the slower library, so this fails instead."""
    assert keys._sodium(), "libsodium through nacl._sodium is not available"
    assert keys.sodium_version().startswith("pynacl/")


def test_what_libsodium_accepts_the_cryptography_library_accepts():
    """The shortcut's premise, on every vector (Wycheproof, speccheck, the forgery) and on
    random good and tampered signatures."""
    cases = _all_vector_cases()
    for _ in range(32):
        sk = Ed25519PrivateKey.generate()
        msg = os.urandom(64)
        sig = sk.sign(msg)
        pk = sk.public_key().public_bytes_raw()
        cases += [(pk, sig, msg), (pk, sig, msg + b"x"), (pk, sig[:32] + bytes(32), msg)]
    sodium_yes = 0
    for pk, sig, msg in cases:
        if keys._sodium_accepts(pk, sig, msg):
            sodium_yes += 1
            assert _library_accepts(pk, sig, msg), (pk.hex(), sig.hex())
    assert sodium_yes >= 88 + 32  # the Wycheproof valid cases and the random good signatures


def test_verdicts_are_the_same_with_and_without_libsodium(monkeypatch):
    cases = _all_vector_cases()
    with_sodium = [_verdict(*c) for c in cases]
    monkeypatch.setattr(keys, "_SODIUM", False)
    monkeypatch.setattr(keys, "_WEAK_MEMO", {})
    without = [_verdict(*c) for c in cases]
    assert with_sodium == without
    assert with_sodium.count(True) == 88 + 2  # Wycheproof's valid cases, speccheck 2 and 3


def test_a_signature_libsodium_refuses_is_decided_by_the_cryptography_library():
    """Speccheck case 2 (a small-order R): libsodium refuses it, the cryptography library and
    Go's verifier accept it, and so does git-hn (the fallback, not a stricter verdict)."""
    case = SPECCHECK[2]
    pk, sig, msg = (bytes.fromhex(case[k]) for k in ("pub_key", "signature", "message"))
    assert not keys._sodium_accepts(pk, sig, msg)
    assert _library_accepts(pk, sig, msg)
    keys.verify(pk, sig, msg)


RFC8032_TEST1 = ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                 "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
                 "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3970"
                 "1cf9b46bd25bf5f0595bbe24655141438e7a100b")


def _signatures(seeds_messages):
    return [(keys.public_key_from_seed(seed), keys.sign(seed, msg)) for seed, msg in seeds_messages]


def test_libsodium_signs_exactly_as_the_cryptography_library(monkeypatch):
    """Ed25519 signing is deterministic: the same seed and message give the same bytes whichever
    library signs (RFC 8032 test 1, and random seeds and messages of several sizes)."""
    seed, public, sig = (bytes.fromhex(h) for h in RFC8032_TEST1)
    assert keys._sodium_pair(seed, b"") == (public, sig)
    cases = [(seed, b"")] + [(os.urandom(32), os.urandom(n)) for n in (0, 1, 64, 800, 10_000) for _ in range(6)]
    with_sodium = _signatures(cases)
    assert with_sodium[0] == (public, sig)
    for (s, msg), (pk, signature) in zip(cases, with_sodium):
        library = Ed25519PrivateKey.from_private_bytes(s)
        assert pk == library.public_key().public_bytes_raw()
        assert signature == library.sign(msg)
    monkeypatch.setattr(keys, "_SODIUM", False)
    assert keys._sodium_pair(seed, b"") is None
    assert _signatures(cases) == with_sodium
