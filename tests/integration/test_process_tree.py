"""Killing a process tree (``store.process.Child.kill_tree``: a remote call past its time bound,
with ssh and its ProxyCommand below git), on real processes: a process ID the system has given
to another program since the tree was listed is never signalled."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from git_hn.store import process, process_tree

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")


def _start(*argv: str) -> process.Child:
    return process.popen(list(argv), stdin=process.DEVNULL, stdout=process.DEVNULL,
                         stderr=process.DEVNULL)


def _until(ready, what: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _running(token: bytes) -> list[int]:
    """The live processes whose command line holds ``token``."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                line = fh.read()
            with open(f"/proc/{name}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if token in line and state != b"Z":
            found.append(int(name))
    return found


def _end(pids) -> None:
    """(No test leaves processes behind.)"""
    for pid in pids:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


def _reuse_pid(pid: int) -> subprocess.Popen | None:
    """An unrelated process given ``pid`` (the kernel's next process ID set below it), or None
    when other processes kept taking it first."""
    for _ in range(20):
        if not os.path.exists(f"/proc/{pid}"):
            with open("/proc/sys/kernel/ns_last_pid", "w") as fh:
                fh.write(str(pid - 1))
            other = subprocess.Popen(["sleep", "1000"], start_new_session=True)
            if other.pid == pid:
                return other
            other.kill()
            other.wait()
        time.sleep(0.05)
    return None


@pytest.mark.skipif(not os.access("/proc/sys/kernel/ns_last_pid", os.W_OK),
                    reason="needs to choose the next process ID (root)")
@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "start-time"])
def test_pid_reuse_between_listing_and_signalling_spares_the_unrelated_process(tmp_path, monkeypatch, pidfd):
    """A review's forced interleaving: a process of the tree ends and its ID goes to an unrelated
    program between the ``/proc`` listing (``_descendants``) and the signal, which then went to
    that program. Where there is no pidfd, the start time read again says the ID is another's."""
    fifo, inner = tmp_path / "fifo", tmp_path / "inner-pid"
    os.mkfifo(fifo)
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open")
    # the root, a shell below it, and below that a process that ends when told (the fifo)
    root = _start("sh", "-c", 'sh -c \'sh -c "echo \\$\\$ > $0; exec cat $1 >/dev/null"; '
                  'exec sleep 1000\' "$0" "$1"; :', str(inner), str(fifo))
    listed, unrelated = process_tree._descendants, []

    def racing(*args):
        found = listed(*args)
        if not unrelated:
            ended = int(inner.read_text())
            with open(fifo, "w") as fh:
                fh.write("x")  # the innermost ends; the shell above it reaps it
            _until(lambda: not os.path.exists(f"/proc/{ended}"), "the ended process was never reaped")
            unrelated.append(_reuse_pid(ended))
        return found

    try:
        _until(lambda: inner.exists() and inner.read_text().strip(), "the tree never started")
        monkeypatch.setattr(process_tree, "_descendants", racing)
        root.kill_tree()
        root.wait()
        if unrelated[0] is None:
            pytest.skip("another process took the ended process's ID first")
        time.sleep(0.1)
        assert unrelated[0].poll() is None, "the unrelated process given a listed ID was killed"
    finally:
        if unrelated and unrelated[0] is not None:
            unrelated[0].kill()
            unrelated[0].wait()
        _end(_running(str(inner).encode()))
        _end(_running(b"sleep\x001000\x00"))  # (the shell's, killed with it already: its ID)

