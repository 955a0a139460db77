"""Interoperability with an independent encoder (CONTRACT §0.1, §12).

``independent.Writer`` builds payloads, signatures, trees, commits and refs from the contract
with plain Git plumbing; git-hn must verify and show them, and continue their streams.
"""

from __future__ import annotations

import json

from helpers import git, hn, make_repo
from independent import Writer, verify_commit

SEED = bytes(range(32))


def _record(head, content, **extra):
    rec = {"kind": "decision", "content": content, "anchor": {"commit": head},
           "applicability": {"mode": "descendants"}, "topics": ["architecture"], "evidence": []}
    rec.update(extra)
    return rec


def test_independently_written_memory_verifies_and_shows(tmp_path):
    repo = make_repo(tmp_path / "r")
    head = git(repo, "rev-parse", "HEAD")
    w = Writer(SEED, "Alice Agent")
    assert w.actor == "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
    env1 = w.envelope(1, "", "2026-08-30T12:34:56.123456789Z", _record(head, "Independent <one> & two"))
    id1, c1 = w.write(repo, env1)
    env2 = w.envelope(2, id1, "2026-08-30T14:34:56+02:00", _record(head, "second, offset timestamp"))
    id2, _c2 = w.write(repo, env2, parent=c1)
    shown = hn(repo, "memory", "show", id2, "--json").json()
    assert shown["envelope"]["previous"] == id1
    assert shown["envelope"]["timestamp"] == "2026-08-30T14:34:56+02:00"
    assert shown["projection"]["data"]["content"] == "second, offset timestamp"
    first = hn(repo, "memory", "show", id1[7:19], "--json").json()
    assert first["projection"]["data"]["content"] == "Independent <one> & two"
    assert first["projection"]["contentDigest"].startswith("sha256:")


def test_git_hn_continues_an_independently_written_stream(tmp_path):
    """Given the same key, git-hn appends to a stream another implementation started."""
    repo = make_repo(tmp_path / "r")
    head = git(repo, "rev-parse", "HEAD")
    w = Writer(SEED, "Alice Agent")
    id1, _ = w.write(repo, w.envelope(1, "", "2026-08-30T12:34:56Z", _record(head, "from the other tool")))
    hn_dir = repo / ".git" / "hn"
    (hn_dir / "identities").mkdir(parents=True, mode=0o700)
    hn_dir.chmod(0o700)
    from independent import b64

    record = {"version": 1, "actor": w.actor, "name": "Alice Agent", "publicKey": b64(w.pub),
              "privateKey": b64(SEED + w.pub), "lifecycle": "available"}
    key = hn_dir / "identities" / f"{w.actor}.json"
    key.write_text(json.dumps(record, indent=2) + "\n")
    key.chmod(0o600)
    (hn_dir / "active").write_text(w.actor + "\n")
    (hn_dir / "active").chmod(0o600)
    r = hn(repo, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD",
           "--applies", "exact", "--content", "appended by git-hn")
    out = r.json()
    ref = f"refs/hn/memory/{w.actor}/{w.stream[7:]}"
    commits = git(repo, "rev-list", "--reverse", ref).split()
    envs = [verify_commit(repo, c) for c in commits]
    assert [e["sequence"] for e in envs] == [1, 2]
    assert envs[1]["previous"] == id1 and envs[1]["_id"] == out["memoryId"]


def test_golden_fixture_payload_verifies_inside_a_repository(tmp_path):
    """The contract's hn-record golden payload, stored as a stream, verifies (signature and ID)."""
    vectors = {v["name"]: v for v in json.loads(
        (__import__("helpers").VECTORS / "hn-memory-v0.json").read_text())}
    vec = vectors["hn-record"]
    repo = make_repo(tmp_path / "r")
    payload = vec["payload"].encode()
    m = git(repo, "hash-object", "-w", "--stdin", input=payload)
    s = git(repo, "hash-object", "-w", "--stdin", input=vec["signature"].encode())
    tree = git(repo, "mktree", input=f"100644 blob {m}\tmemory.json\n100644 blob {s}\tsignature\n".encode())
    commit = git(repo, "commit-tree", tree, "-m", "golden")
    git(repo, "update-ref", f"refs/hn/memory/{vec['actor']}/{vec['stream'][7:]}", commit)
    shown = hn(repo, "memory", "show", vec["memoryId"], "--json").json()
    assert shown["memoryId"] == vec["memoryId"]
    proj = shown["projection"]
    # the fixture's anchor commit aaaa… does not exist here, and its event evidence never resolves
    assert proj["applicability"] == "anchor-missing"
    assert proj["evidence"] == "missing"
    kinds = sorted(d["kind"] for d in shown["missingDependencies"])
    assert kinds == ["anchor-commit", "evidence-event", "evidence-git"]
