"""``git hn memory digest`` (CONTRACT §7.15): the handoffs and decisions signed within one UTC month.

A read-only view of the verified state: no fetch, no ref update. It reads the clock only for its
default month. From the state's rows when it can serve (only the month's rows are projected), else
from a full projection; ``digest_full`` answers from a full projection (the reference), and a test
compares both ways after every kind of change. Moved out of ``service.brief`` (f173): a concern of
its own, which no brief loads.
"""

from __future__ import annotations

from ..core import brief as core
from ..core.projection import Context, project, row_index_json
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy


def digest(repo: Repo, month: str | None, *, include_untrusted: bool = False,
           hidden: dict | None = None) -> dict:
    """CONTRACT §7.15: the handoffs and decisions signed within one UTC month, from the state.
    ``hidden`` (when given) gets how many the trust policy left out, by trust class (for the
    human hint, as recall's; the document does not carry it), and a ``recall.Hidden`` their
    authors too."""
    from ..store import stateview

    from .recall import Hidden

    month = _month(month)
    left = Hidden()

    def counted(make):
        left.clear()  # (the state may fail over to the full projection half way)
        left.authors.clear()
        return make()

    doc = stateview.serve(repo, lambda view: counted(lambda: _digest_view(repo, view, month, include_untrusted, left)),
                          lambda: counted(lambda: _digest_full(repo, month, include_untrusted, left)))
    if hidden is not None:
        hidden.update(left)
        getattr(hidden, "authors", {}).update(left.authors)
    return doc


def _month(month: str | None) -> str:
    if month is None:
        import time

        month = time.strftime("%Y-%m", time.gmtime())  # the only clock the command reads
    return core.check_month(month)


def _digest_view(repo: Repo, view, month: str, include_untrusted: bool, hidden: dict) -> dict:
    from ..core.projection import trust

    head = repo.head_commit()
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, head)
    ctx = Context(head, "", "", policy.memory, policy.digest)
    ids = []
    for ident, actor, kind in view.conn.execute(
            "SELECT id, actor, kind FROM rows INDEXED BY rows_utc WHERE utc >= ? AND utc < ? "
            "AND kind IN ('handoff', 'decision')", (month + "-", month + ".")):
        cls = "qualified" if include_untrusted else trust(actor, kind, policy.memory)
        if cls == "qualified":
            ids.append(ident)
        else:
            hidden.note(cls, actor)
    rows = []
    for i in range(0, len(ids), 256):
        batch = ids[i:i + 256]
        proj, _mems = view.project(batch, ctx, resolver)
        rows += [row_index_json(proj.rows[r]) for r in batch]
    return core.digest_doc(month, core.digest_rows(rows, month))


def digest_full(repo: Repo, month: str | None, *, include_untrusted: bool = False) -> dict:
    """The same digest from a full projection (the reference)."""
    return _digest_full(repo, _month(month), include_untrusted)


def _digest_full(repo: Repo, month: str, include_untrusted: bool, hidden: dict | None = None) -> dict:
    head = repo.head_commit()
    collection = streams.collect(repo)
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, head)
    proj = project(list(collection.memories), Context(head, "", "", policy.memory, policy.digest),
                   resolver)
    rows = [row_index_json(r) for r in proj.rows.values()
            if include_untrusted or r.trust == "qualified"]
    if hidden is not None and not include_untrusted:
        for r in core.digest_rows([row_index_json(r) for r in proj.rows.values() if r.trust != "qualified"],
                                  month):
            hidden.note(r["trust"], r["actor"])
    return core.digest_doc(month, core.digest_rows(rows, month))


def digest_lines(doc: dict) -> list[str]:
    return core.digest_lines(doc)
