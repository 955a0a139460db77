"""Relevance order from the verified state keeps only a page's worth of the best rows (f172):
SQLite scores every match with ``core.search.sql_score`` and its sorter keeps the ``limit``
best, instead of Python scoring and sorting every match. The answer must not change by one byte:
on a randomized corpus built for ties (repeated texts, shared timestamps, one-token and long
texts, Unicode terms, superseded and retracted rows), every page of every query, walked by its
cursor, and every content-bound refusal equal the full reference's (``recall_full``: every row
projected and scored in Python, as ``core.page`` orders them).
"""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from git_hn.core import recall as core_recall
from git_hn.core import search
from git_hn.errors import HnError
from git_hn.service import recall as recall_service
from git_hn.store.repo import open_repo
from helpers import git, make_repo
from independent import Writer

# few words, so that texts repeat and scores tie; upper case, composed and CJK letters, digits
VOCAB = ["parser", "parsers", "Parser", "codec", "cache", "über", "Überprüfung", "straße", "世界",
         "ölpumpe", "x1", "42", "the", "a", "stream", "isolation"]
QUERIES = ["parser", "pars*", "über*", "世界", "straße", "codec OR cache", "parser codec",
           '"the parser"', '"stream isolation" OR 42', "x1 OR a OR the", "the", "a*", "ölpumpe parser*",
           "cache OR codec OR über OR 世界 OR x1", "parser parser", "nothing"]


def _text(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.2:
        return rng.choice(VOCAB)  # one token: the shortest documents
    n = rng.randint(2, 8) if shape < 0.7 else rng.randint(30, 120)  # short and long documents
    words = rng.choices(VOCAB[:rng.randint(2, len(VOCAB))], k=n)
    return " ".join(words)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = random.Random(172)
    repo = make_repo(tmp_path_factory.mktemp("topk") / "r")
    head = git(repo, "rev-parse", "HEAD")
    writers = [Writer(bytes([40 + i]) * 32, f"Writer {i}") for i in range(3)]
    tips = {w.actor: ("", "") for w in writers}
    seqs = {w.actor: 0 for w in writers}
    texts: list[str] = []
    written: dict[str, list[str]] = {w.actor: [] for w in writers}
    for i in range(150):
        w = writers[i % 3]
        prev, parent = tips[w.actor]
        seqs[w.actor] += 1
        # few distinct timestamps (ties in the §7.7 order), and some texts written again verbatim
        ts = f"2026-01-01T00:{i // 15:02d}:00Z"
        content = rng.choice(texts) if texts and rng.random() < 0.25 else _text(rng)
        texts.append(content)
        topics = sorted({rng.choice(["parser", "codec", "wartung", "世界"])} if rng.random() < 0.3 else set())
        op = {}
        if written[w.actor] and rng.random() < 0.1:  # superseded rows stay in BM25's corpus
            op = {"operation": "supersede", "target": rng.choice(written[w.actor])}
        record = {"kind": rng.choice(["decision", "observation"]), "content": content,
                  "anchor": {"commit": head}, "applicability": {"mode": "descendants"}, "topics": topics,
                  "evidence": []}
        ident, parent = w.write(repo, w.envelope(seqs[w.actor], prev, ts, record, **op), parent)
        tips[w.actor] = (ident, parent)
        written[w.actor].append(ident)
    w = writers[0]
    prev, parent = tips[w.actor]
    w.write(repo, w.envelope(seqs[w.actor] + 1, prev, "2026-01-01T00:11:00Z", None, operation="retract",
                             target=written[w.actor][3], reason="obsolete"), parent)
    return repo


PAGES = 4  # followed by cursor, of each answer (the full reference projects every row each time)


def _answer(repo_path, fn, req) -> str:
    """The answer as the bytes ``--json`` prints, or the refusal's message."""
    repo = open_repo(str(repo_path))
    try:
        return json.dumps(fn(repo, req), ensure_ascii=False, separators=(",", ":"))
    except HnError as exc:
        return f"error: {exc}"
    finally:
        repo.close()


@pytest.mark.parametrize("query", QUERIES)
def test_every_page_equals_the_full_scoring_reference(corpus, query):
    for extra in ({}, {"lifecycle": ("all",)}, {"max_content_bytes": 200}, {"max_bytes": 3000}):
        for max_records in (2, 1000):
            req = core_recall.RecallRequest(at_commit="HEAD", include_untrusted=True, query=query,
                                            rank="relevance", max_records=max_records, **extra)
            for pages in range(PAGES):
                got = _answer(corpus, recall_service.recall, req)
                assert got == _answer(corpus, recall_service.recall_full, req), (query, extra, max_records, pages)
                if got.startswith("error: ") or "nextCursor" not in json.loads(got):
                    break
                req = req._replace(cursor=json.loads(got)["nextCursor"])


def test_a_cursor_past_every_tie_is_followed_exactly(corpus):
    """Rows of one score, lifecycle and timestamp differ by ID alone: a cursor on each of them
    resumes right after it, as the full reference does."""
    req = core_recall.RecallRequest(at_commit="HEAD", include_untrusted=True, query="parser",
                                    rank="relevance", max_records=1000, lifecycle=("all",))
    whole = json.loads(_answer(corpus, recall_service.recall_full, req))["memories"]
    assert len(whole) > 40
    digest = json.loads(_answer(corpus, recall_service.recall_full, req))["queryDigest"]
    for row in whole:
        cursor = core_recall.encode_cursor(digest, row["id"])
        nxt = req._replace(cursor=cursor, max_records=2)
        assert _answer(corpus, recall_service.recall, nxt) == _answer(corpus, recall_service.recall_full, nxt)


def test_sql_score_is_the_python_score_bit_for_bit():
    """``core.search.sql_score`` in SQLite and ``core.search.scorer`` in Python: the same float
    (compared by its bits) for random corpora, frequencies (zeros included) and lengths."""
    rng = random.Random(1720)
    conn = sqlite3.connect(":memory:")
    for _ in range(300):
        leaves = rng.randint(1, 6)
        docs = rng.randint(1, 200_000)
        stats = search.Stats(docs, rng.randint(0, docs * 300), tuple(rng.randint(0, docs) for _ in range(leaves)))
        names = [f"f{i}" for i in range(leaves)]
        expr, args = search.sql_score(stats, names, "dl")
        score = search.scorer(stats)
        for _ in range(20):
            length = rng.randint(1, 5000)
            freqs = tuple(rng.choice([0, 0, 1, 2, 3, rng.randint(1, length)]) for _ in range(leaves))
            cols = ", ".join(["? AS dl"] + [f"? AS {n}" for n in names])
            got = conn.execute(f"SELECT {expr} FROM (SELECT {cols})", [*args, length, *freqs]).fetchone()[0]
            assert float(got).hex() == score(freqs, length).hex(), (stats, freqs, length)
