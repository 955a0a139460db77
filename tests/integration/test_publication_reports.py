"""What pushes and syncs say of a publication the server refused (a newcomer trial, f50): each
failure once, "failed again" once the same refusal repeats, the way out of a refusal of memory
refs in sync's words wherever it is said (f144), and no publisher started for a push the hook
refused. Real clones, a real bare remote whose own hooks refuse memory refs, real ``git push``
with git-hn's hooks."""

from __future__ import annotations

import subprocess

import pytest

from helpers import git, hn, make_repo, wait_publication

FAILED = "replication memory publication failed for remote origin: [remote rejected] (pre-receive hook declined); " \
         "the server said: no memory refs here"
ADVICE = "if origin never accepts memory refs, stop publishing there: git config remote.origin.hnPublish false"


@pytest.fixture
def clone(tmp_path):
    """A clone with git-hn's hooks, and a remote whose pre-receive hook refuses memory refs."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    assert hn(a, "init", "--name", "A").code == 0
    assert hn(a, "hooks", "install").code == 0
    guard = remote / "hooks" / "pre-receive"
    guard.write_text("#!/bin/sh\nwhile read old new ref; do\n  case $ref in refs/hn/*) echo 'no memory refs here' >&2;"
                     " exit 1;; esac\ndone\nexit 0\n")
    guard.chmod(0o755)
    return remote, a, guard


def _record_on_a_new_commit(a, n):
    git(a, "commit", "-q", "--allow-empty", "-m", f"commit {n}")
    r = hn(a, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
           "--content", f"on commit {n}")
    assert r.code == 0, r.err
    return f"refs/hn/memory/{r.json()['actor']}/{r.json()['stream'][7:]}"


def _push(a):
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=a, capture_output=True, text=True, timeout=120)
    wait_publication(a)
    return proc


def _said(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("git-hn: ")]


def _records(a):
    return sorted(p.suffix for p in (a / ".git" / "hn" / "replication").glob("publication-*"))


def test_a_block_push_its_publication_refused_starts_no_background_publisher(clone):
    """The trial: the refused push still started a publisher for the memory anchored on the
    commit it carried; the push landed nothing, so that publisher only tried again what had just
    failed, and its record made the next push say the failure twice."""
    remote, a, _guard = clone
    git(a, "config", "hn.prePush", "block")
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "on a commit origin has").code == 0
    _record_on_a_new_commit(a, 1)  # (held: it waits for this push)
    proc = _push(a)
    assert proc.returncode != 0 and [s for s in _said(proc) if FAILED in s] == _said(proc), proc.stderr
    assert ".failed" not in _records(a)
    assert git(remote, "for-each-ref", "refs/hn") == ""
    again = _push(a)
    assert len(_said(again)) == 1 and FAILED in _said(again)[0], again.stderr


def test_block_says_a_background_failure_once_when_its_own_publication_fails_the_same_way(clone):
    """Block mode: a push's held memory failed in the background; the next push's own publication
    failed the same way, and both lines were said."""
    _remote, a, _guard = clone
    git(a, "config", "hn.prePush", "block")
    _record_on_a_new_commit(a, 1)
    first = _push(a)
    assert first.returncode == 0 and _said(first) == [], first.stderr  # (the memory went after, and failed)
    assert ".failed" in _records(a)
    _record_on_a_new_commit(a, 2)
    second = _push(a)
    assert second.returncode != 0
    assert len(_said(second)) == 1 and _said(second)[0].startswith(f"git-hn: {FAILED}; {ADVICE}; to push the code"), \
        second.stderr


def test_the_next_push_says_a_refusal_of_memory_refs_with_the_way_out_sync_says(clone):
    """f144's newcomer trial: the server's pre-receive hook refused refs/hn/*; git hn sync said the
    way out (hnPublish false), the next push only that the background publication failed (the
    advice waited for the same refusal to repeat, f50). The pre-push hook's line about the last
    background publication, sync's and a block push's own say it in the same words."""
    _remote, a, _guard = clone
    _record_on_a_new_commit(a, 1)
    assert _said(_push(a)) == []
    second = _push(a)
    assert _said(second) == [f"git-hn: the last background publication to origin failed (publishing again now): "
                             f"{FAILED}; {ADVICE}"], second.stderr
    synced = hn(a, "sync")
    assert synced.code == 1 and synced.err.endswith(f": {FAILED}; {ADVICE}\n"), synced.err
    git(a, "config", "hn.prePush", "block")
    _record_on_a_new_commit(a, 2)  # (its commit is not on origin yet: it waits for this push)
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD~1", "--applies", "exact",
              "--content", "on a commit origin has").code == 0
    blocked = _push(a)
    assert blocked.returncode != 0 and len(_said(blocked)) == 1, blocked.stderr
    assert _said(blocked)[0].startswith(f"git-hn: {FAILED}; {ADVICE}; to push the code"), blocked.stderr


def test_a_retried_background_failure_is_said_once(clone):
    """The trial (f50): after the server was mended, the push that published first said the
    failure again and again. Said once; its way out says "if", as sync's does (f144: it waited
    for a repeat, and a newcomer pushed twice without it)."""
    remote, a, guard = clone
    ref = _record_on_a_new_commit(a, 1)
    assert _said(_push(a)) == []
    guard.unlink()
    _record_on_a_new_commit(a, 2)
    mended = _push(a)
    assert _said(mended) == [f"git-hn: the last background publication to origin failed (publishing again now): "
                             f"{FAILED}; {ADVICE}"], mended.stderr
    assert git(remote, "rev-parse", ref) == git(a, "rev-parse", ref)
    git(a, "commit", "-q", "--allow-empty", "-m", "three")
    assert _said(_push(a)) == []


def test_failed_again_comes_once_the_same_refusal_repeats(clone):
    _remote, a, _guard = clone
    _record_on_a_new_commit(a, 1)
    _push(a)
    _record_on_a_new_commit(a, 2)
    second = _push(a)
    assert _said(second) == [f"git-hn: the last background publication to origin failed (publishing again now): "
                             f"{FAILED}; {ADVICE}"], second.stderr
    _record_on_a_new_commit(a, 3)
    third = _push(a)
    assert _said(third) == [f"git-hn: the last background publication to origin failed again (publishing again now): "
                            f"{FAILED}; {ADVICE}"], third.stderr
    # a publication that succeeds in between (a sync to a remote that takes memory again) ends
    # the repetition: the next refusal is a first one
    guard = a.parent / "remote.git" / "hooks" / "pre-receive"
    text = guard.read_text()
    guard.unlink()
    assert hn(a, "sync").code == 0
    guard.write_text(text)
    guard.chmod(0o755)
    _record_on_a_new_commit(a, 4)
    assert _said(_push(a)) == []
    _record_on_a_new_commit(a, 5)
    assert _said(_push(a)) == [f"git-hn: the last background publication to origin failed (publishing again now): "
                               f"{FAILED}; {ADVICE}"]


def test_a_refusal_by_the_servers_update_hook_is_not_said_twice(clone):
    """The server's Git follows a refusal by its ``update`` hook with "error: hook declined to
    update <ref>": quoted as what the server said, it repeated the status with the ref's name cut
    short. The hook's own words are quoted; without any, the status alone."""
    remote, a, guard = clone
    guard.unlink()
    update = remote / "hooks" / "update"
    update.write_text("#!/bin/sh\ncase $1 in refs/hn/*) exit 1;; esac\n")
    update.chmod(0o755)
    assert hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "refused").code == 0
    r = hn(a, "sync")
    assert r.code == 1
    assert r.err == ("git-hn: publication phase failed after replication: replication memory publication failed for "
                     f"remote origin: [remote rejected] (hook declined); {ADVICE}\n"), r.err
    update.write_text("#!/bin/sh\ncase $1 in refs/hn/*) echo 'ask ops first' >&2; exit 1;; esac\n")
    r = hn(a, "sync")
    assert r.code == 1 and "(hook declined); the server said: ask ops first; if origin" in r.err, r.err


def _two_pushes(a):
    """git-hn set up in ``a`` with its hooks, then two pushes, each of a new commit carrying a
    memory: (first, second), the second saying what the first's background publication met."""
    assert hn(a, "init", "--name", "A").code == 0
    assert hn(a, "hooks", "install").code == 0
    _record_on_a_new_commit(a, 1)
    first = _push(a)
    _record_on_a_new_commit(a, 2)
    return first, _push(a)


def _refused_then_said(first, second, way: str) -> None:
    """The first push's background publication was refused access, and the second push said so
    with ``way``, and nothing of ssh's."""
    assert (first.returncode, _said(first), second.returncode) == (0, [], 0), first.stderr
    assert _said(second) == ["git-hn: the last background publication to origin failed (publishing again now): "
                             f"replication memory publication failed for remote origin: the remote refused access; {way}"
                             ], second.stderr
    assert "ssh" not in second.stderr


def _nothing_published_but_main(remote, a) -> None:
    assert git(remote, "for-each-ref", "refs/hn") == "" and git(remote, "rev-parse", "main") == git(a, "rev-parse", "main")


@pytest.mark.parametrize("informative", [True, False])
def test_a_background_publication_a_git_daemon_refuses_is_said_as_it_is_with_the_stop_publishing_advice(
        tmp_path, informative):
    """f154: a git daemon that refuses the background publication's push ("access denied", its
    access hook's words) got ssh's advice (load the key into an agent), though git:// has no
    credentials. The next push says the failure as it is; once it repeats, with the advice the
    foreground publication gives (stop publishing to a remote one only reads from). The same for a
    daemon without --informative-errors (f153's words for its ambiguous refusal)."""
    from servers import GitDaemon

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    count = tmp_path / "pushes"
    hook = tmp_path / "access-hook"  # (the user's pushes pass, each publication after one is refused)
    hook.write_text(f'#!/bin/sh\n[ "$1" = receive-pack ] || exit 0\nn=$(($(cat "{count}" 2>/dev/null || echo 0) + 1))\n'
                    f'echo $n > "{count}"\n[ $((n % 2)) -eq 1 ] || {{ echo "access denied"; exit 1; }}\n')
    hook.chmod(0o755)
    failed = "replication memory publication failed for remote origin: " + (
        "the remote refused access" if informative else "the remote's git daemon refused access or has no repository "
        "at that path (it does not say which: check the path in the remote's URL, and that the server exports that "
        "repository)")
    advice = "if you only read from origin, stop publishing there: git config remote.origin.hnPublish false"
    with GitDaemon(remote, tmp_path, (f"--access-hook={hook}",), informative=informative) as daemon:
        a = make_repo(tmp_path / "a")
        git(a, "remote", "add", "origin", daemon.url)
        git(a, "push", "-q", "-u", "origin", "main")
        count.unlink()
        first, second = _two_pushes(a)
        _record_on_a_new_commit(a, 3)
        third = _push(a)
    assert (first.returncode, _said(first), second.returncode, third.returncode) == (0, [], 0, 0), first.stderr
    assert _said(second) == [f"git-hn: the last background publication to origin failed (publishing again now): "
                             f"{failed}"], second.stderr
    assert _said(third) == [f"git-hn: the last background publication to origin failed again (publishing again now): "
                            f"{failed}; {advice}"], third.stderr
    assert "ssh" not in second.stderr + third.stderr
    _nothing_published_but_main(remote, a)


def test_a_background_publication_an_https_server_refuses_gets_advice_for_the_account_not_ssh(tmp_path, http_backend):
    """f156: a server that refuses the background publication over HTTP(S) in its own words
    ("access denied", no 401 asking for a password) got ssh's advice (load the key into an agent),
    though HTTPS has no key. The next push gives the advice for HTTPS: the account's rights."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    url = http_backend(remote)
    pushes = []

    def every_other_push(method: str, path: str) -> bool:  # (the user's pushes pass, each publication is refused)
        if method == "GET" and path.endswith("/info/refs?service=git-receive-pack"):
            pushes.append(path)
            return len(pushes) % 2 == 0
        return False

    http_backend.server(url).refuse_if = every_other_push
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", url)
    git(a, "push", "-q", "-u", "origin", "main")
    pushes.clear()
    first, second = _two_pushes(a)
    _refused_then_said(first, second, "the server refused access itself, asking for no password: check that your "
                       "account (the one your credential helper gives) may push to that repository, then git hn sync "
                       "origin")
    _nothing_published_but_main(remote, a)


def test_a_background_publication_a_local_repository_refuses_gets_advice_for_its_files_not_ssh(tmp_path):
    """f156: a local remote whose files the background publication may not read ("Permission
    denied": its packed-refs rewritten by another user with a strict umask) got ssh's advice (load
    the key into an agent), though a path on this machine has no credentials. The next push names
    the files' permissions. Every other receive-pack (the user's pushes) runs as before; each
    publication's runs with the remote's packed-refs unreadable to it (for root, whom modes do not
    stop, without the capabilities that override them)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    packed, count = remote / "packed-refs", tmp_path / "pushes"
    from test_errors_that_help import as_a_user_files_refuse

    refused = "".join(word + " " for word in as_a_user_files_refuse([]))
    wrapper = tmp_path / "receive-pack"
    wrapper.write_text(f'#!/bin/sh\nn=$(($(cat "{count}" 2>/dev/null || echo 0) + 1))\necho $n > "{count}"\n'
                       f'[ $((n % 2)) -eq 1 ] && exec git-receive-pack "$@"\nchmod 000 "{packed}"\n'
                       f'{refused}git-receive-pack "$@"; rc=$?\nchmod 644 "{packed}"\nexit $rc\n')
    wrapper.chmod(0o755)
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    git(remote, "pack-refs", "--all")
    git(a, "config", "remote.origin.receivepack", str(wrapper))
    first, second = _two_pushes(a)
    assert count.read_text() == "4\n"
    _refused_then_said(first, second, "a local repository has no credentials: this user may not write some of its "
                       "files (check their permissions with ls -l, its objects' too, or ask their owner), then git hn "
                       "sync origin")
    _nothing_published_but_main(remote, a)
