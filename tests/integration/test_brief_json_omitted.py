"""A JSON brief that leaves items out for its bound (S88 trial, finding 5): the README's agent call,
``brief --json --max-bytes 8000``, dropped one of two streams' latest handoffs while routine
memories were kept, and only ``omitted`` (a count) said anything was left out. Every stream's
latest handoff that fits now comes before the routine memories (core.brief, f86), and stderr says
how many items were left out and what shows them (§7.15 fixes the document's keys). Real
repositories, real Git."""

from __future__ import annotations

import json

from agent_helpers import actor, commit_policy, policy, record, second_identity, switch
from helpers import hn, make_repo

KINDS = ["assumption", "attempt", "decision", "handoff", "observation", "verification"]


def _two_sessions(tmp_path):
    """Alice's and Bob's sessions, each two decisions, an observation, an assumption and a handoff."""
    repo = make_repo(tmp_path / "r", files={"m.py": "def f(): return 1\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    alice = actor(repo)
    bob = second_identity(repo, "Bob")
    commit_policy(repo, policy([alice, bob], KINDS, alice))
    handoffs = []
    for who in (alice, bob):
        switch(repo, who)
        for n in range(2):
            record(repo, "--path", "m.py", content=f"decision {n}: keep f small and pure, " * 3)
        record(repo, kind="observation", content="the tests take 0.2 s on this machine, " * 3)
        record(repo, kind="assumption", content="python 3.11 everywhere, " * 3)
        r = hn(repo, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants", "--content",
               "added add and sub", "--completed", "added add/sub", "--next-action", "add pow",
               "--blocker", "none really", "--assumption", "3.11")
        assert r.code == 0, r.err
        handoffs.append(r.json()["memoryId"])
    switch(repo, alice)
    return repo, handoffs


def test_a_tight_json_brief_keeps_every_latest_handoff_and_says_what_it_left_out(tmp_path):
    repo, handoffs = _two_sessions(tmp_path)
    r = hn(repo, "memory", "brief", "--json", "--max-bytes", "6000")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["omitted"] > 1, doc["omitted"]
    assert sorted(h["id"] for h in doc["handoffs"]) == sorted(handoffs), doc["handoffs"]
    said = [x for x in r.err.splitlines() if "did not fit" in x]
    assert said == [f"git-hn: hint: {doc['omitted']} items of the brief did not fit in --max-bytes 6000 (an item is "
                    "never cut): a larger --max-bytes shows them, the Markdown brief (without --json) names those "
                    "it leaves out, and git hn memory recall lists them by kind, path or topic"], r.err
    whole = hn(repo, "memory", "brief", "--json")  # (nothing left out: nothing said)
    assert json.loads(whole.out)["omitted"] == 0 and "did not fit" not in whole.err, whole.err
    md = hn(repo, "memory", "brief", "--max-bytes", "3000")  # (the Markdown names them in its body)
    assert "Left out" in md.out and "did not fit" not in md.err, (md.out, md.err)


def test_a_json_brief_that_lists_nothing_names_the_bound_that_lists_one(tmp_path):
    repo, _ = _two_sessions(tmp_path)
    r = hn(repo, "memory", "brief", "--json", "--max-bytes", "600")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    said = [x for x in r.err.splitlines() if "fits in --max-bytes" in x]
    assert len(said) == 1 and said[0].startswith(f"git-hn: hint: none of the brief's {doc['omitted']} items fits in "
                                                 "--max-bytes 600 (an item is never cut): --max-bytes "), r.err
    bound = said[0].rsplit("--max-bytes ", 1)[1].split(" ")[0]
    assert json.loads(hn(repo, "memory", "brief", "--json", "--max-bytes", bound).out)["omitted"] < doc["omitted"]
