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
    want = ('git-hn: handoff input field kind "attempt" is not handoff: memory_handoff signs handoffs only (leave kind '
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


def test_a_teammate_over_mcp_is_given_the_tool_call_that_cites_a_left_out_memory(tmp_path):
    """The MCP wording of ``hints.cite_at`` was untested (the CLI's passed every test in its
    place): after a squash merge, Bob's ``memory_recall`` says Alice's left-out memory is cited by
    a ``memory_record`` call of his own, in the tool's argument names, and that call works."""
    from test_squash_left_out import _squashed

    _alice, bob, _on_main, on_feat = _squashed(tmp_path)
    memory = on_feat["memoryId"]
    cite = (f'memory_record with kind decision, atCommit HEAD, evidence ["memory:{memory}"] and content records '
            "your own on HEAD citing it (only its author can supersede it)")

    async def body(client):
        recalled = await client.call_tool("memory_recall", {"includeUntrusted": True, "path": "p.py"})
        cited = await client.call_tool("memory_record", {"kind": "decision", "atCommit": "HEAD",
                                                         "evidence": [f"memory:{memory}"],
                                                         "content": "p.py holds 2 on main too"})
        return recalled, cited

    recalled, cited = run(bob, body, "--allow-write")
    hint = document(recalled)["hint"]
    assert f"memory_show with memory {memory[7:19]} says where it applies, and {cite}" in hint, hint
    assert "git hn memory record" not in hint
    assert not cited.is_error, error(cited)


def test_one_item_left_out_of_the_brief_is_said_in_the_singular(inited):
    """The brief's hint said "1 items did not fit … shows them"."""
    for content in ("first decision", "second decision"):
        _record(inited, "record", "--kind", "decision", "--content", content)

    async def body(client):
        return [await client.call_tool("memory_brief", {"maxBytes": n, "includeUntrusted": True})
                for n in range(900, 4000, 25)]

    hints = [document(result).get("hint", "") for result in run(inited, body)]
    one = [h for h in hints if "1 item did not fit" in h]
    assert one and all("1 items" not in h for h in hints), hints
    assert "a larger maxBytes shows it, or memory_recall lists it by kind" in one[0], one[0]


def test_a_bound_of_zero_is_told_by_its_argument_name(inited):
    """``maxContentBytes: 0`` was told ``show bound must be positive``, naming no argument."""

    async def body(client):
        return (await client.call_tool("memory_show", {"memory": "0" * 8, "maxContentBytes": 0}),
                await client.call_tool("memory_brief", {"maxBytes": 0}))

    show, brief = run(inited, body)
    assert error(show) == "git-hn: show input field maxContentBytes must be a positive integer (1 or more)"
    assert error(brief) == "git-hn: brief input field maxBytes must be a positive integer (1 or more)"
