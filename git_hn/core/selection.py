"""Replication selections (CONTRACT §9.1, §9.2): what may be fetched from a remote, and budgets.

Pure. A selection authorizes transport, never trust: selecting a stream lets ``sync`` fetch it
into quarantine for validation; whether its memories are trusted is the policy's decision.
Budgets bound what a remote can make us download and store (*resource exhaustion by a hostile
remote*).
"""

from __future__ import annotations

from ..errors import InputError
from . import canonical
from .grammar import is_actor, is_digest_id, is_remote_name
from .remotes import SELECTION_MAX_BYTES, selection_file_name
from .strictjson import JsonFloat, integer_rule, read_document
from .tuples import NamedTuple

VERSION = 1
MAX_FILE = SELECTION_MAX_BYTES
file_name = selection_file_name  # (``core.remotes``: the hooks find the file before loading this)
BUDGETS = (("max-events", "maxEvents", 10_000), ("max-objects", "maxObjects", 100_000),
           ("max-object-bytes", "maxObjectBytes", 67_108_864),
           ("max-attachment-bytes", "maxAttachmentBytes", 16_777_216),
           ("max-total-bytes", "maxTotalBytes", 1_073_741_824))
DEFAULT_BUDGETS = {key: value for _flag, key, value in BUDGETS}
# git-hn extension: how many streams one sync may import (fetch and validate) at most. A
# 10,000-stream organisation fits in the default; a remote advertising far more cannot make one
# sync run for hours. Written to the selection file only when it differs from the default, so
# that a file with default budgets stays exactly what upstream writes.
MAX_STREAMS_KEY = "maxStreams"
DEFAULT_MAX_STREAMS = 16_384


class Selection(NamedTuple):
    remote: str
    actors: tuple[str, ...] = ()
    proposals: tuple[str, ...] = ()
    memories: tuple[str, ...] = ()
    all: bool = False
    budgets: dict = DEFAULT_BUDGETS
    saved: bool = True
    max_streams: int = DEFAULT_MAX_STREAMS

    @property
    def compatibility_all(self) -> bool:
        return not self.saved

    @property
    def streams_only(self) -> bool:
        """A saved selection of exact memory streams and nothing else: what a sync can fetch by
        name once it knows the streams' owners (git-hn, issue 11)."""
        return self.saved and bool(self.memories) and not (self.all or self.actors or self.proposals)


# §9.1's text, fixed; ``replication select`` appends what git-hn imports (``no_selector_help``)
NO_SELECTOR = "replication selection requires at least one actor, proposal, or memory, or explicit --all"


def select_streams(remote: str) -> str:
    """The selection of ``remote`` that imports in git-hn, which imports no stream for an actor or
    a proposal selector: the one text of bare ``replication select`` (``no_selector_help``) and of
    the reads that name a saved selection selecting no stream (``service.unimported``; a review
    found the two written apart, in two wordings)."""
    named = "" if remote == "origin" else f" {remote}"
    return (f"git hn replication select{named} --all selects every memory stream, --memory sha256:<stream> one "
            "(git-hn imports no stream for an --actor or --proposal selector)")


def no_selector_help(remote: str) -> str:
    """``NO_SELECTOR`` with what selects streams first (git-hn): of the three selectors it names,
    git-hn imports nothing for an actor or a proposal (a newcomer trial chose --actor from it, and
    the sync imported nothing)."""
    return f"{NO_SELECTOR}; {select_streams(remote)}"


def compatibility_all(remote: str) -> Selection:
    """No saved file: everything advertised, default budgets (§9.1)."""
    return Selection(remote, all=True, budgets=dict(DEFAULT_BUDGETS), saved=False)


def check(sel: Selection, saved: bool = False) -> Selection:
    """§9.1 validation, in order; returns the selection with its lists sorted. ``saved``: the
    selection was read from its saved file, whose budget keys a refusal names after §9.1's text,
    which names the option (f154: "max-events must be a positive integer" sent a user with a bad
    ``maxEvents`` in the file to an option they never gave)."""
    if not is_remote_name(sel.remote):
        raise InputError("invalid replication remote name")
    for flag, key, value in (*((f, k, sel.budgets.get(k)) for f, k, _d in BUDGETS),
                             ("max-streams", MAX_STREAMS_KEY, sel.max_streams)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            where = f"; budgets.{key} in the file is not one" if saved else ""
            raise InputError(integer_rule(f"{flag} must be a positive integer{where}", value))
    if sel.all and (sel.actors or sel.proposals or sel.memories):
        raise InputError("--all is mutually exclusive with actor, proposal, and memory selectors")
    if not sel.all and not (sel.actors or sel.proposals or sel.memories):
        raise InputError(NO_SELECTOR)
    _check_list(sel.actors, is_actor, "actor", "must be a full actor fingerprint")
    _check_list(sel.proposals, is_digest_id, "proposal", "must be a full event ID")
    _check_list(sel.memories, is_digest_id, "memory", "must be a full memory stream ID")
    return sel._replace(actors=tuple(sorted(sel.actors)), proposals=tuple(sorted(sel.proposals)),
                        memories=tuple(sorted(sel.memories)))


def _check_list(items, valid, kind: str, text: str) -> None:
    from .gostr import quoted

    seen = set()
    for item in items:
        if not isinstance(item, str) or not valid(item):
            raise InputError(f'{kind} selector "{quoted(str(item))}" {text}')
        if item in seen:
            raise InputError(f"duplicate {kind} selector {item}")
        seen.add(item)


def to_json(sel: Selection) -> dict:
    out = {"version": VERSION, "remote": sel.remote,
           "actors": list(sel.actors) or None, "proposals": list(sel.proposals) or None}
    if sel.memories:
        out["memories"] = list(sel.memories)
    out["all"] = sel.all
    out["budgets"] = {key: sel.budgets[key] for _flag, key, _d in BUDGETS}
    if sel.max_streams != DEFAULT_MAX_STREAMS:
        out["budgets"][MAX_STREAMS_KEY] = sel.max_streams
    return out


def encode(sel: Selection) -> bytes:
    data = canonical.indented(to_json(sel))
    if len(data) > MAX_FILE:
        raise InputError("replication selection is too large")
    return data


_KEYS = ("version", "remote", "actors", "proposals", "memories", "all", "budgets")


def decode(data: bytes, remote: str) -> Selection:
    """Load a saved selection strictly; errors are wrapped (§9.1)."""
    try:
        return _decode(data, remote)
    except InputError as exc:
        raise InputError(f"invalid saved replication selection: {exc.message}") from None


def _decode(data: bytes, remote: str) -> Selection:
    doc = read_document(data, prefix="", max_bytes=MAX_FILE, error=InputError)
    if not isinstance(doc, dict) or set(doc) - set(_KEYS):
        unknown = sorted(set(doc) - set(_KEYS)) if isinstance(doc, dict) else ["?"]
        raise InputError(f'invalid JSON: json: unknown field "{unknown[0]}"')
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or isinstance(version, JsonFloat) \
            or version != VERSION:
        raise InputError(integer_rule(f"unsupported replication selection version {version}", version, VERSION,
                                      VERSION))
    stored = doc.get("remote")
    if not isinstance(stored, str):
        raise InputError("invalid replication remote name")

    def strings(key):
        v = doc.get(key)
        if v is None:
            return ()
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise InputError(f"invalid JSON: field {key} must be an array of strings")
        return tuple(v)

    budgets = doc.get("budgets")
    if not isinstance(budgets, dict) or set(budgets) - set(DEFAULT_BUDGETS) - {MAX_STREAMS_KEY}:
        raise InputError("invalid JSON: field budgets must be an object of budgets")
    all_ = doc.get("all", False)
    if not isinstance(all_, bool):
        raise InputError("invalid JSON: field all must be a boolean")
    sel = Selection(stored, strings("actors"), strings("proposals"), strings("memories"), all_,
                    {key: budgets.get(key) for key in DEFAULT_BUDGETS},
                    max_streams=budgets.get(MAX_STREAMS_KEY, DEFAULT_MAX_STREAMS))
    sel = check(sel, saved=True)
    if stored != remote:
        from .gostr import one_line

        raise InputError(f'replication selection remote mismatch: got "{one_line(stored)}", want "{remote}"')
    return sel


def show_lines(sel: Selection) -> list[str]:
    lines = [f"remote: {sel.remote}", f"saved: {'true' if sel.saved else 'false'}",
             f"compatibility-all: {'true' if sel.compatibility_all else 'false'}"]
    lines += [f"actor: {a}" for a in sel.actors]
    lines += [f"proposal: {p}" for p in sel.proposals]
    lines += [f"memory: {m}" for m in sel.memories]
    if sel.saved and sel.all:  # git-hn: a saved --all read as "nothing selected" beside compatibility-all: false
        lines.append("all: true")
    lines += [f"{flag}: {sel.budgets[key]}" for flag, key, _d in BUDGETS]
    lines.append(f"max-streams: {sel.max_streams}")
    return lines
