"""A stream of one's own per agent or worktree, chosen by a label (git-hn), on real repositories.

An agent-integration trial: six agents (CLI and MCP, one identity) wrote handoffs in one clone,
all to the default stream, and ``brief --json`` showed only the last one (§7.15: one handoff per
stream); two worktrees on one stream made memories anchored on an unpushed feature branch hold
back the later main memories ("137 memories wait until commit … is on origin"). ``--stream
sha256:<any hex>`` worked, but nothing said how an agent picks its own stream. ``label:NAME``
names the stream §3.3's derivation gives for the signer and that label; it is chosen per command
(``--stream``, a request's ``stream``), per process (``GIT_HN_STREAM``) or per worktree
(``git config --worktree hn.stream``).
"""

from __future__ import annotations

import hashlib
import json

import anyio

from agent_helpers import second_identity, switch
from helpers import actor_of, git, hn, refs_snapshot, shared_remote

from test_agent_mcp import document, error, session

REC = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants"]
RULE = ("a full stream ID (sha256: and 64 lowercase hex digits, as a record's output prints it) or label:NAME, NAME "
        "being 1 to 64 of a-z, 0-9, ., _ and - (starting with a letter or digit)")


def labelled(actor: str, label: str) -> str:
    """§3.3's derivation with the label in place of ``default`` (computed here independently)."""
    return "sha256:" + hashlib.sha256(b"hn-memory-stream-v0\x00" + actor.encode() + b"\x00" + label.encode()).hexdigest()


def _record(repo, *args, content="x"):
    r = hn(repo, *REC, "--json", *args, "--content", content)
    assert r.code == 0, r.err
    return r


def test_a_label_names_the_same_stream_of_ones_own_every_time(inited):
    me = actor_of(inited)
    first = _record(inited, "--stream", "label:agent-1", content="one")
    assert first.json()["stream"] == labelled(me, "agent-1")
    assert ("git-hn: hint: started a new stream label:agent-1 (" + labelled(me, "agent-1") +
            "; this is its first memory); your default stream, where memories go without --stream, is "
            + labelled(me, "default")) in first.err
    second = _record(inited, "--stream", "label:agent-1", content="two")
    assert second.json()["stream"] == labelled(me, "agent-1") and "new stream" not in second.err
    assert git(inited, "rev-list", "--count", f"refs/hn/memory/{me}/{labelled(me, 'agent-1')[7:]}") == "2"
    # label:default is the default stream (§3.3 is the same derivation)
    assert _record(inited, "--stream", "label:default", content="three").json()["stream"] == \
        _record(inited, content="four").json()["stream"] == labelled(me, "default")


def test_six_agents_of_one_identity_each_keep_their_handoff_in_the_brief(inited, monkeypatch):
    """The trial's case: one clone, one identity, six agents, each started with its own
    GIT_HN_STREAM by its host; the brief lists every agent's latest handoff."""
    for i in range(6):
        monkeypatch.setenv("GIT_HN_STREAM", f"label:agent-{i}")
        for n in range(2):  # (an earlier handoff of the same agent gives way to its later one)
            r = hn(inited, "memory", "handoff", "--at", "HEAD", "--applies", "descendants",
                   "--content", f"agent {i} handoff {n}", "--next-action", f"agent {i} next {n}")
            assert r.code == 0, r.err
    monkeypatch.delenv("GIT_HN_STREAM")
    brief = hn(inited, "memory", "brief", "--json", "--include-untrusted", "--max-bytes", "100000").json()
    assert sorted(h["data"]["content"] for h in brief["handoffs"]) == [f"agent {i} handoff 1" for i in range(6)]
    me = actor_of(inited)
    assert {h["stream"] for h in brief["handoffs"]} == {labelled(me, f"agent-{i}") for i in range(6)}


def test_a_worktree_of_its_own_stream_does_not_hold_back_main(tmp_path):
    """The trial's second case: a worktree on an unpushed feature branch, on its own stream
    (``git config --worktree hn.stream``), no longer holds back what main records."""
    _remote, (main,) = shared_remote(tmp_path, "Alice")
    feature = tmp_path / "feature"
    git(main, "worktree", "add", "-q", "-b", "feature", str(feature))
    git(main, "config", "extensions.worktreeConfig", "true")
    git(feature, "config", "--worktree", "hn.stream", "label:feature")
    (feature / "f.txt").write_text("f\n")
    git(feature, "add", "f.txt")
    git(feature, "commit", "-q", "-m", "unpushed feature work")
    r = hn(feature, *REC, "--content", "on the unpushed feature branch")
    assert r.code == 0 and "chosen by git config hn.stream" in r.err, r.err
    r = hn(main, *REC, "--json", "--content", "on main, after")
    assert r.code == 0, r.err
    me = actor_of(main)
    assert r.json()["stream"] == labelled(me, "default")
    sync = hn(main, "sync")
    assert sync.code == 0, sync.err
    published = git(main, "ls-remote", "origin", "refs/hn/memory/*")
    assert f"refs/hn/memory/{me}/{labelled(me, 'default')[7:]}" in published
    assert git(main, "rev-parse", f"refs/hn/memory/{me}/{labelled(me, 'default')[7:]}") in published


def test_the_request_wins_then_the_environment_then_the_configuration(inited, monkeypatch):
    me = actor_of(inited)
    git(inited, "config", "hn.stream", "label:from-config")
    assert _record(inited).json()["stream"] == labelled(me, "from-config")
    monkeypatch.setenv("GIT_HN_STREAM", "label:from-env")
    assert _record(inited).json()["stream"] == labelled(me, "from-env")
    assert _record(inited, "--stream", "label:given").json()["stream"] == labelled(me, "given")
    request = {"version": 0, "kind": "decision", "content": "by input", "anchor": {"commit": git(inited, "rev-parse",
                                                                                               "HEAD")},
               "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(request).encode())
    assert r.json()["stream"] == labelled(me, "from-env")
    r = hn(inited, "memory", "record", "--input", "-", "--json",
           input=json.dumps({**request, "stream": "label:in-request"}).encode())
    assert r.json()["stream"] == labelled(me, "in-request")
    mine = r.json()["memoryId"]
    r = hn(inited, "memory", "retract", mine, "--reason", "obsolete", "--json")
    assert r.json()["stream"] == labelled(me, "from-env")
    monkeypatch.setenv("GIT_HN_STREAM", "")  # (empty: not set)
    assert _record(inited, content="y").json()["stream"] == labelled(me, "from-config")


def test_a_bad_choice_is_refused_naming_where_it_came_from(inited, monkeypatch):
    before = refs_snapshot(inited)
    monkeypatch.setenv("GIT_HN_STREAM", "agent-1")  # (the label: prefix forgotten)
    r = hn(inited, *REC, "--content", "x")
    assert (r.code, r.out) == (1, "") and r.err == (
        f"git-hn: GIT_HN_STREAM in the environment is not a stream: it takes {RULE}; nothing was signed: set it to "
        "one, or unset it (GIT_HN_STREAM= works too)\n")
    assert _record(inited, "--stream", "label:ok").json()["stream"]  # (a named stream does not read it)
    monkeypatch.delenv("GIT_HN_STREAM")
    before = refs_snapshot(inited)
    git(inited, "config", "hn.stream", "Agent One")
    for args in ([*REC, "--content", "x"], ["memory", "handoff", "--at", "HEAD", "--applies", "descendants",
                                             "--content", "h"]):
        r = hn(inited, *args)
        assert (r.code, r.out) == (1, "") and r.err == (
            f"git-hn: git config hn.stream is not a stream: it takes {RULE}; nothing was signed: git config "
            "--show-origin hn.stream shows where it is set; git config hn.stream label:NAME (--worktree: for this "
            "worktree only) sets one, git config --unset hn.stream removes it\n")
    for bad in ("label:", "label:-x", "label:Agent", "label:" + "a" * 65, "label:a/b"):
        r = hn(inited, *REC, "--stream", bad, "--content", "x")
        assert r.code == 1 and r.err == f"git-hn: memory stream is invalid; a stream is chosen by {RULE}\n", bad
    assert refs_snapshot(inited) == before


def test_one_label_never_names_another_actors_stream(inited):
    """The actor is hashed in: two identities' ``label:agent`` are two streams, and neither is
    refused as the other's (``streams.check_stream_owner``)."""
    first = actor_of(inited)
    a = _record(inited, "--stream", "label:agent").json()["stream"]
    second = second_identity(inited)
    switch(inited, second)
    b = _record(inited, "--stream", "label:agent").json()["stream"]
    assert a == labelled(first, "agent") and b == labelled(second, "agent") and a != b


def test_memory_import_takes_a_label(inited, tmp_path):
    me = actor_of(inited)
    draft = {"version": 0, "kind": "observation", "content": "imported", "topics": [], "evidence": [],
             "anchor": {"commit": git(inited, "rev-parse", "HEAD")}, "applicability": {"mode": "descendants"}}
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(draft) + "\n" + json.dumps({**draft, "content": "two",
                                                           "stream": "label:bulk"}) + "\n")
    r = hn(inited, "memory", "import", str(path), "--stream", "label:bulk", "--json")
    assert r.code == 0, r.err
    assert r.json()["stream"] == labelled(me, "bulk")


def test_mcp_writes_follow_the_servers_environment_and_take_a_label(inited, monkeypatch):
    """An agent host starts each agent's ``git hn mcp`` with its own GIT_HN_STREAM."""
    me = actor_of(inited)
    monkeypatch.setenv("GIT_HN_STREAM", "label:mcp-agent")

    async def main():
        async with session(inited, "--allow-write") as client:
            rec = await client.call_tool("memory_record", {"kind": "decision", "content": "via mcp"})
            own = await client.call_tool("memory_record", {"kind": "decision", "content": "named",
                                                           "stream": "label:other"})
            memory = document(rec)["result"]["memoryId"]
            retract = await client.call_tool("memory_retract", {"memory": memory, "reason": "obsolete",
                                                                "stream": "label:third"})
            bad = await client.call_tool("memory_record", {"kind": "decision", "content": "x", "stream": "Bad"})
            return rec, own, retract, bad

    rec, own, retract, bad = anyio.run(main)
    doc = document(rec)
    assert doc["result"]["stream"] == labelled(me, "mcp-agent")
    assert doc["hint"].startswith(f"Started a new stream label:mcp-agent ({labelled(me, 'mcp-agent')}; chosen by "
                                  "GIT_HN_STREAM; this is its first memory)")
    assert document(own)["result"]["stream"] == labelled(me, "other")
    rdoc = document(retract)
    assert rdoc["result"]["stream"] == labelled(me, "third") and "label:third" in rdoc["hint"]
    assert error(bad) == f"git-hn: record input field stream must be {RULE}"


def test_a_record_to_a_stream_whose_lock_exists_lists_the_stream_once(inited, tmp_path, monkeypatch):
    """A reread: a ``--stream`` record listed its stream before the lock (so that a refusal leaves
    no lock file) and again under it (the listing the position comes from, which a sync may have
    overtaken meanwhile). Once the lock file exists a refusal leaves nothing new, and the first
    listing is not asked; the one under the lock still is, and the record continues the chain."""
    from helpers import git_processes

    args = [*REC, "--stream", "label:agent-a"]
    assert hn(inited, *args, "--content", "one").code == 0  # (its lock file is made)
    trace = tmp_path / "trace2"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    r = hn(inited, *args, "--json", "--content", "two")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    assert r.code == 0, r.err
    stream = r.json()["stream"][len("sha256:"):]
    listings = [a for a in git_processes(trace) if a[0] == "for-each-ref" and any(stream in x for x in a)]
    assert len(listings) == 1, listings
    ref = f"refs/hn/memory/{r.json()['actor']}/{stream}"
    assert git(inited, "rev-list", "--count", ref) == "2"  # (one chain: two on it)
