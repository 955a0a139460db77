"""``git hn memory reanchor OLD --drop`` (git-hn, docs/decisions.md): a team trial dropped a
commit in ``git rebase -i``; its memory was never published, and its stream waited for that
commit for good ("memory e1352065c31d (with the 1 memory after it) waits for commit cd7c4d424157
… reanchor … or git push origin cd7c…"): the only ways on were pushing the dropped commit, or
re-anchoring the note elsewhere and retracting it. ``--drop`` discards the active identity's
unpublished memories that name the commit. Real repositories, a real bare remote, real ``git
rebase -i`` and ``git push`` with the hooks installed."""

from __future__ import annotations

import os
import subprocess

from helpers import git, hn, refs_snapshot, shared_remote, wait_publication
from state_compare import compare


def _record(repo, content, *extra, at="HEAD", kind="decision") -> str:
    r = hn(repo, "memory", "record", "--json", "--kind", kind, "--at", at, "--applies", "descendants",
           "--content", content, *extra)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _commit(repo, name) -> str:
    (repo / f"{name}.txt").write_text(f"{name}\n")
    git(repo, "add", f"{name}.txt")
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


def _drop_in_rebase(repo, subject: str, onto: str) -> None:
    """``git rebase -i ONTO`` with the commit ``subject`` turned from pick into drop."""
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i '/ {subject}$/s/^pick/drop/'"}
    proc = subprocess.run(["git", "rebase", "-q", "-i", onto], cwd=repo, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    wait_publication(repo)


def _ids(repo) -> list[str]:
    """Every record of the repository, applicable at HEAD or not (``memory log``)."""
    return [m["id"] for m in hn(repo, "memory", "log", "--json").json()["memories"]]


def test_a_commit_dropped_in_rebase_i_has_its_unpublished_memory_discarded(tmp_path):
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(alice, "hooks", "install").code == 0
    published = _record(alice, "published before the rebase")
    assert hn(alice, "sync").code == 0
    base = git(alice, "rev-parse", "HEAD")
    _commit(alice, "c1")
    dropped_commit = _commit(alice, "c2")
    note = _record(alice, "a note on a commit nobody wants")
    _commit(alice, "c3")
    _record(alice, "a note on the commit after it", kind="observation")
    _drop_in_rebase(alice, "c2", base)
    renamed_later = [i for i in _ids(alice) if i not in (published, note)]  # (post-rewrite signed it again)
    assert len(renamed_later) == 1 and note in _ids(alice)
    ref = f"refs/hn/memory/{hn(alice, 'identity', 'public', '--json').json()['actor']}/"
    # the stream waits for the dropped commit, and the line says how to discard the note
    human = hn(alice, "sync")
    assert (f"git hn memory reanchor {dropped_commit[:12]} --drop (a commit dropped on purpose)") in human.out, human.out
    before = refs_snapshot(remote)
    dropped = hn(alice, "memory", "reanchor", dropped_commit[:12], "--drop", "--json")
    assert dropped.code == 0, dropped.err
    doc = dropped.json()
    [stream] = doc["streams"]
    assert doc["commit"] == dropped_commit
    assert stream["ref"].startswith(ref) and stream["dropped"] == [note] and stream["removed"] is False
    [(old, new)] = [(r["from"], r["to"]) for r in stream["renamed"]]
    assert old == renamed_later[0]
    assert sorted(_ids(alice)) == sorted([published, new])
    assert hn(alice, "memory", "show", note).code == 1
    assert hn(alice, "memory", "show", new, "--json").json()["projection"]["data"]["content"] == \
        "a note on the commit after it"
    assert hn(alice, "memory", "index", "verify").code == 0
    compare(alice)  # the state serves what a full verification says
    assert refs_snapshot(remote) == before  # (nothing was pushed)
    # nothing waits now: the push publishes the stream, and Bob imports it
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=alice, capture_output=True, text=True)
    wait_publication(alice)
    assert pushed.returncode == 0, pushed.stderr
    assert "heldBack" not in hn(alice, "sync", "--json").json()
    assert hn(bob, "replication", "select", "--all").code == 0
    git(bob, "pull", "-q", "--ff-only", "origin", "main")
    assert hn(bob, "sync").code == 0
    assert sorted(_ids(bob)) == sorted([published, new])


def test_drop_refuses_what_would_lose_a_published_or_cited_memory_and_changes_nothing(tmp_path):
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    head = git(alice, "rev-parse", "HEAD")
    published = _record(alice, "anchored on the first commit, published")
    assert hn(alice, "sync").code == 0
    gone = _commit(alice, "gone")
    note = _record(alice, "on the commit to drop")
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    retraction = hn(alice, "memory", "retract", note, "--reason", "obsolete", "--json").json()["memoryId"]

    def refused(args, text):
        before = refs_snapshot(alice)
        r = hn(alice, "memory", "reanchor", *args)
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: {text}\n"), r.err
        assert refs_snapshot(alice) == before

    held = ("is not discarded (main holds it), so a push carries it and its memories with it; --drop is for a "
            "commit no branch, tag, remote-tracking ref or HEAD holds: withdraw a memory with git hn memory retract "
            "ID --reason obsolete, or take the commit off your branches first; nothing was dropped")
    refused([head[:12], "--drop"], f"commit {head[:12]} {held}")
    refused([gone[:12], "--drop"], f"memory {retraction[7:19]} stays and cites memory {note[7:19]}, which names "
            f"commit {gone[:12]}: it would name a memory that no longer exists; nothing was dropped (git hn memory "
            f"reanchor {gone[:12]} NEW moves them instead, with --files-only when an anchored path is a directory or "
            "a submodule at NEW)")
    refused([gone[:12], "--drop", "HEAD"], "--drop takes no NEW (unexpected argument \"HEAD\"); usage: git hn "
            "memory reanchor OLD NEW [--files-only]|--drop [--json]")
    other = _commit(alice, "other")
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    refused([other[:12], "--drop"], f"no unpublished memory of yours names commit {other} (a published memory is "
            "never discarded: withdraw one with git hn memory retract)")


def test_drop_refuses_a_memory_published_on_a_commit_no_ref_holds_any_more(tmp_path):
    """A published memory is never discarded, even once its commit has left every ref here."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "checkout", "-q", "-b", "side")
    gone = _commit(alice, "gone")
    published = _record(alice, "published on a branch deleted since")
    git(alice, "push", "-q", "origin", "side")
    assert hn(alice, "sync").code == 0
    git(alice, "checkout", "-q", "main")
    git(alice, "push", "-q", "origin", "--delete", "side")
    git(alice, "branch", "-q", "-D", "side")
    before = refs_snapshot(alice)
    r = hn(alice, "memory", "reanchor", gone[:12], "--drop")
    assert (r.code, r.out) == (1, ""), r.out
    assert r.err == (f"git-hn: memory {published[7:19]} names commit {gone[:12]} and was published, so it is "
                     f"never discarded (git hn memory retract {published[7:19]} --reason obsolete withdraws it); "
                     "nothing was dropped\n"), r.err
    assert refs_snapshot(alice) == before


def test_drop_refuses_a_commit_a_branch_still_holds_and_names_the_tips_to_undo_one(tmp_path):
    """Review finding: "reanchor OLD --drop accepts a commit that is still on a branch and silently
    deletes unpublished memories". A commit HEAD, a branch, a tag or a remote-tracking ref holds is
    refused, changing nothing; a drop that goes through names each stream's old tip, since refs/hn/*
    keep no reflog, and ``git update-ref REF TIP`` brings the memories back."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    work = _commit(alice, "work")
    decision = _record(alice, "important decision")
    observation = _record(alice, "x", "--evidence", f"git:{work}", at="HEAD~1", kind="observation")
    before, memory_refs = refs_snapshot(alice), git(alice, "for-each-ref", "refs/hn/")
    r = hn(alice, "memory", "reanchor", "HEAD", "--drop")
    assert (r.code, r.out) == (1, "") and r.err.startswith(f"git-hn: commit {work[:12]} is not discarded (main "
                                                           "holds it)") and r.err.count("\n") == 1, r.err
    assert r.err.endswith("or take the commit off your branches first; nothing was dropped\n"), r.err
    assert refs_snapshot(alice) == before
    git(alice, "tag", "kept", work)
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    r = hn(alice, "memory", "reanchor", work[:12], "--drop")
    assert r.code == 1 and "(kept holds it)" in r.err, r.err
    assert git(alice, "for-each-ref", "refs/hn/") == memory_refs
    git(alice, "tag", "-d", "kept")
    [(ref, tip)] = [line.split() for line in before.splitlines() if line.startswith("refs/hn/memory/")]
    r = hn(alice, "memory", "reanchor", work[:12], "--drop")
    assert r.code == 0 and f"\nUndo: git update-ref {ref} {tip}\n" in r.out, r.out
    assert _ids(alice) == [] and git(alice, "for-each-ref", "refs/hn/memory/") == ""
    git(alice, "update-ref", ref, tip)  # the undo the output names
    assert sorted(_ids(alice)) == sorted([decision, observation])
    r = hn(alice, "memory", "reanchor", work[:12], "--drop", "--json")
    [stream] = r.json()["streams"]
    assert stream["ref"] == ref and stream["before"] == tip and sorted(stream["dropped"]) == sorted([decision, observation])


def test_show_says_a_dropped_memory_was_dropped_and_why_a_later_one_was_signed_again(tmp_path):
    """Review finding: ``show OLDID`` of a memory ``--drop`` signed again said it was signed again
    "when its commit was rewritten" (no commit was), and of a dropped memory only "not found …
    git hn sync REMOTE imports a teammate's". The renames log records why."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    gone = _commit(alice, "gone")
    note = _record(alice, "on the commit to drop")
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    after = _record(alice, "after it", kind="observation")
    r = hn(alice, "memory", "reanchor", gone[:12], "--drop", "--json")
    assert r.code == 0, r.err
    [[new]] = [[x["to"] for x in s["renamed"]] for s in r.json()["streams"]]
    shown = hn(alice, "memory", "show", note)
    assert shown.code == 1 and shown.err == (
        f"git-hn: memory {note} was not found in verified local or accepted streams; it was dropped by git hn "
        "memory reanchor --drop (unpublished, on a commit no ref held); the tip that command printed brings it "
        "back: git update-ref REF TIP\n"), shown.err
    shown = hn(alice, "memory", "show", after[7:19])
    assert shown.code == 1 and shown.err.endswith(
        f"it was signed again as {new} when git hn memory reanchor --drop discarded an earlier memory of its "
        f"stream (git hn memory show {new[7:19]})\n"), shown.err
    cite = hn(alice, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
              "--content", "y", "--evidence", f"memory:{note}")
    assert cite.code == 1 and "it was dropped by git hn memory reanchor --drop: leave it out" in cite.err, cite.err


def test_drop_refuses_a_commit_another_worktrees_head_holds(tmp_path):
    """A review: only this worktree's HEAD counted, so a commit checked out (detached) in a second
    worktree, which a branch made there would carry, was dropped with its memories. Every
    worktree's HEAD holds what it contains; once that worktree moves on, the drop goes. The
    refusal names that worktree (a later review: it said "git branch -a --contains names it",
    which printed nothing, and "take the commit off your branches", where it was on none)."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    work = _commit(alice, "work")
    _record(alice, "on work")
    git(alice, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"), work)
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    before = refs_snapshot(alice)
    r = hn(alice, "memory", "reanchor", work[:12], "--drop")
    assert r.code == 1 and r.err.startswith(
        f'git-hn: commit {work[:12]} is not discarded (the HEAD of worktree "{tmp_path / "wt"}" holds it)'), r.err
    assert r.err.endswith("or move that worktree's HEAD off it first; nothing was dropped\n"), r.err
    assert r.err.count("\n") == 1 and "--contains" not in r.err and "your branches" not in r.err, r.err
    assert refs_snapshot(alice) == before
    git(tmp_path / "wt", "checkout", "-q", "--detach", "HEAD~1")
    r = hn(alice, "memory", "reanchor", work[:12], "--drop")
    assert r.code == 0 and r.out.startswith("Dropped 1 unpublished memory of stream "), (r.out, r.err)


def test_drop_goes_on_past_a_worktree_on_an_unborn_branch(tmp_path):
    """A review: a linked worktree on an unborn branch (``git checkout --orphan``) is listed with
    the null ID as its HEAD, and the drop asked ``rev-list`` for it ("fatal: bad object"), refusing
    with a wrong explanation. Such a worktree holds no commit: the drop goes."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "checkout", "-q", "-b", "feat")
    c1 = _commit(alice, "c1")
    _record(alice, "on c1")
    git(alice, "checkout", "-q", "main")
    git(alice, "branch", "-q", "-D", "feat")
    git(alice, "worktree", "add", "-q", str(tmp_path / "wt2"), "-b", "side")
    git(tmp_path / "wt2", "checkout", "-q", "--orphan", "newroot")
    r = hn(alice, "memory", "reanchor", c1, "--drop")
    assert r.code == 0 and r.out.startswith("Dropped 1 unpublished memory of stream "), (r.out, r.err)
