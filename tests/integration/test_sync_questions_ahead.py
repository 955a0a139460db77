"""A sync starts the Git processes it will ask next while it waits for, or writes, something else
(issue 11, sync-100): the quarantine's object reader while the quarantine fetch runs. It is still
one process, and it answers as one started after the fetch. Real repositories, a real
remote (slowed by a ``uploadpack.packObjectsHook``, protected global configuration, where the
order must not depend on timing), real Git processes seen in Git's own trace
(``GIT_TRACE2_EVENT``)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from helpers import git, git_processes, hn, shared_remote


def _record(repo, content: str) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _events(trace: Path) -> list[dict]:
    return [json.loads(line) for name in sorted(trace.iterdir()) for line in name.read_text().splitlines()]


def _when(event: dict) -> float:
    return datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp()


def test_the_quarantine_reader_starts_while_the_fetch_runs(tmp_path, monkeypatch):
    """The quarantine's ``cat-file --batch-command`` (measurement's first question) is started
    while the quarantine fetch runs, not after it: with a remote that takes a second to pack,
    it is running before the fetch ends, and measurement reads the pack the fetch installed
    after it started (Git looks its packs up again for an object it does not find)."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    mem = _record(alice, "alice decides")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--memory", mem["stream"]).code == 0
    hook = tmp_path / "slow-pack.sh"
    hook.write_text("#!/bin/sh\nsleep 1\nexec \"$@\"\n")
    hook.chmod(0o755)
    git(tmp_path, "config", "--global", "uploadpack.packObjectsHook", str(hook))
    trace = tmp_path / "trace2"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    r = hn(bob, "sync", "--json")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    assert r.code == 0, r.err
    assert [o["status"] for o in json.loads(r.out)["outcomes"]] == ["promoted"], r.out
    events = _events(trace)
    starts = {e["sid"]: e for e in events if e["event"] == "start"}
    fetches = [e for e in events if e["event"] == "exit" and "fetch" in starts.get(e["sid"], {}).get("argv", [])
               and "/quarantine/" in " ".join(starts[e["sid"]]["argv"])]
    readers = [e for e in starts.values() if e["argv"][-2:] == ["cat-file", "--batch-command"]
               and "/quarantine/" in " ".join(e["argv"])]
    assert len(fetches) == 1 and len(readers) == 1, (fetches, readers)
    assert _when(readers[0]) < _when(fetches[0]) - 0.5  # (the pack took a second)
    assert hn(bob, "memory", "show", mem["memoryId"]).code == 0
