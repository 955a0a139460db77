"""``git hn hooks install|uninstall`` where the hooks directory cannot be used (an audit): a regular
file where ``.git/hooks`` or ``core.hooksPath`` should be a directory, or a hooks directory that
cannot be written. Each refusal is one line that says what is wrong and what to do, and nothing
changes; it used to be the catch-all "cannot change <path>: File exists" (or "Permission
denied"), and for a tracked file named by ``core.hooksPath`` "a.txt/pre-push is tracked"."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest

from helpers import git, hn, make_repo, read_only


def _state(repo):
    """What a refused install must leave as it was: git status, the config, the hook record (none)."""
    return (git(repo, "status", "--porcelain", "--ignored"), git(repo, "config", "--list", "--local"),
            (repo / ".git" / "hn" / "hooks.json").exists())


@pytest.mark.parametrize("case", ["git-hooks-file", "absolute-file", "tracked-file", "under-a-file"])
def test_a_hooks_path_that_is_a_file_is_named_with_the_setting_to_change(tmp_path, case):
    repo = make_repo(tmp_path / "r", files={"a.txt": "a\n"})
    assert hn(repo, "init", "--name", "A").code == 0
    outside = tmp_path / "hp-file"
    outside.write_text("not a directory\n")
    fix = ("set it to a directory (git config core.hooksPath DIR) or unset it (git config --unset core.hooksPath); "
           "nothing was changed")
    if case == "git-hooks-file":
        hooks = repo / ".git" / "hooks"
        subprocess.run(["rm", "-rf", str(hooks)], check=True)
        hooks.write_text("x\n")
        want = (f"Git's hooks directory {hooks} is a file, not a directory: rename or remove it (Git runs no hook from "
                "it as it is), then git hn hooks install again; nothing was changed")
    elif case == "absolute-file":
        git(repo, "config", "core.hooksPath", str(outside))
        want = f"core.hooksPath {outside} is a file, not a directory: {fix}"
    elif case == "tracked-file":
        git(repo, "config", "core.hooksPath", "a.txt")
        want = f"core.hooksPath a.txt is a file, not a directory: {fix}"
    else:
        git(repo, "config", "core.hooksPath", str(outside / "hooks"))
        want = (f"core.hooksPath {outside / 'hooks'} cannot be a directory: {outside}, where it would be created, "
                f"is a file: {fix}")
    before = _state(repo)
    r = hn(repo, "hooks", "install")
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: {want}\n")
    assert _state(repo) == before
    assert outside.read_text() == "not a directory\n" and (repo / "a.txt").read_text() == "a\n"


def test_a_global_hooks_path_that_is_a_file_is_changed_globally(tmp_path):
    hp = tmp_path / "hp-file"
    hp.write_text("x\n")
    git(tmp_path, "config", "--global", "core.hooksPath", str(hp))
    r = hn(tmp_path, "hooks", "install", "--global")
    assert (r.code, r.err) == (1, f"git-hn: core.hooksPath {hp} is a file, not a directory: set it to a directory "
                                  "(git config --global core.hooksPath DIR); nothing was changed\n")
    assert hp.read_text() == "x\n"


def _files(directory: Path) -> dict:
    return {str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def test_a_read_only_hooks_directory_says_to_make_it_writable_and_changes_nothing(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-push").write_text("#!/bin/sh\necho team\n")
    (hooks / "pre-push").chmod(0o755)
    before = _files(hooks)
    with read_only(hooks) as denied:
        r = hn(repo, "hooks", "install")
        assert (r.code, r.err) == (1, f"git-hn: hooks could not be installed in {hooks}: {denied}; make the directory "
                                      f"and its hooks writable (chmod u+w {hooks}), then git hn hooks install again; "
                                      "nothing was changed\n")
        assert _files(hooks) == before
    assert hn(repo, "hooks", "install").code == 0
    status = hn(repo, "hooks", "status").out
    installed = _files(hooks)
    with read_only(hooks) as denied:
        r = hn(repo, "hooks", "uninstall")
        assert (r.code, r.err) == (1, f"git-hn: hooks could not be uninstalled from {hooks}: {hooks / 'pre-push'}: "
                                      f"{denied}; make the directory and its hooks writable (chmod u+w {hooks}), "
                                      "then git hn hooks uninstall again; nothing was changed\n")
        assert _files(hooks) == installed and hn(repo, "hooks", "status").out == status
    assert hn(repo, "hooks", "uninstall").code == 0
    assert _files(hooks) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="one immutable hook among writable ones needs root (chattr +i)")
def test_an_uninstall_stopped_part_way_says_what_it_took_out_and_finishes_when_run_again(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    hooks = repo / ".git" / "hooks"
    assert hn(repo, "hooks", "install").code == 0
    last = hooks / "post-rewrite"
    if subprocess.run(["chattr", "+i", str(last)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not allowed here")
    try:
        r = hn(repo, "hooks", "uninstall")
        assert (r.code, r.err) == (1, f"git-hn: hooks could not be uninstalled from {hooks}: {last}: "
                                      f"{os.strerror(errno.EPERM)}; make the directory and its hooks writable (chmod "
                                      f"u+w {hooks}), then git hn hooks uninstall again; pre-push and "
                                      "reference-transaction were taken out, the others are as they were\n")
        assert hn(repo, "hooks", "status").out.splitlines() == [
            "pre-push: not installed", "reference-transaction: not installed", "post-rewrite: installed"]
    finally:
        subprocess.run(["chattr", "-i", str(last)], capture_output=True)
    r = hn(repo, "hooks", "uninstall")
    assert r.code == 0 and r.out.splitlines()[2] == "post-rewrite: removed"
    assert not last.exists()


def _users_pre_push(repo) -> bytes:
    """The user's own pre-push hook (a secret scanner, say), before git-hn's install chains it."""
    text = b"#!/bin/sh\necho users-own-pre-push\n"
    hook = repo / ".git" / "hooks" / "pre-push"
    hook.write_bytes(text)
    hook.chmod(0o755)
    return text


def test_an_uninstall_that_cannot_put_back_the_users_hook_keeps_the_wrapper_that_runs_it(tmp_path):
    """A review's case (after ce9e82f): uninstall removed the wrapper, then failed to move the user's
    own hook back out of ``hooks/hn-chained`` (read-only there): the user's hook sat where Git never
    runs it, the next uninstall refused ("changed since install"), ``hooks status`` said "not
    installed", and the advice named ``hooks``, which was writable. The hook is now put back over
    the wrapper, so a refusal leaves the wrapper, which still runs it; the line names the directory
    that refused; and once it can be written, the next uninstall finishes."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    hooks = repo / ".git" / "hooks"
    users = _users_pre_push(repo)
    assert hn(repo, "hooks", "install").code == 0
    installed, status = _files(hooks), hn(repo, "hooks", "status").out
    chained = hooks / "hn-chained"
    with read_only(chained) as denied:
        r = hn(repo, "hooks", "uninstall")
        assert (r.code, r.err) == (1, f"git-hn: hooks could not be uninstalled from {hooks}: {chained / 'pre-push'}: "
                                      f"{denied}; make the directory and its hooks writable (chmod u+w {chained}), "
                                      "then git hn hooks uninstall again; nothing was changed\n")
        assert _files(hooks) == installed and hn(repo, "hooks", "status").out == status
    r = hn(repo, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert r.out.splitlines()[0] == "pre-push: removed, and the hook it chained put back"
    assert (hooks / "pre-push").read_bytes() == users and not chained.exists()


def test_an_install_refused_by_a_read_only_chained_directory_names_it(tmp_path):
    """A read-only, empty ``hooks/hn-chained`` refuses the move of the user's own hook into it: the
    advice named ``hooks``, which was writable, so following it changed nothing."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    hooks = repo / ".git" / "hooks"
    _users_pre_push(repo)
    chained = hooks / "hn-chained"
    chained.mkdir()
    before = _files(hooks)
    with read_only(chained) as denied:
        r = hn(repo, "hooks", "install")
        assert (r.code, r.err) == (1, f"git-hn: hooks could not be installed in {hooks}: {denied}; make the directory "
                                      f"and its hooks writable (chmod u+w {chained}), then git hn hooks install again; "
                                      "nothing was changed\n")
        assert _files(hooks) == before and chained.is_dir()
    assert hn(repo, "hooks", "install").code == 0


def test_a_linked_hook_that_cannot_be_put_back_stays_chained(tmp_path):
    """The user's hook a relative link: its chained copy is removed before the link is made again
    in its place; when the hooks directory refuses that, the copy is made again, and the wrapper
    still runs it. (A guard of that order: before it, the wrapper's removal was refused first.)"""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    hooks = repo / ".git" / "hooks"
    (repo / "scripts").mkdir()
    (repo / "scripts" / "pre-push").write_text("#!/bin/sh\necho team\n")
    (repo / "scripts" / "pre-push").chmod(0o755)
    (hooks / "pre-push").symlink_to("../../scripts/pre-push")
    assert hn(repo, "hooks", "install").code == 0
    link = os.readlink(hooks / "hn-chained" / "pre-push")
    installed, status = _files(hooks), hn(repo, "hooks", "status").out
    with read_only(hooks) as denied:
        r = hn(repo, "hooks", "uninstall")
        assert r.code == 1 and f": {denied}; make the directory and its hooks writable (chmod u+w {hooks})" in r.err
        assert r.err.endswith("; nothing was changed\n") and r.err.count("\n") == 1, r.err
        assert os.readlink(hooks / "hn-chained" / "pre-push") == link
        assert _files(hooks) == installed and hn(repo, "hooks", "status").out == status
    assert hn(repo, "hooks", "uninstall").code == 0
    assert os.readlink(hooks / "pre-push") == "../../scripts/pre-push" and not (hooks / "hn-chained").exists()
