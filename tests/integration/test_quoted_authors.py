"""Author text a line shows beside an ID (a signed name, a commit's subject) is quoted one way
(``hints.quoted_text``): its own quotes and backslashes escaped, invisible characters spelled. A
review (S73): where it was still hand-quoted raw, a display name ``Bob" (000000000000) and "Eve``
posed as a second author with a fake actor ID (*name spoofing*). Each test drives one call site
on real repositories, a real bare remote and real pushes; nothing is mocked. The review found
the fetch hook's, the dependent failure's and the failed-imports hint's sites tested only through
the helper: reverted to raw quoting, every test passed; these drive each site.
"""

from __future__ import annotations

import subprocess

from helpers import actor_of, git, hn, shared_remote, wait_publication

SPOOF = 'Bob" (000000000000) and "Eve'
QUOTED = '"Bob\\" (000000000000) and \\"Eve"'  # (as quoted_text shows it)


def _anchored_on_a_branch(tmp_path, *others):
    """Alice and Bob (signing as ``SPOOF``) sharing a remote (and a clone for each of ``others``);
    Bob's memory anchored on the tip of his pushed branch ``feat``, published: (remote, alice,
    bob, that commit, the memory's ID, its stream)."""
    remote, (a, b, *_rest) = shared_remote(tmp_path, "Alice", SPOOF, *others)
    git(b, "checkout", "-q", "-b", "feat")
    (b / "g.txt").write_text("feat\n")
    git(b, "add", "g.txt")
    git(b, "commit", "-q", "-m", "feat")
    git(b, "push", "-q", "origin", "feat")
    r = hn(b, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "x")
    assert r.code == 0, r.err
    assert hn(b, "sync", "origin").code == 0
    return remote, a, b, git(b, "rev-parse", "HEAD"), r.json()["memoryId"], r.json()["stream"]


def test_a_sync_line_quotes_the_anchor_owners_name(tmp_path):
    """``… and memory M of ACTOR ("NAME", a self-chosen name) is anchored on it``: the name's own
    quotes escaped, after the ID."""
    _remote, a, b, _commit, mid, _stream = _anchored_on_a_branch(tmp_path)
    git(b, "push", "-q", "origin", "--delete", "feat")
    assert hn(a, "replication", "select", "--all").code == 0
    r = hn(a, "sync", "origin")
    assert r.code == 1
    assert f"memory {mid[7:19]} of {actor_of(b)[:12]} ({QUOTED}, a self-chosen name) is anchored on it" \
        in r.err + r.out, r.err


def test_the_pre_push_warning_quotes_the_anchor_owners_name(tmp_path):
    """``this push takes commit C off origin, and memory M of ACTOR ("NAME", a self-chosen name) …``."""
    _remote, _a, b, commit, mid, _stream = _anchored_on_a_branch(tmp_path)
    assert hn(b, "hooks", "install").code == 0
    deleted = subprocess.run(["git", "push", "-q", "origin", "--delete", "feat"], cwd=b, capture_output=True,
                             text=True)
    wait_publication(b)
    assert deleted.returncode == 0, deleted.stderr
    assert (f"this push takes commit {commit[:12]} off origin, and memory {mid[7:19]} of {actor_of(b)[:12]} "
            f"({QUOTED}, a self-chosen name) is anchored on it") in deleted.stderr, deleted.stderr


def test_an_anchor_owner_named_like_an_id_is_named_by_its_id_first(tmp_path):
    """A review: a signer named ``Maintainer (15bae93237fc)`` read, in the anchor-owner lines,
    ``memory M of "Maintainer (15bae93237fc)" (1f4171c81656)``: a name posing as another's ID in
    front of the author's own (*display name spoofing*). The pre-push warning and the sync's line
    name the author's ID first (``hints.named_actor``), as every hint does."""
    _remote, (a, b) = shared_remote(tmp_path, "Alice", "Maintainer (15bae93237fc)")
    git(b, "checkout", "-q", "-b", "feat")
    (b / "g.txt").write_text("feat\n")
    git(b, "add", "g.txt")
    git(b, "commit", "-q", "-m", "feat")
    git(b, "push", "-q", "origin", "feat")
    assert hn(b, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "x").code == 0
    assert hn(b, "sync", "origin").code == 0
    assert hn(b, "hooks", "install").code == 0
    deleted = subprocess.run(["git", "push", "-q", "origin", "--delete", "feat"], cwd=b, capture_output=True,
                             text=True)
    wait_publication(b)
    assert hn(a, "replication", "select", "--all").code == 0
    synced = hn(a, "sync", "origin")
    for said in (deleted.stderr, synced.err + synced.out):
        line = next(x for x in said.splitlines() if "is anchored on it" in x)
        assert f" of {actor_of(b)[:12]} (\"Maintainer (15bae93237fc)\", a self-chosen name) is anchored" in line, line


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


def _lost_with_a_dependent(tmp_path):
    """``_anchored_on_a_branch``, Carol's challenge of Bob's memory published from a stream of her
    own, then ``feat`` deleted on the remote; Alice selects every stream and installs the hooks:
    (alice, bob, Bob's stream, Carol's stream)."""
    remote, a, b, _commit, mid, stream = _anchored_on_a_branch(tmp_path, "Carol")
    c = tmp_path / "carol"
    git(c, "fetch", "-q", "origin")
    assert hn(c, "replication", "select", "--all").code == 0
    assert hn(c, "sync").code == 0
    theirs = hn(c, "memory", "challenge", "--json", mid, "--reason", "needs-benchmark").json()
    assert hn(c, "sync").code == 0
    git(remote, "branch", "-D", "feat")
    assert hn(a, "hooks", "install").code == 0
    assert hn(a, "replication", "select", "--all").code == 0
    return a, b, stream, theirs["stream"]


def test_a_dependent_failure_and_the_failed_imports_hint_quote_the_root_authors_name(tmp_path):
    """``it fails only because stream S of actor A ("NAME", …) failed`` (sync), and recall's ``1
    stream of origin did not import at the last sync (stream S of "NAME": …)``."""
    a, b, bobs, carols = _lost_with_a_dependent(tmp_path)
    r = hn(a, "sync")
    assert r.code == 1
    line = next(x for x in r.out.splitlines() if x.startswith(f"Replication memory {carols}: failed"))
    assert (f"; it fails only because stream {bobs[7:19]} of actor {actor_of(b)[:12]} ({QUOTED}, a self-chosen "
            "name) failed") in line, line
    r = hn(a, "memory", "recall", "--json")
    assert f"(stream {bobs[7:19]} of {QUOTED}: stops at memory" in r.err, r.err


def test_the_fetch_hook_quotes_the_root_authors_name(tmp_path):
    """The fetch hook's ``stream S of "NAME" stops at memory M, whose anchor commit …``."""
    a, b, bobs, _carols = _lost_with_a_dependent(tmp_path)
    git(b, "checkout", "-q", "main")
    (b / "later.txt").write_text("later\n")
    git(b, "add", "later.txt")
    git(b, "commit", "-q", "-m", "later")
    git(b, "push", "-q", "origin", "main")
    proc = subprocess.run(["git", "fetch", "origin"], cwd=a, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"stream {bobs[7:19]} of {QUOTED} stops at memory" in proc.stderr, proc.stderr
