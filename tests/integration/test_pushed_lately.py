"""Sync's "up to date" right after a ``git push`` that published memory (``given.pushed_lately``).

A newcomer recorded a memory, pushed (the pre-push hook published it in the background), then
ran ``git hn sync``, which said "Synchronized with origin: up to date": true, and read as
"nothing was published". Now the line says that the push published those streams, and when,
for ten minutes after the push; a sync that published itself, an older push, another remote and
a record that cannot be trusted leave the bare words. Real repositories, a real bare remote,
real pushes with the hooks installed; the clock is moved by writing the record's times into the
past, through the file itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import (commit_on, fetch_here_push_there, git, hn, make_repo, push_urls_clone, shared_remote,
                     wait_publication)

UP_TO_DATE = "Synchronized with origin: up to date\n"
COPY = "Synchronized with origin: promoted 1 stream (origin's copy of your own: nothing new came in)\n"
PUSHED = "Synchronized with origin: up to date (your git push published 1 stream there less than a minute ago)\n"


def _record(repo, content: str) -> None:
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err


def _summary(repo) -> str:
    r = hn(repo, "sync")
    assert r.code == 0, r.err
    return r.out.splitlines(keepends=True)[-1]


def _memo(repo) -> Path:
    return Path(repo) / ".git" / "hn" / "replication" / "pushed-v0"


def _hooked(tmp_path, mode: str = "warn"):
    """Alice's clone of a bare remote, hooks installed, every stream selected, one memory
    published by a sync and imported back (so a later sync imports nothing of her own): (remote,
    alice)."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    git(alice, "config", "hn.prePush", mode)
    assert hn(alice, "replication", "select", "--all").code == 0
    _record(alice, "first")
    assert _summary(alice) == "Synchronized with origin: published 1 stream\n"
    assert _summary(alice) == COPY
    assert _summary(alice) == UP_TO_DATE  # (and the quiet record: the push's publisher imports its own back)
    return remote, alice


def _push(repo) -> None:
    git(repo, "push", "-q", "origin", "main")
    wait_publication(repo)


def test_a_sync_right_after_a_push_that_published_says_the_push_did(tmp_path):
    remote, alice = _hooked(tmp_path)
    commit_on(alice, None, "b.txt")
    _record(alice, "second, published by the push")
    _push(alice)
    local = git(alice, "for-each-ref", "--format=%(objectname)", "refs/hn/memory")
    assert git(remote, "for-each-ref", "--format=%(objectname)", "refs/hn/memory") == local  # (published)
    r = hn(alice, "sync")
    assert r.code == 0 and r.out.endswith(PUSHED), r.out
    assert hn(alice, "sync").out.endswith(PUSHED)  # (within the window: each sync says it)
    # --json is as it was: the same keys, the same counts
    doc = json.loads(hn(alice, "sync", "--json").out)
    assert set(doc) == {"version", "remote", "outcomes", "verifiedEvents", "promoted", "importedMemories",
                        "published"} and doc["published"] == 1 and doc["promoted"] == 0
    # the record: the remote, the ref, the tip and the time, private
    memo = _memo(alice)
    assert (memo.stat().st_mode & 0o777) == 0o600
    (line,) = memo.read_text().splitlines()
    name, ref, tip, when = line.split(" ")
    assert (name, f"{ref} {tip}") == ("origin", git(alice, "for-each-ref", "--format=%(refname) %(objectname)",
                                                      "refs/hn/memory")) and when.isdigit()
    _age(alice, 150)
    assert _summary(alice) == ("Synchronized with origin: up to date (your git push published 1 stream there "
                               "2 minutes ago)\n")
    _age(alice, 460)  # (ten minutes and a bit: the bare words)
    assert _summary(alice) == UP_TO_DATE


def _age(repo, seconds: int) -> None:
    memo = _memo(repo)
    rows = [line.rsplit(" ", 1) for line in memo.read_text().splitlines()]
    memo.write_text("".join(f"{rest} {int(when) - seconds}\n" for rest, when in rows))


def test_a_block_mode_push_that_published_in_its_hook_says_so_too(tmp_path):
    remote, alice = _hooked(tmp_path, "block")
    _record(alice, "anchored on a commit origin has: the hook publishes it before the push goes on")
    commit_on(alice, None, "b.txt")
    _push(alice)
    assert git(remote, "for-each-ref", "--format=%(objectname)", "refs/hn/memory") == \
        git(alice, "for-each-ref", "--format=%(objectname)", "refs/hn/memory")
    # (no background publisher imported its own memory back, as the next sync then does)
    assert _summary(alice) == COPY
    assert _summary(alice) == PUSHED


def test_what_a_sync_published_itself_or_a_newer_memory_is_not_said_to_be_the_push(tmp_path):
    remote, alice = _hooked(tmp_path)
    commit_on(alice, None, "b.txt")
    _record(alice, "published by the push")
    _push(alice)
    _record(alice, "then one more, published by sync")
    r = hn(alice, "sync")
    assert r.code == 0 and r.out.endswith("Synchronized with origin: published 1 stream\n"), r.out
    assert _summary(alice) == COPY
    assert _summary(alice) == UP_TO_DATE  # (the remote holds a tip no push gave it)


def test_a_record_that_cannot_be_trusted_says_nothing_more(tmp_path):
    remote, alice = _hooked(tmp_path)
    commit_on(alice, None, "b.txt")
    _record(alice, "published by the push")
    _push(alice)
    memo = _memo(alice)
    good = memo.read_bytes()
    for data in (b"junk\n", good + b"origin refs/hn/memory/x y 1\n", good.replace(b" ", b"  ", 1)):
        memo.write_bytes(data)
        assert _summary(alice) == UP_TO_DATE, data
    memo.write_bytes(good)
    assert _summary(alice) == PUSHED  # (the record as it was: said)
    _age(alice, -3600)  # a time to come (a clock set back, a file written by hand) is not "lately"
    assert _summary(alice) == UP_TO_DATE
    memo.write_bytes(good)
    memo.chmod(0o644)  # (not private)
    assert _summary(alice) == UP_TO_DATE
    memo.unlink()
    memo.symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_bytes(good)
    (tmp_path / "elsewhere").chmod(0o600)
    assert _summary(alice) == UP_TO_DATE
    # another remote's line says nothing of origin
    memo.unlink()
    memo.write_bytes(good.replace(b"origin ", b"backup ", 1))
    memo.chmod(0o600)
    assert _summary(alice) == UP_TO_DATE


def _fork(tmp_path, mode: str = "warn"):
    """Alice's clone fetching from upstream.git and pushing to fork.git (``set-url --push``), both
    holding main, hooks installed, every stream selected: (upstream, fork, alice)."""
    upstream, fork, alice = fetch_here_push_there(tmp_path)
    git(alice, "config", "hn.prePush", mode)
    assert hn(alice, "init", "--name", "Alice").code == 0
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "replication", "select", "--all").code == 0
    return upstream, fork, alice


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_a_push_to_a_push_url_is_said_as_that_push_url_not_there(tmp_path, mode):
    """f152 left it out: a remote that pushes elsewhere than it fetches (a fork) got no clause.
    The push went to the push URL, and sync fetches from the fetch URL, so "published there" would
    claim what the fetch URL holds; what is true is that the push URL holds it, which the sync
    asks it: said as "to origin's push URL". The record of such a push is kept under that URL's
    key, never under the remote's name, which says what the fetch URL was given."""
    upstream, fork, alice = _fork(tmp_path, mode)
    _record(alice, "anchored on a commit both have")
    commit_on(alice, None, "b.txt")
    _push(alice)
    mine = git(alice, "for-each-ref", "--format=%(objectname)", "refs/hn/memory")
    assert git(fork, "for-each-ref", "--format=%(objectname)", "refs/hn/memory") == mine
    assert git(upstream, "for-each-ref", "refs/hn/memory") == ""  # (nothing went to the fetch URL)
    (line,) = _memo(alice).read_text().splitlines()
    name, digest, _ref, _tip, _when = line.split(" ")
    assert name == "origin" and len(digest) == 16  # (the push URL's key: ``given_record.url_key``)
    said = ("Synchronized with origin: up to date (your git push published 1 stream to origin's push URL "
            "less than a minute ago)\n")
    assert _summary(alice) == said
    # a line under the remote's own name (what the fetch URL was given) says nothing of the fork
    memo = _memo(alice)
    memo.write_text(memo.read_text().replace(f"origin {digest} ", "origin ", 1))
    assert _summary(alice) == UP_TO_DATE


def test_a_push_to_two_push_urls_is_said_when_each_holds_it(tmp_path):
    """Two push URLs (a team repository, which is also the fetch URL, and its mirror): said as
    "to each of origin's push URLs" while each holds the tip the push gave it; once one of them
    holds something else, the bare words."""
    _bares, alice = push_urls_clone(tmp_path, "team", ("team", "mirror"))
    assert hn(alice, "init", "--name", "Alice").code == 0
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "replication", "select", "--all").code == 0
    _record(alice, "published to both")
    commit_on(alice, None, "b.txt")
    _push(alice)
    assert len(_memo(alice).read_text().splitlines()) == 2  # (one line per push URL)
    r = hn(alice, "sync")  # (the team repository's copy of her stream, promoted: f159's words)
    assert r.code == 0 and r.out.endswith(COPY), r.out
    assert _summary(alice) == ("Synchronized with origin: up to date (your git push published 1 stream to each of "
                               "origin's push URLs less than a minute ago)\n")
    memo = _memo(alice)
    memo.write_text(memo.read_text().splitlines(keepends=True)[0])  # (the mirror's line gone)
    assert _summary(alice) == UP_TO_DATE


def test_two_publishers_writing_the_record_at_once_both_land(tmp_path):
    """f152 left the record unlocked: two publishers at once (to two remotes, or two pushes) each
    read it, added their lines and replaced it, and the second dropped the first's. Two real
    processes each write 150 streams' lines, one call each, started together: every line lands."""
    alice = make_repo(tmp_path / "alice")
    assert hn(alice, "init", "--name", "Alice").code == 0
    go = tmp_path / "go"
    script = ("import os, sys, time\n"
              "from git_hn.store import given\n"
              "from git_hn.store.repo import open_repo\n"
              "repo = open_repo(sys.argv[1])\n"
              "while not os.path.exists(sys.argv[3]):\n"
              "    time.sleep(0.001)\n"
              "for i in range(150):\n"
              "    given.note_pushed(repo, sys.argv[2], {f'refs/hn/memory/{64 * \"a\"}/{i:064x}': f'{i + 1:040x}'})\n")
    writers = [subprocess.Popen([sys.executable, "-c", script, str(alice), name, str(go)])
               for name in ("origin", "backup")]
    go.write_text("")
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    lines = _memo(alice).read_text().splitlines()
    assert len(lines) == 300 and {(line.split(" ")[0], line.split(" ")[2]) for line in lines} == \
        {(name, f"{i + 1:040x}") for name in ("origin", "backup") for i in range(150)}
    assert (_memo(alice).stat().st_mode & 0o777) == 0o600
