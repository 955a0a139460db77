"""A system without ``/proc`` (macOS, the BSDs), as a portability trial (S76) ran it: real
repositories, a real bare remote, real pushes and fetches with the hooks installed, run with
``/proc`` hidden (``noproc.without_proc``); ps(1) is the system's own, answering from the live
process table, or absent. Linux itself is unchanged (the other tests). Hiding ``/proc`` needs root
and unshare(1): CI runs as root, so these tests run there; elsewhere each skips, its reason shown
in the summary (``-rs`` in the project's pytest options). The setsid test needs neither (a PATH
without setsid) and runs everywhere."""

from __future__ import annotations

import os

import pytest

from helpers import git
from noproc import needs_namespaces, without_proc
from test_unfetched_tips import _alice_published_bob_not_fetched



def _hn_lines(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if x.startswith("git-hn:")]


@needs_namespaces
def test_an_unforced_push_git_refuses_is_left_to_git_read_with_ps(tmp_path):
    """The trial: with hn.prePush=block and no /proc, an ordinary push Git refuses ("fetch
    first") was refused by git-hn, whose way out forced it with a lease on the remote's current
    tip: pasted, it took a teammate's commit off. ps(1) gives the command line: not forced."""
    remote, _alice, bob = _alice_published_bob_not_fetched(tmp_path)
    tip = git(remote, "rev-parse", "main")
    pushed = without_proc(tmp_path, ["git", "push", "origin", "main"], bob)
    assert pushed.returncode != 0 and "fetch first" in pushed.stderr, pushed.stderr
    assert not _hn_lines(pushed.stderr), pushed.stderr
    assert git(remote, "rev-parse", "main") == tip
    forced = without_proc(tmp_path, ["git", "push", "--force", "origin", "main"], bob)
    assert forced.returncode != 0 and f"origin's main is at {tip[:12]}, which this clone has not fetched" \
        in forced.stderr, forced.stderr
    assert git(remote, "rev-parse", "main") == tip


@needs_namespaces
def test_a_push_whose_command_line_cannot_be_read_is_never_offered_forced(tmp_path):
    """No /proc and no ps: whether the push forces is unknown, so the refusal offers no command
    that forces it."""
    remote, _alice, bob = _alice_published_bob_not_fetched(tmp_path)
    tip = git(remote, "rev-parse", "main")
    pushed = without_proc(tmp_path / "nops", ["git", "push", "origin", "main"], bob, ps=False)
    assert pushed.returncode != 0, pushed.stderr
    lines = _hn_lines(pushed.stderr)
    assert len(lines) == 1 and lines[0] == (
        f"git-hn: origin's main is at {tip[:12]}, which this clone has not fetched: git fetch origin first, then "
        "push again (what the push takes off cannot be checked)"), pushed.stderr
    assert "force" not in pushed.stderr.replace("forced", ""), pushed.stderr
    assert git(remote, "rev-parse", "main") == tip


@needs_namespaces
def test_a_push_option_holding_dash_f_is_not_read_as_forcing(tmp_path):
    """A review: ps(1) joins the push's arguments with blanks, so ``-o "title=Fix -f flag"``
    read as ``-f``: the ordinary push Git refuses ("fetch first") was refused by git-hn with a way
    out that forced it, taking a teammate's commit off. Words that may belong to an option's
    value leave "forced or not" unknown: a refusal that offers nothing forcing."""
    remote, _alice, bob = _alice_published_bob_not_fetched(tmp_path)
    git(remote, "config", "receive.advertisePushOptions", "true")
    tip = git(remote, "rev-parse", "main")
    for args in (["-o", "title=Fix -f flag"], ["--push-option=x --force"], ["-o", "x --mirror"]):
        pushed = without_proc(tmp_path, ["git", "push", *args, "origin", "main"], bob)
        assert pushed.returncode != 0, pushed.stderr
        assert all("git fetch origin first, then push again" in x for x in _hn_lines(pushed.stderr)), pushed.stderr
        assert "force" not in pushed.stderr.replace("forced", ""), pushed.stderr
        assert git(remote, "rev-parse", "main") == tip


@needs_namespaces
def test_a_push_without_verify_starts_no_import_known_by_ps(tmp_path):
    """The trial: ``git push --no-verify`` without /proc ran a whole import from the fetch
    hook (the wrapper knew a push by ``/proc/$PPID/cmdline`` only) and said a false failure. ps(1)
    gives the command line there; any other Git command moving the same refs still starts git-hn."""
    from test_fetch_hook_quiet import QUIET_MAGIC, Team

    team = Team(tmp_path)
    team.quiet_with_all()
    team.quiet.write_text(team.quiet.read_text().replace(QUIET_MAGIC, "hn-quiet/9"))  # would not match
    runs = team.runs()
    git(team.b, "commit", "-q", "--allow-empty", "-m", "b's work")
    for args in (["push", "--no-verify", "origin", "HEAD:refs/heads/b-work"],
                 ["--no-pager", "push", "--no-verify", "origin", "HEAD:refs/heads/b-work2"]):
        proc = without_proc(tmp_path, ["git", *args], team.b)
        assert proc.returncode == 0 and "git-hn" not in proc.stderr, proc.stderr
        assert team.runs() == runs, args
    proc = without_proc(tmp_path, ["git", "update-ref", "refs/remotes/origin/elsewhere", "HEAD"], team.b)
    assert proc.returncode == 0 and team.runs() == runs + 1, proc.stderr  # not a push: git-hn runs


@needs_namespaces
def test_a_fetch_whose_options_hold_the_word_push_still_imports(tmp_path):
    """A review: ps(1) joins the fetch's arguments with blanks, so in ``git -c "http.userAgent=
    release push" fetch`` the wrapper took the value's second word for the command: a push, and no
    import ran, unsaid. From ps, an option of Git's that takes a value leaves the command unknown,
    and git-hn runs as for a fetch (so does a push given one: its import finds nothing to do)."""
    from test_fetch_hook_quiet import QUIET_MAGIC, Team

    team = Team(tmp_path)
    team.quiet_with_all()
    for n, args in enumerate((["-c", "http.userAgent=release push"], ["--git-dir=.git", "-c", "a.b=push"])):
        team.quiet.write_text(team.quiet.read_text().replace(QUIET_MAGIC, "hn-quiet/9"))  # would not match
        runs = team.runs()
        git(team.a, "commit", "-q", "--allow-empty", "-m", f"moves main {n}")
        git(team.a, "push", "-q", "origin", "main")
        proc = without_proc(tmp_path, ["git", *args, "fetch", "origin"], team.b)
        assert proc.returncode == 0, proc.stderr
        assert team.runs() == runs + 1, (args, proc.stderr)
    team.quiet.write_text(team.quiet.read_text().replace(QUIET_MAGIC, "hn-quiet/9"))
    runs = team.runs()
    proc = without_proc(tmp_path, ["git", "-c", "push.default=simple", "push", "--no-verify", "origin",
                                   "HEAD:refs/heads/b-work3"], team.b)
    assert proc.returncode == 0 and "git-hn" not in proc.stderr and team.runs() == runs + 1, proc.stderr


@needs_namespaces
def test_pre_commit_in_migration_mode_still_publishes_the_push_s_memory(tmp_path):
    """The trial: pre-commit installed after git-hn runs the wrapper as pre-push.legacy, from
    Python; without /proc the Git above it was not found, the publisher waited for pre-commit
    (which ends before Git sends the pack), and the memory was silently not published. ps(1)
    finds the Git above."""
    import os

    from helpers import wait_publication
    from test_hook_managers import PRE_COMMIT_MIGRATION, _executable, _memory_and_commit, _published, _team

    remote, a = _team(tmp_path)
    hooks = a / ".git" / "hooks"
    from helpers import hn

    assert hn(a, "hooks", "install").code == 0
    os.rename(hooks / "pre-push", hooks / "pre-push.legacy")  # what pre-commit install does
    _executable(hooks / "pre-push", PRE_COMMIT_MIGRATION)
    mem = _memory_and_commit(a)
    # (a slow remote: the push's Git outlives pre-commit by two seconds, as over a network)
    _executable(remote / "hooks" / "pre-receive", "#!/bin/sh\ncat >/dev/null\nsleep 2\n")
    proc = without_proc(tmp_path, ["git", "push", "-q", "origin", "main"], a,
                        env={"MARKER": str(tmp_path / "marker")})
    wait_publication(a)
    assert proc.returncode == 0, proc.stderr
    assert _published(remote, mem), proc.stderr


@needs_namespaces
def test_a_timed_out_remote_git_is_ended_with_what_it_started(tmp_path):
    """The trial: a network Git past its time bound without /proc had its ssh (and ProxyCommand)
    left running: nothing below it was found. Such a Git runs in a session of its own; its
    process group is ended with it (SIGTERM first). A real ``Child`` killed with /proc hidden."""
    import os
    import sys
    import time

    token = f"hn-noproc-{os.getpid()}-{time.monotonic_ns()}"
    script = (
        "import os, sys, time\n"
        "from git_hn.store import process\n"
        "c = process.popen(['sh', '-c', 'python3 -c \"import time; time.sleep(300)\" %s & wait'],\n"
        "                  stdin=process.DEVNULL, stdout=process.DEVNULL, stderr=process.DEVNULL,\n"
        "                  start_new_session=True)\n"
        "time.sleep(0.5)\n"
        "c.kill_tree()\n"
        "print(c.wait(timeout=10))\n" % token)
    proc = without_proc(tmp_path, [sys.executable, "-c", script], tmp_path)
    assert proc.returncode == 0, proc.stderr
    time.sleep(0.2)
    left = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                if token.encode() in fh.read():
                    left.append(int(name))
        except OSError:
            continue
    for pid in left:
        os.kill(pid, 9)
    assert not left, "the sleeping grandchild was left running"


@needs_namespaces
def test_many_force_pushed_branches_start_git_hn_once(tmp_path):
    """The trial: without /proc the fetch hook's once-per-fetch stamps were off (git-hn named
    the fetch's Git by /proc only), so each force-pushed branch of a fetch started git-hn again
    (40 branches: 40 starts). The wrapper hands the Git it runs in down to git-hn."""
    from test_fetch_hook_quiet import Team, _b_publishes_and_is_quiet, _force_push_branches

    team = Team(tmp_path)
    _b_publishes_and_is_quiet(team)
    _force_push_branches(team, [f"forced-{i}" for i in range(6)])
    runs = team.runs()
    proc = without_proc(tmp_path, ["git", "fetch", "origin"], team.b)
    assert proc.returncode == 0, proc.stderr
    assert git(team.b, "rev-parse", "origin/forced-3") == git(team.a, "rev-parse", "forced-3")
    started = team.log.read_text().splitlines()[runs:]
    assert started == ["hooks run reference-transaction committed quiet"], started


@needs_namespaces
@pytest.mark.parametrize("hidden", [("setsid", "timeout"), ("setsid", "timeout", "perl")])
def test_without_timeout_a_stalled_remote_holds_the_fetch_for_one_bound(tmp_path, bare_remote, http_backend, hidden):
    """The trial: without timeout(1) (macOS) the wrapper's quiet check had no time bound, and a
    remote that stalled its memory listing held ``git fetch`` 40 s (for good, one that never
    answers). A watchdog of the wrapper's bounds it the same, and leaves no process behind. Without
    perl too (a review) only Git is signalled: its remote helper, which had the wrapper's fd 3 (the
    pipe its ``$(…)`` reads to the end), held the fetch until the remote answered."""
    import subprocess
    import time

    from helpers import hn, make_repo

    url = http_backend(bare_remote("team.git"))
    server = http_backend.server(url)
    a = make_repo(tmp_path / "a")
    git(a, "remote", "add", "origin", url)
    git(a, "push", "-q", "-u", "origin", "main")
    assert hn(a, "init", "--name", "A").code == 0
    hn(a, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "x")
    assert hn(a, "sync", "origin").code == 0
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", url, str(b))
    assert hn(b, "init", "--name", "B").code == 0
    assert hn(b, "hooks", "install").code == 0
    assert hn(b, "replication", "select", "origin", "--all").code == 0
    git(b, "config", "hn.syncStallTimeout", "2")
    assert hn(b, "sync", "origin").code == 0  # imports
    assert hn(b, "sync", "origin").code == 0  # finds it up to date: the quiet record
    git(a, "commit", "-q", "--allow-empty", "-m", "moves the remote's main")
    git(a, "push", "-q", "origin", "main")
    server.hold_if = lambda body: b"command=ls-refs" in body and b"ref-prefix" not in body
    started = time.monotonic()
    try:
        proc = without_proc(tmp_path, ["git", "fetch", "origin"], b, hidden=hidden, timeout=40)
    except subprocess.TimeoutExpired:
        proc = None
    took = time.monotonic() - started
    assert proc is not None, "the fetch was held past 40 s"
    assert proc.returncode == 0 and git(b, "rev-parse", "origin/main") == git(a, "rev-parse", "main")
    assert ("git-hn: memory import from origin failed: replication advertisement failed for remote origin; the "
            "remote did not answer within 2 s (git config hn.syncStallTimeout); run git hn sync origin"
            in proc.stderr.splitlines()), proc.stderr
    assert took < 15, took
    assert len([r for r in server.requests if r.get("held")]) == 1  # asked once
    # (the watchdog's sleep ended with it: one of this test's, run in b; a concurrent test's is not)
    left = [p for p in subprocess.run(["pgrep", "-f", "-x", "sleep 2"], capture_output=True, text=True).stdout.split()
            if os.path.realpath(f"/proc/{p}/cwd").startswith(str(tmp_path))]
    assert not left, left


@needs_namespaces
def test_a_fetch_given_an_earlier_fetch_s_process_id_still_imports(tmp_path):
    """The trial: without /proc the per-fetch stamp named the fetch's Git by its ID alone
    ("<pid> -"), so a later fetch the system gave the same ID matched it and never imported.
    Here the stamp an earlier fetch of that ID left is written by the shell that then becomes
    the fetch (exec: same ID); ps(1)'s start time tells them apart."""
    from test_fetch_hook_quiet import Team

    team = Team(tmp_path)
    team.quiet_with_all()
    rec = team.record("second")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "moves the remote's main")
    git(team.a, "push", "-q", "origin", "main")
    stamp = team.quiet.parent / (team.quiet.name + ".seen")
    proc = without_proc(tmp_path, ["sh", "-c", 'printf "hn-seen/0 %s - imported\\n" $$ > "$0"; exec git fetch origin',
                                   str(stamp)], team.b)
    assert proc.returncode == 0, proc.stderr
    tip = git(team.a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")
    assert team.accepted(rec) == tip, proc.stderr



def test_a_fetch_named_without_a_start_time_leaves_no_stamp_a_later_one_matches(tmp_path):
    """A reread: with neither /proc nor ps(1) the wrapper names its fetch "<pid> -", and git-hn
    took that for a name: a later fetch the system gave the same ID matched the stamp and
    imported nothing. A name without a start time is none (no stamp is matched or written)."""
    from test_fetch_hook_quiet import Team

    team = Team(tmp_path)
    team.quiet_with_all()
    rec = team.record("second")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "moves the remote's main")
    git(team.a, "push", "-q", "origin", "main")
    stamp = team.quiet.parent / (team.quiet.name + ".seen")
    proc = without_proc(tmp_path, ["sh", "-c", 'printf "hn-seen/0 %s - imported\\n" $$ > "$0"; exec git fetch origin',
                                   str(stamp)], team.b, ps=False)
    assert proc.returncode == 0, proc.stderr
    tip = git(team.a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")
    assert team.accepted(rec) == tip, proc.stderr


@needs_namespaces
def test_git_hn_takes_a_fetch_named_without_a_start_time_for_none(tmp_path):
    """The same reread, git-hn's half (a review: the test above passes with the wrapper's half
    alone): given ``HN_FETCH_CALLER`` "<pid> -", git-hn matched it against the note of a failed
    import, so a fetch the system gave the ID of an earlier one whose import failed imported
    nothing. The note is written here for this fetch's own ID (``$$`` of the shell that then
    becomes ``git fetch``); the fetch imports all the same, and names no "<pid> -" in it."""
    from test_fetch_hook_quiet import Team

    from git_hn.store import replication
    from git_hn.store.repo import open_repo

    team = Team(tmp_path)
    team.quiet_with_all()
    rec = team.record("second")
    git(team.a, "commit", "-q", "--allow-empty", "-m", "moves the remote's main")
    git(team.a, "push", "-q", "origin", "main")
    repo = open_repo(str(team.b))
    try:
        failed = replication.failed_path(repo, "origin")
        replication.note_failed(repo, "origin", "1 -")  # (a private file; its line is this fetch's below)
    finally:
        repo.close()
    proc = without_proc(tmp_path, ["sh", "-c", 'printf "%s -\\n" $$ > "$0"; exec git fetch origin', failed],
                        team.b, ps=False)
    assert proc.returncode == 0, proc.stderr
    tip = git(team.a, "rev-parse", f"refs/hn/memory/{rec['actor']}/{rec['stream'][7:]}")
    assert team.accepted(rec) == tip, proc.stderr
    assert " -" not in (team.quiet.parent / (team.quiet.name + ".seen")).read_text()


def test_without_setsid_the_fetch_wrappers_question_asks_no_passphrase(tmp_path, bare_remote):
    """The trial: without setsid(1) the wrapper's own question to the remote kept the terminal,
    so ssh asked for a passphrase in the middle of ``git fetch``; unanswered, git-hn blamed the
    remote ("did not answer within"). perl's setsid starts it without one (macOS has perl): it
    fails at once, and git-hn says to give Git the credentials without a prompt."""
    from noproc import path_without
    from test_passphrase_prompts import PROMPT, WAY_OUT, _at_terminal, _moved, _team

    bob, alice, env = _team(tmp_path, bare_remote)
    env = {**env, "PATH": str(path_without(tmp_path, ("setsid",)))}
    for note in ("moves main", "moves main again"):  # (an import, then a fetch that finds it quiet)
        _moved(alice, note)
        code, said, _took = _at_terminal(bob, ["git", "fetch", "origin"], {**env, "AGENT": "1"}, answers=0)
        assert code == 0 and "git-hn:" not in said, said
    assert list((bob / ".git" / "hn" / "replication" / "quiet").iterdir())
    _moved(alice, "moves main once more")
    code, said, took = _at_terminal(bob, ["git", "fetch", "origin"], env, answers=1, timeout=30)
    assert code == 0 and said.count(PROMPT.decode()) == 1 and took < 8, (took, said)
    assert f"git-hn: memory import from origin failed: the remote refused access; {WAY_OUT}\n" in said, said


def test_a_system_that_cannot_hide_proc_says_why_the_tests_skip_and_runs_the_one_needing_no_root(tmp_path):
    """A review: without unshare(1) (or root) every test here skipped, unsaid (pytest's default
    summary shows no reasons), and the setsid test, which needs no namespace, skipped with them."""
    import os
    import subprocess
    import sys

    from noproc import path_without

    env = {**os.environ, "PATH": str(path_without(tmp_path, ("unshare",), ps=False))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:warnings",
                           f"{__file__}::test_without_setsid_the_fetch_wrappers_question_asks_no_passphrase",
                           f"{__file__}::test_a_push_whose_command_line_cannot_be_read_is_never_offered_forced"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert "needs root and unshare(1) to hide /proc" in proc.stdout, proc.stdout
    assert "1 passed, 1 skipped" in proc.stdout, proc.stdout
