"""A narrow terminal (a newcomer trial at 60 columns): ``git-hn: hint:`` and ``warning:`` lines,
and ``git hn -h``, wrap at spaces to its width, never inside a word; piped, a hint stays exactly
one line (scripts and tests read it). Real processes on a real pseudo-terminal."""

from __future__ import annotations

import json
import re
import sys

import pytest

from helpers import actor_of, git, hn, init_as, make_repo, on_terminal

HINT = ("git-hn: hint: 1 memory hidden: no memory trust policy at this commit; see it with --include-untrusted, "
        "or create one with git hn policy init and commit it")


def _words(text: str) -> list[str]:
    return text.split()


def test_a_hint_wraps_at_spaces_on_a_narrow_terminal_and_stays_one_line_piped(inited):
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "the codec is pure").code == 0
    piped = hn(inited, "memory", "recall")
    assert piped.err == HINT + "\n"  # (piped: the one line)
    out = on_terminal(inited, [sys.executable, "-m", "git_hn", "memory", "recall"], 60, {}, stderr_too=True)
    lines = out[out.index("git-hn: hint:"):].rstrip("\n").split("\n")
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines), lines
    assert all(line.startswith("    ") for line in lines[1:]), lines
    assert _words(" ".join(lines)) == _words(HINT)  # (no word cut: the same words, in order)


def test_the_top_level_help_fits_a_narrow_terminal(tmp_path):
    piped = hn(tmp_path, "-h").out
    out = on_terminal(tmp_path, [sys.executable, "-m", "git_hn", "-h"], 60, {})
    assert max(len(line) for line in piped.splitlines()) > 60
    assert all(len(line) <= 60 for line in out.splitlines()), out
    assert "[--include-untrusted]" in out.split() and _words(out) == _words(piped)
    assert on_terminal(tmp_path, [sys.executable, "-m", "git_hn", "-h"], 100, {}) == piped  # (wide enough: as is)


def test_a_terminal_size_that_is_no_positive_number_is_ignored_as_if_unset(inited):
    """``COLUMNS=²`` (a digit to ``str.isdigit``, not to ``int``, as rich tests it) ended every
    terminal view in ``internal error: ValueError``, and ``COLUMNS=0`` made ``hooks status`` print
    nothing: a size that is no positive number reads as unset, the output exactly as without it."""
    made = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "the codec is pure", "--json")
    assert made.code == 0, made.err
    memory = json.loads(made.out)["memoryId"]
    views = (["memory", "recall", "--include-untrusted"], ["memory", "log"], ["memory", "show", memory],
             ["memory", "brief"], ["hooks", "status"])
    for view in views:
        argv = [sys.executable, "-m", "git_hn", *view]
        plain = on_terminal(inited, argv, 100, {}, both=True)
        assert plain[0].strip() and "internal error" not in plain[1], (view, plain)
        for name, value in (("COLUMNS", "²"), ("COLUMNS", "0"), ("COLUMNS", "-5"), ("COLUMNS", "abc"),
                            ("LINES", "²"), ("LINES", "0"), ("COLUMNS", "9" * 5000)):  # (int() refuses 4301
            # digits: a review's 5,000 ended every command in a traceback)
            assert on_terminal(inited, argv, 100, {name: value}, both=True) == plain, (view, name, value)
        assert on_terminal(inited, argv, 100, {"COLUMNS": "99999999999"}, both=True)[0].strip()  # (a number: taken)


@pytest.mark.parametrize("columns", [40, 80])
def test_a_command_naming_a_full_id_in_a_hint_or_warning_is_never_split(tmp_path, columns):
    """A trial asked whether ``git hn policy trust <64 hex>`` in a hint is broken at the
    terminal's edge: copying two lines would give two commands. Hints and warnings are wrapped by
    ``render.wrapped``, which keeps a command whole (``together``) and leaves one wider than the
    terminal to the terminal to wrap: no newline is ever written inside it, at 40 or 80 columns,
    in record's, recall's and ``policy trust``'s lines (f150: a regression test; it held)."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "trust alice")
    other = make_repo(tmp_path / "bob")
    init_as(other, "Bob")
    bob = actor_of(other)
    assert hn(other, "identity", "export", "--output", str(tmp_path / "bob.json")).code == 0
    assert hn(repo, "identity", "import", str(tmp_path / "bob.json"), "--activate").code == 0
    record = [sys.executable, "-m", "git_hn", "memory", "record", "--kind", "decision", "--at", "HEAD",
              "--applies", "descendants", "--content", "bob decides"]
    twin = bob[:-1] + ("0" if bob[-1] != "0" else "1")  # (mistyped in its last digit)
    for argv, command in ((record, f"git hn policy trust {bob}"),
                          ([sys.executable, "-m", "git_hn", "memory", "recall"], f"git hn policy trust {bob}"),
                          ([sys.executable, "-m", "git_hn", "policy", "trust", twin], f"git hn policy untrust {twin}")):
        out = re.sub(r"\x1b\[[0-9;]*m", "", on_terminal(repo, argv, columns, {}, stderr_too=True))
        said = out[out.index("git-hn: "):]
        assert len(said.split("\n")) > 2, said  # (wrapped: the test means something)
        assert command in said.split("\n")[-2], said  # whole, on one line, which the terminal wraps
        git(repo, "checkout", "-q", "--", ".hn/policy.json")
