"""Real Git servers on 127.0.0.1 for tests, and a hostile fake for watchdog tests.

Every server here is started by the test that uses it, listens on 127.0.0.1 only, and is torn
down (with an assertion that nothing leaked) when the test ends. Nothing outside the repository
is needed beyond ``git`` itself (``git daemon`` and ``git http-backend`` ship with Git) and the
Python standard library.

Fixtures (registered for every test through ``tests/conftest.py``)
-------------------------------------------------------------------

``bare_remote(name="remote.git", *, object_format="sha1") -> Path``
    Factory: ``git init --bare`` under a per-test directory. Use its path directly as a
    ``file://`` remote (``path.as_uri()`` or the plain path), or hand it to the servers below.

``git_daemon(bare_path, informative=True) -> "git://127.0.0.1:<port>/<name>"``
    Factory: one ``git daemon --export-all --enable=receive-pack --reuseaddr
    --informative-errors --base-path=<parent of bare_path>`` per call, on a free port (without
    ``--informative-errors`` when ``informative`` is false, as a daemon runs by default). The port
    is picked by binding port 0 and closing it; if the daemon then fails to bind (another process
    took the port in between) it is started again on a new port (up to ``PORT_ATTEMPTS``).
    Readiness is the daemon's own "Ready to rumble" log line (``--verbose``, written to a log
    file so no pipe can fill up) followed by a successful TCP connect. The daemon runs in its own
    session; teardown kills the whole process group (the daemon and its per-connection
    children) and asserts that no process of the group is left. ``git_daemon.server(url)``
    returns the :class:`GitDaemon` (``.pid``, ``.port``, ``.log``).

``http_backend(bare_path, basic=None) -> "http://127.0.0.1:<port>/<name>"``
    Factory: a threaded ``http.server`` (in a background thread of the test process, bound to
    port 0, so there is no port race) that runs ``git http-backend`` as a CGI for every request
    (smart HTTP, protocols v0 and v2). It sets ``http.receivepack=true`` in the bare repository
    so pushes are allowed without authentication. Request bodies are de-chunked
    (``Transfer-Encoding: chunked``, which Git uses for bodies larger than ``http.postBuffer``)
    and gunzipped (``Content-Encoding: gzip``, which Git uses for upload-pack requests larger
    than 1 KiB) before they reach the CGI, which then gets an exact ``CONTENT_LENGTH``.
    ``Expect: 100-continue`` is answered by ``http.server``. ``http_backend.server(url)``
    returns the :class:`HttpBackendServer`, whose ``.requests`` records every request (method,
    path, headers, raw and decoded body sizes) so tests can prove which code path was taken.
    ``basic="user:password"``: every request must carry those HTTP Basic credentials, else the
    answer is 401 with ``WWW-Authenticate: Basic`` (Git then asks for them). ``.hold_if =
    predicate`` on the server: a POST whose body it is true of gets no answer for ``.hold_for``
    seconds (30), then its connection is closed (a remote that stalls one question only).
    ``.refuse_if = predicate(method, path)``: a request it is true of (a GET of ``info/refs``) is
    answered with the smart protocol's ``ERR access denied`` (a server's own refusal, no 401).
    ``.ask_if = predicate(method, path)``: a request it is true of is answered 401 unless it
    carries ``basic``'s credentials (a server that asks for a password for some questions only).

``endless_pack_server(ref=None, oid=None, *, mode="endless", ...) -> HostilePackServer``
    Factory for the hostile fake; see below. ``.url`` is the URL to fetch from.

``git_spawn(cwd, *args, env=None) -> GitProcess``
    Factory: start a git command in its own process group (stdout/stderr to files), so that a
    test or a watchdog can kill the command *and* its helpers (``git-remote-http``,
    ``fetch-pack``, ``index-pack``). Teardown kills whatever is still running and asserts the
    groups are empty.

Helpers (plain functions, import them from ``servers``):

* :func:`tmp_pack_bytes` / :func:`tmp_pack_files`: the ``objects/pack/tmp_pack_*`` files of a
  repository, i.e. what an in-flight ``index-pack`` has written so far;
* :func:`wait_until` (poll a predicate with a timeout);
* :func:`assert_killed`: the command died of a signal (a given one, optionally) and no process
  of its group is left;
* :func:`assert_fetch_killed`: that, plus the hostile server saw the connection close and no
  process still runs in the repository;
* :func:`processes_in` / :func:`assert_no_processes_in`: live processes whose working
  directory is inside a path (catches a watchdog that killed ``git fetch`` but left
  ``index-pack`` running); :func:`process_group_pids`, :func:`descendant_pids`;
* :func:`silent_git_server`: a ``git://`` URL whose server accepts and says nothing (a remote
  that never answers: what a question's time bound has to catch);
* :func:`spawn_git` (``git_spawn`` without the fixture), :func:`make_bare`,
  :func:`pkt_line` / :func:`parse_pkt_lines`, :func:`pack_stream`.

The hostile server: what it sends and why Git accepts it
---------------------------------------------------------

``HostilePackServer`` speaks just enough *smart HTTP, protocol v0* (gitprotocol-http,
gitprotocol-pack) for ``git fetch`` and ``git ls-remote`` to proceed. A client that asks for
protocol v2 (the ``Git-Protocol: version=2`` header, the default since Git 2.28) falls back to
v0 when the advertisement does not start with ``version 2``, exactly as with an old server.

1. ``GET /<name>/info/refs?service=git-upload-pack`` is answered with
   ``Content-Type: application/x-git-upload-pack-advertisement`` and the pkt-lines
   ``# service=git-upload-pack``, flush, ``<oid> <ref>\\0side-band-64k ofs-delta
   agent=... object-format=<sha1|sha256>``, flush. That is a complete v0 ref advertisement with
   one ref (``ls-remote`` prints it). ``object-format`` lets a SHA-256 client accept a 64-hex
   OID.
2. ``POST /<name>/git-upload-pack`` carries the client's ``want`` lines (gzip and chunked
   request bodies are decoded and recorded in ``.wants``). Without ``multi_ack`` the
   negotiation is the simplest one upload-pack itself uses in stateless-RPC mode: a request
   without ``done`` (the client still sending ``have`` lines) gets a single ``NAK``; the request
   with ``done`` gets ``NAK`` followed by the pack. The OID is random and so never present in
   the client's repository, hence the client always asks for it.
3. The pack (``Transfer-Encoding: chunked``; inside side-band-64k band 1 when the client asked
   for it, which it does because it is advertised; one band-2 progress line first) starts with a
   valid header ``PACK``, version 2, and an object count of ``PACK_OBJECTS`` (2**20). The count
   is at least ``fetch.unpackLimit`` (100), so the client pipes the pack into
   ``git index-pack --stdin``, which writes everything it receives to
   ``objects/pack/tmp_pack_XXXXXX`` *as it arrives* (``unpack-objects`` would write loose
   objects instead). Then come valid, distinct blob entries (type 3, size header, zlib stream
   at level 0 so the wire size equals the payload size, default 64 KiB each) so index-pack
   keeps inflating, hashing and appending rather than dying on corrupt input. 2**20 objects of
   64 KiB is 64 GiB: endless for any test. index-pack keeps one small entry per object in
   memory, so the client's memory stays modest while the temporary pack grows.

Modes and limits (``mode=``, ``limit=``, ``at_limit=``, ``rate=``, ``interval=``):

* ``"endless"`` streams as fast as the client reads (or at ``rate`` bytes/s) until the client
  goes away or the test ends; with ``limit=N`` it stops after N pack bytes and then either ends
  the HTTP response (``at_limit="close"``: the pack is truncated, ``git fetch`` fails with an
  early EOF) or holds the connection open without sending more (``at_limit="stall"``: a temp
  pack of at most N bytes that stops growing).
* ``"stall"`` advertises normally and then, for the pack request, reads the request and sends
  *nothing* (not even a status line), holding the connection until the client disconnects or
  the test ends: what a stall timeout has to catch. (Git's own ``http.lowSpeedLimit`` /
  ``http.lowSpeedTime`` do catch it.)
* ``"chatter"`` answers the pack request with ``NAK`` and then, every ``interval`` seconds (10),
  a band-2 progress line ``Counting objects: N\\r`` and never a pack byte: a stall dressed up
  as progress (``.chatter_sent`` counts the lines).

Observables: ``.pack_requested`` / ``.streaming`` / ``.stalled`` / ``.client_gone`` events,
``.bytes_sent`` (pack bytes), ``.requests``, ``.wants``. ``wait_client_gone()`` is the
server-side proof that the fetching process died (its socket was closed). Teardown shuts every
connection down, joins every thread and asserts none is left.

Caveats: POSIX only (process groups, ``select.poll``). Needs ``git daemon`` and
``git http-backend`` (part of a normal Git installation; tested with Git 2.39, protocols v0 and
v2, SHA-1 and SHA-256 repositories). Process-leak checks read ``/proc`` (Linux); elsewhere they
fall back to ``killpg(pgid, 0)`` and :func:`processes_in` / :func:`descendant_pids` return
nothing. Zombies are not counted as live. Nothing here uses ``select.select``: a long test run
can hold more than 1024 file descriptors, where ``select`` raises.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import os
import select
import signal
import socket
import socketserver
import struct
import subprocess
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Callable

import pytest

HOST = "127.0.0.1"
PORT_ATTEMPTS = 20
START_TIMEOUT = 10.0
STOP_TIMEOUT = 5.0
PACK_OBJECTS = 1 << 20
ZERO_OID = {"sha1": "0" * 40, "sha256": "0" * 64}


# --------------------------------------------------------------------------------------------
# Processes: groups, leaks, waiting


def wait_until(predicate: Callable[[], object], timeout: float = 10.0, interval: float = 0.02,
               what: str = "condition"):
    """Poll ``predicate`` until it returns something truthy; return it, or fail after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def _proc_stats():
    """Yield (pid, state, ppid, pgrp) for every process, from /proc (Linux)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        rest = stat[stat.rfind(b")") + 2:].split()
        yield int(entry.name), rest[0].decode(), int(rest[1]), int(rest[2])


def process_group_pids(pgid: int) -> list[int]:
    """Live (non-zombie) processes in process group ``pgid``."""
    if os.path.isdir("/proc/self"):
        return [pid for pid, state, _pp, pg in _proc_stats() if pg == pgid and state not in "ZX"]
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    except PermissionError:
        pass
    return [pgid]


def descendant_pids(root: int | None = None) -> list[int]:
    """Live (non-zombie) descendants of ``root`` (default: this process), from /proc."""
    if not os.path.isdir("/proc/self"):
        return []
    root = os.getpid() if root is None else root
    stats = list(_proc_stats())
    children: dict[int, list[tuple[int, str]]] = {}
    for pid, state, ppid, _pg in stats:
        children.setdefault(ppid, []).append((pid, state))
    out, todo = [], [root]
    while todo:
        for pid, state in children.get(todo.pop(), []):
            if state not in "ZX":
                out.append(pid)
            todo.append(pid)
    return out


def processes_in(path) -> list[int]:
    """Live processes (other than this one) whose working directory is ``path`` or below it.

    Git commands chdir to the repository they work on, so after a fetch into ``repo`` was killed
    this must be empty: a non-empty result means a helper (``index-pack``, ``git-remote-http``)
    survived. Linux only (reads ``/proc/<pid>/cwd``); returns [] elsewhere.
    """
    if not os.path.isdir("/proc/self"):
        return []
    root = os.path.realpath(path)
    found = []
    for pid, state, _pp, _pg in _proc_stats():
        if pid == os.getpid() or state in "ZX":
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(pid)
    return found


def assert_no_processes_in(path, timeout: float = 5.0) -> None:
    """Fail unless, within ``timeout``, no live process has its working directory in ``path``."""
    try:
        wait_until(lambda: not processes_in(path), timeout, what=f"processes in {path} to exit")
    except AssertionError:
        raise AssertionError(f"processes still running in {path}: {_describe(processes_in(path))}")


def _describe(pids) -> str:
    parts = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            cmd = "?"
        parts.append(f"{pid}: {cmd}")
    return "; ".join(parts) or "(none)"


def _kill_group(pgid: int, proc: subprocess.Popen | None = None,
                sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT) -> list[int]:
    """Signal a whole process group, escalate to SIGKILL, reap ``proc``; return survivors."""
    for s in (sig, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, s)
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=timeout if s != signal.SIGKILL else STOP_TIMEOUT)
        deadline = time.monotonic() + (timeout if s != signal.SIGKILL else STOP_TIMEOUT)
        while process_group_pids(pgid) and time.monotonic() < deadline:
            time.sleep(0.01)
        if not process_group_pids(pgid) and (proc is None or proc.poll() is not None):
            return []
    return process_group_pids(pgid)


class GitProcess:
    """A git command running in its own session/process group, output captured to files."""

    def __init__(self, cwd, args, env: dict | None = None, log_dir: Path | None = None):
        """Output goes to ``log_dir`` (default: the parent directory of ``cwd``)."""
        self.args = ["git", *map(str, args)]
        self.cwd = Path(cwd)
        log_dir = Path(log_dir) if log_dir else self.cwd.parent
        stamp = f"{time.monotonic_ns()}"
        self.out_path = log_dir / f"git-{stamp}.out"
        self.err_path = log_dir / f"git-{stamp}.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(self.args, cwd=self.cwd, stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=err, start_new_session=True,
                                         env={**os.environ, **(env or {})})
        self.pid = self.pgid = self.proc.pid
        self.killed_by_us: int | None = None

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def running(self) -> bool:
        return self.proc.poll() is None

    def group_alive(self) -> list[int]:
        return process_group_pids(self.pgid)

    def wait(self, timeout: float = 30.0) -> int:
        return self.proc.wait(timeout=timeout)

    def kill(self, sig: int = signal.SIGKILL) -> int:
        """Kill the command and every helper in its group; return its exit status."""
        if self.killed_by_us is None and self.proc.poll() is None:
            self.killed_by_us = sig
        left = _kill_group(self.pgid, self.proc, sig)
        assert not left, f"{self.args} left processes behind: {_describe(left)}"
        return self.proc.returncode

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def __repr__(self):
        return f"GitProcess({self.args}, pid={self.pid}, returncode={self.proc.poll()})"


def spawn_git(cwd, *args, env: dict | None = None, log_dir=None) -> GitProcess:
    return GitProcess(cwd, args, env=env, log_dir=log_dir)


def assert_killed(proc: GitProcess | subprocess.Popen, sig: int | None = None,
                  timeout: float = 5.0) -> None:
    """The process ended because of a signal (``sig`` if given), and its group is empty."""
    popen = proc.proc if isinstance(proc, GitProcess) else proc
    try:
        code = popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{proc!r} is still running") from None
    assert code < 0, f"{proc!r} exited with status {code}, not by a signal"
    if sig is not None:
        assert code == -sig, f"{proc!r} died of signal {-code}, expected {sig}"
    pgid = popen.pid
    try:
        wait_until(lambda: not process_group_pids(pgid), timeout, what="process group to empty")
    except AssertionError:
        raise AssertionError(f"processes of {proc!r} survived: "
                             f"{_describe(process_group_pids(pgid))}") from None


def assert_fetch_killed(proc: GitProcess | subprocess.Popen, server=None, repo=None,
                        sig: int | None = None, timeout: float = 5.0) -> None:
    """A fetch was killed: it died of a signal, its process group is empty, the hostile
    ``server`` (if given) saw the connection close, and no process is left in ``repo``."""
    assert_killed(proc, sig, timeout)
    if server is not None:
        server.wait_client_gone(timeout)
    if repo is not None:
        assert_no_processes_in(repo, timeout)


def tmp_pack_files(repo) -> list[Path]:
    """``tmp_pack_*`` files in ``repo`` (a work tree or a bare repository)."""
    repo = Path(repo)
    out = []
    for packdir in (repo / ".git" / "objects" / "pack", repo / "objects" / "pack"):
        if packdir.is_dir():
            out.extend(sorted(packdir.glob("tmp_pack_*")))
    return out


def tmp_pack_bytes(repo) -> int:
    """Total size of the temporary packs in ``repo`` (what an in-flight ``index-pack`` writes)."""
    total = 0
    for p in tmp_pack_files(repo):
        with contextlib.suppress(FileNotFoundError):
            total += p.stat().st_size
    return total


# --------------------------------------------------------------------------------------------
# Bare repositories


def make_bare(path: Path, object_format: str = "sha1") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", f"--object-format={object_format}", str(path)],
                   check=True, capture_output=True)
    return path


# --------------------------------------------------------------------------------------------
# git daemon


def _pick_port() -> int:
    """A port that was free a moment ago (the daemon start retries if it is taken meanwhile)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _connectable(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


class GitDaemon:
    """``git daemon`` serving the parent directory of ``bare_path`` on 127.0.0.1."""

    def __init__(self, bare_path, log_dir, extra_args: tuple[str, ...] = (), informative: bool = True):
        self.extra_args = extra_args  # such as ``--access-hook=PATH``
        self.informative = informative  # False: every refusal is "access denied or repository not exported"
        self.repo = Path(bare_path).resolve()
        self.base = self.repo.parent
        self.log_dir = Path(log_dir)
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self.log: Path | None = None
        self.attempts: list[int] = []

    @property
    def url(self) -> str:
        return f"git://{HOST}:{self.port}/{self.repo.name}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def start(self) -> str:
        errors = []
        for attempt in range(PORT_ATTEMPTS):
            port = _pick_port()
            self.attempts.append(port)
            log = self.log_dir / f"git-daemon-{port}-{attempt}.log"
            with open(log, "wb") as fh:
                proc = subprocess.Popen(
                    ["git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
                     *(["--informative-errors"] if self.informative else []), "--verbose", f"--listen={HOST}",
                     f"--port={port}", f"--base-path={self.base}", *self.extra_args],
                    stdin=subprocess.DEVNULL, stdout=fh, stderr=fh, start_new_session=True)
            state = self._await_ready(proc, log, port)
            if state == "ready":
                self.proc, self.port, self.log = proc, port, log
                return self.url
            left = _kill_group(proc.pid, proc)
            assert not left, f"git daemon left processes behind: {_describe(left)}"
            errors.append(f"port {port}: {state}: {log.read_text(errors='replace').strip()}")
            if state == "timeout":
                break
        raise RuntimeError("git daemon did not start:\n" + "\n".join(errors))

    @staticmethod
    def _await_ready(proc, log: Path, port: int) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return "exited"  # typically "unable to allocate any listen sockets"
            if b"Ready to rumble" in log.read_bytes():
                # the log line is ours, so the listener is ours; the connect proves it accepts
                if _connectable(port):
                    return "ready"
            time.sleep(0.01)
        return "timeout"

    def stop(self) -> None:
        if self.proc is None:
            return
        left = _kill_group(self.proc.pid, self.proc)
        assert not left, f"git daemon left processes behind: {_describe(left)}"

    def alive(self) -> list[int]:
        return process_group_pids(self.proc.pid) if self.proc else []

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()


# --------------------------------------------------------------------------------------------
# HTTP plumbing shared by the real and the hostile server


def pkt_line(data: bytes | str) -> bytes:
    if isinstance(data, str):
        data = data.encode()
    return b"%04x" % (len(data) + 4) + data


FLUSH = b"0000"


def parse_pkt_lines(data: bytes) -> list[bytes | None]:
    """Split pkt-lines; flush (and delim/response-end) packets become None."""
    out, i = [], 0
    while i + 4 <= len(data):
        try:
            n = int(data[i:i + 4], 16)
        except ValueError:
            break
        if n < 4:
            out.append(None)
            i += 4
            continue
        out.append(data[i + 4:i + n])
        i += n
    return out


def read_request_body(handler: BaseHTTPRequestHandler) -> tuple[bytes, dict]:
    """Read a request body (Content-Length or chunked), gunzip it; return (body, facts)."""
    headers = handler.headers
    rfile = handler.rfile
    chunked = "chunked" in headers.get("Transfer-Encoding", "").lower()
    if chunked:
        parts = []
        while True:
            line = rfile.readline(65537)
            if not line:
                raise ConnectionError("connection closed inside a chunked body")
            size = int(line.split(b";", 1)[0].strip(), 16)
            if size == 0:
                while rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                break
            parts.append(rfile.read(size))
            rfile.readline(3)
        raw = b"".join(parts)
    else:
        raw = rfile.read(int(headers.get("Content-Length") or 0))
    encoding = headers.get("Content-Encoding", "").strip().lower()
    body = gzip.decompress(raw) if encoding in ("gzip", "x-gzip") else raw
    lines = parse_pkt_lines(body)
    command = lines[0].decode("ascii", "replace").strip() if lines and lines[0] else None
    # receive-pack updates: "<old> <new> <ref>" (the first with capabilities after a NUL)
    updated = [line.split(b"\0", 1)[0].split(b" ")[2].decode("utf-8", "replace") for line in lines
               if line and len(line.split(b"\0", 1)[0].split(b" ")) == 3]
    return body, {"chunked": chunked, "encoding": encoding or None,
                  "raw_bytes": len(raw), "body_bytes": len(body),
                  "command": command,  # protocol v2: "command=ls-refs", "command=fetch"
                  "updated": updated}


class _Server(HTTPServer):
    """HTTPServer with one tracked thread per connection, so teardown can join them all."""

    allow_reuse_address = False
    request_queue_size = 64

    def __init__(self, owner, handler):
        self.owner = owner
        super().__init__((HOST, 0), handler)

    def server_bind(self):  # HTTPServer's would call getfqdn() (a DNS lookup): skip it
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = HOST, self.server_address[1]

    def process_request(self, request, client_address):
        t = threading.Thread(target=self._serve, args=(request, client_address), daemon=True,
                             name=f"{type(self.owner).__name__}-conn")
        with self.owner.lock:
            self.owner.connections.add(request)
            self.owner.threads.append(t)
        t.start()

    def _serve(self, request, client_address):
        try:
            self.finish_request(request, client_address)
        except Exception as e:  # noqa: BLE001 - a client going away is normal here
            self.owner.errors.append(repr(e))
        finally:
            with self.owner.lock:
                self.owner.connections.discard(request)
            self.shutdown_request(request)


class _ThreadedHttp:
    """Lifecycle shared by the HTTP servers: start in a thread, stop, join, assert clean."""

    handler: type[BaseHTTPRequestHandler]

    def __init__(self):
        self.lock = threading.Lock()
        self.connections: set[socket.socket] = set()
        self.threads: list[threading.Thread] = []
        self.errors: list[str] = []
        self.requests: list[dict] = []
        self.stopping = threading.Event()
        self.httpd: _Server | None = None
        self._serve_thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def start(self):
        self.httpd = _Server(self, self.handler)
        self._serve_thread = threading.Thread(target=self.httpd.serve_forever,
                                              kwargs={"poll_interval": 0.05}, daemon=True,
                                              name=f"{type(self).__name__}-accept")
        self._serve_thread.start()
        return self

    def _before_join(self):
        """Hook: unblock handler threads (kill CGI children...)."""

    def stop(self) -> None:
        if self.httpd is None:
            return
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._serve_thread.join(STOP_TIMEOUT)
        self._before_join()
        with self.lock:
            conns = list(self.connections)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + STOP_TIMEOUT
        for t in list(self.threads):
            t.join(max(0.0, deadline - time.monotonic()))
        left = self.alive_threads()
        self.httpd = None if not left else self.httpd
        assert not left, f"{type(self).__name__} threads did not stop: {left}"

    def alive_threads(self) -> list[threading.Thread]:
        threads = list(self.threads) + ([self._serve_thread] if self._serve_thread else [])
        return [t for t in threads if t.is_alive()]

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class _QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and Expect: 100-continue, as Git expects
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms stalls
    timeout = 60

    def log_message(self, format, *args):  # noqa: A002 - signature from the stdlib
        pass

    @property
    def owner(self):
        return self.server.owner

    def _record(self, **extra) -> dict:
        entry = {"method": self.command, "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()}, **extra}
        with self.owner.lock:
            self.owner.requests.append(entry)
        return entry

    def _send_simple(self, code: int, body: bytes = b"", ctype: str = "text/plain",
                     headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


# --------------------------------------------------------------------------------------------
# git http-backend behind http.server


_SKIP_CGI_HEADERS = {"content-type", "content-length", "content-encoding", "transfer-encoding",
                     "proxy", "connection", "expect"}


class _CgiHandler(_QuietHandler):
    def do_GET(self):
        self._cgi()

    def do_POST(self):
        self._cgi()

    def _cgi(self):
        owner: HttpBackendServer = self.owner
        path, _, query = self.path.partition("?")
        body, facts = (read_request_body(self) if self.command == "POST"
                       else (b"", {"chunked": False, "encoding": None, "raw_bytes": 0,
                                   "body_bytes": 0}))
        entry = self._record(**facts)
        if owner.hold_if is not None and owner.hold_if(body):  # answer nothing for a while
            entry["held"] = True
            self.close_connection = True
            owner.stopping.wait(owner.hold_for)
            return
        if owner.refuse_if is not None and owner.refuse_if(self.command, self.path):  # (a hosting service's
            # refusal of a service in its own words: the smart protocol's ERR line, status 200)
            entry["status"] = 200
            service = urllib.parse.parse_qs(query).get("service", ["git-upload-pack"])[0]
            self._send_simple(200, pkt_line(f"# service={service}\n") + b"0000" + pkt_line("ERR access denied"),
                              f"application/x-{service}-advertisement")
            return
        asks = owner.ask_if is not None and owner.ask_if(self.command, self.path)
        if (owner.basic or asks) and self.headers.get("Authorization") != "Basic " + base64.b64encode(
                (owner.basic or "").encode()).decode("ascii"):
            entry["status"] = 401
            self._send_simple(401, headers={"WWW-Authenticate": 'Basic realm="git"'})
            return
        env = {**owner.env,
               "GIT_PROJECT_ROOT": str(owner.root), "GIT_HTTP_EXPORT_ALL": "1",
               "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": "HTTP/1.1",
               "SERVER_SOFTWARE": "git-hn-tests", "SERVER_NAME": HOST,
               "SERVER_PORT": str(owner.port), "SCRIPT_NAME": "",
               "REQUEST_METHOD": self.command, "PATH_INFO": urllib.parse.unquote(path),
               "QUERY_STRING": query, "REMOTE_ADDR": self.client_address[0],
               "CONTENT_TYPE": self.headers.get("Content-Type", "")}
        if self.command == "POST":
            env["CONTENT_LENGTH"] = str(len(body))
        for key, value in self.headers.items():
            if key.lower() not in _SKIP_CGI_HEADERS:
                env["HTTP_" + key.upper().replace("-", "_")] = value  # e.g. HTTP_GIT_PROTOCOL
        proc = subprocess.Popen(["git", "http-backend"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
        with owner.lock:
            owner.cgi.add(proc)
        try:
            out, err = proc.communicate(body, timeout=owner.cgi_timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid, proc, signal.SIGKILL)
            out, err = b"", b"http-backend timed out"
        finally:
            with owner.lock:
                owner.cgi.discard(proc)
        if err:
            owner.errors.append(err.decode(errors="replace"))
        entry["cgi_status"] = proc.returncode
        head, body_out = _split_cgi(out)
        status, reason, headers = 200, "OK", []
        for line in head.splitlines():
            name, _, value = line.decode("latin-1").partition(":")
            value = value.strip()
            if name.lower() == "status":
                code, _, reason = value.partition(" ")
                status = int(code)
            elif name.lower() not in ("content-length", "transfer-encoding", "connection"):
                headers.append((name, value))
        if not out:
            status, reason, body_out = 500, "CGI failed", err
        entry["status"] = status
        self.send_response(status, reason or None)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body_out)))
        self.end_headers()
        self.wfile.write(body_out)


def _split_cgi(out: bytes) -> tuple[bytes, bytes]:
    """Split CGI output at the first empty line (CRLF or LF line ends)."""
    pos = 0
    while True:
        nl = out.find(b"\n", pos)
        if nl < 0:
            return out, b""
        line = out[pos:nl]
        if line in (b"", b"\r"):
            return out[:pos], out[nl + 1:]
        pos = nl + 1


class HttpBackendServer(_ThreadedHttp):
    """Smart HTTP for every repository under ``root``, through ``git http-backend``."""

    handler = _CgiHandler
    cgi_timeout = 120

    def __init__(self, root, env: dict | None = None, basic: str | None = None):
        super().__init__()
        self.root = Path(root).resolve()
        self.env = dict(os.environ if env is None else env)
        self.basic = basic  # "user:password" that every request must send (HTTP Basic), else 401
        # a POST whose (decoded) body this is true of is answered with nothing, and its
        # connection closed after ``hold_for`` seconds (a remote that stalls one question only);
        # set on the started server
        self.hold_if: Callable[[bytes], bool] | None = None
        self.hold_for = 30.0
        # a request whose (method, path with query) this is true of is refused as a hosting
        # service refuses a service: "ERR access denied" (Git: "remote error: access denied");
        # set on the started server, for GETs of info/refs
        self.refuse_if: Callable[[str, str], bool] | None = None
        # a request whose (method, path with query) this is true of must carry ``basic``'s
        # credentials (any Authorization header fails when ``basic`` is None), else 401: a server
        # that asks for a password for some questions only; set on the started server
        self.ask_if: Callable[[str, str], bool] | None = None
        self.cgi: set[subprocess.Popen] = set()

    def url_for(self, bare_path) -> str:
        rel = Path(bare_path).resolve().relative_to(self.root)
        return f"http://{HOST}:{self.port}/{urllib.parse.quote(rel.as_posix())}"

    def _before_join(self):
        with self.lock:
            procs = list(self.cgi)
        for proc in procs:
            left = _kill_group(proc.pid, proc, signal.SIGKILL)
            assert not left, f"http-backend left processes behind: {_describe(left)}"


def enable_http_push(bare_path) -> None:
    subprocess.run(["git", "-C", str(bare_path), "config", "http.receivepack", "true"],
                   check=True, capture_output=True)


# --------------------------------------------------------------------------------------------
# The hostile server


def _obj_header(obj_type: int, size: int) -> bytes:
    byte = (obj_type << 4) | (size & 0x0F)
    size >>= 4
    out = bytearray()
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


def pack_stream(object_size: int = 64 * 1024, objects: int = PACK_OBJECTS):
    """Yield a pack: header, then distinct blob entries (zlib level 0) forever-ish."""
    yield b"PACK" + struct.pack(">II", 2, objects)
    base = bytearray(os.urandom(object_size))
    head = _obj_header(3, object_size)
    for i in range(objects):
        base[:8] = struct.pack(">Q", i)
        yield head + zlib.compress(bytes(base), 0)


class _HostileHandler(_QuietHandler):
    timeout = None  # a slow reader must not look like a vanished one; stop() unblocks writes
    def do_GET(self):
        owner: HostilePackServer = self.owner
        path, _, query = self.path.partition("?")
        self._record()
        if path.endswith("/info/refs") and "service=git-upload-pack" in query:
            caps = (f"side-band-64k ofs-delta agent=git-hn-tests/hostile "
                    f"object-format={owner.object_format}")
            body = (pkt_line("# service=git-upload-pack\n") + FLUSH
                    + pkt_line(f"{owner.oid} {owner.ref}\0{caps}\n") + FLUSH)
            self._send_simple(200, body, "application/x-git-upload-pack-advertisement")
        else:
            self._send_simple(404, b"not here\n")

    def do_POST(self):
        owner: HostilePackServer = self.owner
        path = self.path.partition("?")[0]
        if not path.endswith("/git-upload-pack"):
            self._record()
            self._send_simple(403, b"read-only\n")
            return
        body, facts = read_request_body(self)
        lines = [p for p in parse_pkt_lines(body) if p is not None]
        wants = [ln.split()[1].decode() for ln in lines if ln.startswith(b"want ")]
        caps = lines[0].split(b"\0")[0].split()[2:] if lines and lines[0].startswith(b"want ") \
            else []
        done = any(ln.strip() == b"done" for ln in lines)
        self._record(**facts, wants=wants, done=done)
        with owner.lock:
            owner.wants.extend(w for w in wants if w not in owner.wants)
        if not done:  # a negotiation round: no common objects here
            self._send_simple(200, pkt_line("NAK\n"), "application/x-git-upload-pack-result")
            return
        owner.pack_requested.set()
        self.close_connection = True
        if owner.mode == "stall":
            owner.stalled.set()
            self._hold()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-git-upload-pack-result")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sideband = b"side-band-64k" in caps
        try:
            self._chunk(pkt_line("NAK\n"))
            if owner.mode == "chatter":
                self._chatter()
                return
            if sideband:
                self._chunk(pkt_line(b"\x02hostile: endless pack\n"))
            owner.streaming.set()
            self._stream(sideband)
        except OSError:
            owner.client_gone.set()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")

    def _stream(self, sideband: bool) -> None:
        owner: HostilePackServer = self.owner
        limit, rate = owner.limit, owner.rate
        started = time.monotonic()
        pending = b""
        stream = pack_stream(owner.object_size)
        while not owner.stopping.is_set():
            if limit is not None and owner.bytes_sent >= limit:
                break
            if len(pending) < 65515:
                pending += next(stream, b"")
                if not pending:
                    break
            n = min(len(pending), 65515 if sideband else 65536, owner.chunk)
            if limit is not None:
                n = min(n, limit - owner.bytes_sent)
            if rate:
                wait = started + (owner.bytes_sent + n) / rate - time.monotonic()
                if wait > 0 and owner.stopping.wait(wait):
                    return
            piece, pending = pending[:n], pending[n:]
            self._chunk(pkt_line(b"\x01" + piece) if sideband else piece)
            with owner.lock:
                owner.bytes_sent += n
        if owner.stopping.is_set():
            return
        owner.limit_reached.set()
        if owner.at_limit == "stall":
            owner.stalled.set()
            self._hold()
        else:
            self.wfile.write(b"0\r\n\r\n")  # a well-formed HTTP end, a truncated pack

    def _chatter(self) -> None:
        """Band-2 progress text every ``owner.interval`` seconds and never a pack byte, until the
        client goes away or the test ends (a red-team trial's server)."""
        owner: HostilePackServer = self.owner
        n = 0
        owner.streaming.set()
        while not owner.stopping.is_set():
            n += 1
            self._chunk(pkt_line(b"\x02Counting objects: %d\r" % n))  # OSError: the client left
            self.wfile.flush()
            with owner.lock:
                owner.chatter_sent = n
            if owner.stopping.wait(owner.interval):
                return

    def _hold(self) -> None:
        """Send nothing; return when the client closes the connection or the test ends."""
        sock = self.connection
        poller = select.poll()  # not select.select(): the test process may hold > 1024 fds
        poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
        while not self.owner.stopping.is_set():
            try:
                if poller.poll(50) and not sock.recv(1, socket.MSG_PEEK):
                    break
            except OSError:
                break
        if not self.owner.stopping.is_set():
            self.owner.client_gone.set()


class HostilePackServer(_ThreadedHttp):
    """A fake smart-HTTP server that advertises one ref and then streams or stalls.

    See the module docstring for the exact bytes. Attributes: ``url``, ``ref``, ``oid``,
    ``requests``, ``wants``, ``bytes_sent``; events ``pack_requested``, ``streaming``,
    ``stalled``, ``limit_reached``, ``client_gone``.
    """

    handler = _HostileHandler
    MODES = ("endless", "stall", "chatter")
    chatter_sent = 0  # progress lines sent (mode "chatter")

    def __init__(self, ref: str | None = None, oid: str | None = None, *, mode: str = "endless",
                 object_format: str = "sha1", limit: int | None = None,
                 at_limit: str = "close", rate: float | None = None,
                 object_size: int = 64 * 1024, chunk: int = 65515, name: str = "hostile.git",
                 interval: float = 10.0):
        super().__init__()
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {self.MODES}")
        if at_limit not in ("close", "stall"):
            raise ValueError("at_limit must be 'close' or 'stall'")
        hexlen = len(ZERO_OID[object_format])
        self.mode, self.object_format, self.name = mode, object_format, name
        self.ref = ref or f"refs/hn/memory/{os.urandom(32).hex()}/{os.urandom(32).hex()}"
        self.oid = oid or os.urandom(hexlen // 2).hex()
        if len(self.oid) != hexlen:
            raise ValueError(f"{object_format} OIDs have {hexlen} hex digits")
        self.limit, self.at_limit, self.rate = limit, at_limit, rate
        self.object_size, self.chunk = object_size, max(1, chunk)
        self.interval = interval
        self.wants: list[str] = []
        self.bytes_sent = 0
        self.pack_requested = threading.Event()
        self.streaming = threading.Event()
        self.stalled = threading.Event()
        self.limit_reached = threading.Event()
        self.client_gone = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/{self.name}"

    def wait_client_gone(self, timeout: float = 5.0) -> None:
        """Fail unless the fetching client closed its connection (e.g. it was killed)."""
        assert self.client_gone.wait(timeout), "the client is still connected"

    def wait_streaming(self, timeout: float = 10.0) -> None:
        assert self.streaming.wait(timeout), f"no pack request arrived; requests: {self.requests}"


# --------------------------------------------------------------------------------------------
# Fixtures


class _Factory:
    """Callable fixture value that remembers what it started, by URL."""

    def __init__(self, make):
        self._make = make
        self.servers: dict[str, object] = {}

    def __call__(self, *args, **kwargs):
        return self._make(*args, **kwargs)

    def server(self, url: str):
        return self.servers[url]


@pytest.fixture
def bare_remote(tmp_path_factory):
    """Factory: ``bare_remote(name="remote.git", *, object_format="sha1") -> Path``."""
    root = tmp_path_factory.mktemp("remotes")

    def make(name: str = "remote.git", *, object_format: str = "sha1") -> Path:
        return make_bare(root / name, object_format)

    return make


@pytest.fixture
def git_daemon(tmp_path_factory):
    """Factory: ``git_daemon(bare_path) -> "git://127.0.0.1:<port>/<name>"``."""
    log_dir = tmp_path_factory.mktemp("git-daemon")
    daemons: list[GitDaemon] = []

    def start(bare_path, informative: bool = True) -> str:
        d = GitDaemon(bare_path, log_dir, informative=informative)
        d.start()
        daemons.append(d)
        factory.servers[d.url] = d
        return d.url

    factory = _Factory(start)
    yield factory
    failures = []
    for d in daemons:
        try:
            d.stop()
        except AssertionError as e:
            failures.append(str(e))
    leaked = [(d.url, d.alive()) for d in daemons if d.alive()]
    assert not failures and not leaked, f"git daemon leak: {failures} {leaked}"


@pytest.fixture
def http_backend():
    """Factory: ``http_backend(bare_path) -> "http://127.0.0.1:<port>/<name>"``."""
    servers: list[HttpBackendServer] = []

    def start(bare_path, basic: str | None = None) -> str:
        bare_path = Path(bare_path).resolve()
        enable_http_push(bare_path)
        s = HttpBackendServer(bare_path.parent, basic=basic).start()
        servers.append(s)
        url = s.url_for(bare_path)
        factory.servers[url] = s
        return url

    factory = _Factory(start)
    yield factory
    _stop_all(servers)


@pytest.fixture
def endless_pack_server():
    """Factory: ``endless_pack_server(ref=None, oid=None, *, mode="endless"|"stall", ...)``.

    Returns a started :class:`HostilePackServer`; ``.url`` is what to fetch from.
    """
    servers: list[HostilePackServer] = []

    def start(*args, **kwargs) -> HostilePackServer:
        s = HostilePackServer(*args, **kwargs).start()
        servers.append(s)
        factory.servers[s.url] = s
        return s

    factory = _Factory(start)
    yield factory
    _stop_all(servers)


@pytest.fixture
def git_spawn(tmp_path_factory):
    """Factory: ``git_spawn(cwd, *args, env=None) -> GitProcess`` in its own process group."""
    log_dir = tmp_path_factory.mktemp("git-spawn")
    procs: list[GitProcess] = []

    def spawn(cwd, *args, env: dict | None = None) -> GitProcess:
        p = GitProcess(cwd, args, env=env, log_dir=log_dir)
        procs.append(p)
        return p

    yield spawn
    leaked = []
    for p in procs:
        left = _kill_group(p.pgid, p.proc, signal.SIGKILL)
        if left:
            leaked.append(f"{p!r}: {_describe(left)}")
    assert not leaked, f"git processes leaked: {leaked}"


def _stop_all(servers) -> None:
    failures = []
    for s in servers:
        try:
            s.stop()
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "; ".join(failures)


@contextlib.contextmanager
def silent_git_server(hold: float):
    """A git:// URL whose server accepts every connection and says nothing for ``hold`` seconds,
    then closes it (so a question without a bound of its own ends there, failed, and a test
    without the fix fails in seconds rather than Git's 300)."""
    sock = socket.socket()
    sock.bind((HOST, 0))
    sock.listen(16)
    held, done = [], threading.Event()

    def serve():
        sock.settimeout(0.1)
        while not done.is_set():
            try:
                conn, _addr = sock.accept()
            except OSError:
                continue
            held.append(conn)
            threading.Timer(hold, conn.close).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"git://{HOST}:{sock.getsockname()[1]}/r.git"
    finally:
        done.set()
        thread.join()
        sock.close()
        for conn in held:
            conn.close()
