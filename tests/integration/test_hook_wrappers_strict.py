"""The hook wrappers (``hookscripts``) never hold up or refuse a Git command because of the
shell they run in or what they find in the repository: a FIFO where a stamp is kept, and a
shell with ``set -u`` (dash, busybox sh or bash with ``SHELLOPTS=nounset``). Real repositories,
real ``git push``/``git fetch``/``git commit --amend`` through the installed wrappers."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess

import pytest

from helpers import git, hn, shared_remote

HOOKS = ("pre-push", "reference-transaction", "post-rewrite")


def _run(cwd, *args, env: dict | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    """``git ARGS`` in a session of its own; killed with all it started (a hook's ``cat`` blocked
    on a FIFO outlives Git) when it does not end within ``timeout`` seconds."""
    proc = subprocess.Popen(["git", *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, **(env or {})})
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"git {' '.join(args)} did not end within {timeout} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture
def team(tmp_path):
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
    return remote, alice, bob


def test_a_fifo_where_the_missing_git_hn_stamp_is_kept_never_holds_a_push(team, tmp_path):
    """A review: with git-hn gone, a FIFO at ``<common-dir>/hn/missing-git-hn`` (the stamp that
    says the warning once per Git command) held every ``git push`` for good: the wrapper read it
    with ``cat`` without asking whether it was a regular file, and would have written to it too.
    Each push now says the warning and goes on."""
    _remote, alice, _bob = team
    hooks = alice / ".git" / "hooks"
    for name in HOOKS:  # the git-hn that installed them is gone, and none is on PATH
        path = hooks / name
        path.write_text("\n".join(("recorded=" + str(tmp_path / "gone" / "git-hn")) if line.strip().startswith(
            "recorded=") else line for line in path.read_text().split("\n")))
    bare_path = "/usr/bin:/bin"
    assert shutil.which("git-hn", path=bare_path) is None and shutil.which("git", path=bare_path)
    (alice / ".git" / "hn").mkdir(exist_ok=True)
    stamp = alice / ".git" / "hn" / "missing-git-hn"
    stamp.unlink(missing_ok=True)
    os.mkfifo(stamp)
    for n in range(2):
        git(alice, "commit", "-q", "--allow-empty", "-m", f"pushed with a FIFO there {n}")
        push = _run(alice, "push", "-q", "origin", "main", env={"PATH": bare_path})
        assert push.returncode == 0, push.stderr
        assert "git-hn: warning: git-hn is not installed" in push.stderr  # (each time: nothing can be kept)
    assert stamp.is_fifo()


def _strict(repo, how: str) -> None:
    """Make each installed wrapper run as if its shell had ``set -u``: ``how`` ``sh`` (dash here)
    or ``bash`` (``SHELLOPTS=nounset``, which bash reads at start-up)."""
    for name in HOOKS:
        path = repo / ".git" / "hooks" / name
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n")
        first = "#!/bin/sh -u\n" if how == "sh" else f"#!/usr/bin/env -S SHELLOPTS=nounset {shutil.which('bash')}\n"
        path.write_text(first + text[len("#!/bin/sh\n"):])


@pytest.mark.parametrize("how", ["sh", "bash"])
def test_the_wrappers_run_under_set_u(team, how):
    """A review: under ``set -u`` every wrapper stopped at ``HN_HOOK_ACTIVE: parameter not set``,
    and a failing pre-push refuses every push. Each variable that may be unset is read as
    ``${VAR-}``: pushes publish, fetches import, a rebase's rewrite is seen, as without ``-u``."""
    if how == "bash" and not shutil.which("bash"):
        pytest.skip("no bash")
    _remote, alice, bob = team
    _strict(alice, how)
    _strict(bob, how)
    rec = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "published through a strict shell").json()
    git(alice, "commit", "-q", "--allow-empty", "-m", "next")
    push = _run(alice, "push", "-q", "origin", "main")
    assert push.returncode == 0 and "not set" not in push.stderr, push.stderr
    from helpers import wait_publication

    wait_publication(alice)
    ref = f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert git(alice, "ls-remote", "origin", ref).split("\t")[0] == git(alice, "rev-parse", ref)
    assert hn(bob, "replication", "select", "origin", "--memory", rec["stream"]).code == 0
    fetch = _run(bob, "fetch", "-q", "origin")
    assert fetch.returncode == 0 and "not set" not in fetch.stderr, fetch.stderr
    accepted = f"refs/hn/remotes/origin/memory/{rec['actor']}/{rec['stream'][7:]}"
    assert git(bob, "rev-parse", accepted) == git(alice, "rev-parse", ref)
    amend = _run(alice, "commit", "-q", "--amend", "--allow-empty", "-m", "amended")
    assert amend.returncode == 0 and "not set" not in amend.stderr, amend.stderr
