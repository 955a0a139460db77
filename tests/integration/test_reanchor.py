"""Memories anchored on a commit no push will carry (git-hn extension, docs/decisions.md): a
commit ``git reset`` discarded holds back its stream; ``git hn sync`` and the pre-push hook say
so, and ``git hn memory reanchor OLD NEW`` moves the unpublished memories to a commit that is
pushed. Real repositories, a real bare remote, real ``git push`` with the hooks installed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import actor_of, git, hn, refs_snapshot, shared_remote, wait_publication


def _push(repo, *extra):
    proc = subprocess.run(["git", "push", "-q", *extra, "origin", "main"], cwd=repo, capture_output=True,
                          text=True)
    wait_publication(repo)
    return proc


def _record(repo, content, at="HEAD") -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", at, "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _commit(repo, name):
    (repo / f"{name}.txt").write_text(f"{name}\n")
    git(repo, "add", f"{name}.txt")
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


def _discarded(tmp_path):
    """Alice (hooks installed) records at commit B, resets B away and records again at A:
    (remote, alice, bob, B, first memory, second memory, stream ref)."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    gone = _commit(a, "b")
    first = _record(a, "made at a commit that is reset away")
    git(a, "reset", "-q", "--hard", "HEAD~1")
    second = _record(a, "made on the history that stays")
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    return remote, a, b, gone, first, second, ref


def test_a_discarded_anchor_is_named_and_reanchor_publishes_the_stream(tmp_path):
    remote, a, b, gone, first, second, ref = _discarded(tmp_path)
    # sync names the commit and the command, never the impossible "push it"
    doc = hn(a, "sync", "--json").json()
    assert doc["heldBack"] == [{"ref": ref, "memoryId": first["memoryId"], "commit": gone, "waiting": 2,
                                "discarded": True}]
    human = hn(a, "sync")
    assert human.code == 0, human.err
    assert human.out.splitlines() == [
        f"Publication of stream {ref[-64:][:12]}: memory {first['memoryId'][7:19]} (with the 1 memory after it) "
        f"waits for commit {gone[:12]}, which no branch, tag or remote-tracking ref here contains; move it to a "
        f"commit you push with git hn memory reanchor {gone[:12]} NEW, NEW being the commit to name instead, "
        f"discard it with git hn memory reanchor {gone[:12]} --drop (a commit dropped on purpose), or "
        f"keep the commit on the remote: git push origin {gone[:12]}:refs/heads/hn-anchor/{gone[:12]}",
        "Synchronized with origin: 1 stream held back (above)"]
    # the push warns the same way and goes on (warn and block alike); no memory goes out
    kept = _commit(a, "c")
    pushed = _push(a)
    assert pushed.returncode == 0, pushed.stderr
    assert f"git-hn: publication of stream {ref[-64:][:12]}: memory {first['memoryId'][7:19]} (with the 1 memory " \
        f"after it) waits for commit {gone[:12]}" in pushed.stderr
    git(a, "config", "hn.prePush", "block")
    _commit(a, "d")
    pushed = _push(a)
    assert pushed.returncode == 0 and f"git hn memory reanchor {gone[:12]} NEW" in pushed.stderr
    assert subprocess.run(["git", "rev-parse", "-q", "--verify", ref], cwd=remote).returncode != 0
    # moved to a pushed commit: both memories are signed again, under new IDs
    moved = hn(a, "memory", "reanchor", gone[:10], kept, "--json").json()
    assert (moved["from"], moved["to"]) == (gone, kept)
    [stream] = moved["streams"]
    assert (stream["ref"], stream["reanchored"], stream["signed"]) == (ref, 1, 2)
    assert [r["from"] for r in stream["renamed"]] == [first["memoryId"], second["memoryId"]]
    new_first, new_second = (r["to"] for r in stream["renamed"])
    assert hn(a, "memory", "show", first["memoryId"]).code != 0  # the old ID is gone
    shown = hn(a, "memory", "show", new_first, "--json").json()
    assert shown["projection"]["anchor"]["commit"] == kept
    assert shown["projection"]["data"]["content"] == "made at a commit that is reset away"
    assert hn(a, "memory", "index", "verify").code == 0
    # nothing waits now: sync publishes the whole stream, and Bob imports it
    doc = hn(a, "sync", "--json").json()
    assert "heldBack" not in doc and doc["published"] == 1
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    git(b, "pull", "-q", "--ff-only", "origin", "main")
    assert hn(b, "replication", "select", "--memory", first["stream"]).code == 0
    got = hn(b, "sync", "--json").json()
    assert [o["status"] for o in got["outcomes"]] == ["promoted"]
    there = hn(b, "memory", "show", new_second, "--json").json()
    assert there["projection"]["anchor"]["commit"] == git(a, "rev-parse", "HEAD~2")


def test_an_anchor_on_a_branch_or_at_head_waits_for_a_push(tmp_path):
    """A commit that is only not pushed yet is no discarded commit: the advice stays "push it"."""
    _remote, a, _b, gone, first, _second, ref = _discarded(tmp_path)
    git(a, "branch", "keep", gone)  # the commit is on a branch again
    doc = hn(a, "sync", "--json").json()
    assert [h["discarded"] for h in doc["heldBack"]] == [False]
    assert (f"until commit {gone[:12]} is on origin (branch keep: git push origin keep; or git fetch origin if it is "
            "there already; then git hn sync origin)") in hn(a, "sync").out  # (f176: the branch named)
    git(a, "branch", "-D", "keep")
    git(a, "checkout", "-q", gone)  # a detached HEAD at it
    assert [h["discarded"] for h in hn(a, "sync", "--json").json()["heldBack"]] == [False]
    git(a, "checkout", "-q", "main")
    assert [h["discarded"] for h in hn(a, "sync", "--json").json()["heldBack"]] == [True]
    assert first["memoryId"] == hn(a, "sync", "--json").json()["heldBack"][0]["memoryId"]
    assert ref == hn(a, "sync", "--json").json()["heldBack"][0]["ref"]


def test_reanchor_to_a_commit_only_a_detached_head_holds_says_what_publishes_it(tmp_path):
    """A review (S73): README said NEW is "a commit on a branch, tag or remote-tracking ref", yet
    a commit only a detached HEAD holds was taken without a word (HEAD counts, as for ``--drop``
    and ``record --at``). It is still taken, and the hint says its memories wait until a branch
    that contains it is pushed; the sync then publishes them."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    old = _commit(a, "a")
    mem = _record(a, "made at a commit reset away")
    git(a, "reset", "-q", "--hard", "HEAD~1")
    git(a, "checkout", "-q", "--detach")
    new = _commit(a, "b")
    r = hn(a, "memory", "reanchor", old, "HEAD")
    assert r.code == 0 and r.out.startswith("Re-anchored 1 unpublished memory"), r.err
    assert r.err == (f"git-hn: hint: commit {new[:12]} is on no branch (only the detached HEAD holds it): the "
                     "memories moved to it are published once a branch that contains it is pushed (git switch -c "
                     "BRANCH, then git push REMOTE BRANCH), and are left behind again if HEAD moves off it first\n")
    git(a, "switch", "-q", "-c", "b")
    git(a, "push", "-q", "origin", "b")
    assert hn(a, "sync").code == 0
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(_remote, "rev-parse", ref) == git(a, "rev-parse", ref)


def test_reanchor_warns_of_an_anchored_path_the_new_commit_lacks(tmp_path):
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    (a / "p.txt").write_text("p\n")
    git(a, "add", "p.txt")
    git(a, "commit", "-q", "-m", "p")
    gone = git(a, "rev-parse", "HEAD")
    r = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--path", "p.txt", "--content", "about p")
    # (no warning; its hints: hidden by the policy, and publication waits for the unpushed commit)
    assert r.code == 0 and [x for x in r.err.splitlines() if not x.startswith("git-hn: hint: ")] == []
    git(a, "reset", "-q", "--hard", "HEAD~1")
    moved = hn(a, "memory", "reanchor", gone, "HEAD", "--json")
    new_id = moved.json()["streams"][0]["renamed"][0]["to"]
    head = git(a, "rev-parse", "HEAD")
    assert moved.err == (f"git-hn: warning: memory {new_id} names --path p.txt, which is not in commit {head}; "
                         f"it is recorded as absent; if the file moved, git hn memory supersede {new_id[7:19]} "
                         "--same-content with a --path for each file it is about anchors the memory there\n")
    shown = hn(a, "memory", "show", new_id, "--json").json()
    assert shown["projection"]["anchor"]["paths"] == [{"path": "p.txt", "blob": "absent"}]


def test_reanchor_prints_each_streams_tip_before_and_the_undo_restores_it(tmp_path):
    """Memory refs keep no reflog: the help and README promise "the output names each stream's
    tip before (undo: git update-ref REF TIP)", and a team trial found only --drop printing it."""
    _remote, a, _b, gone, first, _second, ref = _discarded(tmp_path)
    before = git(a, "rev-parse", ref)
    moved = hn(a, "memory", "reanchor", gone[:12], "HEAD")
    assert moved.code == 0, moved.err
    assert moved.out.splitlines()[-1] == f"Undo: git update-ref {ref} {before}", moved.out
    assert git(a, "rev-parse", ref) != before
    git(a, "update-ref", ref, before)  # (what the line says, as it says it)
    assert hn(a, "memory", "show", first["memoryId"], "--json").json()["memoryId"] == first["memoryId"]
    again = hn(a, "memory", "reanchor", gone[:12], "HEAD", "--json")
    [stream] = again.json()["streams"]
    assert (stream["ref"], stream["before"], stream["signed"]) == (ref, before, 2)  # (a key added; the others kept)


@pytest.mark.parametrize("named", ["full", "short", "SHORT"])
def test_a_pruned_commit_is_discarded_and_reanchor_takes_the_id_sync_prints(tmp_path, named):
    """A newcomer trial: sync names such a commit by 12 hex digits, and reanchor said "a commit that
    is no longer here is named by its full ID, as git hn sync prints it": a prefix that names one
    anchor commit of the memories here is taken too."""
    _remote, a, _b, gone, first, _second, ref = _discarded(tmp_path)
    git(a, "reflog", "expire", "--expire=now", "--all")
    git(a, "gc", "-q", "--prune=now")
    assert subprocess.run(["git", "cat-file", "-e", gone], cwd=a).returncode != 0
    doc = hn(a, "sync", "--json").json()
    assert [(h["commit"], h["discarded"]) for h in doc["heldBack"]] == [(gone, True)]
    assert f"git hn memory reanchor {gone[:12]} NEW" in hn(a, "sync").out
    before = git(a, "for-each-ref")
    unknown = "deadbeef" if not gone.startswith("deadbeef") else "beefdead"
    assert hn(a, "memory", "reanchor", unknown, "HEAD").err == (
        f"git-hn: revision {unknown} is not a commit; nor does any memory here name a commit beginning so (a "
        "commit that is no longer here is named by its full ID, or by the first digits git hn sync prints)\n")
    assert git(a, "for-each-ref") == before
    # (a review: an uppercase prefix, which Git takes for a commit that is here, fell through)
    given = {"full": gone, "short": gone[:12], "SHORT": gone[:12].upper()}[named]
    moved = hn(a, "memory", "reanchor", given, "HEAD", "--json").json()
    assert moved["streams"][0]["ref"] == ref and moved["streams"][0]["reanchored"] == 1
    assert "heldBack" not in hn(a, "sync", "--json").json()
    assert first["memoryId"] not in git(a, "log", "--format=%s", ref)


@pytest.mark.parametrize("case", ["published", "same", "unknown", "words", "nowhere", "identity"])
def test_reanchor_refusals_change_nothing(tmp_path, case):
    remote, (a,) = shared_remote(tmp_path, "Alice")
    head = git(a, "rev-parse", "HEAD")
    mem = _record(a, "published at once")
    assert hn(a, "sync").code == 0
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    gone = _commit(a, "gone")
    git(a, "reset", "-q", "--hard", "HEAD~1")
    later = _commit(a, "later")
    on_it = _record(a, "made at the later commit")
    before = refs_snapshot(a)
    args, expected = {
        "published": ((head, later), f"git-hn: no unpublished memory of yours names commit {head} (a "
                                     "published memory is never rewritten: correct one with git hn memory "
                                     "supersede --at)\n"),
        "same": (("HEAD", later), f"git-hn: HEAD and {later} are the same commit {later}: nothing to move\n"),
        "unknown": (("HEAD", "no-such-branch"), "git-hn: revision no-such-branch is not a commit\n"),
        "words": ((head,), "git-hn: missing NEW; usage: git hn memory reanchor OLD NEW [--files-only]|--drop [--json]\n"),
        "nowhere": (("HEAD", gone), f"git-hn: commit {gone} is on no branch, tag or remote-tracking ref here "
                                    "either, nor HEAD, so no push would carry it: name a commit on a branch you "
                                    "push\n"),
        "identity": ((head, later), None),
    }[case]
    if case == "identity":
        (a / ".git" / "hn" / "active").unlink()
    r = hn(a, "memory", "reanchor", *args)
    assert on_it["memoryId"] in git(a, "log", "-1", "--format=%s", ref)  # (unpublished, on HEAD)
    assert r.code == 1 and r.out == ""
    if expected is not None:
        assert r.err == expected
    else:
        assert r.err.startswith("git-hn: ") and r.err.count("\n") == 1
    assert refs_snapshot(a) == before


def test_a_rebase_names_the_new_ids_of_every_memory_it_signs_again(tmp_path):
    """The post-rewrite line counts the memories that named a rewritten commit, and names the
    new ID of each memory signed again after them (their IDs change with their predecessor's)."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    _commit(a, "mine")
    on_it = _record(a, "made at the commit that is amended")
    after = _record(a, "anchored on the pushed history", at="HEAD~1")
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "mine, reworded"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0, amended.stderr
    line = next(x for x in amended.stderr.splitlines() if "re-anchored" in x)
    ref = f"refs/hn/memory/{on_it['actor']}/{on_it['stream'][7:]}"
    # (the stream by its 12 characters, as every other line: f59, a team trial read two 64-hex IDs)
    assert line.startswith(f"git-hn: re-anchored 1 unpublished memory of stream {on_it['stream'][7:19]} on the "
                           "rewritten commits; "
                           "2 unpublished memories signed again, new IDs: ")
    pairs = line.split("new IDs: ", 1)[1].split(", ")
    assert [p.split(" -> ")[0] for p in pairs] == [on_it["memoryId"][7:19], after["memoryId"][7:19]]
    new_ids = [m for m in git(a, "log", "--format=%s", ref).split("\n")][:2]
    assert {p.split(" -> ")[1] for p in pairs} == {m.removeprefix("hn memory sha256:")[:12] for m in new_ids}
    assert hn(a, "memory", "index", "verify").code == 0
    # an ID printed before the rewrite says which one replaced it, for show and the corrections
    new_on_it = next(p.split(" -> ")[1] for p in pairs if p.startswith(on_it["memoryId"][7:19]))
    full = next(m.removeprefix("hn memory ") for m in new_ids if m.startswith(f"hn memory sha256:{new_on_it}"))
    hint = (f"was not found in verified local or accepted streams; it was signed again as {full} when its "
            f"commit was rewritten (git hn memory show {new_on_it})\n")
    for args in (("show", on_it["memoryId"][7:19]), ("supersede", on_it["memoryId"], "--content", "z"),
                 ("retract", on_it["memoryId"][7:17], "--reason", "obsolete")):
        r = hn(a, "memory", *args)
        assert r.code == 1 and r.err == f"git-hn: memory {args[1]} {hint}", r.err
    assert hn(a, "memory", "show", "0123456789ab").err == (
        "git-hn: memory 0123456789ab was not found in verified local or accepted streams; git hn memory log "
        "lists the IDs this clone holds, and git hn sync REMOTE imports a teammate's\n")


def test_a_push_that_takes_an_anchor_off_the_remote_says_so_and_how_to_keep_it(tmp_path):
    """A published memory stays on its commit; a force-push after an amend (or a deleted branch)
    takes that commit off the remote, and whoever imports the stream stops at the memory. The
    push says so, and the command it gives makes the commit reachable again."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    mem = _record(a, "published at c1")
    pushed = subprocess.run(["git", "push", "-q", "-u", "origin", "feature"], cwd=a, capture_output=True,
                            text=True)
    wait_publication(a)
    assert pushed.returncode == 0 and "takes" not in pushed.stderr  # nothing leaves the remote
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    (a / "c1.txt").write_text("c1, amended\n")
    git(a, "commit", "-q", "-a", "--amend", "--no-edit")
    forced = subprocess.run(["git", "push", "-q", "-f", "origin", "feature"], cwd=a, capture_output=True,
                            text=True)
    wait_publication(a)
    assert forced.returncode == 0
    advice = f"git push origin {c1}:refs/heads/hn-anchor/{c1[:12]}"
    assert forced.stderr == (f"git-hn: this push takes commit {c1[:12]} off origin, and memory {mem['memoryId'][7:19]} of "
                             f"{actor_of(a)[:12]} (\"Alice\", a self-chosen name) is anchored on it: whoever imports its stream from origin stops there until the "
                             f"commit is back; to keep it there, also {advice}\n")
    # without the commit, Bob's import stops at the memory; with it (the advice), it goes on
    git(b, "fetch", "-q", "origin")
    assert hn(b, "replication", "select", "--all").code == 0
    stopped = hn(b, "sync", "--json")
    assert stopped.code == 1 and "anchor-commit" in stopped.out
    # a team trial: the one warning scrolled by, and the stream stayed held; each later push to
    # origin and each sync with it says so again, until the commit is back
    reminder = (f"commit {c1[:12]}, which memory {mem['memoryId'][7:19]} is anchored on, is no longer on any branch of origin "
                "(a force-push, or a branch deleted or squash-merged there): whoever imports its stream from origin "
                f"stops there; a clone that has it puts it back with {advice}; only if it was taken off on purpose (a "
                f"secret), git hn replication forget-anchors origin {c1[:12]} ends this reminder, and importers "
                "still stop at the memory")
    git(a, "checkout", "-q", "main")
    _commit(a, "later")
    later = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert later.returncode == 0 and later.stderr == f"git-hn: {reminder}\n", later.stderr
    synced = hn(a, "sync")
    assert f"Anchors of origin: {reminder}" in synced.out.splitlines(), synced.out
    as_json = hn(a, "sync", "--json")  # (on stderr: the document stays the contract's)
    assert f"git-hn: warning: Anchors of origin: {reminder}\n" in as_json.err and reminder not in as_json.out
    # a push of the anchor that does not land (a dry run here; a rejection alike) does not end it
    dry = subprocess.run(["git", *advice.split()[1:3], "--dry-run", *advice.split()[3:]], cwd=a,
                         capture_output=True, text=True)
    assert dry.returncode == 0 and reminder not in dry.stderr  # (not said: this push sends it)
    assert f"Anchors of origin: {reminder}" in hn(a, "sync").out.splitlines()
    # someone else puts it back (the server fetches it here): the author's tracking refs do not
    # know, and the next sync looks again (it fetches) and says nothing
    git(remote, "fetch", "-q", str(a), f"{c1}:refs/heads/hn-anchor/{c1[:12]}")
    assert reminder not in hn(a, "sync").out
    assert not [p for p in (a / ".git" / "hn" / "replication").iterdir() if p.name.startswith("lost-")]
    git(a, "checkout", "-q", "feature")
    git(b, "fetch", "-q", "origin")
    doc = hn(b, "sync", "--json").json()
    assert [o["status"] for o in doc["outcomes"]] == ["promoted"]
    assert hn(b, "memory", "show", mem["memoryId"], "--json").json()["projection"]["anchor"]["commit"] == c1
    # deleting a branch that holds an anchor says the same
    deleted = subprocess.run(["git", "push", "-q", "origin", "--delete", "hn-anchor/" + c1[:12]], cwd=a,
                             capture_output=True, text=True)
    assert deleted.returncode == 0 and f"this push takes commit {c1[:12]} off origin" in deleted.stderr
    # a branch of three commits with a memory each, deleted: the old tip keeps all three
    git(a, "checkout", "-q", "-b", "three", "main")
    mems = []
    for i in range(3):
        _commit(a, f"t{i}")
        mems.append(_record(a, f"on t{i}"))
    tip = git(a, "rev-parse", "HEAD")
    git(a, "tag", "local-only")  # a tag never pushed keeps nothing on the remote
    assert subprocess.run(["git", "push", "-q", "origin", "three"], cwd=a).returncode == 0
    wait_publication(a)
    gone = subprocess.run(["git", "push", "-q", "origin", "--delete", "three"], cwd=a, capture_output=True,
                          text=True)
    keep = f"git push origin {tip}:refs/heads/hn-anchor/{tip[:12]}"
    warned, reminded = gone.stderr.splitlines()
    assert warned.startswith(f"git-hn: this push takes 3 commits off origin, and 3 memories of {actor_of(a)[:12]} "
                             f"(\"Alice\", a self-chosen name) are anchored on "
                             f"them (first: memory {mems[0]['memoryId'][7:19]})")
    assert warned.endswith(f"to keep them there, also {keep}")
    assert reminded.startswith(f"git-hn: commit {c1[:12]}, which memory")  # (the anchor branch deleted above)
    git(a, *keep.split()[1:])
    git(a, "push", "-q", "origin", f"{c1}:refs/heads/hn-anchor/{c1[:12]}")
    git(b, "fetch", "-q", "origin")
    assert hn(b, "sync").code == 0
    assert all(hn(b, "memory", "show", m["memoryId"]).code == 0 for m in mems)
    # a force-pushed annotated tag: the keep command names the commit it held, not the tag object
    # (a review: it named nothing)
    git(a, "checkout", "-q", "-b", "rel", "main")
    rel = _commit(a, "release prep")
    _record(a, "release")
    git(a, "tag", "-a", "v1", "-m", "v1")
    assert subprocess.run(["git", "push", "-q", "origin", "rel", "v1"], cwd=a).returncode == 0
    wait_publication(a)
    assert subprocess.run(["git", "push", "-q", "origin", "--delete", "rel"], cwd=a).returncode == 0
    wait_publication(a)
    git(a, "commit", "-q", "--amend", "-m", "release prep, amended")
    git(a, "tag", "-f", "-a", "v1", "-m", "v1")
    moved = subprocess.run(["git", "push", "-q", "-f", "origin", "v1"], cwd=a, capture_output=True, text=True)
    assert moved.returncode == 0
    assert f"to keep it there, also git push origin {rel}:refs/heads/hn-anchor/{rel[:12]}" in moved.stderr, \
        moved.stderr


def test_a_push_to_a_url_says_how_to_publish(tmp_path):
    """Git runs pre-push with the URL for `git push <url>` and updates no remote-tracking ref, so
    nothing could be gated: the hook names the remote that URL is and how to publish, and sync's
    advice for the memory waiting for the (already pushed) commit includes the fetch."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    pushed_commit = _commit(a, "by-url")
    _record(a, "pushed by URL")
    pushed = subprocess.run(["git", "push", "-q", str(remote), "main"], cwd=a, capture_output=True, text=True)
    assert pushed.returncode == 0
    assert pushed.stderr == ("git-hn: a push to a URL publishes no memory; that URL is remote origin's: "
                             "git hn sync origin publishes it (or push with git push origin)\n")
    assert git(remote, "rev-parse", "main") == pushed_commit
    out = hn(a, "sync").out
    assert f"until commit {pushed_commit[:12]} is on origin (branch main: git push origin main; or git fetch origin" in out
    git(a, "fetch", "-q", "origin")
    assert hn(a, "sync", "--json").json()["published"] == 1
    # a URL that is no remote of this repository (a mirror elsewhere) is none of git-hn's business
    other = tmp_path / "other.git"
    git(tmp_path, "init", "-q", "--bare", str(other))
    quiet = subprocess.run(["git", "push", "-q", str(other), "main"], cwd=a, capture_output=True, text=True)
    assert (quiet.returncode, quiet.stderr) == (0, "")


def test_reanchor_never_signs_again_a_memory_that_holds_the_private_key(tmp_path, monkeypatch):
    """A memory recorded before git-hn refused the signer's own key in text (simulated: the
    append's check switched off for that one record, in process) is never signed again by
    ``reanchor``: one line, nothing changed."""
    import json as jsonlib

    from git_hn.service import memory, requests
    from git_hn.store import append
    from git_hn.store.repo import open_repo

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    gone = _commit(a, "b")
    actor = (a / ".git" / "hn" / "active").read_text().strip()
    key = jsonlib.loads((a / ".git" / "hn" / "identities" / f"{actor}.json").read_text())["privateKey"]
    doc = {"version": 0, "kind": "decision", "content": f"oops {key}", "anchor": {"commit": gone},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    repo = open_repo(str(a))
    monkeypatch.setattr(append.keys, "holds_seed", lambda data, seed: False)  # (an older git-hn)
    memory.record(repo, requests.request_from_input(repo, jsonlib.dumps(doc).encode()), from_input=True,
                  allow_secret_shaped=True)
    repo.close()
    monkeypatch.undo()
    git(a, "reset", "-q", "--hard", "HEAD~1")
    before = refs_snapshot(a)
    r = hn(a, "memory", "reanchor", gone, "HEAD")
    assert (r.code, r.err) == (1, "git-hn: a memory to sign again holds your git-hn private key; nothing was "
                                  "signed (if that memory was ever published, treat the key as exposed)\n"), r.err
    assert refs_snapshot(a) == before


def test_a_rewrite_that_makes_the_same_commit_re_anchors_nothing(tmp_path):
    """``post-rewrite`` lists a commit a rebase made again identical to itself (``git rebase
    --force-rebase`` in the same second): nothing was rewritten, nothing is signed again, and no
    'new IDs: x -> x' line is printed."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    head = _commit(a, "mine")
    mem = _record(a, "made at the commit the rebase keeps")
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    before = git(a, "rev-parse", ref)
    hook = subprocess.run(["git", "hn", "hooks", "run", "post-rewrite", "rebase"], cwd=a, capture_output=True,
                          text=True, input=f"{head} {head}\n")
    assert (hook.returncode, hook.stderr) == (0, ""), hook.stderr
    assert git(a, "rev-parse", ref) == before


def test_a_retraction_and_a_challenge_in_other_streams_follow_the_memory_they_name(tmp_path):
    """A retraction (``--stream``) and a memory citing it (``memory:`` evidence) in other streams
    of one's own are signed again with the memory an amend re-anchors, in one ref transaction:
    before, the retraction kept naming the old ID (the memory came back as active), and once
    published, every clone that imported it failed with dependency-missing."""
    _remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(b, "replication", "select", "--all").code == 0
    assert hn(a, "hooks", "install").code == 0
    _commit(a, "mine")
    made = _record(a, "made at the commit that is amended")
    other, third = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    r = hn(a, "memory", "retract", made["memoryId"], "--reason", "obsolete", "--stream", other, "--json")
    assert r.code == 0, r.err
    retraction = r.json()["memoryId"]
    r = hn(a, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD~1", "--applies",
           "descendants", "--content", "cites the retraction", "--evidence", f"memory:{retraction}",
           "--stream", third)
    assert r.code == 0, r.err
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "mine, reworded"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0, amended.stderr
    lines = amended.stderr.splitlines()
    assert len(lines) == 3 and lines[0].startswith("git-hn: re-anchored 1 unpublished memory of "), lines
    assert lines[1].startswith(f"git-hn: signed again 1 unpublished memory of stream {'1' * 12}, which name "
                               f"memories signed again; new IDs: {retraction[7:19]} -> ")
    assert lines[2].startswith(f"git-hn: signed again 1 unpublished memory of stream {'2' * 12}, which name "
                               "memories signed again; new IDs: ")
    mems = {m["id"]: m for m in hn(a, "memory", "log", "--json").json()["memories"]}
    assert made["memoryId"] not in mems
    (moved,) = [m for m in mems.values() if m["stream"] == made["stream"]]
    assert moved["lifecycle"] == "retracted"  # the retraction names the memory's new ID
    (cited,) = [m for m in mems.values() if m["stream"] == third]
    shown = hn(a, "memory", "show", cited["id"], "--json").json()
    (new_retraction,) = [e[len("memory:"):] for e in shown["projection"]["data"]["evidence"]]
    assert new_retraction != retraction
    assert hn(a, "memory", "show", new_retraction, "--json").json()["targetProjection"]["id"] == moved["id"]
    assert hn(a, "memory", "index", "verify").code == 0
    # published, the three streams import into another clone
    assert _push(a).returncode == 0
    git(b, "fetch", "-q", "origin")
    r = hn(b, "sync")
    assert r.code == 0, r.out
    got = {m["id"]: m for m in hn(b, "memory", "log", "--json").json()["memories"]}
    assert got[moved["id"]]["lifecycle"] == "retracted" and cited["id"] in got


def test_a_record_that_lands_while_reanchoring_starts_is_not_a_silent_skip(tmp_path, monkeypatch):
    """A race auditor's case: a ``record`` (from a linked worktree) that moved the stream between
    re-anchoring's listing and its stream lock made it skip the stream, silently: the amended
    commit's memory stayed on the old commit and held the stream back at every push. The streams
    are listed again once locked. (The record is made to land in that window here.)"""
    from git_hn.service import reanchor as service
    from git_hn.store import identity
    from git_hn.store import reanchor as store
    from git_hn.store.repo import open_repo

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    old = _commit(a, "mine")
    made = _record(a, "made at the commit that is amended")
    git(a, "commit", "-q", "--amend", "-m", "mine, reworded")  # (no hooks here)
    new = git(a, "rev-parse", "HEAD")
    real = store.stream_lock
    landed = []

    def lock_after_a_record(*args, **kwargs):
        if not landed:
            landed.append(_record(a, "recorded at the same time", at="HEAD~1"))
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "stream_lock", lock_after_a_record)
    repo = open_repo(str(a))
    try:
        done = service.rewrite(repo, identity.load_active(repo), {old: new})
    finally:
        repo.close()
    assert landed and len(done) == 1 and done[0].moved == 1 and done[0].memories == 2
    assert [pair[0] for pair in done[0].renamed] == [made["memoryId"], landed[0]["memoryId"]]
    assert hn(a, "memory", "index", "verify").code == 0


def test_a_memory_a_published_memory_cites_is_never_signed_again(tmp_path):
    """A reviewer's case: a retraction recorded with ``--stream`` was published while the memory
    it retracts waited for its commit; an amend then signed that memory again under a new ID,
    and the published retraction (which can never change) named an ID no clone could ever get:
    every import of it failed with dependency-missing. A memory something published cites stays
    as it is, and the hook says so."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    old = _commit(a, "mine")  # (not pushed)
    made = _record(a, "made at the commit that is amended")
    other = "sha256:" + "1" * 64
    assert hn(a, "memory", "retract", made["memoryId"], "--reason", "obsolete", "--stream", other).code == 0
    retractions = f"refs/hn/memory/{made['actor']}/{'1' * 64}"
    pushed = subprocess.run(["git", "push", "-q", "origin", f"{retractions}:{retractions}"], cwd=a,
                            capture_output=True, text=True)
    assert pushed.returncode == 0, pushed.stderr
    wait_publication(a)
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "mine, reworded"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0, amended.stderr
    ref = f"stream {made['stream'][7:19]}"
    assert f"git-hn: left 1 unpublished memory of {ref} on the old commit ({made['memoryId'][7:19]}): a " \
           "published memory, or another identity's, cites it" in amended.stderr, amended.stderr
    assert hn(a, "memory", "show", made["memoryId"], "--json").json()["projection"]["lifecycle"] == "retracted"
    r = hn(a, "memory", "reanchor", old, "HEAD")
    assert r.code == 1 and "cannot be signed again" in r.err, r.err


def test_what_a_kept_memory_cites_is_kept_too(tmp_path):
    """A reviewer's case: Bob's memory (another identity in this clone) cites P, so P stays; P
    cites Q (``memory:`` evidence), which names the amended commit. Q was signed again and P,
    kept, named an ID that no longer existed: every import failed with dependency-missing. What
    a kept memory cites is kept too, and the hook says how to keep the commit."""
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from agent_helpers import second_identity, switch

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    first = git(a, "rev-parse", "HEAD")
    old = _commit(a, "mine")
    q = _record(a, "Q, at the commit that is amended")
    r = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", first, "--applies", "descendants",
           "--content", "P cites Q", "--evidence", f"memory:{q['memoryId']}", "--stream", "sha256:" + "1" * 64)
    assert r.code == 0, r.err
    p = r.json()
    alice = q["actor"]
    bob = second_identity(a)
    switch(a, bob)
    r = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", first, "--applies", "descendants",
           "--content", "R cites P", "--evidence", f"memory:{p['memoryId']}")
    assert r.code == 0, r.err
    switch(a, alice)
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "mine, reworded"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0, amended.stderr
    ids = {m["id"] for m in hn(a, "memory", "log", "--json").json()["memories"]}
    assert {q["memoryId"], p["memoryId"]} <= ids  # neither signed again
    ref = f"stream {q['stream'][7:19]}"
    assert f"git-hn: left 1 unpublished memory of {ref} on the old commit ({q['memoryId'][7:19]})" in amended.stderr
    assert f"waits for commit {old}: keep it on the remote (git push REMOTE {old}:refs/heads/hn-anchor/{old[:12]})" \
        in amended.stderr
    assert hn(a, "memory", "show", p["memoryId"], "--json").json()["missingDependencies"] == []


def test_a_force_push_of_the_default_branch_from_a_clone_says_it_takes_the_anchor_off(tmp_path):
    """A team trial: in a clone, refs/remotes/origin/HEAD still names main's old tip while
    pre-push runs, so the amended main's force-push took the anchor off origin without a word
    (and nothing was remembered for the reminder)."""
    _remote, (_a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert git(b, "symbolic-ref", "refs/remotes/origin/HEAD") == "refs/remotes/origin/main"
    assert hn(b, "hooks", "install").code == 0
    c2 = _commit(b, "c2")
    mem = _record(b, "on c2")
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=b).returncode == 0
    wait_publication(b)
    git(b, "commit", "-q", "--amend", "-m", "c2 amended")
    forced = subprocess.run(["git", "push", "-q", "-f", "origin", "main"], cwd=b, capture_output=True, text=True)
    wait_publication(b)
    assert forced.returncode == 0
    assert forced.stderr.startswith(f"git-hn: this push takes commit {c2[:12]} off origin, and memory {mem['memoryId'][7:19]}"), \
        forced.stderr


def test_a_sync_with_a_lost_anchor_remembered_and_an_unreachable_remote_still_ends_and_says_both(tmp_path):
    """A review: with a lost anchor remembered, a sync whose remote did not answer ran a second
    fetch of its branches, unbounded (300 s), and its timeout ended the sync with one line of
    Git's, its own lines and the reminder lost. The remote's failure stands, and no fetch is tried."""
    import socket
    import time

    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    c1 = _commit(a, "c1")
    _record(a, "published at c1")
    assert subprocess.run(["git", "push", "-q", "-u", "origin", "feature"], cwd=a).returncode == 0
    wait_publication(a)
    deleted = subprocess.run(["git", "push", "-q", "origin", "--delete", "feature"], cwd=a, capture_output=True,
                             text=True)
    assert f"this push takes commit {c1[:12]} off origin" in deleted.stderr
    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(8)  # accepts, never answers
    try:
        # (the remote's URL stays: a record made for another URL is dropped)
        git(a, "config", f"url.git://127.0.0.1:{hole.getsockname()[1]}/r.git.insteadOf", str(remote))
        git(a, "config", "hn.syncStallTimeout", "2")
        start = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "git_hn", "sync"], cwd=a, capture_output=True, text=True,
                           timeout=120)
        assert time.monotonic() - start < 60
    finally:
        hole.close()
    assert r.returncode == 1
    assert "did not answer within 2 s" in r.stderr, r.stderr
    assert f"Anchors of origin: commit {c1[:12]}" in r.stdout, r.stdout


def _published_then_dropped(repo, name: str) -> tuple[str, dict]:
    """A commit ``name`` with a memory on it, pushed to origin's main and published; then main
    here reset past it, with another commit instead (a force-push takes it off). (commit, memory)"""
    commit = _commit(repo, name)
    mem = _record(repo, f"on {name}")
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo).returncode == 0
    wait_publication(repo)
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    _commit(repo, f"{name} again")
    return commit, mem


def test_a_force_push_over_a_commit_not_fetched_still_warns_and_one_that_keeps_the_anchor_does_not(tmp_path):
    """A review: the remote's old tip was a teammate's commit this clone had not fetched, Git's
    rev-list failed on it, and a plain --force that took the anchor off said nothing; and a push
    that force-pushed and created the keep branch in one command warned of a loss it prevented."""
    _remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    s2 = _commit(a, "s2")
    mem = _record(a, "on s2")
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a).returncode == 0
    wait_publication(a)
    git(b, "pull", "-q", "origin", "main")
    _commit(b, "teammate")
    git(b, "push", "-q", "origin", "main")  # (Alice has not fetched it)
    git(a, "reset", "-q", "--hard", "HEAD~1")
    _commit(a, "s3")
    forced = subprocess.run(["git", "push", "-q", "-f", "origin", "main"], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert forced.returncode == 0
    assert forced.stderr.startswith(f"git-hn: this push takes commit {s2[:12]} off origin, and memory {mem['memoryId'][7:19]}"), \
        forced.stderr
    s4, _mem = _published_then_dropped(a, "s4")
    kept = subprocess.run(["git", "push", "-q", "-f", "origin", "main", f"{s4}:refs/heads/hn-anchor/{s4[:12]}"],
                          cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert kept.returncode == 0 and f"takes commit {s4[:12]}" not in kept.stderr, kept.stderr


def test_in_a_single_branch_clone_the_reminder_ends_once_its_command_was_followed(tmp_path):
    """A review: a single-branch clone never fetches the hn-anchor branch its reminder asks for,
    so the reminder stayed for good after the command was followed. The sync asks the remote for
    those branch names (one ls-remote, only while one is remembered)."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    sb = tmp_path / "sb"
    git(tmp_path, "clone", "-q", "--single-branch", "--branch", "main", str(remote), str(sb))
    assert hn(sb, "init", "--name", "Single").code == 0
    assert hn(sb, "hooks", "install").code == 0
    c, _mem = _published_then_dropped(sb, "s1")
    forced = subprocess.run(["git", "push", "-q", "-f", "origin", "main"], cwd=sb, capture_output=True, text=True)
    wait_publication(sb)
    advice = f"git push origin {c}:refs/heads/hn-anchor/{c[:12]}"
    assert advice in forced.stderr, forced.stderr
    assert f"Anchors of origin: commit {c[:12]}" in hn(sb, "sync").out
    git(sb, *advice.split()[1:])
    assert "Anchors of origin" not in hn(sb, "sync").out
    assert not [p for p in (sb / ".git" / "hn" / "replication").iterdir() if p.name.startswith("lost-")]


def test_an_anchor_rebased_away_names_the_commit_that_makes_the_same_change(tmp_path):
    """A team trial: after a rejected push and ``git pull --rebase`` in a clone without git-hn's
    post-rewrite hook, the held memory's line said ``reanchor OLD NEW, NEW being the commit to
    name instead``; the rebased copy of OLD is found by its patch ID and named."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    _commit(b, "bob")
    git(b, "push", "-q", "origin", "main")
    old = _commit(a, "alice")
    first = _record(a, "made before the rebase")
    git(a, "pull", "-q", "--rebase", "origin", "main")
    new = git(a, "rev-parse", "HEAD")
    assert new != old
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    doc = hn(a, "sync", "--json").json()
    assert doc["heldBack"] == [{"ref": ref, "memoryId": first["memoryId"], "commit": old, "waiting": 1,
                                "discarded": True, "sameChange": new}]
    human = hn(a, "sync").out.splitlines()[0]
    assert human == (f"Publication of stream {ref[-64:][:12]}: memory {first['memoryId'][7:19]} waits for commit "
                     f"{old[:12]}, which no branch, tag or remote-tracking ref here contains; commit {new[:12]} of "
                     f"HEAD makes the same change (a rebase?): git hn memory reanchor {old[:12]} {new[:12]} moves it "
                     f"there; git hn memory reanchor {old[:12]} --drop discards it; or keep the commit on the remote: git push origin {old[:12]}:refs/heads/hn-anchor/"
                     f"{old[:12]}")
    assert hn(a, "memory", "reanchor", old[:12], new[:12]).code == 0  # what it says
    git(a, "push", "-q", "origin", "main")
    r = hn(a, "sync")
    assert r.code == 0 and "held back" not in r.out, r.out


def test_an_anchor_pruned_here_that_the_server_still_has_is_fetched_by_id_then_kept(tmp_path):
    """A team trial: the held publication's line for a commit this clone no longer has at all
    (its branch deleted there and here, then ``git gc``) said ``git push origin C:refs/heads/
    hn-anchor/C``, which fails here (``fatal: bad object``). It now says the commit is not in this
    clone and fetches it by ID first (the server may still hold the object); pasted as printed it
    keeps the commit there and the stream publishes. The reanchor and ``--drop`` way outs, for
    when no one has it, stay."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    git(a, "checkout", "-q", "-b", "topic")
    gone = _commit(a, "topic")
    git(a, "push", "-q", "origin", "topic")  # (no hooks: the memory after it is not published)
    _record(a, "made at the topic's commit")
    git(a, "checkout", "-q", "main")
    git(a, "push", "-q", "origin", "--delete", "topic")
    git(a, "branch", "-q", "-D", "topic")
    git(a, "reflog", "expire", "--expire=now", "--all")
    git(a, "gc", "-q", "--prune=now")
    assert subprocess.run(["git", "cat-file", "-e", gone], cwd=a).returncode != 0
    line = next(x for x in hn(a, "sync").out.splitlines() if x.startswith("Publication of stream "))
    assert f"waits for commit {gone[:12]}, which is not in this clone at all" in line, line
    assert f"git hn memory reanchor {gone[:12]} NEW" in line and f"git hn memory reanchor {gone[:12]} --drop" in line
    command = line.split(" (pruned after a rebase or a deleted branch?): ")[1].split(" keeps it on the remote")[0]
    assert command == (f"git fetch origin {gone} && git push origin {gone}:refs/heads/hn-anchor/{gone[:12]}"), line
    subprocess.run(command, shell=True, cwd=a, check=True, capture_output=True)
    assert git(remote, "rev-parse", f"refs/heads/hn-anchor/{gone[:12]}") == gone
    git(a, "fetch", "-q", "origin")
    assert "heldBack" not in hn(a, "sync", "--json").json()


def _verify(repo, content, paths=("m.txt",)) -> dict:
    head = git(repo, "rev-parse", "HEAD")
    r = hn(repo, "memory", "record", "--json", "--kind", "verification", "--at", "HEAD", "--applies", "exact",
           *[x for p in paths for x in ("--path", p)], "--evidence", f"git:{head}", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _amend(repo, *args) -> subprocess.CompletedProcess:
    amended = subprocess.run(["git", "commit", "-q", "--amend", *args], cwd=repo, capture_output=True, text=True)
    assert amended.returncode == 0, amended.stderr
    return amended


def test_an_unpublished_verification_stays_on_the_commit_it_tested_when_an_amend_changes_the_tree(tmp_path):
    """An amend that changes files must not re-sign an unpublished verification onto the new
    commit, its ``git:`` evidence rewritten too: that would be a signed claim of a test no one ran
    there (a trial, f85; the published case's rule, f71). It stays; the hook's line names it and
    the commands (test NEW and record the result, drop the old one, or carry it by hand); a
    decision beside it is carried as before; what the line says leads to a published stream.
    A verification whose tree the amend kept (a new message only) is still carried."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    (a / "m.txt").write_text("def f(): return 1\n")
    git(a, "add", "m.txt")
    git(a, "commit", "-q", "-m", "f")
    old = git(a, "rev-parse", "HEAD")
    verification = _verify(a, "tests passed at this commit")
    decision = _record(a, "f returns an int")
    (a / "m.txt").write_text("def f(): return 2\n")
    git(a, "add", "m.txt")
    amended = _amend(a, "--no-edit")
    new = git(a, "rev-parse", "HEAD")
    short = verification["memoryId"][7:19]
    line = next(x for x in amended.stderr.splitlines() if "verification" in x)
    assert line == (
        f"git-hn: left unpublished verification {short} of yours on {old[:12]}, where it was signed: this amend "
        f"replaced {old[:12]} with {new[:12]}, which has another tree, so signing it again on the new commit would "
        f"claim a test no one ran there; test {new[:12]}, then git hn memory record --kind verification --at {new} "
        f"--applies exact --path m.txt --evidence git:{new} --content TEXT records the result, and git hn memory "
        f"reanchor {old} --drop discards {short} (its stream is published only once {old[:12]} is pushed, or it is "
        f"dropped); if you are sure its result holds on the new tree, git hn memory reanchor {old} {new} carries it "
        "instead"), line
    assert "re-anchored 1 unpublished memory" in amended.stderr  # (the decision, as before)
    assert "already published" not in amended.stderr
    # the verification is still the one signed, on the commit it tested (it was the first: not even signed again)
    kept = hn(a, "memory", "show", verification["memoryId"], "--json").json()["projection"]
    assert (kept["anchor"]["commit"], kept["data"]["evidence"]) == (old, [f"git:{old}"])
    moved = hn(a, "memory", "recall", "--include-untrusted", "--json").json()["memories"]
    assert [(m["data"]["kind"], m["anchor"]["commit"]) for m in moved] == [("decision", new)]
    assert moved[0]["id"] != decision["memoryId"]
    # what the line says, as it says it, publishes the stream
    held = subprocess.run(["git", "push", "-q", "-u", "origin", "main"], cwd=a, capture_output=True, text=True)
    wait_publication(a)
    assert f"git hn memory reanchor {old[:12]} --drop" in held.stderr, held.stderr
    assert hn(a, "memory", "reanchor", old, "--drop").code == 0
    assert hn(a, "memory", "record", "--kind", "verification", "--at", new, "--applies", "exact",
              "--evidence", f"git:{new}", "--content", "tests passed at the amended commit").code == 0
    synced = hn(a, "sync", "--json").json()
    assert synced.get("heldBack", []) == [] and synced["published"], synced
    # a message-only amend keeps the tree: the verification is carried, anchor and evidence alike
    again = _verify(a, "tests passed, message to be reworded")
    reworded = _amend(a, "-m", "f, reworded")
    head = git(a, "rev-parse", "HEAD")
    assert "verification" not in reworded.stderr and "re-anchored 1 unpublished memory" in reworded.stderr
    carried = [m for m in hn(a, "memory", "recall", "--include-untrusted", "--kind", "verification", "--json").json()[
        "memories"] if m["data"]["content"] == "tests passed, message to be reworded"]
    assert [(m["anchor"]["commit"], m["data"]["evidence"]) for m in carried] == [(head, [f"git:{head}"])]
    assert carried[0]["id"] != again["memoryId"]
    assert hn(a, "memory", "index", "verify").code == 0


TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def _named(repo, name: str) -> None:
    """The active identity's stored name replaced by ``name``, as a git-hn from before names were
    linted may have stored it (``test_identity``'s way)."""
    from git_hn.core import canonical
    from git_hn.store import identity as identmod
    from git_hn.store import private
    from git_hn.store.repo import open_repo

    opened = open_repo(str(repo))
    ident = identmod.load_active(opened)
    private.write_private(opened.hn_dir, opened.identity_path(ident.actor), canonical.indented(
        identmod.Identity(ident.actor, name, ident.public_key, ident.private_key).record_json()))
    opened.close()


def _names_in(repo, *refs) -> set:
    return set(git(repo, "log", "--format=%an%n%cn", *refs, "--").splitlines())


def test_memories_signed_again_never_carry_a_secret_shaped_name(tmp_path):
    """A review (S101 #3): with the active identity stored under a GitHub token's shape, record
    is refused, but ``reanchor OLD NEW`` and the post-rewrite hook signed the memory commits again
    with the token as author and committer, and push and sync published them. Their commits now
    carry the identity's short ID (the envelopes keep the name they were signed with), the
    memories stay valid, and nothing prints the token."""
    from git_hn.core.gostr import short_id

    remote, (a,) = shared_remote(tmp_path, "Alice")
    old = _commit(a, "b")
    mem = _record(a, "made before the amend")
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    short, signed = short_id(mem["actor"]), git(a, "rev-parse", ref)
    _named(a, TOKEN)
    git(a, "commit", "-q", "--amend", "-m", "b amended")
    moved = hn(a, "memory", "reanchor", old, "HEAD")
    assert moved.code == 0 and TOKEN not in moved.out + moved.err, moved.err
    assert git(a, "rev-parse", ref) != signed and _names_in(a, ref) == {short}
    # the post-rewrite hook, the same
    assert hn(a, "hooks", "install").code == 0
    before = git(a, "rev-parse", ref)
    amended = subprocess.run(["git", "commit", "-q", "--amend", "-m", "b amended again"], cwd=a,
                             capture_output=True, text=True)
    assert amended.returncode == 0 and TOKEN not in amended.stdout + amended.stderr, amended.stderr
    assert git(a, "rev-parse", ref) != before and _names_in(a, ref) == {short}
    # valid, still signed as Alice, and what is published carries no token
    shown = hn(a, "memory", "log")
    assert shown.code == 0 and "made before the amend" in shown.out and "Alice" in shown.out, shown.err
    assert _push(a).returncode == 0 and hn(a, "sync").code == 0
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    assert TOKEN not in git(remote, "log", "--all", "--format=%an%n%cn")


def test_sync_rebase_never_signs_with_a_secret_shaped_name(tmp_path):
    """``sync --rebase`` signs the unpublished tail again on the remote's copy (S101 #3): its
    commits carry the short ID, never a secret-shaped name, and the remote receives none."""
    from helpers import one_identity_in_two_clones

    remote, p, q = one_identity_in_two_clones(tmp_path)
    _record(p, "shared start")
    assert hn(p, "sync").code == 0 and hn(q, "sync").code == 0
    _record(q, "written in the second clone")
    mem = _record(p, "written in the first clone")
    assert hn(p, "sync").code == 0
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    _named(q, TOKEN)
    rebased = hn(q, "sync", "--rebase")
    assert rebased.code == 0 and TOKEN not in rebased.out + rebased.err, rebased.err
    assert TOKEN not in "".join(_names_in(q, ref)) and TOKEN not in git(remote, "log", "--all", "--format=%an%n%cn")
    assert "written in the second clone" in hn(q, "memory", "log").out


def test_reanchor_drop_never_signs_with_a_secret_shaped_name(tmp_path):
    """``reanchor OLD --drop`` signs the memories after the dropped one again (S101 #3): their
    commits carry the short ID, never a secret-shaped name."""
    from git_hn.core.gostr import short_id

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    gone = _commit(a, "b")
    _record(a, "made at a commit that is reset away")
    git(a, "reset", "-q", "--hard", "HEAD~1")
    mem = _record(a, "made on the history that stays")
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    _named(a, TOKEN)
    dropped = hn(a, "memory", "reanchor", gone, "--drop")
    assert dropped.code == 0 and TOKEN not in dropped.out + dropped.err, dropped.err
    assert _names_in(a, ref) == {short_id(mem["actor"])}
    assert "made on the history that stays" in hn(a, "memory", "log").out
