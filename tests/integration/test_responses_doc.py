"""docs/responses.md cannot drift: its tables list exactly the top-level keys that ``--json`` of
recall, show, brief, digest and ``memory log``, and the MCP tools' results, emit (a finding: "No
response-format document for agents"). The keys are read from the page and compared with the
real output of a small real repository: the CLI in-process over real Git, the MCP tools through
a real ``git hn mcp`` subprocess and the official SDK client. Each row's "always" is checked on
every answer, and every optional key must be seen at least once."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from agent_helpers import actor, commit_policy, policy, record, second_identity, switch
from helpers import git, hn, make_repo

ROOT = Path(__file__).resolve().parents[2]


def tables() -> dict[str, list[tuple[str, bool]]]:
    """``### heading`` -> [(key, always present)] of the table under it, in order."""
    out: dict[str, list[tuple[str, bool]]] = {}
    heading = ""
    for line in (ROOT / "docs" / "responses.md").read_text().splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
        elif line.startswith("| `") and heading:
            cells = [c.strip() for c in line.strip("|").split("|")]
            key = re.fullmatch(r"`([A-Za-z]+)`", cells[0]).group(1)
            out.setdefault(heading, []).append((key, cells[2] == "always"))
    return out


class Seen:
    """Each documented key set, and which of its optional keys some answer carried."""

    def __init__(self):
        self.docs = tables()
        self.optional: dict[str, set] = {}

    def check(self, doc: dict, *headings: str) -> None:
        rows = [row for h in headings for row in self.docs[h]]
        keys = [k for k, _always in rows]
        assert len(keys) == len(set(keys)), keys
        emitted = list(doc)
        assert [k for k in emitted if k not in keys] == [], (headings, emitted)  # nothing undocumented
        assert emitted == [k for k in keys if k in doc], (headings, emitted)  # in the order listed
        missing = [k for k, always in rows if always and k not in doc]
        assert missing == [], (headings, missing)
        for k, always in rows:
            if not always and k in doc:
                self.optional.setdefault(headings, set()).add(k)

    def all_seen(self, *headings: str) -> None:
        optional = {k for h in headings for k, always in self.docs[h] if not always}
        assert self.optional.get(headings, set()) == optional, headings


RECALL = "`git hn memory recall --json`"
SHOW = "`git hn memory show MEMORY --json`"
BRIEF = "`git hn memory brief --json`"
DIGEST = "`git hn memory digest --json`"
LOG = "`git hn memory log --json`"
READ_MCP = "`memory_recall`, `memory_brief`"
SHOW_MCP = "`memory_show`"
DIGEST_MCP = "`memory_digest`"
WRITE_MCP = "`memory_record`, `memory_handoff`, `memory_supersede`"
LIFECYCLE_MCP = "`memory_retract`, `memory_challenge`"
RESULT = "`result` of a write"


def _json(repo, *args) -> dict:
    r = hn(repo, *args, "--json")
    assert r.code == 0, r.err
    assert r.out_bytes.count(b"\n") == 1
    return r.json()


def _world(tmp_path) -> dict:
    """Alice (trusted for decisions and handoffs), Bob (not trusted): a superseded decision, a
    challenged one, Bob's hidden decision, and a memory on a branch HEAD does not contain."""
    repo = make_repo(tmp_path / "r", files={"a.txt": "a\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    alice = actor(repo)
    bob = second_identity(repo, "Bob")
    commit_policy(repo, policy([alice], ["decision", "handoff"], alice))
    w = {"repo": repo}
    w["d1"] = record(repo, "--path", "a.txt", content="Use tabs")["memoryId"]
    w["d2"] = record(repo, content="Keep one database")["memoryId"]
    r = hn(repo, "memory", "supersede", w["d1"], "--json", "--content", "Use spaces")
    assert r.code == 0, r.err
    w["sup"] = r.json()["memoryId"]
    switch(repo, bob)
    w["challenge"] = _json(repo, "memory", "challenge", w["d2"], "--reason", "incorrect")["memoryId"]
    w["bobs"] = record(repo, content="Bob's idea")["memoryId"]
    switch(repo, alice)
    git(repo, "checkout", "-q", "-b", "side")
    git(repo, "commit", "-q", "--allow-empty", "-m", "side")
    w["side"] = record(repo, content="on the side branch")["memoryId"]
    git(repo, "checkout", "-q", "main")
    return w


def test_the_response_reference_lists_exactly_the_keys_each_answer_emits(tmp_path):
    w = _world(tmp_path)
    repo, seen = w["repo"], Seen()
    # -- the CLI documents
    seen.check(_json(repo, "memory", "recall"), RECALL)
    seen.check(_json(repo, "memory", "recall", "--max-records", "1"), RECALL)  # a next page
    seen.all_seen(RECALL)
    for memory in (w["d1"], w["sup"], w["challenge"]):  # a record, a supersede, a challenge
        seen.check(_json(repo, "memory", "show", memory), SHOW)
    seen.all_seen(SHOW)
    seen.check(_json(repo, "memory", "brief"), BRIEF)
    seen.check(_json(repo, "memory", "digest"), DIGEST)
    seen.check(_json(repo, "memory", "log"), LOG)
    seen.check(_json(repo, "memory", "log", "-n", "1"), LOG)

    # -- the MCP tools, reads first (the writes add a memory recall's default bound refuses)
    async def body(client) -> None:
        async def call(name, arguments) -> dict:
            result = await client.call_tool(name, arguments)
            assert result.is_error is False, result.content[0].text
            return json.loads(result.content[0].text)

        for arguments in ({}, {"maxRecords": 1}):
            seen.check(await call("memory_recall", arguments), RECALL, READ_MCP)
        for memory in (w["side"], w["challenge"], w["sup"]):
            seen.check(await call("memory_show", {"memory": memory}), SHOW, SHOW_MCP)
        own = len(json.dumps(_json(w["repo"], "memory", "show", w["sup"])["projection"]["data"],
                             separators=(",", ":")))  # (its target's row does not fit beside it)
        seen.check(await call("memory_show", {"memory": w["sup"], "maxContentBytes": own}), SHOW, SHOW_MCP)
        seen.check(await call("memory_brief", {}), BRIEF, READ_MCP)
        seen.all_seen(RECALL, READ_MCP)
        seen.all_seen(SHOW, SHOW_MCP)
        seen.all_seen(BRIEF, READ_MCP)
        for arguments in ({}, {"maxBytes": 1024}):
            seen.check(await call("memory_digest", arguments), DIGEST, DIGEST_MCP)
        seen.all_seen(DIGEST, DIGEST_MCP)
        # writes: a path that names nothing, content over recall's bound once encoded, a kind
        # the policy does not trust (hint), then the same again (replayed)
        noted = {"kind": "observation", "content": '"' * 40_000, "anchor": {"paths": [{"path": "nope.txt"}]}}
        results = []
        for name, arguments in (("memory_record", noted), ("memory_record", noted),
                                ("memory_handoff", {"content": "handed over"}),
                                ("memory_supersede", {"memory": w["d2"], "content": "Keep two databases"})):
            doc = await call(name, arguments)
            seen.check(doc, WRITE_MCP)
            results.append(doc["result"])
        seen.all_seen(WRITE_MCP)
        observation = results[0]["memoryId"]
        for name, arguments in (("memory_retract", {"memory": observation, "reason": "wrong"}),
                                ("memory_retract", {"memory": observation, "reason": "obsolete"}),
                                ("memory_challenge", {"memory": w["bobs"], "reason": "unverified"})):
            doc = await call(name, arguments)
            seen.check(doc, LIFECYCLE_MCP)
            results.append(doc["result"])
        for result in results:
            seen.check(result, RESULT)
        seen.all_seen(RESULT)

    async def main() -> None:
        params = StdioServerParameters(command="git", args=["hn", "mcp", "--allow-write"], cwd=str(repo),
                                       env=dict(os.environ))
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            await body(client)

    anyio.run(main)
    assert set(seen.docs) == {RECALL, SHOW, BRIEF, DIGEST, LOG, READ_MCP, SHOW_MCP, DIGEST_MCP, WRITE_MCP,
                              LIFECYCLE_MCP, RESULT}, sorted(seen.docs)  # (a table this test does not read would drift)


def test_the_readme_links_the_response_reference():
    text = (ROOT / "README.md").read_text()
    assert "docs/responses.md" in text and "docs/requests.md" in text
