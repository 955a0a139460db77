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

The fetch runs after the verified state's lock is released (a slow remote holds no reader); the
classification that follows takes it again (``Import.classify_again``). Trusts: nothing fetched
beyond its object ID (Git checks that each object has the ID it was asked for).
"""

from __future__ import annotations

from ...errors import HnError
from ...store.resolver import Resolver

KIND = "anchor-path"


def fetch_files(run, wanted) -> None:
    """Fetch the anchored files that stopped ``wanted``'s streams, then classify them again;
    repeated while a new classification stops at a file not fetched yet. A fetch that fails
    leaves the outcomes as they are, their diagnostic saying why."""
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


def _missing_files(memories, resolver: Resolver):
    """The blobs ``memories`` (a stream's, in order) are anchored on that are not here while
    their anchor commit is, up to the first memory whose anchor commit is not here: the stream
    stops there, and a file of a memory after it is no promoted memory's (a review: a file only
    such a memory named was fetched, and copied into the main store, CONTRACT §9.10)."""
    for m in memories:
        rec = m.envelope.record
        if rec is None:
            continue
        try:
            if resolver.object_type(rec.anchor.commit) != "commit":
                return
            for p in rec.anchor.paths:
                if p.blob != "absent" and resolver.object_type(p.blob) is None:
                    yield p.blob
        except HnError:  # (a malformed or denied ID: not something a fetch can bring; it stops there)
            return
