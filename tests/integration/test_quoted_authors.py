"""Author text a line shows beside an ID (a signed name, a commit's subject) is quoted one way
(``hints.quoted_text``): its own quotes and backslashes escaped, invisible characters spelled. A
review (S73): where it was still hand-quoted raw, a display name ``Bob" (000000000000) and "Eve``
posed as a second author with a fake actor ID (*name spoofing*). Each test drives one call site
on real repositories, a real bare remote and real pushes; nothing is mocked.
"""

from __future__ import annotations

import subprocess

from helpers import actor_of, git, hn, shared_remote, wait_publication

SPOOF = 'Bob" (000000000000) and "Eve'
QUOTED = '"Bob\\" (000000000000) and \\"Eve"'  # (as quoted_text shows it)


def _anchored_on_a_branch(tmp_path):
    """Alice and Bob (signing as ``SPOOF``) sharing a remote; Bob's memory anchored on the tip of
    his pushed branch ``feat``, published: (remote, alice, bob, that commit, the memory's ID)."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", SPOOF)
    git(b, "checkout", "-q", "-b", "feat")
    (b / "g.txt").write_text("feat\n")
    git(b, "add", "g.txt")
    git(b, "commit", "-q", "-m", "feat")
    git(b, "push", "-q", "origin", "feat")
    r = hn(b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "x")
    assert r.code == 0, r.err
    assert hn(b, "sync", "origin").code == 0
    return remote, a, b, git(b, "rev-parse", "HEAD"), r.json()["memoryId"]


def test_a_sync_line_quotes_the_anchor_owners_name(tmp_path):
    """``… and memory M of "NAME" (actor) is anchored on it``: the name's own quotes escaped."""
    _remote, a, b, _commit, mid = _anchored_on_a_branch(tmp_path)
    git(b, "push", "-q", "origin", "--delete", "feat")
    assert hn(a, "replication", "select", "--all").code == 0
    r = hn(a, "sync", "origin")
    assert r.code == 1
    assert f"memory {mid[7:19]} of {QUOTED} ({actor_of(b)[:12]}) is anchored on it" in r.err + r.out, r.err


def test_the_pre_push_warning_quotes_the_anchor_owners_name(tmp_path):
    """``this push takes commit C off origin, and memory M of "NAME" (actor) …``."""
    _remote, _a, b, commit, mid = _anchored_on_a_branch(tmp_path)
    assert hn(b, "hooks", "install").code == 0
    deleted = subprocess.run(["git", "push", "-q", "origin", "--delete", "feat"], cwd=b, capture_output=True,
                             text=True)
    wait_publication(b)
    assert deleted.returncode == 0, deleted.stderr
    assert (f"this push takes commit {commit[:12]} off origin, and memory {mid[7:19]} of {QUOTED} "
            f"({actor_of(b)[:12]}) is anchored on it") in deleted.stderr, deleted.stderr


def test_trusting_a_key_again_quotes_the_revoking_commits_subject(tmp_path):
    """``policy trust``'s warning: ``untrusted in C "Revert \\"trust mallory\\""`` (``git revert``'s
    subject ended the quoted text early)."""
    _remote, (a, b) = shared_remote(tmp_path, "Alice", "Mallory")
    mallory = actor_of(b)
    assert hn(a, "policy", "init").code == 0
    git(a, "add", ".hn/policy.json")
    git(a, "commit", "-q", "-m", "policy")
    assert hn(a, "policy", "trust", mallory).code == 0
    git(a, "commit", "-q", "-am", "trust mallory")
    git(a, "revert", "--no-edit", "HEAD")
    revert = git(a, "rev-parse", "HEAD")
    r = hn(a, "policy", "trust", mallory)
    assert r.code == 0, r.err
    assert (f"git-hn: warning: {mallory[:12]} was untrusted in {revert[:12]} \"Revert \\\"trust mallory\\\"\": "
            "trusting it again undoes that\n") in r.err, r.err
