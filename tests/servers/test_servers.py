"""The server fixtures of ``tests/servers.py`` work with plain ``git push``/``fetch``/``ls-remote``.

Real Git against real servers on 127.0.0.1: ``file://``, ``git daemon``, ``git http-backend``
behind ``http.server``, and the hostile fake that streams an endless pack or stalls.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import pytest

import servers
from helpers import git, make_repo
from servers import (GitDaemon, HttpBackendServer, assert_fetch_killed, assert_killed,
                     descendant_pids, process_group_pids, tmp_pack_bytes, wait_until)

FORMATS = ["sha1", "sha256"]


@pytest.fixture(autouse=True)
def no_leaks():
    """After each test (and after its fixtures' teardown): no new child process or thread.

    What ran before the test (say, a long-lived ``git cat-file --batch`` another test module
    started) is not this test's leak."""
    before = set(threading.enumerate())
    procs_before = set(descendant_pids())
    yield
    wait_until(lambda: not set(descendant_pids()) - procs_before, 5,
               what="child processes started by the test to exit")
    extra = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not extra, f"threads leaked: {extra}"


def mem_ref() -> str:
    return f"refs/hn/memory/{os.urandom(32).hex()}/{os.urandom(32).hex()}"


def ls_remote(cwd, url, proto: str = "2") -> dict[str, str]:
    out = git(cwd, "-c", f"protocol.version={proto}", "ls-remote", url)
    return {name: oid for oid, name in (line.split("\t") for line in out.splitlines())}


def new_commit(repo, parent: str, message: str) -> str:
    return git(repo, "commit-tree", f"{parent}^{{tree}}", "-p", parent, "-m", message)


def roundtrip(tmp_path, url: str, fmt: str, proto: str = "2") -> None:
    """Push main and a memory ref, list them, fetch them into a fresh repository, then push and
    fetch an update (a second negotiation, with haves on both sides)."""
    c = ["-c", f"protocol.version={proto}"]
    src = make_repo(tmp_path / "src", fmt)
    ref = mem_ref()
    first = new_commit(src, "HEAD", "memory 1")
    git(src, "update-ref", ref, first)
    git(src, *c, "push", "-q", url, "main", f"{ref}:{ref}")
    listed = ls_remote(src, url, proto)
    assert listed[ref] == first
    assert listed["refs/heads/main"] == git(src, "rev-parse", "main")

    dst = tmp_path / "dst"
    git(tmp_path, "init", "-q", f"--object-format={fmt}", str(dst))
    git(dst, *c, "fetch", "-q", url, "refs/hn/*:refs/hn/*", "main:refs/remotes/origin/main")
    assert git(dst, "rev-parse", ref) == first
    assert git(dst, "rev-parse", "refs/remotes/origin/main") == listed["refs/heads/main"]

    second = new_commit(src, first, "memory 2")
    git(src, "update-ref", ref, second)
    git(src, *c, "push", "-q", url, f"{ref}:{ref}")
    git(dst, *c, "fetch", "-q", url, "refs/hn/*:refs/hn/*")
    assert git(dst, "rev-parse", ref) == second
    git(dst, "fsck", "--no-dangling")


# --- bare_remote and file:// -------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_bare_remote_is_bare_in_the_requested_format(bare_remote, fmt):
    bare = bare_remote(f"r-{fmt}.git", object_format=fmt)
    assert git(bare, "rev-parse", "--is-bare-repository") == "true"
    assert git(bare, "rev-parse", "--show-object-format") == fmt
    assert bare_remote("other.git").parent == bare.parent


@pytest.mark.parametrize("fmt", FORMATS)
def test_file_remote_roundtrip(bare_remote, tmp_path, fmt):
    roundtrip(tmp_path, bare_remote(object_format=fmt).as_uri(), fmt)


# --- git daemon --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt,proto", [("sha1", "2"), ("sha1", "0"), ("sha256", "2")])
def test_git_daemon_roundtrip(bare_remote, git_daemon, tmp_path, fmt, proto):
    bare = bare_remote(object_format=fmt)
    url = git_daemon(bare)
    d = git_daemon.server(url)
    assert url == f"git://127.0.0.1:{d.port}/remote.git"
    roundtrip(tmp_path, url, fmt, proto)
    assert process_group_pids(d.pid), "the daemon runs until teardown"


def test_git_daemon_retries_when_the_port_was_taken(bare_remote, git_daemon, monkeypatch, tmp_path):
    """The picked port is taken before the daemon binds it: the daemon is started again."""
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        busy = squatter.getsockname()[1]
        ports = iter([busy])
        real = servers._pick_port
        monkeypatch.setattr(servers, "_pick_port", lambda: next(ports, None) or real())
        url = git_daemon(bare_remote())
    d = git_daemon.server(url)
    assert d.attempts[0] == busy and d.port != busy and len(d.attempts) == 2
    assert ls_remote(tmp_path, url) == {}


def test_git_daemon_stop_kills_the_process_group(bare_remote, tmp_path):
    bare = bare_remote()
    with GitDaemon(bare, tmp_path) as d:
        pid, port = d.pid, d.port
        assert ls_remote(tmp_path, d.url) == {}
    assert process_group_pids(pid) == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()


# --- git http-backend ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt,proto", [("sha1", "2"), ("sha1", "0"), ("sha256", "2")])
def test_http_backend_roundtrip(bare_remote, http_backend, tmp_path, fmt, proto):
    bare = bare_remote(object_format=fmt)
    url = http_backend(bare)
    assert url == f"http://127.0.0.1:{http_backend.server(url).port}/remote.git"
    roundtrip(tmp_path, url, fmt, proto)
    assert git(bare, "config", "http.receivepack") == "true"


def test_http_backend_push_with_a_chunked_request_body(bare_remote, http_backend, tmp_path):
    """A push larger than http.postBuffer (1 MiB) is sent with Transfer-Encoding: chunked."""
    url = http_backend(bare_remote())
    src = make_repo(tmp_path / "src")
    (src / "big.bin").write_bytes(os.urandom(3 << 20))
    git(src, "add", "big.bin")
    git(src, "commit", "-q", "-m", "big")
    ref = mem_ref()
    git(src, "push", "-q", url, f"HEAD:{ref}")
    posts = [r for r in http_backend.server(url).requests
             if r["method"] == "POST" and r["path"].endswith("/git-receive-pack")]
    assert any(r["chunked"] and r["body_bytes"] > 3 << 20 for r in posts), posts
    assert ls_remote(src, url)[ref] == git(src, "rev-parse", "HEAD")
    dst = make_repo(tmp_path / "dst")
    git(dst, "fetch", "-q", url, f"{ref}:{ref}")
    assert git(dst, "cat-file", "-s", f"{ref}:big.bin") == str(3 << 20)


@pytest.mark.parametrize("proto", ["2", "0"])
def test_http_backend_fetch_with_a_gzip_request_body(bare_remote, http_backend, tmp_path, proto):
    """Fetching many refs makes an upload-pack request > 1 KiB, which Git gzips."""
    bare = bare_remote()
    src = make_repo(tmp_path / "src")
    actor = os.urandom(32).hex()
    head = git(src, "rev-parse", "HEAD")
    refs = {}
    for i in range(40):
        head = new_commit(src, head, f"m{i}")
        refs[f"refs/hn/memory/{actor}/{os.urandom(32).hex()}"] = head
    git(src, "update-ref", "--stdin",
        input="".join(f"update {r} {o}\n" for r, o in refs.items()).encode())
    git(src, "push", "-q", bare.as_uri(), "refs/hn/*:refs/hn/*")
    url = http_backend(bare)
    dst = tmp_path / "dst"
    git(tmp_path, "init", "-q", str(dst))
    git(dst, "-c", f"protocol.version={proto}", "fetch", "-q", url, "refs/hn/*:refs/hn/*")
    assert dict(line.split(" ")[::-1] for line in git(
        dst, "for-each-ref", "--format=%(objectname) %(refname)", "refs/hn").splitlines()) == refs
    posts = [r for r in http_backend.server(url).requests if r["method"] == "POST"]
    assert any(r["encoding"] == "gzip" and r["body_bytes"] > r["raw_bytes"] for r in posts), posts


def test_http_backend_stop_joins_its_threads(bare_remote, tmp_path):
    bare = bare_remote()
    with HttpBackendServer(bare.parent) as s:
        url, port = s.url_for(bare), s.port
        assert ls_remote(tmp_path, url) == {}
    assert s.alive_threads() == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()


# --- the hostile server --------------------------------------------------------------------------


def test_hostile_server_advertises_one_ref(endless_pack_server, tmp_path):
    srv = endless_pack_server(mem_ref())
    for proto in ("2", "0"):
        out = git(tmp_path, "-c", f"protocol.version={proto}", "ls-remote", srv.url)
        assert out == f"{srv.oid}\t{srv.ref}"
    assert not srv.pack_requested.is_set()


@pytest.mark.parametrize("fmt", FORMATS)
def test_endless_pack_grows_the_temporary_pack_until_killed(endless_pack_server, git_spawn,
                                                            tmp_path, fmt):
    srv = endless_pack_server(mem_ref(), object_format=fmt)
    repo = make_repo(tmp_path / "repo", fmt)  # has a commit, so there is a negotiation round
    fetch = git_spawn(repo, "fetch", srv.url, f"{srv.ref}:{srv.ref}")
    srv.wait_streaming()
    first = wait_until(lambda: (n := tmp_pack_bytes(repo)) > 4 << 20 and n, 20,
                       what="the temporary pack to pass 4 MiB")
    wait_until(lambda: tmp_pack_bytes(repo) > first + (4 << 20), 20,
               what="the temporary pack to keep growing")
    assert fetch.running()
    assert srv.wants == [srv.oid]
    fetch.kill(signal.SIGKILL)
    assert_fetch_killed(fetch, srv, repo, sig=signal.SIGKILL)
    assert srv.bytes_sent > 8 << 20


def test_stall_sends_nothing_after_the_advertisement(endless_pack_server, git_spawn, tmp_path):
    srv = endless_pack_server(mem_ref(), mode="stall")
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    fetch = git_spawn(repo, "fetch", srv.url, f"{srv.ref}:{srv.ref}")
    assert srv.stalled.wait(10), srv.requests
    time.sleep(0.3)
    assert fetch.running(), fetch.stderr
    assert tmp_pack_bytes(repo) == 0 and srv.bytes_sent == 0
    fetch.kill(signal.SIGTERM)
    assert_fetch_killed(fetch, srv, repo, sig=signal.SIGTERM)


def test_stall_is_caught_by_gits_low_speed_limit(endless_pack_server, git_spawn, tmp_path):
    srv = endless_pack_server(mem_ref(), mode="stall")
    fetch = git_spawn(tmp_path, "-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=1",
                      "ls-remote", srv.url)  # ls-remote succeeds: only the pack request stalls
    assert fetch.wait(10) == 0
    repo = make_repo(tmp_path / "repo")
    fetch = git_spawn(repo, "-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=1",
                      "fetch", srv.url, f"{srv.ref}:{srv.ref}")
    code = fetch.wait(15)
    assert code not in (0, None) and code > 0, fetch.stderr
    srv.wait_client_gone()


def test_limit_then_close_truncates_the_pack(endless_pack_server, git_spawn, tmp_path):
    srv = endless_pack_server(mem_ref(), limit=1 << 20, at_limit="close")
    repo = make_repo(tmp_path / "repo")
    fetch = git_spawn(repo, "fetch", srv.url, f"{srv.ref}:{srv.ref}")
    assert fetch.wait(15) > 0, fetch.stderr
    assert srv.limit_reached.is_set() and srv.bytes_sent == 1 << 20
    assert "early EOF" in fetch.stderr or "index-pack failed" in fetch.stderr, fetch.stderr


def test_limit_then_stall_leaves_a_pack_that_stops_growing(endless_pack_server, git_spawn,
                                                           tmp_path):
    limit = 2 << 20
    srv = endless_pack_server(mem_ref(), limit=limit, at_limit="stall", rate=16 << 20)
    repo = make_repo(tmp_path / "repo")
    fetch = git_spawn(repo, "fetch", srv.url, f"{srv.ref}:{srv.ref}")
    assert srv.stalled.wait(10)
    sizes = [-1]

    def settled():
        time.sleep(0.1)
        sizes.append(tmp_pack_bytes(repo))
        return sizes[-1] > limit // 2 and sizes[-1] == sizes[-2]

    wait_until(settled, 10, what="the temporary pack to fill up and stop growing")
    time.sleep(0.3)
    assert tmp_pack_bytes(repo) == sizes[-1] <= limit and srv.bytes_sent == limit
    assert fetch.running()
    fetch.kill()
    assert_killed(fetch, signal.SIGKILL)
    srv.wait_client_gone()


def test_rate_limits_the_stream(endless_pack_server, git_spawn, tmp_path):
    rate = 1 << 20
    srv = endless_pack_server(mem_ref(), rate=rate, chunk=16 << 10)
    repo = make_repo(tmp_path / "repo")
    fetch = git_spawn(repo, "fetch", srv.url, f"{srv.ref}:{srv.ref}")
    srv.wait_streaming()
    start = time.monotonic()
    time.sleep(0.25)
    assert srv.bytes_sent <= rate * (time.monotonic() - start + 0.1) + (16 << 10)
    assert srv.bytes_sent > 0
    fetch.kill()
    assert_fetch_killed(fetch, srv, repo)


def test_fixture_teardown_stops_a_stalled_server_without_a_client_exit(endless_pack_server,
                                                                       tmp_path):
    """Teardown must not wait for the client: stop() unblocks the stalled handler itself."""
    srv = endless_pack_server(mem_ref(), mode="stall")
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    proc = servers.spawn_git(repo, "fetch", srv.url, f"{srv.ref}:{srv.ref}", log_dir=tmp_path)
    try:
        assert srv.stalled.wait(10)
        srv.stop()
        assert srv.alive_threads() == []
        assert proc.wait(10) > 0, proc.stderr  # the server went away under the client
    finally:
        proc.kill()
