"""The transactions a promotion is made of (CONTRACT §9.10–§9.14, §9.17; git-hn, f115).

A receipt lists every object its transaction accepts, and every reader refuses a receipt or an
anchor over 16 MiB (``store.replication.RECEIPT_MAX``): a sync that accepted about 84,000
memories at once wrote a 19 MB receipt, and from then on every read of that clone failed. So
before anything is written, the promotable streams are planned into groups, each of whole
streams in (kind, id) order, each one complete transaction whose ``validated`` receipt (the
largest of its records: the ``complete`` one only says ``promoted`` for ``promotable``, the
anchor lists its pending objects alone) fits the bound, counting each stream's objects and those
the main store lacks (pending). One group is the contract's one
transaction. A stream whose own objects do not fit one receipt is promoted in parts of its
verified chain, each part one transaction moving its accepted ref further up the chain
(``_parts``, as ``Import.truncate`` ends a stream early), its outcome ``promoted`` with the
last.
"""

from __future__ import annotations

import os
from itertools import chain, filterfalse

from ...core import canonical
from ...core.dependencies import exact_needs
from ...core.grammar import accepted_ref
from ...core.tuples import NamedTuple  # (not typing's: ~2 ms of imports on every promotion)
from ...store import replication as rstate
from .outcomes import UP_TO_DATE

SLACK = 256  # bytes: the keys and brackets a receipt's arrays add when they are not empty


class Group(NamedTuple):
    streams: list  # the outcomes it promotes (or parts of one: ``Part``), in (kind, id) order
    objects: list  # the objects it accepts, sorted
    shallow: list  # commits recovered by --recover-shallow that become shallow boundaries
    listed: frozenset  # the (kind, id) of the outcomes its receipts list


def new_txn() -> str:
    """A transaction ID of the same shape as a quarantine's (``store.quarantine.Quarantine``)."""
    return "txn-" + os.urandom(12).hex()


def outcomes_of(run, group: Group) -> list[dict]:
    """The receipt's outcomes for ``group`` (§9.14: in (kind, id) order), as they stand now."""
    listed = [o for o in run.result.outcomes
              if o.kind == "memory" and o.status != UP_TO_DATE and (o.kind, o.id) in group.listed]
    return [o.to_json() for o in sorted(listed, key=lambda o: (o.kind, o.id))]  # (``sorted_outcomes``')


def promotions(remote: str, streams: list) -> list[dict]:
    out = []
    for o in sorted(streams, key=lambda o: (o.kind, o.id)):
        p = {"ref": accepted_ref(remote, o.actor, o.id), "newOid": o.advertised}
        if o.old:
            p["oldOid"] = o.old
        out.append(p)
    return out


def plan(run, promotable: list, bound: int | None = None, at_once: bool = True) -> list[Group]:
    """The groups that promote ``promotable``, in order; nothing is written. A stream that
    cannot be promoted within the bound even in parts fails (``over-budget``) and is left out.
    When every stream fits one receipt by the sum of their costs (``_cost``), that one group is
    made at once (``at_once``), as ``_greedy`` would make it: the usual sync (10,000 streams: their
    costs' 20,000 encodings, one at a time, were most of the plan's time)."""
    bound = rstate.RECEIPT_MAX if bound is None else bound
    per_oid = rstate.oid_bytes(run.repo.oid_hex_len)
    streams = sorted(promotable, key=lambda o: (o.kind, o.id))
    ids = {(o.kind, o.id) for o in streams}
    others = sorted((o for o in run.result.outcomes
                     if o.kind == "memory" and o.status != UP_TO_DATE and (o.kind, o.id) not in ids),
                    key=lambda o: (o.kind, o.id))  # (``sorted_outcomes``' order)
    fixed = len(rstate.receipt_bytes(new_txn(), run.remote, "validated", [], [], [], [])) + SLACK
    # the outcomes of the streams not promoted go in the first receipt (they accept nothing),
    # when they take no more than a quarter of it (docs/decisions.md)
    listed_others = elements_bytes([o.to_json() for o in others])
    if listed_others > bound // 4:
        others, listed_others = [], 0
    found = _objects_of_each(run, streams)
    lists = [objs for objs, _s in found]
    # which of them the main store has: measurement asked for nearly all (one batch for the rest;
    # the union of every stream's objects, 400,000 at 100,000 memories, is not made)
    known = run.probe_main([])
    known = run.probe_main(sorted(set(filterfalse(known.__contains__, chain.from_iterable(lists)))))
    # each stream's objects and those of them the main store lacks: their sum (``known``'s values
    # are bools), then, for ``_greedy``, each stream's
    listed_objects = sum(map(len, lists))
    if at_once and fixed + listed_others + elements_bytes([o.to_json() for o in streams]) \
            + elements_bytes(promotions(run.remote, streams)) \
            + per_oid * (2 * listed_objects - sum(map(known.__getitem__, chain.from_iterable(lists)))) <= bound:
        if not streams:
            return []
        recovered: list = []
        for _objs, new_shallow in found:
            recovered += [c for c in new_shallow if c not in recovered]
        listed = frozenset(ids | {(o.kind, o.id) for o in others})
        return [Group(streams, sorted(set().union(*lists)), recovered, listed)]
    sizes = [2 * len(objs) - sum(map(known.__getitem__, objs)) for objs in lists]
    return _greedy(run, streams, others, listed_others, found, sizes, fixed, bound, per_oid)


def _greedy(run, streams: list, others: list, listed_others: int, found: list, sizes: list, fixed: int,
            bound: int, per_oid: int) -> list[Group]:
    """``plan``'s groups, stream by stream: a stream joins the current group while the costs
    fit, and one too large for any receipt is cut into parts (``_parts``)."""
    groups: list[Group] = []
    current: list = []
    objects: set = set()
    recovered: list = []
    used = fixed + listed_others

    def close():
        nonlocal current, objects, recovered, used
        if current:
            listed = {(o.kind, o.id) for o in current}
            if not groups:
                listed |= {(o.kind, o.id) for o in others}
            groups.append(Group(current, sorted(objects), recovered, frozenset(listed)))
        current, objects, recovered, used = [], set(), [], fixed

    for o, (objs, new_shallow), size in zip(streams, found, sizes):
        cost = _cost(run, o, size, per_oid)
        if fixed + cost > bound:
            parts = _parts(run, o, bound - fixed, per_oid)
            if parts is None:
                _too_large(run, o, fixed + cost, bound)
                continue
            close()
            if not groups:  # (no room for them beside a part)
                others, listed_others = [], 0
            for part, part_objs, part_shallow in parts:
                current, objects, recovered = [part], set(part_objs), list(part_shallow)
                close()
            continue
        if used + cost > bound:
            if current:
                close()
            else:  # the first stream leaves no room for the others' outcomes
                others, listed_others, used = [], 0, fixed
        current.append(o)
        objects.update(objs)
        recovered += [c for c in new_shallow if c not in recovered]
        used += cost
    close()
    return groups


def elements_bytes(values: list) -> int:
    """``sum(rstate.element_bytes(v) for v in values)``, from one encoding of the list: each
    element's text in it is its own text (``canonical.indented``) with each line two spaces
    deeper, the lines joined by ``,\n``, within ``[\n`` and ``\n]\n``; so the list's text
    (``L``, of ``K + 2`` lines) has ``len(L) = 3 + n + 2K + (the elements' own lengths)``, where
    ``K`` counts the elements' own lines, and their sum, each ``len + 4 * lines + 1``, is
    ``len(L) + 2 * (K + 2) - 7``. HTML escapes and empty containers (``[]``, ``{}``, written
    inline) are the same either way. A test compares the two."""
    if not values:
        return 0
    try:
        text = (canonical.indented_large if canonical.fast_codec() else canonical.indented)(values)
    except TypeError:  # (a value orjson refuses: ``rstate.element_bytes``)
        text = canonical.indented(values)
    return len(text) + 2 * text.count(b"\n") - 7


def _cost(run, o, size: int, per_oid: int) -> int:
    """At most the bytes ``o`` adds to a ``validated`` receipt: its outcome, its promotion, its
    objects (accepted) and those of them the main store lacks (pending: an earlier group's copy
    only makes them fewer)."""
    return (rstate.element_bytes(o.to_json()) + rstate.element_bytes(promotions(run.remote, [o])[0])
            + size * per_oid)


def _objects_of_each(run, streams: list) -> list[tuple]:
    """``[objects_of(run, [o]) for o in streams]``; without reading each stream's dependencies when
    nothing was fetched for any (no recovered anchor, no partial clone's file: the usual sync),
    since only those objects are chosen by them."""
    if not run.extra_roots and not run.anchor_trees:
        return [(o.reachable or [], []) for o in streams]
    return [objects_of(run, [o]) for o in streams]


def objects_of(run, streams: list) -> tuple:
    """(the objects promoting ``streams`` accepts, the recovered commits that become shallow
    boundaries): reachable from their new tips and not from the tips they continue, and of the
    objects fetched for memories' dependencies (recovered anchors, a partial clone's files and a
    treeless one's folders on their paths), those a promoted memory names: a stream that stops,
    or fails, names none of the rest (CONTRACT §9.10; a review found a file only an unpromoted
    memory named copied). The objects are a set, or, for one stream that names none of those
    fetched objects, its own sorted list of them (no copy: the plan held a set of each stream's,
    400,000 object IDs at 100,000 memories)."""
    from . import partial, shallow

    needed = {oid for o in streams for oid in exact_needs(o.memories or ())}
    extra, new_shallow = shallow.extra_objects(run, needed)
    trees = partial.trees_for(run, streams)
    if len(streams) == 1 and not extra and not trees:
        return streams[0].reachable or [], new_shallow  # (unique and sorted: ``measure``, ``range_objects``)
    objs = {oid for o in streams for oid in (o.reachable or ())}
    return objs | set(extra) | trees, new_shallow


def _too_large(run, o, size: int, bound: int) -> None:
    """A stream that cannot be promoted within the bound even in parts of its chain: one
    memory's objects alone do not fit, or the chain cannot be cut (read the slow way, or to be
    rebased with ``--rebase``)."""
    o.fail("over-budget", f"selection memory {o.id} cannot be accepted: its receipt would be {size} bytes, over "
           f"the {rstate.bound_text()} bound of a replication receipt (CONTRACT §9.14), and its chain cannot be "
           "promoted in parts")


class Part:
    """One part of a stream too large for one receipt: its memories from ``base`` to its own
    tip, promoted as ``Import.truncate`` promotes a stream's first memories. It reads as the
    outcome (kind, ID, actor, status, fields, measurements) and marks it ``promoted`` only with
    the last part."""

    def __init__(self, whole, memories: list, walked: list, old: str, base: tuple, reachable: list,
                 last: bool):
        self.whole, self.memories, self.walked, self.old, self.base = whole, memories, walked, old, base
        self.reachable, self.last = reachable, last
        self.advertised = memories[-1].commit
        self.rebase = None  # (a stream to be rebased is never cut: ``_parts``)

    def __getattr__(self, name):
        return getattr(self.whole, name)

    @property
    def prefix(self) -> int:
        return self.whole.prefix if self.last else 1  # (an earlier part never marks it promoted)

    @property
    def status(self) -> str:
        return self.whole.status

    @status.setter
    def status(self, value: str) -> None:
        if self.last:
            self.whole.status = value

    def to_json(self) -> dict:
        return self.whole.to_json()


def _parts(run, o, room: int, per_oid: int) -> list | None:
    """``o`` as consecutive parts of its verified chain, each fitting ``room`` bytes of receipt
    on its own: [(Part, objects, recovered shallow commits)], or None when one memory alone does
    not fit (or the chain cannot be cut: a chain read the slow way has no walked commits)."""
    memories = list(o.memories)
    walked = list(reversed(o.walked or []))  # root first
    if len(walked) < len(memories) or not memories or o.rebase is not None:
        return None
    walked = walked[len(walked) - len(memories):]  # one per memory (those above a known base)
    fixed_cost = rstate.element_bytes(o.to_json()) + rstate.element_bytes(promotions(run.remote, [o])[0])
    per_memory = max(1, 2 * per_oid * len(o.reachable or ()) // len(memories))
    out = []
    start, old, base = 0, o.old, o.base
    while start < len(memories):
        k = max(1, (room - fixed_cost) // per_memory) if room > fixed_cost else 0
        while True:
            if k < 1:
                return None
            end = min(len(memories), start + k)
            reach = range_objects(run, walked[start:end], old)
            part = Part(o, memories[start:end], list(reversed(walked[start:end])), old, base, reach,
                        end == len(memories))
            objs, recovered = objects_of(run, [part])
            known = run.probe_main(sorted(objs))
            if fixed_cost + per_oid * (len(objs) + sum(not known[oid] for oid in objs)) <= room:
                break
            k //= 2
        out.append((part, objs, recovered))
        start, old = end, part.advertised
        base = (old, base[1] + len(part.memories))
    return out


def range_objects(run, walked: list, old: str) -> list[str]:
    """The objects the commits ``walked`` (root first, continuing ``old``) bring, sorted: from the
    trees measured the fast way (``measure.memory_blobs``), else exactly that range from Git
    (``Import.truncate`` and the parts of a stream too large for one receipt)."""
    from ...core.lines import lines_of
    from . import measure

    objects: list | None = []
    oid_bytes = run.q.repo.oid_hex_len // 2
    trees = getattr(run, "prefetched", None) or {}
    for commit, tree in walked:
        blobs = measure.memory_blobs(trees.get(tree), oid_bytes)
        if blobs is None:
            objects = None
            break
        objects += [commit, tree, *blobs]
    if objects is None:
        args = ["rev-list", "--objects", "--end-of-options", walked[-1][0]] + (["^" + old] if old else [])
        listing = run.q.git.run(args)
        objects = [line.split(" ", 1)[0] for line in lines_of(listing.stdout.decode()) if line]
    return sorted(set(objects))
