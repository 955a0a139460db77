"""A stream that fails only because a memory it needs is in another stream that failed (CONTRACT
§9.9 step 6): what sync and the fetch hook say of it. Real repositories, a real bare remote,
real ``git fetch`` through the installed hooks."""

from __future__ import annotations

import json
import subprocess

from helpers import actor_of, commit_on, git, hn, shared_remote


def _challenged_then_lost(tmp_path):
    """Alice publishes a memory anchored on her branch ``feat``; Bob challenges it from a stream
    whose ID sorts before Alice's (so that a listing in stream order names his first); the
    server then deletes ``feat``. Dave clones, installs the hooks and selects ``--all``:
    (remote, alice, dave, Alice's stream, Bob's dependent stream)."""
    remote, (a, b, d) = shared_remote(tmp_path, "Alice", "Bob", "Dave")
    commit_on(a, "feat", "feat.txt")
    mem = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
             "descendants", "--content", "on feat").json()
    git(a, "push", "-q", "origin", "feat")
    assert hn(a, "sync").code == 0
    git(b, "fetch", "-q", "origin")
    assert hn(b, "replication", "select", "--all").code == 0
    assert hn(b, "sync").code == 0
    for n in range(40):
        mine = hn(b, "memory", "challenge", "--json", mem["memoryId"], "--reason", "needs-benchmark",
                  "--stream", f"label:d{n}").json()
        if mine["stream"] < mem["stream"]:
            break
    assert mine["stream"] < mem["stream"]
    assert hn(b, "sync").code == 0
    git(remote, "branch", "-D", "feat")
    git(d, "fetch", "-q", "origin")
    assert hn(d, "hooks", "install").code == 0
    assert hn(d, "replication", "select", "--all").code == 0
    return remote, a, d, mem["stream"], mine["stream"], actor_of(a)


def test_a_stream_failing_by_anothers_names_that_one_and_no_exact_selection(tmp_path):
    """A team trial: with ``--all`` selected, Bob's challenge stream, failing only because
    Alice's stream stops at a memory whose anchor commit is gone, said "repair or replace exact
    selection sha256:…" (there is no exact selection), and sync's closing line named Bob's stream,
    the first in order, with that advice. Its line now names Alice's stream and actor and says
    that fixing that one imports this one too; the closing line names Alice's failure, the cause.
    ``--json`` keeps §9.9's text."""
    _remote, _a, d, alices, bobs, alice = _challenged_then_lost(tmp_path)
    r = hn(d, "sync")
    assert r.code == 1
    line = next(x for x in r.out.splitlines() if x.startswith(f"Replication memory {bobs}: failed"))
    assert "repair or replace exact selection" not in line, line
    assert line.endswith(f"; it fails only because stream {alices[7:19]} of actor {alice[:12]} (\"Alice\", a self-chosen name) failed: "
                         "fixing that stream imports this one too"), line
    assert "repair or replace exact selection" not in r.err, r.err
    assert "; the first cause of " in r.err and f" failures: memory {alices} failed (dependency-missing)" in r.err, r.err
    doc = json.loads(hn(d, "sync", "--json").out)
    bob = next(o for o in doc["outcomes"] if o["id"] == bobs)
    assert bob["recovery"].startswith("repair or replace exact selection ")


def test_the_fetch_hook_names_the_root_failure_not_a_sync_that_fails_alike(tmp_path):
    """The same trial's fetch hook: it named the first failing stream in order, Bob's, and
    advised ``run git hn sync origin``, which fails the same way. It names Alice's stream, whose
    fix it gives (a clone that has the commit puts it back)."""
    _remote, a, d, alices, _bobs, _alice = _challenged_then_lost(tmp_path)
    git(a, "checkout", "-q", "main")
    commit_on(a, None, "later.txt")
    git(a, "push", "-q", "origin", "main")
    proc = subprocess.run(["git", "fetch", "origin"], cwd=d, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    said = [x for x in proc.stderr.splitlines() if x.startswith("git-hn: ")]
    assert len(said) == 1, proc.stderr
    assert said[0].startswith(f"git-hn: memory import from origin failed: stream {alices[7:19]} of \"Alice\" stops at "), said
    assert "run git hn sync origin" not in said[0] and "can put it back: git push origin " in said[0], said
