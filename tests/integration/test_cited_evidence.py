"""``memory:`` evidence must name a memory this clone holds before anything is signed (an agent
trial): CONTRACT §9.9 makes a missing one a blocking ``evidence-memory`` dependency, so a
mistyped ID, signed without a word, stopped every other clone's import of the author's stream
at that memory, and at every later memory of it, for good. Real repositories and a real
``git hn mcp`` server; nothing is mocked.
"""

from __future__ import annotations

import json

from agent_helpers import second_identity, switch
from helpers import git, hn, refs_snapshot
from independent import append_by_hand, verify_commit
from test_agent_mcp import document, run, text

ABSENT = "memory:sha256:" + "d" * 64
REFUSED = (f"git-hn: memory record evidence {ABSENT} names a memory not found in verified local or "
           "accepted streams; nothing was recorded (every clone importing this stream would stop at it "
           "for good): git hn sync the remote that holds it first, or leave it out\n")

CHALLENGE_REFUSED = REFUSED.replace("memory record evidence", "memory challenge evidence").replace(
    "nothing was recorded", "the challenge was not signed")


def _record(repo, *args, content="x"):
    return hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
              "descendants", "--content", content, *args)


def test_record_refuses_memory_evidence_this_clone_does_not_hold(inited):
    held = _record(inited, content="held").json()["memoryId"]
    before = refs_snapshot(inited)
    r = _record(inited, "--evidence", f"memory:{held}", "--evidence", ABSENT)
    assert (r.code, r.out, r.err) == (1, "", REFUSED)
    assert refs_snapshot(inited) == before
    # the same through --input, and through memory import (which names the line)
    draft = {"version": 0, "kind": "decision", "content": "x", "anchor": {"commit": git(inited, "rev-parse", "HEAD")},
             "applicability": {"mode": "descendants"}, "topics": [], "evidence": [ABSENT]}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(draft).encode())
    assert (r.code, r.err) == (1, REFUSED)
    fine = dict(draft, evidence=[f"memory:{held}"], content="fine")
    lines = f"{json.dumps(fine)}\n{json.dumps(draft)}\n".encode()
    (inited / "drafts.jsonl").write_bytes(lines)
    r = hn(inited, "memory", "import", "drafts.jsonl")
    assert (r.code, r.err) == (1, REFUSED.replace("git-hn: ", "git-hn: import line 2: "))
    assert refs_snapshot(inited) == before  # (all or nothing: line 1 was not signed either)
    # a memory this clone holds is cited as before
    r = _record(inited, "--evidence", f"memory:{held}", content="cites")
    assert r.code == 0, r.err


def test_supersede_leaves_out_inherited_evidence_no_memory_here_has(inited):
    """A memory another implementation signed with such evidence can still be corrected: the
    supersession does not inherit what ``record`` would refuse, and says so."""
    held = _record(inited, content="held").json()["memoryId"]
    old = append_by_hand(inited, {"kind": "decision", "content": "old", "anchor": {
        "commit": git(inited, "rev-parse", "HEAD")}, "applicability": {"mode": "descendants"},
        "topics": [], "evidence": [f"memory:{held}", ABSENT]})
    r = hn(inited, "memory", "supersede", old, "--json", "--content", "new")
    assert r.code == 0, r.err
    assert (f"git-hn: warning: evidence {ABSENT} of the superseded memory was not carried over: no verified "
            "memory here has that ID, and a clone importing the new memory would stop at it for good\n") in r.err
    new = r.json()["memoryId"]
    shown = hn(inited, "memory", "show", new, "--json").json()
    assert shown["projection"]["data"]["evidence"] == [f"memory:{held}"]
    assert shown["projection"]["evidence"] == "resolved"


def test_mcp_record_refuses_and_supersede_leaves_out(inited):
    held = _record(inited, content="held").json()["memoryId"]
    old = append_by_hand(inited, {"kind": "decision", "content": "old", "anchor": {
        "commit": git(inited, "rev-parse", "HEAD")}, "applicability": {"mode": "descendants"},
        "topics": [], "evidence": [ABSENT]})
    before = refs_snapshot(inited)

    async def body(client):
        refused = await client.call_tool("memory_record", {"kind": "decision", "content": "x",
                                                           "evidence": [ABSENT]})
        after_refusal = refs_snapshot(inited)
        sup = await client.call_tool("memory_supersede", {"memory": old, "content": "new"})
        return refused, after_refusal, sup

    refused, after_refusal, sup = run(inited, body, "--allow-write")
    assert refused.is_error is True and text(refused) == REFUSED[:-1]
    assert after_refusal == before
    doc = document(sup)
    assert f"Evidence {ABSENT} of the superseded memory was not carried over" in doc["hint"]
    shown = hn(inited, "memory", "show", doc["result"]["memoryId"], "--json").json()
    assert shown["projection"]["data"]["evidence"] == [] and held


def test_challenge_refuses_memory_evidence_this_clone_does_not_hold(inited):
    """A team trial: ``challenge --evidence memory:<unknown ID>`` was signed while ``record``
    refused the same item; the challenge blocks every importer of its stream alike (§9.9), so
    every signing path refuses it (CLI and MCP; retract takes no evidence)."""
    held = _record(inited, content="held").json()["memoryId"]
    claim = _record(inited, content="claim").json()["memoryId"]
    switch(inited, second_identity(inited))
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "challenge", claim, "--reason", "incorrect", "--evidence", f"memory:{held}",
           "--evidence", ABSENT, "--json")
    # (a review: a refused challenge said "nothing was recorded"): it says what it refused
    assert (r.code, r.out, r.err) == (1, "", CHALLENGE_REFUSED)
    assert refs_snapshot(inited) == before

    async def body(client):
        refused = await client.call_tool("memory_challenge", {"memory": claim, "reason": "incorrect",
                                                              "evidence": [ABSENT]})
        return refused, refs_snapshot(inited)

    refused, after = run(inited, body, "--allow-write")
    assert refused.is_error is True
    assert text(refused) == CHALLENGE_REFUSED[:-1]
    assert after == before
    r = hn(inited, "memory", "challenge", claim, "--reason", "incorrect", "--evidence", f"memory:{held}")
    assert r.code == 0, r.err


def test_every_other_signing_path_refuses_it_alike(inited):
    """handoff and supersede with the item given (CLI and MCP) refuse as record does; retract
    takes no evidence (its --evidence is a usage error, CONTRACT §10.3)."""
    mine = _record(inited, content="mine").json()["memoryId"]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "h",
           "--evidence", ABSENT)
    assert (r.code, r.err) == (1, REFUSED)
    r = hn(inited, "memory", "supersede", mine, "--content", "new", "--evidence", ABSENT)
    assert (r.code, r.err) == (1, REFUSED)
    r = hn(inited, "memory", "retract", mine, "--reason", "incorrect", "--evidence", ABSENT)
    assert r.code == 1 and r.err.startswith("git-hn: usage: git hn memory retract")

    async def body(client):
        out = [await client.call_tool("memory_handoff", {"content": "h", "evidence": [ABSENT]}),
               await client.call_tool("memory_supersede", {"memory": mine, "content": "new",
                                                           "evidence": [ABSENT]})]
        return out, refs_snapshot(inited)

    answers, after = run(inited, body, "--allow-write")
    assert [(a.is_error, text(a)) for a in answers] == [(True, REFUSED[:-1])] * 2
    assert after == before


def _evidence_of(repo, memory_id):
    """The evidence as signed (read and verified by the independent checker)."""
    env = verify_commit(repo, hn(repo, "memory", "show", memory_id, "--json").json()["commit"])
    return (env.get("record") or env)["evidence"]


def test_a_short_memory_id_works_as_evidence_on_the_command_line(inited):
    """A newcomer trial: ``challenge -h`` says "give it as --evidence memory:ID" and the README "a
    short ID works wherever a memory is named", yet ``--evidence memory:deea7652947b`` was refused.
    On the command line a unique prefix (8+ hex digits, ``sha256:`` optional) is resolved as
    ``show`` resolves it, and the full ID is what is signed."""
    held = _record(inited, content="held").json()["memoryId"]
    short, full = held[len("sha256:"):][:12], f"memory:{held}"
    cites = _record(inited, "--evidence", f"memory:{short}", content="cites").json()["memoryId"]
    assert _evidence_of(inited, cites) == [full]
    r = hn(inited, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "exact", "--content", "h",
           "--evidence", f"memory:sha256:{short[:8]}", "--next-action", "go on")
    assert _evidence_of(inited, r.json()["memoryId"]) == [full]
    r = hn(inited, "memory", "supersede", cites[len("sha256:"):][:8], "--json", "--content", "again",
           "--evidence", f"memory:{short}")
    assert _evidence_of(inited, r.json()["memoryId"]) == [full]
    switch(inited, second_identity(inited))
    r = hn(inited, "memory", "challenge", held, "--reason", "outdated", "--evidence", f"memory:{short}", "--json")
    assert _evidence_of(inited, r.json()["memoryId"]) == [full]
    # an unknown prefix gets show's error, and nothing is signed
    before = refs_snapshot(inited)
    for args in (("memory", "challenge", held, "--reason", "outdated"),
                 ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "x")):
        r = hn(inited, *args, "--evidence", "memory:0000000000")
        assert (r.code, r.out) == (1, "")
        assert r.err.startswith('git-hn: --evidence memory:0000000000: memory 0000000000 was not found in '
                                'verified local or accepted streams'), r.err
    assert refs_snapshot(inited) == before
    # (reviews: an uppercase prefix fell through to the generic evidence error, then led with "not
    # found"; a 7-digit one got the generic line: each says its rule first, naming --evidence)
    upper = short.upper() if short.upper() != short else held[7:].upper()  # (surely a letter)
    for args in (("memory", "challenge", held, "--reason", "outdated"),
                 ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "x")):
        r = hn(inited, *args, "--evidence", f"memory:{upper}")
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: --evidence memory:{upper}: memory IDs are lowercase hex: "
                                          f"give memory:{upper.lower()}\n")
        r = hn(inited, *args, "--evidence", f"memory:sha256:{held[7:].upper()}")
        assert r.err == f"git-hn: --evidence memory:sha256:{held[7:].upper()}: memory IDs are lowercase hex: give {full}\n"
        for seven in (short[:7], f"sha256:{short[:7]}"):
            r = hn(inited, *args, "--evidence", f"memory:{seven}")
            assert (r.code, r.out, r.err) == (1, "", f"git-hn: --evidence memory:{seven}: a memory prefix needs at "
                                              "least 8 hex digits (git hn memory log prints 12)\n")
    assert refs_snapshot(inited) == before
    # (show shares the rule; CONTRACT §7.13's "not found" stays first there)
    r = hn(inited, "memory", "show", upper)
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: memory {upper} was not found in verified local or accepted "
                                      f"streams; memory IDs are lowercase hex: give {upper.lower()}\n")


def test_a_request_document_takes_full_memory_ids_and_the_refusal_names_the_one_to_use(inited):
    """``--input`` and the MCP tools keep the contract's strict request form; the refusal gives
    the full ID the prefix names, as it does for ``git:HEAD``."""
    held = _record(inited, content="held").json()["memoryId"]
    short = held[len("sha256:"):][:12]
    before = refs_snapshot(inited)
    draft = {"version": 0, "kind": "decision", "content": "x", "anchor": {"commit": git(inited, "rev-parse", "HEAD")},
             "applicability": {"mode": "descendants"}, "topics": [], "evidence": [f"memory:{short}"]}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(draft).encode())
    assert (r.code, r.err) == (1, "git-hn: memory record evidence is invalid; evidence takes a full memory ID, not a "
                                  f"prefix (evidence is signed as given): memory:{held}\n")
    switch(inited, second_identity(inited))

    async def body(client):
        return await client.call_tool("memory_challenge", {"memory": held, "reason": "outdated",
                                                           "evidence": [f"memory:{short}"]})

    refused = run(inited, body, "--allow-write")
    assert refused.is_error is True
    assert text(refused).startswith("git-hn: memory challenge evidence is invalid; ")
    assert text(refused).endswith(f"takes a full memory ID, not a prefix (evidence is signed as given): memory:{held}")
    assert refs_snapshot(inited) == before
