"""Bounded recall (CONTRACT §7): request normalization, query digest, cursors, filtering,
ordering and paging over projected rows, and the output document.

Pure: rows come in already projected (index-row form, §8.2) and the source fingerprint and policy
digest are passed in. Recall is read-only by construction: nothing here can fetch, execute, write a
ref or change a policy.

Two defences live here. *Context flooding*: the answer is bounded both in records and in encoded
content bytes, measured exactly, and a record that does not fit is never cut (a truncated memory
could change its meaning), so recall fails instead and asks for an explicit bound. *Cursor
replay across contexts*: a cursor is bound by digest to the normalized request, the exact sources
and the policy, so it cannot be replayed against other filters, bounds, refs or trust settings.
"""

from __future__ import annotations


from ..errors import InputError
from . import canonical, hashing, hints, search
from .gostr import has_control, token_sequence
from .grammar import SUBJECT_FORM, is_actor, is_digest_id, is_path, is_topic, is_typed_subject, normalize_topic
from .limits import KINDS, LIFECYCLES, LIMITS, PATH_RULE, RECALL_MAX_CONTENT, TRUSTS, WARNING, path_rule
from .projection import APPLICABILITY_RANK, LIFECYCLE_RANK
from .strictjson import JsonFloat, read_document
from .tuples import NamedTuple

DEFAULT_MAX_RECORDS = 20
DEFAULT_MAX_CONTENT = RECALL_MAX_CONTENT
QUERY_DOMAIN = "hn-memory-recall-query-v0"
CURSOR_DOMAIN = b"hn-memory-recall-cursor-v0"
SOURCE_DOMAIN = b"hn-memory-index-source-v0"


class RecallRequest(NamedTuple):
    at_commit: str
    subject: str = ""
    path: str = ""
    topic: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    actor: tuple[str, ...] = ()
    lifecycle: tuple[str, ...] = ()
    trust: tuple[str, ...] = ()
    query: str = ""
    max_records: int = DEFAULT_MAX_RECORDS
    max_content_bytes: int = DEFAULT_MAX_CONTENT
    cursor: str = ""
    include_untrusted: bool = False
    rank: str = ""  # git-hn: "" (the §7.7 order) or "relevance" (core.search)
    max_bytes: int = 0  # git-hn: a bound on the whole answer (``fit``); 0: none (the contract's request)


def _sorted_unique(items) -> tuple[str, ...]:
    return tuple(sorted(set(items), key=lambda s: s.encode("utf-8", "surrogatepass")))


# what a filter value is taken to mean when no valid one is spelled like it (a trial: --trust
# trusted was told "did you mean kind-untrusted?")
SYNONYMS = {"trust": {"trusted": "qualified", "trust": "qualified", "valid": "qualified", "ok": "qualified",
                      "verified": "qualified"}}


def _filter_error(name: str, given, valid) -> str:
    """``invalid kind filter`` (CONTRACT §7.4), then the closest valid value and all of them."""
    bad = next(v for v in given if v not in valid)
    meant = SYNONYMS.get(name, {}).get(bad)
    if meant is not None:
        return hints.append(f"invalid {name} filter", f"did you mean {meant}? (valid: " + ", ".join(valid) + ")")
    from .mistyped import choice

    return hints.append(f"invalid {name} filter", choice(bad, valid))


def topic_error(topics) -> str:
    """``invalid topic filter`` (§7.4), then what is wrong with the first topic refused (never
    repeated: it may be long, or hold what a log should not)."""
    bad = next(t for t in topics if not is_topic(t, LIMITS.max_topic))
    size = len(bad.encode("utf-8", "surrogatepass"))
    if not size:
        why = "a topic is never blank (spaces are trimmed)"
    elif size > LIMITS.max_topic:
        why = f"a topic is at most {LIMITS.max_topic} bytes (this one is {size})"
    elif has_control(bad):
        why = "a topic holds no control characters"
    else:
        why = "a topic is UTF-8 text (a lone surrogate is not)"
    return f"invalid topic filter; {why}"


def normalize(req: RecallRequest) -> RecallRequest:
    """CONTRACT §7.4, in order."""
    if req.max_records <= 0 or req.max_content_bytes <= 0 or req.max_bytes < 0:
        raise InputError("recall bounds must be positive")
    topics = _sorted_unique(normalize_topic(t) for t in req.topic)
    kinds, actors = _sorted_unique(req.kind), _sorted_unique(req.actor)
    lifecycles, trusts = _sorted_unique(req.lifecycle), _sorted_unique(req.trust)
    if lifecycles == ("all",):
        lifecycles = ()
    elif not lifecycles:
        lifecycles = ("active",)
    elif "all" in lifecycles:
        raise InputError("invalid lifecycle filter; all cannot be combined with other lifecycles")
    if not trusts and not req.include_untrusted:
        trusts = ("qualified",)
    if not all(is_topic(t, LIMITS.max_topic) for t in topics):
        raise InputError(topic_error(topics))
    if not all(k in KINDS for k in kinds):
        raise InputError(_filter_error("kind", kinds, KINDS))
    if not all(is_actor(a) for a in actors):
        raise InputError("invalid actor filter")
    if not all(lc in LIFECYCLES for lc in lifecycles):
        raise InputError(_filter_error("lifecycle", lifecycles, LIFECYCLES + ("all",)))
    if not all(t in TRUSTS for t in trusts):
        raise InputError(_filter_error("trust", trusts, TRUSTS))
    if req.subject and not is_typed_subject(req.subject):
        raise InputError(f"invalid subject filter; {SUBJECT_FORM}")
    if req.path and not is_path(req.path, LIMITS.max_path):
        raise InputError(f"invalid path filter; {PATH_RULE}, and names one file",
                         f"invalid path filter; {path_rule('path')}, and names one file")
    try:
        req.query.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("recall query must be valid UTF-8") from None
    rank = search.check_rank(req.rank)
    if rank and not req.query:
        raise InputError("relevance ranking needs a query")
    return req._replace(topic=topics, kind=kinds, actor=actors, lifecycle=lifecycles, trust=trusts,
                        rank=rank)


def request_json(req: RecallRequest, with_cursor: bool = True) -> dict:
    """The §7.3 key order (also the query-digest encoding)."""
    out = {"version": 0, "atCommit": req.at_commit}
    if req.subject:
        out["subject"] = req.subject
    if req.path:
        out["path"] = req.path
    for key, value in (("topic", req.topic), ("kind", req.kind), ("actor", req.actor),
                       ("lifecycle", req.lifecycle), ("trust", req.trust)):
        if value:
            out[key] = list(value)
    if req.query:
        out["query"] = req.query
    if req.rank:  # git-hn: absent for the contract's order, so its digests are unchanged
        out["rank"] = req.rank
    out["maxRecords"] = req.max_records
    out["maxContentBytes"] = req.max_content_bytes
    if req.max_bytes:  # git-hn: never in the query digest (``digest_request``)
        out["maxBytes"] = req.max_bytes
    if with_cursor and req.cursor:
        out["cursor"] = req.cursor
    if req.include_untrusted:
        out["includeUntrusted"] = True
    return out


def source_fingerprint(policy_digest: str, sources: list[tuple[str, str]]) -> str:
    """CONTRACT §8.3: length-prefixed domain, policy digest, then (ref, head) pairs in order."""
    h = hashing.sha256()
    for part in (SOURCE_DOMAIN, policy_digest.encode()):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    for ref, head in sorted(sources):
        for part in (ref.encode(), head.encode()):
            h.update(len(part).to_bytes(8, "big"))
            h.update(part)
    return "sha256:" + h.hexdigest()


def digest_request(req: RecallRequest) -> dict:
    """The request a query digest is made of (§7.5): ``request_json`` without the cursor, and
    without ``maxBytes`` (git-hn's page size, not a §7.10 bound): a cursor continues under any
    ``maxBytes`` or none, so a page whose next memory does not fit goes on with the larger bound
    the refusal names (a review: that bound refused the cursor, and paging stopped for good at a
    memory larger than the agent's bound); a request without it is the contract's, byte for byte."""
    return request_json(req._replace(max_bytes=0), with_cursor=False)


def query_digest(req: RecallRequest, fingerprint: str, policy_digest: str) -> str:
    doc = {"domain": QUERY_DOMAIN, "request": digest_request(req),
           "sourceFingerprint": fingerprint, "policyDigest": policy_digest}
    return "sha256:" + hashing.sha256(canonical.compact(doc)).hexdigest()


def encode_cursor(digest: str, last_id: str) -> str:
    import base64  # here: only a paged answer has a cursor (the import costs every recall ~1.3 M instructions)

    payload = canonical.compact({"version": 0, "queryDigest": digest, "lastMemoryId": last_id})
    check = hashing.sha256(CURSOR_DOMAIN + b"\x00" + payload).hexdigest()
    return base64.urlsafe_b64encode(payload).decode("ascii").rstrip("=") + "." + check


# §7.10's text; git-hn says after "; " which part changed when it can tell (``mismatch``)
CURSOR_MISMATCH = "recall cursor does not match the normalized query, sources, policy, or bounds"
PAGE_LESS = "a larger --max-records or --max-bytes (maxRecords, maxBytes) pages less often"
# trust as §7.4 normalizes it without a filter: what includeUntrusted changes, not a filter given
_DEFAULT_TRUST = (None, ["qualified"])


class CursorMismatch(InputError):
    """§7.10's refusal of a cursor made for another query digest; ``digest`` is the cursor's."""

    def __init__(self, digest: str):
        super().__init__(f"{CURSOR_MISMATCH}; {mismatch(None)}")
        self.digest = digest


# a request key, and the recall flag that sets it (how the reason names it, for the CLI and MCP alike)
_FLAGS = {"atCommit": "--at", "subject": "--subject", "path": "--path", "topic": "--topic", "kind": "--kind",
          "actor": "--actor", "lifecycle": "--lifecycle", "trust": "--trust", "query": "--query", "rank": "--rank",
          "maxRecords": "--max-records", "maxContentBytes": "--max-content-bytes",
          "includeUntrusted": "--include-untrusted"}


def mismatch(made: dict | None, request: dict | None = None, moved: bool = False) -> str:
    """What to do about a cursor that does not match, after §7.10's text: from ``made`` (the
    request the cursor was made for, as this clone's cursor log remembers it; None when it has
    no record of the cursor) compared with ``request`` (this recall's normalized request), and
    ``moved`` (memory refs changed since, measured with the policy of then). An agent trial:
    every new memory, even one on another branch, broke every cursor with the same words, which
    named four causes and none of them."""
    if made is None:
        return ("a cursor continues only the recall that returned it, in this clone: the same arguments and "
                "commit, while no memory is recorded, imported or synced here and the policy stays; start "
                f"again without the cursor; {PAGE_LESS}")
    keys = [k for k in dict.fromkeys([*made, *request])  # (maxBytes: in a log line written before f27)
            if k not in ("version", "maxBytes") and made.get(k) != request.get(k)]
    if "includeUntrusted" in keys and made.get("trust") in _DEFAULT_TRUST and request.get("trust") in _DEFAULT_TRUST:
        keys = [k for k in keys if k != "trust"]  # (said by includeUntrusted)
    changed = [_changed(key, made.get(key), request.get(key)) for key in keys]
    if changed and not moved:
        return (f"the cursor was made by a recall with other arguments: {'; '.join(changed)}; give it those "
                "arguments, or start again without the cursor")
    since = ("new or changed memories since the cursor was made (memory refs moved here: a record, an import or a "
             "sync, by anyone working in this clone), and a cursor holds only while they stay")
    if changed:
        since = f"other arguments ({'; '.join(changed)}), and {since}"
    elif not moved:
        since = "the trust policy changed since the cursor was made"
    return f"{since}: start again without the cursor; {PAGE_LESS}"


def _changed(key: str, then, now) -> str:
    """One argument that differs, named by key and flag; values shown only where they are short and
    not author text (a commit, a bound, a switch)."""
    name = f"{key} ({_FLAGS[key]})" if key in _FLAGS else key
    if key == "atCommit" and isinstance(then, str) and isinstance(now, str):
        return (f"{name} was commit {then[:12]}, is {now[:12]} (a revision that moved, such as HEAD, no longer "
                f"names the commit: --at {then[:12]} does)")
    short = (int, bool, type(None))
    if then is None or now is None or (isinstance(then, short) and isinstance(now, short)):
        show = lambda v: "not given" if v is None else str(v).lower() if isinstance(v, short) else "given"  # noqa: E731
        return f"{name} was {show(then)}, is {show(now)}"
    return f"{name} differs"


def decode_cursor(cursor: str, digest: str) -> str:
    """The ``lastMemoryId`` of a cursor made for exactly this query (CONTRACT §7.10)."""
    import base64

    said = "malformed recall cursor; a cursor is the nextCursor of an earlier page of the same recall"
    malformed = InputError(f"{said} (the same filters and --at)", f"{said} (the same filters and atCommit)")
    body, dot, check = cursor.partition(".")
    if not dot or len(check) != 64:
        raise malformed
    try:
        if len(body) % 4 == 1 or not body.isascii():
            raise ValueError
        payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except ValueError:
        raise malformed from None
    if len(payload) > LIMITS.max_cursor_payload or base64.urlsafe_b64encode(payload).decode().rstrip("=") != body:
        raise malformed
    if hashing.sha256(CURSOR_DOMAIN + b"\x00" + payload).hexdigest() != check:
        raise InputError("invalid recall cursor checksum")
    try:
        doc = read_document(payload, prefix="", max_bytes=LIMITS.max_cursor_payload, error=InputError)
    except InputError:
        raise malformed from None
    if not isinstance(doc, dict) or set(doc) - {"version", "queryDigest", "lastMemoryId"}:
        raise malformed
    version, qd, last = doc.get("version"), doc.get("queryDigest"), doc.get("lastMemoryId")
    if (isinstance(version, bool) or version != 0 or isinstance(version, JsonFloat)
            or not isinstance(last, str) or not is_digest_id(last) or not isinstance(qd, str)):
        raise malformed
    if qd != digest:
        raise CursorMismatch(qd)
    return last


def row_text(row: dict) -> str:
    """The searchable text of a row (§7.9): its content, then its topics."""
    data = row["data"]
    return data["content"] + "\n" + "\n".join(data["topics"])


def row_sequence(row: dict) -> str:
    """The row's wrapped token sequence (``core.search``)."""
    return search.wrap(token_sequence(row_text(row)))


def context_free_order_key(row: dict):
    """§7.7 keys 2–4 (lifecycle rank, signed timestamp descending bytewise, ID)."""
    return order_key(row)[1:]


def order_key(row: dict):
    ts = row["signedTimestamp"].encode("utf-8")
    return (APPLICABILITY_RANK.get(row["applicability"], 3), LIFECYCLE_RANK.get(row["lifecycle"], 4),
            bytes(255 - b for b in ts) + b"\xff", row["id"])


def order(rows: list[dict]) -> list[dict]:
    """CONTRACT §7.7: applicability, lifecycle, signed timestamp descending (bytes), ID."""
    return sorted(rows, key=order_key)


def matches(row: dict, req: RecallRequest, query: search.Query | None, wrapped: str | None = None) -> bool:
    """CONTRACT §7.6 step 3 and §7.8 for one row (the query in ``core.search``'s language;
    ``wrapped`` is the row's wrapped token sequence when the caller has it)."""
    if row["applicability"] != "applicable" or row["evidence"] != "resolved":
        return False
    data = row["data"]
    if req.topic and not set(req.topic) <= set(data["topics"]):
        return False
    if req.kind and row["kind"] not in req.kind:
        return False
    if req.actor and row["actor"] not in req.actor:
        return False
    if req.lifecycle and row["lifecycle"] not in req.lifecycle:
        return False
    if req.trust and row["trust"] not in req.trust:
        return False
    if req.subject and req.subject not in (data["anchor"].get("subject", ""),
                                           data["applicability"].get("subject", "")):
        return False
    if req.path and req.path not in {p["path"] for p in data["anchor"].get("paths", ())}:
        return False
    if query is not None:
        if not search.matches(query, wrapped if wrapped is not None else row_sequence(row)):
            return False
    return True


def parse_query(query: str) -> search.Query | None:
    """The request's query (None when empty); a query without terms is the §7.8 error."""
    return search.parse(query)


def relevance(rows: list[dict], corpus: list[str], query: search.Query) -> dict[str, float]:
    """Each row's BM25 score (``core.search``), the statistics taken over ``corpus``: the wrapped
    token sequences of every memory row of the verified set. The full reference's path; the
    state computes the same numbers from its stored sequences."""
    leaves = query.leaves()
    df = [0] * len(leaves)
    total = 0
    for wrapped in corpus:
        total += search.length(wrapped)
        for i, leaf in enumerate(leaves):
            if leaf.pattern in wrapped:
                df[i] += 1
    score = search.scorer(search.Stats(len(corpus), total, tuple(df)))
    out = {}
    for row in rows:
        wrapped = row_sequence(row)
        out[row["id"]] = score(search.frequencies(leaves, wrapped), search.length(wrapped))
    return out


def encoded_content_size(row: dict) -> int:
    return len(canonical.compact_plain(row["data"]["content"]))


def too_large(memory_id: str, needed: int = 0) -> InputError:
    """§7.6 step 5: one matched memory's content alone exceeds the byte bound; ``needed``: the
    largest matched memory's encoded size, the bound that lets every one through (git-hn: an
    agent had to guess it)."""
    # (the contract's words name the request key, maxContentBytes; on the command line the option
    # is said as well, before the number: an S82 review read the MCP name alone first)
    fits = (f" (on the command line --max-content-bytes, maxContentBytes in an --input request: every matched "
            f"memory fits with --max-content-bytes {needed})" if needed else
            " (on the command line --max-content-bytes, maxContentBytes in an --input request)")
    said = f"memory {memory_id} encoded content exceeds maxContentBytes; raise the explicit bound"
    # (over MCP the argument alone: an agent trial read the flag first, a flag it has no way to pass)
    return InputError(f"{said}{fits}", f"{said} (every matched memory fits with maxContentBytes {needed})"
                      if needed else said)


def cursor_gone() -> InputError:
    """§7.6 step 6: the cursor's last memory is no longer in the result."""
    return InputError("recall cursor no longer names a result in this query")


# fewer bytes than any row's JSON takes beside its encoded content (its IDs, signature, anchor and
# classes alone take more than twice this): ``fill`` stops reading rows that cannot fit in maxBytes
ROW_FLOOR = 512


def fill(req: RecallRequest, sized, why: list | None = None) -> tuple[list, bool]:
    """§7.6 step 7, the one paging rule: take ``(item, size)`` pairs in order while both bounds
    hold. Returns the page and whether anything was left (``truncated``). ``sized`` may be a lazy
    iterator (the verified state's ordered rows): nothing past the first item left is read. With
    ``max_bytes`` (git-hn) it also stops at the first item that could not fit in the whole answer
    even if rows took no more than ``ROW_FLOOR`` besides their content; ``fit`` then measures the
    page exactly (the first item is always taken: ``fit`` names it when it does not fit).
    ``why`` (git-hn) gets the bounds the first item left did not fit: ``records``, ``content``
    (both, when both), or ``bytes`` (the terminal's line names what to raise: f162)."""
    out, used, least = [], 0, 0
    for item, size in sized:
        full, over = len(out) >= req.max_records, used + size > req.max_content_bytes
        if full or over:
            if why is not None:
                why += ["records"] * full + ["content"] * over
            return out, True
        least += size + ROW_FLOOR
        if req.max_bytes and out and least > req.max_bytes:
            if why is not None:
                why.append("bytes")
            return out, True
        out.append(item)
        used += size
    return out, False


def page(req: RecallRequest, rows: list[dict], digest: str, scores: dict[str, float] | None = None,
         why: list | None = None) -> dict:
    """§7.6 steps 4–9 over rows that already passed the filters; returns the output document.
    With ``scores`` (relevance, git-hn), higher scores come first, then the §7.7 order. ``why``:
    as ``fill``'s."""
    ordered = order(rows)
    if scores is not None:
        ordered = search.rank(ordered, lambda row: scores[row["id"]])
    sizes = [encoded_content_size(row) for row in ordered]
    for row, n in zip(ordered, sizes):
        if n > req.max_content_bytes:
            raise too_large(row["id"], max(sizes))
    start = 0
    if req.cursor:
        last = decode_cursor(req.cursor, digest)
        for i, row in enumerate(ordered):
            if row["id"] == last:
                start = i + 1
                break
        else:
            raise cursor_gone()
    out, truncated = fill(req, zip(ordered[start:], sizes[start:]), why)
    return document(digest, len(ordered), out, truncated, req.max_bytes, bool(req.cursor), why)


def document(digest: str, matched: int, rows: list[dict], truncated: bool, max_bytes: int = 0,
             paged: bool = False, why: list | None = None) -> dict:
    """The §7.11 output document for a page of rows (§7.6 steps 8–9); with ``max_bytes``
    (git-hn), the longest first part of the page that fits (``fit``; ``paged``: the request
    gave a cursor; ``why``: ``fill``'s, then only ``bytes`` when ``fit`` cut the page)."""
    if max_bytes:
        doc = fit(document(digest, matched, rows, truncated), max_bytes, paged=paged)
        if why is not None and doc["returned"] < len(rows):
            why[:] = ["bytes"]
        return doc
    doc = {"version": 0, "warning": WARNING, "queryDigest": digest, "matched": matched,
           "returned": len(rows), "truncated": truncated}
    if truncated and rows:
        doc["nextCursor"] = encode_cursor(digest, rows[-1]["id"])
    doc["memories"] = rows
    deps = [d for row in rows for d in row["dependencies"]]
    deps.sort(key=lambda d: (d["missingId"], d["kind"], d.get("operation", ""), d["ownerId"],
                             d["stream"], d["reason"]))
    doc["missingDependencies"] = deps
    return doc


def fit(doc: dict, max_bytes: int, room: int = 0, paged: bool = False) -> dict:
    """git-hn's bound on the whole answer: ``doc`` (a §7.11 document) with the longest first
    part of its page whose document, as one ``--json`` line with its newline, takes at most
    ``max_bytes - room`` bytes (``room``: what a caller adds beside it, an MCP ``hint``). Rows
    are added in order until the next would not fit; a row is never cut, and ``truncated`` and
    ``nextCursor`` then page on from the last row given. Agents asked for 100,000 records and got
    a 627,645-byte answer, or 20 rows in 23.8 KB for 100 bytes of content each: maxRecords and
    maxContentBytes bound neither. When not even the first row fits (or, with none, the empty
    document), the request fails and names the smallest bound that holds it (``paged``: with the
    cursor given, which that bound continues)."""
    rows, limit = doc["memories"], max_bytes - room
    comma = lambda n: max(n - 1, 0)  # noqa: E731  (separators of n elements)
    cursor = encode_cursor(doc["queryDigest"], rows[0]["id"]) if rows else ""

    def size(k: int, row_bytes: int, dep_bytes: int, deps: int) -> int:
        more = doc["truncated"] or k < len(rows)
        skeleton = {"version": 0, "warning": doc["warning"], "queryDigest": doc["queryDigest"],
                    "matched": doc["matched"], "returned": k, "truncated": more}
        if more and k:
            skeleton["nextCursor"] = cursor  # (every cursor of a query is as long)
        skeleton["memories"], skeleton["missingDependencies"] = [], []
        return len(canonical.compact(skeleton)) + row_bytes + comma(k) + dep_bytes + comma(deps) + 1

    taken, row_bytes, dep_bytes, deps = 0, 0, 0, 0
    needed = size(0, 0, 0, 0)
    for row in rows:  # (when not even the empty document fits, the first row names the bound)
        row_bytes += len(canonical.compact(row))
        dep_bytes += sum(len(canonical.compact(d)) for d in row["dependencies"])
        deps += len(row["dependencies"])
        needed = size(taken + 1, row_bytes, dep_bytes, deps)
        if needed > limit:
            break
        taken += 1
    if taken == len(rows) and needed <= limit:
        return doc
    if not taken:
        raise does_not_fit(max_bytes, needed + room, rows[0]["id"] if rows else "", paged)
    return document(doc["queryDigest"], doc["matched"], rows[:taken], True)


def does_not_fit(max_bytes: int, needed: int, memory_id: str = "", paged: bool = False) -> InputError:
    """``fit``'s failure: the bound holds not even the first row (``memory_id``) or, when there is
    none to give, the empty document; ``needed`` is the smallest bound that holds it. ``paged``:
    the request gave a cursor, which goes on under that bound (``digest_request``), and the next
    page may take the smaller bound again: said, so an agent keeps its cursor (a review)."""
    what = (f"memory {memory_id}, the next in order, does not fit in a recall answer of {max_bytes} bytes "
            "(a memory is never cut)" if memory_id else
            f"a recall answer does not fit in {max_bytes} bytes even without memories")
    cursor = (" with the same cursor, and the page after it may take the smaller bound again (a cursor holds "
              "under any bound)") if paged else ""
    return InputError(f"{what}; the smallest bound that holds it is {needed}: --max-bytes {needed} "
                      f"(maxBytes over MCP){cursor}", f"{what}; the smallest bound that holds it is {needed}: "
                      f"maxBytes {needed}{cursor}")


# -- strict --input (§7.3) ---------------------------------------------------------------------

_KEYS = ("version", "atCommit", "subject", "path", "topic", "kind", "actor", "lifecycle", "trust",
         "query", "rank", "maxRecords", "maxContentBytes", "maxBytes", "cursor", "includeUntrusted")


def parse_request(data: bytes) -> tuple[RecallRequest, str]:
    """Bind a version-0 recall request; returns (request, raw atCommit) before resolution."""
    prefix = "recall input: "
    doc = read_document(data, prefix=prefix, max_bytes=LIMITS.max_request, error=InputError)
    if not isinstance(doc, dict):
        raise InputError(f"{prefix}invalid JSON: json: cannot unmarshal into recall request")
    for key in doc:
        if key not in _KEYS:
            from .gostr import quoted
            from .mistyped import did_you_mean
            from .secretlint import first_in_text, shown_key

            said = "" if first_in_text(key, None) is not None else did_you_mean(key, _KEYS)
            said = f"; {said}" if said else ""
            raise InputError(f'{prefix}invalid JSON: json: unknown field "{shown_key(key, quoted)}"{said}',
                             f'{prefix}unknown argument "{shown_key(key, quoted)}"{said}')  # (MCP's words)
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or isinstance(version, JsonFloat) \
            or version != 0:
        from .strictjson import integer_rule  # (error path only)

        raise InputError(integer_rule("recall input field version must be integer 0", version, 0, 0))

    def text(key):
        v = doc.get(key)
        if v is None:
            return ""
        if not isinstance(v, str) or isinstance(v, JsonFloat):
            raise InputError(f"{prefix}invalid JSON: json: cannot unmarshal into field {key} of type string; "
                             f"{hints.field_type(key, 'string')}")
        return v

    def texts(key):
        v = doc.get(key)
        if v is None:
            return ()
        if not isinstance(v, list) or not all(isinstance(x, str) and not isinstance(x, JsonFloat) for x in v):
            raise InputError(f"{prefix}invalid JSON: json: cannot unmarshal into field {key} of type []string; "
                             f"{hints.field_type(key, '[]string')}")
        return tuple(v)

    def bound(key, default):
        if key not in doc:
            return default
        v = doc[key]
        if isinstance(v, bool) or not isinstance(v, int) or isinstance(v, JsonFloat) or v <= 0:
            from .strictjson import integer_rule  # (error path only)

            raise InputError(integer_rule(f"recall input field {key} must be a positive integer", v))
        return v

    include = doc.get("includeUntrusted", False)
    if include is None:
        include = False
    if not isinstance(include, bool):
        raise InputError(f"{prefix}invalid JSON: json: cannot unmarshal into field includeUntrusted of type bool; "
                         "includeUntrusted must be true or false")
    at = text("atCommit")
    req = RecallRequest(at, text("subject"), text("path"), texts("topic"), texts("kind"),
                        texts("actor"), texts("lifecycle"), texts("trust"), text("query"),
                        bound("maxRecords", DEFAULT_MAX_RECORDS),
                        bound("maxContentBytes", DEFAULT_MAX_CONTENT), text("cursor"), include,
                        text("rank"), bound("maxBytes", 0))
    return req, at


def human_lines(doc: dict) -> list[str]:
    from .gostr import content_text

    lines = [doc["warning"], f"Matched: {doc['matched']}; returned: {doc['returned']}; "
                             f"truncated: {'true' if doc['truncated'] else 'false'}"]
    for row in doc["memories"]:
        lines.append(f"{row['id']}  actor={row['actor']}  kind={row['kind']}  lifecycle={row['lifecycle']}  "
                     f"applicability={row['applicability']}  evidence={row['evidence']}  trust={row['trust']}")
        lines.append("  " + content_text(row["data"]["content"]))
    if "nextCursor" in doc:
        lines.append(f"Next cursor: {doc['nextCursor']}")
    return lines


__all__ = ["RecallRequest", "normalize", "query_digest", "source_fingerprint", "page", "matches",
           "parse_query", "relevance", "parse_request", "has_control"]
