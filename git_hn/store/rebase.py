"""``git hn sync --rebase`` (git-hn extension): the user's own unpublished memories signed again
on top of a remote's copy of the same stream, when the two chains part (the user appended to it
in another clone too), with the user's other streams that cite them rebuilt to follow.

Owns the plan of that rebase and nothing on disk: it returns the rebuilt objects and memories
(``Rebased``), and the caller (``service.replication.promote``) writes them and moves the refs in
the ref transaction that accepts the remote's copy. The rebuilding itself (envelopes, plans,
signatures, what was published) is ``reanchor``'s, shared with re-anchoring and ``reanchor
--drop``. Trusts: the active identity (it signs), the chains the verified state checked, and the
remote's tip memory it builds on, which validation checked before promotion.
"""

from __future__ import annotations

from ..core.tuples import NamedTuple
from ..errors import ConflictError
from . import streams
from .identity import Identity
from .reanchor import _chain, _cites, _envelopes, _plan, _published_tips, _signed
from .repo import Repo


class Rebased(NamedTuple):
    ref: str
    old: str  # the local tip it replaces
    objects: list  # (type, bytes) of the rebuilt commits, to write before the ref moves
    memories: list  # VerifiedMemory of the rebuilt memories, root first
    renamed: tuple  # (old memory ID, new memory ID), root first
    follows: bool = False  # rebuilt in place (same sequences) because it cites memories rebased

    @property
    def tip(self) -> str:
        return self.memories[-1].commit


def rebase(repo: Repo, ident: Identity, forks: list, library=None) -> list[Rebased]:
    """``git hn sync --rebase`` (git-hn extension): for each ``(ref, old, tail, onto)`` of
    ``forks``, the unpublished ``tail`` of the user's own stream ``ref`` (at ``old``; its
    memories above the sequence where it parts from a remote's copy, root first) signed again
    on top of ``onto``, that copy's verified tip memory: each keeps its operation, content,
    anchor and timestamp; sequence and ``previous`` continue ``onto``. With them, the user's
    other local streams whose unpublished memories cite (lifecycle target, ``memory:``
    evidence) a memory signed again are rebuilt in place from their first such memory
    (``follows``; sequences kept), so that a retraction recorded with ``--stream`` into another
    stream follows its target. One plan for all of them, computed again until no ID changes:
    a rebased memory may cite one of another stream that cites a rebased one in turn (planned
    apart, the rebased one kept naming an ID that no longer existed, and every import of the
    stream failed for good once published). A published memory is never signed again: one
    that cites a memory signed again (no gate lets that happen) stops the rebase, changing
    nothing. Nothing is written: the caller writes ``objects`` and moves each ref from ``old``
    to its tip in the same ref transaction that accepts the copies."""
    skip = {ref for ref, _old, _tail, _onto in forks}
    listing = [s for s in streams.list_sources(repo) if s.actor == ident.actor]
    local = [s for s in listing if s.remote is None and s.ref not in skip]
    published = _published_tips(repo, listing) if local else {}
    followers = []  # (source, chain, floor): the unpublished part of each starts at its floor
    for src in local:
        chain = _chain(repo, src, listing)
        if chain and chain[-1].commit == src.head:  # (else moved since it was listed: its CAS fails)
            mine = published.get(src.ref, set())
            followers.append((src, chain, max((i + 1 for i, m in enumerate(chain) if m.commit in mine), default=0)))
    rebuilt: list = []  # (ref, old tip, tail, onto, envelopes) of each forked tail, as the last round left them

    def forked(renamed: dict[str, str]) -> None:
        rebuilt[:] = [(ref, old, tail, onto, _envelopes(repo, tail, {}, onto.memory_id, onto.envelope.sequence + 1,
                                                        renamed=renamed)) for ref, old, tail, onto in forks]

    renamed: dict[str, str] = {}
    plan = _plan(repo, followers, {}, renamed, forked, sum(len(t) for _r, _o, t, _n in forks))
    for _src, chain, floor in followers:
        stuck = next((m for m in chain[:floor] if _cites(m, renamed)), None)
        if stuck is not None:
            raise ConflictError(f"published memory {stuck.memory_id} cites a memory the rebase would sign "
                                "again; nothing was rebased")
    out = []
    for ref, old, tail, onto, envs in rebuilt:
        written, signed = _signed(repo, ident, envs, onto.commit, library)
        out.append(Rebased(ref, old, written, signed, tuple((m.memory_id, n.memory_id) for m, n in zip(tail, signed))))
    for src, tail, envs, previous in plan:
        written, signed = _signed(repo, ident, envs, previous, library)
        out.append(Rebased(src.ref, src.head, written, signed,
                           tuple((m.memory_id, n.memory_id) for m, n in zip(tail, signed)), follows=True))
    return out
