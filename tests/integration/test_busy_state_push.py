"""The pre-push hook's checks while another git-hn holds the verified state (F136,
docs/decisions.md): an MCP server's refresh, ``git hn memory index rebuild`` or a recall catching
up holds the state's lock for longer than the 0.2 s a read of the state as last verified waits.
The check of streams not imported (``push_removals.unimported_there``) then said every remote
stream was "not imported", and with ``hn.prePush=block`` refused the push; the anchor check
(``gate.anchored_on``) and the tracking refs' check (``tracked``) were blind, and said nothing.
Now which remote tips are accepted here comes from the memory refs when the state is busy, and a
check that needs the state waits for it (bounded), then says it could not be done (``block``
refuses). Real repositories, a real bare remote, real pushes with the hooks installed; the lock
held as another git-hn holds it (``flock`` on the state's lock file)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import threading
from contextlib import contextmanager, nullcontext
from pathlib import Path

from helpers import commit_on, git, git_processes, hn, refs_snapshot, shared_remote, wait_publication

# (the test seam: a check waits this long for the lock instead of ``stateview.CHECK_WAIT``)
QUICK = {"HN_INTERNAL_TESTING": "1", "HN_TEST_CHECK_WAIT": "0.3"}
BUSY = "the memory state is busy (another git-hn is updating it: git hn memory index rebuild, say)"


@contextmanager
def state_held(repo):
    """The state's lock held exclusively, as a git-hn writing the state holds it."""
    fd = os.open(str(Path(repo) / ".git" / "hn" / "locks" / "state.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _push(repo, *args, env=None):
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    wait_publication(repo)
    return proc


def _everything_imported(tmp_path, mode: str, names=("Alice", "Carol")):
    """Alice published a memory on main~1; Carol synced it, then reset main one commit back (the
    push takes a commit off origin, on which no memory is anchored). (remote, repositories)"""
    remote, repos = shared_remote(tmp_path, *names)
    alice, carol = repos[0], repos[-1]
    commit_on(alice, None, "a.txt")
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD~1", "--applies", "descendants",
              "--content", "Alice's, on main~1").code == 0
    assert hn(alice, "sync").code == 0
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", mode)
    git(carol, "pull", "-q")
    assert hn(carol, "sync").code == 0
    git(carol, "reset", "-q", "--hard", "HEAD~1")
    return remote, repos


def _private(repo) -> dict[str, str]:
    """Digests of the verified state's files, the index and the keys (``.git/hn``, not its locks,
    the best-effort replication records nor the remembered Git version), and the refs."""
    root = Path(repo) / ".git" / "hn"
    out = {"refs": refs_snapshot(repo)}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(("locks/", "replication/", "git-version")):
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_warn_says_the_check_could_not_be_done_and_no_stream_is_called_not_imported(tmp_path):
    """(a) Everything is imported: a busy state made the remote's every stream "not imported"."""
    remote, (_alice, carol) = _everything_imported(tmp_path, "warn")
    with state_held(carol):
        pushed = _push(carol, "-f", "origin", "main", env=QUICK)
    assert pushed.returncode == 0, pushed.stderr
    assert "not imported" not in pushed.stderr, pushed.stderr
    assert [x for x in pushed.stderr.splitlines() if BUSY in x] == [
        f"git-hn: warning: this push takes commits off origin, and git-hn cannot check whether memories are "
        f"anchored on them: {BUSY}; to have such a push checked, push once that ends"], pushed.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_block_refuses_for_the_busy_state_not_for_streams_not_imported(tmp_path):
    """(a, c, d) The anchor check needs the state: ``block`` refuses with the busy line (fail
    closed), never with a false "not imported" line; the refused push changes nothing."""
    remote, (_alice, carol) = _everything_imported(tmp_path, "block")
    before, mine = git(remote, "for-each-ref"), _private(carol)
    with state_held(carol):
        pushed = _push(carol, "-f", "origin", "main", env=QUICK)
    assert pushed.returncode != 0
    assert "not imported" not in pushed.stderr, pushed.stderr
    line = [x for x in pushed.stderr.splitlines() if BUSY in x]
    assert len(line) == 1 and line[0].startswith(
        f"git-hn: this push takes commits off origin, and git-hn cannot check whether memories are anchored on "
        f"them: {BUSY}; push again once that ends; only if it goes on purpose (a secret): git -c hn.prePush=warn "
        f"push"), pushed.stderr
    assert git(remote, "for-each-ref") == before
    assert _private(carol) == mine
    # once the state is free, the same push goes: nothing is anchored on what it takes off
    again = _push(carol, "-f", "origin", "main")
    assert again.returncode == 0 and not again.stderr.strip(), again.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_block_waits_for_a_state_freed_within_the_bound(tmp_path):
    """(a) The state's holder ends within ``stateview.CHECK_WAIT`` of the check (no test seam
    here): the check waits for it, and the push goes; the 0.2 s wait refused it as "not
    imported". (The hook's earlier reads of the state wait 2 s each, then do without it: the
    holder outlasts them.)"""
    remote, (_alice, carol) = _everything_imported(tmp_path, "block")
    released = threading.Event()

    def hold():
        with state_held(carol):
            started.set()
            released.wait(6.5)

    started = threading.Event()
    holder = threading.Thread(target=hold)
    holder.start()
    started.wait(10)
    try:
        pushed = _push(carol, "-f", "origin", "main")
    finally:
        released.set()
        holder.join()
    assert pushed.returncode == 0, pushed.stderr
    assert "not imported" not in pushed.stderr and BUSY not in pushed.stderr, pushed.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_a_stream_really_not_imported_is_still_said_while_the_state_is_busy(tmp_path):
    """(b) Bob published a stream after Carol's sync: it alone is not imported (Alice's is),
    counted from the memory refs while the state is busy; ``block`` refuses with both lines,
    ``warn`` says both and goes on."""
    remote, (alice, bob, carol) = _everything_imported(tmp_path, "block", ("Alice", "Bob", "Carol"))
    git(bob, "pull", "-q")
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD~1", "--applies", "descendants",
              "--content", "Bob's, on main~1").code == 0
    assert hn(bob, "sync").code == 0
    before, mine = git(remote, "for-each-ref"), _private(carol)
    with state_held(carol):
        pushed = _push(carol, "-f", "origin", "main", env=QUICK)
    assert pushed.returncode != 0
    unimported = [x for x in pushed.stderr.splitlines() if "not imported" in x]
    assert len(unimported) == 1 and unimported[0].startswith(
        "git-hn: origin has 1 memory stream with memories this clone has not imported (first: sha256:"), pushed.stderr
    assert len([x for x in pushed.stderr.splitlines() if BUSY in x]) == 1, pushed.stderr
    assert git(remote, "for-each-ref") == before
    assert _private(carol) == mine
    git(carol, "config", "hn.prePush", "warn")
    with state_held(carol):
        warned = _push(carol, "-f", "origin", "main", env=QUICK)
    assert warned.returncode == 0, warned.stderr
    assert [x for x in warned.stderr.splitlines() if "not imported" in x][0].startswith(
        "git-hn: warning: origin has 1 memory stream with memories this clone has not imported"), warned.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_a_push_with_the_state_free_lists_the_memory_refs_once(tmp_path):
    """The usual case costs nothing more: with the state's lock free, the hook's memory ref
    listing is the one started early; the answer from the refs (a second listing) is only for a
    busy state."""
    listing = ["for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory", "refs/hn/remotes"]
    seen = {}
    for name in ("free", "busy"):
        (tmp_path / name).mkdir()
        _remote, (_alice, carol) = _everything_imported(tmp_path / name, "warn")
        trace = tmp_path / name / "trace"
        trace.mkdir()
        with state_held(carol) if name == "busy" else nullcontext():
            pushed = _push(carol, "-f", "origin", "main", env={**QUICK, "GIT_TRACE2_EVENT": str(trace)})
        assert pushed.returncode == 0 and "not imported" not in pushed.stderr, pushed.stderr
        seen[name] = [a for a in git_processes(trace) if a == listing]
    assert seen == {"free": [listing], "busy": [listing, listing]}, seen


def test_a_check_a_busy_state_left_undone_is_asked_again(tmp_path):
    """The tracking refs' check (``tracked``, in the pre-push hook here) saw that Alice's
    force-push took Carol's published anchor off main while the state was busy: it recorded the
    new tips all the same, and no later check asked again. Now the record stays as it was, and
    Carol's next sync says it."""
    _remote, _alice, carol, c, mem = _published_then_force_pushed_away(tmp_path)
    git(carol, "fetch", "-q", "origin", env={"HN_HOOK_ACTIVE": "1"})  # (the tracking refs moved, unchecked)
    with state_held(carol):
        pushed = _push(carol, "origin", "origin/main:refs/heads/topic", env=QUICK)  # (takes nothing off)
    assert pushed.returncode == 0 and "Anchors" not in pushed.stderr, pushed.stderr
    synced = hn(carol, "sync")
    assert synced.code == 0, synced.err
    assert [x for x in synced.out.splitlines() if x.startswith("Anchors of origin: ") and
            f"commit {c[:12]}, which memory {mem['memoryId'][7:19]} is anchored on" in x], synced.out


def _published_then_force_pushed_away(tmp_path):
    """Carol (hooks installed) publishes a memory on her commit of main and syncs; Alice then
    force-pushes main without that commit (test_force_pushed_anchors.py's)."""
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    assert hn(carol, "hooks", "install").code == 0
    c = commit_on(carol, None, "carol.txt")
    r = hn(carol, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "Carol's decision on main")
    assert r.code == 0, r.err
    pushed = _push(carol, "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert hn(carol, "sync").code == 0
    git(alice, "commit", "-q", "--allow-empty", "-m", "Alice's rewrite")
    git(alice, "push", "-q", "--force", "origin", "main")
    return remote, alice, carol, c, r.json()


def test_the_refs_answer_which_remote_tips_are_accepted_as_the_state_does(tmp_path):
    """``push_removals.refs_accepted`` (the memory refs: a busy state's stand-in) against the
    state's answer (``_accepted`` with the state free, kept as the reference): a tip that is an
    accepted ref's head, one below an accepted head (a teammate's earlier memory) or below the
    user's own head (published, then appended to), a commit that is no memory, one this clone
    lacks, and one under a ref name that is no stream."""
    from git_hn.service.push_removals import _accepted, refs_accepted
    from git_hn.store.repo import open_repo
    from git_hn.store.stateview import last_verified

    _remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    for content in ("first", "second"):
        assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--content", f"Alice's {content}").code == 0
    assert hn(alice, "sync").code == 0
    assert hn(carol, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Carol's, published").code == 0
    assert hn(carol, "sync").code == 0
    assert hn(carol, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Carol's, not yet published").code == 0
    theirs = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    mine = git(carol, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    stream = {ref: "sha256:" + ref.rsplit("/", 1)[1] for ref in (theirs, mine)}
    asked = {git(carol, "rev-parse", f"refs/hn/remotes/origin/memory/{theirs[len('refs/hn/memory/'):]}"): stream[theirs],
             git(alice, "rev-parse", f"{theirs}~1"): stream[theirs],
             git(carol, "rev-parse", mine): stream[mine],
             git(carol, "rev-parse", f"{mine}~1"): stream[mine],
             git(carol, "rev-parse", "HEAD"): stream[mine],
             "0123456789abcdef0123456789abcdef01234567": stream[theirs]}
    repo = open_repo(str(carol))
    with last_verified(repo) as view:
        assert view is not None  # (the reference below is the state's own answer)
    commits = sorted(asked)
    assert refs_accepted(repo, commits, asked) == _accepted(repo, commits, asked) == \
        {c for c in commits if c != git(carol, "rev-parse", "HEAD") and not c.startswith("0123")}
    # a remote ref whose name is no stream counts only when its tip is a head here (a sync never
    # imports it; the state counted it when any chain held its tip)
    earlier = git(alice, "rev-parse", f"{theirs}~1")
    assert refs_accepted(repo, [earlier], {earlier: "refs/hn/memory/not-a-stream"}) == set()
    assert _accepted(repo, [earlier], {earlier: "refs/hn/memory/not-a-stream"}) == {earlier}
