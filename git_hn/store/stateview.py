"""Reading the verified state (issue 11): one session per command, brought up to date first.

``current(repo)`` lists the memory refs (one ``for-each-ref``), brings the state to them through
``state`` (verifying only what is new), and yields a ``View``: the state's tables plus the
repository, under the state lock. Commands ask the view for exactly what their answer needs:
a memory by ID prefix, the rows that pass a filter (grouped by what decides their
context-dependent classes, so a class is decided once per group), or the projection of a few
memories. That projection is computed by the same pure ``core.projection.project`` as a full
projection, over the memories' *closure* (what targets them, what they target, what cites them),
whose payloads are read from Git and re-checked (SHA-256 equals the ID, the signature text and
envelope fields equal the recorded ones, the Ed25519 signature verifies) before use; the lifecycle the state recorded must equal
the one projected. A mismatch raises ``Corrupt``: the session discards the state (kept aside for
the tips it verified: ``aside.set_aside``) and the command is answered again from a full
collection.

``Unavailable`` is raised when the state cannot answer at all (replication state pending, which
the full collection reports commit by commit); callers then use the full collection. Trusts:
``statedb`` for the file, ``state`` for what it recorded, Git for every payload it serves.
"""

from __future__ import annotations

from ..core import chain, hashing
from ..core.chain import VerifiedMemory
from ..core.contexts import contextmanager
from ..errors import ConflictError, HnError, StateBusy, StateCorrupt, StateUnavailable, ValidationError
from . import aside, progress, rewound, state, statedb, streams
from .aside import set_aside
from .repo import Repo
from .state import chunks, marks, targeting_sql


Unavailable = StateUnavailable
Corrupt = StateCorrupt


@contextmanager
def current(repo: Repo, listing: list | None = None, scope: set | None = None, wait: float = statedb.LOCK_WAIT):
    """A ``View`` of the state at the current refs (or, with ``scope``, a set of (actor, stream),
    at least those streams' refs current). Raises what a full collection raises when a stream is
    invalid; ``ConflictError`` when the state's lock stays taken for ``wait`` seconds."""
    if listing is None:
        listing = streams.list_sources(repo)
    pending = repo.pending()
    if not pending.ok or pending.denied:
        raise Unavailable
    with statedb.locked(repo, exclusive=False, wait=wait):
        conn = statedb.open_sealed(repo, readonly=True)
        if conn is not None:
            if _current(conn, listing, scope):
                try:
                    yield View(repo, conn, listing)
                finally:
                    conn.close()
                return
            conn.close()
    with statedb.locked(repo, exclusive=True, wait=wait):
        conn = update(repo, listing, scope)
        try:
            yield View(repo, conn, listing)
        finally:
            conn.close()


@contextmanager
def last_verified(repo: Repo, wait: float = 0.2):
    """The sealed state as it was last verified, without bringing it up to date (no listing, no
    verification, no rebuild), or None when there is none or it is busy for ``wait`` seconds.
    For answers that must come at once and may miss what changed since the last command (shell
    completion); never for an answer a command serves as verified."""
    with _sealed(repo, wait, False) as view:
        yield view


# Seconds a check waits for the state's lock (``checking``). Nothing is waited for while the lock
# is free (the usual case). Its exclusive holders: a promotion or an append staging its rows
# (``staged``), a read bringing the state up to the refs (``current``: only what is new is
# verified), a rebuild (~20 s at 100,000 memories: ``statedb.LOCK_WAIT``). The bound outlasts the
# first two in the usual sizes and is half the hook's bound on a remote's answer
# (``hook_runs.ATRISK_TIMEOUT``); a push is not held for a rebuild: it is told that the check
# could not be done (docs/decisions.md)
CHECK_WAIT = 5.0


@contextmanager
def checking(repo: Repo, wait: float | None = None):
    """``last_verified``, for a check that must not pass unsaid when the state is busy (the
    pre-push hook's anchor check; the tracking refs' check, which asks again next time: ``wait``
    0.2 s, docs/decisions.md): it waits up to ``wait`` seconds for the lock (``CHECK_WAIT`` by
    default, or the command's ``Repo.check_wait``, a test seam the CLI passes in; 0.2 s once a
    wait as long found it busy in this command: ``Repo.state_busy``) and raises ``StateBusy``
    when it stays taken. None when there is no sealed state."""
    with _bounded(repo, wait, lambda bound: _sealed(repo, bound, True)) as view:
        yield view


@contextmanager
def built_for_check(repo: Repo, listing: list):
    """``current``, for a check that ``checking`` found no sealed state for (never built in this
    clone, discarded as damaged, another git-hn's): the state brought up to ``listing`` now
    (built when there is none), its lock waited for as ``checking`` waits for it, ``StateBusy``
    when it stays taken (the pre-push hook's anchor check: a push was let go unchecked, unsaid,
    docs/decisions.md). Raises what ``current`` raises when it cannot be built."""
    with _bounded(repo, None, lambda bound: current(repo, listing, wait=bound)) as view:
        yield view


@contextmanager
def _bounded(repo: Repo, wait: float | None, opened):
    """``opened(bound)``'s view, the lock waited for up to ``wait`` seconds (None: ``CHECK_WAIT``,
    or the command's ``Repo.check_wait``), 0.2 s once a wait as long found it busy in this
    command; a ``StateBusy`` is remembered in ``Repo.state_busy``."""
    wait = (CHECK_WAIT if repo.check_wait is None else repo.check_wait) if wait is None else wait
    try:
        with opened(0.2 if repo.state_busy >= wait else wait) as view:
            yield view
    except StateBusy:
        repo.state_busy = max(repo.state_busy, wait)
        raise


@contextmanager
def _sealed(repo: Repo, wait: float, strict: bool):
    """The sealed state under the shared lock (waited for ``wait`` seconds), or None: none
    there, or (not ``strict``) busy; ``strict``: busy raises ``StateBusy``."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        try:
            stack.enter_context(statedb.locked(repo, exclusive=False, wait=wait))
        except StateBusy:
            if strict:
                raise
            yield None
            return
        except (ConflictError, statedb.Unwritable):
            yield None
            return
        conn = statedb.open_sealed(repo, readonly=True)
        if conn is None:
            yield None
            return
        stack.callback(conn.close)
        yield View(repo, conn, [])


def _current(conn, listing, scope) -> bool:
    if scope is None:
        return state.is_current(conn, listing)
    stored = {ref: s.head for ref, s in state.stored_sources(conn, scope).items()}
    return stored == {s.ref: s.head for s in listing if (s.actor, s.stream) in scope}


def update(repo: Repo, listing: list, scope: set | None = None):
    """Bring the state to ``listing`` (under the exclusive lock); returns an open connection.
    A state set aside is compared with every ref first (``rewound.settle``), whatever ``scope``."""
    from .statedb import sqlite3

    keep = not rewound.settle(repo)  # (kept: not compared, or a loss not noted)
    conn = statedb.open_sealed(repo, readonly=False)
    if conn is not None:
        try:
            changes, removed = state.plan(repo, conn, listing, scope)
            if changes or removed:
                moved = rewound.moved_off(conn, changes, removed)  # (an own stream ref moved back)
                state.apply(conn, changes, removed)
                if moved:
                    rewound.note(repo, conn, moved)
                statedb.write_seal(repo)
            if scope is None and not keep:  # (it verified every ref: it knows their tips itself)
                aside.drop(repo)
            return conn
        except ValidationError:
            conn.close()
            # the full derivation reports the first failure exactly as a full collection does (or,
            # if the plan was wrong about a failure, proves the refs valid and rebuilds below)
            verified = None
        except (sqlite3.Error, OSError, statedb.WriteFailed) as exc:
            conn.close()
            from . import state_replace

            state_replace.discard(repo)
            raise statedb.failure(exc) from None
        except BaseException:
            conn.close()
            from . import state_replace

            state_replace.discard(repo)
            raise
    else:
        # after an upgrade that left the signature code and libraries alone, the state being
        # replaced still vouches for the signatures it checked (``statedb.verified_signatures``)
        verified = statedb.verified_signatures(repo)
    if scope is not None:  # built for ``scope`` only (callers list only it): the other streams,
        repo.state_behind = True  # if any, wait for the next read
    sources = [s for s in listing if state.in_scope(scope, s.actor, s.stream)]
    return build(repo, sources, verified=verified, full=scope is None, settled=not keep)


def build(repo: Repo, sources: list, verified: dict | None = None, with_totals: bool = False, full: bool = True,
          settled: bool | None = None):
    """Replace the state with one derived from ``sources`` (``derived``, then ``installed``);
    returns an open connection (and, ``with_totals``, the ``state.Totals`` of what was loaded)."""
    tmp, totals, _extra = derived(repo, sources, verified)
    conn = installed(repo, tmp, full, settled)
    return (conn, totals) if with_totals else conn


def derived(repo: Repo, sources: list, verified: dict | None = None, then=None):
    """(path, ``state.Totals``, ``then``'s answer) of a new state derived from ``sources`` (a
    listing) beside the state in place, which stays: every stream verified a batch at a time
    (``derive.load``; raises what ``streams.collect`` raises, ``verified`` is its argument). The
    caller installs it (``installed``, under the exclusive lock) or drops it (``state_replace.drop``).
    ``then(conn, totals)``, when given, runs on the new state first (the export, from what was
    derived)."""
    from . import derive, state_replace
    from .statedb import sqlite3

    conn, tmp = state_replace.create(repo)
    try:
        totals = derive.load(repo, conn, sources, verified, storing=progress.storing)
        if conn.execute("SELECT count(*) FROM memories").fetchone()[0] >= statedb.CONTENT_FROM:
            statedb.record_content(conn)  # a reinstall of the same code then keeps this state
        extra = then(conn, totals) if then is not None else None
    except BaseException as exc:
        conn.close()
        state_replace.drop(tmp)  # (the state in place stays: CONTRACT §8.1)
        if isinstance(exc, (sqlite3.Error, OSError)):
            raise statedb.failure(exc) from None
        raise
    conn.close()
    return tmp, totals, extra


def installed(repo: Repo, tmp: str, full: bool = True, settled: bool | None = None):
    """The state ``derived`` made at ``tmp`` put in place (under the exclusive lock), open.
    ``full``: it is of every ref (the aside then goes: ``store.aside``); ``settled``: the caller
    compared the aside with the refs already (``rewound.settle``'s answer: False keeps it), else
    (None) it is compared here, before anything can forget it."""
    from . import state_replace

    try:
        if settled is None:
            settled = rewound.settle(repo)
    except BaseException:
        state_replace.drop(tmp)
        raise
    conn = state_replace.install(repo, tmp)
    if full and settled:
        aside.drop(repo)
    return conn


def catch_up(repo: Repo, wait: float = statedb.LOCK_WAIT, listing: list | None = None) -> None:
    """Bring the state to the current refs now (verifying only what it lacks), as the next read
    would: for a command that left it behind them (``Repo.state_behind``) and promises the index
    fresh when it ends (a sync, §8.4 amendment). Best effort: a read does the same. ``listing``:
    ``current``'s, when the caller listed the refs."""
    from .statedb import sqlite3

    try:
        with current(repo, listing, wait=wait):
            pass
    except (HnError, OSError, sqlite3.Error):
        pass  # (pending, unwritable, busy, invalid: each read says or mends it)


def discard(repo: Repo, aside: bool = False) -> None:
    """Under the lock: the state discarded (``aside``: kept for its tips, ``aside.set_aside``)."""
    from . import state_replace

    with statedb.locked(repo, exclusive=True):
        (set_aside if aside else state_replace.discard)(repo)


@contextmanager
def staged(repo: Repo, changes_of, failed, wait: float):
    """The state's part of a ref change, staged while Git moves the refs (an append, a
    promotion). Under the state's exclusive lock (waited for at most ``wait`` seconds; held
    until the block ends, across the ref change), ``changes_of(conn)`` (None: nothing to record,
    the state is not where the caller read it) is applied in an open transaction. The block gets
    ``finish(ok)``: it commits the transaction and renews the seal once the refs moved (``ok``),
    else rolls it back; a block left without it rolls back. A state error never reaches the
    caller: ``failed(exc)`` hears of it, under the lock (to discard the state, or warn)."""
    from .statedb import sqlite3

    held = {"conn": None}

    def finish(ok: bool = True) -> None:
        conn, held["conn"] = held["conn"], None
        if conn is None:
            return
        try:
            conn.execute("COMMIT" if ok else "ROLLBACK")
            if ok:
                statedb.write_seal(repo)
        except (HnError, OSError, sqlite3.Error) as exc:
            failed(exc)
        finally:
            conn.close()

    try:
        lock = statedb.locked(repo, exclusive=True, wait=wait)
        lock.__enter__()
    except (HnError, OSError, statedb.Unwritable):
        yield finish
        return
    try:
        conn = None
        try:
            conn = statedb.open_sealed(repo, readonly=False)
            changes = changes_of(conn) if conn is not None else None
            if changes is not None:
                if sum(map(_rows_added, changes)) >= statedb.DISK_JOURNAL_FROM:
                    statedb.journal_on_disk(conn)
                state.apply(conn, changes, [], commit=False)
                held["conn"], conn = conn, None
        except (HnError, OSError, sqlite3.Error) as exc:
            failed(exc)
        finally:
            if conn is not None:
                conn.close()
        yield finish
    finally:
        finish(False)  # a block that did not finish records nothing
        lock.__exit__(None, None, None)


def _rows_added(ch) -> int:
    """The chain rows a change adds: its new memories, and the verified prefix another chain
    lends it (``state.apply``: a local stream imported back lends the accepted copy all of it)."""
    own = ch.old.sid if ch.old is not None else None
    lent = ch.base_seq if ch.base_sid is not None and ch.base_sid != own else 0
    return len(ch.new) + lent


def serve(repo: Repo, with_view, full, listing: list | None = None):
    """``with_view(view)`` on the current state; ``full()`` (the answer from a full collection)
    when the state cannot answer. A state that disagrees with Git is discarded and rebuilt once."""
    from .statedb import sqlite3

    for _attempt in range(2):
        if repo.index_removed:  # (this command could not write it: the next answer would fail
            break               # the same way, after verifying everything once more)
        try:
            with current(repo, listing) as view:
                return with_view(view)
        except (Unavailable, statedb.Unwritable):
            break
        except statedb.WriteFailed as exc:
            warn(repo, exc.cause)
            break
        except Corrupt:
            discard(repo, aside=True)
        except sqlite3.Error:
            discard(repo)
    return full()


def removed(repo: Repo, exc: BaseException) -> None:
    """Under the state's lock, after a write of it failed part way: discard it (a state half
    written is never served; the next command rebuilds it) and say so (CONTRACT §8.4)."""
    from . import state_replace

    try:
        state_replace.discard(repo)
    except (HnError, OSError):
        pass
    warn(repo, statedb.failure(exc).cause)


def warn(repo: Repo, cause: str) -> None:
    """CONTRACT §8.4's failure path: the command keeps its outcome and says what happened, once
    (an audit: ``memory log`` answers from the state twice, and said it twice)."""
    import sys

    from ..core.gostr import one_line

    line = f"git-hn: warning: memory index removed: {one_line(cause)}"
    if line not in repo.index_removed:
        repo.index_removed.add(line)
        sys.stderr.write(line + "\n")


# ---------------------------------------------------------------------------------------------


# ``View.alike``'s query: the lifecycles the rows hold come from a loose scan of ``rows_groups``
# (each the next one up: a seek), ``ev_memory`` is one of the three values ``state`` writes; the
# join order and index are fixed (SQLite chose ``rows_kind``, a pass over every row of the kind)
_ALIKE_SQL = """
WITH RECURSIVE lc(v) AS (SELECT (SELECT min(lifecycle) FROM rows)
                         UNION ALL SELECT (SELECT min(lifecycle) FROM rows WHERE lifecycle > v) FROM lc
                         WHERE v IS NOT NULL)
SELECT c.seq, r.id FROM lc CROSS JOIN rows r INDEXED BY rows_groups CROSS JOIN chain c
WHERE c.sid = ? AND c.id = r.id AND r.lifecycle = lc.v
  AND r.akey = ? AND r.ev_memory IN ('', 'missing', 'resolved') AND r.actor = ? AND r.kind = ? AND r.size = ?
  AND r.stream = ? AND r.outcome = ? AND r.topics = ? AND r.pathset = ? AND r.tokens = ?
"""


class Info:
    """What the state records of one memory."""

    __slots__ = ("id", "commit", "actor", "stream", "seq", "operation", "target", "ts")

    def __init__(self, row):
        (self.id, self.commit, self.actor, self.stream, self.seq, self.operation, self.target,
         self.ts) = row


class View:
    def __init__(self, repo: Repo, conn, listing):
        self.repo, self.conn, self.listing = repo, conn, listing
        self._loaded: dict[str, VerifiedMemory] = {}

    # -- lookups -------------------------------------------------------------------------------

    def info(self, ids) -> dict[str, Info]:
        out = {}
        for part in chunks(ids):
            for row in self.conn.execute(
                    f'SELECT id, "commit", actor, stream, seq, operation, target, ts FROM memories '
                    f"WHERE id IN ({marks(len(part))})", part):
                out[row[0]] = Info(row)
        return out

    def find(self, hexprefix: str) -> list[str]:
        """IDs starting with ``sha256:<hexprefix>`` (at most two: enough to say "ambiguous")."""
        low = "sha256:" + hexprefix
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT 2", (low, low + "g"))]

    def anchors(self, hexprefix: str) -> list[str]:
        """Anchor commits of verified memories starting with ``hexprefix`` (at most two: enough to
        say "ambiguous"); ``reanchor`` names a commit no longer here by the prefix sync prints."""
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT anchor FROM akeys WHERE anchor >= ? AND anchor < ? ORDER BY anchor LIMIT 2",
            (hexprefix, hexprefix + "g"))]

    def ids(self, hexprefix: str, operations=None) -> list[str]:
        """Every ID starting with ``sha256:<hexprefix>``, sorted; only memories whose operation
        is in ``operations`` when it is given (shell completion)."""
        low = "sha256:" + hexprefix
        sql, params = "SELECT id FROM memories WHERE id >= ? AND id < ?", [low, low + "g"]
        if operations:
            sql += f" AND operation IN ({marks(len(operations))})"
            params += list(operations)
        return [r[0] for r in self.conn.execute(sql + " ORDER BY id", params)]

    def present(self, ids) -> set[str]:
        out: set[str] = set()
        for part in chunks(ids):
            out.update(r[0] for r in self.conn.execute(
                f"SELECT id FROM memories WHERE id IN ({marks(len(part))})", part))
        return out

    def targeting(self, ids) -> set[str]:
        out: set[str] = set()
        for part in chunks(ids):
            out.update(r[0] for r in self.conn.execute(
                targeting_sql(len(part)), part))
        return out

    def citing(self, refs, types=("memory", "event")) -> set[str]:
        out: set[str] = set()
        for part in chunks(refs):
            out.update(r[0] for r in self.conn.execute(
                f"SELECT owner FROM evref WHERE type IN ({marks(len(types))}) AND ref IN "
                f"({marks(len(part))})", (*types, *part)))
        return out

    def lifecycles(self, ids) -> dict[str, str]:
        out = {}
        for part in chunks(ids):
            out.update(self.conn.execute(
                f"SELECT id, lifecycle FROM rows WHERE id IN ({marks(len(part))})", part).fetchall())
        return out

    def above(self, ref: str, tips):
        """[(IDs of the chain of ``ref`` from its last memory whose commit is one of ``tips``,
        or from its root, in order; that memory's sequence, or 0)], or [] when ``ref`` has no
        chain here. Index seeks: one per tip, and the IDs asked for."""
        out = []
        for (sid,) in self.conn.execute("SELECT sid FROM sources WHERE ref = ?", (ref,)).fetchall():
            floor = max((r[0] for t in tips for r in self.conn.execute(
                'SELECT seq FROM chain WHERE sid = ? AND "commit" = ?', (sid, t))), default=0)
            out.append(([r[0] for r in self.conn.execute(
                "SELECT id FROM chain WHERE sid = ? AND seq >= ? ORDER BY seq", (sid, floor))], floor))
        return out

    def alike(self, sid: int, memories) -> list[str]:
        """IDs of the memories of chain ``sid`` whose row holds the same record columns as one
        of ``memories`` (unsigned, at any position: ``append_all``'s drafts) does: kind, size,
        anchor and evidence key, actor, stream, outcome, topics, paths and tokens. Every
        memory whose envelope equals one of theirs in the record fields is among them (the
        columns are ``state.row_columns`` of those fields alone); the caller compares the
        envelopes themselves. Seeks in ``rows_groups`` (every lifecycle the rows hold, found
        by skipping through the index, and every ``ev_memory`` value), not a pass over the chain."""
        out: set[tuple[int, str]] = set()
        for m in memories:
            cols, key, _refs, _n, _seq = state.row_columns(m)
            got = self.conn.execute("SELECT akey FROM akeys WHERE anchor = ? AND mode = ? AND app_subject = ? "
                                    "AND anchor_subject = ? AND paths = ? AND git = ? AND event = ?", key).fetchone()
            if got is None:
                continue
            (_id, kind, _lc, _rank, _ch, _ts, _utc, size, _ev, actor, stream, _seq, outcome, topics, pathset,
             tokens) = cols
            out.update(self.conn.execute(_ALIKE_SQL, (sid, got[0], actor, kind, size, stream, outcome, topics,
                                                      pathset, tokens)))
        return [mid for _seq, mid in sorted(out)]

    def forget(self) -> None:
        """Drop the memories loaded so far (a command that pages through the whole history keeps
        only what it answers: issue 11)."""
        self._loaded.clear()

    # -- memories from Git, checked against the state --------------------------------------------

    def load(self, ids, infos=None) -> dict[str, VerifiedMemory]:
        """The verified memories of ``ids`` (those in the state), read from Git and re-checked
        (``infos``: what ``info`` gave for some of them already)."""
        want = [i for i in ids if i not in self._loaded]
        given = {i: infos[i] for i in want if i in infos} if infos else {}
        infos = {**given, **self.info([i for i in want if i not in given])}
        if infos:
            sigs: dict[str, str] = {}
            commits = [i.commit for i in infos.values()]
            for part in chunks(commits):
                for c, sig in self.conn.execute(
                        f'SELECT "commit", signature FROM chain WHERE "commit" IN ({marks(len(part))})', part):
                    sigs.setdefault(c, sig)
            order = list(infos.values())
            names = []
            for i in order:
                names += [f"{i.commit}:memory.json", f"{i.commit}:signature"]
            objs = self.repo.git.read_objects(names)
            for n, i in enumerate(order):
                payload, signature = objs[2 * n], objs[2 * n + 1]
                if payload is None or signature is None or payload[0] != "blob" or signature[0] != "blob":
                    raise Corrupt(i.id)
                if "sha256:" + hashing.sha256(payload[1]).hexdigest() != i.id \
                        or signature[1].decode("ascii", "replace") != sigs.get(i.commit):
                    raise Corrupt(i.id)
                try:  # the signature too (§11(d)): a state rewritten with its seal serves no forgery
                    env = chain.check_memory(i.commit, payload[1], signature[1]).envelope
                except ValidationError:
                    raise Corrupt(i.id) from None
                if (env.actor, env.stream, env.sequence, env.operation, env.target, env.timestamp) != \
                        (i.actor, i.stream, i.seq, i.operation, i.target, i.ts):
                    raise Corrupt(i.id)
                self._loaded[i.id] = VerifiedMemory(i.id, i.commit, env, payload[1], sigs[i.commit])
        return {i: self._loaded[i] for i in ids if i in self._loaded}

    def project(self, ids, ctx, resolver, extra=()):
        """``core.projection.project`` over the closure of ``ids`` (plus ``extra`` memories):
        exact for the rows of ``ids``, their relationships and the dependencies they own."""
        ids = set(ids)
        closure = ids | self.targeting(ids) | set(extra)
        first = self.info(closure)
        closure |= {i.target for i in first.values() if i.target}
        mems = self.load(closure, first)
        cited = {e[len("memory:"):] for m in mems.values() if m.envelope.record is not None
                 for e in m.envelope.record.evidence or () if e.startswith("memory:")}
        known = self.present(cited) | set(mems)
        from ..core.projection import project  # not loaded by commands that only append

        proj = project(list(mems.values()), ctx, resolver, known=known)
        stored = self.lifecycles(ids)
        for rid in ids:
            row = proj.rows.get(rid)
            if (row is None) != (rid not in stored) or (row is not None and row.lifecycle.lifecycle != stored[rid]):
                raise Corrupt(rid)
        return proj, mems
