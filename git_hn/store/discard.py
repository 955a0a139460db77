"""Discarding unpublished memories that name a commit (``git hn memory reanchor OLD --drop``,
git-hn extension; docs/decisions.md).

A team trial dropped a commit in ``git rebase -i``; the memory anchored on it was never
published, and its stream waited for that commit for good: the only ways on were pushing a commit
nobody wanted, or re-anchoring the note elsewhere and then retracting it (two signed memories for
a note nobody wanted). This takes such memories out of the active identity's own local streams.

Owns: the decision and the rebuild. The memories discarded are those of the active identity that
name the commit (anchor, or ``git:`` evidence) above everything any remote was given
(``reanchor._published_tips``: publication records, stopped publications' offers, accepted
copies). Refused, changing nothing, when any memory of the identity that names the commit was
published, and when a memory that stays cites (lifecycle target, ``memory:`` evidence) one that
goes. The memories after a discarded one in its stream are signed again (``previous`` and
``sequence`` close the gap; content, anchor and timestamp kept), and so is every unpublished
memory of the identity's other streams that cites one signed again, as ``reanchor`` rebuilds
them; a memory published, or another identity's, that cites one to be signed again refuses the
whole. A stream left empty loses its ref. Every ref moves in one transaction, each from the tip
read under the stream locks.

Trusts: the active identity (it signs), and the chains, which the verified state checked.
"""

from __future__ import annotations

from contextlib import ExitStack

from ..core.gostr import short_id
from ..core.tuples import NamedTuple
from ..errors import ConflictError, InputError, LocalStateError
from . import objects, streams
from .identity import Identity
from .lock import stream_lock
from .reanchor import _chain, _cited_from_outside, _cites, _envelopes, _names_rewritten, _published_tips, _signed
from .reanchor import DROPPED, remember_renames
from .repo import Repo


class Discarded(NamedTuple):
    ref: str
    dropped: tuple  # IDs of the memories discarded, root first
    renamed: tuple  # (old memory ID, new memory ID) of each memory signed again, root first
    removed: bool = False  # nothing else was in the stream: its ref is gone
    before: str = ""  # the stream's tip before (``git update-ref REF BEFORE`` undoes the drop)


NOTHING = "nothing was dropped"


def discard(repo: Repo, ident: Identity, commit: str, library=None) -> list[Discarded]:
    """Discard ``ident``'s unpublished memories that name ``commit``; [] when there are none.
    ``library``: the secret lint's, for the name of the commits signed again (``reanchor._signed``)."""
    listing = [s for s in streams.list_sources(repo) if s.actor == ident.actor]
    local = sorted((s for s in listing if s.remote is None), key=lambda s: s.ref)
    if not local:
        return []
    with ExitStack() as held:
        for src in local:  # (one order for every process: no two wait on each other)
            held.enter_context(stream_lock(repo.hn_dir, repo.lock_path(ident.actor, src.stream), src.ref))
        listing = [s for s in streams.list_sources(repo) if s.actor == ident.actor]
        published = _published_tips(repo, listing)
        tails = []  # (source, chain, floor): the unpublished part of each starts at its floor
        for src in (s for s in listing if s.remote is None):
            chain = _chain(repo, src, listing)
            if not chain or chain[-1].commit != src.head:
                raise ConflictError(f"memory stream {src.ref} changed while it was read; {NOTHING} (retry)")
            mine = published.get(src.ref, set())
            tails.append((src, chain, max((i + 1 for i, m in enumerate(chain) if m.commit in mine), default=0)))
        return _discard(repo, ident, commit, tails, library)


def _discard(repo: Repo, ident: Identity, commit: str, tails: list, library=None) -> list[Discarded]:
    names = {commit: commit}
    for _src, chain, floor in tails:
        out = next((m for m in chain[:floor] if _names_rewritten(m, names)), None)
        if out is not None:
            raise InputError(f"memory {short_id(out.memory_id)} names commit {commit[:12]} and was published, so it "
                             f"is never discarded (git hn memory retract {short_id(out.memory_id)} --reason obsolete "
                             f"withdraws it); {NOTHING}")
    dropped = {m.memory_id for _src, chain, floor in tails for m in chain[floor:] if _names_rewritten(m, names)}
    if not dropped:
        return []
    gone = dict.fromkeys(dropped, "")
    for _src, chain, floor in tails:
        for m in chain[floor:]:
            if m.memory_id not in dropped and _cites(m, gone):
                cited = next(c for c in _cited(m) if c in dropped)
                raise InputError(f"memory {short_id(m.memory_id)} stays and cites memory {short_id(cited)}, which "
                                 f"names commit {commit[:12]}: it would name a memory that no longer exists; "
                                 f"{NOTHING} (git hn memory reanchor {commit[:12]} NEW moves them instead, with --files-only "
                                 "when an anchored path is a directory or a submodule at NEW)")
    plan, renamed = _plan(repo, tails, dropped)
    pinned = _cited_from_outside(repo, tails) & (dropped | set(renamed))
    if pinned:
        first = sorted(pinned)[0]
        what = "discarded" if first in dropped else "signed again"
        raise InputError(f"memory {short_id(first)} would be {what}, and a published memory, or another identity's, "
                         f"cites it; {NOTHING}")
    written, updates, done = [], [], []
    for src, chain, start, kept, envs in plan:
        if envs:
            objs, signed = _signed(repo, ident, envs, chain[start - 1].commit if start else "", library)
            written += objs
            updates.append(f"update {src.ref} {signed[-1].commit} {src.head}\n")
            pairs = tuple((m.memory_id, new.memory_id) for m, new in zip(kept, signed))
        elif start:
            updates.append(f"update {src.ref} {chain[start - 1].commit} {src.head}\n")
            pairs = ()
        else:
            updates.append(f"delete {src.ref} {src.head}\n")
            pairs = ()
        done.append(Discarded(src.ref, tuple(m.memory_id for m in chain[start:] if m.memory_id in dropped), pairs,
                              not start and not envs, src.head))
    objects.write_objects(repo, written)
    # (before the refs move, as ``reanchor`` does: a read meanwhile knows git-hn dropped them, ``rewound``)
    remember_renames(repo, [(m, DROPPED) for d in done for m in d.dropped]
                     + [pair for d in done for pair in d.renamed], "drop")
    repo.git.forget_early()
    proc = repo.git.run(["update-ref", "-m", "hn: discard unpublished memories", "--stdin"],
                        input="".join(updates).encode("ascii"), env={"HN_HOOK_ACTIVE": "1"})
    if proc.returncode != 0:  # (nothing moved: one transaction)
        raise ConflictError(f"a memory stream changed while its memories were discarded; {NOTHING}")
    return sorted(done, key=lambda d: (not d.dropped, d.ref))


def _plan(repo: Repo, tails: list, dropped: set) -> tuple[list, dict]:
    """(source, chain, start, kept memories, their envelopes) of each stream to rebuild, from its
    first unpublished memory that is discarded or cites a memory signed again, and the renames
    (old ID -> new ID). Computed again until no ID changes, as ``reanchor._plan`` is."""
    renamed: dict[str, str] = {}
    for _round in range(sum(len(chain) for _src, chain, _floor in tails) + 2):
        before, plan = dict(renamed), []
        for src, chain, floor in tails:
            start = next((i for i in range(floor, len(chain))
                          if chain[i].memory_id in dropped or _cites(chain[i], renamed)), None)
            if start is None:
                continue
            kept = [m for m in chain[start:] if m.memory_id not in dropped]
            envs = _envelopes(repo, kept, {}, chain[start - 1].memory_id if start else "",
                              chain[start].envelope.sequence, renamed=renamed)
            plan.append((src, chain, start, kept, envs))
        if renamed == before:
            return plan, renamed
    raise LocalStateError(f"discarding found memories that cite each other in a circle; {NOTHING}")


def _cited(mem) -> list[str]:
    """The memory IDs ``mem`` cites: its lifecycle target, its ``memory:`` evidence."""
    env = mem.envelope
    items = [*((env.record.evidence if env.record is not None else None) or ()), *(env.evidence or ())]
    return [c for c in [env.target, *(e[7:] for e in items if e.startswith("memory:"))] if c]
