"""What else a record request document lacks, said with its first refusal (the CLI's ``--input``).

A document is checked field by field (CONTRACT §10.5, §10.3, §1.5), and each check has the
contract's text; a trial's ``handoff --input`` with only ``content`` and two handoff lists was
refused three times in turn (topics and evidence, then kind, then the handoff arrays). The first
refusal keeps its text and, after ``; ``, names every other required field the document lacks or
gets wrong, so one retry can fix them all (``version`` too: a review found ``{"content":"x"}``
told only of it, the first check, and of the other fields at the next try). Only presence is
looked at here (and a handoff's ``kind``): what a present field holds is for the checks that
follow to say.
"""

from __future__ import annotations

from ..core.gostr import and_joined
from ..core.limits import HANDOFF_LISTS, LIMITS
from ..errors import HnError

# a refusal's text (its start) -> the fields it names already
NAMED = (("record input field version must be integer 0", ("version",)),
         ("record input fields topics and evidence are required arrays", ("topics", "evidence")),
         ("handoff input field kind ", ("kind",)),
         ("memory handoff record has invalid fields", ("handoff", *(f"handoff.{n}" for n in HANDOFF_LISTS))),
         ("memory record content is invalid", ("content",)),
         ("memory anchor commit is invalid", ("anchor.commit",)),
         ("memory applicability mode is unsupported", ("applicability.mode",)),
         ("memory record kind is unsupported", ("kind",)))
ARRAYS = ("topics", "evidence", *(f"handoff.{n}" for n in HANDOFF_LISTS))


def lacking(value: dict, *, handoff: bool, at: bool, applies: bool) -> list[tuple[str, str]]:
    """The required fields ``value`` (a decoded request document) lacks, in document order, as
    (field, how it is said): ``handoff`` for ``memory handoff --input``, whose ``--at`` and
    ``--applies`` (``at``, ``applies``: given) fill the anchor commit and the mode."""

    def absent(doc, key: str) -> bool:
        got = doc.get(key) if isinstance(doc, dict) else None
        return got is None or got == ""

    out = [("version", "version 0")] if value.get("version") is None else []  # (its refusal comes first)
    kind = value.get("kind")
    if handoff and kind not in (None, "handoff"):  # (left out, it is handoff: the command's kind)
        out.append(("kind", 'kind "handoff"'))
    elif not handoff and absent(value, "kind"):
        out.append(("kind", "kind"))
    content = value.get("content")
    if not isinstance(content, str) or not content.strip():
        out.append(("content", "content"))
    if absent(value.get("anchor"), "commit") and not (handoff and at):
        out.append(("anchor.commit", "anchor.commit (or --at)" if handoff else "anchor.commit"))
    if absent(value.get("applicability"), "mode") and not (handoff and applies):
        out.append(("applicability.mode", "applicability.mode (or --applies)" if handoff else "applicability.mode"))
    out += [(key, key) for key in ("topics", "evidence") if value.get(key) is None]
    if handoff or kind == "handoff":
        lists = value.get("handoff")
        if lists is None:
            out.append(("handoff", "handoff with the arrays " + ", ".join(HANDOFF_LISTS)))
        elif isinstance(lists, dict):
            out += [(f"handoff.{n}", f"handoff.{n}") for n in HANDOFF_LISTS if lists.get(n) is None]
    return out


def with_lacking(exc: HnError, data: bytes, *, handoff: bool, at: bool, applies: bool) -> HnError:
    """``exc``, a refusal of the document ``data``, with the other fields it lacks named after it
    (``lacking``); ``exc`` itself when the refusal is of another kind, the document does not decode,
    or it lacks nothing else."""
    named = next((fields for start, fields in NAMED if exc.message.startswith(start)), None)
    if named is None:
        return exc
    from ..core.strictjson import read_document

    try:
        value = read_document(data, prefix="", max_bytes=LIMITS.max_request)
    except HnError:
        return exc
    if not isinstance(value, dict):
        return exc
    rest = [said for field, said in lacking(value, handoff=handoff, at=at, applies=applies) if field not in named]
    if not rest:
        return exc
    arrays = any(said.split(" ", 1)[0] in ARRAYS or said.startswith("handoff with") for said in rest)
    return type(exc)(f"{exc.message}; the document also needs {and_joined(rest)}"
                     + (" (an array may be empty: [])" if arrays else ""))
