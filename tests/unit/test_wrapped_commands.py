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


def test_a_path_with_an_apostrophe_stays_whole_in_its_command():
    """``shlex.quote`` writes an apostrophe as '"'"': the quote is not over there (a review: a
    path ``teachers' repos (2024)`` was broken before ``(2024)``, and the pasted line left a
    quote open)."""
    import shlex

    from git_hn.cli.render import KEPT, together

    path = "/tmp/s2/teachers' repos (2024)/team.git/hn"
    command = f"rm -r {shlex.quote(path)}"
    text = f"a server's repository? run git hn init in your clone instead ({command} takes out what it made here)"
    assert command.replace(" ", KEPT) in together(text), together(text)
    for width in range(30, 90):
        out = wrapped(f"git-hn: warning: this is a bare repository with no remote: {text}", width)
        assert any(command in line for line in out.split("\n")), (width, out)
    assert shlex.split(command) == ["rm", "-r", path]


def test_an_apostrophe_in_a_quoted_name_opens_no_span():
    """A signed name is shown in double quotes with its own quotes escaped; an apostrophe in it
    is no quote (a review: a name with one kept the rest of the hint, both commands included, on
    one line of 250 characters)."""
    actor = "bd77c3ae9f70" + "7" * 52
    out = wrapped("git-hn: hint: 1 memory hidden by the trust policy, signed by \"Bob \\\"the\\\" and 'x \\\\ y\" "
                  "(bd77c3ae9f70); see it with --include-untrusted, or trust its author with git hn policy trust "
                  f"{actor} and commit the policy; the policy's maintainers decide who is trusted here", 40)
    lines = out.split("\n")
    assert _lines_with(out, "git hn policy trust")[0].strip().startswith(f"git hn policy trust {actor} "), out
    assert all(len(line) <= 40 for line in lines if "git hn policy trust" not in line), out


def test_a_subject_with_quotes_of_its_own_never_splits_the_command_after_it():
    """A review of 8bd9c2c: ``git revert`` names its commit ``Revert "trust mallory"``; quoted
    inside the hint, its quotes left a quoted span open and the command after it was split at 56
    of the widths 30–199. The subject's quotes are escaped now (``hints.since``), and a command
    ends a quoted span left open."""
    from git_hn.core.hints import since

    said = since("a1eadec2e112" + "0" * 28, 'Revert "trust mallory"')
    assert said == 'since a1eadec2e112 "Revert \\"trust mallory\\""'
    for subject in (said, 'since a1eadec2e112 "Revert "trust mallory""'):  # (escaped, and not)
        text = ("git-hn: hint: 1 memory hidden by the trust policy; see it with --include-untrusted; actor "
                f"a1eadec2e112 is no longer trusted {subject}; trust their kinds with git hn policy trust --kind KIND")
        for width in range(30, 200):
            assert any("git hn policy trust --kind KIND" in line for line in wrapped(text, width).split("\n")), width
