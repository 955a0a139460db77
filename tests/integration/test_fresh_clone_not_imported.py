"""A fresh clone whose saved selection has imported nothing yet (service/unimported.py,
docs/decisions.md): a team trial cloned, installed the hooks, selected ``--all`` and ran a ``git
fetch`` that moved no branch; the remote held memory, yet recall answered "Matched: 0" and the
JSON brief and ``index verify`` said nothing more. Real repositories and a real bare remote."""

from __future__ import annotations

import json

from helpers import git, hn, shared_remote, wait_publication

HINT = ("git-hn: hint: nothing is imported from origin yet, though its replication selection is saved: git hn sync "
        "origin imports what it selects (a git fetch imports only when it moves a branch)\n")


def _fresh_clone(tmp_path):
    remote, (alice, newcomer) = shared_remote(tmp_path, "Alice", "Newcomer")
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "team decision")
    assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    assert git(remote, "for-each-ref", "refs/hn/memory")
    assert hn(newcomer, "hooks", "install").code == 0
    selected = hn(newcomer, "replication", "select", "--all")
    assert selected.code == 0
    assert "git hn sync origin imports what it selects now" in selected.err, selected.err
    git(newcomer, "fetch", "-q", "origin")  # (moves no branch: the hook imports nothing)
    return remote, alice, newcomer


def test_recall_brief_and_index_verify_say_nothing_is_imported_yet_until_a_sync(tmp_path):
    _remote, _alice, newcomer = _fresh_clone(tmp_path)
    for args in (["memory", "recall", "--include-untrusted"], ["memory", "recall", "--json"],
                 ["memory", "brief", "--json"], ["memory", "index", "verify"]):
        r = hn(newcomer, *args)
        assert r.code == 0 and HINT in r.err, (args, r.err)
    assert "This clone holds no memory imported from its remotes yet" in hn(newcomer, "memory", "brief").out
    assert hn(newcomer, "sync", "origin").code == 0
    for args in (["memory", "recall", "--include-untrusted"], ["memory", "brief", "--json"],
                 ["memory", "index", "verify"]):
        r = hn(newcomer, *args)
        assert r.code == 0 and "nothing is imported" not in r.err, (args, r.err)


def test_a_remote_that_holds_no_memory_is_not_named_after_a_sync(tmp_path):
    _remote, (_alice, newcomer) = shared_remote(tmp_path, "Alice", "Newcomer")
    assert hn(newcomer, "replication", "select", "--all").code == 0
    assert HINT in hn(newcomer, "memory", "recall").err
    assert hn(newcomer, "sync", "origin").code == 0  # (found nothing to import)
    r = hn(newcomer, "memory", "recall")
    assert r.code == 0 and "nothing is imported" not in r.err, r.err


def test_a_first_sync_from_a_remote_holding_no_memory_leaves_an_index_that_verifies(tmp_path):
    """A soak trial: a fresh clone's first sync, from a remote that holds no memory yet, left no
    state, and ``index verify`` right after it failed with "missing" (issue 11 item 4: a fresh
    clone's first sync leaves a fresh index). With no selection, and with one."""
    _remote, (_alice, newcomer, other) = shared_remote(tmp_path, "Alice", "Newcomer", "Other")
    assert hn(other, "replication", "select", "--all").code == 0
    for clone in (newcomer, other):
        assert hn(clone, "sync", "origin").code == 0
        r = hn(clone, "memory", "index", "verify")
        assert r.code == 0 and r.out.endswith("records 0\n"), (r.out, r.err)


def test_without_a_selection_nothing_is_said_and_nothing_asked(tmp_path, monkeypatch):
    _remote, (_alice, newcomer) = shared_remote(tmp_path, "Alice", "Newcomer")
    from git_hn.store.git import Git

    asked = []
    run = Git.run
    monkeypatch.setattr(Git, "run", lambda self, args, **kw: (asked.append(list(args)), run(self, args, **kw))[1])
    r = hn(newcomer, "memory", "recall")
    assert r.code == 0 and "nothing is imported" not in r.err, r.err
    assert asked and not [a for a in asked if any(str(x).startswith("refs/hn/remotes/origin/memory/") for x in a)]


def test_a_steady_state_asks_git_nothing_more(tmp_path):
    """A review's case: after ``select --all``, a sync that published Alice's stream (nothing
    else to import) and then a sync that imported it; every read after still asked Git twice
    whether anything was imported (the test read only the quiet record, which that import's
    fetch had dropped). A sync's import that ends without an error now leaves a ``served``
    mark, which that sync's own publication keeps (another review: recall said nothing was
    imported yet, naming the command just run)."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "replication", "select", "--all").code == 0
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "mine")
    assert r.code == 0, r.err
    synced = hn(alice, "sync")
    assert synced.code == 0 and "published 1 stream" in synced.out, synced.out
    assert "nothing is imported" not in hn(alice, "memory", "recall").err  # (its import served the selection)
    synced = hn(alice, "sync")
    assert synced.code == 0 and "promoted 1 stream (origin's copy of your own: nothing new came in)" in synced.out, synced.out
    trace = tmp_path / "trace"
    import os
    import subprocess

    proc = subprocess.run(["git", "hn", "memory", "recall", "--include-untrusted"], cwd=alice, capture_output=True,
                          text=True, env={**os.environ, "GIT_TRACE": str(trace)})
    assert proc.returncode == 0 and "nothing is imported" not in proc.stderr, proc.stderr
    assert "refs/hn/remotes/origin/memory/" not in trace.read_text()
    # a sync with nothing to do keeps the quiet record the fetch hook's wrapper reads: a publication
    # that found the remote holding her stream already counted as one and dropped it, every time
    assert hn(alice, "sync").code == 0
    assert os.listdir(alice / ".git" / "hn" / "replication" / "quiet")


def test_a_sync_that_imports_then_publishes_serves_the_selection(tmp_path):
    """A review: the sync's import left its ``served`` mark, then its publication removed it, so
    recall right after "Synchronized with origin: published 1 stream" said nothing was imported
    yet and named ``git hn sync origin``, the command just run. What it published is this
    clone's own: the import served the selection."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "mine")
    assert r.code == 0, r.err
    assert hn(alice, "replication", "select", "origin", "--all").code == 0
    synced = hn(alice, "sync", "origin")
    assert synced.code == 0 and "Synchronized with origin: published 1 stream" in synced.out, synced.out
    r = hn(alice, "memory", "recall")
    assert r.code == 0 and "nothing is imported" not in r.err, r.err


def test_a_push_that_publishes_is_no_import(tmp_path):
    """A publication by itself serves no selection (an earlier review: the pre-push hook's hid
    the hint while nothing was imported): only a sync's import does."""
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    assert hn(alice, "replication", "select", "origin", "--all").code == 0
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "mine")
    assert r.code == 0, r.err
    (alice / "later.txt").write_text("later\n")
    git(alice, "add", "later.txt")
    git(alice, "commit", "-q", "-m", "later")
    git(alice, "push", "-q", "origin", "main")
    wait_publication(alice)
    assert git(remote, "for-each-ref", "refs/hn/memory")  # (the hook published)
    assert HINT in hn(alice, "memory", "recall").err


STREAMLESS = ("the replication selection saved for origin selects no memory stream, so nothing is imported from "
              "it: git hn replication select --all selects every memory stream, --memory sha256:<stream> one "
              "(git-hn imports no stream for an --actor or --proposal selector), then git hn sync origin imports it")


def test_an_actor_only_selection_says_what_imports_instead(tmp_path):
    """A newcomer trial: ``replication select --actor <Bob>`` alone, then a sync ("skipped
    (unsupported)"); afterwards ``log`` said only "no memory here yet: create your identity …,
    then record one", recall "Matched: 0" and the brief nothing, though the saved selection can
    never import anything in git-hn. Each now names it and what imports instead, before the sync
    and after it, until a selection that selects streams is saved and synced."""
    from helpers import actor_of

    _remote, (alice, newcomer) = shared_remote(tmp_path, "Alice", "Newcomer")
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "team decision")
    assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    assert hn(newcomer, "replication", "select", "--actor", actor_of(alice)).code == 0
    for synced in (False, True):
        if synced:
            assert hn(newcomer, "sync", "origin").code == 0
        log = hn(newcomer, "memory", "log")
        assert log.code == 0 and log.err == f"git-hn: hint: no memory here yet: {STREAMLESS}; to add your own, " \
            "record one with git hn memory record\n", log.err
        for args in (["memory", "recall"], ["memory", "recall", "--json"], ["memory", "brief", "--json"]):
            r = hn(newcomer, *args)
            assert r.code == 0 and f"git-hn: hint: {STREAMLESS}\n" in r.err, (args, r.err)
            assert "nothing is imported from origin yet" not in r.err  # (a sync would import nothing)
        brief = hn(newcomer, "memory", "brief")
        assert STREAMLESS[:1].upper() + STREAMLESS[1:] + "\n" in brief.out, brief.out
    assert hn(newcomer, "replication", "select", "--all").code == 0
    assert hn(newcomer, "sync", "origin").code == 0
    for args in (["memory", "log"], ["memory", "recall", "--json"], ["memory", "brief"]):
        r = hn(newcomer, *args)
        assert r.code == 0 and "selects no memory stream" not in r.err + r.out, (args, r.err)


def _mcp_hint(repo, tool: str) -> str:
    """The ``hint`` of a real ``git hn mcp`` server's answer to ``tool`` (no arguments)."""
    import json
    import subprocess
    import sys

    requests = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {}}}]
    proc = subprocess.run([sys.executable, "-m", "git_hn", "mcp"], cwd=repo, capture_output=True, text=True,
                          input="".join(json.dumps(r) + "\n" for r in requests), timeout=60)
    answer = next(json.loads(line) for line in proc.stdout.splitlines() if json.loads(line).get("id") == 2)
    return json.loads(answer["result"]["content"][0]["text"]).get("hint", "")


def test_a_selection_a_removed_remote_left_names_no_sync_that_fails(tmp_path):
    """A review: after ``git remote remove upstream`` its saved selection (``--actor`` alone)
    stays, and the Markdown brief's header and the MCP tools' ``hint`` still said to select
    ``--all`` for upstream, "then git hn sync upstream", which fails (no such remote), while
    recall and log, whose test asks for configured remotes, said nothing of it. Every read now
    makes that one test (``unimported.streamless``), and the header counts only the selections of
    configured remotes: its line is the one of a clone with none, whose commands import."""
    from git_hn.service.brief import NOT_IMPORTED
    from helpers import actor_of

    remote, (alice, newcomer) = shared_remote(tmp_path, "Alice", "Newcomer")
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "team decision")
    assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    git(newcomer, "remote", "add", "upstream", str(remote))
    assert hn(newcomer, "replication", "select", "upstream", "--actor", actor_of(alice)).code == 0
    named = "git hn sync upstream"
    assert named in hn(newcomer, "memory", "brief").out  # (while upstream is there, each read names it)
    assert named in _mcp_hint(newcomer, "memory_brief") and named in hn(newcomer, "memory", "recall").err
    git(newcomer, "remote", "remove", "upstream")
    assert (newcomer / ".git" / "hn" / "replication" / "selections" / "dXBzdHJlYW0.json").exists()
    brief = hn(newcomer, "memory", "brief")
    assert brief.code == 0 and NOT_IMPORTED in brief.out, brief.out  # (no configured remote's selection)
    said = [brief.out, brief.err, _mcp_hint(newcomer, "memory_brief"), _mcp_hint(newcomer, "memory_recall")]
    said += [hn(newcomer, *args).err for args in (["memory", "recall"], ["memory", "recall", "--json"],
                                                   ["memory", "brief", "--json"], ["memory", "log"])]
    assert not [s for s in said if "upstream" in s], said
    assert hn(newcomer, "replication", "select", "--all").code == 0
    synced = hn(newcomer, "sync")
    assert synced.code == 0 and "imported 1 memory" in synced.out, synced.out
    brief = hn(newcomer, "memory", "brief", "--include-untrusted").out
    assert "team decision" in brief and "holds no memory imported" not in brief


def test_each_read_reads_each_selection_file_once(tmp_path, monkeypatch):
    """A review: ``unimported.remotes`` read every selection file again for each remote not yet
    served (a list comprehension calling ``store.replication.streamless``), after ``hint`` had
    read them all. Two remotes selected, neither synced: two reads, and both named."""
    from git_hn.service import unimported
    from git_hn.store import replication as rstate
    from git_hn.store.repo import open_repo

    remote, (newcomer,) = shared_remote(tmp_path, "Newcomer")
    git(newcomer, "remote", "add", "upstream", str(remote))
    for name in ("origin", "upstream"):
        assert hn(newcomer, "replication", "select", name, "--all").code == 0
    read = []
    load = rstate.load_selection
    monkeypatch.setattr(rstate, "load_selection", lambda repo, name: (read.append(name), load(repo, name))[1])
    repo = open_repo(str(newcomer))
    try:
        text = unimported.hint(repo)
    finally:
        repo.close()
    assert text.startswith("nothing is imported from origin or upstream yet"), text
    assert sorted(read) == ["origin", "upstream"], read


def test_the_header_line_reads_the_briefs_own_listing(tmp_path):
    """The Markdown brief's header line is decided from the memory listing the brief reads anyway
    (``Repo.listed_remotes``) and, only when nothing is imported, from ``git remote`` (the
    configured remotes, which a review found the line needed: a removed remote was named). So a
    synced clone's brief, what every session starts with, asks Git nothing for it (it asked a
    ``for-each-ref`` of its own), and a fresh clone's asks one question, as before."""
    import os
    import subprocess

    _remote, (alice, newcomer) = shared_remote(tmp_path, "Alice", "Newcomer")
    r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "team decision")
    assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0

    def asked(repo) -> list[str]:
        trace = tmp_path / "trace"
        trace.unlink(missing_ok=True)
        proc = subprocess.run(["git", "hn", "memory", "brief"], cwd=repo, capture_output=True, text=True,
                              env={**os.environ, "GIT_TRACE": str(trace)})
        assert proc.returncode == 0, proc.stderr
        return [line.split("git ", 1)[1] for line in trace.read_text().splitlines()
                if "built-in: git " in line and ("for-each-ref --count=1" in line or line.endswith("git remote"))]

    assert asked(newcomer) == ["remote"]  # (nothing imported: which remotes are configured)
    assert hn(newcomer, "replication", "select", "--all").code == 0
    assert hn(newcomer, "sync").code == 0
    assert asked(newcomer) == []


def test_recall_and_log_say_nothing_is_imported_without_a_selection_as_the_brief_does(tmp_path):
    """A review: in a clone with a remote and no saved selection, whose own memory recall and log
    listed, neither said that nothing of the team's was imported, while the brief's header (and
    every MCP read's hint) said so. Both now say it once on stderr, the header's line
    (``advice.no_selection``), in every form; stdout is the same document. An answer that is
    empty says it in its own words, once, as before. Selected and synced, nothing is said."""
    from git_hn.service.brief import NOT_IMPORTED

    line = "git-hn: hint: " + NOT_IMPORTED[:1].lower() + NOT_IMPORTED[1:] + "\n"
    _remote, (alice, newcomer) = shared_remote(tmp_path, "Alice", "Newcomer")
    for repo, content in ((alice, "team decision"), (newcomer, "my own note")):
        r = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
               "--content", content)
        assert r.code == 0, r.err
    assert hn(alice, "sync").code == 0
    assert NOT_IMPORTED in hn(newcomer, "memory", "brief").out
    for args in (["memory", "recall", "--include-untrusted"], ["memory", "recall"], ["memory", "log"],
                 ["memory", "log", "--kind", "observation"]):
        r = hn(newcomer, *args)
        assert r.code == 0 and r.err.count(line) == 1, (args, r.err)
    for args in (["memory", "recall", "--include-untrusted", "--json"], ["memory", "log", "--json"]):
        r = hn(newcomer, *args)
        assert r.code == 0 and r.err.count(line) == 1, (args, r.err)
        assert len(json.loads(r.out)["memories"]) == 1 and "my own note" in r.out  # (stdout: the document alone)
    assert line not in hn(newcomer, "memory", "log", "-n", "0").err  # (asks for nothing)
    empty = hn(newcomer, "memory", "recall", "--include-untrusted", "--query", "nothing-like-this")
    assert empty.code == 0 and line not in empty.err and empty.err.count("no replication selection is saved") == 1
    assert hn(newcomer, "replication", "select", "--all").code == 0
    assert hn(newcomer, "sync").code == 0
    for args in (["memory", "recall", "--include-untrusted"], ["memory", "log"], ["memory", "log", "--json"]):
        r = hn(newcomer, *args)
        assert r.code == 0 and "holds no memory imported" not in r.err, (args, r.err)
    assert "team decision" in hn(newcomer, "memory", "log").out


def test_recall_and_log_in_a_clone_of_no_one_ask_git_for_no_remote(tmp_path, monkeypatch):
    """The cost of that line on every read: in a repository whose configuration names no remote
    (and includes no other file), recall and log ask no ``git remote`` for it, and neither does
    recall in a clone with a selection saved (its first version asked it on every read)."""
    from helpers import git_processes, init_as, make_repo

    solo = make_repo(tmp_path / "solo")
    init_as(solo, "Solo")
    assert hn(solo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "alone").code == 0
    _remote, (_alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    assert hn(bob, "replication", "select", "--all").code == 0 and hn(bob, "sync").code == 0
    assert hn(bob, "memory", "recall").code == 0  # (the first read checks the remotes once: renamed remotes)
    asked = [(solo, ["memory", "recall"]), (solo, ["memory", "log"]), (bob, ["memory", "recall"])]
    for n, (repo, args) in enumerate(asked):
        trace = tmp_path / f"trace{n}"
        trace.mkdir()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        r = hn(repo, *args)
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        assert r.code == 0 and "replication selection" not in r.err, (repo, args, r.err)
        assert [a for a in git_processes(trace) if a[:1] == ["remote"]] == [], (repo, args)
