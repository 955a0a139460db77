"""Memories a rewrite leaves on the commits it replaced (git-hn; docs/decisions.md).

The ``post-rewrite`` hook re-anchors only unpublished memories (``reanchor``): a published one is
never signed again. So after ``git rebase`` of a branch whose memories were already published,
those stay anchored on the old commits, and recall and the brief on the rebased branch leave them
out (their anchors are not in its history), while the hook said nothing (a team trial). This
names them once, in one bounded line: how many, and for one of the reader's own the command
that carries it over to the commit that replaced its anchor (``supersede --at NEW``); a
teammate's memory cannot be superseded by the reader, so it gets a record of one's own citing it.
A verification whose commit got another tree is not carried as it is (that would claim a test the
new commit never had): it is tested again first. A challenged one is said to be so: the challenge
names its old ID and stays there (``lineage``).

Reads the verified state as last verified (no refresh: the hook must stay quick; what it cannot
answer is not said). Trusts the state and Git's rewrite list.
"""

from __future__ import annotations

from ..core.gostr import short_id
from ..core.hints import cite_at, supersede_at
from ..core.tuples import NamedTuple
from ..errors import HnError
from ..store.reanchor import same_trees
from ..store.repo import Repo

SHOWN = 3  # memories named in the line (the count says how many in all)


class Left(NamedTuple):
    memory: str
    old: str  # the anchor commit the rewrite replaced
    actor: str
    kind: str
    challenged: bool  # the projection lists a challenge on it (which stays on its ID)
    same_tree: bool  # the commit that replaced ``old`` has its tree (a reword, a message-only amend)


# ``left``'s query: the anchors first, then their active rows through ``rows_groups`` (lifecycle,
# akey); joined the other way, SQLite read every active row (0.7 s at 100,000 memories)
LEFT_SQL = ("SELECT r.id, a.anchor, r.actor, r.utc, r.kind, r.challenged FROM akeys a CROSS JOIN rows r "
            "ON r.akey = a.akey WHERE a.anchor IN ({}) AND a.mode != 'subject' AND r.lifecycle = 'active'")


def left(repo: Repo, mapping: dict[str, str], actor: str, moved: set[str]) -> list[Left]:
    """The active memories anchored on a commit of ``mapping`` (old -> new) with ``exact`` or
    ``descendants`` applicability (a ``subject`` one applies wherever its subject does), not
    among ``moved`` (those the rewrite signed again), the reader's own (``actor``) first, each
    side oldest first. One query (``LEFT_SQL``), and for verifications one batch look-up of the
    trees; none when the state cannot answer."""
    from ..store import statedb, stateview
    from ..store.state import chunks, marks

    out = []
    try:
        with stateview.last_verified(repo) as view:
            if view is None:
                return []
            for part in chunks(sorted(mapping)):
                out += view.conn.execute(LEFT_SQL.format(marks(len(part))), part).fetchall()
    except (HnError, OSError, statedb.sqlite3.Error):
        return []
    out = [row for row in out if row[0] not in moved]
    out.sort(key=lambda row: (row[2] != actor, row[3], row[0]))
    same = same_trees(repo, {(c, mapping[c]) for _m, c, _a, _u, kind, _ch in out if kind == "verification"})
    return [Left(m, c, a, kind, bool(ch), (c, mapping[c]) in same) for m, c, a, _u, kind, ch in out]


def _untested(m: Left) -> bool:
    """A verification carried by ``--same-content`` onto a commit with another tree would claim a
    test of code no one tested (docs/decisions.md)."""
    return m.kind == "verification" and not m.same_tree


def line(found: list[Left], mapping: dict[str, str], actor: str, what: str) -> str:
    """The hook's one line for ``found`` (``left``), "" for none: the count, then a command for
    the first of the reader's own (and up to ``SHOWN`` named alike), one for the first of the
    reader's verifications whose commit changed (tested again first), and one for the first of
    another author's; and which of the reader's named are challenged (the challenge stays)."""
    if not found:
        return ""
    n = len(found)
    mine = [f for f in found if f.actor == actor]
    text = (f"{n} {'memory' if n == 1 else 'memories'} already published {'stays' if n == 1 else 'stay'} on "
            f"{'a commit' if n == 1 else 'commits'} this {what} replaced, so recall and the brief on the new "
            f"{'one' if n == 1 else 'ones'} leave {'it' if n == 1 else 'them'} out (a published memory is never "
            "signed again)")
    parts = []
    carry = [m for m in mine if not _untested(m)]
    retest = [m for m in mine if _untested(m)]
    if carry:
        first = carry[0]
        part = f"{supersede_at(first.memory, mapping[first.old])} carries {'it' if n == 1 else 'one of yours'} over"
        likewise = [f"{short_id(m.memory)} --at {mapping[m.old][:12]}" for m in carry[1:SHOWN]]
        parts.append(part + (f" (likewise {', '.join(likewise)}{', ...' if len(carry) > SHOWN else ''})"
                             if likewise else ""))
    if retest:
        first, k = retest[0], len(retest)
        new, short = mapping[first.old], short_id(first.memory)
        who = "it is a verification" if n == 1 else \
            f"{short} is a verification" if k == 1 else f"{k} of yours are verifications, such as {short},"
        parts.append(f"{who} of a commit whose tree this {what} changed, so --same-content would claim a test the new "
                     f"commit never had: test {new[:12]}, then git hn memory supersede {short} --at {new} "
                     f"--evidence git:{new} --content TEXT records the result")
    named = [m for m in carry[:SHOWN] + retest[:1] if m.challenged]
    if named:
        ids = ", ".join(short_id(m.memory) for m in named)
        one = len(named) == 1
        parts.append(f"{'it is' if n == 1 else ids + (' is' if one else ' are')} challenged, and a challenge stays on "
                     f"the memory ID it names: ask {'its challenger' if one else 'their challengers'} to challenge "
                     f"the successor too, or settle {'it' if one else 'them'} first")
    if len(mine) < n:
        other = found[len(mine)]
        k = n - len(mine)
        whose = "it is" if n == 1 else f"{k} of them {'is' if k == 1 else 'are'}"
        parts.append(f"{whose} another author's, which only that author can supersede; "
                     f"{cite_at(other.memory, 'observation', mapping[other.old])} records your own citing it")
    return f"{text}: {'; '.join(parts)}"
