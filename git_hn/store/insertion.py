"""A promotion's new memories written into the state a part at a time (issue 11, f123).

``state.insert_memories`` builds every row, search text, topic and evidence reference of the
memories it is given before writing them: one transaction of a 100,000-memory sync (~33,000 new
memories) held ~60 MiB of them at once. ``insert_in_parts`` gives it ``PART`` memories at a time,
in the order it is given them (so each anchor key is numbered as one call numbers it), inside
the caller's transaction. An insert large enough to rebuild a table's indexes
(``state.insert_many``) rebuilds them once, around all the parts, as one call would have. The
rows written are the same. ``insert_rows`` writes a table's rows many to a statement.
"""

from __future__ import annotations

from itertools import chain

from ..core.contexts import contextmanager

_load = None  # a promotion's memories held compact: each part read back whole (``loading``)
PART = 4096  # memories whose rows are built and written at a time
TABLES = ("memories", "rows", "texts", "evref", "topics")  # what ``insert_memories`` writes


@contextmanager
def loading(load):
    """Within: each part's memories are ``load(memories)`` (``replication.spilled``: a large
    import's, held compact until here) before their rows are built."""
    global _load
    before, _load = _load, load
    try:
        yield
    finally:
        _load = before


_parted = False  # within the parts of one insert (``insert_in_parts``)


def parted() -> int | None:
    """The bound from which ``state.insert_many`` rebuilds a table's indexes: within the parts of
    one insert, none (each part's would count the table's rows, ~20 ms of a 20,000-memory sync's,
    to decide what was decided once around all the parts); else None (its own)."""
    return 1 << 62 if _parted else None


def _whole(mems: list) -> list:
    return mems if _load is None else _load(mems)


def insert_in_parts(conn, mems: list, insert, bulk_rows: int, part: int | None = None):
    """``insert(conn, memories)`` (``state.insert_memories``, passed in: this module is the
    state's, which imports it) of ``mems`` a part at a time; its ``Totals`` summed. ``bulk_rows``:
    ``state.BULK_ROWS``."""
    part = PART if part is None else part
    if len(mems) <= part:
        return insert(conn, _whole(mems))
    dropped = []
    if len(mems) >= bulk_rows:
        for table in TABLES:  # (what one call would find: at least as many new rows as the table holds)
            if len(mems) >= conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]:
                dropped += conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND "
                                        "tbl_name = ? AND sql IS NOT NULL ORDER BY name", (table,)).fetchall()
    for name, _sql in dropped:
        conn.execute(f'DROP INDEX "{name}"')
    rows = postings = content = 0
    got = None
    global _parted
    _parted = True
    try:
        for i in range(0, len(mems), part):
            got = insert(conn, _whole(mems[i:i + part]))
            rows, postings, content = rows + got.rows, postings + got.postings, content + got.content
    finally:
        _parted = False
    for _name, sql in dropped:
        conn.execute(sql)
    return got._replace(rows=rows, postings=postings, content=content)


VALUES_BOUND = 900  # bound parameters per multi-row statement (SQLite's historic limit is 999)
FEW_ROWS = 256  # rows below which ``executemany`` costs less: a wide statement's parse (its hundreds of
# parameters) is paid once a connection, and a sync's connection inserts once (f132: sync-100's 200
# memories' ``rows`` and ``memories``, 44.4 -> 43.4 M instructions of state.apply)


def insert_rows(conn, head: str, placeholders: str, rows: list) -> None:
    """``conn.executemany(f"{head} VALUES ({placeholders})", rows)``, as statements of as many
    rows as ``VALUES_BOUND`` parameters hold (one ``INSERT ... VALUES (...), (...), ...``): the
    same rows inserted in the same order, each row's conflict handled as its own, but one
    statement step per ~50-450 rows, where ``executemany`` resets, rebinds and steps a statement
    per row (20,000 memories' ``memories`` rows: 105 -> 53 ms here)."""
    width = placeholders.count("?")
    per = max(1, VALUES_BOUND // width)
    if len(rows) < max(2 * per, FEW_ROWS):  # (a few rows: one statement each costs no more)
        conn.executemany(f"{head} VALUES ({placeholders})", rows)
        return
    one = f"({placeholders})"
    full = f"{head} VALUES " + ",".join([one] * per)
    whole = len(rows) - len(rows) % per
    flat = chain.from_iterable
    for i in range(0, whole, per):
        conn.execute(full, tuple(flat(rows[i:i + per])))
    if whole < len(rows):
        conn.execute(f"{head} VALUES " + ",".join([one] * (len(rows) - whole)), tuple(flat(rows[whole:])))
