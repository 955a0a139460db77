"""Findings of the S82 review of the MCP batch, end to end: a real ``git hn mcp`` subprocess driven
over stdio by the official MCP SDK's client (``test_agent_mcp``'s harness), in real repositories.
Nothing is mocked.
"""

from __future__ import annotations

import json

from helpers import hn
from test_agent_mcp import document, error, run


def _ok(repo, *args) -> str:
    r = hn(repo, *args)
    assert r.code == 0, (args, r.err)
    return r.out


def _record(repo, *args) -> str:
    return json.loads(_ok(repo, "memory", *args, "--json", "--at", "HEAD", "--applies", "descendants"))["memoryId"]


def test_memory_show_bounds_every_field_an_author_wrote(inited):
    """*Context flooding* past the bound: ``memory_show``'s ``maxContentBytes`` counted only the
    content, so a handoff of content "tiny" and 16 completed items of 4,000 U+0001 came back as
    449,858 bytes under a bound of 10. Every signed field its author wrote is counted."""
    items = [a for _ in range(16) for a in ("--completed", "\x01" * 4000)]
    flood = _record(inited, "handoff", "--content", "tiny", *items)

    async def body(client):
        return (await client.call_tool("memory_show", {"memory": flood, "maxContentBytes": 10}),
                await client.call_tool("memory_show", {"memory": flood}))

    tight, default = run(inited, body)
    assert error(tight).startswith(f"git-hn: memory {flood} encoded data")
    assert "(it fits with maxContentBytes 38" in error(tight)  # (16 × 24,002 bytes and the rest)
    assert error(default) == error(tight)


def test_a_short_correction_of_a_large_memory_is_shown_without_its_target(inited):
    """A 9-byte supersede of a memory of 20,000 U+0001 was refused as "memory <the short one>
    encoded content exceeds maxContentBytes": the agent could not read the correction without
    taking the 120 KB memory it corrects. The correction is shown, its target's row is left out
    (``targetLeftOut``), and the hint names the bound that shows the target; a bound that fits
    both shows both."""
    (inited / "big.txt").write_text("\x01" * 20_000)
    big = _record(inited, "record", "--kind", "decision", "--content-file", str(inited / "big.txt"))
    fix = json.loads(_ok(inited, "memory", "supersede", big, "--content", "corrected", "--json"))["memoryId"]

    async def body(client):
        return (await client.call_tool("memory_show", {"memory": fix}),
                await client.call_tool("memory_show", {"memory": fix, "maxContentBytes": 200_000}),
                await client.call_tool("memory_show", {"memory": big, "maxContentBytes": 200_000}))

    short, both, target = run(inited, body)
    doc = document(short)
    assert doc["projection"]["data"]["content"] == "corrected"
    assert "targetProjection" not in doc and doc["targetLeftOut"] == big
    assert f"memory_show {big} with maxContentBytes 120" in doc["hint"] and "is left out" in doc["hint"]
    needed = int(doc["hint"].split("with maxContentBytes ")[1].split()[0].rstrip("."))
    assert needed == len(json.dumps(document(target)["projection"]["data"], separators=(",", ":")))
    doc = document(both)
    assert doc["targetProjection"]["data"]["content"] == "\x01" * 20_000 and "targetLeftOut" not in doc


def test_a_handoff_of_another_kind_is_told_its_kind_first(inited):
    """memory_handoff with kind "attempt" was asked for attemptOutcome; given it, it was refused
    for its kind: a circle. The kind is checked first, and the refusal says which tool signs it;
    the schema says handoff is the only kind the tool takes."""
    want = ("git-hn: handoff input field kind must be handoff: memory_handoff signs handoffs only (leave kind "
            "out); memory_record signs the other kinds")

    async def body(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return (tools["memory_handoff"].input_schema["properties"]["kind"],
                await client.call_tool("memory_handoff", {"content": "x", "kind": "attempt"}),
                await client.call_tool("memory_handoff", {"content": "x", "kind": "attempt",
                                                          "attemptOutcome": "failed"}),
                await client.call_tool("memory_handoff", {"content": "x"}))

    schema, bare, with_outcome, handoff = run(inited, body, "--allow-write")
    assert schema["const"] == "handoff" and "the only kind" in schema["description"]
    assert error(bare) == want and error(with_outcome) == want
    assert not handoff.is_error, error(handoff)
