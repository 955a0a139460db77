"""A command that waits for a lock another git-hn process holds says so, once (f141,
docs/decisions.md): a ``recall`` during an ``index rebuild`` waited up to two minutes, a push
during a sync some seconds, a ``record`` behind its stream's lock up to ten, with no word. Once
a wait has lasted ``progress.SAY_AFTER`` (a second), a terminal's stderr gets one line naming
what the lock guards and, where Linux lists it, the holder's process ID; stderr that is not a
terminal gets nothing, as progress does not. Real repositories, real processes on a real
pseudo-terminal, the locks held as another git-hn holds them (``flock`` on their files, from this
test's process, whose ID is then the holder's)."""

from __future__ import annotations

import fcntl
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

from helpers import (commit_on, git, hn, one_identity_in_two_clones, read_terminal, record_doc, record_id,
                     shared_remote, wait_publication)

WAITING = "git-hn: waiting for another git-hn process"
STATE = f"{WAITING} (pid {os.getpid()}) that holds the memory state..."
STREAM = f"{WAITING} (pid {os.getpid()}) that holds this memory stream..."


class Held:
    """The ``flock`` of the lock file at ``path`` held (exclusive) by this process until
    ``release()``, as a git-hn rebuilding the state or recording to a stream holds it."""

    def __init__(self, path: Path):
        self.fd = os.open(str(path), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _state_lock(repo) -> Path:
    return Path(repo) / ".git" / "hn" / "locks" / "state.lock"


def _terminal_env() -> dict:
    return {**{k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")},
            "TERM": "xterm-256color"}


def _until_said(cwd, argv: list[str], held: Held, said: str = WAITING, out_too: bool = False, env=None):
    """Run ``argv`` with its stderr on a real pseudo-terminal (its stdout too with ``out_too``,
    else a pipe); once ``said`` has shown on the terminal, ``held`` is released. Returns (exit
    status, what the terminal showed with CRLF as LF, stdout). Fails if the command writes nothing
    for 30 s (the lock held all the while: the line never came)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stderr=slave,
                            stdout=slave if out_too else subprocess.PIPE, env={**_terminal_env(), **(env or {})})
    os.close(slave)
    try:
        shown = read_terminal(master, proc, 30, lambda shown: held.release() if said.encode() in shown else None)
    finally:
        held.release()
    out = b"" if out_too else proc.stdout.read()
    return proc.wait(60), shown.decode("utf-8", "replace").replace("\r\n", "\n"), out.decode("utf-8", "replace")


def _waiting_at(pid: int, lock: Path) -> None:
    """Until process ``pid`` has the lock file open (it waits for it then: the lock is held)."""
    target = str(lock.resolve())
    for _ in range(3000):
        fds = Path(f"/proc/{pid}/fd")
        try:
            if any(os.readlink(fds / fd) == target for fd in os.listdir(fds)):
                return
        except OSError:
            pass
        time.sleep(0.01)
    raise AssertionError(f"process {pid} never opened {lock}")


def _hn_argv(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "git-hn"), *args]


def test_a_recall_on_a_terminal_says_once_that_it_waits_for_the_state_and_one_on_a_pipe_says_nothing(inited):
    """(a) and (b): two recalls while another git-hn holds the state's lock; the one whose stderr
    is a pipe started waiting first, so it waited at least as long as the terminal's, which says
    so; once the lock is released both answer, and the pipe's stderr has no waiting line."""
    memory = record_id(inited, content="kept in the state")
    held = Held(_state_lock(inited))
    piped = subprocess.Popen(_hn_argv("memory", "recall", "--include-untrusted"), cwd=inited,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _waiting_at(piped.pid, _state_lock(inited))
        code, shown, out = _until_said(inited, _hn_argv("memory", "recall", "--include-untrusted"), held)
        piped_out, piped_err = piped.communicate(timeout=60)
    finally:
        held.release()
        if piped.poll() is None:
            piped.kill()
    assert code == 0, shown
    assert shown.count(WAITING) == 1, shown
    assert shown.splitlines()[0] == STATE, shown
    assert memory in out  # the answer, after the wait
    assert piped.returncode == 0, piped_err
    assert WAITING.encode() not in piped_err and b"waiting" not in piped_err, piped_err
    assert memory.encode() in piped_out


def test_a_push_with_hooks_on_a_terminal_says_once_that_its_hook_waits_for_the_state(tmp_path):
    """(c) A push whose pre-push hook checks the memory anchored on what it pushes, while another
    git-hn holds the state's lock (an index rebuild, a sync's promotion): its terminal shows the
    line once, and the push goes on once the lock is released."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    record_id(alice, content="anchored on main")
    assert hn(alice, "hooks", "install").code == 0
    commit_on(alice, None, "b.txt")
    code, shown, _out = _until_said(alice, ["git", "push", "origin", "main"], Held(_state_lock(alice)),
                                    out_too=True)
    wait_publication(alice)
    assert code == 0, shown
    assert shown.count(WAITING) == 1, shown
    assert STATE in shown.splitlines(), shown
    assert git(alice, "rev-parse", "main") == git(alice, "rev-parse", "origin/main")


def test_a_record_on_a_terminal_says_once_that_it_waits_for_its_stream(inited):
    """(d) A record while another git-hn records to the same stream (its stream lock held): the
    line names the stream's lock, and the record is signed once the lock is released."""
    record_id(inited, content="the first")
    (lock,) = (Path(inited) / ".git" / "hn" / "locks").glob("memory-*.lock")
    before = git(inited, "for-each-ref", "--format=%(objectname)", "refs/hn/memory/")
    code, shown, out = _until_said(inited, _hn_argv("memory", "record", "--kind", "decision", "--at", "HEAD",
                                                    "--applies", "descendants", "--content", "the second"),
                                   Held(lock))
    assert code == 0, shown
    assert shown.count(WAITING) == 1, shown
    assert shown.splitlines()[0] == STREAM, shown
    assert out.startswith("Memory: sha256:"), out
    assert git(inited, "for-each-ref", "--format=%(objectname)", "refs/hn/memory/") != before



def test_a_fetch_whose_hook_imports_on_a_terminal_says_once_that_it_waits_for_the_stream(tmp_path):
    """(e) The fetch-side hook (reference-transaction) imports what the fetch brought: the other
    clone's memory on the stream this clone's identity (the same, moved with ``identity export``)
    records to, whose lock a ``record`` here holds. The import waits for it (``serial.own_streams``),
    as Git waits for the hook; the terminal says so once, and the memory is imported after."""
    _remote, a, b = one_identity_in_two_clones(tmp_path)
    doc = record_doc(a, content="recorded in the first clone")
    assert hn(a, "sync").code == 0
    commit_on(a, None, "c.txt")
    git(a, "push", "-q", "origin", "main")  # (the fetch moves origin/main: the hook runs)
    assert hn(b, "hooks", "install").code == 0
    locks = Path(b) / ".git" / "hn" / "locks"
    locks.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = locks / f"memory-{doc['actor']}-{doc['stream'][len('sha256:'):]}.lock"
    code, shown, _out = _until_said(b, ["git", "fetch", "origin"], Held(lock), said=STREAM, out_too=True)
    assert code == 0, shown
    assert shown.count(WAITING) == 1, shown
    assert doc["memoryId"] in hn(b, "memory", "recall", "--include-untrusted").out


def test_a_sync_on_a_terminal_shows_its_wait_for_the_state_on_its_progress_line(tmp_path):
    """``sync`` draws its own progress line on a terminal (it does not listen as other commands
    do): a wait for the state's lock, which another git-hn holds, shows on that line (it sat on
    "measure" for up to two minutes, unsaid); once the lock is released the sync imports."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    memory = record_id(alice, content="published by Alice")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    lock = _state_lock(bob)
    lock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    said = f"waiting for another git-hn process (pid {os.getpid()}) that holds the memory state"
    code, shown, _out = _until_said(bob, _hn_argv("sync"), Held(lock), said=said, env={"COLUMNS": "200"})
    assert code == 0, shown
    assert said in shown, shown
    assert memory in hn(bob, "memory", "recall", "--include-untrusted").out
