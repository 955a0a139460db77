"""Team workflows (issue 12): what a team meets in everyday Git use, with real repositories and a
real bare remote: publication that an invalid stream does not block, readable sync results,
stale locks, odd refs and commits Git itself would refuse to transfer."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from helpers import (actor_of, commit_on, git, hn, hn_proc, make_repo, record_id, refs_snapshot,
                     shared_remote, wait_publication)

OTHER_STREAM = "sha256:" + "ab" * 32


def _alice(tmp_path, bare_remote):
    remote = bare_remote("team.git")
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", remote.as_uri())
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    return remote, alice


def _record(repo, content, *extra) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content, *extra)
    assert r.code == 0, r.err
    return r.json()


def test_an_invalid_local_stream_does_not_stop_the_valid_ones_from_being_published(tmp_path, bare_remote):
    """CONTRACT §9.13: the invalid stream is a phase error, and the other refs are still pushed.
    git-hn says the first invalid stream's reason after the contract's text."""
    remote, alice = _alice(tmp_path, bare_remote)
    good = _record(alice, "valid stream")
    _record(alice, "soon broken", "--stream", OTHER_STREAM)
    actor = actor_of(alice)
    bad_ref = f"refs/hn/memory/{actor}/{OTHER_STREAM.split(':')[1]}"
    tip = git(alice, "rev-parse", bad_ref)
    git(alice, "update-ref", bad_ref, "HEAD")  # a code commit is not a memory chain
    r = hn(alice, "sync", "--json")
    assert r.code == 1
    phase = "replication memory publication failed for remote origin"
    assert r.err.strip().splitlines() == [
        f"git-hn: publication phase failed after replication: {phase}: memory source {bad_ref}: memory commit "
        f"{git(alice, 'rev-parse', 'HEAD').strip()} tree contains unexpected entry README.md; it is your own "
        f"stream, changed after git-hn last verified it: git update-ref {bad_ref} {tip} puts back that tip"], r.err
    doc = json.loads(r.out)
    assert doc["published"] == 1 and f"{phase}: memory source {bad_ref}: " in doc["error"]
    on_remote = git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn")
    good_ref = f"refs/hn/memory/{actor}/{good['stream'].split(':')[1]}"
    assert on_remote.split() == [good_ref, git(alice, "rev-parse", good_ref).strip()]


@pytest.fixture(scope="module")
def module_scoped_home():
    """A fixture wider than one test runs before the per-test ``hermetic_git``; it must still
    see the suite's hermetic Git, not the machine's HOME (which may have no identity at all)."""
    email = subprocess.run(["git", "config", "--global", "--get", "user.email"], capture_output=True,
                           text=True).stdout.strip()
    return os.environ["HOME"], email


def test_module_scoped_fixtures_are_hermetic(module_scoped_home):
    home, email = module_scoped_home
    assert email == "test@example.invalid"
    assert os.environ.get("GIT_CONFIG_NOSYSTEM") == "1"
    assert "session-home" in home


def test_a_stale_ref_lock_is_named_with_what_to_do(inited):
    """A ``<ref>.lock`` left by a killed Git process: retrying never helps, so say which file."""
    first = _record(inited, "before the crash")
    ref = f"refs/hn/memory/{actor_of(inited)}/{first['stream'].split(':')[1]}"
    lock = inited / ".git" / (ref + ".lock")
    lock.write_bytes(b"")
    before = git(inited, "for-each-ref", "refs/hn")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "after the crash")
    assert r.code == 1 and r.out == ""
    assert r.err == (f"git-hn: append memory stream {ref}: the lock file {lock} exists: another Git "
                     "process is updating this ref, or one was killed; if no Git process is running in "
                     "this repository, remove that file and retry\n")
    assert git(inited, "for-each-ref", "refs/hn") == before
    lock.unlink()
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "after the crash").code == 0


def test_a_memory_ref_that_is_a_symbolic_ref_loop_is_reported_not_silently_left_out(inited):
    """Git's listing skips a symbolic ref that points at itself; recall would silently omit its
    stream. Every read names it, with the command that removes it."""
    first = _record(inited, "a memory")
    loop = f"refs/hn/memory/{actor_of(inited)}/{'cd' * 32}"
    git(inited, "symbolic-ref", loop, loop)
    assert loop not in git(inited, "for-each-ref", "refs/hn")
    expected = (f"git-hn: memory ref {loop} is unreadable (a symbolic ref loop or a broken value), so Git "
                f"does not list it; remove it with: git update-ref -d --no-deref {loop}\n")
    for args in (("recall", "--json"), ("brief", "--json"), ("show", first["memoryId"]), ("digest", "--json")):
        r = hn(inited, "memory", *args)
        assert (r.code, r.out, r.err) == (1, "", expected), args
    git(inited, "update-ref", "-d", "--no-deref", loop)  # the printed repair works
    r = hn(inited, "memory", "recall", "--json", "--include-untrusted")
    assert r.code == 0 and [m["id"] for m in r.json()["memories"]] == [first["memoryId"]]


def _bob(tmp_path, remote):
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", remote.as_uri(), str(bob))
    return bob


def test_sync_results_say_what_happened_in_counts(tmp_path, bare_remote):
    """Issue 12 item 5: a no-op says up to date; the summary counts the imported memories."""
    remote, alice = _alice(tmp_path, bare_remote)
    first = _record(alice, "one")
    _record(alice, "two")
    assert hn(alice, "sync").code == 0
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--memory", first["stream"]).code == 0
    r = hn(bob, "sync")
    assert (r.code, r.out.splitlines()) == (0, [f"Replication memory {first['stream']}: promoted",
                                                "Synchronized with origin: imported 2 memories, promoted 1 stream"])
    r = hn(bob, "sync")
    assert (r.code, r.out.splitlines()) == (0, ["Replication from origin: 1 stream up to date",
                                                "Synchronized with origin: up to date"])
    _record(alice, "three")
    assert hn(alice, "sync").code == 0
    doc = hn(bob, "sync", "--json").json()
    assert (doc["promoted"], doc["importedMemories"]) == (1, 1)


def test_a_failed_sync_with_a_long_diagnostic_still_says_what_to_do(tmp_path, bare_remote):
    """A review: a diagnostic over 200 characters (a code commit pushed as a memory ref) left the
    failure line ending "failed (structurally-invalid) (the Replication line above says why)", no
    fix: IDs are cut to 12 characters, and a failure without a recovery gets one."""
    remote, alice = _alice(tmp_path, bare_remote)
    git(alice, "push", "-q", "origin", f"HEAD:refs/hn/memory/{'a' * 64}/{'b' * 64}")
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--all").code == 0
    r = hn(bob, "sync")
    assert r.code == 1
    assert r.err.endswith(f"memory sha256:{'b' * 64} failed (structurally-invalid): selection memory "
                          f"{'b' * 12} is structurally invalid: memory source refs/hn/quarantine/memory/"
                          f"{'a' * 12}/{'b' * 12}: memory commit {git(alice, 'rev-parse', 'HEAD')[:12]} tree "
                          "contains unexpected entry README.md; whoever pushed it can push a valid one in its "
                          "place, or one git hn replication select origin --memory STREAM... leaves it out: it "
                          "replaces the saved selection, so give a --memory for every stream to keep, by its full "
                          "ID (git hn sync origin --json lists them) (the Replication line above says why)\n"), r.err


def test_a_failed_sync_that_promoted_nothing_does_not_say_it_promoted(tmp_path, bare_remote):
    remote, alice = _alice(tmp_path, bare_remote)
    mem = _record(alice, "one")
    assert hn(alice, "sync").code == 0
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--memory", mem["stream"], "--max-total-bytes", "10").code == 0
    r = hn(bob, "sync")
    assert r.code == 1
    # (an audit: stderr said only this; the reason and its fix were on stdout alone)
    assert r.err == ("git-hn: replication import phase failed for one or more exact selections; "
                     f"no selection was promoted; memory {mem['stream']} failed (over-budget): raise it above 10 "
                     "with git hn replication select origin --max-total-bytes N (the Replication line above says "
                     "why)\n")
    line = r.out.splitlines()[0]
    assert line.startswith(f"Replication memory {mem['stream']}: failed (over-budget): selection memory "
                           f"{mem['stream']} exceeded max-total-bytes budget: configured=10 measured=")
    assert line.endswith("; raise it above 10 with git hn replication select origin --max-total-bytes N")
    assert r.out.splitlines()[1] == ("Sync with origin incomplete: imported 0 memories, promoted 0 streams, "
                                     "1 failed (above)")
    # the named command raises the budget and keeps the selection's streams
    r = hn(bob, "replication", "select", "origin", "--max-total-bytes", "1000000")
    assert r.code == 0, r.err
    assert f"memory: {mem['stream']}" in r.out and "max-total-bytes: 1000000" in r.out
    assert hn(bob, "sync").code == 0


def _long_stream(remote, count: int):
    """One actor's stream of ``count`` validly signed memories written straight into the bare
    remote (bench/memgen's writer: one fast-import, not ``count`` record processes)."""
    import random
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    import memgen

    actor = memgen.Actor(bytes(range(32)), "Long Writer")
    anchor = git(remote, "rev-parse", "main")
    memgen.write_streams(str(remote), dict(os.environ), [actor], count, anchor, random.Random(7))
    return actor, f"refs/hn/memory/{actor.actor}/{actor.stream[7:]}"


def test_a_stream_that_grows_past_max_events_keeps_replicating(tmp_path, bare_remote):
    """max-events counts the events new in a sync (git-hn extension): a 10,500-memory stream
    that was 9,000 when first selected goes on replicating with the default budget of 10,000;
    a fresh clone's first sync of all 10,500 is over budget and names the command."""
    remote, _alice_repo = _alice(tmp_path, bare_remote)
    actor, ref = _long_stream(remote, 10_500)
    tip = git(remote, "rev-parse", ref)
    git(remote, "update-ref", ref, git(remote, "rev-list", "--skip=1500", "-n1", tip))
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--memory", actor.stream).code == 0
    doc = hn(bob, "sync", "--json").json()
    assert (doc["promoted"], doc["importedMemories"]) == (1, 9_000)
    git(remote, "update-ref", ref, tip)  # the stream grows past the budget
    doc = hn(bob, "sync", "--json").json()
    assert (doc["promoted"], doc["importedMemories"]) == (1, 1_500)
    assert doc["outcomes"][0]["measurements"]["Events"] == 10_500
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", remote.as_uri(), str(carol))
    assert hn(carol, "replication", "select", "--memory", actor.stream).code == 0
    r = hn(carol, "sync", "--json")
    out = json.loads(r.out)["outcomes"][0]
    assert (r.code, out["status"]) == (1, "over-budget")
    assert out["diagnostic"] == (f"selection memory {actor.stream} exceeded max-events budget: "
                                 "configured=10000 measured=10500")
    assert out["recovery"] == "raise it above 10000 with git hn replication select origin --max-events N"


def test_the_progress_display_on_a_terminal_counts(tmp_path, bare_remote):
    """On a terminal, sync draws its progress on stderr, with counts (here its last state)."""
    import pty
    import select

    remote, alice = _alice(tmp_path, bare_remote)
    mem = _record(alice, "one")
    assert hn(alice, "sync").code == 0
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--memory", mem["stream"]).code == 0
    master, slave = pty.openpty()
    proc = subprocess.Popen(["git", "hn", "sync"], cwd=bob, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=slave, env={**os.environ, "TERM": "xterm", "COLUMNS": "200"})
    os.close(slave)
    drawn = b""
    while True:
        ready, _w, _x = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode()
    assert proc.wait() == 0
    shown = drawn.decode("utf-8", "replace")
    for step in ("1 of 1 stream changed", "verify 1 new memory in 1 stream", "verified 1/1 memories",
                 "promote 1 stream"):
        assert f"git hn sync origin: {step}" in shown, shown
    assert "promote 1 stream" not in out and out.splitlines()[-1].startswith("Synchronized with origin")


def _quarantines(repo):
    root = repo / ".git" / "hn" / "replication" / "quarantine"
    return sorted(p for p in root.iterdir() if p.name.startswith("txn-")) if root.exists() else []


def _sync_until_quarantine(repo):
    """A ``git hn sync`` started in the background, returned once its quarantine exists."""
    import time

    proc = subprocess.Popen(["git-hn", "sync"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while not _quarantines(repo):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.005)
    return proc


def test_a_stopped_sync_removes_its_quarantine_and_says_so(tmp_path, bare_remote):
    """Issue 12 item 9b: SIGTERM (or Ctrl-C) cleans up and prints one line; SIGKILL cannot, and
    the next sync sweeps what it left, never a quarantine a live sync holds."""
    import fcntl
    import signal
    import time

    remote, _alice_repo = _alice(tmp_path, bare_remote)
    actor, ref = _long_stream(remote, 6_000)
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--memory", actor.stream).code == 0
    before = git(bob, "for-each-ref", "refs/hn")
    proc = _sync_until_quarantine(bob)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err == ("git-hn: sync with origin stopped by SIGTERM; its quarantine was removed and nothing "
                   "was promoted: run git hn sync origin again\n")
    assert _quarantines(bob) == [] and git(bob, "for-each-ref", "refs/hn") == before
    proc = _sync_until_quarantine(bob)
    proc.kill()
    proc.communicate(timeout=60)
    left = _quarantines(bob)
    assert len(left) == 1
    time.sleep(1.0)  # a Git child of the killed sync (git init) may still write into it for a moment
    old = time.time() - 120
    os.utime(left[0], (old, old))
    held = left[0].parent / "txn-heldbyalivesync"  # what a live sync looks like: locked
    held.mkdir()
    fd = os.open(held / "hn-quarantine.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.utime(held, (old, old))
    try:
        r = hn_proc(bob, "sync", "--json")  # another process than the lock's holder (this one)
        assert r.code == 0, r.err
        assert json.loads(r.out)["importedMemories"] == 6_000
        assert _quarantines(bob) == [held]  # the abandoned one is gone, the held one is not
    finally:
        os.close(fd)
    assert hn(bob, "sync").code == 0 and _quarantines(bob) == []  # released: swept by a no-op sync too


def _second_anchored_off_origin(tmp_path, bare_remote):
    """Alice's stream on origin, published by hand: its second memory of three is anchored on a
    commit only Alice has. (remote, alice, bob, the anchor commit, the three records)."""
    remote, alice = _alice(tmp_path, bare_remote)
    first = _record(alice, "anchored on the shared main")
    git(alice, "checkout", "-q", "-b", "local-only")
    (alice / "local.txt").write_text("not pushed\n")
    git(alice, "add", "local.txt")
    git(alice, "commit", "-q", "-m", "local work")
    local = git(alice, "rev-parse", "HEAD")
    second = _record(alice, "anchored on a commit only alice has")
    git(alice, "checkout", "-q", "main")
    third = _record(alice, "anchored on main again")
    ref = f"refs/hn/memory/{actor_of(alice)}/{first['stream'][7:]}"
    git(alice, "push", "-q", "origin", f"{ref}:{ref}")  # published by hand, anchor and all
    return remote, alice, _bob(tmp_path, remote), local, (first, second, third)


def test_a_sync_of_every_stream_counts_the_failed_streams_of_the_remote(tmp_path, bare_remote):
    """For a selection of every stream (none saved, or ``--all``), the stderr line's words after
    the contract's first clause count the remote's streams (a newcomer trial read "1 stream of
    every stream (no selection saved) failed")."""
    _remote, _alice_repo, bob, _local, _records = _second_anchored_off_origin(tmp_path, bare_remote)
    head = "git-hn: replication import phase failed for one or more exact selections; "
    r = hn(bob, "sync")
    assert r.code == 1 and r.err.startswith(
        f"{head}1 of origin's streams failed, 1 promoted (no selection saved: all are imported); "
        "memory sha256:"), r.err
    assert hn(bob, "replication", "select", "--all").code == 0
    r = hn(bob, "sync")
    assert r.code == 1 and r.err.startswith(
        f"{head}1 of origin's streams failed, none promoted; memory sha256:"), r.err


def test_one_missing_anchor_does_not_hide_the_memories_before_it(tmp_path, bare_remote):
    """Issue 12 item 4, receiving side: a stream is promoted up to the first memory whose
    dependency is missing; the rest follows once the dependency is there."""
    remote, alice, bob, local, (first, second, third) = _second_anchored_off_origin(tmp_path, bare_remote)
    ref = f"refs/hn/memory/{actor_of(alice)}/{first['stream'][7:]}"
    assert hn(bob, "replication", "select", "--memory", first["stream"]).code == 0
    r = hn(bob, "sync", "--json")
    assert r.code == 1
    doc = json.loads(r.out)
    out = doc["outcomes"][0]
    assert (out["status"], out["dependencyKind"], out["missingId"]) == ("dependency-missing", "anchor-commit", local)
    assert out["diagnostic"].endswith("; promoted the 1 memory before it")
    assert (doc["promoted"], doc["importedMemories"]) == (1, 1)
    said = hn(bob, "sync").out  # the human lines: the failure, then who can bring the commit back, once
    assert "fetch a branch" not in said and said.count("git push origin") == 1, said  # (f59: it cannot work)
    name = hn(alice, "identity", "show").out.split("\n")[0].split(None, 1)[1]
    hint = (f"Commit {local} is not here, nor on any branch of origin this clone fetches (this sync has just fetched them), "
            f"and memory {second['memoryId'][7:19]} of {actor_of(alice)[:12]} (\"{name}\", a self-chosen name) is anchored on it: if a "
            "rebase, an amend or a deleted branch took it off, a clone that still has it (its author's, most "
            f"likely) can put it back: git push origin {local}:refs/heads/hn-anchor/{local[:12]}")
    assert hint in said.splitlines(), said  # (a line of its own, once for the commit, saying whose)
    closing = hn(bob, "sync").err  # (a team trial: it said "fetch a branch that contains" it, impossible)
    assert "fetch a branch" not in closing and "git push" not in closing and (  # (f59: the line above has it)
        f"no branch of origin this clone fetches has commit {local[:12]} (the line above that names it says how to "
        "bring it back); or one git hn replication select origin --memory STREAM... leaves the stream out (it "
        "replaces the saved selection: give a --memory for every stream to keep, each by its full ID, which git hn "
        "sync origin --json lists)") in closing, closing
    closing = hn(bob, "sync", "--json").err  # (no line above it on stdout: the push is said here)
    assert "fetch a branch" not in closing and (
        f"no branch of origin this clone fetches has commit {local[:12]}: a clone that still has it (its "
        f"author's, most likely) can put it back: git push origin {local}:refs/heads/hn-anchor/{local[:12]}; or "
        "one git hn replication select origin --memory STREAM... leaves the stream out") in closing, closing
    assert hn(bob, "memory", "show", first["memoryId"]).code == 0
    assert hn(bob, "memory", "show", second["memoryId"]).code == 1
    assert git(bob, "rev-parse", f"refs/hn/remotes/origin/memory/{actor_of(alice)}/{first['stream'][7:]}") == \
        git(alice, "rev-parse", f"{ref}~2")
    git(alice, "push", "-q", "origin", "local-only")
    git(bob, "fetch", "-q", "origin")  # what the recovery says: fetch a branch that contains it
    doc = hn(bob, "sync", "--json").json()
    assert (doc["promoted"], doc["importedMemories"]) == (1, 2)
    assert hn(bob, "memory", "show", third["memoryId"]).code == 0


def test_a_single_branch_clone_is_offered_the_fetch_of_the_anchor_a_branch_it_leaves_out_holds(tmp_path,
                                                                                                  bare_remote):
    """A review: a ``--single-branch`` clone whose teammate's memory is anchored on origin's
    ``feature`` was told, by the sync's closing line and the fetch hook's, "no branch of origin
    this clone fetches has commit C: a clone that still has it (its author's) can put it back",
    while ``git ls-remote origin`` listed ``feature`` at C and ``git fetch origin C`` then ``git hn
    sync origin`` imported it. Where the clone's refspecs leave out branches the remote has, that
    fetch is offered first; where they leave out none, it is not."""
    remote, alice = _alice(tmp_path, bare_remote)
    git(alice, "checkout", "-q", "-b", "feature")
    git(alice, "commit", "-q", "--allow-empty", "-m", "feature work")
    feature = git(alice, "rev-parse", "HEAD")
    git(alice, "push", "-q", "origin", "feature")
    memory = _record(alice, "on feature")
    assert hn(alice, "sync").code == 0
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", "--single-branch", "-b", "main", remote.as_uri(), str(carol))
    assert hn(carol, "init", "--name", "Carol").code == 0
    assert hn(carol, "replication", "select", "--memory", memory["stream"]).code == 0
    r = hn(carol, "sync")
    assert r.code == 1
    offer = (f"git fetch origin {feature} brings commit {feature[:12]} if a branch of origin this clone does not "
             f"fetch has it (then git hn sync origin); if none has it, a clone that still has it (its author's, "
             f"most likely) can put it back: git push origin {feature}:refs/heads/hn-anchor/{feature[:12]}; or one git "
             "hn replication select origin --memory STREAM... leaves the stream out (it replaces the saved selection: "
             "give a --memory for every stream to keep, each by its full ID, which git hn sync origin --json lists)")
    # (the stdout line gives the commands; the closing line points at it, f59)
    assert f"failed (dependency-missing): no branch of origin this clone fetches has commit {feature[:12]} (the " \
        "line above that names it says how to bring it back); or one git hn replication select" in r.err, r.err
    assert f"git fetch origin {feature} brings it if a branch this clone does not fetch has it" in r.out, r.out
    assert f"failed (dependency-missing): {offer} (the outcomes of the JSON on stdout say why)" in \
        hn(carol, "sync", "--json").err
    # the fetch hook's line says it too (the fetch brought main only)
    assert hn(carol, "hooks", "install").code == 0
    git(alice, "checkout", "-q", "main")
    git(alice, "commit", "-q", "--allow-empty", "-m", "main moves")
    git(alice, "push", "-q", "origin", "main")
    proc = subprocess.run(["git", "fetch", "-q", "origin"], cwd=carol, capture_output=True, text=True, timeout=120)
    lines = [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")]
    assert lines == [f'git-hn: memory import from origin failed: stream {memory["stream"][7:19]} of "Alice" stops at '
                     f'memory {memory["memoryId"][7:19]}, whose anchor commit {feature[:12]} is not on a branch of '
                     f"origin this fetch brought; {offer}"], proc.stderr
    # and it works
    git(carol, "fetch", "-q", "origin", feature)
    assert hn(carol, "sync").code == 0 and hn(carol, "memory", "show", memory["memoryId"]).code == 0
    # a single-branch clone of a remote with no other branch is not offered it
    git(remote, "branch", "-D", "feature")
    dave = tmp_path / "dave"
    git(tmp_path, "clone", "-q", "--single-branch", "-b", "main", remote.as_uri(), str(dave))
    assert hn(dave, "init", "--name", "Dave").code == 0
    assert hn(dave, "replication", "select", "--memory", memory["stream"]).code == 0
    r = hn(dave, "sync")
    assert r.code == 1 and f"git fetch origin {feature}" not in r.out + r.err, r.out + r.err
    assert f"no branch of origin this clone fetches has commit {feature[:12]} (the line above" in r.err
    assert "nor on any branch of origin this clone fetches (this sync has just fetched them)" in r.out


def test_the_memory_named_is_the_first_the_stream_stops_at_in_chain_order(tmp_path, bare_remote):
    """F45 (a trial): a single-branch clone lacks two topic branches that the second and third
    memories of a stream are anchored on. The sync named the third (its anchor's ID sorted
    first among the missing ones) and said "promoted the 1 memory before it", past the second,
    which was not promoted. It names the first memory, in chain order, whose dependency is
    missing; once that one's branch is fetched, the next."""
    remote, alice = _alice(tmp_path, bare_remote)
    first = _record(alice, "anchored on main")
    tops = [commit_on(alice, "zz-topic", "z.txt")]
    git(alice, "checkout", "-q", "main")
    tops.append(commit_on(alice, "aa-topic", "a.txt"))
    low, high = sorted(tops)  # the second memory's anchor sorts after the third's
    branch = {tops[0]: "zz-topic", tops[1]: "aa-topic"}
    second = record_id(alice, content="second", at=high)
    third = record_id(alice, content="third", at=low)
    git(alice, "push", "-q", "origin", "zz-topic", "aa-topic")
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--single-branch", "--branch", "main", remote.as_uri(), str(bob))
    assert hn(bob, "replication", "select", "--all").code == 0
    out = json.loads(hn(bob, "sync", "--json").out)["outcomes"][0]
    assert (out["ownerMemoryId"], out["missingId"]) == (second, high), out
    assert out["diagnostic"].endswith("; promoted the 1 memory before it")
    git(bob, "fetch", "-q", "origin", f"{branch[high]}:refs/remotes/origin/{branch[high]}")
    doc = json.loads(hn(bob, "sync", "--json").out)
    out = doc["outcomes"][0]
    assert (out["ownerMemoryId"], out["missingId"]) == (third, low), out
    assert out["diagnostic"].endswith("; promoted the 1 memory before it") and doc["importedMemories"] == 1
    assert hn(bob, "memory", "show", first["memoryId"]).code == 0


def test_a_sync_right_after_a_teammates_push_fetches_the_branch_its_memory_needs(tmp_path, bare_remote):
    """A team trial: Alice pushed a commit and a memory on it; Bob's ``git hn sync`` (no ``git
    fetch`` since) failed on the missing anchor, with advice that read as data loss. The sync
    fetches the remote's branches once, as its advice says, and imports again: the memory is
    there, in one command, and the summary counts what both passes promoted."""
    remote, alice = _alice(tmp_path, bare_remote)
    first = _record(alice, "anchored on the shared main")
    ref = f"refs/hn/memory/{actor_of(alice)}/{first['stream'][7:]}"
    git(alice, "push", "-q", "origin", f"{ref}:{ref}")
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--all").code == 0
    assert hn(bob, "sync").code == 0
    (alice / "new.txt").write_text("new\n")
    git(alice, "add", "new.txt")
    git(alice, "commit", "-q", "-m", "new work")
    pushed = git(alice, "rev-parse", "HEAD")
    second = _record(alice, "anchored on the new commit")
    git(alice, "push", "-q", "origin", "main", f"{ref}:{ref}")
    assert subprocess.run(["git", "cat-file", "-e", pushed], cwd=bob).returncode != 0  # not fetched
    r = hn(bob, "sync", "--json")
    assert r.code == 0, r.out + r.err
    doc = json.loads(r.out)
    assert [o["status"] for o in doc["outcomes"]] == ["promoted"] and doc["importedMemories"] == 1
    assert hn(bob, "memory", "show", second["memoryId"]).code == 0
    assert git(bob, "rev-parse", "refs/remotes/origin/main") == pushed
    assert hn(bob, "memory", "index", "verify").code == 0
    # the first pass promotes a part (its anchor was fetched), the second the rest: one stream,
    # both parts counted (a review: "promoted 2 selections, imported 1 memory")
    (alice / "x2.txt").write_text("x2\n")
    git(alice, "add", "x2.txt")
    git(alice, "commit", "-q", "-m", "x2")
    git(alice, "push", "-q", "origin", "main")
    subprocess.run(["git", "fetch", "-q", "origin"], cwd=bob, check=True, env={**os.environ, "HN_HOOK_ACTIVE": "1"})
    _record(alice, "on x2")
    (alice / "y.txt").write_text("y\n")
    git(alice, "add", "y.txt")
    git(alice, "commit", "-q", "-m", "y")
    _record(alice, "on y")
    git(alice, "push", "-q", "origin", "main", f"{ref}:{ref}")
    doc = json.loads(hn(bob, "sync", "--json").out)
    assert (doc["promoted"], doc["importedMemories"], len(doc["outcomes"])) == (1, 2, 1), doc
    # a commit no branch has: the fetch brings nothing, and the failure and its advice stand
    git(alice, "checkout", "-q", "-b", "local-only")
    (alice / "local.txt").write_text("not pushed\n")
    git(alice, "add", "local.txt")
    git(alice, "commit", "-q", "-m", "local work")
    _record(alice, "anchored on a commit only alice has")
    git(alice, "push", "-q", "origin", f"{ref}:{ref}")
    r = hn(bob, "sync")
    assert r.code == 1 and "is not here, nor on any branch of origin this clone fetches (this sync has just fetched them)" in r.out


def test_the_publication_gate_reads_the_state_as_a_full_collection_would(tmp_path, bare_remote, monkeypatch):
    """``gate.gate`` takes each memory's anchor from the verified state's rows (no memory is
    read from Git again); with the state unavailable it reads a full collection. Both say the
    same: a stream goes up to the memory before the first one anchored on a commit the remote
    lacks, a memory without a record (a retraction) is never held, and a base skips what the
    remote has."""
    from git_hn.service.replication import gate
    from git_hn.store import stateview
    from git_hn.store.repo import open_repo

    _remote, alice = _alice(tmp_path, bare_remote)
    first = _record(alice, "anchored on the shared main")
    git(alice, "checkout", "-q", "-b", "local-only")
    git(alice, "commit", "-q", "--allow-empty", "-m", "local work")
    local = git(alice, "rev-parse", "HEAD")
    second = _record(alice, "anchored on a commit only alice has")
    git(alice, "checkout", "-q", "main")
    third = _record(alice, "anchored on main again")
    assert hn(alice, "memory", "retract", third["memoryId"], "--reason", "stale").code == 0
    ref = f"refs/hn/memory/{actor_of(alice)}/{first['stream'][7:]}"
    tip = git(alice, "rev-parse", ref)
    chain = git(alice, "rev-list", "--reverse", tip).split()
    assert len(chain) == 4
    cases = [({}, ({ref: chain[0]}, [gate.Held(ref, second["memoryId"], local, 3)])),
             ({ref: chain[1]}, ({ref: tip}, [])),
             ({ref: chain[2]}, ({ref: tip}, []))]

    def answers():
        return [gate.gate(open_repo(str(alice)), "origin", {ref: tip}, bases) for bases, _want in cases]

    assert answers() == [want for _bases, want in cases]

    def unavailable(*_args, **_kwargs):
        raise stateview.Unavailable("no state in this test")

    monkeypatch.setattr(stateview, "current", unavailable)
    assert answers() == [want for _bases, want in cases]



def test_a_sync_from_a_subdirectory_copies_the_objects_into_the_repository(tmp_path, bare_remote):
    """A sync run in a subdirectory of the working tree whose fetched pack is not adopted whole
    (it holds an object the transaction does not accept) copies the accepted objects into the
    repository's own store (``index-pack --stdin`` run there would write them under the
    subdirectory), and promotes."""
    remote, alice = _alice(tmp_path, bare_remote)
    mem = _record(alice, "one")
    assert hn(alice, "sync").code == 0
    bob = _bob(tmp_path, remote)
    assert hn(bob, "replication", "select", "--all").code == 0
    sub = bob / "docs" / "deep"
    sub.mkdir(parents=True)
    assert hn(sub, "sync").code == 0
    _record(alice, "two")
    assert hn(alice, "sync").code == 0
    r = hn(sub, "sync", "--json")
    assert r.code == 0, r.err
    assert (r.json()["promoted"], r.json()["importedMemories"]) == (1, 1)
    assert not (sub / ".git").exists()
    assert git(bob, "status", "--porcelain", "--untracked-files=all") == ""
    ref = f"refs/hn/remotes/origin/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(bob, "rev-parse", ref) == git(alice, "rev-parse", f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}")
    assert hn(bob, "memory", "index", "verify").code == 0


@pytest.mark.parametrize("selector", ["--all", "--memory"])
def test_a_remote_added_by_a_relative_path_replicates_both_ways(tmp_path, bare_remote, selector):
    """``git remote add origin ../team.git`` (the README's team setup): Git reads that path from
    the top of the working tree, and so must the quarantine's fetch, which runs in another
    directory; from the top and from a subdirectory alike."""
    remote, alice = _alice(tmp_path, bare_remote)
    mem = _record(alice, "one")
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "work" / "bob"
    bob.parent.mkdir()
    git(tmp_path, "clone", "-q", remote.as_uri(), str(bob))
    relative = os.path.relpath(remote, bob)
    assert not os.path.isabs(relative)
    git(bob, "remote", "set-url", "origin", relative)
    assert hn(bob, "init", "--name", "Bob").code == 0
    args = ["--memory", mem["stream"]] if selector == "--memory" else ["--all"]
    assert hn(bob, "replication", "select", *args).code == 0
    r = hn(bob, "sync")
    assert (r.code, r.err) == (0, "")
    assert r.out.splitlines()[-1] == "Synchronized with origin: imported 1 memory, promoted 1 stream"
    assert git(bob, "for-each-ref", "--format=%(objectname)", f"refs/hn/remotes/origin/memory/{mem['actor']}/"
               f"{mem['stream'][7:]}") == git(alice, "rev-parse", f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}")
    _record(alice, "two")
    assert hn(alice, "sync").code == 0
    sub = bob / "docs" / "deep"
    sub.mkdir(parents=True)
    r = hn(sub, "sync", "--json")
    assert r.code == 0, r.err
    assert (r.json()["promoted"], r.json()["importedMemories"]) == (1, 1)
    # and Bob's own memory reaches the remote through the same relative URL
    own = _record(bob, "from bob")
    assert hn(bob, "sync").code == 0
    assert own["stream"][7:] in git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")


def test_the_sync_summary_names_what_it_published_and_the_users_own_memory_coming_back(tmp_path, bare_remote):
    """A sync that only published says so (not "up to date"); the user's own memories, imported
    back from the remote once published (every selected stream is), are named as theirs. The counts
    are of streams, with or without a saved selection (team trials: "promoted 2 selections" beside
    the hint "no replication selection is saved for origin"; "promoted 1 stream" in one sync and
    "promoted 1 selection" in another)."""
    remote, alice = _alice(tmp_path, bare_remote)
    mine = _record(alice, "one")
    assert hn(alice, "sync").out.splitlines() == ["Synchronized with origin: published 1 stream"]
    assert hn(alice, "sync").out.splitlines() == [
        f"Replication memory {mine['stream']}: promoted",
        "Synchronized with origin: promoted 1 stream (origin's copy of your own: nothing new came in)"]
    assert hn(alice, "sync").out.splitlines() == ["Replication from origin: 1 stream up to date",
                                                  "Synchronized with origin: up to date"]
    bob = _bob(tmp_path, remote)
    assert hn(bob, "init", "--name", "Bob").code == 0
    _record(bob, "b1")
    r = hn(bob, "sync")
    assert (r.code, r.out.splitlines()[-1]) == (
        0, "Synchronized with origin: imported 1 memory, promoted 1 stream, published 1 stream")
    _record(alice, "two")
    assert hn(alice, "sync").out.splitlines()[-1] == (
        "Synchronized with origin: imported 1 memory, promoted 1 stream, 1 up to date, published 1 stream")
    _record(bob, "b2")
    r = hn(bob, "sync")
    assert (r.code, r.out.splitlines()[-1]) == (
        0, "Synchronized with origin: imported 1 memory, promoted 2 streams (1 of them origin's copy of your "
           "own, nothing new in it), published 1 stream")  # (f159: "imported 2 memories (1 of them your own)")
    doc = hn(bob, "sync", "--json").json()  # the JSON document keeps the contract's counts
    assert (doc["importedMemories"], doc["published"]) == (1, 1)
    assert doc["importedAlreadyHere"] == 1  # (bob's b2 coming back: nothing new; f159)
    # a mirror clone holds everyone's streams as local refs: none of them is "your own" there
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(mirror))
    assert hn(mirror, "replication", "select", "--all").code == 0
    r = hn(mirror, "sync")
    assert r.code == 0 and r.out.splitlines()[-1] == "Synchronized with origin: imported 4 memories, promoted 2 streams"


def test_sync_withholds_a_stream_with_secret_shaped_text_as_a_push_does(tmp_path, bare_remote):
    """A memory recorded with --allow-secret-shaped is withheld by the pre-push hook's lint; git hn
    sync applies the same lint (git-hn), so that neither way of publishing sends it. The error
    names the memory, the field and the detector, never the value."""
    remote, alice = _alice(tmp_path, bare_remote)
    clean = _record(alice, "nothing secret here")
    assert hn(alice, "sync").code == 0
    published = git(remote, "for-each-ref", "--format=%(objectname)", "refs/hn/memory/")
    token = "ghp_" + "a1B2c3D4e5" * 3 + "F6g7H8"
    secret = _record(alice, f"the token is {token}", "--allow-secret-shaped")
    r = hn(alice, "sync")
    ref = f"refs/hn/memory/{clean['actor']}/{clean['stream'][7:]}"
    assert r.code == 1
    assert r.err == ("git-hn: publication phase failed after replication: replication memory publication failed "
                     f"for remote origin: secret-shaped text in memory {secret['memoryId']} record.content "
                     f"(github-token); stream {ref} not published\n")
    assert token not in r.out + r.err and token[4:] not in r.out + r.err
    assert git(remote, "for-each-ref", "--format=%(objectname)", "refs/hn/memory/") == published
    r = hn(alice, "sync", "--json")
    assert r.code == 1 and json.loads(r.out)["published"] == 0  # withheld is not counted as published


def test_a_push_that_deletes_memory_refs_warns_and_block_mode_refuses_it(tmp_path):
    """``git push --mirror`` from a clone that holds only its own streams deletes every other
    memory ref on that remote (and copies the clone's accepted copies there)."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (a, b):
        assert hn(repo, "replication", "select", "--all").code == 0
    rec = hn(b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "Bob's")
    assert rec.code == 0 and hn(b, "sync").code == 0
    assert hn(a, "sync").code == 0
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(mirror))
    git(a, "remote", "add", "m", str(mirror))
    assert hn(a, "hooks", "install").code == 0
    before = refs_snapshot(mirror)
    bobs = f"refs/hn/memory/{rec.json()['actor']}/{rec.json()['stream'][7:]}"
    git(a, "config", "hn.prePush", "block")
    refused = subprocess.run(["git", "push", "--mirror", "m"], cwd=a, capture_output=True, text=True)
    assert refused.returncode != 0
    assert (f"git-hn: this push deletes 1 memory ref on m (first: {bobs}) and copies 1 of this clone's "
            "accepted memory refs (refs/hn/remotes/*) there: memory history is append-only") in refused.stderr
    assert refs_snapshot(mirror) == before
    git(a, "config", "hn.prePush", "warn")
    warned = subprocess.run(["git", "push", "-q", "origin", "--delete", bobs], cwd=a, capture_output=True,
                            text=True)
    assert f"git-hn: this push deletes 1 memory ref on origin (first: {bobs})" in warned.stderr


def test_a_remote_that_holds_more_of_a_stream_than_the_gate_allows_is_not_a_failure(tmp_path):
    """A second remote mirrored from the first after a branch was deleted there: it holds the
    whole stream, but not the commit its last memory is anchored on, so the gate offers only the
    memories before it and the remote refuses that as a non-fast-forward. It already has more:
    nothing to publish (before, every push and sync to it failed)."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    first = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
               "descendants", "--content", "on main").json()
    git(a, "checkout", "-q", "-b", "feat")
    git(a, "commit", "-q", "--allow-empty", "-m", "feat")
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on feat").code == 0
    git(a, "push", "-q", "origin", "feat")
    assert hn(a, "sync").code == 0
    ref = f"refs/hn/memory/{first['actor']}/{first['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    git(a, "push", "-q", "origin", "--delete", "feat")
    second = tmp_path / "second.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(second))
    git(a, "remote", "add", "second", str(second))
    git(a, "fetch", "-q", "second")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "main")
    for i in range(2):  # the push publishes in block mode (synchronously)
        git(a, "commit", "-q", "--allow-empty", "-m", f"more {i}")
        pushed = subprocess.run(["git", "-c", "hn.prePush=block", "push", "-q", "second", "main"], cwd=a,
                                capture_output=True, text=True)
        assert pushed.returncode == 0, pushed.stderr
        assert "non-fast-forward" not in pushed.stderr
    assert git(second, "rev-parse", ref) == git(a, "rev-parse", ref)
    assert hn(a, "sync", "second").code == 0


def test_a_memory_anchored_on_a_commit_only_another_remote_holds_is_said_at_push_and_sync(tmp_path):
    """A team trial: a memory anchored on a commit that only a fork's branch holds here (the
    local branch gone after a rebase or a cleanup) held the stream back from origin for good,
    silently at every push: a remote-tracking ref of any remote counted as "a push can carry
    it". For origin only origin's own count; the push warns, and sync says how it can arrive."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote), str(fork))
    git(alice, "remote", "add", "fork", str(fork))
    assert hn(alice, "hooks", "install").code == 0
    commit = commit_on(alice, "exp", "exp.txt")
    made = _record(alice, "tried on the experiment branch")
    git(alice, "push", "-q", "fork", "exp")
    git(alice, "checkout", "-q", "main")
    git(alice, "branch", "-q", "-D", "exp")  # (only refs/remotes/fork/exp holds the commit now)
    commit_on(alice, None, "next.txt")
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=alice, capture_output=True, text=True)
    assert pushed.returncode == 0
    line = (f"memory {made['memoryId'][7:19]} waits for commit {commit[:12]}, which only another remote's branches "
            "contain here, no branch or tag of yours: it reaches origin when such a branch is merged there (not "
            f"squashed); else keep the commit on the remote: git push origin {commit[:12]}:refs/heads/hn-anchor/"
            f"{commit[:12]}")
    assert line in pushed.stderr, pushed.stderr
    wait_publication(alice)
    r = hn(alice, "sync", "origin")
    assert line in r.out, r.out
    git(alice, "push", "-q", "origin", f"{commit}:refs/heads/hn-anchor/{commit[:12]}")  # what it says
    git(alice, "fetch", "-q", "origin")
    r = hn(alice, "sync", "origin")
    assert r.code == 0 and "waits" not in r.out, r.out


def test_a_remote_named_under_another_remotes_name_is_not_counted_as_that_remote(tmp_path):
    """An audit: with remotes ``team`` and ``team/fork``, ``refs/remotes/team/fork/*`` matched
    ``--remotes=team``: a memory anchored on a commit pushed only to the fork was published to
    ``team`` (whose importers then stopped at the missing anchor), and a force-push to ``team``
    that took a published memory's anchor off it warned of nothing."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "remote", "rename", "origin", "team")
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote), str(fork))
    git(alice, "remote", "add", "team/fork", str(fork))
    commit = commit_on(alice, "feat", "feat.txt")
    _record(alice, "decided on the feature branch")
    git(alice, "push", "-q", "team/fork", "feat")
    git(alice, "checkout", "-q", "main")
    before = refs_snapshot(remote)
    r = hn(alice, "sync", "team")
    assert f"waits until commit {commit[:12]} is on team" in r.out, r.out
    assert refs_snapshot(remote) == before  # nothing published to team
    assert subprocess.run(["git", "cat-file", "-e", commit], cwd=remote).returncode != 0

    # the anchor on team's main, published there, then a force-push takes it off team
    git(alice, "merge", "-q", "--ff-only", "feat")
    git(alice, "push", "-q", "team", "main")
    git(alice, "push", "-q", "team/fork", "main")
    assert hn(alice, "sync", "team").code == 0
    assert "refs/hn/memory/" in refs_snapshot(remote)
    assert hn(alice, "hooks", "install").code == 0
    git(alice, "reset", "-q", "--hard", "HEAD~1")
    pushed = subprocess.run(["git", "push", "-q", "-f", "team", "main"], cwd=alice, capture_output=True, text=True)
    assert pushed.returncode == 0, pushed.stderr
    assert f"git push team {commit}:refs/heads/hn-anchor/{commit[:12]}" in pushed.stderr, pushed.stderr


def _memory_on_an_unpushed_commit(tmp_path, remote) -> str:
    """Mallory's memory on a commit of hers that is on no branch of ``remote``, its stream pushed
    there by hand: an importer stops at its anchor, and the sync fetches the branches. Its ID."""
    mallory = tmp_path / "mallory"
    git(tmp_path, "clone", "-q", str(remote), str(mallory))
    assert hn(mallory, "init", "--name", "Mallory").code == 0
    commit_on(mallory, "hidden", "hidden.txt")
    made = _record(mallory, "anchored on a commit the remote never gets")
    git(mallory, "push", "-q", "origin", "refs/hn/memory/*:refs/hn/memory/*")
    return made["memoryId"]


def test_the_syncs_branch_fetch_writes_no_ref_outside_the_remotes_tracking_refs(tmp_path):
    """An audit: the fetch a sync runs when an import stops at a missing anchor used the clone's
    own refspecs; a mirror refspec (``+refs/*:refs/*``) let a hostile remote write refs/hn/*
    straight into the repository, past the quarantine. Only refspecs that map the remote's
    branches under refs/remotes/<remote>/ are fetched; with none, nothing is, and the line says so."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    _memory_on_an_unpushed_commit(tmp_path, remote)
    forged = f"refs/hn/memory/{actor_of(bob)}/{'e' * 64}"
    git(remote, "update-ref", forged, git(remote, "rev-parse", "main"))
    git(remote, "update-ref", "refs/heads/extra", git(remote, "rev-parse", "main"))
    git(bob, "config", "--replace-all", "remote.origin.fetch", "+refs/*:refs/*")
    git(bob, "checkout", "-q", "--detach")
    assert hn(bob, "replication", "select", "--all").code == 0
    r = hn(bob, "sync", "origin")
    assert r.code == 1
    refs = refs_snapshot(bob)
    assert forged not in refs and "refs/heads/extra" not in refs, refs
    assert "this sync's fetch of origin's branches: this clone fetches no branch of origin under " \
           "refs/remotes/origin/ (git config --get-all remote.origin.fetch)" in r.out, r.out


def test_the_syncs_branch_fetch_is_bounded_by_the_stall_timeout_and_said(tmp_path):
    """An audit: a remote that answered the advertisement and the quarantine fetch but not the
    branch fetch (started when an import stops at a missing anchor) held every sync for 300 s,
    and the line read as if no branch had the commit. The fetch now ends at the stall timeout,
    once, and the line says it did not end."""
    from servers import GitDaemon

    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    _memory_on_an_unpushed_commit(tmp_path, remote)
    count = tmp_path / "connections"
    hook = tmp_path / "access-hook"
    hook.write_text(f'#!/bin/sh\nn=$(($(cat "{count}" 2>/dev/null || echo 0) + 1))\necho $n > "{count}"\n'
                    'if [ "$n" -ge 3 ]; then sleep 30; fi\nexit 0\n')
    hook.chmod(0o755)
    with GitDaemon(remote, tmp_path, (f"--access-hook={hook}",)) as daemon:
        git(bob, "remote", "set-url", "origin", daemon.url)
        git(bob, "config", "hn.syncStallTimeout", "3")
        assert hn(bob, "replication", "select", "--all").code == 0
        started = time.monotonic()
        r = hn(bob, "sync", "origin")
        took = time.monotonic() - started
    assert r.code == 1 and took < 20, (took, r.out)
    assert count.read_text().strip() == "3"  # one branch fetch, not two
    assert "(this sync's fetch of origin's branches: git fetch origin did not end within 3 s (git config " \
           "hn.syncStallTimeout))" in r.out, r.out


def test_a_mirror_push_names_the_anchor_branches_it_deletes(tmp_path):
    """A team trial: ``git push --mirror`` in warn mode named the memory refs it deleted, not the
    ``hn-anchor/*`` branches it also deleted, which kept memories' anchor commits on the remote."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (a, b):
        assert hn(repo, "replication", "select", "--all").code == 0
    assert hn(b, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Bob's").code == 0
    assert hn(b, "sync").code == 0 and hn(a, "sync").code == 0
    head = git(b, "rev-parse", "HEAD")
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(mirror))
    for n in ("b", "a"):
        git(b, "push", "-q", str(mirror), f"{head}:refs/heads/hn-anchor/{n}{head[1:12]}")
    git(a, "remote", "add", "m", str(mirror))
    assert hn(a, "hooks", "install").code == 0
    warned = subprocess.run(["git", "push", "-q", "--mirror", "m"], cwd=a, capture_output=True, text=True)
    assert (f"deletes 2 hn-anchor branches on m (first: refs/heads/hn-anchor/a{head[1:12]}), which keep "
            "memories' anchor commits there") in warned.stderr, warned.stderr


def test_a_mirror_push_from_a_clone_that_imported_nothing_says_what_it_deletes(tmp_path):
    """A review: a clone with no accepted copies (it never imported) that ran ``git push --mirror``
    deleted every memory ref and ``hn-anchor`` branch of the target unsaid, since only a push
    copying ``refs/hn/remotes/*`` was taken for a mirror; its remote-tracking refs, pushed under
    their own names, say it too."""
    remote, (b,) = shared_remote(tmp_path, "Bob")
    assert hn(b, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Bob's").code == 0
    assert hn(b, "sync").code == 0
    head = git(b, "rev-parse", "HEAD")
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(mirror))
    git(b, "push", "-q", str(mirror), f"{head}:refs/heads/hn-anchor/{head[:12]}")
    dave = tmp_path / "dave"
    git(tmp_path, "clone", "-q", str(remote), str(dave))
    assert hn(dave, "init", "--name", "Dave").code == 0
    assert hn(dave, "hooks", "install").code == 0
    git(dave, "remote", "add", "m", str(mirror))
    warned = subprocess.run(["git", "push", "-q", "--mirror", "m"], cwd=dave, capture_output=True, text=True)
    assert "deletes 1 memory ref on m (first: refs/hn/memory/" in warned.stderr, warned.stderr
    assert f"deletes 1 hn-anchor branch on m (first: refs/heads/hn-anchor/{head[:12]})" in warned.stderr, \
        warned.stderr
