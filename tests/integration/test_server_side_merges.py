"""Anchors a branch squash-merged or deleted on the server takes off it (git-hn extension,
docs/decisions.md, ``replication/atrisk.py``): the author's clone pushed nothing that took them
off, yet every importer of the stream stops there. The author's next sync (and push) says so,
from the remote's own list of branches, only while an anchor published on a side branch is
remembered. Real repositories, a real bare remote, real pushes with the hooks installed."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import commit_on, git, hn, shared_remote, wait_publication


def _record(repo, content) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _at_risk_files(repo) -> list[Path]:
    directory = Path(repo) / ".git" / "hn" / "replication"
    return [p for p in directory.iterdir() if p.name.startswith("atrisk-") and "." not in p.name] \
        if directory.is_dir() else []


def _published_on_feature(tmp_path):
    """Bob (hooks installed) records at a commit of branch feature and pushes the branch: the
    memory is published. (remote, bob, carol, the commit, the memory)"""
    remote, (bob, carol) = shared_remote(tmp_path, "Bob", "Carol")
    assert hn(bob, "hooks", "install").code == 0
    f1 = commit_on(bob, "feature", "f1.txt")
    mem = _record(bob, "decided on the feature branch")
    pushed = subprocess.run(["git", "push", "-q", "-u", "origin", "feature"], cwd=bob, capture_output=True,
                            text=True)
    wait_publication(bob)
    assert pushed.returncode == 0, pushed.stderr
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(bob, "rev-parse", ref)
    assert _at_risk_files(bob)  # (published while only feature held its anchor)
    return remote, bob, carol, f1, mem


def _merged_on_the_server(tmp_path, remote, *how: str) -> None:
    """What a hosting UI does: merge feature into main (``how``: merge's options), then delete it."""
    server = tmp_path / "server-side"
    git(tmp_path, "clone", "-q", str(remote), str(server))
    git(server, "config", "user.name", "Host")
    git(server, "config", "user.email", "host@example.invalid")
    git(server, "merge", "-q", *how, "origin/feature", *(["-m", "Merge feature"] if "--squash" not in how else []))
    if "--squash" in how:
        git(server, "commit", "-q", "-m", "Feature (squashed)")
    git(server, "push", "-q", "origin", "main")
    git(server, "push", "-q", "origin", "--delete", "feature")


def test_a_squash_merge_and_deleted_branch_on_the_server_is_said_until_the_anchor_is_back(tmp_path):
    """A team trial: the squash-merge on the server took Bob's anchor off every branch; each
    teammate's import stopped there for good while Bob's sync said "Synchronized"."""
    remote, bob, carol, f1, mem = _published_on_feature(tmp_path)
    _merged_on_the_server(tmp_path, remote, "--squash")
    assert hn(carol, "replication", "select", "--all").code == 0
    stopped = hn(carol, "sync", "--json")
    assert stopped.code == 1 and "anchor-commit" in stopped.out
    advice = f"git push origin {f1}:refs/heads/hn-anchor/{f1[:12]}"
    reminder = (f"commit {f1[:12]}, which memory {mem['memoryId'][7:19]} is anchored on, is no longer on any branch of origin "
                "(a force-push, or a branch deleted or squash-merged there): whoever imports its stream from origin "
                f"stops there; a clone that has it puts it back with {advice}; only if it was taken off on purpose (a "
                f"secret), git hn replication forget-anchors origin {f1[:12]} ends this reminder, and importers "
                "still stop at the memory")
    synced = hn(bob, "sync")
    assert synced.code == 0, synced.err
    assert f"Anchors of origin: {reminder}" in synced.out.splitlines(), synced.out
    # said again at the next sync, and at a push to origin
    assert f"Anchors of origin: {reminder}" in hn(bob, "sync").out.splitlines()
    git(bob, "checkout", "-q", "main")
    git(bob, "pull", "-q", "origin", "main")
    commit_on(bob, None, "later.txt")
    later = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=bob, capture_output=True, text=True)
    wait_publication(bob)
    assert later.returncode == 0 and f"git-hn: {reminder}\n" in later.stderr, later.stderr
    # the command ends it (its own push does not say it: it sends the commit), and Carol imports
    kept = subprocess.run(["git", *advice.split()[1:]], cwd=bob, capture_output=True, text=True)
    assert kept.returncode == 0 and reminder not in kept.stderr, kept.stderr
    assert "Anchors of origin" not in hn(bob, "sync").out
    assert not _at_risk_files(bob)
    doc = hn(carol, "sync", "--json")
    assert doc.code == 0, doc.out
    assert hn(carol, "memory", "show", mem["memoryId"], "--json").json()["projection"]["anchor"]["commit"] == f1


def test_a_merged_then_deleted_branch_says_nothing_and_forgets_the_anchor(tmp_path):
    remote, bob, _carol, _f1, _mem = _published_on_feature(tmp_path)
    _merged_on_the_server(tmp_path, remote, "--no-ff")
    synced = hn(bob, "sync")
    assert synced.code == 0 and "Anchors of origin" not in synced.out, synced.out
    assert not _at_risk_files(bob)


def test_a_branch_still_on_the_server_stays_at_risk_and_is_not_said(tmp_path):
    _remote, bob, _carol, _f1, _mem = _published_on_feature(tmp_path)
    synced = hn(bob, "sync")
    assert synced.code == 0 and "Anchors of origin" not in synced.out, synced.out
    assert _at_risk_files(bob)


def _git_processes(repo, *args) -> list[list[str]]:
    """The argv of every Git process ``git hn <args>`` starts (GIT_TRACE2_EVENT), and its exit."""
    trace = Path(repo).parent / f"trace-{time.monotonic_ns()}.json"
    proc = subprocess.run([sys.executable, "-m", "git_hn", *args], cwd=repo, capture_output=True, text=True,
                          env={**__import__("os").environ, "GIT_TRACE2_EVENT": str(trace)})
    assert proc.returncode == 0, proc.stderr
    out = []
    for line in trace.read_text().splitlines() if trace.exists() else []:
        event = json.loads(line)
        if event.get("event") == "start":
            out.append(event["argv"][1:])
    return out


def test_a_sync_with_nothing_at_risk_asks_the_remote_nothing_more(tmp_path):
    """The cost grows with open work, never with history: no anchor published off the default
    branch, no listing of the remote's branches, nor any other Git process for it."""
    _remote, (bob,) = shared_remote(tmp_path, "Bob")
    commit_on(bob, None, "m1.txt")
    _record(bob, "decided on main")
    git(bob, "push", "-q", "origin", "main")
    assert hn(bob, "sync").code == 0  # published, on the default branch: nothing at risk
    assert not _at_risk_files(bob)
    started = _git_processes(bob, "sync")
    assert not [argv for argv in started if "ls-remote" in argv and "--heads" in argv], started
    assert not [argv for argv in started if "refs/remotes/origin/HEAD" in argv], started
    # with one at risk, the sync asks the remote for its branches (the contrast)
    commit_on(bob, "feature", "f1.txt")
    _record(bob, "on a side branch")
    git(bob, "push", "-q", "origin", "feature")
    assert hn(bob, "sync").code == 0 and _at_risk_files(bob)
    started = _git_processes(bob, "sync")
    assert [argv for argv in started if "ls-remote" in argv and "--heads" in argv], started


@pytest.mark.parametrize("answer", ["never", "refused"])
def test_a_remote_that_does_not_answer_the_listing_leaves_the_sync_as_it_was(tmp_path, monkeypatch, answer):
    """The listing of the remote's branches goes to a remote that accepts and never answers (or
    refuses it), the rest of the sync to the real one: the sync waits its stall timeout at most,
    succeeds and says nothing wrong; nothing is claimed lost, nothing forgotten."""
    from git_hn.store.git import Git

    remote, bob, _carol, _f1, _mem = _published_on_feature(tmp_path)
    _merged_on_the_server(tmp_path, remote, "--squash")
    before = [p.read_bytes() for p in _at_risk_files(bob)]
    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(8)  # accepts, never answers
    elsewhere = f"git://127.0.0.1:{hole.getsockname()[1]}/r.git" if answer == "never" else str(tmp_path / "none")
    real_run, asked = Git.run, []

    def listing_elsewhere(self, args, **kwargs):
        if "ls-remote" in args and "--heads" in args:
            asked.append(args)
            args = [elsewhere if a == str(remote) else a for a in args]
        return real_run(self, args, **kwargs)

    monkeypatch.setattr(Git, "run", listing_elsewhere)
    git(bob, "config", "hn.syncStallTimeout", "2")
    try:
        start = time.monotonic()
        r = hn(bob, "sync")
        assert time.monotonic() - start < 30
    finally:
        hole.close()
    assert asked
    assert r.code == 0, r.err
    assert "Anchors of origin" not in r.out and "Synchronized with origin" in r.out, r.out
    assert [p.read_bytes() for p in _at_risk_files(bob)] == before


def _push_asks_branches(repo, *push) -> bool:
    """Whether ``git push <push>`` (hooks installed) lists the remote's branches (GIT_TRACE2_EVENT)."""
    import os

    trace = Path(repo).parent / f"push-trace-{time.monotonic_ns()}.json"
    proc = subprocess.run(["git", "push", "-q", *push], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in trace.read_text().splitlines()] if trace.exists() else []
    return any(e.get("event") == "start" and "ls-remote" in e["argv"] and "--heads" in e["argv"] for e in events)


def test_a_push_asks_for_the_branches_at_most_once_an_hour_while_nothing_is_gone(tmp_path):
    """A review: a feature branch open for weeks made every push wait for a listing of the
    remote's branches. A push asks only when the last answer is an hour old (a sync always asks),
    or while an anchor is gone (said at every push until it is back)."""
    _remote, bob, _carol, _f1, _mem = _published_on_feature(tmp_path)
    assert hn(bob, "sync").code == 0  # asked now
    commit_on(bob, None, "f2.txt")
    assert not _push_asks_branches(bob, "origin", "feature")
    stamp = next(p for p in (Path(bob) / ".git" / "hn" / "replication").iterdir() if p.name.endswith(".checked"))
    old = time.time() - 2 * 3600
    import os

    os.utime(stamp, (old, old))
    commit_on(bob, None, "f3.txt")
    assert _push_asks_branches(bob, "origin", "feature")


def test_a_remote_with_a_push_url_of_its_own_is_asked_where_it_was_published(tmp_path):
    """A review: with remote.origin.pushurl naming a fork, the memory and its feature branch went
    to the fork, but the branches were asked of the fetch URL, where the branch never was: the
    sync said the anchor was gone, and the command it gave could not end it."""
    remote, (bob, _carol) = shared_remote(tmp_path, "Bob", "Carol")
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(remote), str(fork))
    git(bob, "config", "remote.origin.pushurl", str(fork))
    git(bob, "fetch", "-q", "origin")
    git(bob, "remote", "set-head", "origin", "main")
    assert hn(bob, "hooks", "install").code == 0
    commit_on(bob, "feature", "f1.txt")
    _record(bob, "decided on the feature branch")
    pushed = subprocess.run(["git", "push", "-q", "-u", "origin", "feature"], cwd=bob, capture_output=True, text=True)
    wait_publication(bob)
    assert pushed.returncode == 0, pushed.stderr
    assert _at_risk_files(bob)
    synced = hn(bob, "sync")
    assert synced.code == 0 and "Anchors of origin" not in synced.out, synced.out


def test_a_dry_run_push_of_the_anchor_does_not_end_the_reminder(tmp_path):
    """A review: a ``--dry-run`` (or rejected) push of the anchor counted as a branch holding it,
    and the saved answer silenced every push for an hour: only that push's line is hidden."""
    remote, bob, _carol, f1, _mem = _published_on_feature(tmp_path)
    _merged_on_the_server(tmp_path, remote, "--squash")
    assert "Anchors of origin" in hn(bob, "sync").out
    git(bob, "checkout", "-q", "main")
    git(bob, "pull", "-q", "origin", "main")
    dry = subprocess.run(["git", "push", "--dry-run", "origin", f"{f1}:refs/heads/hn-anchor/{f1[:12]}"], cwd=bob,
                         capture_output=True, text=True)
    assert dry.returncode == 0 and "no longer on any branch" not in dry.stderr, dry.stderr
    commit_on(bob, None, "later.txt")
    later = subprocess.run(["git", "push", "origin", "main"], cwd=bob, capture_output=True, text=True)
    wait_publication(bob)
    assert later.returncode == 0 and "no longer on any branch" in later.stderr, later.stderr


def test_the_command_pushes_only_the_commits_this_clone_has(tmp_path):
    """A review: two branches squash-merged and deleted on the server, then one of them deleted
    here and garbage-collected: the one command named both, and failed whole (``bad object``),
    so the commit this clone could put back was not put back either."""
    remote, bob, _carol, f1, mem = _published_on_feature(tmp_path)
    git(bob, "checkout", "-q", "main")
    f2 = commit_on(bob, "feature2", "f2.txt")
    _record(bob, "second")
    pushed = subprocess.run(["git", "push", "-q", "-u", "origin", "feature2"], cwd=bob, capture_output=True, text=True)
    wait_publication(bob)
    assert pushed.returncode == 0, pushed.stderr
    server = tmp_path / "server-side"
    git(tmp_path, "clone", "-q", str(remote), str(server))
    for branch in ("feature", "feature2"):
        git(server, "merge", "-q", "--squash", f"origin/{branch}")
        git(server, "commit", "-q", "-m", f"{branch} squashed")
        git(server, "push", "-q", "origin", "main")
        git(server, "push", "-q", "origin", "--delete", branch)
    git(bob, "checkout", "-q", "main")
    git(bob, "branch", "-q", "-D", "feature")
    git(bob, "fetch", "-q", "--prune", "origin")
    git(bob, "reflog", "expire", "--expire=now", "--all")
    git(bob, "gc", "-q", "--prune=now")
    assert subprocess.run(["git", "cat-file", "-e", f1], cwd=bob).returncode != 0
    out = hn(bob, "sync").out
    line = next(x for x in out.splitlines() if x.startswith("Anchors of origin"))
    assert line.endswith(f"git push origin {f2}:refs/heads/hn-anchor/{f2[:12]}; 1 of them is not in this clone "
                         f"(first: {f1[:12]}): git fetch origin {f1} brings it if origin still has it, or a clone that has it "
                         "pushes it alike; only if they were taken off on purpose "
                         "(a secret), git hn replication forget-anchors origin COMMIT... ends the reminder (with no "
                         "COMMIT, for all of them), and importers still stop at those memories"), line
    assert subprocess.run(["git", "push", "-q", "origin", f"{f2}:refs/heads/hn-anchor/{f2[:12]}"], cwd=bob).returncode == 0
    # the commit gone from this clone, whose memory Bob decides need not be importable: forgotten
    # by the reminder's own 12 digits, matched against the record (the repository has no f1)
    line = next(x for x in hn(bob, "sync").out.splitlines() if x.startswith("Anchors of origin"))
    assert line.endswith(f"git hn replication forget-anchors origin {f1[:12]} ends this reminder, and importers "
                         "still stop at the memory"), line
    forgot = hn(bob, "replication", "forget-anchors", "origin", f1[:12])
    assert (forgot.code, forgot.out) == (0, f"Forgot {f1} (memory {mem['memoryId'][7:19]}; not in this clone)\n")
    assert "Anchors of origin" not in hn(bob, "sync").out
    assert not _at_risk_files(bob)


def test_a_push_that_puts_the_anchor_back_on_an_ordinary_branch_does_not_remind_of_it(tmp_path):
    """A review: ``git push origin C:refs/heads/feature-restored`` put the anchor back on a branch,
    and that same push still said it "is no longer on any branch of origin ... put it back": the
    reminder looked at the remote as it was before the push. What the push puts on a branch (its
    new tips, and what they reach) is left out; the next push says nothing either."""
    remote, bob, _carol, f1, _mem = _published_on_feature(tmp_path)
    _merged_on_the_server(tmp_path, remote, "--squash")
    assert "Anchors of origin" in hn(bob, "sync").out
    git(bob, "checkout", "-q", "main")
    git(bob, "pull", "-q", "origin", "main")
    git(bob, "checkout", "-q", "-b", "child", f1)
    child = commit_on(bob, None, "child.txt")  # (a descendant of the anchor: a branch there holds it too)
    git(bob, "checkout", "-q", "main")
    for spec in (f"{f1}:refs/heads/feature-restored", f"{child}:refs/heads/feature-child"):
        kept = subprocess.run(["git", "push", "origin", spec], cwd=bob, capture_output=True, text=True)
        wait_publication(bob)
        assert kept.returncode == 0 and "no longer on any branch" not in kept.stderr, (spec, kept.stderr)
        git(remote, "branch", "-D", spec.rsplit("/", 1)[1])  # (taken off again for the next round)
        assert "Anchors of origin" in hn(bob, "sync").out
    git(bob, "checkout", "-q", "main")
    commit_on(bob, None, "later.txt")
    later = subprocess.run(["git", "push", "origin", "main"], cwd=bob, capture_output=True, text=True)
    wait_publication(bob)
    assert later.returncode == 0 and "no longer on any branch" in later.stderr, later.stderr
