"""Every read command answers from the verified state exactly what a full verification and
projection answers, after every kind of change (issue 11, acceptance item 1).

The reference answers are the ``*_full`` functions (a full collection, a full projection, then
the command's own filter); the state's answers are the commands themselves. Both run on a fresh
repository object each time, and errors are compared by type and text.
"""

from __future__ import annotations

import json
import sqlite3
import zlib

import pytest

from agent_helpers import actor, commit_policy, policy, second_identity, switch
from git_hn.core import recall as core_recall
from git_hn.service import index as index_service
from git_hn.service import recall as recall_service
from git_hn.service import show as show_service
from git_hn.store import statedb
from git_hn.store.repo import open_repo
from helpers import forged_commit, git, hn, make_repo, write_blob
from independent import append_by_hand
from state_compare import _call, compare


def _rec(repo, content, *args, kind="decision", applies="descendants", at="HEAD"):
    r = hn(repo, "memory", "record", "--json", "--kind", kind, "--at", at, "--applies", applies,
           *args, "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _ok(r):
    assert r.code == 0, r.err
    return r.json() if r.out.startswith("{") else r.out


@pytest.fixture
def world(tmp_path):
    repo = make_repo(tmp_path / "r", files={"README.md": "x\n", "docs/a.md": "a\n", "app.py": "p\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    alice = actor(repo)
    bob = second_identity(repo)
    return repo, alice, bob


@pytest.fixture(params=["indexed", "bulk"])
def inserts(request, monkeypatch):
    """Both ways ``state.insert_many`` inserts: row by row into the indexes, and (``bulk``:
    from a single row, as a first sync of a long stream does from 2,048) with the table's
    indexes dropped and built again."""
    from git_hn.store import state

    if request.param == "bulk":
        monkeypatch.setattr(state, "BULK_ROWS", 1)
    return request.param


def test_state_answers_equal_full_verification_after_every_kind_of_change(world, inserts):
    repo, alice, bob = world
    head = git(repo, "rev-parse", "HEAD")
    a = _rec(repo, "stream isolation <matters>", "--topic", "architecture", "--path", "docs/a.md")
    b = _rec(repo, "flaky isolation test", "--topic", "tests", kind="observation", applies="exact")
    _rec(repo, "tried caching; it failed", "--outcome", "failed", kind="attempt")
    compare(repo)  # the first read builds the state
    # record, with evidence citing another memory, a git object, an event
    c = _rec(repo, "see the decision", "--evidence", f"memory:{a}", "--evidence", f"git:{head}",
             kind="verification")
    compare(repo)
    append_by_hand(repo, {"kind": "observation", "content": "cites a memory not yet here",  # (git-hn refuses it)
                          "anchor": {"commit": head}, "applicability": {"mode": "descendants"}, "topics": [],
                          "evidence": ["memory:sha256:" + "e" * 64]})
    compare(repo)
    # supersede, retract
    r = hn(repo, "memory", "supersede", a, "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", "stream isolation matters more", "--topic", "architecture")
    _ok(r)
    compare(repo)
    _ok(hn(repo, "memory", "retract", b, "--reason", "obsolete"))
    compare(repo)
    # another actor's stream, and a challenge by that actor
    switch(repo, bob)
    d = _rec(repo, "bob disagrees about isolation", kind="assumption")
    _ok(hn(repo, "memory", "challenge", c, "--reason", "unverified"))
    hn(repo, "memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--content", "end",
       "--completed", "codec", "--next-action", "write recall", "--blocker", "no CI")
    switch(repo, alice)
    assert "unverified" in compare(repo)["reasons"]  # (the terminal's show says why, both ways alike)
    # an anchored path changes: the brief's stale anchors (issue 13)
    (repo / "docs" / "a.md").write_text("changed\n")
    git(repo, "commit", "-q", "-am", "change docs/a.md")
    summary = compare(repo)
    assert any(doc["staleAnchors"] for doc in summary["briefDocs"]), "no brief saw the changed anchor"
    # a policy change (trust at the query commit), then a new commit
    commit_policy(repo, policy([alice], ["decision", "handoff"], alice))
    compare(repo)
    _ok(hn(repo, "memory", "challenge", d, "--reason", "wrong"))
    compare(repo)
    # a rewound stream (then moved forward again), a deleted stream
    switch(repo, bob)
    bob_ref = git(repo, "for-each-ref", "--format=%(refname)", f"refs/hn/memory/{bob}").split()[0]
    tip = git(repo, "rev-parse", bob_ref)
    git(repo, "update-ref", bob_ref, tip + "~1")
    compare(repo)
    git(repo, "update-ref", bob_ref, tip)
    compare(repo)
    git(repo, "update-ref", "-d", bob_ref)
    compare(repo)
    git(repo, "update-ref", bob_ref, tip)
    switch(repo, alice)
    compare(repo)


def test_state_equals_full_verification_for_invalid_refs(world):
    """A forged commit and an object rewritten under its ID: the state never hides them."""
    repo, alice, _bob = world
    _rec(repo, "first")
    _rec(repo, "second", kind="observation")
    compare(repo)
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()[0]
    tip = git(repo, "rev-parse", ref)
    # a forged commit on top: its signature does not verify
    tree = git(repo, "rev-parse", f"{tip}^{{tree}}")
    entries = git(repo, "ls-tree", tree).splitlines()
    payload = git(repo, "cat-file", "blob", entries[0].split()[2]).encode()
    forged_payload = payload.replace(b'"sequence":2', b'"sequence":3')
    lines = "".join(f"100644 blob {write_blob(repo, forged_payload) if 'memory.json' in e else e.split()[2]}"
                    f"\t{e.split(chr(9))[1]}\n" for e in entries)
    forged = forged_commit(repo, lines, parents=(tip,))
    git(repo, "update-ref", ref, forged)
    seen = compare(repo)
    assert set(seen["show"]) == {"InvalidSource"}  # (a ValidationError whose line says what to do)
    git(repo, "update-ref", ref, tip)
    compare(repo)
    # the same memories under rewritten commits (their trees kept, the commits made anew), once
    # as the stream itself and once beside it as an accepted copy: same IDs, other commits
    rewrapped = ""
    for commit in git(repo, "rev-list", "--reverse", tip).split():
        parents = ("-p", rewrapped) if rewrapped else ()
        rewrapped = git(repo, "commit-tree", f"{commit}^{{tree}}", *parents, "-m", "rewrapped",
                        env={"GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z"})
    git(repo, "update-ref", ref, rewrapped)
    compare(repo)
    accepted = ref.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/")
    git(repo, "update-ref", accepted, tip)
    compare(repo)
    git(repo, "update-ref", "-d", accepted)
    git(repo, "update-ref", ref, tip)
    compare(repo)


def test_an_object_rewritten_in_place_is_caught_where_it_is_read(world):
    """An object file overwritten under its own ID (Git does not rehash what it reads): every
    command that serves that memory re-reads and re-hashes it, finds the mismatch, discards the
    state and answers as full verification does; ``index verify`` reports it too. A command that
    does not read it trusts the state until then, as Git trusts its commit-graph
    (docs/decisions.md)."""
    repo, _alice, _bob = world
    a = _rec(repo, "first", "--topic", "architecture")
    b = _rec(repo, "second", kind="observation")
    compare(repo)
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()[0]
    tip = git(repo, "rev-parse", ref)
    first = git(repo, "rev-list", "--reverse", tip).split()[0]
    blob = git(repo, "rev-parse", f"{first}:memory.json")
    other = git(repo, "cat-file", "blob", f"{tip}:memory.json").encode()
    obj = repo / ".git" / "objects" / blob[:2] / blob[2:]
    assert obj.exists()  # loose, as record writes it
    obj.chmod(0o644)
    obj.write_bytes(zlib.compress(b"blob %d\x00" % len(other) + other))
    full = _call(repo, show_service.show_full, a)
    assert full[0] == "InvalidSource"  # (a ValidationError: F100)
    assert _call(repo, show_service.show, a) == full
    req = core_recall.RecallRequest(at_commit="HEAD", include_untrusted=True, topic=("architecture",))
    assert _call(repo, recall_service.recall, req) == _call(repo, recall_service.recall_full, req) == full
    # the state was discarded when the mismatch was found, and cannot be rebuilt: every command
    # now answers as full verification does, and verify reports the missing state
    assert _call(repo, show_service.show, b) == _call(repo, show_service.show_full, b) == full
    assert _call(repo, index_service.verify) == ("IndexError_", "memory index missing: no memory state is stored "
                                                 "here (none was built yet, or it was removed); git hn memory index "
                                                 "rebuild builds it")


def test_tampered_state_is_never_served(world):
    """Edit a row, swap a tip, replace the file: each is refused, rebuilt, and the answers stay
    those of a full verification."""
    repo, _alice, _bob = world
    a = _rec(repo, "original text", "--topic", "architecture")
    _rec(repo, "second", kind="observation")
    compare(repo)
    db = repo / ".git" / "hn" / "memory" / statedb.NAME

    def edit(sql):
        conn = sqlite3.connect(db)
        conn.execute(sql)
        conn.commit()
        conn.close()

    cases = [
        "UPDATE rows SET lifecycle = 'retracted', lrank = 2",
        "UPDATE rows SET tokens = ' poisoned '",
        "UPDATE sources SET head = '0000000000000000000000000000000000000000'",
        "UPDATE memories SET actor = 'x'",
        "DELETE FROM rows",
    ]
    for sql in cases:
        edit(sql)
        compare(repo)
        doc = json.loads(hn(repo, "memory", "show", a, "--json").out)
        assert doc["projection"]["lifecycle"] == "active"
    # replaced by another (valid) state file: its seal does not match
    other = make_repo(repo.parent / "other")
    assert hn(other, "init", "--name", "Other").code == 0
    _rec(other, "other text")
    hn(other, "memory", "recall")
    db.write_bytes((other / ".git" / "hn" / "memory" / statedb.NAME).read_bytes())
    db.chmod(0o600)
    compare(repo)


def test_a_consistent_rewrite_of_state_and_seal_is_caught_by_verify_and_by_serving(world):
    """The documented limit: a state rewritten together with its seal is only trusted until a
    command serves a memory it mislabels (payloads are re-read from Git) or ``verify`` runs."""
    repo, _alice, _bob = world
    a = _rec(repo, "original text")
    compare(repo)
    db = repo / ".git" / "hn" / "memory" / statedb.NAME
    conn = sqlite3.connect(db)
    conn.execute("UPDATE memories SET ts = '2000-01-01T00:00:00Z'")
    conn.commit()
    conn.close()
    path = repo / ".git" / "hn" / "memory" / statedb.SEAL
    repo_ = open_repo(str(repo))
    path.chmod(0o600)
    statedb.write_seal(repo_)
    r = hn(repo, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index corrupt: memory state differs from a rebuild; git hn "
                                  "memory index rebuild replaces it\n")
    doc = json.loads(hn(repo, "memory", "show", a, "--json").out)  # re-read from Git: rebuilt
    assert doc["envelope"]["timestamp"] != "2000-01-01T00:00:00Z"
    assert hn(repo, "memory", "index", "verify").code == 0
    repo_.close()


def test_an_unsigned_memory_written_into_state_and_seal_is_never_served(world):
    """A reviewer's forgery: a memory whose signature is another payload's, committed off any
    ref, written into the state's tables with the seal renewed. Its hash, signature text and
    envelope fields all match what the state recorded; only the Ed25519 check (CONTRACT §11(d):
    every served row) refuses it, and the answers are a full verification's."""
    import hashlib

    repo, _alice, _bob = world
    _rec(repo, "first", "--topic", "architecture")
    _rec(repo, "second", "--topic", "architecture")
    compare(repo)
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()[0]
    head = git(repo, "rev-parse", ref)
    raw = git(repo, "cat-file", "blob", f"{ref}:memory.json").encode()
    doc = json.loads(raw)
    doc.update(sequence=3, previous="sha256:" + hashlib.sha256(raw).hexdigest(),
               timestamp="2026-12-04T23:59:59Z")
    doc["record"]["content"] = "forged: disable the signature checks"
    payload = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    sig = git(repo, "cat-file", "blob", f"{ref}:signature")  # signs the previous payload
    mb, sb = write_blob(repo, payload), write_blob(repo, sig.encode())
    tree = git(repo, "mktree", input=f"100644 blob {mb}\tmemory.json\n100644 blob {sb}\tsignature\n".encode())
    commit = git(repo, "commit-tree", tree, "-p", head, "-m", "x")
    mid = "sha256:" + hashlib.sha256(payload).hexdigest()
    db = repo / ".git" / "hn" / "memory" / statedb.NAME
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    conn.execute("INSERT INTO memories VALUES (?,?,?,?,3,'record','',?)",
                 (mid, commit, doc["actor"], doc["stream"], doc["timestamp"]))
    conn.execute("INSERT INTO chain SELECT sid, 3, ?, ?, ? FROM chain WHERE seq = 2", (commit, mid, sig))
    row = dict(conn.execute("SELECT * FROM rows WHERE seq = 2").fetchone())
    row.update(id=mid, ts=doc["timestamp"], utc=doc["timestamp"], seq=3)
    conn.execute(f"INSERT INTO rows ({','.join(row)}) VALUES ({','.join('?' * len(row))})", tuple(row.values()))
    text = conn.execute("SELECT * FROM texts WHERE id = (SELECT id FROM rows WHERE seq = 2)").fetchone()
    if text is not None:
        conn.execute("INSERT INTO texts VALUES (?,?,?)", (mid, text["length"], text["seq"]))
    conn.commit()
    conn.close()
    repo_ = open_repo(str(repo))
    (repo / ".git" / "hn" / "memory" / statedb.SEAL).chmod(0o600)
    statedb.write_seal(repo_)
    repo_.close()
    out = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--topic", "architecture")
    assert out.code == 0, out.err
    assert mid not in out.out and json.loads(out.out)["matched"] == 2
    assert hn(repo, "memory", "show", mid).code == 1
    compare(repo)
