"""Random interleavings of writes, syncs, ref rewinds and reads across two clones: after each
step, every read command answers from the verified state exactly what a full verification
answers (issue 11, acceptance: the property test). Real repositories and a real bare remote;
hypothesis chooses the steps."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import git, hn, shared_remote
from state_compare import compare

STREAM = "sha256:" + "5e" * 32
OPS = ("record", "record-stream", "supersede", "retract", "challenge", "sync", "rewind", "policy",
       "commit")


def _ids(repo, actor=None) -> list[str]:
    out = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--lifecycle", "all",
             "--max-records", "1000")
    if out.code != 0:
        return []
    return [m["id"] for m in json.loads(out.out)["memories"] if actor is None or m["actor"] == actor]


def _actor(repo) -> str:
    return (repo / ".git" / "hn" / "active").read_text()[:-1]


def _step(op: str, who, other, n: int) -> None:
    me = _actor(who)
    base = ["--at", "HEAD", "--applies", "descendants"]
    if op == "record":
        hn(who, "memory", "record", "--kind", ("decision", "observation", "assumption")[n % 3], *base,
           "--topic", "t" + str(n % 2), "--content", f"memory {n} about isolation")
    elif op == "record-stream":
        hn(who, "memory", "record", "--kind", "decision", *base, "--stream", STREAM,
           "--content", f"stream memory {n}")
    elif op == "supersede":
        mine = [i for i in _ids(who, me)]
        if mine:
            hn(who, "memory", "supersede", mine[n % len(mine)], "--kind", "decision", *base,
               "--content", f"correction {n}")
    elif op == "retract":
        mine = _ids(who, me)
        if mine:
            hn(who, "memory", "retract", mine[n % len(mine)], "--reason", "obsolete")
    elif op == "challenge":
        theirs = [i for i in _ids(who) if i not in _ids(who, me)]
        if theirs:
            hn(who, "memory", "challenge", theirs[n % len(theirs)], "--reason", "doubtful")
    elif op == "sync":
        hn(who, "sync")
    elif op == "rewind":
        refs = git(who, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
        if refs:
            ref = refs[n % len(refs)]
            if git(who, "rev-list", "--count", ref) != "1":
                git(who, "update-ref", ref, ref + "~1")
    elif op == "policy":
        (who / ".hn").mkdir(exist_ok=True)
        (who / ".hn" / "policy.json").write_text(json.dumps({
            "version": "hn.policy/0", "maintainers": [me], "proposals": {"requiredAccepts": 1},
            "memory": {"trustedActors": sorted({me, _actor(other)}), "trustedKinds": ["decision"]}}))
        git(who, "add", ".hn")
        git(who, "commit", "-q", "-m", f"policy {n}")
    elif op == "commit":
        git(who, "commit", "-q", "--allow-empty", "-m", f"work {n}")


@pytest.fixture
def template(tmp_path_factory):
    """Two initialised clones of one bare remote, made once per test (the hermetic HOME holding
    their keys is function-scoped, and hypothesis reuses it for every example)."""
    root = tmp_path_factory.mktemp("interleavings")
    _remote, repos = shared_remote(root, "Alice", "Bob")
    for repo in repos:
        assert hn(repo, "replication", "select", "--all").code == 0
    return root


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(st.tuples(st.sampled_from(OPS), st.booleans(), st.integers(0, 9)),
                      min_size=4, max_size=9))
def test_random_interleavings_answer_as_full_verification(template, tmp_path_factory, steps):
    import shutil

    root = tmp_path_factory.mktemp("run")
    shutil.copytree(template, root / "w", symlinks=True)
    world = root / "w"
    # the copied clones point at the template's remote; give them their own copy
    for name in ("alice", "bob"):
        git(world / name, "remote", "set-url", "origin", str(world / "remote.git"))
    alice, bob = world / "alice", world / "bob"
    for op, on_alice, n in steps:
        who, other = (alice, bob) if on_alice else (bob, alice)
        _step(op, who, other, n)
        compare(who)
    compare(alice)
    compare(bob)
