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
the selections' ``max-total-bytes``, offering no commit as had, as Git's own lazy fetch does (a
server with bitmaps counts the files of a commit the clone has as had, and sent nothing). Each
must arrive as a blob; they are copied into the main store with the memory objects
(``run.extra_roots``, like recovered anchors) and those streams are classified again. Only blobs
the memories name, at commits this clone has: never a commit or a history, which is what the
clone's own branches decide.

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
    while True:
        targets = [o for o in wanted if o.status == "dependency-missing" and o.fields.get("dependencyKind") == KIND]
        if not targets:
            return
        resolver = Resolver(run.q.repo, pending=run.repo.pending().denied)
        oids = sorted({oid for o in targets for oid in _missing_files(o.memories, resolver)} - fetched)
        if not oids:
            return  # fetched already and still missing: the outcome stands
        from .transfer import stall_timeout

        stall = stall_timeout(run.repo)
        verdict = run.q.fetch(run.url, oids, run.budgets["maxTotalBytes"] * len(targets), stall, negotiate=False)
        if verdict:
            why = {"size": f"the files exceed the byte budget ({run.budgets['maxTotalBytes']} bytes a selection, "
                           "max-total-bytes)",
                   "stall": f"nothing arrived for {stall:g} s (hn.syncStallTimeout)"}.get(verdict) \
                or run.q.failure or f"{run.remote} did not send them"
            for o in targets:
                o.fields["diagnostic"] += f"; fetching the anchored files from {run.remote} failed: {why}"
            return
        fetched.update(oids)
        got = [oid for oid, info in zip(oids, run.q.git.object_infos(oids)) if info is not None and info[1] == "blob"]
        run.extra_roots = sorted(set(run.extra_roots) | set(got))
        for o in targets:
            o.status, o.fields, o.prefix = "fetched", {}, 0
        run.classify_again(wanted, targets)


def _missing_files(memories, resolver: Resolver):
    """The blobs ``memories`` are anchored on that are not here while their anchor commit is."""
    for m in memories:
        rec = m.envelope.record
        if rec is None or not any(p.blob != "absent" for p in rec.anchor.paths):
            continue
        try:
            if resolver.object_type(rec.anchor.commit) != "commit":
                continue
            for p in rec.anchor.paths:
                if p.blob != "absent" and resolver.object_type(p.blob) is None:
                    yield p.blob
        except HnError:  # (a malformed or denied ID: not something a fetch can bring)
            continue
