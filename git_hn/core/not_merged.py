"""The hints that memory is anchored on commits not merged here (f163): after an import (a sync,
the fetch hook) that accepted memories HEAD's history does not contain, and after a recall that
found others but left such memories out; and after a brief that left such memories out (f169: an
agent's session starts with the brief, in its CLI or MCP form, which said nothing of them).

Pure. Owns only the wording (a newcomer trial: Bob's memory, anchored on his new commit, was
imported by ``git fetch`` and ``git hn sync``, then missing from every recall on the unmerged
HEAD without a word, while ``memory log`` listed it: the user concluded the sync had failed).
Every ref name is shown as one shell word with invisible characters and undecodable bytes
spelled (``hints.shell_path``: a teammate names the branch, and the command is pasted); no
author text is shown.
"""

from __future__ import annotations

from .hints import NEWER_NAMED, plain_word, shell_path

# the memo's key for the import's hint (``store.hints_said``): one per remote and ref, whatever
# the count, so a fetch hook that imports more of the same branch's memory within the window
# says nothing again, and a sync says the shorter form
IMPORTED_KEY = "imported memories not merged here: {remote} {where}"


def imported(n: int, total: int, ref: str, held: int, anchor: str, on_anchor: int,
             remote: str) -> tuple[str, tuple]:
    """(the hint, its shorter form for ``cli.advice.said_lately``: what is still so, the way out,
    the memo's key) after an import from ``remote``: ``n`` of the ``total`` memories it accepted
    are anchored (``--applies descendants``) on commits HEAD's history does not contain,
    ``on_anchor`` of them on ``anchor``, the commit with the most; ``ref``, a remote-tracking
    ref's short name holding ``held`` of them ("" when none does: then ``anchor`` is named).
    All on one commit is said so, "a commit", never "commits ... such as" it (f175, a newcomer
    trial: one commit of one branch read as several on several)."""
    where = shell_path(ref) if ref else anchor[:12]
    one, there = n == 1, on_anchor >= n
    if n == total:
        lead = "the imported memory is" if one else f"the {n} imported memories are"
    else:
        lead = f"{n} of the imported memories {'is' if one else 'are'}"
    what = f"{lead} anchored on {'a commit' if there else 'commits'} not merged here"
    it = "it" if one else "them"
    if ref and held >= n:
        place, tail = f" (on {where})", f"recall lists {it} once you merge {where}, or now with "
    elif ref:
        place, tail = f" ({held} of them on {where})", "recall lists them once merged, and those now with "
    elif there:
        place, tail = f" (on commit {where})", f"recall lists {it} once merged, or now with "
    else:
        place = f" (such as commit {where}, {on_anchor} of them)"
        tail = "recall lists them once merged, or what applies there now with "
    listed = f"git hn memory recall --at {where}"
    return (f"{what}{place}: {tail}{listed}",
            (what, listed + (f" lists {it}" if held >= n or there else " lists what applies there"),
             IMPORTED_KEY.format(remote=remote, where=where)))


# the memo's key for recall's hint: one, whatever the count and the commit (a team with open
# branches leaves some out of most recalls: said in full once in the window, then shorter)
RECALL_KEY = "recall: matching memories anchored on commits not merged here"


def left_out(n: int, anchor: str, on_anchor: int, mcp: bool = False) -> tuple[str, tuple[str, str, str]]:
    """(the hint, its shorter form) after a recall that found memories: ``n`` more that match were
    left out only because they are anchored (``--applies descendants``) on commits outside the
    query commit's history that a branch, tag or remote-tracking ref here holds (work not merged
    here), ``on_anchor`` of them on ``anchor``, the commit with the most. ``mcp``: the recall
    named in the MCP tools' words (``memory_recall``'s ``hint``; its shorter form is not used)."""
    c = anchor[:12]
    one, there = n == 1, on_anchor >= n
    what = (f"{n} more matching {'memory was' if one else 'memories were'} left out, anchored on "
            f"{'a commit' if there else 'commits'} not merged here")  # (all on one: "a commit", f175)
    recall = f"memory_recall with atCommit {c}" if mcp else f"git hn memory recall --at {c}"
    if there:
        listed = f"{recall} lists {'it' if one else 'them'}"
        place = f" ({c})"
    else:
        listed = f"{recall} lists what applies there"
        place = f" (such as {c}, {on_anchor} of them)"
    return (f"{what}{place}: {listed}, and git branch -a "
            f"--contains {c} names the branch to merge", (what, listed, RECALL_KEY))


def _rest(held: dict[str, int], newer, mine) -> tuple[dict[str, int], list[str]]:
    """(``held`` without the handoffs ``newer``'s lines name on a ref, but for one's own, the
    commits of those it took off): what ``brief_left_out`` counts."""
    held = dict(held or {})
    named = [n.commit for n in newer[:NEWER_NAMED] if n.place[0] == "ref" and n.id not in mine and held.get(n.commit)]
    for commit in named:
        held[commit] -= 1
    return {commit: k for commit, k in held.items() if k > 0}, named


def folded(held: dict[str, int], newer=(), mine=frozenset(), refs=None) -> tuple[str, int]:
    """(the ID of the handoff whose newer-handoff line says the count, how many it counts), or
    ("", 0): when every memory ``brief_left_out`` would count is on the commit of a handoff a
    line names on a ref (``away.newer_notes``: the first such line), or on commits ``refs``
    (commit -> a ref that holds it, ``held.holding_refs``'s) says that ref holds, whose name the
    line's command gives bare (``plain_word``: else it names the handoff's commit), that line's
    brief lists them all; a line of the count's own would name the same brief again by a commit
    (f177: a teammate's one branch took three lines of the brief's header)."""
    rest, _named = _rest(held, newer, mine)
    refs = refs or {}
    for n in newer[:NEWER_NAMED] if rest else ():
        kind, ref = n.place
        if kind == "ref" and all(c == n.commit or (plain_word(ref) and refs.get(c) == ref) for c in rest):
            return n.id, sum(rest.values())
    return "", 0


def brief_lines(newer, held: dict[str, int] | None = None, style: str = "cli", mine=frozenset(),
                refs=None) -> list[str]:
    """The newer-handoff lines (``away.newer_notes``, in ``style``'s words) with the count of the
    active memories left out as work not merged here (``held``; None: said on no line, as in a
    shallow clone): on the line ``folded`` names when there is one, else on a line of its own
    (``brief_left_out``) after them. The Markdown header, the CLI's stderr for ``--json`` and
    MCP's ``hint`` say the same."""
    from .away import newer_notes  # (a brief's only: recall's and the import's hints load no more)

    also = folded(held, newer, mine, refs) if held else ("", 0)
    out = newer_notes(newer, style, also)
    said = brief_left_out(held, newer, style == "mcp", mine) if held and not also[0] else ""
    return [*out, said] if said else out


def brief_left_out(held: dict[str, int], newer=(), mcp: bool = False, mine=frozenset()) -> str:
    """The hint after a brief that left out active memories of the trust it shows, anchored
    (``--applies descendants``) on commits outside the brief commit's history that a branch, tag
    or remote-tracking ref here holds (work not merged here; ``held``: anchor -> memories), or "":
    how many, the commit with the most, and the brief there, named by that commit as recall's
    hint names it (a ref would be a ``name-rev`` more). The handoffs ``newer`` names on a ref's
    line of their own (``away.newer_notes``: the first ``NEWER_NAMED``, placed ``ref``) are not
    counted again, but for one's own (IDs in ``mine``), which ``held`` has none of: then the count
    is of the ``more``. Said in full each time (``mcp``: in the MCP
    tools' words): each brief starts a session, whose reader did not see the last one's."""
    held, named = _rest(held, newer, mine)
    if not held:
        return ""
    anchor = min(held, key=lambda commit: (-held[commit], commit))
    n, on_anchor, c = sum(held.values()), held[anchor], anchor[:12]
    one, there = n == 1, held[anchor] >= n
    what = (f"{n}{' more' if named else ''} active {'memory was' if one else 'memories were'} left out of this brief, "
            f"anchored on {'a commit' if there else 'commits'} not merged here")
    place = f" ({c})" if there else f" (such as {c}, {on_anchor} of them)"
    brief = f"memory_brief with atCommit {c}" if mcp else f"git hn memory brief --at {c}"
    return f"{what}{place}: {brief} gives the brief there, and git branch -a --contains {c} names the branch to merge"
