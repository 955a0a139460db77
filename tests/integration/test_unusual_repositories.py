"""Publication and messages in unusual repositories: a bare clone, a mirror, a remote of the other
object format, a repository Git cannot open, a read-only mount (a trial, S52)."""

from __future__ import annotations

import pytest
from helpers import git, hn, make_repo


def _bare_clone(tmp_path):
    work = make_repo(tmp_path / "w")
    team = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(team))
    bare = tmp_path / "b2.git"
    git(tmp_path, "clone", "-q", "--bare", str(team), str(bare))
    assert hn(bare, "init", "--name", "B2").code == 0
    return work, team, bare


def test_a_bare_clone_publishes_a_memory_anchored_on_a_commit_of_the_remotes_branch(tmp_path):
    """A bare clone has no ``remote.origin.fetch``, so no remote-tracking ref: the memory anchored
    on the remote's own ``main`` waited for good, and the advice (``git fetch origin``) moved
    nothing. The remote's branches are asked instead."""
    _work, team, bare = _bare_clone(tmp_path)
    r = hn(bare, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD", "--applies",
           "descendants", "--content", "bare obs")
    assert r.code == 0, r.err
    ref = f"refs/hn/memory/{r.json()['actor']}/{r.json()['stream'][7:]}"
    s = hn(bare, "sync")
    assert s.code == 0 and "waits" not in s.out + s.err, (s.out, s.err)
    assert git(team, "rev-parse", ref) == git(bare, "rev-parse", ref)


def test_a_bare_clone_whose_anchor_is_on_no_remote_branch_is_told_how_to_track_them(tmp_path):
    """What still waits in a bare clone says to push the commit, and gives the refspec that makes
    the remote's branches tracked: never ``git fetch origin`` alone."""
    work, _team, bare = _bare_clone(tmp_path)
    git(work, "commit", "-q", "--allow-empty", "-m", "side")
    git(work, "push", "-q", str(bare), "main:side")
    side = git(bare, "rev-parse", "side")
    assert hn(bare, "memory", "record", "--kind", "observation", "--at", "side", "--applies", "descendants",
              "--content", "on side").code == 0
    s = hn(bare, "sync")
    assert s.code == 0, s.err
    assert (f": 1 memory waits until commit {side[:12]} is on a branch of origin, and no remote.origin.fetch "
            "maps its branches (a bare clone?): git push origin side (branch side contains it), then git hn sync origin; to "
            "track them, git config --add remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*' && "
            "git fetch origin") in s.out, s.out


def test_a_bare_clone_behind_its_remote_is_told_to_fetch_the_branches_it_lacks(tmp_path):
    """A review: once the remote's ``main`` moved past what a bare clone has, a memory on a commit
    that is on that branch waited and was told to push a branch that contains it (a push Git
    refuses as a non-fast-forward). The remote's branches name a commit this clone lacks: its line
    says to fetch them, with the refspec that tracks them. The record's hint already gives that
    refspec, not ``git fetch origin`` alone, which moves nothing in a bare clone."""
    work, team, bare = _bare_clone(tmp_path)
    git(work, "remote", "add", "team", str(team))
    git(work, "commit", "-q", "--allow-empty", "-m", "ahead")
    git(work, "push", "-q", "team", "main")
    anchor = git(bare, "rev-parse", "HEAD")
    r = hn(bare, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
           "--content", "behind")
    assert r.code == 0, r.err
    assert ("(branch main: git push origin main; no remote.origin.fetch maps origin's branches (a bare clone?), so "
            "only git hn sync origin tells whether it is there already; to track them, git config --add "
            "remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*' && git fetch origin)") in r.err, r.err
    s = hn(bare, "sync")
    assert s.code == 0, s.err
    assert (f": 1 memory waits until commit {anchor[:12]} is on a branch of origin, whose branches name commits "
            "this clone lacks (pushed there since this clone last fetched?), which may contain it, and no "
            "remote.origin.fetch maps them (a bare clone?): fetch them (git config --add remote.origin.fetch "
            "'+refs/heads/*:refs/remotes/origin/*' && git fetch origin), then git hn sync origin") in s.out, s.out


OTHER_FORMAT = ("remote origin uses SHA-256 and this clone SHA-1, so memory (and code) cannot move between "
                "them; work with it from a clone of it (git clone), or remove it here (git remote remove origin)")


def _sha256_remote(tmp_path, with_memory: bool):
    team = tmp_path / "team256.git"
    git(tmp_path, "init", "-q", "--bare", "--object-format=sha256", str(team))
    w = make_repo(tmp_path / "w256", object_format="sha256")
    git(w, "push", "-q", str(team), "main")
    if with_memory:
        git(w, "remote", "add", "origin", str(team))
        assert hn(w, "init", "--name", "W").code == 0
        assert hn(w, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
                  "--content", "x").code == 0
        assert hn(w, "sync").code == 0
    c = make_repo(tmp_path / "c")
    git(c, "remote", "add", "origin", str(team))
    assert hn(c, "init", "--name", "C").code == 0
    assert hn(c, "replication", "select", "origin", "--all").code == 0
    assert hn(c, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
              "--content", "y").code == 0
    return c


def test_a_remote_of_the_other_object_format_is_said_so_in_one_line(tmp_path):
    """A SHA-256 remote whose memory refs a SHA-1 clone cannot read: "advertisement validation
    failed", then "push a branch that contains it", where Git says "mismatched algorithms"."""
    s = hn(_sha256_remote(tmp_path, True), "sync")
    assert (s.code, s.err) == (1, f"git-hn: {OTHER_FORMAT}\n"), s.err
    assert "push a branch" not in s.out


def test_a_remote_of_the_other_object_format_with_no_memory_yet_is_said_so(tmp_path):
    """The same remote before any memory is there: the advertisement of ``refs/hn/*`` is empty, and
    the memory waited for a push that Git refuses ("the receiving end does not support this
    repository's hash algorithm"); the branches asked say the format."""
    s = hn(_sha256_remote(tmp_path, False), "sync")
    assert (s.code, s.err) == (1, f"git-hn: {OTHER_FORMAT}\n"), s.err
    assert "push a branch" not in s.out


def test_recall_path_hints_are_shell_quoted(inited):
    """A trial's ``dïr ü/ñ.txt``: from ``dïr ü``, ``recall --path ñ.txt`` was told ``--path dïr
    ü/ñ.txt``, two arguments once pasted (record's own hint quotes it). The directory hint's
    example is quoted too."""
    here = inited / "dïr ü"
    here.mkdir()
    (here / "ñ.txt").write_text("x\n")
    git(inited, "add", ".")
    git(inited, "commit", "-q", "-m", "odd names")
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", "dïr ü/ñ.txt", "--content", "odd")
    assert r.code == 0, r.err
    r = hn(here, "memory", "recall", "--include-untrusted", "--path", "ñ.txt")
    assert r.err == ("git-hn: hint: nothing is anchored to ñ.txt; paths are relative to the top of the repository, "
                     "so from here that is --path 'dïr ü/ñ.txt'\n"), r.err
    r = hn(inited, "memory", "recall", "--include-untrusted", "--path", "dïr ü")
    assert r.err.endswith("recall a file in it, such as --path 'dïr ü/ñ.txt'\n"), r.err


def test_the_mcp_directory_hint_gives_a_json_string_not_a_shell_word(inited):
    """A review: the MCP hint was shell-quoted too (``such as path 'my dir/a file.py'``), and an
    agent copies those quotes into its JSON; MCP gives a JSON string."""
    from test_agent_mcp import run, text

    (inited / "my dir").mkdir()
    (inited / "my dir" / "a file.py").write_text("x\n")
    git(inited, "add", ".")
    git(inited, "commit", "-q", "-m", "spaces")

    async def body(client):
        return await client.call_tool("memory_recall", {"path": "my dir", "includeUntrusted": True})

    import json

    hint = json.loads(text(run(inited, body)))["hint"]
    assert hint.endswith('recall a file in it, such as path "my dir/a file.py".'), hint


def _read_only_mount(tmp_path, src):
    """``src`` mounted read-only at a new directory (root only: else the test is skipped)."""
    import os
    import subprocess

    import pytest

    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "--bind", str(src), str(ro)], capture_output=True).returncode:
        pytest.skip("a read-only bind mount needs root")
    if subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], capture_output=True).returncode:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)
        pytest.skip("this kernel does not remount a bind mount read-only")
    return ro


def test_a_read_only_mount_names_the_lock_file_and_the_page_and_says_read_only(tmp_path):
    """A trial's read-only mount: record said "private identity file …/memory-….lock cannot be
    opened: Read-only file system", view the same of its page."""
    import subprocess

    src = make_repo(tmp_path / "src")
    assert hn(src, "init", "--name", "R").code == 0
    assert hn(src, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
              "--content", "x").code == 0
    assert hn(src, "memory", "view").code == 0
    ro = _read_only_mount(tmp_path, src)
    try:
        r = hn(ro, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
               "--content", "y")
        # (CONTRACT §0.5's words first, the kind after them: not a key)
        assert r.code == 1 and r.err.startswith(f"git-hn: private identity file {ro}/.git/hn/locks/memory-"), r.err
        assert r.err.endswith(".lock cannot be opened: the file system is read-only (a lock file, not a key); this "
                              f"command writes in {ro}/.git/hn: run it where the repository is not mounted "
                              "read-only\n"), r.err
        r = hn(ro, "memory", "view")
        assert (r.code, r.err) == (1, f"git-hn: private identity file {ro}/.git/hn/hn-memory.html cannot be "
                                      "written: the file system is read-only (the page, not a key); git hn memory "
                                      "view --output FILE writes the page elsewhere\n"), r.err
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)


def test_a_read_only_mount_labels_a_missing_directory_and_a_page_named_by_output(tmp_path):
    """A review: on a read-only mount where ``.git/hn/locks`` did not exist yet, record said
    "private identity directory …/locks cannot be created"; ``view --output`` on the mount said
    the system's raw "Read-only file system". Each is named for what it is, in the read-only
    wording."""
    import shutil
    import subprocess

    src = make_repo(tmp_path / "src")
    assert hn(src, "init", "--name", "R").code == 0
    shutil.rmtree(src / ".git" / "hn" / "locks", ignore_errors=True)
    ro = _read_only_mount(tmp_path, src)
    try:
        r = hn(ro, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
               "--content", "y")
        assert (r.code, r.err) == (1, f"git-hn: git-hn's lock directory {ro}/.git/hn/locks cannot be created: "
                                      "the file system is read-only\n"), r.err
        r = hn(src, "memory", "view", "--output", str(ro / "page.htm"))
        assert (r.code, r.err) == (1, f"git-hn: page {ro}/page.htm cannot be written: the file system is "
                                      "read-only; choose another --output\n"), r.err
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)


def test_a_repository_with_an_unknown_extension_is_not_called_no_repository(tmp_path):
    """A trial: ``extensions.refStorage`` (a newer Git's) made this Git ignore the repository, and
    git-hn said "not a git repository; … create one with git init" in it."""
    repo = tmp_path / "r"
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "config", "core.repositoryformatversion", "1")
    git(repo, "config", "extensions.hnNoSuchExtension", "x")  # (one no Git knows: refStorage is known from 2.45)
    r = hn(repo, "memory", "recall")
    assert r.code == 1
    assert r.err.splitlines()[-1] == ("git-hn: Git cannot open this repository: unknown repository extension "
                                      "hnnosuchextension (a newer Git made it?)"), r.err


@pytest.mark.parametrize("version, extensions, said", [
    ("1", ("hnNoSuchA", "hnNoSuchB"), "unknown repository extensions hnnosucha, hnnosuchb (a newer Git made it?)"),
    ("0", ("objectFormat",), "its config sets extension objectformat, which needs core.repositoryformatversion "
                             "1, and it is 0: set it to 1 in the repository's config file if it is meant, else "
                             "remove it"),
    ("0", ("objectFormat", "noop-v1"),
     "its config sets extensions objectformat, noop-v1, which need core.repositoryformatversion 1, "
     "and it is 0: set it to 1 in the repository's config file if they are meant, else remove them"),
    ("2", (), "its core.repositoryformatversion is 2, and this Git reads at most 1 (a newer Git made it?)")])
def test_a_repository_git_cannot_open_is_said_why(tmp_path, version, extensions, said):
    """A review: with two unknown extensions (Git's ``unknown repository extensions found:``), a
    v1-only extension at version 0, or a version Git does not read, git-hn still said "not a git
    repository"."""
    repo = tmp_path / "r"
    git(tmp_path, "init", "-q", str(repo))
    config = repo / ".git" / "config"
    text = config.read_text().replace("repositoryformatversion = 0", f"repositoryformatversion = {version}")
    values = {"objectFormat": "sha1", "preciousObjects": "true"}
    config.write_text(text + "[extensions]\n" + "".join(f"\t{e} = {values.get(e, 'x')}\n" for e in extensions))
    r = hn(repo, "memory", "recall")
    assert (r.code, r.err.splitlines()[-1]) == (1, f"git-hn: Git cannot open this repository: {said}"), r.err


PRUNE_WARNING = ("git-hn: warning: remote.origin.fetch (+refs/*:refs/*) writes this clone's memory refs: any "
                 "fetch of it (git fetch origin) replaces the memory origin does not hold yet with what it holds, "
                 "and a pruning one deletes it, for good; keep fetches off it: git config --add "
                 "remote.origin.fetch '^refs/hn/*' (or publish it first: git hn sync origin)\n")


def _mirror(tmp_path):
    work = make_repo(tmp_path / "w")
    team = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(team))
    mirror = tmp_path / "m.git"
    git(tmp_path, "clone", "-q", "--mirror", str(team), str(mirror))
    assert hn(mirror, "init", "--name", "M").code == 0
    return work, team, mirror


def _record(repo, content):
    r = hn(repo, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD", "--applies",
           "descendants", "--content", content)
    assert r.code == 0, r.err
    return f"refs/hn/memory/{r.json()['actor']}/{r.json()['stream'][7:]}", r


def test_a_mirror_clone_publishes_its_memory(tmp_path):
    """A review: in a ``git clone --mirror`` (``remote.origin.mirror`` true) every publication push
    failed, as Git refuses refspecs for a mirroring remote (``fatal: --mirror can't be combined
    with refspecs``), so the sync the record's warning advised could never publish there."""
    _work, team, mirror = _mirror(tmp_path)
    ref, r = _record(mirror, "m1")
    # (a review: the record's hint gave git push origin main, which Git refuses in a mirror clone,
    # for a commit already on origin: a mirror clone gets no waiting hint, the sync's gate asks)
    assert "waits until" not in r.err, r.err
    s = hn(mirror, "sync", "origin")
    assert s.code == 0 and "failed" not in s.err, s.err
    assert git(team, "rev-parse", ref) == git(mirror, "rev-parse", ref)


def test_a_failed_push_in_a_mirror_clone_shows_a_dry_run_that_can_run(tmp_path):
    """The dry run a failed publication points at names a refspec: in a mirror clone it carries
    ``-c remote.origin.mirror=false``, as git-hn's own push does, else it shows only Git's
    refusal of the refspec."""
    _work, _team, mirror = _mirror(tmp_path)
    refusing = tmp_path / "refusing-receive-pack"
    refusing.write_text("#!/bin/sh\necho 'ERROR: read-only for maintenance' >&2\nexit 1\n")
    refusing.chmod(0o755)
    git(mirror, "config", "remote.origin.receivepack", str(refusing))
    _record(mirror, "m1")
    s = hn(mirror, "sync", "origin")
    assert s.err.rstrip().endswith("git -c remote.origin.mirror=false push --dry-run --no-verify origin "
                                   "'refs/hn/memory/*:refs/hn/memory/*' shows Git's own message"), s.err


def test_a_plain_fetch_in_a_mirror_clone_replaces_unpublished_memory_unless_kept_off(tmp_path):
    """A review: a plain ``git fetch origin`` (no ``--prune``) in a mirror clone force-updated the
    memory ref to origin's older tip (``(forced update)``), losing the memory signed since: the
    warning says any fetch does, and the negative refspec it gives first keeps the ref."""
    _work, _team, mirror = _mirror(tmp_path)
    ref, _r = _record(mirror, "m1")
    assert hn(mirror, "sync", "origin").code == 0
    _ref, r = _record(mirror, "m2")
    assert r.err.count(PRUNE_WARNING) == 1, r.err
    mine = git(mirror, "rev-parse", ref)
    git(mirror, "config", "--add", "remote.origin.fetch", "^refs/hn/*")
    git(mirror, "fetch", "-q", "origin")
    assert git(mirror, "rev-parse", ref) == mine
    git(mirror, "config", "--unset", "remote.origin.fetch", "^\\^")
    git(mirror, "fetch", "-q", "origin")
    assert git(mirror, "rev-parse", ref) != mine  # (what the warning says happens without it)


def test_record_in_a_mirror_clone_warns_that_a_pruning_fetch_deletes_it(tmp_path):
    """A trial: in a ``git clone --mirror``, ``git fetch --prune origin`` printed ``- [deleted]
    (none) -> refs/hn/memory/…``: the signed, unpublished memory was gone, and nothing had warned.
    The negative refspec the warning gives keeps the memory through such a fetch."""
    work = make_repo(tmp_path / "w")
    team = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(team))
    mirror = tmp_path / "m.git"
    git(tmp_path, "clone", "-q", "--mirror", str(team), str(mirror))
    assert hn(mirror, "init", "--name", "M").code == 0
    r = hn(mirror, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
           "--content", "x")
    assert r.code == 0 and r.err.count(PRUNE_WARNING) == 1, r.err
    git(mirror, "config", "--add", "remote.origin.fetch", "^refs/hn/*")
    git(mirror, "fetch", "-q", "--prune", "origin")
    assert git(mirror, "for-each-ref", "refs/hn/memory")
    r = hn(mirror, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
           "--content", "y")
    assert r.code == 0 and "pruning fetch" not in r.err, r.err
    r = hn(work, "init", "--name", "W")  # (a usual clone's fetch refspec maps no memory ref: nothing said)
    r = hn(work, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "descendants",
           "--content", "z")
    assert r.code == 0 and "pruning fetch" not in r.err, r.err
