"""A value the user gave, repeated on a human line, cannot pose as a spelled character (f158).

f153 spelled a typed ``\\u{`` of author text ``\\u{5c}u{`` where the text is first spelled, so
that a ``\\u{202e}`` shown is always a real U+202E. A ``git-hn:`` error, warning or hint line that
repeats an argument (an ID prefix, a remote's name, a month, a query, an agent, a path) and the
piped ``identity list|show|public`` lines of an identity's name reached the whole-line spelling
(``spelled=True``: backslashes kept) without that first spelling: typed ``\\u{202e}`` and a real
U+202E read the same (*spoofing*). ``gostr.echoed``/``quoted`` spell such a value once; a real
character is spelled once too (never ``\\u{5c}u{202e}``). Checked through the CLI, off a terminal.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import hn, init_as, make_repo

REAL, TYPED = "\u202e", "\\u{202e}"
# how each reads on the line: the real one spelled, the typed one's backslash spelled
SHOWN = {REAL: "\\u{202e}", TYPED: "\\u{5c}u{202e}"}

# (argv with {v} for the value, the error line's words with {s} for how the value reads)
ROUTES = {
    "unknown command": (("x{v}",), 'git-hn: unknown command "x{s}"'),
    "memory ID prefix": (("memory", "show", "abcdef01{v}"), "git-hn: memory abcdef01{s} was not found"),
    "remote name": (("sync", "o{v}"), 'git-hn: invalid remote name "o{s}"'),
    "digest month": (("memory", "digest", "--month", "2026-01{v}"), 'git-hn: invalid digest month "2026-01{s}"'),
    "actor query": (("policy", "trust", "bob{v}"), "git-hn: no known actor matches bob{s}:"),
    "agent": (("setup", "ag{v}"), 'git-hn: unknown agent "ag{s}"'),
    "output path": (("memory", "export", "--output", "out{v}.md"), "git-hn: export output out{s}.md already exists"),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = make_repo(tmp_path_factory.mktemp("typed") / "repo")
    assert hn(repo, "init", "--name", "A").code == 0
    assert hn(repo, "policy", "init").code == 0
    for value in (REAL, TYPED):
        (repo / f"out{value}.md").write_text("kept\n")
    return repo


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_typed_escape_in_an_argument_cannot_pose_as_a_spelled_character(repo, route):
    argv, line = ROUTES[route]
    said = {}
    for value in (REAL, TYPED):
        r = hn(repo, *(a.format(v=value) for a in argv))
        assert r.code == 1 and r.out == "", (route, r.out, r.err)
        assert r.err.startswith(line.format(s=SHOWN[value])), (route, r.err)
        assert REAL not in r.err and r.err.count("\n") == 1, (route, r.err)
        said[value] = r.err
    # each spelled once: the real one never reads as typed, the typed one never as real
    assert SHOWN[TYPED] not in said[REAL] and line.format(s=SHOWN[REAL]) not in said[TYPED]
    for value in (REAL, TYPED):
        assert (repo / f"out{value}.md").read_text() == "kept\n"  # (a refusal changes nothing)


@pytest.mark.parametrize("which", ["list", "show", "public"])
def test_a_typed_escape_in_an_identity_name_cannot_pose_as_a_spelled_character(tmp_path, which):
    """Piped ``identity list|show|public`` print the name on the contract's lines; a real U+202E
    (which ``init`` refuses, but another implementation signs: ``init_as``) is spelled, the typed
    six characters get their backslash spelled. ``--json`` keeps the name as stored."""
    said = {}
    for n, value in enumerate((REAL, TYPED)):
        repo = make_repo(tmp_path / f"r{n}")
        init_as(repo, f"N{value}x")
        r = hn(repo, "identity", which)
        assert r.code == 0, r.err
        shown = f"N{SHOWN[value]}x"
        assert (f"  {shown}\n" if which == "list" else f"Name:{' ' * (3 if which == 'show' else 7)}{shown}\n") in r.out, r.out
        assert REAL not in r.out
        said[value] = r.out
        if which == "public":
            assert hn(repo, "identity", "public", "--json").json()["name"] == f"N{value}x"
    assert f"N{SHOWN[TYPED]}x" not in said[REAL] and f"N{SHOWN[REAL]}x\n" not in said[TYPED]


# -- f167: the three stderr lines that wrote the user's value raw ---------------------------------

# a real direction control and ESC, and the typed six characters: how each reads on the line (ESC,
# a Cc rune, is a space on every ``git-hn:`` line: CONTRACT §0.5's ``oneLine``)
RAW = REAL + "\x1b"
SPELLED = {RAW: "\\u{202e} ", TYPED: SHOWN[TYPED]}


def _said(err: str, start: str) -> str:
    """The one ``git-hn:`` line of ``err`` that begins with ``start``; no other line of git-hn's
    repeats the value."""
    lines = [line for line in err.splitlines() if line.startswith("git-hn:")]
    said = [line for line in lines if line.startswith(start)]
    assert len(said) == 1, err
    return said[0]


def _spelled_once(said: dict, line: str) -> None:
    for value in (RAW, TYPED):
        assert said[value] == line.format(s=SPELLED[value]), said[value]
        assert REAL not in said[value] and "\x1b" not in said[value]
    assert SHOWN[TYPED] not in said[RAW] and SHOWN[REAL] + "u" not in said[TYPED]


def test_a_pager_command_from_the_config_is_spelled_on_its_error_line(tmp_path):
    """``cannot run pager …`` repeated ``GIT_PAGER`` (or ``core.pager``) through ``one_line`` only:
    a real U+202E reached the terminal raw, and a typed ``\\u{202e}`` read as a real one."""
    from helpers import on_terminal, record_id

    repo = make_repo(tmp_path / "repo")
    assert hn(repo, "init", "--name", "A").code == 0
    record_id(repo, content="paged")
    said = {}
    for value in (RAW, TYPED):
        out, err = on_terminal(repo, [sys.executable, "-m", "git_hn", "memory", "log"], 80,
                               {"GIT_PAGER": f"no-such-pager{value}"}, ("NO_COLOR", "LESS"), both=True)
        assert "paged" in out  # (the log follows without the pager)
        said[value] = _said(err, "git-hn: cannot run pager ")
        if value == RAW:  # (f171: a plain word on no PATH is told by git-hn alone: no shell line repeats it raw)
            assert "not found" not in err and REAL not in err, err
    # (a backslash is shell syntax: the shell decides for the typed one, and its 127 is said)
    spelled = {RAW: "git-hn: cannot run pager no-such-pager{s}: no command no-such-pager{s} on PATH; the log follows "
                    "without it",
               TYPED: "git-hn: cannot run pager no-such-pager{s}; the log follows without it"}
    for value in (RAW, TYPED):
        assert said[value] == spelled[value].format(s=SPELLED[value]), said[value]
        assert REAL not in said[value] and "\x1b" not in said[value]
    assert SHOWN[TYPED] not in said[RAW] and SHOWN[REAL] + "u" not in said[TYPED]


def test_the_page_path_is_spelled_on_the_no_browser_warning(repo, tmp_path):
    """``memory view --open`` with no browser said where the page is through ``one_line`` only."""
    from helpers import hn_proc

    said = {}
    for value in (RAW, TYPED):
        target = tmp_path / f"page{value}.html"
        r = hn_proc(repo, "memory", "view", "--output", str(target), "--open",
                    env={"BROWSER": str(tmp_path / "no-such-browser"), "DISPLAY": "", "WAYLAND_DISPLAY": "",
                         "TERM": ""})
        assert r.code == 0 and target.is_file(), r.err
        said[value] = _said(r.err, "git-hn: warning: no browser")
    _spelled_once(said, f"git-hn: warning: no browser could be opened; the page is {tmp_path}/page{{s}}.html")


def test_an_invalid_remote_name_is_spelled_on_the_pre_push_line(tmp_path):
    """Git takes any name a config gives a remote (``remote.<name>.url``; ``git remote add``
    refuses them), so the pre-push hook does get a U+202E or an ESC in one: its line that the
    name is invalid (CONTRACT §3.2) quoted it without spelling its invisible characters."""
    from helpers import git, shared_remote

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    said = {}
    for n, value in enumerate((RAW, TYPED)):
        other = tmp_path / f"other{n}.git"
        git(tmp_path, "init", "-q", "--bare", str(other))
        name = f"o{value}"
        git(a, "config", f"remote.{name}.url", str(other))
        proc = subprocess.run(["git", "push", "-q", name, "main"], cwd=a, capture_output=True)
        err = proc.stderr.decode("utf-8")
        assert proc.returncode == 0, err
        said[value] = _said(err, "git-hn: this push publishes no memory")
        assert git(other, "for-each-ref", "refs/hn") == ""  # (nothing published there, as before)
    _spelled_once(said, 'git-hn: this push publishes no memory and keeps no reminder for it: invalid remote name '
                        '"o{s}"; a remote git-hn replicates with is named by letters, digits and _ (then also . '
                        'and -; no .., no final ., at most 128): git remote rename OLD NEW')
