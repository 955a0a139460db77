"""The hooks' ``git-hn:`` lines on a terminal (f179): Git gives its hooks its own stderr, and on a
narrow terminal a push's and a fetch's lines were cut mid-word by the terminal where record's
hints are wrapped at spaces (``render.fitted``). They are wrapped the same way now, the further
lines indented; piped (CI logs, scripts, these tests' other runs) each stays exactly one line.
Real ``git push`` and ``git fetch`` through the installed hooks, on a real pseudo-terminal."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import subprocess

from helpers import git, hn, on_terminal, shared_remote

URL_LINE = ("git-hn: a push to a URL publishes no memory; that URL is remote origin's: "
            "git hn sync origin publishes it (or push with git push origin)")
BUSY_LINE = "git-hn: another git hn sync with origin is running; run git hn sync origin after it"


def _commit(repo, name: str) -> None:
    (repo / f"{name}.txt").write_text(f"{name}\n")
    git(repo, "add", f"{name}.txt")
    git(repo, "commit", "-q", "-m", name)


def _said(shown: str) -> list[str]:
    """The hook's lines among what the terminal showed (colour, if any, taken out)."""
    shown = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", shown)
    return shown[shown.index("git-hn: "):].rstrip("\n").split("\n")


def _fitted(lines: list[str], one: str, columns: int) -> None:
    assert len(lines) > 1 and all(len(line) <= columns for line in lines), lines
    assert all(line.startswith("    ") for line in lines[1:]), lines  # (as record's hints: indented)
    assert " ".join(lines).split() == one.split()  # (no word cut, none lost: the same words, in order)
    assert not any(line.endswith(("git", "git hn")) for line in lines[:-1]), lines  # (commands kept whole)


def test_the_pre_push_hooks_line_is_wrapped_on_a_narrow_terminal_and_one_line_piped(tmp_path):
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    _commit(a, "piped")
    piped = subprocess.run(["git", "push", "-q", str(remote), "main"], cwd=a, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == URL_LINE + "\n"  # (a pipe: today's one line)
    _commit(a, "on-a-terminal")
    shown = on_terminal(a, ["git", "push", "-q", str(remote), "main"], 60, {}, stderr_too=True)
    _fitted(_said(shown), URL_LINE, 60)
    _commit(a, "wide")  # (a terminal wide enough: the line as it is)
    assert _said(on_terminal(a, ["git", "push", "-q", str(remote), "main"], 200, {}, stderr_too=True)) == [URL_LINE]


def test_the_fetch_hooks_line_is_wrapped_on_a_narrow_terminal_and_one_line_piped(tmp_path):
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(b, "hooks", "install").code == 0
    assert hn(b, "replication", "select", "--all").code == 0
    path = b / ".git" / "hn" / "locks" / f"import-{hashlib.sha256(b'origin').hexdigest()[:24]}.lock"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # (as a running sync holds it: the fetch's import says so and goes on)
    try:
        _commit(a, "one")
        git(a, "push", "-q", "origin", "main")
        piped = subprocess.run(["git", "fetch", "-q", "origin"], cwd=b, capture_output=True, text=True)
        assert piped.returncode == 0 and piped.stderr == BUSY_LINE + "\n"
        _commit(a, "two")
        git(a, "push", "-q", "origin", "main")
        _fitted(_said(on_terminal(b, ["git", "fetch", "-q", "origin"], 40, {}, stderr_too=True)), BUSY_LINE, 40)
    finally:
        os.close(fd)
