"""A sync that stops at an anchor commit no branch of the remote has says it once, with the push
that puts it back (replication.outcomes; docs/decisions.md, f59). A team trial (S54): Alice
amended a published commit and force-pushed; Bob, with ``--all``, ran ``git hn sync`` and read
"fetch a branch that contains it" just above the line saying no branch has it, the hn-anchor push
twice, and "exact selections" / "no selection was promoted" for his ``--all``. ``--json`` keeps
the contract's recovery. Real repositories, a real bare remote reached over file://."""

from __future__ import annotations

import json

from helpers import git, hn, make_repo


def _amended_after_publication(tmp_path, bare_remote, first=False):
    """``first``: a memory on main comes before the one on the amended commit."""
    remote = bare_remote("team.git")
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", remote.as_uri())
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    if first:
        assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--content", "main decision").code == 0
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
    assert r.err.startswith("git-hn: replication import phase failed for one or more exact selections; 1 of origin's "
                            "streams failed, none promoted; memory "), r.err
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


def test_the_json_outcome_of_a_lost_anchor_carries_the_put_back_advice_beside_the_recovery(tmp_path, bare_remote):
    """A trial (S88, finding 2): ``sync --json``'s outcome said only the contract's recovery,
    "fetch a branch that contains C", which no branch had; an agent reading only stdout would fetch
    and sync in a loop. The outcome keeps §9.14's keys (``recovery`` included) and adds ``hint``,
    after them: the human line for C, without the author's name. It works as printed."""
    bob, anchor = _amended_after_publication(tmp_path, bare_remote)
    j = hn(bob, "sync", "--json")
    assert j.code == 1
    out = json.loads(j.out)["outcomes"][0]
    assert list(out) == ["kind", "id", "status", "diagnostic", "dependencyKind", "missingId", "ownerMemoryId",
                         "ownerStream", "recovery", "measurements", "hint"], out
    assert out["recovery"] == f"fetch a branch that contains {anchor}, then git hn sync origin"
    push = f"git push origin {anchor}:refs/heads/hn-anchor/{anchor[:12]}"
    assert out["hint"] == (f"Commit {anchor} is not here, nor on any branch of origin this clone fetches (this sync "
                           "has just fetched them): if a rebase, an amend or a deleted branch took it off, a clone "
                           f"that still has it (its author's, most likely) can put it back: {push}"), out
    alice = tmp_path / "alice"
    git(alice, "push", "-q", "origin", f"{anchor}:refs/heads/hn-anchor/{anchor[:12]}")  # as the hint says
    doc = json.loads(hn(bob, "sync", "--json").out)
    assert [o["status"] for o in doc["outcomes"]] == ["promoted"] and "hint" not in doc["outcomes"][0], doc


def test_a_receipt_keeps_the_contracts_outcome_keys(tmp_path, bare_remote):
    """The ``hint`` of ``sync --json`` is not written into the receipts, which keep §9.14's shape:
    a stream promoted up to its lost anchor writes one with its failed outcome. (A guard: the
    receipt never had it; it fails only if ``hint`` moves into ``Outcome.to_json``.)"""
    bob, anchor = _amended_after_publication(tmp_path, bare_remote, first=True)
    j = hn(bob, "sync", "--json")
    assert j.code == 1 and json.loads(j.out)["outcomes"][0]["hint"], j.out
    docs = [json.loads(p.read_text()) for p in (bob / ".git" / "hn").rglob("*.json")]
    outcomes = [o for d in docs if isinstance(d, dict) for o in d.get("outcomes") or []]
    assert [o["missingId"] for o in outcomes if o.get("dependencyKind") == "anchor-commit"] == [anchor], outcomes
    assert all("hint" not in o for o in outcomes), outcomes
