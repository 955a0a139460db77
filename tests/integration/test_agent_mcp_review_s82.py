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

