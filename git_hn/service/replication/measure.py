"""Measuring fetched streams against their budgets (CONTRACT §9.6; issue 11).

The measurements are the contract's: ``Events`` is the chain's commit count, ``Objects`` the
objects reachable from the fetched root minus those reachable from the stream's accepted tip,
sizes summed in object-ID order with each budget checked after each object. They are computed for
every stream together: one level-synchronous walk of the new commits (``streams.walk_many``),
their trees read in one batch, sizes in one ``cat-file --batch-check``. A memory chain whose
commits all carry the two-blob memory tree is then exactly commits + trees + blobs; anything else
(a merge, a missing object, a tree of another shape, a chain that does not descend from its
accepted tip, or a new object the main store already has, which could be reachable from that tip)
is measured the contract's way with ``git rev-list`` for that stream alone, so a hostile chain
gets exactly the measurements and budget verdicts it always got.

git-hn extension (issue 12): ``max-events`` bounds the events *new in this sync* (above the
accepted tip), not the chain's length, so a stream that grows past the budget keeps replicating
for everyone who selected it; a first sync still counts the whole chain. ``Events`` stays the
chain's length. An over-budget outcome names the command that raises the budget.
"""

from __future__ import annotations

from ...core import chain
from ...core.grammar import accepted_ref, quarantine_ref
from ...core.lines import lines_of
from ...store import streams
from ...store.threads import Background
from .outcomes import Outcome

MEMORY_TREE = {b"memory.json", b"signature"}


def measure_all(run, wanted: list[Outcome]) -> None:
    q, budgets = run.q, run.budgets
    alive = [o for o in wanted if o.alive]
    if not alive:
        return
    for o in alive:  # the fetch looked the roots up
        if o.root_type != "commit":
            o.invalid(f"selected root {o.advertised} is not a commit")
    alive = [o for o in alive if o.alive]
    starts = [(streams.Source(quarantine_ref(o.actor, o.id), o.advertised, o.actor, o.id),
               {o.old} if o.old else set()) for o in alive]
    raws: dict = {}
    walks = streams.walk_many(q.repo, starts, raws=raws)
    fast: list[tuple[Outcome, list]] = []
    for o in alive:
        w = walks[quarantine_ref(o.actor, o.id)]
        o.walked = w.commits if w.error is None else None
        o.stopped = w.stopped
        o.descends = bool(o.old) and w.error is None and w.stopped == o.old
        plain = w.error is None and (not o.old or o.descends)
        fast.append((o, w.commits if plain else None))
    # the trees of every new commit, in one batch: a memory tree names exactly two blobs
    trees = [t for _o, commits in fast if commits is not None for _c, t in commits]
    tree_objs = dict(zip(trees, q.git.read_objects_bounded(trees, 4096))) if trees else {}
    run.prefetched = read = dict(tree_objs)  # objects validation need not read again (see ``_sizes``)
    oid_bytes = q.repo.oid_hex_len // 2
    objects: dict[str, list[str]] = {}
    for o, commits in fast:
        if commits is None:
            continue
        found = []
        for commit, tree in commits:
            obj = tree_objs.get(tree)
            entries = _memory_tree(obj, oid_bytes)
            if entries is None:
                found = None
                break
            found += [commit, tree, *entries]
        if found is not None:
            objects[o.id] = sorted(set(found))
    # a new object the main store already has could be reachable from the accepted tip; which
    # ones it has is asked in the background (acceptance needs the answer too, §9.10 step 2)
    everything = sorted({oid for oids in objects.values() for oid in oids})
    run.probe_main_later(everything)
    sizes = _sizes(q, everything, raws, tree_objs, read)
    descending = [oids for o, _c in fast if o.old for oids in [objects.get(o.id)] if oids is not None]
    in_main = run.probe_main([x for oids in descending for x in oids]) if descending else {}
    for o, _commits in fast:
        oids = objects.get(o.id)
        if oids is not None and o.old and any(in_main.get(x) for x in oids):
            oids = None
        if oids is None:
            exact(run, o)
            continue
        new = events = len(o.walked)
        if o.old:
            below = run.accepted_length(o)
            if below is None:  # the accepted chain is not verified here: count it the slow way
                exact(run, o)
                continue
            events += below
        _check(run, o, events, new, oids, [sizes[x] for x in oids], budgets)


PREREAD_BYTES = 4096  # blobs up to this size are read whole while measuring (one read, not two)
PREREAD_CHUNK = 8192  # blobs read at a time (at most 32 MiB in flight)
PREREAD_HELD = 16 << 20  # bytes of blob content kept for validation (32 MiB: ~45 MiB of RSS at 100k)


def _sizes(q, oids: list[str], raws: dict, trees: dict, read: dict) -> dict[str, int]:
    """The size of each object (0 when missing): commits from the walk, trees from their read,
    blobs read now, bounded at ``PREREAD_BYTES`` (a header gives the size of a larger one);
    whole objects go into ``read`` for validation. Blobs are read ``PREREAD_CHUNK`` at a time
    until ``PREREAD_HELD`` bytes are held (the chunk that reaches it is kept whole, so at most
    48 MiB; a memory blob is under a kilobyte: 16,000 of them fit); one ``--batch-check`` sizes
    the rest (validation reads those itself). The walk's commits and the trees are handed on in
    any case."""
    from ...store.verify import MAX_COMMIT_BYTES

    # the blobs, and any commit past the walk's raw levels (read by ``git log``)
    unread = [o for o in oids if o not in raws and o not in trees]
    sizes = {}
    held = 0
    at = 0
    while at < len(unread) and held < PREREAD_HELD:
        part = unread[at:at + PREREAD_CHUNK]
        at += len(part)
        for oid, obj in zip(part, q.git.read_objects_bounded(part, PREREAD_BYTES)):
            sizes[oid] = obj[1] if obj else 0
            if obj is not None and obj[2] is not None:
                read[oid] = obj
                held += obj[1]
    if at < len(unread):
        step = q.git.BULK_NAMES  # (a part at a time: only the sizes are kept)
        for k in range(at, len(unread), step):
            rest = unread[k:k + step]
            sizes.update(zip(rest, (i[2] if i else 0 for i in q.git.infos_bulk(rest))))
    for oid in oids:
        if oid in raws:
            obj = raws[oid]
            sizes[oid] = len(obj[1]) if obj else 0
            if obj is not None and len(obj[1]) <= MAX_COMMIT_BYTES:
                read[oid] = (obj[0], len(obj[1]), obj[1])
        elif oid in trees:
            sizes[oid] = trees[oid][1] if trees[oid] else 0
    return sizes


def keep_trees(run) -> None:
    """After validation: of the objects measurement read, only the trees are read again
    (``groups.range_objects``); the commits and blobs validation did not take (those of commits
    verified here before: a local stream imported back, 100,000 of them ~85 MiB) are let go."""
    read = getattr(run, "prefetched", None)
    if read:
        for oid in [oid for oid, obj in read.items() if obj is None or obj[0] != "tree"]:
            del read[oid]


def memory_blobs(obj, oid_bytes: int) -> list[str] | None:
    """The two blob IDs of a well-formed memory tree (as read by ``measure_all``), else None."""
    return _memory_tree(obj, oid_bytes)


def _memory_tree(obj, oid_bytes: int) -> list[str] | None:
    """The two blob IDs of a well-formed memory tree, else None."""
    if obj is None or obj[0] != "tree" or obj[2] is None:
        return None
    try:
        entries = chain.parse_tree(obj[2], oid_bytes)
    except ValueError:
        return None
    if len(entries) != 2 or {e[1] for e in entries} != MEMORY_TREE or any(e[0] != b"100644" for e in entries):
        return None
    return [e[2] for e in entries]


def _check(run, o: Outcome, events: int, new: int, oids: list[str], sizes: list[int], budgets: dict) -> None:
    m = o.measurements
    m["Events"] = events
    if _over(run, o, "max-events", budgets["maxEvents"], new):
        return
    m["Objects"] = len(oids)
    o.reachable = oids
    if _over(run, o, "max-objects", budgets["maxObjects"], len(oids)):
        return
    total = sum(sizes)
    if total <= budgets["maxTotalBytes"] and max(sizes, default=0) <= budgets["maxObjectBytes"]:
        m["TotalBytes"] += total
        m["LargestObjectBytes"] = max(m["LargestObjectBytes"], max(sizes, default=0))
        return
    for size in sizes:  # over a budget: find the object where it was first exceeded
        m["TotalBytes"] += size
        m["LargestObjectBytes"] = max(m["LargestObjectBytes"], size)
        if _over(run, o, "max-object-bytes", budgets["maxObjectBytes"], m["LargestObjectBytes"]):
            return
        if _over(run, o, "max-total-bytes", budgets["maxTotalBytes"], m["TotalBytes"]):
            return


def _over(run, o: Outcome, flag: str, limit: int, measured: int) -> bool:
    if measured > limit:
        o.over(flag, limit, measured, run.remote)
        return True
    return False


def exact(run, o: Outcome) -> None:
    """§9.6 with ``git rev-list`` for one stream (anything the fast path does not cover)."""
    q = run.q.git
    root = o.advertised
    args = ["rev-list", "--objects", "--end-of-options", root]
    old = o.old
    below = None
    if old and q.object_info(old) is not None:
        args.append("^" + old)
        below = q.run(["rev-list", "--count", "--end-of-options", root, "^" + old])
    box: dict = {}
    lister = Background(lambda: box.setdefault("p", q.run(args)))
    count = q.run(["rev-list", "--count", "--end-of-options", root])
    lister.join()
    listing = box["p"]
    ok = count.returncode == 0
    events = int(count.stdout.decode().strip() or 0) if ok else 0
    if events < 1 or not ok:
        o.invalid(f"selected root {root} is not a commit")
        return
    o.measurements["Events"] = events
    new = events
    if below is not None and below.returncode == 0 and below.stdout.strip():
        new = int(below.stdout.decode().strip())
    if _over(run, o, "max-events", run.budgets["maxEvents"], new):
        return
    if listing.returncode != 0:
        o.invalid("objects are unavailable")
        return
    oids = sorted({line.split(" ", 1)[0] for line in lines_of(listing.stdout.decode()) if line})
    run.probe_main(oids)
    sizes = [info[2] if info else 0 for info in q.infos_bulk(oids)]
    _check(run, o, events, new, oids, sizes, run.budgets)


def accepted_name(remote: str, o: Outcome) -> str:
    return accepted_ref(remote, o.actor, o.id)
