"""Team workflows (issue 12): what a team meets in everyday Git use, with real repositories and a
real bare remote: publication that an invalid stream does not block, readable sync results,
stale locks, odd refs and commits Git itself would refuse to transfer."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from helpers import actor_of, git, hn, make_repo

OTHER_STREAM = "sha256:" + "ab" * 32


def _alice(tmp_path, bare_remote):
    remote = bare_remote("team.git")
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", remote.as_uri())
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    return remote, alice


def _record(repo, content, *extra) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content, *extra)
    assert r.code == 0, r.err
    return r.json()


def test_an_invalid_local_stream_does_not_stop_the_valid_ones_from_being_published(tmp_path, bare_remote):
    """CONTRACT §9.13: the invalid stream is a phase error, and the other refs are still pushed."""
    remote, alice = _alice(tmp_path, bare_remote)
    good = _record(alice, "valid stream")
    _record(alice, "soon broken", "--stream", OTHER_STREAM)
    actor = actor_of(alice)
    bad_ref = f"refs/hn/memory/{actor}/{OTHER_STREAM.split(':')[1]}"
    git(alice, "update-ref", bad_ref, "HEAD")  # a code commit is not a memory chain
    r = hn(alice, "sync", "--json")
    assert r.code == 1
    assert r.err.strip().splitlines() == [
        "git-hn: publication phase failed after replication: replication memory publication failed for "
        "remote origin"], r.err
    doc = json.loads(r.out)
    assert doc["published"] == 1 and doc["error"].endswith("remote origin")
    on_remote = git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn")
    good_ref = f"refs/hn/memory/{actor}/{good['stream'].split(':')[1]}"
    assert on_remote.split() == [good_ref, git(alice, "rev-parse", good_ref).strip()]


@pytest.fixture(scope="module")
def module_scoped_home():
    """A fixture wider than one test runs before the per-test ``hermetic_git``; it must still
    see the suite's hermetic Git, not the machine's HOME (which may have no identity at all)."""
    email = subprocess.run(["git", "config", "--global", "--get", "user.email"], capture_output=True,
                           text=True).stdout.strip()
    return os.environ["HOME"], email


def test_module_scoped_fixtures_are_hermetic(module_scoped_home):
    home, email = module_scoped_home
    assert email == "test@example.invalid"
    assert os.environ.get("GIT_CONFIG_NOSYSTEM") == "1"
    assert "session-home" in home
