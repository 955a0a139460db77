"""The brief's challenged memories at agent-sized bounds (git-hn, f62; CONTRACT §7.15).

An agents trial: 34 active decisions, four of them challenged by an untrusted teammate (the oldest
among them). At 8,000 bytes (the README's agent call) the JSON brief listed one challenged decision
and three routine observations, assumptions and failed attempts, and the three newer challenged
decisions were in no section; at 16,384 one challenged decision took ~2.6 KB twice (in
``decisions`` and in ``challenges``) while the oldest was in neither. The challenged now come
before the routine decisions, observations and assumptions when the bound is tight; a challenged
decision stays in ``decisions`` too (§7.15: a row may appear in two sections).
"""

from __future__ import annotations

from agent_helpers import actor, commit_policy, policy, record, second_identity, switch
from helpers import git, hn, make_repo

KINDS = ["assumption", "attempt", "decision", "handoff", "observation", "verification"]


def _team(tmp_path):
    repo = make_repo(tmp_path / "r", files={"src/app.py": "print(1)\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    alice = actor(repo)
    bob = second_identity(repo, "Bob")  # (a teammate the policy does not trust)
    commit_policy(repo, policy([alice], KINDS, alice))
    r = hn(repo, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants", "--content",
           "session one: the index is half done", "--next-action", "finish the index")
    assert r.code == 0, r.err
    decisions = [record(repo, content=f"Decision {n}: " + "we keep the wire format canonical and small. " * 4)
                 ["memoryId"] for n in range(34)]
    for n in range(3):
        record(repo, "--path", "src/app.py", kind="observation", content=f"Observation {n}: " + "slow path. " * 20)
        record(repo, kind="assumption", content=f"Assumption {n}: " + "the server is single-tenant. " * 8)
    assert hn(repo, "memory", "record", "--kind", "attempt", "--outcome", "failed", "--at", "HEAD",
              "--applies", "descendants", "--content", "tried sqlite WAL: " + "locks. " * 30).code == 0
    (repo / "src" / "app.py").write_text("print(2)\n")  # (the observations' anchors go stale)
    git(repo, "commit", "-qam", "change")
    switch(repo, bob)
    challenged = [decisions[0], decisions[9], decisions[20], decisions[33]]  # (the oldest among them)
    for ident in challenged:
        r = hn(repo, "memory", "challenge", ident, "--reason", "contradicts-the-benchmark-we-ran")
        assert r.code == 0, r.err
    switch(repo, alice)
    return repo, challenged


def test_challenged_decisions_come_before_routine_ones_at_agent_sized_bounds(tmp_path):
    from git_hn.service import brief as service
    from git_hn.store.repo import open_repo

    repo, challenged = _team(tmp_path)
    for bound in ("8000", "16384"):
        r = hn(repo, "memory", "brief", "--json", "--include-untrusted", "--max-bytes", bound)
        assert r.code == 0, r.err
        doc = r.json()
        shown = [i["id"] for i in doc["challenges"]]
        if bound == "8000":  # (room for six of these items: the challenged before the routine ones)
            assert len(shown) >= 2 and not doc["observations"] and not doc["assumptions"], doc
        else:
            assert sorted(shown) == sorted(challenged), (bound, shown)
        assert all(i["challengedBy"] and i["challengers"] for i in doc["challenges"])
        assert doc["decisions"] and doc["truncated"], bound  # (the routine ones share what is left)
        full = service.brief_full(open_repo(str(repo)), "HEAD", max_bytes=int(bound), include_untrusted=True,
                                  fmt="json")
        assert full[1] == r.out_bytes  # (the verified state's answer is the full projection's)
    md = hn(repo, "memory", "brief", "--include-untrusted", "--max-bytes", "16384").out
    challenges = md.partition("\n## Challenges")[2]
    assert all(f"### {c}" in challenges for c in challenged)
    assert "challenged " not in md.partition("\n## ")[0]  # (none of them left out)
