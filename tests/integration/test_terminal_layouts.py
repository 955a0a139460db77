"""A newcomer's terminal (tmux) and its findings on layouts and options (f30): every command
that appends prints record's short layout on a terminal (a pipe keeps the documented lines),
``reanchor`` lines start with a capital, recall marks a challenged memory and takes ``-n``,
``--no-color`` may come before the command, ``policy show`` without a policy says how to make
one, and every help starts with ``usage:``. Real Git, real pseudo-terminals."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from helpers import git, hn, make_repo, on_terminal, record_id

GIT_HN = str(Path(sys.executable).parent / "git-hn")
SGR = re.compile(r"\x1b\[[0-9;]*m")
FULL_ID = re.compile(r"[0-9a-f]{64}")


def _pty(repo, *args, columns: int = 100, code: int = 0, env: dict | None = None) -> list[str]:
    out = on_terminal(repo, [GIT_HN, *args], columns, {"GIT_PAGER": "cat", **(env or {})}, code=code)
    return SGR.sub("", out).splitlines()


def _two_actors(tmp_path):
    """Alice's repository with Alice's decision, and Bob's identity active there."""
    repo = make_repo(tmp_path / "alice")
    assert hn(repo, "init", "--name", "Alice").code == 0
    decision = record_id(repo, content="use JSON")
    bob = make_repo(tmp_path / "bob")
    assert hn(bob, "init", "--name", "Bob").code == 0
    exported = tmp_path / "bob.json"
    assert hn(bob, "identity", "export", "--output", str(exported)).code == 0
    assert hn(repo, "identity", "import", str(exported), "--activate").code == 0
    return repo, decision


def test_import_and_a_repeated_challenge_print_the_terminal_layout(tmp_path):
    """A newcomer trial: on a terminal, record printed "Recorded aa6e… decision" while import
    (and, by their account, a repeated challenge) printed the piped ``Stream: sha256:…`` lines."""
    repo, decision = _two_actors(tmp_path)
    drafts = tmp_path / "drafts.jsonl"
    line = ('{"version":0,"kind":"observation","content":"deploys are on Tuesdays","anchor":{"commit":"%s"},'
            '"applicability":{"mode":"descendants"},"topics":["wiki"],"evidence":[]}\n' % git(repo, "rev-parse", "HEAD"))
    drafts.write_text(line)
    lines = _pty(repo, "memory", "import", str(drafts))
    assert lines[0] == "Imported 1 memory", lines
    assert re.fullmatch(r"New       [0-9a-f]{12}", lines[1]), lines
    assert lines[2].startswith("Author    Bob (") and re.fullmatch(r"Stream    [0-9a-f]{12}", lines[3]), lines
    assert not FULL_ID.search("\n".join(lines))
    lines = _pty(repo, "memory", "import", str(drafts))
    assert lines[0] == "Replayed: the draft is already in the stream; nothing appended", lines
    assert lines[1].startswith("Author    Bob (") and not FULL_ID.search("\n".join(lines))
    # piped: the documented lines, unchanged
    piped = hn(repo, "memory", "import", str(drafts))
    assert piped.out.startswith("Stream: sha256:") and piped.out.endswith(
        "Replayed: the draft is already in the stream; nothing appended\n"), piped.out

    for _ in range(2):  # the second appends nothing: the same layout, and says so
        lines = _pty(repo, "memory", "challenge", decision[7:19], "--reason", "outdated")
        assert re.fullmatch(r"Challenged with [0-9a-f]{12} outdated", lines[0]), lines
        assert lines[1] == f"Challenges {decision[7:19]}" and not FULL_ID.search("\n".join(lines))
    assert lines[-1] == "Replayed: existing memory returned; nothing appended"
