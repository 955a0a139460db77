"""``git:`` evidence of the other object format's length (a 64-hex ID in a SHA-1 repository, a
40-hex one in a SHA-256 repository) is refused before anything is signed (a trial of unusual
repositories): no such object can exist here, CONTRACT §5.5 makes its probe an error, the
evidence ``invalid``, and §9.9 refuses the whole stream in every importing clone as
``relationship-invalid``, and every later memory of the append-only stream with it. Real
repositories and a real ``git hn mcp`` server; nothing is mocked.
"""

from __future__ import annotations

import json
import subprocess

from agent_helpers import second_identity, switch
from helpers import git, hn, make_repo, refs_snapshot, shared_remote, wait_publication
from independent import append_by_hand
from test_agent_mcp import document, run, text

WIDE = "git:" + "1" * 64  # a SHA-256-length ID
REFUSED = ("git-hn: memory record evidence is invalid; a git: item has 64 hex digits, a SHA-256 object ID, and "
           "this is a SHA-1 repository (40 hex digits): no such object can be here, and every clone importing the "
           "stream would refuse it, and every later memory of the stream, for good; cite git:<full commit ID> of "
           "this repository (nothing was recorded)\n")


def _record(repo, *args, kind="decision", content="x"):
    return hn(repo, "memory", "record", "--json", "--kind", kind, "--at", "HEAD", "--applies",
              "descendants", "--content", content, *args)


def test_every_signing_path_refuses_a_sha256_id_in_a_sha1_repository(inited):
    head = git(inited, "rev-parse", "HEAD")
    mine = _record(inited, content="mine").json()["memoryId"]
    before = refs_snapshot(inited)
    r = _record(inited, "--evidence", f"git:{head}", "--evidence", WIDE)
    assert (r.code, r.out, r.err) == (1, "", REFUSED)
    r = _record(inited, "--evidence", WIDE, kind="verification")
    assert (r.code, r.err) == (1, REFUSED)
    r = hn(inited, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "h",
           "--next-action", "n", "--evidence", WIDE)
    assert (r.code, r.err) == (1, REFUSED)
    r = hn(inited, "memory", "supersede", mine, "--content", "new", "--evidence", WIDE)
    assert (r.code, r.err) == (1, REFUSED)
    draft = {"version": 0, "kind": "decision", "content": "x", "anchor": {"commit": head},
             "applicability": {"mode": "descendants"}, "topics": [], "evidence": [WIDE]}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(draft).encode())
    assert (r.code, r.err) == (1, REFUSED)
    fine = dict(draft, evidence=[f"git:{head}"], content="fine")
    (inited / "drafts.jsonl").write_text(f"{json.dumps(fine)}\n{json.dumps(draft)}\n")
    r = hn(inited, "memory", "import", "drafts.jsonl")
    assert (r.code, r.err) == (1, REFUSED.replace("git-hn: ", "git-hn: import line 2: "))
    assert refs_snapshot(inited) == before
    # the challenge (of another identity's memory) alike
    switch(inited, second_identity(inited))
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "challenge", mine, "--reason", "incorrect", "--evidence", WIDE)
    assert (r.code, r.err) == (1, REFUSED.replace("memory record evidence", "memory challenge evidence").replace(
        "nothing was recorded", "the challenge was not signed"))
    assert refs_snapshot(inited) == before


def test_a_sha1_id_in_a_sha256_repository_is_refused_and_its_own_length_is_signed(tmp_path):
    repo = make_repo(tmp_path / "r", object_format="sha256")
    assert hn(repo, "init").code == 0
    before = refs_snapshot(repo)
    r = _record(repo, "--evidence", "git:" + "a" * 40)
    assert (r.code, r.err) == (1, REFUSED.replace("64 hex digits, a SHA-256", "40 hex digits, a SHA-1").replace(
        "a SHA-1 repository (40", "a SHA-256 repository (64"))
    assert refs_snapshot(repo) == before
    r = _record(repo, "--evidence", "git:" + git(repo, "rev-parse", "HEAD"))
    assert r.code == 0, r.err


def test_mcp_record_refuses_and_supersede_leaves_out_what_an_older_git_hn_signed(inited):
    head = git(inited, "rev-parse", "HEAD")
    old = append_by_hand(inited, {"kind": "decision", "content": "old", "anchor": {"commit": head},
                                  "applicability": {"mode": "descendants"}, "topics": [],
                                  "evidence": [f"git:{head}", WIDE]})
    before = refs_snapshot(inited)

    async def body(client):
        refused = await client.call_tool("memory_record", {"kind": "decision", "content": "x", "evidence": [WIDE]})
        after = refs_snapshot(inited)
        sup = await client.call_tool("memory_supersede", {"memory": old, "content": "new"})
        return refused, after, sup

    refused, after, sup = run(inited, body, "--allow-write")
    assert refused.is_error is True and text(refused) == REFUSED[:-1]
    assert after == before
    doc = document(sup)
    assert f"Evidence {WIDE} of the superseded memory was not carried over" in doc["hint"]
    shown = hn(inited, "memory", "show", doc["result"]["memoryId"], "--json").json()
    assert shown["projection"]["data"]["evidence"] == [f"git:{head}"]
    # the command line's supersession alike, said after signing
    r = hn(inited, "memory", "supersede", old, "--json", "--content", "newer", "--allow-branch")
    assert r.code == 0, r.err
    assert (f"git-hn: warning: evidence {WIDE} of the superseded memory was not carried over: a git: ID of the "
            "other object format's length names no object this repository can hold; a clone importing the new "
            "memory would refuse it for good\n") in r.err
    shown = hn(inited, "memory", "show", r.json()["memoryId"], "--json").json()
    assert shown["projection"]["evidence"] == "resolved"


def _push(repo, *args):
    proc = subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    return proc


def test_a_stream_an_older_git_hn_signed_such_evidence_in_is_withheld_until_it_is_dropped(tmp_path):
    """What an older git-hn signed: the publication withholds the stream, as it withholds one with
    secret-shaped text (published, every importer refused it whole, for good); ``hn.prePush
    block`` refuses the push with the one line; ``reanchor <ID> --drop`` discards the memory, and
    the stream then goes."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "hn.prePush", "block")
    head = git(a, "rev-parse", "HEAD")
    first = _record(a, content="ok first").json()
    bad = append_by_hand(a, {"kind": "observation", "content": "wide", "anchor": {"commit": head},
                             "applicability": {"mode": "descendants"}, "topics": [], "evidence": [WIDE]})
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    (a / "b.txt").write_text("b\n")
    git(a, "add", "b.txt")
    git(a, "commit", "-q", "-m", "b")
    proc = _push(a, "origin", "main")
    said = (f"git-hn: memory {bad} cites {WIDE}, an ID of 64 hex digits that no SHA-1 repository can hold (an "
            f"older git-hn signed it): every clone importing the stream would refuse it whole; stream {ref} not "
            f"published: git hn memory reanchor {WIDE[4:]} --drop discards that memory (and signs the later ones "
            "again)")
    assert proc.returncode != 0 and said in proc.stderr, proc.stderr
    assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""
    r = hn(a, "sync", "origin")  # sync's publication withholds it alike
    assert r.code == 1 and said.removeprefix("git-hn: ") in r.err, r.err
    assert git(remote, "rev-parse", "--verify", "-q", ref, check=False) == ""
    r = hn(a, "memory", "reanchor", WIDE[4:], "--drop")
    assert r.code == 0, r.err
    proc = _push(a, "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert hn(b, "replication", "select", "--all").code == 0
    r = hn(b, "sync", "origin")
    assert r.code == 0, r.err
    assert hn(b, "memory", "show", first["memoryId"]).code == 0
