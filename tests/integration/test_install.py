"""install.sh on a fresh machine (an empty HOME and virtual environment), then ``git hn demo``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import REAL_PIP_CACHE

ROOT = Path(__file__).resolve().parents[2]


def test_install_into_empty_environment_then_demo(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    bindir = str(ROOT / ".venv" / "bin")
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != bindir)
    env.update({"HOME": str(home), "GIT_HN_HOME": str(tmp_path / "hn"),
                "GIT_HN_BIN": str(tmp_path / "bin"), "PIP_CACHE_DIR": REAL_PIP_CACHE})
    env.pop("MANPATH", None)
    for again in (False, True):  # idempotent: a second run over the first install works too
        proc = subprocess.run([str(ROOT / "install.sh")], env=env, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr
        # (an upgrade in place says that the clones' hook wrappers stay the earlier ones)
        note = ("note: in each clone with git-hn's hooks, git hn hooks install updates their wrappers to this version "
                "(git hn hooks install --global, for hooks installed in your global core.hooksPath)")
        assert (note in proc.stdout) == again, proc.stdout
    link = tmp_path / "bin" / "git-hn"
    assert link.is_symlink() and os.access(link, os.X_OK)
    env["PATH"] = str(tmp_path / "bin") + os.pathsep + env["PATH"]
    demo = subprocess.run(["git", "hn", "demo"], env=env, capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert demo.returncode == 0, demo.stderr
    assert "$ git hn memory record --kind decision" in demo.stdout
    assert "Memory refs written" in demo.stdout
    assert "refs/hn/memory/" in demo.stdout
    assert "Next, in your own repository: git hn init; git hn hooks install" in demo.stdout
    # `git help hn` opens the installed page; completion is installed for bash and zsh
    assert (tmp_path / "share" / "man" / "man1" / "git-hn.1").exists()
    assert (tmp_path / "share" / "man" / "man7" / "hn-memory.7").exists()
    from git_hn import docgen

    for page in docgen.pages():  # (every group's page too: man git-hn-policy found none, f164)
        assert (tmp_path / "share" / "man" / f"man{page[-1]}" / page).read_text() == (ROOT / "man" / page).read_text()
    helped = subprocess.run(["git", "help", "hn"], env={**env, "MANPAGER": "cat", "PAGER": "cat",
                                                         "MANWIDTH": "80"},
                            capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert helped.returncode == 0, helped.stderr
    assert "git-hn - signed, verifiable project memory carried by Git" in helped.stdout
    assert (home / ".local" / "share" / "bash-completion" / "completions" / "git-hn").exists()
    assert (tmp_path / "share" / "zsh" / "site-functions" / "_git-hn").exists()
    # the installed package is the copy in GIT_HN_HOME, not this checkout
    where = subprocess.run([str(tmp_path / "hn" / "venv" / "bin" / "python"), "-c",
                            "import git_hn, os; print(os.path.dirname(git_hn.__file__))"],
                           env=env, capture_output=True, text=True, cwd=tmp_path)
    assert where.stdout.strip().startswith(str(tmp_path / "hn" / "venv"))
    # no .pth file runs code at each start of git-hn's interpreter (setuptools' distutils hack:
    # ~1.7 M instructions of every command, issue 11), and the executable is bin/git-hn's
    assert not list((tmp_path / "hn" / "venv").glob("lib/python*/site-packages/distutils-precedence.pth"))
    installed = (tmp_path / "hn" / "venv" / "bin" / "git-hn").read_text().split("\n", 1)
    assert installed[0].startswith(f"#!{tmp_path / 'hn' / 'venv' / 'bin' / 'python'}")
    assert installed[1] == (ROOT / "bin" / "git-hn").read_text().split("\n", 1)[1]
    _uninstall(tmp_path, env)


def _uninstall(tmp_path, env):
    """``./install.sh --uninstall`` removes what the install put in place; ``--hooks`` first
    removes the hooks git-hn installed in the current repository (issue 12 item 3)."""
    repo = tmp_path / "project"
    for args in (["init", "-q", str(repo)], ["-C", str(repo), "commit", "-q", "--allow-empty", "-m", "c"]):
        subprocess.run(["git", *args], env=env, check=True, capture_output=True)
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    assert subprocess.run(["git", "hn", "hooks", "install"], env=env, cwd=repo, capture_output=True).returncode == 0
    kept = subprocess.run([str(ROOT / "install.sh"), "--uninstall"], env=env, cwd=repo, capture_output=True,
                          text=True, timeout=120)
    assert kept.returncode == 0, kept.stderr
    assert "note: the hooks in this repository stay" in kept.stdout
    assert not (tmp_path / "bin" / "git-hn").exists() and not (tmp_path / "hn").exists()
    assert not list((tmp_path / "share" / "man").glob("man*/*"))
    assert not (tmp_path / "share" / "zsh" / "site-functions" / "_git-hn").exists()
    assert (hooks / "hn-chained" / "pre-push").exists()  # without --hooks, the hooks stay
    refused = subprocess.run([str(ROOT / "install.sh"), "--uninstall", "--hooks"], env=env, cwd=repo,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "nothing was removed" in refused.stderr
    proc = subprocess.run([str(ROOT / "install.sh")], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    gone = subprocess.run([str(ROOT / "install.sh"), "--uninstall", "--hooks"], env=env, cwd=repo,
                          capture_output=True, text=True, timeout=120)
    assert gone.returncode == 0, gone.stderr
    assert sorted(p.name for p in hooks.iterdir() if not p.name.endswith(".sample")) == ["pre-push"]
    assert (hooks / "pre-push").read_text() == "#!/bin/sh\nexit 0\n"
    assert not (tmp_path / "bin" / "git-hn").exists() and not (tmp_path / "hn").exists()


def test_uninstall_notes_the_hooks_that_stay_however_git_hn_writes_its_lines(tmp_path):
    """A newcomer trial: ``./install.sh --uninstall`` in a repository with hooks left out its
    "the hooks in this repository stay" note three runs in four. Under ``set -o pipefail``,
    ``git-hn hooks status | grep -q ': installed'`` was false whenever grep had quit at its first
    match before git-hn wrote its next line (git-hn then exits 1 on the broken pipe). The
    installed git-hn here is a wrapper around the real one that hands on its lines one at a time,
    a moment apart: grep has always quit by the next one, so the race is lost every run."""
    repo = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "c"], check=True)
    real = Path(sys.executable).parent / "git-hn"
    assert subprocess.run([str(real), "hooks", "install"], cwd=repo, capture_output=True).returncode == 0
    venv = tmp_path / "hn" / "venv"
    (venv / "bin").mkdir(parents=True)
    wrapper = venv / "bin" / "git-hn"
    wrapper.write_text(f"#!/bin/sh\n'{real}' \"$@\" | while IFS= read -r line; do\n"
                       "  printf '%s\\n' \"$line\"; sleep 0.2\ndone\n")
    wrapper.chmod(0o755)
    env = {**os.environ, "GIT_HN_HOME": str(tmp_path / "hn"), "GIT_HN_BIN": str(tmp_path / "bin"),
           "GIT_HN_MAN": str(tmp_path / "man"), "GIT_HN_BASH_COMPLETION": str(tmp_path / "bash"),
           "GIT_HN_ZSH_COMPLETION": str(tmp_path / "zsh")}
    proc = subprocess.run([str(ROOT / "install.sh"), "--uninstall"], env=env, cwd=repo, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == ("note: the hooks in this repository stay (push and fetch go on without "
                                           "git-hn, with a warning); remove them with ./install.sh --uninstall --hooks")
    assert not venv.exists()


def _refusal_env(tmp_path, python: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIRTUAL_ENV")}
    env.update({"HOME": str(tmp_path / "home"), "GIT_HN_HOME": str(tmp_path / "hn"),
                "GIT_HN_BIN": str(tmp_path / "bin"), "PYTHON": python})
    return env


def _script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_install_refuses_a_python_it_was_given_and_cannot_use(tmp_path):
    """A newcomer trial (f166): ``PYTHON=python3.12 ./install.sh`` with no python3.12 there, or
    one older than 3.11, silently installed with whatever ``python3`` was. A ``PYTHON`` given is
    used or refused with one line naming it and why, before anything is written."""
    old = _script(tmp_path, "python3.10", "echo 3.10.12")
    broken = _script(tmp_path, "notpython", "exit 3")
    missing = str(tmp_path / "no-such" / "python3.12")
    cases = {missing: f"install.sh: PYTHON={missing} is not a command or an executable file; name Python "
                      "3.11 or newer, or unset PYTHON",
             old: f"install.sh: PYTHON={old} is Python 3.10.12; 3.11 or newer is required: name another, or "
                  "unset PYTHON",
             broken: f"install.sh: PYTHON={broken} did not report a Python version; name Python 3.11 or newer, "
                     "or unset PYTHON"}
    for python, line in cases.items():
        for args in ([], ["--dev"]):
            proc = subprocess.run([str(ROOT / "install.sh"), *args], env=_refusal_env(tmp_path, python),
                                  capture_output=True, text=True, timeout=120, cwd=tmp_path)
            assert (proc.returncode, proc.stderr, proc.stdout) == (1, line + "\n", ""), (args, proc)
            assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["python3.10", "notpython"])


def test_install_help_names_every_variable_install_sh_reads():
    """A newcomer trial (f166): ``./install.sh -h`` named GIT_HN_HOME, GIT_HN_BIN and PYTHON, not
    GIT_HN_MAN, GIT_HN_BASH_COMPLETION, GIT_HN_ZSH_COMPLETION or XDG_DATA_HOME, which it reads too."""
    import re

    source = (ROOT / "install.sh").read_text()
    read = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", source)) - {"HOME", "PATH", "BASH_SOURCE"}  # (everyone's, and bash's own)
    assert {"PYTHON", "GIT_HN_HOME", "GIT_HN_BIN", "GIT_HN_MAN", "GIT_HN_BASH_COMPLETION",
            "GIT_HN_ZSH_COMPLETION", "XDG_DATA_HOME"} <= read
    shown = subprocess.run([str(ROOT / "install.sh"), "-h"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and shown.stderr == "", shown
    assert shown.stdout.startswith("# Install git-hn.") and "set -euo" not in shown.stdout
    assert [name for name in sorted(read) if not re.search(rf"\b{name}\b", shown.stdout)] == []
    readme = (ROOT / "README.md").read_text()
    assert [name for name in sorted(read - {"XDG_DATA_HOME"}) if f"`{name}`" not in readme] == []
