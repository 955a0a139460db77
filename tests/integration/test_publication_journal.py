"""The publication journal (``store.given``): what each remote was given, kept apart from the
derived state, durable, compacted without losing a concurrent append, and never read as "nothing
was given" when damaged."""

from __future__ import annotations

import threading

import pytest

from git_hn.errors import LocalStateError
from git_hn.store import given
from git_hn.store.repo import open_repo
from helpers import make_repo

A, B = "a" * 40, "b" * 40


@pytest.fixture
def repo(tmp_path):
    r = open_repo(str(make_repo(tmp_path / "r")))
    yield r
    r.close()


def test_lines_are_appended_and_read_back(repo):
    assert given.read(repo) is None
    given.note(repo, "origin", {"refs/hn/memory/x/1": A, "refs/hn/memory/x/2": B})
    given.note(repo, "backup", {"refs/hn/memory/x/1": A})
    assert given.read(repo) == [("origin", "refs/hn/memory/x/1", A), ("origin", "refs/hn/memory/x/2", B),
                                ("backup", "refs/hn/memory/x/1", A)]


def test_an_append_cut_short_by_a_crash_is_ignored_and_damage_raises(repo):
    given.note(repo, "origin", {"refs/hn/memory/x/1": A})
    with open(given.path(repo), "a") as fh:
        fh.write("origin refs/hn/memory/x/2 bbb")  # no newline: a crash mid-append
    assert given.read(repo) == [("origin", "refs/hn/memory/x/1", A)]
    with open(given.path(repo), "w") as fh:
        fh.write("origin refs/heads/main " + A + "\n")
    with pytest.raises(LocalStateError, match="is damaged"):
        given.read(repo)


def test_compaction_keeps_the_newest_tip_of_each_ref_and_loses_no_concurrent_append(repo, monkeypatch):
    monkeypatch.setattr(given, "COMPACT_AT", 2_000)  # compacted many times below
    errors = []

    def writer(remote):
        try:
            for i in range(150):
                given.note(repo, remote, {f"refs/hn/memory/x/{i % 7}": f"{i:040x}"})
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(r,)) for r in ("origin", "backup")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    newest = {}
    for remote, ref, head in given.read(repo):
        newest[(remote, ref)] = head
    for remote in ("origin", "backup"):
        for k in range(7):
            last = max(i for i in range(150) if i % 7 == k)
            assert newest[(remote, f"refs/hn/memory/x/{k}")] == f"{last:040x}"
