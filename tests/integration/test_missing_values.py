"""An option given without its value never takes the next option as its value (a newcomer
trial): ``record --topic --content x`` signed the topic ``--content``, ``--content --topic``
the content ``--topic``, ``--path --content y`` the path ``--content``, and ``--at --applies
descendants --content x`` blamed a second content source. Both parsers (``options.parse``, the
fast path of every memory command, and typer's for the others) call that a missing value, and
nothing is signed; ``--opt=VALUE`` still gives a value that starts with ``-``."""

from __future__ import annotations

import pytest

from helpers import git, hn, refs_snapshot

RECORD = "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT"
SUPERSEDE = "usage: git hn memory supersede MEMORY [record fields]"
HANDOFF = "usage: git hn memory handoff --at REV --applies MODE --input FILE|- --json"
REC = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants"]


def _said(name: str, metavar: str, before: str) -> str:
    return f"{name} needs a value {metavar} before {before} ({name}=VALUE gives a value that starts with -)"


@pytest.mark.parametrize("args,message", [
    ([*REC, "--topic", "--content", "x"], f"{RECORD}; {_said('--topic', 'T', '--content')}"),
    ([*REC, "--content", "--topic"], f"{RECORD}; {_said('--content', 'TEXT', '--topic')}"),
    ([*REC, "--path", "--content", "y"], f"{RECORD}; {_said('--path', 'P', '--content')}"),
    ([*REC, "--path", "--content=y"], f"{RECORD}; {_said('--path', 'P', '--content')}"),
    (["memory", "record", "--kind", "decision", "--at", "--applies", "descendants", "--content", "x"],
     f"{RECORD}; {_said('--at', 'REV', '--applies')}"),
    ([*REC, "--topic", "-h"], f"{RECORD}; {_said('--topic', 'T', '-h')}"),
    ([*REC, "--topic", "--", "x"], f"{RECORD}; {_said('--topic', 'T', '--')}"),
    (["memory", "handoff", "--at", "HEAD", "--applies", "descendants", "--blocker", "--json"],
     f"{HANDOFF}; {_said('--blocker', 'TEXT', '--json')}"),
    (["memory", "recall", "--topic", "--json"],
     f"usage: git hn memory recall [filters] [bounds] [--json]; {_said('--topic', 'T', '--json')}"),
    (["memory", "retract", "--reason", "--json"],
     f"usage: git hn memory retract MEMORY --reason REASON; {_said('--reason', 'REASON', '--json')}"),
    (["memory", "log", "--kind", "-n", "3"], f"{_said('--kind', 'K', '-n')}; git hn memory log -h shows the options"),
    (["replication", "select", "--memory", "--all"],
     f"usage: git hn replication select [REMOTE] [--actor ACTOR]... [--proposal ID]... [--memory STREAM]... "
     f"[--all] [budgets]; {_said('--memory', 'STREAM', '--all')}"),
    (["init", "--name", "-h"], f"usage: git hn init [--name NAME]; {_said('--name', 'NAME', '-h')}"),
    (["mcp", "--repo", "--allow-write"],
     f"usage: git hn mcp [--allow-write] [--repo PATH]; {_said('--repo', 'PATH', '--allow-write')}"),
])
def test_an_option_is_never_the_value_of_the_one_before_it(inited, args, message):
    before = refs_snapshot(inited)
    r = hn(inited, *args)
    assert r.code == 1 and r.out == "" and r.err.count("\n") == 1, (args, r)
    assert r.err.startswith(f"git-hn: {message}"), (args, r.err)
    assert refs_snapshot(inited) == before


def test_supersede_and_challenge_missing_values_sign_nothing(inited):
    memory = hn(inited, *REC, "--content", "first").out.split()[1]
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "supersede", memory, "--topic", "--content", "again")
    assert (r.code, r.err) == (1, f"git-hn: {SUPERSEDE}; {_said('--topic', 'T', '--content')}\n")
    r = hn(inited, "memory", "challenge", memory, "--reason", "wrong", "--evidence", "--stream", "x")
    assert r.code == 1 and _said("--evidence", "TYPED-ID", "--stream") in r.err
    assert refs_snapshot(inited) == before


def test_an_equals_sign_gives_a_value_that_starts_with_a_dash(inited):
    r = hn(inited, *REC, "--topic=--content", "--content=--topic", "--json")
    assert r.code == 0, r.err
    shown = hn(inited, "memory", "show", r.out.split('"memoryId":"')[1].split('"')[0], "--json").out
    assert '"topics":["--content"]' in shown and "--topic" in shown
    assert len(git(inited, "for-each-ref", "refs/hn/memory/").splitlines()) == 1
