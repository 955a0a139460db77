"""Property tests for the protocol core (CONTRACT §1.2–§1.6, §4.2, §11(e)).

(a) Every valid envelope — all six kinds, all four operations, arbitrary Unicode within the
    limits — survives ``decode(encode(env)) == env`` and ``encode(decode(b)) == b``.
(b) Byte-level mutations of valid payloads never make ``decode`` or ``check_memory`` raise
    anything but ``HnError``; and whatever ``decode`` accepts is canonical.
(c) Arbitrary bytes never make ``strictjson.read_document`` raise anything but ``HnError``.

Runs under the fixed "ci" hypothesis profile of tests/conftest.py (200 examples, derandomized).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_hn.core import keys
from git_hn.core.chain import check_memory
from git_hn.core.envelope import (
    Anchor,
    Applicability,
    Envelope,
    Handoff,
    PathAnchor,
    Record,
    decode,
    encode,
)
from git_hn.core.grammar import default_stream
from git_hn.core.strictjson import read_document
from git_hn.errors import HnError

# Go unicode.IsSpace, written out independently of the implementation under test.
GO_SPACE = frozenset("\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                     "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
SPECIALS = ["<", ">", "&", "\u2028", "\u2029", '"', "\\", "/", "\x7f", "é", "e\u0301", "😀",
            "\u0130", "Σ", "\u202e", "\u200b", "\ufeff", "\ufffd", "\U00031350", "\U0002ebf0",
            "\x1c", "\x85", "\u00a0", "世界"]

IDENTITIES = []
for _seed in (bytes(range(32)), bytes(range(1, 33)), bytes(32)):
    _raw = keys.public_key_from_seed(_seed)
    IDENTITIES.append((_seed, keys.b64_encode(_raw), keys.actor_of(_raw)))

# ---------------------------------------------------------------------------------------------
# Strategies for valid envelopes


def hexstr(nbytes: int):
    return st.binary(min_size=nbytes, max_size=nbytes).map(bytes.hex)


oids = st.one_of(hexstr(20), hexstr(32))
digests = hexstr(32).map(lambda h: "sha256:" + h)
subjects = st.tuples(st.sampled_from(["issue:", "proposal:", "event:", "policy:", "pipeline:",
                                      "run:"]), digests).map("".join)
typed_evidence = st.one_of(oids.map(lambda o: "git:" + o), digests.map(lambda d: "event:" + d),
                           digests.map(lambda d: "memory:" + d))
tokens = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?", fullmatch=True)

any_char = st.one_of(st.characters(exclude_categories=("Cs",)), st.sampled_from(SPECIALS))
no_cc_char = st.one_of(st.characters(exclude_categories=("Cs", "Cc")),
                       st.sampled_from([c for c in SPECIALS if c not in ("\x7f", "\x1c", "\x85")]))
non_space = any_char.filter(lambda c: c[0] not in GO_SPACE)
non_space_no_cc = no_cc_char.filter(lambda c: c[0] not in GO_SPACE)


def non_blank(chars, anchor_chars, max_parts: int):
    """Text with at least one non-space rune: prefix + non-space + suffix."""
    part = st.lists(chars, max_size=max_parts).map("".join)
    return st.tuples(part, anchor_chars, part).map("".join)


contents = non_blank(any_char, non_space, 40)
actor_names = non_blank(no_cc_char, non_space_no_cc, 20).filter(
    lambda s: len(s.encode("utf-8")) <= 256)
handoff_entries = non_blank(any_char, non_space, 8)


def _lower(s: str) -> str:
    from git_hn.core.gostr import to_lower, trim_space

    return to_lower(trim_space(s))


topics = st.lists(no_cc_char, min_size=1, max_size=12).map("".join).map(_lower).filter(
    lambda t: 0 < len(t.encode("utf-8")) <= 128)
topic_lists = st.lists(topics, max_size=6, unique=True).map(
    lambda ts: tuple(sorted(ts, key=lambda t: t.encode("utf-8"))))
evidence_lists = st.lists(typed_evidence, max_size=5, unique=True).map(tuple)

segment_char = st.one_of(
    st.characters(exclude_categories=("Cs", "Cc"), exclude_characters="/\\"),
    st.sampled_from([".", "é", "-", " "]))
segments = st.lists(segment_char, min_size=1, max_size=6).map("".join).filter(
    lambda s: s not in (".", ".."))
paths = st.lists(segments, min_size=1, max_size=4).map("/".join)
blobs = st.one_of(st.just("absent"), oids)
path_lists = st.lists(st.tuples(paths, blobs), max_size=5, unique_by=lambda t: t[0]).map(
    lambda items: tuple(PathAnchor(p, b) for p, b in sorted(items, key=lambda t: t[0].encode())))


@st.composite
def timestamps(draw):
    year = draw(st.integers(0, 9999))
    month = draw(st.integers(1, 12))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    day = draw(st.integers(1, days))
    hh, mm, ss = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    frac = f"{draw(st.integers(0, 999_999_999)):09d}".rstrip("0")
    zone = draw(st.one_of(
        st.just("Z"),
        st.tuples(st.sampled_from("+-"), st.integers(0, 23), st.integers(0, 59))
        .filter(lambda z: z[1] or z[2]).map(lambda z: f"{z[0]}{z[1]:02d}:{z[2]:02d}")))
    return (f"{year:04d}-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:{ss:02d}"
            + (f".{frac}" if frac else "") + zone)


KINDS = ["observation", "decision", "assumption", "attempt", "verification", "handoff"]
OPERATIONS = ["record", "supersede", "retract", "challenge"]


@st.composite
def records(draw, kind=None):
    kind = kind or draw(st.sampled_from(KINDS))
    subject = draw(st.one_of(st.just(""), subjects))
    anchor = Anchor(draw(oids), draw(path_lists), subject)
    if subject and draw(st.booleans()):
        applicability = Applicability("subject", subject)
    else:
        applicability = Applicability(draw(st.sampled_from(["exact", "descendants"])))
    evidence = draw(evidence_lists)
    outcome, handoff = "", None
    if kind == "attempt":
        outcome = draw(tokens)
    elif kind == "verification" and not evidence:
        evidence = (draw(typed_evidence),)
    elif kind == "handoff":
        lists = [tuple(draw(st.lists(handoff_entries, max_size=3))) for _ in range(4)]
        handoff = Handoff(*lists)
    return Record(kind, draw(contents), anchor, applicability, draw(topic_lists), evidence,
                  outcome, handoff)


@st.composite
def envelopes(draw, operation=None):
    seed, public_key, actor = draw(st.sampled_from(IDENTITIES))
    stream = draw(st.one_of(st.just(default_stream(actor)), digests))
    sequence = draw(st.one_of(st.just(1), st.integers(1, 2**64 - 1)))
    previous = "" if sequence == 1 else draw(digests)
    operation = operation or draw(st.sampled_from(OPERATIONS))
    record = target = reason = ""
    evidence = None
    if operation in ("record", "supersede"):
        record = draw(records())
        if operation == "supersede":
            target = draw(digests)
    else:
        record = None
        target = draw(digests)
        reason = draw(tokens)
        if operation == "challenge":
            evidence = draw(st.one_of(st.none(), st.lists(typed_evidence, min_size=1, max_size=5,
                                                          unique=True).map(tuple)))
    return Envelope("hn-memory/0", operation, actor, draw(actor_names), public_key, stream,
                    sequence, draw(timestamps()), previous, record, target, reason, evidence)


def seed_of(env: Envelope) -> bytes:
    return next(seed for seed, _pk, actor in IDENTITIES if actor == env.actor)


# ---------------------------------------------------------------------------------------------
# (a) round trip


@given(envelopes())
def test_valid_envelopes_round_trip(env):
    payload = encode(env)
    decoded = decode(payload)
    assert decoded == env
    assert encode(decoded) == payload
    assert not payload.endswith(b"\n")
    assert not _has_null(json.loads(payload.decode("utf-8")))  # null never appears (§1.2)


def _has_null(value) -> bool:
    if value is None:
        return True
    if isinstance(value, list):
        return any(_has_null(v) for v in value)
    if isinstance(value, dict):
        return any(_has_null(v) for v in value.values())
    return False


# The general test above mixes everything; these make sure each operation and each kind is
# exercised on its own, with fewer examples each to keep the file fast.


@pytest.mark.parametrize("operation", OPERATIONS)
@settings(max_examples=25)
@given(data=st.data())
def test_every_operation_round_trips(operation, data):
    env = data.draw(envelopes(operation))
    assert env.operation == operation
    payload = encode(env)
    assert decode(payload) == env
    assert encode(decode(payload)) == payload


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=25)
@given(data=st.data())
def test_every_kind_round_trips(kind, data):
    record = data.draw(records(kind))
    assert record.kind == kind
    seed, public_key, actor = IDENTITIES[0]
    env = Envelope("hn-memory/0", "record", actor, "Alice Agent", public_key,
                   default_stream(actor), 1, "2026-08-30T12:34:56Z", record=record)
    payload = encode(env)
    assert decode(payload) == env
    assert encode(decode(payload)) == payload


# ---------------------------------------------------------------------------------------------
# (b) mutations


TOKENS = [b"null", b"1e0", b"1.0", b"-1", b"-0", b"18446744073709551616", b'"\\ud800"', b"{}",
          b"[]", b",", b":", b'"', b"\\", b'"x":1,', b"\xff", b"\xc3", b"\xed\xa0\x80", b" ",
          b"\n", b'"Kind"', b"\\u212a", b"NaN", b"Infinity", b"[" * 80, b"]" * 80, b"\\u0000",
          b'"record":null,', b'"topics":null', b'"evidence":[]', b"true", b"\x00", b"0",
          b'"publicKey":"AAAA",', b'"sequence":0,']


@st.composite
def mutations(draw):
    env = draw(envelopes())
    payload = encode(env)
    data = bytearray(payload)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "token", "delete", "truncate", "splice",
                                   "replace"]))
        n = len(data)
        at = draw(st.integers(0, max(n - 1, 0)))
        if op == "flip" and n:
            data[at] ^= draw(st.integers(1, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif op == "token":
            data[at:at] = draw(st.sampled_from(TOKENS))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 16))]
        elif op == "truncate":
            del data[at:]
        elif op == "splice" and n:
            src = draw(st.integers(0, n - 1))
            chunk = bytes(data[src:src + draw(st.integers(1, 64))])
            data[at:at] = chunk
        elif op == "replace":
            old = draw(st.sampled_from([b'"kind"', b'"sequence":', b'"topics":', b'"paths":',
                                        b'"evidence":', b'"record":', b"sha256:", b'"absent"']))
            new = draw(st.sampled_from(TOKENS + [b'"KIND"', b'"\\u006bind"', b"SHA256:"]))
            data = bytearray(bytes(data).replace(old, new, 1))
    return env, payload, bytes(data)


COMMIT = "c" * 40


@given(mutations())
def test_mutated_payloads_only_raise_hn_errors(case):
    env, payload, mutated = case
    try:
        result = decode(mutated)
    except HnError:
        pass
    else:
        assert encode(result) == mutated  # whatever decode accepts is canonical

    seed = seed_of(env)
    signature = keys.b64_encode(keys.sign(seed, payload)).encode("ascii")
    try:
        verified = check_memory(COMMIT, mutated, signature)
    except HnError as exc:
        assert exc.message.startswith(f"verify memory commit {COMMIT}: ")
    else:
        assert mutated == payload and verified.envelope == env

    # Re-signed: verification passes whenever the key survived, so parsing is exercised too.
    resigned = keys.b64_encode(keys.sign(seed, mutated)).encode("ascii")
    try:
        verified = check_memory(COMMIT, mutated, resigned)
    except HnError:
        pass
    else:
        assert verified.payload == mutated and encode(verified.envelope) == mutated


@given(envelopes())
def test_valid_signed_payload_verifies(env):
    payload = encode(env)
    signature = keys.b64_encode(keys.sign(seed_of(env), payload)).encode("ascii")
    verified = check_memory(COMMIT, payload, signature)
    assert verified.envelope == env and verified.payload == payload


# ---------------------------------------------------------------------------------------------
# (c) strict document reader


FRAGMENTS = [b"{", b"}", b"[", b"]", b'"', b'"a"', b'"A"', b":", b",", b"1", b"-", b"0", b".",
             b"e", b"E", b"+", b"1e999", b"-0", b"NaN", b"Infinity", b"-Infinity", b"true",
             b"false", b"null", b"\\", b"\\u", b"d800", b"\\ud800", b"\\udc00", b"\\u0061",
             b"\\u212a", b" ", b"\n", b"\t", b"\xef\xbb\xbf", b"\xff", b"\xc3\xa9", b"\xed\xa0\x80",
             b"9" * 30, b"9223372036854775807", b"9223372036854775808", b"-9223372036854775809",
             b"18446744073709551616", b"[" * 70, b"]" * 70, b"\x00", b"\x1f", b'"\\"',
             b'{"a":1,"a":2}', b'{"a":1,"\\u0061":2}', b'{"k":1,"K":2}']
jsonish = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map(b"".join)


def _read_only_hn_errors(data: bytes) -> None:
    for fold in (False, True):
        try:
            value = read_document(data, prefix="doc: ", max_bytes=4096, fold_keys=fold)
        except HnError as exc:
            assert exc.message.startswith("doc: ")
        else:
            # Anything the strict reader accepts is also plain JSON.
            json.loads(data.decode("utf-8"))
            assert value is not None or data.strip(b" \t\r\n") == b"null"


@given(st.binary(max_size=300))
def test_read_document_random_bytes(data):
    _read_only_hn_errors(data)


@given(jsonish)
def test_read_document_jsonish_bytes(data):
    _read_only_hn_errors(data)
    try:
        result = decode(data)
    except HnError:
        pass
    else:  # pragma: no cover - a fragment soup is never a valid envelope
        assert encode(result) == data


@given(st.text(max_size=200))
def test_read_document_random_text(text):
    _read_only_hn_errors(text.encode("utf-8", "surrogatepass"))
