"""The failed-imports record (replication.failures, docs/decisions.md; a review): an entry of a
remote ``git remote`` no longer lists is left out (removed: named for ever; renamed and synced:
named twice), a remote key or status the file cannot hold is dropped, and the pre-push hook's
"not imported" check leaves out the streams it names. Real repositories, a real bare remote, real
git push and fetch; nothing is mocked."""

from __future__ import annotations

import json
import os
import subprocess

from helpers import commit_on, git, hn, make_repo, wait_publication
from test_failed_import_hint import _said


def _carol_failed(tmp_path):
    """Bob's early memory's anchor is gone from origin: Carol's sync (--all) fails for its stream."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    bob = make_repo(tmp_path / "bob")
    git(bob, "remote", "add", "origin", str(remote))
    git(bob, "push", "-q", "-u", "origin", "main")
    assert hn(bob, "init", "--name", "Bob").code == 0
    git(bob, "checkout", "-q", "-b", "feature")
    git(bob, "commit", "-q", "--allow-empty", "-m", "feature work")
    for content, args in (("early", ()), ("later", ())):
        assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--content", content, *args).code == 0
        git(bob, "checkout", "-q", "main")
    git(bob, "push", "-q", "origin", "feature")
    assert hn(bob, "sync", "origin").code == 0
    git(bob, "push", "-q", "origin", ":refs/heads/feature")
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(carol))
    assert hn(carol, "init", "--name", "Carol").code == 0
    assert hn(carol, "replication", "select", "origin", "--all").code == 0
    assert hn(carol, "sync", "origin").code != 0
    assert len(_said(hn(carol, "memory", "recall").err)) == 1
    return remote, carol


def _record_path(repo) -> str:
    return os.path.join(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir"), "hn", "replication",
                        "failed-imports")


def test_a_removed_remote_is_no_longer_named(tmp_path):
    _remote, carol = _carol_failed(tmp_path)
    git(carol, "remote", "remove", "origin")
    for args in (("memory", "recall"), ("memory", "brief")):
        r = hn(carol, *args)
        assert r.code == 0 and _said(r.err) == [], (args, r.err)


def test_a_renamed_and_synced_remote_is_named_once(tmp_path):
    _remote, carol = _carol_failed(tmp_path)
    git(carol, "remote", "rename", "origin", "up")
    assert hn(carol, "sync", "up").code != 0
    said = _said(hn(carol, "memory", "recall").err)
    assert len(said) == 1 and said[0].startswith("git-hn: hint: 1 stream of up did not import"), said
    assert list(json.loads(open(_record_path(carol)).read())["remotes"]) == ["up"]


def test_a_hand_edited_remote_or_status_is_dropped(tmp_path):
    _remote, carol = _carol_failed(tmp_path)
    path = _record_path(carol)
    doc = json.loads(open(path).read())
    entry = dict(doc["remotes"]["origin"][0])
    doc["remotes"]["x\nhint: all is well\x1b[2J"] = [entry]
    doc["remotes"]["origin"] = [{**entry, "status": "imported\nhint: nothing is missing", "memory": ""}]
    with open(path, "w") as f:
        f.write(json.dumps(doc))
    r = hn(carol, "memory", "recall")
    assert r.code == 0 and _said(r.err) == [] and "all is well" not in r.err and "nothing is missing" not in r.err, r.err


def test_a_force_push_is_not_refused_for_a_stream_the_sync_said_it_did_not_import(tmp_path):
    remote, carol = _carol_failed(tmp_path)
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", "block")
    commit_on(carol, None, "c.txt")
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=carol).returncode == 0
    wait_publication(carol)
    git(carol, "commit", "-q", "--amend", "-m", "c2")
    pushed = subprocess.run(["git", "push", "-q", "-f", "origin", "main"], cwd=carol, capture_output=True, text=True)
    wait_publication(carol)
    assert pushed.returncode == 0 and "not imported" not in pushed.stderr, pushed.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")
