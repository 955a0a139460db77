"""``git hn memory export`` and ``git hn memory import`` (issue 14 item 6): the formats.

Pure: export lines and Markdown are built from verified memories and their projected rows;
import files are split into draft lines under explicit bounds; the replay key of a record is
computed from values. Nothing here reads Git, the state, files or the clock.

Trust boundary. An export line carries the memory's exact ``memory.json`` bytes (base64) and
signature text, so a reader trusts nothing else in the line: ``check_export_line`` re-verifies
it (signature, canonical bytes, memory ID) with the same pure functions the stream reader uses.
The ``envelope`` and ``projection`` objects are conveniences for readers; the projection is this
repository's view at one commit and is not signed.

Markdown is for people. Author text (names, topics, content) is made inert: content goes into an
indented code block (every line indented, so no line can leave the block; nothing inside a code
block is markup, link or HTML), and short author strings outside it have every ASCII punctuation
character backslash-escaped, control runes replaced and bidirectional controls spelled out
(*Markdown injection*: headings, links, images, raw HTML; *Trojan Source*).
"""

from __future__ import annotations

import base64
import binascii
import re

from . import canonical
from .chain import VerifiedMemory, check_memory
from .envelope import Envelope, encode, envelope_json
from .gostr import one_line, safe_text, short_id
from .grammar import is_oid, memory_id, utc_timestamp
from .invisible import spell_invisible
from ..errors import InputError, ValidationError
from .tuples import NamedTuple

FORMATS = ("jsonl", "markdown")

# An import is one append: every draft is held, signed and written in one pack before the single
# compare-and-swap. These bounds keep that in memory. 10 000 is also replication's default budget
# of new memories per stream and sync (--max-events), so a peer's default sync takes one import's
# memories in one go.
MAX_IMPORT_BYTES = 16 * 1_048_576
MAX_IMPORT_DRAFTS = 10_000

# ---------------------------------------------------------------------------------------------
# JSONL export


class Exported(NamedTuple):
    """One memory as exported: the verified memory, the source ref whose chain holds its commit,
    and its projected row (index form, CONTRACT §8.2) at ``at``; ``row`` is None for a retraction
    or challenge of an exported record (not a record: no row of its own)."""

    memory: VerifiedMemory
    ref: str
    row: dict | None


def with_lifecycle(records: list[Exported], lifecycle: list[Exported]) -> list[Exported]:
    """The exported records and the retractions and challenges accepted against them, in
    (actor, stream, sequence) order: the order a reader re-verifies each chain in."""
    def key(it: Exported):
        env = it.memory.envelope
        return env.actor, env.stream, env.sequence, it.memory.memory_id

    return sorted(records + lifecycle, key=key)


def projection_json(row: dict, at: str) -> dict:
    """The projection fields an export line carries (this repository's view, not signed)."""
    return {"atCommit": at, "lifecycle": row["lifecycle"], "applicability": row["applicability"],
            "evidence": row["evidence"], "trust": row["trust"],
            "supersededBy": list(row["successors"]), "retractedBy": list(row["retractions"]),
            "challengedBy": list(row["challengers"])}


LINE_KEYS = ("version", "memoryId", "commit", "ref", "payload", "signature", "envelope", "projection")
EXPORT_LINE_BYTES = 4 << 20  # a line holds one memory (at most 1 MiB of JSON) twice, in base64 and decoded


def export_line(item: Exported, at: str) -> bytes:
    """One JSON Lines record: canonical compact JSON and ``\\n``."""
    mem = item.memory
    doc = {"version": 0, "memoryId": mem.memory_id, "commit": mem.commit, "ref": item.ref,
           "payload": base64.b64encode(mem.payload).decode("ascii"), "signature": mem.signature,
           "envelope": envelope_json(mem.envelope),
           "projection": None if item.row is None else projection_json(item.row, at)}
    return canonical.compact(doc) + b"\n"


def check_export_line(line: bytes) -> VerifiedMemory:
    """Re-verify one export line without Git: the payload's signature, canonical form and
    envelope rules (``chain.check_memory``), and that ``memoryId`` is the payload's SHA-256 and
    ``envelope`` its decoded form. Raises ``ValidationError``; never returns a partial answer."""
    from .strictjson import read_document

    try:  # strict: a duplicate key (a second, forged envelope) is refused, not "last one wins"
        doc = read_document(line.rstrip(b"\n"), prefix="export line: ", max_bytes=EXPORT_LINE_BYTES,
                            error=ValidationError)
    except ValidationError:
        raise ValidationError("export line is not an export record") from None
    if not isinstance(doc, dict) or sorted(doc) != sorted(LINE_KEYS) or doc["version"] != 0:
        raise ValidationError("export line is not an export record")
    commit, signature, mid = doc["commit"], doc["signature"], doc["memoryId"]
    if not isinstance(commit, str) or not is_oid(commit) or not isinstance(signature, str) \
            or not isinstance(mid, str) or not isinstance(doc["payload"], str):
        raise ValidationError("export line is not an export record")
    try:
        payload = base64.b64decode(doc["payload"], validate=True)
    except (ValueError, binascii.Error):
        raise ValidationError("export line is not an export record") from None
    mem = check_memory(commit, payload, signature.encode("ascii", "replace"))
    if mem.memory_id != mid or memory_id(payload) != mid:
        raise ValidationError("export line memoryId does not match its payload")
    if canonical.compact(doc.get("envelope")) != payload:
        raise ValidationError("export line envelope does not match its payload")
    return mem


# ---------------------------------------------------------------------------------------------
# Markdown export

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def md_inline(text: str) -> str:
    """Author text as literal Markdown on one line: controls become spaces, bidirectional
    controls are spelled out, and every ASCII punctuation character is backslash-escaped
    (CommonMark makes any escaped punctuation literal), so no heading, emphasis, link, image,
    autolink, entity or HTML tag can start."""
    return _PUNCT.sub(r"\\\1", spell_invisible(one_line(text)))


def md_block(text: str) -> list[str]:
    """Content as an indented code block: every line starts with four spaces, so the block ends
    only where the exporter ends it."""
    lines = spell_invisible(safe_text(text), spaces=False).replace("\t", "    ").split("\n")
    return ["    " + line.replace("\r", "\ufffd") for line in lines]


NO_TOPIC = "(no topic)"


def markdown(items: list[Exported], withheld=None) -> list[str]:
    """Grouped by kind (protocol order), then by the first topic in sorted order (each memory is
    listed once; its other topics are shown with it), newest first within a group. ``withheld``:
    whether an anchored path is not repeated (the service gives the secret lint's test)."""
    items = [it for it in items if it.row is not None]  # a record's retractions show with it
    out = md_head(len(items))
    for part in md_plan([(*md_key(it), n) for n, it in enumerate(items)]):
        out += part if isinstance(part, list) else md_entry(items[part], withheld)
    return out


def md_head(total: int) -> list[str]:
    return ["# Memory export", "", f"{total} {'memory' if total == 1 else 'memories'}.", ""]


def md_key(it: Exported) -> tuple[str, str, str, str]:
    """What places a record in the Markdown export: (kind, first topic in UTF-8 order or "",
    UTC signed time, memory ID)."""
    env = it.memory.envelope
    topics = env.record.topics or ()
    first = min(topics, key=lambda t: t.encode("utf-8", "surrogatepass")) if topics else ""
    return (env.record.kind, first, utc_timestamp(it.row.get("signedTimestamp", env.timestamp)),
            it.memory.memory_id)


def md_plan(keys: list[tuple]):
    """The Markdown export's order over ``keys`` ((kind, topic, utc, ID, handle), ``md_key`` plus
    whatever names the entry): the heading lines (a list) before each group, and each record's
    handle where its entry goes. Within a group newest first, then by ID: every UTC time ends in
    ``Z`` (none is a prefix of another), so descending text order is the instant's."""
    from .limits import KINDS

    groups: dict[str, dict[str, list[tuple]]] = {}
    for key in keys:
        groups.setdefault(key[0], {}).setdefault(key[1], []).append(key)
    for kind in sorted(groups, key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k)):
        yield [f"## {md_inline(kind)}", ""]
        by_topic = groups[kind]
        for topic in sorted(by_topic, key=lambda t: (t == "", t.encode("utf-8", "surrogatepass"))):
            yield [f"### {md_inline(topic) if topic else NO_TOPIC}", ""]
            group = sorted(by_topic[topic], key=lambda k: k[3])
            group.sort(key=lambda k: k[2], reverse=True)  # (stable: IDs stay in order within a time)
            for key in group:
                yield key[4]


WITHHELD = "(a path not repeated here: it looks like a credential; the JSON Lines export has it)"


def md_anchor(rec, withheld=None) -> list[str]:
    """What a memory is about (a trial, S93: the export for people showed no commit and no path):
    the anchor commit (12 hex digits) and how it applies, its subject, and its paths, each an
    inline code span as the Markdown brief writes them (``brief._code``: exact, and no span can
    end early), invisible characters spelled; a path ``withheld`` says is replaced by
    ``WITHHELD``."""
    from .brief import _code

    app = rec.applicability
    applies = app.mode + (f" {_code(app.subject)}" if app.mode == "subject" and app.subject else "")
    out = [f"anchor: `{rec.anchor.commit[:12]}`, applies: {applies}"
           + (f", subject: {_code(rec.anchor.subject)}" if rec.anchor.subject else "")]
    paths = [p.path for p in rec.anchor.paths]
    if paths:
        out.append("paths: " + ", ".join(WITHHELD if withheld is not None and withheld(p) else _code(p)
                                         for p in paths))
    return [spell_invisible(line, spelled=True) for line in out]  # (``_code`` spelled the author's)


def md_entry(it: Exported, withheld=None) -> list[str]:
    """One memory: a level-4 heading (short ID, date, author), paragraphs of metadata (its anchor
    among them: ``md_anchor``), then the content as an indented code block after a blank line
    (never a list item, whose indentation would turn the block back into a paragraph)."""
    env: Envelope = it.memory.envelope
    rec = env.record
    when = utc_timestamp(env.timestamp)
    date = when[:10] + " " + when[11:16] + " UTC"
    row = it.row
    name = md_inline(env.actor_name) or "unnamed"
    lines = [f"#### `{short_id(it.memory.memory_id)}` {date} {name} (`{short_id(env.actor)}`)", ""]
    meta = [f"{md_inline(row['lifecycle'])}, {md_inline(row['trust'])}", *md_anchor(rec, withheld)]
    if len(rec.topics or ()) > 1:
        meta.append("topics: " + ", ".join(md_inline(t) for t in rec.topics))
    if rec.attempt_outcome:
        meta.append("outcome: " + md_inline(rec.attempt_outcome))
    for label, ids in (("supersedes", [env.target] if env.target else []),
                       ("superseded by", row["successors"]), ("retracted by", row["retractions"]),
                       ("challenged by", row["challengers"])):
        if ids:
            meta.append(f"{label}: " + ", ".join(f"`{short_id(i)}`" for i in ids))
    for m in meta:
        lines += [m, ""]
    lines += [*md_block(rec.content), ""]
    if rec.handoff is not None:
        for name, values in zip(("Completed", "Assumption", "Blocker", "Next action"), rec.handoff.lists()):
            for v in values or ():
                lines += [f"{name}:", "", *md_block(v), ""]
    return lines


# ---------------------------------------------------------------------------------------------
# import files


def split_drafts(data: bytes) -> list[tuple[int, bytes]]:
    """(line number from 1, bytes) of each draft line of an import file.

    One draft per line (JSON Lines). A line that is empty or holds only JSON whitespace is skipped
    and still counted, so error line numbers are an editor's. A line ends at ``\\n``; a ``\\r``
    before it is JSON whitespace. ``data`` is at most ``MAX_IMPORT_BYTES + 1`` bytes (the reader's
    bound); more fails before anything is parsed."""
    if len(data) > MAX_IMPORT_BYTES:
        raise InputError(f"memory import file exceeds {MAX_IMPORT_BYTES} bytes")
    out = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip(b" \t\r"):
            continue
        if len(out) == MAX_IMPORT_DRAFTS:
            raise InputError(f"memory import file has more than {MAX_IMPORT_DRAFTS} drafts")
        out.append((number, line))
    if not out:
        raise InputError("memory import file contains no drafts")
    return out


def line_error(number: int, exc, cls=None):
    """``exc`` (an ``HnError``) with ``import line N: `` in front, of the same class."""
    from ..errors import SecretShapedError

    message = f"import line {number}: {exc.message}"
    if isinstance(exc, SecretShapedError):
        return SecretShapedError(message, exc.finding)
    return (cls or type(exc))(message)


_REPLAY_TS = "1970-01-01T00:00:00Z"


def replay_key(env: Envelope) -> bytes:
    """What two envelopes must share for one to be a replay of the other (CONTRACT §7.14): every
    field except ``timestamp``, ``sequence`` and ``previous``, as canonical bytes."""
    return encode(env._replace(timestamp=_REPLAY_TS, sequence=1, previous=""))


__all__ = ["FORMATS", "MAX_IMPORT_BYTES", "MAX_IMPORT_DRAFTS", "Exported", "export_line", "with_lifecycle",
           "check_export_line", "markdown", "md_head", "md_key", "md_plan", "md_entry", "md_inline", "md_block", "split_drafts", "line_error",
           "replay_key", "projection_json"]
