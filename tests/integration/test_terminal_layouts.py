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
    assert re.fullmatch(r"New    [0-9a-f]{12}", lines[1]), lines
    assert lines[2].startswith("Author Bob (") and re.fullmatch(r"Stream [0-9a-f]{12}", lines[3]), lines
    assert not FULL_ID.search("\n".join(lines))
    lines = _pty(repo, "memory", "import", str(drafts))
    assert lines[0] == "Replayed: the draft is already in the stream; nothing appended", lines
    assert lines[1].startswith("Author Bob (") and not FULL_ID.search("\n".join(lines))
    # piped: the documented lines, unchanged
    piped = hn(repo, "memory", "import", str(drafts))
    assert piped.out.startswith("Stream: sha256:") and piped.out.endswith(
        "Replayed: the draft is already in the stream; nothing appended\n"), piped.out

    for _ in range(2):  # the second appends nothing: the same layout, and says so
        lines = _pty(repo, "memory", "challenge", decision[7:19], "--reason", "outdated")
        assert re.fullmatch(r"Challenged with [0-9a-f]{12}", lines[0]), lines
        assert lines[1] == f"Challenges {decision[7:19]}" and not FULL_ID.search("\n".join(lines))
        assert lines[2] == "Reason     outdated", lines  # (f175: labelled, on its own line)
    assert lines[-1] == "Replayed: existing memory returned; nothing appended"


def test_recall_takes_n_as_max_records(tmp_path):
    """A newcomer trial: ``recall -n 1`` was refused (with a hint at --max-records) while ``log
    -n`` works. ``-n N`` (and ``-nN``) is --max-records, a git-hn extension; both at once are one
    usage error."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    for i in range(3):
        record_id(repo, content=f"decision {i}")
    for args in (["-n", "1"], ["-n1"], ["-n=2"]):
        doc = hn(repo, "memory", "recall", "--include-untrusted", "--json", *args).json()
        assert (doc["matched"], doc["returned"]) == (3, int(args[-1][-1])), args
    both = hn(repo, "memory", "recall", "-n", "1", "--max-records", "2")
    assert (both.code, both.out) == (1, "")
    assert both.err == ("git-hn: usage: git hn memory recall [filters] [bounds] [--json]; "
                        "give -n N or --max-records N once\n")
    assert hn(repo, "memory", "recall", "-n", "0").err == "git-hn: recall bounds must be positive; -n takes 1 or more\n"
    assert "--input requires --json" in hn(repo, "memory", "recall", "--json", "--input", "-", "-n", "1").err
    assert "-n N" in hn(repo, "memory", "recall", "-h").out


def test_no_color_before_the_command(tmp_path):
    """A newcomer trial: ``git hn --no-color memory …`` said 'unknown command "--no-color"'. It is
    taken before any command, as Git takes ``-c`` there."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    record_id(repo, content="use JSON")
    assert "\x1b[" in on_terminal(repo, [GIT_HN, "memory", "log"], 100, {"GIT_PAGER": "cat"})
    out = on_terminal(repo, [GIT_HN, "--no-color", "memory", "log"], 100, {"GIT_PAGER": "cat"})
    assert "\x1b" not in out and "use JSON" in out
    out = on_terminal(repo, [GIT_HN, "--no-color", "memory", "recall", "--include-untrusted"], 100, {})
    assert "\x1b" not in out and "use JSON" in out
    r = hn(repo, "--no-color", "version")
    assert r.code == 0 and r.out.startswith("git-hn ")
    assert hn(repo, "memory", "recall").code == 0  # (in-process: the next run is coloured again)
    from git_hn.cli import render

    assert render.no_color_first is False


def test_sync_takes_no_color_after_the_command(tmp_path):
    """An audit: ``git hn -h`` and the README say ``--no-color`` goes after the command, and
    ``git hn sync --no-color`` was refused as an unknown option. Its lines are never coloured, so
    it is taken and changes nothing."""
    repo = make_repo(tmp_path / "r")
    git(tmp_path, "init", "-q", "--bare", "team.git")
    git(repo, "remote", "add", "origin", str(tmp_path / "team.git"))
    assert hn(repo, "init", "--name", "Alice").code == 0
    r = hn(repo, "sync", "--no-color")
    assert (r.code, r.err) == (0, ""), r.err
    assert r.out == hn(repo, "sync").out
    assert "--no-color" in hn(repo, "sync", "-h").out


def test_help_keeps_the_memory_commands_together(tmp_path):
    """A newcomer trial: ``git hn -h`` listed replication, sync and hooks between two runs of
    memory commands. Each command group is one run, in ``git hn -h`` and in git-hn(1)."""
    def runs(words):
        out = []
        for w in words:
            if not out or out[-1] != w:
                out.append(w)
        return out

    summary = hn(tmp_path, "-h").out
    groups = [line.split()[2] for line in summary.splitlines() if line.startswith("git hn ")]
    assert len(runs(groups)) == len(set(groups)), runs(groups)
    assert runs(groups)[:4] == ["init", "identity", "memory", "policy"]
    man = (Path(__file__).resolve().parents[2] / "man" / "git-hn.1").read_text()
    synopsis = man.split(".SH SYNOPSIS", 1)[1].split(".SH ", 1)[0]
    words = [line.split()[2] for line in synopsis.splitlines() if line.startswith("git hn ")]
    assert len(runs(words)) == len(set(words)) and runs(words)[:3] == ["init", "identity", "memory"], runs(words)


def test_recall_on_a_terminal_marks_a_challenged_memory(tmp_path):
    """A newcomer trial: show, log --graph and the page say a memory was challenged; recall on a
    terminal did not. Its line ends with ``challenged`` (the count past one); piped and --json
    output are the contract's, unchanged."""
    repo, decision = _two_actors(tmp_path)
    other = record_id(repo, content="another decision")
    piped_before = hn(repo, "memory", "recall", "--include-untrusted").out
    assert hn(repo, "memory", "challenge", decision, "--reason", "outdated").code == 0
    lines = _pty(repo, "memory", "recall", "--include-untrusted", columns=120)
    marked = [line for line in lines if line.startswith(decision[7:19])]
    assert marked and marked[0].endswith(" challenged"), lines
    assert not [line for line in lines if line.startswith(other[7:19]) and "challenged" in line]
    piped = hn(repo, "memory", "recall", "--include-untrusted").out
    assert "challenged" not in piped and piped.count("\n") == piped_before.count("\n")


def test_challenge_and_retract_help_say_what_allow_secret_shaped_checks(tmp_path):
    """A newcomer trial asked what ``challenge --allow-secret-shaped`` checks, a challenge having
    no free text: CONTRACT §10.6 lints its reason (and keeps the option), so -h says so; a script
    that passes it still signs."""
    repo, decision = _two_actors(tmp_path)
    for command in ("challenge", "retract"):
        text = " ".join(hn(repo, "memory", command, "-h").out.split())
        assert "--allow-secret-shaped sign even if the reason looks like a credential (the secret lint checks " \
               "--reason)" in text, text
    r = hn(repo, "memory", "challenge", decision, "--reason", "outdated", "--allow-secret-shaped", "--json")
    assert r.code == 0 and r.json()["memoryId"].startswith("sha256:")


def _column(lines: list[str], labels: tuple[str, ...]) -> set[int]:
    """Where the value starts on each line that begins with one of ``labels``."""
    found = [line for line in lines if line.split(" ")[0] in labels or line.startswith(labels)]
    assert found, lines
    return {len(line) - len(line[len(label):].lstrip(" ")) for line in found
            for label in labels if line.startswith(label + " ")}


def test_every_labelled_block_aligns_one_space_after_its_longest_label(tmp_path):
    """f171: ``show`` put its values in column 9, ``record`` in 10 and ``supersede`` in 11. One rule
    now (``terminal.label_column``): each block's values start one space after its own longest
    label; the piped lines (CONTRACT §7.14, one space after the colon) are unchanged."""
    repo, decision = _two_actors(tmp_path)
    lines = _pty(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                 "--content", "bob's")
    assert _column(lines[1:], ("Author", "Stream", "Anchor")) == {len("Author ")}, lines
    own = hn(repo, "memory", "recall", "--json", "--include-untrusted").json()["memories"]
    own = next(m["id"] for m in own if m["id"] != decision)
    lines = _pty(repo, "memory", "supersede", own[7:19], "--content", "bob's, again")
    assert _column(lines[1:], ("Supersedes", "Author", "Stream", "Anchor")) == {len("Supersedes ")}, lines
    lines = _pty(repo, "memory", "challenge", decision[7:19], "--reason", "outdated")
    assert _column(lines[1:], ("Challenges", "Author", "Stream")) == {len("Challenges ")}, lines
    newest = hn(repo, "memory", "recall", "--json", "--include-untrusted").json()["memories"]
    newest = next(m["id"] for m in newest if m["id"] not in (decision, own))
    lines = _pty(repo, "memory", "retract", newest[7:19], "--reason", "obsolete")
    assert _column(lines[1:], ("Retracts", "Author", "Stream")) == {len("Retracts ")}, lines
    lines = _pty(repo, "memory", "show", decision[7:19])
    lines = lines[next(i for i, line in enumerate(lines) if re.match(r"Memory +[0-9a-f]{12}", line)):]  # (the warning)
    assert _column(lines, ("Memory", "Author", "Signed", "Stream", "Stored", "Anchor", "Evidence", "Challenged by",
                           "Full ID")) == {len("Challenged by ")}, lines
    lines = _pty(repo, "identity", "show")
    assert _column(lines, ("Name", "Actor", "Full actor")) == {len("Full actor ")}, lines
    piped = hn(repo, "memory", "retract", own, "--reason", "obsolete").out.splitlines()
    assert [line.split(" ")[0] for line in piped] == ["Memory:", "Stream:", "Actor:"], piped


def test_piped_supersede_retract_and_challenge_print_the_same_contract_lines(tmp_path):
    """f171 (a newcomer trial read a piped retract as printing the new ID alone): in a pipe each of
    the three prints CONTRACT §7.14's lines for the memory it appended, ``Memory:``, ``Stream:``,
    ``Actor:``, and ``Anchor:`` when it carries a record (supersede); an already retracted memory
    gets the existing retraction's lines and one line saying nothing was appended."""
    repo, decision = _two_actors(tmp_path)
    own = record_id(repo, content="bob's")

    def lines(*args) -> tuple[list[str], dict]:
        r = hn(repo, "memory", *args)
        assert r.code == 0, r.err
        return r.out.splitlines(), hn(repo, "memory", "show", r.out.split()[1], "--json").json()

    def contract(doc) -> list[str]:
        env = doc["envelope"]
        return [f"Memory: {doc['memoryId']}", f"Stream: {env['stream']}", f"Actor: {env['actor']}"]

    out, doc = lines("supersede", own, "--content", "bob's, again")
    assert out == [*contract(doc), f"Anchor: {git(repo, 'rev-parse', 'HEAD')}"]
    out, doc = lines("challenge", decision, "--reason", "outdated")
    assert out == contract(doc) and doc["envelope"]["target"] == decision
    out, doc = lines("retract", own, "--reason", "obsolete")
    assert out == contract(doc) and doc["envelope"]["target"] == own
    again, _ = lines("retract", own, "--reason", "wrong")
    assert again == [*out, f"Memory {own} is already retracted by {doc['memoryId']}; nothing appended"]


def test_show_keeps_every_path_and_topic_whole_on_a_narrow_terminal(tmp_path):
    """A newcomer trial (f174, tmux at 60 columns): ``show`` cut a long anchored path with an
    ellipsis (``Paths    src/services/authentication/token_refresh_handler.…``), so the path to
    give ``recall --path`` could not be read. Paths and topics are values someone types again:
    together on the label's line where they fit there, else each whole on a line of its own, in
    the value column or, where one does not fit it, under the label two columns in (the terminal
    wraps it; no newline inside it), as evidence items are."""
    long_path = "src/services/authentication/token_refresh_handler.py"  # (52 characters)
    repo = make_repo(tmp_path / "r", files={long_path: "x\n", "app.py": "y\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    mid = record_id(repo, "--path", long_path, "--path", "app.py", "--topic", "authentication-gateway",
                    "--topic", "token-refresh")
    wide = _pty(repo, "memory", "show", mid[7:19], columns=160)
    assert f"Paths    app.py, {long_path}" in wide and "Topics   authentication-gateway, token-refresh" in wide, wide
    narrow = _pty(repo, "memory", "show", mid[7:19], columns=61)
    at = narrow.index("Paths    app.py")  # (sorted, as the anchor holds them)
    assert narrow[at + 1] == " " * 9 + long_path, narrow  # (9 + 52 columns: whole in the value column)
    assert "Topics   authentication-gateway, token-refresh" in narrow  # (they fit together: one line)
    assert not any("\u2026" in line for line in narrow), narrow
    narrow = _pty(repo, "memory", "show", mid[7:19], columns=40)
    at = narrow.index("Paths")  # (52 columns do not fit beside it: every path under it)
    assert narrow[at + 1:at + 3] == ["  app.py", "  " + long_path], narrow
    at = narrow.index("Topics   authentication-gateway")
    assert narrow[at + 1] == " " * 9 + "token-refresh", narrow
    assert not any("\u2026" in line for line in narrow), narrow
