"""A full verification says what it does on a terminal, and nowhere else (``cli.notice``).

The first read command after an install or upgrade verifies every memory again before it
answers (seconds at 100,000 memories). On a terminal's stderr a line names that work and how far
it got, and is erased before the command's own output; agents, scripts and pipes see nothing.
The thresholds (a second of work, a thousand memories) are lowered here by a probe that runs
git-hn's real entry point in a subprocess whose stderr is a real pseudo-terminal.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from git_hn.store import progress, streams
from git_hn.store.repo import open_repo

from helpers import forged_commit, git, hn, one_stream, read_terminal

PROBE = ("import sys\n"
         "from git_hn.cli import notice\n"
         "from git_hn.store import progress\n"
         "notice.AFTER = notice.EVERY = 0.0\n"
         "progress.NOTICE_FROM = 1\n"
         "from git_hn.cli.main import main\n"
         "sys.exit(main(sys.argv[1:]))\n")

ERASE = "\r\x1b[2K"
# room for all 40 items: a brief that leaves items out says so on stderr (its own hint), which
# these tests of the rebuild notice are not about
ROOM = ("--max-bytes", "1048576")


@pytest.fixture
def stream(tmp_path):
    """A repository with one stream of 40 memories."""
    repo = one_stream(tmp_path, 40)
    assert hn(repo, "memory", "brief", "--json").code == 0  # the verified state exists
    return repo


def _drop_state(repo) -> None:
    state = repo / ".git" / "hn" / "memory"
    for name in ("state-v0.sqlite", "state-v0.seal"):
        (state / name).unlink()


def _probe(repo, args: list[str], stderr_on_terminal: bool, env: dict | None = None):
    """(exit status, stdout, stderr) of the probe, its stderr a pseudo-terminal or a pipe."""
    full = {**os.environ, "TERM": "xterm-256color", **(env or {})}
    if not stderr_on_terminal:
        proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=repo, capture_output=True,
                              env=full, timeout=120)
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", PROBE, *args], cwd=repo, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave, env=full)
    os.close(slave)
    written = read_terminal(master, proc, 120)
    out = proc.stdout.read().decode()
    return proc.wait(120), out, written.decode()


def test_a_rebuild_on_a_terminal_names_its_work_then_erases_the_line(stream):
    expected = hn(stream, "memory", "brief", "--json", "--include-untrusted", *ROOM)
    assert expected.code == 0, expected.err
    _drop_state(stream)
    code, out, err = _probe(stream, ["memory", "brief", "--json", "--include-untrusted", *ROOM], True)
    assert code == 0, err
    assert out == expected.out  # the answer is the same: only stderr changed
    assert "git hn: verifying 40 memories (" in err
    assert "git hn: storing 40 verified memories (" in err
    assert err.endswith(ERASE), repr(err)  # nothing of the line is left on the screen
    # every draw starts on an erased line: the line never runs into what came before
    for part in err.split(ERASE)[1:]:
        assert part == "" or part.startswith("git hn: "), repr(err)


def test_nothing_is_shown_when_stderr_is_not_a_terminal_or_the_state_is_current(stream):
    _drop_state(stream)
    code, _out, err = _probe(stream, ["memory", "brief", "--json", "--include-untrusted", *ROOM], False)
    assert code == 0 and err == "", err
    code, _out, err = _probe(stream, ["memory", "brief", "--json", "--include-untrusted", *ROOM], True)
    assert code == 0 and err == "", repr(err)  # the state is current: nothing verified in full
    _drop_state(stream)
    code, _out, err = _probe(stream, ["memory", "brief", "--json", "--include-untrusted", *ROOM], True,
                             env={"TERM": "dumb"})
    assert code == 0 and err == "", repr(err)  # a terminal that cannot erase a line


class Recorder(progress.Work):
    made: list = []

    def __init__(self, what: str, total: int):
        self.what, self.total, self.done, self.ended = what, total, 0, 0
        Recorder.made.append(self)

    def advance(self, n: int) -> None:
        self.done += n

    def end(self) -> None:
        self.ended += 1


def test_a_collection_reports_each_commit_twice_and_ends_once_even_when_it_fails(stream, monkeypatch):
    monkeypatch.setattr(progress, "_listener", None)
    monkeypatch.setattr(progress, "NOTICE_FROM", 1)
    monkeypatch.setattr(Recorder, "made", [])
    progress.listen(Recorder)
    monkeypatch.chdir(stream)
    collection = streams.collect(open_repo())
    assert len(collection.memories) == 40
    [work] = Recorder.made
    assert (work.what, work.total, work.done, work.ended) == ("verifying 40 memories", 80, 80, 1)
    # a forged commit on top of the stream: the collection fails, and its work still ends
    ref = git(stream, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    tip = git(stream, "rev-parse", ref)
    blob = git(stream, "hash-object", "-w", "--stdin", input=b"{}")
    forged = forged_commit(stream, f"100644 blob {blob}\tmemory.json\n100644 blob {blob}\tsignature\n", [tip])
    git(stream, "update-ref", ref, forged, tip)
    Recorder.made.clear()
    with pytest.raises(Exception):
        streams.collect(open_repo())
    [work] = Recorder.made
    assert work.ended == 1 and work.what == "verifying 41 memories"
    # below the threshold nobody hears of it
    monkeypatch.setattr(progress, "NOTICE_FROM", 1000)
    git(stream, "update-ref", ref, tip, forged)
    Recorder.made.clear()
    assert len(streams.collect(open_repo()).memories) == 40
    assert Recorder.made == []


def test_the_hooks_git_waits_on_listen_and_the_background_publisher_does_not(stream, monkeypatch):
    """A first fetch or push after an upgrade verifies in the hook, with Git (and the person at
    its terminal) waiting: those hooks draw the line too; the publisher Git does not wait on, whose
    output could land on a prompt, never does."""
    from git_hn.cli import hooks_cmd, notice, render
    from git_hn.service import hook_runs, hooks

    installed = []
    monkeypatch.setattr(render, "stderr_on_terminal", lambda: True)
    monkeypatch.setattr(notice, "install", lambda: installed.append(True))
    monkeypatch.setattr(hook_runs, "run_background_publication", lambda *a: 0)
    monkeypatch.chdir(stream)
    assert hooks_cmd.hooks_run_command([hooks.PUBLISHER, "origin"], b"") == 0
    assert installed == []
    assert hooks_cmd.hooks_run_command(["post-rewrite", "amend"], b"") == 0
    assert installed == [True]
