"""CONTRACT §1.1, §1.2, §1.4, §1.5: every envelope and record rule, in order, with its exact text.

Each case starts from the §12.2 record fixture (identity seed 000102…1f) and breaks one thing.
Invalid envelopes are checked twice: directly with ``check_envelope`` and, when the shape can be
encoded, through ``decode(encode(env))`` — validation runs before the canonical comparison, so both
must report the same text. Limits are probed at limit−1, limit and limit+1 UTF-8 *bytes*, built
from multibyte characters so that a code-point count would give a different answer.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from git_hn.core import canonical, keys
from git_hn.core.envelope import (
    Anchor,
    Applicability,
    Envelope,
    Handoff,
    PathAnchor,
    Record,
    check_envelope,
    decode,
    encode,
    envelope_json,
)
from git_hn.core.grammar import default_stream
from git_hn.errors import HnError, ValidationError

VECTORS = {v["name"]: v for v in json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "hn-memory-v0.json").read_text("utf-8"))}
IDENTITY = VECTORS["identity"]
SEED = bytes.fromhex(IDENTITY["seedHex"])
RAW_PK = keys.public_key_from_seed(SEED)
PK = keys.b64_encode(RAW_PK)
ACTOR = keys.actor_of(RAW_PK)
STREAM = default_stream(ACTOR)

OTHER_PK = keys.b64_encode(keys.public_key_from_seed(bytes(range(1, 33))))


def hexd(ch: str, n: int = 64) -> str:
    return ch * n


def digest(ch: str) -> str:
    return "sha256:" + hexd(ch)


SUBJECT = "proposal:" + digest("c")

BASE_RECORD = Record(
    kind="decision",
    content="Memory content remains inert data.",
    anchor=Anchor(
        commit=hexd("a", 40),
        paths=(PathAnchor("README.md", hexd("b", 40)), PathAnchor("docs/removed.md", "absent")),
        subject=SUBJECT,
    ),
    applicability=Applicability("subject", SUBJECT),
    topics=("architecture", "memory"),
    evidence=("git:" + hexd("d", 40), "event:" + digest("e")),
)

BASE = Envelope(
    protocol="hn-memory/0",
    operation="record",
    actor=ACTOR,
    actor_name="Alice Agent",
    public_key=PK,
    stream=STREAM,
    sequence=1,
    timestamp="2026-08-30T12:34:56.123456789Z",
    record=BASE_RECORD,
)

PLAIN_RECORD = BASE_RECORD._replace(
    anchor=Anchor(commit=hexd("a", 40)), applicability=Applicability("exact"))
RETRACT = BASE._replace(operation="retract", record=None, target=digest("f"), reason="incorrect")
CHALLENGE = RETRACT._replace(operation="challenge", reason="evidence-mismatch")


def env(**kw) -> Envelope:
    return BASE._replace(**kw)


def rec(**kw) -> Envelope:
    return BASE._replace(record=BASE_RECORD._replace(**kw))


def plain(**kw) -> Envelope:
    """A record envelope with a bare anchor and ``exact`` applicability, then ``kw``."""
    return BASE._replace(record=PLAIN_RECORD._replace(**kw))


def anchor(**kw) -> Envelope:
    return BASE._replace(record=PLAIN_RECORD._replace(anchor=PLAIN_RECORD.anchor._replace(**kw)))


def handoff(**lists) -> Envelope:
    h = Handoff(**{name: () for name in ("completed", "assumptions", "blockers", "nextActions")})
    return plain(kind="handoff", handoff=h._replace(**lists))


def fill(nbytes: int, ch: str = "é") -> str:
    """A string of exactly ``nbytes`` UTF-8 bytes: as many ``ch`` as fit, padded with ``a``."""
    k, r = divmod(nbytes, len(ch.encode("utf-8")))
    s = ch * k + "a" * r
    assert len(s.encode("utf-8")) == nbytes
    return s


def message_of(fn, *args) -> str:
    with pytest.raises(ValidationError) as info:
        fn(*args)
    return info.value.message


def expect(e: Envelope, msg: str, *, via_decode: bool = True) -> None:
    assert message_of(check_envelope, e) == msg
    if via_decode:
        assert message_of(decode, encode(e)) == msg


def accept(e: Envelope) -> None:
    check_envelope(e)
    payload = encode(e)
    assert decode(payload) == e
    assert encode(decode(payload)) == payload


def base_json() -> dict:
    return copy.deepcopy(envelope_json(BASE))


def raw(obj) -> bytes:
    return canonical.compact(obj)


def decode_message(payload: bytes) -> str:
    return message_of(decode, payload)


# ---------------------------------------------------------------------------------------------
# The base itself


def test_base_is_the_golden_record_payload():
    payload = encode(BASE)
    assert payload == VECTORS["hn-record"]["payload"].encode("utf-8")
    assert PK == IDENTITY["publicKey"] and ACTOR == IDENTITY["actor"]
    assert decode(payload) == BASE
    accept(BASE)


@pytest.mark.parametrize("e", [
    BASE,
    env(operation="supersede", target=digest("f")),
    RETRACT,
    CHALLENGE,
    CHALLENGE._replace(evidence=("git:" + hexd("1", 40),)),
    plain(),
    plain(kind="observation"),
    plain(kind="assumption"),
    plain(kind="attempt", attempt_outcome="failed"),
    plain(kind="verification"),
    handoff(completed=("done",), nextActions=("next",)),
], ids=["record", "supersede", "retract", "challenge", "challenge-evidence", "plain-decision",
        "observation", "assumption", "attempt", "verification", "handoff"])
def test_valid_shapes_round_trip(e):
    accept(e)


# ---------------------------------------------------------------------------------------------
# §1.5 envelope step 1: protocol


@pytest.mark.parametrize("protocol", ["", "nh-memory/0", "hn-memory/1", "HN-MEMORY/0",
                                      " hn-memory/0", "hn-memory/0\n", "hn/0"])
def test_protocol_unsupported(protocol):
    expect(env(protocol=protocol), "memory protocol is unsupported")


def test_legacy_golden_payload_is_unsupported():
    payload = VECTORS["nh-record"]["payload"].encode("utf-8")
    assert decode_message(payload) == "memory protocol is unsupported"


# step 2: actor


@pytest.mark.parametrize("actor", ["", ACTOR.upper(), ACTOR[:63], ACTOR + "0", "g" * 64,
                                   "sha256:" + ACTOR, ACTOR[:-1] + "\u0660", " " + ACTOR[1:]])
def test_actor_invalid(actor):
    expect(env(actor=actor), "memory actor is invalid")


# step 3: actorName


@pytest.mark.parametrize("name", [
    "", " ", "   ", "\t\n", "\u3000", "\u00a0", "\u0085", "\u2028",
    "A\x00B", "A\tB", "A\nB", "A\x1cB", "\x1f", "A\x7fB", "A\x80B", "A\x9fB",
    fill(257), fill(258, "€"), "a" * 257,
])
def test_actor_name_invalid(name):
    expect(env(actor_name=name), "memory actorName is invalid")


@pytest.mark.parametrize("name", [
    "A\u200bB", "A\u202eB", "\u200b", "Ünïcödé 世界", fill(255), fill(256), fill(256, "€"),
    "a" * 256, fill(256, "😀"), " padded name ",
])
def test_actor_name_valid(name):
    accept(env(actor_name=name))


def test_actor_name_limit_counts_bytes_not_code_points():
    name = fill(257)  # 128 'é' + 'a': 129 code points, 257 bytes
    assert len(name) < 256
    expect(env(actor_name=name), "memory actorName is invalid")


def test_actor_name_lone_surrogate_is_not_valid_utf8():
    expect(env(actor_name="Alice \udcff"), "memory actorName is invalid", via_decode=False)


# step 4: publicKey


def _b64(raw: bytes) -> str:
    return keys.b64_encode(raw)


@pytest.mark.parametrize("pk", [
    "", PK + "=", PK[:-1], PK + "A", PK + "AAAA", PK[:-1] + "*", PK[:-1] + "-", PK[:-1] + "_",
    "A" * 41, PK[:-1] + "é", " " + PK[1:], PK[:20] + " " + PK[21:], _b64(bytes(31)),
    _b64(bytes(33)), PK[:-1] + "\u0660",
])
def test_public_key_invalid(pk):
    expect(env(public_key=pk), "memory publicKey is invalid")


@pytest.mark.parametrize("pk", [
    PK[:-1] + "h",                 # non-zero trailing bits decode to the same key
    PK[:-1] + "j",
    PK[:10] + "\n" + PK[10:],      # Go drops CR and LF before decoding
    PK + "\r\n",
    "\r" + PK,
])
def test_public_key_not_canonical(pk):
    assert keys.b64_decode_go(pk) == RAW_PK
    expect(env(public_key=pk), "memory publicKey is not canonical")


P = 2**255 - 19


@pytest.mark.parametrize("raw_key", [
    b"\x01" + bytes(31),                         # identity point
    bytes(32),                                   # y = 0, order 4
    (P - 1).to_bytes(32, "little"),              # y = -1, order 2
    P.to_bytes(32, "little"),                    # y = p: not reduced
    (P + 1).to_bytes(32, "little"),              # alias of the identity
    (1 | (1 << 255)).to_bytes(32, "little"),     # identity with the sign bit set
])
def test_public_key_weak_precedes_actor_mismatch(raw_key):
    assert keys.actor_of(raw_key) != ACTOR
    expect(env(public_key=_b64(raw_key)), "memory publicKey is weak")


def test_actor_does_not_match_public_key():
    expect(env(public_key=OTHER_PK), "memory actor does not match publicKey")


def test_public_key_order_invalid_before_actor_mismatch():
    expect(env(public_key=OTHER_PK + "="), "memory publicKey is invalid")


def test_public_key_order_not_canonical_before_actor_mismatch():
    expect(env(public_key=OTHER_PK[:5] + "\n" + OTHER_PK[5:]), "memory publicKey is not canonical")


def test_matching_other_identity_is_valid():
    raw_key = keys.public_key_from_seed(bytes(range(1, 33)))
    accept(env(public_key=OTHER_PK, actor=keys.actor_of(raw_key),
               stream=default_stream(keys.actor_of(raw_key))))


# step 5: stream


@pytest.mark.parametrize("stream", [
    "", STREAM.upper(), "SHA256:" + STREAM[7:], STREAM[7:], "sha256:" + STREAM,
    STREAM[:-1], STREAM + "0", "sha256:" + "g" * 64, "sha512:" + STREAM[7:], STREAM + "\n",
])
def test_stream_invalid(stream):
    expect(env(stream=stream), "memory stream is invalid")


def test_any_digest_stream_is_valid():
    accept(env(stream=digest("0")))


# step 6: sequence and previous


def test_sequence_zero():
    expect(env(sequence=0), "memory sequence must be positive")


@pytest.mark.parametrize("previous", [digest("1"), "x", " "])
def test_previous_at_sequence_one(previous):
    expect(env(previous=previous), "memory previous must be absent at sequence 1")


@pytest.mark.parametrize("previous", ["", hexd("1"), digest("1").upper(), "sha256:" + digest("1"),
                                      digest("1")[:-1]])
def test_previous_required_after_sequence_one(previous):
    expect(env(sequence=2, previous=previous), "memory previous is required after sequence 1")


@pytest.mark.parametrize("sequence", [2, 3, 2**63, 2**64 - 1])
def test_later_sequence_with_previous_is_valid(sequence):
    accept(env(sequence=sequence, previous=digest("1")))


# step 7: timestamp


@pytest.mark.parametrize("ts", ["", "2026-08-30T12:34:56.100Z", "2026-02-29T00:00:00Z",
                                "2026-08-30T12:34:56+00:00", "2026-08-30 12:34:56Z"])
def test_timestamp_invalid(ts):
    expect(env(timestamp=ts), "memory timestamp is invalid")


# step 8: operation shapes


@pytest.mark.parametrize("op", ["", "Record", "RECORD", "records", "delete", "handoff", " record"])
def test_operation_unsupported(op):
    expect(env(operation=op), "memory operation is unsupported")


def _shape(op: str) -> str:
    return f"memory {op} operation has invalid fields"


SUPERSEDE = env(operation="supersede", target=digest("f"))

SHAPE_VIOLATIONS = [
    ("record", env(record=None)),
    ("record", env(target=digest("f"))),
    ("record", env(reason="incorrect")),
    ("record", env(evidence=("git:" + hexd("1", 40),))),
    ("supersede", SUPERSEDE._replace(record=None)),
    ("supersede", SUPERSEDE._replace(target="")),
    ("supersede", SUPERSEDE._replace(target=hexd("f"))),
    ("supersede", SUPERSEDE._replace(target=digest("f").upper())),
    ("supersede", SUPERSEDE._replace(target="memory:" + digest("f"))),
    ("supersede", SUPERSEDE._replace(reason="incorrect")),
    ("supersede", SUPERSEDE._replace(evidence=("git:" + hexd("1", 40),))),
    ("retract", RETRACT._replace(record=BASE_RECORD)),
    ("retract", RETRACT._replace(target="")),
    ("retract", RETRACT._replace(target="sha256:sha256:" + hexd("f"))),
    ("retract", RETRACT._replace(reason="")),
    ("retract", RETRACT._replace(reason="BAD value")),
    ("retract", RETRACT._replace(reason="Evidence Mismatch")),
    ("retract", RETRACT._replace(reason="-x")),
    ("retract", RETRACT._replace(reason="x-")),
    ("retract", RETRACT._replace(reason="under_score")),
    ("retract", RETRACT._replace(reason="é")),
    ("retract", RETRACT._replace(reason="a" * 129)),
    ("retract", RETRACT._replace(evidence=("git:" + hexd("1", 40),))),
    ("challenge", CHALLENGE._replace(record=BASE_RECORD)),
    ("challenge", CHALLENGE._replace(target="")),
    ("challenge", CHALLENGE._replace(reason="")),
    ("challenge", CHALLENGE._replace(reason="a" * 129)),
    ("challenge", CHALLENGE._replace(reason="-x", evidence=("bad",))),  # shape before evidence
]


@pytest.mark.parametrize("op,e", SHAPE_VIOLATIONS)
def test_operation_shape_violations(op, e):
    expect(e, _shape(op))


@pytest.mark.parametrize("reason", ["incorrect", "evidence-mismatch", "invalidated", "a--b", "0",
                                    "a" * 127, "a" * 128, "x" + "-" * 126 + "y"])
def test_reason_tokens_valid(reason):
    accept(RETRACT._replace(reason=reason))
    accept(CHALLENGE._replace(reason=reason))


def _ev(i: int) -> str:
    return f"memory:sha256:{i:064x}"


@pytest.mark.parametrize("evidence", [
    ("memory:" + hexd("1"),),
    ("proposal:" + digest("1"),),
    ("git:" + hexd("A", 40),),
    (_ev(1), _ev(1)),
    tuple(_ev(i) for i in range(65)),
    (_ev(1), ""),
])
def test_challenge_evidence_invalid(evidence):
    expect(CHALLENGE._replace(evidence=evidence), "memory challenge evidence is invalid")


@pytest.mark.parametrize("evidence", [
    None,
    (_ev(1),),
    (_ev(2), _ev(1), "git:" + hexd("3", 64), "event:" + digest("4")),  # order is free and kept
    tuple(_ev(i) for i in range(63)),
    tuple(_ev(i) for i in range(64)),
])
def test_challenge_evidence_valid(evidence):
    accept(CHALLENGE._replace(evidence=evidence))


def test_challenge_without_evidence_has_no_key_and_empty_list_is_not_canonical():
    payload = encode(CHALLENGE)
    assert b'"evidence"' not in payload
    assert decode_message(payload[:-1] + b',"evidence":[]}') == "memory JSON is not canonical"


# ---------------------------------------------------------------------------------------------
# Envelope order: each fault masks every later one


ENVELOPE_ORDER = [
    (env(protocol="x", actor="X"), "memory protocol is unsupported"),
    (env(actor="X", actor_name=""), "memory actor is invalid"),
    (env(actor_name="", public_key=""), "memory actorName is invalid"),
    (env(public_key="", stream=""), "memory publicKey is invalid"),
    (env(public_key=OTHER_PK, stream=""), "memory actor does not match publicKey"),
    (env(stream="", sequence=0), "memory stream is invalid"),
    (env(sequence=0, timestamp=""), "memory sequence must be positive"),
    (env(previous=digest("1"), timestamp=""), "memory previous must be absent at sequence 1"),
    (env(sequence=2, timestamp=""), "memory previous is required after sequence 1"),
    (env(timestamp="", operation="x"), "memory timestamp is invalid"),
    (env(operation="x", record=BASE_RECORD._replace(content="")), "memory operation is unsupported"),
    (env(target=digest("f"), record=BASE_RECORD._replace(content="")),
     "memory record operation has invalid fields"),
    (CHALLENGE._replace(evidence=("bad",), record=None), "memory challenge evidence is invalid"),
]


@pytest.mark.parametrize("e,msg", ENVELOPE_ORDER)
def test_envelope_rule_order(e, msg):
    expect(e, msg)


# ---------------------------------------------------------------------------------------------
# Record step 1: content


@pytest.mark.parametrize("content", [
    "", " ", "\t\n\r\v\f", "\u3000\u00a0\u0085", "\u2028\u2029", "\u1680\u2000\u200a\u202f\u205f",
    fill(65537), fill(65537, "€"), "a" * 65537, fill(65538, "😀"),
])
def test_content_invalid(content):
    expect(rec(content=content), "memory record content is invalid")


@pytest.mark.parametrize("content", [
    "\x00", "a\x00b", "\x1c", "\x1f\x1e\x1d\x1c", "\u200b", "\ufeff", "\x7f", "line\nline\ttab",
    "<script>&amp;</script>", "\u2028x", fill(65535), fill(65536), fill(65536, "€"),
    fill(65535, "€"), "a" * 65536, fill(65536, "😀"),
])
def test_content_valid(content):
    accept(rec(content=content))


def test_content_limit_counts_bytes_not_code_points():
    content = fill(65537)  # 32768 'é' + 'a'
    assert len(content) == 32769
    expect(rec(content=content), "memory record content is invalid")


def test_content_lone_surrogate_is_not_valid_utf8():
    expect(rec(content="text \ud800"), "memory record content is invalid", via_decode=False)


# step 2: topics and evidence presence


def test_topics_required():
    expect(rec(topics=None), "memory record topics are required", via_decode=False)


def test_evidence_required():
    expect(rec(evidence=None), "memory record evidence is required", via_decode=False)


def test_topics_required_before_evidence_required():
    expect(rec(topics=None, evidence=None), "memory record topics are required", via_decode=False)


def test_content_before_topics_required():
    expect(rec(content=" ", topics=None), "memory record content is invalid", via_decode=False)


def test_evidence_required_before_anchor():
    expect(rec(evidence=None, anchor=Anchor("")), "memory record evidence is required",
           via_decode=False)


# step 3: anchor


@pytest.mark.parametrize("commit", ["", hexd("A", 40), hexd("a", 39), hexd("a", 41), hexd("a", 63),
                                    hexd("a", 65), hexd("g", 40), "sha256:" + hexd("a"),
                                    hexd("a", 40) + "\n"])
def test_anchor_commit_invalid(commit):
    expect(anchor(commit=commit), "memory anchor commit is invalid")


def test_anchor_commit_sha256_valid():
    accept(anchor(commit=hexd("a", 64)))


@pytest.mark.parametrize("subject", ["proposal:" + hexd("c"), "Proposal:" + digest("c"),
                                     "commit:" + digest("c"), digest("c"), "proposal:",
                                     "proposal:" + digest("c").upper(), "memory:" + digest("c")])
def test_anchor_subject_invalid(subject):
    expect(anchor(subject=subject), "memory anchor subject is invalid")


@pytest.mark.parametrize("prefix", ["issue:", "proposal:", "event:", "policy:", "pipeline:", "run:"])
def test_anchor_subject_valid(prefix):
    accept(anchor(subject=prefix + digest("c")))


def _paths(names, blob="absent"):
    return tuple(PathAnchor(n, blob) for n in names)


def test_anchor_paths_count_limit():
    names = [f"p{i:03d}" for i in range(129)]
    accept(anchor(paths=_paths(names[:127])))
    accept(anchor(paths=_paths(names[:128])))
    expect(anchor(paths=_paths(names)), "memory anchor paths exceed their bound")


def test_anchor_paths_count_checked_before_path_validity():
    names = [f"/bad{i:03d}" for i in range(129)]
    expect(anchor(paths=_paths(names)), "memory anchor paths exceed their bound")


@pytest.mark.parametrize("path", [
    "", "/a", "a/", "a//b", "./a", "a/./b", "a/.", ".", "..", "../x", "docs/../README.md", "a/..",
    "a\\b", "\\", "a\x00b", "a\nb", "a\x1fb", "a\x7f", "a\x85b", fill(4097), fill(4098, "€"),
])
def test_anchor_path_invalid(path):
    expect(anchor(paths=(PathAnchor(path, "absent"),)), "memory anchor path is invalid")


def test_anchor_path_lone_surrogate_is_not_valid_utf8():
    expect(anchor(paths=(PathAnchor("a\udcff", "absent"),)), "memory anchor path is invalid",
           via_decode=False)


@pytest.mark.parametrize("path", ["a", ".a", "a/.b", "...", "a/...", "..a", "a b", " a", "a\u200b",
                                  "docs/README.md", "世界/ファイル", fill(4095), fill(4096),
                                  fill(4096, "€"), "a" * 4096])
def test_anchor_path_valid(path):
    accept(anchor(paths=(PathAnchor(path, "absent"),)))


def test_anchor_path_limit_counts_bytes_not_code_points():
    path = fill(4097)
    assert len(path) < 4096
    expect(anchor(paths=(PathAnchor(path, "absent"),)), "memory anchor path is invalid")


@pytest.mark.parametrize("names", [
    ["b", "a"], ["a", "a"], ["a/b", "a-b"], ["é", "z"], ["b", "a/b"],
    ["\uff5e", "\uff5d"],
])
def test_anchor_paths_sorted_and_unique(names):
    expect(anchor(paths=_paths(names)), "memory anchor paths must be sorted and unique")


@pytest.mark.parametrize("names", [["a", "b"], ["a-b", "a/b"], ["z", "é"], ["a", "a/b"],
                                   ["A", "a"], ["\uff5e", "\U0001f600"]])
def test_anchor_paths_sorted_bytewise_valid(names):
    accept(anchor(paths=_paths(names)))


@pytest.mark.parametrize("blob", ["", "ABSENT", "Absent", "absent ", hexd("b", 39), hexd("B", 40),
                                  "sha256:" + hexd("b"), hexd("b", 41)])
def test_anchor_path_blob_invalid(blob):
    expect(anchor(paths=(PathAnchor("a", blob),)), "memory anchor path blob is invalid")


@pytest.mark.parametrize("blob", ["absent", hexd("b", 40), hexd("b", 64)])
def test_anchor_path_blob_valid(blob):
    accept(anchor(paths=(PathAnchor("a", blob),)))


def _total_paths(total: int):
    """Sorted paths of 4 096 bytes each (multibyte-filled) summing to ``total`` bytes."""
    names = []
    i = 0
    while total > 0:
        size = min(4096, total)
        prefix = f"{i:02d}/"
        names.append(prefix + fill(size - len(prefix)) if size > len(prefix) else f"{i:0{size}d}")
        total -= size
        i += 1
    assert names == sorted(names, key=lambda s: s.encode("utf-8"))
    return names


@pytest.mark.parametrize("total", [65535, 65536])
def test_anchor_paths_total_within_bound(total):
    names = _total_paths(total)
    assert sum(len(n.encode("utf-8")) for n in names) == total
    accept(anchor(paths=_paths(names)))


def test_anchor_paths_total_above_bound():
    names = _total_paths(65536) + ["z"]
    assert sum(len(n.encode("utf-8")) for n in names) == 65537
    assert len(names) <= 128 and all(len(n.encode("utf-8")) <= 4096 for n in names)
    expect(anchor(paths=_paths(names)), "memory anchor paths exceed their bound")


ANCHOR_ORDER = [
    (dict(commit="", subject="bad"), "memory anchor commit is invalid"),
    (dict(subject="bad", paths=_paths([f"p{i:03d}" for i in range(129)])),
     "memory anchor subject is invalid"),
    (dict(paths=_paths(["b", "/a"])), "memory anchor path is invalid"),
    (dict(paths=(PathAnchor("b", "bad"), PathAnchor("a", "absent"))),
     "memory anchor paths must be sorted and unique"),
    (dict(paths=tuple(PathAnchor(n, "bad") for n in _total_paths(65536) + ["z"])),
     "memory anchor path blob is invalid"),
]


@pytest.mark.parametrize("fields,msg", ANCHOR_ORDER)
def test_anchor_rule_order(fields, msg):
    expect(anchor(**fields), msg)


# step 4: applicability


def test_applicability_subject_prohibited():
    for mode in ("exact", "descendants"):
        expect(rec(applicability=Applicability(mode, SUBJECT)),
               "memory applicability subject is prohibited")
        expect(plain(applicability=Applicability(mode, "garbage")),
               "memory applicability subject is prohibited")


@pytest.mark.parametrize("anchor_subject,app_subject", [
    (SUBJECT, ""),
    ("", ""),
    ("", SUBJECT),
    (SUBJECT, "proposal:" + digest("d")),
    (SUBJECT, "issue:" + digest("c")),
    (SUBJECT, SUBJECT.upper()),
])
def test_applicability_subject_must_match_anchor(anchor_subject, app_subject):
    e = rec(anchor=BASE_RECORD.anchor._replace(subject=anchor_subject),
            applicability=Applicability("subject", app_subject))
    expect(e, "memory applicability subject must match anchor")


@pytest.mark.parametrize("mode", ["", "Exact", "EXACT", "subjects", "any", " exact"])
def test_applicability_mode_unsupported(mode):
    expect(plain(applicability=Applicability(mode)), "memory applicability mode is unsupported")


@pytest.mark.parametrize("mode", ["exact", "descendants"])
def test_applicability_modes_without_subject_valid(mode):
    accept(plain(applicability=Applicability(mode)))
    accept(rec(applicability=Applicability(mode)))  # an anchor subject alone is fine


def test_anchor_checked_before_applicability():
    e = rec(anchor=BASE_RECORD.anchor._replace(subject="bad"),
            applicability=Applicability("subject", "bad"))
    expect(e, "memory anchor subject is invalid")


def test_applicability_checked_before_topics():
    expect(plain(applicability=Applicability("nope"), topics=("B",)),
           "memory applicability mode is unsupported")


# step 5: topics


@pytest.mark.parametrize("topics", [
    ("",), ("Memory",), (" memory",), ("memory ",), ("memory\u3000",), ("a\x00",), ("a\tb",),
    ("a\x85b",), ("\x1c",), ("a\x1f",), ("b", "a"), ("a", "a"), ("é", "z"), ("\u0130",), ("ΣΑΣ",), ("K",), ("\u212a",),
    (fill(129),), (fill(130, "€"),), ("a" * 129,),
    tuple(f"t{i:02d}" for i in range(33)),
])
def test_topics_invalid(topics):
    expect(plain(topics=topics), "memory record topics are invalid")


@pytest.mark.parametrize("topics", [
    (), ("memory",), ("inner space",), ("a, b; c!",), ("σας",), ("σασ",), ("ß",), ("i",),
    ("a\u00a0b",), ("a\u200bb",), ("z", "é"), ("a", "b"),
    (fill(127),), (fill(128),), (fill(128, "€"),), ("a" * 128,), (fill(128, "😀"),),
    tuple(f"t{i:02d}" for i in range(31)), tuple(f"t{i:02d}" for i in range(32)),
    ("\U00031350",), ("\U0002ebf0",),
])
def test_topics_valid(topics):
    accept(plain(topics=topics))


def test_topic_limit_counts_bytes_not_code_points():
    topic = fill(129)
    assert len(topic) == 65
    expect(plain(topics=(topic,)), "memory record topics are invalid")


def test_topic_lone_surrogate_is_not_valid_utf8():
    expect(plain(topics=("a\udcff",)), "memory record topics are invalid", via_decode=False)


# step 6: evidence


@pytest.mark.parametrize("evidence", [
    ("",), ("memory:" + hexd("1"),), ("proposal:" + digest("1"),), ("git:" + hexd("1", 39),),
    ("git:" + digest("1"),), ("event:" + hexd("1", 40),), ("GIT:" + hexd("1", 40),),
    (_ev(1), _ev(1)), tuple(_ev(i) for i in range(65)),
])
def test_record_evidence_invalid(evidence):
    expect(plain(evidence=evidence), "memory record evidence is invalid")


@pytest.mark.parametrize("evidence", [
    (), (_ev(1),), ("git:" + hexd("1", 40), "git:" + hexd("1", 64)),
    (_ev(9), _ev(1), "event:" + digest("2")),
    tuple(_ev(i) for i in range(63)), tuple(_ev(i) for i in range(64)),
    tuple(_ev(i) for i in reversed(range(64))),
])
def test_record_evidence_valid_and_order_kept(evidence):
    e = plain(evidence=evidence)
    accept(e)
    assert decode(encode(e)).record.evidence == evidence


def test_topics_checked_before_evidence():
    expect(plain(topics=("B",), evidence=("bad",)), "memory record topics are invalid")


def test_evidence_checked_before_kind():
    expect(plain(evidence=("bad",), kind="nope"), "memory record evidence is invalid")


# step 7: kind rules


@pytest.mark.parametrize("kind", ["", "Decision", "DECISION", "note", "handoffs", " decision"])
def test_record_kind_unsupported(kind):
    expect(plain(kind=kind), "memory record kind is unsupported")


def test_unknown_kind_with_outcome_reports_unsupported():
    expect(plain(kind="note", attempt_outcome="failed"), "memory record kind is unsupported")


EMPTY_HANDOFF = Handoff((), (), (), ())


@pytest.mark.parametrize("kind", ["observation", "decision", "assumption"])
def test_plain_kinds_reject_outcome_and_handoff(kind):
    msg = f"memory {kind} record has invalid fields"
    expect(plain(kind=kind, attempt_outcome="failed"), msg)
    expect(plain(kind=kind, handoff=EMPTY_HANDOFF), msg)
    accept(plain(kind=kind))


@pytest.mark.parametrize("outcome", ["", "Failed", "BAD value", "-x", "x-", "é", "a_b",
                                     "a" * 65])
def test_attempt_outcome_invalid(outcome):
    expect(plain(kind="attempt", attempt_outcome=outcome), "memory attempt record has invalid fields")


@pytest.mark.parametrize("outcome", ["failed", "a--b", "0", "a" * 63, "a" * 64])
def test_attempt_outcome_valid(outcome):
    accept(plain(kind="attempt", attempt_outcome=outcome))


def test_attempt_rejects_handoff():
    expect(plain(kind="attempt", attempt_outcome="failed", handoff=EMPTY_HANDOFF),
           "memory attempt record has invalid fields")


def test_verification_rules():
    msg = "memory verification record has invalid fields"
    expect(plain(kind="verification", evidence=()), msg)
    expect(plain(kind="verification", attempt_outcome="failed"), msg)
    expect(plain(kind="verification", handoff=EMPTY_HANDOFF), msg)
    accept(plain(kind="verification", evidence=(_ev(1),)))


HANDOFF_MSG = "memory handoff record has invalid fields"
LISTS = ("completed", "assumptions", "blockers", "nextActions")


def test_handoff_requires_handoff_and_no_outcome():
    expect(plain(kind="handoff"), HANDOFF_MSG)
    expect(handoff(completed=("x",))._replace(
        record=handoff(completed=("x",)).record._replace(attempt_outcome="failed")), HANDOFF_MSG)
    accept(handoff())


@pytest.mark.parametrize("name", LISTS)
def test_handoff_list_null(name):
    expect(handoff(**{name: None}), HANDOFF_MSG, via_decode=False)


@pytest.mark.parametrize("name", LISTS)
def test_handoff_entries_per_list(name):
    entries = tuple(f"e{i}" for i in range(65))
    accept(handoff(**{name: entries[:63]}))
    accept(handoff(**{name: entries[:64]}))
    expect(handoff(**{name: entries}), HANDOFF_MSG)


@pytest.mark.parametrize("entry", ["", " ", "\t\n", "\u3000", "\u0085", fill(4097), fill(4098, "€"),
                                   "a" * 4097])
def test_handoff_entry_invalid(entry):
    for name in LISTS:
        expect(handoff(**{name: ("ok", entry)}), HANDOFF_MSG)


def test_handoff_entry_lone_surrogate_is_not_valid_utf8():
    expect(handoff(completed=("x\udcff",)), HANDOFF_MSG, via_decode=False)


@pytest.mark.parametrize("entry", ["\x00", "\x1c", "a\nb", fill(4095), fill(4096), fill(4096, "€"),
                                   "a" * 4096])
def test_handoff_entry_valid(entry):
    accept(handoff(blockers=(entry,)))


def test_handoff_entry_limit_counts_bytes_not_code_points():
    entry = fill(4097)
    assert len(entry) < 4096
    expect(handoff(nextActions=(entry,)), HANDOFF_MSG)


def test_handoff_total_bound():
    big = fill(4096)
    sixteen = tuple(big for _ in range(16))                       # 65 536 bytes in one list
    accept(handoff(completed=sixteen))
    accept(handoff(completed=sixteen[:15], nextActions=(fill(4095),)))  # 65 535
    accept(handoff(completed=sixteen[:8], assumptions=sixteen[:4], blockers=sixteen[:4]))
    expect(handoff(completed=sixteen, blockers=("x",)), HANDOFF_MSG)  # 65 537 over two lists
    expect(handoff(completed=sixteen[:8], assumptions=sixteen[:4], blockers=sixteen[:4],
                   nextActions=("é",)), HANDOFF_MSG)


# Record order


RECORD_ORDER = [
    (dict(content="", anchor=Anchor("")), "memory record content is invalid"),
    (dict(anchor=Anchor("", subject="bad"), applicability=Applicability("x")),
     "memory anchor commit is invalid"),
    (dict(applicability=Applicability("x"), topics=("B",)), "memory applicability mode is unsupported"),
    (dict(topics=("B",), evidence=("x",)), "memory record topics are invalid"),
    (dict(evidence=("x",), kind="x"), "memory record evidence is invalid"),
    (dict(evidence=(), kind="verification", attempt_outcome="BAD"),
     "memory verification record has invalid fields"),
]


@pytest.mark.parametrize("fields,msg", RECORD_ORDER)
def test_record_rule_order(fields, msg):
    expect(rec(**fields), msg)


def test_envelope_rules_precede_record_rules():
    expect(rec(content="")._replace(timestamp="bad"), "memory timestamp is invalid")
    expect(rec(content="")._replace(operation="x"), "memory operation is unsupported")


# ---------------------------------------------------------------------------------------------
# §1.4 decoding: steps, Go semantics, and which error appears


BASE_PAYLOAD = encode(BASE)


def _swap(payload: bytes, old: bytes, new: bytes) -> bytes:
    assert payload.count(old) == 1, old
    return payload.replace(old, new)


@pytest.mark.parametrize("payload", [
    _swap(BASE_PAYLOAD, b"remains", b"rem\xffains"),
    _swap(BASE_PAYLOAD, b"remains", b"rem\xc0\xafins"),        # overlong
    _swap(BASE_PAYLOAD, b"remains", b"rem\xed\xa0\x80ins"),    # encoded surrogate
    _swap(BASE_PAYLOAD, b"remains", b"rem\xc3"),               # truncated sequence
    BASE_PAYLOAD + b"\xff",
    b"\xef\xbb\xbf\xff" + BASE_PAYLOAD,
    BASE_PAYLOAD.decode("utf-8").encode("utf-16"),
])
def test_invalid_utf8(payload):
    assert decode_message(payload) == "invalid memory JSON encoding"


@pytest.mark.parametrize("payload", [
    b"", b" ", b"{", b"[", b"}", b"tru", b'{"protocol"', BASE_PAYLOAD[:-1], BASE_PAYLOAD[:100],
    b"\xef\xbb\xbf" + BASE_PAYLOAD, b"{,}", b"{'protocol':1}",
    _swap(BASE_PAYLOAD, b'"sequence":1', b'"sequence":01'),
    _swap(BASE_PAYLOAD, b'"sequence":1', b'"sequence":+1'),
    _swap(BASE_PAYLOAD, b'"sequence":1', b'"sequence":0x1'),
    _swap(BASE_PAYLOAD, b"remains", b"rem\x01ains"),          # raw control character in string
    _swap(BASE_PAYLOAD, b"remains", b"rem\\xains"),           # bad escape
    _swap(BASE_PAYLOAD, b'"memory"]', b'"memory",]'),         # trailing comma
])
def test_invalid_json(payload):
    assert decode_message(payload) == "invalid memory JSON"


def _with_key(d: dict, key: str, value) -> dict:
    out = dict(d)
    out[key] = value
    return out


def _rename(d: dict, old: str, new: str) -> dict:
    return {(new if k == old else k): v for k, v in d.items()}


def _unknown_at(level: str, key: str = "extra", value="x") -> bytes:
    d = base_json()
    if level == "envelope":
        d = _with_key(d, key, value)
    elif level == "record":
        d["record"] = _with_key(d["record"], key, value)
    elif level == "anchor":
        d["record"]["anchor"] = _with_key(d["record"]["anchor"], key, value)
    elif level == "path":
        d["record"]["anchor"]["paths"][0] = _with_key(d["record"]["anchor"]["paths"][0], key, value)
    elif level == "applicability":
        d["record"]["applicability"] = _with_key(d["record"]["applicability"], key, value)
    elif level == "handoff":
        d["record"]["kind"] = "handoff"
        d["record"]["handoff"] = {"completed": [], "assumptions": [], "blockers": [],
                                  "nextActions": [], key: value}
    return raw(d)


LEVELS = ["envelope", "record", "anchor", "path", "applicability", "handoff"]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("key,value", [("extra", "x"), ("extra", None), ("ｋｉｎｄ", "x"),
                                       ("kind\u200b", "x"), ("", 1), ("attachments", [])])
def test_unknown_keys_at_every_level(level, key, value):
    assert decode_message(_unknown_at(level, key, value)) == "invalid memory JSON"


@pytest.mark.parametrize("level,key", [("envelope", "kind"), ("record", "protocol"),
                                       ("anchor", "mode"), ("path", "commit"),
                                       ("applicability", "path"), ("handoff", "kind")])
def test_keys_of_other_levels_are_unknown(level, key):
    assert decode_message(_unknown_at(level, key, "x")) == "invalid memory JSON"


def test_handoff_shape_valid_through_helper():
    d = base_json()
    d["record"]["kind"] = "handoff"
    d["record"]["handoff"] = {"completed": [], "assumptions": [], "blockers": [], "nextActions": []}
    assert decode(raw(d)).record.handoff == EMPTY_HANDOFF


def _variant(path: tuple, old: str, new: str) -> bytes:
    """Rename key ``old`` to ``new`` (keeping its position) in the object at ``path``."""
    d = base_json()
    if path == ():
        return raw(_rename(d, old, new))
    parent = d
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = _rename(parent[path[-1]], old, new)
    return raw(d)


@pytest.mark.parametrize("path,old,new", [
    ((), "protocol", "Protocol"),
    ((), "publicKey", "PUBLICKEY"),
    ((), "actorName", "actorname"),
    ((), "stream", "\u017ftream"),                  # LONG S folds to s
    ((), "sequence", "\u017fequence"),
    (("record",), "kind", "Kind"),
    (("record",), "kind", "KIND"),
    (("record",), "kind", "\u212aind"),              # KELVIN SIGN folds to k
    (("record",), "topics", "Topics"),
    (("record",), "evidence", "EVIDENCE"),
    (("record", "anchor"), "commit", "Commit"),
    (("record", "anchor"), "subject", "\u017fubject"),
    (("record", "applicability"), "mode", "MODE"),
])
def test_case_variant_keys_bind_then_fail_canonical_check(path, old, new):
    payload = _variant(path, old, new)
    assert decode_message(payload) == "memory JSON is not canonical"


@pytest.mark.parametrize("old,new", [("path", "Path"), ("blob", "BLOB")])
def test_case_variant_path_entry_keys(old, new):
    d = base_json()
    d["record"]["anchor"]["paths"][0] = _rename(d["record"]["anchor"]["paths"][0], old, new)
    assert decode_message(raw(d)) == "memory JSON is not canonical"


def test_case_variant_handoff_and_outcome_keys():
    d = base_json()
    d["record"]["kind"] = "handoff"
    d["record"]["handoff"] = {"completed": ["x"], "assumptions": [], "blockers": [],
                              "NEXTACTIONS": []}
    assert decode_message(raw(d)) == "memory JSON is not canonical"
    d = base_json()
    d["record"]["kind"] = "attempt"
    d["record"]["applicability"] = {"mode": "exact"}
    d["record"]["anchor"] = {"commit": hexd("a", 40)}
    d["record"]["AttemptOutcome"] = "failed"
    assert decode_message(raw(d)) == "memory JSON is not canonical"


@pytest.mark.parametrize("spelled", [b'"\\u212aind"', b'"\\u212AIND"', b'"\\u006bind"',
                                     b'"k\\u0069nd"'])
def test_escaped_key_spellings_bind_then_fail_canonical_check(spelled):
    payload = _swap(BASE_PAYLOAD, b'"kind"', spelled)
    assert decode_message(payload) == "memory JSON is not canonical"


def test_case_variant_key_binds_so_its_value_is_validated():
    payload = _variant((), "protocol", "PROTOCOL")
    assert decode_message(payload.replace(b"hn-memory/0", b"nh-memory/0")) == \
        "memory protocol is unsupported"
    payload = _variant(("record",), "kind", "\u212aind")
    assert decode_message(payload.replace(b'"decision"', b'"note"')) == \
        "memory record kind is unsupported"


@pytest.mark.parametrize("dup", [
    b'"kind":"decision","kind":"decision"',
    b'"kind":"decision","Kind":"decision"',
    b'"kind":"decision","\\u006bind":"decision"',
    b'"kind":"decision","\\u212aind":"decision"',
])
def test_duplicate_keys_are_invalid_json(dup):
    payload = _swap(BASE_PAYLOAD, b'"kind":"decision"', dup)
    assert decode_message(payload) == "invalid memory JSON"


def test_duplicate_top_level_key_is_invalid_json():
    payload = BASE_PAYLOAD[:-1] + b',"protocol":"hn-memory/0"}'
    assert decode_message(payload) == "invalid memory JSON"


# null as the zero value


def _set(path: tuple, value) -> bytes:
    d = base_json()
    parent = d
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return raw(d)


@pytest.mark.parametrize("path,msg", [
    (("protocol",), "memory protocol is unsupported"),
    (("actor",), "memory actor is invalid"),
    (("actorName",), "memory actorName is invalid"),
    (("publicKey",), "memory publicKey is invalid"),
    (("stream",), "memory stream is invalid"),
    (("sequence",), "memory sequence must be positive"),
    (("timestamp",), "memory timestamp is invalid"),
    (("operation",), "memory operation is unsupported"),
    (("record",), "memory record operation has invalid fields"),
    (("previous",), "memory JSON is not canonical"),
    (("target",), "memory JSON is not canonical"),
    (("reason",), "memory JSON is not canonical"),
    (("evidence",), "memory JSON is not canonical"),
    (("record", "kind"), "memory record kind is unsupported"),
    (("record", "content"), "memory record content is invalid"),
    (("record", "topics"), "memory record topics are required"),
    (("record", "evidence"), "memory record evidence is required"),
    (("record", "anchor"), "memory anchor commit is invalid"),
    (("record", "anchor", "commit"), "memory anchor commit is invalid"),
    (("record", "anchor", "paths"), "memory JSON is not canonical"),
    (("record", "anchor", "subject"), "memory applicability subject must match anchor"),
    (("record", "anchor", "paths", 0), "memory anchor path is invalid"),
    (("record", "anchor", "paths", 1, "blob"), "memory anchor path blob is invalid"),
    (("record", "applicability"), "memory applicability mode is unsupported"),
    (("record", "applicability", "subject"), "memory applicability subject must match anchor"),
    (("record", "topics", 0), "memory record topics are invalid"),
    (("record", "evidence", 1), "memory record evidence is invalid"),
    (("record", "attemptOutcome"), "memory JSON is not canonical"),
    (("record", "handoff"), "memory JSON is not canonical"),
])
def test_null_is_the_zero_value(path, msg):
    assert decode_message(_set(path, None)) == msg


def test_topics_null_literal():
    payload = _swap(BASE_PAYLOAD, b'"topics":["architecture","memory"]', b'"topics":null')
    assert decode_message(payload) == "memory record topics are required"


def test_missing_topics_and_evidence_keys_are_required():
    d = base_json()
    del d["record"]["topics"]
    assert decode_message(raw(d)) == "memory record topics are required"
    d = base_json()
    del d["record"]["evidence"]
    assert decode_message(raw(d)) == "memory record evidence is required"


def test_whole_payload_null_is_the_zero_envelope():
    assert decode_message(b"null") == "memory protocol is unsupported"


@pytest.mark.parametrize("name", LISTS)
def test_handoff_list_null_json(name):
    d = base_json()
    d["record"].update(kind="handoff", anchor={"commit": hexd("a", 40)},
                       applicability={"mode": "exact"})
    d["record"]["handoff"] = {n: [] for n in LISTS}
    d["record"]["handoff"][name] = None
    assert decode_message(raw(d)) == HANDOFF_MSG


def test_handoff_null_on_handoff_kind():
    d = base_json()
    d["record"].update(kind="handoff", anchor={"commit": hexd("a", 40)},
                       applicability={"mode": "exact"}, handoff=None)
    assert decode_message(raw(d)) == HANDOFF_MSG


def test_retract_with_null_record_is_not_canonical():
    d = envelope_json(RETRACT)
    d = {**{k: v for k, v in d.items() if k in ("protocol", "operation", "actor", "actorName",
                                                   "publicKey", "stream", "sequence", "timestamp")},
         "record": None, "target": d["target"], "reason": d["reason"]}
    assert decode_message(raw(d)) == "memory JSON is not canonical"


def test_empty_paths_list_is_not_canonical():
    payload = encode(anchor(paths=()))
    assert b'"paths"' not in payload
    bad = _swap(payload, b'"commit":"' + hexd("a", 40).encode() + b'"',
                b'"commit":"' + hexd("a", 40).encode() + b'","paths":[]')
    assert decode_message(bad) == "memory JSON is not canonical"


# type mismatches


SEQ = b'"sequence":1'


@pytest.mark.parametrize("literal", [b"1.0", b"1e0", b"1E0", b"1e+0", b"10e-1", b"1.5", b"-1",
                                     b"-0", b"-0.0", b'"1"', b"true", b"false", b"[1]", b"{}",
                                     b"18446744073709551616", b"99999999999999999999999999",
                                     b"NaN", b"Infinity", b"-Infinity"])
def test_sequence_type_mismatch(literal):
    assert decode_message(_swap(BASE_PAYLOAD, SEQ, b'"sequence":' + literal)) == "invalid memory JSON"


def test_sequence_max_uint64_binds():
    e = env(sequence=2**64 - 1, previous=digest("1"))
    payload = encode(e)
    assert b'"sequence":18446744073709551615,' in payload
    assert decode(payload) == e


@pytest.mark.parametrize("path,value", [
    (("actor",), 1),
    (("actorName",), ["Alice"]),
    (("timestamp",), 0),
    (("operation",), True),
    (("record",), []),
    (("record",), "x"),
    (("record", "content"), 1),
    (("record", "content"), {}),
    (("record", "topics"), "memory"),
    (("record", "topics"), [1]),
    (("record", "topics"), [["memory"]]),
    (("record", "evidence"), {}),
    (("record", "anchor"), []),
    (("record", "anchor"), "aaaa"),
    (("record", "anchor", "paths"), {}),
    (("record", "anchor", "paths"), ["README.md"]),
    (("record", "anchor", "paths", 0, "blob"), 0),
    (("record", "applicability"), "exact"),
    (("record", "applicability", "mode"), 1),
    (("record", "attemptOutcome"), 1),
    (("record", "handoff"), []),
    (("target",), 1),
    (("evidence",), "git:x"),
])
def test_type_mismatch_is_invalid_json(path, value):
    assert decode_message(_set(path, value)) == "invalid memory JSON"


@pytest.mark.parametrize("literal", [b"1.0", b"1e0", b"-0", b"1"])
def test_number_where_string_expected(literal):
    payload = _swap(BASE_PAYLOAD, b'"actorName":"Alice Agent"', b'"actorName":' + literal)
    assert decode_message(payload) == "invalid memory JSON"


def test_handoff_list_type_mismatch():
    d = base_json()
    d["record"].update(kind="handoff", anchor={"commit": hexd("a", 40)},
                       applicability={"mode": "exact"})
    d["record"]["handoff"] = {"completed": "x", "assumptions": [], "blockers": [], "nextActions": []}
    assert decode_message(raw(d)) == "invalid memory JSON"
    d["record"]["handoff"]["completed"] = [1]
    assert decode_message(raw(d)) == "invalid memory JSON"


def test_top_level_non_object_is_invalid_json():
    for payload in (b"[]", b"1", b'"x"', b"true"):
        assert decode_message(payload) == "invalid memory JSON"


def test_deep_nesting_is_invalid_json_not_a_crash():
    deep = b"[" * 5000 + b"]" * 5000
    payload = _swap(BASE_PAYLOAD, b'"Memory content remains inert data."', deep)
    assert decode_message(payload) == "invalid memory JSON"


# trailing data and whitespace


@pytest.mark.parametrize("suffix", [b"{}", b" {}", b"\n{}", b"[]", b"1", b'"x"', b"null",
                                    BASE_PAYLOAD])
def test_trailing_data(suffix):
    assert decode_message(BASE_PAYLOAD + suffix) == "invalid memory JSON trailing data"


@pytest.mark.parametrize("payload", [BASE_PAYLOAD + b"\n", BASE_PAYLOAD + b" ",
                                     BASE_PAYLOAD + b" \t\r\n", b" " + BASE_PAYLOAD,
                                     b"\n" + BASE_PAYLOAD + b"\n"])
def test_trailing_or_leading_whitespace_is_not_canonical(payload):
    assert decode_message(payload) == "memory JSON is not canonical"


# other non-canonical spellings


@pytest.mark.parametrize("old,new", [
    (b'"protocol":"hn-memory/0","operation":"record"', b'"operation":"record","protocol":"hn-memory/0"'),
    (b'"sequence":1,', b'"sequence": 1,'),
    (b"remains", b"rem\\u0061ins"),
    (b"remains", b"rem\\/ains"),
    (b"Memory content", b"Memory\\u0020content"),
    (b"README.md", b"README\\u002emd"),
])
def test_non_canonical_spellings(old, new):
    assert decode_message(_swap(BASE_PAYLOAD, old, new)) == "memory JSON is not canonical"


@pytest.mark.parametrize("escape", [b"\\ud800", b"\\udc00", b"\\udbff\\u0041", b"\\ud800\\ud800",
                                    b"\\udfff"])
def test_lone_surrogate_escape_is_not_canonical(escape):
    payload = _swap(BASE_PAYLOAD, b"remains", b"remains" + escape)
    assert decode_message(payload) == "memory JSON is not canonical"


def test_lone_surrogate_reads_as_replacement_character():
    # The same text with U+FFFD written raw is canonical, which is what Go reads the escape as.
    e = rec(content="Memory \ufffd")
    accept(e)
    escaped = _swap(encode(e), "\ufffd".encode("utf-8"), b"\\ud800")
    assert decode_message(escaped) == "memory JSON is not canonical"


def test_lone_surrogate_in_actor_name_escape_is_not_canonical():
    payload = _swap(BASE_PAYLOAD, b'"Alice Agent"', b'"Alice \\udcff"')
    assert decode_message(payload) == "memory JSON is not canonical"


def test_surrogate_pair_escape_is_not_canonical():
    payload = _swap(BASE_PAYLOAD, b"remains", b"remains \\ud83d\\ude00")
    assert decode_message(payload) == "memory JSON is not canonical"
    assert decode(_swap(BASE_PAYLOAD, b"remains", "remains 😀".encode())).record.content == \
        "Memory content remains 😀 inert data."


def test_html_characters_are_canonical_only_when_escaped():
    e = rec(content="a<b>&c\u2028\u2029")
    payload = encode(e)
    assert b"\\u003c" in payload and b"\\u0026" in payload and b"\\u2028" in payload
    assert decode(payload) == e
    raw_form = payload.replace(b"\\u003c", b"<")
    assert decode_message(raw_form) == "memory JSON is not canonical"


# non-canonical AND invalid: validation wins


@pytest.mark.parametrize("payload,msg", [
    (b" " + encode(env(actor=ACTOR.upper())), "memory actor is invalid"),
    (encode(env(timestamp="2026-13-01T00:00:00Z")) + b"\n", "memory timestamp is invalid"),
    (_swap(encode(env(sequence=0)), b'"protocol":"hn-memory/0","operation":"record"',
           b'"operation":"record","protocol":"hn-memory/0"'), "memory sequence must be positive"),
    (_swap(encode(rec(topics=("B",))), b'"kind"', b'"KIND"'), "memory record topics are invalid"),
    (_swap(encode(rec(content=" ")), b'"content":" "', b'"content":"\\u0020"'),
     "memory record content is invalid"),
    (_swap(encode(CHALLENGE), b'"reason":"evidence-mismatch"', b'"reason":"x-","evidence":[]'),
     "memory challenge operation has invalid fields"),
])
def test_non_canonical_and_invalid_reports_validation(payload, msg):
    assert decode_message(payload) == msg


def test_errors_are_validation_errors_and_hn_errors():
    with pytest.raises(HnError) as info:
        decode(b"{")
    assert isinstance(info.value, ValidationError)
    assert str(info.value) == "invalid memory JSON"
