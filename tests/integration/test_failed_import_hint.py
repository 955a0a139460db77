"""A stream the last sync did not import is named by recall, the brief and the MCP read tools (a
team trial: a fresh clone's sync failed for one teammate's stream, an active decision among its
memories, and recall and the brief showed the rest with nothing said). Real repositories, a real
bare remote, real git push and fetch; nothing is mocked.
"""

from __future__ import annotations

from helpers import git, hn, make_repo
from test_agent_mcp import document, run


def _record(repo, content: str, *args):
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content, *args)
    assert r.code == 0, r.err
    return r.json()


def _said(err: str) -> list[str]:
    return [line for line in err.splitlines() if "did not import at the last sync" in line]


def test_recall_and_brief_name_a_stream_the_last_sync_did_not_import(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    bob = make_repo(tmp_path / "bob")
    git(bob, "remote", "add", "origin", str(remote))
    git(bob, "push", "-q", "-u", "origin", "main")
    assert hn(bob, "init", "--name", "Bob").code == 0
    git(bob, "checkout", "-q", "-b", "feature")
    git(bob, "commit", "-q", "--allow-empty", "-m", "feature work")
    feature = git(bob, "rev-parse", "HEAD")
    early = _record(bob, "an early note on the feature")
    git(bob, "push", "-q", "origin", "feature")
    git(bob, "checkout", "-q", "main")
    _record(bob, "the active decision on main")
    _record(bob, "another stream's note", "--stream", "label:other")
    git(bob, "push", "-q", "origin", "main")
    assert hn(bob, "sync", "origin").code == 0
    # the server loses the early memory's anchor: its branch is deleted there
    git(bob, "push", "-q", "origin", ":refs/heads/feature")

    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(carol))
    assert hn(carol, "init", "--name", "Carol").code == 0
    assert hn(carol, "replication", "select", "origin", "--all").code == 0
    r = hn(carol, "sync", "origin")
    assert r.code != 0 and "failed (dependency-missing" in r.out, (r.out, r.err)
    want = (f'git-hn: hint: 1 stream of origin did not import at the last sync (stream {early["stream"][7:19]} of '
            f'"Bob": stops at memory {early["memoryId"][7:19]}, whose anchor commit {feature[:12]} is not on '
            "origin); git hn sync origin says why")
    for args in (("memory", "recall", "--include-untrusted"), ("memory", "recall", "--json"),
                 ("memory", "brief"), ("memory", "brief", "--markdown"), ("memory", "brief", "--json")):
        r = hn(carol, *args)
        assert r.code == 0 and _said(r.err) == [want], (args, r.err)
    r = hn(carol, "memory", "brief", "--json")
    assert "did not import" not in r.out  # the document is the contract's

    async def body(client):
        return [document(await client.call_tool(name, {"version": 0})) for name in ("memory_recall", "memory_brief")]

    for doc in run(carol, body):
        assert "1 stream of origin did not import at the last sync (stream " in doc.get("hint", ""), doc

    # a second failing sync keeps it; once the anchor is back and the stream imports, it is gone
    assert hn(carol, "sync", "origin").code != 0
    assert _said(hn(carol, "memory", "recall").err) == [want]
    git(bob, "push", "-q", "origin", f"{feature}:refs/heads/hn-anchor/{feature}")
    r = hn(carol, "sync", "origin")
    assert r.code == 0, (r.out, r.err)
    for args in (("memory", "recall"), ("memory", "brief"), ("memory", "brief", "--json")):
        assert _said(hn(carol, *args).err) == [], args
    for doc in run(carol, body):
        assert "did not import" not in doc.get("hint", ""), doc


def _team_with_an_older_anchor(tmp_path):
    """Alice's published memory on main's first commit, main two commits further on origin:
    (remote, alice, the memory, its anchor commit)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", remote.as_uri())
    assert hn(alice, "init", "--name", "Alice").code == 0
    anchor = git(alice, "rev-parse", "HEAD")
    rec = _record(alice, "on the first commit")
    for n in range(2):
        git(alice, "commit", "-q", "--allow-empty", "-m", f"later {n}")
    git(alice, "push", "-q", "-u", "origin", "main")
    assert hn(alice, "sync", "origin").code == 0
    return remote, alice, rec, anchor


def test_a_shallow_clone_is_told_the_anchor_may_be_past_its_depth_not_missing_from_origin(tmp_path):
    """A trial (F100): a ``--depth 1`` clone's fetch hook, recall and brief said the anchor commit
    "is not on origin" (in git-hn's words: someone must push an hn-anchor branch), while it was
    main's first commit on origin, past the shallow boundary; only ``git hn sync`` said to deepen.
    They say the commit may be on origin beyond what the clone fetched, and the command that
    brings it (a depth-1 clone fetches one branch too: by its ID)."""
    remote, alice, rec, anchor = _team_with_an_older_anchor(tmp_path)
    pat = tmp_path / "pat"
    git(tmp_path, "clone", "-q", "--depth", "1", remote.as_uri(), str(pat))
    assert hn(pat, "init", "--name", "Pat").code == 0
    assert hn(pat, "hooks", "install").code == 0
    assert hn(pat, "replication", "select", "--all").code == 0
    git(alice, "commit", "-q", "--allow-empty", "-m", "one more")
    git(alice, "push", "-q")
    import subprocess

    proc = subprocess.run(["git", "fetch", "-q"], cwd=pat, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    where = f"whose anchor commit {anchor[:12]} may be on origin beyond this shallow clone's depth and branches"
    how = f"git fetch origin {anchor} brings it, then git hn sync origin"
    line = (f'git-hn: memory import from origin failed: stream {rec["stream"][7:19]} of "Alice" stops at memory '
            f'{rec["memoryId"][7:19]}, {where}; {how}')
    assert [x for x in proc.stderr.splitlines() if x.startswith("git-hn:")] == [line], proc.stderr
    want = (f'git-hn: hint: 1 stream of origin did not import at the last sync (stream {rec["stream"][7:19]} of '
            f'"Alice": stops at memory {rec["memoryId"][7:19]}, {where}); {how}')
    for args in (("memory", "recall"), ("memory", "brief")):
        r = hn(pat, *args)
        assert r.code == 0 and _said(r.err) == [want], (args, r.err)
        assert "is not on origin" not in r.err and "hn-anchor" not in r.err
    git(pat, "fetch", "-q", "origin", anchor)  # what they say
    assert hn(pat, "sync").code == 0
    assert _said(hn(pat, "memory", "recall").err) == []


def test_a_single_branch_clone_is_told_the_anchor_may_be_on_a_branch_it_does_not_fetch(tmp_path):
    """The same trial, after ``--unshallow``: the clone still fetched main only, and recall said
    the anchor commit, origin's ``feature``, "is not on origin"."""
    remote, alice, _rec, _anchor = _team_with_an_older_anchor(tmp_path)
    git(alice, "checkout", "-q", "-b", "feature")
    git(alice, "commit", "-q", "--allow-empty", "-m", "feature work")
    feature = git(alice, "rev-parse", "HEAD")
    rec = _record(alice, "on the feature")
    git(alice, "push", "-q", "origin", "feature")
    assert hn(alice, "sync", "origin").code == 0
    pat = tmp_path / "pat"
    git(tmp_path, "clone", "-q", "--single-branch", "--branch", "main", remote.as_uri(), str(pat))
    assert hn(pat, "replication", "select", "--all").code == 0
    assert hn(pat, "sync").code == 1
    want = (f'git-hn: hint: 1 stream of origin did not import at the last sync (stream {rec["stream"][7:19]} of '
            f'"Alice": stops at memory {rec["memoryId"][7:19]}, whose anchor commit {feature[:12]} may be on origin '
            f'beyond the branches this clone fetches); git fetch origin {feature} brings it, then git hn sync origin')
    r = hn(pat, "memory", "recall")
    assert r.code == 0 and _said(r.err) == [want], r.err
    git(pat, "fetch", "-q", "origin", feature)
    assert hn(pat, "sync").code == 0
    assert _said(hn(pat, "memory", "recall").err) == []
