"""A missing git-hn never blocks Git, and the wrappers' warning gives a way out that needs no
git-hn (a newcomer trial, f50: it advised ``git hn hooks uninstall``, which cannot run without
the git-hn that is missing). Real repositories, a real bare remote, real ``git push`` running
the installed wrappers with a PATH that holds no git-hn; the command the warning gives is run
as printed, by ``sh``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import git, hn, make_repo, wait_publication

TEAM = '#!/bin/sh\necho "team hook ran" >&2\n'
WAY_OUT = "; reinstall it (./install.sh in git-hn's source), or take its hooks out: "


@pytest.fixture
def stand_in_git_hn(tmp_path, monkeypatch):
    """A ``git-hn`` on PATH that install records and the test can then remove."""
    bin_dir = tmp_path / "stand-in-bin"
    bin_dir.mkdir()
    (bin_dir / "git-hn").symlink_to(shutil.which("git-hn"))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir / "git-hn"


def _without_git_hn() -> dict:
    git_dir = os.path.dirname(shutil.which("git"))
    return {**os.environ, "PATH": os.pathsep.join(dict.fromkeys([git_dir, "/usr/bin", "/bin"]))}


def _push(repo):
    proc = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo, capture_output=True, text=True,
                          env=_without_git_hn(), timeout=60)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _clone_with_hooks(tmp_path, where: str, stand_in) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / where)
    git(a, "remote", "add", "origin", str(remote))
    assert hn(a, "init", "--name", "A").code == 0
    hooks = a / ".git" / "hooks"
    (hooks / "pre-push").write_text(TEAM)
    (hooks / "pre-push").chmod(0o755)
    assert hn(a, "hooks", "install").code == 0
    stand_in.unlink()
    return remote, a


def _way_out(stderr: str) -> str:
    line, = [s for s in stderr.splitlines() if s.startswith("git-hn: ")]
    assert WAY_OUT in line, line
    return line.split(WAY_OUT, 1)[1]


def _hooks(repo) -> list[str]:
    return sorted(p.name for p in (repo / ".git" / "hooks").iterdir() if not p.name.endswith(".sample"))


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_the_way_out_of_a_missing_git_hn_takes_the_hooks_out_without_it(tmp_path, stand_in_git_hn, shell):
    """The command is pasted into another directory's shell (a subdirectory of the work tree),
    for a repository whose path holds a space and a quote; it puts the team's hook back as
    uninstall would, and pushes are quiet again."""
    remote, a = _clone_with_hooks(tmp_path, "it's a clone", stand_in_git_hn)
    (a / "sub").mkdir()
    git(a, "commit", "-q", "--allow-empty", "-m", "work")
    proc = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a / "sub", capture_output=True, text=True,
                          env=_without_git_hn(), timeout=60)
    assert proc.returncode == 0 and "team hook ran" in proc.stderr, proc.stderr
    out = _way_out(proc.stderr)
    record = str((a / ".git" / "hn" / "hooks.json").resolve()).replace("'", "'\\''")
    assert out.endswith("&& mv -f hn-chained/pre-push pre-push && rm -f post-rewrite reference-transaction "
                        f"&& rmdir hn-chained && rm -f '{record}'"), out
    assert subprocess.run([shell, "-c", out], cwd=a / "sub", env=_without_git_hn()).returncode == 0
    assert _hooks(a) == ["pre-push"] and (a / ".git" / "hooks" / "pre-push").read_text() == TEAM
    git(a, "commit", "-q", "--allow-empty", "-m", "more")
    assert _push(a).stderr == "team hook ran\n"  # (no warning: no wrapper is left)
    assert git(remote, "rev-parse", "main") == git(a, "rev-parse", "main")
    # and with git-hn back, its hooks are not installed (no warning of hooks gone: a trial, the
    # record was left) and install chains the team's hook again
    r = hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content",
           "after the way out")
    assert r.code == 0 and "gone" not in r.err, r.err
    assert hn(a, "hooks", "status").out.splitlines()[0] == "pre-push: not installed"
    assert hn(a, "hooks", "install").out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"


def test_the_way_out_puts_the_chained_hook_where_pre_commit_runs_it(tmp_path, stand_in_git_hn):
    """pre-commit installed after git-hn runs the wrapper as pre-push.legacy: its own pre-push
    stays, and the hook git-hn chained goes to pre-push.legacy (as uninstall puts it)."""
    _remote, a = _clone_with_hooks(tmp_path, "a", stand_in_git_hn)
    hooks = a / ".git" / "hooks"
    os.rename(hooks / "pre-push", hooks / "pre-push.legacy")  # what pre-commit install does
    dispatcher = '#!/bin/sh\nHERE=${0%/*}\n[ ! -x "$HERE/pre-push.legacy" ] || "$HERE/pre-push.legacy" "$@"\n'
    (hooks / "pre-push").write_text(dispatcher)
    (hooks / "pre-push").chmod(0o755)
    os.mkfifo(hooks / "post-merge")  # (not read: it would hold the push for good)
    git(a, "commit", "-q", "--allow-empty", "-m", "work")
    out = _way_out(_push(a).stderr)
    assert out.endswith("&& mv -f hn-chained/pre-push pre-push.legacy && rm -f post-rewrite reference-transaction "
                        f"&& rmdir hn-chained && rm -f '{(a / '.git' / 'hn' / 'hooks.json').resolve()}'"), out
    assert subprocess.run(["sh", "-c", out], cwd=a, env=_without_git_hn()).returncode == 0
    assert _hooks(a) == ["post-merge", "pre-push", "pre-push.legacy"]
    assert (hooks / "pre-push").read_text() == dispatcher and (hooks / "pre-push.legacy").read_text() == TEAM
    git(a, "commit", "-q", "--allow-empty", "-m", "more")
    assert _push(a).stderr == "team hook ran\n"
