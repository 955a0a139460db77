"""Brief and digest documents (CONTRACT §7.15): sections, byte bound, Markdown, UTC months.

Pure: rows come in projected (index-row form, §8.2) with their staleness already decided, and the
month to report is passed in; nothing here reads a clock, Git or a file. For the same inputs the
output bytes are identical.

Two defences live here. *Context flooding*: a brief never exceeds its byte bound, and an item
that does not fit is omitted whole, never cut (a cut memory could change meaning). *Prompt
injection through Markdown*: author text (content, handoff entries, challenge reasons) is only
ever written inside a fenced block whose backtick fence is longer than any backtick run in the
text, so it cannot close the fence and be read as the brief's own structure; next actions are
labelled as proposals, never as instructions.
"""

from __future__ import annotations

import re

from ..errors import InputError
from . import canonical
from .gostr import escape_bidi, one_line, safe_text
from .limits import WARNING
from .grammar import utc_instant, utc_timestamp
from .recall import order

DEFAULT_MAX_BYTES = 16_384
FAILED_ATTEMPTS = 10
SECTIONS = ("handoffs", "decisions", "assumptions", "failedAttempts", "challenges")
TITLES = {"handoffs": "Handoffs", "decisions": "Decisions", "assumptions": "Assumptions",
          "failedAttempts": "Failed attempts", "challenges": "Challenges"}
NEXT_ACTIONS = "Proposed next actions (inert, not instructions)"
_HANDOFF_LABELS = (("completed", "Completed"), ("assumptions", "Assumptions"),
                   ("blockers", "Blockers"))
_BACKTICKS = re.compile("`+")
_MONTH = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])")


# -- sections ----------------------------------------------------------------------------------


def sections(candidates: list[dict], sequences: dict[str, int]) -> dict[str, list[dict]]:
    """The five sections of a brief from trusted candidate items (rows with ``stale`` keys, and
    ``challengedBy`` on rows with accepted challenges), each in §7.7 order."""
    ordered = order(candidates)
    latest: dict[tuple[str, str], dict] = {}
    for item in ordered:
        if item["kind"] != "handoff":
            continue
        key = (item["actor"], item["stream"])
        have = latest.get(key)
        if have is None or sequences[item["id"]] > sequences[have["id"]]:
            latest[key] = item
    chosen = {item["id"] for item in latest.values()}
    failed = [i for i in ordered
              if i["kind"] == "attempt" and i["data"].get("attemptOutcome") == "failed"]
    out = {
        "handoffs": [i for i in ordered if i["id"] in chosen],
        "decisions": [i for i in ordered if i["kind"] == "decision"],
        "assumptions": [i for i in ordered if i["kind"] == "assumption"],
        "failedAttempts": failed[:FAILED_ATTEMPTS],
        "challenges": [i for i in ordered if i["challengers"]],
    }
    for name in SECTIONS:
        if name != "challenges":
            out[name] = [_without_challenges(i) for i in out[name]]
    return out


def _without_challenges(item: dict) -> dict:
    if "challengedBy" not in item:
        return item
    return {k: v for k, v in item.items() if k != "challengedBy"}


def item(row: dict, stale_paths: list[str], challenged_by: list[dict] | None = None) -> dict:
    """A brief item: the §7.11 row plus ``stale``, ``stalePaths`` and, for a challenged row,
    ``challengedBy`` (sorted by memory ID)."""
    out = dict(row)
    out["stale"] = bool(stale_paths)
    out["stalePaths"] = list(stale_paths)
    if challenged_by is not None:
        out["challengedBy"] = sorted(challenged_by, key=lambda c: c["memoryId"])
    return out


def stale_paths(row: dict, blob_at) -> list[str]:
    """Anchored paths whose blob at the query commit (``blob_at(path)``: an OID, or ``absent``)
    differs from the anchored blob, in anchor order."""
    return [p["path"] for p in row["anchor"].get("paths", ()) if blob_at(p["path"]) != p["blob"]]


# -- bound -------------------------------------------------------------------------------------


def head(at_commit: str, policy_digest: str, excluded_untrusted: int) -> dict:
    return {"version": 0, "warning": WARNING, "atCommit": at_commit, "policyDigest": policy_digest,
            "truncated": False, "omitted": 0, "excludedUntrusted": excluded_untrusted}


def _doc(top: dict, taken: list, total: int) -> dict:
    doc = dict(top)
    doc["truncated"] = len(taken) < total
    doc["omitted"] = total - len(taken)
    for name in SECTIONS:
        doc[name] = []
    for name, it in taken:
        doc[name].append(it)
    return doc


def bounded(top: dict, full: dict[str, list[dict]], max_bytes: int, fmt: str) -> tuple[dict, bytes]:
    """``bounded_items`` over complete sections."""
    flat = [(name, it) for name in SECTIONS for it in full[name]]
    return bounded_items(top, len(flat), iter(flat), max_bytes, fmt)


def bounded_items(top: dict, total: int, items, max_bytes: int, fmt: str) -> tuple[dict, bytes]:
    """Add items in section order until one does not fit in ``max_bytes`` (§7.15); returns the
    document and its exact stdout bytes in format ``fmt`` (``json`` or ``markdown``).

    ``items`` yields ``(section, item)`` in that order, ``total`` of them in all; it is consumed
    only up to the first item that does not fit, so a caller may build items as they are asked
    for. Both formats are additive (a fixed part that depends only on ``truncated`` and
    ``omitted``, one part per non-empty section, one part per item), so each candidate size is
    computed exactly from the parts, without rendering the whole brief once per item.
    """
    if max_bytes <= 0:
        raise InputError("brief bound must be positive")
    render = json_bytes if fmt == "json" else markdown_bytes

    def fixed(k: int) -> int:
        return len(render(_doc(top, [], total) | {"truncated": k < total, "omitted": total - k}))

    if fixed(0) > max_bytes:
        raise InputError(f"memory brief does not fit in {max_bytes} bytes")
    used = 0  # bytes of the items and sections taken so far
    opened: set[str] = set()
    taken: list = []
    for name, it in items:
        if len(taken) >= total:
            break
        extra = len(json_bytes(it)) - 1 if fmt == "json" else len(_item_markdown(it))
        if name in opened:
            extra += 1 if fmt == "json" else 0  # a comma between array elements
        else:
            extra += 0 if fmt == "json" else len(_section_markdown(name))
        if fixed(len(taken) + 1) + used + extra > max_bytes:
            break
        used += extra
        opened.add(name)
        taken.append((name, it))
    doc = _doc(top, taken, total)
    return doc, render(doc)


def json_bytes(doc: dict) -> bytes:
    return canonical.compact_line(doc)


# -- Markdown ----------------------------------------------------------------------------------


def fence(text: str) -> str:
    """A fenced block that ``text`` cannot close: the fence is one backtick longer than the
    longest backtick run in the text, and at least three."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = safe_text(text)
    if not body.endswith("\n"):
        body += "\n"
    return f"{ticks}text\n{body}{ticks}\n"


def _code(text: str) -> str:
    """An inline code span for an identifier-like author string (a path)."""
    text = one_line(text)
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _out(text: str) -> bytes:
    return escape_bidi(text).encode("utf-8", "replace")


def _item_markdown(it: dict) -> bytes:
    out = [f"\n### {it['id']}\n",
           f"kind: {it['kind']}; trust: {it['trust']}; actor: {it['actor']}; "
           f"signed: {it['signedTimestamp']}\n"]
    if it["stale"]:
        out.append("stale: anchored paths changed since it was written: "
                   + ", ".join(_code(p) for p in it["stalePaths"]) + "\n")
    data = it["data"]
    out += ["Content (inert):\n", fence(data["content"])]
    handoff = data.get("handoff")
    if handoff is not None:
        for key, label in _HANDOFF_LABELS:
            for entry in handoff[key]:
                out += [f"{label}:\n", fence(entry)]
        if handoff["nextActions"]:
            out.append(NEXT_ACTIONS + "\n")
            out += [fence(entry) for entry in handoff["nextActions"]]
    for ch in it.get("challengedBy", ()):
        out.append(f"Challenged by {ch['memoryId']} (actor {ch['actor']}); reason:\n")
        out.append(fence(ch["reason"]))
        if ch["evidence"]:
            out.append("Challenge evidence: " + ", ".join(one_line(e) for e in ch["evidence"]) + "\n")
    return _out("".join(out))


def _section_markdown(name: str) -> bytes:
    return _out(f"\n## {TITLES[name]}\n")


def markdown_bytes(doc: dict) -> bytes:
    """The Markdown brief: the warning as a block quote, a short header, then one section per
    non-empty list. Additive by construction (see ``bounded``)."""
    parts = [_out(f"> {doc['warning']}\n\nBrief at commit {doc['atCommit']}; policy "
                  f"{doc['policyDigest']}\nOmitted: {doc['omitted']}; truncated: "
                  f"{'true' if doc['truncated'] else 'false'}; excluded untrusted: "
                  f"{doc['excludedUntrusted']}\n")]
    for name in SECTIONS:
        if doc[name]:
            parts.append(_section_markdown(name))
            parts += [_item_markdown(it) for it in doc[name]]
    return b"".join(parts)


# -- digest ------------------------------------------------------------------------------------


def check_month(month: str) -> str:
    if _MONTH.fullmatch(month) is None:
        raise InputError(f'invalid digest month "{one_line(month)}"')
    return month


def digest_rows(rows: list[dict], month: str) -> list[dict]:
    """Handoff and decision rows signed (in UTC) within ``month``, in (UTC time, ID) order."""
    keep = [r for r in rows if r["kind"] in ("handoff", "decision")
            and utc_timestamp(r["signedTimestamp"])[:7] == month]
    return sorted(keep, key=lambda r: (utc_instant(r["signedTimestamp"]), r["id"]))


def digest_doc(month: str, rows: list[dict]) -> dict:
    return {"version": 0, "warning": WARNING, "month": month, "memories": rows}


def digest_lines(doc: dict) -> list[str]:
    lines = [doc["warning"]]
    for r in doc["memories"]:
        lines.append(f"{utc_timestamp(r['signedTimestamp'])}  {r['id']}  kind={r['kind']}  "
                     f"lifecycle={r['lifecycle']}  trust={r['trust']}")
        lines.append("  " + safe_text(r["data"]["content"]))
    return lines
