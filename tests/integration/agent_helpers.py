"""Helpers shared by the agent-integration tests: two actors in one real repository, records,
policies."""

from __future__ import annotations

import json

from helpers import git, hn


def actor(repo) -> str:
    return (repo / ".git" / "hn" / "active").read_text()[:-1]


def switch(repo, who: str) -> None:
    """Make ``who`` (a stored identity) the active one, as a second agent on the same machine."""
    (repo / ".git" / "hn" / "active").write_text(who + "\n")


def second_identity(repo, name: str = "Bob Agent") -> str:
    """Create another identity in ``repo`` and return its actor; the first stays stored."""
    first = actor(repo)
    (repo / ".git" / "hn" / "active").unlink()
    r = hn(repo, "init", "--name", name)
    assert r.code == 0, r.err
    second = actor(repo)
    switch(repo, first)
    return second


def record(repo, *args, kind="decision", content="x", at="HEAD", applies="descendants") -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", kind, "--at", at, "--applies", applies,
           *args, "--content", content)
    assert r.code == 0, r.err
    return r.json()


def policy(actors, kinds, maintainer) -> str:
    return json.dumps({"version": "hn.policy/0", "maintainers": [maintainer],
                       "proposals": {"requiredAccepts": 1},
                       "memory": {"trustedActors": sorted(actors), "trustedKinds": sorted(kinds)}},
                      indent=2) + "\n"


def commit_policy(repo, text, message="policy") -> str:
    (repo / ".hn").mkdir(exist_ok=True)
    (repo / ".hn" / "policy.json").write_text(text)
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def stream_length(repo) -> int:
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
    return sum(int(git(repo, "rev-list", "--count", ref)) for ref in refs)
