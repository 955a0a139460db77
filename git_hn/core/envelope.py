"""The hn-memory/0 envelope and record: model, canonical encoding, strict decoding, validation.

Pure: bytes and values in, immutable records (NamedTuple) or ``ValidationError`` out (CONTRACT §1.2–§1.6).
A payload is accepted only if it is exactly the canonical encoding of a valid envelope; this is what
makes the memory ID (the SHA-256 of the bytes) a stable name that both implementations agree on,
and it defends against *malleability*: two byte strings that mean the same memory would otherwise
get two IDs and two signatures.

Decoding mimics Go's ``encoding/json`` where that decides which error appears (case-insensitive key
binding, ``null`` as the zero value, lone surrogate escapes as U+FFFD), with git-hn's hardening that
a duplicate key is refused at parse time (§11(e)).
"""

from __future__ import annotations

from ..errors import ValidationError
from . import canonical, grammar
from .gostr import has_control, is_blank, is_utf8, utf8_len
from .keys import b64_decode_go, b64_encode, is_weak_public_key
from .limits import HANDOFF_LISTS, LIMITS, PROTOCOL
from .strictjson import JsonFloat, PayloadError, fold_key, parse_payload, scanner
from .tuples import NamedTuple


class PathAnchor(NamedTuple):
    path: str
    blob: str


class Anchor(NamedTuple):
    commit: str
    paths: tuple[PathAnchor, ...] = ()
    subject: str = ""


class Applicability(NamedTuple):
    mode: str
    subject: str = ""


class Handoff(NamedTuple):
    completed: tuple[str, ...] | None = ()
    assumptions: tuple[str, ...] | None = ()
    blockers: tuple[str, ...] | None = ()
    nextActions: tuple[str, ...] | None = ()

    def lists(self):
        return (self.completed, self.assumptions, self.blockers, self.nextActions)


class Record(NamedTuple):
    kind: str
    content: str
    anchor: Anchor
    applicability: Applicability
    topics: tuple[str, ...] | None = ()
    evidence: tuple[str, ...] | None = ()
    attempt_outcome: str = ""
    handoff: Handoff | None = None


class Envelope(NamedTuple):
    protocol: str
    operation: str
    actor: str
    actor_name: str
    public_key: str
    stream: str
    sequence: int
    timestamp: str
    previous: str = ""
    record: Record | None = None
    target: str = ""
    reason: str = ""
    evidence: tuple[str, ...] | None = None


# ---------------------------------------------------------------------------------------------
# Encoding


def anchor_json(anchor: Anchor) -> dict:
    out = {"commit": anchor.commit}
    if anchor.paths:
        out["paths"] = [{"path": p.path, "blob": p.blob} for p in anchor.paths]
    if anchor.subject:
        out["subject"] = anchor.subject
    return out


def record_json(record: Record) -> dict:
    out = {
        "kind": record.kind,
        "content": record.content,
        "anchor": anchor_json(record.anchor),
        "applicability": {"mode": record.applicability.mode},
        "topics": list(record.topics or ()),
        "evidence": list(record.evidence or ()),
    }
    if record.applicability.subject:
        out["applicability"]["subject"] = record.applicability.subject
    if record.attempt_outcome:
        out["attemptOutcome"] = record.attempt_outcome
    if record.handoff is not None:
        out["handoff"] = {name: list(v or ()) for name, v in zip(HANDOFF_LISTS, record.handoff.lists())}
    return out


def envelope_json(env: Envelope) -> dict:
    out = {
        "protocol": env.protocol,
        "operation": env.operation,
        "actor": env.actor,
        "actorName": env.actor_name,
        "publicKey": env.public_key,
        "stream": env.stream,
        "sequence": env.sequence,
        "timestamp": env.timestamp,
    }
    if env.previous:
        out["previous"] = env.previous
    if env.record is not None:
        out["record"] = record_json(env.record)
    if env.target:
        out["target"] = env.target
    if env.reason:
        out["reason"] = env.reason
    if env.evidence:
        out["evidence"] = list(env.evidence)
    return out


def encode(env: Envelope) -> bytes:
    """The canonical ``memory.json`` bytes (CONTRACT §1.3)."""
    return canonical.compact_plain(envelope_json(env))


# ---------------------------------------------------------------------------------------------
# Decoding (Go semantics)


class _Bad(ValidationError):
    """Internal: a field does not bind; the caller turns it into the §1.4 message."""

    def __init__(self, message: str = "memory envelope does not bind"):
        super().__init__(message)


def _fields(obj, names: tuple[str, ...]) -> dict:
    """Bind a JSON object to Go struct fields: case-insensitive names, unknown keys refused."""
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise _Bad
    folded = {n.lower(): n for n in names}
    out = {}
    for key, value in obj.items():
        name = folded.get(fold_key(key))
        if name is None or name in out:
            raise _Bad
        out[name] = value
    return out


def _str(value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or isinstance(value, JsonFloat):
        raise _Bad
    return value


def _strs(value) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _Bad
    return tuple(_str(v) for v in value)


def _uint64(value) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or isinstance(value, JsonFloat):
        raise _Bad
    if value < 0 or value > 2**64 - 1:
        raise _Bad
    return value


def _anchor(obj) -> Anchor:
    f = _fields(obj, ("commit", "paths", "subject"))
    paths = f.get("paths")
    entries = ()
    if paths is not None:
        if not isinstance(paths, list):
            raise _Bad
        items = []
        for p in paths:
            pf = _fields(p, ("path", "blob"))
            items.append(PathAnchor(_str(pf.get("path")), _str(pf.get("blob"))))
        entries = tuple(items)
    return Anchor(_str(f.get("commit")), entries, _str(f.get("subject")))


def _record(obj) -> Record | None:
    if obj is None:
        return None
    f = _fields(obj, ("kind", "content", "anchor", "applicability", "topics", "evidence",
                      "attemptOutcome", "handoff"))
    app = _fields(f.get("applicability"), ("mode", "subject"))
    handoff = None
    if f.get("handoff") is not None:
        h = _fields(f["handoff"], HANDOFF_LISTS)
        handoff = Handoff(*(_strs(h.get(n)) for n in HANDOFF_LISTS))
    return Record(
        kind=_str(f.get("kind")),
        content=_str(f.get("content")),
        anchor=_anchor(f.get("anchor")),
        applicability=Applicability(_str(app.get("mode")), _str(app.get("subject"))),
        topics=_strs(f.get("topics")),
        evidence=_strs(f.get("evidence")),
        attempt_outcome=_str(f.get("attemptOutcome")),
        handoff=handoff,
    )


def _envelope(obj) -> Envelope:
    f = _fields(obj, ("protocol", "operation", "actor", "actorName", "publicKey", "stream",
                      "sequence", "timestamp", "previous", "record", "target", "reason",
                      "evidence"))
    return Envelope(
        protocol=_str(f.get("protocol")),
        operation=_str(f.get("operation")),
        actor=_str(f.get("actor")),
        actor_name=_str(f.get("actorName")),
        public_key=_str(f.get("publicKey")),
        stream=_str(f.get("stream")),
        sequence=_uint64(f.get("sequence")),
        timestamp=_str(f.get("timestamp")),
        previous=_str(f.get("previous")),
        record=_record(f.get("record")),
        target=_str(f.get("target")),
        reason=_str(f.get("reason")),
        evidence=_strs(f.get("evidence")),
    )


_ENV_KEYS = frozenset(("protocol", "operation", "actor", "actorName", "publicKey", "stream",
                       "sequence", "timestamp", "previous", "record", "target", "reason", "evidence"))
_REC_KEYS = frozenset(("kind", "content", "anchor", "applicability", "topics", "evidence",
                       "attemptOutcome", "handoff"))


_STR = frozenset((str,))
_new = tuple.__new__  # a record built from its fields in order, as its class would (no call of its ``__new__``)


def _fast_texts(v) -> tuple[str, ...]:
    if type(v) is not list or not _STR.issuperset(map(type, v)):
        raise _Bad
    return tuple(v)


_SCAN = None  # strictjson.scanner(): json.loads's own, built at the first fast decode


def _fast_envelope(payload: bytes) -> Envelope:
    """Bind a payload that is *probably* canonical, with the C JSON scanner and no hooks.

    Only an acceptance shortcut: ``decode`` uses it only if validation passes and the bytes
    re-encode exactly, which rules out duplicate keys, case variants, nulls, escapes of lone
    surrogates and every other non-canonical spelling. Anything else falls back to the strict
    path, which decides the error. Every text field is a ``str`` (checked at once, by the set of
    the fields' types).
    """
    fast = canonical.fast_codec()
    if fast is not None:
        doc = fast.loads(payload)
    else:
        global _SCAN
        if _SCAN is None:
            _SCAN = scanner()
        text = payload.decode("utf-8")
        doc, end = _SCAN(text, 0)  # (what ``json.loads`` parses with, without importing json)
        if end != len(text):
            raise _Bad
    if type(doc) is not dict or not doc.keys() <= _ENV_KEYS:
        raise _Bad
    rec = doc.get("record")
    record = None
    if rec is not None:
        if type(rec) is not dict or not rec.keys() <= _REC_KEYS:
            raise _Bad
        anchor, app = rec["anchor"], rec["applicability"]
        texts = [rec["kind"], rec["content"], anchor["commit"], anchor.get("subject", ""), app["mode"],
                 app.get("subject", ""), rec.get("attemptOutcome", "")]
        paths = tuple([_new(PathAnchor, (p["path"], p["blob"])) for p in anchor.get("paths", ())])
        for p in paths:
            texts += p
        if not _STR.issuperset(map(type, texts)):
            raise _Bad
        handoff = rec.get("handoff")
        if handoff is not None:
            handoff = _new(Handoff, [_fast_texts(handoff[n]) for n in HANDOFF_LISTS])
        record = _new(Record, (
            texts[0], texts[1], _new(Anchor, (texts[2], paths, texts[3])), _new(Applicability, (texts[4], texts[5])),
            _fast_texts(rec["topics"]), _fast_texts(rec["evidence"]), texts[6], handoff))
    seq = doc["sequence"]
    if type(seq) is not int:
        raise _Bad
    evidence = doc.get("evidence")
    fields = (doc["protocol"], doc["operation"], doc["actor"], doc["actorName"], doc["publicKey"], doc["stream"],
              seq, doc["timestamp"], doc.get("previous", ""), record, doc.get("target", ""), doc.get("reason", ""),
              None if evidence is None else _fast_texts(evidence))
    if not _STR.issuperset(map(type, fields[:6])) or not _STR.issuperset(map(type, fields[7:9])) \
            or not _STR.issuperset(map(type, fields[10:12])):
        raise _Bad
    return _new(Envelope, fields)


def decode(payload: bytes) -> Envelope:
    """CONTRACT §1.4: strict decode, validate, and require the canonical bytes."""
    try:
        env = _fast_envelope(payload)
        check_envelope(env)
        if encode(env) == payload:
            return env
    except Exception:  # noqa: BLE001 - any doubt goes to the strict path, which decides
        pass
    return _decode_strict(payload)


def _decode_strict(payload: bytes) -> Envelope:
    """§1.4 step by step with Go's decoding semantics; raises the precise error."""
    trailing = False
    try:
        value = parse_payload(payload, LIMITS.max_json_depth)
    except PayloadError as exc:
        if exc.step != "trailing":
            raise ValidationError("invalid memory JSON encoding" if exc.step == "encoding"
                                  else "invalid memory JSON") from None
        value, trailing = exc.value, True
    try:
        env = _envelope(value)
    except _Bad:
        raise ValidationError("invalid memory JSON") from None
    if trailing:  # §1.4: binding the first value (step 2) precedes the trailing check (step 3)
        raise ValidationError("invalid memory JSON trailing data")
    check_envelope(env)
    if encode(env) != payload:
        raise ValidationError("memory JSON is not canonical")
    return env


# ---------------------------------------------------------------------------------------------
# Validation (CONTRACT §1.5, in the contract's order)


_KEY_CHECKED: dict[tuple[str, str | None], bytes] = {}


def check_public_key(public_key: str, actor: str | None = None) -> bytes:
    """§1.5 step 4 (with §11(e)); memoized per (key, actor) once it has passed."""
    got = _KEY_CHECKED.get((public_key, actor))
    if got is not None:
        return got
    raw = _check_public_key(public_key, actor)
    if len(_KEY_CHECKED) > 4096:
        _KEY_CHECKED.clear()
    _KEY_CHECKED[(public_key, actor)] = raw
    return raw


def _check_public_key(public_key: str, actor: str | None) -> bytes:
    raw = b64_decode_go(public_key)
    if raw is None or len(raw) != 32:
        raise ValidationError("memory publicKey is invalid")
    if b64_encode(raw) != public_key:
        raise ValidationError("memory publicKey is not canonical")
    if is_weak_public_key(raw):
        raise ValidationError("memory publicKey is weak")
    if actor is not None:
        from . import hashing

        if hashing.sha256(raw).hexdigest() != actor:
            raise ValidationError("memory actor does not match publicKey")
    return raw


# Values that repeat across a stream's memories (its author's fields and stream, a record's
# topics, evidence and anchor), remembered once their checks passed: a check that passed raises
# nothing when asked again of equal values, so skipping it leaves every outcome and the first
# error as they were. ~40% of a memory's checks (a sync of 20,000 memories asked each again).
_PASSED: set = set()


def _remember(key) -> None:
    if len(_PASSED) > 4096:
        _PASSED.clear()
    _PASSED.add(key)


def check_envelope(env: Envelope) -> None:
    head = ("head", env.protocol, env.actor, env.actor_name, env.public_key, env.stream)
    if head not in _PASSED:
        _check_head(env)
        _remember(head)
    if env.sequence < 1:
        raise ValidationError("memory sequence must be positive")
    if env.sequence == 1 and env.previous:
        raise ValidationError("memory previous must be absent at sequence 1")
    if env.sequence > 1 and not grammar.is_digest_id(env.previous):
        raise ValidationError("memory previous is required after sequence 1")
    if not grammar.is_timestamp(env.timestamp):
        raise ValidationError("memory timestamp is invalid")
    check_operation(env)
    if env.record is not None:
        check_record(env.record)


def _check_head(env: Envelope) -> None:
    """``check_envelope``'s first checks: protocol, actor, actorName, publicKey, stream."""
    if env.protocol != PROTOCOL:
        raise ValidationError("memory protocol is unsupported")
    if not grammar.is_actor(env.actor):
        raise ValidationError("memory actor is invalid")
    name = env.actor_name
    if (not is_utf8(name) or is_blank(name) or utf8_len(name) > LIMITS.max_actor_name
            or has_control(name)):
        raise ValidationError("memory actorName is invalid")
    check_public_key(env.public_key, env.actor)
    if not grammar.is_digest_id(env.stream):
        raise ValidationError("memory stream is invalid")


def check_operation(env: Envelope) -> None:
    op = env.operation
    if op not in ("record", "supersede", "retract", "challenge"):
        raise ValidationError("memory operation is unsupported")
    has_evidence = bool(env.evidence)
    if op == "record":
        ok = env.record is not None and not env.target and not env.reason and not has_evidence
    elif op == "supersede":
        ok = (env.record is not None and grammar.is_digest_id(env.target) and not env.reason
              and not has_evidence)
    else:
        ok = (env.record is None and grammar.is_digest_id(env.target)
              and grammar.is_token(env.reason, LIMITS.max_reason))
        if op == "retract":
            ok = ok and not has_evidence
    if not ok:
        raise ValidationError(f"memory {op} operation has invalid fields")
    if op == "challenge" and env.evidence:
        items = env.evidence
        if (len(items) > LIMITS.max_evidence or len(set(items)) != len(items)
                or not all(grammar.is_typed_evidence(e) for e in items)):
            raise ValidationError("memory challenge evidence is invalid")


def check_record(record: Record) -> None:
    content = record.content
    if not is_utf8(content) or is_blank(content) or utf8_len(content) > LIMITS.max_content:
        raise ValidationError("memory record content is invalid")
    if record.topics is None:
        raise ValidationError("memory record topics are required")
    if record.evidence is None:
        raise ValidationError("memory record evidence is required")
    anchor = ("anchor", record.anchor)
    if anchor not in _PASSED:
        check_anchor(record.anchor)
        _remember(anchor)
    check_applicability(record)
    topics = record.topics
    if ("topics", topics) not in _PASSED:
        if (len(topics) > LIMITS.max_topics
                or not all(grammar.is_topic(t, LIMITS.max_topic) for t in topics)
                or any(topics[i] >= topics[i + 1] for i in range(len(topics) - 1))):
            raise ValidationError("memory record topics are invalid")
        _remember(("topics", topics))
    evidence = record.evidence
    if ("evidence", evidence) not in _PASSED:
        if (len(evidence) > LIMITS.max_evidence or len(set(evidence)) != len(evidence)
                or not all(grammar.is_typed_evidence(e) for e in evidence)):
            raise ValidationError("memory record evidence is invalid")
        _remember(("evidence", evidence))
    check_kind(record)


def check_anchor(anchor: Anchor) -> None:
    if not grammar.is_oid(anchor.commit):
        raise ValidationError("memory anchor commit is invalid")
    if anchor.subject and not grammar.is_typed_subject(anchor.subject):
        raise ValidationError("memory anchor subject is invalid")
    paths = anchor.paths
    if len(paths) > LIMITS.max_paths:
        raise ValidationError("memory anchor paths exceed their bound")
    for entry in paths:
        if not grammar.is_path(entry.path, LIMITS.max_path):
            raise ValidationError("memory anchor path is invalid")
    encoded = [p.path.encode("utf-8") for p in paths]
    if any(encoded[i] >= encoded[i + 1] for i in range(len(encoded) - 1)):
        raise ValidationError("memory anchor paths must be sorted and unique")
    for entry in paths:
        if not grammar.is_blob(entry.blob):
            raise ValidationError("memory anchor path blob is invalid")
    if sum(len(e) for e in encoded) > LIMITS.max_total_path:
        raise ValidationError("memory anchor paths exceed their bound")


def check_applicability(record: Record) -> None:
    app = record.applicability
    if app.mode in ("exact", "descendants"):
        if app.subject:
            raise ValidationError("memory applicability subject is prohibited")
    elif app.mode == "subject":
        if not (grammar.is_typed_subject(app.subject) and app.subject == record.anchor.subject):
            raise ValidationError("memory applicability subject must match anchor")
    else:
        raise ValidationError("memory applicability mode is unsupported")


def check_kind(record: Record) -> None:
    kind = record.kind
    outcome, handoff = record.attempt_outcome, record.handoff
    if kind in ("observation", "decision", "assumption"):
        ok = not outcome and handoff is None
    elif kind == "attempt":
        ok = grammar.is_token(outcome, LIMITS.max_outcome) and handoff is None
    elif kind == "verification":
        ok = len(record.evidence or ()) >= 1 and not outcome and handoff is None
    elif kind == "handoff":
        ok = handoff is not None and not outcome and _handoff_ok(handoff)
    else:
        raise ValidationError("memory record kind is unsupported")
    if not ok:
        raise ValidationError(f"memory {kind} record has invalid fields")


def _handoff_ok(handoff: Handoff) -> bool:
    total = 0
    for entries in handoff.lists():
        if entries is None or len(entries) > LIMITS.max_handoff_entries:
            return False
        for entry in entries:
            n = utf8_len(entry)
            if not is_utf8(entry) or is_blank(entry) or n > LIMITS.max_handoff_entry:
                return False
            total += n
    return total <= LIMITS.max_handoff_total
