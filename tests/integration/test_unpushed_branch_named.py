"""``git hn sync`` and the pre-push hook name the local branch that holds a waiting anchor, and the
push to run, as ``memory record``'s hint does (f176): they said "push a branch that contains it"
while record's hint said "branch side: git push origin side". The generic words stay for a commit
no local branch holds (a detached HEAD's); ``--json`` is unchanged. One ``name-rev`` for every
such line, none while nothing waits. Real repositories, real pushes to a bare remote; nothing is
mocked."""

from __future__ import annotations

import re
import subprocess

from helpers import commit_on, git, git_processes, hn, hn_proc, push_waited, shared_remote, wait_publication

GENERIC = "push a branch that contains it"


def _record(repo, content: str, *args):
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content, *args)
    assert r.code == 0, r.err
    return r


def _held(out: str) -> list[str]:
    return [x for x in out.splitlines() if "waits until commit" in x or "wait until commit" in x]


def _on_side(tmp_path, hooks: bool):
    """Alice records on a branch ``side`` she has not pushed, then goes back to main: (remote, alice,
    the anchor)."""
    tmp_path.mkdir()
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    if hooks:
        assert hn(alice, "hooks", "install").code == 0
    anchor = commit_on(alice, "side", "side.txt")
    _record(alice, "decided on the side branch")
    git(alice, "checkout", "-q", "main")
    return remote, alice, anchor


def test_sync_names_the_branch_that_holds_the_anchor_and_the_push_to_run(tmp_path):
    """With and without git-hn's hooks: the line gives ``git push origin side``, as record's hint
    does; run as written, it puts the anchor on the remote, and the memory is published (by the
    push's hook, or by the sync the line names after it). ``heldBack`` keeps its keys."""
    for hooks in (False, True):
        remote, alice, anchor = _on_side(tmp_path / str(hooks), hooks)
        doc = hn(alice, "sync", "origin", "--json")
        assert doc.code == 0, doc.err
        assert [list(h) for h in doc.json()["heldBack"]] == [["ref", "memoryId", "commit", "waiting", "discarded"]]
        synced = hn(alice, "sync", "origin")
        (line,) = _held(synced.out)
        assert line.endswith(f": 1 memory waits until commit {anchor[:12]} is on origin (branch side: git push origin "
                             "side; or git fetch origin if it is there already; then git hn sync origin)"), line
        assert GENERIC not in synced.out
        command = re.search(r"\(branch side: (git push [^;]*);", line).group(1)
        done = subprocess.run(["sh", "-c", command], cwd=alice, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        wait_publication(alice)
        assert git(remote, "rev-parse", "side") == anchor
        assert bool(git(remote, "for-each-ref", "refs/hn/memory/")) is hooks  # (no hook: the sync publishes)
        after = hn(alice, "sync", "origin")
        assert after.code == 0 and not _held(after.out), after.out
        assert git(remote, "for-each-ref", "refs/hn/memory/")


def test_the_pre_push_hook_names_the_branch_that_holds_the_anchor(tmp_path):
    """A push of main while the anchor is on an unpushed branch: the hook's line names that branch
    and its push, which, run as written, publishes the memory."""
    remote, alice, anchor = _on_side(tmp_path / "t", True)
    commit_on(alice, None, "more.txt")
    pushed = push_waited(alice, "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    (line,) = _held(pushed.stderr)
    assert line.endswith(f": 1 memory waits until commit {anchor[:12]} is on origin (branch side: git push origin "
                         "side; or git fetch origin if it is there already; then git hn sync origin)"), line
    command = re.search(r"\(branch side: (git push [^;]*);", line).group(1)
    done = subprocess.run(["sh", "-c", command], cwd=alice, capture_output=True, text=True)
    wait_publication(alice)
    assert done.returncode == 0 and not _held(done.stderr), done.stderr
    assert git(remote, "for-each-ref", "refs/hn/memory/")


def test_the_generic_words_stay_when_no_local_branch_holds_the_anchor(tmp_path):
    """Only a detached HEAD holds the commit: no branch to name, so the line is the old one."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "checkout", "-q", "--detach")
    anchor = commit_on(alice, None, "detached.txt")
    _record(alice, "decided on a detached HEAD")
    (line,) = _held(hn(alice, "sync", "origin").out)
    assert line.endswith(f": 1 memory waits until commit {anchor[:12]} is on origin ({GENERIC}, or git fetch "
                         "origin if one is there already; then git hn sync origin)"), line


def test_one_name_rev_for_every_waiting_line_and_none_while_nothing_waits(tmp_path):
    """Two streams wait for commits of two branches: one ``name-rev`` names both; once both are
    pushed, a sync starts none."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    anchors = {}
    for name in ("one", "two"):
        git(alice, "checkout", "-q", "main")
        anchors[name] = commit_on(alice, name, f"{name}.txt")
        _record(alice, f"on {name}", "--stream", f"label:{name}")
    git(alice, "checkout", "-q", "main")
    for waits in (True, False):
        trace = tmp_path / f"trace-{waits}"
        trace.mkdir()
        r = hn_proc(alice, "sync", "origin", env={"GIT_TRACE2_EVENT": str(trace)})
        assert r.code == 0, r.err_bytes
        held = _held(r.out_bytes.decode())
        runs = [argv[0] for argv in git_processes(trace)]
        assert runs.count("name-rev") == (1 if waits else 0), runs
        if waits:
            assert len(held) == 2, held
            for name, anchor in anchors.items():
                assert any(f"commit {anchor[:12]} is on origin (branch {name}: git push origin {name};" in x
                           for x in held), held
            git(alice, "push", "-q", "origin", "one", "two")
        else:
            assert not held


def _side_record(repo, content: str, env: dict | None = None):
    """A record at HEAD, in a subprocess (its Git processes traced when ``env`` says so)."""
    r = hn_proc(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                "--content", content, env=env)
    assert r.code == 0, r.err_bytes
    return [x for x in r.err.splitlines() if "waits until commit" in x]


def test_record_names_the_sync_after_the_push_where_no_hooks_run(tmp_path):
    """(f176, P3) Without git-hn's hooks, record's hint said only ``git push origin side``: done as
    said, no memory reached the remote. It names the sync after the push, and both, run as
    written, publish it. With the hooks (in the repository's own directory, or where an absolute
    ``core.hooksPath`` points) the words are as before. Either way the hint asks Git nothing about
    hooks: where they run is read from the configuration the hint reads anyway."""
    for hooks in ("none", "installed", "hooksPath"):
        tmp_path.joinpath(hooks).mkdir()
        remote, (alice,) = shared_remote(tmp_path / hooks, "Alice")
        if hooks == "hooksPath":
            git(alice, "config", "core.hooksPath", str(tmp_path / hooks / "hookdir"))
        if hooks != "none":
            assert hn(alice, "hooks", "install").code == 0
        commit_on(alice, "side", "side.txt")
        trace = tmp_path / hooks / "trace"
        trace.mkdir()
        (line,) = _side_record(alice, f"hooks {hooks}", env={"GIT_TRACE2_EVENT": str(trace)})
        assert not [a for a in git_processes(trace) if "--git-path" in a], git_processes(trace)
        if hooks != "none":
            assert "(branch side: git push origin side; or git fetch origin if it is there already)" in line, line
            continue
        assert ("(branch side: git push origin side, then git hn sync origin; or git fetch origin if it is there "
                "already, then the sync; this clone has no git-hn hooks (git hn hooks install adds them), so the push "
                "does not carry the memory)") in line, line
        commands = re.search(r"\(branch side: (git push [^,]*), then (git hn sync [^;]*);", line).groups()
        for command in commands:
            done = subprocess.run(["sh", "-c", command], cwd=alice, capture_output=True, text=True)
            assert done.returncode == 0, (command, done.stderr)
            assert bool(git(remote, "for-each-ref", "refs/hn/memory/")) is command.startswith("git hn")
