"""A remote that is a bundle file (``git clone repo.bundle``): Git fetches from it and can never
push to it, and its failed push has the form of a pre-push hook's refusal. A trial (ncS94,
finding 5): every ``git hn sync`` exited 1 and blamed a pre-push hook that did not exist. Real
bundles made by ``git bundle create``, real clones of them, real ``git push``."""

from __future__ import annotations

import os

from helpers import git, hn, make_repo, record_id

BUNDLE_LINE = ("Publication to origin: not tried, origin is a bundle file, which cannot take a push; "
               "git config remote.origin.hnPublish false makes git hn sync origin only import from it")


def _bundle_clone(tmp_path):
    """A repository with a memory of Alice's, bundled with every ref, and a clone of that bundle
    where Bob has recorded a memory of his own (which has nowhere to be published)."""
    a = make_repo(tmp_path / "a")
    assert hn(a, "init", "--name", "Alice").code == 0
    alices = record_id(a, content="alice's decision")
    git(a, "bundle", "create", "-q", str(tmp_path / "a.bundle"), "--all")
    git(tmp_path, "clone", "-q", str(tmp_path / "a.bundle"), "b")
    b = tmp_path / "b"
    assert hn(b, "init", "--name", "Bob").code == 0
    record_id(b, content="bob's observation", kind="observation")
    return b, alices


def test_a_sync_with_a_bundle_imports_and_says_why_nothing_is_published(tmp_path):
    b, alices = _bundle_clone(tmp_path)
    r = hn(b, "sync")
    assert r.code == 0, (r.out, r.err)
    assert BUNDLE_LINE in r.out.splitlines(), r.out
    assert "pre-push hook" not in r.err, r.err  # (no hook ran: none is blamed)
    assert hn(b, "memory", "show", alices).code == 0  # the import ran
    doc = hn(b, "sync", "--json").json()
    assert "error" not in doc and doc["publicationSkipped"].startswith("origin is a bundle file"), doc
    git(b, "config", "remote.origin.hnPublish", "false")  # the way out the line names
    r = hn(b, "sync")
    assert r.code == 0 and "Publication to origin: off" in r.out and "bundle" not in r.out, r.out


def test_a_bundle_named_by_a_relative_path_is_recognised(tmp_path):
    """Git reads a relative remote URL from the top of the working tree, wherever it runs."""
    b, _ = _bundle_clone(tmp_path)
    git(b, "remote", "set-url", "origin", "../a.bundle")
    (b / "sub").mkdir()
    r = hn(b / "sub", "sync")
    assert r.code == 0 and BUNDLE_LINE in r.out.splitlines(), (r.out, r.err)


def test_a_push_url_that_is_a_bundle_is_named_not_a_hook(tmp_path):
    """Fetching from a repository and pushing to a bundle: publication is tried and fails, and
    the line names the bundle (a hook that never ran was blamed)."""
    b, _ = _bundle_clone(tmp_path)
    git(b, "remote", "set-url", "--push", "origin", str(tmp_path / "a.bundle"))
    git(b, "remote", "set-url", "origin", str(tmp_path / "a"))
    r = hn(b, "sync")
    assert r.code == 1, r.out
    assert "that push URL is a bundle file, which cannot take a push; git config remote.origin.hnPublish " \
           "false makes git hn sync origin only import from it" in r.err, r.err
    assert "pre-push hook" not in r.err, r.err
    git(b, "remote", "set-url", "--add", "--push", "origin", str(tmp_path / "a"))  # (a second, real one)
    r = hn(b, "sync")
    assert r.code == 1 and "take it off origin's push URLs (git remote set-url --delete --push origin PATH)" \
        in r.err and "pre-push hook" not in r.err, r.err


def test_a_bare_repository_remote_is_not_taken_for_a_bundle(tmp_path):
    """A guard (cannot fail without the fix: nothing was taken for a bundle before it): a remote
    that is an ordinary repository on disk is published to as before."""
    remote = tmp_path / "r.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "origin", "HEAD")
    assert hn(a, "init", "--name", "A").code == 0
    record_id(a, content="x")
    r = hn(a, "sync")
    assert r.code == 0 and "bundle" not in r.out and "published 1 stream" in r.out, (r.out, r.err)


def test_a_bundles_path_given_to_sync_is_told_to_become_a_remote(tmp_path):
    """The same trial: ``git hn sync /path/x.bundle`` was told ``git remote rename OLD NEW``; a
    path or URL is named by ``git remote add``. Nothing changes."""
    b, _ = _bundle_clone(tmp_path)
    bundle = os.path.join("..", "a.bundle")  # (relative: a long temporary path is shown cut)
    before = git(b, "for-each-ref")
    r = hn(b, "sync", bundle)
    assert r.code == 1 and r.out == "", r.out
    assert r.err == (f'git-hn: invalid remote name "{bundle}": git hn sync takes the name of a remote, not a URL or '
                     f"a path; git remote add NAME {bundle} names it, then git hn sync NAME\n"), r.err
    assert git(b, "for-each-ref") == before
    git(b, "remote", "add", "team/main", bundle)  # (Git's name, §3.2 refuses it: renaming is the way out)
    r = hn(b, "sync", "team/main")
    assert r.code == 1 and r.err.endswith(": git remote rename OLD NEW\n"), r.err
