"""A remote whose URL is a path in a home directory (``git remote add origin '~/team.git'``, the
tilde written as it is; f168). Git's upload-pack and receive-pack expand the ``~`` themselves
(``enter_repo``) wherever Git runs, so neither the quarantine's fetch (which runs in another
directory) nor the pre-push hook's question which remote a URL names may take it from the top of
the working tree: the sync's import failed with "no Git repository is at the remote's URL" while
plain Git fetched, and a push to the same repository's absolute path was taken for a push to a URL
that is no remote here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from helpers import git, hn, make_repo


def _record(repo, content: str) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _team(tmp_path) -> tuple[Path, Path]:
    """A bare remote in the (test's) home directory, and Alice's clone whose origin is
    ``~/team.git``, which plain Git reaches: (remote, alice)."""
    remote = Path(os.environ["HOME"]) / "team.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", "~/team.git")
    assert git(alice, "remote", "get-url", "origin") == "~/team.git"  # (the tilde itself, no shell's)
    git(alice, "push", "-q", "origin", "main")
    git(alice, "fetch", "-q", "origin")
    assert hn(alice, "init", "--name", "Alice").code == 0
    return remote, alice


def test_a_remote_in_a_home_directory_replicates_both_ways(tmp_path):
    """Bob's import fetches in the quarantine from the repository Git means by ``~/team.git``, with
    real objects to transfer (a clone that copied none of the memory), and his memory reaches it
    by the sync's push."""
    remote, alice = _team(tmp_path)
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(bob))  # (before any memory is there)
    git(bob, "remote", "set-url", "origin", "~/team.git")
    mem = _record(alice, "one")
    r = hn(alice, "sync")
    assert (r.code, r.out.splitlines()[-1]) == (0, "Synchronized with origin: published 1 stream"), r.err
    tip = git(alice, "rev-parse", f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}")
    assert hn(bob, "init", "--name", "Bob").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    r = hn(bob, "sync")
    assert (r.code, r.err) == (0, ""), r.err  # (was: failed exact fetch … no Git repository is at the remote's URL)
    assert r.out.splitlines()[-1] == "Synchronized with origin: imported 1 memory, promoted 1 stream"
    assert git(bob, "rev-parse", f"refs/hn/remotes/origin/memory/{mem['actor']}/{mem['stream'][7:]}") == tip
    own = _record(bob, "from bob")
    r = hn(bob, "sync")
    assert r.code == 0 and r.out.splitlines()[-1].endswith("published 1 stream"), (r.out, r.err)
    ref = f"refs/hn/memory/{own['actor']}/{own['stream'][7:]}"
    assert git(remote, "rev-parse", ref) == git(bob, "rev-parse", ref)


def test_a_push_to_the_path_of_a_remote_in_a_home_directory_is_a_push_to_that_remote(tmp_path):
    """The pre-push hook names the remote a pushed-to URL is (``remote_urls.remote_of_url``): a
    push of a memory ref to origin's absolute path (``git push ~/team.git …``, which the shell
    expands) is offered as to origin, not warned of as sent to a URL that is no remote here."""
    remote, alice = _team(tmp_path)
    assert hn(alice, "hooks", "install").code == 0
    mem = _record(alice, "by hand")
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    pushed = subprocess.run(["git", "push", "-q", str(remote), f"{ref}:{ref}"], cwd=alice, capture_output=True,
                            text=True)
    assert pushed.returncode == 0, pushed.stderr
    assert "no remote here" not in pushed.stderr, pushed.stderr
    assert git(remote, "rev-parse", ref) == git(alice, "rev-parse", ref)
    # (and a path that is no remote here is still said to be one)
    other = tmp_path / "other.git"
    git(tmp_path, "init", "-q", "--bare", str(other))
    pushed = subprocess.run(["git", "push", "-q", str(other), f"{ref}:{ref}"], cwd=alice, capture_output=True,
                            text=True)
    assert pushed.returncode == 0 and "sends memory refs to a URL that is no remote here" in pushed.stderr
