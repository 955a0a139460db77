"""Replication over real servers on loopback (issue "Selected replication"): ``git daemon`` with
receive-pack, smart HTTP through ``git http-backend``, and hostile servers that stream an endless
pack or stall, which the byte watchdog and the stall timeout stop."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from helpers import git, hn, make_repo
from servers import assert_no_processes_in, wait_until


def _two_actors_over(url, tmp_path):
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", url)
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    a = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", f"over {url.split(':')[0]}").json()
    r = hn(alice, "sync")  # publishes through the server
    assert r.code == 0, r.err
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", url, str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    b = hn(bob, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD", "--applies",
           "descendants", "--content", "bob's note").json()
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert f"Replication memory {a['stream']}: promoted" in r.out
    assert hn(alice, "replication", "select", "--memory", b["stream"]).code == 0
    r = hn(alice, "sync")
    assert r.code == 0, r.err
    for repo, other in ((bob, a), (alice, b)):
        out = hn(repo, "memory", "recall", "--include-untrusted", "--json").json()
        assert other["memoryId"] in [m["id"] for m in out["memories"]]


def test_happy_path_over_git_daemon(bare_remote, git_daemon, tmp_path):
    url = git_daemon(bare_remote("daemon.git"))
    assert url.startswith("git://127.0.0.1:")
    _two_actors_over(url, tmp_path)


def test_happy_path_over_smart_http(bare_remote, http_backend, tmp_path):
    url = http_backend(bare_remote("http.git"))
    assert url.startswith("http://127.0.0.1:")
    _two_actors_over(url, tmp_path)


def test_happy_path_over_file_url_in_sha256(bare_remote, tmp_path):
    remote = bare_remote("sha.git", object_format="sha256")
    alice = make_repo(tmp_path / "alice", object_format="sha256")
    git(alice, "remote", "add", "origin", remote.as_uri())
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init").code == 0
    a = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", "sha256 memory").json()
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", remote.as_uri(), str(bob))
    assert hn(bob, "replication", "select", "--memory", a["stream"]).code == 0
    r = hn(bob, "sync")
    assert r.code == 0, r.err
    assert len(git(bob, "for-each-ref", "--format=%(objectname)", "refs/hn/remotes")) == 64


def test_endless_pack_is_killed_by_the_byte_watchdog(endless_pack_server, tmp_path):
    server = endless_pack_server(mode="endless")
    repo = make_repo(tmp_path / "victim")
    git(repo, "remote", "add", "evil", server.url)
    stream = "sha256:" + server.ref.rsplit("/", 1)[1]
    assert hn(repo, "replication", "select", "evil", "--memory", stream, "--max-total-bytes", "1000000").code == 0
    r = hn(repo, "sync", "evil", "--json")
    assert r.code == 1
    out = json.loads(r.out)["outcomes"][0]
    assert out["status"] == "over-budget", out
    assert out["diagnostic"].startswith(f"selection memory {stream} exceeded max-total-bytes budget: "
                                        "configured=1000000 measured=")
    measured = int(out["diagnostic"].rsplit("=", 1)[1])
    assert 1000000 + (1 << 20) < measured < 1000000 + (16 << 20)  # stopped soon after the limit
    assert server.bytes_sent < 64 << 20  # of a 64 GiB stream
    server.wait_client_gone()
    assert_no_processes_in(repo)
    assert git(repo, "for-each-ref", "refs/hn") == ""
    assert git(repo, "fsck", "--no-dangling") == ""
    quarantine = repo / ".git" / "hn" / "replication" / "quarantine"
    assert not quarantine.exists() or list(quarantine.iterdir()) == []


def _tree_bytes(path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                pass
    return total


def test_a_sync_killed_during_its_fetch_leaves_no_fetch_running(endless_pack_server, tmp_path):
    """The byte watchdog lives in the sync, so a sync killed outright (SIGKILL: nothing of it
    runs) must not leave its fetch filling the disk unwatched. The fetch writes its progress to a
    pipe only the sync reads: with the sync gone its next progress line meets a closed pipe, on
    which Git exits (within about a second: progress is written at least once a second), the
    server sees the client leave, and the quarantine stops growing (a later sync's sweep removes
    it). Fails if the fetch's output goes anywhere else (checked: to the null device)."""
    server = endless_pack_server(mode="endless", rate=8 << 20)
    repo = make_repo(tmp_path / "victim")
    git(repo, "remote", "add", "evil", server.url)
    stream = "sha256:" + server.ref.rsplit("/", 1)[1]
    assert hn(repo, "replication", "select", "evil", "--memory", stream).code == 0  # 1 GiB budget
    quarantine = repo / ".git" / "hn" / "replication" / "quarantine"
    sync = subprocess.Popen([shutil.which("git-hn"), "sync", "evil"], cwd=repo, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        server.wait_streaming()
        wait_until(lambda: _tree_bytes(quarantine) > 2 << 20, 30, what="the fetch to write")
    finally:
        os.kill(sync.pid, signal.SIGKILL)
        sync.wait()
    server.wait_client_gone()
    assert_no_processes_in(repo)
    size = _tree_bytes(quarantine)
    time.sleep(1.0)
    assert _tree_bytes(quarantine) == size  # nothing writes there any more
    assert size < 256 << 20  # of a stream sent at 8 MiB/s: stopped soon after the kill
    assert git(repo, "for-each-ref", "refs/hn") == ""


def test_stalled_fetch_is_stopped(endless_pack_server, tmp_path):
    server = endless_pack_server(mode="stall")
    repo = make_repo(tmp_path / "victim")
    git(repo, "remote", "add", "evil", server.url)
    git(repo, "config", "hn.syncStallTimeout", "1")
    stream = "sha256:" + server.ref.rsplit("/", 1)[1]
    assert hn(repo, "replication", "select", "evil", "--memory", stream).code == 0
    r = hn(repo, "sync", "evil", "--json")
    out = json.loads(r.out)["outcomes"][0]
    assert out["status"] == "structurally-invalid", out
    assert out["diagnostic"] == (f"selection memory {stream} failed exact fetch from remote evil: nothing "
                                 "arrived for 1 s (hn.syncStallTimeout)")
    server.wait_client_gone()
    assert_no_processes_in(repo)
    assert git(repo, "for-each-ref", "refs/hn") == ""


def test_a_remote_that_only_talks_of_progress_is_stopped_as_a_stall(endless_pack_server, tmp_path):
    """A red-team trial: a remote that answered the pack request with "Counting objects: N" every
    10 s and never a pack byte held the sync (and ``git fetch``'s import) until Ctrl-C, because
    every line the fetch printed counted as progress. Only the quarantine receiving objects does
    (the server's lines come as "remote: ..."), so this stops after the stall timeout although
    the server talks five times a second."""
    server = endless_pack_server(mode="chatter", interval=0.2)
    repo = make_repo(tmp_path / "victim")
    git(repo, "remote", "add", "evil", server.url)
    git(repo, "config", "hn.syncStallTimeout", "1")
    stream = "sha256:" + server.ref.rsplit("/", 1)[1]
    assert hn(repo, "replication", "select", "evil", "--memory", stream).code == 0
    sync = subprocess.Popen([shutil.which("git-hn"), "sync", "evil", "--json"], cwd=repo,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, _err = sync.communicate(timeout=30)
    finally:
        if sync.poll() is None:
            os.killpg(sync.pid, signal.SIGKILL)
            sync.wait()
    outcome = json.loads(out)["outcomes"][0]
    assert outcome["diagnostic"] == (f"selection memory {stream} failed exact fetch from remote evil: "
                                     "nothing arrived for 1 s (hn.syncStallTimeout)"), outcome
    assert server.chatter_sent >= 5  # it did talk all along
    server.wait_client_gone()
    assert_no_processes_in(repo)
    assert git(repo, "for-each-ref", "refs/hn") == ""


@pytest.mark.parametrize("transport", ["daemon", "http"])
def test_publication_is_non_forced(bare_remote, git_daemon, http_backend, tmp_path, transport):
    bare = bare_remote(f"{transport}.git")
    url = git_daemon(bare) if transport == "daemon" else http_backend(bare)
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", url)
    git(alice, "push", "-q", "origin", "main")  # memory is published once its anchor is there
    assert hn(alice, "init").code == 0
    rec = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "exact", "--content", "one").json()
    assert hn(alice, "sync").code == 0
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    # someone else's rewrite of the same stream on the server: our push must not overwrite it
    other = git(alice, "commit-tree", git(alice, "rev-parse", "HEAD^{tree}"), "-m", "foreign")
    git(alice, "push", "-q", "--force", url, f"{other}:{ref}")
    hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
       "--content", "two")
    r = hn(alice, "sync")
    assert r.code == 1
    # the server's reason
    assert r.err.startswith("git-hn: publication phase failed after replication: replication memory "
                            "publication failed for remote origin: [rejected] (non-fast-forward); ")
    # then what the remote's ref holds, and the way back that replaces only what was seen
    assert f"origin's ref for your stream {rec['stream'][7:19]} holds commit {other[:12]}, which is not a memory " \
           "of your stream: it was not imported" in r.err
    assert f"git push --force-with-lease={ref}:{other} origin {ref}\n" in r.err and r.err.count("\n") == 1
    assert git(bare, "rev-parse", ref) == other


def test_a_remote_that_never_answers_the_advertisement_is_given_up(tmp_path):
    """``hn.syncStallTimeout`` bounded only the fetches: a git:// server that accepts the
    connection and never sends its refs held ``git hn sync`` for git-hn's outer bound (300 s)."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    held = []

    def accept():
        while True:
            try:
                conn, _addr = listener.accept()
            except OSError:
                return
            held.append(conn)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()
    try:
        repo = make_repo(tmp_path / "client")
        git(repo, "remote", "add", "silent", f"git://127.0.0.1:{listener.getsockname()[1]}/x.git")
        git(repo, "config", "hn.syncStallTimeout", "1")
        assert hn(repo, "init").code == 0
        assert hn(repo, "replication", "select", "silent", "--all").code == 0
        started = time.monotonic()
        r = hn(repo, "sync", "silent")
        assert time.monotonic() - started < 30
        assert r.code == 1 and r.err.endswith("replication advertisement failed for remote silent; the remote "
                                              "did not answer within 1 s (git config hn.syncStallTimeout)\n"), r.err
        assert_no_processes_in(repo)
        assert git(repo, "for-each-ref", "refs/hn") == ""
    finally:
        listener.close()
        for conn in held:
            conn.close()
