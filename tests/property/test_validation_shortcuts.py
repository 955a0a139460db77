"""Validation's shortcuts (f131) equal the code paths they replace, kept here as the reference.

- ``check_envelope`` remembers the checks of values that repeat across a stream (the author's
  fields and stream, a record's anchor, topics and evidence) once they passed: over any sequence
  of envelopes, valid or not, each gives the error the unremembered checks give, or none.
- ``decode``'s fast binding (``_fast_envelope``) is only an acceptance shortcut: for any payload,
  hostile spellings included, ``decode`` gives what the strict path gives (the envelope, or the
  error's exact text), with either codec.
- ``lean_memories`` builds its records at once: the memories equal those of the ``_replace``
  version, and share the same values.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_hn.core import canonical, envelope, grammar
from git_hn.core.chain import VerifiedMemory
from git_hn.core.envelope import Anchor, Applicability, PathAnchor, check_envelope, decode, encode, envelope_json
from git_hn.core.gostr import has_control, is_blank, is_utf8, utf8_len
from git_hn.core.limits import LIMITS, PROTOCOL
from git_hn.errors import ValidationError
from git_hn.store import verify

from tests.unit.test_envelope_rules import BASE, BASE_RECORD, OTHER_PK, digest, hexd


def _reference_check(env) -> None:
    """``check_envelope`` as it was before f131: every check asked every time."""
    if env.protocol != PROTOCOL:
        raise ValidationError("memory protocol is unsupported")
    if not grammar.is_actor(env.actor):
        raise ValidationError("memory actor is invalid")
    name = env.actor_name
    if (not is_utf8(name) or is_blank(name) or utf8_len(name) > LIMITS.max_actor_name
            or has_control(name)):
        raise ValidationError("memory actorName is invalid")
    envelope._check_public_key(env.public_key, env.actor)
    if not grammar.is_digest_id(env.stream):
        raise ValidationError("memory stream is invalid")
    if env.sequence < 1:
        raise ValidationError("memory sequence must be positive")
    if env.sequence == 1 and env.previous:
        raise ValidationError("memory previous must be absent at sequence 1")
    if env.sequence > 1 and not grammar.is_digest_id(env.previous):
        raise ValidationError("memory previous is required after sequence 1")
    if not grammar.is_timestamp(env.timestamp):
        raise ValidationError("memory timestamp is invalid")
    envelope.check_operation(env)
    record = env.record
    if record is not None:
        content = record.content
        if not is_utf8(content) or is_blank(content) or utf8_len(content) > LIMITS.max_content:
            raise ValidationError("memory record content is invalid")
        if record.topics is None:
            raise ValidationError("memory record topics are required")
        if record.evidence is None:
            raise ValidationError("memory record evidence is required")
        envelope.check_anchor(record.anchor)
        envelope.check_applicability(record)
        topics = record.topics
        if (len(topics) > LIMITS.max_topics
                or not all(grammar.is_topic(t, LIMITS.max_topic) for t in topics)
                or any(topics[i] >= topics[i + 1] for i in range(len(topics) - 1))):
            raise ValidationError("memory record topics are invalid")
        evidence = record.evidence
        if (len(evidence) > LIMITS.max_evidence or len(set(evidence)) != len(evidence)
                or not all(grammar.is_typed_evidence(e) for e in evidence)):
            raise ValidationError("memory record evidence is invalid")
        envelope.check_kind(record)


def _outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except ValidationError as exc:
        return ("error", exc.message)


_CHOICES = {  # a valid value first, then values that break one check each (or several)
    "protocol": ["hn-memory/0", "hn-memory/1"],
    "actor": [BASE.actor, hexd("A"), "x"],
    "actor_name": [BASE.actor_name, " ", "a\x01b", "é" * 200],
    "public_key": [BASE.public_key, OTHER_PK, "AAAA"],
    "stream": [BASE.stream, "sha256:XY", digest("0")],
    "sequence": [1, 2, 0],
    "previous": ["", digest("9")],
    "timestamp": [BASE.timestamp, "2026-13-01T00:00:00Z"],
    "content": [BASE_RECORD.content, " ", ""],
    "anchor": [BASE_RECORD.anchor, Anchor(hexd("a", 40)), Anchor("zz"),
               Anchor(hexd("a", 40), (PathAnchor("b", "absent"), PathAnchor("a", "absent")))],
    "applicability": [BASE_RECORD.applicability, Applicability("exact"), Applicability("never")],
    "topics": [BASE_RECORD.topics, (), ("b", "a"), ("UPPER",), None],
    "evidence": [BASE_RECORD.evidence, (), ("git:zz",), ("event:" + digest("e"),) * 2, None],
}

_ENVELOPES = st.fixed_dictionaries({k: st.sampled_from(v) for k, v in _CHOICES.items()})


def _build(choice: dict):
    rec = BASE_RECORD._replace(content=choice["content"], anchor=choice["anchor"],
                               applicability=choice["applicability"], topics=choice["topics"],
                               evidence=choice["evidence"])
    return BASE._replace(protocol=choice["protocol"], actor=choice["actor"], actor_name=choice["actor_name"],
                         public_key=choice["public_key"], stream=choice["stream"], sequence=choice["sequence"],
                         previous=choice["previous"], timestamp=choice["timestamp"], record=rec)


@given(st.lists(_ENVELOPES, min_size=1, max_size=12))
def test_remembered_checks_give_every_outcome_of_the_full_checks(choices):
    envelope._PASSED.clear()
    for choice in choices:
        e = _build(choice)
        assert _outcome(check_envelope, e) == _outcome(_reference_check, e)
        assert _outcome(check_envelope, e) == _outcome(_reference_check, e)  # (and asked again, remembered)


def test_a_value_that_passed_for_one_envelope_still_fails_where_another_check_fails():
    envelope._PASSED.clear()
    check_envelope(BASE)
    assert ("topics", BASE_RECORD.topics) in envelope._PASSED
    broken = BASE._replace(stream="sha256:XY")
    assert _outcome(check_envelope, broken) == ("error", "memory stream is invalid")


_HOSTILE_VALUES = [None, 0, 1.5, -1, True, [], {}, ["x"], [1], {"a": "b"}, "", "x", "<&>", "\u2028", "\ud800"]


@given(st.sampled_from(["protocol", "operation", "actor", "actorName", "publicKey", "stream", "sequence",
                        "timestamp", "previous", "target", "evidence", "record.kind", "record.content",
                        "record.anchor", "record.anchor.commit", "record.anchor.paths", "record.anchor.subject",
                        "record.applicability", "record.applicability.mode", "record.topics", "record.evidence",
                        "record.attemptOutcome", "record.handoff", "record.extra"]),
       st.sampled_from(_HOSTILE_VALUES), st.booleans())
def test_fast_binding_decides_as_the_strict_path(field, value, fast):
    doc = json.loads(encode(BASE))
    node = doc
    *path, last = field.split(".")
    for step in path:
        node = node[step]
    node[last] = value
    payload = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    saved = canonical._FAST
    try:
        canonical._FAST = canonical.load_fast_codec() if fast else None
        assert _outcome(decode, payload) == _outcome(envelope._decode_strict, payload)
    finally:
        canonical._FAST = saved


@pytest.mark.parametrize("fast", [False, True])
def test_fast_binding_accepts_the_canonical_payload_as_the_strict_path_binds_it(fast):
    saved = canonical._FAST
    try:
        canonical._FAST = canonical.load_fast_codec() if fast else None
        payload = encode(BASE)
        got = envelope._fast_envelope(payload)
        assert got == envelope._decode_strict(payload) == BASE
        assert type(got) is envelope.Envelope and type(got.record.anchor.paths[0]) is PathAnchor
        assert envelope_json(got) == envelope_json(BASE)
    finally:
        canonical._FAST = saved


def _reference_lean(items: list) -> list:
    """``lean_memories`` as it was before f131 (``_replace`` field by field)."""
    shared: dict = {}

    def one(value):
        try:
            return shared.setdefault((type(value), value), value)
        except TypeError:
            return value

    out = []
    before = None
    for m in items:
        if type(m) is not VerifiedMemory:
            out.append(m)
            before = None
            continue
        env = m.envelope
        rec = env.record
        if rec is not None:
            rec = rec._replace(kind=one(rec.kind), anchor=one(rec.anchor), applicability=one(rec.applicability),
                               topics=one(rec.topics), evidence=one(rec.evidence))
        previous = before if before is not None and env.previous == before else one(env.previous)
        env = env._replace(protocol=one(env.protocol), operation=one(env.operation), actor=one(env.actor),
                           actor_name=one(env.actor_name), public_key=one(env.public_key),
                           stream=one(env.stream), previous=previous, record=rec)
        out.append(VerifiedMemory(m.memory_id, m.commit, env, b"", m.signature))
        before = m.memory_id
    return out


def _chain(n: int, retract_at: int = -1) -> list:
    out, previous = [], ""
    for i in range(n):
        e = BASE._replace(sequence=i + 1, previous=previous, timestamp=f"2026-01-0{1 + i % 9}T00:00:00Z")
        if i == retract_at:
            e = e._replace(operation="retract", record=None, target=digest("f"), reason="incorrect")
        payload = encode(e)
        mid = grammar.memory_id(payload)
        out.append(VerifiedMemory(mid, hexd(str(i % 10), 40), decode(payload), payload, "sig"))
        previous = mid
    return out


@pytest.mark.parametrize("n,retract_at", [(1, -1), (5, -1), (6, 3)])
def test_lean_memories_equal_the_field_by_field_ones(n, retract_at):
    items = _chain(n, retract_at)
    items.insert(2, ValidationError("memory source r: broken"))
    got, want = verify.lean_memories(items), _reference_lean(items)
    assert got == want
    assert [type(m) for m in got] == [type(m) for m in want]
    mems = [m for m in got if type(m) is VerifiedMemory]
    assert all(m.payload == b"" for m in mems)
    assert all(type(m.envelope) is envelope.Envelope for m in mems)
    # equal values are one object, as before: the actor and the anchor of every memory
    assert len({id(m.envelope.actor) for m in mems}) == 1
    records = [m.envelope.record for m in mems if m.envelope.record is not None]
    assert len({id(r.anchor) for r in records}) == 1
    # a previous link equal to the memory before's ID is that ID itself
    pairs = [(a, b) for a, b in zip(got, got[1:]) if type(a) is VerifiedMemory and type(b) is VerifiedMemory]
    assert pairs if n > 1 else not pairs
    assert all(b.envelope.previous is a.memory_id for a, b in pairs)
