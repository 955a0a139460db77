"""Publishing many streams through an outbox (issue 11; ``store.outbox``, ``publish.push``).

``git push`` matches each explicit refspec against every local ref, so pushing thousands of
streams one refspec each cost minutes of Git's CPU. From ``publish.OUTBOX_FROM`` refs the tips
to publish are written under ``refs/hn/outbox/<name>/`` and pushed with one wildcard refspec.
Real repositories, a real bare remote, real ``git push``; the Git processes are read from
Git's own trace.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import git, git_processes, make_repo

ROOT = Path(__file__).resolve().parents[2]
WILDCARD = re.compile(r"refs/hn/outbox/[0-9a-f]{16}/\*:refs/hn/memory/\*")


@pytest.fixture
def many(tmp_path):
    """A repository with an ``origin`` remote and ``OUTBOX_FROM + 4`` local streams of two
    memories each: (remote, repository, ref -> tip)."""
    from git_hn.service.replication import publish

    sys.path.insert(0, str(ROOT / "bench"))
    import memgen

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "origin", "main")
    count = publish.OUTBOX_FROM + 4
    memgen.write_streams(str(a), dict(os.environ, HN_HOOK_ACTIVE="1"), [memgen.Actor(bytes(range(1, 33)), "W")],
                         2 * count, git(a, "rev-parse", "HEAD"), random.Random(5), streams_per_actor=count)
    tips = dict(line.split() for line in git(a, "for-each-ref", "--format=%(refname) %(objectname)",
                                             "refs/hn/memory/").splitlines())
    assert len(tips) == count
    return remote, a, tips


def _remote_tips(remote: Path) -> dict[str, str]:
    out = git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory/")
    return dict(line.split() for line in out.splitlines())


def _no_outbox_left(repo: Path) -> None:
    assert git(repo, "for-each-ref", "refs/hn/outbox/") == ""
    directory = repo / ".git" / "hn" / "outbox"
    assert not directory.exists() or os.listdir(directory) == []


def _push(repo: Path, tips: dict[str, str], trace: Path | None = None, monkeypatch=None) -> int:
    from git_hn.service.replication import publish
    from git_hn.store.repo import open_repo

    if trace is not None:
        trace.mkdir()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    try:
        return publish.push(open_repo(str(repo)), "origin", sorted(tips), tips, exact=True)
    finally:
        if trace is not None:
            monkeypatch.delenv("GIT_TRACE2_EVENT")


def test_many_streams_go_in_one_wildcard_push_of_the_tips_named(many, tmp_path, monkeypatch):
    """One ``git push`` with one wildcard refspec, the tips the caller named (one of them older
    than its ref's: what was verified, not what the ref holds by then), nothing left behind."""
    remote, a, tips = many
    older = sorted(tips)[3]
    tips = {**tips, older: git(a, "rev-parse", tips[older] + "^")}
    assert _push(a, tips, tmp_path / "trace", monkeypatch) == len(tips)
    assert _remote_tips(remote) == tips
    pushes = [argv for argv in git_processes(tmp_path / "trace") if argv[:1] == ["push"]]
    assert len(pushes) == 1
    assert [x for x in pushes[0] if "refs/hn/" in x] == [pushes[0][-1]]
    assert WILDCARD.fullmatch(pushes[0][-1])
    _no_outbox_left(a)


def test_a_few_streams_go_as_explicit_refspecs(many, tmp_path, monkeypatch):
    from git_hn.service.replication import publish

    remote, a, tips = many
    few = dict(sorted(tips.items())[:publish.OUTBOX_FROM - 1])
    assert _push(a, few, tmp_path / "trace", monkeypatch) == len(few)
    assert _remote_tips(remote) == few
    runs = git_processes(tmp_path / "trace")
    assert not [argv for argv in runs if argv[:1] == ["update-ref"]]
    (push,) = [argv for argv in runs if argv[:1] == ["push"]]
    assert sorted(x for x in push if "refs/hn/" in x) == sorted(f"{t}:{r}" for r, t in few.items())


def test_a_refused_ref_is_a_phase_error_the_others_go_and_the_outbox_is_removed(many):
    from git_hn.service.replication.outcomes import PhaseError

    remote, a, tips = many
    refused = sorted(tips)[0]
    git(remote, "update-ref", refused, git(remote, "rev-parse", "main"))  # not an ancestor: non-fast-forward
    with pytest.raises(PhaseError) as caught:
        _push(a, tips)
    assert caught.value.published == len(tips) - 1
    assert "rejected" in caught.value.message
    assert _remote_tips(remote) == {**tips, refused: git(remote, "rev-parse", "main")}
    _no_outbox_left(a)


def _outbox(repo: Path, name: str, tips: dict[str, str]) -> Path:
    """An outbox as a publisher leaves it when killed: its refs and its (unlocked) lock file."""
    lines = "".join(f"create refs/hn/outbox/{name}/{r[len('refs/hn/memory/'):]} {t}\n" for r, t in tips.items())
    git(repo, "update-ref", "--stdin", input=lines.encode(), env={"HN_HOOK_ACTIVE": "1"})
    directory = repo / ".git" / "hn" / "outbox"
    for d in (directory.parent, directory):
        d.mkdir(exist_ok=True)
        os.chmod(d, 0o700)
    lock = directory / name
    lock.touch(mode=0o600)
    os.chmod(lock, 0o600)
    return lock


def test_an_outbox_a_killed_publisher_left_is_swept_and_a_live_one_is_not(many):
    remote, a, tips = many
    some = dict(sorted(tips.items())[:3])
    dead, live = "a" * 16, "b" * 16
    _outbox(a, dead, some)
    live_lock = _outbox(a, live, some)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); "
         "fcntl.lockf(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()", str(live_lock)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert _push(a, tips) == len(tips)
        assert _remote_tips(remote) == tips
        left = git(a, "for-each-ref", "--format=%(refname)", "refs/hn/outbox/").splitlines()
        assert left and all(r.startswith(f"refs/hn/outbox/{live}/") for r in left)
        assert len(left) == len(some)
        assert sorted(os.listdir(a / ".git" / "hn" / "outbox")) == [live]
    finally:
        holder.stdin.close()
        holder.wait()
    from git_hn.store import outbox
    from git_hn.store.repo import open_repo

    assert outbox.sweep(open_repo(str(a))) == 1
    _no_outbox_left(a)


def test_no_outbox_where_one_cannot_be_made_and_the_streams_still_go(many, tmp_path, monkeypatch):
    """A file where the outbox directory belongs: one refspec per ref, as before."""
    remote, a, tips = many
    (a / ".git" / "hn").mkdir(exist_ok=True)
    os.chmod(a / ".git" / "hn", 0o700)
    (a / ".git" / "hn" / "outbox").write_text("")
    assert _push(a, tips, tmp_path / "trace", monkeypatch) == len(tips)
    assert _remote_tips(remote) == tips
    (push,) = [argv for argv in git_processes(tmp_path / "trace") if argv[:1] == ["push"]]
    assert sorted(x for x in push if "refs/hn/" in x) == sorted(f"{t}:{r}" for r, t in tips.items())
    assert git(a, "for-each-ref", "refs/hn/outbox/") == ""
