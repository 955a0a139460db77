"""A brief that leaves out memories of work not merged here says so (f169): f163 made the import and
recall say how many memories are anchored on commits not merged here, but an agent starts with
``git hn memory brief --json`` or MCP's ``memory_brief``, which said nothing of a teammate's
decisions on a fetched branch: the agent could conclude they did not exist. The brief now says
how many it left out and the brief that lists them, on stderr in both formats (§7.15's JSON keys
unchanged) and in MCP's ``hint``; the handoffs its newer-handoff lines name are not counted
again. Real clones of a real bare remote, a real fetch through the installed hooks, real MCP."""

from __future__ import annotations

import json

from helpers import actor_of, commit_on, git, hn, shared_remote
from test_agent_mcp import document, run

HINT = "git-hn: hint: "


def _ok(repo, *args) -> str:
    r = hn(repo, *args)
    assert r.code == 0, (args, r.err)
    return r.out


def _alice_trusts(alice, bob) -> None:
    """Alice installs the hooks, selects every stream, and commits and pushes a policy on main
    that trusts Bob."""
    _ok(alice, "hooks", "install")
    _ok(alice, "replication", "select", "--all")
    _ok(alice, "policy", "init")
    _ok(alice, "policy", "trust", actor_of(bob))
    git(alice, "add", ".hn/policy.json")
    git(alice, "commit", "-q", "-m", "policy: trust Bob")
    git(alice, "push", "-q", "origin", "main")


def _team(tmp_path):
    """Alice (hooks installed, every stream selected; her policy on main trusts Bob; a decision
    of her own on main) and Bob, who has pulled that policy: (alice, bob)."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    _alice_trusts(alice, bob)
    _ok(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
        "--content", "Alice's, on main")
    git(bob, "pull", "-q", "origin", "main")
    return alice, bob


def _bob_hands_off(bob, branch: str = "feature") -> str:
    """Bob commits on ``branch``, records a handoff and two decisions on it, pushes it and
    publishes them: the anchor commit."""
    anchor = commit_on(bob, branch, "feature.py")
    _ok(bob, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "Bob's handoff",
        "--next-action", "finish feature.py")
    for text in ("Bob's first decision", "Bob's second decision"):
        _ok(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--content", text)
    git(bob, "push", "-q", "origin", branch)
    _ok(bob, "sync")
    return anchor


def _hints(err: str) -> list[str]:
    return [line[len(HINT):] for line in err.splitlines() if line.startswith(HINT) and "not merged here" in line]


def _said(n: int, anchor: str, more: bool = True, mcp: bool = False) -> str:
    c = anchor[:12]
    brief = f"memory_brief with atCommit {c}" if mcp else f"git hn memory brief --at {c}"
    return (f"{n}{' more' if more else ''} active memories were left out of this brief, anchored on a commit not "
            f"merged here ({c}): {brief} gives the brief there, and git branch -a --contains {c} names the branch "
            "to merge")


def _on_ref(handoff: str, anchor: str, n: int = 2, ref: str = "origin/feature", style: str = "cli") -> str:
    """The newer-handoff line of ``handoff`` (the latest of its stream, on ``ref``) that says the
    count too, since its brief lists all ``n`` (f177), in ``style``'s words (as ``_said``)."""
    c, one = anchor[:12], n == 1
    if style == "mcp":
        show, there, on = f"memory_show with memory {handoff}", f"memory_brief with atCommit {ref}", f"`{ref}`"
    else:
        show, there = f"git hn memory show {handoff}", f"git hn memory brief --at {ref}"
        on = ref if style == "cli" else f"`{ref}`"
    lead = "handoff" if style == "cli" else "Handoff"
    return (f"{lead} {handoff}, the latest of its stream, is left out: it is anchored on commit {c}, on {on}, which "
            f"this commit's history does not contain; {show} prints it, and {there} gives the brief there, which also "
            f"lists {n} more active {'memory' if one else 'memories'} this brief left out (work not merged here)")


def _handoff_at(alice, anchor: str) -> str:
    """The ID of the handoff the brief at ``anchor`` lists first (Bob's)."""
    return json.loads(_ok(alice, "memory", "brief", "--json", "--at", anchor))["handoffs"][0]["id"]


def test_a_brief_counts_a_teammates_fetched_memories_not_merged_here_until_the_merge(tmp_path):
    """Bob's handoff and two decisions on his pushed branch, imported by Alice's ``git fetch``: her
    brief (JSON and Markdown) leaves them out and says, on stderr, how many besides the handoff
    its own line names, and the brief that lists them; the JSON document's keys and bytes are the
    brief's. After the merge: listed, and nothing said."""
    alice, bob = _team(tmp_path)
    keys = list(json.loads(_ok(alice, "memory", "brief", "--json")))
    anchor = _bob_hands_off(bob)
    fetched = git(alice, "fetch", "origin")  # (the hook imports Bob's stream)
    assert fetched == "" and "Bob's handoff" in _ok(alice, "memory", "log")

    as_json = hn(alice, "memory", "brief", "--json")
    assert as_json.code == 0, as_json.err
    doc = json.loads(as_json.out)
    assert list(doc) == keys and "Bob's" not in as_json.out
    assert [d["data"]["content"] for d in doc["decisions"]] == ["Alice's, on main"]
    # the handoff has its own line (f25's, on origin/feature): the count is of the two decisions
    handoff = json.loads(_ok(alice, "memory", "brief", "--json", "--at", anchor))["handoffs"][0]["id"]
    assert f"{HINT}handoff {handoff}, the latest of its stream, is left out: it is anchored on commit " \
           f"{anchor[:12]}, on origin/feature," in as_json.err
    # (f177: on that line, whose brief lists them all: the brief is named once, by the ref)
    assert _hints(as_json.err) == [_on_ref(handoff, anchor)], as_json.err
    # (the state's count is the full projection's: the brief fails over to it when the state cannot serve)
    from git_hn.service import brief as service
    from git_hn.store.repo import open_repo

    repo, counted = open_repo(str(alice)), ({}, {})
    service.brief(repo, "HEAD", fmt="json", left_out=counted[0])
    service._brief_full(repo, repo.head_commit(), False, 16_384, "json", left_out=counted[1])
    assert counted[0]["unmerged"] == counted[1]["unmerged"] == {anchor: 3}
    markdown = hn(alice, "memory", "brief")
    assert markdown.code == 0 and "Bob's" not in markdown.out
    # (the header names the handoff, and says the count: not again on stderr, f173)
    assert _hints(markdown.err) == [] and _on_ref(handoff, anchor, style="markdown") in markdown.out.splitlines(), \
        markdown.err
    # (the brief there lists them, and says nothing of them)
    there = hn(alice, "memory", "brief", "--json", "--at", anchor[:12])
    assert "Bob's first decision" in there.out and "Bob's handoff" in there.out
    assert _hints(there.err) == [], there.err

    # Alice's own handoff on that commit is named on a line of its own, and takes nothing off the count
    git(alice, "checkout", "-q", "-b", "review", "origin/feature")
    _ok(alice, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "Alice's review")
    git(alice, "checkout", "-q", "main")
    both = hn(alice, "memory", "brief", "--json")
    assert both.err.count(", the latest of its stream, is left out: it is anchored on commit") == 2, both.err
    said = _hints(both.err)  # (on the first line on that commit, Alice's newer one, now named by her branch)
    assert len(said) == 1 and said[0].endswith(_on_ref(handoff, anchor, ref="review").split(" prints it", 1)[1]), \
        both.err

    git(alice, "merge", "-q", "--no-edit", "origin/feature")
    merged = hn(alice, "memory", "brief", "--json")
    assert merged.code == 0 and _hints(merged.err) == [], merged.err
    doc = json.loads(merged.out)
    assert {h["data"]["content"] for h in doc["handoffs"]} == {"Bob's handoff", "Alice's review"}
    assert {d["data"]["content"] for d in doc["decisions"]} == {"Alice's, on main", "Bob's first decision",
                                                                "Bob's second decision"}
    assert _hints(hn(alice, "memory", "brief").err) == []



def test_the_mcp_brief_and_recall_say_it_in_their_hint_and_keep_their_documents(tmp_path):
    """MCP ``memory_brief`` and ``memory_recall`` (which the f163 recall hint left out: an agent
    using only the tools was told nothing) say it in ``hint``, git-hn's member, in the tools'
    words; every other member is the CLI's ``--json`` document's. The brief at the anchor says
    nothing of them."""
    alice, bob = _team(tmp_path)
    anchor = _bob_hands_off(bob)
    git(alice, "fetch", "origin")
    cli_brief = json.loads(_ok(alice, "memory", "brief", "--json"))
    cli_recall = json.loads(_ok(alice, "memory", "recall", "--json"))
    c = anchor[:12]

    async def body(client):
        return (await client.call_tool("memory_brief", {}), await client.call_tool("memory_recall", {}),
                await client.call_tool("memory_brief", {"atCommit": anchor}))

    brief, recall, there = (document(r) for r in run(alice, body))
    assert _on_ref(_handoff_at(alice, anchor), anchor, style="mcp") + "." in brief["hint"], brief["hint"]
    assert brief["hint"].count("memory_brief with atCommit") == 1  # (f177: the brief is named once)
    assert {k: v for k, v in brief.items() if k != "hint"} == cli_brief
    # (all three on one commit: "a commit", as the brief's hint says it, f175)
    assert (f"3 more matching memories were left out, anchored on a commit not merged here ({c}): memory_recall with "
            f"atCommit {c} lists them, and git branch -a --contains {c} names the branch to merge.") in recall["hint"], \
        recall["hint"]
    assert {k: v for k, v in recall.items() if k != "hint"} == cli_recall
    assert "not merged here" not in there.get("hint", "") and there["decisions"]


def test_exact_subject_untrusted_and_ones_own_memories_are_not_counted(tmp_path):
    """What the count leaves out, as f163's import hint does: an ``--applies exact`` memory (it
    applies at its commit only: merging would not list it), an ``--applies subject`` one (the
    brief's context has no subject), one of a trust the brief does not show (counted with
    ``--include-untrusted``), and the reader's own on its own open branch (a review pinned silence
    there; ``test_squash_left_out``)."""
    import hashlib

    _remote, (alice, bob, carol) = shared_remote(tmp_path, "Alice", "Bob", "Carol")
    _alice_trusts(alice, bob)
    commit_on(bob, "feature", "feature.py")
    subject = "issue:sha256:" + hashlib.sha256(b"https://example.com/issues/7").hexdigest()
    for applies in (["exact"], ["subject", "--subject", subject]):
        _ok(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", *applies,
            "--content", f"Bob's {applies[0]}")
    git(bob, "push", "-q", "origin", "feature")
    _ok(bob, "sync")
    carols = commit_on(carol, "carols", "carol.py")
    _ok(carol, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
        "--content", "Carol's, untrusted")
    git(carol, "push", "-q", "origin", "carols")
    _ok(carol, "sync")
    commit_on(alice, "wip", "wip.py")
    _ok(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
        "--content", "Alice's own work in progress")
    git(alice, "checkout", "-q", "main")
    git(alice, "fetch", "origin")
    log = _ok(alice, "memory", "log")
    assert all(text in log for text in ("Bob's exact", "Bob's subject", "Carol's, untrusted"))
    for args in (["--json"], []):
        r = hn(alice, "memory", "brief", *args)
        assert r.code == 0 and _hints(r.err) == [], r.err
    counted = hn(alice, "memory", "brief", "--json", "--include-untrusted")
    assert _hints(counted.err) == [
        f"1 active memory was left out of this brief, anchored on a commit not merged here ({carols[:12]}): git hn "
        f"memory brief --at {carols[:12]} gives the brief there, and git branch -a --contains {carols[:12]} names the "
        "branch to merge"], counted.err
