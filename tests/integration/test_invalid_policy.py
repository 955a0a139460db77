"""A committed ``.hn/policy.json`` that is invalid (CONTRACT §6.1): the commands that select by
trust fail and say what still reads memory; ``log`` and the human ``show`` read on with every
trust shown as ``policy-invalid`` and one warning line (a newcomer trial found no way to read
memory until the file was fixed). In the working tree, a policy whose memory lists are only out
of order is sorted by ``policy trust|untrust`` instead of refused, and a policy's faults are
said in git-hn's words, not Go's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import actor_of, git, hn, record_id

COMMIT_HINT = ("Commit .hn/policy.json to apply it: recall and brief read the policy at the query "
               "commit, never the working tree")

MEANWHILE = ("; until then git hn memory log and show (without --json) read memory, their trust shown as "
             "policy-invalid")


def _policy_file(repo) -> Path:
    return Path(repo) / ".hn" / "policy.json"


def _document(a: str, kinds) -> dict:
    return {"version": "hn.policy/0", "maintainers": [a], "proposals": {"requiredAccepts": 1},
            "memory": {"trustedActors": [a], "trustedKinds": list(kinds)}}


def _commit_policy(repo, doc: dict) -> str:
    (repo / ".hn").mkdir(exist_ok=True)
    _policy_file(repo).write_text(json.dumps(doc, indent=2) + "\n")
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "policy")
    return git(repo, "rev-parse", "HEAD")[:12]


@pytest.fixture
def broken(inited):
    """A memory, then a committed policy whose trusted kinds are out of order: (repo, memory ID,
    where the error says the policy is)."""
    mid = record_id(inited, kind="observation", content="the cache is cold after a deploy")
    head = _commit_policy(inited, _document(actor_of(inited), ["observation", "decision"]))
    return inited, mid, f"memory trustedKinds must be sorted; in .hn/policy.json of commit {head}: fix the file and commit it"


def test_log_and_show_read_on_with_trust_shown_as_policy_invalid(broken):
    repo, mid, where = broken
    warning = f"git-hn: warning: {where}; until then every trust is shown as policy-invalid\n"
    r = hn(repo, "memory", "log")
    assert (r.code, r.err) == (0, warning)
    assert r.out.split()[:6] == [mid[7:19], r.out.split()[1], "Alice", "Agent", "observation", "active"]
    assert r.out.split()[6] == "policy-invalid"
    r = hn(repo, "memory", "log", "--json")
    assert r.err == warning and r.json()["memories"][0]["trust"] == "policy-invalid"
    r = hn(repo, "memory", "show", mid[7:19])
    assert (r.code, r.err) == (0, warning)
    assert "Trust: policy-invalid" in r.out.splitlines()


def test_what_selects_by_trust_still_fails_and_says_what_reads_meanwhile(broken):
    repo, mid, where = broken
    for args in (["memory", "recall"], ["memory", "brief"], ["memory", "show", mid, "--json"],
                 ["memory", "log", "--trust", "qualified"]):
        r = hn(repo, *args)
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: {where}{MEANWHILE}\n"), args
    # an earlier commit's policy (none here) still answers
    assert hn(repo, "memory", "recall", "--at", "HEAD~1", "--include-untrusted").code == 0


def test_trust_and_untrust_sort_a_policy_that_is_only_out_of_order(inited):
    a = actor_of(inited)
    (inited / ".hn").mkdir()
    _policy_file(inited).write_text(json.dumps(_document(a, ["observation", "decision"]), indent=2))
    r = hn(inited, "policy", "init")
    assert r.err == ("git-hn: .hn/policy.json already exists in the working tree and is invalid: memory "
                     "trustedKinds must be sorted; git hn policy trust or untrust writes it sorted\n")
    r = hn(inited, "policy", "trust", "--kind", "handoff")
    assert (r.code, r.err) == (0, "")
    assert r.out.splitlines() == [
        "Sorted the memory section's lists of .hn/policy.json (the policy requires that order)",
        "Trusted kind handoff for every trusted actor", COMMIT_HINT]
    assert json.loads(_policy_file(inited).read_text())["memory"]["trustedKinds"] == \
        ["decision", "handoff", "observation"]
    # an edit that changes nothing still writes the lists sorted
    _policy_file(inited).write_text(json.dumps(_document(a, ["observation", "decision"]), indent=2))
    r = hn(inited, "policy", "trust", "--kind", "decision")
    assert r.out.splitlines()[:2] == [
        "Sorted the memory section's lists of .hn/policy.json (the policy requires that order)",
        "Unchanged: kind decision is already trusted"]
    assert json.loads(_policy_file(inited).read_text())["memory"]["trustedKinds"] == ["decision", "observation"]


@pytest.mark.parametrize(("change", "said"), [
    (lambda d: d["memory"].update(extra=1),
     'parse policy: unknown field "extra" in memory, which takes only trustedActors, trustedKinds'),
    (lambda d: d.update(extra=1), 'parse policy: unknown field "extra" in the policy, which takes only '
                                  'version, maintainers, proposals, pipelines, memory'),
    (lambda d: d["proposals"].update(requiredAccepts="1"),
     "parse policy: proposals.requiredAccepts must be a whole number, not a string"),
    (lambda d: d.update(maintainers="x"), "parse policy: maintainers must be a list of strings, not a string"),
])
def test_a_policy_fault_is_said_in_git_hn_words(inited, change, said):
    doc = _document(actor_of(inited), ["decision"])
    change(doc)
    head = _commit_policy(inited, doc)
    r = hn(inited, "policy", "show")
    assert r.err == f"git-hn: {said}; in .hn/policy.json of commit {head}: fix the file and commit it{MEANWHILE}\n"
    assert "json:" not in r.err and "unmarshal" not in r.err
