"""Partial clones in an import (git-hn; CONTRACT §9.9 step 5, §9.10): the anchored files a
partial clone lacks, fetched by the sync into its quarantine.

A ``git clone --filter=blob:none`` has the commits and trees of the branches it fetched but only
the files it checked out. A memory anchored on ``app.py`` at a commit names that file's blob,
which §9.9 step 5 requires to be here, and the import stopped at it: Git fetches a missing blob
from the promisor remote when asked (a lazy fetch), but not in the quarantine, which has no
promisor remote, and the advice "fetch a branch that contains <blob>" could not work (a branch
fetched into a partial clone brings no files). So, after classification, for the streams stopped
at a missing anchored file, every anchored file of their memories that is missing here while its
anchor commit is here is fetched in one ``git fetch <url> <oid>…`` into the quarantine (as
``--recover-shallow`` fetches missing anchors, §9.18), under the import's watchdog, bounded by
what the selections' ``max-total-bytes`` leaves, offering no commit as had, as Git's own lazy fetch does (a
server with bitmaps counts the files of a commit the clone has as had, and sent nothing). Each
must arrive as a blob; those streams are classified again, and the files of the memories
promoted (not those of memories after where a stream stops) are copied into the main store with
the memory objects (``run.extra_roots``, like recovered anchors: ``promote.accept``). Only blobs
the memories name, at commits this clone has, up to the first memory whose anchor commit is not
here: never a commit or a history, which is what the clone's own branches decide. The files
count against each stream's one ``max-total-bytes`` with its memory objects.

A treeless clone (``git clone --filter=tree:0``) lacks the trees too: the anchor commit is here,
but not the folders on the path to the file, and the path could not be read (a trial: a valid
memory on app.py failed its whole stream as relationship-invalid, its author blamed). So first,
for the streams that failed as relationship-invalid, the trees on each anchored path that are
missing while the anchor commit is here are fetched the same way, one level of folders a fetch,
each tree alone (``--filter=tree:0``: never the files or folders beside the path); those streams
are then classified again, and what they still lack (the file) is fetched as above. The trees of
promoted memories are copied into the main store with them (``trees_for``). A tree the remote
does not send leaves the stream ``dependency-missing`` on it, with a recovery that fetches it
from the clone's promisor remote: a tree this clone was not given is no fault of the author's.

The fetch runs after the verified state's lock is released (a slow remote holds no reader); the
classification that follows takes it again (``Import.classify_again``). Trusts: nothing fetched
beyond its object ID (Git checks that each object has the ID it was asked for).
"""

from __future__ import annotations

from ...errors import HnError
from ...store.resolver import Resolver

KIND = "anchor-path"
INVALID = "relationship-invalid"


def fetch_files(run, wanted) -> None:
    """Fetch the anchored files that stopped ``wanted``'s streams, then classify them again;
    repeated while a new classification stops at a file not fetched yet. A fetch that fails
    leaves the outcomes as they are, their diagnostic saying why. The trees on the anchored
    paths come first (``fetch_trees``)."""
    fetch_trees(run, wanted)
    fetched: set[str] = set()
    limit = run.budgets["maxTotalBytes"]
    while True:
        targets = [o for o in wanted if o.status == "dependency-missing" and o.fields.get("dependencyKind") == KIND]
        if not targets:
            return
        resolver = Resolver(run.q.repo, pending=run.repo.pending().denied)
        files = {id(o): set(_missing_files(o.memories, resolver)) for o in targets}
        oids = sorted(set().union(*files.values()) - fetched)
        if not oids:
            return  # fetched already and still missing: the outcome stands
        from .transfer import stall_timeout

        stall = stall_timeout(run.repo)
        # each selection's one byte budget, less what its memories (and files fetched before) took
        # of it (a review: the files had a budget of their own on top of the memories')
        budget = sum(max(0, limit - o.measurements.get("TotalBytes", 0)) for o in targets)
        verdict = run.q.fetch(run.url, oids, budget, stall, negotiate=False) if budget > 0 else "size"
        over = f"the files exceed the byte budget ({limit} bytes a selection, max-total-bytes)"
        if verdict:
            why = {"size": over, "stall": f"nothing arrived for {stall:g} s (hn.syncStallTimeout)"}.get(verdict) \
                or run.q.failure or f"{run.remote} did not send them"
            for o in targets:
                o.fields["diagnostic"] += f"; fetching the anchored files from {run.remote} failed: {why}"
            return
        fetched.update(oids)
        sizes = {oid: info[2] for oid, info in zip(oids, run.q.git.object_infos(oids))
                 if info is not None and info[1] == "blob"}
        run.extra_roots = sorted(set(run.extra_roots) | set(sizes))
        again = []
        for o in targets:  # (the fetch's bound is the whole pack's: each selection's files are counted)
            took = o.measurements.get("TotalBytes", 0) + sum(sizes.get(oid, 0) for oid in files[id(o)])
            if took > limit:
                o.fields["diagnostic"] += f"; fetching the anchored files from {run.remote} failed: {over}"
                continue
            o.measurements["TotalBytes"] = took
            o.status, o.fields, o.prefix = "fetched", {}, 0
            again.append(o)
        if not again:
            return
        run.classify_again(wanted, again)


def _anchored(memories, resolver: Resolver):
    """(memory, record) of each of ``memories`` (a stream's, in order) that has a record, up to
    the first whose anchor commit is not here: the stream stops there, and a file or folder of a
    memory after it is no promoted memory's (a review: a file only such a memory named was
    fetched, and copied into the main store, CONTRACT §9.10). ``HnError`` for a malformed or
    denied ID passes: not something a fetch can bring, the caller's walk stops there."""
    for m in memories:
        rec = m.envelope.record
        if rec is None:
            continue
        if resolver.object_type(rec.anchor.commit) != "commit":
            return
        yield m, rec


def _missing_files(memories, resolver: Resolver):
    """The blobs ``memories`` are anchored on that are not here while their anchor commit is
    (``_anchored``'s memories)."""
    try:
        for _m, rec in _anchored(memories, resolver):
            for p in rec.anchor.paths:
                if p.blob != "absent" and resolver.object_type(p.blob) is None:
                    yield p.blob
    except HnError:  # (a malformed or denied ID: it stops there)
        return


def fetch_trees(run, wanted) -> None:
    """Fetch the trees on the anchored paths that ``wanted``'s relationship-invalid streams lack
    (a treeless clone's), one level a fetch, then classify those streams again (with the streams
    that failed only by theirs: ``shallow.propagated_from``). A fetch that fails, or a tree the
    remote does not send, makes each such stream ``dependency-missing`` on its first missing tree."""
    from .shallow import propagated_from
    from .transfer import stall_timeout

    targets = [o for o in wanted if o.status == INVALID]
    limit = run.budgets["maxTotalBytes"]
    took: dict[int, int] = {}  # id(outcome) -> bytes of the trees fetched for it
    fetched: set[str] = set()
    while targets:
        resolver = Resolver(run.q.repo, pending=run.repo.pending().denied)
        missing = {id(o): _missing_trees(o.memories, resolver) for o in targets}
        targets = [o for o in targets if missing[id(o)] or id(o) in took]
        oids = sorted({t for o in targets for t in missing[id(o)]})
        if not oids:
            break
        stall = stall_timeout(run.repo)
        budget = sum(max(0, limit - o.measurements.get("TotalBytes", 0) - took.get(id(o), 0)) for o in targets)
        if not set(oids) - fetched:
            verdict = "absent"  # (fetched already and still missing)
        elif budget <= 0:
            verdict = "size"
        else:
            verdict = run.q.fetch(run.url, oids, budget, stall, negotiate=False, trees=True)
        infos = dict(zip(oids, run.q.git.object_infos(oids))) if not verdict else {}
        if not verdict and any(i is None or i[1] != "tree" for i in infos.values()):
            verdict = "absent"
        if verdict:
            why = {"size": f"the folders exceed the byte budget ({limit} bytes a selection, max-total-bytes)",
                   "stall": f"nothing arrived for {stall:g} s (hn.syncStallTimeout)",
                   "absent": f"{run.remote} did not send them"}.get(verdict) \
                or run.q.failure or f"{run.remote} did not send them"
            for o in targets:
                if missing[id(o)]:
                    _tree_missing(run, o, missing[id(o)], why)
            return
        fetched.update(oids)
        for o in targets:
            took[id(o)] = took.get(id(o), 0) + sum(infos[t][2] for t in missing[id(o)])
            for tree, (mid, _commit, _path) in missing[id(o)].items():
                run.anchor_trees.setdefault(mid, set()).add(tree)
    done = [o for o in targets if id(o) in took]
    for o in done:
        o.measurements["TotalBytes"] = o.measurements.get("TotalBytes", 0) + took[id(o)]
    if done:
        again = done + propagated_from(wanted, done)
        for o in again:
            o.status, o.fields, o.prefix = "fetched", {}, 0
        run.classify_again(wanted, again)


def trees_for(run, promotable) -> set[str]:
    """The trees fetched for the anchored paths of the memories ``promotable`` promotes: copied
    into the main store with them (a memory after where its stream stops names none of them)."""
    return {t for o in promotable for m in o.memories or () for t in run.anchor_trees.get(m.memory_id, ())}


def _tree_missing(run, o, missing: dict, why: str) -> None:
    """``o`` stops at the first tree of ``missing`` (its first memory's): a missing dependency
    that the clone's promisor remote can supply (Git's own lazy fetch, ``git cat-file -e``, which
    brings a tree with its folders), never an invalid memory."""
    from ...core.gostr import cut

    tree, (mid, commit, path) = next(iter(missing.items()))
    recovery = (f"git cat-file -e {tree} (it fetches the folders of {cut(path, 40)} at commit "
                f"{commit[:12]}), then git hn sync {run.remote}")
    o.fail("dependency-missing", f"selection memory {o.id} has unavailable exact Git dependency {tree}, a "
           f"folder on an anchored path this partial clone lacks; recovery: {recovery}; fetching the folders from "
           f"{run.remote} failed: {why}", dependencyKind=KIND, missingId=tree, ownerMemoryId=mid, ownerStream=o.id,
           recovery=recovery, reason="anchor-path-object-unavailable")


def _missing_trees(memories, resolver: Resolver) -> dict[str, tuple[str, str, str]]:
    """tree -> (memory, anchor commit, path) of the first memory of ``memories`` (a stream's, in
    order) on whose anchored path it is missing, for the trees not here on those paths while the
    anchor commit is (``_anchored``'s memories)."""
    found: dict[str, tuple[str, str, str]] = {}
    try:
        for m, rec in _anchored(memories, resolver):
            for p in rec.anchor.paths:
                tree = resolver.missing_tree(rec.anchor.commit, p.path)
                if tree is not None:
                    found.setdefault(tree, (m.memory_id, rec.anchor.commit, p.path))
    except HnError:  # (a malformed or denied ID: it stops there)
        pass
    return found
