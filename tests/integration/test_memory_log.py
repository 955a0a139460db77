"""``git hn memory log`` (issue 14, item 2): a timeline like ``git log --oneline``.

Plain output when piped, one JSON line with ``--json``, and on a real pseudo-terminal (``pty``)
lines fitted to 80 and 160 columns, coloured unless ``NO_COLOR``/``TERM=dumb``, and paged
through Git's pager settings. Author text stays inert everywhere (*terminal escape injection*,
*Trojan Source*, *markup injection*).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from helpers import git, hn, make_repo, on_terminal
from helpers import actor_of as _actor, record_id as _rec

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LONG = "A very long decision summary " * 12


def _short(mid: str) -> str:
    return mid[len("sha256:"):][:12]


@pytest.fixture
def history(tmp_path):
    """A record, its supersession, a retracted observation, a long decision; returns the IDs."""
    repo = make_repo(tmp_path / "r", files={"README.md": "hello\n"})
    assert hn(repo, "init", "--name", "Alice Example").code == 0
    d1 = _rec(repo, content="Use JSON for the index\nsecond line is not shown")
    r = hn(repo, "memory", "supersede", d1, "--json", "--kind", "decision", "--at", "HEAD",
           "--applies", "descendants", "--content", "Use canonical JSON")
    assert r.code == 0, r.err
    d2 = r.json()["memoryId"]
    obs = _rec(repo, kind="observation", content="flaky test seen once")
    r = hn(repo, "memory", "retract", obs, "--reason", "incorrect", "--json")
    assert r.code == 0, r.err
    retraction = r.json()["memoryId"]
    long_ = _rec(repo, content=LONG)
    return repo, {"d1": d1, "d2": d2, "obs": obs, "retraction": retraction, "long": long_}


def _log_json(repo, *args) -> dict:
    r = hn(repo, "memory", "log", "--json", *args)
    assert r.code == 0, r.err
    assert r.out.count("\n") == 1
    assert list(r.json())[:2] == ["version", "warning"]  # author text comes with the warning
    assert r.json()["warning"].startswith("Memory content is untrusted inert data.")
    return r.json()


def _timestamps_and_ids(doc):
    return [(m["signedTimestamp"], m["id"]) for m in doc["memories"]]


def test_log_lists_every_lifecycle_newest_first_with_relations(history):
    repo, ids = history
    doc = _log_json(repo)
    assert list(doc) == ["version", "warning", "memories"] and doc["version"] == 0
    got = [m["id"] for m in doc["memories"]]
    assert set(got) == {ids["d1"], ids["d2"], ids["obs"], ids["long"]}  # the retraction is no record
    assert got[0] == ids["long"] and got[-1] == ids["d1"]
    stamps = [m["signedTimestamp"] for m in doc["memories"]]
    assert stamps == sorted(stamps, reverse=True)
    by = {m["id"]: m for m in doc["memories"]}
    first = by[ids["d1"]]
    assert list(first) == ["id", "stream", "actor", "actorName", "signedTimestamp", "kind", "lifecycle",
                           "trust", "summary", "relations"]
    assert first["actorName"] == "Alice Example" and first["actor"] == _actor(repo)
    assert first["summary"] == "Use JSON for the index"
    assert (first["lifecycle"], first["trust"]) == ("superseded", "policy-missing")
    assert first["relations"] == [{"type": "supersededBy", "memoryId": ids["d2"]}]
    assert by[ids["d2"]]["relations"] == [{"type": "supersedes", "memoryId": ids["d1"]}]
    assert by[ids["obs"]]["relations"] == [{"type": "retractedBy", "memoryId": ids["retraction"]}]
    assert by[ids["obs"]]["lifecycle"] == "retracted"


def test_log_plain_lines_and_graph_when_piped(history):
    repo, ids = history
    r = hn(repo, "memory", "log")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert len(lines) == 4 and "\x1b" not in r.out
    date = _log_json(repo)["memories"][0]["signedTimestamp"][:10]
    assert lines[-1] == f"{_short(ids['d1'])} {date} Alice Example decision superseded policy-missing " \
                        "Use JSON for the index"
    # bounded, with the sign of a cut (it had none on a pipe), but never cut to a width
    assert lines[0].endswith(" " + LONG.strip()[:199] + "\u2026")
    graph = hn(repo, "memory", "log", "--graph").out.splitlines()
    at = graph.index(next(line for line in graph if line.startswith(_short(ids["d2"]))))
    assert graph[at + 1] == f"    `- supersedes {_short(ids['d1'])}"
    at = graph.index(next(line for line in graph if line.startswith(_short(ids["obs"]))))
    assert graph[at + 1] == f"    `- retracted by {_short(ids['retraction'])}"
    assert graph[-1] == f"    `- superseded by {_short(ids['d2'])}"
    assert all(line.isascii() for line in graph if line.startswith("    "))  # the graph is ASCII


def test_log_filters_max_count_and_usage(history):
    repo, ids = history
    assert [m["id"] for m in _log_json(repo, "-n", "2")["memories"]] == \
        [m["id"] for m in _log_json(repo)["memories"][:2]]
    assert [m["id"] for m in _log_json(repo, "--max-count", "1")["memories"]] == [ids["long"]]
    assert _log_json(repo, "-n", "0")["memories"] == []
    # git log's spellings of a count
    assert _log_json(repo, "-2") == _log_json(repo, "-n2") == _log_json(repo, "-n", "2")
    assert [m["id"] for m in _log_json(repo, "-1")["memories"]] == [ids["long"]]
    # (the last one counted, as in git log; refused now, as every option given twice: docs/decisions.md)
    assert hn(repo, "memory", "log", "-1", "-2").err.startswith("git-hn: give -n N, -N or --max-count N once; ")
    assert _log_json(repo, "--query", "-5")["memories"] == []  # an option's value is not a count
    assert [m["id"] for m in _log_json(repo, "--kind", "observation")["memories"]] == [ids["obs"]]
    assert [m["id"] for m in _log_json(repo, "--lifecycle", "superseded", "--lifecycle", "retracted")
            ["memories"]] == [ids["obs"], ids["d1"]]
    assert _log_json(repo, "--trust", "qualified")["memories"] == []
    assert len(_log_json(repo, "--trust", "policy-missing")["memories"]) == 4
    assert [m["id"] for m in _log_json(repo, "--query", "canonical")["memories"]] == [ids["d2"]]
    assert _log_json(repo, "--actor", "0" * 64)["memories"] == []
    for bad in (["-n", "x"], ["-n", "-1"], ["-n", "1", "--max-count", "1"], ["extra"],
                ["--unknown"], ["-n1x"], ["--bogus"]):
        r = hn(repo, "memory", "log", *bad)
        # (log is git-hn's own: the reason first, then its usage)
        assert r.code == 1 and r.err.endswith("; git hn memory log -h shows the options\n"), (bad, r.err)
        if bad[0] == "-n":  # which option, and what it takes
            assert r.err.startswith(("git-hn: -n takes a whole number; ", "git-hn: -n takes 0 or more; ",
                                     "git-hn: give -n N, -N or --max-count N once; ")), r.err
    r = hn(repo, "memory", "log", "--kind", "nope")
    assert (r.code, r.err) == (1, "git-hn: invalid kind filter; valid: observation, decision, assumption, "
                                  "attempt, verification, handoff\n")
    assert "log" in hn(repo, "help").out


def test_log_policy_trust_and_untrusted_are_listed(tmp_path):
    repo = make_repo(tmp_path / "r", files={"README.md": "x\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    me = _actor(repo)
    (repo / ".hn").mkdir()
    (repo / ".hn" / "policy.json").write_text(json.dumps(
        {"version": "hn.policy/0", "maintainers": [me], "proposals": {"requiredAccepts": 1},
         "memory": {"trustedActors": [me], "trustedKinds": ["decision"]}}) + "\n")
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "policy")
    dec = _rec(repo, content="trusted")
    obs = _rec(repo, kind="observation", content="untrusted kind")
    assert {m["id"]: m["trust"] for m in _log_json(repo)["memories"]} == \
        {dec: "qualified", obs: "kind-untrusted"}
    assert [m["id"] for m in _log_json(repo, "--trust", "qualified")["memories"]] == [dec]


def test_log_from_state_equals_full_projection(history, monkeypatch):
    from git_hn.service import log as service
    from git_hn.store.repo import open_repo

    repo, _ids = history
    old = os.getcwd()
    os.chdir(repo)
    try:
        r = open_repo()
        cases = (({}, None), ({"kind": ["decision"]}, None), ({}, 2), ({"lifecycle": ["active"]}, 1),
                 ({"query": "json"}, None), ({"trust_": ["policy-missing"]}, None))
        full = {i: service.log_full(r, service.request(**args), n) for i, (args, n) in enumerate(cases)}

        def no_fallback(*_a, **_k):
            raise AssertionError("the state did not answer")

        monkeypatch.setattr(service, "_log_full", no_fallback)
        for i, (args, n) in enumerate(cases):
            assert service.log(r, service.request(**args), n) == full[i], (args, n)
    finally:
        os.chdir(old)


def test_log_hostile_author_text_is_inert(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Mallory").code == 0
    hostile = "\x1b[31mred\x1b[0m [bold]x[/bold] \u202etxt.exe\ttab\nsecond line"
    mid = _rec(repo, content=hostile)
    doc = _log_json(repo)
    assert doc["memories"][0]["summary"] == "\x1b[31mred\x1b[0m [bold]x[/bold] \u202etxt.exe\ttab"
    human = hn(repo, "memory", "log").out
    assert "\x1b" not in human and "\u202e" not in human and "second line" not in human
    assert human.rstrip("\n").endswith("\ufffd[31mred\ufffd[0m [bold]x[/bold] \\u{202e}txt.exe tab")
    out = _pty(repo, 160, {"GIT_PAGER": "cat"})
    assert "[bold]x[/bold]" in ANSI.sub("", out) and "\u202e" not in out
    assert "\x1b[31mred" not in out and _short(mid) in out


# -- a real terminal ---------------------------------------------------------------------------


def _pty(repo, columns: int, env: dict, *args, drop=("NO_COLOR", "LESS")) -> str:
    """Run ``git-hn memory log`` with stdout on a pseudo-terminal of ``columns`` columns."""
    return on_terminal(repo, [sys.executable, "-m", "git_hn", "memory", "log", *args], columns, env, drop)


@pytest.mark.parametrize("columns", [80, 160])
def test_log_on_a_terminal_fits_the_width(history, columns):
    from rich.cells import cell_len

    repo, ids = history
    out = _pty(repo, columns, {"GIT_PAGER": "cat"}, "--graph")
    assert "\x1b[" in out  # coloured on a terminal
    lines = ANSI.sub("", out).splitlines()
    assert lines and all(cell_len(line) <= columns for line in lines), lines
    shorts = [line.split(" ")[0] for line in lines if not line.startswith(" ")]
    assert shorts == [_short(m["id"]) for m in _log_json(repo)["memories"]]  # never cut
    long_line = next(line for line in lines if line.startswith(_short(ids["long"])))
    assert long_line.endswith("\u2026") and cell_len(long_line) == columns  # recall's sign of a cut
    assert any(line == f"    `- supersedes {_short(ids['d1'])}" for line in lines)


def test_log_on_a_narrow_terminal_keeps_each_summary_on_a_line_of_its_own(history):
    """A trial at 40 columns: the ID, date, name and classes took the whole width and every
    summary was cut to nothing. Too narrow for a summary beside them, it goes on the next line."""
    from rich.cells import cell_len

    repo, ids = history
    lines = ANSI.sub("", _pty(repo, 40, {"GIT_PAGER": "cat"})).splitlines()
    assert lines and all(cell_len(line) <= 40 for line in lines), lines
    heads = [i for i, line in enumerate(lines) if line.startswith(_short(ids["long"]))]
    assert len(heads) == 1
    summary = lines[heads[0] + 1]
    assert summary.startswith("    ") and len(summary.strip()) > 10, lines


def test_log_at_80_columns_leaves_out_what_is_usual_and_keeps_the_text(tmp_path):
    """A newcomer trial at 80 columns: ``3343a192a056 2026-12-05 Alice Ex observation active
    qualified bulk note number …``: 60 columns of metadata, the text that tells memories apart cut
    off, and no ``(+N lines)`` for a multi-line content (recall says it). Narrower than 120
    columns the usual classes (active, qualified) and the current year are left out; every other
    class stays; a pipe and a wide terminal keep every column."""
    import time

    repo = make_repo(tmp_path / "r", files={"README.md": "x\n"})
    assert hn(repo, "init", "--name", "Alice Example").code == 0
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "policy")
    text = "bulk note 17: cache"  # (beside the metadata of before, 80 columns kept "bulk not…")
    bulk = _rec(repo, kind="observation", content=text + "\n\nsecond paragraph\nthird line")
    old = _rec(repo, kind="observation", content="bulk note 18: index")
    assert hn(repo, "memory", "supersede", old, "--content", "bulk note 18: fixed").code == 0
    lines = ANSI.sub("", _pty(repo, 80, {"GIT_PAGER": "cat"})).splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    line = next(x for x in lines if x.startswith(_short(bulk)))
    day = time.strftime("%m-%d", time.gmtime())  # (the memories were signed today)
    assert line == f"{_short(bulk)} {day} Alice Example observation {text}  (+3 lines)", lines
    superseded = next(x for x in lines if x.startswith(_short(old)))
    assert superseded == f"{_short(old)} {day} Alice Example observation superseded bulk note 18: index"
    # a wide terminal and a pipe: every column, as before (a pipe never says "(+N lines)")
    wide = ANSI.sub("", _pty(repo, 160, {"GIT_PAGER": "cat"})).splitlines()
    year = time.strftime("%Y-%m-%d", time.gmtime())
    assert f"{_short(bulk)} {year} Alice Example observation active qualified {text}  (+3 lines)" in wide
    piped = hn(repo, "memory", "log").out.splitlines()
    assert f"{_short(bulk)} {year} Alice Example observation active qualified {text}" in piped


def test_a_narrow_log_keeps_the_summary_beside_its_note(tmp_path):
    """A review: at 50 columns the summary's room left out the width of "(+N lines)", and the
    summary was squeezed to one character ("f…  (+2 lines)"); too narrow, it takes a line of its
    own instead, in full."""
    from rich.cells import cell_len

    repo = make_repo(tmp_path / "r", files={"README.md": "x\n"})
    assert hn(repo, "init", "--name", "Alice").code == 0
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn/policy.json")
    git(repo, "commit", "-q", "-m", "policy")
    mid = _rec(repo, kind="observation", content="first line of the note\nsecond\nthird")
    lines = ANSI.sub("", _pty(repo, 50, {"GIT_PAGER": "cat"})).splitlines()
    assert lines and all(cell_len(line) <= 50 for line in lines), lines
    at = next(i for i, x in enumerate(lines) if x.startswith(_short(mid)))
    shown = "\n".join(lines[at:at + 2])
    assert "first line of" in shown and "(+2 lines)" in shown, lines


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_log_on_a_terminal_without_colour(history, env):
    repo, _ids = history
    out = _pty(repo, 80, {"GIT_PAGER": "cat", **env})
    assert "\x1b" not in out and len(out.splitlines()) == 4
    assert all(len(line) <= 80 for line in out.splitlines())


def test_log_pages_through_git_pager_settings(history):
    repo, _ids = history
    paged = _pty(repo, 80, {"GIT_PAGER": "sed s/^/PAGED:/"})
    assert ANSI.sub("", paged).splitlines()[0].startswith("PAGED:")
    assert all(line.startswith("PAGED:") for line in ANSI.sub("", paged).splitlines())
    # LESS=FRX and LV=-c as Git sets them when unset; an explicit LESS is kept
    assert _pty(repo, 80, {"GIT_PAGER": "printenv LESS LV; cat >/dev/null"}).split() == ["FRX", "-c"]
    assert _pty(repo, 80, {"GIT_PAGER": "printenv LESS; cat >/dev/null", "LESS": "S"}).split() == ["S"]
    git(repo, "config", "core.pager", "sed s/^/CORE:/")
    out = _pty(repo, 80, {}, "-n", "1", drop=("NO_COLOR", "LESS", "GIT_PAGER", "PAGER"))
    assert ANSI.sub("", out).startswith("CORE:")
    for args in (["--no-pager"], ["--json"]):
        out = _pty(repo, 80, {"GIT_PAGER": "sed s/^/PAGED:/"}, *args)
        assert "PAGED:" not in out and out.strip()
    piped = subprocess.run([sys.executable, "-m", "git_hn", "memory", "log"], cwd=repo, capture_output=True,
                           env={**os.environ, "GIT_PAGER": "sed s/^/PAGED:/"})
    assert piped.returncode == 0 and b"PAGED:" not in piped.stdout and len(piped.stdout.splitlines()) == 4
    # a pager that is not there: said, and the log shown without it, as git log does
    from helpers import on_terminal

    out = on_terminal(repo, ["sh", "-c", f'exec "{sys.executable}" -m git_hn memory log 2>&1'], 80,
                      {"GIT_PAGER": "no-such-pager-here"}, ("NO_COLOR", "LESS"))
    # (f171: git-hn tells a plain command on no PATH itself, without the shell's "sh: 1: …: not
    # found" line that repeated it raw before this one)
    assert out.startswith("git-hn: cannot run pager no-such-pager-here: no command no-such-pager-here on PATH; "
                          "the log follows without it\n"), out
    assert "not found" not in out
    assert out.endswith(_pty(repo, 80, {"GIT_PAGER": "cat"}))
    out = on_terminal(repo, ["sh", "-c", f'exec "{sys.executable}" -m git_hn memory log 2>&1'], 80,
                      {"GIT_PAGER": "./no-such-pager-here -R"}, ("NO_COLOR", "LESS"))
    assert out.startswith("git-hn: cannot run pager ./no-such-pager-here -R: ./no-such-pager-here is not an "
                          "executable file; the log follows without it\n"), out
    # shell syntax (an assignment, a pipe): the shell decides, and its 127 is said as before
    out = on_terminal(repo, ["sh", "-c", f'exec "{sys.executable}" -m git_hn memory log 2>&1'], 80,
                      {"GIT_PAGER": "LESS=R no-such-pager-here"}, ("NO_COLOR", "LESS"))
    assert "git-hn: cannot run pager LESS=R no-such-pager-here; the log follows without it\n" in out
    assert out.endswith(_pty(repo, 80, {"GIT_PAGER": "cat"}))


def test_an_empty_log_on_a_terminal_says_why_it_is_empty(tmp_path, bare_remote):
    """Nothing at all on a terminal read as a command that did nothing: the log says whether no
    memory exists yet (and, in a clone with a remote but no selection, how to import the team's)
    or the filters matched none. A pipe's stdout stays empty (nothing to parse); its stderr says
    the same (``test_an_empty_log_says_so_in_a_pipe_too``)."""
    import sys
    from pathlib import Path

    git_hn = str(Path(sys.executable).parent / "git-hn")
    repo = make_repo(tmp_path / "r")
    # no identity yet: record would fail, so init comes first (a newcomer trial)
    out, err = on_terminal(repo, [git_hn, "memory", "log"], 80, {}, both=True)
    assert (out, err) == ("", "git-hn: hint: no memory here yet: create your identity with git hn init --name "
                              "NAME, then record one with git hn memory record\n"), err
    assert hn(repo, "init", "--name", "Newbie").code == 0
    out, err = on_terminal(repo, [git_hn, "memory", "log"], 80, {}, both=True)
    assert (out, err) == ("", "git-hn: hint: no memory here yet: record one with git hn memory record\n"), err
    git(repo, "remote", "add", "origin", bare_remote("team.git").as_uri())
    out, err = on_terminal(repo, [git_hn, "memory", "log"], 80, {}, both=True)
    assert err.startswith("git-hn: hint: no memory here yet: record one with git hn memory record; no "
                          "replication selection is saved here") and err.endswith(", then git hn sync\n"), err
    out, err = on_terminal(repo, [git_hn, "memory", "log", "--kind", "decision"], 80, {}, both=True)
    assert (out, err) == ("", "git-hn: hint: no memory matches these filters\ngit-hn: hint: this clone holds no "
                              "memory imported from its remotes: if they hold some, git hn replication select "
                              "--all, then git hn sync, imports it\n")  # (the team's may match: f97)
    r = hn(repo, "memory", "log")  # a pipe: stdout empty, the terminal's hint on stderr (said in full
    # on the terminal above, within ten minutes: the shorter line, f152)
    assert (r.code, r.out) == (0, "") and r.err.startswith("git-hn: hint: no memory here yet, and still no "
                                                           "replication selection is saved here") and \
        "to add your own, record one with git hn memory record; said in full " in r.err, r.err
    _rec(repo, content="one")
    assert on_terminal(repo, [git_hn, "memory", "log", "-n", "0"], 80, {"GIT_PAGER": "cat"}, both=True) == ("", "")


def test_an_empty_log_with_a_saved_selection_points_to_the_sync(tmp_path, bare_remote):
    """A newcomer trial: a fresh clone with hooks, ``replication select --all`` and a ``git fetch``
    (which moved no branch, so imported nothing) got "create your identity …, then record one"
    while the remote held memories: with a selection saved, the log points to the sync first."""
    from helpers import shared_remote

    remote, (alice,) = shared_remote(tmp_path, "Alice")
    _rec(alice, content="one")
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(remote), str(bob))
    assert hn(bob, "hooks", "install").code == 0
    assert hn(bob, "replication", "select", "--all").code == 0
    git(bob, "fetch", "-q")
    r = hn(bob, "memory", "log")
    assert (r.code, r.out, r.err) == (0, "", "git-hn: hint: no memory here yet: nothing is imported from origin yet, "
                                             "though its replication selection is saved: git hn sync origin imports "
                                             "what it selects (a git fetch imports only when it moves a branch); to "
                                             "add your own, create your identity with git hn init --name NAME, then "
                                             "record one with git hn memory record\n")
    assert hn(bob, "sync").code == 0  # (the way it names works)
    assert hn(bob, "memory", "log").out.count("\n") == 1


def test_an_empty_log_says_so_in_a_pipe_too(tmp_path):
    """A newcomer trial: ``memory log`` with no memory printed nothing at all when piped (the
    hint was for terminals only); stdout stays empty, stderr says what to do, as recall's
    hints do in a pipe."""
    repo = make_repo(tmp_path / "r")
    r = hn(repo, "memory", "log")
    assert (r.code, r.out, r.err) == (0, "", "git-hn: hint: no memory here yet: create your identity with git hn "
                                             "init --name NAME, then record one with git hn memory record\n")
    assert hn(repo, "init", "--name", "A").code == 0
    assert hn(repo, "memory", "log").err == "git-hn: hint: no memory here yet: record one with git hn memory record\n"
    assert hn(repo, "memory", "log", "--kind", "attempt").err == "git-hn: hint: no memory matches these filters\n"
    assert hn(repo, "memory", "log", "--json").err == ""  # machine output: no hint


def test_an_empty_log_before_the_first_commit_says_to_make_it(tmp_path):
    """A trial: ``memory log`` in a repository without a commit said to record one, and record
    then failed (it anchors to a commit): the first commit comes first."""
    repo = tmp_path / "r"
    git(tmp_path, "init", "-q", str(repo))
    r = hn(repo, "memory", "log")
    assert (r.code, r.out, r.err) == (0, "", "git-hn: hint: no memory here yet: make the first commit (git commit), "
                                             "create your identity with git hn init --name NAME, then record one "
                                             "with git hn memory record\n")
    assert hn(repo, "init", "--name", "A").code == 0
    assert hn(repo, "memory", "log").err == ("git-hn: hint: no memory here yet: make the first commit (git commit), "
                                             "then record one with git hn memory record\n")
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    assert hn(repo, "memory", "log").err == "git-hn: hint: no memory here yet: record one with git hn memory record\n"
