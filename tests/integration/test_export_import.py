"""``git hn memory export`` and ``git hn memory import`` (issue 14, item 6).

Export: JSON Lines that a reader re-verifies with the pure core alone (signature, canonical
bytes, memory ID), equal to the answer of a full projection; Markdown grouped by kind and topic
with author text inert (*Markdown injection*: headings, links, raw HTML); ``--output`` never
overwrites (*clobbering*, *symlink redirection*). Import: drafts in ``record --input``'s shape,
all or nothing (a bad or secret-shaped line appends nothing and is named), one commit chain and
one compare-and-swap, replay-idempotent, and a lost race changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest

from agent_helpers import second_identity, switch
from helpers import actor_of, git, hn, hn_proc, make_repo, recall_json, record_id, refs_snapshot
from state_compare import compare

SECRET = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def history(tmp_path):
    """Repo A: decisions with topics, a supersession, a retraction and another actor's challenge."""
    repo = make_repo(tmp_path / "a", files={"README.md": "hello\n", "src/app.py": "x = 1\n"})
    assert hn(repo, "init", "--name", "Alice Example").code == 0
    d1 = record_id(repo, "--topic", "Storage", content="Use JSON for the index")
    r = hn(repo, "memory", "supersede", d1, "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--topic", "storage", "--content", "Use canonical JSON")
    assert r.code == 0, r.err
    d2 = r.json()["memoryId"]
    obs = record_id(repo, kind="observation", content="flaky test seen once")
    r = hn(repo, "memory", "retract", obs, "--reason", "incorrect", "--json")
    assert r.code == 0, r.err
    retraction = r.json()["memoryId"]
    alice = actor_of(repo)
    bob = second_identity(repo)
    switch(repo, bob)
    b1 = record_id(repo, "--topic", "ci", "--topic", "build", kind="assumption", content="CI runs on Linux")
    r = hn(repo, "memory", "challenge", d2, "--reason", "evidence-mismatch", "--json")
    assert r.code == 0, r.err
    challenge = r.json()["memoryId"]
    switch(repo, alice)
    return repo, {"d1": d1, "d2": d2, "obs": obs, "retraction": retraction, "b1": b1,
                  "challenge": challenge, "alice": alice, "bob": bob}


def _export(repo, *args) -> list[bytes]:
    r = hn(repo, "memory", "export", *args)
    assert r.code == 0, r.err
    assert r.out_bytes.endswith(b"\n") or r.out_bytes == b""
    return r.out_bytes.splitlines(keepends=True)


# ---------------------------------------------------------------------------------------------
# export: JSON Lines


def test_jsonl_export_reverifies_without_git_and_carries_the_projection(history):
    from git_hn.core import canonical, keys
    from git_hn.core import export as core

    repo, ids = history
    lines = _export(repo)
    docs = [json.loads(line) for line in lines]
    # every record memory, every lifecycle and trust class, and the retractions and challenges
    # accepted against them (no row of their own: projection null), so that they too re-verify
    assert {d["memoryId"] for d in docs} == {ids["d1"], ids["d2"], ids["obs"], ids["b1"],
                                             ids["retraction"], ids["challenge"]}
    events = {d["memoryId"]: d for d in docs if d["projection"] is None}
    assert set(events) == {ids["retraction"], ids["challenge"]}
    assert events[ids["retraction"]]["envelope"]["operation"] == "retract"
    assert events[ids["challenge"]]["envelope"]["target"] == ids["d2"]
    for line, doc in zip(lines, docs):
        assert list(doc) == ["version", "memoryId", "commit", "ref", "payload", "signature",
                             "envelope", "projection"]
        mem = core.check_export_line(line)  # the project's pure re-verifier
        assert mem.memory_id == doc["memoryId"]
        # and independently of it: SHA-256 of the exact bytes, Ed25519 under the envelope's key
        payload = base64.b64decode(doc["payload"])
        assert "sha256:" + hashlib.sha256(payload).hexdigest() == doc["memoryId"]
        env = json.loads(payload)
        assert env == doc["envelope"]
        public = base64.b64decode(env["publicKey"] + "=")
        keys.verify(public, base64.b64decode(doc["signature"] + "=="), payload)
        # the line names where the bytes live, and Git agrees
        assert git(repo, "cat-file", "blob", f"{doc['commit']}:memory.json").encode() == payload
        assert doc["ref"] == f"refs/hn/memory/{env['actor']}/{env['stream'][len('sha256:'):]}"
        git(repo, "merge-base", "--is-ancestor", doc["commit"], doc["ref"])  # raises if not
        assert line == canonical.compact(doc) + b"\n"  # canonical compact JSON, one line
    by = {d["memoryId"]: d["projection"] for d in docs if d["projection"] is not None}
    head = git(repo, "rev-parse", "HEAD")
    assert by[ids["d1"]]["lifecycle"] == "superseded" and by[ids["d1"]]["supersededBy"] == [ids["d2"]]
    assert by[ids["d2"]]["challengedBy"] == [ids["challenge"]]
    assert by[ids["obs"]]["lifecycle"] == "retracted" and by[ids["obs"]]["retractedBy"] == [ids["retraction"]]
    assert all(p["atCommit"] == head and p["trust"] == "policy-missing" for p in by.values())
    # order: (actor, stream, sequence), the order a reader verifies chains in
    keys_ = [(d["envelope"]["actor"], d["envelope"]["stream"], d["envelope"]["sequence"]) for d in docs]
    assert keys_ == sorted(keys_)


def test_tampered_export_line_fails_reverification(history):
    from git_hn.core import export as core
    from git_hn.errors import ValidationError

    repo, ids = history
    doc = next(d for d in map(json.loads, _export(repo)) if d["memoryId"] == ids["d1"])
    payload = base64.b64decode(doc["payload"]).replace(b"Use JSON", b"Use YAML")
    assert b"Use YAML" in payload  # a forged content, signature left as it was
    forged = dict(doc, payload=base64.b64encode(payload).decode())
    with pytest.raises(ValidationError, match="invalid memory signature"):
        core.check_export_line(json.dumps(forged).encode())
    other = dict(doc, memoryId="sha256:" + "0" * 64)
    with pytest.raises(ValidationError, match="memoryId does not match"):
        core.check_export_line(json.dumps(other).encode())
    # a reader that takes the first of two keys must not be shown a forged envelope: strict JSON
    line = next(x for x in _export(repo) if json.loads(x)["memoryId"] == ids["d1"])
    assert core.check_export_line(line).memory_id == ids["d1"]
    fake = json.dumps(dict(doc["envelope"], record=dict(doc["envelope"]["record"], content="FORGED")))
    for twice in (b'{"envelope":' + fake.encode() + b"," + line[1:],
                  b'{"memoryId":"sha256:' + b"1" * 64 + b'",' + line[1:]):
        with pytest.raises(ValidationError, match="^export line is not an export record$"):
            core.check_export_line(twice)
    for changed in (dict(doc, version=1), {k: v for k, v in doc.items() if k != "ref"}, dict(doc, extra=1)):
        with pytest.raises(ValidationError, match="^export line is not an export record$"):
            core.check_export_line(json.dumps(changed).encode())


def test_export_equals_the_full_projection_and_filters_narrow_it(history):
    from git_hn.core import export as core
    from git_hn.service import export as service
    from git_hn.store.repo import open_repo

    repo, ids = history
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        r = open_repo()
        at = r.resolve_commit("HEAD")
        for req in (service.request(), service.request(kind=("decision",)),
                    service.request(lifecycle=("active",)), service.request(topic=("storage",)),
                    service.request(actor=(ids["bob"],)), service.request(query="JSON")):
            served = [core.export_line(it, at) for it in service.export(r, req, at)]
            assert served == [core.export_line(it, at) for it in service.export_full(r, req, at)]
    finally:
        os.chdir(cwd)
    got = lambda *a: {json.loads(x)["memoryId"] for x in _export(repo, *a)  # noqa: E731
                      if json.loads(x)["projection"] is not None}
    assert got("--kind", "decision") == {ids["d1"], ids["d2"]}
    assert got("--lifecycle", "active") == {ids["d2"], ids["b1"]}
    # a record's challenge comes with it, whatever the filter (it passes none of its own)
    assert {json.loads(x)["memoryId"] for x in _export(repo, "--kind", "decision")} == \
        {ids["d1"], ids["d2"], ids["challenge"]}
    assert got("--actor", ids["bob"]) == {ids["b1"]}
    assert got("--topic", "ci", "--topic", "build") == {ids["b1"]}
    assert got("--trust", "qualified") == set()  # no policy: nothing is qualified
    assert got("--query", "flaky") == {ids["obs"]}


def test_export_is_not_limited_to_recalls_page(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    lines = [json.dumps({"version": 0, "kind": "observation", "content": f"note {i}",
                         "anchor": {"commit": git(repo, "rev-parse", "HEAD")},
                         "applicability": {"mode": "descendants"}, "topics": [], "evidence": []})
             for i in range(45)]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    assert hn(repo, "memory", "import", str(tmp_path / "d.jsonl")).code == 0
    assert len(_export(repo)) == 45  # recall's default page is 20


def test_export_rejects_bad_format_and_filters_with_one_line(history):
    repo, _ids = history
    r = hn(repo, "memory", "export", "--format", "html")
    assert r.code == 1 and r.out == ""
    assert r.err.startswith("git-hn: memory export format is unsupported") and r.err.count("\n") == 1
    r = hn(repo, "memory", "export", "--kind", "decisoin")
    assert r.code == 1 and r.err.startswith("git-hn: invalid kind filter") and r.out == ""
    r = hn(repo, "memory", "export", "--at", "no-such-rev")
    assert (r.code, r.err) == (1, "git-hn: revision no-such-rev is not a commit\n")
    r = hn(repo, "memory", "export", "extra")
    assert r.code == 1 and r.err.startswith('git-hn: unexpected argument "extra"; usage: git hn memory export')


# ---------------------------------------------------------------------------------------------
# export: Markdown


HOSTILE = ("# Injected heading\n[click](javascript:alert(1)) ![img](http://evil.invalid/x.png)\n"
           "<script>alert(1)</script> <b>bold</b> &amp; www.evil.invalid\n\n    indented\n```\nfence")


def test_markdown_groups_by_kind_and_topic_and_keeps_author_text_inert(tmp_path):
    from markdown_it import MarkdownIt

    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "[Mallory](http://evil.invalid) <img src=x> *x*").code == 0
    hostile = record_id(repo, "--topic", "<b>topic</b>", content=HOSTILE)
    plain = record_id(repo, "--topic", "storage", content="Use canonical JSON")
    obs = record_id(repo, kind="observation", content="Seen once")
    r = hn(repo, "memory", "export", "--format", "markdown")
    assert r.code == 0, r.err
    text = r.out
    # structure: kinds in protocol order, then topics, each memory once with short ID, date, name
    heads = [line for line in text.splitlines() if line.startswith("#")]
    assert [h for h in heads if not h.startswith("#### ")] == [
        "# Memory export", "## observation", "### (no topic)", "## decision",
        "### \\<b\\>topic\\<\\/b\\>", "### storage"]
    entries = [h for h in heads if h.startswith("#### ")]
    assert [e.split("`")[1] for e in entries] == [obs[7:19], hostile[7:19], plain[7:19]]
    day = json.loads(hn(repo, "memory", "show", obs, "--json").out)["envelope"]["timestamp"][:10]
    assert all(f" {day} " in e and "\\[Mallory\\]\\(http\\:" in e for e in entries)
    assert "3 memories." in text
    # rendered by a real CommonMark renderer: no link, image, emphasis or HTML from author text
    out = MarkdownIt("commonmark").render(text)
    assert "<script" not in out and "<b>" not in out and "<img" not in out and "<a " not in out
    assert "<em>" not in out and "Injected heading</h" not in out
    assert "<pre><code># Injected heading\n" in out  # the content, verbatim, in a code block
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "[Mallory](http://evil.invalid) &lt;img src=x&gt; *x*" in out  # the name, literally


def test_markdown_headings_are_the_exporters_only(tmp_path):
    """Content that would be a heading, a setext underline or a rule stays text: the rendered
    page has one heading per kind, per topic group and per memory, plus the title."""
    import re

    from markdown_it import MarkdownIt

    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Evil # Name").code == 0
    record_id(repo, "--topic", "t", content="# one\n## two\n<h1>three</h1>")
    record_id(repo, kind="observation", content="===\nSetext?\n---")
    out = MarkdownIt("commonmark").render(hn(repo, "memory", "export", "--format", "markdown").out)
    assert re.findall(r"<h(\d)>", out) == ["1", "2", "3", "4", "2", "3", "4"]
    assert "<h1>three</h1>" not in out and "&lt;h1&gt;three&lt;/h1&gt;" in out
    assert "<hr" not in out


def test_markdown_says_what_each_memory_is_anchored_to(tmp_path):
    """A trial (S93): the export for people showed neither the anchor commit nor any path, even
    with ``--path X``. Each memory now has its commit (12 hex digits), how it applies and its
    paths as inline code spans a renderer shows exactly (the brief's quoting: a backtick in a
    path cannot end its span; *Markdown injection*); a path the secret lint flags is not
    repeated (the JSON Lines export keeps it)."""
    from markdown_it import MarkdownIt

    odd = "`x` <b>y</b> [l](evil.invalid).txt"
    repo = make_repo(tmp_path / "r", files={"src/app.py": "x = 1\n", odd: "o\n", f"{SECRET}.txt": "s\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    head = git(repo, "rev-parse", "HEAD")
    record_id(repo, "--path", "src/app.py", "--path", odd, content="about the app")
    record_id(repo, "--path", f"{SECRET}.txt", "--allow-secret-shaped", "--topic", "t", content="about a key")
    r = hn(repo, "memory", "export", "--format", "markdown", "--path", "src/app.py")
    assert r.code == 0, r.err
    assert (f"anchor: `{head[:12]}`, applies: descendants\n\npaths: `` {odd} ``, `src/app.py`\n") in r.out, r.out
    out = MarkdownIt("commonmark").render(r.out)
    assert f"<code>{odd.replace('<', '&lt;').replace('>', '&gt;')}</code>" in out, out
    assert "<b>" not in out and "<a " not in out
    r = hn(repo, "memory", "export", "--format", "markdown")
    assert SECRET not in r.out
    assert ("paths: (a path not repeated here: it looks like a credential; the JSON Lines export has it)\n"
            in r.out), r.out
    assert SECRET in hn(repo, "memory", "export").out


# ---------------------------------------------------------------------------------------------
# export: --output


def test_output_writes_a_new_file_and_never_overwrites(history, tmp_path):
    repo, _ids = history
    target = tmp_path / "out.jsonl"
    r = hn(repo, "memory", "export", "--output", str(target))
    assert (r.code, r.out, r.err) == (0, "", "")
    assert target.read_bytes() == hn(repo, "memory", "export").out_bytes
    r = hn(repo, "memory", "export", "--format", "markdown", "--output", str(target))
    assert r.code == 1 and r.err == f"git-hn: export output {target} already exists; choose a new file\n"
    assert target.read_bytes() == hn(repo, "memory", "export").out_bytes  # untouched
    # symlink redirection: a link (even a dangling one) at the path is never followed
    victim = tmp_path / "victim"
    link = tmp_path / "link.md"
    link.symlink_to(victim)
    r = hn(repo, "memory", "export", "--output", str(link))
    assert r.code == 1 and "already exists" in r.err and not victim.exists()
    r = hn(repo, "memory", "export", "--output", str(tmp_path / "no-dir" / "x"))
    assert r.code == 1 and r.err.count("\n") == 1 and r.err.startswith("git-hn: export output ")
    # "-" is the standard output, as --input - and import - read stdin; never a file named "-"
    r = hn(repo, "memory", "export", "--output", "-")
    assert (r.code, r.err) == (0, "") and r.out_bytes == hn(repo, "memory", "export").out_bytes
    assert not (repo / "-").exists()


# ---------------------------------------------------------------------------------------------
# import


def _draft(commit: str, content: str, **extra) -> dict:
    doc = {"version": 0, "kind": "decision", "content": content, "anchor": {"commit": commit},
           "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
    doc.update(extra)
    return doc


def _write(path: Path, docs) -> Path:
    path.write_text("".join((d if isinstance(d, str) else json.dumps(d)) + "\n" for d in docs))
    return path


def _stream_commits(repo) -> list[str]:
    ref = git(repo, "for-each-ref", "--format=%(refname)", f"refs/hn/memory/{actor_of(repo)}")
    return git(repo, "rev-list", ref).split("\n") if ref else []


@pytest.fixture
def pair(history, tmp_path):
    """Repo B: a clone of A's commits (anchors resolve) with its own identity, no memories."""
    a, ids = history
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(a), str(b))
    assert hn(b, "init", "--name", "Carol Importer").code == 0
    return a, b, ids


def test_exported_memories_round_trip_as_drafts_into_another_repository(pair, tmp_path):
    a, b, ids = pair
    drafts = []
    for line in _export(a, "--lifecycle", "active"):
        if json.loads(line)["projection"] is None:
            continue  # a challenge of an exported record: not a draft
        rec = json.loads(line)["envelope"]["record"]
        drafts.append({"version": 0, **rec})
    assert len(drafts) == 2
    # export's own lines are signed memories, not drafts: the error says which file import takes
    exported = tmp_path / "exported.jsonl"
    exported.write_bytes(b"".join(_export(a, "--lifecycle", "active")))
    before = refs_snapshot(b)
    r = hn(b, "memory", "import", str(exported))
    assert (r.code, r.err) == (1, 'git-hn: import line 1: record input: invalid JSON: json: unknown field '
                                  '"memoryId"; memory import takes drafts (record --input\'s JSON, one per line), '
                                  "not the signed memories memory export writes\n")
    assert refs_snapshot(b) == before
    path = _write(tmp_path / "drafts.jsonl", drafts)
    r = hn(b, "memory", "import", str(path), "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert list(doc) == ["version", "actor", "stream", "appended", "memories"]
    assert doc["appended"] == 2 and doc["actor"] == actor_of(b)
    assert [m["line"] for m in doc["memories"]] == [1, 2]
    assert not any(m["replayed"] for m in doc["memories"])
    shown = recall_json(b, "--include-untrusted")
    assert {m["id"] for m in shown["memories"]} == {m["memoryId"] for m in doc["memories"]}
    assert {m["data"]["content"] for m in shown["memories"]} == {d["content"] for d in drafts}
    assert {m["actor"] for m in shown["memories"]} == {actor_of(b)}
    # re-exported from B, the lines verify and carry B's signer
    from git_hn.core import export as core
    assert {core.check_export_line(x).envelope.actor for x in _export(b)} == {actor_of(b)}


def test_import_is_one_commit_chain_with_one_ref_update(pair, tmp_path):
    a, b, _ids = pair
    head = git(b, "rev-parse", "HEAD")
    record_id(b, content="already here")
    assert hn(b, "memory", "log").code == 0  # the verified state exists before the import
    before = _stream_commits(b)
    log = tmp_path / "ref-updates"
    hook = b / ".git" / "hooks" / "reference-transaction"
    hook.write_text(f"#!/bin/sh\n[ \"$1\" = committed ] && cat >> '{log}'\nexit 0\n")
    hook.chmod(0o755)
    path = _write(tmp_path / "d.jsonl", [_draft(head, f"draft {i}") for i in range(5)])
    r = hn(b, "memory", "import", str(path))
    assert r.code == 0, r.err
    assert r.out.endswith("Imported: 5 memories appended\n")
    updates = [ln for ln in log.read_text().splitlines() if " refs/hn/memory/" in ln]
    assert len(updates) == 1  # one compare-and-swap for the whole file
    old, new, _ref = updates[0].split(" ")
    assert old == before[0] and git(b, "rev-list", "--count", f"{old}..{new}") == "5"
    after = _stream_commits(b)
    assert after[5:] == before and len(after) == 6
    one = _write(tmp_path / "one.jsonl", [_draft(head, "one more")])
    assert hn(b, "memory", "import", str(one)).out.endswith("Imported: 1 memory appended\n")
    # sequences continue the chain, contents keep the file's order
    contents = [json.loads(git(b, "cat-file", "blob", f"{c}:memory.json"))["record"]["content"]
                for c in reversed(after[:5])]
    assert contents == [f"draft {i}" for i in range(5)]
    git(b, "fsck", "--no-dangling", "--strict")  # raises on a broken object
    # the import extended the verified state in place (no re-verification needed by the next read)
    from git_hn.store import state, statedb, streams
    from git_hn.store.repo import open_repo
    cwd = os.getcwd()
    os.chdir(b)
    try:
        r = open_repo()
        conn = statedb.open_sealed(r, readonly=True)
        assert conn is not None and state.is_current(conn, streams.list_sources(r))
        conn.close()
    finally:
        os.chdir(cwd)
    compare(b)  # and it answers what a full verification answers


def test_importing_the_same_file_twice_appends_nothing(pair, tmp_path):
    _a, b, _ids = pair
    head = git(b, "rev-parse", "HEAD")
    path = _write(tmp_path / "d.jsonl", [_draft(head, "one", topics=["Build"]),
                                          _draft(head, "two", kind="observation"),
                                          _draft(head, "one", topics=["build"])])  # same after normalizing
    first = hn(b, "memory", "import", str(path), "--json").json()
    assert first["appended"] == 2
    assert [m["replayed"] for m in first["memories"]] == [False, False, True]
    assert first["memories"][2]["memoryId"] == first["memories"][0]["memoryId"]
    record_id(b, content="something else recorded in between")
    before = refs_snapshot(b)
    r = hn(b, "memory", "import", str(path))
    assert r.code == 0, r.err
    assert r.out.endswith("Replayed: all 3 drafts are already in the stream; nothing appended\n")
    assert refs_snapshot(b) == before
    again = hn(b, "memory", "import", str(path), "--json").json()
    assert again["appended"] == 0 and all(m["replayed"] for m in again["memories"])
    assert [m["memoryId"] for m in again["memories"]] == [m["memoryId"] for m in first["memories"]]
    # a file with one new draft appends exactly that one
    path2 = _write(tmp_path / "d2.jsonl", [_draft(head, "one", topics=["build"]), _draft(head, "three")])
    third = hn(b, "memory", "import", str(path2), "--json").json()
    assert third["appended"] == 1 and [m["replayed"] for m in third["memories"]] == [True, False]
    # one draft is one draft (a newcomer trial read "all 1 drafts are already in the stream")
    path3 = _write(tmp_path / "d3.jsonl", [_draft(head, "three"), _draft(head, "four")])
    assert hn(b, "memory", "import", str(path3)).out.endswith(
        "Imported: 1 memory appended, 1 draft already present\n")
    path4 = _write(tmp_path / "d4.jsonl", [_draft(head, "four")])
    assert hn(b, "memory", "import", str(path4)).out.endswith(
        "Replayed: the draft is already in the stream; nothing appended\n")


@pytest.mark.parametrize("bad, message", [
    ("{not json", "record input: invalid JSON: "),
    ('{"version":0,"kind":"decision"}', "record input fields topics and evidence are required arrays"),
    ("VALID_WITH_EXTRA", 'record input: invalid JSON: json: unknown field "colour"'),
    ('{"version":1}', "record input field version must be integer 0"),
    ("BAD_KIND", "memory record kind is unsupported"),
    ("MISSING_COMMIT", "anchor.commit must be an exact available commit"),
    ("OTHER_ACTOR", "record input actor does not match the active identity"),
    ("PATH_BLOB", "anchor.paths blob for README.md does not match commit "),
])
def test_one_bad_line_appends_nothing_and_is_named(pair, tmp_path, bad, message):
    _a, b, ids = pair
    head = git(b, "rev-parse", "HEAD")
    line = {"VALID_WITH_EXTRA": json.dumps({**_draft(head, "x"), "colour": "red"}),
            "BAD_KIND": json.dumps(_draft(head, "x", kind="decisoin")),
            "MISSING_COMMIT": json.dumps(_draft("0" * 40, "x")),
            "OTHER_ACTOR": json.dumps(_draft(head, "x", actor=ids["alice"])),
            "PATH_BLOB": json.dumps(_draft(head, "x", anchor={"commit": head, "paths": [
                {"path": "README.md", "blob": "1" * 40}]})),
            }.get(bad, bad)
    path = _write(tmp_path / "d.jsonl", [_draft(head, "good 1"), "", line, _draft(head, "good 2")])
    before = refs_snapshot(b)
    r = hn(b, "memory", "import", str(path))
    assert r.code == 1 and r.out == ""
    assert r.err.startswith(f"git-hn: import line 3: {message}"), r.err
    assert r.err.count("\n") == 1
    assert refs_snapshot(b) == before


def test_secret_shaped_draft_refuses_the_whole_file_unless_allowed(pair, tmp_path):
    _a, b, _ids = pair
    head = git(b, "rev-parse", "HEAD")
    path = _write(tmp_path / "d.jsonl", [_draft(head, "fine"), _draft(head, "fine too"),
                                          _draft(head, "key", topics=[SECRET])])
    before = refs_snapshot(b)
    r = hn(b, "memory", "import", str(path))
    assert (r.code, r.out) == (1, "")
    assert r.err.startswith("git-hn: import line 3: secret-shaped text in record.topics[0] (")
    assert r.err.endswith("not signed; use --allow-secret-shaped to override\n") and SECRET not in r.err
    assert refs_snapshot(b) == before
    r = hn(b, "memory", "import", str(path), "--allow-secret-shaped", "--json")
    assert r.code == 0 and r.json()["appended"] == 3


def test_stream_rules(pair, tmp_path):
    _a, b, _ids = pair
    head = git(b, "rev-parse", "HEAD")
    s1, s2 = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    path = _write(tmp_path / "d.jsonl", [_draft(head, "a", stream=s1), _draft(head, "b")])
    doc = hn(b, "memory", "import", str(path), "--json").json()
    assert doc["stream"] == s1  # the drafts named it
    before = refs_snapshot(b)
    r = hn(b, "memory", "import", str(path), "--stream", s2)
    assert r.code == 1 and r.err.startswith("git-hn: import line 1: record input field stream ")
    assert refs_snapshot(b) == before
    r = hn(b, "memory", "import", str(_write(tmp_path / "e.jsonl", [_draft(head, "c")])), "--stream", s2, "--json")
    assert r.json()["stream"] == s2
    r = hn(b, "memory", "import", str(path), "--stream", "nope")
    assert (r.code, r.err) == (1, "git-hn: memory stream is invalid; a stream is chosen by a full stream ID (sha256: "
                                  "and 64 lowercase hex digits, as a record's output prints it) or label:NAME, NAME "
                                  "being 1 to 64 of a-z, 0-9, ., _ and - (starting with a letter or digit)\n")


def test_file_rules_blank_lines_bounds_and_stdin(pair, tmp_path):
    from git_hn.core.export import MAX_IMPORT_BYTES, MAX_IMPORT_DRAFTS

    _a, b, _ids = pair
    head = git(b, "rev-parse", "HEAD")
    before = refs_snapshot(b)
    for name, data, message in (
            ("empty", b"", "memory import file contains no drafts"),
            ("blank", b"\n  \r\n\t\n", "memory import file contains no drafts"),
            ("big", b" " * (MAX_IMPORT_BYTES + 1), f"memory import file exceeds {MAX_IMPORT_BYTES} bytes"),
            ("many", b"{}\n" * (MAX_IMPORT_DRAFTS + 1), f"memory import file has more than {MAX_IMPORT_DRAFTS} drafts"),
            ("two-values", json.dumps(_draft(head, "x")).encode() + b" {}\n",
             "import line 1: record input: JSON must contain exactly one value"),
            ("utf8", b'{"version":0,"content":"\xff"}\n', "import line 1: record input: JSON is not valid UTF-8")):
        f = tmp_path / name
        f.write_bytes(data)
        r = hn(b, "memory", "import", str(f))
        assert (r.code, r.err) == (1, f"git-hn: {message}\n"), name
    r = hn(b, "memory", "import", str(tmp_path))
    assert (r.code, r.err) == (1, f'git-hn: explicit input must be a regular file; the file to import "{tmp_path}" is '
                                  "a directory\n")  # (an audit: "explicit input" alone named no argument)
    r = hn(b, "memory", "import", "nonexistent")  # (relative: a long temporary path is shown cut)
    assert (r.code, r.err) == (1, 'git-hn: explicit input must be a regular file; the file to import '
                                  '"nonexistent" does not exist\n')
    r = hn(b, "memory", "import")
    assert r.code == 1 and r.err.startswith("git-hn: missing FILE (- reads stdin); usage: git hn memory import")
    assert refs_snapshot(b) == before
    # CRLF line ends and blank lines are fine; line numbers count them; stdin as a real process
    data = ("\r\n" + json.dumps(_draft(head, "from stdin")) + "\r\n\r\n"
            + json.dumps(_draft(head, "second")) + "\r\n").encode()
    r = hn_proc(b, "memory", "import", "-", "--json", input=data)
    assert r.code == 0, r.err
    assert [m["line"] for m in r.json()["memories"]] == [2, 4]


def test_a_lost_race_changes_nothing(pair, tmp_path):
    """The stream ref moves on (a writer the lock cannot see: another tool appends by hand)
    between the read and the compare-and-swap on every attempt: the import fails after its
    retries and none of its memories is referenced. (Moving the ref back instead is a lost tip,
    which the import refuses to sign over: test_import_state.py.)"""
    from git_hn.errors import ConflictError
    from git_hn.service import import_drafts
    from git_hn.store.append import now_timestamp
    from git_hn.store.repo import open_repo
    from independent import append_by_hand

    _a, b, _ids = pair
    head = git(b, "rev-parse", "HEAD")
    record_id(b, content="m1")
    ref = git(b, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    calls = []

    def racing_clock():
        calls.append(1)
        if len(calls) % 2 == 1:  # once per attempt (two drafts, two timestamps per attempt)
            append_by_hand(b, {"kind": "observation", "content": f"overtaker {len(calls)}",
                               "anchor": {"commit": head}, "applicability": {"mode": "exact"},
                               "topics": [], "evidence": []})
        return now_timestamp()

    data = (json.dumps(_draft(head, "racy 1")) + "\n" + json.dumps(_draft(head, "racy 2")) + "\n").encode()
    cwd = os.getcwd()
    os.chdir(b)
    try:
        with pytest.raises(ConflictError, match="compare-and-swap failed"):
            import_drafts.import_drafts(open_repo(), data, clock=racing_clock)
    finally:
        os.chdir(cwd)
    assert len(calls) == 8  # four attempts, each signed afresh
    assert json.loads(git(b, "cat-file", "blob", f"{ref}:memory.json"))["record"]["content"] == "overtaker 7"
    contents = {m["data"]["content"] for m in recall_json(b, "--include-untrusted", "--lifecycle", "all")["memories"]}
    assert not contents & {"racy 1", "racy 2"} and len(contents) == 5
    # without the racer the same import goes through, once
    r = hn(b, "memory", "import", "-", "--json", input=data)
    assert r.code == 0 and r.json()["appended"] == 2


def test_anchor_checks_cost_a_few_git_processes_not_one_per_draft(pair, tmp_path):
    """Paths the batch lookup cannot settle (absent ones; a name with a space is settled by it) are listed with one
    ``ls-tree`` per commit, however many drafts name them."""

    a, b, _ids = pair
    head = git(b, "rev-parse", "HEAD")
    (b / "d d").mkdir()
    (b / "d d" / "f f.txt").write_text("spaced\n")
    git(b, "add", "d d")
    git(b, "commit", "-q", "-m", "a spaced path")
    spaced_head = git(b, "rev-parse", "HEAD")
    spaced_blob = git(b, "rev-parse", "HEAD:d d/f f.txt")
    drafts = []
    for i in range(120):
        at, paths = (head, [{"path": "gone.txt", "blob": "absent"}]) if i % 2 else \
            (spaced_head, [{"path": "d d/f f.txt", "blob": spaced_blob}, {"path": f"gone-{i}", "blob": "absent"}])
        drafts.append({"version": 0, "kind": "observation", "content": f"draft {i}",
                       "anchor": {"commit": at, "paths": paths}, "applicability": {"mode": "descendants"},
                       "topics": [], "evidence": []})
    trace = tmp_path / "trace"
    r = hn_proc(b, "memory", "import", str(_write(tmp_path / "drafts.jsonl", drafts)), "--json",
                env={"GIT_TRACE": str(trace)})
    assert r.code == 0, r.err
    assert json.loads(r.out)["appended"] == 120
    assert trace.read_text().count("trace: built-in: git ls-tree") == 2  # one per commit
    bad = dict(drafts[1], anchor={"commit": head, "paths": [{"path": "gone.txt", "blob": "0" * 40}]})
    r = hn(b, "memory", "import", str(_write(tmp_path / "bad.jsonl", [bad])))
    assert r.code == 1 and r.err == (f"git-hn: import line 1: anchor.paths blob for gone.txt does not match "
                                     f"commit {head}\n")
