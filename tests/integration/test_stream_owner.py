"""``--stream`` never appends to another actor's stream (a newcomer trial): Alice recorded with
``--stream`` set to Bob's stream ID, published it, and from then on every sync, Bob's, Alice's
and a new clone's, failed with "ambiguous owners" (CONTRACT §9.4 makes that outcome fixed), and
no new clone imported Bob's stream. A stream another actor holds in this clone (a local ref or an
accepted copy) is refused before anything is signed, from the CLI, an ``--input`` request and
MCP; a ``--stream`` that starts a stream says so on stderr."""

from __future__ import annotations

import json

from helpers import git, hn, refs_snapshot, shared_remote
from test_agent_mcp import decision, document, error, run

REC = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants"]


def _bob_and_alice(tmp_path):
    remote, (bob, alice) = shared_remote(tmp_path, "Bob", "Alice")
    r = hn(bob, *REC, "--content", "bob's decision", "--json")
    assert r.code == 0, r.err
    bob_stream = json.loads(r.out)["stream"]
    assert hn(bob, "sync").code == 0
    assert hn(alice, "replication", "select", "--all").code == 0
    r = hn(alice, "sync")
    assert r.code == 0, r.err
    return remote, bob, alice, bob_stream


def test_record_to_another_actors_stream_is_refused_before_signing(tmp_path):
    remote, bob, alice, bob_stream = _bob_and_alice(tmp_path)
    bob_actor = git(bob, "for-each-ref", "--format=%(refname)", "refs/hn/memory/").split("/")[3]
    before = refs_snapshot(alice)
    said = (f"git-hn: memory stream {bob_stream} is actor {bob_actor}'s stream in this clone; nothing was signed: "
            "record to your own stream (without --stream, or a request's \"stream\"; --stream label:NAME names a "
            "separate stream of yours)\n")
    for args in ([*REC, "--stream", bob_stream, "--content", "x"],
                 ["memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--stream", bob_stream,
                  "--blocker", "b", "--content", "end"]):
        r = hn(alice, *args)
        assert (r.code, r.out, r.err) == (1, "", said), args
    request = json.dumps({"version": 0, "kind": "decision", "stream": bob_stream, "content": "x",
                          "anchor": {"commit": git(alice, "rev-parse", "HEAD")},
                          "applicability": {"mode": "descendants"}, "topics": [], "evidence": []})
    r = hn(alice, "memory", "record", "--input", "-", "--json", input=request.encode())
    assert (r.code, r.err) == (1, said), r.err
    assert refs_snapshot(alice) == before
    # Bob's own stream stays his (his default stream is never refused), and syncs still work
    assert hn(bob, *REC, "--content", "again").code == 0
    assert hn(bob, "sync").code == 0
    assert hn(alice, "sync").code == 0


def test_a_stream_only_a_local_ref_of_another_actor_holds_is_refused(inited):
    """(Another identity's local ref of the stream is enough; the check reads refs only.)"""
    stream, other = "sha256:" + "cd" * 32, "ef" * 32
    git(inited, "update-ref", f"refs/hn/memory/{other}/{stream[7:]}", "HEAD")
    before = refs_snapshot(inited)
    r = hn(inited, *REC, "--stream", stream, "--content", "x")
    assert r.code == 1 and r.err.startswith(f"git-hn: memory stream {stream} is actor {other}'s stream"), r.err
    draft = json.dumps({"version": 0, "kind": "decision", "content": "x", "anchor": {"commit": git(inited, "rev-parse", "HEAD")},
                        "applicability": {"mode": "descendants"}, "topics": [], "evidence": []})
    r = hn(inited, "memory", "import", "-", "--stream", stream, input=draft.encode() + b"\n")
    assert r.code == 1 and f"is actor {other}'s stream" in r.err, r.err
    assert refs_snapshot(inited) == before


def test_mcp_refuses_another_actors_stream_and_says_a_new_one(tmp_path):
    remote, bob, alice, bob_stream = _bob_and_alice(tmp_path)
    head = git(alice, "rev-parse", "HEAD")
    new = "sha256:" + "ab" * 32
    before = refs_snapshot(alice)

    async def body(client):
        refused = await client.call_tool("memory_record", decision(head, "x", stream=bob_stream))
        after = refs_snapshot(alice)
        started = await client.call_tool("memory_record", decision(head, "y", stream=new))
        return refused, after, started

    refused, after, started = run(alice, body, "--allow-write")
    assert f"memory stream {bob_stream} is actor " in error(refused)
    # (a review: it told an MCP caller "without --stream"): the field is named
    assert error(refused).endswith('nothing was signed: record to your own stream (leave out the "stream" field: '
                                   'your default stream; "stream": "label:NAME" names a separate stream of yours)'), \
        error(refused)
    assert after == before
    assert document(started)["hint"].startswith(f"Started a new stream {new} (this is its first memory)")


def test_a_new_stream_is_said_and_then_used_quietly(inited):
    new = "sha256:" + "ab" * 32
    r = hn(inited, *REC, "--stream", new, "--content", "x")
    assert r.code == 0
    assert f"git-hn: hint: started a new stream {new} (this is its first memory); your default stream, " \
           "where memories go without --stream, is sha256:" in r.err
    r = hn(inited, *REC, "--stream", new, "--content", "y")
    assert r.code == 0 and "new stream" not in r.err
    r = hn(inited, *REC, "--content", "z")
    assert r.code == 0 and "new stream" not in r.err
