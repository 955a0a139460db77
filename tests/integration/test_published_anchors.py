"""The fetch hook's list of this clone's published anchors, kept current from what changed (issue
11, the scale sweep: at 100,000 memories every fetch that imported one teammate's memory spent
~450 ms of its ~580 ms hook joining every chain this clone gave the remote, to write a list none
of that fetch changed). ``published_anchors`` keeps a memo of each counted ref's tip and its
anchors; the list it gives must be the whole join's, by construction, after every kind of
change."""

from __future__ import annotations

import json
from contextlib import contextmanager

from helpers import commit_on, git, hn, shared_remote


def _whole_join(repo_path) -> set[str]:
    """The list as the whole join computes it (the query ``note_published`` ran before the memo,
    over the state as it was last verified): the oracle."""
    from git_hn.service.replication.given_record import published_heads
    from git_hn.store.identity import active_actor
    from git_hn.store.repo import open_repo
    from git_hn.store.stateview import last_verified

    repo = open_repo(str(repo_path))
    try:
        given, actor = published_heads(repo, "origin"), active_actor(repo)
        with last_verified(repo) as view:
            out = {a for (a,) in view.conn.execute(
                "WITH g(ref, tip) AS (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') "
                "FROM json_each(?)) SELECT DISTINCT a.anchor FROM g JOIN sources s ON s.ref = g.ref "
                'JOIN chain t ON t.sid = s.sid AND t."commit" = g.tip '
                "JOIN chain c ON c.sid = s.sid AND c.seq <= t.seq JOIN rows r ON r.id = c.id "
                "JOIN akeys a ON a.akey = r.akey", (json.dumps(sorted(given.items())),))}
            mine = f"refs/hn/remotes/origin/memory/{actor}/"
            out |= {a for (a,) in view.conn.execute(
                "SELECT a.anchor FROM sources s JOIN chain c ON c.sid = s.sid JOIN rows r ON r.id = c.id "
                "JOIN akeys a ON a.akey = r.akey WHERE substr(s.ref, 1, ?) = ?", (len(mine), mine))}
        return out
    finally:
        repo.close()


def _noted(repo_path) -> set[str]:
    """``note_published`` (as the fetch hook runs it), then the list it wrote."""
    from git_hn.service.replication.tracked import PUBLISHED_MAGIC, note_published
    from git_hn.store import replication as rstate
    from git_hn.store.repo import open_repo

    repo = open_repo(str(repo_path))
    try:
        note_published(repo, "origin")
        with open(rstate.published_path(repo, "origin")) as fh:
            lines = fh.read().splitlines()
    finally:
        repo.close()
    assert lines[0] == PUBLISHED_MAGIC
    return set(lines[1:])


def _record(repo, content: str, at: str = "HEAD") -> str:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", at, "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _alice_published(tmp_path):
    """Alice's stream published with main, three memories on three commits, her own copy
    accepted back (``select --all``): (alice, bob)."""
    _remote, (alice, bob) = shared_remote(tmp_path, "Alice", "Bob")
    for repo in (alice, bob):
        assert hn(repo, "replication", "select", "--all").code == 0
    for i in range(3):
        commit_on(alice, None, f"a{i}.txt")
        _record(alice, f"published {i}")
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "sync").code == 0
    return alice, bob


def _memo(repo_path):
    return next((repo_path / ".git" / "hn" / "replication" / "published").glob("*.memo"))


def test_the_list_is_the_whole_joins_after_every_kind_of_change(tmp_path):
    """A guard of equality (the whole join is the oracle; without the memo it fails only where it
    damages the memo, which is not there). A first list (no
    memo), an unchanged one (a teammate's memory imported), a publication that moved the stream
    forward, a stream ref moved back below what the remote was given (the given tip is in no
    chain: the ref counts nothing) and forward again, a memo damaged, and one of another
    checker: each time the list the whole join gives."""
    alice, bob = _alice_published(tmp_path)
    want = _whole_join(alice)
    assert len(want) == 3
    assert _noted(alice) == want
    _record(bob, "bob's")
    assert hn(bob, "sync").code == 0 and hn(alice, "sync").code == 0  # (a teammate's memory: nothing of ours)
    assert _noted(alice) == _whole_join(alice) == want
    commit_on(alice, None, "a3.txt")
    _record(alice, "published 3")
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "sync").code == 0
    grown = _whole_join(alice)
    assert len(grown) == 4 and _noted(alice) == grown
    ref = git(alice, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    tip = git(alice, "rev-parse", ref)
    git(alice, "update-ref", ref, f"{tip}~2", tip)  # (by hand: below the tip origin was given)
    assert hn(alice, "memory", "recall", "--include-untrusted").code == 0  # (the state takes the move)
    back = _whole_join(alice)
    assert _noted(alice) == back
    git(alice, "update-ref", ref, tip)
    assert hn(alice, "memory", "recall", "--include-untrusted").code == 0
    assert _noted(alice) == _whole_join(alice) == grown
    memo = _memo(alice)
    text = memo.read_text()
    for damaged in (text.replace(" 4\n", " 5\n", 1), text[:-3], "x" + text, "", text.replace("\nref", "\nref x", 1)):
        memo.write_text(damaged)
        assert _noted(alice) == grown
    first, rest = text.split("\n", 1)
    other = "1" if first.endswith("0") else "0"  # (the checker is a digest: 1 in 16 ends in "0")
    memo.write_text(first[:-1] + other + "\n" + rest.replace(next(iter(grown)), "0" * 40))
    assert _noted(alice) == grown  # (another checker: another derivation of the anchors)


@contextmanager
def _traced(monkeypatch):
    """Every SQL statement the state answers while the ``with`` runs (its bound values expanded)."""
    from git_hn.store import stateview

    said: list[str] = []
    original = stateview.last_verified

    @contextmanager
    def traced(repo, *args, **kwargs):
        with original(repo, *args, **kwargs) as view:
            if view is not None:
                view.conn.set_trace_callback(said.append)
            yield view

    monkeypatch.setattr(stateview, "last_verified", traced)
    yield said
    monkeypatch.setattr(stateview, "last_verified", original)


def _chain_reads(said: list[str]) -> list[str]:
    """The statements that read chain entries' memories (the costly part: a row per memory)."""
    return [s for s in said if "JOIN rows" in s]


def test_a_fetch_that_changed_none_of_ours_reads_no_chain(tmp_path, monkeypatch):
    """The scale sweep's fetch: a teammate's memory imported, nothing of this clone's changed (but
    the own copy accepted back, at the tip that was published); the list is written again from
    the memo without reading one chain entry. A publication of one more memory reads that stream's
    chain above the tip it was last counted at only."""
    alice, bob = _alice_published(tmp_path)
    assert _noted(alice) == _whole_join(alice)  # (the first list: the memo is made)
    _record(bob, "bob's")
    assert hn(bob, "sync").code == 0 and hn(alice, "sync").code == 0
    with _traced(monkeypatch) as said:
        noted = _noted(alice)
    assert noted == _whole_join(alice)
    assert said and _chain_reads(said) == [], said
    commit_on(alice, None, "a3.txt")
    _record(alice, "published 3")
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "sync").code == 0
    with _traced(monkeypatch) as said:
        noted = _noted(alice)
    assert noted == _whole_join(alice)
    # (the local stream, given its fourth memory, from the third up; the accepted copy, at the same
    # tip, takes what that read found)
    assert [s[s.index("c.seq"):] for s in _chain_reads(said)] == ["c.seq >= 4 AND c.seq <= 4"], said
