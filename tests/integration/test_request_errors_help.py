"""Request documents (``--input``, the MCP tools): an error keeps the contract's words first and
says what would be right (a coding-agent trial): the shape an array field takes, the known key a
mistyped one is close to, a missing field named missing. Real repositories and a real
``git hn mcp`` server; nothing is mocked.
"""

from __future__ import annotations

import json

from helpers import git, hn, refs_snapshot
from test_agent_mcp import run, text


def _draft(repo, **extra) -> dict:
    return {"version": 0, "kind": "decision", "content": "x", "anchor": {"commit": git(repo, "rev-parse", "HEAD")},
            "applicability": {"mode": "exact"}, "topics": [], "evidence": [], **extra}


KIND_ARRAY = ("recall input: invalid JSON: json: cannot unmarshal into field kind of type []string; kind must be "
              'an array of strings, such as ["decision"]')


def test_cli_input_says_the_shape_and_the_close_key(inited):
    r = hn(inited, "memory", "recall", "--input", "-", "--json", input=b'{"version":0,"kind":"decision"}')
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {KIND_ARRAY}\n")
    r = hn(inited, "memory", "recall", "--input", "-", "--json", input=b'{"version":0,"topics":["cache"]}')
    assert r.err == 'git-hn: recall input: invalid JSON: json: unknown field "topics"; did you mean topic?\n'
    before = refs_snapshot(inited)
    doc = _draft(inited)
    doc["topic"] = doc.pop("topics")
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(doc).encode())
    assert r.err == 'git-hn: record input: invalid JSON: json: unknown field "topic"; did you mean topics?\n'
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(_draft(inited, zzz=1)).encode())
    assert r.err == 'git-hn: record input: invalid JSON: json: unknown field "zzz"\n'  # (nothing close)
    assert refs_snapshot(inited) == before


def test_mcp_arguments_say_the_shape_the_close_key_and_what_is_missing(inited):
    before = refs_snapshot(inited)

    async def body(client):
        return [await client.call_tool(name, args) for name, args in (
            ("memory_recall", {"kind": "decision"}),
            ("memory_record", {"kind": "decision", "content": "x", "topic": ["cache"]}),
            ("memory_show", {}),
            ("memory_retract", {"reason": "incorrect"}),
            ("memory_brief", {"topic": ["cache"]}),
        )]

    results = run(inited, body, "--allow-write")
    assert all(r.is_error for r in results)
    assert [text(r) for r in results] == [
        f"git-hn: {KIND_ARRAY}",
        'git-hn: record input: unknown argument "topic"; did you mean topics?',
        "git-hn: show input field memory is required: a memory ID (sha256: and 64 hex digits, or at least 8 of its "
        "first ones)",
        "git-hn: retract input field memory is required: a memory ID (sha256: and 64 hex digits, or at least 8 of "
        "its first ones)",
        'git-hn: brief input: unknown argument "topic"; did you mean topics?',
    ]
    assert refs_snapshot(inited) == before


def test_a_document_lacking_version_is_told_every_other_missing_field_too(inited):
    """A review: ``{"content":"x"}`` was refused with only ``record input field version must be
    integer 0`` (CONTRACT §10.5's first check), and the fields it also lacked came at the next
    try. The version refusal now names them too; nothing is written before, and the document it
    says is then signed."""
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=b'{"content":"x"}')
    assert (r.code, r.out, r.err) == (1, "", "git-hn: record input field version must be integer 0; the document "
                                      "also needs kind, anchor.commit, applicability.mode, topics and evidence "
                                      "(an array may be empty: [])\n"), r.err
    doc = {"kind": "handoff", "content": "x", "topics": [], "evidence": []}
    r = hn(inited, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--input", "-", "--json",
           input=json.dumps(doc).encode())
    assert r.err == ("git-hn: record input field version must be integer 0; the document also needs handoff with "
                     "the arrays completed, assumptions, blockers, nextActions (an array may be empty: [])\n"), r.err
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=b'{"version":1,"content":"x"}')
    assert r.err.startswith("git-hn: record input field version must be integer 0; the document also needs kind, ")
    assert refs_snapshot(inited) == before
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(_draft(inited)).encode())
    assert r.code == 0, r.err


def test_a_document_lacking_several_fields_is_told_all_of_them_at_once(inited):
    """A trial (S88, finding 8): ``handoff --input`` with only ``content`` and two handoff lists was
    refused three times in turn (topics and evidence, then kind, then the handoff arrays). The first
    refusal keeps the contract's words and names every other field the document needs, on the same
    line; the document it says is then signed. Nothing is written before."""
    before = refs_snapshot(inited)
    doc = {"version": 0, "content": "added ops", "handoff": {"completed": ["add/sub"], "nextActions": ["pow"]}}
    r = hn(inited, "memory", "handoff", "--input", "-", "--json", "--at", "HEAD", "--applies", "descendants",
           input=json.dumps(doc).encode())
    assert (r.code, r.out) == (1, "")
    assert r.err == ('git-hn: record input fields topics and evidence are required arrays; the document also needs '
                     'handoff.assumptions and handoff.blockers (an array may be empty: [])\n'), r.err
    r = hn(inited, "memory", "handoff", "--input", "-", "--json", input=json.dumps(doc).encode())  # (no --at)
    assert r.err == ('git-hn: record input fields topics and evidence are required arrays; the document also needs '
                     'anchor.commit (or --at), applicability.mode (or --applies), '
                     'handoff.assumptions and handoff.blockers (an array may be empty: [])\n'), r.err
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=b'{"version":0,"topics":[],"evidence":[]}')
    assert r.err.startswith("git-hn: memory record content is invalid; ") and r.err.endswith(
        "; the document also needs kind, anchor.commit and applicability.mode\n"), r.err
    assert refs_snapshot(inited) == before
    fixed = {**doc, "topics": [], "evidence": [],  # (kind left out: the command's, handoff)
             "handoff": {**doc["handoff"], "assumptions": [], "blockers": []}}
    r = hn(inited, "memory", "handoff", "--input", "-", "--json", "--at", "HEAD", "--applies", "descendants",
           input=json.dumps(fixed).encode())
    assert r.code == 0, r.err
    # a refusal that is not of a missing field, or with nothing else missing, is as it was
    draft = json.dumps(_draft(inited, kind="handoff")).encode()
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=draft)
    assert r.err == ("git-hn: memory handoff record has invalid fields; kind handoff needs handoff with the arrays "
                     "completed, assumptions, blockers, nextActions (each entry non-blank)\n"), r.err


def test_at_commit_in_a_record_document_names_anchor_commit(inited):
    """f143's agent trial: README's MCP section says ``atCommit`` takes any revision, so the agent
    sent ``"atCommit": "HEAD"`` to ``record --input`` and was told only that the field is unknown.
    The refusal names the key a record document takes for it; nothing is signed."""
    before = refs_snapshot(inited)
    said = ('git-hn: record input: invalid JSON: json: unknown field "atCommit"; a record request names its '
            "commit in anchor.commit, the full commit ID (git rev-parse HEAD prints it): atCommit is the MCP "
            "tools' argument\n")
    doc = _draft(inited, atCommit="HEAD")
    del doc["anchor"]
    for command in (["record"], ["handoff", "--at", "HEAD"]):
        if command[0] == "handoff":
            doc = {k: v for k, v in doc.items() if k != "kind"}
        r = hn(inited, "memory", *command, "--input", "-", "--json", input=json.dumps(doc).encode())
        assert (r.code, r.out, r.err) == (1, "", said)
    # a key that is not atCommit keeps the words it had
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(_draft(inited, at="HEAD")).encode())
    assert r.err == 'git-hn: record input: invalid JSON: json: unknown field "at"\n'
    assert refs_snapshot(inited) == before
