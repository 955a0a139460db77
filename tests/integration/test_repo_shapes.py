"""SHA-1 and SHA-256 repositories, subdirectories, linked worktrees (CONTRACT §1.6, §2.2, §10.0)."""

from __future__ import annotations

import json
import os

import pytest

from helpers import git, hn, make_repo
from independent import append_by_hand, verify_commit

NOT_A_REPO = ("git-hn: not a git repository; run git hn inside a Git repository (cd into one), or "
              "create one with git init\n")


@pytest.mark.parametrize("fmt", ["sha1", "sha256"])
def test_record_and_show_in_both_object_formats(tmp_path, fmt):
    repo = make_repo(tmp_path / fmt, object_format=fmt, files={"README.md": "x\n", "src/a.py": "a\n"})
    assert hn(repo, "init", "--name", "Fmt").code == 0
    head = git(repo, "rev-parse", "HEAD")
    assert len(head) == (64 if fmt == "sha256" else 40)
    r = hn(repo, "memory", "record", "--json", "--kind", "verification", "--at", "HEAD",
           "--applies", "descendants", "--path", "src/a.py", "--evidence", f"git:{head}",
           "--content", "tests pass")
    out = r.json()
    assert out["anchor"]["commit"] == head
    assert out["anchor"]["paths"][0]["blob"] == git(repo, "rev-parse", "HEAD:src/a.py")
    shown = hn(repo, "memory", "show", out["memoryId"], "--json").json()
    proj = shown["projection"]
    assert (proj["applicability"], proj["evidence"]) == ("applicable", "resolved")
    assert proj["evidenceDetails"] == [{"type": "git", "requested": head, "ownerId": out["memoryId"],
                                        "status": "resolved", "reason": "exact-object"}]
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    assert verify_commit(repo, git(repo, "rev-parse", ref))["_id"] == out["memoryId"]


def test_wrong_length_oid_is_a_probe_error_not_missing(tmp_path):
    repo = make_repo(tmp_path / "r", object_format="sha256")
    assert hn(repo, "init").code == 0
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--evidence", "git:" + "a" * 40, "--content", "sha1 evidence in a sha256 repo")
    assert r.code == 1 and "a git: item has 40 hex digits" in r.err  # (git-hn refuses to sign it)
    # signed by an implementation that checks nothing
    mid = append_by_hand(repo, {"kind": "decision", "content": "sha1 evidence in a sha256 repo", "anchor": {
        "commit": git(repo, "rev-parse", "HEAD")}, "applicability": {"mode": "exact"}, "topics": [],
        "evidence": ["git:" + "a" * 40]})
    shown = hn(repo, "memory", "show", mid, "--json").json()
    assert shown["projection"]["evidence"] == "invalid"
    assert shown["projection"]["evidenceDetails"][0]["reason"] == "object-inspection-failed"


def test_subdirectory_paths_are_repository_relative(tmp_path):
    repo = make_repo(tmp_path / "r", files={"README.md": "top\n", "sub/README.md": "sub\n"})
    assert hn(repo, "init").code == 0
    r = hn(repo / "sub", "memory", "record", "--json", "--kind", "observation", "--at", "HEAD",
           "--applies", "exact", "--path", "README.md", "--content", "from a subdirectory")
    out = r.json()
    assert out["anchor"]["paths"] == [{"path": "README.md", "blob": git(repo, "rev-parse", "HEAD:README.md")}]
    assert hn(repo / "sub", "memory", "show", out["memoryId"]).code == 0


def test_linked_worktree_shares_keys_and_streams(tmp_path):
    repo = make_repo(tmp_path / "main")
    assert hn(repo, "init", "--name", "Shared").code == 0
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(wt))
    (wt / "feature.txt").write_text("f\n")
    git(wt, "add", "feature.txt")
    git(wt, "commit", "-q", "-m", "feature")
    r = hn(wt, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", "from the worktree")
    out = r.json()
    assert out["anchor"]["commit"] == git(wt, "rev-parse", "HEAD")
    # identity lives in the common git directory, never in the worktree's own
    assert not (repo / ".git" / "worktrees" / "wt" / "hn" / "identities").exists()
    assert hn(wt, "identity", "show").out == hn(repo, "identity", "show").out
    # the stream ref is shared: the main worktree sees and verifies it
    shown = hn(repo, "memory", "show", out["memoryId"], "--json").json()
    assert shown["projection"]["applicability"] == "inapplicable"  # main's HEAD lacks the anchor
    assert hn(wt, "memory", "show", out["memoryId"], "--json").json()["projection"]["applicability"] \
        == "applicable"


def test_outside_a_repository(tmp_path):
    r = hn(tmp_path, "identity", "show")
    assert (r.code, r.err) == (1, NOT_A_REPO)
    assert hn(tmp_path, "version").code == 0
    assert hn(tmp_path, "-h").code == 0


def test_unborn_head(tmp_path):
    repo = tmp_path / "unborn"
    git(tmp_path, "init", "-q", str(repo))
    assert hn(repo, "init").code == 0
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", "x")
    assert r.err == "git-hn: revision HEAD is not a commit; HEAD has no commit yet: make a first commit (git commit)\n"
    assert git(repo, "for-each-ref") == ""
    assert json.loads((repo / ".git" / "hn" / "identities" / os.listdir(
        repo / ".git" / "hn" / "identities")[0]).read_text())["version"] == 1


def _applicability(repo, at):
    out = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--at", at).json()
    return [m["applicability"] for m in out["memories"]]


def test_ancestry_follows_raw_parent_headers_even_with_grafts(tmp_path):
    """§5.4: ancestry is decided by the commits' own parent headers. Git's rev-list (the fast
    path) is used only when it must agree; a graft that cuts history makes Git disagree, and the
    raw walk still finds the anchor."""
    repo = make_repo(tmp_path / "r")
    for i in range(3):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"c{i}")
    assert hn(repo, "init").code == 0
    anchor = git(repo, "rev-parse", "HEAD~2")
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", anchor, "--applies", "descendants",
           "--content", "old anchor")
    assert r.code == 0, r.err
    other = git(repo, "commit-tree", git(repo, "rev-parse", "HEAD^{tree}"), "-m", "unrelated")
    assert _applicability(repo, "HEAD") == ["applicable"]
    assert _applicability(repo, other) == []  # recall serves applicable rows only
    # Git now believes HEAD~1 has no parents; the raw headers say otherwise
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "grafts").write_text(git(repo, "rev-parse", "HEAD~1") + "\n")
    assert anchor not in git(repo, "rev-list", "HEAD").split()
    assert _applicability(repo, "HEAD") == ["applicable"]


def test_a_repository_path_with_uri_characters(tmp_path):
    """The verified state's file is opened through an SQLite URI: a path with characters a URI
    gives meaning to (space, ?, #, %, non-ASCII) still names that file and no other."""
    from git_hn.store import statedb
    from git_hn.store.repo import open_repo

    repo = make_repo(tmp_path / "a b?mode=rw#x%41ü")
    assert hn(repo, "init", "--name", "Alice").code == 0
    ident = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD",
               "--applies", "descendants", "--content", "odd path").json()["memoryId"]
    assert hn(repo, "memory", "show", ident, "--json").json()["memoryId"] == ident
    r = open_repo(str(repo))
    assert os.path.isfile(statedb.paths(r)[1])
    assert not (tmp_path / "a b").exists()
    assert hn(repo, "memory", "index", "verify").code == 0
    r.close()


def test_a_graft_file_in_the_environment_cannot_advance_the_verified_state(tmp_path):
    """``GIT_GRAFT_FILE`` makes ``git log`` report parents the raw headers do not have (a
    reviewer's case): the verified state's forward walk trusted that report, accepted a chain no
    other clone accepts, and kept serving it without the variable. Every runner drops it."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init").code == 0
    for i in range(3):
        assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies",
                  "descendants", "--content", f"m{i}").code == 0
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    h1, h2, h3 = (git(repo, "rev-parse", f"{ref}~{n}") for n in (2, 1, 0))
    git(repo, "update-ref", ref, h2)
    assert hn(repo, "memory", "index", "rebuild").code == 0  # the state is at h2
    # the third memory's signed tree on a commit whose raw parent is h1, not h2
    forged = git(repo, "commit-tree", git(repo, "rev-parse", f"{h3}^{{tree}}"), "-p", h1, "-m", "x")
    git(repo, "update-ref", ref, forged)
    grafts = tmp_path / "grafts"
    grafts.write_text(f"{forged} {h2}\n")
    os.environ["GIT_GRAFT_FILE"] = str(grafts)
    try:
        assert git(repo, "rev-parse", f"{forged}^") == h2  # Git itself now reports h2
        hooked = hn(repo, "memory", "recall", "--json", "--include-untrusted")
    finally:
        del os.environ["GIT_GRAFT_FILE"]
    plain = hn(repo, "memory", "recall", "--json", "--include-untrusted")
    assert hooked.code == plain.code == 1
    assert "has sequence 3, want 2" in hooked.err and hooked.err == plain.err
