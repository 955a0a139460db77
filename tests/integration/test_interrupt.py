"""Ctrl-C on any command: one ``git-hn: interrupted`` line and status 1 (CONTRACT §0.5), never a
traceback. Git passes the terminal's SIGINT on to git-hn, which so gets two in quick
succession; a trial saw a traceback 11 times in 79 (the second arriving while the first was
reported, or while the output was flushed), and the typer-routed commands exit 130 silently.

Deterministic: git-hn's stdout and stderr are pipes filled to the brim, so each of its writes
blocks where the test can see it (``/proc/<pid>/wchan``, ``/proc/<pid>/syscall``); the first
SIGINT interrupts the blocked output, the second the blocked report of the first."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time

import pytest

from helpers import hn

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/syscall"), reason="needs /proc/<pid>/syscall")


def _full_pipe() -> tuple[int, int]:
    """A pipe whose buffer is full: the next write to it blocks until the reader reads."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    for size in (65_536, 4096, 1):
        try:
            while True:
                os.write(w, b"." * size)
        except BlockingIOError:
            pass
    os.set_blocking(w, True)
    return r, w


def _blocked_writing(pid: int, fd: int, proc) -> None:
    """Wait until ``pid`` is blocked writing to its ``fd``."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with open(f"/proc/{pid}/wchan") as f:
                wchan = f.read()
            with open(f"/proc/{pid}/syscall") as f:
                args = f.read().split()
        except OSError:
            wchan, args = "", []
        if wchan.endswith("pipe_write") and len(args) > 1 and args[1] == hex(fd):
            return
        assert proc.poll() is None, f"git-hn ended ({proc.returncode}) before it wrote to fd {fd}"
        assert time.monotonic() < deadline, f"git-hn never blocked writing to fd {fd}"
        time.sleep(0.01)


def _interrupted_twice(cwd, *args) -> tuple[int, bytes]:
    """Run ``git-hn ARGS`` with full pipes as stdout and stderr; SIGINT once it blocks writing its
    output, again once it blocks reporting that; then drain. Its status and what it wrote to stderr."""
    out_r, out_w = _full_pipe()
    err_r, err_w = _full_pipe()
    proc = subprocess.Popen([shutil.which("git-hn") or "git-hn", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=out_w, stderr=err_w)
    os.close(out_w)
    os.close(err_w)
    got = {}

    def drain(fd: int) -> None:
        chunks = []
        while chunk := os.read(fd, 65_536):
            chunks.append(chunk)
        os.close(fd)
        got[fd] = b"".join(chunks)

    try:
        _blocked_writing(proc.pid, 1, proc)
        proc.send_signal(signal.SIGINT)
        _blocked_writing(proc.pid, 2, proc)
        proc.send_signal(signal.SIGINT)
    finally:
        readers = [threading.Thread(target=drain, args=(fd,)) for fd in (out_r, err_r)]
        for t in readers:
            t.start()
        code = proc.wait(timeout=60)
        for t in readers:
            t.join()
    return code, got[err_r].lstrip(b".")


@pytest.mark.parametrize("argv", [("memory", "recall"), ("identity", "show")],
                         ids=["fast-path", "typer-routed"])
def test_ctrl_c_twice_prints_one_line_and_no_traceback(inited, argv):
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "interrupted while printed").code == 0
    code, err = _interrupted_twice(inited, *argv)
    assert (code, err) == (1, b"git-hn: interrupted\n")

