"""Where a memory stands among the memories that target it: the end of its line of supersessions
(``line_end``) and the challenges on it (``challenges``), with the words that say what a
supersession leaves behind (git-hn; docs/decisions.md).

A challenge targets one memory ID (CONTRACT §5.3, as the projection derives it; another
implementation's projection must stay byte-equal, so it is never carried to a successor): a
supersession, such as the one git-hn's own rebase advice runs, leaves the challenge on the old ID
and its successor shows unchallenged. That is said, never changed. Reads the verified state (a
full collection when it cannot answer); trusts it. Challengers' names and reasons are author
text, shown as inert data, bounded.
"""

from __future__ import annotations

from ..core.gostr import short_id
from ..core.tuples import NamedTuple
from ..store import streams
from ..store.repo import Repo

SHOWN = 2  # challenges named in a line (the count says how many in all)
REASON_SHOWN = 60  # characters of a reason shown


class Challenge(NamedTuple):
    memory_id: str  # the challenge's own ID
    actor: str
    name: str  # its signed actor name (author text)
    reason: str  # author text


def challenges(repo: Repo, ids) -> dict[str, list[Challenge]]:
    """memory ID -> the challenges the projection lists on it (its row's ``challengers``, §5.3),
    oldest first by ID order as the projection sorts them; a memory with none is left out."""
    from ..core.projection import lifecycle_graph
    from ..store import stateview

    ids = set(ids)

    def answer(mems: dict) -> dict[str, list[Challenge]]:
        graph = lifecycle_graph(list(mems.values()))
        out = {}
        for mid in ids:
            lc = graph.lifecycles.get(mid)
            if lc is not None and lc.challengers:
                out[mid] = [Challenge(c, mems[c].envelope.actor, mems[c].envelope.actor_name or "",
                                      mems[c].envelope.reason or "") for c in lc.challengers]
        return out

    def from_view(view):
        around = view.targeting(ids)
        return answer(view.load(ids | around))

    def full():
        by_id = streams.collect(repo).by_id()
        return answer({m: v for m, v in by_id.items() if m in ids or v.envelope.target in ids})

    return stateview.serve(repo, from_view, full)




def said(found: list[Challenge]) -> str:
    """``1 open challenge (by 0b58554d5a0b ("Bob", a self-chosen name): "needs-benchmark")``, at most
    ``SHOWN`` named (each author as every hint names one: ``hints.named_actor``)."""
    from ..core.hints import named_actor, quoted_text

    parts = []
    for c in found[:SHOWN]:
        parts.append(f"by {named_actor(c.actor, c.name)}: {quoted_text(c.reason, REASON_SHOWN)}")
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    n = len(found)
    return f"{n} open challenge{'' if n == 1 else 's'} ({'; '.join(parts)}{more})"


def left_on(target: str, successor: str, found: list[Challenge]) -> str:
    """After ``supersede TARGET`` signed ``successor``: the challenges ``found`` on the target stay
    on it, so the successor shows unchallenged, and what to do (a team trial: git-hn's rebase
    advice, followed on a challenged memory, dropped the challenge from the brief unsaid)."""
    one = len(found) == 1
    old, new = short_id(target), short_id(successor)
    again = f"git hn memory challenge {new} --reason REASON"
    return (f"memory {old} has {said(found)}, and a challenge stays on the memory ID it names: its successor {new} "
            f"shows unchallenged in recall, the brief and show; ask {'the challenger' if one else 'each challenger'} "
            f"to challenge {new} too ({again}), or settle {'it' if one else 'them'} with "
            f"{'them' if one else 'the challengers'} before relying on {new}")


def line_end(repo: Repo, target: str) -> tuple[str, str, bool] | None:
    """(timestamp, ID, False) of the newest memory that ends a line of active supersessions from
    ``target`` (§5.3: each by its predecessor's author; a successor its author retracted
    continues no line) and has no successor itself, so can be superseded without branching;
    else (every end has only retracted successors) (timestamp, ID, True) of the newest of those
    retracted successors; None when ``target`` has no successor. A retracted successor still
    counts: one more makes its target branching (§5.4)."""
    from ..store import stateview

    def from_view(view):
        def around(node):
            me = view.info([node]).get(node)
            return (me.actor if me else None,
                    [(i.id, i.operation, i.actor, i.ts) for i in view.info(view.targeting({node})).values()])
        return _line_end(target, around)

    def full():
        by_id = streams.collect(repo).by_id()

        def around(node):
            mem = by_id.get(node)
            return (mem.envelope.actor if mem else None,
                    [(m.memory_id, m.envelope.operation, m.envelope.actor, m.envelope.timestamp)
                     for m in by_id.values() if m.envelope.target == node])
        return _line_end(target, around)

    return stateview.serve(repo, from_view, full)


def _line_end(target: str, around) -> tuple[str, str, bool] | None:
    """``line_end`` over ``around(id)``: (its author, [(id, operation, actor, timestamp)] of the
    memories that target it). Supersession chains hold no cycle (a target is named by the ID of
    a memory signed before), so each memory is walked once."""
    active, succeeded, retracted, todo, seen = [], set(), [], [target], {target}
    while todo:
        node = todo.pop()
        author, related = around(node)
        for sid, op, actor, ts in related:
            if op != "supersede" or actor != author:
                continue
            succeeded.add(node)
            if sid in seen:
                continue
            seen.add(sid)
            sub_author, sub_related = around(sid)
            if any(o == "retract" and a == sub_author for _, o, a, _ in sub_related):
                retracted.append((ts, sid))
                continue
            active.append((ts, sid))
            todo.append(sid)
    ends = [e for e in active if e[1] not in succeeded]
    if ends:
        return (*max(ends), False)
    return (*max(retracted), True) if retracted else None
