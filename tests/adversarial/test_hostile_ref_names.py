"""Ref names a hostile remote (or anyone with push access) chooses, and that Git allows: U+2028,
U+2029 and U+0085 in a ref name. ``str.splitlines`` split listings there, so one such ref failed
every teammate's sync, and a branch ``main<U+2028>z`` replaced main's tip in the at-risk check
(a false "no longer on any branch" reminder). Every listing, hook input and line file of git-hn
is split on "\\n" alone (``core.lines``); a listing that names one ref twice with two tips is
no answer (never a silent overwrite). Real Git and a real bare remote where a remote is needed."""

from __future__ import annotations

import subprocess

import pytest

from git_hn.core.lines import lines_of
from git_hn.service.replication import advertise
from git_hn.store.process import Completed
from git_hn.store.transport import listed
from helpers import commit_on, git, hn, shared_remote, wait_publication

SEPARATORS = ["\u2028", "\u2029", "\u0085"]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_lines_split_on_newline_alone(sep):
    text = f"a{sep}b\nc\n"
    assert text.splitlines() != ["a" + sep + "b", "c"]  # (what the audit found)
    assert lines_of(text) == [f"a{sep}b", "c"]
    assert lines_of("") == [] and lines_of("x") == ["x"] and lines_of("\n\n") == ["", ""]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_an_advertisement_with_a_separator_in_a_ref_name_is_read(sep):
    oid = "1" * 40
    memory = f"{'2' * 40}\trefs/hn/memory/{'a' * 64}/{'b' * 64}\n"
    data = (f"{oid}\trefs/hn/x{sep}y\n" + memory).encode()
    got = advertise.parse(data, 40)
    assert got is not None and got[0][f"sha256:{'b' * 64}"] == [("a" * 64, "2" * 40)]


class _Runner:
    def __init__(self, out: bytes):
        self.out = out

    def run(self, args, **_kwargs):
        return Completed(args, 0, self.out, b"")


class _Repo:
    def __init__(self, out: bytes):
        self.git = _Runner(out)


def test_a_listing_that_names_a_ref_twice_with_two_tips_is_no_answer():
    """The second line would silently replace the first (a dict): the remote cannot say."""
    a, b = "1" * 40, "2" * 40
    assert listed(_Repo(f"{a}\trefs/heads/main\n{b}\trefs/heads/main\n".encode()), "/x") is None
    assert listed(_Repo(f"{a}\trefs/heads/main\n{a}\trefs/heads/main\n".encode()), "/x") == [
        (a, "refs/heads/main"), (a, "refs/heads/main")]
    sep = "\u2028"
    assert listed(_Repo(f"{a}\trefs/heads/main{sep}z\n{b}\trefs/heads/main\n".encode()), "/x") == [
        (a, f"refs/heads/main{sep}z"), (b, "refs/heads/main")]


def test_a_ref_with_u2028_under_refs_hn_does_not_fail_a_teammates_sync(tmp_path):
    """An audit: anyone with push access made every teammate's sync fail with "replication
    advertisement validation failed" by pushing ``refs/hn/x<U+2028>y``."""
    remote, (a, b) = shared_remote(tmp_path, "Alice", "Bob")
    mem = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
             "--content", "decided").json()
    assert hn(a, "sync").code == 0
    git(b, "push", "-q", "origin", "HEAD:refs/hn/x\u2028y")
    assert "\u2028" in git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/x*")
    assert hn(b, "replication", "select", "--all").code == 0
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert hn(b, "memory", "show", mem["memoryId"]).code == 0


def test_a_branch_named_main_u2028_does_not_shadow_main_in_the_at_risk_check(tmp_path):
    """An audit: a branch ``main<U+2028>z`` at an old commit read as ``refs/heads/main`` with
    that tip, so an anchor merged into main was called gone."""
    remote, (bob,) = shared_remote(tmp_path, "Bob")
    git(bob, "fetch", "-q", "origin")
    git(bob, "remote", "set-head", "origin", "main")
    assert hn(bob, "hooks", "install").code == 0
    commit_on(bob, "feature", "f1.txt")
    assert hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on feature").code == 0
    pushed = subprocess.run(["git", "push", "-q", "-u", "origin", "feature"], cwd=bob, capture_output=True, text=True)
    wait_publication(bob)
    assert pushed.returncode == 0, pushed.stderr
    server = tmp_path / "server-side"
    git(tmp_path, "clone", "-q", str(remote), str(server))
    root = git(server, "rev-list", "--max-parents=0", "HEAD")
    git(server, "merge", "-q", "--no-ff", "origin/feature", "-m", "merge")
    git(server, "push", "-q", "origin", "main")
    git(server, "push", "-q", "origin", "--delete", "feature")
    git(server, "push", "-q", "origin", f"{root}:refs/heads/main\u2028z")
    synced = hn(bob, "sync")
    assert synced.code == 0, synced.err
    assert "Anchors of origin" not in synced.out, synced.out



def test_an_anchored_path_holding_u2028_is_not_called_stale(tmp_path):
    """git-hn's own ``path<TAB>blob`` lines (the brief's stale-anchor test) were split with
    ``str.splitlines``: a path holding U+2028, which a memory may anchor, read as two paths
    that match nothing, and an unchanged anchor was called stale."""
    import json

    from helpers import make_repo

    name = "a\u2028b.txt"
    repo = make_repo(tmp_path / "r", files={name: "a\n", "other.txt": "o\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--path", name, "--content", "about that file").code == 0
    (repo / "other.txt").write_text("changed\n")
    git(repo, "commit", "-q", "-am", "another file changes")
    doc = json.loads(hn(repo, "memory", "brief", "--json", "--include-untrusted").out)
    assert doc["staleAnchors"] == []
    (repo / name).write_text("b\n")
    git(repo, "commit", "-q", "-am", "that file changes")
    doc = json.loads(hn(repo, "memory", "brief", "--json", "--include-untrusted").out)
    assert [a["stalePaths"] for a in doc["staleAnchors"]] == [[name]]


def test_a_local_ref_name_holding_u00a0_is_never_read_as_two_valid_names(tmp_path):
    """A review: the publication's listing of this clone's streams was split with ``str.split``,
    which also splits at U+00A0: ``refs/hn/memory/A/S<U+00A0>refs/hn/memory/A/S2`` read as A's
    stream S and a stream S2 that does not exist, and the sync tried to publish that. It is one
    name that is no stream's, refused as any other such name is."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "decided").code == 0
    ref = git(a, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    head = git(a, "rev-parse", ref)
    said = []
    for name in ("refs/hn/memory/junk", f"{ref}\u00a0{ref[:-64]}{'c' * 64}"):
        git(a, "update-ref", name, head)
        r = hn(a, "sync")
        said.append((r.code, r.out, r.err))
        git(a, "update-ref", "-d", name)
    assert said[1] == said[0] == (1, "Sync with origin incomplete: nothing to import, publication failed\n",
                                  "git-hn: publication phase failed after replication: replication memory "
                                  "publication inspection failed for remote origin\n")


@pytest.mark.parametrize("sep", [*SEPARATORS, "\u00a0"])
def test_gits_last_error_line_is_cut_at_newline_alone(sep):
    from git_hn.core.gostr import one_line
    from git_hn.store.git import first_line

    assert first_line(f"fatal: bad ref refs/x{sep}y\n".encode()) == one_line(f"bad ref refs/x{sep}y")
    assert first_line(b"Writing 1%\rWriting 100%\r\nerror: refused\r\n\n") == "refused"
    assert first_line(b" \n") == "unknown error"
