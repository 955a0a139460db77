"""The lost-anchor and at-risk reminders (``replication/lost.py``, ``atrisk.py``) against what a
hostile-remote audit did to them: pushes too big for a command line, remotes that never answer,
records left behind by a rename, files that are not files. Real repositories, a real bare
remote, real pushes with the hooks installed; the pre-push body is also run in-process with a
crafted hook input where a real push of that size would take minutes."""

from __future__ import annotations

import subprocess

from helpers import git, hn, shared_remote, wait_publication


def _record(repo, content) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _push(repo, *args) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _records(repo, prefix: str) -> list:
    directory = repo / ".git" / "hn" / "replication"
    return sorted(p for p in directory.iterdir() if p.name.startswith(prefix)) if directory.is_dir() else []


def _lost_on_origin(tmp_path):
    """Alice (hooks installed) publishes a memory on branch feature, then deletes the branch on
    origin: a lost-anchor record. (remote, alice, the commit, the memory)"""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    (a / "f1.txt").write_text("f1\n")
    git(a, "add", "f1.txt")
    git(a, "commit", "-q", "-m", "f1")
    c1 = git(a, "rev-parse", "HEAD")
    mem = _record(a, "decided on feature")
    _push(a, "origin", "feature")
    git(a, "checkout", "-q", "main")
    assert f"takes commit {c1} off origin" in _push(a, "origin", "--delete", "feature").stderr
    assert _records(a, "lost-")
    return remote, a, c1, mem


def _pre_push(repo, data: bytes, capsys) -> tuple[int, str]:
    """The pre-push body in-process, with hook input ``data``: (status, what it wrote)."""
    import os

    from git_hn.service.hook_runs import run_pre_push
    from git_hn.store.repo import open_repo

    old = os.getcwd()
    os.chdir(repo)
    try:
        r = open_repo(str(repo))
        try:
            code = run_pre_push(r, "origin", data)
        finally:
            r.close()
    finally:
        os.chdir(old)
    wait_publication(repo)
    return code, capsys.readouterr().err


def test_a_push_of_many_tags_with_a_lost_anchor_goes_through(tmp_path, capsys):
    """An audit: with a lost-anchor record, ``git push origin --tags`` of 80,000 tags was refused
    in warn mode (every pushed tip on one ``rev-list`` command line: E2BIG). The tips go once each
    on its standard input; the push goes on, and the reminder is still said."""
    _remote, a, c1, _mem = _lost_on_origin(tmp_path)
    main = git(a, "rev-parse", "main")
    zero = "0" * 40
    data = "".join(f"refs/tags/t{i:06d} {main} refs/tags/t{i:06d} {zero}\n" for i in range(120_000)).encode()
    code, err = _pre_push(a, data, capsys)
    assert code == 0, err
    assert err.startswith(f"git-hn: commit {c1}, which memory"), err
    assert err.count("\n") == 1, err


def test_a_push_deleting_many_branches_still_warns_of_the_anchor_it_takes(tmp_path, capsys):
    """The same for a push that deletes (or force-updates) more branches than a command line
    holds an ``--exclude`` for each: the other tracking refs' tips are given on the standard
    input, and the commit the push takes off is still named."""
    _remote, a, _c1, _mem = _lost_on_origin(tmp_path)
    git(a, "checkout", "-q", "-b", "second")
    (a / "f2.txt").write_text("f2\n")
    git(a, "add", "f2.txt")
    git(a, "commit", "-q", "-m", "f2")
    c2 = git(a, "rev-parse", "HEAD")
    _record(a, "decided on second")
    _push(a, "origin", "second")
    main = git(a, "rev-parse", "main")
    zero = "0" * 40
    long = "x" * 120
    data = (f"(delete) {zero} refs/heads/second {c2}\n"
            + "".join(f"(delete) {zero} refs/heads/{long}{i:06d} {main}\n" for i in range(20_000))).encode()
    code, err = _pre_push(a, data, capsys)
    assert code == 0, err
    assert f"git-hn: this push takes commit {c2} off origin, and memory" in err, err
