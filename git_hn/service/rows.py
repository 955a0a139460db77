"""Selecting projection rows from the verified state for one query context (CONTRACT §7.6, §7.7,
§11(d); issue 11).

A row's context-dependent classes (applicability, the ``git:``/``event:`` part of its evidence,
trust) depend only on its anchor and evidence key, its memory-evidence status, its actor and its
kind. The state groups rows by exactly those, so each class is decided once per group here, with
the same functions a full projection uses, and the filters, counts and order are left to SQLite.
Only the rows an answer returns are then projected in full (``View.project``).

Trusts: the state's columns (sealed, and re-checked against Git for every row that is served).
"""

from __future__ import annotations

from ..core.chain import VerifiedMemory
from ..core.envelope import Anchor, Applicability, Envelope, PathAnchor, Record
from ..core.projection import ProbeError, _Ancestry, applicability, trust

GROUP = ("r.akey, a.anchor, a.mode, a.app_subject, a.anchor_subject, a.paths, a.git, a.event, "
         "r.ev_memory, r.actor, r.kind")
FROM = "FROM rows r JOIN akeys a ON a.akey = r.akey"
ORDER = "r.lrank, r.ts DESC, r.id"
SQL_TERMS = 32  # query terms matched with instr(); further ones by a registered function


class Group:
    __slots__ = ("key", "anchor", "mode", "app_subject", "anchor_subject", "paths", "git", "event",
                 "ev_memory", "actor", "kind", "count", "biggest")

    def __init__(self, row):
        (akey, self.anchor, self.mode, self.app_subject, self.anchor_subject, self.paths, self.git,
         self.event, self.ev_memory, self.actor, self.kind, self.count, self.biggest) = row
        self.key = (akey, self.ev_memory, self.actor, self.kind)


def groups(view, where: list[str], args: list, by_index: bool = True) -> list[Group]:
    """The groups of the rows passing ``where``, in key order, with their rows counted. With
    ``by_index``, SQLite groups them by lifecycle too, in the grouping index's own order (no sort
    of every row: a read of every lifecycle, ``--lifecycle all``, spent 0.15 s of 0.2 s sorting
    100,000 rows, 35 ms so, S102 #5), and the few groups that differ only by lifecycle are merged
    here. Not when ``where`` reads every row's own columns (query terms): the table is then read
    in its order and the groups sorted (the index's order made it look each row up: twice the
    time)."""
    sql = f"SELECT {GROUP}, count(*), max(r.size) {FROM}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" GROUP BY {'r.lifecycle, ' if by_index else ''}r.akey, r.ev_memory, r.actor, r.kind"
    merged: dict[tuple, Group] = {}
    for row in view.conn.execute(sql, args):
        g = Group(row)
        seen = merged.get(g.key)
        if seen is None:
            merged[g.key] = g
        else:
            seen.count += g.count
            seen.biggest = max(seen.biggest, g.biggest)
    return [merged[key] for key in sorted(merged)]  # (SQLite's order: UTF-8 keeps code point order)


def keep_rows(view, keep: set) -> None:
    """Register ``hn_keep(akey, ev_memory, actor, kind)``: whether a row's group is in ``keep``
    (once per session; SQLite refuses to redefine a function an open statement uses)."""
    if getattr(view, "keep", None) is not None:
        if view.keep is not keep:
            raise ValueError("one kept set per session")
        return
    view.keep = keep
    view.conn.create_function("hn_keep", 4, lambda a, e, ac, k: (a, e, ac, k) in keep, deterministic=True)


VALUES_UP_TO = 2000  # kept groups listed in SQL itself; beyond, a registered function decides


def keep_clause(view, keep: set) -> tuple[str, list]:
    """SQL that keeps a row whose group key is in ``keep``: a row-value list SQLite checks on its
    own when it is small enough, else ``hn_keep``."""
    if len(keep) <= VALUES_UP_TO:
        values = sorted(keep, key=repr)
        return ("(r.akey, r.ev_memory, r.actor, r.kind) IN (VALUES " + ", ".join(["(?, ?, ?, ?)"] * len(values))
                + ")", [x for key in values for x in key])
    keep_rows(view, keep)
    return "hn_keep(r.akey, r.ev_memory, r.actor, r.kind)", []


def ordered(view, where: list[str], args: list, keep: set, columns: str = "r.id, r.size",
            order: str = ORDER, after: tuple | None = None, limit: int | None = None,
            column_args: tuple = (), join: str = ""):
    """Rows passing ``where`` whose group key is in ``keep``, in ``order``: a cursor, or a list
    of at most ``limit`` rows. Nothing is kept from an empty ``keep``."""
    if not keep:
        return [] if limit is not None else iter(())
    clause, clause_args = keep_clause(view, keep)
    clauses = list(where) + [clause]
    args = list(column_args) + list(args) + clause_args
    if after is not None:  # strictly after (lrank, ts, id) in §7.7 order
        lrank, ts, ident = after
        clauses.append("(r.lrank > ? OR (r.lrank = ? AND (r.ts < ? OR (r.ts = ? AND r.id > ?))))")
        args += [lrank, lrank, ts, ts, ident]
    sql = f"SELECT {columns} {FROM}{join} WHERE {' AND '.join(clauses)} ORDER BY {order}"
    if limit is not None:
        return view.conn.execute(sql + f" LIMIT {int(limit)}", args).fetchall()
    return view.conn.execute(sql, args)


def trust_filter(view, where: list[str], args: list, trusts, policy):
    """``where``/``args`` narrowed to the rows whose trust class is in ``trusts`` under ``policy``,
    or None when none can be: trust depends only on (actor, kind), so it is decided once per
    pair present among the rows ``where`` keeps (``memory log`` and ``memory export``)."""
    cond = (" WHERE " + " AND ".join(where)) if where else ""
    pairs = [(a, k) for a, k in view.conn.execute(f"SELECT DISTINCT r.actor, r.kind {FROM}{cond}", args)
             if trust(a, k, policy) in trusts]
    if not pairs:
        return None
    return (where + ["(r.actor, r.kind) IN (VALUES " + ", ".join(["(?, ?)"] * len(pairs)) + ")"],
            args + [x for p in pairs for x in p])


def term_clauses(view, terms) -> tuple[list[str], list]:
    terms = list(terms or ())
    where = ["instr(r.tokens, ?) > 0" for _ in terms[:SQL_TERMS]]
    args = [f" {t} " for t in terms[:SQL_TERMS]]
    rest = [f" {t} " for t in terms[SQL_TERMS:]]
    if rest:  # beyond SQLite's expression depth: one function call per row
        view.conn.create_function("hn_terms", 1, lambda toks: all(t in toks for t in rest), deterministic=True)
        where.append("hn_terms(r.tokens)")
    return where, args


# A row's wrapped token sequence (``core.search``), for the leaves that need it (phrases).
SEQ = "(SELECT seq FROM texts WHERE texts.id = r.id)"
TEXTS = " JOIN texts t ON t.id = r.id"


def query_clauses(view, query) -> tuple[list[str], list]:
    """SQL for a parsed query (``core.search``) over ``rows r``. A query in the contract's own
    syntax gives the clauses it always gave. Otherwise each leaf is one ``instr`` over the row's
    tokens (terms, prefixes) or its token sequence (phrases): the same substring tests
    ``core.search.matches`` makes. Groups beyond ``SQL_TERMS`` leaves are decided by one
    registered function per row (SQLite's expression depth is bounded)."""
    if query is None:
        return [], []
    plain = query.plain_terms()
    if plain is not None:
        return term_clauses(view, plain)
    where, args, used, rest = [], [], 0, []
    for group in query.groups:
        n = sum(len(leaf.tokens) + (leaf.kind == "phrase") for alt in group for leaf in alt)
        if used + n > SQL_TERMS:
            rest.append(group)
            continue
        used += n
        alts = []
        for alt in group:
            tests = []
            for leaf in alt:
                if leaf.kind == "phrase":  # its tokens first: the sequence is read only if they are there
                    tests += ["instr(r.tokens, ?) > 0"] * len(set(leaf.tokens)) + [f"instr({SEQ}, ?) > 0"]
                    args += [f" {t} " for t in dict.fromkeys(leaf.tokens)] + [leaf.pattern]
                else:
                    tests.append("instr(r.tokens, ?) > 0")
                    args.append(leaf.pattern)
            alts.append(" AND ".join(tests))
        where.append(alts[0] if len(alts) == 1 else "(" + " OR ".join(f"({a})" for a in alts) + ")")
    if rest:
        from ..core import search

        tail = search.Query(tuple(rest))
        view.conn.create_function("hn_query", 1, lambda text: search.matches(tail, text), deterministic=True)
        where.append(f"hn_query({SEQ if tail.needs_sequence() else 'r.tokens'})")
    return where, args


def corpus_stats(view, leaves):
    """BM25's statistics (``core.search.Stats``) over every row of the state: the counts from
    the length index, each term's and prefix's document count from one scan of the rows' token
    sets, each phrase's from one scan of the token sequences (only when there is a phrase)."""
    from ..core import search

    docs, total = view.conn.execute("SELECT count(*), total(length) FROM texts").fetchone()
    df = {}
    for table, column, wanted in (("rows", "tokens", [x for x in leaves if x.kind != "phrase"]),
                                  ("texts", "seq", [x for x in leaves if x.kind == "phrase"])):
        if wanted:
            sums = ", ".join(f"total(instr({column}, ?) > 0)" for _ in wanted)
            got = view.conn.execute(f"SELECT {sums} FROM {table}", [x.pattern for x in wanted]).fetchone()
            df.update(zip(wanted, got))
    return search.Stats(docs, int(total), tuple(int(df[x]) for x in leaves))


class Ranked:
    """The rows passing ``where`` whose group key is in ``keep``, in relevance order
    (``core.search``): BM25 descending, then §7.7. SQLite scores every such row
    (``core.search.sql_score``) and its sorter keeps only the ``limit`` best, so an answer costs
    the scan of the matches and a page, not a sort of every match in Python (f172: 0.9 s of a
    100,000-memory ``--rank relevance`` for a term in 80% of the memories went to scoring and
    sorting 80,000 rows one by one). A row whose token sequence is missing from ``texts`` (a
    damaged state) sorts before every other, so that the caller sees it: its length is None."""

    def __init__(self, view, where: list[str], args: list, keep: set, query):
        from ..core import search

        leaves = query.leaves()
        self.leaves = len(leaves)
        freqs = [f"f{i}" for i in range(len(leaves))]
        score, self.score_args = search.sql_score(corpus_stats(view, leaves), freqs, "dl")
        self.view, self.where, self.args, self.keep = view, list(where), list(args), keep
        self.columns = ("id, size, dl, " + ", ".join(freqs) + f", {score} AS score, lrank, ts")
        self.freqs = "".join(f", (length(t.seq) - length(replace(t.seq, ?, ''))) / ? AS f{i}"
                             for i in range(len(leaves)))
        self.freq_args = [x for leaf in leaves for x in (leaf.pattern, len(leaf.pattern))]

    def rows(self, limit: int, also: tuple = ((), ()), after: tuple | None = None,
             over: int | None = None) -> list[tuple]:
        """At most ``limit`` rows as ``(id, size, length, frequencies, score, lrank, ts)``, in
        order; only those also passing the clauses ``also`` (``(clauses, args)``); with ``after``
        (``(score, lrank, ts, id)`` of a row), only the rows after it; with ``over``, the rows
        larger than ``over`` first (the first such row in order names §7.6's error)."""
        if not self.keep:
            return []
        clause, clause_args = keep_clause(self.view, self.keep)
        more, more_args = also
        inner = (f"SELECT r.id AS id, r.size AS size, r.lrank AS lrank, r.ts AS ts, t.length AS dl{self.freqs} "
                 f"{FROM} LEFT JOIN texts t ON t.id = r.id "
                 f"WHERE {' AND '.join(self.where + list(more) + [clause])} LIMIT -1")  # (LIMIT: not flattened,
        # so each frequency is computed once, not once per use in the score)
        cond, cond_args = "", []
        if after is not None:  # strictly after it: lower score, or equal and after it in §7.7 order
            score, lrank, ts, ident = after
            cond = (" WHERE dl IS NULL OR score < ? OR (score = ? AND (lrank > ? OR (lrank = ? AND "
                    "(ts < ? OR (ts = ? AND id > ?)))))")
            cond_args = [score, score, lrank, lrank, ts, ts, ident]
        first, first_args = ("size > ? DESC, ", [over]) if over is not None else ("", [])
        sql = (f"SELECT {self.columns} FROM ({inner}){cond} "
               f"ORDER BY dl IS NULL DESC, {first}score DESC, lrank, ts DESC, id LIMIT {int(limit)}")
        got = self.view.conn.execute(sql, [*self.score_args, *self.freq_args, *self.args, *more_args,
                                           *clause_args, *cond_args, *first_args]).fetchall()
        n = self.leaves
        return [(row[0], row[1], row[2], row[3:3 + n], *row[3 + n:]) for row in got]


class Classes:
    """The context-dependent classes of groups, memoized per distinct anchor and evidence key."""

    def __init__(self, ctx, resolver):
        self.ctx, self.resolver = ctx, resolver
        self.ancestry = _Ancestry(resolver)
        self.app: dict = {}
        self.ev: dict = {}
        self.trusts: dict = {}

    def prefetch(self, groups_: list[Group]) -> None:
        oids = {g.anchor for g in groups_}
        oids |= {o for g in groups_ for o in g.git.split("\n") if o}
        self.resolver.prefetch_types(oids)

    def applicability(self, g: Group) -> str:
        key = (g.anchor, g.mode, g.app_subject, g.anchor_subject, g.paths)
        got = self.app.get(key)
        if got is None:
            paths = tuple(PathAnchor(*line.split("\t")) for line in g.paths.split("\n") if line)
            record = Record("", "", Anchor(g.anchor, paths, g.anchor_subject),
                            Applicability(g.mode, g.app_subject), (), ())
            env = Envelope("hn-memory/0", "record", g.actor, "", "", "", 1, "", record=record)
            got = applicability(VerifiedMemory("", "", env, b"", ""), self.ctx, self.resolver,
                                self.ancestry)[0]
            self.app[key] = got
        return got

    def evidence(self, g: Group) -> str:
        key = (g.git, g.event, g.ev_memory)
        got = self.ev.get(key)
        if got is None:
            statuses = {g.ev_memory} - {""}
            if g.event:
                statuses.add("missing")
            for oid in g.git.split("\n"):
                if not oid:
                    continue
                try:
                    statuses.add("resolved" if self.resolver.object_type(oid) else "missing")
                except ProbeError:
                    statuses.add("invalid")
            got = "invalid" if "invalid" in statuses else "missing" if "missing" in statuses else "resolved"
            self.ev[key] = got
        return got

    def trust(self, g: Group) -> str:
        key = (g.actor, g.kind)
        got = self.trusts.get(key)
        if got is None:
            got = self.trusts[key] = trust(g.actor, g.kind, self.ctx.policy)
        return got

    def candidate(self, g: Group) -> bool:
        """Applicable with resolved evidence: what recall and the brief may return (§7.6)."""
        return self.applicability(g) == "applicable" and self.evidence(g) == "resolved"
