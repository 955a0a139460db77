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
