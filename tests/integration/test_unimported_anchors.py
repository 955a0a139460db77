"""A push that takes commits off a remote holding memory this clone has not imported
(push_removals.unimported_there, docs/decisions.md): the anchor check knows only the memories
this clone verified. A team trial: Carol, with ``hn.prePush=block``, had only pulled (nothing
imported), force-pushed main one commit back, and took the anchor of Alice's published decision
off origin unsaid. Real repositories, a real bare remote, real pushes with the hooks installed."""

from __future__ import annotations

import os
import subprocess

from helpers import commit_on, git, git_processes, hn, shared_remote, wait_publication


def _alice_published_carol_pulled(tmp_path, mode: str = "block"):
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    commit_on(alice, None, "a.txt")
    git(alice, "push", "-q", "origin", "main")
    git(carol, "pull", "-q")
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "Alice's decision")
    assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", mode)
    git(carol, "pull", "-q")  # (no branch moved: nothing imported)
    git(carol, "reset", "-q", "--hard", "HEAD~1")
    return remote, alice, carol, r.json()


def _push(repo, *args, env=None):
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    wait_publication(repo)
    return proc


def test_block_refuses_a_force_push_while_the_remote_has_memory_not_imported(tmp_path):
    remote, alice, carol, mem = _alice_published_carol_pulled(tmp_path)
    before = git(remote, "for-each-ref")
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode != 0
    line = [x for x in pushed.stderr.splitlines() if "not imported" in x]
    assert len(line) == 1, pushed.stderr
    assert line[0].startswith("git-hn: origin has 1 memory stream with memories this clone has not imported "
                              "(first: sha256:")
    assert "run git hn sync origin first, then push again; only if it goes on purpose: git -c hn.prePush=warn push" \
        in line[0]
    assert git(remote, "for-each-ref") == before
    # after a sync, the anchor check knows Alice's memory: the push is refused for what it strands
    assert hn(carol, "sync").code == 0
    again = _push(carol, "-f", "origin", "main")
    assert again.returncode != 0 and "not imported" not in again.stderr, again.stderr
    assert f"memory {mem['memoryId'][7:19]}" in again.stderr
    assert git(remote, "for-each-ref") == before


def test_after_a_sync_a_force_push_that_strands_nothing_goes(tmp_path):
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    commit_on(alice, None, "a.txt")
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD~1", "--applies", "descendants", "--content", "old").code == 0
    assert hn(alice, "sync").code == 0
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", "block")
    git(carol, "pull", "-q")
    git(carol, "reset", "-q", "--hard", "HEAD~1")
    assert "not imported" in _push(carol, "-f", "origin", "main").stderr
    assert hn(carol, "sync").code == 0
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_warn_says_it_and_the_push_goes_on(tmp_path):
    remote, _alice, carol, _mem = _alice_published_carol_pulled(tmp_path, "warn")
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    line = [x for x in pushed.stderr.splitlines() if "not imported" in x]
    assert line == [x for x in line if x.startswith("git-hn: warning: origin has 1 memory stream")] and len(line) == 1, \
        pushed.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_a_stream_imported_before_its_latest_memories_is_not_said_never_imported(tmp_path):
    """A newcomer trial (f142): Bob had imported Alice's stream, she recorded and published more,
    and his push deleting a branch warned "origin has 1 memory stream with memories this clone has not imported":
    he had, all but its latest memories. The line says the stream has memories not imported here,
    which holds for a stream never imported too."""
    remote, alice, carol, _mem = _alice_published_carol_pulled(tmp_path, "warn")
    assert hn(carol, "sync").code == 0  # (Alice's stream, imported)
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's later decision").code == 0
    assert hn(alice, "sync").code == 0
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    line = [x for x in pushed.stderr.splitlines() if "not imported" in x]
    assert len(line) == 1 and line[0].startswith(
        "git-hn: warning: origin has 1 memory stream with memories this clone has not imported (first: sha256:"), \
        pushed.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_a_fast_forward_push_asks_the_remote_nothing_more(tmp_path):
    _remote, _alice, carol, _mem = _alice_published_carol_pulled(tmp_path)
    git(carol, "pull", "-q", "--ff-only", "origin", "main")
    commit_on(carol, None, "c.txt")
    trace = tmp_path / "trace"
    trace.mkdir()
    pushed = _push(carol, "origin", "main", env={"GIT_TRACE2_EVENT": str(trace)})
    assert pushed.returncode == 0, pushed.stderr
    assert not [a for a in git_processes(trace) if a and a[0] in ("ls-remote", "upload-pack")], git_processes(trace)
    # (whether the remote's old tip is here is asked of the object reader already open: no process more)
    assert len([a for a in git_processes(trace) if a and a[0] == "cat-file"]) == 1, git_processes(trace)


def test_a_hook_reads_the_state_an_in_process_sync_wrote_after_the_code_files_changed(tmp_path, monkeypatch):
    """The harness (``helpers.hn``, git-hn in-process): the verifying code's identity
    (``statedb.checker``, its files' sizes and times) was computed once for the whole session, so
    after one of those files changed during a run (an edit, a checkout, a reinstall), the state an
    in-process sync wrote was another installation's to the pre-push hook, a process of its own,
    which then said that memory just synced was not imported: the three tests here and in
    test_unimported_selection.py that sync and push failed together once, and passed again
    alone. Each in-process command now identifies the code as a new process does. The stale
    identity is set here, not made by touching the package's files (that would fail every
    session running beside this one)."""
    import helpers
    from git_hn.store import statedb

    remote, _alice, carol, mem = _alice_published_carol_pulled(tmp_path)
    before = git(remote, "for-each-ref")
    stale = f"{'0' * 64}/{'0' * 16}"  # (the files' identity when the session first asked)
    monkeypatch.setattr(helpers, "_CHECKERS", {stale}, raising=False)
    monkeypatch.setattr(statedb, "_checker", stale)
    assert hn(carol, "sync").code == 0
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode != 0 and "not imported" not in pushed.stderr, pushed.stderr
    assert f"memory {mem['memoryId'][7:19]}" in pushed.stderr  # (refused for the anchor it strands)
    assert git(remote, "for-each-ref") == before
    assert statedb._checker != stale
