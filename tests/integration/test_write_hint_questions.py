"""What a record asks Git after its write (issue 11, fixed cost): the questions of its hints
(``memory.hidden_hint``, ``unpushed.waits_hint``) are started together once the ref moved
(``Git.ask_early``), each once, and the working tree's top is read from discovery when
Git's own discovery rules say it (``worktree.toplevel``). None of it may serve an answer from
before a change: an answer asked before the write is dropped by it, and every command asks anew.

Real repositories and real Git processes, counted from Git's own trace (``GIT_TRACE2_EVENT``);
nothing is mocked.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from git_hn.store import git as gitmod
from git_hn.store.repo import open_repo
from git_hn.store.worktree import toplevel
from helpers import git, hn, hn_proc, make_repo

QUESTIONS = [["remote"], ["for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/"],
             # (f176: and core.hooksPath, in the same answer: whether a push publishes the memory)
             ["config", "--get-regexp", r"^(core\.hookspath|remote\..*\.(hnpublish|fetch|mirror))$"]]


def _timeline(trace: Path) -> list[tuple[float, float, list[str]]]:
    """(start, exit, argv after ``git -C DIR``) of every Git process that wrote to ``trace``."""
    runs = {}

    def when(event) -> float:
        return datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp()

    for name in os.listdir(trace):
        for line in (trace / name).read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "start":
                argv = event["argv"][1:]
                while argv[:1] in (["-C"], ["-c"]):
                    argv = argv[2:]
                runs[event["sid"]] = [when(event), None, argv]
            elif event["event"] == "exit" and event["sid"] in runs:
                runs[event["sid"]][1] = when(event)
    return sorted(tuple(r) for r in runs.values())


def _record(repo, content: str, env: dict | None = None):
    return hn_proc(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                   "--content", content, env=env)


@pytest.mark.parametrize("remote", [False, True])
def test_a_record_asks_its_hints_questions_once_each_after_its_write(inited, tmp_path, remote):
    """The processes of one record in a 1-memory repository with no trust policy, pinned: the
    object reader, ``hn.stream``, the two writers, the stream's listing, then the hints'
    questions, each once and each started after the ref transaction ended (so each sees the
    write): ``git remote`` alone when the repository names no remote (six processes in all), with
    its tracking refs and settings when it names one (the anchor is then on no branch of it, and
    the hint that says so asks more). No ``rev-parse --show-toplevel`` (a plain clone: discovery
    says it). The hints say what they said before
    (shorter: the first record said them in full)."""
    if remote:
        git(inited, "remote", "add", "origin", str(inited))
    assert _record(inited, "first").code == 0
    trace = tmp_path / "trace"
    trace.mkdir()
    r = _record(inited, "second", env={"GIT_TRACE2_EVENT": str(trace)})
    assert r.code == 0, r.err
    # (said in full by the first record: the second says it shorter, with no process more)
    policy = "a maintainer runs git hn policy init" if remote else "git hn policy init, then commit"
    assert f"still left out of recall and the brief: HEAD has no memory trust policy ({policy}" in r.err
    assert ("waits until commit" in r.err) == remote
    runs = _timeline(trace)
    commands = [argv for _s, _e, argv in runs if argv[:3] != ["hn", "memory", "record"]]
    written = next(e for _s, e, argv in runs if argv[:3] == ["update-ref", "-m", "hn: append memory"])
    after = [argv for s, _e, argv in runs if s > written]
    asked = QUESTIONS if remote else QUESTIONS[:1]
    assert sorted(a for a in after if a[0] not in ("rev-list", "symbolic-ref")) == sorted(asked), runs
    assert all(commands.count(q) == 1 for q in asked)
    assert ["rev-parse", "--show-toplevel"] not in commands
    assert remote or len(commands) == 6, commands


def test_the_questions_are_started_before_the_hints_run(inited):
    """In the process: once ``record`` returns, the hints' questions are already started (the
    hints collect them, none twice); a replay writes nothing and starts none."""
    from git_hn.service import memory
    from git_hn.service.requests import RecordFlags, request_from_flags
    from git_hn.service.unpushed import waits_hint

    git(inited, "remote", "add", "origin", str(inited))
    repo = open_repo(str(inited))
    try:
        flags = RecordFlags(kind="decision", at="HEAD", applies="exact", content=["x"])
        req = request_from_flags(repo, flags)
        result = memory.record(repo, req)
        assert not result.replayed
        assert {key[0] for key in repo.git._early} >= {tuple(q) for q in QUESTIONS}
        assert memory.hidden_hint(repo, result) is not None
        assert waits_hint(repo, result, [], []) is not None
        assert repo.git._early == {}  # (collected, none started twice)
        again = memory.record(repo, request_from_flags(repo, flags))
        assert again.replayed and repo.git._early == {}
    finally:
        repo.close()


def test_a_question_started_after_the_write_sees_it(inited):
    """``append``'s ``then_ask`` is started once the ref moved: a listing of the stream's ref
    asked that way answers the new head, never the one before."""
    from git_hn.core.grammar import local_ref
    from git_hn.service import memory
    from git_hn.service.requests import RecordFlags, request_from_flags
    from git_hn.store import identity
    from git_hn.store.append import Draft, append

    repo = open_repo(str(inited))
    try:
        ident = identity.load_active(repo)
        req = request_from_flags(repo, RecordFlags(kind="decision", at="HEAD", applies="exact", content=["one"]))
        first = memory.record(repo, req)
        question = ("for-each-ref", "--format=%(objectname)", local_ref(ident.actor, first.envelope.stream))
        repo.git.ask_early(question)  # (asked before the write: the write drops it)
        req = request_from_flags(repo, RecordFlags(kind="decision", at="HEAD", applies="exact", content=["two"]))
        second = append(repo, ident, Draft("record", first.envelope.stream, req.record), then_ask=[question])
        assert repo.git.run(list(question)).stdout.decode().strip() == second.commit != first.commit
    finally:
        repo.close()


def test_a_remote_added_between_two_records_is_seen(inited):
    """Every command asks anew: the hint of a record before ``git remote add`` has no remote to
    name, the next one's does (the trust hint's words for a clone with a remote). A guard: it
    passes without the early questions too."""
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "a")
    assert "git hn policy init creates one that trusts whoever runs it (run here, this identity)" in r.err
    git(inited, "remote", "add", "origin", str(inited))
    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content", "b")
    assert "a maintainer runs git hn policy init" in r.err


def test_an_early_question_asked_twice_starts_one_process(repo, tmp_path, monkeypatch):
    """``ask_early`` of a question already started and not collected starts no second process: the
    hints ask what the write started."""
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    runner = gitmod.Git(str(repo))
    try:
        for _ in range(2):
            runner.ask_early(("remote",))
            runner.ask_early(("config", "--get", "x.y"))
        assert runner.run(["remote"]).returncode == 0
        assert runner.run(["config", "--get", "x.y"]).returncode == 1
    finally:
        runner.close()
    assert sorted(argv for _s, _e, argv in _timeline(trace)) == [["config", "--get", "x.y"], ["remote"]]


def _gits_top(cwd, env=None) -> str | None:
    proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=cwd, capture_output=True,
                          env={**os.environ, **(env or {})})
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


@pytest.mark.parametrize("case", ["top", "subdirectory", "link", "worktree_config", "bare_config",
                                  "bare_false", "include", "config_parameters", "linked_worktree",
                                  "bare", "inside_git_dir", "work_tree_variable", "git_dir_variable"])
def test_the_top_is_gits_answer_in_every_layout(tmp_path, monkeypatch, case):
    """``worktree.toplevel`` equals ``git rev-parse --show-toplevel`` (None where Git has no
    working tree), in the layouts discovery reads itself (no Git process then) and in those it
    leaves to Git (those are guards: Git answered them before too)."""
    top = make_repo(tmp_path / "repo", files={"a/b/c.txt": "x\n"})
    cwd, env, free = top, {}, True
    if case == "subdirectory":
        cwd = top / "a" / "b"
    elif case == "link":
        cwd = tmp_path / "link"
        cwd.symlink_to(top / "a")
    elif case == "worktree_config":
        git(top, "config", "core.worktree", str(top / "a"))
        cwd, free = top / "a" / "b", False
    elif case == "bare_config":
        git(top, "config", "core.bare", "true")
        free = False
    elif case == "bare_false":
        git(top, "config", "core.bare", "false")
    elif case == "include":
        git(top, "config", "include.path", "extra")
        free = False
    elif case == "config_parameters":
        env, free = {"GIT_CONFIG_PARAMETERS": "'core.bare'='false'"}, False
    elif case == "linked_worktree":
        git(top, "worktree", "add", "-q", str(tmp_path / "wt"))
        cwd, free = tmp_path / "wt", False
    elif case == "bare":
        git(tmp_path, "clone", "-q", "--bare", str(top), "bare.git")
        cwd, free = tmp_path / "bare.git", False
    elif case == "inside_git_dir":
        cwd, free = top / ".git" / "refs", False
    elif case == "work_tree_variable":
        env, free = {"GIT_WORK_TREE": str(top / "a")}, False
    elif case == "git_dir_variable":
        env, cwd, free = {"GIT_DIR": str(top / ".git")}, top / "a", False
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    answer = _gits_top(cwd)
    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    repo = open_repo(str(cwd))
    try:
        assert toplevel(repo) == answer
    finally:
        repo.close()
    asked = ["rev-parse", "--show-toplevel"] in [argv for _s, _e, argv in _timeline(trace)]
    assert asked != free, case
