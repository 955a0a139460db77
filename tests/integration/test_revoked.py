"""The "no longer trusted since <commit>" lookup (``service.revoked``) on real repositories that
share memory through a real bare remote (an independent review of F40's revocation messages):

- it finds the revocation from a subdirectory too (a pathspec counts from the current directory);
- only a removal from the memory policy's ``trustedActors`` counts, never another line naming the
  actor (a maintainer stepping down) nor a policy too large to be one (*hostile history*);
- a revocation committed with a skewed date is still newer than the trust it ends;
- a lookup that fails, or takes too long, is the message's usual advice, never an error;
- the MCP brief says it as the CLI does, and the MCP digest looks it up once.
"""

from __future__ import annotations

import json

from helpers import actor_of, git, git_processes, hn, record_id, shared_remote

POLICY = ".hn/policy.json"


def _team(tmp_path, *names):
    """Alice and a clone per other name, each selecting every stream and holding one observation
    of its own, all synced: the repositories, Alice's first."""
    _remote, repos = shared_remote(tmp_path, "Alice", *names)
    for repo in repos:
        assert hn(repo, "replication", "select", "--all").code == 0
        record_id(repo, kind="observation", content="here")
    _sync(*repos, repos[0])
    return repos


def _sync(*repos):
    for repo in repos:
        r = hn(repo, "sync")
        assert r.code == 0, r.err


def _commit_policy(repo, message, env=None):
    git(repo, "add", POLICY)
    git(repo, "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD")


def _revoked_bob(tmp_path, *others):
    """Alice trusts Bob, then revokes him (both committed and pushed): (alice, bob, ..., the
    revoking commit)."""
    repos = _team(tmp_path, "Bob", *others)
    alice, bob = repos[0], repos[1]
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", actor_of(bob)).code == 0
    _commit_policy(alice, "Trust Bob")
    assert hn(alice, "policy", "untrust", actor_of(bob)).code == 0
    revoked = _commit_policy(alice, "Revoke Bob's key")
    git(alice, "push", "-q", "origin", "main")
    return (*repos, revoked)


def _lookups(trace) -> list[list[str]]:
    """The revocation lookups' ``git log`` processes a trace saw (the policy drift hint's is ``-1``)."""
    return [a for a in git_processes(trace) if a[:1] == ["log"] and POLICY in a and "-1" not in a]


def test_a_revocation_is_found_from_a_subdirectory(tmp_path):
    """A review: from ``alice/sub/dir`` the lookup's ``git log -- .hn/policy.json`` named
    ``sub/dir/.hn/policy.json`` and found nothing, so recall offered the revoked key trust again,
    and ``identity show`` in Bob's clone told him what a maintainer runs to trust it."""
    alice, bob, revoked = _revoked_bob(tmp_path)
    b = actor_of(bob)
    gone = f"actor {b[:12]} is no longer trusted since {revoked[:12]} \"Revoke Bob's key\""
    (alice / "sub" / "dir").mkdir(parents=True)
    for where in (alice, alice / "sub" / "dir"):
        r = hn(where, "memory", "recall", "--actor", b)
        assert r.code == 0 and gone in r.err and "policy trust" not in r.err, (where, r.err)
    git(bob, "pull", "-q", "origin", "main")
    (bob / "sub" / "dir").mkdir(parents=True)
    r = hn(bob / "sub" / "dir", "identity", "show")
    assert r.code == 0 and f"no longer trusts this actor, since {revoked[:12]}" in r.err, r.err
    assert "policy trust" not in r.err


def test_a_maintainer_stepping_down_is_no_revocation(tmp_path):
    """A review: Carol, in ``maintainers`` only and never trusted for memory, stepped down, and
    recall said she "is no longer trusted since … 'Carol steps down as maintainer'", and her
    ``identity show`` told her to make a new identity: any removed line naming her counted. Only
    a removal from the memory policy's ``trustedActors`` does: Bob's, in the same history."""
    alice, bob, carol, revoked = _revoked_bob(tmp_path, "Carol")
    b, c = actor_of(bob), actor_of(carol)
    path = alice / POLICY
    doc = json.loads(path.read_text())
    doc["maintainers"] = sorted([actor_of(alice), c])
    path.write_text(json.dumps(doc, indent=2) + "\n")
    _commit_policy(alice, "Carol becomes a maintainer")
    doc["maintainers"] = [actor_of(alice)]
    path.write_text(json.dumps(doc, indent=2) + "\n")
    _commit_policy(alice, "Carol steps down as maintainer")
    git(alice, "push", "-q", "origin", "main")

    r = hn(alice, "memory", "recall", "--actor", c)
    assert r.err == (f'git-hn: hint: 1 memory hidden by the trust policy, signed by {c[:12]} ("Carol", a self-chosen name); see it with '
                     f"--include-untrusted, or trust its author with git hn policy trust {c}\n")
    r = hn(alice, "memory", "recall", "--actor", b)
    assert f"actor {b[:12]} is no longer trusted since {revoked[:12]}" in r.err and "policy trust" not in r.err
    git(carol, "pull", "-q", "origin", "main")
    r = hn(carol, "identity", "show")
    assert f"a maintainer runs git hn policy trust {c}" in r.err and "no longer" not in r.err, r.err


def test_a_policy_too_large_to_be_one_says_nothing_of_who_it_named(tmp_path):
    """*Hostile history*: a review's commits replaced the policy with a million lines naming a
    stranger (61 MB, read whole by ``git log -p`` with no output bound: 21.6 s and 1.7 GB), and
    the commit restoring the policy made the never trusted stranger "no longer trusted since
    'restore policy'". A blob over the size a policy may have is not read: it trusts no one."""
    from git_hn.core.limits import LIMITS

    alice, dave = _team(tmp_path, "Dave")
    d = actor_of(dave)
    assert hn(alice, "policy", "init").code == 0
    _commit_policy(alice, "Trust policy")
    good = (alice / POLICY).read_bytes()
    line = f'"{d}",\n'.encode()
    (alice / POLICY).write_bytes(line * (LIMITS.max_policy // len(line) + 1))
    _commit_policy(alice, "junk")
    (alice / POLICY).write_bytes(good)
    _commit_policy(alice, "restore policy")
    r = hn(alice, "memory", "recall", "--actor", d)
    assert r.err == (f'git-hn: hint: 1 memory hidden by the trust policy, signed by {d[:12]} ("Dave", a self-chosen name); see it with '
                     f"--include-untrusted, or trust its author with git hn policy trust {d}\n")


def test_a_revocation_with_a_skewed_date_is_still_newer_than_the_trust_it_ends(tmp_path):
    """A review: a revocation committed on a side branch with a committer date of 2001, merged
    beside another policy change, came after "Trust Bob" in Git's date order, and the lookup
    (the newest change naming Bob decided) found no revocation. The history is read in
    topological order: a commit before its parents, whatever their dates."""
    alice, bob = _team(tmp_path, "Bob")
    b = actor_of(bob)
    assert hn(alice, "policy", "init").code == 0
    assert hn(alice, "policy", "trust", b).code == 0
    _commit_policy(alice, "Trust Bob")
    git(alice, "checkout", "-q", "-b", "side")
    assert hn(alice, "policy", "untrust", b).code == 0
    old = {"GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z", "GIT_AUTHOR_DATE": "2001-01-01T00:00:00Z"}
    revoked = _commit_policy(alice, "Revoke Bob's key", env=old)
    git(alice, "checkout", "-q", "main")
    assert hn(alice, "policy", "untrust", "--kind", "handoff").code == 0
    _commit_policy(alice, "No handoffs")
    git(alice, "merge", "-q", "--no-commit", "-s", "ours", "side")
    assert hn(alice, "policy", "untrust", b).code == 0
    _commit_policy(alice, "Merge the revocation")
    r = hn(alice, "memory", "recall", "--actor", b)
    assert r.err == (f"git-hn: hint: 1 memory hidden by the trust policy; see it with --include-untrusted; actor "
                     f"{b[:12]} is no longer trusted since {revoked[:12]} \"Revoke Bob's key\"\n")


def test_a_lookup_that_times_out_is_the_usual_advice_and_never_an_error(tmp_path, monkeypatch):
    """A review: with a history too long to walk in Git's time, ``memory record`` printed its
    lines, then "git-hn: git log timed out" with status 1, though the memory was stored (an
    agent would record it twice). The lookup is advisory: when it cannot answer, the message
    keeps its usual advice. (Here no walk can be fast enough: the lookup's timeout is cut.)"""
    from git_hn.store.git import Git

    alice, bob, _revoked = _revoked_bob(tmp_path)
    b = actor_of(bob)
    git(bob, "pull", "-q", "origin", "main")
    run = Git.run

    def hurried(self, args, **kw):
        if "log" in args and POLICY in args and "-1" not in args:  # (the policy drift hint's stays)
            kw["timeout"] = 1e-4
        return run(self, args, **kw)

    monkeypatch.setattr(Git, "run", hurried)
    before = len(hn(bob, "memory", "log", "--json").json()["memories"])
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "deploys on fridays")
    assert r.code == 0 and r.out.startswith("Memory: ")
    assert r.err.startswith("git-hn: hint: memory signed, but recall and the brief leave it out"), r.err
    assert len(hn(bob, "memory", "log", "--json").json()["memories"]) == before + 1
    r = hn(alice, "memory", "recall", "--actor", b)
    assert r.code == 0 and "hidden by the trust policy" in r.err
    assert hn(bob, "identity", "show").code == 0


def test_the_mcp_brief_names_the_revoked_author_and_the_digest_looks_once(tmp_path, monkeypatch):
    """A review: the MCP ``memory_brief`` hint still offered ``git hn policy trust ACTOR`` for a
    revoked author (the CLI's brief did not), and ``memory_digest`` looked the revocation up
    twice a call."""
    from git_hn.service.mcp_calls import CALLS
    from git_hn.store.repo import open_repo

    alice, bob, revoked = _revoked_bob(tmp_path)
    b = actor_of(bob)
    record_id(bob, content="deploys on tuesdays")  # (a decision: the digest lists only decisions and handoffs)
    _sync(bob, alice)
    gone = f"actor {b[:12]} is no longer trusted since {revoked[:12]} \"Revoke Bob's key\""
    told = CALLS["memory_brief"](open_repo(str(alice)), {})["hint"]
    assert told.startswith(f"2 memories hidden by the trust policy; see them with includeUntrusted: true; {gone}")
    assert "policy trust" not in told
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    told = CALLS["memory_digest"](open_repo(str(alice)), {})["hint"]
    assert told.startswith(f"1 memory hidden by the trust policy; see it with includeUntrusted: true; {gone}")
    assert len(_lookups(trace)) == 1
