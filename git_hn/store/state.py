"""The verified memory state, kept current from what changed (issue 11; CONTRACT §4.3, §5).

Owns the contents of ``state-v0.sqlite`` (the file itself is ``statedb``'s): for every source
ref the tip it was verified at and its verified chain, every verified memory once, and the
context-free part of the projection that the read commands filter and order on (lifecycle
classes, the memory-evidence status, the anchor and evidence keys, tokens), and each row's token
sequence (``texts``: what recall's phrases and relevance order read, ``core.search``). Git is the
source of truth; this is a cache of it, like Git's own commit-graph.

The invariant: the state is exactly what a full collection of its recorded tips gives. It moves
from tips to tips by verifying only commits it has not verified before: a ref that moved forward
costs its new commits; a ref that was rewound, replaced or rewritten is re-read down to the first
commit some verified chain already holds (commits are immutable, so everything below it was
verified with it); a deleted ref drops what only it held. The derived columns of the rows those
changes can touch (the changed memories, what they target, what targets them, what cites them)
are recomputed with the same pure functions a full projection uses.

Trusts: ``streams`` and ``core.chain`` for every new commit; its own file only after ``statedb``
checked the seal, version and checker. Any failure while updating is not answered from here:
the caller runs the full collection, which reports the first failure exactly as it always has,
and the state keeps its previous (still consistent) tips.
"""

from __future__ import annotations

from _operator import itemgetter  # (the C module ``operator`` re-exports: not its ~0.5 M instructions)

from ..core import search
from ..core.chain import VerifiedMemory, check_link
from ..core.projection import LIFECYCLE_RANK, Node, graph_of
from ..core.tuples import NamedTuple
from ..errors import ValidationError
from . import insertion, progress, statedb, streams, suffix_walk, touched, verify
from .rowcolumns import FRESH_EVIDENCE, FRESH_LIFECYCLE, row_columns
from .repo import Repo

CHUNK = 900  # bound parameters per SQL statement (SQLite's historic limit is 999)
ROW_OPS = ("record", "supersede")


class Totals(NamedTuple):
    """Sizes of the rows loaded: their count, §7.9 tokens and content characters (what the
    export's size is bounded from below by)."""

    rows: int
    postings: int
    content: int


class Stored(NamedTuple):
    sid: int
    head: str
    actor: str
    stream: str
    length: int


class Change(NamedTuple):
    """One source's move: its chain becomes ``base`` (a verified chain's first ``base_seq``
    entries, or nothing) followed by ``new`` (verified now, root first)."""

    source: streams.Source
    old: Stored | None
    base_sid: int | None
    base_seq: int
    new: list  # VerifiedMemory, root first


def chunks(items, n: int = CHUNK):
    items = list(items)
    for i in range(0, len(items), n):
        yield items[i:i + n]


def marks(n: int) -> str:
    return ",".join("?" * n)


SCOPE_QUERIES = 64  # streams asked about one query each; a larger scope reads the table once


def stored_sources(conn, scope: set | None = None) -> dict[str, Stored]:
    """Every recorded source, or (``scope``, a set of (actor, stream)) those streams' only: one
    indexed query per stream for a few, one pass over the table for many (a publication of
    10,000 streams asked 10,000 queries)."""
    sql = "SELECT ref, sid, head, actor, stream, length FROM sources"
    if scope is None:
        rows = conn.execute(sql)
    elif len(scope) > SCOPE_QUERIES:
        rows = [r for r in conn.execute(sql) if (r[3], r[4]) in scope]
    else:
        rows = [r for actor, stream in scope
                for r in conn.execute(sql + " WHERE actor = ? AND stream = ?", (actor, stream))]
    return {ref: Stored(sid, head, actor, stream, length) for ref, sid, head, actor, stream, length in rows}


def is_current(conn, listing: list[streams.Source]) -> bool:
    stored = stored_sources(conn)
    if len(stored) != len(listing):
        return False
    for src in listing:
        s = stored.get(src.ref)
        if s is None or s.head != src.head:
            return False
    return True


# ---------------------------------------------------------------------------------------------
# planning: find and verify what is new (no write happens here)


def in_scope(scope, actor: str, stream: str) -> bool:
    return scope is None or (actor, stream) in scope


def plan(repo: Repo, conn, listing: list[streams.Source], scope: set | None = None):
    """(changes, removed refs) that bring the recorded tips to ``listing``; with ``scope`` (a set
    of (actor, stream)), only for those streams' refs. Every new commit is verified here; a
    failure raises ``ValidationError``."""
    stored = stored_sources(conn, scope)
    now = {s.ref for s in listing}
    removed = [ref for ref, st in stored.items()
               if ref not in now and in_scope(scope, st.actor, st.stream)]
    todo = []
    for src in listing:
        if not in_scope(scope, src.actor, src.stream):
            continue
        old = stored.get(src.ref)
        if old is None or old.head != src.head:
            todo.append((src, old))
    if len(todo) >= PLAN_MANY:
        return _changes_many(repo, conn, todo), removed
    return [_change(repo, conn, src, old) for src, old in todo], removed


PLAN_MANY = 64  # changed sources from which ``plan`` walks and verifies them together


def _changes_many(repo: Repo, conn, todo: list) -> list[Change]:
    """``_change`` of many (source, stored) pairs at once: one batched walk of them all
    (``streams.walk_many``: a moved ref down to its recorded tip, any other to its root) and one
    verification pipeline (``verify.verify_many``), where ``_change`` starts a ``git log`` and
    verifies inline per source (10,000 streams fetched by hand: a process each). A source that
    is anything else than a forward move or a new chain that verifies (a rewind, a failure of
    any kind) goes through ``_change`` itself, in listing order, so what it finds or raises is
    exactly what it always was."""
    def forward(src, old) -> bool:
        return old is not None and (old.actor, old.stream) == (src.actor, src.stream)

    raws: dict = {}
    walks = streams.walk_many(repo, [(src, {old.head} if forward(src, old) else set())
                                     for src, old in todo if src.head], raws=raws)
    planned: dict[str, tuple] = {}  # ref -> (new commits head first, base or None)
    fresh: dict[str, list] = {}  # ref -> a whole chain, head first, to cut at the first known commit
    for src, old in todo:
        w = walks.get(src.ref)
        if w is None or w.error is not None:
            continue
        if forward(src, old):
            if w.stopped == old.head:
                planned[src.ref] = (w.commits, (old.sid, old.length))
        elif not w.stopped:
            fresh[src.ref] = w.commits
    known = known_commits(conn, [c for commits in fresh.values() for c, _t in commits])
    for ref, commits in fresh.items():
        at = next((i for i, (c, _t) in enumerate(commits) if c in known), None)
        planned[ref] = (commits, None) if at is None else (commits[:at], known[commits[at][0]][:2])
    read = {c: (o[0], len(o[1]), o[1]) for c, o in raws.items()
            if o is not None and len(o[1]) <= verify.MAX_COMMIT_BYTES}
    checked = verify.verify_many(repo, [(ref, list(reversed(walked))) for ref, (walked, _base) in planned.items()
                                        if walked], read)
    changes = []
    for src, old in todo:
        got = planned.get(src.ref)
        new = checked.get(src.ref, []) if got is not None else None
        if new is None or isinstance(new, ValidationError):
            changes.append(_change(repo, conn, src, old))
        else:
            changes.append(_linked(conn, src, old, got[1], new))
    return changes


def known_commits(conn, commits: list[str]) -> dict[str, tuple[int, int, str]]:
    """commit -> (sid, seq, memory ID) for the given commits that some verified chain holds."""
    out: dict = {}
    for part in chunks(commits):
        for c, sid, seq, mid in conn.execute(
                f'SELECT "commit", sid, seq, id FROM chain WHERE "commit" IN ({marks(len(part))})', part):
            out.setdefault(c, (sid, seq, mid))
    return out


def _change(repo: Repo, conn, src: streams.Source, old: Stored | None) -> Change:
    if not src.head:
        raise ValidationError(f"memory source {src.ref} has no head")
    walked = None
    if old is not None and (old.actor, old.stream) == (src.actor, src.stream):
        walked = _walk_forward(repo, src, old.head)
        if walked is not None:
            base = (old.sid, old.length)
    if walked is None:  # (rewritten above a known commit: its new commits only, ``suffix_walk``)
        walked, base = suffix_walk.walk_rewritten(repo, conn, src, old, known_commits) or _walk_to_known(repo, conn, src)
    new = verify.verify_commits(repo, src.ref, list(reversed(walked))) if walked else []
    return _linked(conn, src, old, base, new)


def _linked(conn, src: streams.Source, old: Stored | None, base, new: list) -> Change:
    """The change of ``src`` to ``base`` ((sid, seq) of a verified chain, or None) followed by
    ``new`` (verified now, root first), once its links are checked."""
    base_sid, base_seq = base if base else (None, 0)
    prev = None
    if base_sid is not None:
        row = conn.execute("SELECT c.id, m.actor, m.stream FROM chain c JOIN memories m ON m.id = c.id "
                           "WHERE c.sid = ? AND c.seq = ?", (base_sid, base_seq)).fetchone()
        if row is None or (row[1], row[2]) != (src.actor, src.stream):
            raise ValidationError(f"memory source {src.ref} continues another stream")
        prev = VerifiedMemory(row[0], "", None, b"", "")
    for i, mem in enumerate(new, base_seq):
        check_link(src.ref, src.actor, src.stream, i, mem, prev)
        prev = mem
    return Change(src, old, base_sid, base_seq, new)


def _walk_forward(repo: Repo, src: streams.Source, old_head: str) -> list | None:
    """(commit, tree) from the head down to ``old_head`` (exclusive), when the head descends
    from it through single parents; else None. One ``git log`` lists the commits; the raw
    parent headers it reports are checked link by link, as in ``streams.walk``."""
    import os

    if any(os.path.exists(os.path.join(repo.common_dir, p)) for p in ("info/grafts", "shallow")):
        return _raw_walk(repo, src, {old_head})
    proc = repo.git.run(["-c", "core.commitGraph=false", "log", "--no-show-signature", "--no-color",
                         "--first-parent", "--format=%H %T %P", "--end-of-options", src.head,
                         "^" + old_head, "--"])
    if proc.returncode != 0:
        return None
    n = repo.oid_hex_len
    lines = proc.stdout.decode("ascii", "replace").splitlines()
    out = []
    for i, line in enumerate(lines):
        parts = line.split(" ")
        if len(parts) != 3 or len(parts[0]) != n or len(parts[1]) != n:
            return None  # a root or a merge: not a forward move
        expected = lines[i + 1][:n] if i + 1 < len(lines) else old_head
        if parts[2] != expected:
            return None
        out.append((parts[0], parts[1]))
    if not out or out[0][0] != src.head:
        return None
    return out


def _raw_walk(repo: Repo, src: streams.Source, stops: set[str]) -> list | None:
    out = []
    commit = src.head
    while commit:
        if commit in stops:
            return out
        tree, parent = streams.parse_link(src.ref, commit, repo.git.read_object(commit))
        out.append((commit, tree))
        commit = parent
    return None


def _walk_to_known(repo: Repo, conn, src: streams.Source):
    """(new commits head first, (sid, seq) of the first commit a verified chain holds, or None
    when the walk reached the root)."""
    hit = known_commits(conn, [src.head]).get(src.head)
    if hit is not None:
        return [], (hit[0], hit[1])
    walked = streams.walk(repo, src)  # head first, to the root (hinted when provably equal)
    known = known_commits(conn, [c for c, _t in walked])
    for i, (commit, _tree) in enumerate(walked):
        hit = known.get(commit)
        if hit is not None:
            return walked[:i], (hit[0], hit[1])
    return walked, None


# ---------------------------------------------------------------------------------------------
# applying a plan (one transaction; everything was verified before it starts)


def apply(conn, changes: list[Change], removed: list[str], commit: bool = True) -> None:
    """Move the recorded tips (one transaction). With ``commit`` False the transaction is left
    open for the caller to ``COMMIT`` or ``ROLLBACK`` (a promotion commits it only once its ref
    transaction succeeded); a failure always rolls it back."""
    stored = {}
    if removed:
        for part in chunks(removed):
            for ref, sid, head, actor, stream, length in conn.execute(
                    f"SELECT ref, sid, head, actor, stream, length FROM sources WHERE ref IN ({marks(len(part))})",
                    part):
                stored[ref] = Stored(sid, head, actor, stream, length)
    gone_ids: set[str] = set()  # memories some chain no longer holds (they may still be held)
    new_mems: dict[str, VerifiedMemory] = {}
    conn.execute("BEGIN")
    try:
        # the verified prefixes other chains lend, as they are before anything changes (the table
        # only when one does: a sync of new streams lends nothing, and creating it cost ~50 us)
        lenders = [ch for ch in changes if ch.base_sid is not None
                   and ch.base_sid != (ch.old.sid if ch.old is not None else None)]
        if lenders:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS lent(dest TEXT, seq INTEGER, \"commit\" TEXT, "
                         "id TEXT, signature TEXT)")
            conn.execute("DELETE FROM lent")
        for ch in lenders:
            conn.execute("INSERT INTO lent SELECT ?, seq, \"commit\", id, signature FROM chain "
                         "WHERE sid = ? AND seq <= ?", (ch.source.ref, ch.base_sid, ch.base_seq))
        for ref in removed:
            sid = stored[ref].sid
            gone_ids.update(r[0] for r in conn.execute("SELECT id FROM chain WHERE sid = ?", (sid,)))
            conn.execute("DELETE FROM chain WHERE sid = ?", (sid,))
            conn.execute("DELETE FROM sources WHERE sid = ?", (sid,))
        # new sources and every chain's new links are inserted together after the loop (one
        # statement each, in key order: 10,000 streams synced at once made 20,000 statements)
        new_sources: list[tuple] = []
        links: list[tuple] = []
        next_sid = None
        for ch in changes:
            src, old = ch.source, ch.old
            length = ch.base_seq + len(ch.new)
            if old is None:
                if next_sid is None:  # what SQLite would give: one past the largest
                    next_sid = (conn.execute("SELECT max(sid) FROM sources").fetchone()[0] or 0) + 1
                sid, next_sid = next_sid, next_sid + 1
                new_sources.append((sid, src.ref, src.head, src.actor, src.stream, length))
            else:
                sid = old.sid
                conn.execute("UPDATE sources SET head = ?, actor = ?, stream = ?, length = ? WHERE sid = ?",
                             (src.head, src.actor, src.stream, length, sid))
            if old is not None and not (ch.base_sid == sid and ch.base_seq == old.length):
                # rewound, replaced or rewritten: keep what the new chain shares, drop the rest
                keep = ch.base_seq if ch.base_sid == sid else 0
                gone_ids.update(r[0] for r in conn.execute(
                    "SELECT id FROM chain WHERE sid = ? AND seq > ?", (sid, keep)))
                conn.execute("DELETE FROM chain WHERE sid = ? AND seq > ?", (sid, keep))
            if ch.base_sid is not None and ch.base_sid != (old.sid if old is not None else None):
                conn.execute("INSERT INTO chain SELECT ?, seq, \"commit\", id, signature FROM lent "
                             "WHERE dest = ?", (sid, src.ref))
            links += [(sid, i, m.commit, m.memory_id, m.signature) for i, m in enumerate(ch.new, ch.base_seq + 1)]
            for m in ch.new:
                have = new_mems.get(m.memory_id)
                if have is None or m.commit < have.commit:
                    new_mems[m.memory_id] = m
        insert_many(conn, "sources", marks(6), new_sources)
        links.sort()  # by (sid, seq): unique, so nothing past them is compared
        insert_many(conn, "chain", marks(5), links)
        check_agreement(conn, changes)
        _memories(conn, new_mems, gone_ids)
        if commit:
            conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise


def rollback(conn) -> None:
    """End a failed transaction, its error still the one raised: after some (``database or disk is
    full``) SQLite rolled back itself, and a ``ROLLBACK`` raised "no transaction is active"."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except Exception:  # noqa: BLE001 - (a failed rollback says less than the error being raised)
        pass


def check_agreement(conn, changes: list[Change]) -> None:
    """§11(a) item 2 for every stream a change touched: all its chains agree at every common
    sequence. Positions up to a change's verified base were agreed before; only those above are
    compared, each chain against the stream's longest (pairwise agreement follows)."""
    low: dict[tuple[str, str], int] = {}
    for ch in changes:
        key = (ch.source.actor, ch.source.stream)
        low[key] = min(low.get(key, ch.base_seq), ch.base_seq)
    # (only a stream more than one chain holds can disagree: many, an eighth of the table, ask it at once)
    many = len(low) > SCOPE_QUERIES and 8 * len(low) >= conn.execute("SELECT max(sid) FROM sources").fetchone()[0]
    shared = low if not many else set(conn.execute(
        "SELECT actor, stream FROM sources GROUP BY actor, stream HAVING count(*) > 1"))
    for (actor, stream), above in [(key, above) for key, above in low.items() if key in shared]:
        group = conn.execute("SELECT sid, length FROM sources WHERE actor = ? AND stream = ? "
                             "ORDER BY length DESC, ref", (actor, stream)).fetchall()
        longest = group[0][0]
        for sid, _length in group[1:]:
            if conn.execute("SELECT 1 FROM chain x JOIN chain y ON y.sid = ? AND y.seq = x.seq "
                            "WHERE x.sid = ? AND x.seq > ? AND x.id != y.id LIMIT 1",
                            (longest, sid, above)).fetchone():
                raise ValidationError(f"memory stream {stream} of actor {actor} has divergent chains")


def _memories(conn, new_mems: dict[str, VerifiedMemory], gone_ids: set[str]) -> None:
    """Bring ``memories`` (and what derives from them) to the chains as they now are."""
    existing = set()  # (none in an empty table: a first sync's 20,000 IDs were 23 statements, ~12 ms)
    for part in chunks(new_mems if conn.execute("SELECT 1 FROM memories LIMIT 1").fetchone() else ()):
        existing.update(r[0] for r in conn.execute(
            f"SELECT id FROM memories WHERE id IN ({marks(len(part))})", part))
    added = {mid: m for mid, m in new_mems.items() if mid not in existing}
    # a memory also held by another chain stays, under its smallest commit (§4.3 step 5)
    check = (gone_ids | set(new_mems)) - set(added)
    removed: dict[str, str] = {}  # id -> its target, for the lifecycle update
    for part in chunks(check):
        held = dict(conn.execute(f'SELECT id, min("commit") FROM chain WHERE id IN ({marks(len(part))}) '
                                 "GROUP BY id", part).fetchall())
        for mid in part:
            if mid in held:
                conn.execute('UPDATE memories SET "commit" = ? WHERE id = ?', (held[mid], mid))
            else:
                row = conn.execute("SELECT target FROM memories WHERE id = ?", (mid,)).fetchone()
                if row is not None:
                    removed[mid] = row[0]
    for part in chunks(removed):
        for table, column in statedb.BY_MEMORY:
            conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks(len(part))})", part)
    insertion.insert_in_parts(conn, list(added.values()), insert_memories, BULK_ROWS)
    derive(conn, added, removed)


def insert_memories(conn, mems: list[VerifiedMemory]) -> Totals:
    """Insert verified memories that are not in the state yet, with their row columns (the
    lifecycle and memory-evidence columns are set by ``derive``)."""
    # every table is inserted into in key order: a B-tree filled at random positions splits and rewrites pages
    # (10,000 rows: about twice the time); ``topics`` holds each topic of a row, which ``recall --topic`` seeks
    insert_many(conn, "memories", marks(8),
                sorted([(m.memory_id, m.commit, m.envelope.actor, m.envelope.stream, m.envelope.sequence,
                         m.envelope.operation, m.envelope.target, m.envelope.timestamp) for m in mems],
                       key=itemgetter(0)))  # (IDs are unique: the tuples' order, at less cost)
    akeys: dict[tuple, int] = {}
    rows, refs, texts = [], [], []
    postings = content = 0
    for m in mems:
        env = m.envelope
        if env.operation not in ROW_OPS or env.record is None:
            continue
        cols, key, evrefs, n_tokens, seq = row_columns(m)
        texts.append((m.memory_id, len(seq), search.wrap(seq)))
        postings += n_tokens
        content += len(env.record.content)
        akey = akeys.get(key)
        if akey is None:
            got = conn.execute("SELECT akey FROM akeys WHERE anchor = ? AND mode = ? AND app_subject = ? "
                               "AND anchor_subject = ? AND paths = ? AND git = ? AND event = ?", key).fetchone()
            akey = got[0] if got else conn.execute(
                "INSERT INTO akeys(anchor, mode, app_subject, anchor_subject, paths, git, event) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", key).lastrowid
            akeys[key] = akey
        rows.append(cols[:8] + (akey,) + cols[8:])
        refs += [(m.memory_id, typ, ref) for typ, ref in evrefs]
    rows.sort(key=itemgetter(0))
    texts.sort(key=itemgetter(0))
    refs.sort()
    insert_many(conn, "rows", marks(17), rows)
    insert_many(conn, "texts", marks(3), texts)
    insert_many(conn, "evref", marks(3), refs, verb="INSERT OR IGNORE")
    insert_many(conn, "topics", marks(2), sorted({(t, r[0]) for r in rows for t in r[14].split("\n") if t}))
    return Totals(len(rows), postings, content)


BULK_ROWS = 2048  # rows from which an insert may rebuild its table's indexes (``insert_many``)


def insert_many(conn, table: str, placeholders: str, rows: list, verb: str = "INSERT",
                bulk_from: int | None = None) -> None:
    """Insert ``rows`` into ``table`` (inside the caller's transaction). At least ``bulk_from``
    rows, and at least as many as the table holds (a first sync of a long stream, a state built
    from scratch), are inserted with the table's secondary indexes dropped and then created
    again from their own definitions: SQLite builds an index from sorted keys at once, where
    each row inserted otherwise updates every index at its own place (one 10,000-memory stream's
    chain, memories, rows and texts into an empty state: 670 → 460 ms here). A failure rolls the
    whole transaction back, indexes included."""
    if not rows:
        return
    indexes = []
    bulk_from = (insertion.parted() or BULK_ROWS) if bulk_from is None else bulk_from
    if len(rows) >= bulk_from and len(rows) >= conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]:
        indexes = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
                               "AND sql IS NOT NULL ORDER BY name", (table,)).fetchall()
    for name, _sql in indexes:
        conn.execute(f'DROP INDEX "{name}"')
    insertion.insert_rows(conn, f"{verb} INTO {table}", placeholders, rows)
    for _name, sql in indexes:
        conn.execute(sql)


def derive(conn, added: dict[str, VerifiedMemory], removed: dict[str, str], all_rows: bool = False) -> None:
    """Recompute the lifecycle and memory-evidence columns of every row the change can touch
    (the rows of ``added`` were just inserted with the ``FRESH_*`` values)."""
    delta = set(added) | set(removed)
    if not delta:
        return
    # a new row keeps FRESH_LIFECYCLE (what ``graph_of`` gives a row nothing targets) unless something targets it
    # or it is a supersede (its class depends on its target): those, the targets of what changed and what targets
    # it are recomputed
    affected = {mid for mid, m in added.items() if m.envelope.operation == "supersede"}
    affected |= {m.envelope.target for m in added.values() if m.envelope.target}
    affected |= {t for t in removed.values() if t}
    for mid, target in touched.targeting(conn, delta, targeting_sql):
        affected.add(mid)
        affected.add(target)
    # likewise FRESH_EVIDENCE ("") for a new row without ``memory:`` evidence, unless it is cited
    cites = {mid for mid, m in added.items() if m.envelope.operation in ROW_OPS and m.envelope.record is not None
             and any(e.startswith("memory:") for e in m.envelope.record.evidence or ())}
    cites.update(touched.citing(conn, delta))
    update_lifecycles(conn, affected, fresh=added)
    update_evidence(conn, cites, fresh=added)


def targeting_sql(n: int, columns: str = "id") -> str:
    """The memories that target one of ``n`` IDs. ``target != ''`` lets SQLite use the partial
    index ``memories_target`` (an ``IN`` list alone does not imply the index's condition: each
    query would scan every memory, a cost that grows with history on every write)."""
    return f"SELECT {columns} FROM memories WHERE target IN ({marks(n)}) AND target != ''"


def nodes(conn, ids) -> dict[str, Node]:
    out = {}
    for part in chunks(ids):
        for mid, op, target, actor, stream in conn.execute(
                f"SELECT id, operation, target, actor, stream FROM memories WHERE id IN ({marks(len(part))})",
                part):
            out[mid] = Node(mid, op, target, actor, stream, op in ROW_OPS)
    return out


def closure(conn, ids: set[str]) -> dict[str, Node]:
    """Nodes of ``ids``, of every memory that targets one of them, and of every memory they
    target: enough for ``graph_of`` to decide their lifecycles exactly (see ``project``)."""
    got = nodes(conn, ids)
    more: set[str] = set()
    for part in chunks(ids):
        more.update(r[0] for r in conn.execute(
            targeting_sql(len(part)), part))
    more |= {n.target for n in got.values() if n.target}
    got.update(nodes(conn, more - set(got)))
    return got


LIFECYCLE_COLUMNS = "lifecycle, lrank, challenged"
SET_LIFECYCLE = "UPDATE rows SET lifecycle = ?, lrank = ?, challenged = ? WHERE id = ?"


def update_lifecycles(conn, ids: set[str], fresh=()) -> None:
    """Set the lifecycle columns of the rows ``ids`` (``fresh``: rows that still hold ``FRESH_LIFECYCLE``)."""
    if not ids:
        return
    graph = graph_of(list(closure(conn, ids).values()))
    want = {rid: lifecycle_columns(lc) for rid, lc in graph.lifecycles.items() if rid in ids}
    _write_changed(conn, want, fresh, FRESH_LIFECYCLE, LIFECYCLE_COLUMNS, SET_LIFECYCLE)


def lifecycle_columns(lc) -> tuple:
    return lc.lifecycle, LIFECYCLE_RANK.get(lc.lifecycle, 4), int(bool(lc.challengers))


def _write_changed(conn, want: dict, fresh, fresh_value: tuple, columns: str, update: str) -> None:
    """Run ``update`` (the values of ``want[id]``, then the id) for each row of ``want`` whose
    ``columns`` do not hold that value yet: the rows in ``fresh`` hold ``fresh_value``, the
    others are read. An ``UPDATE`` rewrites the whole row and each index on a column it sets,
    even to the same value: reading a row costs far less."""
    have = {rid: fresh_value for rid in want if rid in fresh}
    for part in chunks([rid for rid in want if rid not in fresh]):
        have.update((row[0], tuple(row[1:])) for row in conn.execute(
            f"SELECT id, {columns} FROM rows WHERE id IN ({marks(len(part))})", part))
    conn.executemany(update, [(*value, rid) for rid, value in want.items() if have.get(rid) != value])


def update_evidence(conn, owners: set[str], fresh=()) -> None:
    """``ev_memory``: "" without ``memory:`` evidence, else whether every cited memory is in
    the verified set (§5.6). Rows in ``fresh`` hold ``FRESH_EVIDENCE``."""
    if not owners:
        return
    refs: dict[str, list[str]] = {}
    for part in chunks(owners):
        for owner, ref in conn.execute(f"SELECT owner, ref FROM evref WHERE type = 'memory' AND owner IN "
                                       f"({marks(len(part))})", part):
            refs.setdefault(owner, []).append(ref)
    cited = {r for rs in refs.values() for r in rs}
    present: set[str] = set()
    for part in chunks(cited):
        present.update(r[0] for r in conn.execute(f"SELECT id FROM memories WHERE id IN ({marks(len(part))})", part))
    want = {o: ("" if not refs.get(o) else "missing" if not set(refs[o]) <= present else "resolved",)
            for o in owners}
    _write_changed(conn, want, fresh, (FRESH_EVIDENCE,), "ev_memory", "UPDATE rows SET ev_memory = ? WHERE id = ?")


# ---------------------------------------------------------------------------------------------
# loading a whole verified collection (the first build, and ``index rebuild``)


def load_collection(conn, collection: streams.Collection, work: progress.Work = progress.SILENT) -> Totals:
    """Fill an empty state from a full collection: the same tables an update writes, in
    ``progress.STORING_STEPS`` steps told to ``work``."""
    conn.execute("BEGIN")
    try:
        # as ``apply`` does: every source, then every chain link, in one statement each and in
        # key order (the sids SQLite gives an empty table), so the chain's indexes are rebuilt
        # once, not once per long stream
        sources, links = [], []
        for sid, src in enumerate(collection.sources, 1):
            memories = collection.chains[src.ref]
            sources.append((sid, src.ref, src.head, src.actor, src.stream, len(memories)))
            links += [(sid, i, m.commit, m.memory_id, m.signature) for i, m in enumerate(memories, 1)]
        insert_many(conn, "sources", marks(6), sources)
        insert_many(conn, "chain", marks(5), links)
        work.advance(1)
        totals = insert_memories(conn, list(collection.memories))
        work.advance(1)
        graph = graph_of([Node(m.memory_id, m.envelope.operation, m.envelope.target, m.envelope.actor,
                               m.envelope.stream, m.envelope.operation in ROW_OPS)
                          for m in collection.memories])
        work.advance(1)
        every = {m.memory_id for m in collection.memories}  # all rows are new: they hold FRESH_*
        _write_changed(conn, {rid: lifecycle_columns(lc) for rid, lc in graph.lifecycles.items()}, every,
                       FRESH_LIFECYCLE, LIFECYCLE_COLUMNS, SET_LIFECYCLE)
        work.advance(1)
        owners = [r[0] for r in conn.execute("SELECT DISTINCT owner FROM evref WHERE type = 'memory'")]
        update_evidence(conn, set(owners), fresh=every)
        work.advance(1)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return totals


# ---------------------------------------------------------------------------------------------
# publication bookkeeping: which tip of each local stream a remote was last given


def published_heads(conn, remote: str) -> dict[str, str]:
    return dict(conn.execute("SELECT ref, head FROM published WHERE remote = ?", (remote,)).fetchall())


def published_lines(conn, remote: str) -> set[str]:
    """``published_heads`` as the lines a ``MEMORY_LISTING`` gives (``<ref> <head>``), read as
    one text that ``record_published`` keeps (10,000 streams: ~6 ms, against ~18 ms to read the
    pairs)."""
    row = conn.execute("SELECT lines FROM given_lines WHERE remote = ?", (remote,)).fetchone()
    return set(row[0].split("\n")) if row and row[0] else set()


def given_everywhere(conn, ref: str | None = None) -> list[tuple[str, str, str]]:
    """(remote, ref, head) of every tip publication gave any remote (of ``ref`` only, if named):
    what re-anchoring and ``sync --rebase`` must never sign again."""
    if ref is None:
        return conn.execute("SELECT remote, ref, head FROM published").fetchall()
    return conn.execute("SELECT remote, ref, head FROM published WHERE ref = ?", (ref,)).fetchall()


def published_of(conn, remote: str, refs: list[str]) -> dict[str, str]:
    """``published_heads`` for ``refs`` only (a few: one lookup each)."""
    rows = ((ref, conn.execute("SELECT head FROM published WHERE remote = ? AND ref = ?", (remote, ref)).fetchone())
            for ref in refs)
    return {ref: row[0] for ref, row in rows if row is not None}


def record_published(conn, remote: str, heads: dict[str, str]) -> None:
    if not heads:
        return
    conn.execute("BEGIN")
    try:
        conn.executemany("INSERT OR REPLACE INTO published VALUES (?, ?, ?)",
                         [(remote, ref, head) for ref, head in sorted(heads.items())])
        conn.execute("INSERT OR REPLACE INTO given_lines SELECT ?, group_concat(line, char(10)) FROM "
                     "(SELECT ref || ' ' || head AS line FROM published WHERE remote = ? ORDER BY ref)",
                     (remote, remote))
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
