"""A memory anchored on a commit no remote-tracking ref contains holds back the publication of
every later memory of its stream (a team trial: "3 memories wait until commit … is on origin",
heard of only at the next sync). The write says so when it signs: one hint on stderr, the MCP
answer's ``hint``. Real repositories, a real bare remote and real ``git push``; nothing is mocked.
"""

from __future__ import annotations

from helpers import git, hn
from test_agent_mcp import document, run


def _record(repo, at: str, *args):
    return hn(repo, "memory", "record", "--kind", "decision", "--at", at, "--applies", "descendants",
              "--content", f"on {at}", *args)


def _waits(err: str) -> list[str]:
    return [line for line in err.splitlines() if "waits until commit" in line]


def test_record_on_an_unpushed_commit_says_publication_waits(inited, bare_remote):
    # no remote at all: nothing said (and no Git asked beyond one listing)
    assert _waits(_record(inited, "HEAD").err) == []
    remote = bare_remote()
    git(inited, "remote", "add", "origin", str(remote))
    branch = git(inited, "symbolic-ref", "--short", "HEAD")
    git(inited, "push", "-q", "origin", branch)
    assert _waits(_record(inited, "HEAD").err) == []  # on origin: nothing to say
    git(inited, "checkout", "-q", "-b", "feature/tsv")
    git(inited, "commit", "-q", "--allow-empty", "-m", "local only")
    r = _record(inited, "HEAD", "--json")
    assert r.code == 0, r.err
    stream = r.json()["stream"][7:19]
    commit = git(inited, "rev-parse", "HEAD")[:12]
    assert _waits(r.err) == [f"git-hn: hint: publication of stream {stream} to origin waits until commit {commit} "
                             "is pushed (branch feature/tsv: git push origin feature/tsv): later memories of "
                             "this stream wait behind it"]
    # from another branch, the branch that holds the commit is named
    git(inited, "checkout", "-q", branch)
    assert "(branch feature/tsv: git push origin feature/tsv)" in _waits(_record(inited, "feature/tsv").err)[0]
    # handoff and supersede say it too; once pushed, nothing is said
    r = hn(inited, "memory", "handoff", "--at", "feature/tsv", "--applies", "descendants", "--content", "h",
           "--json")
    assert len(_waits(r.err)) == 1
    r = hn(inited, "memory", "supersede", r.json()["memoryId"], "--content", "h2")
    assert len(_waits(r.err)) == 1
    git(inited, "push", "-q", "origin", "feature/tsv")
    assert _waits(_record(inited, "feature/tsv").err) == []


def test_mcp_record_hint_says_publication_waits(inited, bare_remote):
    git(inited, "remote", "add", "origin", str(bare_remote()))
    git(inited, "push", "-q", "origin", "HEAD:refs/heads/main")
    git(inited, "fetch", "-q", "origin")
    git(inited, "commit", "-q", "--allow-empty", "-m", "local only")

    async def body(client):
        return await client.call_tool("memory_record", {"kind": "decision", "content": "x"})

    doc = document(run(inited, body, "--allow-write"))
    assert f"Publication of stream {doc['result']['stream'][7:19]} to origin waits until commit " \
           f"{git(inited, 'rev-parse', 'HEAD')[:12]} is pushed" in doc["hint"]
