"""A piped ``show`` or ``recall`` says on stderr that a memory is challenged (git-hn; S88 trial,
finding 4). Their stdout lines are the contract's (§7.13, §7.12) and have no place for it: on a
terminal ``show`` prints ``Challenged by`` and recall marks the row ``challenged``, but agents run
the CLI through a pipe, and a challenged memory read as undisputed. ``--json`` already holds the
challengers and is unchanged. Real repositories, real Git."""

from __future__ import annotations

from agent_helpers import actor, commit_policy, policy, record, second_identity, switch
from helpers import hn, make_repo

KINDS = ["assumption", "attempt", "decision", "handoff", "observation", "verification"]


def _team(tmp_path):
    """Alice's three decisions; Bob challenges the first two, Carol the first too:
    (repo, decisions, {decision: [challenge IDs]})."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    alice = actor(repo)
    bob, carol = second_identity(repo, "Bob"), second_identity(repo, "Carol")
    commit_policy(repo, policy([alice], KINDS, alice))
    decisions = [record(repo, content=f"decision {n}: keep the wire format small")["memoryId"] for n in range(3)]
    challenges: dict[str, list[str]] = {decisions[0]: [], decisions[1]: []}
    for who, targets in ((bob, decisions[:2]), (carol, decisions[:1])):
        switch(repo, who)
        for target in targets:
            r = hn(repo, "memory", "challenge", "--json", target, "--reason", "contradicts-the-benchmark")
            assert r.code == 0, r.err
            challenges[target].append(r.json()["memoryId"])
    switch(repo, alice)
    return repo, decisions, challenges


def test_a_piped_show_of_a_challenged_memory_names_its_challengers_on_stderr(tmp_path):
    repo, decisions, challenges = _team(tmp_path)
    one = decisions[1]
    (by,) = challenges[one]
    r = hn(repo, "memory", "show", one)
    assert r.code == 0, r.err
    assert "hallenge" not in r.out, r.out  # (§7.13's lines, unchanged)
    assert f"git-hn: hint: memory {one[7:19]} is challenged by {by[7:19]}, which these lines do not show: git hn " \
        f"memory show --json {by[7:19]} gives its reason (envelope.reason)\n" in r.err, r.err
    reason = hn(repo, "memory", "show", "--json", by[7:19])  # (what the hint says to run works, and says why)
    assert reason.json()["envelope"]["reason"] == "contradicts-the-benchmark", reason
    two = hn(repo, "memory", "show", decisions[0])
    first, second = sorted(c[7:19] for c in challenges[decisions[0]])
    said = [x for x in two.err.splitlines() if "challenged" in x]
    assert len(said) == 1 and f"is challenged by {first} and {second}, which" in said[0] and \
        "git hn memory show --json ID of each gives its reason (envelope.reason" in said[0], two.err
    assert "challenged" not in hn(repo, "memory", "show", decisions[2]).err  # (not challenged: not said)
    assert "challenged" not in hn(repo, "memory", "show", "--json", one).err  # (the JSON has them)


def test_a_piped_recall_counts_its_challenged_rows_on_stderr(tmp_path):
    repo, decisions, challenges = _team(tmp_path)
    r = hn(repo, "memory", "recall")
    assert r.code == 0, r.err
    assert "hallenge" not in r.out, r.out  # (§7.12's lines, unchanged)
    said = [x for x in r.err.splitlines() if "challenged" in x]
    assert said == [f"git-hn: hint: 2 returned memories are challenged, which these lines do not show: "
                    f"{decisions[1][7:19]} and {decisions[0][7:19]}; git hn memory show ID names its challengers "
                    "(--json: each row's challengers)"], r.err  # (recall's order: newest first)
    assert "challenged" not in hn(repo, "memory", "recall", "--json").err
    one = hn(repo, "memory", "recall", "--max-records", "1", "--query", "decision 0")
    assert one.code == 0 and one.out.count("kind=decision") == 1, one
    assert f"1 returned memory is challenged, which these lines do not show: {decisions[0][7:19]};" in one.err, one.err


def test_on_a_terminal_the_challenge_is_shown_and_not_hinted_again(tmp_path):
    """A terminal's ``show`` prints ``Challenged by`` and its recall marks the row: no hint then. (A
    guard: it passes without the hints too; it fails if they are given on a terminal as well.)"""
    import sys

    from helpers import on_terminal

    repo, decisions, challenges = _team(tmp_path)
    (by,) = challenges[decisions[1]]
    out, err = on_terminal(repo, [sys.executable, "-m", "git_hn", "memory", "show", decisions[1]], 160,
                           {"GIT_PAGER": "cat"}, both=True)
    assert "Challenged by" in out and by[7:19] in out and "challenged" not in err, (out, err)
    out, err = on_terminal(repo, [sys.executable, "-m", "git_hn", "memory", "recall"], 160,
                           {"GIT_PAGER": "cat"}, both=True)
    assert "challenged" in out and "challenged" not in err, (out, err)
