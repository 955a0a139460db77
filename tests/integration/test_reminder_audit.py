"""The lost-anchor and at-risk reminders (``replication/lost.py``, ``atrisk.py``) against what a
hostile-remote audit did to them: pushes too big for a command line, remotes that never answer,
records left behind by a rename, files that are not files. Real repositories, a real bare
remote, real pushes with the hooks installed; the pre-push body is also run in-process with a
crafted hook input where a real push of that size would take minutes."""

from __future__ import annotations

import subprocess
import time
from helpers import commit_on, git, git_processes, hn, shared_remote, wait_publication
from servers import silent_git_server


def _record(repo, content) -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _push(repo, *args) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", "push", "-q", *args], cwd=repo, capture_output=True, text=True)
    wait_publication(repo)
    assert proc.returncode == 0, proc.stderr
    return proc


def _records(repo, prefix: str) -> list:
    directory = repo / ".git" / "hn" / "replication"
    return sorted(p for p in directory.iterdir() if p.name.startswith(prefix)) if directory.is_dir() else []


def _lost_on_origin(tmp_path):
    """Alice (hooks installed) publishes a memory on branch feature, then deletes the branch on
    origin: a lost-anchor record. (remote, alice, the commit, the memory)"""
    remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "checkout", "-q", "-b", "feature")
    (a / "f1.txt").write_text("f1\n")
    git(a, "add", "f1.txt")
    git(a, "commit", "-q", "-m", "f1")
    c1 = git(a, "rev-parse", "HEAD")
    mem = _record(a, "decided on feature")
    _push(a, "origin", "feature")
    git(a, "checkout", "-q", "main")
    assert f"takes commit {c1[:12]} off origin" in _push(a, "origin", "--delete", "feature").stderr
    assert _records(a, "lost-")
    return remote, a, c1, mem


def _pre_push(repo, data: bytes, capsys) -> tuple[int, str]:
    """The pre-push body in-process, with hook input ``data``: (status, what it wrote)."""
    import os

    from git_hn.service.hook_runs import run_pre_push
    from git_hn.store.repo import open_repo

    old = os.getcwd()
    os.chdir(repo)
    try:
        r = open_repo(str(repo))
        try:
            code = run_pre_push(r, "origin", data)
        finally:
            r.close()
    finally:
        os.chdir(old)
    wait_publication(repo)
    return code, capsys.readouterr().err


def test_a_push_of_many_tags_with_a_lost_anchor_goes_through(tmp_path, capsys):
    """An audit: with a lost-anchor record, ``git push origin --tags`` of 80,000 tags was refused
    in warn mode (every pushed tip on one ``rev-list`` command line: E2BIG). The tips go once each
    on its standard input; the push goes on, and the reminder is still said."""
    _remote, a, c1, _mem = _lost_on_origin(tmp_path)
    main = git(a, "rev-parse", "main")
    zero = "0" * 40
    data = "".join(f"refs/tags/t{i:06d} {main} refs/tags/t{i:06d} {zero}\n" for i in range(120_000)).encode()
    code, err = _pre_push(a, data, capsys)
    assert code == 0, err
    assert err.startswith(f"git-hn: commit {c1[:12]}, which memory"), err
    assert err.count("\n") == 1, err


def test_a_push_deleting_many_branches_still_warns_of_the_anchor_it_takes(tmp_path, capsys):
    """The same for a push that deletes (or force-updates) more branches than a command line
    holds an ``--exclude`` for each: the other tracking refs' tips are given on the standard
    input, and the commit the push takes off is still named."""
    _remote, a, _c1, _mem = _lost_on_origin(tmp_path)
    git(a, "checkout", "-q", "-b", "second")
    (a / "f2.txt").write_text("f2\n")
    git(a, "add", "f2.txt")
    git(a, "commit", "-q", "-m", "f2")
    c2 = git(a, "rev-parse", "HEAD")
    _record(a, "decided on second")
    _push(a, "origin", "second")
    main = git(a, "rev-parse", "main")
    zero = "0" * 40
    long = "x" * 120
    data = (f"(delete) {zero} refs/heads/second {c2}\n"
            + "".join(f"(delete) {zero} refs/heads/{long}{i:06d} {main}\n" for i in range(20_000))).encode()
    code, err = _pre_push(a, data, capsys)
    assert code == 0, err
    assert f"git-hn: this push takes commit {c2[:12]} off origin, and memory" in err, err


def _keep_listing_to(monkeypatch, url: str, branches: bool = False) -> list:
    """Every ``ls-remote`` of the keep branches (``lost.kept_there``) in this process goes to
    ``url``; the returned list gets each one's timeout. ``branches``: the pre-push's question for
    the remote's branches (``atrisk.asker``, ``--heads``) goes there too (not counted)."""
    from git_hn.store.git import Git

    real_run, asked = Git.run, []

    def redirected(self, args, **kwargs):
        keeps = args and args[0] == "ls-remote" and "refs/heads/hn-anchor/*" in args
        if keeps or (branches and args and args[0] == "ls-remote" and "--heads" in args):
            if keeps:
                asked.append(kwargs.get("timeout"))
            args = [*args[:args.index("--") + 1], url, *args[args.index("--") + 2:]]
        return real_run(self, args, **kwargs)

    monkeypatch.setattr(Git, "run", redirected)
    return asked


HOLD = 8.0  # seconds the silent server holds a question: more than any bound the tests set


def test_a_sync_asks_for_the_keep_branches_within_its_stall_timeout(tmp_path, monkeypatch):
    """An audit: ``lost.kept_there``'s ``ls-remote`` had Git's 300 s: a sync with
    ``hn.syncStallTimeout`` 3 took 301 s. It is bounded by the stall timeout; the remote that
    did not answer changes nothing (the reminder stays, the record too)."""
    _remote, a, c1, _mem = _lost_on_origin(tmp_path)
    git(a, "config", "--replace-all", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
    git(a, "config", "hn.syncStallTimeout", "1")
    before = [p.read_bytes() for p in _records(a, "lost-")]
    with silent_git_server(HOLD) as url:
        asked = _keep_listing_to(monkeypatch, url)
        start = time.monotonic()
        r = hn(a, "sync")
        took = time.monotonic() - start
    assert asked and took < HOLD - 2, (asked, took)
    assert r.code == 0, r.err
    assert f"Anchors of origin: commit {c1[:12]}" in r.out, r.out
    assert [p.read_bytes() for p in _records(a, "lost-")] == before


def test_a_push_keeps_the_keep_note_until_the_remote_answers(tmp_path, monkeypatch, capsys):
    """An audit: a push waited 300 s in its hook for the keep branches, then dropped the note
    unanswered, and every later push repeated the reminder its command had ended. The question
    has the hook's bound; the note stays until an answer, and the answer ends the reminder."""
    from git_hn.service import hook_runs

    _remote, a, c1, _mem = _lost_on_origin(tmp_path)
    git(a, "config", "--replace-all", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
    _push(a, "origin", f"{c1}:refs/heads/hn-anchor/{c1[:12]}")  # the reminder's command: noted
    (note,) = [p for p in _records(a, "lost-") if p.name.endswith(".keep")]
    monkeypatch.setattr(hook_runs, "ATRISK_TIMEOUT", 1.0)
    main = git(a, "rev-parse", "main")
    data = f"refs/heads/main {main} refs/heads/main {main}\n".encode()
    with silent_git_server(HOLD) as url:  # (the remote's branches, asked before a reminder, unanswered too)
        asked = _keep_listing_to(monkeypatch, url, branches=True)
        start = time.monotonic()
        code, err = _pre_push(a, data, capsys)
        took = time.monotonic() - start
    assert asked == [1.0] and took < HOLD - 2, (asked, took)
    assert code == 0 and f"commit {c1[:12]}, which memory" in err, err  # (unanswered: said as before)
    assert "as of your last fetch of origin" in err, err  # (the branches were not asked either)
    assert note.exists()
    monkeypatch.undo()
    code, err = _pre_push(a, data, capsys)  # the remote answers now: kept there, all ends
    assert code == 0 and err == "", err
    assert _records(a, "lost-") == []


def test_settling_a_stopped_publication_asks_the_push_url_within_the_stall_timeout(tmp_path):
    """An audit: ``given_record._asked`` (what a stopped publication offered a remote with a
    push URL of its own) waited Git's 300 s. It has the sync's stall timeout."""
    import os

    from git_hn.service.replication.given_record import settle_stopped
    from git_hn.store import given
    from git_hn.store.repo import open_repo

    remote, (a,) = shared_remote(tmp_path, "Alice")
    mem = _record(a, "offered, then stopped")
    ref = f"refs/hn/memory/{mem['actor']}/{mem['stream'][7:]}"
    git(a, "config", "hn.syncStallTimeout", "1")
    with silent_git_server(HOLD) as url:
        git(a, "config", "remote.origin.pushurl", url)
        old = os.getcwd()
        os.chdir(a)
        repo = open_repo(str(a))
        try:
            given.offer(repo, "origin", {ref: git(a, "rev-parse", ref)}, push=2 ** 22 + 1)
            start = time.monotonic()
            settle_stopped(repo, "origin", {}, str(remote))
            took = time.monotonic() - start
        finally:
            repo.close()
            os.chdir(old)
    assert took < HOLD - 2, took


def _at_risk_on_origin(tmp_path):
    """Bob (hooks installed) publishes a memory while only branch feature holds its anchor: an
    at-risk record. (remote, bob)"""
    remote, (bob,) = shared_remote(tmp_path, "Bob")
    git(bob, "fetch", "-q", "origin")
    git(bob, "remote", "set-head", "origin", "main")
    assert hn(bob, "hooks", "install").code == 0
    commit_on(bob, "feature", "f1.txt")
    _record(bob, "decided on feature")
    _push(bob, "-u", "origin", "feature")
    assert [p for p in _records(bob, "atrisk-") if "." not in p.name]
    return remote, bob


def test_a_record_of_many_url_lines_costs_one_url_question_per_read(tmp_path, monkeypatch):
    """An audit: ``atrisk._read`` asked Git for the remote's URL once per ``url`` line; a corrupt
    record repeating it 14,000 times ran 28,002 ``git config`` processes in one sync."""
    _remote, bob = _at_risk_on_origin(tmp_path)
    (record,) = [p for p in _records(bob, "atrisk-") if "." not in p.name]
    lines = record.read_text().splitlines(keepends=True)
    url = next(line for line in lines if line.startswith("url "))
    record.write_text("".join(lines[:1] + [url] * 2000 + lines[1:]))
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    assert hn(bob, "sync").code == 0
    asked = [argv for argv in git_processes(trace) if argv[-1:] == ["remote.origin.url"]]
    assert 0 < len(asked) < 20, len(asked)


def test_a_fifo_at_the_checked_stamp_does_not_hold_a_push(tmp_path):
    """An audit: ``atrisk.due`` opened ``<record>.checked`` with a plain ``open()``, and a FIFO
    planted there held every ``git push`` for good. It is read as every private file is
    (no FIFO, no symbolic link, bounded): the push asks the remote, and goes on."""
    import os
    import threading

    from git_hn.service.replication import atrisk
    from git_hn.store.repo import open_repo

    _remote, bob = _at_risk_on_origin(tmp_path)
    (record,) = [p for p in _records(bob, "atrisk-") if "." not in p.name]
    stamp = record.with_name(record.name + ".checked")
    stamp.unlink(missing_ok=True)
    os.mkfifo(stamp)
    repo = open_repo(str(bob))
    answer = []
    thread = threading.Thread(target=lambda: answer.append(atrisk.due(repo, "origin")), daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive():  # (let the blocked reader go before failing)
        os.close(os.open(stamp, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
    repo.close()
    assert answer == [True]
    commit_on(bob, None, "f2.txt")
    pushed = subprocess.run(["git", "push", "-q", "origin", "feature"], cwd=bob, capture_output=True, text=True,
                            timeout=60)
    wait_publication(bob)
    assert pushed.returncode == 0, pushed.stderr


def _squashed_on_the_server(tmp_path, remote) -> None:
    server = tmp_path / "server-side"
    git(tmp_path, "clone", "-q", str(remote), str(server))
    git(server, "merge", "-q", "--squash", "origin/feature")
    git(server, "commit", "-q", "-m", "squashed")
    git(server, "push", "-q", "origin", "main")
    git(server, "push", "-q", "origin", "--delete", "feature")


def test_a_renamed_remote_keeps_its_reminders(tmp_path):
    """An audit: after ``git remote rename origin upstream`` the records stayed under origin's
    name digest, and the reminders stopped for good. A name without a record takes over the
    orphaned one made for its URL (with its ``.checked`` stamp)."""
    remote, bob = _at_risk_on_origin(tmp_path)
    _squashed_on_the_server(tmp_path, remote)
    assert "Anchors of origin: commit" in hn(bob, "sync").out
    git(bob, "remote", "rename", "origin", "upstream")
    synced = hn(bob, "sync", "upstream")
    assert synced.code == 0, synced.err
    assert "Anchors of upstream: commit" in synced.out, synced.out
    assert "git push upstream " in synced.out
    names = [p.name for p in _records(bob, "")]
    assert not any(n.startswith(("atrisk-", "lost-")) and n.split("-", 1)[1].split(".")[0] != _digest("upstream")
                   for n in names), names


def _digest(remote: str) -> str:
    from git_hn.store.lock import remote_digest

    return remote_digest(remote)


def test_a_lost_anchor_record_follows_a_rename_to_the_next_push(tmp_path):
    _remote, a, c1, _mem = _lost_on_origin(tmp_path)
    git(a, "remote", "rename", "origin", "upstream")
    (a / "later.txt").write_text("later\n")
    git(a, "add", "later.txt")
    git(a, "commit", "-q", "-m", "later")
    later = _push(a, "upstream", "main")
    assert f"git-hn: commit {c1[:12]}, which memory" in later.stderr and "git push upstream " in later.stderr, \
        later.stderr


def test_another_form_of_the_same_url_keeps_the_reminder(tmp_path):
    """An audit: ``git remote set-url origin file:///…`` for the same repository deleted the
    record (its URL digest differed), and the reminder with it. The record is kept, and taken over
    once the remote shows it is the repository the record was made for."""
    remote, bob = _at_risk_on_origin(tmp_path)
    _squashed_on_the_server(tmp_path, remote)
    assert "Anchors of origin: commit" in hn(bob, "sync").out
    git(bob, "remote", "set-url", "origin", f"file://{remote}")
    synced = hn(bob, "sync")
    assert synced.code == 0, synced.err
    assert "Anchors of origin: commit" in synced.out, synced.out
    assert "Anchors of origin: commit" in hn(bob, "sync").out  # (taken over: no question again)


def test_a_record_for_another_url_waits_while_the_remote_does_not_answer(tmp_path, monkeypatch):
    """Neither said nor dropped while the remote cannot say which repository it is: the next
    question that is answered decides."""
    remote, a, c1, _mem = _lost_on_origin(tmp_path)
    (record,) = [p for p in _records(a, "lost-") if "." not in p.name]
    before = record.read_bytes()
    git(a, "remote", "set-url", "origin", f"file://{remote}")
    git(a, "config", "remote.origin.pushurl", str(tmp_path / "nowhere.git"))
    assert "Anchors of origin" not in hn(a, "sync").out
    assert record.read_bytes() == before
    git(a, "config", "--unset", "remote.origin.pushurl")
    assert f"Anchors of origin: commit {c1[:12]}" in hn(a, "sync").out
    assert record.read_bytes() != before  # (its URL line is the new one's)


def _pasted(repo, line: str, after: str, before: str = "") -> None:
    """Run the command ``line`` suggests (what follows ``after``, up to ``before``) in a shell,
    as a reader pasting it would."""
    command = line.split(after, 1)[1]
    command = command.split(before, 1)[0] if before else command
    subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True)


def test_a_remote_name_the_contract_refuses_gets_no_memory_and_no_reminder(tmp_path):
    """An audit: the pre-push hook published memory to a remote named ``x$(touch${IFS}…)``
    (CONTRACT §3.2 refuses it; ``git hn sync`` does) and printed it unquoted in the command to
    paste, which then ran the payload. Such a push publishes nothing, remembers nothing, and says
    why in one line."""
    _remote, a, _c1, _mem = _lost_on_origin(tmp_path)
    pwned = tmp_path / "PWNED"
    other = tmp_path / "r2.git"
    git(tmp_path, "init", "-q", "--bare", str(other))
    name = f"x$(touch${{IFS}}{pwned})"
    git(a, "remote", "add", name, str(other))
    git(a, "checkout", "-q", "-b", "second")
    (a / "f2.txt").write_text("f2\n")
    git(a, "add", "f2.txt")
    git(a, "commit", "-q", "-m", "f2")
    _record(a, "on second")
    from git_hn.core.gostr import quoted

    said = (f'git-hn: this push publishes no memory and keeps no reminder for it: invalid remote name "{quoted(name)}"; a '
            "remote git-hn replicates with is named by letters, digits and _ (then also . and -; no .., no final "
            "., at most 128): git remote rename OLD NEW\n")
    assert _push(a, name, "second").stderr == said
    assert git(other, "for-each-ref", "refs/hn") == ""
    deleted = _push(a, name, "--delete", "second")  # (it takes the memory's anchor off that remote)
    assert deleted.stderr == said
    assert not pwned.exists()
    assert not [p for p in _records(a, "lost-") if _digest(name) in p.name]


def test_names_in_the_commands_to_paste_are_shell_quoted(tmp_path):
    """A branch may be named ``x$(touch${IFS}…)``: the line for a single-branch clone's push of
    it gave ``git remote set-branches --add origin <branch>`` unquoted, and pasting it ran the
    payload. Every remote and branch name inside a suggested command is shell-quoted (a remote
    name §3.2 allows needs none)."""
    from git_hn.service.replication import lost

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    git(a, "config", "--replace-all", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
    pwned = tmp_path / "PWNED"
    branch = f"x$(touch${{IFS}}{pwned})"
    git(a, "checkout", "-q", "-b", branch)
    (a / "f2.txt").write_text("f2\n")
    git(a, "add", "f2.txt")
    git(a, "commit", "-q", "-m", "f2")
    _record(a, "on the oddly named branch")
    pushed = _push(a, "origin", branch)
    line = next(x for x in pushed.stderr.splitlines() if "set-branches" in x)
    assert f"git remote set-branches --add origin '{branch}' and git fetch origin track it" in line, line
    _pasted(a, line, "; ", " and git fetch")
    assert not pwned.exists()
    assert git(a, "config", "--get-all", "remote.origin.fetch").splitlines()[-1].endswith(f"/{branch}")
    reminder = lost.line(f"x$(touch${{IFS}}{pwned})", {"1" * 40: "sha256:" + "2" * 64})
    assert f"git push 'x$(touch${{IFS}}{pwned})' {'1' * 40}:refs/heads/hn-anchor/" in reminder
    assert f"git hn replication forget-anchors 'x$(touch${{IFS}}{pwned})' {'1' * 12} ends" in reminder


def test_many_discarded_anchors_are_compared_on_standard_input(tmp_path):
    """``gate.same_change`` (a held stream's discarded anchor and the commit of HEAD that makes
    the same change) named every such commit on ``git log``'s command line, one a held stream:
    as many as the pushed tips above, over the system's limit. They go on standard input."""
    from git_hn.service.replication.gate import same_change
    from git_hn.store.repo import open_repo
    from helpers import make_repo

    r = make_repo(tmp_path / "r")
    git(r, "checkout", "-q", "-b", "side")
    (r / "f.txt").write_text("the change\n")
    git(r, "add", "f.txt")
    git(r, "commit", "-q", "-m", "the change")
    old = git(r, "rev-parse", "HEAD")
    git(r, "checkout", "-q", "main")
    git(r, "cherry-pick", old, env={"GIT_COMMITTER_DATE": "2001-01-01T00:00:00"})  # (a rebase's copy)
    new = git(r, "rev-parse", "HEAD")
    git(r, "branch", "-q", "-D", "side")
    n = 80_000
    stream = "".join(f"commit refs/heads/junk\ncommitter J <j@example.invalid> {1_700_000_000 + i} +0000\n"
                     f"data {len(str(i)) + 2}\nj{i}\n\n" for i in range(n)).encode()
    git(r, "fast-import", "--quiet", input=stream)
    junk = git(r, "rev-list", "refs/heads/junk").split()
    assert len(junk) == n
    repo = open_repo(str(r))
    try:
        assert same_change(repo, {old, *junk}) == {old: new}
    finally:
        repo.close()


def _hn_within(repo, *args, timeout=20):
    """``git hn ARGS`` that must end within ``timeout`` seconds: (status, stderr)."""
    import os
    import sys

    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "git_hn", *args], cwd=repo, capture_output=True, text=True,
                          timeout=timeout, env=env)
    return proc.returncode, proc.stderr


def test_a_fifo_at_the_selection_file_does_not_hold_a_sync(tmp_path):
    """An audit: the command's early look at the saved selection (``cli.main``, before its
    imports) opened it with a plain ``open()``, and a FIFO planted there held ``git hn sync``
    for good. The early look says "not exact" and the sync's own read refuses it in one line."""
    import os

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "replication", "select", "--memory", "sha256:" + "a" * 64).code == 0
    (selection,) = (a / ".git" / "hn" / "replication" / "selections").iterdir()
    selection.unlink()
    os.mkfifo(selection, 0o600)
    code, err = _hn_within(a, "sync")
    assert code == 1 and err.count("\n") == 1 and "not a regular file" in err, err


def test_a_fifo_at_the_publication_journal_holds_neither_sync_nor_the_publisher(tmp_path):
    """An audit: the publication journal (``given-v0``) was opened for writing without
    ``O_NONBLOCK``, so a FIFO there held ``git hn sync`` for good, and a push's background
    publisher kept the publication lock, which every later sync then waited for."""
    import os

    _remote, (a,) = shared_remote(tmp_path, "Alice")
    assert hn(a, "hooks", "install").code == 0
    _record(a, "published through a journal that is a FIFO")
    journal = a / ".git" / "hn" / "replication" / "given-v0"
    journal.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    journal.unlink(missing_ok=True)
    os.mkfifo(journal, 0o600)
    code, err = _hn_within(a, "sync")
    # (within the bound; §0.5's private-file words, as every private file's, and what to do)
    assert f"private identity path {journal} is not a regular file: remove it" in err, err
    commit_on(a, None, "f.txt")
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=a, capture_output=True, text=True,
                            timeout=60)
    assert pushed.returncode == 0, pushed.stderr
    wait_publication(a, timeout=20)  # (the publisher ends: it holds no lock for good)
    journal.unlink()
    code, err = _hn_within(a, "sync")
    assert code == 0, err


def _forked(tmp_path):
    """Alice's lost-anchor record on origin, then the usual fork setup: ``git remote rename
    origin upstream`` and ``git remote add origin <fork>`` (a fork holding the branches, none of
    the memory refs). (alice, the commit, the fork)"""
    _remote, a, c1, _mem = _lost_on_origin(tmp_path)
    assert f"Anchors of origin: commit {c1[:12]}" in hn(a, "sync", "origin").out
    fork = tmp_path / "fork.git"
    git(tmp_path, "init", "-q", "--bare", str(fork))
    git(a, "push", "-q", str(fork), "main")
    git(a, "remote", "rename", "origin", "upstream")
    git(a, "remote", "add", "origin", str(fork))
    return a, c1, fork


def test_a_fork_setup_leaves_the_reminder_with_the_renamed_remote(tmp_path):
    """A review: after ``git remote rename origin upstream && git remote add origin <fork>``
    the record stayed under origin's name; upstream never reminded, and the next sync with the
    fork (which holds none of the memory refs) deleted it. A record made for the URL of another
    configured remote is that remote's."""
    a, c1, _fork = _forked(tmp_path)
    synced = hn(a, "sync", "upstream")
    assert synced.code == 0, synced.err
    assert f"Anchors of upstream: commit {c1[:12]}" in synced.out, synced.out
    assert "Anchors of" not in hn(a, "sync", "origin").out
    assert f"Anchors of upstream: commit {c1[:12]}" in hn(a, "sync", "upstream").out


def test_a_sync_with_the_fork_first_hands_the_reminder_to_the_renamed_remote(tmp_path):
    a, c1, _fork = _forked(tmp_path)
    synced = hn(a, "sync", "origin")
    assert synced.code == 0, synced.err
    assert "Anchors of" not in synced.out, synced.out
    assert f"Anchors of upstream: commit {c1[:12]}" in hn(a, "sync", "upstream").out


def test_a_push_to_the_fork_never_takes_the_renamed_remotes_reminder(tmp_path):
    """The reviewer's concern: a push to the new origin that remembers an anchor of its own read
    the record made for upstream's URL with any URL, and merged upstream's commits into the
    fork's reminder (and took them from upstream)."""
    from git_hn.service.replication import atrisk, lost
    from git_hn.store.repo import open_repo

    a, c1, _fork = _forked(tmp_path)
    other = git(a, "rev-parse", "main")
    repo = open_repo(str(a))
    try:
        lost.remember(repo, "origin", [("sha256:" + "ab" * 32, other)])
        atrisk.note(repo, "origin", [("sha256:" + "cd" * 32, other)])
        mine, key = lost.recorded(repo, "origin")
        theirs, their_key = lost.recorded(repo, "upstream")
    finally:
        repo.close()
    assert c1 not in mine and key is not None, mine
    assert c1 in theirs and their_key is not None, theirs
    assert f"Anchors of upstream: commit {c1[:12]}" in hn(a, "sync", "upstream").out


def test_a_misplaced_record_adds_its_commits_to_the_owners_own_record(tmp_path):
    """When the remote the record was made for has a record of its own, the misplaced one's
    commits are added to it (never said for, nor taken by, the name holding it)."""
    from git_hn.service.replication.lost import url_key
    from git_hn.store.repo import open_repo

    a, c1, _fork = _forked(tmp_path)
    other = git(a, "rev-parse", "main")
    repo = open_repo(str(a))
    try:
        key = url_key(repo, "upstream")
    finally:
        repo.close()
    own = a / ".git" / "hn" / "replication" / f"lost-{_digest('upstream')}"
    own.write_text(f"url {key}\n{other} sha256:{'ab' * 32}\n")
    own.chmod(0o600)
    synced = hn(a, "sync", "origin")
    assert "Anchors of" not in synced.out, synced.out
    assert not (a / ".git" / "hn" / "replication" / f"lost-{_digest('origin')}").exists()
    assert own.read_text() == f"url {key}\n{other} sha256:{'ab' * 32}\n{c1} {_record_of(a, c1)}\n"


def _record_of(repo, commit: str) -> str:
    """The memory remembered on ``commit`` in any lost record of ``repo``."""
    for path in _records(repo, "lost-"):
        for line in path.read_text().splitlines():
            if line.startswith(commit + " "):
                return line.split(" ")[1]
    raise AssertionError(commit)
