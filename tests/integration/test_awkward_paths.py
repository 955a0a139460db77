"""Paths that are hard to see or cannot be anchored (a trial with awkward text): a ``--path``
typed in a directory whose path from the top is not UTF-8 or holds a control character is
refused before signing (it was signed as absent); the warnings of a signed record name their
path shell-quoted, with invisible characters spelled (a leading space was invisible, and a
U+202E reversed the rest of the line on a terminal: *Trojan Source*)."""

from __future__ import annotations

import os

import pytest

from helpers import git, hn, unhinted

RECORD = ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "x")


def _count(repo) -> int:
    return len(hn(repo, "memory", "recall", "--json", "--include-untrusted").json()["memories"])


@pytest.mark.parametrize("name, why", [(os.fsdecode(b"caf\xe9"), "is not UTF-8"),
                                       ("t\tab", "holds a control character"),
                                       ("new\nline", "holds a control character")])
def test_a_path_typed_where_nothing_can_be_anchored_is_refused_before_signing(inited, name, why):
    sub = inited / name
    sub.mkdir()
    (sub / "f.txt").write_text("here\n")
    r = hn(sub, *RECORD, "--path", "f.txt")
    assert r.code == 1, r
    assert r.err.startswith("git-hn: --path f.txt names nothing at commit ") and why in r.err, r.err
    assert r.err.endswith("to record it as absent, run from the top of the repository (nothing was recorded)\n")
    assert len(r.err.splitlines()) == 1 and "\t" not in r.err, r.err
    assert _count(inited) == 0


def test_the_path_warnings_quote_the_path_and_spell_invisible_characters(inited):
    head = git(inited, "rev-parse", "HEAD")
    r = hn(inited, *RECORD, "--path", " lead.txt")
    assert r.code == 0, r.err
    assert unhinted(r.err) == f"git-hn: warning: --path ' lead.txt' names nothing at commit {head}; it is recorded as absent\n"
    r = hn(inited, *RECORD, "--path", "a\u202etxt.exe")
    assert r.code == 0, r.err
    assert "\u202e" not in r.err and "--path 'a\\u{202e}txt.exe' names nothing" in r.err, r.err
    (inited / "mo\u202eved.txt").write_text("one\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-qm", "add")
    (inited / "mo\u202eved.txt").write_text("two\n")
    r = hn(inited, *RECORD, "--path", "mo\u202eved.txt")
    assert r.code == 0, r.err
    assert "\u202e" not in r.err and "--path 'mo\\u{202e}ved.txt' has changes not committed yet" in r.err, r.err


def test_the_markdown_briefs_code_spans_render_every_path_exactly(inited):
    """A trial: the path `` both ends `` was written `` ` both ends ` ``, which CommonMark renders
    as ``both ends`` (one space stripped from each side of a span that begins and ends with one),
    another file. Rendered by a real CommonMark renderer, every path, stale ones too, is itself."""
    import html
    import re

    from markdown_it import MarkdownIt

    names = [" both ends ", " lead.txt", "trail.txt ", "`tick", "  two  ", "tock`", " `both` "]
    assert hn(inited, "policy", "init").code == 0
    for name in names:
        (inited / name).write_text("one\n")
    git(inited, "add", "-A")
    git(inited, "commit", "-q", "-m", "awkward")
    r = hn(inited, *RECORD, *(w for name in names for w in ("--path", name)))
    assert r.code == 0, r.err
    for name in names:
        (inited / name).write_text("two\n")
    git(inited, "commit", "-q", "-am", "changed")
    md = hn(inited, "memory", "brief", "--markdown")
    assert md.code == 0, md.err
    out = MarkdownIt("commonmark").render(md.out)
    line = lambda key: next(x for x in out.splitlines() if x.startswith(key))  # noqa: E731
    spans = lambda text: [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", text)]  # noqa: E731
    assert spans(line("paths: ")) == sorted(names, key=lambda n: n.encode())
    assert spans(line("stale: ")) == sorted(names, key=lambda n: n.encode())
