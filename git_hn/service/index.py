"""``git hn memory index rebuild|verify`` (CONTRACT §8; issue 11).

git-hn's index is the verified state (``store.state``): recall, show, brief, digest and the
lifecycle commands read it, and every command that changes memory refs keeps it current at a
cost that grows with the change. ``index-v0.json`` (upstream's schema, at the ``HEAD`` context)
is an export for other hn-memory/0 implementations: ``rebuild`` writes it (or omits it when it
would exceed its §8.1 bound), and a change to memory refs deletes it (an absent index is always
consistent, §8.4), because rewriting a file of up to 256 MiB is not a cost that grows with the
change.

``rebuild`` verifies every stream and replaces the state and the export. ``verify`` re-derives
everything from a full verification and compares: the state table by table, and the export (when
present) byte for byte.
"""

from __future__ import annotations

import os

from ..core import index as core_index
from ..core import recall as core_recall
from ..core.gostr import tokens
from ..core.projection import Context
from ..core.tuples import NamedTuple
from ..errors import ConflictError, HnError, LocalStateError, chmod_way_out
from ..store import index as store_index
from ..store import state, statedb, stateview, streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy


class Built(NamedTuple):
    fingerprint: str
    count: int
    omitted: bool  # index-v0.json not written: over the §8.1 size bound


def head_context(repo: Repo, resolver: Resolver):
    head = repo.head_commit()
    return head, load_policy(repo, resolver, head)


# In the indented layout every posting is a line of 8 spaces, a quoted 71-character memory ID and
# a newline: 82 bytes at least. With the contents this bounds the index size from below.
_POSTING_MIN = 82


def index_bytes(repo: Repo, conn, fingerprint: str, totals: state.Totals, bound: int) -> bytes | None:
    """The upstream-schema index of the state ``conn`` (just derived from every stream), or None
    when it would exceed ``bound`` (§8.1: not written). A lower bound on its size (from the
    state's totals) is checked first, so that an index far over the bound (hundreds of megabytes
    at 100k memories) is never built only to be dropped. Its rows are the full projection's at
    the ``HEAD`` context, projected a page at a time (``derive.index_rows``)."""
    if totals.postings * _POSTING_MIN + totals.content > bound:
        return None
    from ..store import derive

    resolver = Resolver(repo)
    head, policy = head_context(repo, resolver)
    rows = derive.index_rows(repo, conn, Context(head, "", "", policy.memory, policy.digest), resolver)
    toks = [tokens(core_index.row_text(r)) for r in rows]
    data = core_index.encode(core_index.build(fingerprint, rows, toks))
    return data if len(data) <= bound else None


def _fingerprint(repo: Repo, listing) -> str:
    _head, policy = head_context(repo, Resolver(repo))
    return core_recall.source_fingerprint(policy.digest, [(s.ref, s.head) for s in listing])


_READ_ONLY = "(a read-only file system, or another user's repository)"


def _named(work, what: str):
    """``work()``, with a private directory that cannot be written said as ``what`` (the state's
    own ``Unwritable`` is a message meant never to reach the user)."""
    try:
        return work()
    except statedb.Unwritable:
        raise LocalStateError(f"{what} {_READ_ONLY}") from None


def rebuild(repo: Repo, bound: int | None = None) -> Built:
    """CONTRACT §8.4: verify every stream, replace the state, write (or omit) the export. A
    directory it writes in that cannot be written is said before anything changes, with what
    lets it write (a review: after ``chmod -R a-w .git/hn`` it named only a read-only file
    system or another user's repository, though ``verify`` there names the ``chmod``)."""
    unwritable = _unwritable_dir(repo)
    if unwritable is not None:
        raise LocalStateError(f"memory index could not be written: {unwritable} cannot be written; "
                              + _make_writable(repo, unwritable, again=True))
    return _named(lambda: _rebuild(repo, bound),
                  f"memory index could not be written: {repo.hn_dir} cannot be written here")


def _unwritable_dir(repo: Repo) -> str | None:
    """The first directory a rebuild writes in that this process cannot write (its permission
    bits, an immutable flag, a read-only mount): the state's, and the locks' while the state's
    lock file does not exist; one that does not exist yet, the directory it is made in."""
    lock = statedb.lock_path(repo)
    wanted = [statedb.paths(repo)[0]] + ([os.path.dirname(lock)] if not os.path.lexists(lock) else [])
    for d in wanted:
        d = next((c for c in (d, repo.hn_dir, os.path.dirname(repo.hn_dir)) if os.path.isdir(c)), None)
        if d is not None and not os.access(d, os.W_OK | os.X_OK):
            return d
    return None


REBUILD_ATTEMPTS = 3


def _rebuild(repo: Repo, bound: int | None) -> Built:
    """One rebuild, checked after its export is written: a write that moved a memory ref
    meanwhile (a ``record`` beside the rebuild) removes the export only after its ref moved,
    which may have been before this one wrote it, so the refs are listed again once the export
    is in place, and a rebuild that raced a write is done again. If writes keep coming, the
    export is left absent (absent is consistent, stale is not) and the rebuild fails."""
    for _attempt in range(REBUILD_ATTEMPTS):
        built = _rebuild_once(repo, bound)
        if _fingerprint(repo, streams.list_sources(repo)) == built.fingerprint:
            return built
    store_index.remove_index(repo)
    raise ConflictError(f"memory index rebuild was overtaken by {REBUILD_ATTEMPTS} writes to memory refs while it "
                        "ran; run git hn memory index rebuild again once they are done")


def _rebuild_once(repo: Repo, bound: int | None) -> Built:
    import gc

    bound = statedb_bound(bound)
    store_index.repair_location(repo)
    listing = streams.list_sources(repo)
    fingerprint = _fingerprint(repo, listing)
    enabled = gc.isenabled()
    gc.disable()  # hundreds of thousands of small acyclic objects: collections only cost time
    try:
        try:
            # every stream verified and stored a batch at a time (``derive``) into a new state
            # beside the one in place, which readers and writers keep using meanwhile; the
            # export is derived from it before it is put in place, under the lock
            tmp, totals, data = stateview.derived(repo, listing,
                                                  then=lambda c, t: index_bytes(repo, c, fingerprint, t, bound))
            try:
                with statedb.locked(repo, exclusive=True):
                    stateview.installed(repo, tmp).close()
            except BaseException:
                from ..store.state_replace import drop

                drop(tmp)
                raise
        except statedb.WriteFailed as exc:
            raise LocalStateError(f"memory index could not be written: {exc.cause}") from None
    finally:
        if enabled:
            gc.enable()
    if data is None:
        store_index.remove_index(repo)  # an index that cannot be written is absent (consistent)
    else:
        store_index.write_index(repo, data)
    return Built(fingerprint, totals.rows, data is None)


def statedb_bound(bound: int | None) -> int:
    from ..core.limits import LIMITS

    return LIMITS.max_index if bound is None else bound


def verify(repo: Repo, bound: int | None = None) -> Built:
    """CONTRACT §8.6 over the state and the export: stale when they were built from other refs or
    policy, corrupt when a full re-derivation differs from what is stored."""
    return _named(lambda: _verify(repo, bound),
                  f"memory index cannot be verified: its lock in {repo.hn_dir} cannot be taken here")


def _verify(repo: Repo, bound: int | None) -> Built:
    bound = statedb_bound(bound)
    try:
        data, _st = store_index.load_index_bytes(repo)
        recorded = core_index.decode(data)["sourceFingerprint"]
    except core_index.IndexError_ as exc:
        if exc.kind != "missing":
            raise _load_refused(repo, exc) from None
        data = recorded = None
    listing = streams.list_sources(repo)
    current = _fingerprint(repo, listing)
    if data is not None and recorded != current:  # (reads never rewrite the export: a rebuild does)
        raise core_index.IndexError_("stale", f"{SOURCE_CHANGED}; " + _way_out(repo))
    got = _stored_tables(repo)
    if got is None:  # (an audit: a fresh or bare repository's verify said only "missing")
        raise core_index.IndexError_("missing", "no memory state is stored here (none was built yet, or it was "
                                     "removed); " + _way_out(repo).replace("replaces it", "builds it"))
    stored, unidentified = got
    if not _same_refs(stored, listing):  # (refs changed outside git-hn: the next read catches up)
        raise core_index.IndexError_("stale", f"{SOURCE_CHANGED}; " + _way_out(repo, by_reads=True))
    _derived(repo, listing, lambda conn, totals: _compare(repo, conn, totals, stored, unidentified, data,
                                                          current, bound))
    return Built(current, stored["count"], False)


def _compare(repo: Repo, conn, totals, stored: dict, unidentified: bool, data: bytes | None, current: str,
             bound: int) -> None:
    """Verify's comparison of the stored state and export with ``conn``, the re-derived state."""
    if stored != _dump(conn):
        if unidentified:
            raise _incompatible(repo, differs=True)
        raise core_index.IndexError_("corrupt", "memory state differs from a rebuild; " + _way_out(repo))
    if data is not None:
        expected = index_bytes(repo, conn, current, totals, bound)
        if expected != data:
            raise core_index.IndexError_("stale", "derived projection changed; " + _way_out(repo))


def _load_refused(repo: Repo, exc: core_index.IndexError_) -> HnError:
    """The export's refused load (§8.5's kind and cause), with the way out (a trial: after
    ``chmod -R a-w .git/hn``, "index-v0.json has unsafe permissions" alone). A rebuild replaces
    the export and repairs ``hn/memory`` (§8.1 steps 2 and 3) where it can write, so that is said,
    after what lets it write; ``hn`` itself, or a ``hn/memory`` of another user, a rebuild leaves
    as it is (steps 1 and 2): their §2.3 line, with its chmod, is said instead."""
    from ..store import private

    hn, mem, _index = store_index.paths(repo)
    if exc.cause.startswith(hn + " "):
        private.check_dir(hn)
    directory = exc.cause.startswith(mem + " ")
    if directory and not os.path.islink(mem) and os.stat(mem).st_uid != os.getuid():
        private.check_dir(mem)  # (its owner's, a rebuild makes it 0700: the line below)
    way = (None if statedb.writable(repo) else _make_writable(repo)) or _way_out(repo)
    return core_index.IndexError_(exc.kind, f"{exc.cause}; " + (way.replace("replaces it", "repairs it")
                                                              if directory else way))


# §8.6's cause of a stale index, in its words; each of verify's lines then says what to do (a
# trial: "memory index stale: source or policy changed" alone, after refs changed outside
# git-hn, left no way out, though the next read brought the state up to date)
SOURCE_CHANGED = "source or policy changed"


def _same_refs(stored: dict, listing) -> bool:
    return [(r, h) for r, h, *_ in stored["sources"]] == sorted((s.ref, s.head) for s in listing)


_DUMPS = {
    "sources": "SELECT ref, head, actor, stream, length FROM sources ORDER BY ref",
    "chain": 'SELECT s.ref, c.seq, c."commit", c.id, c.signature FROM chain c JOIN sources s '
             "ON s.sid = c.sid ORDER BY s.ref, c.seq",
    "memories": "SELECT * FROM memories ORDER BY id",
    "evref": "SELECT * FROM evref ORDER BY owner, type, ref",
    "rows": "SELECT r.id, r.kind, r.lifecycle, r.lrank, r.challenged, r.ts, r.utc, r.size, a.anchor, "
            "a.mode, a.app_subject, a.anchor_subject, a.paths, a.git, a.event, r.ev_memory, r.actor, "
            "r.stream, r.seq, r.outcome, r.topics, r.pathset, r.tokens FROM rows r JOIN akeys a "
            "ON a.akey = r.akey ORDER BY r.id",
    "texts": "SELECT id, length, seq FROM texts ORDER BY id",
    "topics": "SELECT topic, id FROM topics ORDER BY topic, id",
}


def _dump(conn) -> dict:
    """What verify compares of a state: its sources, its row count, and each table (``_DUMPS``'
    order) as one SHA-256 over its rows, each ``repr`` length-prefixed (exact but for a SHA-256
    collision), read a page at a time: the stored and the re-derived state are never held whole
    (issue 11: verify at 100k memories held both, 1.6 GiB, to print one line)."""
    import hashlib

    out: dict = {"sources": conn.execute(_DUMPS["sources"]).fetchall(),
                 "count": conn.execute("SELECT count(*) FROM rows").fetchone()[0]}
    for name, sql in _DUMPS.items():
        digest = hashlib.sha256()
        rows = conn.execute(sql)
        while True:
            page = rows.fetchmany(1024)
            if not page:
                break
            for row in page:
                data = repr(row).encode("utf-8", "surrogatepass")
                digest.update(len(data).to_bytes(8, "big") + data)
        out[name + "Digest"] = digest.hexdigest()
    return out


def _stored_tables(repo: Repo) -> tuple[dict, bool] | None:
    """(the state's tables as stored, whether the code that wrote them is unidentified), or None
    when there is no state; an unsafe, changed or foreign state is reported as corrupt or
    incompatible (§8.5 kinds). Unidentified: another checker and no ``content`` (a state under
    ``CONTENT_FROM`` memories after any reinstall, of the same code or not): its tables are
    compared with the re-derivation like any other's, and differ only if foreign or damaged (an
    audit: verify called such a state "incompatible" after a reinstall of the same code, until
    a read rebuilt it). Reads still never serve it (``open_sealed``)."""
    from ..store.statedb import sqlite3

    _mem, db, _seal = statedb.paths(repo)
    if not os.path.lexists(db):
        return None
    for exclusive in (False, True):  # the second time, a state of the same code installed anew
        with statedb.locked(repo, exclusive=exclusive):  # is taken over (``open_sealed``)
            if not statedb.sealed(repo):  # (a copy has another inode and change time: ``statedb``)
                raise _unsealed(repo)
            conn = statedb.open_sealed(repo, readonly=not exclusive)
            unidentified = conn is None and not exclusive  # (read under the shared lock: no write)
            if unidentified:
                conn = statedb.open_unidentified(repo)
            if conn is None:
                continue
            try:
                return _dump(conn), unidentified
            except sqlite3.Error:
                raise core_index.IndexError_("corrupt", "memory state is unreadable") from None
            finally:
                conn.close()
    # (other code by its recorded bytes, or another schema version)
    raise _incompatible(repo)


def _incompatible(repo: Repo, differs: bool = False) -> HnError:
    return core_index.IndexError_("incompatible", "memory state was written by another version or installation "
                                  "of git-hn" + (" and differs from what this one derives" if differs else "")
                                  + "; " + _way_out(repo))


def _unsealed(repo: Repo) -> HnError:
    """The refusal of a state whose seal does not match (never served). Where its directory cannot
    be written, no rebuild replaces it there, and a seal that differs only by a ``chmod`` is no
    sign of corruption (a review: ``chmod -R a-w .git/hn`` made verify say "corrupt … rebuild
    replaces it", and the rebuild then failed): that is said instead, with what lets it write."""
    fix = None if statedb.writable(repo) else _make_writable(repo)
    if fix is not None and statedb.unsealed_by_metadata(repo):
        return LocalStateError(f"memory index cannot be verified here: {statedb.paths(repo)[0]} cannot be written, "
                               "and the memory state's permissions changed since git-hn sealed it (a chmod), which "
                               "unseals it; " + fix)
    return core_index.IndexError_("corrupt", "memory state is unsealed: a write of it was interrupted, it was "
                                  "changed after it was written, or the repository was copied or moved; "
                                  + (fix or _way_out(repo, by_reads=True)))


def _make_writable(repo: Repo, directory: str | None = None, again: bool = False) -> str:
    """What lets a rebuild replace the state, where ``directory`` (by default ``hn``) cannot be
    written; with ``again``, said to a rebuild that failed there."""
    hn = repo.hn_dir
    where = directory or hn
    then = "run git hn memory index rebuild again" if again else "git hn memory index rebuild replaces it"
    try:
        st, ro = os.stat(where), bool(os.statvfs(where).f_flag & os.ST_RDONLY)
    except OSError:
        st, ro = None, False
    if ro:
        return f"{where} is on a read-only mount: " + (
            f"mount it read-write, then {then}" if again else f"{then} where it is not")
    if st is not None and st.st_uid != os.getuid():
        return f"{where} belongs to user ID {st.st_uid}: run git hn memory index rebuild as that user"
    return f"{chmod_way_out('it', hn, recursive=True)}, then {then}"


def _way_out(repo: Repo, by_reads: bool = False) -> str:
    """What replaces an unsealed state or one of other code: a rebuild, unless a replication
    acceptance is pending (§9.17), which fails the rebuild as it fails every read until the sync
    completes it (a sync stopped during its promotion, say). ``by_reads``: any read replaces it
    too (an unsealed state, as in a copied repository, or one behind refs changed outside git-hn;
    a trial took verify's failure there for damage no read had)."""
    pending = repo.pending()
    if pending.ok and not pending.denied:
        return "git hn memory index rebuild, or any read (git hn memory recall), replaces it" if by_reads \
            else "git hn memory index rebuild replaces it"
    remote = min(pending.remotes() - {""}, default="REMOTE")
    return (f"a replication acceptance from {remote} is pending, which git hn sync {remote} completes; "
            "then git hn memory index rebuild replaces it")


def _derived(repo: Repo, listing, compare) -> None:
    """``compare(conn, totals)`` on a state derived from ``listing`` (every stream verified a
    batch at a time: ``derive.load``), built in a private temporary database on disk (SQLite's
    own, removed when closed), so that neither its pages nor the verified memories are all in
    memory at once (issue 11)."""
    from ..store import derive
    from ..store.statedb import sqlite3

    conn = sqlite3.connect("", isolation_level=None)
    try:
        conn.executescript(statedb.SCHEMA)
        compare(conn, derive.load(repo, conn, listing))
    finally:
        conn.close()


__all__ = ["rebuild", "verify", "Built"]
