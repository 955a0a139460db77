"""A verified memory's row in the state: its columns as ``state.insert_memories`` writes them
(issue 11; CONTRACT §5, §7.9), moved here from ``state`` (f132) to make room.

Owns ``row_columns`` (the context-free part of the projection of one record: kind, timestamps,
size, outcome, topics, paths, §7.9 tokens and token sequence, the anchor/evidence key and the
typed evidence references) and the ``FRESH_*`` values a new row's derived columns hold until
``state.derive`` sets them. Every value is what the core's functions give (``gostr.token_sequence``,
``canonical.compact_plain``, ``grammar.utc_of_valid``); one is computed here a faster way for the
text that allows it, equal by construction and by test (tests/property/test_row_columns.py): the
size of a content with nothing JSON or Go's HTML escaping rewrites (printable ASCII without
``"``, ``\\``, ``<``, ``>``, ``&``), its length and two quotes, without encoding it.

Trusts: the memories it is given were verified (``streams``, ``verify``); pure, no I/O.
"""

from __future__ import annotations

from ..core import canonical
from ..core.gostr import token_sequence
from ..core.grammar import utc_of_valid
from ..core.projection import LIFECYCLE_RANK

# what ``state.insert_memories`` gives a new row's derived columns, which ``state.derive`` then
# sets: a row whose computed value is this one is not written twice
FRESH_LIFECYCLE = ("active", LIFECYCLE_RANK["active"], 0)  # lifecycle, lrank, challenged
FRESH_EVIDENCE = ""  # ev_memory

def json_size(content: str) -> int:
    """``len(canonical.compact_plain(content))``: the UTF-8 bytes of the JSON string."""
    if (content.isascii() and content.isprintable() and '"' not in content and "\\" not in content
            and "<" not in content and ">" not in content and "&" not in content):
        return len(content) + 2
    return len(canonical.compact_plain(content))


def row_columns(m):
    """(row columns without ``akey``, the anchor/evidence key, typed evidence references, the
    number of §7.9 tokens, the token sequence) of a verified memory with a record.
    ``projection.normalized_record_json`` read from the record's fields, not built as a document
    (20,000 new memories: ~60 ms less)."""
    env = m.envelope
    rec = env.record
    anchor = rec.anchor
    if anchor.paths:
        listed = sorted(anchor.paths, key=lambda p: p.path.encode("utf-8"))
        paths = "".join([f"{p.path}\t{p.blob}\n" for p in listed])
        pathset = "\n".join(["", *[p.path for p in listed], ""])
    else:
        paths, pathset = "", "\n"
    if rec.evidence:
        evidence = sorted(set(rec.evidence))
        git = "\n".join([e[4:] for e in evidence if e.startswith("git:")])
        event = int(any(e.startswith("event:") for e in evidence))
        refs = [(e.split(":", 1)[0], e.split(":", 1)[1]) for e in evidence if e.startswith(("memory:", "event:"))]
    else:
        git, event, refs = "", 0, []
    topics = sorted(set(rec.topics)) if rec.topics else []
    key = (anchor.commit, rec.applicability.mode, rec.applicability.subject, anchor.subject or "", paths, git, event)
    joined = "\n".join(topics)
    seq = token_sequence(rec.content + "\n" + joined)
    toks = sorted(set(seq))  # = gostr.tokens of the same text
    cols = (m.memory_id, rec.kind, *FRESH_LIFECYCLE, env.timestamp, utc_of_valid(env.timestamp),
            json_size(rec.content), FRESH_EVIDENCE, env.actor, env.stream, env.sequence, rec.attempt_outcome,
            "\n" + joined + "\n" if topics else "\n", pathset, " " + " ".join(toks) + " ")
    return cols, key, refs, len(toks), seq
