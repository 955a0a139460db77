"""The quiet record an import leaves for the fetch hook's wrapper (``store.replication.write_quiet``,
``hookscripts``; issue 11): the hash of the answers the import read, written only when an import
reading exactly those answers again would fetch nothing and fail nothing, so that the wrapper,
finding the same answers, may skip it.

Two imports leave it: one that found every selected stream up to date (``remember``), and one
that promoted every stream it fetched at exactly its advertised tip (``remember_promoted``),
which judges the selection again against the advertisement it read and a fresh listing of the
accepted refs, as the next import would, before writing the record of those answers.
"""

from __future__ import annotations

from ...errors import HnError
from ...store import replication as rstate
from . import advertise
from .outcomes import UP_TO_DATE, SyncResult

_DONE = ("skipped", UP_TO_DATE)


def remember(run, answers: dict, stall: float, judged: SyncResult | None = None) -> None:
    """After an advertisement that left nothing to fetch and no selector failed (the outcomes of
    ``judged``, else the import's own): the quiet record of ``answers``, so that the fetch
    hook's wrapper starts no git-hn while Git's answers and the selection stay exactly these,
    and asks its question within ``stall`` seconds, as the advertisement did. Never for a
    shallow recovery or a run with a testing seam. Best effort."""
    listing, advertised = answers.get("listing"), answers.get("advertisement")
    if listing is None or advertised is None or run.selection_bytes is None \
            or run.recover_shallow or run.interrupt_after is not None \
            or any(o.status not in _DONE for o in (judged or run.result).outcomes):
        return
    try:
        rstate.write_quiet(run.repo, run.remote, run.url, advertised, listing, run.selection_bytes, stall)
    except (HnError, OSError):
        pass


def remember_promoted(run, answers: dict, stall: float, advertised, others) -> None:
    """After an import that read the advertisement (``advertised``, ``others``: as ``advertise``
    gave them) and promoted: the quiet record of that advertisement and of the accepted refs
    as they are now, only when every outcome was promoted whole or skipped (nothing failed,
    held back by a dependency, promoted in part, or rebased: those are asked again, or said
    again, by the next import) and the selection, judged again by ``advertise.requests`` against
    a fresh listing of the accepted refs (the wrapper's own question), requests nothing and
    fails nothing: what the next import reading the same answers would find, and record."""
    result = run.result
    if result.rebased or any(o.status not in ("promoted", *_DONE) or o.prefix or o.rebase is not None
                             for o in result.outcomes):
        return
    if answers.get("advertisement") is None or run.selection_bytes is None or run.recover_shallow \
            or run.interrupt_after is not None:
        return  # (``remember`` would write nothing: no listing asked)
    fresh: dict = {}
    again = SyncResult(run.remote)
    try:
        heads = advertise.accepted_heads(run.repo, run.remote, fresh)
        if advertise.requests(run.sel, advertised, others, heads, again, run.remote):
            return
    except (HnError, OSError):
        return
    remember(run, {**answers, "listing": fresh.get("listing")}, stall, again)
