"""Small lookups for people and shells: the signed author name of memories (terminal output) and
the memory IDs under a prefix (shell completion).

Author names come from the verified state (``stateview.serve``), or a full collection when the
state cannot answer, exactly as ``show`` finds memories; completion reads the sealed state as last
verified and nothing else (it must answer at once). Trusts: what the state serves (payloads
re-checked by ``View.load``; IDs from its sealed ``memories`` table, checked for their form).
"""

from __future__ import annotations

from ..store import stateview, streams
from ..store.repo import Repo


def author_names(repo: Repo, ids) -> dict[str, str]:
    """The signed author name (``actorName``) of each memory in ``ids``."""
    want = list(dict.fromkeys(ids))
    if not want:
        return {}

    def with_view(view) -> dict[str, str]:
        return {i: m.envelope.actor_name for i, m in view.load(want).items()}

    def full() -> dict[str, str]:
        keep = set(want)
        return {m.memory_id: m.envelope.actor_name for m in streams.collect(repo).memories
                if m.memory_id in keep}

    return stateview.serve(repo, with_view, full)


def known_authors(repo: Repo) -> list[tuple[str, str]]:
    """``(name, actor)`` of the actors this clone knows, for telling apart two that show the
    same name (``core.log.shared_names``): its own identities, and the author of the newest
    memory of every stream in the verified state (one envelope per stream, payloads re-checked
    by ``View.load``). A name two actors share is tagged with the actor wherever either shows,
    even when only one of them is among the rows shown (a newcomer trial: an impostor "Newbie"
    alone in a recall showed as plain "Newbie"). When the state cannot answer, only the
    identities: a full verification is not worth a tag. Nor past ``KNOWN_STREAMS`` streams: one
    envelope read per stream would make every terminal view cost what the organisation holds
    (issue 11); there the rows shown and the identities are compared, as before."""
    from ..store import identity
    from .policy_edit import stream_authors

    def from_state(view) -> list[tuple[str, str]]:
        if view.conn.execute("SELECT count(*) FROM sources").fetchone()[0] > KNOWN_STREAMS:
            return []
        return [(name, actor) for actor, name, _ts in stream_authors(view)]

    pairs = [(ident.name, ident.actor) for ident, _active in identity.list_identities(repo)]
    return pairs + stateview.serve(repo, from_state, list)


KNOWN_STREAMS = 2000  # streams up to which ``known_authors`` reads each one's newest author


def memory_ids(repo: Repo, hexprefix: str, targets: bool = False) -> list[str]:
    """Sorted memory IDs starting with ``sha256:<hexprefix>`` from the state as last verified
    (``stateview.last_verified``: it may miss what arrived since the last command, and it is
    never rebuilt or waited for here: completion must answer at once); with ``targets``, only
    records and supersedes (what ``supersede``, ``retract`` and ``challenge`` can name). Only
    well-formed IDs are returned. No state, or a busy one: nothing."""
    import re

    from ..store.state import ROW_OPS

    well_formed = re.compile(r"sha256:[0-9a-f]{64}")
    with stateview.last_verified(repo) as view:
        if view is None:
            return []
        found = view.ids(hexprefix, tuple(ROW_OPS) if targets else None)
    return [i for i in found if well_formed.fullmatch(i)]


ACTOR_FILTER = "invalid actor filter"  # CONTRACT §7.4's text, which the hint follows


def actor_filters(repo: Repo, values) -> tuple[str, ...]:
    """The ``--actor`` values of ``recall`` and ``log`` (flags only: a request document keeps
    §7.3's full ID), each a full actor ID or, as ``policy trust`` takes an ACTOR (a trial:
    ``recall --actor claude-a`` was refused by an error that resolved the name itself), a unique
    prefix of at least eight hex characters or a display name exactly one known actor was seen
    with; resolved to the full ID before the request is built, so cursors and digests are those of
    the full ID. Anything else is ``invalid actor filter``, then ``resolve_actor``'s words (an
    ambiguous name lists the actors it matches). The known actors are read only when a value is
    not a full ID; a full-length ID that is not one (uppercase) is refused, as §7.4 refuses it."""
    from ..core import grammar
    from ..core.policyedit import resolve_actor
    from ..errors import InputError
    from .policy_edit import known_actors

    values = tuple(values or ())
    if all(grammar.is_actor(v) for v in values):
        return values
    known, out = known_actors(repo), []
    for value in values:
        if grammar.is_actor(value):
            out.append(value)
            continue
        if len(value) == 64 and all(c in "0123456789abcdefABCDEF" for c in value):
            # (a review: an uppercase full ID was lowercased, where CONTRACT §7.4 refuses it)
            raise InputError(explain_actor_filter(repo, (value,)))
        among, stray = _without_strays(repo, value, known)
        try:
            out.append(resolve_actor(value, among).actor)
        except InputError as exc:
            raise InputError(f"{ACTOR_FILTER}; {exc.message}{_stray_hint(stray)}") from None
    return tuple(out)


def _without_strays(repo: Repo, value: str, known: list) -> tuple[list, list]:
    """``known`` for resolving ``value``, without the identities of this keyring that signed
    nothing this clone holds when another identity of the keyring matches too (a team trial: after
    ``init`` on a new machine, then ``identity import`` of the identity used elsewhere, both named
    Alice, ``--actor Alice`` was ambiguous; the stray matches no memory, so leaving it out changes
    no answer). Another actor's matching name still makes ``value`` ambiguous: a name is anyone's
    to sign with. Also (second) the strays that stay among the matches, for the error's hint."""
    from ..core.policyedit import matching
    from ..store import identity

    found = matching(value, known)
    if len(found) < 2:
        return known, []
    own = {ident.actor: (ident, active) for ident, active in identity.list_identities(repo)}
    strays = {a for a in found & own.keys() if a not in signers(repo)}
    if strays and (found - strays) & own.keys():
        return [k for k in known if k.actor not in strays], []
    return known, [own[a] for a in sorted(strays)]


def signers(repo: Repo) -> set[str]:
    """The actors with a memory stream here (their own, or an accepted copy): who signed something
    this clone holds."""
    return {s.actor for s in streams.list_sources(repo)}


WITHHELD = "its name is not repeated here: it looks like a credential"


def named_identity(actor: str, name: str | None) -> str:
    """How a line names an identity of this keyring (``hints.named_actor``: the short ID first,
    the name quoted), except a name the secret lint flags (``secretscan.shaped``: one stored before
    ``init`` and ``identity import`` linted names, a review S99 #6 found ``policy init`` print a
    GitHub token as the name it trusted): the short ID and ``WITHHELD`` then, never the name
    (*secret echo*). ``identity show``, ``list`` and ``public`` still print it (docs/decisions.md)."""
    from ..core.hints import named_actor
    from .secretscan import shaped

    if name and shaped(name):
        return f"{actor[:12]} ({WITHHELD})"
    return named_actor(actor, name)


def _stray_hint(strays: list) -> str:
    if not strays:
        return ""
    ident, active = strays[0]
    who = named_identity(ident.actor, ident.name)
    if active:  # (``identity remove`` never takes the active identity)
        return (f" ({who}, your active identity, signed nothing here: to sign as one you use elsewhere instead, "
                f"git hn identity import FILE --activate, then git hn identity remove {ident.actor[:12]})")
    return (f" ({who} is an identity of this clone that signed nothing here: if it is a stray, git hn identity "
            f"remove {ident.actor[:12]} removes it)")


def explain_actor_filter(repo: Repo | None, values, mcp: bool = False) -> str:
    """``invalid actor filter``, with what ``--actor`` takes after ``; ``: a full actor ID, and
    for a value that names exactly one known actor (``policy trust``'s rule: a unique prefix of
    at least eight hex characters, or a display name) that actor's ID and name. Error path only."""
    from ..core import grammar
    from ..core.policyedit import resolve_actor
    from ..errors import HnError
    from .policy_edit import known_actors

    flag = "actor" if mcp else "--actor"  # (``mcp``: in the MCP tools' words, the argument named)
    base = (f"{flag} takes full actor IDs (64 lowercase hex digits: the actor of a memory memory_recall or "
            "memory_show gives)" if mcp else
            f"{flag} takes a full actor ID (64 lowercase hex digits; git hn identity public prints yours)")
    bad = next((v for v in values if not grammar.is_actor(v)), None)
    if bad is None or repo is None:
        return f"{ACTOR_FILTER}; {base}"
    try:
        who = resolve_actor(bad, known_actors(repo))
    except HnError:
        return f"{ACTOR_FILTER}; {base}"
    name = f" ({who.names[0]})" if who.names else ""
    return f"{ACTOR_FILTER}; {flag} takes a full actor ID, such as {who.actor}{name}"
