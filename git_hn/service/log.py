"""``git hn memory log``: the timeline of memory records, newest first (issue 14).

Served from the verified state: recall's context-free filters (kind, actor, lifecycle, topics,
subject, path, query terms) run in SQLite over the rows table, trust is decided once per
(actor, kind) pair with the policy at HEAD, and SQLite orders the matching IDs by signed UTC time
(``core.log.KEY_SQL``) and limits them to ``--max-count``. Only the rows printed are projected,
in batches, from their closure (``View.project``: payloads read from Git and re-checked), which
also gives each one's author name and content. ``log_full`` answers from a full projection of
verified streams; a test compares the two.

Unlike recall, the log is a history: by default every lifecycle and every trust class is listed,
and applicability at HEAD is not a filter (the filters narrow it). Retractions and challenges
are not records, so they are not lines of their own: they appear as relations of their target.
Read-only: it writes only the private state.
"""

from __future__ import annotations

from ..core import log as core
from ..core import recall as recall_core
from ..core.projection import project, row_index_json
from ..store import streams
from ..store.repo import Repo
from .invalid_policy import head_context, marked

BATCH = 256


def request(*, kind=(), actor=(), topic=(), path="", subject="", lifecycle=(), trust_=(),
            query="") -> recall_core.RecallRequest:
    """Recall's request model with the log's defaults: every lifecycle, every trust class."""
    req = recall_core.RecallRequest("", subject=subject or "", path=path or "", topic=tuple(topic),
                                    kind=tuple(kind), actor=tuple(actor),
                                    lifecycle=tuple(lifecycle) or ("all",), trust=tuple(trust_),
                                    query=query or "", include_untrusted=not trust_)
    return recall_core.normalize(req)


def log(repo: Repo, req: recall_core.RecallRequest, max_count: int | None = None,
        notes: list | None = None) -> list[core.Item]:
    """The log; with ``notes`` (a list) and no trust filter, an invalid policy at HEAD adds its
    warning to ``notes`` and every line's trust is ``policy-invalid`` (``invalid_policy``)."""
    held = spooled(repo, req, max_count, notes)
    try:
        return [it for batch in items(held) for it in batch]
    finally:
        held.close()


def spooled(repo: Repo, req: recall_core.RecallRequest, max_count: int | None = None,
            notes: list | None = None):
    """``log``'s items, newest first, held in a ``store.spool.Spool`` (read with ``items``): the
    state's rows are verified a batch at a time and only the items are kept (issue 11: a whole
    log at 100k memories held every memory it had read, 0.6 GiB)."""
    from ..store import stateview
    from ..store.spool import Spool

    terms = recall_core.parse_query(req.query)
    listing = streams.list_sources(repo)
    notes = None if req.trust else notes  # (a trust filter needs the policy)
    held = Spool()

    def with_view(view):
        held.reset()  # (a state found corrupt part way: the answer begins again)
        _log_view(repo, view, req, terms, max_count, notes, held.add)

    def full():
        held.reset()
        found = _log_full(repo, req, terms, max_count, listing, notes)
        for i in range(0, len(found), BATCH):
            held.add([tuple(it) for it in found[i:i + BATCH]])

    try:
        stateview.serve(repo, with_view, full, listing)
    except BaseException:
        held.close()
        raise
    return held


def items(held):
    """The batches of ``Item`` a spool of ``spooled`` holds, in order."""
    for batch in held.batches():
        yield [core.Item(*t) for t in batch]


def log_full(repo: Repo, req: recall_core.RecallRequest, max_count: int | None = None) -> list[core.Item]:
    """The same log from a full projection of verified streams (the reference; tests)."""
    return _log_full(repo, req, recall_core.parse_query(req.query), max_count)


def _context(repo: Repo, notes: list | None = None):
    ctx, resolver, invalid = head_context(repo, notes)
    return ctx, resolver, marked if invalid else (lambda row: row)


def _log_view(repo: Repo, view, req, terms, max_count, notes, add) -> None:
    """Adds the items, a batch of tuples at a time, to ``add``."""
    from ..store.stateview import Corrupt
    from .recall import _where
    from .rows import trust_filter

    if max_count == 0:
        return
    ctx, resolver, shown = _context(repo, notes)
    where, args = _where(view, req, terms, grouping=False, kind_index=False)
    if req.trust:
        narrowed = trust_filter(view, where, args, req.trust, ctx.policy)
        if narrowed is None:
            return
        where, args = narrowed
    rows = view.conn.execute(log_sql(where, max_count), args)
    while True:
        batch = [r[0] for r in rows.fetchmany(BATCH)]
        if not batch:
            return
        proj, mems = view.project(batch, ctx, resolver)
        out = []
        for ident in batch:
            row = row_index_json(proj.rows[ident])
            if not recall_core.matches(_as_candidate(row), req, terms) or mems.get(ident) is None:
                raise Corrupt("a row's columns disagree with its projection")
            out.append(tuple(_item(shown(row), mems[ident].envelope)))
        add(out)
        view.forget()  # (only the items are kept: issue 11)


def log_sql(where: list[str], max_count: int | None) -> str:
    """The IDs of the rows passing ``where`` (``recall._where`` without its kind index), newest
    first (``core.KEY_SQL``), at most ``max_count``."""
    from .rows import FROM

    sql = f"SELECT r.id {FROM}" + (" WHERE " + " AND ".join(where) if where else "")
    sql += f" ORDER BY {core.KEY_SQL} DESC, r.id"
    return sql if max_count is None else sql + f" LIMIT {int(max_count)}"


def _log_full(repo: Repo, req, terms, max_count, sources=None, notes=None):
    if max_count == 0:
        return []
    collection = streams.collect(repo, sources)
    ctx, resolver, shown = _context(repo, notes)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    proj = project(list(collection.memories), ctx, resolver)
    envelopes = {m.memory_id: m.envelope for m in collection.memories}
    items = []
    for r in proj.rows.values():
        row = row_index_json(r)
        if recall_core.matches(_as_candidate(row), req, terms):
            items.append(_item(shown(row), envelopes[row["id"]]))
    items = core.ordered(items)
    return items if max_count is None else items[:max_count]


def _as_candidate(row: dict) -> dict:
    """Recall's row test without its context filter: the log lists memories whatever their
    applicability or evidence at HEAD."""
    return {**row, "applicability": "applicable", "evidence": "resolved"}


def _item(row: dict, env) -> core.Item:
    target = env.target if env.operation == "supersede" else ""
    return core.item(row, env.actor_name, env.record.content, target)
