"""Recall's bound on the whole answer, ``--max-bytes`` / ``maxBytes`` (git-hn), on real repositories.

An agent trial: ``recall --json`` gave 20 memories in 23.8 KB for about 100 bytes of content each,
and MCP ``memory_recall {"maxRecords":100000,"includeUntrusted":true}`` one 627,645-byte tool
result: ``maxRecords`` and ``maxContentBytes`` bound neither. ``maxBytes`` bounds the ``--json``
line (newline included); rows are added in order until the next would not fit, and the cursor
pages on. Absent, the request is the contract's (same query digest, same cursors).
"""

from __future__ import annotations

import json
import re

import anyio
import pytest

from agent_helpers import commit_policy, policy, actor
from helpers import git, hn

from test_agent_mcp import document, error, session


def _recall(repo, *args):
    r = hn(repo, "memory", "recall", "--json", *args)
    assert r.code == 0, r.err
    return r


@pytest.fixture
def many(inited):
    head = git(inited, "rev-parse", "HEAD")
    commit_policy(inited, policy([actor(inited)], ["decision"], actor(inited)))
    for i in range(7):
        r = hn(inited, "memory", "record", "--kind", "decision", "--at", head, "--applies", "descendants",
               "--topic", "bytes", "--content", f"Decision number {i}: keep answers small.")
        assert r.code == 0, r.err
    return inited


def test_max_bytes_bounds_the_whole_answer_and_the_cursor_pages_on(many):
    """An agent trial: 20 memories took 23.8 KB; a bound on the answer keeps each page within
    it, and the pages together are the unbounded answer, in order."""
    whole = _recall(many, "--max-records", "100").json()
    assert whole["matched"] == 7 and whole["returned"] == 7
    two = _recall(many, "--max-records", "2")
    bound = len(two.out_bytes)  # exactly the line of a two-row page with its cursor
    page = _recall(many, "--max-bytes", str(bound))
    assert len(page.out_bytes) == bound and [m["id"] for m in page.json()["memories"]] == \
        [m["id"] for m in two.json()["memories"]]
    # maxBytes is a page size, not in the query digest: the digest of the same recall without it
    assert page.json()["queryDigest"] == _recall(many).json()["queryDigest"]
    smaller = _recall(many, "--max-bytes", str(bound - 1))
    assert smaller.json()["returned"] == 1 and len(smaller.out_bytes) < bound
    seen, cursor, pages = [], [], 0
    while True:
        r = _recall(many, "--max-bytes", str(bound), *cursor)
        assert len(r.out_bytes) <= bound
        doc = r.json()
        seen += [m["id"] for m in doc["memories"]]
        pages += 1
        if not doc["truncated"]:
            assert "nextCursor" not in doc
            break
        cursor = ["--cursor", doc["nextCursor"]]
    # (4 pages of two when every row is as long as the first two; a signed timestamp's fraction
    # drops trailing zeros, so a later row may be a byte longer and page alone: flaky as == 4)
    assert seen == [m["id"] for m in whole["memories"]] and 4 <= pages <= 7
    # the same page from the strict request, and in human output
    req = {"version": 0, "atCommit": git(many, "rev-parse", "HEAD"), "maxBytes": bound}
    via_input = hn(many, "memory", "recall", "--input", "-", "--json", input=json.dumps(req).encode())
    assert via_input.code == 0, via_input.err
    assert via_input.out_bytes == page.out_bytes
    human = hn(many, "memory", "recall", "--max-bytes", str(bound))
    assert human.code == 0 and human.out.count("  actor=") == 2


def test_a_bound_too_small_names_the_smallest_that_fits(many):
    """A memory is never cut: a bound that holds not even the first one (or, with nothing to
    return, not the empty answer) fails with one line naming the bound that holds it."""
    first = _recall(many, "--max-records", "1")
    whole = _recall(many, "--max-records", "100").json()
    r = hn(many, "memory", "recall", "--json", "--max-bytes", "100")
    smallest = len(first.out_bytes)
    assert r.code == 1 and r.out == ""
    assert r.err == (f"git-hn: memory {whole['memories'][0]['id']}, the next in order, does not fit in a recall "
                     f"answer of 100 bytes (a memory is never cut); the smallest bound that holds it is "
                     f"{smallest}: --max-bytes {smallest} (maxBytes over MCP)\n")
    fits = _recall(many, "--max-bytes", str(smallest))
    assert len(fits.out_bytes) == smallest and fits.json()["returned"] == 1
    empty = hn(many, "memory", "recall", "--json", "--topic", "none", "--max-bytes", "50")
    size = len(_recall(many, "--topic", "none", "--max-bytes", "1000").out_bytes)
    assert empty.code == 1 and empty.err == (
        f"git-hn: a recall answer does not fit in 50 bytes even without memories; the smallest bound that "
        f"holds it is {size}: --max-bytes {size} (maxBytes over MCP)\n")
    for bad in ("0", "-3"):
        r = hn(many, "memory", "recall", "--json", "--max-bytes", bad)
        assert r.code == 1 and r.err == "git-hn: recall bounds must be positive; --max-bytes takes 1 or more\n"
    req = {"version": 0, "atCommit": git(many, "rev-parse", "HEAD"), "maxBytes": 0}
    r = hn(many, "memory", "recall", "--input", "-", "--json", input=json.dumps(req).encode())
    assert r.code == 1 and r.err == "git-hn: recall input field maxBytes must be a positive integer\n"


def test_without_max_bytes_the_request_is_the_contracts(many):
    """Absent by default: the same query digest and cursor as a request that never heard of it,
    and the same answer as with a bound large enough for everything."""
    plain = _recall(many, "--max-records", "3").json()
    req = {"version": 0, "atCommit": git(many, "rev-parse", "HEAD"), "maxRecords": 3}
    via_input = hn(many, "memory", "recall", "--input", "-", "--json", input=json.dumps(req).encode()).json()
    assert via_input["queryDigest"] == plain["queryDigest"] and via_input["nextCursor"] == plain["nextCursor"]
    big = _recall(many, "--max-records", "3", "--max-bytes", "1000000").json()
    assert big == plain  # (the same digest and cursor too: maxBytes is in neither)


def test_a_memory_larger_than_the_bound_pages_on_with_the_bound_named(inited):
    """A review: with ``--max-bytes 2000``, the next memory taking 3,646 bytes, the refusal named
    ``--max-bytes 3646``, and that bound refused the cursor ("maxBytes (--max-bytes) was 2000, is
    3646"): paging stopped for good at a memory larger than the agent's bound. maxBytes is in no
    query digest: the bound named continues the cursor, and the next page takes the smaller again."""
    def recall(*args):
        return hn(inited, "memory", "recall", "--json", "--include-untrusted", *args)

    def record(content):
        r = hn(inited, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
               "descendants", "--content", content)
        assert r.code == 0, r.err
        return r.json()["memoryId"]

    older, large, newest = record("small and old"), record("large " * 500), record("small and new")
    first = recall("--max-bytes", "2000")
    assert first.code == 0, first.err
    assert [m["id"] for m in first.json()["memories"]] == [newest]
    cursor = first.json()["nextCursor"]
    refused = recall("--max-bytes", "2000", "--cursor", cursor)
    assert refused.code == 1 and refused.out == ""
    needed = int(refused.err.split("the smallest bound that holds it is ")[1].split(":")[0])
    assert refused.err == (f"git-hn: memory {large}, the next in order, does not fit in a recall answer of 2000 "
                           f"bytes (a memory is never cut); the smallest bound that holds it is {needed}: "
                           f"--max-bytes {needed} (maxBytes over MCP) with the same cursor, and the page after "
                           "it may take the smaller bound again (a cursor holds under any bound)\n")
    second = recall("--max-bytes", str(needed), "--cursor", cursor)
    assert second.code == 0, second.err
    assert [m["id"] for m in second.json()["memories"]] == [large] and len(second.out_bytes) == needed
    third = recall("--max-bytes", "2000", "--cursor", second.json()["nextCursor"])
    assert third.code == 0, third.err
    assert [m["id"] for m in third.json()["memories"]] == [older] and not third.json()["truncated"]
    unbounded = recall("--cursor", cursor)  # (and without a bound at all)
    assert unbounded.code == 0 and [m["id"] for m in unbounded.json()["memories"]] == [large, older]


def test_mcp_recall_max_bytes_bounds_the_tool_result_with_its_hint(many):
    """MCP ``memory_recall``: ``maxBytes`` bounds the tool result, its ``hint`` included (the hint
    counts against the bound: the page gives way to it, and its cursor goes on from there);
    without ``maxBytes``, an answer past 64 KiB says that maxBytes bounds it (a trial got 627,645
    bytes for one call)."""
    head = git(many, "rev-parse", "HEAD")
    r = hn(many, "memory", "record", "--kind", "observation", "--at", head, "--applies", "descendants",
           "--content", "An observation the policy does not trust.")
    assert r.code == 0, r.err
    for i in range(4):
        r = hn(many, "memory", "record", "--kind", "decision", "--at", head, "--applies", "descendants",
               "--content", f"A long decision {i} " + "x" * 20_000)
        assert r.code == 0, r.err
    two = _recall(many, "--max-records", "2").out_bytes
    bound = len(two)

    async def main():
        async with session(many) as client:
            page = await client.call_tool("memory_recall", {"maxBytes": bound})
            nxt = await client.call_tool("memory_recall", {"maxBytes": bound,
                                                           "cursor": document(page)["nextCursor"]})
            large = await client.call_tool("memory_recall", {"maxRecords": 100, "maxContentBytes": 1 << 20})
            tiny = await client.call_tool("memory_recall", {"maxBytes": 10})
            return page, nxt, large, tiny

    page, nxt, large, tiny = anyio.run(main)
    doc = document(page)
    assert "1 memory" in doc["hint"] or "observation" in doc["hint"] or "includeUntrusted" in doc["hint"]
    assert len(page.content[0].text.encode()) < bound and doc["returned"] == 1 and doc["truncated"]
    whole = _recall(many, "--max-records", "100").json()
    assert [m["id"] for m in doc["memories"] + document(nxt)["memories"]] == \
        [m["id"] for m in whole["memories"]][:1 + document(nxt)["returned"]]
    ldoc = document(large)
    assert ldoc["returned"] == 11 and len(large.content[0].text.encode()) > 65_536
    size = len(large.content[0].text.encode()) - len(json.dumps({"hint": ldoc["hint"]},
                                                                separators=(",", ":"))) + 1
    assert f"This answer is {size} bytes: maxBytes bounds the whole answer" in ldoc["hint"]
    assert error(tiny).startswith("git-hn: memory sha256:")
    assert re.search(r"holds it is (\d+): maxBytes \1$", error(tiny)), error(tiny)


def test_recall_help_says_which_bound_is_a_page_size(inited):
    """An agent trial took ``--max-content-bytes`` for a page size; one matching memory over it
    fails the whole request (CONTRACT §7.6 step 5). ``recall -h`` and the MCP schema say so, and
    name the bound that is one."""
    from git_hn.service.mcp_tools import SCHEMAS

    r = hn(inited, "memory", "recall", "-h")
    assert r.code == 0
    flat = " ".join(r.out.split())
    assert ("one matching memory larger than N fails the whole request (a memory is never cut), so this is no "
            "page size: --max-bytes is") in flat
    assert "--max-bytes N at most N bytes of output" in flat
    props = SCHEMAS["memory_recall"]["properties"]
    assert "fails the whole call, so this is no page size: maxBytes is" in props["maxContentBytes"]["description"]
    assert props["maxBytes"]["minimum"] == 1 and "nextCursor" in props["maxBytes"]["description"]
