"""Early questions that share one Git process (``store.shared_early``): each question's answer,
derived from the shared listing or the shared ``config --get-regexp``, is byte for byte what its
own Git process says, in every shape of configuration tried (unset, set, set twice, a bare key,
words Git reads as booleans and values it reads otherwise), and whatever it does not restate is
asked of the question's own process. Real repositories, real Git."""

from __future__ import annotations

import json

import pytest

from git_hn.store import shared_early
from git_hn.store.git import LOCAL_LISTING, Git, publication_off_question
from helpers import git

STALL = ("config", "--get", "hn.syncStallTimeout")
ACCEPTED = ("for-each-ref", "--format=%(objectname) %(refname)", "refs/hn/remotes/origin/memory/")


def _processes(trace) -> list[list[str]]:
    if not trace.exists():
        return []
    starts = [json.loads(line)["argv"] for line in trace.read_text().splitlines() if '"event":"start"' in line]
    trace.unlink()
    return starts


def _config(repo, text: str) -> None:
    config = repo / ".git" / "config"
    base = config.read_text().split("# test\n")[0]
    config.write_text(base + "# test\n" + text)


# (configuration, whether the shared process answers both: else one is asked of its own)
CONFIGS = [
    ("", True),
    ("[hn]\n\tsyncStallTimeout = 12\n", True),
    ('[remote "origin"]\n\thnPublish = false\n', True),
    ('[remote "origin"]\n\thnPublish = YES\n[hn]\n\tsyncStallTimeout = 0.5\n', True),
    ('[remote "origin"]\n\thnPublish = Off\n', True),
    ('[remote "origin"]\n\thnPublish = 1\n', True),
    ('[remote "origin"]\n\thnPublish = 0\n', True),
    ('[remote "origin"]\n\thnPublish\n', False),  # a bare key: true
    ('[remote "origin"]\n\thnPublish =\n', False),  # an empty value: false
    ('[remote "origin"]\n\thnPublish = 1k\n', False),
    ('[remote "origin"]\n\thnPublish = maybe\n', False),  # not a boolean: Git refuses it
    ('[remote "origin"]\n\thnPublish = true\n\thnPublish = false\n', False),  # the last one counts
    ("[hn]\n\tsyncStallTimeout\n", True),  # a bare key: an empty line
    ("[hn]\n\tsyncStallTimeout = 3\n\tsyncStallTimeout = 4\n", False),
    ('[remote "Origin"]\n\thnPublish = false\n[remote "origin.x"]\n\thnPublish = false\n', True),  # others
    ("[remote.origin]\n\thnPublish = false\n", True),  # the old syntax: the subsection in lower case
    ('[hn]\n\tsyncStallTimeout = "  sixty "\n', True),
]


@pytest.mark.parametrize("text,shared", CONFIGS)
def test_each_setting_is_answered_as_its_own_process_answers(repo, text, shared, tmp_path, monkeypatch):
    _config(repo, text)
    publish = publication_off_question("origin")
    own = {args: Git(str(repo)).run(list(args)) for args in (STALL, publish)}
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    runner = Git(str(repo))
    shared_early.ask_settings(runner, STALL, publish, "origin")
    for args in (publish, STALL):
        got = runner.run(list(args))
        assert (got.returncode, got.stdout) == (own[args].returncode, own[args].stdout), (text, args, got)
    runner.close()
    started = [argv[argv.index("config"):] for argv in _processes(trace) if "config" in argv]
    assert started[0][:3] == ["config", "-z", "--get-regexp"] and len(started) == (1 if shared else 2), started


def test_both_listings_are_answered_as_their_own_processes_answer(repo, tmp_path, monkeypatch):
    head = git(repo, "rev-parse", "HEAD")
    for ref in ("refs/hn/memory/a/1", "refs/hn/memory/b/2", "refs/hn/remotes/origin/memory/c/3",
                "refs/hn/remotes/origin/memory/d/4", "refs/hn/remotes/other/memory/e/5", "refs/hn/memoryx",
                "refs/hn/remotes/origin/memoryx/f", "refs/heads/x"):
        git(repo, "update-ref", ref, head)
    for case in ("some", "none of the user's", "none at all"):
        if case == "none of the user's":
            for ref in ("refs/hn/memory/a/1", "refs/hn/memory/b/2"):
                git(repo, "update-ref", "-d", ref)
        if case == "none at all":
            for ref in ("refs/hn/remotes/origin/memory/c/3", "refs/hn/remotes/origin/memory/d/4"):
                git(repo, "update-ref", "-d", ref)
        own = {args: Git(str(repo)).run(list(args)) for args in (ACCEPTED, LOCAL_LISTING)}
        trace = tmp_path / "trace.json"
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        runner = Git(str(repo))
        shared_early.ask_listings(runner, ACCEPTED, LOCAL_LISTING)
        for args in (LOCAL_LISTING, ACCEPTED):
            got = runner.run(list(args))
            assert (got.returncode, got.stdout) == (own[args].returncode, own[args].stdout), (case, args)
        runner.close()
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        listings = [argv for argv in _processes(trace) if "for-each-ref" in argv]
        assert len(listings) == 1, listings
    assert own[ACCEPTED].stdout == b""  # (the last case: both empty)


def test_an_answer_dropped_before_it_is_collected_is_asked_again(repo):
    """A ref write drops early answers (``Git.forget_early``): the shared process is stopped, and
    each question is then asked of its own process, which sees the write."""
    head = git(repo, "rev-parse", "HEAD")
    runner = Git(str(repo))
    shared_early.ask_listings(runner, ACCEPTED, LOCAL_LISTING)
    assert runner.run(["update-ref", "refs/hn/memory/a/1", head]).returncode == 0
    assert runner._early == {}
    assert runner.run(list(LOCAL_LISTING)).stdout == b"refs/hn/memory/a/1\n"
    runner.close()
