"""The store's word on a long wait for a lock (``progress.waiting``, ``lock.wait_for``, f141):
said once for each lock a command waits for, only to a listener, and naming the process that
holds the lock as Linux lists it. A real ``flock`` held by a real child process."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

import pytest

from git_hn.store import lock, progress

HOLD = ("import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n")


@pytest.fixture
def said(monkeypatch):
    """What a listener was told, as (what, pid); the command's record of what it said, empty."""
    told: list = []
    monkeypatch.setattr(progress, "_said", set())
    monkeypatch.setattr(progress, "_waited", None)
    monkeypatch.setattr(progress, "_listener", None)
    progress.listen(None, lambda what, pid: told.append((what, pid)))
    return told


def _held_by_child(path):
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "held\n"
    return child


def test_a_wait_is_said_once_for_each_lock_and_never_without_a_listener(said, monkeypatch):
    progress.waiting("the memory state", lambda: 7)
    progress.waiting("the memory state", lambda: 8)  # (a second wait for it in the same command)
    progress.waiting("this memory stream", lambda: None)
    assert said == [("the memory state", 7), ("this memory stream", None)]
    monkeypatch.setattr(progress, "_waited", None)
    asked = []
    progress.waiting("this remote's import", lambda: asked.append(1))
    assert asked == []  # nobody listens: the holder is not even looked for


def test_a_wait_is_said_only_once_it_lasts(said, monkeypatch):
    wait = progress.Wait("the memory state", lambda: None)
    wait.poll()
    assert said == []  # (``SAY_AFTER``, a second, has not passed)
    monkeypatch.setattr(progress, "SAY_AFTER", 0.0)
    wait.poll()
    wait.poll()
    assert said == [("the memory state", None)]
    progress.Wait(None, lambda: None).poll()  # a lock of no known purpose (``hooks install``'s directory)
    assert said == [("the memory state", None)]


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="the holder is named where Linux lists it")
def test_the_holder_of_a_lock_is_the_process_that_holds_it(tmp_path, said, monkeypatch):
    path = tmp_path / "locks" / "state.lock"
    path.parent.mkdir()
    path.write_bytes(b"")
    child = _held_by_child(path)
    try:
        fd = os.open(path, os.O_RDWR)
        try:
            assert lock.holder(fd) == child.pid
            monkeypatch.setattr(progress, "SAY_AFTER", 0.0)
            lock.wait_for(fd, str(path)).poll()
        finally:
            os.close(fd)
    finally:
        child.stdin.close()
        child.wait(10)
    assert said == [("the memory state", child.pid)]
    fd = os.open(path, os.O_RDWR)
    try:
        assert lock.holder(fd) is None  # released: no one to name
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert lock.holder(fd) is None  # this process is never the other
    finally:
        os.close(fd)


@pytest.mark.parametrize("name,what", [("state.lock", "the memory state"),
                                       ("memory-ab-cd.lock", "this memory stream"),
                                       ("import-0123.lock", "this remote's import"),
                                       ("publication-0123.lock", "this remote's publication"),
                                       ("accept.lock", "the acceptance of memories"),
                                       ("lost-0123.lock", "one of git-hn's locks")])
def test_each_lock_is_named_by_what_it_guards_in_fixed_words(tmp_path, said, monkeypatch, name, what):
    path = tmp_path / name
    path.write_bytes(b"")
    monkeypatch.setattr(progress, "SAY_AFTER", 0.0)
    fd = os.open(path, os.O_RDWR)
    try:
        lock.wait_for(fd, str(path)).poll()
    finally:
        os.close(fd)
    assert said == [(what, None)]
