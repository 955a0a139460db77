"""``store.discover`` answers as ``git rev-parse --absolute-git-dir --git-common-dir
--show-object-format`` does in a clone's layout, and leaves every other layout to Git.

Each case is a real repository made by Git; the reference is Git's own answer, run in the same
directory with the same environment."""

from __future__ import annotations

import os
import subprocess

import pytest

from git_hn.store import discover, git as gitmod
from git_hn.store.repo import open_repo
from helpers import git, make_repo


def _gits_answer(cwd, env=None) -> tuple[str, str, str] | None:
    proc = subprocess.run(["git", *gitmod.DISCOVERY], cwd=cwd, capture_output=True,
                          env={**os.environ, **(env or {})})
    lines = proc.stdout.decode().splitlines()
    if proc.returncode != 0 or len(lines) != 3:
        return None
    return lines[0], os.path.normpath(os.path.join(os.path.realpath(cwd), lines[1])), lines[2]


def _ours(cwd, env=None):
    found = discover.find(str(cwd), {**os.environ, **(env or {})})
    return None if found is None else (found[0], os.path.normpath(found[1]), found[2])


def _same_repo_either_way(cwd, monkeypatch):
    """``open_repo`` gives the same repository whether discovery read the file system or asked
    Git (a ``GIT_TEST_`` variable makes ``find`` decline)."""
    a = open_repo(str(cwd))
    monkeypatch.setenv("GIT_TEST_ASK_GIT", "1")
    b = open_repo(str(cwd))
    monkeypatch.delenv("GIT_TEST_ASK_GIT")
    for repo in (a, b):
        repo.close()
    assert (a.git_dir, a.common_dir, a.object_format) == (b.git_dir, b.common_dir, b.object_format)


def test_a_clone_is_found_from_its_top_a_subdirectory_and_through_a_link(tmp_path, monkeypatch):
    top = make_repo(tmp_path / "repo", files={"a/b/c.txt": "x\n"})
    link = tmp_path / "link"
    link.symlink_to(top / "a" / "b")
    for cwd in (top, top / "a", top / "a" / "b", link):
        assert _ours(cwd) is not None, cwd
        assert _ours(cwd) == _gits_answer(cwd), cwd
        _same_repo_either_way(cwd, monkeypatch)


def test_the_nearest_repository_wins(tmp_path):
    outer = make_repo(tmp_path / "outer")
    inner = make_repo(outer / "vendor" / "inner")
    assert _ours(inner) == _gits_answer(inner) != _gits_answer(outer) == _ours(outer)
    assert _ours(inner)[0] == str(inner.resolve() / ".git")


@pytest.mark.parametrize("case", ["git_dir_variable", "ceiling", "linked_worktree", "gitfile",
                                  "bare", "inside_git_dir", "sha256", "extension", "format_2",
                                  "dotgit_link", "not_a_git_dir", "no_repository"])
def test_other_layouts_are_left_to_git(tmp_path, monkeypatch, case):
    """Every layout ``find`` does not read itself: it declines (None), and ``open_repo`` still
    gives Git's answer (or Git's refusal)."""
    top = make_repo(tmp_path / "repo")
    cwd, env = top, {}
    if case == "git_dir_variable":
        env = {"GIT_DIR": str(top / ".git")}
    elif case == "ceiling":
        cwd, env = top / "sub", {"GIT_CEILING_DIRECTORIES": str(top)}
        cwd.mkdir()
    elif case == "linked_worktree":
        git(top, "worktree", "add", "-q", str(tmp_path / "wt"))
        cwd = tmp_path / "wt"
    elif case == "gitfile":
        cwd = tmp_path / "moved"
        cwd.mkdir()
        (cwd / ".git").write_text(f"gitdir: {top / '.git'}\n")
    elif case == "bare":
        git(tmp_path, "clone", "-q", "--bare", str(top), "bare.git")
        cwd = tmp_path / "bare.git"
    elif case == "inside_git_dir":
        cwd = top / ".git" / "refs"
    elif case == "sha256":
        cwd = make_repo(tmp_path / "repo256", object_format="sha256")
    elif case == "extension":
        git(top, "config", "extensions.worktreeConfig", "true")
    elif case == "format_2":
        git(top, "config", "core.repositoryformatversion", "2")
    elif case == "dotgit_link":
        cwd = tmp_path / "linked"
        cwd.mkdir()
        (cwd / ".git").symlink_to(top / ".git")
    elif case == "not_a_git_dir":
        cwd = tmp_path / "plain"
        (cwd / ".git").mkdir(parents=True)
    elif case == "no_repository":
        cwd = tmp_path / "nothing"
        cwd.mkdir()
    assert _ours(cwd, env) is None
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    answer = _gits_answer(cwd)
    if answer is None:
        with pytest.raises(Exception, match="not a git repository|repository format|unknown|Git cannot open this repository"):
            open_repo(str(cwd)).close()
        return
    repo = open_repo(str(cwd))
    repo.close()
    assert (repo.git_dir, os.path.normpath(repo.common_dir), repo.object_format) == answer


def test_a_directory_of_another_user_is_left_to_git(tmp_path):
    """Ownership (and ``safe.directory``) is Git's to judge: a ``.git`` or working tree whose
    owner is not this user is declined."""
    top = make_repo(tmp_path / "repo")
    dotgit = str(top / ".git")
    st = os.stat(dotgit)
    assert discover._answer(str(top), dotgit, st) is not None
    other = os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid + 1, st.st_gid,
                            st.st_size, int(st.st_atime), int(st.st_mtime), int(st.st_ctime)))
    assert discover._answer(str(top), dotgit, other) is None


def test_a_command_from_a_subdirectory_starts_no_discovery_process(tmp_path):
    """The point of it: ``start_early`` asks Git nothing to find the repository."""
    top = make_repo(tmp_path / "repo", files={"src/x.py": "x\n"})
    runner = gitmod.start_early(str(top / "src"), listing=False, batch=False)
    try:
        assert runner.found is not None and gitmod.discovery(runner)[0] == str(top.resolve() / ".git")
        assert runner.early_answer(gitmod.DISCOVERY) is None
    finally:
        gitmod.close_early()
