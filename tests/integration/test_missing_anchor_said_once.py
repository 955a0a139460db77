"""A sync that stops at an anchor commit no branch of the remote has says it once, with the push
that puts it back (replication.outcomes; docs/decisions.md, f59). A team trial (S54): Alice
amended a published commit and force-pushed; Bob, with ``--all``, ran ``git hn sync`` and read
"fetch a branch that contains it" just above the line saying no branch has it, the hn-anchor push
twice, and "exact selections" / "no selection was promoted" for his ``--all``. ``--json`` keeps
the contract's recovery. Real repositories, a real bare remote reached over file://."""

from __future__ import annotations

import json

from helpers import git, hn, make_repo


def _amended_after_publication(tmp_path, bare_remote):
    remote = bare_remote("team.git")
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", remote.as_uri())
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    git(alice, "switch", "-q", "-c", "feat")
    (alice / "x.txt").write_text("x\n")
    git(alice, "add", "x.txt")
    git(alice, "commit", "-q", "-m", "x")
    anchor = git(alice, "rev-parse", "HEAD")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "feat decision").code == 0
    git(alice, "push", "-q", "origin", "feat")
    assert hn(alice, "sync").code == 0
    git(alice, "commit", "-q", "--amend", "-m", "x (amended)")
    git(alice, "push", "-q", "--force", "origin", "feat")
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", remote.as_uri(), str(bob))
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    return bob, anchor


def test_a_missing_anchor_is_said_once_with_the_push_that_puts_it_back(tmp_path, bare_remote):
    bob, anchor = _amended_after_publication(tmp_path, bare_remote)
    r = hn(bob, "sync")
    assert r.code == 1
    said = r.out + r.err
    assert "fetch a branch" not in said, said  # (this sync fetched origin's branches: none has it)
    push = f"git push origin {anchor}:refs/heads/hn-anchor/{anchor[:12]}"
    assert said.count(push) == 1 and push in r.out, said
    failed = [x for x in r.out.splitlines() if x.startswith("Replication memory ")]
    assert len(failed) == 1 and failed[0].endswith(": anchor-commit-unavailable"), r.out
    # the contract's words first, then what they mean for --all
    assert r.err.startswith("git-hn: replication import phase failed for one or more exact selections; 1 stream of "
                            "--all failed, none promoted; memory "), r.err
    assert f"has commit {anchor[:12]} (the line above that names it says how to bring it back)" in r.err, r.err
    # --json: the contract's recovery and error text, unchanged; stderr then gives the push
    j = hn(bob, "sync", "--json")
    doc = json.loads(j.out)
    out = doc["outcomes"][0]
    assert out["recovery"] == f"fetch a branch that contains {anchor}, then git hn sync origin"
    assert out["diagnostic"].endswith(f"; recovery: fetch a branch that contains {anchor}, then git hn sync origin")
    assert doc["error"] == ("replication import phase failed for one or more exact selections; "
                            "no selection was promoted")
    assert j.err.count(push) == 1, j.err
