"""Collection over local and accepted refs, divergence, and terminal rendering (CONTRACT §4.3,
§11(a), §0.5)."""

from __future__ import annotations

import os
import pty
import subprocess

import pytest

from helpers import git, hn, refs_snapshot
from independent import Writer


def _record(repo, content):
    r = hn(repo, "memory", "record", "--json", "--kind", "observation", "--at", "HEAD",
           "--applies", "exact", "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def test_accepted_copies_are_collected_and_deduplicated(inited):
    a = _record(inited, "one")
    b = _record(inited, "two")
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    actor, hexs = ref.split("/")[3:5]
    first = git(inited, "rev-list", "--reverse", ref).split()[0]
    git(inited, "update-ref", f"refs/hn/remotes/origin/memory/{actor}/{hexs}", first)
    for mid in (a, b):
        assert hn(inited, "memory", "show", mid).code == 0
    # an append still continues the local chain, which is the longest
    c = _record(inited, "three")
    assert hn(inited, "memory", "show", c, "--json").json()["envelope"]["sequence"] == 3


def test_append_continues_a_longer_accepted_chain(inited):
    """§11(a) item 3: a fresh clone's writer continues its own accepted stream, never forks it."""
    _record(inited, "one")
    _record(inited, "two")
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    actor, hexs = ref.split("/")[3:5]
    head = git(inited, "rev-parse", ref)
    git(inited, "update-ref", f"refs/hn/remotes/origin/memory/{actor}/{hexs}", head)
    git(inited, "update-ref", "-d", ref)
    c = _record(inited, "three")
    env = hn(inited, "memory", "show", c, "--json").json()["envelope"]
    assert env["sequence"] == 3
    assert git(inited, "rev-parse", f"{ref}^") == head


@pytest.mark.parametrize("scope", ["each", "table"])
def test_divergent_chains_fail_closed(inited, tmp_path, monkeypatch, scope):
    """(``table``: the state's agreement check asks the whole table which streams more than one
    chain holds, as it does for a change of more than ``SCOPE_QUERIES`` streams, f126.)"""
    if scope == "table":
        monkeypatch.setattr("git_hn.store.state.SCOPE_QUERIES", 0)
    mid = _record(inited, "one")
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    actor, hexs = ref.split("/")[3:5]
    # a second chain for the same stream, validly signed by the same key, that disagrees at 1
    import json

    from independent import unb64

    doc = json.loads((inited / ".git" / "hn" / "identities" / f"{actor}.json").read_text())
    w = Writer(unb64(doc["privateKey"])[:32], doc["name"])
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(inited), str(other))
    head = git(other, "rev-parse", "HEAD")
    rec = {"kind": "observation", "content": "forked", "anchor": {"commit": head},
           "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    _id, commit = w.write(other, w.envelope(1, "", "2026-01-01T00:00:00Z", rec))
    git(inited, "fetch", "-q", str(other), f"{commit}")
    accepted = f"refs/hn/remotes/origin/memory/{actor}/{hexs}"
    git(inited, "update-ref", accepted, commit)
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "show", mid)
    assert r.err == (f"git-hn: memory stream sha256:{hexs} of actor {actor} has divergent chains: "
                     f"{ref} and {accepted} differ at sequence 1; your identity appended to it in another clone "
                     f"too: git update-ref -d {accepted}, then git hn sync origin --rebase imports origin's copy "
                     "again and signs your unpublished memories of it again on top of it\n")
    r = hn(inited, "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies", "exact",
           "--content", "refused")
    assert r.code == 1 and "has divergent chains" in r.err
    assert refs_snapshot(inited) == before


def test_terminal_output_never_carries_author_escapes(inited):
    mid = _record(inited, "\x1b[2J\x1b]8;;http://evil\x07click\x1b]8;;\x07 [bold]markup[/bold] :smile:")
    pid, fd = pty.fork()
    if pid == 0:  # child: run git hn with a real terminal on stdout
        os.chdir(inited)
        os.execvp("git", ["git", "hn", "memory", "show", mid])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    text = out.decode("utf-8", "replace")
    assert "Full ID" in text and mid in text  # the terminal view of show (issue 14)
    assert "\x1b[2J" not in text and "\x1b]8" not in text and "\x07" not in text
    assert "[bold]markup[/bold] :smile:" in text  # shown literally, never interpreted


def test_reading_never_writes_refs(inited):
    mid = _record(inited, "x")
    before = refs_snapshot(inited)
    for args in (["memory", "show", mid], ["memory", "show", mid, "--json"], ["identity", "list"]):
        assert hn(inited, *args).code == 0
    assert refs_snapshot(inited) == before
    assert subprocess.run(["git", "fsck", "--no-progress"], cwd=inited, capture_output=True).returncode == 0


def test_long_chains_walk_the_same_with_and_without_the_git_log_hint(inited):
    """Chains of 32+ commits are listed by one git log; the result equals the raw walk, and a
    merge commit deep in the chain still fails with the raw walk's error."""
    import json

    from git_hn.store import streams
    from git_hn.store.repo import open_repo
    from independent import unb64

    actor = (inited / ".git" / "hn" / "active").read_text()[:-1]
    doc = json.loads((inited / ".git" / "hn" / "identities" / f"{actor}.json").read_text())
    w = Writer(unb64(doc["privateKey"])[:32], doc["name"])
    head = git(inited, "rev-parse", "HEAD")
    prev, parent = "", ""
    for seq in range(1, 41):
        rec = {"kind": "observation", "content": f"m{seq}", "anchor": {"commit": head},
               "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
        prev, parent = w.write(inited, w.envelope(seq, prev, f"2026-01-01T00:00:{seq:02d}Z", rec), parent=parent)
    repo = open_repo(str(inited))
    source = streams.list_sources(repo)[0]
    hinted = streams._walk_hinted(repo, source)
    assert hinted is not None and len(hinted) == 40
    raw = []
    commit = source.head
    while commit:
        tree, parents = streams.read_parents(repo, source.ref, commit)
        raw.append((commit, tree))
        commit = parents[0] if parents else ""
    assert hinted == raw
    assert len(streams.collect(repo).memories) == 40
    # a merge commit in the middle of the chain
    ref = source.ref
    mid = raw[20][0]
    other = git(inited, "commit-tree", git(inited, "rev-parse", f"{mid}^{{tree}}"), "-p", raw[21][0],
                "-p", head, "-m", "merge")
    # rebuild the 20 commits above it on top of the merge
    new_parent = other
    for commit, tree in reversed(raw[:20]):
        new_parent = git(inited, "commit-tree", tree, "-p", new_parent, "-m", "x")
    git(inited, "update-ref", ref, new_parent)
    repo.close()
    repo = open_repo(str(inited))
    r = hn(inited, "memory", "show", prev)
    assert r.err == f"git-hn: memory source {ref} commit {other} has 2 parents; exactly one is allowed\n"
    repo.close()


def test_many_short_streams_are_collected_in_a_few_git_processes(inited, tmp_path, monkeypatch):
    """A full collection (a state rebuilt after an upgrade, ``index verify``, every fallback)
    walks all sources together: the number of Git processes does not grow with the number of
    streams (it started a ``git log`` per stream, ~38 s at 20,000 sources), and the result is
    the per-source reading's, accepted copies included."""
    import json
    import random
    import sys
    from pathlib import Path

    from git_hn.store import streams
    from git_hn.store.repo import open_repo

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import memgen

    head = git(inited, "rev-parse", "HEAD")
    writers = [memgen.Actor(bytes([i]) * 32, f"Writer {i}") for i in (5, 6)]
    memgen.write_streams(str(inited), dict(os.environ, HN_HOOK_ACTIVE="1"), writers, 80, head,
                         random.Random(1), streams_per_actor=40)  # 80 streams of 2 memories
    for line in git(inited, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory").splitlines()[:30]:
        ref, oid = line.split()
        git(inited, "update-ref", ref.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/"), oid + "~1")
    trace = tmp_path / "trace2"
    trace.mkdir()
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    repo = open_repo(str(inited))
    sources = streams.list_sources(repo)
    assert len(sources) == 110
    before = set(os.listdir(trace))
    collection = streams.collect(repo, sources)
    started = []
    for name in set(os.listdir(trace)) - before:
        started += [json.loads(line)["argv"] for line in (trace / name).read_text().splitlines()
                    if json.loads(line)["event"] == "start"]
    assert not [argv for argv in started if "log" in argv]
    assert len(started) <= 4, started
    one_by_one = {s.ref: streams.read_chain(repo, s) for s in sources}
    assert {ref: [m.memory_id for m in chain] for ref, chain in collection.chains.items()} == \
        {ref: [m.memory_id for m in chain] for ref, chain in one_by_one.items()}
    assert len(collection.memories) == 160
    repo.close()


def test_many_sources_that_moved_together_are_walked_and_verified_together(inited, tmp_path):
    """The state catching up on many moved sources at once (refs fetched by hand, a state that
    missed a promotion) walks them in batched reads and verifies them in one pipeline, with no
    process per source; a rewound source among them still takes the one-by-one path. The state
    then answers as a full verification does."""
    import json
    import random
    import sys
    from pathlib import Path

    from git_hn.core import recall as core_recall
    from git_hn.service import recall as recall_service
    from git_hn.store import state
    from git_hn.store.repo import open_repo
    from helpers import hn_proc

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import memgen

    head = git(inited, "rev-parse", "HEAD")
    writers = [memgen.Actor(bytes([i]) * 32, f"Writer {i}") for i in (7, 8)]
    memgen.write_streams(str(inited), dict(os.environ, HN_HOOK_ACTIVE="1"), writers, 80, head,
                         random.Random(2), streams_per_actor=40)  # 80 streams of 2 memories
    tips = [line.split() for line in
            git(inited, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory").splitlines()]
    for ref, oid in tips[:state.PLAN_MANY]:
        git(inited, "update-ref", ref, oid + "~1")
    assert hn(inited, "memory", "recall", "--json").code == 0  # the state, at those tips
    for ref, oid in tips[:state.PLAN_MANY]:  # forward moves
        git(inited, "update-ref", ref, oid)
    for ref, oid in tips[:10]:  # new sources whose commits the state already holds
        git(inited, "update-ref", ref.replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/"), oid)
    rewound = tips[-1]
    git(inited, "update-ref", rewound[0], rewound[1] + "~1")
    trace = tmp_path / "trace2"
    trace.mkdir()
    r = hn_proc(inited, "memory", "recall", "--json", env={"GIT_TRACE2_EVENT": str(trace)})
    assert r.code == 0, r.err
    started = [json.loads(line)["argv"] for name in os.listdir(trace)
               for line in (trace / name).read_text().splitlines() if json.loads(line)["event"] == "start"]
    logs = [argv for argv in started if "log" in argv]  # the rewound source's, one by one
    assert len(logs) == 1 and git(inited, "rev-parse", rewound[0]) in logs[0], logs
    assert len(started) <= 8, started
    assert hn(inited, "memory", "index", "verify").code == 0
    repo = open_repo(str(inited))
    try:
        req = core_recall.RecallRequest(at_commit="HEAD", include_untrusted=True, max_records=200)
        assert recall_service.recall(repo, req) == recall_service.recall_full(repo, req)
        assert len(recall_service.recall(repo, req)["memories"]) == 159
    finally:
        repo.close()
