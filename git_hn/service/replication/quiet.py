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
    fresh: dict = {"listing": promoted_listing(run, answers.get("listing"))}
    again = SyncResult(run.remote)
    try:
        if fresh["listing"] is not None:
            heads = advertise.heads_of(fresh["listing"], run.remote, run.repo.oid_hex_len)
        else:
            heads = advertise.accepted_heads(run.repo, run.remote, fresh)
        if advertise.requests(run.sel, advertised, others, heads, again, run.remote):
            return
    except (HnError, OSError):
        return
    remember(run, {**answers, "listing": fresh.get("listing")}, stall, again)


def promoted_listing(run, listing: bytes | None) -> bytes | None:
    """The accepted-ref listing as this import's ref transactions left it, without asking Git
    again (at 10,000 streams a ``for-each-ref`` of the refs the sync has just written loose,
    ~70 ms): ``listing``, Git's own before the fetch, with each promoted stream's ref at the tip
    it was promoted to (``groups.promotions``: its advertised tip), in Git's order (ref names as
    bytes). None when ``listing`` is None or not in that form. A record is only as good as the
    listing it hashes, and it is judged against that same listing: were the refs to differ from
    it (a ref moved by hand since), the wrapper's own listing differs from the record's, and it
    starts git-hn as it would without one."""
    from ...core.grammar import accepted_ref

    if listing is None or (listing and not listing.endswith(b"\n")):
        return None
    rows = {}
    for line in listing.split(b"\n")[:-1]:
        _oid, space, ref = line.partition(b" ")
        if not space or ref in rows:
            return None
        rows[ref] = line
    for o in run.result.outcomes:
        if o.kind == "memory" and o.status == "promoted":
            ref = accepted_ref(run.remote, o.actor, o.id).encode()
            rows[ref] = o.advertised.encode() + b" " + ref
    return b"".join(rows[ref] + b"\n" for ref in sorted(rows))
