"""Recording and showing memories on real repositories (CONTRACT §4.1, §7.13, §7.14, §10.2–§10.5)."""

from __future__ import annotations

import json
import os

import pytest

from git_hn.core.gostr import quoted
from helpers import git, hn, refs_snapshot, unhinted
from independent import verify_commit


def _record(repo, *args, input=b""):
    r = hn(repo, "memory", "record", "--json", *args, input=input)
    assert r.code == 0, r.err
    return r.json()


def _show(repo, mid):
    r = hn(repo, "memory", "show", mid, "--json")
    assert r.code == 0, r.err
    return r.json()


def _stream_commits(repo):
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
    assert len(refs) == 1
    return refs[0], git(repo, "rev-list", "--reverse", refs[0]).split()


KINDS = [
    ("observation", []),
    ("decision", ["--topic", "Architecture", "--topic", " memory "]),
    ("assumption", ["--subject", "issue:sha256:" + "1" * 64]),
    ("attempt", ["--outcome", "failed"]),
    ("verification", ["--evidence", "event:sha256:" + "e" * 64]),
    ("handoff", ["--completed", "codec", "--assumption", "git >= 2.30", "--blocker", "none",
                 "--next-action", "rm -rf / (inert data)"]),
]


@pytest.mark.parametrize("kind,extra", KINDS)
def test_each_kind_round_trips_through_record_and_show(inited, kind, extra):
    head = git(inited, "rev-parse", "HEAD")
    applies = "exact"
    args = ["--kind", kind, "--at", "HEAD", "--applies", applies, "--path", "README.md",
            "--path", "docs/missing.md", *extra, "--content", f"A {kind} with <html> & \u2028 text"]
    out = _record(inited, *args)
    blob = git(inited, "rev-parse", "HEAD:README.md")
    assert out["anchor"]["commit"] == head
    assert out["anchor"]["paths"] == [{"path": "README.md", "blob": blob},
                                      {"path": "docs/missing.md", "blob": "absent"}]
    shown = _show(inited, out["memoryId"])
    assert shown["memoryId"] == out["memoryId"]
    env = shown["envelope"]
    assert (env["operation"], env["sequence"], env["actorName"]) == ("record", 1, "Alice Agent")
    data = shown["projection"]["data"]
    assert data["kind"] == kind
    assert data["content"] == f"A {kind} with <html> & \u2028 text"
    if kind == "decision":
        assert data["topics"] == ["architecture", "memory"]
    if kind == "attempt":
        assert data["attemptOutcome"] == "failed"
    if kind == "handoff":
        assert data["handoff"] == {"completed": ["codec"], "assumptions": ["git >= 2.30"],
                                   "blockers": ["none"], "nextActions": ["rm -rf / (inert data)"]}
    # independent verification of what git-hn wrote (tree shape, canonical bytes, ID, signature)
    _ref, commits = _stream_commits(inited)
    parsed = verify_commit(inited, commits[-1])
    assert parsed["_id"] == out["memoryId"]
    assert parsed["record"]["kind"] == kind
    raw = git(inited, "cat-file", "-p", f"{commits[-1]}:memory.json")
    assert "\\u003chtml\\u003e \\u0026 \\u2028" in raw


def test_chain_links_and_commit_metadata(inited):
    ids = [_record(inited, "--kind", "observation", "--at", "HEAD", "--applies", "exact",
                   "--content", f"note {i}")["memoryId"] for i in range(3)]
    ref, commits = _stream_commits(inited)
    assert len(commits) == 3
    envs = [verify_commit(inited, c) for c in commits]
    assert [e["sequence"] for e in envs] == [1, 2, 3]
    assert "previous" not in envs[0]
    assert envs[1]["previous"] == ids[0] and envs[2]["previous"] == ids[1]
    assert git(inited, "rev-list", "--max-parents=0", ref) == commits[0]
    assert git(inited, "log", "-1", "--format=%P", commits[2]) == commits[1]
    actor = envs[0]["actor"]
    assert git(inited, "log", "-1", "--format=%an|%ae|%cn|%ce|%B", commits[2]) == \
        f"Alice Agent|{actor[:12]}@hn.invalid|Alice Agent|{actor[:12]}@hn.invalid|hn memory {ids[2]}"
    assert git(inited, "cat-file", "commit", commits[2]).endswith(f"\n\nhn memory {ids[2]}")
    assert ref == f"refs/hn/memory/{actor}/{envs[0]['stream'][7:]}"


def test_content_sources(inited, tmp_path):
    base = ["--kind", "observation", "--at", "HEAD", "--applies", "exact"]
    pos = _record(inited, *base, "positional text")
    assert _show(inited, pos["memoryId"])["projection"]["data"]["content"] == "positional text"
    f = tmp_path / "content.txt"
    f.write_bytes(b"\xef\xbb\xbffrom a file\n")
    viafile = _record(inited, *base, "--content-file", str(f))
    assert _show(inited, viafile["memoryId"])["projection"]["data"]["content"] == "\ufefffrom a file\n"
    viastdin = _record(inited, *base, "--content-file", "-", input=b"from stdin\n\n")
    assert _show(inited, viastdin["memoryId"])["projection"]["data"]["content"] == "from stdin\n\n"
    dash = _record(inited, *base, "--", "-starts with a dash")
    assert _show(inited, dash["memoryId"])["projection"]["data"]["content"] == "-starts with a dash"
    before = refs_snapshot(inited)
    two = hn(inited, "memory", "record", *base, "--content", "a", "b")
    assert two.err == ("git-hn: record content must have exactly one explicit source; got --content and 1 "
                       "positional argument: give the content once\n")
    # a forgotten quote: the contract's text first, then what to do (the words are not repeated)
    unquoted = hn(inited, "memory", "record", *base, "Use", "sqlite", "now")
    assert (unquoted.code, unquoted.err) == (1, "git-hn: record content must have exactly one explicit source; got 3 "
                                                "positional arguments: quote the content so that the shell passes "
                                                'it as one argument (--content "..." or "...")\n')
    twice = hn(inited, "memory", "record", *base, "--content-file", str(tmp_path / "x"), "--content", "a",
               "--content", "b")
    assert twice.err == ("git-hn: record content must have exactly one explicit source; got --content 2 times "
                         "and --content-file: give the content once\n")
    none = hn(inited, "memory", "record", *base)
    assert none.err == ("git-hn: usage: git hn memory record --kind KIND --at REV --applies MODE "
                        "--content TEXT; missing content (--content TEXT, --content-file PATH or one "
                        "positional argument)\n")
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 65537)
    r = hn(inited, "memory", "record", *base, "--content-file", str(big))
    assert r.err == ("git-hn: memory record content is invalid; the content is non-blank UTF-8 text of at most 65536 "
                     "bytes (65537 bytes given)\n")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe")
    assert hn(inited, "memory", "record", *base, "--content-file", str(bad)).err == \
        "git-hn: memory record content is invalid; the content is non-blank UTF-8 text of at most 65536 bytes " \
        "(the content given is not UTF-8: byte 0xff at offset 0)\n"
    assert hn(inited, "memory", "record", *base, "--content-file", str(tmp_path)).err == \
        f'git-hn: explicit input must be a regular file; --content-file "{quoted(str(tmp_path))}" is a directory\n'
    # the option is named (a newcomer trial), and the path as given (a later trial: "nothing is at
    # the --content-file path" did not say which), on one line and bounded
    assert hn(inited, "memory", "record", *base, "--content-file", "nope.txt").err == \
        'git-hn: explicit input must be a regular file; --content-file "nope.txt" does not exist\n'
    long = "x" * 200 + "\n\x1b[31m"
    assert hn(inited, "memory", "record", *base, "--content-file", long).err == \
        f'git-hn: explicit input must be a regular file; --content-file "{"x" * 80}\u2026" does not exist\n'
    assert hn(inited, "memory", "record", *base, "--content-file", "a\nb\x1b[31m").err == \
        'git-hn: explicit input must be a regular file; --content-file "a b [31m" does not exist\n'
    assert refs_snapshot(inited) == before


def test_human_output_lines(inited):
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "x")
    lines = r.out.splitlines()
    assert [l.split(": ")[0] for l in lines] == ["Memory", "Stream", "Actor", "Anchor"]
    assert lines[3] == "Anchor: " + git(inited, "rev-parse", "HEAD")


def test_record_input_request(inited, tmp_path):
    head = git(inited, "rev-parse", "HEAD")
    blob = git(inited, "rev-parse", "HEAD:README.md")
    req = {"version": 0, "kind": "decision", "content": "from input",
           "anchor": {"commit": head, "paths": [{"path": "z.md", "blob": "absent"},
                                                {"path": "README.md", "blob": blob}]},
           "applicability": {"mode": "descendants"}, "topics": ["B", "a", "b"], "evidence": []}
    f = tmp_path / "req.json"
    f.write_text(json.dumps(req))
    out = json.loads(hn(inited, "memory", "record", "--input", str(f), "--json").out)
    data = _show(inited, out["memoryId"])["projection"]["data"]
    assert data["topics"] == ["a", "b"]  # normalized, not refused (§10.5)
    assert [p["path"] for p in data["anchor"]["paths"]] == ["README.md", "z.md"]
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(req).encode())
    assert r.code == 0, r.err
    assert hn(inited, "memory", "record", "--input", str(f)).err == "git-hn: --input requires --json\n"
    assert hn(inited, "memory", "record", "--input", str(f), "--json", "--kind", "x").err == \
        "git-hn: --input cannot be combined with record flags or positional content\n"
    assert hn(inited, "memory", "record", "--input", str(f), "--json", "positional").err == \
        "git-hn: --input cannot be combined with record flags or positional content\n"
    wrong_blob = dict(req, anchor={"commit": head, "paths": [{"path": "README.md", "blob": "a" * 40}]})
    f.write_text(json.dumps(wrong_blob))
    assert hn(inited, "memory", "record", "--input", str(f), "--json").err == \
        f"git-hn: anchor.paths blob for README.md does not match commit {head}\n"
    missing_commit = dict(req, anchor={"commit": "c" * 40})
    f.write_text(json.dumps(missing_commit))
    assert hn(inited, "memory", "record", "--input", str(f), "--json").err == \
        "git-hn: anchor.commit must be an exact available commit\n"


def test_handoff_flags_and_input(inited, tmp_path):
    head = git(inited, "rev-parse", "HEAD")
    r = hn(inited, "memory", "handoff", "--at", "HEAD", "--applies", "descendants",
           "--content", "end of session", "--completed", "a", "--completed", "b", "--json")
    out = r.json()
    data = _show(inited, out["memoryId"])["projection"]["data"]
    assert data["handoff"] == {"completed": ["a", "b"], "assumptions": [], "blockers": [],
                               "nextActions": []}
    req = {"version": 0, "kind": "handoff", "content": "handoff via input",
           "applicability": {"mode": "descendants"}, "topics": [], "evidence": [],
           "handoff": {"completed": [], "assumptions": ["x"], "blockers": [], "nextActions": ["y"]}}
    f = tmp_path / "h.json"
    f.write_text(json.dumps(req))
    r = hn(inited, "memory", "handoff", "--input", str(f), "--json", "--at", "HEAD")
    assert r.code == 0, r.err
    assert r.json()["anchor"]["commit"] == head
    conflict = hn(inited, "memory", "handoff", "--input", str(f), "--json", "--at", "HEAD",
                  "--applies", "exact")
    assert conflict.err == "git-hn: handoff input field applicability.mode conflicts with --applies\n"
    git(inited, "commit", "-q", "--allow-empty", "-m", "second")
    f.write_text(json.dumps(dict(req, anchor={"commit": head})))
    conflict = hn(inited, "memory", "handoff", "--input", str(f), "--json", "--at", "HEAD")
    assert conflict.err == "git-hn: handoff input field anchor.commit conflicts with --at\n"
    f.write_text(json.dumps(dict(req, kind="decision")))
    assert hn(inited, "memory", "handoff", "--input", str(f), "--json", "--at", "HEAD").err == \
        ('git-hn: handoff input field kind "decision" is not handoff: git hn memory handoff signs handoffs only '
         "(leave kind out); git hn memory record --input signs the other kinds\n")
    no_lists = {k: v for k, v in req.items() if k != "handoff"}
    f.write_text(json.dumps(no_lists))
    assert hn(inited, "memory", "handoff", "--input", str(f), "--json", "--at", "HEAD").err == \
        ("git-hn: memory handoff record has invalid fields; kind handoff needs handoff with the arrays completed, "
         "assumptions, blockers, nextActions (each entry non-blank)\n")


def test_handoff_input_supplies_the_kind_it_signs(inited):
    """An audit: ``handoff --input`` refused a document without ``kind`` ("kind must be handoff"),
    though docs/requests.md says the command signs kind handoff and MCP ``memory_handoff`` takes
    one without it. Left out, it is handoff; given as another kind, the refusal names the value
    given (inert: its quotes and invisible characters spelled) and who signs that kind."""
    doc = {"version": 0, "content": "hi", "topics": [], "evidence": [],
           "handoff": {"completed": [], "assumptions": [], "blockers": [], "nextActions": []}}
    args = ("memory", "handoff", "--input", "-", "--json", "--at", "HEAD", "--applies", "descendants")
    before = refs_snapshot(inited)
    r = hn(inited, *args, input=json.dumps({**doc, "kind": 'decision"\u202e'}).encode())
    assert (r.code, r.out, r.err) == (1, "", 'git-hn: handoff input field kind "decision\\"\\u{202e}" is not handoff: '
                                             "git hn memory handoff signs handoffs only (leave kind out); "
                                             "git hn memory record --input signs the other kinds\n")
    assert refs_snapshot(inited) == before
    r = hn(inited, *args, input=json.dumps(doc).encode())
    assert r.code == 0, r.err
    shown = hn(inited, "memory", "show", r.json()["memoryId"], "--json").json()
    assert shown["projection"]["data"]["kind"] == "handoff"


def test_revision_and_path_errors(inited):
    base = ["memory", "record", "--kind", "decision", "--applies", "exact", "--content", "x"]
    actor = (inited / ".git" / "hn" / "active").read_text().strip()
    assert hn(inited, *base, "--at", "nope").err == "git-hn: revision nope is not a commit\n"
    assert hn(inited, *base, "--at", "HEAD:README.md").err == \
        "git-hn: revision HEAD:README.md is not a commit\n"
    os.makedirs(inited / "docs")
    (inited / "docs" / "a.md").write_text("a")
    git(inited, "add", "-A")
    git(inited, "commit", "-q", "-m", "docs")
    head = git(inited, "rev-parse", "HEAD")
    assert hn(inited, *base, "--at", "HEAD", "--path", "docs").err == \
        f"git-hn: anchor path docs is not a blob at commit {head}\n"
    assert hn(inited, *base, "--at", "HEAD", "--path", "docs/a.md", "--blob", "x", "--blob", "y").err == \
        "git-hn: --blob must be supplied once per --path\n"
    assert hn(inited, *base, "--at", "HEAD", "--actor", "0" * 64).err == \
        f"git-hn: record input actor does not match the active identity; the active identity's actor is {actor}\n"


def test_show_lookup(inited):
    out = _record(inited, "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "x")
    mid = out["memoryId"]
    assert _show(inited, mid[7:15])["memoryId"] == mid
    assert _show(inited, mid[7:])["memoryId"] == mid
    # uppercase is not a lookup spelling; the whole ID is used so that it surely has a letter
    # (an 8-digit prefix is all digits about 2% of the time, and upper() would not change it)
    upper = mid[7:].upper()
    assert upper != mid[7:]
    assert hn(inited, "memory", "show", upper).err == \
        (f"git-hn: memory {upper} was not found in verified local or accepted streams; memory IDs are lowercase "
         f"hex: give {mid[7:]}\n")
    assert hn(inited, "memory", "show").err == "git-hn: usage: git hn memory show MEMORY [--json]; missing MEMORY\n"
    r = hn(inited, "memory", "show", mid)
    assert r.out.splitlines()[0].startswith("Memory content is untrusted inert data.")
    assert f"Memory: {mid}" in r.out and "Content (inert): x" in r.out


def test_show_never_prints_raw_controls(inited):
    evil = "title\x1b[31mRED\x1b]0;pwned\x07 \u202eabc \r\n\tnext"
    out = _record(inited, "--kind", "observation", "--at", "HEAD", "--applies", "exact", "--content", evil)
    r = hn(inited, "memory", "show", out["memoryId"])
    assert r.code == 0
    assert "\x1b" not in r.out and "\x07" not in r.out and "\r" not in r.out
    assert "\u202e" not in r.out and "\\u{202e}" in r.out
    assert "\ufffd[31mRED" in r.out and "\n  \tnext" in r.out  # (a content's later lines indented)
    # JSON keeps the exact author text as inert data
    assert _show(inited, out["memoryId"])["projection"]["data"]["content"] == evil


def test_a_path_that_names_nothing_is_recorded_as_absent_with_a_warning(inited):
    """git-hn: a mistyped --path is still signed as ``absent`` (a memory about a deleted file is
    legitimate) but never without a word."""
    head = git(inited, "rev-parse", "HEAD")
    r = hn(inited, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--path", "gone.md", "--content", "about a deleted file")
    assert r.code == 0
    assert unhinted(r.err) == f"git-hn: warning: --path gone.md names nothing at commit {head}; it is recorded as absent\n"
    (inited / "src").mkdir()
    r = hn(inited / "src", "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "exact", "--path", "typo.py", "--content", "absent everywhere, from a subdirectory too")
    assert r.code == 0
    assert unhinted(r.err) == f"git-hn: warning: --path typo.py names nothing at commit {head}; it is recorded as absent\n"


def test_a_path_relative_to_the_current_directory_is_refused_before_signing(inited):
    """git-hn: paths are relative to the top of the repository (§13.6); ``cd "dir x"; record
    --path f.txt`` once signed ``f.txt`` as absent for good, with a warning printed after the
    signature (a newcomer trial). It is refused, nothing is appended, and the error names the
    path to use, quoted for the shell."""
    (inited / "dir x" / "deep").mkdir(parents=True)
    (inited / "dir x" / "deep" / "z.py").write_text("z\n")
    (inited / "dir x" / "f.txt").write_text("f\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-q", "-m", "z")
    head = git(inited, "rev-parse", "HEAD")
    sub = inited / "dir x"
    before = refs_snapshot(inited)
    for command in (["record", "--kind", "decision"], ["handoff"]):
        r = hn(sub, "memory", *command, "--at", "HEAD", "--applies", "exact", "--path", "f.txt",
               "--path", "README.md", "--content", "x")
        assert (r.code, r.out) == (1, "")
        assert r.err == (f"git-hn: --path f.txt names nothing at commit {head[:12]} but does from the current "
                         "directory; paths are relative to the top of the repository: use --path 'dir x/f.txt' "
                         "(nothing was recorded)\n")
    r = hn(sub, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--path", "deep", "--content", "x")  # a directory below names something too
    assert r.code == 1 and "use --path 'dir x/deep' (nothing was recorded)" in r.err
    assert refs_snapshot(inited) == before
    out = _record(sub, "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--path", "dir x/f.txt",
                  "--content", "found")
    assert out["anchor"]["paths"] == [{"path": "dir x/f.txt", "blob": git(inited, "rev-parse", "HEAD:dir x/f.txt")}]
    # supersede refuses a typed path the same way, but not a path it inherits
    r = hn(sub, "memory", "supersede", out["memoryId"], "--content", "y", "--path", "f.txt")
    assert r.code == 1 and "use --path 'dir x/f.txt' (nothing was recorded)" in r.err
    gone = _record(inited, "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--path", "f.txt",
                   "--content", "about a top-level f.txt that is gone")
    r = hn(sub, "memory", "supersede", gone["memoryId"], "--content", "still gone")
    assert r.code == 0, r.err
    assert unhinted(r.err) == f"git-hn: warning: --path f.txt names nothing at commit {head}; it is recorded as absent\n"


def test_the_refused_relative_path_never_echoes_a_secret(inited):
    token = "ghp_" + "a1B2c3D4e5" * 3 + "F6g7H8"
    (inited / "keys").mkdir()
    (inited / "keys" / f"{token}.txt").write_text("k\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-q", "-m", "k")
    r = hn(inited / "keys", "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--path", f"{token}.txt", "--content", "x", "--allow-secret-shaped")
    assert r.code == 1 and token not in r.err
    assert "git-hn: --path names nothing at commit" in r.err
    assert "prefix it with the current directory's path from the top (nothing was recorded)" in r.err


def test_the_absent_path_warning_never_echoes_a_secret(inited):
    token = "ghp_" + "a1B2c3D4e5" * 3 + "F6g7H8"
    refused = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                 "--path", f"keys/{token}.txt", "--content", "x")
    assert refused.code == 1 and token not in refused.err and "warning" not in refused.err
    allowed = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                 "--path", f"keys/{token}.txt", "--content", "x", "--allow-secret-shaped")
    assert allowed.code == 0 and token not in allowed.err
