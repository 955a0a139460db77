"""What a rewrite reads (issue 11, S102 finding 3): the post-rewrite hook at 100,000 memories
read and checked every memory of the rewritten stream (6,250) and every active row of the state,
for 10 moved memories. It now reads the unpublished part of the stream only (and the memory it
chains onto), and the rows of the rewritten anchors only; the rebuild is the one a full read
makes: the same memories signed again, to the same IDs."""

from __future__ import annotations

import shutil
import subprocess

from helpers import commit_on, git, hn, shared_remote, wait_publication


def _record(repo, content: str) -> str:
    r = hn(repo, "memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


def _published_then_a_feature(tmp_path):
    """Alice's stream: six memories published with main, then two on an unpushed feature commit,
    which is amended with the hooks off: (repository, {old: new})."""
    _remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    published = [_record(alice, f"published {i}") for i in range(6)]
    proc = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=alice, capture_output=True, text=True)
    wait_publication(alice)
    assert proc.returncode == 0, proc.stderr
    commit_on(alice, "feat", "f.txt")
    old = git(alice, "rev-parse", "HEAD")
    unpublished = [_record(alice, f"on the feature {i}") for i in range(2)]
    git(alice, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--amend", "-m", "feature, reworded")
    return alice, {old: git(alice, "rev-parse", "HEAD")}, published, unpublished


def _rewrite(repo_path, mapping):
    from git_hn.service import reanchor
    from git_hn.store import identity
    from git_hn.store.repo import open_repo

    repo = open_repo(str(repo_path))
    try:
        done = reanchor.rewrite(repo, identity.load_active(repo), mapping)
        return [(r.ref, r.memories, r.moved, r.renamed, r.before) for r in done]
    finally:
        repo.close()


def test_a_rewrite_reads_only_the_unpublished_part_of_the_stream(tmp_path, monkeypatch):
    from git_hn.store import stateview

    alice, mapping, published, unpublished = _published_then_a_feature(tmp_path)
    asked: list = []
    load = stateview.View.load

    def counted(self, ids):
        ids = list(ids)
        asked.extend(ids)
        return load(self, ids)

    monkeypatch.setattr(stateview.View, "load", counted)
    done = _rewrite(alice, mapping)
    assert [(memories, moved, [a for a, _b in renamed]) for _ref, memories, moved, renamed, _before in done] == \
        [(2, 2, unpublished)]
    assert set(unpublished) <= set(asked) <= {published[-1], *unpublished}, asked  # (the last published one: chained onto)
    assert hn(alice, "memory", "index", "verify").code == 0


def test_the_rebuild_is_the_one_a_full_read_makes(tmp_path, monkeypatch):
    """The same rewrite in a copy of the clone whose verified state cannot answer (the full
    read of every chain): the same memories signed again, to the same IDs and tips."""
    from git_hn.store import stateview

    alice, mapping, _published, _unpublished = _published_then_a_feature(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(alice, copy, symlinks=True)
    from_state = _rewrite(alice, mapping)

    def unavailable(*_args, **_kw):
        raise stateview.Unavailable

    monkeypatch.setattr(stateview, "current", unavailable)
    full = _rewrite(copy, mapping)
    assert from_state == full and from_state[0][1] == 2
    monkeypatch.undo()
    assert git(alice, "for-each-ref", "refs/hn/memory") == git(copy, "for-each-ref", "refs/hn/memory")


def test_the_memories_left_behind_are_found_from_the_rewritten_anchors(inited):
    """``left``'s query starts from the anchors a rewrite replaced and reaches their rows through
    an index; joined the other way, SQLite read every active row of the state."""
    import sqlite3

    from git_hn.service.left_behind import LEFT_SQL

    _record(inited, "a memory")
    assert hn(inited, "memory", "log").code == 0
    conn = sqlite3.connect(f"file:{inited / '.git' / 'hn' / 'memory' / 'state-v0.sqlite'}?mode=ro", uri=True)
    try:
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + LEFT_SQL.format("?, ?"), ("a", "b"))]
    finally:
        conn.close()
    assert plan[0].startswith("SEARCH a ") and "rows_groups (lifecycle=? AND akey=?)" in plan[1], plan
