"""``git hn memory log``: the timeline's items, relations, JSON document and human lines (issue 14).

Pure: items are built from projected rows (index-row form, §8.2) plus the author name their
signed envelope carries; nothing here reads Git, the state or the clock. Ordering is newest first
by the signed timestamp in UTC, then by ID, so two clones holding the same memories print the same
log (*ordering attacks* cannot choose what looks newest beyond what the signatures say).

Every author string (name, content) reaching a human line passes ``inert`` (``safe_text``,
``one_line``, ``spell_invisible``) (*Trojan Source*, terminal control injection) and is only ever the last,
truncatable part of its column; the short ID is never truncated. JSON carries the same strings
unmodified (canonical JSON escapes them).
"""

from __future__ import annotations

from .gostr import one_line, safe_text, short_id
from .grammar import utc_timestamp
from .invisible import spell_invisible
from .limits import WARNING
from .tuples import NamedTuple

MAX_SUMMARY = 200  # characters of the content's first line kept in an item (human and JSON)
MIN_NAME = 4  # columns the author name keeps before the summary is cut to nothing
MIN_SUMMARY = 10  # summary columns kept, when the width allows, before the author name is cut
ELLIPSIS = "…"  # ends every text git-hn cuts (one character, one column), as recall's already did

# relation types, in the order they are listed under a memory
RELATIONS = ("supersedes", "supersededBy", "retractedBy", "challengedBy")
RELATION_TEXT = {"supersedes": "supersedes", "supersededBy": "superseded by",
                 "retractedBy": "retracted by", "challengedBy": "challenged by"}
# a handoff's lists, in the order and with the labels ``show`` and the page give them
HANDOFF_PARTS = (("completed", "Completed"), ("assumptions", "Assumptions"), ("blockers", "Blockers"),
                 ("nextActions", "Proposed next actions (inert, not instructions)"))


class Item(NamedTuple):
    id: str
    stream: str
    actor: str
    actor_name: str
    signed_timestamp: str
    utc: str
    kind: str
    lifecycle: str
    trust: str
    summary: str
    relations: tuple[tuple[str, str], ...]
    more: int = 0  # lines of content after the summary's (a terminal says "(+N lines)"; never in JSON)


def more_lines(content: str) -> int:
    """How many lines the summary hides: every line after the first non-blank one up to the
    last non-blank one, blank lines between included (as recall's ``(+N lines)`` counts)."""
    shown = [i for i, line in enumerate(content.split("\n")) if line.strip()]
    return shown[-1] - shown[0] if shown else 0


def summary(content: str) -> str:
    """The content's first non-blank line, stripped and bounded (never a second line): a line
    longer than ``MAX_SUMMARY`` characters keeps ``MAX_SUMMARY`` of them, the last an ellipsis
    (a newcomer trial found the page's timeline and piped log cut without a sign)."""
    for line in content.split("\n"):
        if line.strip():
            line = line.strip()
            return line if len(line) <= MAX_SUMMARY else line[:MAX_SUMMARY - len(ELLIPSIS)] + ELLIPSIS
    return ""


def relations(row: dict, target: str) -> tuple[tuple[str, str], ...]:
    """The accepted lifecycle edges of one row (``target``: what it supersedes, or "")."""
    out = [("supersedes", target)] if target else []
    out += [("supersededBy", i) for i in row["successors"]]
    out += [("retractedBy", i) for i in row["retractions"]]
    out += [("challengedBy", i) for i in row["challengers"]]
    return tuple(sorted(out, key=lambda r: (RELATIONS.index(r[0]), r[1])))


def item(row: dict, actor_name: str, content: str, target: str) -> Item:
    return Item(row["id"], row["stream"], row["actor"], actor_name, row["signedTimestamp"],
                utc_timestamp(row["signedTimestamp"]), row["kind"], row["lifecycle"], row["trust"],
                summary(content), relations(row, target), more_lines(content))


def order_key(utc: str) -> str:
    """A UTC timestamp of §1.8 as text that sorts as the instant: without its ``Z``, the form
    without a fraction is a prefix of (so sorts before) every form with one, and fractions with
    trailing zeros removed compare digit by digit. The state's SQL uses the same key (``KEY_SQL``)."""
    return utc.removesuffix("Z")


KEY_SQL = "rtrim(r.utc, 'Z')"


def ordered(items: list[Item]) -> list[Item]:
    out = sorted(items, key=lambda it: it.id)
    out.sort(key=lambda it: order_key(it.utc), reverse=True)
    return out


def document(items: list[Item]) -> dict:
    """``log --json``: like every document that carries author text (names, summaries), it
    carries the warning that such text is inert data."""
    return {"version": 0, "warning": WARNING, "memories": [_memory_json(it) for it in items]}


def _memory_json(it: Item) -> dict:
    return {"id": it.id, "stream": it.stream, "actor": it.actor, "actorName": it.actor_name,
            "signedTimestamp": it.signed_timestamp, "kind": it.kind, "lifecycle": it.lifecycle,
            "trust": it.trust, "summary": it.summary,
            "relations": [{"type": t, "memoryId": m} for t, m in it.relations]}


def document_chunks(batches):
    """``document``'s canonical JSON line (``canonical.compact_line``) in parts, one per batch of
    items, so that a whole log is never one document in memory (issue 11): the same bytes."""
    from . import canonical

    head = canonical.compact(document([]))
    yield head[:-len(b"]}")]  # (the memories come last: insertion order is the contract's)
    sep = b""
    for batch in batches:
        if batch:
            yield sep + b",".join(canonical.compact(_memory_json(it)) for it in batch)
            sep = b","
    yield b"]}\n"


class Fields(NamedTuple):
    """One memory's human line, split into its columns (all already inert)."""

    short: str
    date: str
    name: str
    actor: str  # ``(actor12)`` after a name that two actors of the view sign with, else ""
    kind: str
    lifecycle: str
    trust: str
    summary: str
    marks: str = ""  # a terminal's mark beside the classes (``challenged``): never on a piped line


def shown_name(name: str) -> str:
    return inert(name).strip() or "?"


def shared_names(pairs) -> set[str]:
    """The names (as shown) that more than one actor signs with among ``(name, actor)`` pairs.
    A name is its author's own choice: where two actors share it, each is told apart by its
    short actor ID (an impostor's "Alice" beside Alice's). Callers pass the rows shown and the
    actors the clone knows (``service.names.known_authors``): an impostor alone in a view still
    shares its name with the real one."""
    seen: dict[str, str] = {}
    shared = set()
    for name, actor in pairs:
        name = shown_name(name)
        if seen.setdefault(name, actor) != actor:
            shared.add(name)
    return shared


def actor_tag(name: str, actor: str, shared: set[str]) -> str:
    return f"({short_id(actor)})" if shown_name(name) in shared else ""


def fields(it: Item, shared: set[str] = frozenset()) -> Fields:
    return Fields(short_id(it.id), it.utc[:10], shown_name(it.actor_name),
                  actor_tag(it.actor_name, it.actor, shared), it.kind, it.lifecycle, it.trust,
                  inert(it.summary, spaces=False))


def inert(text: str, spaces: bool = True, spelled: bool = False) -> str:
    """Author text for one human line: control characters shown as U+FFFD as in recall's lines
    (``safe_text``), line breaks and tabs as spaces, bidirectional controls and every other
    invisible character (``core.invisible``) spelled as ``\\u{…}``; ``spaces=False`` for a line
    of content (prose keeps its spaces: ``spell_invisible``), and a backslash that begins
    ``\\u{`` spelled ``\\u{5c}`` unless ``spelled`` (text that escapes its backslashes itself)."""
    return spell_invisible(one_line(safe_text(text)), spaces, spelled)


def fit(f: Fields, width: int | None, cells=len) -> Fields:
    """Cut the summary, then the author name (to ``MIN_NAME`` columns), so that the line fits in
    ``width`` columns (``cells`` measures terminal columns). The ID, date and classes are never
    cut: on a terminal too narrow for them the line is longer than the width, and the terminal's
    ``memory_lines`` moves the classes to the following lines."""
    if width is None:
        return f
    # a space between the fixed columns (the name among them), one before the summary
    fixed = sum(cells(x) + 1 for x in (f.short, f.date, f.actor, f.kind, f.lifecycle, f.trust, f.marks) if x)
    room = width - fixed - 1  # the name's and the summary's columns
    name = f.name
    keep = min(cells(f.summary), MIN_SUMMARY)  # summary columns kept before the name is cut
    if cells(name) > room - keep:
        name = _cut(name, max(MIN_NAME, room - keep), cells)
    text = _cut(f.summary, max(room - cells(name), 0), cells)
    return f._replace(name=name, summary=text)


def _cut(text: str, limit: int, cells) -> str:
    if cells(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return ""
    end, used = 0, 0
    for ch in text:
        w = cells(ch)
        if used + w > limit - len(ELLIPSIS):
            break
        end += 1
        used += w
    return text[:_escape_kept(text, end)] + ELLIPSIS


def _escape_kept(text: str, end: int) -> int:
    """Where to cut spelled ``text`` at ``end`` or before: at the start of the ``\\u{…}`` that
    ``end`` falls inside, so that an escape is whole or absent (``\\u{20…`` reads as some other
    character, or as typed). In spelled text every ``\\u{`` begins an escape (a typed one is
    ``\\u{5c}u{``: ``gostr.spell_backslash``) and ends at its ``}``. Without ``re``: a terminal's
    recall and digest cut their lines here too."""
    for back in (1, 2):  # (``\\`` or ``\\u`` kept, its ``{`` cut)
        if end >= back and text.startswith("\\u{", end - back):
            return end - back
    at = text.rfind("\\u{", 0, end)
    return at if at >= 0 and text.find("}", at, end) < 0 else end


def join(f: Fields) -> str:
    parts = [x for x in (f.short, f.date, f.name, f.actor, f.kind, f.lifecycle, f.trust, f.marks) if x]
    if f.summary:
        parts.append(f.summary)
    return " ".join(parts)


def challengers(it: Item) -> int:
    """How many memories challenge ``it`` (its ``challengedBy`` relations)."""
    return sum(1 for t, _m in it.relations if t == "challengedBy")


def relation_lines(it: Item) -> list[str]:
    """``--graph``: one indented ASCII line per relation, in ``RELATIONS`` order then by ID."""
    return [f"    {'|-' if n < len(it.relations) - 1 else '`-'} {RELATION_TEXT[t]} {short_id(m)}"
            for n, (t, m) in enumerate(it.relations)]


def lines(items: list[Item], graph: bool, width: int | None = None, cells=len, known=(),
          shared: set[str] | None = None) -> list[str]:
    """The plain human log: one line per memory, and with ``graph`` its relations below it.
    ``known``: more ``(name, actor)`` pairs (the actors the clone knows), so that a name is
    tagged when it is shared with an actor none of whose memories is listed. ``shared``: the
    names to tag, when the caller decided them over a whole log it writes in parts (``known``
    is then unused)."""
    out = []
    if shared is None:
        shared = shared_names([*((it.actor_name, it.actor) for it in items), *known])
    for it in items:
        out.append(join(fit(fields(it, shared), width, cells)))
        if graph:
            out += relation_lines(it)
    return out
