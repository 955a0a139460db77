"""A committed ``.hn/policy.json`` that is invalid (CONTRACT §6.1): the commands that select by
trust fail and say what still reads memory; ``log`` and the human ``show`` read on with every
trust shown as ``policy-invalid`` and one warning line (a newcomer trial found no way to read
memory until the file was fixed). In the working tree, a policy whose memory lists are only out
of order is sorted by ``policy trust|untrust`` instead of refused, and a policy's faults are
said in git-hn's words, not Go's. A policy in a merge conflict is said to need the merge resolved
(not "fix it by hand, or … policy init"), and ``policy init`` never replaces HEAD's policy removed
from the working tree (F70)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import actor_of, git, hn, make_repo, record_id

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


UNMERGED = ("; .hn/policy.json is in a merge conflict: resolve the merge first, keeping every actor either side "
            "untrusted (one side taken whole, git checkout --ours or --theirs, can trust a revoked key again), then "
            "git add .hn/policy.json\n")


def test_a_policy_in_a_merge_conflict_says_to_resolve_the_merge(tmp_path):
    """A trial: during a merge conflict in the policy, ``policy trust|untrust`` said "fix it by
    hand, or remove it and run git hn policy init" (a new policy trusting only you, the
    maintainers dropped) and ``policy show`` "commit it to apply it" (a file of conflict
    markers). Each says to resolve the merge first."""
    repo = make_repo(tmp_path / "a")
    assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "policy")
    git(repo, "checkout", "-q", "-b", "side")
    assert hn(repo, "policy", "untrust", "--kind", "handoff").code == 0
    git(repo, "commit", "-q", "-am", "side")
    git(repo, "checkout", "-q", "main")
    assert hn(repo, "policy", "untrust", "--kind", "decision").code == 0
    git(repo, "commit", "-q", "-am", "main")
    assert "CONFLICT" in git(repo, "merge", "-q", "side", check=False)  # (in the policy)
    assert git(repo, "ls-files", "-u", "--", ".hn/policy.json")
    for args in (("trust", "--kind", "decision"), ("untrust", "--kind", "attempt"), ("init",)):
        r = hn(repo, "policy", *args)
        assert r.code == 1 and r.err.endswith(UNMERGED) and "policy init" not in r.err, (args, r.err)
    r = hn(repo, "policy", "show")
    assert r.code == 0 and "merge conflict" in r.err and "commit it to apply it" not in r.err, r.err
    # the markers resolved by hand but not added: still said from the index
    _policy_file(repo).write_text(json.dumps(_document(actor_of(repo), ["attempt"]), indent=2) + "[\n")
    r = hn(repo, "policy", "trust", "--kind", "decision")
    assert r.code == 1 and r.err.endswith(UNMERGED), r.err


def test_policy_init_does_not_replace_heads_policy(tmp_path):
    """A trial: with HEAD's policy removed from the working tree, ``policy init`` wrote a new one
    trusting only the current actor, dropping the maintainers without a word."""
    repo = make_repo(tmp_path / "a")
    assert hn(repo, "init", "--name", "Alice").code == 0
    _commit_policy(repo, _document("b" * 64, ["decision"]))
    _policy_file(repo).unlink()
    r = hn(repo, "policy", "init")
    assert r.code == 1 and not _policy_file(repo).exists(), r
    assert r.err == ("git-hn: HEAD has a .hn/policy.json (its maintainers and trusted actors) that the working tree "
                     "lacks: git checkout HEAD -- .hn/policy.json restores it; to start over, git rm .hn/policy.json "
                     "and commit first\n"), r.err
    git(repo, "rm", "-q", "--cached", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "no policy")
    assert hn(repo, "policy", "init").code == 0
