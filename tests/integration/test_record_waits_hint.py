"""A memory anchored on a commit no remote-tracking ref contains holds back the publication of
every later memory of its stream (a team trial: "3 memories wait until commit … is on origin",
heard of only at the next sync). The write says so when it signs: one hint on stderr, the MCP
answer's ``hint``. Real repositories, a real bare remote and real ``git push``; nothing is mocked.
"""

from __future__ import annotations

from pathlib import Path

from helpers import git, hn, hn_proc
from test_agent_mcp import document, run


def _record(repo, at: str, *args, content: str = ""):
    return hn(repo, "memory", "record", "--kind", "decision", "--at", at, "--applies", "descendants",
              "--content", content or f"on {at}", *args)


def _unsaid(repo) -> None:
    """Forget the hints said in full lately (``store.hints_said``), so that the next write says
    its hint in full, as the first of a burst does."""
    (Path(repo) / ".git" / "hn" / "hints-said-v0").unlink(missing_ok=True)


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
                             "is pushed (branch feature/tsv: git push origin feature/tsv, then git hn sync origin; "
                             "or git fetch origin if it is there already, then the sync; this clone has no git-hn "
                             "hooks (git hn hooks install adds them), so the push does not carry the memory): later "
                             "memories of this stream wait behind it"]
    # from another branch, no branch is searched for the commit (a review: one --contains over
    # every local branch, +66 ms at 500 branches): only HEAD's is named, when it holds the commit
    git(inited, "checkout", "-q", branch)
    assert "(push a branch that contains it, or git fetch origin if one is there already)" in \
        _waits(_record(inited, "feature/tsv").err)[0]
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


REC = ["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants"]


def test_waits_hint_lists_no_branch_and_searches_none(inited, bare_remote, tmp_path):
    # a review: after every write, the hint listed refs/heads/ and, when it fired, ran
    # for-each-ref --contains over every local branch (+66 ms at 500 branches; +627 ms at 60,000
    # commits without a commit-graph)
    git(inited, "remote", "add", "origin", str(bare_remote()))
    git(inited, "push", "-q", "origin", "HEAD:refs/heads/main")
    git(inited, "fetch", "-q", "origin")
    for pushed in (True, False):
        if not pushed:
            git(inited, "commit", "-q", "--allow-empty", "-m", "local only")
        trace = tmp_path / f"trace{pushed}"
        r = hn_proc(inited, *REC, "--content", "x", env={"GIT_TRACE": str(trace)})
        assert r.code == 0 and (b"waits until commit" in r.err_bytes) is not pushed
        text = trace.read_text()
        assert "--contains" not in text and "refs/heads/" not in text, text
        if pushed:  # the anchor is the remote's tip: no walk at all
            assert "rev-list" not in text and "merge-base" not in text, text


def test_waits_hint_reads_the_remote_it_names(inited, bare_remote):
    # a review: every remote's tips were negated but origin named; sync origin holds back an
    # anchor only upstream has
    git(inited, "remote", "add", "origin", str(bare_remote("o.git")))
    git(inited, "remote", "add", "upstream", str(bare_remote("u.git")))
    git(inited, "push", "-q", "origin", "HEAD:refs/heads/main")
    git(inited, "checkout", "-q", "-b", "up")
    git(inited, "commit", "-q", "--allow-empty", "-m", "upstream only")
    git(inited, "push", "-q", "upstream", "up")
    git(inited, "fetch", "-q", "origin")
    r = hn(inited, *REC, "--content", "x")
    assert r.code == 0
    assert len(_waits(r.err)) == 1 and " to origin " in _waits(r.err)[0], r.err


def test_waits_hint_is_silent_when_publication_is_off(inited, bare_remote):
    git(inited, "remote", "add", "origin", str(bare_remote()))
    git(inited, "push", "-q", "origin", "HEAD:refs/heads/main")
    git(inited, "fetch", "-q", "origin")
    git(inited, "config", "remote.origin.hnPublish", "false")
    git(inited, "commit", "-q", "--allow-empty", "-m", "local only")
    r = hn(inited, *REC, "--content", "x")
    assert r.code == 0 and _waits(r.err) == [], r.err


def test_waits_hint_without_tracking_refs_says_fetch(inited, bare_remote):
    # the commit is on origin, but this clone never fetched: publication holds it back, and the
    # hint says what sync says
    git(inited, "remote", "add", "origin", str(bare_remote()))
    git(inited, "push", "-q", "origin", "HEAD:refs/heads/other")
    git(inited, "update-ref", "-d", "refs/remotes/origin/other")
    r = hn(inited, *REC, "--content", "x")
    assert r.code == 0
    assert "or git fetch origin if it is there already" in _waits(r.err)[0], r.err


def test_hint_names_the_earlier_memory_that_holds_the_stream(inited, bare_remote):
    # a team trial: memories on an unpushed feature branch held back a decision recorded later on
    # main; the hint said "waits until commit <main's> is pushed (branch main: git push origin
    # main)", main was pushed, and the decision still waited for the feature branch's commit
    git(inited, "remote", "add", "origin", str(bare_remote()))
    main = git(inited, "symbolic-ref", "--short", "HEAD")
    git(inited, "push", "-q", "origin", main)
    r = hn(inited, "sync", "origin")
    assert r.code == 0, r.err
    git(inited, "checkout", "-q", "-b", "feature/cli")
    commits = []
    for n in range(3):
        git(inited, "commit", "-q", "--allow-empty", "-m", f"cli {n}")
        commits.append(git(inited, "rev-parse", "HEAD"))
        if n:
            assert _record(inited, "HEAD", content=f"cli {n}").code == 0
    second = commits[1][:12]
    git(inited, "checkout", "-q", main)
    git(inited, "commit", "-q", "--allow-empty", "-m", "on main")
    _unsaid(inited)  # (the second record said this line in full; its shorter form is test_hints_said's)
    r = _record(inited, "HEAD", "--json")
    assert r.code == 0, r.err
    stream = r.json()["stream"][7:19]
    [line] = _waits(r.err)
    assert line.startswith(f"git-hn: hint: publication of stream {stream} to origin waits until commit {second} is "
                           "pushed (branch feature/cli: git push origin feature/cli, then git hn sync origin; or git "
                           "fetch origin if it is there already, then the sync; this clone has no git-hn hooks (git "
                           "hn hooks install adds them), so the push does not carry the memory): memory "), line
    assert ", recorded earlier in this stream, is anchored there, and 3 memories, this one included, wait behind " \
           "it; to keep unpushed feature work from holding back the rest, record it in a stream of its own " \
           "(--stream label:NAME, or git config --worktree hn.stream label:NAME in its worktree)" in line, line
    # pushing main, as the old hint said, publishes nothing of the stream: the hint still names
    # the feature branch's commit, and sync agrees
    git(inited, "push", "-q", "origin", main)
    _unsaid(inited)
    r = _record(inited, "HEAD", content="after the push of main")
    assert f"waits until commit {second} is pushed (branch feature/cli:" in _waits(r.err)[0], r.err
    r = hn(inited, "sync", "origin")
    assert f"4 memories wait until commit {second} is on origin" in r.err + r.out, r.err
    # a stream of its own for the feature work: a main memory then waits for nothing
    r = _record(inited, "HEAD", "--stream", "label:main-work")
    assert r.code == 0 and _waits(r.err) == [], r.err
    # the feature branch pushed and published: nothing waits
    git(inited, "push", "-q", "origin", "feature/cli")
    assert hn(inited, "sync", "origin").code == 0
    assert _waits(_record(inited, "HEAD", content="all pushed").err) == []
