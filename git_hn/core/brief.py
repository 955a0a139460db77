"""Brief and digest documents (CONTRACT §7.15): sections, byte bound, Markdown, UTC months.

Pure: rows come in projected (index-row form, §8.2) with their staleness already decided, and the
month to report is passed in; nothing here reads a clock, Git or a file. For the same inputs the
output bytes are identical.

At scale (issue 13) a brief stays useful: each section has a guaranteed share of the byte
budget (``SHARES``; what a section leaves unused goes to the others, in ``REST`` order), so
thousands of decisions cannot crowd out the failed attempts and assumptions; decisions and
assumptions anchored to the paths of the work at hand (``Focus``: paths changed on the branch,
``--path``, ``--topic``) come first, each group in §7.7 order; and every Markdown item shows its
author's name, topics and anchored paths (as inert text).

Two defences live here. *Context flooding*: a brief never exceeds its byte bound, and an item
that does not fit is omitted whole, never cut (a cut memory could change meaning); a later,
smaller item of its section may still be taken. *Prompt
injection through Markdown*: author text (content, handoff entries, challenge reasons) is only
ever written inside a fenced block whose backtick fence is longer than any backtick run in the
text, so it cannot close the fence and be read as the brief's own structure; next actions are
labelled as proposals, never as instructions. An author's name is one inline code span with its
backticks spelled out (``_name``), so that no name seems, in the raw text, to end early and go on
as the brief's words; a challenge line says the challenger's standing before its name.
"""

from __future__ import annotations


from ..errors import InputError
from . import canonical
from .gostr import Lazy, and_joined, content_text, one_line, quoted, safe_text
from .invisible import spell_backslash, spell_invisible
from .limits import WARNING
from .policy import actor_standing
from .grammar import utc_instant, utc_timestamp
from .recall import order
from .tuples import NamedTuple

DEFAULT_MAX_BYTES = 16_384
FAILED_ATTEMPTS = 10
# git-hn (issue 13): observations have a section of their own, after decisions; the latest handoffs'
# next actions and blockers have theirs after the handoffs; stale anchors are gathered at the end
SECTIONS = ("handoffs", "nextActions", "blockers", "decisions", "observations", "assumptions",
            "failedAttempts", "challenges", "staleAnchors")
NEXT_ACTIONS = "Proposed next actions (inert, not instructions)"
TITLES = {"handoffs": "Handoffs", "nextActions": NEXT_ACTIONS, "blockers": "Blockers",
          "decisions": "Decisions", "observations": "Observations", "assumptions": "Assumptions",
          "failedAttempts": "Failed attempts", "challenges": "Challenges",
          "staleAnchors": "Stale anchors (anchored paths changed since written)"}
_HANDOFF_LABELS = (("completed", "Completed"), ("assumptions", "Assumptions"),
                   ("blockers", "Blockers"))
# percent of the item budget each section is sure to get (git-hn, issue 13)
SHARES = {"handoffs": 15, "nextActions": 10, "blockers": 10, "decisions": 15, "observations": 8,
          "assumptions": 12, "failedAttempts": 12, "challenges": 10, "staleAnchors": 8}
# relevant to the focus first (the failed attempts before the ten are taken: the one failure on the
# file at hand is what an agent must not repeat)
RANKED = ("decisions", "observations", "assumptions", "failedAttempts", "staleAnchors")
# the order in which a section whose first item exceeds its share gets that one item (git-hn): the
# failed attempts before the decisions, observations and assumptions (an agent trial: with
# --path and an 8,000-byte bound, three long unanchored notes took the room and the failed attempt
# on that very file was left out; it is the one an agent must not repeat)
# (f62, an agents trial: at 8,000 bytes three of four challenged decisions were in no section, while
# routine observations and assumptions were listed) a challenged memory comes before the routine ones
# (f86, a trial: an 8,000-byte brief left one of two streams' latest handoffs out, and kept a routine
# decision, observation and assumption) then every latest handoff that fits, before the routine ones
FIRST_ONE = ("handoffs", "nextActions", "blockers", "failedAttempts", "challenges", "decisions", "observations",
             "assumptions", "staleAnchors")
# the order in which the sections then share what their shares left (git-hn, f62: the challenged
# before the routine decisions, observations and assumptions; the document keeps ``SECTIONS``).
# A challenged decision stays in ``decisions`` too (§7.15: "the candidates of that kind"; "a row may
# appear in two sections")
REST = ("handoffs", "nextActions", "blockers", "challenges", "decisions", "observations", "assumptions",
        "failedAttempts", "staleAnchors")
DERIVED = {"nextActions": "nextActions", "blockers": "blockers"}  # section -> handoff entry list
FROM_HANDOFFS = 10  # the latest handoffs whose next actions and blockers get their own sections
# a section stops reading items once this many did not fit (each item is built as it is read: a
# brief of 6,000 memories must not build them all to find a small one)
SET_ASIDE = 16
# no item is smaller than its memory ID and actor ID (what the fill needs room for to look on)
SMALLEST_ITEM = len("sha256:") + 64 + 64
LEFT_NAMED = 3  # omitted items a truncated Markdown brief names (git-hn: an agent can show them)
LEFT_COUNTED = {"handoffs": "handoffs", "nextActions": "next actions", "blockers": "blockers",
                "decisions": "decisions", "observations": "observations", "assumptions": "assumptions",
                "failedAttempts": "failed attempts", "challenges": "challenged", "staleAnchors": "stale anchors"}
LEFT_LABELS = {"handoffs": "handoff", "nextActions": "next action of handoff", "blockers": "blocker of handoff",
               "decisions": "decision", "observations": "observation", "assumptions": "assumption",
               "failedAttempts": "failed attempt", "challenges": "challenged", "staleAnchors": "stale anchor"}
_BACKTICKS = Lazy("`+")


def _longest_backticks(text: str) -> int:
    """The longest run of backticks in ``text`` (none: no ``re``, ~13 M instructions)."""
    return max(len(m) for m in _BACKTICKS.findall(text)) if "`" in text else 0


class Authors(dict):
    """Memory ID -> the author name signed in it (the items, and the challenges of challenged
    items), for the Markdown brief; ``policy``: the memory section of the policy at the brief's
    commit (None: there is none), which says whether a challenger is an actor the policy trusts
    (an agent trial: a stranger's challenge read like a teammate's). The names are author text
    (inert, one line); the policy is data of the commit. ``advice``: what the line on memories
    left out for trust says qualifies them, when not the usual (``TRUST``, ``NO_POLICY``: see
    ``NO_POLICY_HERE``, ``REVOKED``). ``lookalike``: the anchored paths of the brief's candidates
    that another of them looks identical to, and what tells each apart (``invisible.lookalikes``)."""

    def __init__(self, policy=None, names=()):
        super().__init__(names)
        self.policy = policy
        self.advice = ""
        self.lookalike: dict = {}


class Focus(NamedTuple):
    """The work at hand: anchored paths and topics that make a memory relevant."""

    paths: frozenset = frozenset()
    topics: frozenset = frozenset()

    def __bool__(self) -> bool:
        return bool(self.paths or self.topics)


def relevant(item: dict, focus: Focus) -> bool:
    """Whether an item is anchored to a focus path or carries a focus topic."""
    return (any(p["path"] in focus.paths for p in item["anchor"].get("paths", ()))
            or any(t in focus.topics for t in item["data"].get("topics", ())))


def by_relevance(items: list[dict], focus: Focus) -> list[dict]:
    """The relevant items first, then the others, each group in the order given."""
    if not focus:
        return items
    return [i for i in items if relevant(i, focus)] + [i for i in items if not relevant(i, focus)]
_MONTH = Lazy(r"([0-9]{4})-(0[1-9]|1[0-2])")


# -- sections ----------------------------------------------------------------------------------


def sections(candidates: list[dict], sequences: dict[str, int], focus: Focus = Focus()) -> dict[str, list[dict]]:
    """The sections of a brief from trusted candidate items (rows with ``stale`` keys, and
    ``challengedBy`` on rows with accepted challenges), each in §7.7 order (the ranked ones:
    those relevant to ``focus`` first)."""
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
    handoffs = [i for i in ordered if i["id"] in chosen]
    out = {
        "handoffs": handoffs,
        "decisions": [i for i in ordered if i["kind"] == "decision"],
        "observations": [i for i in ordered if i["kind"] == "observation"],
        "assumptions": [i for i in ordered if i["kind"] == "assumption"],
        "failedAttempts": by_relevance(failed, focus)[:FAILED_ATTEMPTS],
        "challenges": [i for i in ordered if i["challengers"]],
        "staleAnchors": [i for i in ordered if i["stale"]],
    }
    for name in SECTIONS:
        if name in out and name != "challenges":
            out[name] = [_without_challenges(i) for i in out[name]]
    for name in RANKED:
        out[name] = by_relevance(out[name], focus)
    out["staleAnchors"] = [stale_anchor(i) for i in out["staleAnchors"]]
    for name in DERIVED:
        out[name] = derived(name, handoffs[:FROM_HANDOFFS])
    return out


def derived(name: str, handoffs: list[dict]) -> list[dict]:
    """The ``nextActions`` or ``blockers`` section: the entries of the latest handoffs (the first
    ``FROM_HANDOFFS`` of the handoffs section), in handoff order, then entry order; each names the
    handoff it comes from. Author text, like every entry of a handoff."""
    key = DERIVED[name]
    return [{"memoryId": h["id"], "actor": h["actor"], "text": text}
            for h in handoffs for text in h["data"]["handoff"][key]]


def stale_anchor(item: dict) -> dict:
    """A ``staleAnchors`` entry: which memory, of what kind and by whom, and which of its anchored
    paths changed since it was written (the memory itself may also appear in its kind's
    section)."""
    return {"id": item["id"], "kind": item["kind"], "actor": item["actor"],
            "stalePaths": list(item["stalePaths"])}


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


class _At(dict):
    """A section's item and its ``position`` in the section: items are taken out of order (a
    later, smaller one where an earlier one did not fit), and a handoff's Markdown depends on
    whether it is among the latest ``FROM_HANDOFFS`` of its section. Equal to the item (the
    position is no part of the document)."""

    def __init__(self, item: dict, position: int):
        super().__init__(item)
        self.position = position


class Brief(dict):
    """A brief document. ``one_fits``: when it lists no item although it has some, the smallest
    bound at which the same brief lists one (its fixed part at its largest, and the smallest item
    a fill reads: each section's first ``SET_ASIDE`` or so, each listed whole), else None; what an
    agent that asked for too small a bound is told (git-hn: the MCP tool). ``notes``: the header
    lines its Markdown carries (none when the bound left no room for them), so that the CLI says on
    stderr only what the Markdown went without; ``dropped``: the lines the bound left no room for
    (f178: the CLI says each on stderr). Equal to the document (none of them is part of it)."""

    one_fits = None
    notes: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


def _doc(top: dict, taken: list, total: int) -> dict:
    doc = Brief(top)
    doc["truncated"] = len(taken) < total
    doc["omitted"] = total - len(taken)
    for name in SECTIONS:
        doc[name] = []
    for name, it in taken:
        doc[name].append(it)
    return doc


def bounded(top: dict, full: dict[str, list[dict]], max_bytes: int, fmt: str,
            names: dict | None = None, notes: tuple[str, ...] = (), settle=None) -> tuple[dict, bytes]:
    """``bounded_items`` over complete sections."""
    return bounded_items(top, {n: len(full[n]) for n in SECTIONS}, {n: iter(full[n]) for n in SECTIONS},
                         max_bytes, fmt, names, notes, settle)


def bounded_items(top: dict, counts: dict[str, int], items: dict, max_bytes: int, fmt: str,
                  names: dict | None = None, notes: tuple[str, ...] = (), settle=None) -> tuple[dict, bytes]:
    """Fill each section within ``max_bytes`` (§7.15, with git-hn's shares): first every section,
    in order, takes each of its items, in order, that fits in what is left of its share of the
    item budget (``SHARES``); then a section that took nothing (each item exceeds its share) takes
    its first item that fits in what is left (in ``FIRST_ONE`` order; ``challenges`` takes every
    one that fits there, before the routine decisions, observations and assumptions get their
    one: f62, a disputed memory must not be the one an agent misses; and after it ``handoffs``
    takes every one that fits, f86: each stream's latest state before the routine memories); then,
    in ``REST`` order,
    each takes every item not taken yet, in order, that fits in what is left. An item that
    does not fit is omitted whole (never cut), and a later, smaller one of its section may still
    be taken (git-hn, where §7.15 omits every later item too: one long handoff hid all the
    others); a section's items keep their order. Returns the document and its exact stdout bytes
    in ``fmt`` (``json`` or ``markdown``).

    ``items[name]`` yields the section's items in order, ``counts[name]`` of them; each is
    consumed only as far as needed (a section stops reading once ``SET_ASIDE`` of its items did
    not fit, or when less room is left than the smallest item takes), so a caller may build
    items as they are asked for. Both
    formats are additive (a fixed part that depends only on ``truncated`` and ``omitted``, one
    part per non-empty section, one part per item); the fixed part is reserved at its largest
    (nothing or everything taken), so the result always fits. ``names`` maps memory IDs to the
    author name signed in them, for the Markdown items.

    A Markdown brief that omits items names the first ``LEFT_NAMED`` of them (section order) in
    a block after its header (git-hn: the contract leaves the Markdown layout open), so that an
    agent whose session starts with a long handoff left out knows which memory to show; room
    for that block is taken from the items only when something is omitted (a second fill).
    ``notes``: git-hn's lines for the Markdown header (what the reader of a brief that shows
    nothing needs to know: no memory is imported here yet). ``settle`` (when given): the notes
    once the items are chosen (a function of the document, never more bytes in all than
    ``notes``: ``notes_size``), so that a note about an item the bound left out is not said (a
    review: the header said "Handoff X is not the latest of its stream" of a handoff listed as
    left out), and a count says what the notes now name no more (f173). The fill reserves room
    for every note, so the settled brief fits too.
    """
    if max_bytes <= 0:
        raise InputError("brief bound must be positive")
    names = {} if names is None else names  # filled by the caller as its items are built
    total = sum(counts.values())
    if fmt == "json":
        return _filled(top, counts, items, max_bytes, json_bytes, names, "json")
    cached = {n: _Replay(items[n]) for n in SECTIONS}  # (a second fill reads the same items again)
    dropped: tuple[str, ...] = ()
    try:
        doc, out = _filled(top, counts, {n: iter(cached[n]) for n in SECTIONS}, max_bytes,
                           lambda d: markdown_bytes(d, names, (), notes), names, fmt)
    except InputError:
        if not notes:
            raise
        notes, dropped = (), notes  # (a bound too small for them: the brief without, as before they existed)
        doc, out = _filled(top, counts, {n: iter(cached[n]) for n in SECTIONS}, max_bytes,
                           lambda d: markdown_bytes(d, names, (), notes), names, fmt)
    doc.notes, doc.dropped = notes, dropped
    if not doc["omitted"]:
        return doc, out  # (every item kept: nothing for a note to speak of that is not there)
    final = doc.notes = settle(doc) if settle is not None and notes else notes
    if final != notes:
        out = markdown_bytes(doc, names, (), final)
    widest = [("9" * len(str(total)), LEFT_COUNTED[n]) for n in SECTIONS if counts.get(n)]
    room = len(_left_markdown([("sha256:" + "0" * 64, max(LEFT_LABELS.values(), key=len))] * min(LEFT_NAMED, total),
                              widest))
    fewer, _bytes = _filled(top, counts, {n: iter(cached[n]) for n in SECTIONS}, max_bytes - room,
                            lambda d: markdown_bytes(d, names, (), notes), names, fmt, must_fit=max_bytes)
    left: list[tuple[str, str]] = []
    for name in SECTIONS:
        shown = {it.position for it in fewer[name]}
        rest = (it for k, it in enumerate(cached[name]) if k not in shown)
        while len(left) < LEFT_NAMED and (it := next(rest, None)) is not None:
            ident = it["memoryId"] if name in DERIVED else it["id"]
            if all(ident != i for i, _label in left):
                left.append((ident, LEFT_LABELS[name]))
    by_section = [(str(counts[n] - len(fewer[n])), LEFT_COUNTED[n]) for n in SECTIONS
                  if counts.get(n, 0) > len(fewer[n])]
    fewer.notes, fewer.dropped = settle(fewer) if settle is not None and notes else notes, dropped
    named = markdown_bytes(fewer, names, left, fewer.notes, by_section)
    # (a bound too small for the block beside the header keeps the first fill, unnamed)
    return (fewer, named) if len(named) <= max_bytes else (doc, out)


class _Replay:
    """An iterator's items, read once, as often as asked for (each ``iter`` starts again)."""

    def __init__(self, source):
        self.source, self.seen = source, []

    def __iter__(self):
        k = 0
        while True:
            if k < len(self.seen):
                yield self.seen[k]
            else:
                it = next(self.source, None)
                if it is None:
                    return
                self.seen.append(it)
                yield it
            k += 1


def _filled(top: dict, counts: dict[str, int], items: dict, max_bytes: int, render, names: dict,
            fmt: str, must_fit: int | None = None) -> tuple[dict, bytes]:
    """One fill of the sections within ``max_bytes`` (``bounded_items``'s rule). ``must_fit``:
    the bound the brief holding no item must fit in (the caller's, when it keeps room for more)."""
    total = sum(counts.values())

    def fixed(k: int) -> int:
        return len(render(_doc(top, [], total) | {"truncated": k < total, "omitted": total - k}))

    budget = max_bytes - max(fixed(0), fixed(total))  # "false" is a byte longer than "true"
    if budget < 0 and fixed(0) <= (must_fit or max_bytes):
        budget = 0  # (room for no item, but for the brief that omits them all)
    if budget < 0:
        # (§7.15's text; git-hn adds the smallest bound that fits, already measured: an agent
        # that asked for 100 bytes was left to guess it)
        raise InputError(f"memory brief does not fit in {must_fit or max_bytes} bytes; the smallest bound that "
                         f"fits is {fixed(0)} bytes (a brief that lists no memory)")
    taken: dict[str, list] = {n: [] for n in SECTIONS}
    used: dict[str, int] = {n: 0 for n in SECTIONS}
    aside: dict[str, list] = {n: [] for n in SECTIONS}  # items read that did not fit (yet), in order
    read: dict[str, int] = {n: 0 for n in SECTIONS}

    def cost(name: str, it: _At) -> int:
        extra = len(json_bytes(it)) - 1 if fmt == "json" else len(_item_markdown(it, names, name, it.position))
        if taken[name]:
            return extra + (1 if fmt == "json" else 0)  # a comma between array elements
        return extra + (0 if fmt == "json" else len(_section_markdown(name)))

    def candidates(name: str):
        """The section's items not taken, in order: those set aside, then those not read yet (at
        most ``SET_ASIDE`` set aside: the items are built as they are read)."""
        yield from list(aside[name])
        while read[name] < counts.get(name, 0) and len(aside[name]) <= SET_ASIDE:
            it = next(items[name], None)
            if it is None:
                return
            read[name] += 1
            yield _At(it, read[name] - 1)

    def fill(name: str, limit: int, most: int | None = None) -> None:
        def set_aside(it: _At) -> None:
            if not any(other is it for other in aside[name]):
                aside[name].append(it)

        for it in candidates(name):
            if (most is not None and len(taken[name]) >= most) or limit - used[name] < SMALLEST_ITEM:
                set_aside(it)
                return
            c = cost(name, it)
            if used[name] + c > limit:
                set_aside(it)
                continue  # (a later, smaller item may still fit)
            aside[name] = [other for other in aside[name] if other is not it]
            used[name] += c
            taken[name].append(it)

    for name in SECTIONS:
        fill(name, budget * SHARES[name] // 100)
    for name in FIRST_ONE:  # a section whose items each exceed its share still gets one, if it fits
        if name == "challenges":  # (f62: every challenged memory that fits, before the routine ones)
            fill(name, used[name] + budget - sum(used.values()))
            # (f86: then every stream's latest handoff that fits, as §7.15's section order has them
            # first: a trial's 8,000-byte brief left a teammate's latest handoff out for routine ones)
            fill("handoffs", used["handoffs"] + budget - sum(used.values()))
        elif not taken[name]:
            fill(name, budget - sum(used.values()), most=1)
    for name in REST:  # then what the shares left, the challenged before the routine memories
        fill(name, used[name] + budget - sum(used.values()))
    for name in SECTIONS:  # (taken out of order: shown in the section's own order)
        taken[name].sort(key=lambda it: it.position)
    doc = _doc(top, [(n, it) for n in SECTIONS for it in taken[n]], total)
    if total and not any(taken.values()):  # (the bound at which the fill takes one: see ``Brief``)
        costs = [cost(n, it) for n in SECTIONS if counts.get(n) for it in candidates(n)]
        doc.one_fits = max(fixed(0), fixed(total)) + min(costs) if costs else None
    return doc, render(doc)


def json_bytes(doc: dict) -> bytes:
    return canonical.compact_line(doc)


# -- Markdown ----------------------------------------------------------------------------------


def fence(text: str) -> str:
    """A fenced block that ``text`` cannot close: the fence is one backtick longer than the
    longest backtick run in the text, and at least three."""
    longest = _longest_backticks(text)
    ticks = "`" * max(3, longest + 1)
    body = spell_backslash(safe_text(text))  # (the one spelling ``_out`` leaves to it)
    if not body.endswith("\n"):
        body += "\n"
    return f"{ticks}text\n{body}{ticks}\n"


def _code(text: str) -> str:
    """An inline code span for an identifier-like author string (a path, a topic): exact, by
    CommonMark's rule (a fence longer than any backtick run inside). A renderer strips one space
    from each side of a span that both begins and ends with a space (and is not all spaces), so
    the text is padded with one each side when it starts or ends with a backtick, and when it both
    starts and ends with a space (a trial: the path `` both ends `` rendered as ``both ends``,
    another file). For author names, ``_name``. A space other than U+0020 is spelled here
    (``spell_invisible``), where the item's content keeps it (``_out``)."""
    text = spell_invisible(one_line(text))
    longest = _longest_backticks(text)
    ticks = "`" * (longest + 1)
    spaced = text.startswith(" ") and text.endswith(" ") and text.strip(" ")
    pad = " " if text.startswith("`") or text.endswith("`") or spaced else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _name(text: str) -> str:
    """An author's signed name as an inline code span that ends, to a reader of the raw text,
    where it ends to a renderer: one backtick each side, and every backtick in the name spelled
    ``\\u{60}`` (as invisible characters are spelled). A longer fence was CommonMark-correct but
    misread (*markdown injection*, *impersonation*): an agent reading the raw brief took
    ``Alice Lead` <Alice's actor>; trusted: …) and (actor `Bob`` for a trusted challenge by Alice.
    A name is display text (the actor ID beside it is the identity), so it may be shown changed."""
    return "`" + spell_invisible(one_line(text)).replace("`", "\\u{60}") + "`"


def _path(path: str, names: dict) -> str:
    """An anchored path as a code span, and after it, where another path of the brief looks
    identical (the same name in another Unicode normalization), how this one is written."""
    note = getattr(names, "lookalike", {}).get(path)
    return _code(path) + (f" ({note})" if note else "")


def _out(text: str) -> bytes:
    """The brief's text as bytes, invisible characters spelled; a space other than U+0020 is
    kept, for the content (prose), and spelled in names, paths and topics (``_code``, ``_name``).
    Author text is spelled where it is put in (``_code``, ``_name``, ``fence``): a backslash of it
    that begins ``\\u{`` is spelled there (``invisible.spell_backslash``), never here again."""
    return spell_invisible(text, spaces=False, spelled=True).encode("utf-8", "replace")


def _item_markdown(it: dict, names: dict, name: str = "", index: int = 0) -> bytes:
    """One item of section ``name`` at position ``index`` of its section."""
    if name in DERIVED:
        author = names.get(it["memoryId"])
        who = f"{_name(author)} ({it['actor']})" if author else it["actor"]
        return _out(f"\nFrom handoff {it['memoryId']}, author: {who}:\n" + fence(it["text"]))
    author = names.get(it["id"])
    who = f"{_name(author)} ({it['actor']})" if author else it["actor"]
    if name == "staleAnchors":
        return _out(f"\n- {it['id']} ({it['kind']}; author: {who}) changed: "
                    + ", ".join(_path(p, names) for p in it["stalePaths"]) + "\n")
    out = [f"\n### {it['id']}\n",
           f"kind: {it['kind']}; trust: {it['trust']}; author: {who}; "
           f"signed: {it['signedTimestamp']}\n"]
    topics = it["data"].get("topics") or []
    if topics:
        out.append("topics: " + ", ".join(_code(t) for t in topics) + "\n")
    paths = [p["path"] for p in it["anchor"].get("paths", ())]
    if paths:
        out.append("paths: " + ", ".join(_path(p, names) for p in paths) + "\n")
    if it["stale"]:
        out.append("stale: anchored paths changed since it was written: "
                   + ", ".join(_path(p, names) for p in it["stalePaths"]) + "\n")
    data = it["data"]
    out += ["Content (inert):\n", fence(data["content"])]
    handoff = data.get("handoff")
    if handoff is not None:
        # a handoff beyond the latest ones (or in another section) keeps its entries with it
        inline = name != "handoffs" or index >= FROM_HANDOFFS
        for key, label in _HANDOFF_LABELS if inline else _HANDOFF_LABELS[:2]:
            for entry in handoff[key]:
                out += [f"{label}:\n", fence(entry)]
        if inline and handoff["nextActions"]:
            out.append(NEXT_ACTIONS + "\n")
            out += [fence(entry) for entry in handoff["nextActions"]]
        moved = [] if inline else [f"{len(handoff[k])} {label}{'' if len(handoff[k]) == 1 else 's'}"
                                   for k, label in (("blockers", "blocker"), ("nextActions", "proposed next action"))
                                   if handoff[k]]
        if moved:  # listed in their own sections (this handoff is among the latest ones)
            one = len(moved) == 1 and moved[0].startswith("1 ")
            # (as far as the byte bound leaves room: a section cut short counts them as left out)
            out.append("Its " + and_joined(moved) + (" has its section below, as far as the bound allows.\n"
                                                       if one else
                                                       " have their sections below, as far as the bound allows.\n"))
    for ch in it.get("challengedBy", ()):
        name = names.get(ch["memoryId"])
        who = f"{_name(name)} {ch['actor']}" if name else ch["actor"]
        # the standing first: what the policy says of the actor, before anything the actor chose
        out.append(f"Challenged by {ch['memoryId']} ({challenger_standing(ch['actor'], names)}; actor {who}); "
                   "reason:\n")
        out.append(fence(ch["reason"]))
        if ch["evidence"]:
            out.append("Challenge evidence: " + ", ".join(spell_backslash(one_line(e)) for e in ch["evidence"]) + "\n")
    return _out("".join(out))


def challenger_standing(actor: str, names: dict) -> str:
    """Whether the policy at the brief's commit trusts a challenger, and why
    (``core.policy.actor_standing``): any actor's challenge counts (§5.3), so the Markdown says
    whose it is; the JSON ``challengedBy`` entries keep their four keys (§7.15)."""
    return "%s: %s" % actor_standing(actor, getattr(names, "policy", None))


def _section_markdown(name: str) -> bytes:
    return _out(f"\n## {TITLES[name]}\n")


UNTRUSTED_LINE = ("Memories the trust policy does not qualify are left out: --include-untrusted (MCP: "
                  "includeUntrusted true) shows them; ")
TRUST = "git hn policy trust qualifies their authors or kinds"
# to a reader known not to be a maintainer of the policy at HEAD (``policy_edit.not_maintainer``):
# what a maintainer runs, as every other trust hint says it (``hints.MAINTAINER_RUNS``; a review:
# the Markdown brief alone told a non-maintainer to run policy trust, which it cannot commit)
TRUST_BY_MAINTAINER = ("to qualify their authors or kinds, a maintainer runs git hn policy trust ACTOR|--kind KIND "
                       "and commits .hn/policy.json")
NO_POLICY = "there is no policy at this commit: git hn policy init writes one, to commit"
# (a trial: after policy init, not committed, "policy init writes one" was said of a file that
# exists, and init refuses it) by what the working tree holds (``policy_working.working_policy``)
NO_POLICY_HERE = {
    "memory": "there is no policy at this commit: .hn/policy.json in the working tree applies once it is committed",
    "no-memory": ("there is no policy at this commit: git hn policy trust ACTOR|--kind KIND gives .hn/policy.json "
                  "in the working tree a memory section, to commit"),
    "invalid": "there is no policy at this commit: .hn/policy.json in the working tree is invalid: fix it, to commit",
    "committed": "there is no policy at this commit (HEAD has one)",
}
# every author of those left out is one the policy no longer trusts (``service.revoked``): no offer
# to trust them (a trial: README promises none), only kinds when some are left out for their kind
REVOKED = {"all": "the policy no longer trusts their authors",
           "kinds": ("git hn policy trust --kind KIND qualifies those of trusted authors; the policy no longer "
                     "trusts the other authors"),
           "kinds-by-maintainer": ("to qualify those of trusted authors, a maintainer runs git hn policy trust --kind "
                                   "KIND and commits .hn/policy.json; the policy no longer trusts the other authors")}


LEFT_LINE = "Left out to stay within the byte bound (git hn memory show ID prints one; a larger --max-bytes keeps more):"
LEFT_BY_SECTION = "Left out, by section (git hn memory recall --kind KIND lists a kind): "


def notes_size(notes: tuple[str, ...]) -> int:
    """The bytes ``notes`` take in the Markdown header (what a settled set must not exceed)."""
    return sum(len(_out(f"{note}\n")) for note in notes)


def _left_markdown(left: list[tuple[str, str]], by_section: list[tuple[str, str]] = ()) -> bytes:
    """The block naming omitted items: (memory ID, what it is) each, then how many each section
    left out ((count, label) each)."""
    if not left:
        return b""
    counted = LEFT_BY_SECTION + ", ".join(f"{label} {n}" for n, label in by_section) + "\n" if by_section else ""
    return _out(LEFT_LINE + "\n" + "".join(f"- {ident} ({label})\n" for ident, label in left) + counted)


def markdown_bytes(doc: dict, names: dict | None = None, left: list[tuple[str, str]] = (),
                   notes: tuple[str, ...] = (), by_section: list[tuple[str, str]] = ()) -> bytes:
    """The Markdown brief: the warning as a block quote, a short header (and ``notes``, a line
    each), the first omitted items (``left``), then one section per non-empty list. Additive by
    construction (see ``bounded``)."""
    parts = [_out(f"> {doc['warning']}\n\nBrief at commit {doc['atCommit']}; policy "
                  f"{doc['policyDigest']}\nOmitted: {doc['omitted']}; truncated: "
                  f"{'true' if doc['truncated'] else 'false'}; excluded untrusted: "
                  f"{doc['excludedUntrusted']}\n")]
    if doc["excludedUntrusted"]:  # (what an agent reads of it: the CLI's hint goes to stderr)
        from .policy import MISSING_DIGEST

        advice = getattr(names, "advice", "") or (NO_POLICY if doc['policyDigest'] == MISSING_DIGEST else TRUST)
        parts.append(_out(f"{UNTRUSTED_LINE}{advice}\n"))
    parts += [_out(f"{note}\n") for note in notes]
    parts.append(_left_markdown(list(left), list(by_section)))
    for name in SECTIONS:
        if doc[name]:
            parts.append(_section_markdown(name))
            parts += [_item_markdown(it, names or {}, name, getattr(it, "position", k)) for k, it in enumerate(doc[name])]
    return b"".join(parts)


# -- digest ------------------------------------------------------------------------------------


def check_month(month: str) -> str:
    if _MONTH.fullmatch(month) is None:
        raise InputError(f'invalid digest month "{quoted(month)}"; a month is YYYY-MM, such as 2026-01')
    return month


def digest_rows(rows: list[dict], month: str) -> list[dict]:
    """Handoff and decision rows signed (in UTC) within ``month``, in (UTC time, ID) order."""
    keep = [r for r in rows if r["kind"] in ("handoff", "decision")
            and utc_timestamp(r["signedTimestamp"])[:7] == month]
    return sorted(keep, key=lambda r: (utc_instant(r["signedTimestamp"]), r["id"]))


def digest_doc(month: str, rows: list[dict]) -> dict:
    return {"version": 0, "warning": WARNING, "month": month, "memories": rows}


def bounded_digest(doc: dict, max_bytes: int, size) -> dict:
    """git-hn (the MCP tool): ``doc`` (a §7.15 digest) within ``max_bytes`` as ``size(obj)``
    measures it, keeping its newest memories that fit, in the digest's order; when any is left
    out (the oldest), ``truncated`` is true and ``omitted`` counts them, as in a brief. An agents
    trial (f62): mid-month, 59 of 179 kept were the month's first, and every agent's latest
    handoff was among those left out. The document alone is never cut below its fixed part (the
    caller refuses a bound under it)."""
    if size(doc) <= max_bytes:
        return doc
    rows = doc["memories"]
    fixed = size({**doc, "memories": [], "truncated": True, "omitted": len(rows)})
    kept, used = [], fixed
    for row in reversed(rows):
        used += size(row) + (1 if kept else 0)
        if used > max_bytes:
            break
        kept.append(row)
    return {**doc, "memories": kept[::-1], "truncated": True, "omitted": len(rows) - len(kept)}


def digest_lines(doc: dict) -> list[str]:
    lines = [doc["warning"]]
    for r in doc["memories"]:
        lines.append(f"{utc_timestamp(r['signedTimestamp'])}  {r['id']}  kind={r['kind']}  "
                     f"lifecycle={r['lifecycle']}  trust={r['trust']}")
        lines.append("  " + content_text(r["data"]["content"]))
    return lines
