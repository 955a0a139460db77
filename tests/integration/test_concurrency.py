"""Concurrent writers of one stream (CONTRACT §4.1, §11(b)): real processes, real Git."""

from __future__ import annotations

import os
import subprocess

from git_hn.store.append import Draft, append
from git_hn.store.identity import load_active
from git_hn.store.repo import open_repo
from git_hn.core.envelope import Anchor, Applicability, Record
from git_hn.core.grammar import default_stream
from helpers import git, hn
from independent import Writer, unb64, verify_commit


def _foreign_append(repo, content):
    """Append with plain plumbing, as a writer the stream lock cannot see (another tool)."""
    import json

    hn_dir = repo / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    doc = json.loads((hn_dir / "identities" / f"{actor}.json").read_text())
    w = Writer(unb64(doc["privateKey"])[:32], doc["name"])
    ref = f"refs/hn/memory/{w.actor}/{w.stream[7:]}"
    head = git(repo, "rev-parse", "--verify", "-q", ref, check=False)
    seq, prev = 1, ""
    if head:
        env = verify_commit(repo, head)
        seq, prev = env["sequence"] + 1, env["_id"]
    record = {"kind": "observation", "content": content, "anchor": {"commit": git(repo, "rev-parse", "HEAD")},
              "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    w.write(repo, w.envelope(seq, prev, "2026-01-01T00:00:00Z", record), parent=head)


def test_eight_concurrent_record_processes(inited):
    procs = [subprocess.Popen(["git", "hn", "memory", "record", "--kind", "observation", "--at", "HEAD",
                               "--applies", "exact", "--content", f"writer {i}", "--json"],
                              cwd=inited, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=dict(os.environ))
             for i in range(8)]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert all(code == 0 for code, _o, _e in results), results
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    commits = git(inited, "rev-list", "--reverse", ref).split()
    envs = [verify_commit(inited, c) for c in commits]
    assert [e["sequence"] for e in envs] == list(range(1, 9))
    assert sorted(e["record"]["content"] for e in envs) == sorted(f"writer {i}" for i in range(8))
    for prev, cur in zip(envs, envs[1:]):
        assert cur["previous"] == prev["_id"]
    # and git-hn's own full verification agrees
    assert hn(inited, "memory", "show", envs[-1]["_id"]).code == 0


def test_lost_race_is_retried_with_a_fresh_envelope(inited):
    """A writer that is overtaken between reading the head and its CAS re-signs and succeeds."""
    repo = open_repo(str(inited))
    ident = load_active(repo)
    head = git(inited, "rev-parse", "HEAD")
    record = Record("observation", "racer", Anchor(head), Applicability("exact"), (), ())
    calls = []

    def overtaking_check(pos):
        calls.append(pos.sequence)
        if len(calls) == 1:  # another writer appends right after we read the head
            _foreign_append(inited, "overtaker")

    result = append(repo, ident, Draft("record", default_stream(ident.actor), record),
                    check=overtaking_check)
    assert calls == [0, 1]
    assert result.envelope.sequence == 2
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    envs = [verify_commit(inited, c) for c in git(inited, "rev-list", "--reverse", ref).split()]
    assert [e["record"]["content"] for e in envs] == ["overtaker", "racer"]
    repo.close()


def test_exhausted_retries_report_the_contract_message(inited):
    repo = open_repo(str(inited))
    ident = load_active(repo)
    head = git(inited, "rev-parse", "HEAD")
    record = Record("observation", "loser", Anchor(head), Applicability("exact"), (), ())
    attempts = []

    def always_overtaken(pos):
        attempts.append(pos.sequence)
        _foreign_append(inited, f"overtaker {len(attempts)}")

    import pytest

    from git_hn.errors import ConflictError

    stream = default_stream(ident.actor)
    with pytest.raises(ConflictError) as err:
        append(repo, ident, Draft("record", stream, record), check=always_overtaken)
    ref = f"refs/hn/memory/{ident.actor}/{stream[7:]}"
    assert err.value.message == (f"append memory stream {ref}: compare-and-swap failed; reload and "
                                 "retry with a newly signed envelope")
    assert len(attempts) == 4
    contents = [verify_commit(inited, c)["record"]["content"]
                for c in git(inited, "rev-list", "--reverse", ref).split()]
    assert contents == [f"overtaker {i}" for i in range(1, 5)]
    repo.close()
