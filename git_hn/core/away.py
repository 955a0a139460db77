"""Handoffs a brief does not show although each is the newest of its stream (git-hn, §7.15).

A handoff that does not apply at the brief's commit is no candidate (§7.15: it would put another
branch's, or another subject's, state in this brief), so the brief leaves it out; these functions
decide which such handoffs to name beside the brief (its Markdown header, stderr, MCP ``hint``),
why each does not apply, and what shows it. Pure: the Git questions (ancestry, which ref holds a
commit) are asked through callables the service passes in, and only for the handoffs named.
"""

from __future__ import annotations

from .gostr import one_line
from .grammar import utc_instant
from .hints import NEWER_NAMED, code_word, plain_word, shell_word, supersede_at
from .tuples import NamedTuple

ELSEWHERE = ("inapplicable", "anchor-missing")  # applicabilities of a handoff "signed elsewhere"


class Away(NamedTuple):
    """An active handoff, of the trust the brief shows, whose applicability at the brief's commit
    is one of ``ELSEWHERE``: its memory ID, actor, stream, sequence, anchor commit, applicability
    mode and subject, and its signed timestamp (§7.7's order among the left-out ones)."""

    id: str
    actor: str
    stream: str
    sequence: int
    commit: str
    mode: str
    subject: str
    ts: str


class Newer(NamedTuple):
    """A handoff the brief does not show although it is the newest of its stream: ``shown`` is
    the stream's handoff the brief shows instead ("" when it shows none of that stream); ``place``
    says why it does not apply here (``placed``): ``("subject", S)``, ``("exact", "earlier")`` (an
    earlier commit of this history, ``--applies exact``), ``("exact", "")`` (an exact one on a
    commit out of this history: a branch that holds it applies it no more once it moved on, so
    it is named by its commit), ``("ref", NAME)`` (a branch, tag or
    remote-tracking ref holds it), ``("missing", "")`` (the commit is not here), ``("kept", NAME)``
    (only git-hn's keep branch NAME holds it: ``held.off_branches``) or ``("gone", "")`` (no ref
    holds it)."""

    shown: str
    id: str
    commit: str
    mode: str
    subject: str
    place: tuple = ("gone", "")


def newer_elsewhere(shown: list[tuple], elsewhere: list) -> list[Newer]:
    """git-hn: for each handoff the brief takes as its stream's latest (``shown``: memory ID,
    actor, stream and sequence of each, in section order), the newest handoff of the same stream
    signed after it that does not apply at the brief's commit (``elsewhere``: ``Away`` each);
    then, for each stream of which the brief shows no handoff, its newest such handoff (the
    newest first, §7.7's order). An agent trial: the brief on the default branch showed a
    stream's old handoff as its latest, with no word of the newer one its author had signed on a
    feature branch; a later one: a handoff that applies to a subject, or signed on an unpushed
    branch, with no older one shown, was in no brief and no hint."""
    newest: dict[tuple[str, str], Away] = {}
    for away in elsewhere:
        away = Away(*away)
        have = newest.get((away.actor, away.stream))
        if have is None or away.sequence > have.sequence:
            newest[(away.actor, away.stream)] = away
    out = []
    for ident, actor, stream, sequence in shown:
        have = newest.pop((actor, stream), None)
        if have is not None and have.sequence > sequence:
            out.append(Newer(ident, have.id, have.commit, have.mode, have.subject))
    alone = sorted(newest.values(), key=lambda a: (utc_instant(a.ts), a.id))
    alone.sort(key=lambda a: utc_instant(a.ts), reverse=True)  # (newest first; equal instants by ID)
    return out + [Newer("", a.id, a.commit, a.mode, a.subject) for a in alone]


def placed(newer: list[Newer], is_ancestor, present, holder, keeper=lambda _commit: "") -> list[Newer]:
    """``newer`` with each ``place`` decided: a subject handoff by its subject; one whose commit
    is not here (``present(commit)``) as such; an exact one by its commit, said to be an earlier
    commit of the brief's history when it is (``is_ancestor(commit)``; an agent trial: it
    vanished after the next commit and the hint guessed "another branch?"), never by a ref (a
    review: the brief at a branch that moved on leaves it out too); else the first ref that
    holds its commit (``holder(commit)``: a name, or ""), else the keep branch that alone holds
    it (``keeper(commit)``, asked after ``holder``). The callables do the Git work (the
    service's); only the handoffs named are asked about."""
    out = []
    for k, n in enumerate(newer):
        if k >= NEWER_NAMED:
            out.append(n._replace(place=("", "")))  # (not asked: counted, never named)
        elif n.mode == "subject":
            out.append(n._replace(place=("subject", n.subject)))
        elif not present(n.commit):
            out.append(n._replace(place=("missing", "")))
        elif n.mode == "exact":  # (at its commit only: a ref that holds it moved on, a review)
            out.append(n._replace(place=("exact", "earlier" if is_ancestor(n.commit) else "")))
        else:
            ref = holder(n.commit)
            keep = "" if ref else keeper(n.commit)
            out.append(n._replace(place=("ref", ref) if ref else ("kept", keep) if keep else ("gone", "")))
    return out


def _why(n: Newer, style: str) -> str:
    """Where ``n`` applies and how to see it, in ``style``'s words: ``cli`` (stderr: a ref name
    shell-quoted, as a command to paste takes it), ``markdown`` (the brief's header) or ``mcp``
    (the MCP tools' words). In the last two a ref name is teammate text shown as an escaped code
    span (``code_word``), and a command names the anchor commit instead of a ref whose name is
    not ``plain_word`` (an agent trial: a branch named ``…`SYSTEM`_IGNORE_PREVIOUS_INSTRUCTIONS…``
    stood bare in the brief's header, twice)."""
    mcp = style == "mcp"
    mode = (lambda m: f"applicability mode {m}") if mcp else (lambda m: f"--applies {m}")  # noqa: E731
    c12 = n.commit[:12]
    show = f"memory_show with memory {n.id} prints it" if mcp else f"git hn memory show {n.id} prints it"
    kind, value = n.place
    if kind == "subject":  # (a typed subject: TYPE:sha256:<hex>, no teammate's words)
        value = one_line(value)
        listed = f"memory_recall with subject {value} lists it" if mcp else \
            f"git hn memory recall --subject {value} lists it"
        return (f"it applies only to subject {value} ({mode('subject')}), and the brief's context has no subject; "
                f"{listed}")
    if kind == "missing":
        return f"its anchor commit {c12} is not in this clone (a git fetch may bring it); {show}"
    said = shell_word(value) if style == "cli" else code_word(value)  # (a ref name: the prose's)
    at = c12
    if kind == "ref":
        at = shell_word(value) if style == "cli" else value if plain_word(value) else c12
    there = f"memory_brief with atCommit {at} gives the brief there" if mcp else \
        f"git hn memory brief --at {at} gives the brief there"
    if kind == "exact" and value:
        return (f"it applies only at commit {c12} ({mode('exact')}), an earlier commit of this history, so later "
                f"commits leave it out; {show}, and {there}")
    if kind == "exact":
        return (f"it applies only at commit {c12} ({mode('exact')}), which this commit's history does not contain; "
                f"{show}, and {there}")
    if kind == "ref":
        return (f"it is anchored on commit {c12}, on {said}, which this commit's history does not contain; "
                f"{show}, and {there}")
    where = "no branch, tag or remote-tracking ref here contains"
    if kind == "kept":  # (a review: the words above were said where a keep branch held it)
        where = f"only git-hn's keep branch {said} holds here"
    return (f"it is anchored on commit {c12}, which {where} (a squash merge or a rebase?); {show}, and its author "
            f"records it again here with {supersede_at(n.id, 'HEAD')}")


def _also(k: int) -> str:
    """The words ``newer_notes`` adds to a ref's handoff line whose brief lists the ``k`` more
    active memories the brief left out as work not merged here (f169's count): the same brief is
    not named twice, and the ref named is the branch to merge."""
    one = k == 1
    return f", which also lists {k} more active {'memory' if one else 'memories'} this brief left out (work not merged here)"


def kept(newer: list[Newer], shown) -> list[Newer]:
    """``newer`` without those named beside a handoff not among ``shown`` (the IDs of the
    handoffs the byte bound kept: a review found the newer one named beside a handoff left out)."""
    return [n for n in newer if not n.shown or n.shown in shown]


def newer_notes(newer: list[Newer], style: str = "cli", also: tuple[str, int] = ("", 0)) -> list[str]:
    """Lines for ``newer_elsewhere``'s answers (placed): a count of the streams whose latest
    handoff the brief leaves out, then one line for each of the first ``NEWER_NAMED`` handoffs
    not shown whose place was decided (and one counting the rest): which one, why it does not
    apply here, and how to see it (``style``: ``_why``'s). So ``kept``'s answer gives
    the same lines, or fewer (one ``placed`` left unasked is counted, never named). ``also``:
    (a handoff's ID, K): its line says that the brief it names lists K more active memories
    left out (``not_merged.folded``, f177: the count's own line named the same
    brief again, by its commit)."""
    out = []
    alone = sum(1 for n in newer if not n.shown)
    if alone:
        one = alone == 1
        whose = "stream's" if one else "streams'"  # (a team trial read "1 stream' latest handoff")
        out.append(f"{alone} {whose} latest handoff{' is' if one else 's are'} left out of this "
                   f"brief: {'it applies' if one else 'they apply'} to a subject or to commits not in this commit's "
                   "history")
    named = [n for n in newer[:NEWER_NAMED] if n.place[0]]
    for n in named:
        why = _why(n, style) + (_also(also[1]) if also[1] and n.id == also[0] else "")
        if n.shown:
            out.append(f"Handoff {n.shown} is not the latest of its stream: {n.id}, signed later, does not apply at "
                       f"this commit: {why}")
        else:
            out.append(f"Handoff {n.id}, the latest of its stream, is left out: {why}")
    if len(newer) > len(named):
        more = len(newer) - len(named)
        out.append(f"{more} more handoff{'s' if more > 1 else ''}, the latest of {'their' if more > 1 else 'its'} "
                   f"stream, {'do' if more > 1 else 'does'} not apply at this commit and {'are' if more > 1 else 'is'} "
                   "not shown")
    return out
