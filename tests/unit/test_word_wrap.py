"""``terminal.word_wrapped``: sync's lines on a terminal break between words, never inside a
suggested command (however it is quoted or bracketed), and lose no character."""

from __future__ import annotations

import random

import pytest
from rich.cells import cell_len

from git_hn.cli.terminal import word_wrapped

COMMANDS = ["git hn sync origin", "git push origin " + "a" * 40 + ":refs/heads/hn-anchor/" + "a" * 12,
            "(git config --global credential.helper cache)", "`git hn memory index rebuild`"]


@pytest.mark.parametrize("columns", [20, 40, 60, 76, 80, 99, 120])
def test_commands_stay_whole_and_nothing_is_lost(columns):
    rng = random.Random(columns)
    for _ in range(200):
        words = [rng.choice(["the", "remote", "needs", "credentials;", "then", "a", "clone", "日本語", "x" * 30])
                 for _ in range(rng.randrange(1, 30))]
        for command in rng.sample(COMMANDS, 2):
            words.insert(rng.randrange(len(words) + 1), command)
        text = " ".join(words)
        lines = word_wrapped(text, columns)
        assert " ".join(lines) == text
        for command in COMMANDS:
            if command in text:
                assert any(command in line for line in lines), (command, lines)
        for line in lines:
            assert cell_len(line) <= columns or " " not in line or any(c in line for c in COMMANDS), line


def test_leading_spaces_and_empty_text_are_kept():
    assert word_wrapped("   a git hn sync x", 80) == ["   a git hn sync x"]
    assert word_wrapped("", 80) == [""]
    assert word_wrapped("a  b", 80) == ["a  b"]
