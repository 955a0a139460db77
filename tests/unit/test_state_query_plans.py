"""The state's lookups by memory ID use an index, whatever the state's size: a query that
scans every memory would make each write cost more as history grows (issue 11)."""

from __future__ import annotations

import sqlite3

import pytest

from git_hn.store import state, statedb


@pytest.fixture()
def conn():
    c = sqlite3.connect(":memory:")
    c.executescript(statedb.SCHEMA)
    yield c
    c.close()


def _plan(conn, sql: str, n: int) -> str:
    return " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, ["x"] * n))


@pytest.mark.parametrize("n", [1, 2, state.CHUNK])
def test_targeting_searches_the_partial_target_index(conn, n):
    plan = _plan(conn, state.targeting_sql(n), n)
    assert "SEARCH memories USING COVERING INDEX memories_target" in plan
    assert "SCAN" not in plan


def test_an_in_list_alone_would_scan_every_memory(conn):
    """Why ``targeting_sql`` repeats the partial index's condition: without it SQLite scans."""
    plan = _plan(conn, "SELECT id FROM memories WHERE target IN (?, ?)", 2)
    assert "SCAN memories" in plan


def test_targeting_finds_exactly_the_memories_that_target_the_ids(conn):
    rows = [("m1", "c1", "a", "s", 1, "record", "", "t"), ("m2", "c2", "a", "s", 2, "supersede", "m1", "t"),
            ("m3", "c3", "a", "s", 3, "retract", "m1", "t"), ("m4", "c4", "a", "s", 4, "challenge", "m2", "t")]
    conn.executemany("INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    assert {r[0] for r in conn.execute(state.targeting_sql(2), ["m1", "m9"])} == {"m2", "m3"}
    assert {r[0] for r in conn.execute(state.targeting_sql(1), ["m2"])} == {"m4"}
    assert {r[0] for r in conn.execute(state.targeting_sql(1), [""])} == set()


def test_the_newest_memories_of_the_log_are_read_from_an_index(conn):
    """``memory log -n N`` orders by the instant (``core.log.KEY_SQL``): an index on that
    expression lets SQLite stop after N rows instead of sorting every row (95 ms at 100,000)."""
    from git_hn.core.log import KEY_SQL
    from git_hn.service.rows import FROM

    sql = f"SELECT r.id {FROM} ORDER BY {KEY_SQL} DESC, r.id LIMIT 5"
    plan = _plan(conn, sql, 0)
    assert "USING INDEX rows_log" in plan and "TEMP B-TREE" not in plan


@pytest.mark.parametrize("n", [1, 3, state.CHUNK // 2])
def test_the_other_sources_of_many_streams_are_found_by_the_stream_index(conn, n):
    from git_hn.service.replication.accepted import others_sql

    plan = _plan(conn, others_sql(n), 2 * n)
    assert "SEARCH s USING INDEX sources_stream (actor=? AND stream=?)" in plan
    assert "SCAN sources" not in plan and "SCAN s " not in plan + " "


def test_the_other_sources_of_many_streams_answer_as_one_stream_at_a_time(conn):
    from types import SimpleNamespace

    from git_hn.service.replication.accepted import FromState

    rows = [("refs/hn/memory/a/s1", "a", "s1"), ("refs/hn/remotes/o/memory/a/s1", "a", "s1"),
            ("refs/hn/remotes/p/memory/a/s1", "a", "s1"), ("refs/hn/remotes/o/memory/b/s2", "b", "s2"),
            ("refs/hn/remotes/o/memory/b/s1", "b", "s1")]
    conn.executemany("INSERT INTO sources(ref, head, actor, stream, length) VALUES (?, 'h', ?, ?, 1)", rows)
    accepted = FromState(SimpleNamespace(conn=conn))
    asked = [("a", "s1", "refs/hn/remotes/o/memory/a/s1"), ("b", "s2", "refs/hn/remotes/o/memory/b/s2"),
             ("c", "s3", "refs/hn/remotes/o/memory/c/s3")]
    got = accepted.others_of(asked)
    assert got == {(a, st): accepted.others(a, st, ref) for a, st, ref in asked}
    assert got[("a", "s1")] == ["refs/hn/memory/a/s1", "refs/hn/remotes/p/memory/a/s1"]
    assert got[("b", "s2")] == [] and got[("c", "s3")] == []


@pytest.mark.parametrize("size", [0, 1, state.SCOPE_QUERIES, state.SCOPE_QUERIES + 1, 300])
def test_stored_sources_of_a_scope_are_the_same_by_query_or_by_one_pass(conn, size):
    """A scope of a few streams is asked one indexed query each, a larger one reads the table
    once (a publication of 10,000 streams asked 10,000 queries); both give exactly the scope's
    sources, accepted copies included, and nothing of a stream outside it."""
    actors = [f"{i:064x}" for i in range(3)]
    streams = [f"sha256:{i:064x}" for i in range(700)]
    rows = []
    for n, stream in enumerate(streams):
        actor = actors[n % 3]
        rows.append((f"refs/hn/memory/{actor}/{stream[7:]}", actor, stream))
        if n % 2:
            rows.append((f"refs/hn/remotes/origin/memory/{actor}/{stream[7:]}", actor, stream))
    conn.executemany("INSERT INTO sources(ref, head, actor, stream, length) VALUES (?, ?, ?, ?, 1)",
                     [(ref, f"{len(ref):040x}", actor, stream) for ref, actor, stream in rows])
    scope = {(actors[n % 3], streams[n]) for n in range(0, 2 * size, 2)} | (
        {(actors[1], streams[1])} if size else set())  # a stream with an accepted copy
    got = state.stored_sources(conn, scope)
    want = {ref for ref, actor, stream in rows if (actor, stream) in scope}
    assert set(got) == want
    assert all((s.actor, s.stream) in scope for s in got.values())
    by_query = {}
    for actor, stream in scope:  # the per-stream query, whatever the size
        by_query.update(state.stored_sources(conn, {(actor, stream)}))
    assert got == by_query


def _schema(conn) -> list:
    return conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()


def _texts(n: int, start: int = 0) -> list:
    return [(f"m{i:05d}", i % 7, f"seq {i}") for i in range(start, start + n)]


def test_a_bulk_insert_rebuilds_exactly_the_indexes_it_dropped():
    """``insert_many``: from ``bulk_from`` rows, and only when they are at least as many as the
    table holds, the table's indexes are dropped and created again from their definitions; the
    schema and every index's content end as a row-by-row insert leaves them (SQLite's integrity
    check compares each index with its table)."""
    a, b = sqlite3.connect(":memory:", isolation_level=None), sqlite3.connect(":memory:", isolation_level=None)
    for c in (a, b):
        c.executescript(statedb.SCHEMA)
    before = _schema(a)
    statements: list[str] = []
    a.set_trace_callback(statements.append)
    a.execute("BEGIN")
    state.insert_many(a, "texts", "?, ?, ?", _texts(50), bulk_from=10)
    a.execute("COMMIT")
    assert 'DROP INDEX "texts_length"' in statements
    b.executemany("INSERT INTO texts VALUES (?, ?, ?)", _texts(50))
    assert _schema(a) == before == _schema(b)
    assert a.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    by_length = "SELECT id FROM texts INDEXED BY texts_length WHERE length = 3 ORDER BY id"
    assert a.execute(by_length).fetchall() == b.execute(by_length).fetchall() != []
    statements.clear()
    state.insert_many(a, "texts", "?, ?, ?", _texts(20, 50), bulk_from=10)  # fewer than the table holds
    state.insert_many(a, "texts", "?, ?, ?", _texts(5, 70), bulk_from=10)  # fewer than bulk_from
    assert not any("DROP" in s for s in statements)
    assert a.execute("SELECT count(*) FROM texts").fetchone() == (75,)


def test_a_failed_bulk_insert_rolls_back_with_its_indexes():
    c = sqlite3.connect(":memory:", isolation_level=None)
    c.executescript(statedb.SCHEMA)
    before = _schema(c)
    c.execute("BEGIN")
    with pytest.raises(sqlite3.IntegrityError):
        state.insert_many(c, "texts", "?, ?, ?", _texts(20) + _texts(1), bulk_from=10)  # a duplicate key
    c.execute("ROLLBACK")
    assert _schema(c) == before
    assert c.execute("SELECT count(*) FROM texts").fetchone() == (0,)


@pytest.mark.parametrize("where", [[], ["r.kind IN (?)"], ["+r.lifecycle IN (?)", "instr(r.tokens, ?) > 0"]])
def test_the_first_row_not_applying_is_sought_by_its_groups(conn, where):
    """Recall's hint about memories that do not apply here (``_name_away``) names the first row
    of a few groups: it reads those groups' rows from the grouping index, not every row (a scan
    took 0.3 s of a 0.43 s recall at 100,000 memories, S102 #1)."""
    from types import SimpleNamespace

    from git_hn.service.recall import away_sql

    keys = {(2, "", "a" * 64, "decision"), (3, "", "a" * 64, "observation")}
    sql, args = away_sql(SimpleNamespace(conn=conn), where, ["x"] * len(where), keys)
    plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, args))
    assert "SEARCH r USING INDEX rows_groups (lifecycle=? AND akey=?)" in plan, plan
    assert "SCAN r" not in plan, plan


def test_the_first_row_not_applying_is_the_first_by_lifecycle_then_id(conn):
    from types import SimpleNamespace

    from git_hn.service.recall import away_sql

    def row(rid, lifecycle, lrank, akey, kind="decision"):
        return (rid, kind, lifecycle, lrank, 0, "t", "u", 1, akey, "", "a", "s", 1, "", "", "", "")
    conn.executemany("INSERT INTO rows VALUES (" + ", ".join("?" * 17) + ")",
                     [row("m1", "superseded", 1, 2), row("m2", "active", 0, 2), row("m0", "active", 0, 5),
                      row("m3", "branching", 3, 3, "observation"), row("m4", "active", 0, 3, "observation")])
    conn.executemany("INSERT INTO akeys VALUES (?, ?, 'descendants', '', '', '', '', 0)", [(k, f"c{k}") for k in (2, 3, 5)])
    keys = {(2, "", "a", "decision"), (3, "", "a", "observation")}
    sql, args = away_sql(SimpleNamespace(conn=conn), [], [], keys)
    assert conn.execute(sql, args).fetchone() == ("m2", "decision", "active")
    sql, args = away_sql(SimpleNamespace(conn=conn), ["r.kind IN (?)"], ["observation"], keys)
    assert conn.execute(sql, args).fetchone() == ("m4", "observation", "active")


@pytest.mark.parametrize("kinds,lifecycles,grouping,query", [
    ((), ("active",), True, ""), ((), ("active",), False, ""), (("decision",), ("active",), False, ""),
    (("decision",), (), True, ""), ((), ("active",), False, "ledger"), ((), ("active",), True, "ledger")])
def test_a_path_filter_reads_only_the_rows_anchored_to_it(conn, kinds, lifecycles, grouping, query):
    """``recall --path`` (and its hints) seek the rows of the anchor keys naming the path, not
    every row's ``pathset`` (0.4 s at 100,000 memories for a path nothing is anchored to, S102 #2);
    with a kind filter, not every row of the kind either."""
    from types import SimpleNamespace

    from git_hn.core import recall as core
    from git_hn.service.recall import _where
    from git_hn.service.rows import FROM, GROUP

    req = core.RecallRequest(at_commit="", path="src/a.py", kind=kinds, lifecycle=lifecycles, query=query)
    where, args = _where(SimpleNamespace(conn=conn), req, core.parse_query(query), grouping)
    for sql in (f"SELECT {GROUP}, count(*) {FROM} WHERE {' AND '.join(where)} GROUP BY r.akey, r.ev_memory, "
                "r.actor, r.kind", f"SELECT r.id {FROM} WHERE {' AND '.join(where)} ORDER BY r.lrank, r.ts DESC, r.id"):
        plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, args))
        assert "INDEX rows_groups (lifecycle=? AND akey=?)" in plan, plan
        assert "SCAN r" not in plan, plan


def test_a_path_filter_keeps_the_rows_its_pathset_names(conn):
    from types import SimpleNamespace

    from git_hn.core import recall as core
    from git_hn.service.recall import _where

    anchors = {1: "src/a.py\tb1\n", 2: "src/a.pyc\tb2\nsrc/b.py\tb3\n", 3: "x/src/a.py\tb4\n", 4: ""}
    conn.executemany("INSERT INTO akeys VALUES (?, ?, 'descendants', '', '', ?, '', 0)",
                     [(k, f"c{k}", p) for k, p in anchors.items()])
    for k, lifecycle in ((1, "active"), (1, "retracted"), (2, "active"), (3, "superseded"), (4, "active")):
        pathset = "\n" + "".join(line.split("\t")[0] + "\n" for line in anchors[k].splitlines())
        conn.execute("INSERT INTO rows VALUES (" + ", ".join("?" * 17) + ")",
                     (f"m{k}{lifecycle}", "decision", lifecycle, 0, 0, "t", "u", 1, k, "", "a", "s", 1, "", "",
                      pathset, ""))
    for path in ("src/a.py", "src/b.py", "a.py", "src"):
        req = core.RecallRequest(at_commit="", path=path)
        where, args = _where(SimpleNamespace(conn=conn), req, None, False)
        got = {r[0] for r in conn.execute(f"SELECT r.id FROM rows r WHERE {' AND '.join(where)}", args)}
        want = {r[0] for r in conn.execute("SELECT id FROM rows WHERE instr(pathset, ?) > 0", [f"\n{path}\n"])}
        assert got == want


@pytest.mark.parametrize("kinds,lifecycles,grouping,query", [
    ((), ("active",), True, ""), ((), ("active",), False, ""), (("decision",), ("active",), True, ""),
    ((), (), True, ""), ((), ("active",), False, "ledger")])
def test_a_topic_filter_reads_only_the_rows_of_the_topic(conn, kinds, lifecycles, grouping, query):
    """``recall --topic`` seeks the rows of its first topic in ``topics`` and reads those rows by
    ID, not every row's ``topics`` (0.28 s at 100,000 memories for 2,400 of them, S102 #3)."""
    from types import SimpleNamespace

    from git_hn.core import recall as core
    from git_hn.service.recall import _where
    from git_hn.service.rows import FROM, GROUP

    req = core.RecallRequest(at_commit="", topic=("ledger", "budget"), kind=kinds, lifecycle=lifecycles, query=query)
    where, args = _where(SimpleNamespace(conn=conn), req, core.parse_query(query), grouping)
    for sql in (f"SELECT {GROUP}, count(*) {FROM} WHERE {' AND '.join(where)} GROUP BY r.akey, r.ev_memory, "
                "r.actor, r.kind", f"SELECT r.id {FROM} WHERE {' AND '.join(where)} ORDER BY r.lrank, r.ts DESC, r.id"):
        plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, args))
        assert "SEARCH r USING PRIMARY KEY (id=?)" in plan and "SEARCH topics USING PRIMARY KEY (topic=?)" in plan, plan
        assert "SCAN" not in plan, plan


@pytest.mark.parametrize("kinds,actors", [(("decision",), ()), (("decision", "observation"), ()),
                                          (("decision",), ("a" * 64,)), ((), ())])
def test_the_newest_memories_of_a_kind_are_read_from_the_log_index(conn, kinds, actors):
    """``memory log --kind K -n N`` reads the log's order index until N rows of the kind are
    found; the kind's index made SQLite read and sort every row of the kind (0.25 s for 5 at
    100,000 memories, S102 #4)."""
    from types import SimpleNamespace

    from git_hn.core import recall as core
    from git_hn.service.log import log_sql
    from git_hn.service.recall import _where

    req = core.RecallRequest(at_commit="", kind=kinds, actor=actors, lifecycle=())
    where, args = _where(SimpleNamespace(conn=conn), req, None, False, kind_index=False)
    plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + log_sql(where, 5), args))
    assert "USING INDEX rows_log" in plan and "TEMP B-TREE" not in plan, plan


def test_every_lifecycle_is_grouped_in_the_grouping_index_order(conn):
    """``recall --lifecycle all`` groups every row: SQLite reads the grouping index in its own
    order, never sorting every row (0.15 s at 100,000 memories, S102 #5), and the groups that
    differ only by lifecycle are merged, counted and sized as one."""
    from types import SimpleNamespace

    from git_hn.service import rows as select

    seen = []
    conn.set_trace_callback(seen.append)
    assert select.groups(SimpleNamespace(conn=conn), [], []) == []
    conn.set_trace_callback(None)
    plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + seen[-1]))
    assert "COVERING INDEX rows_groups" in plan and "TEMP B-TREE" not in plan, plan

    def row(rid, lifecycle, akey, size, kind="decision"):
        return (rid, kind, lifecycle, 0, 0, "t", "u", size, akey, "", "a", "s", 1, "", "", "", "")
    conn.executemany("INSERT INTO rows VALUES (" + ", ".join("?" * 17) + ")",
                     [row("m1", "active", 2, 5), row("m2", "retracted", 2, 9), row("m3", "superseded", 2, 1),
                      row("m4", "active", 1, 3), row("m5", "retracted", 1, 4, "observation")])
    conn.executemany("INSERT INTO akeys VALUES (?, ?, 'descendants', '', '', '', '', 0)", [(1, "c1"), (2, "c2")])
    got = [(g.key, g.count, g.biggest) for g in select.groups(SimpleNamespace(conn=conn), [], [])]
    assert got == [((1, "", "a", "decision"), 1, 3), ((1, "", "a", "observation"), 1, 4),
                   ((2, "", "a", "decision"), 3, 9)]


def test_rows_read_for_their_terms_are_read_in_the_tables_order(conn):
    """With query terms every row's tokens are read: recall groups them from the table in its
    own order (reading the grouping index in its order looked each row up: 0.5 s against 0.25 s
    at 100,000 memories)."""
    from types import SimpleNamespace

    from git_hn.core import recall as core
    from git_hn.service import rows as select
    from git_hn.service.recall import _where

    req = core.RecallRequest(at_commit="", query="quarantine", lifecycle=("active",))
    where, args = _where(SimpleNamespace(conn=conn), req, core.parse_query(req.query), True)
    seen = []
    conn.set_trace_callback(seen.append)
    select.groups(SimpleNamespace(conn=conn), where, args, by_index=False)
    conn.set_trace_callback(None)
    sql = seen[-1].replace("' quarantine '", "?")
    plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, [" quarantine "]))
    assert "SCAN r" in plan and "INDEX" not in plan.split("SEARCH a")[0], plan


def test_the_tips_of_the_streams_are_looked_up_not_scanned(conn):
    """The newest memory of each stream (``stream_authors``: names for ``log``, ``recall
    --actor``) is one chain lookup per source; a plain join scanned the whole chain (S102 #4)."""
    from git_hn.service.policy_edit import TIPS_SQL

    plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + TIPS_SQL))
    assert "SEARCH c USING PRIMARY KEY (sid=? AND seq=?)" in plan and "SCAN c" not in plan, plan


@pytest.mark.parametrize("n", [1, 2, state.CHUNK])
def test_the_not_merged_count_reads_the_rows_of_the_imported_commits_only(conn, n):
    """An import's not-merged hint (f163) reads the rows of the commits it walked: from the chain's
    commit index to each row and its anchor key, whatever the state holds. With a plain JOIN,
    SQLite drove the query from every active row (0.7 s for one 20,000-memory import into a state
    of 20,000; a sync importing two memories into a state of 100,000 scanned it all)."""
    from git_hn.service.replication.not_merged import _ROWS

    plan = _plan(conn, _ROWS.format(state.marks(n)), n + 1)
    assert plan.startswith("SEARCH c USING INDEX chain_commit"), plan
    assert "SCAN" not in plan and "rows_groups" not in plan, plan


def test_a_plain_join_would_read_every_active_row_for_the_count(conn):
    """Why ``not_merged._ROWS`` says CROSS JOIN: the same query with JOIN starts from the rows."""
    from git_hn.service.replication.not_merged import _ROWS

    plain = _ROWS.replace("CROSS JOIN", "JOIN")
    plan = _plan(conn, plain.format(state.marks(2)), 3)
    assert not plan.startswith("SEARCH c USING INDEX chain_commit"), plan


class _Planned:
    """A view whose queries are planned (``EXPLAIN QUERY PLAN``) before they run."""

    def __init__(self, conn):
        self.plans: list[str] = []
        self.keep = None
        self._conn = conn
        self.conn = self

    def execute(self, sql, args=()):
        self.plans.append(" ".join(row[-1] for row in self._conn.execute("EXPLAIN QUERY PLAN " + sql, args)))
        return self._conn.execute(sql, args)


def test_a_relevance_page_keeps_a_page_and_its_cursor_row_is_sought_by_id(conn):
    """f172: the ranked rows come from a co-routine (a subquery SQLite does not flatten, so each
    frequency is computed once per row, not once per use in the score), sorted by SQLite with
    the page's LIMIT; the cursor's own row is sought by its ID, not found by a scan."""
    from git_hn.core import search
    from git_hn.service.rows import Ranked

    view = _Planned(conn)
    ranked = Ranked(view, ["+r.lifecycle IN (?)", "instr(r.tokens, ?) > 0"], ["active", " x "],
                    {(1, "", "a", "decision")}, search.parse("x OR y*"))
    assert ranked.rows(21) == []
    plan = view.plans[-1]
    assert "CO-ROUTINE" in plan and "SCAN r" in plan and "SEARCH t USING PRIMARY KEY" in plan, plan
    assert ranked.rows(1, also=(["r.id = ?"], ["m1"])) == []
    assert "SEARCH r USING PRIMARY KEY (id=?)" in view.plans[-1] and "SCAN r" not in view.plans[-1]
