"""The state's full derivation a bounded batch at a time (``store.derive``, issue 11: ``index
verify`` and the first build held every verified memory at once, ~580 MiB at 100,000) equals the
whole collection loaded at once (``streams.collect`` then ``state.load_collection``): the same
tables, the same export bytes, the same failures. Batches, windows and pages of one memory put a
memory's supersede, retraction and challenge in other batches than it, and a chain that two refs
share is verified once and recorded for both."""

from __future__ import annotations

import json
import sqlite3

import pytest

from agent_helpers import second_identity, switch
from helpers import git, hn
from independent import Writer, unb64

TABLES = ("sources", "chain", "memories", "evref", "akeys", "rows", "texts", "topics")


def _rec(repo, content, *args, kind="decision"):
    r = hn(repo, "memory", "record", "--json", "--kind", kind, "--at", "HEAD", "--applies", "descendants",
           *args, "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _ok(r):
    assert r.code == 0, r.err


def _tables(conn) -> dict:
    """Every row of every table, in key order (``akeys`` by number: the keys are numbered alike)."""
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY " + ", ".join(
        str(i + 1) for i in range(len(conn.execute(f"SELECT * FROM {t} LIMIT 0").description)))).fetchall()
            for t in TABLES}


def _empty():
    from git_hn.store import statedb

    conn = sqlite3.connect("", isolation_level=None)
    conn.executescript(statedb.SCHEMA)
    return conn


def _whole(path):
    """(tables, totals, collection) of the whole collection loaded at once, as before."""
    from git_hn.store import state, streams
    from git_hn.store.repo import open_repo

    repo = open_repo(str(path))
    collection = streams.collect(repo, streams.list_sources(repo))
    conn = _empty()
    totals = state.load_collection(conn, collection)
    return _tables(conn), totals, collection


def _batched(path, monkeypatch, **sizes):
    """(tables, totals, export bytes) of ``derive.load`` in batches of ``sizes``."""
    from git_hn.service import index as index_service
    from git_hn.store import derive, streams
    from git_hn.store.repo import open_repo

    repo = open_repo(str(path))
    conn = _empty()
    totals = derive.load(repo, conn, streams.list_sources(repo), **sizes)
    monkeypatch.setattr(derive, "PAGE", sizes.get("page", derive.PAGE))
    data = index_service.index_bytes(repo, conn, "sha256:" + "0" * 64, totals, 1 << 30)
    return _tables(conn), totals, data


def _whole_export(path, collection, totals) -> bytes:
    """The export as ``index_bytes`` derived it from the whole collection before (one projection
    of every memory at the ``HEAD`` context)."""
    from git_hn.core import index as core_index
    from git_hn.core.gostr import tokens
    from git_hn.core.projection import Context, project, row_index_json
    from git_hn.service.index import head_context
    from git_hn.store.repo import open_repo
    from git_hn.store.resolver import Resolver

    repo = open_repo(str(path))
    resolver = Resolver(repo)
    head, policy = head_context(repo, resolver)
    proj = project(list(collection.memories), Context(head, "", "", policy.memory, policy.digest), resolver)
    rows = sorted((row_index_json(r) for r in proj.rows.values()), key=lambda r: r["id"])
    return core_index.encode(core_index.build("sha256:" + "0" * 64, rows, [tokens(core_index.row_text(r))
                                                                            for r in rows]))


@pytest.fixture
def history(inited):
    """Two actors' streams: a decision cited, superseded, retracted and challenged by memories
    recorded after it (bob's stream in its own batches), and an accepted copy of alice's stream
    at its tip's parent (a chain two refs share)."""
    repo = inited
    head = git(repo, "rev-parse", "HEAD")
    a = _rec(repo, "stream isolation matters", "--topic", "architecture")
    b = _rec(repo, "flaky isolation test", "--topic", "tests", kind="observation")
    c = _rec(repo, "see the decision", "--evidence", f"memory:{a}", "--evidence", f"git:{head}", kind="verification")
    _ok(hn(repo, "memory", "supersede", a, "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "stream isolation matters more", "--topic", "architecture"))
    _ok(hn(repo, "memory", "retract", b, "--reason", "obsolete"))
    alice = (repo / ".git" / "hn" / "active").read_text().strip()
    bob = second_identity(repo)
    switch(repo, bob)
    _rec(repo, "bob disagrees about isolation", kind="assumption")
    _ok(hn(repo, "memory", "challenge", c, "--reason", "unverified"))
    _ok(hn(repo, "memory", "challenge", a, "--reason", "superseded-anyway"))
    switch(repo, alice)
    _rec(repo, "a last word", "--evidence", f"memory:{c}")
    ref = git(repo, "for-each-ref", "--format=%(refname)", f"refs/hn/memory/{alice}").split()[0]
    git(repo, "update-ref", ref.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/"), ref + "~1")
    return repo


@pytest.mark.parametrize("sizes", [dict(batch=1, window=1, page=1), dict(batch=3, window=2, page=2), {}])
def test_a_batched_derivation_equals_the_whole_collection_loaded_at_once(history, monkeypatch, sizes):
    whole, whole_totals, collection = _whole(history)
    tables, totals, data = _batched(history, monkeypatch, **sizes)
    assert len(whole["sources"]) == 3 and len(whole["chain"]) > len(whole["memories"])  # (the shared chain)
    assert {r[2] for r in whole["rows"]} >= {"superseded", "retracted"} and any(r[4] for r in whole["rows"])
    assert tables == whole
    assert totals == whole_totals
    assert data == _whole_export(history, collection, whole_totals)
    doc = json.loads(data)
    assert len(doc["records"]) == whole_totals.rows


def _divergent(repo, tmp_path):
    """An accepted copy of the active stream that differs from it at sequence 1."""
    actor = (repo / ".git" / "hn" / "active").read_text().strip()
    ref = git(repo, "for-each-ref", "--format=%(refname)", f"refs/hn/memory/{actor}").split()[0]
    doc = json.loads((repo / ".git" / "hn" / "identities" / f"{actor}.json").read_text())
    w = Writer(unb64(doc["privateKey"])[:32], doc["name"])
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(repo), str(other))
    rec = {"kind": "observation", "content": "forked", "anchor": {"commit": git(other, "rev-parse", "HEAD")},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    _id, commit = w.write(other, w.envelope(1, "", "2026-01-01T00:00:00Z", rec))
    git(repo, "fetch", "-q", str(other), commit)
    git(repo, "update-ref", ref.replace("refs/hn/memory/", "refs/hn/remotes/zz/memory/"), commit)
    return ref


def _error(work):
    from git_hn.errors import HnError

    try:
        work()
    except HnError as exc:
        return type(exc).__name__, str(exc)
    raise AssertionError("no failure")


@pytest.mark.parametrize("fault", ["divergent", "forged"])
def test_a_batched_derivation_fails_as_the_whole_collection_does(history, tmp_path, fault):
    """The first failure in name order, worded alike: a divergent accepted copy (found only once
    every chain verified), and a ref at a commit that is no memory (before a valid stream)."""
    from git_hn.store import derive, streams
    from git_hn.store.repo import open_repo

    if fault == "divergent":
        _divergent(history, tmp_path)
    else:
        from helpers import forged_commit

        blob = git(history, "hash-object", "-w", "--stdin", input=b"{}")
        bad = forged_commit(history, f"100644 blob {blob}\tmemory.json\n100644 blob {blob}\tsignature\n")
        git(history, "update-ref", "refs/hn/memory/" + "0" * 64 + "/" + "0" * 64, bad)

    def whole():
        repo = open_repo(str(history))
        streams.collect(repo, streams.list_sources(repo))

    def batched():
        repo = open_repo(str(history))
        derive.load(repo, _empty(), streams.list_sources(repo), batch=1, window=1, page=1)

    expected = _error(whole)
    assert ("divergent chains" if fault == "divergent" else "memory source") in expected[1]
    assert _error(batched) == expected
