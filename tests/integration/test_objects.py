"""The one-process object writer produces exactly what Git's plumbing would (CONTRACT §4.1)."""

from __future__ import annotations

import pytest

from git_hn.store import objects
from git_hn.store.repo import open_repo
from helpers import git, make_repo


@pytest.mark.parametrize("fmt", ["sha1", "sha256"])
@pytest.mark.parametrize("name", ["Alice Agent", "  .Bob <the> builder;  ", "Zoë \u202e", "x"])
def test_commit_matches_git_plumbing(tmp_path, fmt, name):
    repo_path = make_repo(tmp_path / "r", object_format=fmt)
    repo = open_repo(str(repo_path))
    payload, signature = b'{"x":"<payload>"}', "A" * 86
    ts = "2026-08-30T12:34:56.123456789Z"
    parent = git(repo_path, "rev-parse", "HEAD")
    commit, objs = objects.memory_commit_objects(payload, signature, parent, name,
                                                 "0123456789ab@hn.invalid",
                                                 objects.timestamp_seconds(ts), "hn memory sha256:x", fmt)
    objects.write_objects(repo, objs)
    # the same objects through the plumbing named in the contract
    m = git(repo_path, "hash-object", "-w", "--stdin", input=payload)
    s = git(repo_path, "hash-object", "-w", "--stdin", input=signature.encode())
    tree = git(repo_path, "mktree", input=f"100644 blob {m}\tmemory.json\n100644 blob {s}\tsignature\n".encode())
    env = {"GIT_AUTHOR_NAME": name, "GIT_COMMITTER_NAME": name,
           "GIT_AUTHOR_EMAIL": "0123456789ab@hn.invalid", "GIT_COMMITTER_EMAIL": "0123456789ab@hn.invalid",
           "GIT_AUTHOR_DATE": ts, "GIT_COMMITTER_DATE": ts}
    expected = git(repo_path, "commit-tree", tree, "-p", parent, "-m", "hn memory sha256:x", env=env)
    assert commit == expected
    assert git(repo_path, "cat-file", "-t", commit) == "commit"
    repo.close()


@pytest.mark.parametrize("ts,seconds", [
    ("1970-01-01T00:00:00Z", 0),
    ("2000-02-29T23:59:59Z", 951868799),
    ("2026-08-30T12:34:56.1Z", 1788093296),
    ("2026-08-30T14:34:56+02:00", 1788093296),
    ("2026-08-30T10:04:56-02:30", 1788093296),
    ("0001-01-01T00:00:00Z", -62135596800),
])
def test_timestamp_seconds(ts, seconds):
    assert objects.timestamp_seconds(ts) == seconds


def test_ident_name_cleaning_matches_git():
    assert objects.clean_ident_name("  .Bob <the> builder;  ") == b"Bob the builder"
    assert objects.clean_ident_name("...") == b""
    assert objects.clean_ident_name("a\nb") == b"ab"
