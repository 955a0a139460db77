"""Measurement reads a level's trees, blobs and parents in the exchange that reads its commits
(``measure.Ahead``, f134): whatever a revision name resolves to, every answer it gives equals
the plain read of that object ID (``Git.read_objects``, ``Git.read_objects_bounded``, kept as
the reference), and a fresh clone's two-memory streams cost two exchanges, not four."""

from __future__ import annotations

from git_hn.service.replication import measure
from git_hn.store import streams
from git_hn.store.git import Git
from git_hn.store.reader import Reader
from git_hn.store.repo import open_repo
from helpers import git


def _object(g: Git, body: bytes, kind: str = "blob") -> str:
    return g.out(["hash-object", "-w", "-t", kind, "--stdin"], input=body)


def _tree(g: Git, entries: list[tuple[str, str, str]]) -> str:
    text = "".join(f"{mode} {'tree' if mode == '040000' else 'blob'} {oid}\t{name}\n" for mode, oid, name in entries)
    return g.out(["mktree"], input=text.encode())


def _commit(g: Git, tree: str, parents: list[str], message: str = "m") -> str:
    args = ["commit-tree", tree]
    for p in parents:
        args += ["-p", p]
    return g.out(args, input=message.encode())


def _memory(g: Git, n: int, parents: list[str], message: str = "m") -> str:
    blob = _object(g, b'{"n":%d}' % n)
    sig = _object(g, b"sig %d" % n)
    return _commit(g, _tree(g, [("100644", blob, "memory.json"), ("100644", sig, "signature")]), parents, message)


def _chains(repo) -> dict[str, str]:
    """Tips of chains of every shape the fast path meets or refuses, by name."""
    git(repo, "init", "-q")
    g = Git(str(repo))
    tips = {}
    for length in (1, 2, 3, 5):
        tip = ""
        for k in range(length):
            tip = _memory(g, length * 10 + k, [tip] if tip else [])
        tips[f"chain{length}"] = tip
    a, b = _memory(g, 100, []), _memory(g, 101, [])
    tips["merge"] = _memory(g, 102, [a, b])
    inner = _tree(g, [("100644", _object(g, b"x"), "x")])
    odd = _commit(g, _tree(g, [("040000", inner, "memory.json"), ("100644", _object(g, b"s"), "signature")]), [])
    tips["subtree"] = _memory(g, 103, [odd])
    tips["big commit"] = _memory(g, 104, [_memory(g, 105, [], "x" * 9000)], "y" * 5000)
    big_blob = _object(g, b"z" * (measure.PREREAD_BYTES + 1))
    tips["big blob"] = _commit(g, _tree(g, [("100644", big_blob, "memory.json"),
                                            ("100644", _object(g, b"t"), "signature")]), [tips["chain2"]])
    # a graft makes ``C~1`` name another commit than the one C's content names
    grafted = _memory(g, 106, [tips["chain1"]])
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "grafts").write_text(f"{grafted} {tips['chain3']}\n")
    tips["grafted"] = grafted
    tips["missing parent"] = _object(g, (f"tree {_tree(g, [])}\nparent {'1' * 40}\nauthor a <a> 0 +0000\n"
                                         "committer a <a> 0 +0000\n\nm\n").encode(), "commit")
    tips["not a commit"] = inner
    g.close()
    return tips


def _walk(repo, tips: dict, read=None) -> tuple[dict, dict]:
    r = open_repo(str(repo))
    starts = [(streams.Source(f"refs/x/{name}", tip, "a", name), set()) for name, tip in tips.items()]
    raws: dict = {}
    walks = streams.walk_many(r, starts, raws=raws, read=read)
    return walks, raws


def test_what_is_read_ahead_equals_the_plain_read_of_each_object(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    tips = _chains(repo)
    plain_walks, plain_raws = _walk(repo, tips)
    g = Git(str(repo))
    ahead = measure.Ahead(g)
    walks, raws = _walk(repo, tips, read=ahead.read)
    assert {r: (w.commits, w.stopped, str(w.error)) for r, w in walks.items()} == \
        {r: (w.commits, w.stopped, str(w.error)) for r, w in plain_walks.items()}
    assert raws == plain_raws and len(raws) >= 12
    assert "exactly one is allowed" in str(walks["refs/x/merge"].error)
    # every tree of the walk, every blob of those trees, and names no walk met
    trees = [t for w in walks.values() for _c, t in w.commits]
    blobs = sorted({line.split()[2] for t in trees for line in g.out(["ls-tree", t]).splitlines()})
    others = ["0" * 40, tips["not a commit"]]
    for oids in (trees, blobs, others, trees + blobs + others):
        assert ahead.bounded(oids) == g.read_objects_bounded(oids, measure.PREREAD_BYTES)
    assert any(got[2] is None for got in ahead.got.values())  # (the big blob: sized, not held)
    g.close()


def test_a_fresh_clones_two_memory_streams_are_measured_in_two_exchanges(tmp_path, monkeypatch):
    repo = tmp_path / "r"
    repo.mkdir()
    tips = _chains(repo)
    exchanges = []
    real = Reader.read_many

    def counted(self, names, *args, **kwargs):
        exchanges.append(len(names))
        return real(self, names, *args, **kwargs)

    monkeypatch.setattr(Reader, "read_many", counted)
    g = Git(str(repo))
    ahead = measure.Ahead(g)
    walks, _raws = _walk(repo, {"chain2": tips["chain2"]}, read=ahead.read)
    trees = [t for _c, t in walks["refs/x/chain2"].commits]
    blobs = [e for t in trees for e in measure.memory_blobs(ahead.bounded([t])[0], 20)]
    assert len(blobs) == 4 and all(b is not None for b in ahead.bounded(blobs))
    assert exchanges == [len(measure.AHEAD), 4]  # one exchange for the walk and trees, one for the blobs
    g.close()


def test_a_level_too_large_to_read_ahead_is_read_as_before(tmp_path, monkeypatch):
    """Over ``AHEAD_COMMITS`` commits a level is read alone (a large sync: nothing held ahead),
    with the same answers."""
    repo = tmp_path / "r"
    repo.mkdir()
    tips = _chains(repo)
    plain_walks, plain_raws = _walk(repo, tips)
    monkeypatch.setattr(measure, "AHEAD_COMMITS", 1)
    g = Git(str(repo))
    ahead = measure.Ahead(g)
    walks, raws = _walk(repo, tips, read=ahead.read)
    assert {r: (w.commits, w.stopped, str(w.error)) for r, w in walks.items()} == \
        {r: (w.commits, w.stopped, str(w.error)) for r, w in plain_walks.items()}
    assert raws == plain_raws
    trees = [t for w in walks.values() for _c, t in w.commits]
    assert ahead.bounded(trees) == g.read_objects_bounded(trees, measure.PREREAD_BYTES)
    g.close()
