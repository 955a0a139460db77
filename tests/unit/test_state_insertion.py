"""How the state's rows are written and what a change touches is asked: the faster ways give the
same tables and the same answers as the plain ones (issue 11, f130)."""

from __future__ import annotations

import sqlite3

import pytest

from git_hn.store import insertion, state, statedb, touched


def _db():
    c = sqlite3.connect(":memory:", isolation_level=None)
    c.executescript(statedb.SCHEMA)
    return c


def _dump(c, table: str) -> list:
    return c.execute(f"SELECT * FROM {table}").fetchall()  # (in the B-tree's order)


def _rows(n: int) -> list:
    return [(f"m{(i * 7919) % n:05d}", i % 3, f"seq {i} \u00e9\U0001f600") for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, 299, 300, 301, 600, 1000])
def test_multi_row_statements_insert_what_executemany_inserts(n):
    """``insert_rows`` (``VALUES_BOUND // 3`` = 300 rows a statement for ``texts``, the last
    statement holding the rest) leaves the table as ``executemany`` does, row for row."""
    a, b = _db(), _db()
    statements: list[str] = []
    a.set_trace_callback(statements.append)
    insertion.insert_rows(a, "INSERT INTO texts", "?, ?, ?", _rows(n))
    b.executemany("INSERT INTO texts VALUES (?, ?, ?)", _rows(n))
    assert _dump(a, "texts") == _dump(b, "texts")
    assert a.execute("SELECT count(*) FROM texts").fetchone() == (n,)
    if n >= 600:
        assert sum(s.startswith("INSERT") for s in statements) == -(-n // 300)  # one statement per 300 rows
    assert a.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.parametrize("n", [insertion.FEW_ROWS - 1, insertion.FEW_ROWS])
def test_fewer_than_few_rows_of_a_wide_table_are_one_statement_each(n):
    """``memories`` (8 columns: 112 rows a statement, so two statements' worth is below
    ``FEW_ROWS``): fewer rows than ``FEW_ROWS`` are inserted one statement each (f132: a
    multi-row statement's parse cost more at sync-100's 200 memories), as many or more in
    multi-row statements; the table is the same either way."""
    rows = [(f"m{(i * 7919) % n:05d}", "c", "a", "s", i, "record", "", "t") for i in range(n)]
    a, b = _db(), _db()
    statements: list[str] = []
    a.set_trace_callback(statements.append)
    insertion.insert_rows(a, "INSERT INTO memories", ", ".join("?" * 8), rows)
    b.executemany("INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    assert _dump(a, "memories") == _dump(b, "memories")
    wide = [st for st in statements if st.startswith("INSERT") and "),(" in st.replace(" ", "")]
    assert (wide == []) == (n < insertion.FEW_ROWS)


def test_multi_row_statements_ignore_each_duplicate_as_its_own():
    """``INSERT OR IGNORE`` (``evref``) skips each duplicate row, also within one statement; a
    plain ``INSERT`` of a duplicate fails as ``executemany``'s does."""
    refs = [(f"o{i % 400:04d}", "memory", f"r{i % 250:04d}") for i in range(1200)]
    a, b = _db(), _db()
    insertion.insert_rows(a, "INSERT OR IGNORE INTO evref", "?, ?, ?", refs)
    b.executemany("INSERT OR IGNORE INTO evref VALUES (?, ?, ?)", refs)
    assert _dump(a, "evref") == _dump(b, "evref") != []
    c = _db()
    c.execute("BEGIN")
    with pytest.raises(sqlite3.IntegrityError):
        insertion.insert_rows(c, "INSERT INTO texts", "?, ?, ?", _rows(700) + _rows(1))
    c.execute("ROLLBACK")
    assert c.execute("SELECT count(*) FROM texts").fetchone() == (0,)


def _graph(c, n: int) -> set:
    """``n`` memories, every third targeting an earlier one, every fifth citing one (``memory:``)
    and every seventh an event; returns their IDs."""
    ids = [f"id{i:05d}" for i in range(n)]
    c.executemany("INSERT INTO memories VALUES (?, 'c', 'a', 's', 1, ?, ?, 't')",
                  [(mid, "supersede" if i % 3 == 1 else "record", ids[i // 2] if i % 3 == 1 else "")
                   for i, mid in enumerate(ids)])
    c.executemany("INSERT INTO evref VALUES (?, ?, ?)",
                  [(mid, "memory", ids[(i * 13) % n]) for i, mid in enumerate(ids) if i % 5 == 0]
                  + [(mid, "event", ids[i // 3]) for i, mid in enumerate(ids) if i % 7 == 0])
    return set(ids)


@pytest.mark.parametrize("asked", [range(0, 10), range(0, 300, 2), range(0, 300)])
def test_a_pass_over_an_index_finds_what_the_probes_find(monkeypatch, asked):
    """``touched.targeting`` and ``touched.citing`` by one pass over the index (no fewer IDs than
    the index's entries: since f132 whatever their number, a sync of 200 new memories into a
    fresh clone probed empty indexes) and by probes ``CHUNK`` at a time give the same pairs;
    which way ran is seen in the statements, and the entries are counted with a bound."""
    c = _db()
    ids = sorted(_graph(c, 300))
    want = {ids[i] for i in asked}
    statements: list[str] = []
    c.set_trace_callback(statements.append)
    with monkeypatch.context() as m:
        m.setattr(touched, "_passes", lambda *_a: False)  # probes
        probed = (sorted(touched.targeting(c, want, state.targeting_sql)), sorted(touched.citing(c, want)))
    assert not any("count(*)" in s for s in statements)
    statements.clear()
    passed = (sorted(touched.targeting(c, want, state.targeting_sql)), sorted(touched.citing(c, want)))
    assert passed == probed
    assert probed[0] and probed[1]
    counts = [s for s in statements if "count(*)" in s]
    assert len(counts) == 2 and all("LIMIT" in s for s in counts)  # (never a whole long history counted)
    passes = [s for s in statements if s.startswith(("SELECT id, target", "SELECT owner")) and " IN (" not in s]
    # (the target index holds 100 entries, evref 103: 60 ``memory:`` and 43 events, which a pass reads too)
    assert len(passes) == (2 if len(want) >= 103 else 0)


def test_a_few_ids_pass_over_an_empty_index():
    """A first sync's few new memories (fewer than ``CHUNK``) against indexes that hold nothing:
    a pass (that reads nothing), not an ``IN`` list of probes."""
    c = _db()
    statements: list[str] = []
    c.set_trace_callback(statements.append)
    want = {f"id{i}" for i in range(5)}
    assert touched.targeting(c, want, state.targeting_sql) == [] and touched.citing(c, want) == []
    assert not any(" IN (" in s for s in statements)
