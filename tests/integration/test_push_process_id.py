"""The push's process ID (``HN_PUSH_PID``, which the pre-push wrapper sets from ``$PPID``, and the
publisher's last argument): one check, ``process_tree.is_pid``, for every reader. A review: the
pre-push took 10 digits that the publisher it started refused, so the memory was silently not
published (a ``.running`` marker left behind); 9999999999 reached ``os.pidfd_open`` (an uncaught
``OverflowError``) and 0 made the publisher wait its whole bound. Real repositories, a real bare
remote, real ``git hn`` processes."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from git_hn.store.process import wait_for_exit
from git_hn.store.process_tree import is_pid
from helpers import git, hn, shared_remote, wait_publication

PID_MAX = (1 << 31) - 1  # the largest pid_t


def test_what_a_process_id_is():
    assert [is_pid(w) for w in ("1", "123", "1234567890", str(PID_MAX))] == [True] * 4
    assert not any(is_pid(w) for w in ("", "0", "00", "0123", "²", "-1", "1 ", " 1", "+1", str(PID_MAX + 1),
                                       "9999999999", "12345678901", "1" * 4301))


def _unpublished(tmp_path):
    """Alice's clone, with an unpublished memory anchored on a pushed commit, and the pre-push
    hook's input for a push of a further commit: (remote, clone, input, the remote's memory refs)."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on main").code == 0
    old = git(a, "rev-parse", "HEAD")
    git(a, "commit", "-q", "--allow-empty", "-m", "second")
    line = f"refs/heads/main {git(a, 'rev-parse', 'HEAD')} refs/heads/main {old}\n"
    return remote, a, line


def _pre_push(a, remote, line, pid):
    proc = subprocess.run(["git", "hn", "hooks", "run", "pre-push", "origin", str(remote)], cwd=a, input=line,
                          capture_output=True, text=True, env={**os.environ, "HN_PUSH_PID": pid})
    wait_publication(a)
    return proc


def _published(remote) -> str:
    return git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")


def test_a_ten_digit_push_process_id_the_pre_push_takes_the_publisher_takes_too(tmp_path):
    """``HN_PUSH_PID=1234567890`` (no such process): the publisher the pre-push starts waits for
    nothing and publishes, where it refused its argument and published nothing, silently."""
    remote, a, line = _unpublished(tmp_path)
    proc = _pre_push(a, remote, line, "1234567890")
    assert proc.returncode == 0, proc.stderr
    deadline = time.monotonic() + 30
    while not _published(remote) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _published(remote), proc.stderr
    assert not [p for p in (a / ".git" / "hn" / "replication").iterdir() if p.name.endswith(".running")]


@pytest.mark.parametrize("pid", ["9999999999", "0", "0123", "²", "abc"])
def test_a_push_process_id_that_is_none_is_said_and_nothing_is_published(tmp_path, pid):
    """Said in one line, as the publisher's refusal of the same argument is, and nothing is
    published (the push is refused: its memory would go out before it, or never)."""
    remote, a, line = _unpublished(tmp_path)
    proc = _pre_push(a, remote, line, pid)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("git-hn: usage: git hn hooks run "), proc.stderr
    assert f'HN_PUSH_PID "{pid}" is no process ID' in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr
    time.sleep(0.5)
    assert not _published(remote)
    assert not (a / ".git" / "hn" / "replication").is_dir() or \
        not [p for p in (a / ".git" / "hn" / "replication").iterdir() if p.name.endswith(".running")]
    again = subprocess.run(["git", "hn", "hooks", "run", "publish", "origin", pid], cwd=a, input="",
                           capture_output=True, text=True)
    assert again.returncode == 1 and again.stderr.count("\n") == 1, again.stderr
    assert "the publisher's last argument is the push's process ID" in again.stderr, again.stderr


def test_waiting_for_no_process_returns_at_once():
    """``wait_for_exit`` given what no system call takes (past a C int: ``OverflowError``) or 0
    (``kill(0, 0)`` is this process's own group, which never ends) returns at once."""
    start = time.monotonic()
    for pid in (9999999999, 1 << 63, 0, -1):
        wait_for_exit(pid, 5)
    assert time.monotonic() - start < 1
