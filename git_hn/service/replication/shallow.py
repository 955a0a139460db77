"""Shallow repositories and ``git hn sync --recover-shallow`` (CONTRACT §9.18).

A shallow clone lacks old commits, so memories anchored to them cannot be promoted (their anchors
are unavailable). Recovery fetches exactly the missing anchor and evidence objects, with
``--depth=1``, for the saved exact selectors only: it never unshallows the repository and never
adds a selector. Fetched commits become new shallow boundaries, recorded in the same step as the
object copy; boundaries that lie on promoted memory chains are released after promotion.
"""

from __future__ import annotations

import os

from ...core import canonical
from ...core.dependencies import exact_needs
from ...core.lines import lines_of
from ...errors import HnError, InputError
from ...store import private
from ...store import replication as rstate
from ...store.repo import Repo


def is_shallow(repo: Repo) -> bool:
    return repo.is_shallow()


def before_recovery(repo: Repo, remote: str, selection, result, repair) -> bool:
    """The §9.18 checks, in order; True when the run ends here (repair only). ``repair`` is
    promotion's pending-state repair (passed in: promotion itself uses this module)."""
    pending = rstate.load_pending(repo)
    if remote in pending.remotes():
        repair(repo, remote)
        if not is_shallow(repo) or not selection.saved or selection.all:
            result.repaired_only = True
            return True
    if not is_shallow(repo):
        raise InputError(f"repository is not shallow; run git hn sync {remote}")
    if not selection.saved or selection.all:
        # (a team trial: README's team set-up saves --all, and the refusal gave no way on)
        raise InputError(f"--recover-shallow requires a saved exact replication selection for {remote}; save "
                         f"the streams to recover by name (git hn replication select {remote} --memory STREAM), "
                         f"or fetch the whole history instead: git fetch --unshallow {remote}, then git hn sync "
                         f"{remote}")
    return False


MISSING_KINDS = ("anchor-commit", "anchor-path", "evidence-git")


def fetch_missing(run, wanted) -> None:
    """Fetch exactly the missing exact objects into the quarantine, then classify again (each
    fetch runs while the verified state's lock is not held: a slow remote holds no reader or
    writer of the state; ``Import.classify_again`` takes it again and reads the state anew).

    Classification reports one missing dependency per selection, so every anchor commit the
    selections' memories name and the quarantine lacks is fetched in one request; anything a
    re-classification still finds missing (and that was not fetched already) gets another
    round, so one ``--recover-shallow`` run completes a selection whose memories are anchored to
    many commits beyond the shallow boundary.
    """
    if not is_shallow(run.repo):
        return
    from ...store.resolver import Resolver

    fetched: list[str] = []
    while True:
        targets = [o for o in wanted if o.status == "dependency-missing" and o.id in run.sel.memories
                   and o.fields.get("dependencyKind") in MISSING_KINDS]
        if not targets:
            return
        kinds = {o.fields["missingId"]: o.fields["dependencyKind"] for o in targets}
        resolver = Resolver(run.q.repo, pending=run.repo.pending().denied)
        for o in targets:  # every other anchor commit beyond the boundary, in the same request
            for oid, kind in exact_needs(o.memories).items():
                if kind == "anchor-commit" and oid not in kinds and not _present(resolver, oid):
                    kinds[oid] = kind
        oids = sorted(set(kinds) - set(fetched))
        if not oids:
            return  # fetched already and still missing: the outcome stands
        # under the import's watchdog and byte budget, as every fetch from the remote (a stalling
        # server held the sync, and the state's lock every read waits for, for 300 s)
        from .transfer import stall_timeout

        stall = stall_timeout(run.repo)
        verdict = run.q.fetch(run.url, oids, run.budgets["maxTotalBytes"] * len(targets), stall, depth=1)
        if verdict:
            why = {"size": f"the missing objects exceed the byte budget ({run.budgets['maxTotalBytes']} bytes a "
                           "selection, max-total-bytes)",
                   "stall": f"nothing arrived for {stall:g} s (hn.syncStallTimeout)"}.get(verdict, "")
            for o in targets:
                oid = o.fields["missingId"]
                o.fields["recovery"] = f"fetch a branch that contains {oid}, then git hn sync {run.remote}"
                if why:
                    o.fields["diagnostic"] = o.fields.get("diagnostic", "") + f"; recovery fetch stopped: {why}"
            return
        for oid, info in zip(oids, run.q.git.object_infos(oids)):
            if info is None or (kinds[oid] == "anchor-commit" and info[1] != "commit"):
                return
        fetched += oids
        run.extra_roots = sorted(fetched)
        # with the streams that failed only by a target's failure (§9.9 step 6), which classify
        # then judges anew too (a trial: a challenge of a recovered stream's memory failed until a
        # second --recover-shallow run)
        again = targets + propagated_from(wanted, targets)
        for o in again:
            o.status, o.fields, o.prefix = "fetched", {}, 0
        run.classify_again(wanted, again)  # (the state's lock again: it is not held over the fetch)


def propagated_from(wanted, targets) -> list:
    """The outcomes of ``wanted`` that failed only because a memory they need is in one of
    ``targets``, or in such an outcome (transitively): §9.9 step 6's "depends on failed memory".
    Judged again without ``targets``, they would count its memories as unknown."""
    held = {m.memory_id for o in targets for m in o.memories}
    found: list = []
    rest = [o for o in wanted if all(o is not t for t in targets)]
    changed = True
    while changed:
        changed = False
        for o in rest:
            if any(o is f for f in found) or o.status != "dependency-missing":
                continue
            if (o.fields.get("diagnostic") or "").startswith(f"selection memory {o.id} depends on failed memory ") \
                    and o.fields.get("missingId") in held:
                found.append(o)
                held |= {m.memory_id for m in o.memories}
                changed = True
    return found


def _present(resolver, oid: str) -> bool:
    try:
        return resolver.object_type(oid) is not None
    except HnError:  # denied or unreadable: not something a fetch can fix
        return True


def extra_objects(run, needed: set[str]) -> tuple[list[str], list[str]]:
    """(objects, new shallow commits) fetched by recovery (and a partial clone's files), to copy
    with the memory objects: of those fetched, the ones in ``needed`` (what promoted memories
    name) and what they reach."""
    roots = [r for r in run.extra_roots if r in needed]
    if not roots:
        return [], []
    listing = run.q.git.run(["rev-list", "--objects", "--no-walk", "--end-of-options", *roots])
    objs = sorted({line.split(" ", 1)[0] for line in lines_of(listing.stdout.decode()) if line})
    commits = [oid for oid, info in zip(roots, run.q.git.object_infos(roots)) if info and info[1] == "commit"]
    return objs, commits


def add_shallow(repo: Repo, commits: list[str]) -> None:
    if not commits:
        return
    path = os.path.join(repo.common_dir, "shallow")
    existing = set()
    if os.path.exists(path):
        with open(path, encoding="ascii") as fh:
            existing = {line.strip() for line in fh if line.strip()}
    with open(path, "a", encoding="ascii") as fh:
        for c in commits:
            if c not in existing:
                fh.write(c + "\n")


def release(repo: Repo, commits: list[str]) -> None:
    """Drop shallow boundaries that lie on promoted memory chains (their history is complete)."""
    path = os.path.join(repo.common_dir, "shallow")
    if not os.path.exists(path) or not commits:
        return
    on_chain = set(commits)
    with open(path, encoding="ascii") as fh:
        lines = [line.strip() for line in fh if line.strip()]
    kept = [line for line in lines if line not in on_chain]
    if len(kept) == len(lines):
        return
    tmp = path + ".hn-tmp"
    with open(tmp, "w", encoding="ascii") as fh:
        fh.write("".join(c + "\n" for c in kept))
    os.replace(tmp, path)


def record_gap(repo: Repo, remote: str, outcome) -> None:
    """``<common-gitdir>/hn/shallow-gap.json`` for a memory dependency gap (§9.18, §13.3)."""
    kind = outcome.fields.get("dependencyKind", "")
    gap = {"operation": "memory replication",
           "kind": {"anchor-commit": "memory anchor commit", "anchor-path": "memory anchor path",
                    "evidence-git": "memory evidence", "lifecycle-target": "memory lifecycle target",
                    "evidence-memory": "memory evidence"}.get(kind, "memory dependency"),
           "missingID": outcome.fields.get("missingId", ""),
           "objectType": "commit" if kind == "anchor-commit" else "object",
           "ownerKind": "memory", "ownerID": outcome.id,
           "ownerMemoryId": outcome.fields.get("ownerMemoryId", ""), "ownerStream": outcome.id,
           "remote": remote, "requiredRef": outcome.fields.get("requiredRef", ""),
           "requiredSelectors": outcome.fields.get("requiredSelectors") or [],
           "recovery": outcome.fields.get("recovery", "")}
    private.write_private(repo.hn_dir, os.path.join(repo.hn_dir, "shallow-gap.json"),
                          canonical.indented({"version": 2, "gap": gap}))
