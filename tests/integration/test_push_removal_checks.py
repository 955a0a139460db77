"""What the pre-push hook's checks of a push's removals (``push_removals``) take a push for, and
ask: a mirror push told from a refspec push, the repository a mirror push deletes in (its push
URL), a push to another spelling of a remote's URL, the refusal's one way out, and a bounded
question. From an independent review; real repositories, real bare remotes, real ``git push``
with the hooks installed."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from helpers import git, git_processes, hn, shared_remote, wait_publication
from servers import silent_git_server


def _push(repo, *args, env=None):
    proc = subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True, env=env)
    wait_publication(repo)
    return proc


def _said(proc) -> list[str]:
    return [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")]


def _backup_of_published(tmp_path):
    """Alice published a memory on origin; backup.git is a mirror clone of origin; Bob's fresh
    clone (hooks installed, ``hn.prePush=block``) has a remote ``backup``: (origin, backup, bob,
    the memory ref)."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "Alice's").code == 0
    assert hn(alice, "sync", "origin").code == 0
    ref = git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    backup = tmp_path / "backup.git"
    git(tmp_path, "clone", "-q", "--mirror", str(remote), str(backup))
    assert hn(bob, "hooks", "install").code == 0
    git(bob, "config", "hn.prePush", "block")
    git(bob, "remote", "add", "backup", str(backup))
    return remote, backup, bob, ref


def test_a_refspec_push_of_remote_tracking_refs_is_no_mirror(tmp_path):
    """A review: ``git push backup 'refs/remotes/origin/*:refs/remotes/origin/*'`` was taken for
    a mirror push (remote-tracking refs pushed under their own names) and refused for deleting
    backup's memory ref, which it does not delete. Only ``--mirror`` (or ``remote.<r>.mirror``)
    is; a mirror push whose only changed ref is a branch is still said, and refused."""
    _remote, backup, bob, ref = _backup_of_published(tmp_path)
    proc = _push(bob, "-q", "backup", "refs/remotes/origin/*:refs/remotes/origin/*")
    assert proc.returncode == 0 and _said(proc) == [], proc.stderr
    assert git(backup, "for-each-ref", "--format=%(refname)", "refs/hn/memory/") == ref
    (bob / "b.txt").write_text("b\n")
    git(bob, "add", "b.txt")
    git(bob, "commit", "-q", "-m", "b")
    for args in (["--mirror", "backup"], ["--mir", "backup"]):  # (Git takes the abbreviation)
        proc = _push(bob, "-q", *args)  # (its hook input: refs/heads/main only)
        assert proc.returncode != 0, proc.stderr
        assert [x for x in _said(proc) if f"this push deletes 1 memory ref on backup (first: {ref})" in x
                and "instead of --mirror" in x], proc.stderr
    git(bob, "config", "remote.backup.mirror", "true")
    proc = _push(bob, "-q", "backup")
    assert proc.returncode != 0 and f"deletes 1 memory ref on backup (first: {ref})" in proc.stderr, proc.stderr
    assert git(backup, "for-each-ref", "--format=%(refname)", "refs/hn/memory/") == ref


def test_a_mirror_push_asks_the_repository_it_pushes_to(tmp_path):
    """A review: remote m fetching from A.git and pushing to B.git (a mirror of origin holding a
    memory ref): ``git push --mirror m`` under block deleted B's memory ref without a word, since
    the hook asked the remote's name, and so A. It asks the URL Git pushes to; the remote's own
    push URL when the hook is run without one."""
    _remote, backup, bob, ref = _backup_of_published(tmp_path)
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "A.git"))
    git(bob, "remote", "add", "m", str(tmp_path / "A.git"))
    git(bob, "remote", "set-url", "--push", "m", str(backup))
    proc = _push(bob, "-q", "--mirror", "m")
    assert proc.returncode != 0 and f"this push deletes 1 memory ref on m (first: {ref})" in proc.stderr, \
        proc.stderr
    assert git(backup, "for-each-ref", "--format=%(refname)", "refs/hn/memory/") == ref
    head = git(bob, "rev-parse", "HEAD")
    mirrors = {**os.environ, "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "remote.m.mirror",
               "GIT_CONFIG_VALUE_0": "true"}  # (as ``git -c remote.m.mirror=true push m`` runs its hook)
    hook = subprocess.run(["git", "hn", "hooks", "run", "pre-push", "m"], cwd=bob, capture_output=True, text=True,
                          input=f"refs/heads/main {head} refs/heads/main {head}\n", env=mirrors)
    assert hook.returncode != 0 and f"deletes 1 memory ref on m (first: {ref})" in hook.stderr, hook.stderr


def test_a_mirror_push_to_a_remotes_url_is_checked_as_to_its_name(tmp_path):
    """A review: ``git push --mirror <backup's URL>`` under block deleted backup's memory ref,
    the hook saying only that the URL is remote backup's, where ``git push --mirror backup`` is
    refused: a mirror's prune was never asked of a URL. Asked of the URL Git pushes to, as for
    the remote's name, when the URL is a remote's."""
    _remote, backup, bob, ref = _backup_of_published(tmp_path)
    proc = _push(bob, "-q", "--mirror", f"file://{backup}")
    assert proc.returncode != 0, proc.stderr
    assert [x for x in _said(proc) if f"this push deletes 1 memory ref on backup (first: {ref})" in x
            and "instead of --mirror" in x and "hn.prePush=warn push" in x], proc.stderr
    assert not [x for x in _said(proc) if str(backup) in x], proc.stderr  # (the URL never echoed)
    assert git(backup, "for-each-ref", "--format=%(refname)", "refs/hn/memory/") == ref


HOLD = 8.0  # seconds the silent server holds a question: more than the bound the test sets


def test_a_mirror_push_waits_for_the_remotes_memory_refs_within_the_hooks_bound(tmp_path, monkeypatch, capsys):
    """A review: the question for what a mirror push deletes had Git's 300 s, where the hook's
    other questions to the remote have its 10 s (``ATRISK_TIMEOUT``). It has that bound; a
    remote that does not answer counts as one that cannot say (no deletion counted, the push
    goes on), as with the others."""
    from git_hn.service import hook_runs
    from git_hn.store.repo import open_repo

    _remote, _backup, bob, _ref = _backup_of_published(tmp_path)
    git(bob, "config", "hn.prePush", "warn")
    git(bob, "config", "remote.backup.mirror", "true")
    head = git(bob, "rev-parse", "HEAD")
    monkeypatch.setattr(hook_runs, "ATRISK_TIMEOUT", 1.0)
    monkeypatch.chdir(bob)
    repo = open_repo(str(bob))
    try:
        with silent_git_server(HOLD) as url:  # (the URL Git would give the hook)
            start = time.monotonic()
            code = hook_runs.run_pre_push(repo, "backup", f"refs/heads/main {head} refs/heads/main {'0' * 40}\n"
                                          .encode(), url)
            took = time.monotonic() - start
    finally:
        repo.close()
    assert code == 0 and took < HOLD - 2, took
    assert "deletes" not in capsys.readouterr().err


def test_a_deletion_refused_with_an_anchor_removal_gives_one_way_out_and_keeps_no_memory_commit(tmp_path):
    """A review: ``git push -f origin :MEMREF feature`` under block (feature rewritten under a
    published memory) was refused in two lines, each ending with the whole ~500-character way
    out; and the keep command made an ``hn-anchor`` branch of the deleted memory ref's tip. Only
    the first line carries the way out; the keep command names the branch's commit alone."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    (a / "f.txt").write_text("f\n")
    git(a, "add", "f.txt")
    git(a, "commit", "-q", "-m", "f")
    old = git(a, "rev-parse", "HEAD")
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on f").code == 0
    assert _push(a, "-q", "origin", "feature").returncode == 0
    ref = git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    tip = git(remote, "rev-parse", ref)
    git(a, "config", "hn.prePush", "block")
    git(a, "commit", "-q", "--amend", "-m", "f2")
    proc = _push(a, "-q", "-f", "origin", f":{ref}", "feature")
    lines = [x for x in _said(proc) if "this push" in x]
    assert proc.returncode != 0 and len(lines) == 2, proc.stderr
    assert lines[0].startswith(f"git-hn: this push deletes 1 memory ref on origin (first: {ref})"), lines
    assert lines[0].endswith("repeats this push with a warning instead"), lines
    assert "hn.prePush=warn" not in lines[1] and lines[1].endswith(
        f"push it there first: git push origin {old}:refs/heads/hn-anchor/{old[:12]}"), lines
    assert tip[:12] not in lines[1]
    assert git(remote, "rev-parse", ref) == tip


def test_a_push_to_another_spelling_of_a_remotes_url_is_checked_as_that_remote(tmp_path):
    """A review: a push to origin's URL is checked as origin (refused under block when it takes
    commits off while origin holds streams not imported here), but the same push to
    ``/x/origin`` for ``/x/origin.git`` (Git opens origin.git), or with a trailing ``/``, went
    on with no line. The URL is compared by the repository it names."""
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "A").code == 0
    assert hn(alice, "sync", "origin").code == 0
    git(carol, "remote", "rename", "origin", "up.stream")
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", "block")
    (carol / "c.txt").write_text("c\n")
    git(carol, "add", "c.txt")
    git(carol, "commit", "-q", "-m", "c")
    assert _push(carol, "-q", "--no-verify", "up.stream", "main").returncode == 0
    git(carol, "fetch", "-q", "up.stream")
    git(carol, "commit", "-q", "--amend", "-m", "c2")
    before = git(remote, "rev-parse", "main")
    assert str(remote).endswith(".git")
    for url in (str(remote)[:-len(".git")], f"{remote}/", f"file://{str(remote)[:-len('.git')]}"):
        pushed = _push(carol, "-q", "-f", url, "HEAD:refs/heads/main")
        assert pushed.returncode != 0, (url, pushed.stderr)
        assert [x for x in _said(pushed) if "up.stream has 1 memory stream with memories this clone has not imported" in x], \
            pushed.stderr
        assert git(remote, "rev-parse", "main") == before


@pytest.mark.parametrize("how", ["insteadOf", "pushInsteadOf", "remote spelled so"])
def test_a_push_to_a_url_git_rewrites_is_checked_as_the_remote_it_reaches(tmp_path, how):
    """A review: with ``git config url."$PWD/../".insteadOf srv:``, ``git push -f srv:origin.git
    main`` under block took commits off origin with no line, where the same push to ``origin`` or
    its path is refused: the hook looked up the URL as typed (``$1``), not the one Git pushes to
    (``$2``, the rewrite applied). Also with ``pushInsteadOf``, and with the remote's own URL
    spelled with the rewritten prefix."""
    remote, (alice, carol) = shared_remote(tmp_path, "Alice", "Carol")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "A").code == 0
    assert hn(alice, "sync", "origin").code == 0
    assert hn(carol, "hooks", "install").code == 0
    git(carol, "config", "hn.prePush", "block")
    (carol / "c.txt").write_text("c\n")
    git(carol, "add", "c.txt")
    git(carol, "commit", "-q", "-m", "c")
    assert _push(carol, "-q", "--no-verify", "origin", "main").returncode == 0
    git(carol, "fetch", "-q", "origin")
    git(carol, "commit", "-q", "--amend", "-m", "c2")
    before = git(remote, "rev-parse", "main")
    typed = f"srv:{remote.name}"
    if how == "remote spelled so":  # (origin's URL is srv:…, and the push goes to the path)
        git(carol, "config", f"url.{remote.parent}/.insteadOf", "srv:")
        git(carol, "remote", "set-url", "origin", typed)
        typed = str(remote)
    else:
        git(carol, "config", f"url.{remote.parent}/.{how}", "srv:")
    pushed = _push(carol, "-q", "-f", typed, "HEAD:refs/heads/main")
    assert pushed.returncode != 0, pushed.stderr
    assert [x for x in _said(pushed) if "origin has 1 memory stream with memories this clone has not imported" in x], \
        pushed.stderr
    assert git(remote, "rev-parse", "main") == before


def test_network_urls_name_their_remote_in_any_spelling_git_takes(tmp_path):
    """The review's other spellings: a trailing ``/`` or ``.git``, scp-like ``host:path`` for
    ``ssh://host/path``, the host's case, a default port, who logs in; another path, port or
    host is no remote's. The pre-push hook as Git runs it for a push to such a URL (a
    fast-forward: nothing is asked of the network), whose hint names the remote it found."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    git(a, "remote", "add", "gh", "https://GitHub.com/o/r.git")
    git(a, "remote", "add", "box", "git@box.example:srv/r")
    head = git(a, "rev-parse", "HEAD")

    def named(url: str) -> list[str]:
        hook = subprocess.run(["git", "hn", "hooks", "run", "pre-push", url, url], cwd=a, capture_output=True,
                              text=True, input=f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")
        assert hook.returncode == 0, hook.stderr
        return [line.split("that URL is remote ")[1].split("'s:")[0] for line in hook.stderr.splitlines()
                if "that URL is remote " in line]

    for url in ("https://github.com/o/r", "https://github.com/o/r/", "https://user@GITHUB.com:443/o/r.git/",
                "git@github.com:o/r.git", "ssh://git@github.com:22/o/r", "git+ssh://github.com/~/o/r"):
        assert named(url) == ["gh"], url
    for url in ("bob@box.example:srv/r.git", "box.example:srv/r/", "ssh://box.example/~/srv/r"):
        assert named(url) == ["box"], url
    for url in ("https://github.com/o/r2", "https://github.com:8443/o/r", "https://gitlab.com/o/r",
                "git@box.example:srv/r/x"):
        assert named(url) == [], url
    # a path from the login's home is not the absolute one (a review: srv/r is not /srv/r)
    for url in ("ssh://git@box.example/srv/r.git", "git@box.example:/srv/r", "ssh://box.example/~bob/srv/r"):
        assert named(url) == [], url
    git(a, "remote", "add", "abs", "ssh://box.example/srv/r")
    assert named("box.example:/srv/r/") == ["abs"] and named("git@box.example:srv/r") == ["box"]


def test_a_push_to_a_remotes_url_reads_the_settings_once(tmp_path):
    """A review: the pre-push hook's path for a push to a URL read ``hn.prePush`` and the remote's
    settings up to three times (three ``git config`` processes): for a deletion there, for the
    checks of the remote the URL is, and for the hint. Once now."""
    remote, a, ref = _published(tmp_path)
    (a / "n.txt").write_text("n\n")
    git(a, "add", "n.txt")
    git(a, "commit", "-q", "-m", "n")
    trace = tmp_path / "trace"
    trace.mkdir()
    proc = _push(a, "-q", str(remote), f":{ref}", "main", env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    said = _said(proc)
    assert proc.returncode == 0 and len(said) == 2 and "deletes 1 memory ref at the URL" in said[0] and \
        "that URL is remote origin's" in said[1], proc.stderr
    asked = [argv for argv in git_processes(trace) if argv[:2] == ["config", "--get-regexp"]
             and "hn\\.prepush" in argv[2]]
    assert len(asked) == 1, asked


def _published(tmp_path):
    """Alice's remote with hooks installed and one memory of hers published there: (remote, her
    clone, its memory ref on the remote)."""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "on main").code == 0
    assert _push(a, "-q", "origin", "main").returncode == 0
    ref = git(remote, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    assert ref
    return remote, a, ref


def test_a_process_id_that_is_no_ascii_number_is_no_process_id(tmp_path):
    """A reread: ``str.isdigit`` takes ``²``, which ``int`` refuses, so a pre-push given
    ``HN_PUSH_PID=²`` (the wrapper sets it from ``$$``; anything may set it) ended in ``internal
    error: ValueError``. A process ID is ASCII digits (``process_tree.is_pid``); anything else is
    none, which the hook says in one line, as the publisher refuses it (``test_push_process_id``)."""
    from git_hn.store.process_tree import is_pid
    from helpers import make_repo

    assert [is_pid(w) for w in ("123", "²", "", "12345678901", "-1", "1 ")] == [True, False, False, False, False, False]
    repo = make_repo(tmp_path / "a")
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "remote.git"))
    git(repo, "remote", "add", "origin", str(tmp_path / "remote.git"))
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    line = f"refs/heads/main {git(repo, 'rev-parse', 'HEAD')} refs/heads/main {git(repo, 'rev-parse', 'HEAD~1')}\n"
    proc = subprocess.run(["git", "hn", "hooks", "run", "pre-push", "origin", str(tmp_path / "remote.git")],
                          cwd=repo, input=line, capture_output=True, text=True, env={**os.environ, "HN_PUSH_PID": "²"})
    assert proc.returncode == 1 and "internal error" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and 'HN_PUSH_PID "²" is no process ID' in proc.stderr, proc.stderr
