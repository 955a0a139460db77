"""Killing a process tree (``store.process.Child.kill_tree``: a remote call past its time bound,
with ssh and its ProxyCommand below git), on real processes: the tree is asked to end (SIGTERM)
before it is killed, a process it starts meanwhile is asked to end and killed too, a git-hn killed
meanwhile leaves nothing stopped, and a process ID the system has given to another program since
the tree was listed is never signalled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
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


TRAPPING = """#!/bin/sh
# ends on SIGTERM the way ssh at a passphrase prompt does: its handler puts things back first
trap 'echo TERM > "$1"; exit 0' TERM
: > "$2"
while :; do sleep 0.05; done
"""


def test_a_tree_is_asked_to_end_before_it_is_killed(tmp_path):
    """A review: SIGKILL gives ssh, asking for a passphrase with the terminal's echo off, no
    chance to turn it back on (readpassphrase(3) restores it on a signal it can catch)."""
    child, termed, ready = tmp_path / "trapping", tmp_path / "termed", tmp_path / "ready"
    child.write_text(TRAPPING)
    root = _start("sh", "-c", 'sh "$0" "$1" "$2"; :', str(child), str(termed), str(ready))
    try:
        _until(ready.exists, "the trapping child never started")
        root.kill_tree()
        root.wait()
        _until(termed.exists, "the trapping child got no SIGTERM", 2)
        assert termed.read_text() == "TERM\n"
    finally:
        _end(_running(str(child).encode()))


LINGERING = """#!/bin/sh
# outlives SIGTERM: its handler writes its marker, starts one more of itself (down to 0), runs on
trap 'echo TERM > "$1/termed-$2"; if [ "$2" -gt 0 ]; then sh "$0" "$1" $(($2 - 1)) & fi' TERM
: > "$1/ready-$2"
while :; do sleep 0.05; done
"""


def test_what_the_tree_starts_while_it_is_killed_is_asked_to_end_and_killed(tmp_path):
    """A review: a process that git, or one below it, started after the tree was listed ran on,
    below init. Here each process's SIGTERM handler starts the next, which therefore appears only
    while the kill goes on: each must be found while its parent lives, and get SIGTERM (ssh started
    late may be asking for a passphrase too) before SIGKILL."""
    script = tmp_path / "lingering"
    script.write_text(LINGERING)
    root = _start("sh", "-c", 'sh "$0" "$1" 3; :', str(script), str(tmp_path))
    try:
        _until((tmp_path / "ready-3").exists, "the lingering child never started")
        root.kill_tree()
        root.wait()
        termed = sorted(p.name for p in tmp_path.glob("termed-*"))
        assert termed == ["termed-0", "termed-1", "termed-2", "termed-3"], "a late process got no SIGTERM"
        assert _running(str(script).encode()) == [], "a process started during the kill outlived it"
    finally:
        _end(_running(str(script).encode()))


INTERRUPTED = """import os, sys, time
from git_hn.store import process
token = sys.argv[1]
root = process.popen(["sh", "-c", "trap '' TERM; for i in 1 2 3 4 5 6 7 8 9 10; do sleep %s & done; wait"
                      % token], stdin=process.DEVNULL, stdout=process.DEVNULL, stderr=process.DEVNULL)
def below():
    found = 0
    for name in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % name, "rb") as fh:
                found += fh.read().rsplit(b")", 1)[1].split()[1] == str(root.pid).encode()
        except (OSError, IndexError):
            pass
    return found
while below() < 10:
    time.sleep(0.01)
print(root.pid, flush=True)
root.kill_tree()
time.sleep(60)
"""


def _stopped(token: bytes) -> list[int]:
    """The processes whose command line holds ``token`` that are stopped (state T)."""
    found = []
    for pid in _running(token):
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"T":
                    found.append(pid)
        except (OSError, IndexError):
            continue
    return found


@pytest.mark.parametrize("delay", [0, 0.002, 0.01, 0.1, 0.5, 0.52])
def test_git_hn_killed_while_it_kills_a_tree_leaves_nothing_stopped(delay):
    """A review: git-hn stopped the tree (SIGSTOP) before each round; SIGKILLed meanwhile (or ended
    by a signal it does not catch), it left the tree stopped for good, a git maybe holding a
    ``*.lock``. git-hn is killed here at several points of the kill, and at once if any process of
    the tree shows stopped."""
    token = f"1000{os.getpid() % 1000:03d}{int(delay * 1000):03d}"
    killer = subprocess.Popen([sys.executable, "-c", INTERRUPTED, token], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE)
    try:
        assert killer.stdout.readline().strip(), "the tree was never started"
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline and not _stopped(token.encode()):
            time.sleep(0.0005)
        killer.kill()
        killer.wait()
        time.sleep(0.1)
        assert _stopped(token.encode()) == [], "git-hn killed during a kill left processes stopped"
    finally:
        killer.kill()
        killer.wait()
        killer.stdout.close()
        _end(_running(token.encode()))  # (what runs on, ignoring SIGTERM: SIGKILL ends it, stopped or not)


def test_a_kill_cut_short_by_an_exception_kills_what_it_holds():
    """git-hn interrupted (Ctrl-C; ``sync`` turns SIGTERM into an exception too) while the tree has
    its time to end on SIGTERM: what ignores SIGTERM is killed on the way out, not left running."""
    token = f"1001{os.getpid() % 1000:03d}"
    killer = subprocess.Popen([sys.executable, "-c", INTERRUPTED, token], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert killer.stdout.readline().strip(), "the tree was never started"
        time.sleep(0.1)
        killer.send_signal(signal.SIGINT)
        assert killer.wait(10) != 0
        _until(lambda: _running(token.encode()) == [], "the tree ran on after the interrupted kill", 2)
    finally:
        killer.kill()
        killer.wait()
        killer.stdout.close()
        _end(_running(token.encode()))


# this run's own durations: the cleanup ends its sleeps by command line, and a run beside it (another
# checkout's suite on the same machine) had its unrelated process killed by a plain "sleep 1000"
UNRELATED, TREE_SLEEP = f"1002{os.getpid() % 1000:03d}", f"1003{os.getpid() % 1000:03d}"


def _reuse_pid(pid: int) -> subprocess.Popen | None:
    """An unrelated process given ``pid`` (the kernel's next process ID set below it), or None
    when other processes kept taking it first. Started two clock ticks after the call at least, so
    that its start time (``/proc``'s, in ticks) is never the ended process's, as a real reuse's
    never is (the whole ID space wraps first). In the test's own process group, so that nothing
    signalling a stale group of that ID elsewhere (another worker's) reaches it. (One CI run with
    the suite's two workers saw this process get SIGTERM; a reuse within one tick, which no start
    time tells apart, and a stale group signal are the two ways found, not proven.)"""
    time.sleep(2 / os.sysconf("SC_CLK_TCK"))
    for _ in range(20):
        if not os.path.exists(f"/proc/{pid}"):
            with open("/proc/sys/kernel/ns_last_pid", "w") as fh:
                fh.write(str(pid - 1))
            other = subprocess.Popen(["sleep", UNRELATED])
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
                  f'exec sleep {TREE_SLEEP}\' "$0" "$1"; :', str(inner), str(fifo))
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
        _end(_running(f"sleep\0{TREE_SLEEP}\0".encode()))  # (the shell's, killed with it already: its ID)


PROMPTING_SSH = """#!/bin/sh
# OpenSSH asking for a key's passphrase (readpassphrase(3)): echo off on /dev/tty, put back on a
# signal it can catch and after the answer (none comes here); SIGKILL cannot be caught
if [ "$1" = "-G" ]; then exit 1; fi
exec 3<>/dev/tty || exit 255
saved=$(stty -g <&3)
trap 'stty "$saved" <&3; exit 130' INT TERM HUP QUIT PIPE
printf "Enter passphrase for key: " >&3
stty -echo <&3
read -r pass <&3
stty "$saved" <&3
"""

AT_A_TERMINAL = """import os, pty, sys
pid, fd = pty.fork()  # the command in a session of its own, the pty its terminal
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
"""

TIMED_OUT = """import sys
from git_hn.errors import GitError
from git_hn.store.git import Git
try:
    Git(sys.argv[1], timeout=1).run(["ls-remote", "localhost:/nowhere.git"])
except GitError as exc:
    print(exc.message)
"""


def test_a_call_timed_out_at_a_passphrase_prompt_leaves_the_terminal_echoing(repo, tmp_path):
    """A review: ``git hn sync`` past ``hn.syncStallTimeout`` while ssh asked for a passphrase
    left the user's terminal ``-echo`` (ssh was killed with SIGKILL, which it cannot catch)."""
    ssh = tmp_path / "prompting-ssh"
    ssh.write_text(PROMPTING_SSH)
    ssh.chmod(0o755)
    script = f'"{sys.executable}" -c \'{TIMED_OUT}\' "{repo}"; stty -a'
    out = subprocess.run([sys.executable, "-c", AT_A_TERMINAL, "sh", "-c", script],
                         env={**os.environ, "GIT_SSH_COMMAND": str(ssh)}, capture_output=True,
                         timeout=60).stdout.decode(errors="replace")
    try:
        assert "Enter passphrase for key: " in out and "git ls-remote timed out" in out, out
        settings = out.rsplit("timed out", 1)[1].replace(";", " ").split()
        assert "echo" in settings and "-echo" not in settings, out
    finally:
        _end(_running(str(ssh).encode()))
