"""An unborn HEAD gets advice that fits the repository (f162, a newcomer trial): a clone of a bare
remote whose HEAD says ``master`` while only ``main`` was pushed is told to check ``main`` out,
not to make a first commit; a bare repository is told to run the command in a clone or with
``--at REV``; a new repository keeps "make a first commit". CONTRACT §10.0's ``revision HEAD is
not a commit`` starts each line unchanged. A branch name a remote chose is named in a command to
paste only when it holds no shell syntax."""

from __future__ import annotations

from helpers import git, hn, make_repo, refs_snapshot

NOT_A_COMMIT = "git-hn: revision HEAD is not a commit; "
CHECK_OUT_MAIN = NOT_A_COMMIT + ("HEAD's branch master has no commit yet, but origin/main has: "
                                 "check it out (git checkout main)\n")


def _remote_says_master(root, *branches: str):
    """A bare remote made with HEAD naming ``master``, to which only ``branches`` (``main`` first)
    were pushed, and a clone of it (HEAD unborn there: git clone only warns): (remote, clone)."""
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "master", str(remote))
    src = make_repo(root / "src")
    git(src, "branch", "-M", "main")
    for name in branches:
        git(src, "push", "-q", str(remote), f"main:refs/heads/{name}")
    git(root, "clone", "-q", str(remote), str(root / "clone"))
    return remote, root / "clone"


def test_a_clone_of_a_remote_whose_head_names_a_missing_branch_is_told_to_check_one_out(tmp_path):
    _remote, clone = _remote_says_master(tmp_path, "main")
    assert hn(clone, "init", "--name", "New").code == 0
    before = refs_snapshot(clone)
    for argv in (("memory", "recall"),
                 ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "x"),
                 ("memory", "brief", "--json")):
        r = hn(clone, *argv)
        assert (r.code, r.out, r.err) == (1, "", CHECK_OUT_MAIN), argv
    brief = hn(clone, "memory", "brief", "--markdown")  # (the session-start hook's form: no error)
    assert brief.code == 0
    assert brief.out.endswith("\n\nNo memory yet: HEAD's branch master has no commit yet, but origin/main has, "
                              "and memory is anchored on commits: check it out (git checkout main).\n")
    assert refs_snapshot(clone) == before  # (nothing written: the refusal changes nothing)
    git(clone, "checkout", "-q", "main")  # the advice, followed, works
    assert hn(clone, "memory", "recall").code == 0


def test_the_remote_default_branch_is_named_before_main(tmp_path):
    _remote, clone = _remote_says_master(tmp_path, "main", "trunk")
    git(clone, "remote", "set-head", "origin", "trunk")
    assert hn(clone, "memory", "recall").err == NOT_A_COMMIT + (
        "HEAD's branch master has no commit yet, but origin/trunk has: check it out (git checkout trunk)\n")


def test_a_branch_in_two_remotes_is_named_with_its_remote(tmp_path):
    remote, clone = _remote_says_master(tmp_path, "main")
    git(clone, "remote", "add", "backup", str(remote))
    git(clone, "fetch", "-q", "backup")
    assert hn(clone, "memory", "recall").err == NOT_A_COMMIT + (
        "HEAD's branch master has no commit yet, but origin/main has: check it out (git checkout --track origin/main)\n")


def test_an_orphan_branch_beside_a_local_branch_names_the_local_one(tmp_path):
    repo = make_repo(tmp_path / "r")
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "--orphan", "fresh")
    assert hn(repo, "memory", "recall").err == NOT_A_COMMIT + (
        "HEAD's branch fresh has no commit yet, but branch main has: check it out (git checkout main)\n")


def test_shell_syntax_in_a_remote_branch_name_is_never_offered_to_paste(tmp_path):
    """Command injection through advice: a hostile remote names its only branch so that pasting
    ``git checkout <name>`` would run a command; the advice points at ``git branch -a`` instead."""
    _remote, clone = _remote_says_master(tmp_path, "x$(touch${IFS}pwned)")
    r = hn(clone, "memory", "recall")
    assert r.err == NOT_A_COMMIT + ("HEAD's branch master has no commit yet, but other branches have: "
                                    "check one out (git branch -a lists them)\n")


def test_a_bare_repository_is_told_to_use_a_clone_or_at_rev(tmp_path):
    remote, _clone = _remote_says_master(tmp_path, "main")
    before = refs_snapshot(remote)
    r = hn(remote, "memory", "recall")
    assert (r.code, r.err) == (1, NOT_A_COMMIT + (
        "HEAD's branch master has no commit in this bare repository: run this in a clone, or name a commit "
        "with --at REV (e.g. --at main); to make clones check out main, point HEAD at it (git symbolic-ref "
        "HEAD refs/heads/main)\n"))
    assert refs_snapshot(remote) == before
    assert hn(remote, "memory", "recall", "--at", "main").code == 0  # the advice, followed, works
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(empty))
    assert hn(empty, "memory", "recall").err == NOT_A_COMMIT + (
        "this bare repository has no commit yet: run this in a clone of it, once a first commit is pushed here\n")


def test_a_new_repository_keeps_make_a_first_commit(tmp_path):
    """Also a clone of an empty remote: no branch anywhere, so a first commit is the way on."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "clone"))
    git(tmp_path, "init", "-q", str(tmp_path / "new"))
    for repo in (tmp_path / "clone", tmp_path / "new"):
        assert hn(repo, "memory", "recall").err == NOT_A_COMMIT + (
            "HEAD has no commit yet: make a first commit (git commit)\n")


def test_a_direction_control_in_the_branch_head_names_is_not_shown(tmp_path):
    """Trojan Source through advice: the remote's HEAD names a missing branch whose name holds
    U+202E, which the clone's HEAD takes; the line says "HEAD's branch" without it."""
    remote, _clone = _remote_says_master(tmp_path, "main")
    git(remote, "symbolic-ref", "HEAD", "refs/heads/x\u202eniam")
    clone = tmp_path / "second"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    assert git(clone, "symbolic-ref", "HEAD") == "refs/heads/x\u202eniam"
    assert hn(clone, "memory", "recall").err == NOT_A_COMMIT + (
        "HEAD's branch has no commit yet, but origin/main has: check it out (git checkout main)\n")


def test_a_bare_repository_whose_head_names_a_missing_branch_is_told_how_to_point_head_at_its_branch(tmp_path):
    """(f166) The server's own fix: HEAD names ``master``, only ``dev`` (or ``main`` among others)
    was pushed: ``git symbolic-ref HEAD refs/heads/<it>``, which makes clones check it out. Not
    among several branches none of which is main or master (no guess), nor a name with shell
    syntax; the advice changes nothing (refs, HEAD), and followed, it works."""
    fix = "; to make clones check out {0}, point HEAD at it (git symbolic-ref HEAD refs/heads/{0})\n"
    remote, _clone = _remote_says_master(tmp_path, "dev")
    before = refs_snapshot(remote)
    r = hn(remote, "memory", "brief", "--json")
    assert (r.code, r.out, r.err) == (1, "", NOT_A_COMMIT + (
        "HEAD's branch master has no commit in this bare repository: run this in a clone, or name a commit "
        "with --at REV (e.g. --at dev)") + fix.format("dev"))
    assert refs_snapshot(remote) == before and git(remote, "symbolic-ref", "HEAD") == "refs/heads/master"
    git(remote, "symbolic-ref", "HEAD", "refs/heads/dev")  # the advice, followed
    clone = tmp_path / "again"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    assert git(clone, "symbolic-ref", "HEAD") == "refs/heads/dev" and hn(clone, "memory", "recall").code == 0
    git(remote, "symbolic-ref", "HEAD", "refs/heads/master")
    src = tmp_path / "src"
    git(src, "push", "-q", str(remote), "main:refs/heads/topic")  # two branches, neither main nor master
    assert hn(remote, "memory", "recall").err == NOT_A_COMMIT + (
        "HEAD's branch master has no commit in this bare repository: run this in a clone, or name a commit "
        "with --at REV (e.g. --at dev)\n")
    git(src, "push", "-q", str(remote), "main:refs/heads/main")  # main among them: the clones' usual branch
    assert hn(remote, "memory", "recall").err == NOT_A_COMMIT + (
        "HEAD's branch master has no commit in this bare repository: run this in a clone, or name a commit "
        "with --at REV (e.g. --at main)") + fix.format("main")
    shell = tmp_path / "shell.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "master", str(shell))
    git(src, "push", "-q", str(shell), "main:refs/heads/$(touch${IFS}pwned)")  # the one branch: never pasted
    assert hn(shell, "memory", "recall").err == NOT_A_COMMIT + (
        "HEAD's branch master has no commit in this bare repository: run this in a clone, or name a commit "
        "with --at REV\n")
