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


def test_a_stale_ref_lock_is_named_with_what_to_do(inited):
    """A ``<ref>.lock`` left by a killed Git process: retrying never helps, so say which file."""
    first = _record(inited, "before the crash")
    ref = f"refs/hn/memory/{actor_of(inited)}/{first['stream'].split(':')[1]}"
    lock = inited / ".git" / (ref + ".lock")
    lock.write_bytes(b"")
    before = git(inited, "for-each-ref", "refs/hn")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "after the crash")
    assert r.code == 1 and r.out == ""
    assert r.err == (f"git-hn: append memory stream {ref}: the lock file {lock} exists: another Git "
                     "process is updating this ref, or one was killed; if no Git process is running in "
                     "this repository, remove that file and retry\n")
    assert git(inited, "for-each-ref", "refs/hn") == before
    lock.unlink()
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "after the crash").code == 0


def test_a_memory_ref_that_is_a_symbolic_ref_loop_is_reported_not_silently_left_out(inited):
    """Git's listing skips a symbolic ref that points at itself; recall would silently omit its
    stream. Every read names it, with the command that removes it."""
    first = _record(inited, "a memory")
    loop = f"refs/hn/memory/{actor_of(inited)}/{'cd' * 32}"
    git(inited, "symbolic-ref", loop, loop)
    assert loop not in git(inited, "for-each-ref", "refs/hn")
    expected = (f"git-hn: memory ref {loop} is unreadable (a symbolic ref loop or a broken value), so Git "
                f"does not list it; remove it with: git update-ref -d --no-deref {loop}\n")
    for args in (("recall", "--json"), ("brief", "--json"), ("show", first["memoryId"]), ("digest", "--json")):
        r = hn(inited, "memory", *args)
        assert (r.code, r.out, r.err) == (1, "", expected), args
    git(inited, "update-ref", "-d", "--no-deref", loop)  # the printed repair works
    r = hn(inited, "memory", "recall", "--json", "--include-untrusted")
    assert r.code == 0 and [m["id"] for m in r.json()["memories"]] == [first["memoryId"]]
