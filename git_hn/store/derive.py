"""Deriving the whole verified state from every stream, a bounded batch at a time (issue 11;
CONTRACT §4.2, §4.3, §11(a)).

Owns: the state's full derivation (the first build, a rebuild, ``index verify``'s re-derivation).
``streams.collect`` returns every verified memory of every stream at once, which
``state.load_collection`` then loads (100,000 memories: ~580 MiB). Here the same verification
runs a stream at a time, ``window`` chain positions of all its sources together, and what
verified goes at once into staging tables in SQLite's temporary file: Python holds the commits
being verified and checked (a few batches of ``batch``), never the history. The state's tables
are then filled from the staging tables in key order, and the lifecycle and memory-evidence
columns set a page of rows at a time by ``state``'s own functions, over what the tables hold
(every memory that targets a row, and what it targets: exactly what decides its class).

Verification is ``collect``'s, step for step: the same batched walk, staging, signature workers
(``verify.Verifier``; signatures the state being replaced vouches for, ``verified``, are not
checked again) and chain rules. A commit several sources reach is verified once. Failures are
``collect``'s too: each source's first failure in chain order, the first failing source in
name order reported; divergent chains only when every chain verified, the first (actor, stream)
in order and its first pair of refs in name order; a memory that several chains hold is stored
under its smallest commit. Trusts: ``streams``, ``verify`` and ``core.chain``, as ``collect``.
"""

from __future__ import annotations

from collections import deque

from ..core import chain, search
from ..core.chain import VerifiedMemory
from ..errors import ValidationError
from . import progress, state, streams, verify
from .repo import Repo
from .state import Totals, marks

BATCH = streams.BATCH  # commits staged together (as ``collect``)
AHEAD = 4  # staged batches handed to the verifier before the oldest is taken
MOST_AHEAD = 16  # staged batches at most, while the oldest is not checked yet (~3 MiB each)
WINDOW = 4096  # chain positions of one stream checked (and held) together
PAGE = 2048  # rows whose derived columns are computed together
CACHE_KIB = 16384  # SQLite's page cache for the new state and the staging tables, each

_STAGING = """
CREATE TEMP TABLE s_chain(sid INTEGER, seq INTEGER, "commit" TEXT, id TEXT, signature TEXT);
CREATE TEMP TABLE s_mem(id TEXT, "commit" TEXT, actor TEXT, stream TEXT, seq INTEGER, operation TEXT,
                        target TEXT, ts TEXT);
CREATE TEMP TABLE s_rows(id TEXT, kind TEXT, lifecycle TEXT, lrank INTEGER, challenged INTEGER, ts TEXT,
                         utc TEXT, size INTEGER, ev_memory TEXT, actor TEXT, stream TEXT, seq INTEGER,
                         outcome TEXT, topics TEXT, pathset TEXT, tokens TEXT, anchor TEXT, mode TEXT,
                         app_subject TEXT, anchor_subject TEXT, paths TEXT, git TEXT, event INTEGER,
                         postings INTEGER, content INTEGER);
CREATE TEMP TABLE s_texts(id TEXT, length INTEGER, seq TEXT);
CREATE TEMP TABLE s_evref(owner TEXT, type TEXT, ref TEXT);
CREATE TEMP TABLE s_topics(topic TEXT, id TEXT);
"""
_KEY = ("anchor", "mode", "app_subject", "anchor_subject", "paths", "git", "event")


class _Failed(Exception):
    """Internal: the collection fails with ``error`` (raised once every step is done)."""


def _silent(_memories: int) -> progress.Work:
    return progress.SILENT


def load(repo: Repo, conn, sources: list[streams.Source], verified: dict | None = None, storing=_silent,
         batch: int = BATCH, window: int = WINDOW, page: int = PAGE) -> Totals:
    """Fill ``conn``'s empty state (``statedb.SCHEMA``) with the verified chains of ``sources``
    (a listing, sorted by ref), as ``state.load_collection(conn, streams.collect(repo, sources,
    verified))`` would, and return its totals; raises what ``collect`` raises. ``storing(n)``
    gives the ``progress.Work`` of storing the ``n`` memories that verified (``progress.storing``)."""
    conn.execute("PRAGMA temp_store=FILE")  # (the staging tables and sorts spill to disk, not RSS)
    conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")  # (SQLite's sorts take as much memory)
    conn.execute(f"PRAGMA temp.cache_size=-{CACHE_KIB}")
    conn.executescript(_STAGING)
    try:
        _verify_into(repo, conn, sources, verified, batch, window)
        work = storing(conn.execute("SELECT count(DISTINCT id) FROM temp.s_mem").fetchone()[0])
        try:
            return _fill(conn, sources, work, page)
        finally:
            work.end()
    finally:
        for name in ("s_chain", "s_mem", "s_rows", "s_texts", "s_evref", "s_topics", "s_aff"):
            conn.execute(f"DROP TABLE IF EXISTS temp.{name}")


# ---------------------------------------------------------------------------------------------
# verifying: collect's pipeline, checked and staged a window of one stream at a time


def _steps(sources, plans, window: int):
    """[(group, [(source index, first position, (commit, tree) of the window)])]: each stream's
    sources (groups in the order of their first source), a window of positions at a time."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(sources):
        groups.setdefault((s.actor, s.stream), []).append(i)
    steps = []
    for key, members in groups.items():
        ok = [i for i in members if not isinstance(plans[i], ValidationError)]
        longest = max((len(plans[i]) for i in ok), default=0)
        for at in range(0, max(longest, 1), window):
            steps.append((key, [(i, at, plans[i][at:at + window]) for i in ok if len(plans[i]) > at]))
    return groups, steps


def _verify_into(repo: Repo, conn, sources, verified, batch: int, window: int) -> None:
    raws: dict = {}
    walks = streams.walk_many(repo, [(s, set()) for s in sources if s.head], raws=raws)
    plans: list = []
    for s in sources:
        w = walks.get(s.ref)
        if not s.head:
            plans.append(ValidationError(f"memory source {s.ref} has no head"))
        elif w.error is not None:
            plans.append(w.error)
        else:
            plans.append(list(reversed(w.commits)))
    del walks
    failures: dict[int, ValidationError] = {i: p for i, p in enumerate(plans) if isinstance(p, ValidationError)}
    groups, steps = _steps(sources, plans, window)
    last: dict[str, int] = {}  # commit -> the last step that needs it
    order: list = []  # every distinct commit, in the order the steps need them
    for n, (_key, parts) in enumerate(steps):
        for _i, _at, part in parts:
            for ct in part:
                if ct[0] not in last:
                    order.append(ct)
                last[ct[0]] = n
    drops: list[list[str]] = [[] for _ in steps]
    for c, n in last.items():
        drops[n].append(c)
    del last
    total = sum(len(p) for p in plans if not isinstance(p, ValidationError))
    verifier = verify.Verifier(total)
    if total >= 256:
        from ..core.canonical import load_fast_codec

        load_fast_codec()
    work = progress.verifying(total, lambda: len(order))
    pending: deque = deque()
    fed = [0]
    results: dict[str, object] = {}  # commit -> VerifiedMemory or ValidationError, until its last step

    def submit() -> None:
        part = order[fed[0]:fed[0] + batch]
        fed[0] += len(part)
        staged, checks = verify.stage_batch(repo, part, raws, verified)
        pending.append((part, staged, verifier.submit(checks)))
        work.advance(len(part))

    def take() -> None:
        # while the workers have not checked the oldest batch, the next ones are staged (reading
        # from Git lets the threads that feed them run), up to ``MOST_AHEAD``
        while fed[0] < len(order) and (len(pending) <= AHEAD or (
                len(pending) < MOST_AHEAD and not verify.Verifier.ready(pending[0][2]))):
            submit()
        part, staged, ticket = pending.popleft()
        for (c, _t), item, ok in zip(part, staged, verify.Verifier.results(ticket)):
            try:
                results[c] = verify.finish_commit(c, item, ok)
            except ValidationError as exc:
                results[c] = exc
        work.advance(len(part))

    prev: dict[int, VerifiedMemory] = {}  # source index -> its memory before the window
    ids: dict[int, list[str]] = {}  # (several sources of a stream) source index -> the window's IDs
    differ: dict[tuple[int, int], int] = {}  # (a, b) of one stream -> their first differing position
    emitted: set[str] = set()  # commits whose memory is staged (dropped with the commit)
    out = _Out(conn)
    try:
        for n, (key, parts) in enumerate(steps):
            ids.clear()
            for i, at, part in parts:
                first = min(failures, default=None)
                if i in failures or (first is not None and i > first):
                    continue  # (a later source's failure would never be the one reported)
                src = sources[i]
                got = ids[i] = []
                for k, (c, _t) in enumerate(part, at):
                    while c not in results:
                        take()
                    mem = results[c]
                    try:
                        if isinstance(mem, ValidationError):
                            raise streams.invalid_source(repo, src.ref, f"memory source {src.ref}: {mem.message}")
                        try:
                            chain.check_link(src.ref, src.actor, src.stream, k, mem, prev.get(i))
                        except ValidationError as exc:
                            raise streams.invalid_source(repo, src.ref, exc.message) from None
                    except ValidationError as exc:
                        failures[i] = exc
                        break
                    prev[i] = mem
                    got.append(mem.memory_id)
                    out.link(i + 1, k + 1, mem)
                    if c not in emitted:
                        emitted.add(c)
                        out.memory(mem)
            if len(groups[key]) > 1 and not failures:
                _compare(parts, ids, differ)
            for c in drops[n]:
                results.pop(c, None)
                emitted.discard(c)
            if out.size >= batch:
                out.flush()
        out.flush()
        while pending:  # (every batch is taken: a worker is never left holding one)
            pending.popleft()
    finally:
        work.end()
        verifier.close()
    if failures:
        raise failures[min(failures)]
    for key in sorted(groups):
        members = groups[key]
        for x, a in enumerate(members):
            for b in members[x + 1:]:
                if (a, b) in differ:
                    pos = differ[(a, b)]
                    same = ["="] * pos
                    chain.check_prefix_consistent({sources[a].ref: same + ["a"], sources[b].ref: same + ["b"]},
                                                  *key)


def _compare(parts, ids: dict, differ: dict) -> None:
    """Note, for each pair of a stream's sources, the first position where their IDs differ."""
    starts = {i: at for i, at, _part in parts}
    members = sorted(i for i in ids)
    for x, a in enumerate(members):
        for b in members[x + 1:]:
            if (a, b) in differ:
                continue
            ca, cb = ids[a], ids[b]
            for k in range(min(len(ca), len(cb))):
                if ca[k] != cb[k]:
                    differ[(a, b)] = starts[a] + k
                    break


class _Out:
    """What verified, staged in the temporary tables a step at a time."""

    def __init__(self, conn):
        self.conn = conn
        self.chain: list = []
        self.mems: list = []
        self.rows: list = []
        self.texts: list = []
        self.evref: list = []
        self.topics: list = []

    @property
    def size(self) -> int:
        return len(self.chain) + len(self.mems)

    def link(self, sid: int, seq: int, m: VerifiedMemory) -> None:
        self.chain.append((sid, seq, m.commit, m.memory_id, m.signature))

    def memory(self, m: VerifiedMemory) -> None:
        env = m.envelope
        self.mems.append((m.memory_id, m.commit, env.actor, env.stream, env.sequence, env.operation,
                          env.target, env.timestamp))
        if env.operation not in state.ROW_OPS or env.record is None:
            return
        cols, key, evrefs, n_tokens, seq = state.row_columns(m)
        self.rows.append(cols + key + (n_tokens, len(env.record.content)))
        self.texts.append((m.memory_id, len(seq), search.wrap(seq)))
        self.evref += [(m.memory_id, typ, ref) for typ, ref in evrefs]
        self.topics += [(t, m.memory_id) for t in cols[13].split("\n") if t]

    def flush(self) -> None:
        if not self.chain:
            return
        self.conn.execute("BEGIN")  # (one transaction: a statement each costs a journal each)
        try:
            for table, items, n in (("s_chain", self.chain, 5), ("s_mem", self.mems, 8),
                                    ("s_rows", self.rows, 25), ("s_texts", self.texts, 3),
                                    ("s_evref", self.evref, 3), ("s_topics", self.topics, 2)):
                if items:
                    self.conn.executemany(f"INSERT INTO temp.{table} VALUES ({marks(n)})", items)
                    items.clear()
            self.conn.execute("COMMIT")
        except BaseException:
            state.rollback(self.conn)
            raise


# ---------------------------------------------------------------------------------------------
# filling the state from the staging tables (one transaction)


def _fill(conn, sources, work: progress.Work, page: int) -> Totals:
    lengths = dict(conn.execute("SELECT sid, max(seq) FROM temp.s_chain GROUP BY sid"))
    conn.execute("BEGIN")
    try:
        state.insert_many(conn, "sources", marks(6), [(sid, s.ref, s.head, s.actor, s.stream, lengths.get(sid, 0))
                                                      for sid, s in enumerate(sources, 1)])
        _bulk(conn, "chain", 'SELECT sid, seq, "commit", id, signature FROM temp.s_chain ORDER BY sid, seq')
        work.advance(1)
        # a memory several chains hold: under its smallest commit (``min``'s row gives the others,
        # which are the same: they are the payload's)
        _bulk(conn, "memories", 'SELECT id, min("commit"), actor, stream, seq, operation, target, ts '
                                "FROM temp.s_mem GROUP BY id ORDER BY id")
        # the anchor/evidence keys numbered as ``state.insert_memories`` numbers them: in the
        # order of the first row of each, rows ordered by (actor, stream, sequence, ID) (actors,
        # streams and IDs are fixed-length ASCII: the text compares as the tuple)
        keys = ", ".join(_KEY)
        conn.execute(f"INSERT INTO akeys({keys}) SELECT {keys} FROM temp.s_rows GROUP BY {keys} "
                     "ORDER BY min(actor || ' ' || stream || ' ' || printf('%020d', seq) || ' ' || id)")
        on = " AND ".join(f"a.{k} = s.{k}" for k in _KEY)
        _bulk(conn, "rows", "SELECT s.id, s.kind, s.lifecycle, s.lrank, s.challenged, s.ts, s.utc, s.size, a.akey, "
                            "s.ev_memory, s.actor, s.stream, s.seq, s.outcome, s.topics, s.pathset, s.tokens "
                            "FROM (SELECT min(rowid) AS r FROM temp.s_rows GROUP BY id ORDER BY id) k "
                            f"CROSS JOIN temp.s_rows s ON s.rowid = k.r JOIN akeys a ON {on}")
        # (the rows' keys sorted, then each row read by its place: a sort of whole rows spills them all)
        _bulk(conn, "texts", "SELECT s.id, s.length, s.seq FROM (SELECT min(rowid) AS r FROM temp.s_texts GROUP BY id "
                             "ORDER BY id) k CROSS JOIN temp.s_texts s ON s.rowid = k.r")
        _bulk(conn, "evref", "SELECT DISTINCT owner, type, ref FROM temp.s_evref ORDER BY owner, type, ref")
        _bulk(conn, "topics", "SELECT DISTINCT topic, id FROM temp.s_topics ORDER BY topic, id")
        rows, postings, content = conn.execute(
            "SELECT count(*), total(postings), total(content) FROM (SELECT postings, content FROM temp.s_rows "
            "GROUP BY id)").fetchone()
        work.advance(2)
        # a row keeps ``FRESH_LIFECYCLE`` unless it is targeted or a supersede (``state.derive``)
        conn.execute("CREATE TEMP TABLE s_aff AS SELECT id FROM memories WHERE operation = 'supersede' "
                     "UNION SELECT target FROM memories WHERE target != ''")
        for ids in _pages(conn, "SELECT id FROM temp.s_aff WHERE rowid > ? ORDER BY rowid LIMIT ?", page, True):
            state.update_lifecycles(conn, ids, fresh=ids)
        work.advance(1)
        for ids in _pages(conn, "SELECT DISTINCT owner FROM evref WHERE type = 'memory' AND owner > ? "
                                "ORDER BY owner LIMIT ?", page):
            state.update_evidence(conn, ids, fresh=ids)
        work.advance(1)
        conn.execute("COMMIT")
    except BaseException:
        state.rollback(conn)
        raise
    return Totals(rows, int(postings), int(content))


def _pages(conn, sql: str, page: int, by_rowid: bool = False):
    """Sets of at most ``page`` values of ``sql`` (``? > last`` seeks past the previous page)."""
    last: object = 0 if by_rowid else ""
    while True:
        got = conn.execute(sql.replace("SELECT id", "SELECT rowid, id") if by_rowid else sql,
                           (last, page)).fetchall()
        if not got:
            return
        last = got[-1][0]
        yield {r[-1] for r in got}


def _bulk(conn, table: str, select: str) -> None:
    """``INSERT INTO table`` the rows of ``select`` (in the table's key order), the table's
    secondary indexes dropped first and built again after (``state.insert_many``'s bulk way)."""
    indexes = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
                           "AND sql IS NOT NULL ORDER BY name", (table,)).fetchall()
    for name, _sql in indexes:
        conn.execute(f'DROP INDEX "{name}"')
    conn.execute(f"INSERT INTO {table} {select}")
    for _name, sql in indexes:
        conn.execute(sql)


# ---------------------------------------------------------------------------------------------
# the export's rows, from a state a page at a time


def index_rows(repo: Repo, conn, ctx, resolver, page: int | None = None):
    """The §8.2 index rows (``projection.row_index_json``) of every row of ``conn``'s state,
    sorted by ID: each page of rows projected with its closure (every memory that targets one,
    and what they target, as ``stateview.View.project``), whose payloads are read from Git by
    the commits the state recorded and must hash to their IDs (the state was just derived from
    them, every signature verified)."""
    from ..core.projection import project, row_index_json

    page = page or PAGE
    out = []
    last = ""
    while True:
        ids = [r[0] for r in conn.execute("SELECT id FROM rows WHERE id > ? ORDER BY id LIMIT ?", (last, page))]
        if not ids:
            return out
        last = ids[-1]
        closure = set(ids)
        for part in state.chunks(ids):
            closure.update(r[0] for r in conn.execute(state.targeting_sql(len(part)), part))
        targets = set()
        for part in state.chunks(closure):
            targets.update(r[0] for r in conn.execute(
                f"SELECT target FROM memories WHERE id IN ({marks(len(part))}) AND target != ''", part))
        closure |= targets
        mems = _memories(repo, conn, closure)
        cited = {e[len("memory:"):] for m in mems.values() if m.envelope.record is not None
                 for e in m.envelope.record.evidence or () if e.startswith("memory:")}
        known = set(mems)
        for part in state.chunks(cited - known):
            known.update(r[0] for r in conn.execute(f"SELECT id FROM memories WHERE id IN ({marks(len(part))})", part))
        resolver.prefetch_types({m.envelope.record.anchor.commit for m in mems.values()
                                 if m.envelope.record is not None})
        proj = project(list(mems.values()), ctx, resolver, known=known)
        out += [row_index_json(proj.rows[i]) for i in ids]


def _memories(repo: Repo, conn, ids) -> dict[str, VerifiedMemory]:
    """The memories ``ids`` the state holds, their payloads read from Git (each must hash to its
    ID: the bytes that verified) and decoded."""
    from ..core import hashing
    from ..core.envelope import decode

    rows = []
    for part in state.chunks(ids):
        rows += conn.execute(f'SELECT m.id, m."commit", c.signature FROM memories m JOIN chain c ON c."commit" = '
                             f'm."commit" AND c.id = m.id WHERE m.id IN ({marks(len(part))}) GROUP BY m.id',
                             part).fetchall()
    objs = repo.git.read_objects([f"{c}:memory.json" for _i, c, _s in rows])
    out = {}
    for (mid, commit, sig), obj in zip(rows, objs):
        if obj is None or obj[0] != "blob" or "sha256:" + hashing.sha256(obj[1]).hexdigest() != mid:
            raise ValidationError(f"memory {mid} is unreadable or damaged in Git (its payload does not hash to its "
                                  "ID); git fsck names the damaged objects")
        out[mid] = VerifiedMemory(mid, commit, decode(obj[1]), obj[1], sig)
    return out
