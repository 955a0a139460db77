"""Projection never depends on arrival order or timestamps (CONTRACT §5.1, §5.4)."""

from __future__ import annotations

import random

from git_hn.core.projection import Context, project, row_index_json
from git_hn.core.policy import MISSING_DIGEST
from git_hn.store import streams
from git_hn.store.repo import open_repo
from git_hn.store.resolver import Resolver
from helpers import git, hn
from independent import append_by_hand


def _rec(repo, content, *args):
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", *args, "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _supersede(repo, target, content):
    r = hn(repo, "memory", "supersede", target, "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--content", content, "--allow-branch")
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def test_permuted_inputs_project_identically(inited):
    a = append_by_hand(inited, {"kind": "decision", "content": "a", "anchor": {"commit": git(inited, "rev-parse", "HEAD")},
                                "applicability": {"mode": "descendants"}, "topics": [],
                                "evidence": ["memory:sha256:" + "7" * 64]})  # (git-hn refuses to sign it)
    b = _rec(inited, "b")
    _supersede(inited, a, "a2")
    _supersede(inited, b, "b2")
    _supersede(inited, b, "b3")
    c = _rec(inited, "c", "--evidence", f"git:{git(inited, 'rev-parse', 'HEAD')}")
    assert hn(inited, "memory", "retract", c, "--reason", "obsolete").code == 0
    repo = open_repo(str(inited))
    memories = list(streams.collect(repo).memories)
    ctx = Context(git(inited, "rev-parse", "HEAD"), "", "", None, MISSING_DIGEST)

    def snapshot(mems):
        proj = project(mems, ctx, Resolver(repo))
        return ([row_index_json(r) for r in proj.rows.values()], proj.relationships,
                proj.dependencies, proj.diagnostics)

    reference = snapshot(memories)
    rng = random.Random(1234)
    for _ in range(10):
        shuffled = memories[:]
        rng.shuffle(shuffled)
        assert snapshot(shuffled) == reference
    rows = {r["id"]: r for r in reference[0]}
    assert rows[a]["lifecycle"] == "superseded"
    assert rows[b]["lifecycle"] == "branching"
    assert rows[c]["lifecycle"] == "retracted"
    assert rows[a]["evidence"] == "missing"
    assert [d["kind"] for d in rows[a]["dependencies"]] == ["evidence-memory"]
    # the projection is sorted by ID whatever the signed timestamps say
    assert [r["id"] for r in reference[0]] == sorted(rows)
    repo.close()
