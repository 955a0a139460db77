"""``git:`` evidence naming no object of this repository (a mistyped or unfetched ID) is refused
before anything is signed, and a cited commit that is on no branch of the remote is warned of (a
docs audit: a mistyped ID was signed without a word, published, and every teammate's import of
the whole stream stopped at it, CONTRACT §9.9's blocking ``evidence-git`` dependency). Real
repositories, a real remote and a real ``git hn mcp`` server; nothing is mocked.
"""

from __future__ import annotations

import json

from agent_helpers import second_identity, switch
from helpers import git, hn, refs_snapshot, shared_remote
from independent import append_by_hand
from test_agent_mcp import document, run, text

TYPO = "git:" + "1234567890" * 4
REFUSED = (f"git-hn: memory record evidence {TYPO} names no object in this repository (a typo, or not fetched "
           "yet); nothing was recorded (every clone importing this stream would stop at it): check the ID, or git "
           "fetch the remote that has it first\n")


def _record(repo, *args, kind="decision", content="x", at="HEAD"):
    return hn(repo, "memory", "record", "--json", "--kind", kind, "--at", at, "--applies",
              "descendants", "--content", content, *args)


def test_every_signing_path_refuses_a_git_id_naming_no_object_here(inited):
    head = git(inited, "rev-parse", "HEAD")
    tree = git(inited, "rev-parse", "HEAD^{tree}")
    mine = _record(inited, "--evidence", f"git:{tree}", content="mine").json()["memoryId"]  # (any object type)
    before = refs_snapshot(inited)
    r = _record(inited, "--evidence", f"git:{head}", "--evidence", TYPO)
    assert (r.code, r.out, r.err) == (1, "", REFUSED)
    r = _record(inited, "--evidence", TYPO, kind="verification")
    assert (r.code, r.err) == (1, REFUSED)
    r = hn(inited, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "h",
           "--next-action", "n", "--evidence", TYPO)
    assert (r.code, r.err) == (1, REFUSED)
    r = hn(inited, "memory", "supersede", mine, "--content", "new", "--evidence", TYPO)
    assert (r.code, r.err) == (1, REFUSED)
    draft = {"version": 0, "kind": "decision", "content": "x", "anchor": {"commit": head},
             "applicability": {"mode": "descendants"}, "topics": [], "evidence": [TYPO]}
    r = hn(inited, "memory", "record", "--input", "-", "--json", input=json.dumps(draft).encode())
    assert (r.code, r.err) == (1, REFUSED)
    fine = dict(draft, evidence=[f"git:{head}"], content="fine")
    (inited / "drafts.jsonl").write_text(f"{json.dumps(fine)}\n{json.dumps(draft)}\n")
    r = hn(inited, "memory", "import", "drafts.jsonl")
    assert (r.code, r.err) == (1, REFUSED.replace("git-hn: ", "git-hn: import line 2: "))
    assert refs_snapshot(inited) == before

    async def body(client):
        return await client.call_tool("memory_record", {"kind": "decision", "content": "x", "evidence": [TYPO]})

    refused = run(inited, body, "--allow-write")
    assert refused.is_error is True and text(refused) == REFUSED[:-1]
    assert refs_snapshot(inited) == before
    # the challenge (of another identity's memory) alike
    switch(inited, second_identity(inited))
    r = hn(inited, "memory", "challenge", mine, "--reason", "incorrect", "--evidence", TYPO)
    assert (r.code, r.err) == (1, REFUSED.replace("memory record evidence", "memory challenge evidence").replace(
        "nothing was recorded", "the challenge was not signed"))
    assert refs_snapshot(inited) == before


def test_a_supersession_leaves_out_such_evidence_an_older_git_hn_signed(inited):
    head = git(inited, "rev-parse", "HEAD")
    old = append_by_hand(inited, {"kind": "decision", "content": "old", "anchor": {"commit": head},
                                  "applicability": {"mode": "descendants"}, "topics": [],
                                  "evidence": [f"git:{head}", TYPO]})
    r = hn(inited, "memory", "supersede", old, "--json", "--content", "newer")
    assert r.code == 0, r.err
    assert (f"git-hn: warning: evidence {TYPO} of the superseded memory was not carried over: {TYPO} names no "
            "object in this repository; a clone importing the new memory would stop at it\n") in r.err
    shown = hn(inited, "memory", "show", r.json()["memoryId"], "--json").json()
    assert shown["projection"]["data"]["evidence"] == [f"git:{head}"]


def test_evidence_on_no_branch_of_the_remote_is_warned_of_and_imports_once_pushed(tmp_path):
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    (a / "f.txt").write_text("feature\n")
    git(a, "checkout", "-q", "-b", "feature")
    git(a, "add", "f.txt")
    git(a, "commit", "-q", "-m", "feature")
    local = git(a, "rev-parse", "HEAD")
    git(a, "checkout", "-q", "main")
    r = _record(a, "--evidence", f"git:{local}", content="cites an unpushed commit")
    assert r.code == 0, r.err
    said = (f"git-hn: warning: evidence commit {local[:12]} is on no branch of origin: clones importing this stream "
            "cannot verify that evidence, and stop at this memory, until a branch that contains it is pushed, or git "
            "fetch origin if it is there already (the stream's publication does not wait for it)\n")
    assert said in r.err
    mid = r.json()["memoryId"]

    async def body(client):
        return await client.call_tool("memory_record", {"kind": "decision", "content": "mcp", "anchor": {
            "commit": git(a, "rev-parse", "HEAD")}, "evidence": [f"git:{local}"]})

    doc = document(run(a, body, "--allow-write"))
    assert said.removeprefix("git-hn: warning: e").rstrip("\n") in doc["hint"]
    pushed = git(a, "rev-parse", "HEAD")
    r = _record(a, "--evidence", f"git:{pushed}", content="cites a pushed commit")
    assert r.code == 0 and "evidence commit" not in r.err, r.err
    assert hn(a, "sync", "origin").code == 0
    assert hn(b, "replication", "select", "--all").code == 0
    r = hn(b, "sync", "origin")  # (as the warning said)
    assert r.code == 1 and f"fetch a branch that contains {local}" in r.err, r.err
    git(a, "push", "-q", "origin", "feature")
    git(b, "fetch", "-q", "origin")
    r = hn(b, "sync", "origin")
    assert r.code == 0, r.err
    assert hn(b, "memory", "show", mid).code == 0


def test_the_anchor_cited_in_a_long_history_with_an_empty_remote_is_not_warned_of(tmp_path):
    """A review: with no branch on the remote yet and ``git:`` evidence, the record walked the
    whole history (``rev-list --parents``, for what an anchor carries); in a long one the walk ran
    past its time bound, and the timeout counted nothing carried: ``--evidence git:<the --at
    commit>`` was warned of as on no branch. The anchor cited itself needs no walk; with no tips
    there is none at all, as before."""
    import subprocess

    from helpers import make_repo

    a = make_repo(tmp_path / "a")
    n = 200_000  # (a walk of them takes over WALK_SECONDS, 0.5 s, here: about 1.3 s)
    stream = ["blob\nmark :1\ndata 2\nx\n"]
    for i in range(n):
        stream.append(f"commit refs/heads/long\nmark :{i + 2}\ncommitter T <t@x.invalid> {1_000_000_000 + i} "
                      f"+0000\ndata 0\n" + ("M 100644 :1 f\n" if i == 0 else f"from :{i + 1}\n"))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=a, input="".join(stream).encode(), check=True)
    git(a, "checkout", "-q", "long")
    git(tmp_path, "init", "-q", "--bare", "empty.git")
    git(a, "remote", "add", "origin", str(tmp_path / "empty.git"))
    assert hn(a, "init", "--name", "A").code == 0
    head = git(a, "rev-parse", "HEAD")
    r = _record(a, "--evidence", f"git:{head}", kind="verification")
    assert r.code == 0, r.err
    assert "evidence commit" not in r.err, r.err


def test_evidence_an_unpushed_anchor_carries_is_not_warned_of(tmp_path):
    """A review: ``--evidence git:<the --at commit>``, as the verification hint advises, on an
    unpushed feature branch printed both "waits until commit C is pushed" and "evidence commit C
    is on no branch of origin (the publication does not wait for it)": false, the anchor's push
    carries it, and so it does for its ancestors and for an earlier memory's waited-for anchor."""
    remote, (a, _b) = shared_remote(tmp_path, "Alice", "Bob")
    git(a, "checkout", "-q", "-b", "feature")
    for n in (1, 2):
        (a / "f.txt").write_text(f"feature {n}\n")
        git(a, "add", "f.txt")
        git(a, "commit", "-q", "-m", f"feature {n}")
    head, parent = git(a, "rev-parse", "HEAD"), git(a, "rev-parse", "HEAD~1")
    r = _record(a, "--evidence", f"git:{head}", "--evidence", f"git:{parent}", kind="verification")
    assert r.code == 0, r.err
    assert f"waits until commit {head[:12]} is pushed" in r.err and "evidence commit" not in r.err, r.err

    async def body(client):
        return await client.call_tool("memory_record", {"kind": "decision", "content": "mcp", "anchor": {
            "commit": parent}, "evidence": [f"git:{parent}"]})

    doc = document(run(a, body, "--allow-write"))
    assert "waits until commit" in doc["hint"] and "evidence commit" not in doc["hint"], doc["hint"]
    git(a, "checkout", "-q", "-b", "other", "main")
    for n in (1, 2):
        (a / "g.txt").write_text(f"other {n}\n")
        git(a, "add", "g.txt")
        git(a, "commit", "-q", "-m", f"other {n}")
    other, older = git(a, "rev-parse", "HEAD"), git(a, "rev-parse", "HEAD~1")
    r = _record(a, "--evidence", f"git:{head}", "--evidence", f"git:{other}", at="main")  # (head: carried)
    assert r.code == 0, r.err
    assert (f"git-hn: warning: evidence commit {other[:12]} is on no branch of origin: clones importing this "
            "stream cannot verify that evidence, and stop at this memory, until a branch that contains it is "
            "pushed, or git fetch origin if it is there already (the stream's publication does not wait for "
            "it)\n") in r.err, r.err
    git(a, "reset", "-q", "--hard", "main")  # (on no local branch now: no push of "it" would carry them)
    r = _record(a, "--evidence", f"git:{other}", "--evidence", f"git:{older}", at="main")
    assert (f"git-hn: warning: evidence commits {', '.join(sorted([other[:12], older[:12]]))} are on no branch of "
            "origin: clones importing this stream cannot verify that evidence, and stop at this memory, until a "
            "branch that contains them is pushed, or git fetch origin if they are there already (the stream's "
            "publication does not wait for them)\n") in r.err, r.err
