"""Idempotent retries (CONTRACT §7.14 "Replay"): an agent that retries a request after a timeout
gets the memory it already wrote, and the stream does not grow. Only the head is compared.
"""

from __future__ import annotations

import json

from agent_helpers import actor, record, second_identity, stream_length, switch
from helpers import git, hn, refs_snapshot

BASE = ["--kind", "decision", "--at", "HEAD", "--applies", "descendants"]


def test_retried_record_returns_the_same_id_and_appends_nothing(inited):
    first = hn(inited, "memory", "record", "--json", *BASE, "--content", "Use canonical JSON")
    assert first.code == 0, first.err
    assert "replayed" not in first.json()  # a new append keeps upstream's output
    before = refs_snapshot(inited)
    again = hn(inited, "memory", "record", "--json", *BASE, "--content", "Use canonical JSON")
    assert again.code == 0, again.err
    doc = again.json()
    assert list(doc) == ["version", "memoryId", "stream", "actor", "anchor", "replayed"]
    assert doc["replayed"] is True
    assert {k: v for k, v in doc.items() if k != "replayed"} == first.json()
    assert refs_snapshot(inited) == before
    assert stream_length(inited) == 1
    human = hn(inited, "memory", "record", *BASE, "--content", "Use canonical JSON")
    mid = first.json()["memoryId"]
    head = git(inited, "rev-parse", "HEAD")
    assert human.out.splitlines() == [
        f"Memory: {mid}", f"Stream: {doc['stream']}", f"Actor: {doc['actor']}", f"Anchor: {head}",
        "Replayed: existing memory returned; nothing appended"]
    assert stream_length(inited) == 1


def test_flags_and_input_with_the_same_values_replay_each_other(inited):
    head = git(inited, "rev-parse", "HEAD")
    out = record(inited, "--topic", "Memory", "--topic", "arch", content="same")
    req = {"version": 0, "kind": "decision", "content": "same", "anchor": {"commit": head},
           "applicability": {"mode": "descendants"}, "topics": ["memory", " ARCH "], "evidence": []}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(req).encode())
    assert r.json() == {**out, "replayed": True}
    assert stream_length(inited) == 1


def test_any_difference_appends(inited):
    record(inited, content="one")
    assert record(inited, content="one", applies="exact").get("replayed") is None
    assert record(inited, "--topic", "t", content="one", applies="exact").get("replayed") is None
    assert record(inited, "--topic", "t", content="one", applies="exact", kind="observation") \
        .get("replayed") is None
    assert stream_length(inited) == 4


def test_a_request_equal_to_an_older_memory_appends(inited):
    a = record(inited, content="alpha")["memoryId"]
    record(inited, content="beta")
    again = record(inited, content="alpha")
    assert "replayed" not in again and again["memoryId"] != a
    assert stream_length(inited) == 3


def test_handoff_supersede_retract_and_challenge_replay(inited):
    handoff = ["--at", "HEAD", "--applies", "descendants", "--content", "end of session",
               "--completed", "codec", "--next-action", "write tests"]
    h1 = hn(inited, "memory", "handoff", "--json", *handoff).json()
    h2 = hn(inited, "memory", "handoff", "--json", *handoff).json()
    assert h2 == {**h1, "replayed": True}

    target = record(inited, content="old decision")["memoryId"]
    sup = ["supersede", target, "--json", *BASE, "--content", "new decision"]
    s1 = hn(inited, "memory", *sup).json()
    s2 = hn(inited, "memory", *sup).json()
    assert s2 == {**s1, "replayed": True}

    r1 = hn(inited, "memory", "retract", s1["memoryId"], "--reason", "obsolete", "--json").json()
    assert list(r1) == ["version", "memoryId", "stream", "actor"]  # no anchor for retract
    r2 = hn(inited, "memory", "retract", s1["memoryId"], "--reason", " Obsolete ", "--json").json()
    assert r2 == {**r1, "replayed": True}
    length = stream_length(inited)

    bob = second_identity(inited)
    alice = actor(inited)
    claim = record(inited, content="the cache is safe")["memoryId"]
    switch(inited, bob)
    evidence = ["--evidence", f"git:{git(inited, 'rev-parse', 'HEAD')}"]
    c1 = hn(inited, "memory", "challenge", claim, "--reason", "evidence-mismatch", *evidence, "--json")
    c2 = hn(inited, "memory", "challenge", claim, "--reason", "evidence-mismatch", *evidence, "--json")
    assert c2.json() == {**c1.json(), "replayed": True}
    # different evidence is a different challenge
    c3 = hn(inited, "memory", "challenge", claim, "--reason", "evidence-mismatch", "--json")
    assert "replayed" not in c3.json()
    switch(inited, alice)
    assert stream_length(inited) == length + 1 + 2


def test_replay_still_runs_the_target_checks(inited):
    target = record(inited, content="x")["memoryId"]
    hn(inited, "memory", "retract", target, "--reason", "incorrect")
    # retracting again is a replay of the head, and it is still allowed for the author
    r = hn(inited, "memory", "retract", target, "--reason", "incorrect", "--json")
    assert r.json()["replayed"] is True
    bob = second_identity(inited)
    switch(inited, bob)
    r = hn(inited, "memory", "retract", target, "--reason", "incorrect")
    assert r.err == (f"git-hn: only the target author may retract memory {target}; to dispute another author's memory, "
                     f"challenge it: git hn memory challenge {target[7:19]} --reason REASON\n")


def test_replay_survives_a_lost_verified_state(inited):
    record(inited, content="cached")
    cache = inited / ".git" / "hn" / "memory" / "state-v0.sqlite"
    cache.unlink()
    assert record(inited, content="cached")["replayed"] is True
    assert stream_length(inited) == 1


def test_the_secret_lint_is_not_bypassed_by_a_replay(inited):
    token = "ghp_" + "Ab1" * 12
    first = hn(inited, "memory", "record", "--json", *BASE, "--content", token, "--allow-secret-shaped")
    assert first.code == 0
    again = hn(inited, "memory", "record", "--json", *BASE, "--content", token)
    assert again.code == 1 and "github-token" in again.err
