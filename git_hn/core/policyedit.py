"""Editing ``.hn/policy.json`` without hand-written JSON (issue 13): the document ``git hn policy
init`` writes, the canonical form every edit writes, the trust and untrust edits, and resolving an
ACTOR argument (full ID, hex prefix or display name) against the actors git-hn knows.

Pure: takes the file's bytes and the known actors, returns the new bytes and what changed. Every
document written here is first read back through ``policy.parse_policy``, the validation ``git hn
policy show`` and recall use, so an edit can never produce a policy they refuse. An edit only
ever touches the ``memory`` section; the rest of the document keeps its values (in the canonical
key order and layout, Go's ``MarshalIndent``).

The format has no per-actor kinds: ``trustedKinds`` applies to every trusted actor, so ``--kind``
edits that one global list. Resolving a name or prefix refuses anything ambiguous rather than
guess: trusting the wrong actor because two share a name (*name squatting*: display names are
chosen by their authors and are not unique) would silently qualify someone else's memories. A name that resolves is still only its author's
choice, so the names it may be taken for are found too (``look_alike``: another script's letter,
an invisible character, a capital I drawn as an l), for the warning ``policy trust`` gives after a
grant by name.
"""

from __future__ import annotations


from ..errors import InputError, PolicyError
from . import canonical
from .gostr import Lazy, quoted, short_id
from .limits import KINDS, LIMITS
from .policy import parse_policy
from .strictjson import fold_key, read_document
from .tuples import NamedTuple

DEFAULT_KINDS = tuple(sorted(KINDS))  # a trusted actor's memories are all recalled by default
MIN_PREFIX = 8
_HEX = Lazy(r"[0-9a-fA-F]+")
_TOP = ("version", "maintainers", "proposals", "pipelines", "memory")
_PROPOSALS = ("requiredApprovals", "requiredAccepts", "trustedReviewers", "allowAuthorApproval")
_PIPELINE = ("requiredResults", "trustedRunners")


class Known(NamedTuple):
    """An actor git-hn knows of, with the display names it was seen with (newest first)."""

    actor: str
    names: tuple[str, ...] = ()


class Change(NamedTuple):
    """One effect of an edit: ``what`` is ``actor`` or ``kind``; ``done`` False means unchanged."""

    what: str
    value: str
    done: bool


class Edit(NamedTuple):
    data: bytes | None  # the new file bytes; None when nothing changed
    changes: tuple[Change, ...]
    created_section: bool
    kinds: tuple[str, ...]  # trustedKinds after the edit
    sorted_lists: bool = False  # the file's memory lists were out of order: written sorted


def initial(actor: str) -> bytes:
    """The smallest valid policy (CONTRACT §6.3) trusting ``actor`` for the default kinds."""
    return _checked({"version": "hn.policy/0", "maintainers": [actor],
                     "proposals": {"requiredAccepts": 1},
                     "memory": {"trustedActors": [actor], "trustedKinds": list(DEFAULT_KINDS)}})


def check_kinds(kinds) -> tuple[str, ...]:
    for k in kinds:
        if k not in KINDS:
            raise InputError(f'invalid kind "{quoted(k)}"; use one of {", ".join(DEFAULT_KINDS)}')
    return tuple(sorted(set(kinds)))


def canonical_document(data: bytes, in_order: bool = True) -> dict:
    """The validated document with canonical key names and order, nulls dropped (their zero
    values), pipelines by name and the memory lists sorted. Raises ``PolicyError`` as
    ``policy show`` would; ``in_order=False`` accepts memory lists out of order (an edit writes
    them sorted)."""
    parse_policy(data, in_order)
    doc = read_document(data, prefix="parse policy: ", max_bytes=LIMITS.max_policy, fold_keys=True,
                        error=PolicyError) or {}
    top = _bind(doc, _TOP)
    out = {"version": top["version"], "maintainers": list(top["maintainers"])}
    proposals = _bind(top.get("proposals"), _PROPOSALS)
    if proposals:
        out["proposals"] = proposals
    pipelines = top.get("pipelines")
    if pipelines:
        out["pipelines"] = {name: _bind(pipelines[name], _PIPELINE) for name in sorted(pipelines)}
    memory = _bind(top.get("memory"), ("trustedActors", "trustedKinds"))
    if top.get("memory") is not None:
        out["memory"] = {"trustedActors": sorted(memory["trustedActors"]),
                         "trustedKinds": sorted(memory["trustedKinds"])}
    return out


def _bind(value, names: tuple[str, ...]) -> dict:
    """Keys folded to their field names (the document is already valid), in ``names`` order."""
    if value is None:
        return {}
    fields = {n.lower(): n for n in names}
    bound = {fields[fold_key(k)]: v for k, v in value.items()}
    return {n: bound[n] for n in names if bound.get(n) is not None}


def _checked(doc: dict) -> bytes:
    data = canonical.indented(doc)
    parse_policy(data)  # what is written is exactly what policy show and recall accept
    return data


def edit(data: bytes, *, trust: bool, actor: str | None = None, kinds=()) -> Edit:
    """Add (``trust``) or remove ``actor`` and ``kinds`` in the memory section of ``data``.

    Trusting into a document without a memory section creates one: with ``kinds`` if given,
    else the default kinds. Untrusting from a document without one changes nothing. Memory
    lists out of order (a hand edit) are the one fault an edit repairs: it writes them sorted,
    whatever else it changes (``sorted_lists``); every other fault is refused as ``policy show``
    refuses it."""
    doc = canonical_document(data, in_order=False)
    unsorted = _out_of_order(data)
    kinds = check_kinds(kinds)
    memory = doc.get("memory")
    created = memory is None and trust
    if created:  # the kinds named, else the default ones
        memory = doc["memory"] = {"trustedActors": [],
                                  "trustedKinds": [] if kinds else list(DEFAULT_KINDS)}
    changes = []
    if actor is not None:
        changes.append(_apply(memory["trustedActors"], actor, trust, "actor") if memory is not None
                       else Change("actor", actor, False))
    for k in kinds:
        changes.append(_apply(memory["trustedKinds"], k, trust, "kind") if memory is not None
                       else Change("kind", k, False))
    after = tuple(memory["trustedKinds"]) if memory is not None else ()
    if not created and not unsorted and not any(c.done for c in changes):
        return Edit(None, tuple(changes), False, after)
    return Edit(_checked(doc), tuple(changes), created, after, unsorted)


def _out_of_order(data: bytes) -> bool:
    """Whether a document valid with ``in_order=False`` is refused only for its lists' order."""
    try:
        parse_policy(data)
    except PolicyError:
        return True
    return False


def _apply(items: list, value: str, add: bool, what: str) -> Change:
    present = value in items
    if add and not present:
        items.append(value)
    elif not add and present:
        items.remove(value)
    items.sort()
    return Change(what, value, add != present)


# -- ACTOR arguments ----------------------------------------------------------------------------


def resolve_actor(query: str, known: list[Known], prefer: frozenset = frozenset(), notes=None) -> Known:
    """A full actor ID (any case; it need not be known), a unique prefix of at least eight hex
    characters, or a display name that exactly one known actor was seen with. Names are compared
    folded (``fold_name``: case, compatibility forms and invisible characters do not count), and
    every actor whose name folds the same matches: anyone can sign under any name, so "bob" must
    not quietly mean whichever of "Bob" and "bob" published first. Among several matches, the one
    actor of ``prefer`` (``untrust``: the actors the policy lists) is taken. ``notes``: actor ->
    what an ambiguous name's refusal says of it beside its short ID (``no longer trusted since …``)."""
    by_actor = {k.actor: k for k in known}
    if _HEX.fullmatch(query) and len(query) == 64:
        actor = query.lower()
        return by_actor.get(actor, Known(actor))
    found = matching(query, known)
    folded = fold_name(query)
    if not folded and not _HEX.fullmatch(query):  # (a review: "no known actor matches : …")
        raise InputError("an empty actor (or one of invisible characters alone) names no one; give a display "
                         "name, a prefix of at least 8 hex digits of the actor ID, or the full actor ID")
    if len(found) > 1 and len(found & prefer) == 1:
        found &= prefer
    shown = quoted(query)
    if len(found) > 1:
        matches = sorted(found, key=lambda a: (fold_name((by_actor[a].names or ("",))[0]), a))[:AMBIGUOUS_SHOWN]
        width = distinct_width(matches)
        listed = ", ".join(label(by_actor[a], (notes or {}).get(a, ""), width) for a in matches)
        more = f" and {len(found) - AMBIGUOUS_SHOWN} more" if len(found) > AMBIGUOUS_SHOWN else ""
        raise InputError(f"actor {shown} is ambiguous: it matches {len(found)} known actors ({listed}{more}); "
                         "use a longer prefix or the full actor ID")
    if found:
        return by_actor[found.pop()]
    if _HEX.fullmatch(query) and len(query) < MIN_PREFIX:
        raise InputError(f"actor prefix {shown} is shorter than {MIN_PREFIX} hex characters; "
                         "use a longer prefix or the full actor ID")
    near = sorted({k.actor for k in known for n in k.names if folded and (
        fold_name(n).startswith(folded) or folded in fold_name(n).split())},
        key=lambda a: (fold_name((by_actor[a].names or ("",))[0]), a))
    if near:  # (a name is matched exactly, never by a part: anyone can sign under any name)
        width = distinct_width(near[:AMBIGUOUS_SHOWN])
        listed = ", ".join(label(by_actor[a], width=width) for a in near[:AMBIGUOUS_SHOWN])
        raise InputError(f"no known actor is named {shown} exactly; known actors whose name starts with or "
                         f"contains that word: {listed}; give the whole name or the actor ID")
    raise InputError(f"no known actor matches {shown}: a teammate is known once their memory is here "
                     "(git hn sync; git hn memory recall --include-untrusted lists it), or use the full "
                     "actor ID their git hn identity public prints")


AMBIGUOUS_SHOWN = 5  # matches an ambiguous ACTOR names
SHORT_ID = 12  # hex digits of a short ID (CONTRACT §1.9, ``gostr.short_id``)


def distinct_width(actors) -> int:
    """How many leading hex digits show each of ``actors`` apart from the others: the fewest,
    never under a short ID's twelve, at which no two of them read the same. A list of short IDs
    alone can show one ID twice (*mistyped ID*: a trial's policy listed an ID mistyped in its last
    digit beside the teammate's own, and ``policy trust`` of a prefix of both refused with
    ``(92d5b172086c, 92d5b172086c ("Nico New", …))``, leaving no way to tell which is which)."""
    width, longest = SHORT_ID, max((len(a) for a in actors), default=0)
    while width < longest and len({a[:width] for a in actors}) < len(actors):
        width += 1
    return width


def twins(who: Known, known: list[Known]) -> list[Known]:
    """The known actors other than ``who`` whose ID starts with ``who``'s short ID, in a stable
    order. A full ID given by hand prints as its short ID, so one mistyped after its twelfth
    character reads as a known actor's (*mistyped ID*: a trial's typo in the last digit read
    "Trusted 92d5b172086c", the teammate's own short ID, and trusted no one)."""
    prefix = short_id(who.actor)
    return sorted((k for k in known if k.actor != who.actor and k.actor.startswith(prefix)), key=lambda k: k.actor)


def matching(query: str, known: list[Known]) -> set[str]:
    """The known actors ``query`` names short of a full ID (``resolve_actor``): those its hex
    prefix of at least ``MIN_PREFIX`` characters starts, and those seen with a name that folds
    as it does."""
    found = set()
    if _HEX.fullmatch(query) and len(query) >= MIN_PREFIX:
        found |= {k.actor for k in known if k.actor.startswith(query.lower())}
    folded = fold_name(query)
    if folded:  # (a review: "" matched every name that folds to nothing, invisible characters alone)
        found |= {k.actor for k in known if any(fold_name(n) == folded for n in k.names)}
    return found


def fold_name(name: str) -> str:
    """A display name as ``resolve_actor`` compares it: NFKC, case-folded, without the
    characters that print as nothing (Unicode format characters: zero-width, bidi controls)."""
    import unicodedata

    text = unicodedata.normalize("NFKC", name).casefold()
    return "".join(c for c in text if unicodedata.category(c) != "Cf").strip()


# capitals of other scripts drawn like a Latin capital, as that capital, before case folding: its
# own lowercase may be drawn otherwise (a review: Greek "Ν" folds to "ν", drawn as "v"; "Υ" to
# "υ", drawn as "u"; "Ι" and Cyrillic "І" are drawn as "I", which ``shapes`` takes for "l" too)
_CAPITALS = str.maketrans(
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"  # Greek
    "\u0405\u0406\u0408\u04c0",  # Cyrillic
    "ABEZHIKMNOPTYX" "SIJI")
# letters of other scripts drawn like a Latin letter (after NFKC and case folding, so each
# capital's lowercase stands for it: Cyrillic "Н" folds to "н", drawn as "H" in capitals)
_LOOKS_LATIN = str.maketrans(
    "\u0430\u0432\u0435\u0451\u0456\u0457\u0458\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443"
    "\u0445\u0455\u04bb\u04cf\u0501\u051b\u051d"  # Cyrillic
    "\u03b1\u03b2\u03b5\u03b7\u03b9\u03ba\u03bc\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7\u03b6"  # Greek
    "\u0585\u057d\u0578\u0131\u0261",  # Armenian o, u, n; dotless i; script g
    "abeeiijkmhopctyxshldqw" "abehikmvoptuxz" "ouni" "g")


def look_alike(name: str, capital_i: str = "I") -> str:
    """What ``name`` looks like on screen, for saying that two different names can be taken for
    each other (*homoglyph impersonation*: "Аlice" with a Cyrillic "А"): NFKC, the capitals of other
    scripts drawn like a Latin capital as that capital, ``fold_name`` without any invisible
    character (``core.invisible``, also those that are no format character, such as U+2800), runs
    of spaces as one, and the letters of other scripts drawn like a Latin letter as that letter (a
    small table, not Unicode's whole confusables list). ``capital_i``: what a capital "I" is read
    as: itself, or "l", as many fonts draw both (``shapes``)."""
    import unicodedata

    from .invisible import remove_invisible

    text = unicodedata.normalize("NFKC", remove_invisible(name)).translate(_CAPITALS).replace("I", capital_i)
    return " ".join(fold_name(text).translate(_LOOKS_LATIN).split())


def shapes(name: str) -> set[str]:
    """The ways ``name`` may be read on screen (``look_alike``): with a capital "I" as an "I", and
    as an "l" (a review: "AIice", with a capital "I", was not found to look like "Alice"); none
    for a name drawn as nothing."""
    return {look_alike(name), look_alike(name, "l")} - {""}


def named_by(query: str, who: Known) -> str:
    """The display name of ``who`` that ``query`` named it by (``resolve_actor``), or "" when it
    named it by its ID or a hex prefix of it."""
    if _HEX.fullmatch(query) and len(query) >= MIN_PREFIX and who.actor.startswith(query.lower()):
        return ""
    folded = fold_name(query)
    return next((n for n in who.names if folded and fold_name(n) == folded), "")


def look_alikes(name: str, who: Known, known: list[Known]) -> list[Known]:
    """The known actors other than ``who`` seen with a name that looks like ``name``
    (``shapes``: one way of reading it is one of theirs), in a stable order."""
    read = shapes(name)
    if not read:
        return []
    found = [k for k in known if k.actor != who.actor and any(shapes(n) & read for n in k.names)]
    return sorted(found, key=lambda k: k.actor)


def label(known: Known, note: str = "", width: int = SHORT_ID) -> str:
    """``short ID ("Name", a self-chosen name)`` as ``hints.named_actor`` names an author (the ID
    first, the name quoted inert: a name such as ``Maintainer` (f86baf7a43fd) trusted.`` read as
    the ID of another, *display name spoofing*), or the short ID alone for an actor seen with no
    name; with a ``note``, ``short ID ("Name", a self-chosen name, note)`` or ``short ID (note)``.
    ``width``: the ID's leading digits shown instead of a short ID's twelve (``distinct_width``)."""
    from .hints import named_actor

    shown = named_actor(short_id(known.actor), known.names[0] if known.names else None)
    if width > SHORT_ID:  # (``named_actor`` starts with the short ID: the longer prefix replaces it)
        shown = known.actor[:width] + shown[SHORT_ID:]
    if not note:
        return shown
    return f"{shown[:-1]}, {note})" if shown.endswith(")") else f"{shown} ({note})"


__all__ = ["DEFAULT_KINDS", "Known", "Change", "Edit", "initial", "edit", "canonical_document",
           "check_kinds", "resolve_actor", "twins", "label", "distinct_width", "look_alike", "shapes", "named_by",
           "look_alikes"]
