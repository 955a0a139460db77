"""After a revocation (a newcomer trial of README's "Lost or compromised key", F49), on real
repositories sharing memory through a real bare remote:

- ``policy trust`` of a revoked key names the commit that untrusted it (trusting it again
  undoes that), and an ambiguous name marks which of its matches is no longer trusted;
- ``identity show`` in a clone behind the revocation says the reference branch's policy does
  not trust the actor (the drift line recall prints), not only that HEAD's does;
- the drift hint names the commit that removed the actor, not a later policy change;
- the revoked user is told how to make a new identity (README's recipe), by their hint and by
  ``init``'s refusal;
- the ``memory view`` page's notice says since when an author shown untrusted is no longer trusted;
- a push whose policy trusts again a key the remote's branch revoked (a merge resolution that took
  the side made before the revocation) warns, in both ``hn.prePush`` modes (F70);
- so does the other direction: a feature branch made before the revocation that merges the
  remote's main (or is rebased onto it) and keeps its own side of the policy conflict brings the
  revocation while its policy still trusts the key (the thirty-second session).
"""

from __future__ import annotations

import subprocess

import pytest

from helpers import actor_of, git, git_processes, hn, named, record_id, wait_publication
from test_revoked import POLICY, _commit_policy, _revoked_bob, _sync, _team

RECIPE = "README's \"Lost or compromised key\""


def _new_key(tmp_path, bob):
    """README's recipe in Bob's clone: a new identity named Bob made in a scratch repository,
    imported and activated, the old one removed (with a backup); its actor."""
    scratch = tmp_path / "keygen"
    git(tmp_path, "init", "-q", str(scratch))
    assert hn(scratch, "init", "--name", "Bob").code == 0
    assert hn(scratch, "identity", "export", "--output", str(tmp_path / "new.json")).code == 0
    old = actor_of(bob)
    assert hn(bob, "identity", "import", str(tmp_path / "new.json"), "--activate").code == 0
    r = hn(bob, "identity", "remove", old, "--backup", str(tmp_path / "old.json"))
    assert r.code == 0, r.err
    return actor_of(bob)


def _behind(repo, revoked):
    """``git fetch``, and the branch at the commit before the revocation (the trial's clone had
    merged the trust, then fetched the revocation without merging it)."""
    git(repo, "fetch", "-q", "origin")
    git(repo, "merge", "-q", "--ff-only", f"{revoked}^")


def test_trusting_a_revoked_key_again_names_the_revocation(tmp_path):
    """The trial: ``policy trust bob`` printed ``Trusted Bob (19b05949310c)`` and the name hint
    alone, after "Revoke Bob's key …: laptop stolen" (*revoked-key replay* by a maintainer who
    took the old ID from a stale message)."""
    alice, bob, revoked = _revoked_bob(tmp_path)
    b = actor_of(bob)
    for how in (b, b[:12], "Bob"):
        r = hn(alice, "policy", "trust", how)
        assert r.code == 0 and r.out.startswith(f"Trusted {named(b, 'Bob')}"), r.err
        assert (f"git-hn: warning: {b[:12]} was untrusted in {revoked[:12]} \"Revoke Bob's key\": trusting it "
                "again undoes that\n") in r.err, (how, r.err)
        git(alice, "checkout", "-q", "--", ".hn/policy.json")
    # a key never trusted gets no such warning
    r = hn(alice, "policy", "trust", actor_of(alice))
    assert "untrusted in" not in r.err


def test_an_ambiguous_name_marks_the_revoked_key(tmp_path):
    """The trial: with both of Bob's keys known, ``policy trust Bob`` listed ``Bob
    (19b05949310c), Bob (5eb6bb9f544e)``: nothing said which one was revoked."""
    alice, bob, revoked = _revoked_bob(tmp_path)
    old = actor_of(bob)
    git(bob, "pull", "-q", "origin", "main")
    new = _new_key(tmp_path, bob)
    record_id(bob, kind="observation", content="new key here")
    _sync(bob, alice)
    r = hn(alice, "policy", "trust", "Bob")
    assert r.code == 1
    assert f"{old[:12]} (\"Bob\", a self-chosen name, no longer trusted since {revoked[:12]} \"Revoke Bob's key\")" \
        in r.err, r.err
    assert f"{named(new, 'Bob')}" in r.err, r.err


def test_identity_show_behind_the_revocation_says_the_reference_does_not_trust_it(tmp_path):
    """The trial: in Bob's clone after ``git fetch`` (the revocation not merged), ``identity
    show`` said the policy at HEAD trusts this actor, while recall printed the drift hint."""
    _alice, bob, revoked = _revoked_bob(tmp_path)
    b = actor_of(bob)
    _behind(bob, revoked)
    drift = (f"the policy at HEAD trusts {named(b, 'Bob')}, which the policy at origin/main ({revoked[:12]}: "
             "\"Revoke Bob's key\") does not")
    assert drift in hn(bob, "memory", "recall").err
    for which in ("show", "public"):
        r = hn(bob, "identity", which)
        assert r.code == 0 and "trusts this actor for" in r.err and drift in r.err, r.err
    git(bob, "merge", "-q", "--ff-only", "origin/main")
    r = hn(bob, "identity", "show")
    assert "which the policy at origin/main" not in r.err and "no longer trusts this actor" in r.err, r.err


def test_the_drift_hint_names_the_revocation_not_a_later_change(tmp_path):
    """The trial: after "Trust Bob's new key", the hint said the policy at origin/master
    (66ac0b57f172: "Trust Bob's new key") does not trust Bob: the commit named trusts a key, and
    is not the one that untrusted this one."""
    alice, bob, carol, revoked = _revoked_bob(tmp_path, "Carol")
    assert hn(alice, "policy", "trust", actor_of(carol)).code == 0
    later = _commit_policy(alice, "Trust Carol's key")
    git(alice, "push", "-q", "origin", "main")
    _behind(bob, revoked)
    err = hn(bob, "memory", "recall").err
    assert f"origin/main ({revoked[:12]}: \"Revoke Bob's key\") does not" in err, err
    assert later[:12] not in err
    # a kind untrusted there: the last change is named, as before
    assert hn(alice, "policy", "untrust", "--kind", "observation").code == 0
    kinds = _commit_policy(alice, "No observations")
    git(alice, "push", "-q", "origin", "main")
    _behind(carol, revoked)
    err = hn(carol, "memory", "recall", "--actor", actor_of(carol), "--at", later).err
    assert f"origin/main ({kinds[:12]}: \"No observations\") does not" in err, err

def test_the_revoked_user_is_told_how_to_make_a_new_identity(tmp_path):
    """The trial: told "to sign again, make a new identity", Bob ran ``git hn init --name Bob``,
    which refused (``identity already exists``) without a word of how: the recipe (init in a
    scratch repository, export, import --activate, remove) was only in the README."""
    _alice, bob, revoked = _revoked_bob(tmp_path)
    git(bob, "pull", "-q", "origin", "main")
    r = hn(bob, "identity", "show")
    assert "to sign again, make a new identity" in r.err and RECIPE in r.err and "scratch repository" in r.err, r.err
    r = hn(bob, "init", "--name", "Bob")
    assert r.code == 1 and r.err.count("\n") == 1, r.err
    assert r.err.startswith("git-hn: identity already exists at ")
    assert f"no longer trusted since {revoked[:12]}" in r.err and RECIPE in r.err, r.err
    assert "in a clone of its own" not in r.err  # (the second-signer advice is not what Bob needs)

def test_the_view_page_says_since_when_an_author_is_no_longer_trusted(tmp_path):
    """The trial: the page showed the old key's memories as actor-untrusted without the reason
    recall gives."""
    alice, bob, revoked = _revoked_bob(tmp_path)
    b = actor_of(bob)
    out = tmp_path / "page.html"
    r = hn(alice, "memory", "view", "--output", str(out))
    assert r.code == 0, r.err
    page = out.read_text()
    assert f"actor {b[:12]} is no longer trusted since {revoked[:12]}" in page


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_a_push_trusting_a_revoked_key_again_warns(tmp_path, mode, monkeypatch):
    """The trial: Carol's branch, made before Bob's key was revoked, conflicted in the policy when
    merged; ``git checkout --theirs .hn/policy.json`` took her side, which still trusted Bob's
    stolen key, and the push said nothing while the thief's memories were trusted again. The push
    warns (never refuses) when it changes the policy to trust again a key the remote's branch
    revoked; a push that leaves the policy alone asks one ``git log`` of the pushed commits only."""
    alice, bob, carol = _team(tmp_path, "Bob", "Carol")
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", actor_of(bob)).code == 0
    _commit_policy(alice, "Trust Bob")
    git(alice, "push", "-q", "origin", "main")
    git(alice, "checkout", "-q", "-b", "trust-carol")
    assert hn(alice, "policy", "trust", actor_of(carol)).code == 0
    _commit_policy(alice, "Trust Carol")
    git(alice, "checkout", "-q", "main")
    assert hn(alice, "policy", "untrust", actor_of(bob)).code == 0
    revoked = _commit_policy(alice, "Revoke Bob's key")
    git(alice, "push", "-q", "origin", "main")
    assert _run(alice, "merge", "-q", "trust-carol").returncode != 0  # (a conflict in the policy)
    git(alice, "checkout", "--theirs", POLICY)
    merged = _commit_policy(alice, "Merge trust-carol")
    r = _run(alice, "-c", f"hn.prePush={mode}", "push", "origin", "main")
    b = actor_of(bob)[:12]
    assert r.returncode == 0, r.stderr
    assert (f"git-hn: warning: this push trusts {b} again, untrusted in {revoked[:12]} \"Revoke Bob's key\": "
            f"check what it changes (git diff {revoked[:12]} {merged[:12]} -- {POLICY}; a merge that took a side "
            f"from before the revocation does this); if it is a mistake, git hn policy untrust {b}, commit and push "
            "again\n") in r.stderr, r.stderr
    assert actor_of(carol)[:12] not in r.stderr  # (trusted for the first time: nothing to say)
    # a push that leaves the policy as the remote has it: nothing said, and only the pushed
    # commits asked about (one ``git log`` of the range, no lookup in the remote's history)
    before = git(alice, "rev-parse", "HEAD")
    (alice / "a.txt").write_text("more\n")
    git(alice, "add", "a.txt")
    git(alice, "commit", "-q", "-m", "more")
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    r = _run(alice, "-c", f"hn.prePush={mode}", "push", "origin", "main")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    assert r.returncode == 0 and "untrusted" not in r.stderr, r.stderr
    asked = [a for a in git_processes(trace) if POLICY in a]
    after = git(alice, "rev-parse", "HEAD")
    assert len(asked) == 1 and asked[0][0] == "log" and f"{before}..{after}" in asked[0], asked


def _dated(day: int) -> dict:
    """A commit's author and commit dates on day ``day`` of 2026 (the tests' commits are otherwise
    made in the same second)."""
    when = f"2026-01-{day:02d}T12:00:00Z"
    return {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}


def _feature_before_revocation(tmp_path):
    """Alice trusts Bob (pushed); Carol's branch ``trust-carol`` is made then, and trusts Carol;
    main revokes Bob (pushed), and the branch is pushed as it was: (alice, bob, carol, the
    revoking commit)."""
    alice, bob, carol = _team(tmp_path, "Bob", "Carol")
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", actor_of(bob)).code == 0
    _commit_policy(alice, "Trust Bob")
    git(alice, "push", "-q", "origin", "main")
    git(alice, "checkout", "-q", "-b", "trust-carol")
    assert hn(alice, "policy", "trust", actor_of(carol)).code == 0
    _commit_policy(alice, "Trust Carol", env=_dated(1))  # (a day before the revocation: a rebase keeps it)
    assert _run(alice, "push", "-q", "origin", "trust-carol").returncode == 0
    git(alice, "checkout", "-q", "main")
    assert hn(alice, "policy", "untrust", actor_of(bob)).code == 0
    revoked = _commit_policy(alice, "Revoke Bob's key", env=_dated(2))
    assert _run(alice, "push", "-q", "origin", "main").returncode == 0
    git(alice, "checkout", "-q", "trust-carol")
    return alice, bob, carol, revoked


@pytest.mark.parametrize("how", ["merge", "rebase"])
def test_a_branch_that_brings_the_revocation_and_keeps_its_side_warns(tmp_path, how):
    """The direction F70 left: the feature branch merges main (or is rebased onto it) and the
    policy conflict keeps the branch's side, which still trusts Bob. Its pushed policy is the one
    the remote's branch already has (so the old-commit lookup sees no change), and the push
    brings the revoking commit: it warns, naming that commit, and refuses nothing. The rebased
    commit, whose parent is the revocation, trusts Bob again: it is named as the re-trust (F89),
    and the advice is the same."""
    alice, bob, carol, revoked = _feature_before_revocation(tmp_path)
    old = git(alice, "rev-parse", "HEAD")
    if how == "merge":
        assert _run(alice, "merge", "-q", "main").returncode != 0  # (a conflict in the policy)
        git(alice, "checkout", "--ours", POLICY)
        _commit_policy(alice, "Merge main")
        push = ("push", "origin", "trust-carol")
    else:
        assert _run(alice, "rebase", "-q", "main").returncode != 0
        git(alice, "checkout", "--theirs", POLICY)  # (in a rebase, "theirs" is the branch's commit)
        git(alice, "add", POLICY)
        git(alice, "-c", "core.editor=true", "rebase", "--continue")
        push = ("push", "--force", "origin", "trust-carol")
    new = git(alice, "rev-parse", "HEAD")
    assert git(alice, "rev-parse", f"{new}:{POLICY}") == git(alice, "rev-parse", f"{old}:{POLICY}")
    r = _run(alice, "-c", "hn.prePush=block", *push)
    b = actor_of(bob)[:12]
    assert r.returncode == 0, r.stderr
    log = f"git log --oneline --full-history {old[:12]}..{new[:12]} -- {POLICY}"
    if how == "merge":
        assert (f"git-hn: warning: this push brings {revoked[:12]} \"Revoke Bob's key\", which untrusted {b}, and "
                f"its policy still trusts {b}: a merge or rebase that kept the side from before the revocation does "
                f"this ({log}); if it is a mistake, git hn policy untrust {b}, commit and push again\n") in r.stderr, r.stderr
    else:  # (the rebased commit descends from the revocation and trusts Bob again: named, F89)
        assert (f"git-hn: warning: {new[:12]} \"Trust Carol\" trusts {b} again after {revoked[:12]} \"Revoke Bob's "
                f"key\" untrusted it: if that was meant, nothing to do; if it came from resolving a conflict or a "
                f"rebase ({log}), git hn policy untrust {b}, commit and push again\n") in r.stderr, r.stderr
    assert actor_of(carol)[:12] not in r.stderr  # (never untrusted: nothing to say)


def test_a_key_trusted_again_on_purpose_after_its_revocation_is_named_as_the_re_trust(tmp_path):
    """A review: main untrusts Bob, then a maintainer trusts him again (a later commit), and main
    is pushed with both; then the feature branch merges main and is pushed. The range of each push
    holds the revocation and the re-trust: b29bc2e said nothing when the re-trust's author date
    was later, which a rebase or a hostile author decides (F89). Each push warns, naming the
    re-trust (a commit after the revocation, of one parent) and saying nothing is to do if it was
    meant: a warning that may be unneeded, once per push that brings the two."""
    alice, bob, carol = _team(tmp_path, "Bob", "Carol")
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", actor_of(bob)).code == 0
    _commit_policy(alice, "Trust Bob")
    git(alice, "push", "-q", "origin", "main")
    git(alice, "checkout", "-q", "-b", "trust-carol")
    assert hn(alice, "policy", "trust", actor_of(carol)).code == 0
    _commit_policy(alice, "Trust Carol", env=_dated(1))
    assert _run(alice, "push", "-q", "origin", "trust-carol").returncode == 0
    git(alice, "checkout", "-q", "main")
    assert hn(alice, "policy", "untrust", actor_of(bob)).code == 0
    revoked = _commit_policy(alice, "Revoke Bob (suspected theft)", env=_dated(2))
    assert hn(alice, "policy", "trust", actor_of(bob)).code == 0
    again = _commit_policy(alice, "Trust Bob again", env=_dated(3))
    b = actor_of(bob)[:12]

    def said(old, new):
        return (f"git-hn: warning: {again[:12]} \"Trust Bob again\" trusts {b} again after {revoked[:12]} \"Revoke "
                f"Bob (suspected theft)\" untrusted it: if that was meant, nothing to do; if it came from resolving a "
                f"conflict or a rebase (git log --oneline --full-history {old[:12]}..{new[:12]} -- {POLICY}), git hn "
                f"policy untrust {b}, commit and push again\n")

    old = git(alice, "rev-parse", "origin/main")
    r = _run(alice, "push", "origin", "main")
    assert r.returncode == 0 and said(old, again) in r.stderr and r.stderr.count("warning:") == 1, r.stderr
    git(alice, "checkout", "-q", "trust-carol")
    old = git(alice, "rev-parse", "HEAD")
    assert _run(alice, "merge", "-q", "--no-edit", "main").returncode == 0, git(alice, "status")
    r = _run(alice, "push", "origin", "trust-carol")
    new = git(alice, "rev-parse", "HEAD")
    assert r.returncode == 0 and said(old, new) in r.stderr and r.stderr.count("warning:") == 1, r.stderr


def test_a_branch_that_brings_the_revocation_and_takes_it_says_nothing(tmp_path):
    """The same merge resolved to main's side, then Carol trusted again by hand: the pushed
    policy no longer trusts Bob, and nothing is said."""
    alice, bob, carol, _revoked = _feature_before_revocation(tmp_path)
    assert _run(alice, "merge", "-q", "main").returncode != 0
    git(alice, "checkout", "--theirs", POLICY)
    assert hn(alice, "policy", "trust", actor_of(carol)).code == 0
    _commit_policy(alice, "Merge main")
    r = _run(alice, "push", "origin", "trust-carol")
    assert r.returncode == 0 and "untrusted" not in r.stderr, r.stderr


def _run(repo, *args):
    """``git ARGS`` (a push: its hook says on stderr), then any background publication it started."""
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    return proc


def test_the_markdown_brief_offers_no_trust_to_revoked_authors(tmp_path):
    """A trial: the Markdown brief's body said ``git hn policy trust qualifies their authors or
    kinds`` of memories whose every author is a revoked key (stderr said they were revoked; README
    promises no offer to trust one). The body drops the offer then; another author gets it."""
    alice, bob, revoked = _revoked_bob(tmp_path)
    r = hn(alice, "memory", "brief")
    assert r.code == 0 and "excluded untrusted: 1\n" in r.out, r.out
    assert "shows them; the policy no longer trusts their authors\n" in r.out and "policy trust" not in r.out, r.out
    assert f"no longer trusted since {revoked[:12]}" in r.err, r.err
    assert r.err.count("no longer trusted") == 1  # (one lookup's answer, said once)
    git(bob, "pull", "-q", "origin", "main")
    _new_key(tmp_path, bob)
    record_id(bob, kind="observation", content="new key here")
    _sync(bob, alice)
    r = hn(alice, "memory", "brief")
    assert "shows them; git hn policy trust qualifies their authors or kinds\n" in r.out, r.out
