"""Memories left out because they do not apply at the query commit (docs/decisions.md, "left
out as not applying"): after a squash merge, the feature branch's memories no longer apply on
main. A team trial found recall and the brief dropping them without a word whenever anything
else matched, and the one hint (given only when nothing matched) suggesting a supersede that only
the author may run. Real repositories, a real bare remote, a real import."""

from __future__ import annotations

from helpers import git, hn, shared_remote


def _record(repo, content, path="p.py") -> dict:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--path", path, "--content", content)
    assert r.code == 0, r.err
    return r.json()


def _squashed(tmp_path):
    """Alice records a decision on p.py at main and one on branch feat, publishes both, and the
    feature is squash-merged into main and deleted, there and in both clones (a hosting UI's
    merge, then ``fetch --prune``); Bob imports Alice's stream. (alice, bob, the main decision,
    the feature decision)"""
    remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    (alice / "p.py").write_text("1\n")
    git(alice, "add", "p.py")
    git(alice, "commit", "-q", "-m", "p")
    git(alice, "push", "-q", "origin", "main")
    on_main = _record(alice, "main decision on p.py")
    git(alice, "checkout", "-q", "-b", "feat")
    (alice / "p.py").write_text("2\n")
    git(alice, "commit", "-q", "-am", "feat")
    git(alice, "push", "-q", "origin", "feat")
    on_feat = _record(alice, "feature decision: p.py holds 2")
    assert hn(alice, "sync").code == 0
    git(alice, "checkout", "-q", "main")
    git(alice, "merge", "-q", "--squash", "feat")
    git(alice, "commit", "-q", "-m", "feat (#1)")
    git(alice, "push", "-q", "origin", "main")
    assert hn(bob, "replication", "select", "--all").code == 0
    git(bob, "pull", "-q", "origin", "main")
    assert hn(bob, "sync").code == 0
    git(alice, "push", "-q", "origin", "--delete", "feat")
    git(alice, "branch", "-q", "-D", "feat")
    for clone in (alice, bob):
        git(clone, "fetch", "-q", "--prune", "origin")
    assert git(alice, "rev-parse", "HEAD") == git(bob, "rev-parse", "HEAD")
    return alice, bob, on_main, on_feat


HEAD = ("git-hn: hint: 1 matching memory does not apply at this commit and was left out: its anchor commit is not "
        "in its history (a squash merge or a rebase?); ")


def test_the_author_is_told_of_the_left_out_memory_while_another_matched(tmp_path):
    alice, _bob, on_main, on_feat = _squashed(tmp_path)
    short = on_feat["memoryId"][7:19]
    said = (f"{HEAD}git hn memory show {short} says where it applies, and git hn memory supersede {short} --at HEAD "
            "--same-content records it again on HEAD\n")
    for args in ([], ["--json"]):
        r = hn(alice, "memory", "recall", "--include-untrusted", "--path", "p.py", *args)
        assert r.code == 0 and said in r.err, r.err
    assert [m["id"] for m in hn(alice, "memory", "recall", "--include-untrusted", "--path", "p.py",
                                "--json").json()["memories"]] == [on_main["memoryId"]]
    # the command it gives works for her
    r = hn(alice, "memory", "supersede", short, "--at", "HEAD", "--content", "p.py holds 2 on main")
    assert r.code == 0, r.err
    r = hn(alice, "memory", "recall", "--include-untrusted", "--path", "p.py", "--json")
    assert r.json()["matched"] == 2 and "does not apply" not in r.err, r.err


def test_a_teammate_is_given_a_command_a_teammate_can_run(tmp_path):
    """Bob cannot supersede Alice's memory; the hint gives him a record of his own citing it."""
    _alice, bob, _on_main, on_feat = _squashed(tmp_path)
    short = on_feat["memoryId"][7:19]
    cite = (f"git hn memory record --kind decision --at HEAD --applies descendants --evidence "
            f"memory:{on_feat['memoryId']} --content TEXT "
            "records your own on HEAD citing it (only its author can supersede it)")
    said = f"{HEAD}git hn memory show {short} says where it applies, and {cite}\n"
    r = hn(bob, "memory", "recall", "--include-untrusted", "--path", "p.py")
    assert r.code == 0 and said in r.err, r.err
    assert hn(bob, "memory", "supersede", short, "--at", "HEAD", "--content", "x").code == 1  # (why: only Alice may)
    r = hn(bob, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--evidence",
           f"memory:{on_feat['memoryId']}", "--content", "p.py holds 2 on main too")
    assert r.code == 0, r.err


def test_a_memory_of_an_open_branch_is_not_called_left_out(tmp_path):
    """A review's case: the line fired for every memory of an unmerged branch, on every recall
    and brief on main, suggesting to carry work in progress over to HEAD. A branch (or tag, or
    remote-tracking ref) still holding the anchor means nothing was lost: nothing is said."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    _record(alice, "main decision on p.py")
    git(alice, "checkout", "-q", "-b", "wip")
    (alice / "p.py").write_text("2\n")
    git(alice, "add", "p.py")
    git(alice, "commit", "-q", "-m", "wip")
    _record(alice, "work in progress on p.py")
    git(alice, "checkout", "-q", "main")
    for args in ([], ["--json"]):
        r = hn(alice, "memory", "recall", "--include-untrusted", "--path", "p.py", *args)
        assert r.code == 0 and "does not apply" not in r.err, r.err
    for args in ([], ["--json"]):
        r = hn(alice, "memory", "brief", "--include-untrusted", *args)
        assert r.code == 0 and "left out" not in r.out + r.err, r.out + r.err
    git(alice, "branch", "-q", "-D", "wip")  # (deleted unmerged: now it is said)
    r = hn(alice, "memory", "recall", "--include-untrusted", "--path", "p.py")
    assert "1 matching memory does not apply at this commit and was left out" in r.err, r.err


def test_a_recall_that_matched_only_an_open_branchs_memory_names_the_branch(tmp_path):
    """An agent trial: ``recall --topic dialect`` on main, the decision being on an unmerged,
    still existing feature branch, said "(a squash merge or a rebase?) … supersede ID --at HEAD
    records it again on HEAD": following it copies a branch-only decision onto main. While a
    branch holds the anchor, the hint (CLI, ``--json`` too, MCP ``hint``, ``show``) names the
    branch and the recall there; ``supersede --at HEAD`` only for anchors no ref holds."""
    from git_hn.service import mcp_calls
    from git_hn.store.repo import open_repo

    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "checkout", "-q", "-b", "feature/tsv")
    (alice / "t.py").write_text("1\n")
    git(alice, "add", "t.py")
    git(alice, "commit", "-q", "-m", "tsv")
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--topic", "dialect", "--content", "TSV dialect")
    assert r.code == 0, r.err
    short = r.json()["memoryId"][7:19]
    git(alice, "checkout", "-q", "main")
    said = ("1 matching memory does not apply at this commit and was left out: its anchor commit is on feature/tsv, "
            "not merged here: git hn memory recall --at feature/tsv lists it there")
    for args in ([], ["--json"]):
        r = hn(alice, "memory", "recall", "--include-untrusted", "--topic", "dialect", *args)
        assert r.code == 0 and f"git-hn: hint: {said}\n" in r.err and "supersede" not in r.err, r.err
    doc = mcp_calls._recall(open_repo(str(alice)), {"topic": ["dialect"], "includeUntrusted": True})
    # (in the MCP tools' words: an agent with MCP tools only was told of git hn memory recall)
    mcp = said.replace("git hn memory recall --at feature/tsv", "memory_recall with atCommit feature/tsv")
    assert mcp[1:] in doc["hint"] and "supersede" not in doc["hint"], doc
    r = hn(alice, "memory", "show", short)
    assert r.code == 0 and "on feature/tsv, which HEAD does not contain (not merged here)" in r.err \
        and "supersede" not in r.err, r.err
    assert hn(alice, "memory", "recall", "--json", "--include-untrusted", "--at", "feature/tsv", "--topic",
              "dialect").json()["matched"] == 1
    _record(alice, "another, on main", path="README.md")  # (another on a deleted branch: both said)
    git(alice, "checkout", "-q", "-b", "gone")
    git(alice, "commit", "-q", "--allow-empty", "-m", "gone")
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--topic", "dialect", "--content", "CSV dialect")
    gone = r.json()["memoryId"][7:19]
    git(alice, "checkout", "-q", "main")
    git(alice, "branch", "-q", "-D", "gone")
    r = hn(alice, "memory", "recall", "--include-untrusted", "--topic", "dialect")
    assert ("git-hn: hint: 2 matching memories do not apply at this commit and were left out: 1 has its anchor "
            "commit on no branch, tag or remote-tracking ref here (a squash merge or a rebase?); git hn memory show "
            f"{gone} says where it applies, and git hn memory supersede {gone} --at HEAD --same-content records it "
            "again on HEAD; 1 of them: its anchor commit is on feature/tsv, not merged here: git hn memory recall --at "
            "feature/tsv lists it there\n") in r.err, r.err
    # MCP memory_show says what the CLI's show says (a trial: it had no ``hint``)
    repo = open_repo(str(alice))
    doc = mcp_calls._show(repo, {"memory": short})
    assert doc["hint"].endswith("on `feature/tsv`, which HEAD does not contain (not merged here): recall and the brief "
                                "at HEAD leave it out; memory_recall with atCommit feature/tsv lists it there."), doc
    doc = mcp_calls._show(repo, {"memory": gone})
    assert doc["hint"].endswith(f"memory_supersede with memory {gone}, atCommit HEAD and content records it again on "
                                "HEAD."), doc


def test_a_recall_that_matched_only_exact_or_subject_memories_says_where_they_apply(tmp_path):
    """The same trial's cause, by applicability: a memory recorded ``--applies exact`` on an
    earlier commit of main, or ``--applies subject``, is anchored on a commit main holds, so
    naming main as "not merged here" (or a squash merge) would be wrong; the hint says what
    each applies to and the recall that lists it, and never offers a supersede."""
    import hashlib

    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    here = git(alice, "rev-parse", "HEAD")
    subject = "issue:sha256:" + hashlib.sha256(b"https://example.com/issues/9").hexdigest()
    for args in (["--applies", "exact"], ["--applies", "subject", "--subject", subject]):
        r = hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--topic", "csv", *args,
               "--content", "x")
        assert r.code == 0, r.err
    git(alice, "commit", "-q", "--allow-empty", "-m", "later")
    r = hn(alice, "memory", "recall", "--include-untrusted", "--topic", "csv")
    assert ("git-hn: hint: 2 matching memories do not apply at this commit and were left out: 1 of them: it applies "
            f"only at its anchor commit {here[:12]} (--applies exact): git hn memory recall --at {here[:12]} lists it "
            f"there; 1 of them: it applies only to subject {subject} (--applies subject): git hn memory recall "
            f"--subject {subject} lists it\n") in r.err and "supersede" not in r.err, r.err


def test_a_recall_below_a_detached_head_that_holds_the_anchor_still_says_it(tmp_path):
    """A review: with the anchor held only by a detached HEAD (no branch, tag or remote-tracking
    ref), a recall at its parent that matched nothing said "Matched: 0" and no word of the
    memory left out (``holding_ref`` named nothing, and the memories were dropped from the
    count). The hint names HEAD and the recall there; with a branch, the branch as before."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    git(alice, "checkout", "-q", "--detach", "main")
    git(alice, "commit", "-q", "--allow-empty", "-m", "detached work")
    r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "zebra decision")
    assert r.code == 0, r.err
    said = ("git-hn: hint: 1 matching memory does not apply at this commit and was left out: its anchor commit is on "
            "HEAD, not merged here: git hn memory recall --at HEAD lists it there\n")
    for args in ([], ["--json"]):
        r = hn(alice, "memory", "recall", "--include-untrusted", "--at", "HEAD~1", "--query", "zebra", *args)
        assert r.code == 0 and said in r.err and "supersede" not in r.err, r.err
    git(alice, "branch", "tmpb", "HEAD")
    r = hn(alice, "memory", "recall", "--include-untrusted", "--at", "HEAD~1", "--query", "zebra")
    assert "1 matching memory does not apply at this commit and was left out: its anchor commit is on tmpb" in r.err


def test_the_refs_that_hold_anchors_are_named_in_a_few_git_processes(tmp_path, monkeypatch):
    """A review asked the cost of ``holding_ref`` (``for-each-ref --contains``, one process per
    commit): 60 to 100 ms with 2,000 tags and 500 branches, and 1.8 s for an old commit of a
    30,000-commit history; a brief asks it for up to three handoffs. ``holding_refs`` names them
    all with ``name-rev`` (after one ``rev-list`` sets aside those no ref holds): a branch first,
    then a remote-tracking ref (never the symbolic ``origin/HEAD``), then a tag."""
    import os

    from git_hn.service.held import holding_refs
    from git_hn.store.repo import open_repo
    from helpers import git_processes

    _remote, (alice,) = shared_remote(tmp_path, "Alice")

    def commit_on(branch: str, name: str) -> str:
        git(alice, "checkout", "-q", "-b", branch, "main")
        git(alice, "commit", "-q", "--allow-empty", "-m", name)
        return git(alice, "rev-parse", "HEAD")

    remote_only = commit_on("topic", "topic")
    git(alice, "push", "-q", "origin", "topic")
    git(alice, "remote", "set-head", "origin", "topic")
    tagged = commit_on("tagged", "tagged")
    git(alice, "tag", "v1")
    both = commit_on("$(touch${IFS}x)", "both")
    git(alice, "tag", "v2")
    gone = commit_on("gone", "gone")
    below = git(alice, "rev-parse", "HEAD~1")  # (main's tip: main holds it, and every branch here)
    git(alice, "checkout", "-q", "main")
    for branch in ("topic", "tagged", "gone"):
        git(alice, "branch", "-q", "-D", branch)
    trace = tmp_path / "trace2"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    repo = open_repo(str(alice))
    try:
        found = holding_refs(repo, [remote_only, tagged, both, gone, below])
    finally:
        repo.close()
    assert found == {remote_only: "origin/topic", tagged: "v1", both: "$(touch${IFS}x)", below: "main"}
    started = [argv for argv in git_processes(trace) if argv and argv[0] in ("name-rev", "rev-list", "for-each-ref")]
    assert sorted(argv[0] for argv in started) == ["name-rev", "name-rev", "name-rev", "rev-list"], started
    assert not os.path.exists(alice / "x")


def test_the_recall_tool_says_it_as_the_cli_does_in_its_own_words(tmp_path):
    from git_hn.service import mcp_calls
    from git_hn.store.repo import open_repo

    alice, _bob, on_main, on_feat = _squashed(tmp_path)
    doc = mcp_calls._recall(open_repo(str(alice)), {"path": "p.py", "includeUntrusted": True})
    assert [m["id"] for m in doc["memories"]] == [on_main["memoryId"]]
    assert "1 matching memory does not apply at this commit and was left out" in doc.get("hint", ""), doc
    assert (f"memory_show with memory {on_feat['memoryId'][7:19]} says where it applies, and memory_supersede with "
            f"memory {on_feat['memoryId'][7:19]}, atCommit HEAD and content records it again on HEAD") in doc["hint"]
    assert "git hn" not in doc["hint"].split("left out")[1], doc["hint"]


def test_the_brief_says_how_many_it_left_out(tmp_path):
    alice, _bob, _on_main, _on_feat = _squashed(tmp_path)
    note = ("1 memory left out: it does not apply at this commit (its anchor commit is not in its history: a squash "
            "merge or a rebase?); git hn memory recall names it and how to carry it over")
    r = hn(alice, "memory", "brief", "--include-untrusted")
    assert r.code == 0 and f"\n{note}\n" in r.out, r.out
    r = hn(alice, "memory", "brief", "--include-untrusted", "--json")
    assert r.code == 0 and f"git-hn: hint: {note}\n" in r.err, r.err
    assert [d["data"]["content"] for d in r.json()["decisions"]] == ["main decision on p.py"]
    from git_hn.service import brief
    from git_hn.store.repo import open_repo

    repo = open_repo(str(alice))
    head = git(alice, "rev-parse", "HEAD")
    assert brief.brief(repo, head, include_untrusted=True) == brief.brief_full(repo, head, include_untrusted=True)


def test_an_hn_anchor_keep_ref_is_no_open_branch(tmp_path):
    """A team trial: after the squash merge, Bob followed his sync's reminder (git push origin
    C:refs/heads/hn-anchor/<c12>), and from then on recall and the brief on main said nothing of
    his memories: ``origin/hn-anchor/<c12>`` counted as an open branch holding the anchor (recall
    even offered ``recall --at origin/hn-anchor/…``). Such a ref only keeps the commit for
    importers: the squash-merge hints stay, local keep branch or a remote's alike."""
    from git_hn.service import mcp_calls
    from git_hn.service.held import holding_refs
    from git_hn.store.repo import open_repo

    alice, _bob, on_main, on_feat = _squashed(tmp_path)
    c = on_feat["anchor"]["commit"]
    git(alice, "push", "-q", "origin", f"{c}:refs/heads/hn-anchor/{c[:12]}")
    git(alice, "fetch", "-q", "origin")
    git(alice, "branch", f"hn-anchor/{c[:12]}", c)  # (a local keep branch too)
    assert git(alice, "rev-parse", f"refs/remotes/origin/hn-anchor/{c[:12]}") == c
    short = on_feat["memoryId"][7:19]
    said = (f"{HEAD}git hn memory show {short} says where it applies, and git hn memory supersede {short} --at HEAD "
            "--same-content records it again on HEAD\n")
    for args in ([], ["--json"]):
        r = hn(alice, "memory", "recall", "--include-untrusted", "--path", "p.py", *args)
        assert r.code == 0 and said in r.err and "hn-anchor" not in r.err, r.err
    r = hn(alice, "memory", "recall", "--include-untrusted", "--query", "holds")  # (nothing else matched)
    assert r.code == 0 and said in r.err and "hn-anchor" not in r.err, r.err
    repo = open_repo(str(alice))
    doc = mcp_calls._recall(repo, {"path": "p.py", "includeUntrusted": True})
    assert f"memory_supersede with memory {short}, atCommit HEAD and content" in doc.get("hint", ""), doc
    r = hn(alice, "memory", "brief", "--include-untrusted")
    assert r.code == 0 and "\n1 memory left out: it does not apply at this commit" in r.out, r.out
    r = hn(alice, "memory", "show", short)
    assert r.code == 0 and f"git hn memory supersede {short} --at HEAD" in r.err and "hn-anchor" not in r.err, r.err
    assert holding_refs(repo, [c]) == {}
    git(alice, "branch", "-q", "feat-again", c)  # (a real branch holds it again: named as before)
    assert holding_refs(repo, [c]) == {c: "feat-again"}
    # a teammate's branch with hn-anchor/ further in its name is an open branch (a review: the
    # remotes' pattern */hn-anchor/* matched origin/wip/hn-anchor/x, * matching across /)
    git(alice, "branch", "-q", "-D", "feat-again")
    git(alice, "push", "-q", "origin", f"{c}:refs/heads/wip/hn-anchor/x")
    git(alice, "fetch", "-q", "origin")
    assert holding_refs(open_repo(str(alice)), [c]) == {c: "origin/wip/hn-anchor/x"}
    r = hn(alice, "memory", "recall", "--include-untrusted", "--query", "holds")  # (nothing else matched)
    assert r.code == 0 and "origin/wip/hn-anchor/x" in r.err and said not in r.err, r.err


def test_an_anchor_only_a_keep_branch_holds_is_said_to_be_held_by_it(tmp_path):
    """A review: where only an ``hn-anchor/*`` keep branch held an anchor, the hints said it was on
    "no branch, tag or remote-tracking ref here", which was not true. The walk that finds the
    anchors no other ref holds names the keep branch too (no Git process more): recall's hint
    (CLI and MCP) and the brief's note on a newer handoff say the keep branch holds it."""
    import json

    from git_hn.service import mcp_calls, mcp_server
    from git_hn.store.repo import open_repo
    from helpers import make_repo

    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    assert hn(repo, "policy", "init").code == 0
    git(repo, "add", ".hn")
    git(repo, "commit", "-q", "-m", "policy")
    old = hn(repo, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants",
             "--content", "old session").json()["memoryId"]
    git(repo, "checkout", "-q", "-b", "open")
    git(repo, "commit", "-q", "--allow-empty", "-m", "open")
    assert hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--topic", "dialect", "--content", "TSV dialect").code == 0
    git(repo, "checkout", "-q", "-b", "gone", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "gone")
    c = git(repo, "rev-parse", "HEAD")
    gone = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--topic", "dialect", "--content", "CSV dialect").json()["memoryId"][7:19]
    new = hn(repo, "memory", "handoff", "--json", "--at", "HEAD", "--applies", "descendants",
             "--content", "NEW session").json()["memoryId"]
    git(repo, "commit", "-q", "--allow-empty", "-m", "later on gone")  # (the keep branch holds c below its tip)
    git(repo, "branch", "-q", f"hn-anchor/{c[:12]}", "HEAD")
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-q", "-D", "gone")
    keep = f"hn-anchor/{c[:12]}"
    r = hn(repo, "memory", "recall", "--include-untrusted", "--topic", "dialect")
    assert ("git-hn: hint: 2 matching memories do not apply at this commit and were left out: 1 has its anchor "
            f"commit held here only by git-hn's keep branch {keep} (a squash merge or a rebase?); git hn memory show "
            f"{gone} says where it applies") in r.err, r.err
    assert "on no branch" not in r.err and "1 of them: its anchor commit is on open, not merged here" in r.err, r.err
    doc = mcp_calls._recall(open_repo(str(repo)), {"topic": ["dialect"], "includeUntrusted": True})
    assert f"1 has its anchor commit held here only by git-hn's keep branch {keep} (" in doc["hint"], doc
    said = (f"handoff {old} is not the latest of its stream: {new}, signed later, does not apply at this commit: "
            f"it is anchored on commit {c[:12]}, which only git-hn's keep branch {keep} holds here (a squash merge "
            f"or a rebase?); git hn memory show {new} prints it, "
            f"and its author records it again here with git hn memory supersede {new[7:19]} --at HEAD --same-content")
    r = hn(repo, "memory", "brief", "--json")
    assert r.code == 0 and f"git-hn: hint: {said}\n" in r.err, r.err
    is_error, body = mcp_server.call(str(repo), "memory_brief", {}, allow_write=False)
    assert not is_error and f"which only git-hn's keep branch `{keep}` holds here" in json.loads(body)["hint"], body
    git(repo, "branch", "-q", "-D", keep)  # (no keep branch: said as before)
    r = hn(repo, "memory", "recall", "--include-untrusted", "--topic", "dialect")
    assert "1 has its anchor commit on no branch, tag or remote-tracking ref here (a squash merge" in r.err, r.err
    r = hn(repo, "memory", "brief", "--json")
    assert f"{c[:12]}, which no branch, tag or remote-tracking ref here contains (a squash merge" in r.err, r.err
    # the suggested command works as printed (a team trial: without --same-content it was refused)
    command = r.err.rpartition("records it again here with ")[2].split("\n")[0]
    assert command == f"git hn memory supersede {new[7:19]} --at HEAD --same-content", r.err
    done = hn(repo, *command.split()[2:])
    assert done.code == 0, done.err


def test_a_superseded_memory_left_out_is_never_offered_to_cite_or_supersede_again(tmp_path):
    """A trial's ``recall --lifecycle all`` hint offered Bob to cite a memory Alice had already
    carried over (superseded): its successor is what to read. The hint's rows do not carry the
    successor (one more query a row to find it), so it names none: it says the memory is
    superseded or retracted and that ``show`` names the latest successor, for the author (whose
    supersede would be refused) and a teammate alike, in the CLI's words and MCP's; an active
    memory left out beside it is still the one a command is given for."""
    from git_hn.service import mcp_calls
    from git_hn.store.repo import open_repo

    alice, bob, _on_main, on_feat = _squashed(tmp_path)
    short = on_feat["memoryId"][7:19]
    successor = hn(alice, "memory", "supersede", short, "--at", "HEAD", "--same-content", "--json").json()["memoryId"]
    assert hn(alice, "sync").code == 0 and hn(bob, "sync").code == 0
    said = f"{HEAD}it is superseded, so not to be recorded again or cited: git hn memory show {short} names its latest " \
        "successor\n"
    for clone in (alice, bob):
        r = hn(clone, "memory", "recall", "--include-untrusted", "--lifecycle", "all", "--path", "p.py", "--json")
        assert r.code == 0 and said in r.err, r.err
        assert f"memory:{on_feat['memoryId']}" not in r.err and "--same-content" not in r.err
        doc = mcp_calls._recall(open_repo(str(clone)), {"path": "p.py", "includeUntrusted": True,
                                                        "lifecycle": ["all"]})
        assert doc["hint"].endswith(f"it is superseded, so not to be recorded again or cited: memory_show with "
                                    f"memory {short} names its latest successor."), doc["hint"]
    # what it points to names the successor
    assert f"is superseded (latest: {successor[7:19]})" in hn(bob, "memory", "show", short).err
    # an active memory left out beside it still gets its command (and the superseded one none)
    git(alice, "checkout", "-q", "-b", "gone")
    (alice / "p.py").write_text("3\n")
    git(alice, "commit", "-q", "-am", "gone")
    active = _record(alice, "decided on a branch then deleted")
    git(alice, "checkout", "-q", "main")
    git(alice, "branch", "-q", "-D", "gone")
    r = hn(alice, "memory", "recall", "--include-untrusted", "--lifecycle", "all", "--path", "p.py")
    assert f"git hn memory supersede {active['memoryId'][7:19]} --at HEAD --same-content" in r.err, r.err
    assert "not to be recorded again" not in r.err and f"supersede {short}" not in r.err


def test_memories_left_out_that_are_not_active_are_named_by_their_lifecycle(tmp_path):
    """A review (F93, finding 9): two superseded memories left out were said to be "superseded or
    retracted", ``show`` naming "one's latest successor"; a retracted one was called "superseded
    or retracted" too. The hint says what the lifecycle is, in the plural when there are
    several, and what ``show`` names for it."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    (alice / "p.py").write_text("1\n")
    git(alice, "add", "p.py")
    git(alice, "commit", "-q", "-m", "p")
    git(alice, "checkout", "-q", "-b", "feat")
    (alice / "p.py").write_text("2\n")
    git(alice, "commit", "-q", "-am", "feat")
    made = []
    for content in ("first", "second"):
        r = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
               "--path", "p.py", "--content", content)
        made.append(r.json()["memoryId"])
        assert hn(alice, "memory", "supersede", made[-1], "--at", "main", "--same-content").code == 0
    git(alice, "checkout", "-q", "main")
    git(alice, "branch", "-q", "-D", "feat")
    r = hn(alice, "memory", "recall", "--include-untrusted", "--lifecycle", "all", "--path", "p.py")
    first = min(made)[7:19]
    assert (f"none of them is active (such as {first}, which is superseded), so none is to be recorded again or "
            f"cited: git hn memory show {first} names its latest successor\n") in r.err, r.err
    assert "one's" not in r.err and "superseded or retracted" not in r.err
    # a retracted one, alone
    git(alice, "checkout", "-q", "-b", "gone")
    (alice / "p.py").write_text("3\n")
    git(alice, "commit", "-q", "-am", "gone")
    withdrawn = hn(alice, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
                   "descendants", "--path", "q.py", "--content", "withdrawn").json()["memoryId"]
    assert hn(alice, "memory", "retract", withdrawn, "--reason", "obsolete").code == 0
    git(alice, "checkout", "-q", "main")
    git(alice, "branch", "-q", "-D", "gone")
    r = hn(alice, "memory", "recall", "--include-untrusted", "--lifecycle", "all", "--path", "q.py")
    assert (f"it is retracted, so not to be recorded again or cited: git hn memory show {withdrawn[7:19]} names "
            "its retraction\n") in r.err, r.err  # (then the brief's line: nothing imported from origin, f97)
