"""How the state's rows are written: the faster way gives the same tables as the plain one
(issue 11, f130)."""

from __future__ import annotations

import sqlite3

import pytest

from git_hn.store import insertion, statedb


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
