"""Recall's search syntax and relevance order (issue 13 item 5; ``core.search``).

A seeded repository (memories written by the independent writer, with fixed keys, contents and
timestamps, so every ID and the §7.7 order are fixed) is queried with prefix terms, ``OR``,
quoted phrases and ``--rank relevance``, and each answer is compared with an exact expected order.
The contract's plain queries keep their meaning; every answer from the verified state equals the
full reference's; a tampered token sequence is never served.
"""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from git_hn.core import recall as core_recall
from git_hn.core import search
from git_hn.core.gostr import token_sequence, tokens
from git_hn.service import index as index_service
from git_hn.service import recall as recall_service
from git_hn.store import statedb
from git_hn.store.repo import open_repo
from helpers import git, hn, make_repo
from independent import Writer

CURSOR_MISMATCH = ("git-hn: recall cursor does not match the normalized query, sources, policy, or bounds; "
                   "the cursor was made by a recall with other arguments: rank (--rank) was {then}, is {now}; "
                   "give it those arguments, or start again without the cursor\n")

# name -> (content, topics); timestamps follow this order, so the §7.7 order is newest first
SEED = {
    "m1": ("The parser handles nested quotes", ["parsing"]),
    "m2": ("parsers are slow on large files; the parser cache helps", []),
    "m3": ("codec negotiation for the wire format", ["codec"]),
    "m4": ("stream isolation matters for the parser", ["architecture"]),
    "m5": ("isolation of the stream is optional", []),
    "m6": ("parser parser parser codec", []),
    "m7": ("Unrelated note about budgets", []),
    "m8": ("Überprüfung der Ölpumpe", ["wartung"]),
    "m9": ("cache warm", []),
    "m10": ("cache cold", []),
}
NEWEST_FIRST = list(reversed(SEED))


@pytest.fixture
def seeded(tmp_path):
    """(repository, name -> memory ID, ID -> name, the writer and its chain tip)."""
    repo = make_repo(tmp_path / "r")
    head = git(repo, "rev-parse", "HEAD")
    w = Writer(bytes([7]) * 32, "Seeder")
    ids, prev, parent = {}, "", ""
    for seq, (name, (content, topics)) in enumerate(SEED.items(), 1):
        record = {"kind": "decision", "content": content, "anchor": {"commit": head},
                  "applicability": {"mode": "descendants"}, "topics": topics, "evidence": []}
        prev, parent = w.write(repo, w.envelope(seq, prev, f"2026-01-01T00:00:{seq:02d}Z", record), parent)
        ids[name] = prev
    return repo, ids, {v: k for k, v in ids.items()}, (w, head, len(SEED), prev, parent)


def _recall(repo, *args) -> dict:
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted", *args)
    assert r.code == 0, r.err
    return r.json()


def _names(doc, names) -> list[str]:
    return [names[m["id"]] for m in doc["memories"]]


def _query(repo, names, query, *args) -> list[str]:
    doc = _recall(repo, "--query", query, "--max-records", "100", *args)
    assert doc["matched"] == doc["returned"]
    return _names(doc, names)


# --- syntax: prefix, OR, phrases (each fails on the contract's exact-word AND) -------------------

def test_plain_queries_keep_the_contracts_exact_word_and(seeded):
    repo, _ids, names, _w = seeded
    assert _query(repo, names, "parser") == ["m6", "m4", "m2", "m1"]
    assert _query(repo, names, "parsers") == ["m2"]
    assert _query(repo, names, "pars") == []
    assert _query(repo, names, "stream isolation") == ["m5", "m4"]  # both words, any order
    assert _query(repo, names, "ISOLATION, stream!") == ["m5", "m4"]
    assert _query(repo, names, "parser or codec") == []  # lowercase or is a word
    assert _query(repo, names, "parsing") == ["m1"]  # topics are searchable


def test_prefix_terms_match_every_token_that_starts_with_them(seeded):
    repo, _ids, names, _w = seeded
    assert _query(repo, names, "pars*") == ["m6", "m4", "m2", "m1"]
    assert _query(repo, names, "PARSE*") == ["m6", "m4", "m2", "m1"]
    assert _query(repo, names, "parsers*") == ["m2"]
    assert _query(repo, names, "stream iso*") == ["m5", "m4"]
    assert _query(repo, names, "über*") == ["m8"]
    assert _query(repo, names, "ÜBERPRÜF*") == ["m8"]
    assert _query(repo, names, "nested-quo*") == ["m1"]  # nested AND quo*


def test_or_binds_tighter_than_and(seeded):
    repo, _ids, names, _w = seeded
    assert _query(repo, names, "parser OR codec") == ["m6", "m4", "m3", "m2", "m1"]
    # (codec OR isolation) AND parser, not codec OR (isolation AND parser), which adds m3
    assert _query(repo, names, "codec OR isolation parser") == ["m6", "m4"]
    assert _query(repo, names, "parser codec OR isolation") == ["m6", "m4"]
    # a word's tokens stay together: (nested AND quotes) OR budgets
    assert _query(repo, names, "nested-quotes OR budgets") == ["m7", "m1"]
    assert _query(repo, names, "cache OR budgets OR über*") == ["m10", "m9", "m8", "m7", "m2"]
    assert _query(repo, names, "pars* OR codec") == ["m6", "m4", "m3", "m2", "m1"]


def test_quoted_phrases_match_consecutive_tokens(seeded):
    repo, _ids, names, _w = seeded
    assert _query(repo, names, '"stream isolation"') == ["m4"]  # not m5's "isolation of the stream"
    assert _query(repo, names, '"isolation stream"') == []
    assert _query(repo, names, '"Stream, Isolation!"') == ["m4"]  # the same tokens
    assert _query(repo, names, '"parser parser"') == ["m6"]
    assert _query(repo, names, '"the parser" cache') == ["m2"]
    assert _query(repo, names, '"der ölpumpe"') == ["m8"]
    assert _query(repo, names, '"parser architecture"') == ["m4"]  # content, then topics
    assert _query(repo, names, '"OR"') == []  # inside quotes OR is the token "or"
    assert _query(repo, names, '"pars*"') == []  # and * separates, like any punctuation
    assert _query(repo, names, '"nested quotes" OR "wire format"') == ["m3", "m1"]
    assert _query(repo, names, 'cache"warm"') == ["m9"]  # quotes also end a word


@pytest.mark.parametrize("query, message", [
    ('"stream isolation', "recall query has an unbalanced quote"),
    ('a "b" "c', "recall query has an unbalanced quote"),
    ("*", "recall query has a * that does not follow a letter or digit"),
    ("parser *", "recall query has a * that does not follow a letter or digit"),
    ("pars**", "recall query has a * that does not follow a letter or digit"),
    ("x-*", "recall query has a * that does not follow a letter or digit"),
    ("OR parser", "recall query has OR without a term before it"),
    ("!!! OR parser", "recall query has OR without a term before it"),
    ("parser OR OR codec", "recall query has OR without a term before it"),
    ("parser OR", "recall query has OR without a term after it"),
    ('""', "recall query has a phrase without letters or digits"),
    ('parser "--"', "recall query has a phrase without letters or digits"),
    ("!!!", "memory index query has no lexical terms"),
])
def test_invalid_query_syntax_is_one_line_and_exit_1(seeded, query, message):
    repo = seeded[0]
    r = hn(repo, "memory", "recall", "--json", "--query", query)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n")


# --- relevance order ------------------------------------------------------------------------------

def test_relevance_orders_by_bm25_then_the_default_order(seeded):
    repo, _ids, names, _w = seeded
    rel = ("--rank", "relevance")
    # more occurrences in a shorter text first: m6 (3 of 4 tokens), m1 (parser and parsing, 6),
    # m2 (parsers and parser, 10), m4 (1 of 7)
    assert _query(repo, names, "pars*", *rel) == ["m6", "m1", "m2", "m4"]
    assert _query(repo, names, "pars*") == ["m6", "m4", "m2", "m1"]
    # codec is rarer than parser; m3 holds it twice (content and topic)
    assert _query(repo, names, "parser OR codec", *rel) == ["m6", "m3", "m1", "m4", "m2"]
    # equal scores (one occurrence in two tokens): newest first, then the longer text
    assert _query(repo, names, "cache", *rel) == ["m10", "m9", "m2"]
    assert _query(repo, names, '"stream isolation" OR "isolation of"', *rel) == ["m5", "m4"]
    assert _query(repo, names, "parser", "--rank", "default") == ["m6", "m4", "m2", "m1"]


def test_relevance_scores_are_the_documented_bm25(seeded):
    """The order above is BM25 as documented (Lucene's idf, k1 1.2, b 0.75), computed here from
    the texts without git-hn's code."""
    import math

    seqs = {n: token_sequence(c + "\n" + "\n".join(t)) for n, (c, t) in SEED.items()}
    avgdl = sum(len(s) for s in seqs.values()) / len(seqs)

    def bm25(name, matchers):
        total = 0.0
        for hit in matchers:
            n = sum(1 for s in seqs.values() if any(hit(t) for t in s))
            idf = math.log(1 + (len(seqs) - n + 0.5) / (n + 0.5))
            f = sum(1 for t in seqs[name] if hit(t))
            if f:
                total += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len(seqs[name]) / avgdl))
        return total

    prefix = [lambda t: t.startswith("pars")]
    either = [lambda t: t == "parser", lambda t: t == "codec"]
    assert sorted(["m1", "m2", "m4", "m6"], key=lambda n: -bm25(n, prefix)) == ["m6", "m1", "m2", "m4"]
    assert sorted(["m1", "m2", "m3", "m4", "m6"], key=lambda n: -bm25(n, either)) == \
        ["m6", "m3", "m1", "m4", "m2"]


def test_relevance_pages_follow_their_cursor_and_refuse_the_other_orders(seeded):
    repo, _ids, names, _w = seeded
    rel = ("--query", "pars* OR codec OR cache", "--rank", "relevance")
    whole = _names(_recall(repo, *rel, "--max-records", "100"), names)
    # m2 holds two of the three leaves (parsers, parser; cache)
    assert whole == ["m6", "m3", "m2", "m10", "m9", "m1", "m4"]
    pages, cursor = [], []
    while True:
        doc = _recall(repo, *rel, "--max-records", "2", *cursor)
        assert doc["matched"] == 7
        pages += _names(doc, names)
        if "nextCursor" not in doc:
            break
        cursor = ["--cursor", doc["nextCursor"]]
    assert pages == whole
    # a cursor of one order is refused in the other, like any other filter mismatch
    first = _recall(repo, *rel, "--max-records", "2")
    plain = _recall(repo, "--query", "pars* OR codec OR cache", "--max-records", "2")
    assert plain["queryDigest"] != first["queryDigest"]
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--query", "pars* OR codec OR cache",
           "--max-records", "2", "--cursor", first["nextCursor"])
    assert (r.code, r.err) == (1, CURSOR_MISMATCH.format(then="given", now="not given"))
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted", *rel, "--max-records", "2",
           "--cursor", plain["nextCursor"])
    assert (r.code, r.err) == (1, CURSOR_MISMATCH.format(then="not given", now="given"))


def test_relevance_digest_and_input_request(seeded):
    """The default order's digest is the contract's (no rank key); relevance is part of the
    normalized request, and ``--input`` accepts it as ``rank``."""
    repo, _ids, names, _w = seeded
    base = _recall(repo, "--query", "pars*")
    assert _recall(repo, "--query", "pars*", "--rank", "default")["queryDigest"] == base["queryDigest"]
    ranked = _recall(repo, "--query", "pars*", "--rank", "relevance")
    assert ranked["queryDigest"] != base["queryDigest"]
    head = git(repo, "rev-parse", "HEAD")
    req = {"version": 0, "atCommit": head, "query": "pars*", "rank": "relevance", "includeUntrusted": True}
    r = hn(repo, "memory", "recall", "--json", "--input", "-", input=json.dumps(req).encode())
    assert r.json() == ranked
    req["rank"] = "default"
    r = hn(repo, "memory", "recall", "--json", "--input", "-", input=json.dumps(req).encode())
    assert r.json() == base


@pytest.mark.parametrize("args, message", [
    (["--rank", "relevance"], "relevance ranking needs a query"),
    (["--query", "parser", "--rank", "bm25"], "invalid rank: expected default or relevance"),
    # (an empty --rank was the default rank, silently; refused as every empty value: docs/decisions.md)
    (["--query", "parser", "--rank", ""], "usage: git hn memory recall [filters] [bounds] [--json]; --rank is "
                                          "empty: give default or relevance, or leave the option out"),
])
def test_rank_errors(seeded, args, message):
    r = hn(seeded[0], "memory", "recall", "--json", "--include-untrusted", *args)
    if message is None:
        assert r.code == 0, r.err
    else:
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: {message}\n")


def test_a_too_large_row_is_named_in_relevance_order(seeded):
    repo, ids, _names, _w = seeded
    # m2 (57 bytes encoded) and m4 (41) exceed 40: the first of them in each order is named
    for rank, first in (("relevance", "m2"), ("default", "m4")):
        r = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--query", "pars*", "--rank",
               rank, "--max-content-bytes", "40")
        assert (r.code, r.err) == (1, f"git-hn: memory {ids[first]} encoded content exceeds "
                                      "maxContentBytes; raise the explicit bound (on the command line "
                                      "--max-content-bytes, maxContentBytes in an --input request: every "
                                      "matched memory fits with --max-content-bytes 57)\n"), rank


# --- the verified state: equal to the full reference, kept current, never serving a bad row -----

QUERIES = ["parser", "pars*", "parser OR codec", '"stream isolation"', "codec OR isolation parser",
           "über*", "cache", '"the parser" OR budgets', "pars* OR codec OR cache", "x"]


def _compare_all(repo_path):
    for query in QUERIES:
        for rank in ("", "relevance"):
            for extra in ({}, {"max_records": 2}, {"lifecycle": ("all",)}):
                req = core_recall.RecallRequest(at_commit="HEAD", include_untrusted=True, query=query,
                                                rank=rank, **extra)
                repo = open_repo(str(repo_path))
                try:
                    got = recall_service.recall(repo, req)
                    assert got == recall_service.recall_full(repo, req), (query, rank, extra)
                    if got.get("nextCursor"):
                        nxt = req._replace(cursor=got["nextCursor"])
                        assert recall_service.recall(repo, nxt) == recall_service.recall_full(repo, nxt)
                finally:
                    repo.close()
    repo = open_repo(str(repo_path))
    try:
        index_service.verify(repo)
    finally:
        repo.close()


def test_state_answers_equal_the_full_reference_after_changes(seeded):
    repo, ids, names, (w, head, seq, prev, parent) = seeded
    _compare_all(repo)  # the first read builds the state
    # a supersession and a retraction (lifecycles change; superseded rows stay in the corpus)
    record = {"kind": "decision", "content": "the parser parses codec frames", "anchor": {"commit": head},
              "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
    prev, parent = w.write(repo, w.envelope(seq + 1, prev, "2026-01-01T00:01:00Z", record,
                                            operation="supersede", target=ids["m4"]), parent)
    prev, parent = w.write(repo, w.envelope(seq + 2, prev, "2026-01-01T00:01:01Z", None,
                                            operation="retract", target=ids["m6"], reason="obsolete"),
                           parent)
    _compare_all(repo)
    # a new record through the CLI (incremental update), then the stream rewound (memories drop)
    assert hn(repo, "init", "--name", "Alice").code == 0
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", "a parser for parsers")
    assert r.code == 0, r.err
    _compare_all(repo)
    ref = f"refs/hn/memory/{w.actor}/{w.stream[7:]}"
    git(repo, "update-ref", ref, git(repo, "rev-parse", f"{parent}~3"))
    _compare_all(repo)


def test_queries_beyond_the_sql_budget_give_the_same_answers(seeded, monkeypatch):
    """Groups past SQLite's expression budget are decided by one registered function running
    ``core.search.matches``: the same answers, in both orders."""
    from git_hn.service import rows as select

    repo, _ids, names, _w = seeded
    expected = {q: {rank: _query(repo, names, q, *(["--rank", rank] if rank else []))
                    for rank in ("", "relevance")} for q in QUERIES}
    monkeypatch.setattr(select, "SQL_TERMS", 1)
    for q, answers in expected.items():
        for rank, names_ in answers.items():
            assert _query(repo, names, q, *(["--rank", rank] if rank else [])) == names_, (q, rank)
    _compare_all(repo)


def test_relevance_statistics_count_every_row_not_only_the_filtered(seeded):
    """A retraction removes m6 from default recall but not from BM25's corpus: the scores of the
    others do not move, so their relative order is the same."""
    repo, ids, names, (w, head, seq, prev, parent) = seeded
    before = _query(repo, names, "parser OR codec", "--rank", "relevance")
    w.write(repo, w.envelope(seq + 1, prev, "2026-01-01T00:01:00Z", None, operation="retract",
                             target=ids["m6"], reason="obsolete"), parent)
    assert _query(repo, names, "parser OR codec", "--rank", "relevance") == [n for n in before if n != "m6"]
    assert _query(repo, names, "parser OR codec", "--rank", "relevance", "--lifecycle", "all") == before


def _db(repo):
    return repo / ".git" / "hn" / "memory" / "state-v0.sqlite"


def _tamper(repo, sql, args=()):
    """Rewrite the state and its seal consistently (what the seal cannot catch)."""
    conn = sqlite3.connect(str(_db(repo)))
    conn.execute(sql, args)
    conn.commit()
    conn.close()
    r = open_repo(str(repo))
    try:
        statedb.write_seal(r)
    finally:
        r.close()


def test_a_tampered_token_sequence_is_never_served(seeded):
    """State poisoning aimed at search: a row's stored sequence claims words its signed text does
    not hold. The served row is re-checked against Git, the state is discarded and rebuilt, and
    the answer is the full reference's; ``index verify`` reports the tampered table."""
    repo, ids, names, _w = seeded
    assert _query(repo, names, "parser OR codec") == ["m6", "m4", "m3", "m2", "m1"]
    forged = search.wrap(["parser"] * 50)
    _tamper(repo, "UPDATE texts SET seq = ?, length = 50 WHERE id = ?", (forged, ids["m7"]))
    _tamper(repo, "UPDATE rows SET tokens = ' parser ' WHERE id = ?", (ids["m7"],))
    r = open_repo(str(repo))
    try:
        with pytest.raises(Exception) as exc:
            index_service.verify(r)
        assert "memory state differs from a rebuild" in str(exc.value)
    finally:
        r.close()
    # the forged row would rank first; it is re-checked against its signed text and refused
    assert _query(repo, names, '"parser parser"', "--rank", "relevance") == ["m6"]
    assert hn(repo, "memory", "index", "verify").code == 0  # rebuilt
    _tamper(repo, "UPDATE texts SET seq = ? WHERE id = ?", (search.wrap(["budgets"]), ids["m6"]))
    # m6's frequencies no longer agree with its text: refused, rebuilt, the true order served
    assert _query(repo, names, "pars*", "--rank", "relevance") == ["m6", "m1", "m2", "m4"]
    _tamper(repo, "DELETE FROM texts WHERE id = ?", (ids["m1"],))
    assert _query(repo, names, "pars*", "--rank", "relevance") == ["m6", "m1", "m2", "m4"]
    assert hn(repo, "memory", "index", "verify").code == 0


# --- the pure grammar -----------------------------------------------------------------------------

def test_plain_queries_parse_to_the_contracts_token_and():
    """Any query without quotes, a word-final * or a standalone OR means exactly what §7.8 says:
    all of its tokens (checked on random texts and queries, ASCII and not)."""
    rng = random.Random(13)
    words = ["parser", "Codec", "stream", "isolation", "or", "ÖL", "über", "x1", "a-b", "c.d", "!!",
             "naïve", "日本語", "it's", "*x", "y*z", "OR-", "ORx"]
    for _ in range(400):
        text = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 8)))
        q = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 4)))
        if not tokens(q):
            continue
        parsed = search.parse(q)
        assert sorted(set(parsed.plain_terms())) == tokens(q), q
        assert search.matches(parsed, search.wrap(token_sequence(text))) == \
            (set(tokens(q)) <= set(tokens(text))), (q, text)
