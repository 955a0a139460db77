"""A local remote this user may not read is said so wherever Git meets it, not as a path with no
Git repository (f160 for the advertisement; f165 for a push URL's listing, the quarantine's fetch
and the publication's push). Git says of such a path only that it "does not appear to be a git
repository"; each of these said "no Git repository is at the remote's URL", sending the user to
check a URL that is right. Real repositories and real file modes, run as a user they refuse
(``as_a_user_files_refuse``: for root, through ``setpriv`` without the capabilities that override
them). The permissions change between the advertisement and the fetch or the push through a ``git``
earlier on ``PATH`` that closes the repository and then runs Git (a shared repository whose owner
tightened it mid-sync); nothing of the user's changes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from helpers import Result, git, hn, refs_snapshot, shared_remote
from test_errors_that_help import as_a_user_files_refuse

UNREADABLE = ("the remote's URL is a path on this machine that this user may not read (check the permissions of that "
              "directory and the ones above it with ls -ld, or ask their owner)")


def _closing_git(tmp_path, shut, when: str):
    """A directory holding a ``git`` that makes ``shut`` unreadable (mode 000) when its arguments
    match the shell pattern ``when``, then runs the real Git."""
    bin_dir = tmp_path / "closing-bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\ncase " $* " in {when}) chmod 000 "{shut}";; esac\n'
                       f'exec "{shutil.which("git")}" "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir


def _sync_as_a_user(repo, bin_dir, shut, *args: str) -> Result:
    """``git-hn sync <args>`` in ``repo`` as a user file modes refuse, ``bin_dir`` first on PATH (not
    through ``git hn``: Git puts its own directory first);
    ``shut`` readable again after."""
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    try:
        r = subprocess.run(as_a_user_files_refuse(["git-hn", "sync", *args]), cwd=repo, capture_output=True,
                           env=env)
    finally:
        shut.chmod(0o755)
    return Result(r.returncode, r.stdout, r.stderr)


def test_a_push_url_this_user_may_not_read_is_said_to_refuse_it_not_to_lack_a_repository(tmp_path):
    """A remote that fetches from a readable repository and pushes to one this user may not read:
    its publication said the push URL had no Git repository. Nothing is published, nothing
    changes."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    shut = tmp_path / "shut.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote), str(shut))
    git(alice, "remote", "set-url", "--push", "origin", str(shut))
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's").code == 0
    before, theirs = refs_snapshot(alice), refs_snapshot(shut)
    shut.chmod(0o000)
    r = _sync_as_a_user(alice, tmp_path / "nowhere", shut)
    assert r.code == 1 and ("replication memory publication failed for remote origin at its push URL (git remote "
                            f"get-url --push origin): {UNREADABLE}; nothing was published there; git hn sync origin "
                            "asks it again\n") in r.err, r.err
    assert "no Git repository" not in r.err, r.err
    assert refs_snapshot(alice) == before and refs_snapshot(shut) == theirs


def test_a_push_to_a_path_this_user_may_not_read_is_said_to_refuse_it_not_to_lack_a_repository(tmp_path):
    """The push URL was readable when listed and is not when pushed to: the push's failure said
    "no Git repository is at the remote's URL". Nothing is published, nothing changes."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's").code == 0
    before, theirs = refs_snapshot(alice), refs_snapshot(remote)
    r = _sync_as_a_user(alice, _closing_git(tmp_path, remote, '*" push "*--porcelain*'), remote)
    assert r.code == 1 and f"replication memory publication failed for remote origin: {UNREADABLE}" in r.err, r.err
    assert "no Git repository" not in r.err, r.err
    assert refs_snapshot(alice) == before and refs_snapshot(remote) == theirs


def test_a_fetch_from_a_path_this_user_may_not_read_is_said_to_refuse_it_not_to_lack_a_repository(tmp_path):
    """The remote was readable for the advertisement and is not for the stream's fetch into
    quarantine: its failure said "no Git repository is at the remote's URL". The remote is still
    said not reached (not the stream's fault), in the JSON outcome too; nothing is imported."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(alice, "replication", "select", "--all").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's").code == 0
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    before = refs_snapshot(bob)
    closing = _closing_git(tmp_path, remote, '*" fetch "*--stdin*')
    got = _sync_as_a_user(bob, closing, remote, "--json")
    out = json.loads(got.out)["outcomes"][0]
    assert out["diagnostic"].endswith(f"failed exact fetch from remote origin: {UNREADABLE}"), out
    r = _sync_as_a_user(bob, closing, remote)
    assert r.code == 1 and (f"{UNREADABLE}; its fetch from origin failed, not the stream: run git hn sync origin "
                            "again once it can be reached") in r.err, r.err
    assert "no Git repository" not in got.out + r.err, r.err
    assert refs_snapshot(bob) == before
