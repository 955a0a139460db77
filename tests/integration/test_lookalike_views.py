"""Paths that look alike are told apart in human views (trial S93 #5): a name holding a no-break
space (U+00A0) or another space separator but U+0020 is spelled ``\\u{…}``, as the invisible
characters are; two paths that are the same name in another Unicode normalization (NFC
``café.txt``, NFD ``cafe`` + U+0301 ``.txt``) are each shown with how they are written, in the
Markdown brief and on the view page; an accented name alone is shown as it is; JSON keeps the
exact strings."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import git, hn, make_repo
from integration.test_view_page import _data, _write

NFC, NFD = "caf\u00e9.txt", "cafe\u0301.txt"
NBSP, SPACE = "nor\u00a0mal.txt", "nor mal.txt"
ALONE = "r\u00e9sum\u00e9.md"


def _record(repo, content, *paths):
    args = [a for p in paths for a in ("--path", p)]
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           *args, "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


@pytest.fixture
def named(tmp_path) -> Path:
    repo = make_repo(tmp_path / "r", files={n: n + "\n" for n in (NFC, NFD, NBSP, SPACE, ALONE)})
    assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn")
    git(repo, "commit", "-q", "-m", "policy")
    for n in (NFC, NFD, NBSP, SPACE, ALONE):
        _record(repo, "about it", n)
    return repo


def _paths_lines(markdown: str) -> list[str]:
    return sorted(line for line in markdown.splitlines() if line.startswith("paths: "))


def test_the_brief_tells_lookalike_paths_apart_and_json_keeps_them_exact(named):
    r = hn(named, "memory", "brief")
    assert r.code == 0, r.err
    assert _paths_lines(r.out) == sorted([
        f"paths: `{NFC}` (composed U+00E9)", f"paths: `{NFD}` (decomposed e + U+0301)",
        "paths: `nor\\u{a0}mal.txt`", "paths: `nor mal.txt`", f"paths: `{ALONE}`"])
    r = hn(named, "memory", "brief", "--json")
    shown = {p["path"] for m in r.json()["decisions"] for p in m["anchor"]["paths"]}
    assert shown == {NFC, NFD, NBSP, SPACE, ALONE}
    from git_hn.service import brief as brief_service
    from state_compare import _call

    # the verified state's Markdown is the full projection's (each tells them apart the same way)
    assert _call(named, brief_service.brief, "HEAD", fmt="markdown") == \
        _call(named, brief_service.brief_full, "HEAD", fmt="markdown")


def test_two_lookalike_paths_of_one_memory_are_told_apart(named):
    _record(named, "both", NFD, NFC)
    r = hn(named, "memory", "brief")
    assert f"paths: `{NFD}` (decomposed e + U+0301), `{NFC}` (composed U+00E9)" in r.out.splitlines()


def test_an_accented_path_alone_is_shown_as_it_is(tmp_path):
    """A guard (it passes without the change too): a decomposed name no other path looks like
    gets no note, so a legitimately accented name is never made ugly."""
    repo = make_repo(tmp_path / "r", files={NFD: "x\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    _record(repo, "alone", NFD)
    r = hn(repo, "memory", "brief", "--include-untrusted")
    assert _paths_lines(r.out) == [f"paths: `{NFD}`"]


def test_the_view_page_path_filter_has_told_apart_options(named):
    _path, page = _write(named)
    paths = sorted(p for m in _data(page)["memories"] for p in m["paths"])
    assert paths == sorted([f"{NFC} (composed U+00E9)", f"{NFD} (decomposed e + U+0301)",
                            "nor\\u{a0}mal.txt", "nor mal.txt", ALONE])


def test_a_warning_spells_a_no_break_space_in_a_path(named):
    r = hn(named, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "gone\u2007file.txt", "--content", "x")
    assert r.code == 0
    assert "--path 'gone\\u{2007}file.txt' names nothing at commit" in r.err, r.err


def test_a_memorys_content_keeps_its_spaces_where_its_path_spells_them(named):
    """Content is prose: French puts U+00A0 or U+202F before ``!`` and ``:``, Japanese U+3000
    between phrases. ``show``, the brief and the view page keep those in the content they show as
    a block, and spell them in the memory's path beside it (invisible characters are spelled in
    both)."""
    prose = "Attention\u00a0: ne pas d\u00e9ployer\u202f!\n\u3000\u3053\u308c\u306f\u30c6\u30b9\u30c8\u200b."
    mid = _record(named, prose, NBSP)
    shown = hn(named, "memory", "show", mid)
    assert shown.code == 0, shown.err
    assert "Attention\u00a0: ne pas d\u00e9ployer\u202f!" in shown.out and "\\u{200b}." in shown.out, shown.out
    assert "\n  \u3000\u3053\u308c" in shown.out, shown.out
    brief = hn(named, "memory", "brief").out
    assert "Attention\u00a0: ne pas d\u00e9ployer\u202f!\n\u3000\u3053\u308c" in brief and "\\u{200b}." in brief
    assert "paths: `nor\\u{a0}mal.txt`" in brief
    _path, page = _write(named)
    entry = next(m for m in _data(page)["memories"] if m["id"] == mid)
    assert entry["paths"] == ["nor\\u{a0}mal.txt"], entry
    assert entry["content"].startswith("Attention\u00a0: ne pas d\u00e9ployer\u202f!\n\u3000") and \
        entry["summary"] == "Attention\u00a0: ne pas d\u00e9ployer\u202f!", entry
