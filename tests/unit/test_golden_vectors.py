"""Golden vectors of hn-memory/0 (CONTRACT §12, vectors in tests/vectors/hn-memory-v0.json).

Every vector of the file is checked, and the fixture envelopes are *built* from
``git_hn.core.envelope`` values and encoded, so the encoder (field order, omission rules, escaping)
is what is compared with the golden bytes, not a decode/re-encode round trip of them. The legacy
``nh`` IDs are the upstream implementation's own goldens (status ``verified``); reproducing them
proves the encoder. The mutation list is §12.4 item 5, with the exact error texts of §1.4/§1.5.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from git_hn.core import chain, envelope, grammar, keys, policy
from git_hn.core.envelope import Anchor, Applicability, Envelope, PathAnchor, Record
from git_hn.errors import ValidationError

VECTORS_PATH = Path(__file__).resolve().parent.parent / "vectors" / "hn-memory-v0.json"
VECTORS = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
BY_NAME = {v["name"]: v for v in VECTORS}

EXPECTED_NAMES = {
    "identity", "default-stream-nh", "default-stream-hn", "nh-record", "nh-supersede",
    "hn-record", "hn-supersede", "policy-missing-digest-hn", "policy-missing-digest-nh",
}

SEED_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
PUBLIC_KEY = "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"
ACTOR = "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
NH_STREAM = "sha256:d5c42b67775cd9520bb0089b495230aad66693ef5385fe3ab766a2d5afec2076"
HN_STREAM = "sha256:f298f9e0f0a75b23be66e545312634172c9f0c207ebc99725c680aebe17ed5ce"


def vector(name: str) -> dict:
    return BY_NAME[name]


def payload_bytes(name: str) -> bytes:
    return vector(name)["payload"].encode("utf-8")


def b64raw_decode(text: str) -> bytes:
    """Independent unpadded standard base64 decoding (not git-hn's)."""
    assert "=" not in text
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def nh_stream_recipe(actor: str) -> str:
    """Legacy default stream, as a hash recipe only; git-hn never derives or writes it."""
    data = b"nh-memory-stream-v0\x00" + actor.encode("ascii") + b"\x00default"
    return "sha256:" + hashlib.sha256(data).hexdigest()


def fixture_envelope(*, protocol: str, stream: str, operation: str = "record",
                     target: str = "") -> Envelope:
    """The §12.2 record fixture, built field by field from the contract's prose."""
    subject = "proposal:sha256:" + "c" * 64
    record = Record(
        kind="decision",
        content="Memory content remains inert data.",
        anchor=Anchor(
            commit="a" * 40,
            paths=(PathAnchor("README.md", "b" * 40), PathAnchor("docs/removed.md", "absent")),
            subject=subject,
        ),
        applicability=Applicability("subject", subject),
        topics=("architecture", "memory"),
        evidence=("git:" + "d" * 40, "event:sha256:" + "e" * 64),
    )
    return Envelope(
        protocol=protocol,
        operation=operation,
        actor=ACTOR,
        actor_name="Alice Agent",
        public_key=PUBLIC_KEY,
        stream=stream,
        sequence=1,
        timestamp="2026-08-30T12:34:56.123456789Z",
        record=record,
        target=target,
    )


FIXTURES = {
    "nh-record": dict(protocol="nh-memory/0", stream=NH_STREAM),
    "nh-supersede": dict(protocol="nh-memory/0", stream=NH_STREAM, operation="supersede",
                         target="sha256:" + "f" * 64),
    "hn-record": dict(protocol="hn-memory/0", stream=HN_STREAM),
    "hn-supersede": dict(protocol="hn-memory/0", stream=HN_STREAM, operation="supersede",
                         target="sha256:" + "f" * 64),
}


# ---------------------------------------------------------------------------------------------
# The file itself


def test_vector_file_has_exactly_the_contract_vectors():
    assert [v["name"] for v in VECTORS] == [
        "identity", "default-stream-nh", "default-stream-hn", "nh-record", "nh-supersede",
        "hn-record", "hn-supersede", "policy-missing-digest-hn", "policy-missing-digest-nh",
    ]
    assert set(BY_NAME) == EXPECTED_NAMES
    keys_expected = {"name", "kind", "seedHex", "actorName", "publicKey", "actor", "stream",
                     "payload", "memoryId", "signature", "status", "note"}
    for v in VECTORS:
        assert set(v) == keys_expected, v["name"]
        assert v["status"] in ("verified", "computed"), v["name"]
        # Only the identity vector has no payload (and therefore no memoryId).
        assert (v["payload"] is None) == (v["name"] == "identity") == (v["memoryId"] is None)


@pytest.mark.parametrize("v", [v for v in VECTORS if v["payload"] is not None],
                         ids=lambda v: v["name"])
def test_memory_id_field_is_digest_of_payload(v):
    """§12: ``memoryId`` = ``sha256:`` + hex SHA-256 of the UTF-8 bytes of ``payload``."""
    data = v["payload"].encode("utf-8")
    assert v["memoryId"] == "sha256:" + hashlib.sha256(data).hexdigest()
    assert grammar.memory_id(data) == v["memoryId"]
    assert grammar.is_digest_id(v["memoryId"])


# ---------------------------------------------------------------------------------------------
# §12.1 identity and §12.4 item 1


@pytest.mark.parametrize("v", [v for v in VECTORS if v["seedHex"] is not None],
                         ids=lambda v: v["name"])
def test_identity_derivation_from_seed(v):
    seed = bytes.fromhex(v["seedHex"])
    assert seed == bytes(range(32))
    raw = keys.public_key_from_seed(seed)
    assert len(raw) == 32
    assert keys.b64_encode(raw) == v["publicKey"] == PUBLIC_KEY
    assert len(v["publicKey"]) == 43
    assert b64raw_decode(v["publicKey"]) == raw
    assert keys.actor_of(raw) == v["actor"] == ACTOR
    assert hashlib.sha256(raw).hexdigest() == ACTOR
    assert grammar.is_actor(v["actor"])
    assert v["actorName"] == "Alice Agent"
    assert not keys.is_weak_public_key(raw)
    # Admission as an envelope would do it (§1.5 step 4).
    assert envelope.check_public_key(v["publicKey"], v["actor"]) == raw


def test_identity_vector_matches_contract_text():
    v = vector("identity")
    assert v["kind"] == "identity" and v["status"] == "verified"
    assert v["seedHex"] == SEED_HEX
    assert v["publicKey"] == PUBLIC_KEY
    assert v["actor"] == ACTOR
    assert v["stream"] is None and v["payload"] is None and v["signature"] is None


def test_default_stream_hn():
    v = vector("default-stream-hn")
    assert v["status"] == "computed"
    assert v["payload"] == "hn-memory-stream-v0\x00" + ACTOR + "\x00default"
    assert grammar.default_stream(v["actor"]) == v["stream"] == v["memoryId"] == HN_STREAM


def test_default_stream_nh_is_a_hash_recipe_only():
    v = vector("default-stream-nh")
    assert v["status"] == "verified"
    assert v["payload"] == "nh-memory-stream-v0\x00" + ACTOR + "\x00default"
    assert nh_stream_recipe(v["actor"]) == v["stream"] == v["memoryId"] == NH_STREAM
    # git-hn's derivation never yields the legacy stream.
    assert grammar.default_stream(v["actor"]) != NH_STREAM


def test_stream_refs_use_hex_of_default_stream():
    ref = grammar.local_ref(ACTOR, HN_STREAM)
    assert ref == f"refs/hn/memory/{ACTOR}/{HN_STREAM[len('sha256:'):]}"
    assert grammar.parse_local_ref(ref) == (ACTOR, HN_STREAM)


# ---------------------------------------------------------------------------------------------
# §12.2 fixtures and §12.4 items 2–4


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_encode_fixture_envelope_matches_golden_bytes_and_id(name):
    v = vector(name)
    env = fixture_envelope(**FIXTURES[name])
    data = envelope.encode(env)
    assert data == payload_bytes(name)
    assert grammar.memory_id(data) == v["memoryId"]
    assert v["actor"] == env.actor and v["publicKey"] == env.public_key
    assert v["stream"] == env.stream


def test_nh_ids_equal_upstream_verified_values():
    """§12.2: the verified legacy IDs prove the encoder."""
    assert vector("nh-record")["status"] == "verified"
    assert vector("nh-supersede")["status"] == "verified"
    rec = envelope.encode(fixture_envelope(**FIXTURES["nh-record"]))
    sup = envelope.encode(fixture_envelope(**FIXTURES["nh-supersede"]))
    assert grammar.memory_id(rec) == (
        "sha256:d742835b38d3ed11849f20afd6529592b6212ad1fbdeb93cd4de309352557a76")
    assert grammar.memory_id(sup) == (
        "sha256:fc659e18b8f6f7d16ed2850aa8807b050e0d2dd3019381b086078946cfd2ee54")


def test_hn_goldens_equal_contract_text():
    assert vector("hn-record")["memoryId"] == (
        "sha256:15248026b2eb5606315d3d9fd3e74dedafc2de3a7ecf27375ca4f3a42df9c733")
    assert vector("hn-supersede")["memoryId"] == (
        "sha256:7d464720358ab2914c6b534d0cfcb125b85544285bbd7acb31e61e537b762f8f")
    assert vector("hn-record")["signature"] == (
        "u8WPWX+6LRibMQG8aqqtgSDLTNieeqmunKGM5JH6DCNF9is6va/1Pvz5gGeNjxK8m2liyGuik87Fi2cGZgUdBA")
    assert vector("hn-supersede")["signature"] == (
        "A98ylZMmOaM3lr057m0mVRDgM7OiaRE0DKyakrKrqHU45mIY6SWnCqBBSDhGnR6oQw7Dzy3wgQ1V0uiCPvP9Dw")


def test_supersede_fixture_is_record_plus_target_after_record():
    rec = payload_bytes("hn-record")
    sup = payload_bytes("hn-supersede")
    target = b',"target":"sha256:' + b"f" * 64 + b'"'
    assert sup == rec.replace(b'"operation":"record"', b'"operation":"supersede"')[:-1] + target + b"}"


def test_fixture_payloads_are_one_line_without_trailing_newline():
    for name in FIXTURES:
        data = payload_bytes(name)
        assert b"\n" not in data and b" " not in data.replace(b"Alice Agent", b"").replace(
            b"Memory content remains inert data.", b"")
        assert data.startswith(b'{"protocol":') and data.endswith(b"}")


@pytest.mark.parametrize("name", ["hn-record", "hn-supersede"])
def test_signature_is_deterministic_and_verifies(name):
    v = vector(name)
    seed = bytes.fromhex(v["seedHex"])
    data = payload_bytes(name)
    sig = keys.sign(seed, data)
    assert len(sig) == 64
    text = keys.b64_encode(sig)
    assert text == v["signature"]
    assert len(text) == 86 and "=" not in text and "\n" not in text
    assert b64raw_decode(v["signature"]) == sig
    assert keys.sign(seed, data) == sig  # deterministic
    raw = keys.public_key_from_seed(seed)
    keys.verify(raw, sig, data)  # raises on failure
    with pytest.raises(ValidationError) as exc:
        keys.verify(raw, sig, data + b" ")
    assert exc.value.message == "invalid memory signature"
    other = "hn-supersede" if name == "hn-record" else "hn-record"
    with pytest.raises(ValidationError) as exc:
        keys.verify(raw, sig, payload_bytes(other))
    assert exc.value.message == "invalid memory signature"


@pytest.mark.parametrize("name", ["hn-record", "hn-supersede"])
def test_decode_hn_payload_round_trips(name):
    data = payload_bytes(name)
    env = envelope.decode(data)
    assert env == fixture_envelope(**FIXTURES[name])
    assert envelope.encode(env) == data
    assert env.record is not None and env.record.evidence == (
        "git:" + "d" * 40, "event:sha256:" + "e" * 64)  # signed order kept


@pytest.mark.parametrize("name", ["hn-record", "hn-supersede"])
def test_stream_verification_of_golden_commit(name):
    """The §11(e) stream order (scan, verify, decode) accepts the golden payload and signature."""
    v = vector(name)
    data = payload_bytes(name)
    commit = "1" * 40
    mem = chain.check_memory(commit, data, v["signature"].encode("ascii"))
    assert mem.memory_id == v["memoryId"]
    assert mem.signature == v["signature"]
    assert mem.envelope.stream == HN_STREAM
    # A signature over the other fixture does not verify this payload.
    other = vector("hn-supersede" if name == "hn-record" else "hn-record")
    with pytest.raises(ValidationError) as exc:
        chain.check_memory(commit, data, other["signature"].encode("ascii"))
    assert exc.value.message == f"verify memory commit {commit}: invalid memory signature"


@pytest.mark.parametrize("name", ["nh-record", "nh-supersede"])
def test_decode_nh_payload_fails_protocol_unsupported(name):
    with pytest.raises(ValidationError) as exc:
        envelope.decode(payload_bytes(name))
    assert exc.value.message == "memory protocol is unsupported"
    assert type(exc.value) is ValidationError


def test_nh_payload_with_hn_protocol_only_is_still_refused():
    """Swapping only the protocol string leaves the legacy stream: the payload is valid but its
    ID differs from every golden, proving the stream participates in the ID."""
    data = payload_bytes("nh-record").replace(b'"nh-memory/0"', b'"hn-memory/0"')
    env = envelope.decode(data)
    assert env.stream == NH_STREAM
    assert grammar.memory_id(data) not in {v["memoryId"] for v in VECTORS}


# ---------------------------------------------------------------------------------------------
# §12.3 policy-missing digest


def test_policy_missing_digest_hn():
    v = vector("policy-missing-digest-hn")
    assert v["payload"] == "hn-memory-policy-missing-v0"
    digest = "sha256:" + hashlib.sha256(b"hn-memory-policy-missing-v0").hexdigest()
    assert digest == v["memoryId"] == (
        "sha256:6c9545996ea1380092ff02dd230dbe273c29085f6079b24281a25f2de68e68dd")
    assert policy.MISSING_DIGEST == v["memoryId"]  # the value git-hn uses (§6.4)


def test_policy_missing_digest_nh_is_informational():
    v = vector("policy-missing-digest-nh")
    assert v["payload"] == "nh-memory-policy-missing-v0"
    assert "sha256:" + hashlib.sha256(b"nh-memory-policy-missing-v0").hexdigest() == v["memoryId"] == (
        "sha256:8884275a8604de31ebbc0a67500d51b1c991bd51682ef335c8f38426d24d8173")
    assert v["memoryId"] != vector("policy-missing-digest-hn")["memoryId"]


# ---------------------------------------------------------------------------------------------
# §12.4 item 5: mutations of the hn payload, with exact texts

REC = vector("hn-record")["payload"].encode("utf-8")


def _sub(old: bytes, new: bytes, data: bytes = REC) -> bytes:
    assert data.count(old) == 1, old
    return data.replace(old, new)


MUTATIONS = [
    # (id, mutated payload, exact error text)
    ("space-after-open-brace", b"{ " + REC[1:], "memory JSON is not canonical"),
    ("space-after-colon", _sub(b'"operation":"record"', b'"operation": "record"'),
     "memory JSON is not canonical"),
    ("space-after-comma", _sub(b'"sequence":1,', b'"sequence":1, '), "memory JSON is not canonical"),
    ("leading-whitespace", b" " + REC, "memory JSON is not canonical"),
    ("trailing-space", REC + b" ", "memory JSON is not canonical"),
    ("trailing-newline", REC + b"\n", "memory JSON is not canonical"),
    ("trailing-crlf", REC + b"\r\n", "memory JSON is not canonical"),
    ("reordered-top-keys", _sub(b'"protocol":"hn-memory/0","operation":"record"',
                                b'"operation":"record","protocol":"hn-memory/0"'),
     "memory JSON is not canonical"),
    ("reordered-record-keys", _sub(b'"kind":"decision","content":"Memory content remains inert data."',
                                   b'"content":"Memory content remains inert data.","kind":"decision"'),
     "memory JSON is not canonical"),
    ("reordered-path-keys", _sub(b'{"path":"README.md","blob":"' + b"b" * 40 + b'"}',
                                 b'{"blob":"' + b"b" * 40 + b'","path":"README.md"}'),
     "memory JSON is not canonical"),
    ("envelope-evidence-empty", REC[:-1] + b',"evidence":[]}', "memory JSON is not canonical"),
    ("paths-empty", _sub(b'"paths":[{"path":"README.md","blob":"' + b"b" * 40
                         + b'"},{"path":"docs/removed.md","blob":"absent"}]', b'"paths":[]'),
     "memory JSON is not canonical"),
    ("previous-null", _sub(b'"sequence":1,', b'"sequence":1,"previous":null,'),
     "memory JSON is not canonical"),
    ("previous-empty-string", _sub(b'"sequence":1,', b'"sequence":1,"previous":"",'),
     "memory JSON is not canonical"),
    ("case-variant-key", _sub(b'"actorName"', b'"ActorName"'), "memory JSON is not canonical"),
    ("kelvin-sign-key", _sub(b'"kind"', '"\u212aind"'.encode("utf-8")), "memory JSON is not canonical"),
    ("escaped-key", _sub(b'"protocol"', b'"\\u0070rotocol"'), "memory JSON is not canonical"),
    ("escaped-ascii-value", _sub(b'"Alice Agent"', b'"\\u0041lice Agent"'), "memory JSON is not canonical"),
    ("escaped-slash", _sub(b'"docs/removed.md"', b'"docs\\/removed.md"'), "memory JSON is not canonical"),
    ("lone-surrogate-escape", _sub(b"remains inert", b"remains \\ud800 inert"),
     "memory JSON is not canonical"),
    ("space-after-number", _sub(b'"sequence":1', b'"sequence":1 '), "memory JSON is not canonical"),
    ("unknown-top-key", REC[:-1] + b',"extra":"x"}', "invalid memory JSON"),
    ("unknown-record-key", _sub(b'"kind":"decision"', b'"kind":"decision","mood":"x"'),
     "invalid memory JSON"),
    ("unknown-anchor-key", _sub(b'"commit":"' + b"a" * 40 + b'"',
                                b'"commit":"' + b"a" * 40 + b'","tree":"x"'), "invalid memory JSON"),
    ("unknown-path-entry-key", _sub(b'"blob":"absent"', b'"blob":"absent","mode":"x"'),
     "invalid memory JSON"),
    ("unknown-applicability-key", _sub(b'"mode":"subject"', b'"mode":"subject","x":1'),
     "invalid memory JSON"),
    ("duplicate-key", _sub(b'"sequence":1,', b'"sequence":1,"sequence":1,'), "invalid memory JSON"),
    ("duplicate-key-case-variant", _sub(b'"sequence":1,', b'"sequence":1,"Sequence":1,'),
     "invalid memory JSON"),
    ("duplicate-key-escaped", _sub(b'"sequence":1,', b'"sequence":1,"\\u0073equence":1,'),
     "invalid memory JSON"),
    ("sequence-as-string", _sub(b'"sequence":1', b'"sequence":"1"'), "invalid memory JSON"),
    ("sequence-as-float", _sub(b'"sequence":1', b'"sequence":1.0'), "invalid memory JSON"),
    ("sequence-exponent", _sub(b'"sequence":1', b'"sequence":1e0'), "invalid memory JSON"),
    ("sequence-huge-exponent", _sub(b'"sequence":1', b'"sequence":1e400'), "invalid memory JSON"),
    ("sequence-negative", _sub(b'"sequence":1', b'"sequence":-1'), "invalid memory JSON"),
    ("sequence-above-uint64", _sub(b'"sequence":1', b'"sequence":18446744073709551616'),
     "invalid memory JSON"),
    ("sequence-nan", _sub(b'"sequence":1', b'"sequence":NaN'), "invalid memory JSON"),
    ("record-as-array", _sub(b'"record":{', b'"record":[{')[:-1] + b"]}", "invalid memory JSON"),
    ("array-top-level", b"[" + REC + b"]", "invalid memory JSON"),
    ("bom", b"\xef\xbb\xbf" + REC, "invalid memory JSON"),
    ("truncated", REC[:-1], "invalid memory JSON"),
    ("trailing-object", REC + b"{}", "invalid memory JSON trailing data"),
    ("trailing-space-then-object", REC + b" {}", "invalid memory JSON trailing data"),
    ("trailing-garbage", REC + b"x", "invalid memory JSON trailing data"),
    ("trailing-second-copy", REC + REC, "invalid memory JSON trailing data"),
    ("invalid-utf8-in-content", _sub(b"inert", b"in\xffert"), "invalid memory JSON encoding"),
    ("invalid-utf8-overlong", _sub(b"inert", b"in\xc0\xafert"), "invalid memory JSON encoding"),
    ("invalid-utf8-encoded-surrogate", _sub(b"inert", b"in\xed\xa0\x80ert"),
     "invalid memory JSON encoding"),
    ("invalid-utf8-after-payload", REC + b"\xff", "invalid memory JSON encoding"),
    ("utf16", REC.decode("utf-8").encode("utf-16-le"), "invalid memory JSON"),
    ("uppercase-actor", _sub(b'"actor":"' + ACTOR.encode(), b'"actor":"' + ACTOR.upper().encode()),
     "memory actor is invalid"),
    ("protocol-nh", _sub(b'"hn-memory/0"', b'"nh-memory/0"'), "memory protocol is unsupported"),
    ("topics-null", _sub(b'"topics":["architecture","memory"]', b'"topics":null'),
     "memory record topics are required"),
    ("evidence-null", _sub(b'"evidence":["git:' + b"d" * 40 + b'","event:sha256:' + b"e" * 64 + b'"]',
                           b'"evidence":null'), "memory record evidence is required"),
    ("publicKey-padded", _sub(PUBLIC_KEY.encode(), PUBLIC_KEY.encode() + b"="),
     "memory publicKey is invalid"),
    ("actor-mismatch", _sub(b'"actor":"' + ACTOR.encode(), b'"actor":"' + b"0" * 64),
     "memory actor does not match publicKey"),
    ("sequence-zero", _sub(b'"sequence":1', b'"sequence":0'), "memory sequence must be positive"),
    ("unsorted-topics", _sub(b'["architecture","memory"]', b'["memory","architecture"]'),
     "memory record topics are invalid"),
    ("unsorted-paths", _sub(b'{"path":"README.md","blob":"' + b"b" * 40
                            + b'"},{"path":"docs/removed.md","blob":"absent"}',
                            b'{"path":"docs/removed.md","blob":"absent"},{"path":"README.md","blob":"'
                            + b"b" * 40 + b'"}'),
     "memory anchor paths must be sorted and unique"),
    ("invalid-and-non-canonical-reports-validation",
     b" " + _sub(b'"actor":"' + ACTOR.encode(), b'"actor":"' + ACTOR.upper().encode()),
     "memory actor is invalid"),
]


def test_mutation_ids_are_unique():
    ids = [m[0] for m in MUTATIONS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("payload,message", [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_mutation_is_rejected_with_exact_text(payload, message):
    assert payload != REC
    with pytest.raises(ValidationError) as exc:
        envelope.decode(payload)
    assert type(exc.value) is ValidationError
    assert exc.value.message == message
    assert str(exc.value) == message


def test_evidence_order_is_part_of_the_id():
    """Record evidence is kept in signed order (§1.5): swapping it is a different valid memory."""
    swapped = _sub(b'"git:' + b"d" * 40 + b'","event:sha256:' + b"e" * 64 + b'"',
                   b'"event:sha256:' + b"e" * 64 + b'","git:' + b"d" * 40 + b'"')
    env = envelope.decode(swapped)
    assert env.record.evidence == ("event:sha256:" + "e" * 64, "git:" + "d" * 40)
    assert grammar.memory_id(swapped) != vector("hn-record")["memoryId"]


def test_html_and_separator_escaping_in_built_envelope():
    """§1.3 escaping on a built envelope: HTML characters and U+2028/9 escaped, others raw."""
    base = fixture_envelope(**FIXTURES["hn-record"])
    content = "a<b>&c\u2028d\u2029e\u007f\u00e9\U0001f600\"\\\b\f\n\r\t\x00\x1f"
    env = base._replace(record=base.record._replace(content=content))
    data = envelope.encode(env)
    want = ('"content":"a\\u003cb\\u003e\\u0026c\\u2028d\\u2029e\u007f\u00e9\U0001f600'
            '\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f"').encode("utf-8")
    assert want in data
    assert envelope.decode(data) == env
