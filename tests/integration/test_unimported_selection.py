"""What the pre-push hook's "streams this clone has not imported" check counts
(push_removals.unimported_there, docs/decisions.md; a review): only streams a sync would import by
the saved selection, not those the last sync recorded as failed; each ref; and a push to a URL
that is a remote's is checked as that remote. Real repositories, a real bare remote, real pushes
with the hooks installed; nothing is mocked."""

from __future__ import annotations

import subprocess

from helpers import commit_on, git, hn, shared_remote, wait_publication


def _record(repo, content: str, *args):
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content, *args)
    assert r.code == 0, r.err
    return r.json()


def _push(repo, *args):
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    return proc


def _carol_selects_one(tmp_path):
    """Alice publishes streams A and B; Carol selects only A, syncs, and blocks."""
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    a = _record(alice, "A")
    _record(alice, "B", "--stream", "label:other")
    assert hn(alice, "sync", "origin").code == 0
    assert hn(carol, "hooks", "install").code == 0
    assert hn(carol, "replication", "select", "origin", "--memory", a["stream"]).code == 0
    assert hn(carol, "sync", "origin").code == 0
    git(carol, "config", "hn.prePush", "block")
    return remote, alice, carol, a


def test_an_exact_selection_is_not_refused_for_the_streams_it_leaves_out(tmp_path):
    remote, _alice, carol, _a = _carol_selects_one(tmp_path)
    commit_on(carol, None, "c.txt")
    assert _push(carol, "origin", "main").returncode == 0
    git(carol, "commit", "-q", "--amend", "-m", "c2")
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode == 0 and "not imported" not in pushed.stderr, pushed.stderr
    assert git(remote, "rev-parse", "main") == git(carol, "rev-parse", "HEAD")


def test_a_selected_stream_not_imported_here_still_refuses(tmp_path):
    remote, alice, carol, a = _carol_selects_one(tmp_path)
    git(carol, "reset", "-q", "--hard", "HEAD~0")
    commit_on(carol, None, "c.txt")
    assert _push(carol, "origin", "main").returncode == 0
    git(alice, "pull", "-q", "origin", "main")
    _record(alice, "A again")  # (stream A's tip moves on origin; Carol has not imported it)
    assert hn(alice, "sync", "origin").code == 0
    git(carol, "commit", "-q", "--amend", "-m", "c2")
    before = git(remote, "rev-parse", "main")
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode != 0, pushed.stderr
    line = [x for x in pushed.stderr.splitlines() if "not imported" in x]
    assert len(line) == 1 and f"(first: {a['stream']})" in line[0], pushed.stderr
    assert git(remote, "rev-parse", "main") == before


def test_refs_sharing_a_tip_are_each_counted(tmp_path):
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    a = _record(alice, "A")
    assert hn(alice, "sync", "origin").code == 0
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    tip = git(remote, "rev-parse", ref)
    actor = ref.split("/")[3]
    for n in (1, 2):
        git(remote, "update-ref", f"refs/hn/memory/{actor}/{str(n) * 64}", tip)
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", "block")
    git(carol, "reset", "-q", "--hard", "HEAD")
    commit_on(carol, None, "c.txt")
    assert _push(carol, "--no-verify", "origin", "main").returncode == 0
    git(carol, "commit", "-q", "--amend", "-m", "c2")
    pushed = _push(carol, "-f", "origin", "main")
    assert pushed.returncode != 0
    assert "origin has 3 memory streams with memories this clone has not imported" in pushed.stderr, pushed.stderr
    assert a["stream"]


def test_a_push_to_the_url_of_a_remote_is_checked_as_that_remote(tmp_path):
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    _record(alice, "A")
    assert hn(alice, "sync", "origin").code == 0
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", "block")
    commit_on(carol, None, "c.txt")
    assert _push(carol, "--no-verify", "origin", "main").returncode == 0
    git(carol, "fetch", "-q", "origin")
    git(carol, "commit", "-q", "--amend", "-m", "c2")
    before = git(remote, "rev-parse", "main")
    pushed = _push(carol, "-f", str(remote), "HEAD:refs/heads/main")
    assert pushed.returncode != 0, pushed.stderr
    line = [x for x in pushed.stderr.splitlines() if "not imported" in x]
    assert len(line) == 1 and line[0].endswith("git -c hn.prePush=warn push with this push's own arguments, "
                                               "as you typed them, repeats it with a warning instead"), pushed.stderr
    assert not [x for x in pushed.stderr.splitlines() if x.startswith("git-hn:") and str(remote) in x]
    assert git(remote, "rev-parse", "main") == before
