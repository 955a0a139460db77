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

    refused([head[:12], "--drop"], f"memory {published[7:19]} names commit {head[:12]} and was published, so it is "
            f"never discarded (git hn memory retract {published[7:19]} --reason obsolete withdraws it); nothing "
            "was dropped")
    refused([gone[:12], "--drop"], f"memory {retraction[7:19]} stays and cites memory {note[7:19]}, which names "
            f"commit {gone[:12]}: it would name a memory that no longer exists; nothing was dropped (git hn memory "
            f"reanchor {gone[:12]} NEW moves them instead)")
    refused([gone[:12], "--drop", "HEAD"], "--drop takes no NEW (unexpected argument \"HEAD\"); usage: git hn "
            "memory reanchor OLD NEW|--drop [--json]")
    other = _commit(alice, "other")
    refused([other[:12], "--drop"], f"no unpublished memory of yours names commit {other} (a published memory is "
            "never discarded: withdraw one with git hn memory retract)")


def test_drop_signs_again_what_cites_a_memory_it_renames_and_empties_a_stream(tmp_path):
    """A memory of another stream of the same identity citing (``memory:`` evidence) a memory
    signed again follows it; a stream that held only discarded memories loses its ref; another
    identity's memory citing one that would be signed again refuses the whole."""
    from agent_helpers import second_identity, switch

    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    me = hn(alice, "identity", "public", "--json").json()["actor"]
    gone = _commit(alice, "gone")
    side = "sha256:" + "7" * 64
    only = _record(alice, "alone in its stream", "--stream", side)
    note = _record(alice, "on the commit to drop")
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    after = _record(alice, "after it, on the kept history", kind="observation")
    citing = _record(alice, "cites the later memory", "--stream", "sha256:" + "8" * 64,
                     "--evidence", f"memory:{after}")
    r = hn(alice, "memory", "reanchor", gone[:12], "--drop", "--json")
    assert r.code == 0, r.err
    streams = {s["ref"][-64:]: s for s in r.json()["streams"]}
    assert streams["7" * 64]["dropped"] == [only] and streams["7" * 64]["removed"] is True
    assert git(alice, "for-each-ref", f"refs/hn/memory/{me}/{'7' * 64}") == ""
    main = next(s for k, s in streams.items() if k not in ("7" * 64, "8" * 64))
    assert main["dropped"] == [note] and [x["from"] for x in main["renamed"]] == [after]
    new_after = main["renamed"][0]["to"]
    [(was, now)] = [(x["from"], x["to"]) for x in streams["8" * 64]["renamed"]]
    assert was == citing and streams["8" * 64]["dropped"] == []
    assert hn(alice, "memory", "show", now, "--json").json()["projection"]["data"]["evidence"] == [
        f"memory:{new_after}"]
    assert hn(alice, "memory", "index", "verify").code == 0
    compare(alice)

    # another identity's memory cites one that a drop would sign again: refused, nothing changes
    gone2 = _commit(alice, "gone2")
    _record(alice, "on the second commit to drop")
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    later = _record(alice, "after it too", kind="observation")
    bob = second_identity(alice, "Bob")
    switch(alice, bob)
    _record(alice, "Bob cites Alice's later memory", "--evidence", f"memory:{later}")
    switch(alice, me)
    before = refs_snapshot(alice)
    r = hn(alice, "memory", "reanchor", gone2[:12], "--drop")
    assert (r.code, r.err) == (1, f"git-hn: memory {later[7:19]} would be signed again, and a published memory, or "
                                  "another identity's, cites it; nothing was dropped\n"), r.err
    assert refs_snapshot(alice) == before
