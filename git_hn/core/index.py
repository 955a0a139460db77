"""The private index document (CONTRACT §8.2, §8.5): build, encode, and validate on load.

Pure. The index is derived state: every row comes from a projection of verified memories, and a
loaded index is accepted only if it is exactly what an encoder would have written for rows that
pass these checks (fail closed). Validation defends against *index poisoning*: a hand-edited or
truncated index must never be served as if it were derived from verified streams. A consistent
edit (content, digest and tokens together) passes these structural checks; ``store.index``
therefore also verifies every returned row against Git before recall serves it (§11(d)).
"""

from __future__ import annotations

from ..errors import LocalStateError
from . import canonical
from .envelope import Anchor, Applicability, Handoff, PathAnchor, Record, check_record
from .gostr import tokens
from .grammar import content_digest, is_actor, is_digest_id, is_oid
from .limits import HANDOFF_LISTS, LIFECYCLES, TRUSTS
from .projection import APPLICABILITIES, EVIDENCE_CLASSES

VERSION = 0
TOP_KEYS = ("version", "sourceFingerprint", "records", "tokens")
ROW_KEYS = ("id", "stream", "actor", "signedTimestamp", "kind", "contentDigest", "anchor", "signature",
            "lifecycle", "challengers", "successors", "retractions", "applicability", "evidence",
            "evidenceDetails", "dependencies", "trust", "data")
DETAIL_KEYS = ("type", "requested", "ownerId", "status", "reason")
DEP_KINDS = ("lifecycle-target", "anchor-commit", "query-commit", "anchor-ancestry", "evidence-git",
             "evidence-event", "evidence-memory")


class IndexError_(LocalStateError):
    """A refused index load: ``kind`` is missing, corrupt or incompatible (CONTRACT §8.5)."""

    def __init__(self, kind: str, cause: str = ""):
        super().__init__(f"memory index {kind}" + (f": {cause}" if cause else ""))
        self.kind = kind
        self.cause = cause


def row_text(row: dict) -> str:
    data = row["data"]
    return data["content"] + "\n" + "\n".join(data["topics"])


def build_tokens(rows: list[dict], row_tokens: list[list[str]] | None = None) -> list[dict]:
    """Token postings of rows sorted by ID (§8.2); ``row_tokens`` are each row's tokens when
    the caller already has them."""
    if row_tokens is None:
        row_tokens = [tokens(row_text(row)) for row in rows]
    postings: dict[str, list[str]] = {}
    for row, toks in zip(rows, row_tokens):
        ident = row["id"]
        for tok in toks:
            got = postings.get(tok)
            if got is None:
                postings[tok] = [ident]
            else:
                got.append(ident)
    # rows arrive sorted by ID, so every postings list is already sorted and unique
    return [{"token": t, "memoryIds": ids} for t, ids in sorted(postings.items())]


def build(fingerprint: str, rows: list[dict], row_tokens: list[list[str]] | None = None) -> dict:
    """The index document for rows already in index-row form (§8.2), sorted by ID."""
    if any(rows[i]["id"] >= rows[i + 1]["id"] for i in range(len(rows) - 1)):
        order = sorted(range(len(rows)), key=lambda i: rows[i]["id"])
        rows = [rows[i] for i in order]
        row_tokens = None if row_tokens is None else [row_tokens[i] for i in order]
    return {"version": VERSION, "sourceFingerprint": fingerprint, "records": rows,
            "tokens": build_tokens(rows, row_tokens)}


def encode(doc: dict) -> bytes:
    return canonical.indented_large(doc)


# ---------------------------------------------------------------------------------------------
# load-time validation (§8.5)


def _corrupt(cause: str) -> IndexError_:
    return IndexError_("corrupt", cause)


def _keys(obj, keys, where):
    if not isinstance(obj, dict) or tuple(obj) != keys:
        raise _corrupt(f"invalid {where}")


def _sorted_ids(items, where) -> None:
    if not isinstance(items, list) or not all(isinstance(i, str) and is_digest_id(i) for i in items) \
            or any(items[i] >= items[i + 1] for i in range(len(items) - 1)):
        raise _corrupt(f"invalid {where}")


def _record_from_data(data) -> Record:
    if not isinstance(data, dict):
        raise _corrupt("invalid data")
    try:
        anchor = data["anchor"]
        paths = tuple(PathAnchor(p["path"], p["blob"]) for p in anchor.get("paths", ()))
        handoff = data.get("handoff")
        if handoff is not None:
            handoff = Handoff(*(tuple(handoff[n]) for n in HANDOFF_LISTS))
        app = data["applicability"]
        return Record(data["kind"], data["content"], Anchor(anchor["commit"], paths, anchor.get("subject", "")),
                      Applicability(app["mode"], app.get("subject", "")), tuple(data["topics"]),
                      tuple(data["evidence"]), data.get("attemptOutcome", ""), handoff)
    except (KeyError, TypeError, AttributeError):
        raise _corrupt("invalid data") from None


def check_row(row) -> None:
    from .envelope import record_json
    from .projection import normalized_record_json
    from ..errors import ValidationError

    _keys(row, ROW_KEYS, "record")
    for key in ("id", "stream", "contentDigest"):
        if not isinstance(row[key], str) or not is_digest_id(row[key]):
            raise _corrupt(f"invalid {key}")
    if not isinstance(row["actor"], str) or not is_actor(row["actor"]):
        raise _corrupt("invalid actor")
    if row["signature"] != "valid":
        raise _corrupt("invalid signature")
    if row["lifecycle"] not in LIFECYCLES or row["applicability"] not in APPLICABILITIES \
            or row["evidence"] not in EVIDENCE_CLASSES or row["trust"] not in TRUSTS:
        raise _corrupt("unknown class")
    for key in ("challengers", "successors", "retractions"):
        _sorted_ids(row[key], key)
    record = _record_from_data(row["data"])
    try:
        check_record(record)
    except ValidationError as exc:
        raise _corrupt(f"invalid data: {exc.message}") from None
    if normalized_record_json(record) != row["data"] or record_json(record) != row["data"]:
        raise _corrupt("data is not normalized")
    if row["kind"] != record.kind or row["anchor"] != row["data"]["anchor"]:
        raise _corrupt("row does not match its data")
    if row["contentDigest"] != content_digest(record.content):
        raise _corrupt("content digest does not match")
    if not isinstance(row["signedTimestamp"], str):
        raise _corrupt("invalid signedTimestamp")
    from .grammar import is_timestamp

    if not is_timestamp(row["signedTimestamp"]):
        raise _corrupt("invalid signedTimestamp")
    details = row["evidenceDetails"]
    if not isinstance(details, list):
        raise _corrupt("invalid evidenceDetails")
    for d in details:
        _keys(d, DETAIL_KEYS, "evidence detail")
        if d["ownerId"] != row["id"] or d["status"] not in EVIDENCE_CLASSES \
                or not all(isinstance(d[k], str) for k in DETAIL_KEYS):
            raise _corrupt("invalid evidence detail")
    keys = [(d["type"], d["requested"], d["ownerId"]) for d in details]
    if keys != sorted(keys):
        raise _corrupt("evidence details are not sorted")
    deps = row["dependencies"]
    if not isinstance(deps, list):
        raise _corrupt("invalid dependencies")
    for d in deps:
        if not isinstance(d, dict) or d.get("kind") not in DEP_KINDS:
            raise _corrupt("invalid dependency")
        expected = ("kind", "ownerId", "stream") + (("operation",) if "operation" in d else ()) + \
            ("missingId", "reason")
        _keys(d, expected, "dependency")
        if not all(isinstance(v, str) and v for v in d.values()):
            raise _corrupt("invalid dependency")
    order = [(d["missingId"], d["kind"], d.get("operation", ""), d["ownerId"], d["stream"], d["reason"])
             for d in deps]
    if order != sorted(order):
        raise _corrupt("dependencies are not sorted")
    if row["applicability"] == "applicable" and row["evidence"] == "resolved" and not is_oid(record.anchor.commit):
        raise _corrupt("invalid anchor")  # pragma: no cover - check_record already refuses it


def validate(doc) -> dict:
    """Check a parsed index document against §8.5; returns it or raises ``IndexError_``."""
    if not isinstance(doc, dict):
        raise _corrupt("invalid document")
    if "version" in doc and doc["version"] != VERSION:
        raise IndexError_("incompatible", f"version {doc['version']!r}")
    _keys(doc, TOP_KEYS, "document")
    if not isinstance(doc["sourceFingerprint"], str) or not is_digest_id(doc["sourceFingerprint"]):
        raise _corrupt("invalid sourceFingerprint")
    rows = doc["records"]
    if not isinstance(rows, list):
        raise _corrupt("invalid records")
    for row in rows:
        check_row(row)
    ids = [r["id"] for r in rows]
    if any(ids[i] >= ids[i + 1] for i in range(len(ids) - 1)):
        raise _corrupt("records are not sorted and unique")
    if doc["tokens"] != build_tokens(rows):
        raise _corrupt("token postings do not match the records")
    return doc


def decode(data: bytes) -> dict:
    """Parse and validate index bytes; the bytes must be exactly the canonical encoding."""
    from .strictjson import read_document

    try:
        doc = read_document(data, prefix="", max_bytes=len(data) + 1, error=LocalStateError,
                            max_depth=16)
    except LocalStateError as exc:
        raise _corrupt(exc.message) from None
    validate(doc)
    if encode(doc) != data:
        raise _corrupt("noncanonical encoding")
    return doc
