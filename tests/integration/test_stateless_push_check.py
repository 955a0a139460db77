"""The pre-push hook's anchor check in a clone with no verified state (F140, docs/decisions.md):
never built here, discarded as damaged, or written by another git-hn (which discards it). The
check read the state as last verified, found none, answered that no memory is anchored on what
the push takes off, and with ``hn.prePush=block`` a force-push took a teammate's published
anchor off the remote unsaid. Now the check brings the state up to date itself
(``check_state.built``), and when it cannot, says the check could not be done (``block``
refuses). Real repositories, a real bare remote, real pushes with the hooks installed; the state
removed as the notice tests remove it (its file and seal)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from helpers import actor_of, commit_on, git, hn, read_only, shared_remote, wait_publication

UNDONE = "this push takes commits off origin, and git-hn cannot check whether memories are anchored on them: "
BUILDING = "building it once to check what this push takes off"


def _state(repo) -> Path:
    return Path(repo) / ".git" / "hn" / "memory" / "state-v0.sqlite"


def _drop_state(repo) -> None:
    """The verified state gone (its file and seal), as if never built here."""
    for name in ("state-v0.sqlite", "state-v0.seal"):
        (Path(repo) / ".git" / "hn" / "memory" / name).unlink()


def _push(repo, *args):
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True,
                          env={**os.environ})
    wait_publication(repo)
    return proc


def _bobs_anchor_in_alices_clone(tmp_path, mode: str):
    """Bob publishes a memory on his pushed branch ``bobs``; Alice (hooks installed,
    ``hn.prePush=MODE``) selects all, fetches and syncs it, checks the branch out and resets it
    one commit back: a force-push of it takes Bob's anchor off origin. (remote, alice, bob, the
    anchor commit, the memory ID)."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(a, "hooks", "install").code == 0
    assert hn(b, "hooks", "install").code == 0
    git(b, "checkout", "-q", "-b", "bobs")
    c = commit_on(b, None, "bobs.txt")
    r = hn(b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "Bob's, on his branch")
    assert r.code == 0, r.err
    assert _push(b, "origin", "bobs").returncode == 0
    git(a, "config", "hn.prePush", mode)
    assert hn(a, "replication", "select", "--all").code == 0
    git(a, "fetch", "-q", "origin")
    assert hn(a, "sync").code == 0
    git(a, "checkout", "-q", "-b", "bobs", "origin/bobs")
    git(a, "reset", "-q", "--hard", "HEAD~1")
    assert _state(a).is_file()
    return remote, a, b, c, r.json()["memoryId"]


def _anchor_lines(err: str) -> list[str]:
    return [x for x in err.splitlines() if "is anchored on it" in x]


def test_block_refuses_without_a_state_as_with_one_and_builds_it(tmp_path):
    """(a) On the code before F140 the push without a state went through unsaid."""
    remote, a, b, c, mid = _bobs_anchor_in_alices_clone(tmp_path, "block")
    before = git(remote, "for-each-ref")
    with_state = _push(a, "-f", "origin", "bobs")
    assert with_state.returncode != 0
    expected = _anchor_lines(with_state.stderr)
    assert len(expected) == 1 and expected[0].startswith(
        f"git-hn: this push takes commit {c[:12]} off origin, and memory {mid[7:19]} of {actor_of(b)[:12]} "
        f"(\"Bob\", a self-chosen name) is anchored on it"), with_state.stderr
    _drop_state(a)
    without = _push(a, "-f", "origin", "bobs")
    assert without.returncode != 0
    assert _anchor_lines(without.stderr) == expected, without.stderr
    assert BUILDING not in without.stderr  # (a few memories: built without a word)
    assert git(remote, "for-each-ref") == before
    assert _state(a).is_file()  # (brought up to date by the check, and kept)


def test_warn_says_the_anchor_without_a_state_and_pushes(tmp_path):
    """(a) ``warn``: the same memory named, the push goes on, the state is there after. On the
    code before F140 nothing was said."""
    remote, a, b, c, mid = _bobs_anchor_in_alices_clone(tmp_path, "warn")
    _drop_state(a)
    pushed = _push(a, "-f", "origin", "bobs")
    assert pushed.returncode == 0, pushed.stderr
    lines = _anchor_lines(pushed.stderr)
    assert len(lines) == 1 and lines[0].startswith(
        f"git-hn: this push takes commit {c[:12]} off origin, and memory {mid[7:19]} of {actor_of(b)[:12]} "
        f"(\"Bob\", a self-chosen name) is anchored on it: whoever imports its stream from origin stops there "
        f"until the commit is back; to keep it there, also git push origin "), pushed.stderr
    assert git(remote, "rev-parse", "bobs") == git(a, "rev-parse", "HEAD")
    assert _state(a).is_file()


def test_a_state_that_cannot_be_built_leaves_the_check_undone_and_said(tmp_path):
    """(b) No state, and its directory read-only: ``block`` refuses with one line saying why the
    check could not be done and what to do, and changes nothing; ``warn`` says it as a warning
    and pushes. On the code before F140 both pushes went on unsaid."""
    remote, a, _b, _c, _mid = _bobs_anchor_in_alices_clone(tmp_path, "block")
    _drop_state(a)
    hn_dir = str(Path(a).resolve() / ".git" / "hn")
    before, refs = git(remote, "for-each-ref"), git(a, "for-each-ref")
    why = f"this clone has no memory state, and it cannot be built here: {hn_dir} cannot be written"
    way = f"make it writable (chmod -R u+w {hn_dir})"
    with read_only(Path(a) / ".git" / "hn" / "memory"):
        refused = _push(a, "-f", "origin", "bobs")
    assert refused.returncode != 0
    said = [x for x in refused.stderr.splitlines() if UNDONE in x]
    assert len(said) == 1 and said[0].startswith(
        f"git-hn: {UNDONE}{why}; {way}, then push again; only if it goes on purpose (a secret): git -c hn.prePush=warn "
        f"push"), refused.stderr
    assert not _anchor_lines(refused.stderr) and "Traceback" not in refused.stderr, refused.stderr
    assert git(remote, "for-each-ref") == before and git(a, "for-each-ref") == refs
    assert not _state(a).exists()
    git(a, "config", "hn.prePush", "warn")
    records = _tracking_records(a)
    with read_only(Path(a) / ".git" / "hn" / "memory"):
        warned = _push(a, "-f", "origin", "bobs")
    assert warned.returncode == 0, warned.stderr
    assert [x for x in warned.stderr.splitlines() if UNDONE in x] == [
        f"git-hn: warning: {UNDONE}{why}; to have such a push checked, {way}, then push"], warned.stderr
    assert git(remote, "rev-parse", "bobs") == git(a, "rev-parse", "HEAD")
    # what the push took off went unchecked: the tracking refs' record keeps the tips it saw
    # before, so the next check walks what the push took off (as after a busy state's push)
    assert _tracking_records(a) == records


def _tracking_records(repo) -> dict[str, bytes]:
    """The tracking refs' records (``tracked``: the remote tips a check last saw), by name."""
    return {p.name: p.read_bytes() for p in (Path(repo) / ".git" / "hn" / "replication").glob("tracked-*")}


def test_a_push_that_takes_nothing_off_builds_no_state(tmp_path):
    """(c) The cheap path: a push that takes no commit off asks nothing of the state, and a
    clone without one is left without one (a guard: it holds before F140 too)."""
    remote, a, _b, _c, _mid = _bobs_anchor_in_alices_clone(tmp_path, "block")
    git(a, "checkout", "-q", "main")
    commit_on(a, None, "more.txt")
    _drop_state(a)
    pushed = _push(a, "origin", "main")
    assert pushed.returncode == 0 and UNDONE not in pushed.stderr, pushed.stderr
    assert git(remote, "rev-parse", "main") == git(a, "rev-parse", "HEAD")
    assert not _state(a).exists()


def test_a_long_build_is_said_once_before_the_answer(tmp_path, monkeypatch, capsys):
    """A build that verifies ``progress.NOTICE_FROM`` memory commits or more says so first, once,
    on a stderr that is no terminal (lowered here to 1: in process, the hook's own function on
    the hook's input for a deletion of ``bobs``); the answer is the one the state gives."""
    from git_hn.service.push_removals import removing_anchors
    from git_hn.store import progress
    from git_hn.store.repo import open_repo

    _remote, a, _b, c, mid = _bobs_anchor_in_alices_clone(tmp_path, "block")
    data = f"(delete) {'0' * 40} refs/heads/bobs {c}\n".encode()
    monkeypatch.chdir(a)
    with_state = removing_anchors(open_repo(str(a)), "origin", data, True)
    assert mid in [m for m, _c in with_state[1]]
    capsys.readouterr()
    _drop_state(a)
    monkeypatch.setattr(progress, "NOTICE_FROM", 1)
    without = removing_anchors(open_repo(str(a)), "origin", data, True)
    assert without == with_state
    err = capsys.readouterr().err
    assert err.splitlines() == [f"git-hn: this clone has no memory state: {BUILDING} origin (verifying 1 memories)"], err
    again = removing_anchors(open_repo(str(a)), "origin", data, True)  # (the state is there now)
    assert again == with_state and capsys.readouterr().err == ""


def test_a_stream_that_does_not_verify_leaves_the_check_undone_and_said(tmp_path):
    """(b) No state, and an accepted memory ref of this clone points at a commit that is no
    memory (the build fails on it): ``block`` refuses with the line saying the check could not be
    done, naming no ref, ID or text of the stream; the refs stay as they were."""
    remote, a, _b, _c, _mid = _bobs_anchor_in_alices_clone(tmp_path, "block")
    accepted = git(a, "for-each-ref", "--format=%(refname)", "refs/hn/remotes/origin/memory/")
    git(a, "update-ref", accepted, git(a, "rev-parse", "main"))
    _drop_state(a)
    before, refs = git(remote, "for-each-ref"), git(a, "for-each-ref")
    refused = _push(a, "-f", "origin", "bobs")
    assert refused.returncode != 0
    said = [x for x in refused.stderr.splitlines() if UNDONE in x]
    assert len(said) == 1 and said[0].startswith(
        f"git-hn: {UNDONE}this clone has no memory state, and it cannot be built: a memory stream here does not "
        f"verify (git hn memory index rebuild says why); push again once it builds; only if it goes on purpose "
        f"(a secret): git -c hn.prePush=warn push"), refused.stderr
    assert accepted not in said[0] and "Traceback" not in refused.stderr, refused.stderr
    assert git(remote, "for-each-ref") == before and git(a, "for-each-ref") == refs
    assert not _state(a).exists()
