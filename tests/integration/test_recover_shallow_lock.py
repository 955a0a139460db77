"""``git hn sync --recover-shallow`` fetches the anchors a shallow clone lacks without holding the
verified state's lock (CONTRACT §9.18; run.py: "the state's lock is held from here, never over the
network"). Real repositories, a real ``file://`` remote whose ``git upload-pack`` is slowed by a
``uploadpack.packObjectsHook`` (protected, global configuration), real ``git hn`` processes."""

from __future__ import annotations

import json
import subprocess
import time

from helpers import git, hn, make_repo
from state_compare import compare

SLOW = 4  # seconds the recovery fetch's pack takes


def test_a_record_during_a_slow_recovery_fetch_neither_waits_for_it_nor_leaves_the_state_behind(tmp_path):
    """A review: the recovery fetch ran inside the state's lock, so a ``memory record`` made
    while a slow remote packed the anchors waited the full 2 s of ``stateview.staged`` and then
    wrote without the state. The fetch now runs with the lock released: the record is as quick
    as any, the sync still promotes the recovered stream, and the state answers for both memories
    as a full verification does."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    alice = make_repo(tmp_path / "alice")
    for i in range(3):
        git(alice, "commit", "-q", "--allow-empty", "-m", f"c{i}")
    git(alice, "remote", "add", "origin", str(remote))
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    old = git(alice, "rev-parse", "HEAD~3")
    mem = hn(alice, "memory", "record", "--kind", "decision", "--at", old, "--applies", "exact",
             "--content", "anchored beyond the boundary", "--json").json()
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "replication", "select", "--memory", mem["stream"]).code == 0
    assert hn(bob, "memory", "recall").code == 0  # (the state is built)
    # the second pack the sync asks for (the first is the streams', the second the recovery's)
    # is slowed down; the marker says when it has started
    count, started = tmp_path / "packs", tmp_path / "recovery-started"
    hook = tmp_path / "slow-pack.sh"
    hook.write_text(f"#!/bin/sh\necho x >> '{count}'\nif [ \"$(wc -l < '{count}')\" -eq 2 ]; then\n"
                    f"  : > '{started}'; sleep {SLOW}\nfi\nexec \"$@\"\n")
    hook.chmod(0o755)
    git(tmp_path, "config", "--global", "uploadpack.packObjectsHook", str(hook))
    sync = subprocess.Popen(["git", "hn", "sync", "--recover-shallow"], cwd=bob, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and sync.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), sync.communicate()
        time.sleep(0.5)  # (the fetch is under way, in upload-pack's hook)
        begin = time.monotonic()
        rec = subprocess.run(["git", "hn", "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies",
                              "descendants", "--content", "during the recovery", "--json"], cwd=bob,
                             capture_output=True, text=True)
        took = time.monotonic() - begin
        still = sync.poll() is None
        out, err = sync.communicate(timeout=120)
    finally:
        if sync.poll() is None:
            sync.kill()
            sync.wait()
    assert rec.returncode == 0, rec.stderr
    assert still, "the recovery fetch ended before the record did: the test proves nothing"
    assert took < 1.5, took
    assert sync.returncode == 0, out + err
    assert f"Replication memory {mem['stream']}: promoted" in out, out
    assert git(bob, "cat-file", "-t", old) == "commit"
    # the state holds both memories, and answers as a full verification does
    for memory_id in (mem["memoryId"], json.loads(rec.stdout)["memoryId"]):
        shown = hn(bob, "memory", "show", memory_id)
        assert shown.code == 0, shown.err
    compare(bob)
