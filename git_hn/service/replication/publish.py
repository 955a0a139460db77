"""Publishing local memory streams to a remote (CONTRACT §9.13, §10.7; issue 11).

Only local streams (``refs/hn/memory/*``) are published, never accepted copies or branches, and
only after their chains verified (through the verified state, which checks only what moved).
A stream the remote already holds at the same tip is counted as published without being pushed;
the rest go in one ``git push --porcelain`` with one explicit, non-forced refspec per ref (in
slices, so that any number of refs fits on a command line). What was given to each remote is
remembered in the state, so that the pre-push hook pushes only what moved since.
"""

from __future__ import annotations

from ...core.grammar import parse_local_ref
from ...errors import HnError, ValidationError
from ...store import state as statemod
from ...store import statedb, stateview, streams
from ...store.transport import remote_env
from ...store.repo import Repo
from .outcomes import PhaseError, phase

SLICE = 1000  # refspecs per push command line


def local_refs(repo: Repo, remote: str) -> list[str]:
    proc = repo.git.run(["for-each-ref", "--format=%(refname)", "refs/hn/memory"])
    if proc.returncode != 0:
        raise phase("memory publication inspection", remote)
    refs = proc.stdout.decode("utf-8", "replace").split()
    if any(parse_local_ref(r) is None for r in refs):
        raise phase("memory publication inspection", remote)
    return refs


def verified(repo: Repo, refs: list[str], on_view=None):
    """Bring the state up to date for the streams of ``refs`` (and their accepted copies, for
    §11(a)); ``on_view(view)`` runs while it is current. Raises ``ValidationError`` (the full
    verification's) when one of those streams is invalid."""
    mine = {parse_local_ref(r) for r in refs}
    listing = [s for s in streams.list_sources(repo) if (s.actor, s.stream) in mine]
    try:
        with stateview.current(repo, listing=listing, scope=mine) as view:
            return on_view(view) if on_view else None
    except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
        streams.collect(repo, listing)  # raises what full verification raises
        return None


def publish_streams(repo: Repo, remote: str, advertised: dict | None = None) -> int:
    """The publication phase of ``git hn sync``: every verified local stream; ``advertised``
    (ref -> tip, from this run's advertisement) spares pushing what the remote already has."""
    refs = local_refs(repo, remote)
    if not refs:
        return 0
    valid = valid_refs(repo, refs)
    heads = _heads(repo, valid)
    todo = [r for r in valid if advertised is None or advertised.get(r) != heads.get(r)]
    try:
        published = push(repo, remote, todo, heads) + (len(valid) - len(todo))
    except PhaseError as exc:
        raise phase("memory publication", remote, exc.published + len(valid) - len(todo)) from None
    if len(valid) < len(refs):
        raise phase("memory publication", remote, published)  # §9.13: the valid refs still go
    return published


def valid_refs(repo: Repo, refs: list[str]) -> list[str]:
    """``refs`` whose streams verify (§9.13: an invalid local stream is not published, and does
    not stop the others). The common case costs the incremental check of ``verified``; only when
    a stream is invalid are the streams verified in full, each on its own."""
    try:
        verified(repo, refs)
        return refs
    except HnError:
        pass
    mine = {parse_local_ref(r) for r in refs}
    failed: set = set()
    try:
        streams.collect(repo, [s for s in streams.list_sources(repo) if (s.actor, s.stream) in mine],
                        failed=failed)
    except HnError:
        return []
    return [r for r in refs if parse_local_ref(r) not in failed] if failed else []


def current_heads(repo: Repo) -> dict[str, str]:
    """ref -> tip of every local memory ref (one ``for-each-ref``)."""
    proc = repo.git.run(["for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory"])
    out = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        ref, _sp, oid = line.partition(" ")
        out[ref] = oid
    return out


def _heads(repo: Repo, refs: list[str]) -> dict[str, str]:
    out = current_heads(repo)
    return {r: out.get(r, "") for r in refs}


def push(repo: Repo, remote: str, refs: list[str], heads: dict[str, str], exact: bool = False) -> int:
    """``git push --porcelain`` of explicit, non-forced refspecs; the number of refs pushed (or
    already up to date there). ``exact`` pushes each ref's tip in ``heads`` (the one that was
    verified and linted) rather than whatever the ref names when the push runs. A rejected ref or
    a failed push is a phase error after every slice was tried."""
    published, rejected = 0, False
    done: dict[str, str] = {}
    for i in range(0, len(refs), SLICE):
        part = refs[i:i + SLICE]
        specs = [f"{heads[r]}:{r}" if exact else f"{r}:{r}" for r in part]
        proc = repo.git.run(["push", "--porcelain", "--end-of-options", remote, *specs],
                            env={**remote_env(), "HN_HOOK_ACTIVE": "1"})
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            parts = line.split("\t")
            if len(parts) >= 2 and ":" in parts[1]:
                ref = parts[1].split(":", 1)[1]
                if parts[0] == "!":
                    rejected = True
                else:
                    published += 1
                    if ref in heads:
                        done[ref] = heads[ref]
        if proc.returncode != 0:
            rejected = True
    remember(repo, remote, done)
    if rejected:
        raise phase("memory publication", remote, published)
    return published


def remember(repo: Repo, remote: str, heads: dict[str, str]) -> None:
    """Record the tips ``remote`` now holds (bookkeeping: a failure only costs a push later)."""
    import sqlite3

    if not heads:
        return
    try:
        with statedb.sealed_for_writing(repo) as conn:
            if conn is not None:
                statemod.record_published(conn, remote, heads)
    except (HnError, OSError, sqlite3.Error, statedb.Unwritable):
        pass


def published_heads(repo: Repo, remote: str) -> dict[str, str]:
    try:
        with statedb.locked(repo, exclusive=False, wait=2.0):
            conn = statedb.open_sealed(repo, readonly=True)
            if conn is None:
                return {}
            try:
                return statemod.published_heads(conn, remote)
            finally:
                conn.close()
    except (HnError, OSError, statedb.Unwritable):
        return {}


__all__ = ["publish_streams", "push", "verified", "local_refs", "published_heads", "ValidationError"]
