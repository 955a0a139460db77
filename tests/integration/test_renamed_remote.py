"""``git remote rename origin upstream`` under git-hn (a trial, ncS94 finding 7): Git renames the
remote and its tracking refs, and none of git-hn's records. The saved selection stayed under
``origin``, ``replication show upstream`` said ``saved: false``, and nothing was imported from
``upstream``. Now the reads and ``replication show`` say which sync moves it, and that sync moves it
(the same URL recorded), while a selection whose remote was never synced, or a remote with another
URL, is left alone. Real clones of a real bare remote, real ``git remote``."""

from __future__ import annotations

import json

from git_hn.core.selection import file_name
from helpers import git, git_processes, hn, record_id, shared_remote

HINT = ("the replication selection saved for origin, which is no remote any more, is upstream's (the same URL: "
        "git remote rename moves none of git-hn's records): git hn sync upstream moves it there and imports what it "
        "selects")


def _renamed(tmp_path, quiet_only: bool = False):
    """Alice's memory on the remote; Bob selected --all and synced it, then renamed origin."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    record_id(alice, content="alice's decision")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync").code == 0
    if quiet_only:  # (a clone of an earlier git-hn: only the quiet record holds the URL)
        assert hn(bob, "sync").code == 0  # (found up to date: leaves the quiet record)
        for path in (bob / ".git" / "hn" / "replication" / "urls").iterdir():
            path.unlink()
    git(bob, "remote", "rename", "origin", "upstream")
    return remote, alice, bob


def _selections(bob):
    return sorted(p.name for p in (bob / ".git" / "hn" / "replication" / "selections").iterdir())


def test_a_renamed_remotes_selection_is_named_by_the_reads_and_moved_by_its_sync(tmp_path):
    _remote, alice, bob = _renamed(tmp_path)
    for _ in range(2):  # (said by every read until it is moved)
        r = hn(bob, "memory", "recall", "--include-untrusted")
        assert r.code == 0 and HINT in r.err, r.err
    r = hn(bob, "replication", "show", "upstream")
    assert "saved: false" in r.out and "git hn sync upstream moves it here" in r.err, (r.out, r.err)
    newer = record_id(alice, content="alice's second decision")
    assert hn(alice, "sync").code == 0
    r = hn(bob, "sync", "upstream")
    assert r.code == 0, (r.out, r.err)
    assert ("Replication selection of origin moved to upstream: origin is no remote any more, and upstream has its "
            "URL (git remote rename moves none of git-hn's records)") in r.out, r.out
    assert "git for-each-ref --format='delete %(refname)' refs/hn/remotes/origin/ | git update-ref --stdin" in r.out
    assert _selections(bob) == ["dXBzdHJlYW0.json"]  # upstream's; origin's is gone
    shown = hn(bob, "replication", "show", "upstream").out
    assert "saved: true" in shown and "all: true" in shown, shown
    doc = json.loads(hn(bob, "memory", "recall", "--include-untrusted", "--json").out)
    assert newer in [m["id"] for m in doc["memories"]]
    r = hn(bob, "memory", "recall", "--include-untrusted")
    assert r.code == 0 and "no remote any more" not in r.err, r.err
    # the command the line names removes what was accepted under the old name
    listing = git(bob, "for-each-ref", "--format=delete %(refname)", "refs/hn/remotes/origin/")
    git(bob, "update-ref", "--stdin", input=(listing + "\n").encode())
    assert hn(bob, "memory", "index", "verify").code == 1  # (refs changed outside git-hn)
    assert newer in hn(bob, "memory", "recall", "--include-untrusted").out


def test_a_clone_that_recorded_only_a_quiet_record_is_recognised_too(tmp_path):
    _remote, _alice, bob = _renamed(tmp_path, quiet_only=True)
    r = hn(bob, "memory", "recall", "--include-untrusted")
    assert HINT in r.err, r.err
    assert "moved to upstream" in hn(bob, "sync", "upstream").out


def test_another_repository_under_the_new_name_gets_no_selection(tmp_path):
    """The old remote removed and another repository added: its URL differs, so nothing is said
    or moved (its own default applies). A guard: it cannot fail without the fix, before which
    nothing was ever said or moved."""
    remote, _alice, bob = _renamed(tmp_path)
    git(bob, "remote", "remove", "upstream")
    other = tmp_path / "other.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote), str(other))
    git(bob, "remote", "add", "fork", str(other))
    r = hn(bob, "memory", "recall", "--include-untrusted")
    assert "no remote any more" not in r.err, r.err
    r = hn(bob, "sync", "fork")
    assert "moved to" not in r.out, r.out
    assert "b3JpZ2lu.json" in _selections(bob)


def test_a_selection_saved_before_its_remote_was_added_is_never_moved(tmp_path):
    """§9.2: ``replication select`` saves a selection for a remote that does not exist yet. No URL
    was ever recorded for it, so a remote added under another name does not take it. A guard: it
    cannot fail without the fix, before which nothing was ever moved."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    record_id(alice, content="x")
    assert hn(alice, "sync").code == 0
    assert hn(bob, "replication", "select", "team", "--all").code == 0
    git(bob, "remote", "add", "mirror", str(remote))
    assert "no remote any more" not in hn(bob, "memory", "recall").err
    assert "moved to" not in hn(bob, "sync", "mirror").out
    assert _selections(bob) == [file_name("team")]


def test_a_read_asks_git_nothing_more_once_the_remotes_are_checked(tmp_path, monkeypatch):
    """The check's cost: the first read after the remotes or selections changed asks ``git
    remote``; once it found nothing, a read whose configuration and selections did not change
    starts no Git process for it."""
    _remote, (_alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync").code == 0
    git(bob, "config", "remote.origin.note", "changed")  # (a change of .git/config: checked again)

    def asked(n):
        trace = tmp_path / f"trace{n}"
        trace.mkdir()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        assert hn(bob, "memory", "recall").code == 0
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        return [a for a in git_processes(trace) if a[:1] == ["remote"]]

    assert asked(1) == [["remote"]]
    assert asked(2) == []
