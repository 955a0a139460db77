"""``cli.render.wrapped`` on a narrow terminal never breaks inside what is pasted (a review: at 60
columns ``git hn policy`` / ``trust ID`` and an ``rm -r PATH`` were split across lines, and
pasting them ran two commands), nor inside a quoted span or an option group."""

from __future__ import annotations

from git_hn.cli.render import wrapped


def _lines_with(text: str, needle: str) -> list[str]:
    return [line for line in text.split("\n") if needle in line]


def test_a_command_stays_on_one_line_though_longer_than_the_width():
    actor = "b75d2c9f4993" + "6" * 52
    out = wrapped("git-hn: hint: 1 memory hidden by the trust policy, signed by \"Bob\" (b75d2c9f4993); see it "
                  f"with --include-untrusted, or trust its author with git hn policy trust {actor}", 60)
    assert len(out.split("\n")) > 1
    assert _lines_with(out, "git hn policy trust")[0].strip() == f"git hn policy trust {actor}", out


def test_a_quoted_path_and_the_command_around_it_stay_whole_and_prose_still_wraps():
    out = wrapped("git-hn: warning: this is a bare repository with no remote: a server's repository? run git hn "
                  "init in your clone instead (rm -r '/tmp/s2/team server/q.git/hn' takes out what it made here)", 60)
    assert "(rm -r '/tmp/s2/team server/q.git/hn' takes out what it made here)" in out.split("\n")[-1], out
    assert all(len(line) <= 60 for line in out.split("\n")[:-1]), out  # (the prose before it is wrapped)
    assert "server's repository?" in out  # (an apostrophe opens no quote)


def test_an_option_group_is_never_split():
    out = wrapped("usage words " * 4 + "[--format jsonl|markdown] [--include-untrusted]", 30)
    assert "[--format jsonl|markdown]" in out.split("\n")[-1] or any(
        "[--format jsonl|markdown]" in line for line in out.split("\n")), out
