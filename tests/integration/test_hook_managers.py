"""Hooks in a team (issue 12 items 1-3): hook managers keep working, tracked files are never
written, and a missing git-hn never blocks Git. Real repositories, a real bare remote, real
``git push`` running real hooks; the hook managers' files are built with their real layouts
(husky v9's ``.husky/_`` stubs and ``h`` runner, a pre-commit-style bash dispatcher that finds
``<hook>.legacy`` from ``$0``, a lefthook-style dispatcher keyed by ``basename "$0"``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import git, hn, make_repo, unhinted, wait_publication

# husky v9: `husky` writes these into .husky/_ (index.js: one stub per hook, `h` from husky.sh)
HUSKY_STUB = '#!/usr/bin/env sh\n. "${0%/*}/h"'
HUSKY_H = r'''#!/usr/bin/env sh
[ "$HUSKY" = "2" ] && set -x
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n

[ ! -f "$s" ] && exit 0

if [ -f "$HOME/.huskyrc" ]; then
	echo "husky - '~/.huskyrc' is DEPRECATED, please move your code to ~/.config/husky/init.sh"
fi
i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"
[ -f "$i" ] && . "$i"

[ "${HUSKY-}" = "0" ] && exit 0

export PATH="node_modules/.bin:$PATH"
sh -e "$s" "$@"
c=$?

[ $c != 0 ] && echo "husky - $n script failed (code $c)"
[ $c = 127 ] && echo "husky - command not found in PATH=$PATH"
exit $c
'''
HUSKY_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase",
               "post-rewrite", "post-checkout", "post-merge", "pre-push", "pre-auto-gc")


def _team(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    assert hn(a, "init", "--name", "A").code == 0
    return remote, a


def _memory_and_commit(repo) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", "travels with the push")
    assert r.code == 0, r.err
    (repo / "work.txt").write_text("work\n")
    git(repo, "add", "work.txt")
    git(repo, "commit", "-q", "-m", "work")
    return r.json()


def _push(repo, env=None):
    proc = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    wait_publication(repo)
    return proc


def _published(remote, mem) -> bool:
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    return subprocess.run(["git", "rev-parse", "-q", "--verify", ref], cwd=remote,
                          capture_output=True).returncode == 0


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def _husky(repo) -> Path:
    """What ``npx husky`` (v9) leaves: ``.husky/_`` with its ``h`` and a stub per hook, and
    ``core.hooksPath`` naming it; the directory."""
    generated = repo / ".husky" / "_"
    generated.mkdir(parents=True)
    (generated / ".gitignore").write_text("*")
    (generated / "husky.sh").write_text("")
    _executable(generated / "h", HUSKY_H)
    for name in HUSKY_HOOKS:
        _executable(generated / name, HUSKY_STUB)
    git(repo, "config", "core.hooksPath", ".husky/_")
    return generated


def test_husky_v9_keeps_running_the_teams_pre_push(tmp_path):
    remote, a = _team(tmp_path)
    marker = tmp_path / "marker"
    _executable(a / ".husky" / "pre-push", 'echo "team pre-push ran for $1" >> "$MARKER"\n')
    git(a, "add", ".husky/pre-push")
    git(a, "commit", "-q", "-m", "husky hook")
    generated = _husky(a)
    assert git(a, "status", "--porcelain") == ""
    r = hn(a, "hooks", "install")
    assert r.code == 0, r.err
    assert r.out.splitlines() == ["pre-push: installed (chains hn-chained/pre-push)",
                                  "reference-transaction: installed",
                                  "post-rewrite: installed (chains hn-chained/post-rewrite)"]
    assert (generated / "hn-chained" / "pre-push").read_text() == HUSKY_STUB
    assert git(a, "status", "--porcelain", "--untracked-files=all") == ""
    mem = _memory_and_commit(a)
    proc = _push(a, {"MARKER": str(marker)})
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == "team pre-push ran for origin\n"  # husky found its script by $0
    assert _published(remote, mem)
    # the team's hook refusing still stops the push (its status is honoured through husky)
    _executable(a / ".husky" / "pre-push", "echo refused >&2\nexit 3\n")
    (a / "more.txt").write_text("more\n")
    git(a, "add", "more.txt")
    git(a, "commit", "-q", "-m", "more")
    proc = _push(a)
    assert proc.returncode != 0 and "husky - pre-push script failed (code 3)" in proc.stdout + proc.stderr
    assert hn(a, "hooks", "uninstall").code == 0
    assert (generated / "pre-push").read_text() == HUSKY_STUB
    assert not (generated / "hn-chained").exists()


def test_husky_regenerating_its_stubs_over_the_wrappers_leaves_a_way_back(tmp_path):
    """``npx husky`` (every ``npm install``'s ``prepare``) writes its stubs again over git-hn's
    wrappers: install then chains them again, and uninstall forgets wrappers that are gone."""
    _remote, a = _team(tmp_path)
    generated = _husky(a)
    assert hn(a, "hooks", "install").code == 0

    def regenerate():
        for name in HUSKY_HOOKS:
            _executable(generated / name, HUSKY_STUB)

    regenerate()
    r = hn(a, "hooks", "install")
    assert r.code == 0, r.err
    assert r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"
    assert "git-hn pre-push wrapper" in (generated / "pre-push").read_text()
    regenerate()
    r = hn(a, "hooks", "uninstall")
    assert r.code == 0, r.err
    assert (generated / "pre-push").read_text() == HUSKY_STUB
    assert not (generated / "hn-chained").exists()
    assert not (generated / "reference-transaction").exists()  # (husky has none: git-hn's went)
    # a hook that differs from the chained copy is the user's call: refused, saying what to do
    assert hn(a, "hooks", "install").code == 0
    _executable(generated / "pre-push", "#!/bin/sh\necho mine\n")
    r = hn(a, "hooks", "install")
    assert r.code == 1 and "differs from" in r.err and "remove the other, then install again" in r.err


def test_sync_says_when_huskys_npm_install_took_the_push_hooks_away(tmp_path):
    """A team trial: husky's ``prepare`` (every ``npm install``) wrote its stubs over git-hn's
    pre-push and post-rewrite wrappers; ``git pull; git hn sync; git push`` then said nothing
    and the push published no memory (only a record warned). ``git hn sync`` gives the same
    one line, with the command that puts them back; once installed again, it says nothing."""
    remote, a = _team(tmp_path)
    generated = _husky(a)
    assert hn(a, "hooks", "install").code == 0
    git(a, "push", "-q", "origin", "main")
    assert unhinted(hn(a, "sync").err) == ""
    for name in HUSKY_HOOKS:  # husky's prepare, as husky 9.1.7 does it (reference-transaction is not its)
        _executable(generated / name, HUSKY_STUB)
    r = hn(a, "sync")
    assert r.code == 0, r.err
    assert unhinted(r.err) == ("git-hn: warning: git-hn's pre-push, post-rewrite hooks were installed here and are "
                               "gone (did a hook manager rewrite its hooks?), so memory is not kept in step with push "
                               "and fetch: git hn hooks install puts them back\n"), r.err
    assert hn(a, "hooks", "install").code == 0
    r = hn(a, "sync", "--json")
    assert r.code == 0 and unhinted(r.err) == "", r.err


def test_a_pre_commit_style_dispatcher_still_finds_its_legacy_hook_from_dollar_zero(tmp_path):
    remote, a = _team(tmp_path)
    marker = tmp_path / "marker"
    hooks = a / ".git" / "hooks"
    _executable(hooks / "pre-push", '#!/usr/bin/env bash\n'
                '# File generated by pre-commit: https://pre-commit.com\n'
                'HERE="$(cd "$(dirname "$0")" && pwd)"\n'
                'echo "dispatcher $(basename "$0") in $HERE" >> "$MARKER"\n'
                'if [ -x "$HERE/pre-push.legacy" ]; then "$HERE/pre-push.legacy" "$@" || exit $?; fi\n')
    _executable(hooks / "pre-push.legacy", '#!/bin/sh\necho "legacy ran for $1" >> "$MARKER"\n')
    assert hn(a, "hooks", "install").code == 0
    mem = _memory_and_commit(a)
    proc = _push(a, {"MARKER": str(marker)})
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == f"dispatcher pre-push in {hooks.resolve()}\nlegacy ran for origin\n"
    assert _published(remote, mem)


def test_a_lefthook_style_dispatcher_keyed_by_basename_still_runs_its_commands(tmp_path):
    remote, a = _team(tmp_path)
    marker = tmp_path / "marker"
    _executable(a / ".git" / "hooks" / "pre-push", '#!/bin/sh\n'
                'if [ "$LEFTHOOK" = "0" ]; then exit 0; fi\n'
                'name=$(basename "$0")\n'
                'for cmd in "$(git rev-parse --show-toplevel)/.lefthook/$name"/*; do\n'
                '    [ -x "$cmd" ] && { "$cmd" "$@" || exit $?; }\n'
                'done\n')
    _executable(a / ".lefthook" / "pre-push" / "lint", '#!/bin/sh\necho "lint ran for $1" >> "$MARKER"\n')
    assert hn(a, "hooks", "install").code == 0
    mem = _memory_and_commit(a)
    proc = _push(a, {"MARKER": str(marker)})
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == "lint ran for origin\n"
    assert _published(remote, mem)


def test_a_chained_program_that_is_not_a_shell_script_runs_directly(tmp_path):
    remote, a = _team(tmp_path)
    marker = tmp_path / "marker"
    python = shutil.which("python3")
    _executable(a / ".git" / "hooks" / "pre-push", f"#!{python}\nimport os, sys\n"
                "open(os.environ['MARKER'], 'a').write('python hook ' + sys.argv[1] + '\\n')\n")
    assert hn(a, "hooks", "install").code == 0
    mem = _memory_and_commit(a)
    proc = _push(a, {"MARKER": str(marker)})
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == "python hook origin\n" and _published(remote, mem)


def test_install_never_writes_into_a_tracked_hooks_directory(tmp_path):
    _remote, a = _team(tmp_path)
    team_hook = "#!/bin/sh\necho lint\n"
    _executable(a / ".husky" / "pre-push", team_hook)
    git(a, "add", ".husky")
    git(a, "commit", "-q", "-m", "team hooks")
    git(a, "config", "core.hooksPath", ".husky")
    r = hn(a, "hooks", "install")
    assert (r.code, r.out) == (1, "")
    assert r.err == ("git-hn: refusing to install into .husky (core.hooksPath): .husky/pre-push is tracked "
                     "or would show in git status; call git-hn from the team's own hook instead "
                     "(see git-hn-hooks(1), HOOK MANAGERS)\n")
    assert git(a, "status", "--porcelain", "--untracked-files=all") == ""
    assert sorted(os.listdir(a / ".husky")) == ["pre-push"]
    assert (a / ".husky" / "pre-push").read_text() == team_hook
    # an untracked but not ignored hooks directory in the worktree would show up too
    git(a, "config", "core.hooksPath", "githooks")
    r = hn(a, "hooks", "install")
    assert r.code == 1 and "githooks/pre-push is tracked or would show in git status" in r.err
    assert not (a / "githooks").exists() and git(a, "status", "--porcelain") == ""


@pytest.fixture
def stand_in_git_hn(tmp_path, monkeypatch):
    """A ``git-hn`` on PATH that install records and the test can then remove."""
    real = shutil.which("git-hn")
    bin_dir = tmp_path / "stand-in-bin"
    bin_dir.mkdir()
    (bin_dir / "git-hn").symlink_to(real)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir / "git-hn"


def test_a_moved_git_hn_is_found_on_path(tmp_path, stand_in_git_hn):
    remote, a = _team(tmp_path)
    assert hn(a, "hooks", "install").code == 0
    assert str(stand_in_git_hn) in (a / ".git" / "hooks" / "pre-push").read_text()
    stand_in_git_hn.unlink()  # the recorded path is gone; the real git-hn is still on PATH
    mem = _memory_and_commit(a)
    proc = _push(a)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert _published(remote, mem)


def test_without_any_git_hn_push_and_fetch_go_on_with_one_warning(tmp_path, stand_in_git_hn):
    remote, a = _team(tmp_path)
    assert hn(a, "hooks", "install").code == 0
    mem = _memory_and_commit(a)
    stand_in_git_hn.unlink()
    git_dir = os.path.dirname(shutil.which("git"))
    bare_path = os.pathsep.join(dict.fromkeys([git_dir, "/usr/bin", "/bin"]))
    proc = _push(a, {"PATH": bare_path})
    assert proc.returncode == 0, proc.stderr
    out = (f"cd '{(a / '.git' / 'hooks').resolve()}' && rm -f post-rewrite pre-push reference-transaction "
           f"&& rm -f '{(a / '.git' / 'hn' / 'hooks.json').resolve()}'")
    assert proc.stderr == (f"git-hn: warning: git-hn is not installed (not at {stand_in_git_hn} nor on PATH); "
                           "memory was not published; reinstall it (./install.sh in git-hn's source), or take its "
                           f"hooks out: {out}\n")
    assert git(remote, "rev-parse", "main") == git(a, "rev-parse", "main")  # the push went through
    assert not _published(remote, mem)
    fetch = subprocess.run(["git", "fetch", "-q", "origin"], cwd=a, capture_output=True, text=True,
                           env={**os.environ, "PATH": bare_path})
    assert fetch.returncode == 0, fetch.stderr
    git(remote, "update-ref", "refs/heads/other", "main")
    fetch = subprocess.run(["git", "fetch", "-q", "origin"], cwd=a, capture_output=True, text=True,
                           env={**os.environ, "PATH": bare_path})
    assert fetch.returncode == 0 and fetch.stderr == ""  # no selection: nothing to import, no git-hn
    assert hn(a, "replication", "select", "origin", "--memory", "sha256:" + "9" * 64).code == 0
    git(remote, "update-ref", "refs/heads/another", "main")
    fetch = subprocess.run(["git", "fetch", "-q", "origin"], cwd=a, capture_output=True, text=True,
                           env={**os.environ, "PATH": bare_path})
    assert fetch.returncode == 0
    assert fetch.stderr == (f"git-hn: warning: git-hn is not installed (not at {stand_in_git_hn} nor on "
                            "PATH); memory was not imported; reinstall it (./install.sh in git-hn's source), or take "
                            f"its hooks out: {out}\n")


def test_an_install_of_the_old_layout_moves_its_chained_hook_into_the_folder(tmp_path):
    _remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    original = "#!/bin/sh\necho mine\n"
    _executable(hooks / "pre-push", original)
    assert hn(a, "hooks", "install").code == 0
    # what git-hn before the folder layout left behind: <hook>.hn-chained
    os.rename(hooks / "hn-chained" / "pre-push", hooks / "pre-push.hn-chained")
    os.rmdir(hooks / "hn-chained")
    assert hn(a, "hooks", "status").out.splitlines()[0] == "pre-push: installed (chains pre-push.hn-chained)"
    r = hn(a, "hooks", "install")
    assert r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)", r.err
    assert (hooks / "hn-chained" / "pre-push").read_text() == original
    assert not (hooks / "pre-push.hn-chained").exists()
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == original


def test_the_documented_line_in_a_tracked_team_hook_publishes(tmp_path):
    """What git-hn-hooks(1) says to do instead of installing into a tracked hooks directory."""
    remote, a = _team(tmp_path)
    _executable(a / ".husky" / "pre-push",
                '#!/bin/sh\nif command -v git-hn >/dev/null; then git hn hooks run pre-push "$@"; fi\n')
    git(a, "add", ".husky")
    git(a, "commit", "-q", "-m", "team hooks")
    git(a, "config", "core.hooksPath", ".husky")
    assert hn(a, "hooks", "install").code == 1
    # status names the line added by hand (a team trial: it said "not installed")
    status = hn(a, "hooks", "status").out.splitlines()
    assert status[0] == (f"pre-push: run by hand from {a / '.husky' / 'pre-push'} (its line git hn hooks run "
                         "pre-push, as git-hn-hooks(1) gives it; no wrapper of git-hn's)"), status
    assert status[1:] == ["reference-transaction: not installed", "post-rewrite: not installed"]
    # a teammate without git-hn pushes as before (the line as the last of the hook: its status)
    (a / "x.txt").write_text("x\n")
    git(a, "add", "x.txt")
    git(a, "commit", "-q", "-m", "x")
    assert shutil.which("git-hn", path="/usr/bin:/bin") is None
    proc = _push(a, {"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    mem = _memory_and_commit(a)
    proc = _push(a)
    assert proc.returncode == 0, proc.stderr
    assert _published(remote, mem)


def _recall_ids(repo) -> dict[str, str]:
    out = hn(repo, "memory", "recall", "--include-untrusted", "--json", "--max-records", "50",
             "--lifecycle", "active", "--lifecycle", "superseded").json()
    return {m["data"]["content"]: m["id"] for m in out["memories"]}


def test_memory_survives_a_rejected_push_and_a_rebase(tmp_path):
    """Issue 12 item 4, end to end: record at a local commit, the push is rejected (a teammate
    pushed first), pull --rebase rewrites the commit, push again: the teammate's sync promotes
    the whole stream, and the memory recorded at the rewritten commit reaches them."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    for repo, name in ((a, "A"), (b, "B")):
        assert hn(repo, "init", "--name", name).code == 0
        assert hn(repo, "hooks", "install").code == 0
    first = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
               "descendants", "--content", "on the shared history").json()
    # the teammate pushes first
    (b / "theirs.txt").write_text("theirs\n")
    git(b, "add", "theirs.txt")
    git(b, "commit", "-q", "-m", "theirs")
    assert _push(b).returncode == 0
    # Alice works on a commit of her own and records a memory at it
    (a / "mine.txt").write_text("mine\n")
    git(a, "add", "mine.txt")
    git(a, "commit", "-q", "-m", "mine")
    local = git(a, "rev-parse", "HEAD")
    hn(a, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
       "--content", "made at the commit that gets rebased")
    rejected = _push(a)
    assert rejected.returncode != 0 and "rejected" in rejected.stderr
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    # nothing anchored on the rejected commit went out; what was anchored on shared history did
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", f"{ref}~1")
    pulled = subprocess.run(["git", "pull", "-q", "--rebase", "origin", "main"], cwd=a, capture_output=True,
                            text=True)
    assert pulled.returncode == 0, pulled.stderr
    rebased = git(a, "rev-parse", "HEAD")
    assert rebased != local
    assert "git-hn: re-anchored 1 unpublished memory of " in pulled.stderr
    shown = hn(a, "memory", "show", _recall_ids(a)["made at the commit that gets rebased"], "--json").json()
    assert shown["projection"]["anchor"]["commit"] == rebased
    assert _push(a).returncode == 0
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    assert subprocess.run(["git", "cat-file", "-e", local], cwd=remote).returncode != 0  # never smuggled
    # the teammate gets the whole stream, including the re-anchored memory
    git(b, "pull", "-q", "--ff-only", "origin", "main")
    assert hn(b, "replication", "select", "origin", "--memory", first["stream"]).code == 0
    doc = hn(b, "sync", "--json").json()
    assert [o["status"] for o in doc["outcomes"]] == ["promoted"]
    ids = _recall_ids(b)
    assert set(ids) == {"on the shared history", "made at the commit that gets rebased"}
    there = hn(b, "memory", "show", ids["made at the commit that gets rebased"], "--json").json()
    assert there["projection"]["anchor"]["commit"] == rebased
    # a published memory is never rewritten, even when its commit is amended afterwards
    tip = git(a, "rev-parse", ref)
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "mine, reworded"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0 and "re-anchored" not in amended.stderr
    assert git(a, "rev-parse", ref) == tip


def test_an_amend_re_anchors_the_unpublished_tail_with_paths_and_references(tmp_path):
    """Anchored paths are read again at the new commit; a memory that supersedes a rebuilt one
    follows its new ID; the state stays exact (index verify)."""
    _remote, a = _team(tmp_path)
    assert hn(a, "hooks", "install").code == 0
    (a / "app.py").write_text("print(1)\n")
    git(a, "add", "app.py")
    git(a, "commit", "-q", "-m", "app")
    old = git(a, "rev-parse", "HEAD")
    m1 = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
            "--path", "app.py", "--evidence", f"git:{old}", "--content", "print once").json()
    m2 = hn(a, "memory", "supersede", m1["memoryId"], "--json", "--kind", "decision", "--at", "HEAD",
            "--applies", "descendants", "--content", "print once, said better")
    assert m2.code == 0, m2.err
    (a / "app.py").write_text("print(2)\n")
    git(a, "add", "app.py")
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "app, fixed"], cwd=a, capture_output=True,
                             text=True)
    assert amended.returncode == 0, amended.stderr
    assert "git-hn: re-anchored 2 unpublished memories of " in amended.stderr
    new = git(a, "rev-parse", "HEAD")
    ids = _recall_ids(a)
    first = hn(a, "memory", "show", ids["print once"], "--json").json()
    assert first["projection"]["anchor"] == {"commit": new, "paths": [
        {"path": "app.py", "blob": git(a, "rev-parse", f"{new}:app.py")}]}
    assert first["projection"]["data"]["evidence"] == [f"git:{new}"]
    assert first["projection"]["lifecycle"] == "superseded"
    second = hn(a, "memory", "show", ids["print once, said better"], "--json").json()
    assert second["envelope"]["operation"] == "supersede"
    assert second["envelope"]["target"] == ids["print once"]
    assert m1["memoryId"] not in ids.values()  # the old ID is gone from the stream
    assert hn(a, "memory", "index", "verify").code == 0


def test_a_hook_that_is_a_relative_link_keeps_running_and_comes_back_as_it_was(tmp_path):
    """A team keeps its pre-push hook in the tree and links it (``.git/hooks/pre-push ->
    ../../scripts/pre-push``): chained one folder down, the same link text would point at
    nothing and the team's gate would silently stop."""
    remote, a = _team(tmp_path)
    (a / "scripts").mkdir()
    _executable(a / "scripts" / "pre-push", "#!/bin/sh\necho GATE >&2\nexit 1\n")
    hook = a / ".git" / "hooks" / "pre-push"
    hook.symlink_to("../../scripts/pre-push")
    assert hn(a, "hooks", "install").code == 0
    proc = _push(a)
    assert proc.returncode != 0 and "GATE" in proc.stderr  # still runs, still blocks
    _executable(a / "scripts" / "pre-push", "#!/bin/sh\nexit 0\n")
    assert _push(a).returncode == 0
    assert hn(a, "hooks", "uninstall").code == 0
    assert hook.is_symlink() and os.readlink(hook) == "../../scripts/pre-push"
    # a link that already points at nothing is a hook too: chained, and restored as it was
    hook.unlink()
    hook.symlink_to("../../scripts/gone")
    assert hn(a, "hooks", "install").code == 0
    assert hn(a, "hooks", "uninstall").code == 0
    assert hook.is_symlink() and os.readlink(hook) == "../../scripts/gone"


# pre-commit 4.x's hook in "migration mode" (``pre-commit install`` over an existing hook moves
# it to <hook>.legacy): hook_impl._run_legacy, as a script. It refuses to run inside a legacy
# hook (PRE_COMMIT_RUNNING_LEGACY), and runs <hook>.legacy with the hook's input and arguments.
PRE_COMMIT_MIGRATION = '''#!/usr/bin/env python3
# File generated by pre-commit: https://pre-commit.com
import os, subprocess, sys
if os.environ.get("PRE_COMMIT_RUNNING_LEGACY"):
    sys.exit("bug: pre-commit's script is installed in migration mode\\n"
             "run `pre-commit install -f --hook-type pre-push` to fix this")
stdin = sys.stdin.buffer.read()
legacy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pre-push.legacy")
code = 0
if os.access(legacy, os.X_OK):
    env = {**os.environ, "PRE_COMMIT_RUNNING_LEGACY": "1"}
    code = subprocess.run([legacy, *sys.argv[1:]], input=stdin, env=env).returncode
with open(os.environ["MARKER"], "a") as fh:
    fh.write("pre-commit checks ran\\n")
sys.exit(code)
'''


@pytest.mark.parametrize("own,mode", [(False, "warn"), (True, "warn"), (False, "block")])
def test_pre_commit_installed_after_git_hn_keeps_publishing_and_uninstalls_cleanly(tmp_path, own, mode):
    """pre-commit's ``install`` after git-hn's moves the wrapper to pre-push.legacy and runs it;
    the variable it sets then reached git-hn's own publication push, whose pre-commit hook
    refused it, so memory silently stopped being published. ``hooks status`` says where the
    wrapper is, and ``uninstall`` puts the hook git-hn chained (if any) where pre-commit runs it."""
    remote, a = _team(tmp_path)
    marker = tmp_path / "marker"
    hooks = a / ".git" / "hooks"
    team = '#!/bin/sh\necho "team hook ran for $1" >> "$MARKER"\n'
    if own:
        _executable(hooks / "pre-push", team)
    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "pre-push", hooks / "pre-push.legacy")  # what pre-commit install does
    _executable(hooks / "pre-push", PRE_COMMIT_MIGRATION)
    git(a, "config", "hn.prePush", mode)  # (block: git-hn's publication push runs inside the hook)
    status = hn(a, "hooks", "status").out.splitlines()
    how = ("git hn hooks uninstall, then git hn hooks install, puts pre-commit's hook first (with the hook "
           "git-hn chained as pre-commit's legacy hook)" if own else
           "git hn hooks install chains pre-commit's hook instead, so its checks run first")
    assert status[0] == ("pre-push: installed but publishes too early: pre-commit runs it as pre-push.legacy "
                         "before its own checks, so memory is published even for a push they refuse; " + how)
    if own:  # installing again keeps it so: two hooks cannot be chained
        assert hn(a, "hooks", "install").out.splitlines()[0] == status[0]
    assert (hooks / "pre-push").read_text() == PRE_COMMIT_MIGRATION
    chained = hooks / "hn-chained" / "pre-push"
    assert (chained.read_text() if chained.exists() else None) == (team if own else None)
    mem = _memory_and_commit(a)
    proc = _push(a, {"MARKER": str(marker)})
    assert proc.returncode == 0, proc.stderr
    assert _published(remote, mem), proc.stderr
    ran = marker.read_text().splitlines()
    # once: git-hn's publication push, started after they approved this push, does not run them
    # again (a team trial: a slow pre-push stage paid twice per push)
    assert ran.count("pre-commit checks ran") == 1 and "bug" not in proc.stderr, ran
    assert ("team hook ran for origin" in ran) == own
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == PRE_COMMIT_MIGRATION
    if own:
        assert (hooks / "pre-push.legacy").read_text() == team
    else:
        assert not (hooks / "pre-push.legacy").exists()
    assert not (hooks / "hn-chained").exists()
    assert hn(a, "hooks", "status").out.splitlines()[0] == "pre-push: not installed"
    if own:  # the status's way: pre-commit's hook chained, the team's hook its legacy hook
        assert hn(a, "hooks", "install").out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"
        marker.unlink()
        (a / "again.txt").write_text("again\n")
        git(a, "add", "again.txt")
        git(a, "commit", "-q", "-m", "again")
        proc = _push(a, {"MARKER": str(marker)})
        assert proc.returncode == 0, proc.stderr
        # (the stand-in finds its legacy hook from __file__, chained: the real one's bash uses "$0")
        assert (hooks / "pre-push.legacy").read_text() == team and "pre-commit checks ran" in marker.read_text()
        assert _published(remote, mem)


@pytest.mark.parametrize("loss", ["index rebuild", "state removed", "state unsealed"])
def test_a_published_memory_is_never_signed_again_after_the_state_is_lost(tmp_path, loss):
    """What each remote was given lived only in the verified state, which a rebuild (or a new
    version of git-hn, or a copied repository) discards: an amend after it took the published
    memory for unpublished and signed it again at the same sequence, so the clone equivocated.
    The publication journal (``hn/replication/given-v0``) outlives the state."""
    remote, a = _team(tmp_path)
    assert hn(a, "hooks", "install").code == 0
    git(a, "push", "-q", "origin", "main")
    mem = _memory_and_commit(a)  # anchored on the pushed commit, recorded before the new one
    assert hn(a, "sync").code == 0
    assert _published(remote, mem)
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    tip = git(a, "rev-parse", ref)
    journal = a / ".git" / "hn" / "replication" / "given-v0"
    assert journal.read_text() == f"origin {ref} {tip}\n"
    state = a / ".git" / "hn" / "memory"
    if loss == "index rebuild":
        assert hn(a, "memory", "index", "rebuild").code == 0
    elif loss == "state removed":
        for p in state.glob("state-v0*"):
            p.unlink()
    else:
        for p in state.glob("state-v0*.seal"):
            p.unlink()
    anchor = git(a, "rev-parse", "HEAD~1")
    git(a, "reset", "-q", "--hard", "HEAD~1")  # rewrite the commit the memory is anchored on
    (a / "work.txt").write_text("other work\n")
    git(a, "add", "work.txt")
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "rewritten"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0, amended.stderr
    assert "re-anchored" not in amended.stderr, amended.stderr
    assert git(a, "rev-parse", ref) == tip  # the published memory stands as it was given
    r = hn(a, "memory", "reanchor", anchor, "HEAD")
    assert r.code == 1 and r.err.startswith(f"git-hn: no unpublished memory of yours names commit {anchor}"), r.err
    assert hn(a, "sync").code == 0 and git(remote, "rev-parse", ref) == tip


def test_a_state_recorded_before_the_journal_passes_its_record_on_when_rebuilt(tmp_path):
    """A clone that published with an earlier git-hn has its record in the state alone: the
    rebuild that replaces that state writes it into the journal first."""
    remote, a = _team(tmp_path)
    git(a, "push", "-q", "origin", "main")
    mem = _memory_and_commit(a)
    assert hn(a, "sync").code == 0
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    journal = a / ".git" / "hn" / "replication" / "given-v0"
    journal.unlink()  # as an earlier version left it
    assert hn(a, "memory", "index", "rebuild").code == 0
    assert journal.read_text() == f"origin {ref} {git(a, 'rev-parse', ref)}\n"


def test_a_damaged_publication_journal_is_never_taken_for_nothing_published(tmp_path):
    remote, a = _team(tmp_path)
    assert hn(a, "hooks", "install").code == 0
    git(a, "push", "-q", "origin", "main")
    mem = _memory_and_commit(a)
    assert hn(a, "sync").code == 0
    journal = a / ".git" / "hn" / "replication" / "given-v0"
    journal.write_text("damaged\n")
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    tip = git(a, "rev-parse", ref)
    git(a, "reset", "-q", "--hard", "HEAD~1")
    amended = subprocess.run(["git", "commit", "-q", "--amend", "--allow-empty", "-m", "rewritten"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0
    assert (f"publication journal {journal} is damaged (each line is a remote, a memory ref and an object "
            "ID): move it aside, then run git hn sync with each remote, which records again what each "
            "holds") in amended.stderr, amended.stderr
    assert "git hn memory reanchor" not in amended.stderr  # (that command refuses the same way: a review)
    assert git(a, "rev-parse", ref) == tip
    journal.rename(journal.with_name("given-v0.damaged"))  # what the message says to do
    assert hn(a, "sync").code == 0
    assert f"origin {ref} {tip}\n" in journal.read_text()


def test_the_push_gate_reads_what_was_given_from_the_journal_after_a_rebuild(tmp_path):
    """The pre-push gate took what the remote was given from the state alone: after a rebuild
    it offered the whole stream again, held it at a published memory whose commit a force-push
    had taken off the remote, and advised a reanchor that (rightly) refuses a published memory."""
    remote, a = _team(tmp_path)
    assert hn(a, "hooks", "install").code == 0
    git(a, "push", "-q", "origin", "main")
    first = _memory_and_commit(a)  # anchored on the pushed main, and published with the push below
    assert _push(a).returncode == 0 and _published(remote, first)
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    git(a, "reset", "-q", "--hard", "HEAD~1")
    git(a, "commit", "-q", "--amend", "--allow-empty", "-m", "rewritten")  # the anchor, off the remote
    forced = subprocess.run(["git", "push", "-q", "--force", "origin", "main"], cwd=a, capture_output=True,
                            text=True)
    wait_publication(a)
    assert forced.returncode == 0
    assert hn(a, "memory", "index", "rebuild").code == 0  # the state's record of what was given: gone
    second = _memory_and_commit(a)
    proc = _push(a)
    assert proc.returncode == 0 and "waits for commit" not in proc.stderr, proc.stderr
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)  # the new memory went out
    assert second["memoryId"] in hn(a, "memory", "log", "--json").out


def test_a_record_says_when_git_hns_hooks_were_rewritten_by_a_hook_manager(tmp_path):
    """A team trial: husky regenerated its hooks directory after git-hn had chained its stubs,
    and memory was silently no longer published on push (only hooks status told). The next
    record says which hooks are gone and how to put them back; after that, it says nothing."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    hooks = repo / ".husky" / "_"
    hooks.mkdir(parents=True)
    (hooks / ".gitignore").write_text("*\n")  # (as husky writes it)
    git(repo, "config", "core.hooksPath", ".husky/_")
    assert hn(repo, "hooks", "install").code == 0
    args = ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content")
    assert unhinted(hn(repo, *args, "while installed").err) == ""
    for name in ("pre-push", "post-rewrite"):  # (what the manager's regeneration writes)
        (hooks / name).write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    r = hn(repo, *args, "after the manager ran")
    assert r.code == 0
    assert unhinted(r.err) == ("git-hn: warning: git-hn's pre-push, post-rewrite hooks were installed here and are "
                               "gone (did a hook manager rewrite its hooks?), so memory is not kept in step with push "
                               "and fetch: git hn hooks install puts them back\n"), r.err
    assert hn(repo, "hooks", "install").code == 0
    assert unhinted(hn(repo, *args, "installed again").err) == ""
    # a manager's own stub, chained by the install, written again over the wrapper (a team trial:
    # the chained copy left behind counted as the hook being there)
    (hooks / "pre-push").write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    (hooks / "pre-push").chmod(0o755)
    assert hn(repo, "hooks", "install").code == 0
    assert (hooks / "hn-chained" / "pre-push").exists()
    assert unhinted(hn(repo, *args, "chained").err) == ""
    (hooks / "pre-push").write_text((hooks / "hn-chained" / "pre-push").read_text())
    r = hn(repo, *args, "stub written again")
    assert r.code == 0 and r.err.startswith("git-hn: warning: git-hn's pre-push hook was installed here and is gone"), r.err
    assert hn(repo, "hooks", "install").code == 0
    assert unhinted(hn(repo, *args, "installed once more").err) == ""
    moved = tmp_path / "moved"  # (a review: a moved repository's record names the old place; no warning)
    os.rename(repo, moved)
    r = hn(moved, *args, "after a move")
    assert r.code == 0 and unhinted(r.err) == "", r.err


def test_post_rewrite_run_by_pre_commit_is_said_to_be_inert(tmp_path):
    """A team trial: ``hooks status`` said post-rewrite was installed when pre-commit (installed
    after git-hn) ran it as post-rewrite.legacy, but pre-commit gives a legacy hook its input
    only for pre-push, so an amend re-anchored nothing. The status says so, and the way back."""
    _remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "post-rewrite", hooks / "post-rewrite.legacy")  # what pre-commit install does
    _executable(hooks / "post-rewrite", PRE_COMMIT_MIGRATION.replace("pre-push", "post-rewrite"))
    lines = hn(a, "hooks", "status").out.splitlines()
    assert "post-rewrite: installed but inert: pre-commit runs it as post-rewrite.legacy without the rewritten " \
           "commits, so an amend or a rebase re-anchors nothing; git hn hooks install chains pre-commit's hook " \
           "instead, so both run" in lines, lines


def _inert_post_rewrite(tmp_path):
    """git-hn's hooks, then pre-commit's post-rewrite in migration mode over them: (a, hooks)."""
    _remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "post-rewrite", hooks / "post-rewrite.legacy")  # what pre-commit install does
    _executable(hooks / "post-rewrite", PRE_COMMIT_MIGRATION.replace("pre-push", "post-rewrite"))
    return a, hooks


def test_install_again_chains_pre_commits_post_rewrite_so_both_run(tmp_path):
    """A team trial: with post-rewrite inert under pre-commit, ``git hn hooks install`` exited 0
    and changed nothing. It now chains pre-commit's hook (nothing is left as post-rewrite.legacy,
    so the two cannot run each other): an amend runs pre-commit's checks and re-anchors, and
    uninstall puts pre-commit's hook back alone."""
    a, hooks = _inert_post_rewrite(tmp_path)
    pre_commit = (hooks / "post-rewrite").read_text()
    assert hn(a, "hooks", "install").out.splitlines()[2] == "post-rewrite: installed (chains hn-chained/post-rewrite)"
    assert not (hooks / "post-rewrite.legacy").exists()
    assert (hooks / "hn-chained" / "post-rewrite").read_text() == pre_commit
    (a / "y.txt").write_text("y\n")
    git(a, "add", "y.txt")
    git(a, "commit", "-q", "-m", "y")
    r = hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "y")
    assert r.code == 0, r.err
    marker = tmp_path / "marker"
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "y, reworded"], cwd=a, capture_output=True,
                             text=True, env={**os.environ, "MARKER": str(marker)})
    assert amended.returncode == 0 and "re-anchored 1 unpublished memory" in amended.stderr, amended.stderr
    assert marker.read_text() == "pre-commit checks ran\n" and "bug" not in amended.stderr
    # pre-commit installed once more over it (the same script): install chains it again
    os.rename(hooks / "post-rewrite", hooks / "post-rewrite.legacy")
    _executable(hooks / "post-rewrite", pre_commit)
    # (the wrapper skips pre-commit's chained copy while pre-commit runs it: inert, not broken)
    assert "installed but inert" in hn(a, "hooks", "status").out
    assert hn(a, "hooks", "install").out.splitlines()[2] == "post-rewrite: installed (chains hn-chained/post-rewrite)"
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "post-rewrite").read_text() == pre_commit
    assert not (hooks / "post-rewrite.legacy").exists() and not (hooks / "hn-chained").exists()


def test_a_post_rewrite_with_a_hook_chained_already_is_left_and_said(tmp_path):
    """Two hooks cannot be chained: with the team's own post-rewrite chained before pre-commit
    came, install leaves it as it is, and the status gives pre-commit's way back."""
    _remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    _executable(hooks / "post-rewrite", "#!/bin/sh\nexit 0\n")
    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "post-rewrite", hooks / "post-rewrite.legacy")
    _executable(hooks / "post-rewrite", PRE_COMMIT_MIGRATION.replace("pre-push", "post-rewrite"))
    out = hn(a, "hooks", "install").out
    assert "installed but inert" in out and "pre-commit uninstall -t post-rewrite puts git-hn's back" in out, out
    assert (hooks / "post-rewrite.legacy").exists()


PRE_PUSH_CONFIG = """repos:
- repo: local
  hooks:
  - id: team-check
    name: team check
    language: system
    entry: "true"
    pass_filenames: false
    always_run: true
    stages: [pre-push]
"""


def _pre_commit(repo, *args) -> subprocess.CompletedProcess:
    """The real pre-commit (a dev dependency), run in ``repo``."""
    pytest.importorskip("pre_commit", reason="pre-commit is not installed here (./install.sh --dev installs it)")
    import sys

    proc = subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.mark.parametrize("repair", ["install", "uninstall"])
def test_pre_commit_installed_again_over_its_chained_hook_never_fails_the_push(tmp_path, repair):
    """A team trial: pre-commit's hook chained by git-hn, then ``pre-commit install`` run again
    (README: supported) moved the wrapper to pre-push.legacy, which ran the chained pre-commit
    script again, which stopped with pre-commit's "installed in migration mode" bug: every push
    failed, while ``hooks status`` said installed. The wrapper now skips that copy while pre-commit
    runs it, so the push works at once; status says so, or says "broken" of a wrapper an earlier
    git-hn wrote; install drops the copy (the same generated script pre-commit runs at pre-push)
    and uninstall leaves pre-commit's hook alone, and the push works."""
    import json

    from git_hn.core import hashing

    remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    (a / ".pre-commit-config.yaml").write_text(PRE_PUSH_CONFIG)
    git(a, "add", ".pre-commit-config.yaml")
    git(a, "commit", "-q", "-m", "pre-commit config")
    _pre_commit(a, "install", "-t", "pre-push")
    assert hn(a, "hooks", "install").out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"
    assert "migration mode" in _pre_commit(a, "install", "-t", "pre-push").stdout
    assert hn(a, "hooks", "status").out.splitlines()[0] == (
        "pre-push: installed but publishes too early: pre-commit runs it as pre-push.legacy before its own checks, "
        "so memory is published even for a push they refuse; it skips hn-chained/pre-push, a copy of pre-commit's "
        "own hook; git hn hooks install chains pre-commit's hook instead, so its checks run first")
    first = _memory_and_commit(a)
    proc = _push(a)
    assert proc.returncode == 0 and "bug" not in proc.stderr, proc.stdout + proc.stderr
    assert "team check" in proc.stdout + proc.stderr and _published(remote, first)
    # the wrapper as git-hn wrote it before it skipped the copy: every push failed
    legacy = hooks / "pre-push.legacy"
    guard = legacy.read_text().split("    # pre-commit runs this wrapper as its legacy hook", 1)[1].split("    fi\n", 1)[0]
    old = legacy.read_text().replace("    # pre-commit runs this wrapper as its legacy hook" + guard + "    fi\n", "")
    assert "PRE_COMMIT_RUNNING_LEGACY" not in old and old.count("run_chained()") == 1
    legacy.write_text(old)
    record = a / ".git" / "hn" / "hooks.json"
    doc = json.loads(record.read_text())
    doc["hooks"][0]["wrapper"] = hashing.sha256(old.encode()).hexdigest()
    record.write_text(json.dumps(doc))
    assert hn(a, "hooks", "status").out.splitlines()[0] == (
        "pre-push: broken: pre-commit runs it as pre-push.legacy, and it runs pre-commit's own hook again "
        "(hn-chained/pre-push), which stops with pre-commit's \"bug: ... migration mode\" error, so every push "
        "fails; git hn hooks install repairs it")
    (a / "more.txt").write_text("more\n")
    git(a, "add", "more.txt")
    git(a, "commit", "-q", "-m", "more")
    proc = _push(a)
    assert proc.returncode != 0 and "migration mode" in proc.stderr, proc.stdout + proc.stderr
    r = hn(a, "hooks", repair)
    assert r.code == 0, r.err
    if repair == "install":  # (pre-commit's hook chained, the wrapper back in its place: its checks first)
        assert r.out.splitlines()[0] == ("pre-push: installed (chains hn-chained/pre-push), its wrapper updated "
                                         "from an earlier git-hn's")
        assert not (hooks / "pre-push.legacy").exists()
    else:
        assert not (hooks / "hn-chained").exists()
        assert r.out.splitlines()[0] == "pre-push: removed"
        assert not (hooks / "pre-push.legacy").exists()
    mem = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
             "--content", "after the repair").json()
    (a / "more.txt").write_text("more, again\n")
    git(a, "commit", "-q", "-am", "again")
    proc = _push(a)
    assert proc.returncode == 0 and "bug" not in proc.stderr, proc.stdout + proc.stderr
    assert "team check" in proc.stdout + proc.stderr  # (pre-commit's checks ran)
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert (git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)) == (repair == "install")


def test_the_pre_commit_skip_is_only_for_the_wrapper_run_as_pre_commits_legacy_hook(tmp_path):
    """A review: the wrapper skipped a chained copy of pre-commit's script whenever
    ``PRE_COMMIT_RUNNING_LEGACY`` was set, and a legacy hook passes that variable on to what it
    starts (a nested ``git push`` whose pre-push is this wrapper): the team's checks were
    skipped and the push went through. The skip holds only for the wrapper run as
    ``<hook>.legacy``."""
    remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    script = hooks / "pre-push"
    script.write_text("#!/bin/sh\n# File generated by pre-commit: https://pre-commit.com\n"
                      "echo 'team checks: FAILED' >&2\nexit 1\n")
    script.chmod(0o755)
    assert hn(a, "hooks", "install").out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"
    for env in ({}, {"PRE_COMMIT_RUNNING_LEGACY": "1"}):
        proc = _push(a, env)
        assert proc.returncode != 0 and "team checks: FAILED" in proc.stderr, (env, proc.stderr)
    assert git(remote, "for-each-ref", "refs/heads/") == ""


@pytest.mark.parametrize("library", [False, True])
def test_a_bash_hook_with_a_main_guard_and_a_library_beside_it_runs_as_git_ran_it(tmp_path, library):
    """A trial: the chained hook was sourced from hn-chained/, so ``${BASH_SOURCE[0]}`` was not
    ``$0``: a hook behind the common bash main guard never ran its checks (a push it refuses went
    through, memory published), and one that sources a library beside it failed every push."""
    remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    _executable(hooks / "pre-push", '#!/usr/bin/env bash\n'
                + ('. "$(dirname "${BASH_SOURCE[0]}")/pre-push-lib.sh"\n' if library else
                   'refusal() { echo "pushes to release are refused"; }\n') +
                'main() { while read -r l ls r rs; do [[ $r == refs/heads/release ]] && '
                '{ echo "pre-push: $(refusal)" >&2; return 1; }; done; return 0; }\n'
                'if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main "$@"; fi\n')
    (hooks / "pre-push-lib.sh").write_text('refusal() { echo "pushes to release are refused"; }\n')
    assert hn(a, "hooks", "install").code == 0
    mem = _memory_and_commit(a)
    git(a, "branch", "release")
    proc = subprocess.run(["git", "push", "-q", "origin", "release"], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert proc.returncode == 1 and "pre-push: pushes to release are refused" in proc.stderr, proc.stderr
    assert not _published(remote, mem)
    proc = _push(a)
    assert proc.returncode == 0, proc.stderr
    assert _published(remote, mem)


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_pre_commit_installed_after_git_hn_runs_its_checks_before_memory_is_published(tmp_path, mode):
    """A trial: ``pre-commit install`` after git-hn's moves the wrapper to pre-push.legacy, and
    pre-commit runs its legacy hook before its own checks, so a push they refused had published
    memory already. ``hooks status`` says so; ``hooks install`` chains pre-commit's hook and puts
    the wrapper back, so the team's checks run first and memory goes out only when they pass."""
    remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "hn.prePush", mode)
    assert _push(a).returncode == 0  # main is on the remote: a memory anchored there may go out
    r = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "only after the team's checks")
    assert r.code == 0, r.err
    mem = r.json()
    (a / ".pre-commit-config.yaml").write_text(PRE_PUSH_CONFIG.replace('entry: "true"', 'entry: "false"'))
    git(a, "add", ".pre-commit-config.yaml")
    git(a, "commit", "-q", "-m", "pre-commit config")
    _pre_commit(a, "install", "-t", "pre-push")
    assert hn(a, "hooks", "status").out.splitlines()[0] == (
        "pre-push: installed but publishes too early: pre-commit runs it as pre-push.legacy before its own "
        "checks, so memory is published even for a push they refuse; git hn hooks install chains pre-commit's "
        "hook instead, so its checks run first")
    pre_commit = (hooks / "pre-push").read_text()
    r = hn(a, "hooks", "install")
    assert r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)", r.out + r.err
    proc = _push(a)
    assert proc.returncode != 0 and "team check" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert not _published(remote, mem)  # (refused by the team's checks: nothing went out)
    (a / ".pre-commit-config.yaml").write_text(PRE_PUSH_CONFIG)
    git(a, "commit", "-q", "-am", "checks pass")
    proc = _push(a)
    assert proc.returncode == 0 and (proc.stdout + proc.stderr).count("team check") == 1, proc.stdout + proc.stderr
    assert _published(remote, mem)
    assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == pre_commit
    assert not (hooks / "pre-push.legacy").exists() and not (hooks / "hn-chained").exists()


LEFTHOOK_HOOK = '#!/bin/sh\n\nif [ "$LEFTHOOK" = "0" ]; then\n  exit 0\nfi\n\ncall_lefthook()\n{\n  :\n}\n\ncall_lefthook run "pre-push" "$@"\n'


@pytest.mark.parametrize("then", ["install", "uninstall"])
def test_lefthook_installed_after_git_hn_leaves_no_stale_wrapper_as_old(tmp_path, then):
    """A trial: lefthook's install renames the hook it finds to ``<hook>.old`` (and never runs
    it); ``hooks install`` then chained lefthook's hook but left git-hn's wrapper there, so
    lefthook's next install failed ("can't rename pre-push to pre-push.old - file already
    exists"), and ``hooks uninstall`` left it too. Both remove a wrapper of git-hn's found there,
    and nothing else there."""
    _remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "pre-push", hooks / "pre-push.old")  # what lefthook install does
    _executable(hooks / "pre-push", LEFTHOOK_HOOK)
    _executable(hooks / "post-rewrite.old", "#!/bin/sh\necho mine\n")  # (not git-hn's: left alone)
    assert hn(a, "hooks", "status").out.splitlines()[0] == "pre-push: not installed"
    r = hn(a, "hooks", then)
    assert r.code == 0, r.err
    assert not (hooks / "pre-push.old").exists()
    assert (hooks / "post-rewrite.old").read_text() == "#!/bin/sh\necho mine\n"
    if then == "install":
        assert r.out.splitlines()[0] == "pre-push: installed (chains hn-chained/pre-push)"
        assert hn(a, "hooks", "uninstall").code == 0
    assert (hooks / "pre-push").read_text() == LEFTHOOK_HOOK
    assert not (hooks / "pre-push.old").exists() and not (hooks / "hn-chained").exists()


@pytest.mark.parametrize("source", ['"${BASH_SOURCE[0]}"', '"$0"'])
def test_a_linked_bash_hook_finds_its_library_through_the_link_as_under_git(tmp_path, source):
    """A review: a team keeps its hook in the tree (``.git/hooks/pre-push -> ../../tools/pre-push``)
    and finds its library with ``readlink -f "${BASH_SOURCE[0]}"`` (or ``"$0"``). Run as the wrapper's
    file, both named the wrapper, the library was looked for in ``.git/hooks`` and every push failed;
    run through its link, both resolve to ``tools/pre-push`` as under plain Git, and a main guard
    still runs its checks."""
    remote, a = _team(tmp_path)
    _executable(a / "tools" / "pre-push", '#!/bin/bash\nset -e\n'
                f'HERE=$(cd "$(dirname "$(readlink -f {source})")" && pwd)\n. "$HERE/common.sh"\n'
                'if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then check "$@"; fi\n')
    (a / "tools" / "common.sh").write_text(
        'check() { while read -r l ls r rs; do [[ $r == refs/heads/release ]] && '
        '{ echo "pre-push: pushes to release are refused" >&2; return 1; }; done; echo loaded >&2; }\n')
    (a / ".git" / "hooks" / "pre-push").symlink_to("../../tools/pre-push")
    assert hn(a, "hooks", "install").code == 0
    mem = _memory_and_commit(a)
    git(a, "branch", "release")
    proc = subprocess.run(["git", "push", "-q", "origin", "release"], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert proc.returncode == 1 and "pre-push: pushes to release are refused" in proc.stderr, proc.stderr
    assert not _published(remote, mem)
    proc = _push(a)
    assert proc.returncode == 0 and "loaded" in proc.stderr, proc.stderr
    assert _published(remote, mem)
