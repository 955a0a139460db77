"""The project's git runner (store/git.py): exit status and output pass through unchanged, input
reaches stdin, a process that outlives its timeout is killed and reported in one line; the Git
version check runs once per git executable; one batch process answers contents and info."""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from git_hn.errors import GitError
from git_hn.store.git import Git
from helpers import git, hn


def test_run_passes_status_output_and_input(repo):
    g = Git(str(repo))
    ok = g.run(["hash-object", "--stdin"], input=b"hello\n")
    assert ok.returncode == 0 and ok.stdout == b"ce013625030ba8dba906f756967f9e9ca394464a\n"
    bad = g.run(["rev-parse", "--verify", "no-such-ref"])
    assert bad.returncode == 128 and b"single revision" in bad.stderr and bad.stdout == b""


def test_run_moves_more_than_a_pipe_holds_both_ways(repo):
    """Input and output far beyond the pipe buffers, interleaved: nothing deadlocks or is lost."""
    g = Git(str(repo))
    head = g.run(["rev-parse", "HEAD"]).stdout.strip()
    body = g.run(["cat-file", "commit", "HEAD"]).stdout
    n = 20_000
    out = g.run(["cat-file", "--batch"], input=(head + b"\n") * n)
    one = head + b" commit " + str(len(body)).encode() + b"\n" + body + b"\n"
    assert out.returncode == 0 and out.stdout == one * n and len(out.stdout) > 1 << 20


def test_stderr_keeps_its_start_and_its_end_and_drops_the_middle(repo):
    """An audit: a remote's hook printing without end through git's stderr was all held in
    memory. The start (a server's first line) and the end (Git's own last words, which
    ``known_reason`` and ``push_refused.never_sent`` read) are kept, whole lines, and the middle is counted."""
    from git_hn.store.stderr_kept import STDERR_HEAD, STDERR_TAIL

    g = Git(str(repo))
    flood = ("!echo 'remote: first words' >&2; yes 'remote: flood' | head -c 4900000 >&2; "
             "echo 'fatal: last words' >&2; exit 3")
    r = g.run(["-c", f"alias.flood={flood}", "flood"])
    assert r.returncode == 3 and r.stdout == b""
    assert r.stderr.startswith(b"remote: first words\nremote: flood\n")
    assert r.stderr.endswith(b"remote: flood\nfatal: last words\n")
    assert len(r.stderr) <= STDERR_HEAD + STDERR_TAIL + 64
    left_out = [line for line in r.stderr.splitlines() if line.endswith(b"bytes of output left out]")]
    assert len(left_out) == 1
    assert int(left_out[0][1:].split()[0]) + len(r.stderr) - len(left_out[0]) - 1 == 20 + 4900000 + 18
    small = g.run(["-c", "alias.small=!echo 'remote: a' >&2; echo 'fatal: b' >&2", "small"])
    assert small.stderr == b"remote: a\nfatal: b\n"


def test_a_process_past_its_timeout_is_killed(repo):
    """A git:// server that accepts and never answers (git speaks git:// in its own process)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        g = Git(str(repo), timeout=0.5)
        t0 = time.monotonic()
        with pytest.raises(GitError) as err:
            g.run(["fetch", f"git://127.0.0.1:{port}/silent.git"])
    assert err.value.message == "git fetch timed out"
    assert time.monotonic() - t0 < 10


def test_a_short_process_is_not_reported_as_timed_out(repo):
    g = Git(str(repo), timeout=5)
    out = g.run(["-c", "alias.pause=!exec sleep 0.2", "pause"])
    assert out.returncode == 0


def _versions_started(trace: Path) -> int:
    """How many ``git version`` processes the trace2 event log saw start."""
    if not trace.exists():
        return 0
    starts = [json.loads(line)["argv"] for line in trace.read_text().splitlines()
              if '"event":"start"' in line]
    trace.unlink()
    # a runner with a directory starts ``git -C DIR version`` (store.process.Child)
    return sum(1 for argv in starts if argv[1:] == ["version"] or (argv[1:2] == ["-C"] and argv[3:] == ["version"]))


def test_the_git_version_is_checked_once_per_executable(inited, tmp_path, monkeypatch):
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    assert hn(inited, "memory", "recall", "--json").code == 0
    _versions_started(trace)
    assert hn(inited, "memory", "recall", "--json").code == 0
    assert _versions_started(trace) == 0  # the same executable passed the check before
    # another executable (here the same binary through another path) is checked again, once
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    assert hn(inited, "memory", "recall", "--json").code == 0
    assert _versions_started(trace) == 1
    assert hn(inited, "memory", "recall", "--json").code == 0
    assert _versions_started(trace) == 0
    # the remembered answer is only a cache: one that claims an old version, or is garbage, is
    # checked again
    cache = inited / ".git" / "hn" / "git-version-v0"
    lines = cache.read_bytes().splitlines()
    assert len(lines) == 2  # both executables are remembered: alternating costs nothing
    monkeypatch.setenv("PATH", os.environ["PATH"].split(os.pathsep, 1)[1])
    assert hn(inited, "memory", "recall", "--json").code == 0
    assert _versions_started(trace) == 0
    stamp = lines[-1].rpartition(b"\0")[0]
    # (a review: "2.²" passed ``str.isdigit`` and every command failed in ``int``: internal error: ValueError)
    for forged in (stamp + b"\x002.1\n", b"garbage", stamp + "\x002.\u00b2\n".encode()):
        cache.write_bytes(forged)
        assert hn(inited, "memory", "recall", "--json").code == 0
        assert _versions_started(trace) == 1
        assert cache.read_bytes().splitlines()[0].rpartition(b"\0")[0] == stamp


def test_a_command_that_makes_hn_remembers_the_version_it_checked(repo, tmp_path, monkeypatch):
    """A fresh clone's first command (``replication select``, a recall) finds no ``.git/hn`` to
    remember the check in, and makes it: the check is remembered as that command ends, so the
    next command (the first sync) starts no ``git version``. A refused command makes nothing."""
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    hn_dir = repo / ".git" / "hn"
    assert not hn_dir.exists()
    assert hn(repo, "init", "--name", "").code == 1
    _versions_started(trace)
    assert not hn_dir.exists()  # (refused: nothing is made for a cache)
    assert hn(repo, "memory", "recall", "--json").code == 0
    assert _versions_started(trace) == 1
    assert (hn_dir / "git-version-v0").is_file()
    assert hn(repo, "memory", "recall", "--json").code == 0
    assert _versions_started(trace) == 0


def test_one_batch_process_answers_contents_and_info(inited):
    from git_hn.store.repo import open_repo

    repo = open_repo(str(inited))
    head = repo.head_commit()
    assert repo.git.object_info(head)[1:] == ("commit", repo.git.read_object(head)[1].__len__())
    assert repo.git.object_info("0" * repo.oid_hex_len) is None
    if repo.git.version >= (2, 36):
        assert repo.git._check is None and repo.git._batch.mode == "--batch-command"
    repo.close()


def test_writers_started_early_and_never_fed_change_nothing(repo):
    """An append starts ``unpack-objects`` and ``update-ref --stdin`` before it knows whether it
    will write (a replay or a failed check does not): stopping them unfed leaves refs and
    objects as they were."""
    g = Git(str(repo))
    before_refs = g.run(["for-each-ref"]).stdout
    before_objects = g.run(["count-objects", "-v"]).stdout
    unpack = g.spawn(("unpack-objects", "-q", "--strict"), stdin=True)
    cas = g.spawn(("update-ref", "--stdin"), stdin=True)
    time.sleep(0.2)  # both have started and wait for input
    unpack.abandon()
    cas.abandon()
    assert g.run(["for-each-ref"]).stdout == before_refs
    assert g.run(["count-objects", "-v"]).stdout == before_objects
    # fed, the same pair writes: the compare-and-swap holds (a wrong old value changes nothing)
    head = g.run(["rev-parse", "HEAD"]).stdout.strip().decode()
    cas = g.spawn(("update-ref", "--stdin"), stdin=True)
    assert cas.finish(f"update refs/heads/other {head} {'1' * 40}\n".encode()).returncode != 0
    assert b"refs/heads/other" not in g.run(["for-each-ref"]).stdout
    cas = g.spawn(("update-ref", "--stdin"), stdin=True)
    assert cas.finish(f"update refs/heads/other {head} {'0' * 40}\n".encode()).returncode == 0
    assert b"refs/heads/other" in g.run(["for-each-ref"]).stdout


def test_early_questions_are_answered_once_and_stopped_when_unasked(repo):
    from git_hn.store import git as gitmod

    gitmod.start_early(str(repo), listing=True)
    runner = gitmod.take_early(str(repo))
    assert gitmod.take_early(str(repo)) is None  # taken once
    early = runner.run(list(gitmod.DISCOVERY))
    assert early.returncode == 0 and early.stdout.decode().splitlines()[2] == "sha1"
    assert (tuple(gitmod.DISCOVERY), ()) not in runner._early  # the next run starts a new process
    leftover = runner._early[(tuple(gitmod.MEMORY_LISTING), ())].proc
    runner.close()  # the listing nobody asked for is stopped and reaped
    assert leftover.returncode is not None and runner._early == {}
    gitmod.start_early(str(repo), listing=False)
    assert gitmod.take_early(str(repo / "elsewhere")) is None  # another directory: not adopted


def test_an_early_answer_larger_than_a_default_pipe_is_written_before_it_is_collected(repo):
    """An early question's output pipe holds 1 MiB (Linux): Git writes a listing of thousands
    of refs and exits while the command imports, instead of stopping at 64 KiB until the
    answer is collected. The answer is the same either way."""
    import fcntl

    runner = Git(str(repo))
    head = runner.run(["rev-parse", "HEAD"]).stdout.decode().strip()
    refs = "".join(f"create refs/hn/memory/{i:064x}/{i:064x} {head}\n" for i in range(2_500))
    assert runner.run(["update-ref", "--stdin"], input=refs.encode()).returncode == 0
    question = ["for-each-ref", "--format=%(objectname) %(refname)", "refs/hn/memory/"]
    expected = runner.run(question).stdout
    assert len(expected) > 4 * 65_536
    started = runner.ask_early(tuple(question))
    deadline = time.monotonic() + 30
    while hasattr(fcntl, "F_SETPIPE_SZ") and started.proc.poll() is None:
        assert time.monotonic() < deadline, "the early question stopped at a full pipe"
        time.sleep(0.01)
    assert runner.run(question).stdout == expected
    runner.close()


def test_a_ref_write_drops_early_answers(repo):
    """An answer started before this process changed refs would be stale after the change."""
    from git_hn.store import git as gitmod

    runner = gitmod.start_early(str(repo), listing=True)
    head = runner.run(["rev-parse", "HEAD"]).stdout.decode().strip()
    assert runner.run(["update-ref", f"refs/hn/memory/{'a' * 64}/{'b' * 64}", head]).returncode == 0
    listing = runner.run(list(gitmod.MEMORY_LISTING)).stdout.decode()
    assert f"refs/hn/memory/{'a' * 64}/{'b' * 64}" in listing  # asked afresh, after the write
    gitmod.close_early()
    runner.close()


def test_a_signal_while_a_child_starts_stops_that_child_then_raises(tmp_path):
    """A stopping signal that arrives while ``popen`` starts a child is held back until the child
    exists; the child is then killed and reaped before ``Signalled`` is raised, so that nothing
    keeps writing after the caller cleaned up (a quarantine being removed, issue 12 item 9b)."""
    import signal

    from git_hn.cli.commands import _signals_raise
    from git_hn.errors import Signalled
    from git_hn.store import process

    marker = tmp_path / "written-late"
    with _signals_raise():
        process._spawning += 1  # as if the signal came in the middle of Popen
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs now: deferred, not raised
        finally:
            process._spawning -= 1
        assert process._deferred == [signal.SIGTERM]
        with pytest.raises(Signalled) as stopped:
            process.popen(["sh", "-c", f"sleep 0.3; touch {marker}"])
    assert stopped.value.signum == signal.SIGTERM and process._deferred == []
    time.sleep(0.6)
    assert not marker.exists()  # the child was killed before it could write
    with _signals_raise():  # and nothing is left pending: the next child starts normally
        assert process.popen(["true"]).wait() == 0


def test_children_get_only_their_three_descriptors_and_default_signal_actions(tmp_path):
    """``store.process.Child`` (posix_spawn) gives a child what ``Popen``'s defaults gave it: no
    descriptor of this process beyond stdin/stdout/stderr (an inherited one included) and
    SIGPIPE at its default action (Python ignores it), and runs Git in the runner's directory."""
    import subprocess
    import sys

    code = r"""
import os, sys
from git_hn.store import git, process
fd = os.dup2(os.open(os.devnull, os.O_RDONLY), 50, inheritable=True)  # as if inherited
child = process.popen(["sh", "-c", "ls /proc/self/fd; grep SigIgn /proc/self/status"], stdout=process.PIPE)
out = child.stdout.read().decode()
child.wait()
listing, status = out.split("SigIgn:")
fds = sorted(int(x) for x in listing.split() if x.isdigit())
ignored = int(status.split()[0], 16)
runner = git.Git(sys.argv[1])
top = runner.out(["rev-parse", "--show-toplevel"])
import json
print(json.dumps([fd, fds, ignored & (1 << 12), top]))
"""
    sub = tmp_path / "work" / "sub"
    sub.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(tmp_path / "work")], check=True)
    fd, listed, sigpipe_ignored, top = json.loads(subprocess.run(
        [sys.executable, "-c", code, str(sub)], capture_output=True, text=True, check=True).stdout)
    assert fd == 50 and set(listed) <= {0, 1, 2, 3}  # 3: ls's own directory handle
    assert sigpipe_ignored == 0
    assert os.path.realpath(top.strip()) == os.path.realpath(tmp_path / "work")


def test_a_missing_git_is_named(tmp_path):
    from git_hn.errors import GitError
    from git_hn.store import git

    runner = git.Git(str(tmp_path), extra_env={"PATH": str(tmp_path / "nowhere")})
    with pytest.raises(GitError, match="git is not installed or not on PATH"):
        runner.run(["version"])


def test_an_argument_list_over_the_systems_limit_is_one_precise_line(repo):
    """An audit: a push of 80,000 tags put every tip on one ``rev-list``'s command line, and the
    system's E2BIG came out of the pre-push hook as ``cannot change /usr/lib/git-core/git:
    Argument list too long`` (an OSError naming a file nothing changed). Every way the runner
    starts Git says which command could not start, and why, in one GitError line."""
    g = Git(str(repo))
    many = ["0" * 40] * 200_000  # (8 MB: over Linux's 2 MB for arguments and environment)
    said = "git rev-list could not be started: its 200002 arguments (8200026 bytes) and environment are over " \
           "the system's limit for a command line"
    for start in (lambda: g.run(["rev-list", "--ignore-missing", *many]),
                  lambda: g.spawn(["rev-list", "--ignore-missing", *many]),
                  lambda: g.stdout_only(["rev-list", "--ignore-missing", *many]),
                  lambda: g.start(["rev-list", "--ignore-missing", *many]),
                  lambda: next(g.lines(["rev-list", "--ignore-missing", *many]))):
        with pytest.raises(GitError) as caught:
            start()
        assert caught.value.message == said


def test_a_wait_longer_than_a_poll_can_say_is_several_polls(repo):
    """An audit: ``hn.syncStallTimeout`` of 3,000,000 s reached ``poll`` as milliseconds over a C
    int (``internal error: OverflowError``); a wait is now several bounded polls."""
    from git_hn.store.process import Child, PIPE, wait_for_exit

    assert Git(str(repo)).run(["version"], timeout=3e6).returncode == 0
    child = Child(["git", "version"], stdout=PIPE)
    child.stdout.read()
    wait_for_exit(child.pid, 3e6)  # (its pidfd is readable once it ended)
    child.wait()
    child.stdout.close()


def _objects(g: Git, n: int, prefix: bytes) -> list[str]:
    """``n`` new blobs written loose (one ``hash-object -w --stdin-paths``)."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i in range(n):
            p = os.path.join(d, str(i))
            Path(p).write_bytes(prefix + str(i).encode())
            paths.append(p)
        out = g.run(["hash-object", "-w", "--stdin-paths"], input="\n".join(paths).encode() + b"\n")
    assert out.returncode == 0
    return out.stdout.decode().split()


def _missing(n: int, width: int) -> list[str]:
    import hashlib

    return [hashlib.sha256(b"absent %d" % i).hexdigest()[:width] for i in range(n)]


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_presence_by_listing_agrees_with_asking_each_object(tmp_path, object_format):
    """Many questions of a small store: ``presence`` lists the store instead of asking object
    by object (a miss costs Git a pack-directory rescan), and answers exactly what
    ``cat-file --batch-check`` answers, for packed and loose objects alike."""
    repo = tmp_path / "r"
    assert Git(str(tmp_path)).run(["init", "-q", f"--object-format={object_format}", str(repo)]).returncode == 0
    g = Git(str(repo))
    packed = _objects(g, 300, b"packed ")
    assert g.run(["repack", "-q", "-a", "-d"]).returncode == 0
    loose = _objects(g, 200, b"loose ")
    width = 40 if object_format == "sha1" else 64
    asked = packed[::2] + loose[::3] + _missing(600, width)
    expected = [info is not None for info in g.infos_bulk(asked, oneshot=True)]
    assert sum(expected) == 150 + 67
    listed = g._listed_presence(asked)
    assert listed == expected  # the listing was the cheaper way here, and it agrees
    assert g.presence(asked) == expected
    assert g.presence(asked[:10]) == expected[:10]  # few questions: asked one by one
    assert g.presence(asked, expected=True) == expected  # asked one by one: the same answer


def test_presence_asks_object_by_object_when_listing_would_cost_more(tmp_path):
    repo = tmp_path / "r"
    assert Git(str(tmp_path)).run(["init", "-q", str(repo)]).returncode == 0
    g = Git(str(repo))
    stored = _objects(g, 600, b"x ")
    few = stored[:5] + _missing(Git.LIST_FROM, 40)
    # 600 stored objects, 517 questions: within the ratio, listed
    assert g._listed_presence(few) is not None
    big = Git(str(repo))
    big.LIST_RATIO = 1  # the store is now "large" against the questions
    assert big._listed_presence(few) is None  # 600 stored objects > 1 x 517 questions
    # an abbreviated or uppercase name never compares equal to the listing: asked one by one
    odd = stored[:1] + [stored[1][:12], stored[2].upper()] + _missing(Git.LIST_FROM, 40)
    assert g._listed_presence(odd) is None
    assert g.presence(odd)[:3] == [True, True, True]
    # a store with alternates: their objects are not counted, so they are never listed
    other = tmp_path / "o"
    assert Git(str(tmp_path)).run(["init", "-q", str(other)]).returncode == 0
    (other / ".git" / "objects" / "info" / "alternates").write_text(str(repo / ".git" / "objects") + "\n")
    go = Git(str(other))
    asked = stored[:50] + _missing(Git.LIST_FROM, 40)
    assert go._listed_presence(asked) is None
    assert go.presence(asked) == [True] * 50 + [False] * Git.LIST_FROM


def test_the_command_named_when_git_cannot_start_is_not_an_option(repo):
    """A review: the line named ``args[0]``, which is ``-c`` or ``-C`` when Git's own options come
    first ("git -c could not be started")."""
    from git_hn.store.process import not_started

    g = Git(str(repo))
    many = ["0" * 40] * 200_000
    with pytest.raises(GitError) as caught:
        g.run(["-c", "x.y=1", "-C", ".", "rev-list", "--ignore-missing", *many])
    assert caught.value.message == ("git rev-list could not be started: its 200006 arguments (8200040 bytes) and "
                                    "environment are over the system's limit for a command line")
    assert not_started(["--no-pager", "-c", "a.b=c", "log"], PermissionError(13, "Permission denied")).message == \
        "git log could not be started: Permission denied"
    from git_hn.store.process import command_name

    assert command_name(["--git-dir", "/x", "--bare", "for-each-ref"]) == "for-each-ref"
    assert command_name(["-c", "x.y=1"]) == "-c"


@pytest.mark.parametrize("mode", ["--batch-command", "--batch-check", "--batch"])
def test_a_missing_name_with_spaces_is_missing_in_every_reader_and_the_one_shot_batch(repo, mode):
    """Git answers a name it cannot find with the name as asked, then ``missing``: for
    ``HEAD:a b.txt`` that is four fields, and it was taken for an object's header (a trial:
    ``int(b"missing")``, internal error: ValueError, with one space; "answered unexpectedly" with
    more), so every re-anchoring of a memory on such a path stopped. Each answer is compared with
    the name asked, in every mode and in the one-shot ``--batch-check``."""
    from git_hn.store.reader import Reader

    (repo / "is here.txt").write_text("here\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "spaces")
    g = Git(str(repo))
    blob = git(repo, "rev-parse", "HEAD:is here.txt")
    names = ["HEAD:a b.txt", "HEAD:a b c.txt", "HEAD: both ends ", "HEAD:is here.txt", "HEAD:x missing",
             "HEAD:a b.txt missing"]
    want = [None, None, None, (blob, "blob", 5), None, None]
    reader = Reader(g, mode)
    try:
        if mode == "--batch":
            assert [r if r is None else r[0] for r in reader.read_many(names)] == [w and w[1] for w in want]
            assert reader.read("HEAD:a b c.txt") is None
        else:
            assert reader.info_many(names) == want
            assert reader.info("HEAD:a b c.txt") is None
    finally:
        reader.close()
    assert g.infos_bulk(names, oneshot=True) == want
    assert g.infos_bulk(names) == want
    g.close()


@pytest.mark.parametrize("mode", ["--batch-command", "--batch-check", "--batch"])
def test_many_answers_read_in_one_loop_equal_those_read_one_at_a_time(repo, mode):
    """``Reader.read_many`` parses its answers in one loop (f134); each must equal what
    ``_read_one`` gives for the same question (kept as the reference): found, missing, a name
    with spaces, a content over the bound (drained, not held) and one at it, every type."""
    from git_hn.store.reader import Reader

    (repo / "big.bin").write_bytes(b"x" * 70000)
    (repo / "four.txt").write_bytes(b"1234")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "sizes")
    git(repo, "tag", "-a", "-m", "t", "v1")
    names = ["HEAD", "HEAD^{tree}", "HEAD:big.bin", "HEAD:four.txt", "HEAD:no such.txt", "v1", "0" * 40,
             "HEAD:four.txt", "HEAD:big.bin"] * 3
    g = Git(str(repo))
    for bound in (None, 4, 70000):
        for info in (False, True):
            if (bound is not None and (info or mode == "--batch-check")) or (info and mode != "--batch-command"):
                continue
            fast, slow = Reader(g, mode), Reader(g, mode)
            try:
                got = fast.read_many(names, bound, info)
                want = []
                for n in names:
                    slow._send([n], info)
                    want.append(slow._read_one(n, bound, info))
                assert got == want and want[4] is None
                assert any(w is not None and len(w) == 3 and w[2] is None for w in want) == \
                    (bound == 4 and mode != "--batch-check" and not info)
            finally:
                fast.close()
                slow.close()
    g.close()


@pytest.mark.parametrize("mode", ["--batch-command", "--batch"])
def test_questions_that_fit_in_the_pipe_are_written_without_a_thread_and_answered_the_same(repo, mode, monkeypatch):
    """``Reader.read_many`` writes questions that fit in Git's empty input pipe at once, without
    its writer thread (f138: a thread's start and join cost up to 0.7 ms an exchange); more
    than the pipe holds still go through the thread, which keeps both pipes moving (written at
    once, they would wait for Git, and Git for its answers to be read). Both answer as one
    question at a time does (the reference), whichever way the questions went."""
    from git_hn.store import reader as readermod

    (repo / "big.bin").write_bytes(b"x" * 70000)  # (answers larger than Git's output pipe, too)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "big")
    threads = []
    real = readermod.Background
    monkeypatch.setattr(readermod, "Background", lambda fn, *a: threads.append(fn) or real(fn, *a))
    g = Git(str(repo))
    few = ["HEAD", "HEAD^{tree}", "HEAD:big.bin", "HEAD:no such.txt", "0" * 40] * 4
    fast, slow = readermod.Reader(g, mode), readermod.Reader(g, mode)
    try:
        room = fast._room_in_pipe()
        assert room >= 4096  # (Linux: its capacity, asked once)
        long = ["HEAD:" + "d" * 200 + ".txt"] * (room // 200) + few  # more bytes than the pipe holds
        assert len(fast._questions(long, False)) > room and len(long) <= readermod.Reader.AT_ONCE
        for names, by_thread in ((few, False), (long, True), (few * 60, True)):  # (the last: over ``AT_ONCE``)
            threads.clear()
            got = fast.read_many(names, 4096)
            assert bool(threads) == by_thread
            want = []
            for n in names:
                slow._send([n], False)
                want.append(slow._read_one(n, 4096, False))
            assert got == want and None in want and ("blob", 70000, None) in want
    finally:
        fast.close()
        slow.close()
    g.close()


@pytest.mark.parametrize("count", [3, 2000])
def test_a_name_git_cannot_be_asked_is_refused_before_anything_is_written(repo, count):
    """A name with a newline among many questions (more than ``Reader.AT_ONCE``: the writer
    thread's way) is refused in the caller's thread before anything is written (a review of f138:
    raised in the writer thread, it was never said, and the answers were waited for forever),
    and the reader answers the next exchange as before."""
    import threading

    from git_hn.store import reader as readermod

    g = Git(str(repo))
    r = readermod.Reader(g, "--batch")
    outcome = []

    def ask():
        try:
            r.read_many(["HEAD"] * (count - 1) + ["HEAD\nHEAD"], 4096)
        except GitError as exc:
            outcome.append(str(exc))

    try:
        asking = threading.Thread(target=ask, daemon=True)
        asking.start()
        asking.join(30)
        assert outcome == ["object name contains a newline"]
        assert [a[0] for a in r.read_many(["HEAD", "HEAD^{tree}"], 4096)] == ["commit", "tree"]
    finally:
        r.close()
    g.close()
