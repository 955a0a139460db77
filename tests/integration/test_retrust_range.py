"""The pre-push warning about a pushed policy that trusts a key a commit of the push untrusted
(``service.retrust``, ``service.revoked.dropped_in``), on real repositories: a bare remote, a
clone with the hooks installed, and real ``git push``es (a review of b29bc2e, F89).

b29bc2e took a commit listed before the revocation whose *author date* was at or after the
revocation's commit date for a re-trust that was meant, and said nothing. The review found that
rule silent in the very cases the warning is for, and the warning back where it was meant to go:

- a branch commit written after the revocation, rebased onto it keeping the branch's policy;
- a merge resolved to the union of both sides' trust lists (the merge commit itself was "meant");
- a merge keeping the branch's policy, in either parent order (the listing's order decided);
- a merge of a topic branch that trusts the key again in its resolution (*hostile history*: an
  author date is whatever its author writes);
- a maintainer's untrust then trust again, after ``git pull --rebase`` gave both commits the
  same commit date (warned "its policy still trusts": the re-trust not named).

Every one now warns (no date silences it): a commit of the push that descends from the revocation,
has one parent and trusts the key again is named as the re-trust ("if that was meant, nothing to
do"); otherwise the warning names the revocation that the pushed policy ignores.
"""

from __future__ import annotations

import json

import pytest

from helpers import actor_of, git, hn, init_as, make_repo, shared_remote
from test_revoked import POLICY, _commit_policy
from test_revoked_followups import _dated, _run


def _setup(tmp_path):
    """Alice (hooks installed) trusts Bob, pushes main and a ``feature`` branch made there; main
    then untrusts Bob on day 2 (not pushed yet): (alice, {name: actor}, the revoking commit)."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    ids = {}
    for name in ("Bob", "Carol", "Dave"):
        repo = make_repo(tmp_path / f"id-{name.lower()}")
        init_as(repo, name)
        ids[name] = actor_of(repo)
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", ids["Bob"]).code == 0
    _commit_policy(alice, "Trust Bob", env=_dated(1))
    assert _run(alice, "push", "-q", "origin", "main", "main:feature").returncode == 0
    git(alice, "branch", "-q", "feature", "main")
    assert hn(alice, "policy", "untrust", ids["Bob"]).code == 0
    revoked = _commit_policy(alice, "Revoke Bob's key", env=_dated(2))
    return alice, ids, revoked


def _trusted(repo, rev="") -> list[str]:
    text = git(repo, "show", f"{rev}:{POLICY}") if rev else (repo / POLICY).read_text()
    return json.loads(text)["memory"]["trustedActors"]


def _merge_unresolved(repo, rev) -> None:
    """Start a merge of ``rev`` and leave it uncommitted, for the test to resolve the policy. The
    two trust lists conflict, or merge cleanly, depending on where the random actor IDs sort (CI:
    1 run in many merged cleanly, and the test's assertion of a conflict failed), so the merge is
    never committed by Git and the resolution is always the test's."""
    merged = _run(repo, "merge", "-q", "--no-ff", "--no-commit", rev)
    assert (repo / ".git" / "MERGE_HEAD").exists(), merged


def _set_trusted(repo, actors) -> None:
    doc = json.loads((repo / POLICY).read_text())
    doc["memory"]["trustedActors"] = sorted(set(actors))
    (repo / POLICY).write_text(json.dumps(doc, indent=2) + "\n")


def _kept(old, new, revoked, bob) -> str:
    """The warning for a revocation the pushed policy ignores, no re-trust named."""
    return (f"git-hn: warning: this push brings {revoked[:12]} \"Revoke Bob's key\", which untrusted {bob[:12]}, "
            f"and its policy still trusts {bob[:12]}: a merge or rebase that kept the side from before the revocation "
            f"does this (git log --oneline --full-history {old[:12]}..{new[:12]} -- {POLICY}); if it is a mistake, "
            f"git hn policy untrust {bob[:12]}, commit and push again\n")


def _again(old, new, again, subject, revoked, revoked_subject, bob) -> str:
    """The warning naming ``again`` as the commit that trusts Bob again."""
    return (f"git-hn: warning: {again[:12]} \"{subject}\" trusts {bob[:12]} again after {revoked[:12]} "
            f"\"{revoked_subject}\" untrusted it: if that was meant, nothing to do; if it came from resolving a "
            f"conflict or a rebase (git log --oneline --full-history {old[:12]}..{new[:12]} -- {POLICY}), git hn "
            f"policy untrust {bob[:12]}, commit and push again\n")


def _push(alice, *args):
    r = _run(alice, "-c", "hn.prePush=block", "push", *args)
    assert r.returncode == 0, r.stderr  # (a warning, never a refusal)
    return r.stderr


def test_a_branch_commit_written_after_the_revocation_and_rebased_onto_it_is_named(tmp_path):
    """The review's (a): Carol is trusted on the branch a day after the revocation was committed,
    the branch is rebased onto main and the policy conflict resolved to the branch's side, so Bob
    is trusted again. b29bc2e took the rebased commit's later author date for a meant re-trust and
    said nothing; the rebased commit now is named as the one that trusts Bob again."""
    alice, ids, revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "checkout", "-q", "feature")
    old = git(alice, "rev-parse", "HEAD")
    assert hn(alice, "policy", "trust", ids["Carol"]).code == 0
    _commit_policy(alice, "Trust Carol", env=_dated(3))
    assert _run(alice, "rebase", "-q", "main").returncode != 0  # (a conflict in the policy)
    git(alice, "checkout", "--theirs", POLICY)  # (in a rebase, "theirs" is the branch's commit)
    git(alice, "add", POLICY)
    git(alice, "-c", "core.editor=true", "rebase", "--continue", env=_dated(4))
    new = git(alice, "rev-parse", "HEAD")
    assert ids["Bob"] in _trusted(alice) and git(alice, "rev-parse", "HEAD^") == revoked
    err = _push(alice, "--force", "origin", "feature")
    assert _again(old, new, new, "Trust Carol", revoked, "Revoke Bob's key", ids["Bob"]) in err, err
    assert err.count("warning:") == 1 and ids["Carol"][:12] not in err, err


def test_a_merge_resolved_to_the_union_of_both_trust_lists_warns(tmp_path):
    """The review's (b): main revokes Bob then trusts Dave; the branch (made before) trusts Carol;
    the branch merges main and the conflict is resolved to everyone either side trusts, Bob too.
    b29bc2e took the merge commit, written after the revocation, for a meant re-trust. A merge is
    never named as one: the warning names the revocation the pushed policy ignores."""
    alice, ids, revoked = _setup(tmp_path)
    assert hn(alice, "policy", "trust", ids["Dave"]).code == 0
    _commit_policy(alice, "Trust Dave", env=_dated(3))
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "checkout", "-q", "feature")
    old = git(alice, "rev-parse", "HEAD")
    assert hn(alice, "policy", "trust", ids["Carol"]).code == 0
    _commit_policy(alice, "Trust Carol", env=_dated(1))
    ours = _trusted(alice)
    _merge_unresolved(alice, "main")
    git(alice, "checkout", "HEAD", "--", POLICY)
    _set_trusted(alice, set(ours) | set(_trusted(alice, "main")))
    new = _commit_policy(alice, "Merge main", env=_dated(4))
    assert {ids["Bob"], ids["Carol"], ids["Dave"]} <= set(_trusted(alice))
    err = _push(alice, "origin", "feature")
    assert _kept(old, new, revoked, ids["Bob"]) in err, err
    assert err.count("warning:") == 1, err


@pytest.mark.parametrize("order", ["main-into-branch", "branch-into-main"])
def test_a_merge_keeping_the_branch_policy_warns_in_either_parent_order(tmp_path, order):
    """The review's (c): the branch trusts Carol a day after the revocation, and a merge of the
    two keeps the branch's policy. Merged into main and pushed as the branch, ``git log
    --topo-order`` listed the branch's commit before the revocation, and b29bc2e said nothing;
    the other parent order warned (that case passed before this change too: a guard of the order
    that worked). Both warn alike now: the branch's commit does not descend from the revocation,
    so it is no re-trust of it."""
    alice, ids, revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "checkout", "-q", "feature")
    old = git(alice, "rev-parse", "HEAD")
    assert hn(alice, "policy", "trust", ids["Carol"]).code == 0
    _commit_policy(alice, "Trust Carol", env=_dated(3))
    if order == "main-into-branch":
        _merge_unresolved(alice, "main")
        git(alice, "checkout", "HEAD", "--", POLICY)
    else:
        git(alice, "checkout", "-q", "-b", "upd", "main")
        _merge_unresolved(alice, "feature")
        git(alice, "checkout", "MERGE_HEAD", "--", POLICY)
    new = _commit_policy(alice, "Merge", env=_dated(4))
    assert git(alice, "rev-parse", f"{new}:{POLICY}") == git(alice, "rev-parse", f"feature:{POLICY}")
    err = _push(alice, "origin", "HEAD:feature")
    assert _kept(old, new, revoked, ids["Bob"]) in err, err
    assert err.count("warning:") == 1, err


def test_a_merge_that_trusts_again_in_its_resolution_is_not_named_a_re_trust(tmp_path):
    """*Hostile history*: a topic branch made on main after the revocation changes no policy, and
    its merge into main (an *evil merge*) trusts Bob again in the resolution itself. b29bc2e took
    the merge, dated after the revocation, for a meant re-trust. Git's listing gives that merge
    one parent (both sides lead to the revocation), so only the commit's own header tells it is a
    merge: it is not named as a re-trust, and the warning names the revocation."""
    alice, ids, revoked = _setup(tmp_path)
    old = git(alice, "rev-parse", "origin/main")
    git(alice, "checkout", "-q", "-b", "topic")
    (alice / "notes.txt").write_text("work\n")
    git(alice, "add", "notes.txt")
    git(alice, "commit", "-q", "-m", "Work", env=_dated(3))
    git(alice, "checkout", "-q", "main")
    (alice / "other.txt").write_text("more\n")
    git(alice, "add", "other.txt")
    git(alice, "commit", "-q", "-m", "More", env=_dated(3))
    git(alice, "merge", "-q", "--no-ff", "--no-commit", "topic")
    _set_trusted(alice, [*_trusted(alice), ids["Bob"]])
    new = _commit_policy(alice, "Merge topic", env=_dated(4))
    listed = git(alice, "log", "--format=%P", "--full-history", "--simplify-merges", "-1", new, "--", POLICY)
    assert listed == revoked  # (one parent as listed, two in its header)
    err = _push(alice, "origin", "main")
    assert _kept(old, new, revoked, ids["Bob"]) in err, err
    assert err.count("warning:") == 1, err


def test_a_deliberate_re_trust_after_pull_rebase_is_named_as_one(tmp_path):
    """The review's second finding: a maintainer untrusts Bob (a suspected theft) and trusts him
    again (cleared); a teammate pushed meanwhile, and ``git pull --rebase`` gives both commits the
    same commit date, later than the re-trust's author date. b29bc2e warned "its policy still
    trusts" as for a kept side. The push warns, naming the re-trust: if it was meant, nothing to
    do."""
    alice, ids, _revoked = _setup(tmp_path)
    git(alice, "reset", "-q", "--hard", "HEAD^")  # (this test revokes its own way)
    assert hn(alice, "policy", "untrust", ids["Bob"]).code == 0
    _commit_policy(alice, "Untrust Bob (suspected theft)", env=_dated(2))
    assert hn(alice, "policy", "trust", ids["Bob"]).code == 0
    _commit_policy(alice, "Trust Bob again (cleared)", env=_dated(3))
    git(alice, "checkout", "-q", "-b", "other", "origin/main")
    (alice / "other.txt").write_text("x\n")
    git(alice, "add", "other.txt")
    git(alice, "commit", "-q", "-m", "unrelated", env=_dated(4))
    assert _run(alice, "push", "-q", "origin", "other:main").returncode == 0
    git(alice, "checkout", "-q", "main")
    git(alice, "pull", "-q", "--rebase", "origin", "main", env=_dated(5))
    old, new = git(alice, "rev-parse", "origin/main"), git(alice, "rev-parse", "HEAD")
    untrust = git(alice, "rev-parse", "HEAD^")
    assert git(alice, "log", "-2", "--format=%ct") == "\n".join([git(alice, "log", "-1", "--format=%ct")] * 2)
    err = _push(alice, "origin", "main")
    assert _again(old, new, new, "Trust Bob again (cleared)", untrust, "Untrust Bob (suspected theft)",
                  ids["Bob"]) in err, err
    assert err.count("warning:") == 1, err


def test_a_policy_deleted_and_restored_unchanged_warns_no_one(tmp_path):
    """A review of df9b6ff (F93, finding 4): ``git rm .hn/policy.json``, then the file restored
    unchanged, pushed together, warned once per key the policy trusts, the pushing maintainer's
    own included ("… trusts <alice> again after … untrusted it"), and again when a branch made
    before merged main. A missing policy file is no revocation, and its return no re-trust: in
    the range (``dropped_in``), in the same two commits pushed one at a time (the old commit's
    lookup, ``revocations``: the remote's policy deleted), and after a merge that brings them."""
    alice, ids, _revoked = _setup(tmp_path)
    git(alice, "reset", "-q", "--hard", "HEAD^")  # (no revocation here: only the deletion)
    git(alice, "rm", "-q", POLICY)
    git(alice, "commit", "-q", "-m", "Remove the policy for now")
    git(alice, "checkout", "-q", "HEAD^", "--", POLICY)
    _commit_policy(alice, "Restore the policy")
    assert git(alice, "diff", "origin/main", "HEAD", "--", POLICY) == ""
    err = _push(alice, "origin", "main")
    assert "warning" not in err and "untrusted" not in err, err
    git(alice, "checkout", "-q", "feature")
    (alice / "f.txt").write_text("f\n")
    git(alice, "add", "f.txt")
    git(alice, "commit", "-q", "-m", "feature work")
    git(alice, "merge", "-q", "main", "-m", "Merge main into feature")
    err = _push(alice, "origin", "feature")
    assert "warning" not in err and "untrusted" not in err, err
    # the same two commits pushed one at a time: the remote's main has no policy when the second comes
    git(alice, "checkout", "-q", "main")
    git(alice, "rm", "-q", POLICY)
    git(alice, "commit", "-q", "-m", "Remove the policy again")
    assert "warning" not in _push(alice, "origin", "main")
    git(alice, "checkout", "-q", "HEAD^", "--", POLICY)
    _commit_policy(alice, "Restore it again")
    err = _push(alice, "origin", "main")
    assert "warning" not in err and "untrusted" not in err, err


def test_an_invalid_policy_committed_then_fixed_warns_no_one(tmp_path):
    """A newcomer trial (f146): a maintainer committed a policy with a JSON typo, then restored
    the good one, and the push warned of every key the policy trusts, the maintainer's own
    included ("… trusts <alice> again after … 'broken policy' untrusted it"). A file that is no
    valid policy trusts no one and untrusts no one, as a deleted one: a policy blob that named
    none of the asked actors was taken for a valid policy trusting none without being parsed.
    Pushed together (the range's lookup) and one at a time (the old commit's lookup)."""
    alice, ids, _revoked = _setup(tmp_path)
    git(alice, "reset", "-q", "--hard", "HEAD^")  # (no revocation here: only the broken file)
    good = (alice / POLICY).read_bytes()
    (alice / POLICY).write_bytes(b'{"version": "hn.policy/0",, }\n')
    _commit_policy(alice, "broken policy")
    (alice / POLICY).write_bytes(good)
    _commit_policy(alice, "fix policy")
    err = _push(alice, "origin", "main")
    assert "warning" not in err and "untrusted" not in err, err
    (alice / POLICY).write_bytes(b'{"version": "hn.policy/0",, }\n')
    _commit_policy(alice, "broken again")
    assert "warning" not in _push(alice, "origin", "main")
    (alice / POLICY).write_bytes(good)
    _commit_policy(alice, "fixed again")
    err = _push(alice, "origin", "main")
    assert "warning" not in err and "untrusted" not in err, err
    r = hn(alice, "policy", "trust", ids["Bob"])  # (trusted: unchanged, and no revocation to name)
    assert r.code == 0 and "untrusted in" not in r.err, r.err


def test_a_revoked_key_restored_with_a_deleted_policy_is_still_warned_of(tmp_path):
    """The other side of the rule above: a deletion is skipped, not taken for the newest policy.
    Bob's revocation is pushed, the policy deleted and pushed, and the policy from before the
    revocation restored: the push warns of Bob, untrusted by the revocation (not by the
    deletion), and of no one else."""
    alice, ids, revoked = _setup(tmp_path)
    assert _push(alice, "origin", "main").count("warning") == 0
    before = git(alice, "rev-parse", "HEAD^")
    git(alice, "rm", "-q", POLICY)
    git(alice, "commit", "-q", "-m", "Remove the policy")
    assert "warning" not in _push(alice, "origin", "main")
    old = git(alice, "rev-parse", "HEAD")
    git(alice, "checkout", "-q", before, "--", POLICY)
    new = _commit_policy(alice, "Restore the policy from before")
    err = _push(alice, "origin", "main")
    said = [x for x in err.splitlines(keepends=True) if "warning" in x]
    assert said == [f"git-hn: warning: this push trusts {ids['Bob'][:12]} again, untrusted in {revoked[:12]} \"Revoke "
                    f"Bob's key\": check what it changes (git diff {old[:12]} {new[:12]} -- {POLICY}; a merge that took "
                    f"a side from before the revocation does this); if it is a mistake, git hn policy untrust "
                    f"{ids['Bob'][:12]}, commit and push again\n"], err


def test_a_lookup_that_does_not_end_in_time_says_it_could_not_check(tmp_path):
    """A review (F93): the range's ``git log`` has ``revoked.LOG_SECONDS`` (1 s), and at 60,000
    commits it timed out, silently: a re-trust of a revoked key went unwarned. Given a budget no
    ``git log`` meets (the hook's own is the default), the same push input now gives one line
    saying the check was not made and the ``git log`` to read by hand; with the default budget it
    gives the warning itself."""
    from git_hn.service import retrust
    from git_hn.store.repo import open_repo

    alice, ids, revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "checkout", "-q", "feature")
    old = git(alice, "rev-parse", "HEAD")
    git(alice, "merge", "-q", "-s", "ours", "main", "-m", "Merge main, keeping our policy")
    new = git(alice, "rev-parse", "HEAD")
    data = f"refs/heads/feature {new} refs/heads/feature {old}\n".encode()
    said = retrust.warnings(open_repo(str(alice)), data, seconds=1e-6)
    assert said == [
        f"warning: could not check the policy's history within 1e-06 s, so a key this push trusts again after a "
        f"revocation is not warned of: git log -p --full-history {old[:12]}..{new[:12]} -- {POLICY} shows each "
        "change of the policy, to read by hand"]
    by_hand = said[0].split(": ", 2)[2].split(" shows ")[0].split()
    assert f"commit {revoked}" in git(alice, *by_hand[1:])  # (run as given, it shows the revocation)
    assert retrust.warnings(open_repo(str(alice)), data) == [_kept(old, new, revoked, ids["Bob"])[len("git-hn: "):-1]]


def test_a_push_whose_history_cannot_be_read_in_time_says_so_once(tmp_path):
    """A reread: each branch of a push asked the policy's history with its own budget, twice, and
    said each timeout (8 branches: about 16 s of waiting and 16 lines). The push has one budget
    now, and the first lookup that does not end in it is said once; the rest are not asked."""
    from git_hn.service import retrust
    from git_hn.store.repo import open_repo

    alice, _ids, _revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "checkout", "-q", "feature")
    olds = []
    for i in range(4):  # four branches, each at another commit of the remote (four other ranges)
        olds.append(git(alice, "rev-parse", "HEAD"))
        git(alice, "commit", "-q", "--allow-empty", "-m", f"step {i}")
    git(alice, "merge", "-q", "-s", "ours", "main", "-m", "Merge main, keeping our policy")
    new = git(alice, "rev-parse", "HEAD")
    data = "".join(f"refs/heads/b{i} {new} refs/heads/b{i} {old}\n" for i, old in enumerate(olds)).encode()
    said = retrust.warnings(open_repo(str(alice)), data, seconds=1e-6)
    assert len(said) == 1 and said[0].startswith("warning: could not check the policy's history within 1e-06 s"), said


def _topic_rebased(alice, ids, env_day=3):
    """A ``topic`` branch made before the revocation, trusting Carol, rebased onto main (the
    revocation) with the policy conflict resolved to the branch's side: Bob trusted again."""
    git(alice, "checkout", "-q", "-b", "topic", "feature")
    assert hn(alice, "policy", "trust", ids["Carol"]).code == 0
    _commit_policy(alice, "Trust Carol", env=_dated(env_day))
    assert _run(alice, "rebase", "-q", "main").returncode != 0  # (a conflict in the policy)
    git(alice, "checkout", "--theirs", POLICY)
    git(alice, "add", POLICY)
    git(alice, "-c", "core.editor=true", "rebase", "--continue", env=_dated(env_day + 1))
    return git(alice, "rev-parse", "HEAD")


def test_a_new_branch_rebased_onto_the_revocation_is_warned_of(tmp_path):
    """A review: the warning asked only updates of a branch the remote had, so the same rebased
    branch pushed first under a new name said nothing. A new branch is asked against its merge
    base with the remote's default branch (here ``origin/main``: no ``origin/HEAD`` in a clone
    that added its remote by hand), which holds the revocation."""
    alice, ids, revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    new = _topic_rebased(alice, ids)
    assert ids["Bob"] in _trusted(alice) and git(alice, "merge-base", "main", new) == revoked
    err = _push(alice, "origin", "topic")
    assert (f"git-hn: warning: this push trusts {ids['Bob'][:12]} again, untrusted in {revoked[:12]} "
            f"\"Revoke Bob's key\": check what it changes (git diff {revoked[:12]} {new[:12]} -- {POLICY}" in err), err
    assert err.count("warning:") == 1 and ids["Carol"][:12] not in err, err


def test_a_new_branch_from_before_the_revocation_is_not_warned_of(tmp_path):
    """A branch never built on the revocation (its merge base with the remote's default branch is
    older) keeps the trust it was made with: pushing it first is not warned of, as an update of it
    would not be (a guard: it passes before the change too, where no new branch is asked)."""
    alice, ids, _revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "checkout", "-q", "-b", "stale", "feature")
    assert hn(alice, "policy", "trust", ids["Carol"]).code == 0
    _commit_policy(alice, "Trust Carol", env=_dated(3))
    err = _push(alice, "origin", "stale")
    assert "warning:" not in err, err


def test_a_new_branch_is_asked_against_the_remote_head_first(tmp_path):
    """``<remote>/HEAD`` (what ``git clone`` sets) names the default branch before ``main``: with
    it pointing at a ``trunk`` that holds the revocation and ``origin/main`` at a commit before
    it, the rebased branch is warned of (asked against ``main``, it would not be)."""
    alice, ids, revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main:trunk").returncode == 0
    git(alice, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    assert git(alice, "rev-parse", "origin/main") != revoked
    _topic_rebased(alice, ids)
    err = _push(alice, "origin", "topic")
    assert f"this push trusts {ids['Bob'][:12]} again, untrusted in {revoked[:12]}" in err, err


def test_a_new_branch_pushed_first_to_a_fork_never_fetched_is_asked_against_origin(tmp_path):
    """A fork remote added and pushed to, never fetched, has no default branch here to ask: the
    rebased branch pushed there first went unwarned. It is asked against ``origin``'s, the
    repository it was most likely built on; a fork that has been fetched is asked first."""
    alice, ids, revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "fetch", "-q", "origin")
    new = _topic_rebased(alice, ids)
    fork = tmp_path / "fork.git"
    git(tmp_path, "init", "-q", "--bare", str(fork))
    git(alice, "remote", "add", "fork", str(fork))
    err = _push(alice, "fork", "topic")
    assert (f"git-hn: warning: this push trusts {ids['Bob'][:12]} again, untrusted in {revoked[:12]} "
            f"\"Revoke Bob's key\": check what it changes (git diff {revoked[:12]} {new[:12]} -- {POLICY}" in err), err
    # (never fetched: no default branch of its own; the push left only the pushed branch's ref)
    assert git(alice, "for-each-ref", "--format=%(refname)", "refs/remotes/fork/") == "refs/remotes/fork/topic"


def test_a_new_branch_whose_merge_base_is_not_found_in_time_says_it_could_not_check(tmp_path):
    """A review of the new-branch check: its ``git merge-base`` ran outside the push's budget and
    its timeout left the function, so the push said nothing at all, not even another branch's
    "could not check". It is asked within the budget now, and a timeout is said."""
    from git_hn.service import retrust
    from git_hn.store.repo import open_repo

    alice, ids, _revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    new = _topic_rebased(alice, ids)
    data = f"refs/heads/topic {new} refs/heads/topic {'0' * 40}\n".encode()
    said = retrust.warnings(open_repo(str(alice)), data, seconds=1e-6, remote="origin")
    assert said == [retrust.unchecked(1e-6, f"git log -p {new[:12]} --not --remotes=origin -- {POLICY}")], said
    assert retrust.warnings(open_repo(str(alice)), data, remote="origin"), "(in time, it warns)"


def test_a_push_of_more_branches_than_are_checked_says_how_many_were_not(tmp_path):
    """A review: only the first eight pushed branches are asked, and a ninth that trusted a revoked
    key again passed unsaid (``git push --all`` reaches nine easily). The rest are said, with what
    has them checked; a push of eight says nothing of the kind."""
    alice, ids, _revoked = _setup(tmp_path)
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    _topic_rebased(alice, ids)
    for i in range(1, 8):
        git(alice, "branch", f"a{i}", git(alice, "commit-tree", "main^{tree}", "-p", "main", "-m", f"a{i}"))
    eight = _push(alice, "origin", *[f"a{i}" for i in range(1, 8)], "topic")
    assert "were not checked" not in eight and "trusts" in eight, eight
    for i in range(1, 10):  # (each its own commit: updates to one commit are asked once)
        git(alice, "branch", f"b{i}", git(alice, "commit-tree", "main^{tree}", "-p", "main", "-m", f"b{i}"))
    assert _run(alice, "push", "-q", "origin", ":topic").returncode == 0
    nine = _push(alice, "origin", *[f"b{i}" for i in range(1, 10)], "topic")
    assert ("git-hn: warning: this push updates 10 branches that carry a memory policy; 2 of them were not checked "
            "for a key trusted again after a revocation (the first 8 were): push those in groups of at most 8 "
            "branches to have them checked\n") in nine, nine
