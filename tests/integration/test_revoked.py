"""The "no longer trusted since <commit>" lookup (``service.revoked``) on real repositories that
share memory through a real bare remote (an independent review of F40's revocation messages):

- it finds the revocation from a subdirectory too (a pathspec counts from the current directory).
"""

from __future__ import annotations

from helpers import actor_of, git, hn, record_id, shared_remote

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
