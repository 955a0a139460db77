"""Memories a rewrite leaves on the commits it replaced (git-hn; docs/decisions.md).

The ``post-rewrite`` hook re-anchors only unpublished memories (``reanchor``): a published one is
never signed again. So after ``git rebase`` of a branch whose memories were already published,
those stay anchored on the old commits, and recall and the brief on the rebased branch leave them
out (their anchors are not in its history), while the hook said nothing (a team trial). This
names them once, in one bounded line: how many, and for one of the reader's own the command
that carries it over to the commit that replaced its anchor (``supersede --at NEW``); a
teammate's memory cannot be superseded by the reader, so it gets a record of one's own citing it.

Reads the verified state as last verified (no refresh: the hook must stay quick; what it cannot
answer is not said). Trusts the state and Git's rewrite list.
"""

from __future__ import annotations

from ..core.hints import cite_at, supersede_at
from ..errors import HnError
from ..store.repo import Repo

SHOWN = 3  # memories named in the line (the count says how many in all)


def left(repo: Repo, mapping: dict[str, str], actor: str, moved: set[str]) -> list[tuple[str, str, str]]:
    """(memory ID, old anchor, actor) of the active memories anchored on a commit of ``mapping``
    (old -> new) with ``exact`` or ``descendants`` applicability (a ``subject`` one applies
    wherever its subject does), not among ``moved`` (those the rewrite signed again), the
    reader's own (``actor``) first, each side oldest first. One query, none when the state
    cannot answer."""
    from ..store import statedb, stateview
    from ..store.state import chunks, marks

    out = []
    try:
        with stateview.last_verified(repo) as view:
            if view is None:
                return []
            for part in chunks(sorted(mapping)):
                out += view.conn.execute(
                    f"SELECT r.id, a.anchor, r.actor, r.utc FROM akeys a JOIN rows r ON r.akey = a.akey "
                    f"WHERE a.anchor IN ({marks(len(part))}) AND a.mode != 'subject' AND r.lifecycle = 'active'",
                    part).fetchall()
    except (HnError, OSError, statedb.sqlite3.Error):
        return []
    out = [row for row in out if row[0] not in moved]
    out.sort(key=lambda row: (row[2] != actor, row[3], row[0]))
    return [(m, c, a) for m, c, a, _utc in out]


def line(found: list[tuple[str, str, str]], mapping: dict[str, str], actor: str, what: str) -> str:
    """The hook's one line for ``found`` (``left``), "" for none: the count, then a command for
    the first of the reader's own (and up to ``SHOWN`` named alike) and one for the first of
    another author's."""
    if not found:
        return ""
    n = len(found)
    mine = [f for f in found if f[2] == actor]
    text = (f"{n} {'memory' if n == 1 else 'memories'} already published {'stays' if n == 1 else 'stay'} on "
            f"{'a commit' if n == 1 else 'commits'} this {what} replaced, so recall and the brief on the new "
            f"{'one' if n == 1 else 'ones'} leave {'it' if n == 1 else 'them'} out (a published memory is never "
            "signed again)")
    parts = []
    if mine:
        memory, old, _a = mine[0]
        part = f"{supersede_at(memory, mapping[old])} carries {'it' if n == 1 else 'one of yours'} over"
        likewise = [f"{m[7:19]} --at {mapping[c][:12]}" for m, c, _a in mine[1:SHOWN]]
        parts.append(part + (f" (likewise {', '.join(likewise)}{', ...' if len(mine) > SHOWN else ''})"
                             if likewise else ""))
    if len(mine) < n:
        memory, old, _a = found[len(mine)]
        k = n - len(mine)
        whose = "it is" if n == 1 else f"{k} of them {'is' if k == 1 else 'are'}"
        parts.append(f"{whose} another author's, which only that author can supersede; "
                     f"{cite_at(memory, 'observation', mapping[old])} records your own citing it")
    return f"{text}: {'; '.join(parts)}"
