"""``render.FittedLines`` (f179), the hooks' stderr on a terminal: each whole line wrapped as
``render.fitted`` wraps a hint; what clears Git's progress before a line (``post_rewrite.fresh_line``)
kept in front of it and not counted in its width; a line's unended part (a status line drawn in
place) written as it is."""

from __future__ import annotations

import io

from git_hn.cli.render import FittedLines, wrapped

LINE = ("git-hn: memories on rewritten commits were not re-anchored: the stream is locked; "
        "git hn memory reanchor 0123456789ab fedcba re-anchors them")


def test_each_whole_line_is_wrapped_after_what_clears_the_progress(monkeypatch):
    monkeypatch.setenv("COLUMNS", "70")
    out = io.StringIO()
    stream = FittedLines(out)
    assert stream.write("\r\x1b[K" + LINE + "\nshort\n") == len(LINE) + 11
    assert out.getvalue() == "\r\x1b[K" + wrapped(LINE, 70) + "\nshort\n"
    assert len(wrapped(LINE, 70).split("\n")) > 1 and all(len(line) <= 70 for line in wrapped(LINE, 70).split("\n"))
    assert "git hn memory reanchor 0123456789ab fedcba" in out.getvalue()  # (a command kept whole)


def test_an_unended_part_is_written_as_it_is(monkeypatch):
    monkeypatch.setenv("COLUMNS", "20")
    out = io.StringIO()
    FittedLines(out).write("\r\x1b[2Kgit hn: verifying all memories (5%)")
    assert out.getvalue() == "\r\x1b[2Kgit hn: verifying all memories (5%)"
