"""What git-hn says of a memory whose anchor is on a branch behind its remote-tracking branch, and
of a push still to be made (f170; f166 left three messages). ``git hn sync --json``'s ``heldBack``
entry says the branch is behind, as the human line does; the line says "the memory follows that
push" only where git-hn's hooks run, and otherwise what to run after it; ``memory record``'s own
hint says to pull before pushing when the branch is behind. Real repositories, real pushes and
fetches; nothing is mocked."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from helpers import (commit_on, fetch_here_push_there, git, git_processes, hn, hn_proc, push_waited, recall_json,
                     shared_remote, wait_publication)


def _record(repo, content: str, *args):
    r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content, *args)
    assert r.code == 0, r.err
    return r


def _bob_refused(tmp_path, hooks: bool):
    """Alice and Bob share a remote (hooks installed in both, or in neither); Bob records on a
    commit of his main, Alice pushes first, Bob fetches and his push is refused as a
    non-fast-forward: (remote, bob, the anchor)."""
    tmp_path.mkdir()
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    if hooks:
        for repo in (alice, bob):
            assert hn(repo, "hooks", "install").code == 0
    anchor = commit_on(bob, None, "bob.txt")
    _record(bob, "Bob decided on his commit")
    commit_on(alice, None, "alice.txt")
    assert push_waited(alice, "-q", "origin", "main").returncode == 0
    git(bob, "fetch", "-q", "origin")
    pushed = push_waited(bob, "origin", "main")
    assert pushed.returncode != 0 and "(non-fast-forward)" in pushed.stderr, pushed.stderr
    return remote, bob, anchor


def _held(out: str) -> list[str]:
    return [x for x in out.splitlines() if "waits until commit" in x or "waits for commit" in x]


def test_sync_json_held_back_entry_says_the_branch_is_behind_as_the_line_does(tmp_path):
    """(f170) The human line said "branch main … is behind origin/main" (f166); the ``heldBack``
    entry said nothing of it, and an agent reading only the JSON pushed again. ``behind`` names
    the branch and its remote-tracking branch, in full; absent when the branch is not behind."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
    anchor = commit_on(bob, None, "bob.txt")
    _record(bob, "Bob decided on his commit")
    first = hn(bob, "sync", "origin", "--json")
    assert first.code == 0, first.err
    (entry,) = first.json()["heldBack"]
    assert entry["commit"] == anchor and "behind" not in entry, entry  # (not behind: pushing is the way on)
    commit_on(alice, None, "alice.txt")
    assert push_waited(alice, "-q", "origin", "main").returncode == 0
    git(bob, "fetch", "-q", "origin")
    before = git(remote, "for-each-ref")
    synced = hn(bob, "sync", "origin", "--json")
    assert synced.code == 0, synced.err
    (entry,) = synced.json()["heldBack"]
    assert entry["commit"] == anchor and entry["waiting"] == 1 and entry["discarded"] is False
    assert entry["behind"] == {"branch": "refs/heads/main", "remoteTracking": "refs/remotes/origin/main"}, entry
    assert list(entry) == ["ref", "memoryId", "commit", "waiting", "discarded", "behind"]  # (added last)
    human = _held(hn(bob, "sync", "origin").out)
    assert len(human) == 1 and "(branch main contains it but is behind origin/main," in human[0], human
    assert git(remote, "for-each-ref") == before  # (words only)


def test_sync_says_the_memory_follows_the_push_only_where_the_hooks_run(tmp_path):
    """(f170) With git-hn's hooks installed, the line is f166's: the memory follows that push.
    Without them, no push publishes the memory and ``git pull --rebase`` leaves it on the old
    commit: the line says to sync after the push, which names the reanchor; followed as said,
    the memory is published on the rebased commit."""
    _remote, hooked, _anchor = _bob_refused(tmp_path / "hooked", hooks=True)
    (line,) = _held(hn(hooked, "sync", "origin").out)
    assert line.endswith("is on origin (branch main contains it but is behind origin/main, so Git refuses its "
                         "push: on that branch, git pull --rebase origin main, then git push origin main; the "
                         "memory follows that push, or git hn sync origin)"), line

    remote, bob, anchor = _bob_refused(tmp_path / "plain", hooks=False)
    before = git(remote, "for-each-ref")
    synced = hn(bob, "sync", "origin")
    assert synced.code == 0, synced.err
    (line,) = _held(synced.out)
    assert line.endswith(f": 1 memory waits until commit {anchor[:12]} is on origin (branch main contains it but "
                         "is behind origin/main, so Git refuses its push: on that branch, git pull --rebase origin "
                         "main, then git push origin main, then git hn sync origin, which names the git hn memory "
                         "reanchor that moves the memory to the rebased commit; this clone has no git-hn hooks (git "
                         "hn hooks install adds them), so neither the rebase nor the push carries it)"), line
    assert "follows that push" not in synced.out
    assert git(remote, "for-each-ref") == before
    commands = re.search(r"on that branch, (git pull .*), then (git push .*), then (git hn sync origin),", line)
    for command in commands.groups()[:2]:
        done = subprocess.run(["sh", "-c", command], cwd=bob, capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
    assert not git(remote, "for-each-ref", "refs/hn/memory/")  # (the push carried no memory)
    head = git(bob, "rev-parse", "HEAD")
    after = hn(bob, "sync", "origin")
    assert after.code == 0, after.err
    (line,) = _held(after.out)
    assert f"git hn memory reanchor {anchor[:12]} {head[:12]} moves it there" in line, line
    assert hn(bob, "memory", "reanchor", anchor[:12], head[:12]).code == 0
    done = hn(bob, "sync", "origin")
    assert done.code == 0 and not _held(done.out), done.out
    assert git(remote, "for-each-ref", "refs/hn/memory/")
    memories = recall_json(bob, "--include-untrusted")["memories"]
    assert [(m["data"]["content"], m["anchor"]["commit"]) for m in memories] == [("Bob decided on his commit", head)]


def test_a_push_urls_line_says_the_memory_follows_the_push_only_where_the_hooks_run(tmp_path):
    """(f170) A remote that pushes to a fork: the line for the fork's missing commit said "the
    memory follows that push" also without git-hn's pre-push hook. Without it the line says to
    sync after the push; with it, as before."""
    for hooks in (False, True):
        (tmp_path / str(hooks)).mkdir()
        _upstream, fork, alice = fetch_here_push_there(tmp_path / str(hooks))
        assert hn(alice, "init", "--name", "Alice").code == 0
        if hooks:
            assert hn(alice, "hooks", "install").code == 0
        commit = commit_on(alice, None, "two.txt")
        _record(alice, "anchored on two")
        synced = hn(alice, "sync")
        assert synced.code == 0, synced.err
        (line,) = _held(synced.out)
        if hooks:
            assert line.endswith("is on origin's push URL (branch main contains it: git push origin main; the memory "
                                 "follows that push, or git hn sync origin)"), line  # (f176: the branch named)
            continue
        assert line.endswith(f": 1 memory waits until commit {commit[:12]} is on origin's push URL (branch main "
                             "contains it: git push origin main, then git hn sync origin; this clone has no git-hn hooks "
                             "(git hn hooks install adds them), so the push does not carry the memory)"), line
        git(alice, "push", "-q", "origin", "main")
        assert not git(fork, "for-each-ref", "refs/hn/memory/")  # (as said: the push carried none)
        again = hn(alice, "sync")
        assert again.code == 0 and not _held(again.out), again.out
        assert git(fork, "for-each-ref", "refs/hn/memory/")


def _hint(err: str) -> list[str]:
    return [x for x in err.splitlines() if "waits until commit" in x]


def test_record_hint_says_to_pull_before_pushing_a_branch_behind_its_remote(tmp_path):
    """(f170) ``memory record``'s hint said "branch main: git push origin main" while main was
    behind origin/main: Git refuses that push as a non-fast-forward. It names the pull first;
    followed as said (hooks installed), the memory is published on the rebased commit. Not
    behind, the hint is as before."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "hooks", "install").code == 0
    first = commit_on(bob, None, "first.txt")
    r = _record(bob, "on Bob's first commit")
    assert _hint(r.err) and _hint(r.err)[0].endswith(
        f"waits until commit {first[:12]} is pushed (branch main: git push origin main; or git fetch origin if it is "
        "there already): later memories of this stream wait behind it"), r.err
    commit_on(alice, None, "alice.txt")
    assert push_waited(alice, "-q", "origin", "main").returncode == 0
    git(bob, "fetch", "-q", "origin")
    anchor = commit_on(bob, None, "bob.txt")
    (Path(bob) / ".git" / "hn" / "hints-said-v0").unlink(missing_ok=True)  # (said in full again)
    r = _record(bob, "Bob decided on his commit", "--stream", "label:second")
    (line,) = _hint(r.err)
    assert line.endswith(f"waits until commit {anchor[:12]} is pushed (branch main is behind origin/main, so Git "
                         "refuses its push: git pull --rebase origin main, then git push origin main): later "
                         "memories of this stream wait behind it"), line
    again = _hint(_record(bob, "and again", "--stream", "label:second").err)
    assert again and "(git pull --rebase origin main, then git push origin main; said in full" in again[0], again
    command = re.search(r"refuses its push: (git pull .*), then (git push .*)\): later", line)
    for each in command.groups():  # the advice, pasted into a shell, works
        done = subprocess.run(["sh", "-c", each], cwd=bob, capture_output=True, text=True)
        wait_publication(bob)
        assert done.returncode == 0, (each, done.stderr)
    head = git(bob, "rev-parse", "HEAD")
    assert git(remote, "rev-parse", "main") == head
    synced = hn(bob, "sync", "origin")
    assert synced.code == 0 and not _held(synced.out), synced.out
    assert len(git(remote, "for-each-ref", "refs/hn/memory/").splitlines()) == 2  # (both streams published)


def test_record_hint_for_a_branch_behind_says_what_follows_the_push_where_no_hooks_run(tmp_path):
    """(f174, a newcomer trial) In a clone without git-hn's hooks, ``memory record``'s hint for a
    branch behind its remote's said only ``git pull --rebase origin main, then git push origin
    main``; followed as said, no hook moved the memory to the rebased commit nor published it.
    It says, in sync's words for the same case (f170), to sync after the push, which names the
    reanchor; followed as said, the memory is published on the rebased commit. With the hooks,
    as before (the test above)."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    commit_on(alice, None, "alice.txt")
    git(alice, "push", "-q", "origin", "main")
    git(bob, "fetch", "-q", "origin")
    anchor = commit_on(bob, None, "bob.txt")
    r = _record(bob, "Bob decided on his commit")
    (line,) = _hint(r.err)
    assert line.endswith(f"waits until commit {anchor[:12]} is pushed (branch main is behind origin/main, so Git "
                         "refuses its push: git pull --rebase origin main, then git push origin main, then git hn "
                         "sync origin, which names the git hn memory reanchor that moves the memory to the rebased "
                         "commit; this clone has no git-hn hooks (git hn hooks install adds them), so neither the "
                         "rebase nor the push carries it): later memories of this stream wait behind it"), line
    again = _hint(_record(bob, "and again").err)
    assert again and ("(git pull --rebase origin main, then git push origin main, then git hn sync origin; said in "
                      "full") in again[0], again
    commands = re.search(r"refuses its push: (git pull .*), then (git push .*), then (git hn sync origin),", line)
    for command in commands.groups():  # the advice, pasted into a shell
        done = subprocess.run(["sh", "-c", command], cwd=bob, capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
    head = git(bob, "rev-parse", "HEAD")
    (held,) = _held(done.stdout)
    assert f"git hn memory reanchor {anchor[:12]} {head[:12]} moves it there" in held, held
    assert hn(bob, "memory", "reanchor", anchor[:12], head[:12]).code == 0
    synced = hn(bob, "sync", "origin")
    assert synced.code == 0 and not _held(synced.out), synced.out
    memories = recall_json(bob, "--include-untrusted")["memories"]
    assert sorted((m["data"]["content"], m["anchor"]["commit"]) for m in memories) == [
        ("Bob decided on his commit", head), ("and again", head)]
    assert git(remote, "for-each-ref", "refs/hn/memory/")


def test_record_hint_asks_git_nothing_more_unless_the_branch_is_behind(tmp_path):
    """(f170; record's fixed cost, issue 11) On a branch committed on since it was fetched, the
    hint's walk already shows the remote-tracking tip is an ancestor of HEAD: no Git process more
    than before (one ``rev-list``, no ``merge-base``). Behind, one ``merge-base --is-ancestor`` and
    (f174: where the hooks run, for the words) one ``rev-parse --git-path hooks``."""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    commit_on(bob, None, "one.txt")
    commit_on(bob, None, "two.txt")
    for behind in (False, True):
        if behind:
            commit_on(alice, None, "alice.txt")
            git(alice, "push", "-q", "origin", "main")
            git(bob, "fetch", "-q", "origin")
            commit_on(bob, None, "three.txt")
        (Path(bob) / ".git" / "hn" / "hints-said-v0").unlink(missing_ok=True)
        trace = tmp_path / f"trace-{behind}"
        trace.mkdir()
        r = hn_proc(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                    "--content", f"behind {behind}", "--stream", f"label:s{int(behind)}", env={"GIT_TRACE2_EVENT": str(trace)})
        assert r.code == 0
        assert (b"is behind origin/main" in r.err_bytes) is behind, r.err_bytes
        runs = [argv[0] for argv in git_processes(trace)]
        assert runs.count("rev-list") == 1 and runs.count("merge-base") == (1 if behind else 0), runs
        hooks_asked = [argv for argv in git_processes(trace) if argv[:3] == ["rev-parse", "--git-path", "hooks"]]
        assert len(hooks_asked) == (1 if behind else 0), runs
