"""A sync stopped by a signal leaves no ssh behind (a review of F67): git-hn's Git processes
that may contact a remote run in a session of their own (no terminal, so no passphrase prompt),
which a terminal's Ctrl-C no longer reaches; killing Git alone left its ssh running under init,
for good against a server that never answers.

No sshd: "ssh" is a stand-in that starts a process of its own (as ssh's ProxyCommand, or ssh
itself under ``sh -c``) and waits, as ssh does for a server that accepted the connection and
never answered. Git and git-hn are real; git-hn gets the SIGINT the terminal would send it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from helpers import git, hn, make_repo

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="the stand-in's processes are read in /proc")

STAND_IN = """#!/bin/sh
sleep 300 &
echo "$$ $!" >> "$0.pids"
wait
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie does not: it has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_sync_kills_the_ssh_it_started(tmp_path: Path, bare_remote, stop):
    remote = bare_remote("team.git")
    repo = make_repo(tmp_path / "bob")
    assert hn(repo, "init", "--name", "Bob").code == 0
    git(repo, "remote", "add", "origin", f"ssh://localhost{remote}")
    ssh = tmp_path / "wedged-ssh"
    ssh.write_text(STAND_IN)
    ssh.chmod(0o755)
    pids = Path(f"{ssh}.pids")
    env = {**os.environ, "GIT_SSH_COMMAND": str(ssh)}
    proc = subprocess.Popen([shutil.which("git-hn") or "git-hn", "sync", "origin"], cwd=repo, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not pids.exists() or not pids.read_text().endswith("\n"):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the sync never started ssh"
            time.sleep(0.02)
        started = [int(p) for p in pids.read_text().split()]
        proc.send_signal(stop)
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode != 0, err
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [p for p in started if _alive(p)], f"left running after the sync ended ({proc.returncode}): {err!r}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for p in (int(p) for p in pids.read_text().split()) if pids.exists() else ():
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def test_the_commands_end_stops_only_git_that_may_contact_a_remote():
    """A review of bdc8201: the command's end killed every child started in a session of its own,
    the detached ``git pack-refs`` too, which left ``packed-refs.lock`` (or a loose ref's lock)
    behind and every later ref deletion failing. Only a Git run with the remote's environment
    (``transport.remote_env``: ``GIT_ALLOW_PROTOCOL``) is stopped; and children that ended before
    they were reaped are reaped as the set is read (it raised "Set changed size during
    iteration")."""
    from git_hn.store import process_tree
    from git_hn.store.process import DEVNULL, popen

    quiet = {"stdin": DEVNULL, "stdout": DEVNULL, "stderr": DEVNULL, "start_new_session": True}
    local = popen(["sleep", "30"], **quiet)
    remote = popen(["sleep", "30"], env={**os.environ, "GIT_ALLOW_PROTOCOL": "file"}, **quiet)
    ended = [popen(["true"], env={**os.environ, "GIT_ALLOW_PROTOCOL": "file"}, **quiet) for _ in range(3)]
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)}
    try:
        time.sleep(0.3)  # (the three ``true`` have ended, none reaped yet)
        process_tree.stop_sessions()
        assert remote.wait(timeout=10) == -signal.SIGKILL
        assert local.poll() is None  # (a detached Git outlives the command, as ``Git.detach`` says)
        assert all(child.returncode == 0 for child in ended)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        local.kill()
        local.wait()
