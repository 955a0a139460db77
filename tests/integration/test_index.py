"""The disposable local index (CONTRACT §8, §11(d)): fail-closed loading, rebuild, verify, fast
recall that never silently diverges from a full projection."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3

import pytest

from git_hn.core import canonical
from git_hn.core import recall as core_recall
from git_hn.service import index as index_service
from git_hn.service import recall as recall_service
from git_hn.store import streams
from git_hn.store.repo import open_repo
from helpers import git, hn, make_repo, refs_snapshot


def _rec(repo, content, *args, kind="decision", applies="descendants"):
    r = hn(repo, "memory", "record", "--json", "--kind", kind, "--at", "HEAD", "--applies", applies,
           *args, "--content", content)
    assert r.code == 0, r.err
    return r.json()["memoryId"]


@pytest.fixture
def populated(tmp_path):
    repo = make_repo(tmp_path / "r", files={"README.md": "x\n", "docs/a.md": "a\n"})
    assert hn(repo, "init", "--name", "Indexer").code == 0
    a = _rec(repo, "stream isolation <matters>", "--topic", "architecture", "--path", "docs/a.md")
    b = _rec(repo, "flaky isolation test", "--topic", "tests", kind="observation", applies="exact")
    r = hn(repo, "memory", "supersede", a, "--kind", "decision", "--at", "HEAD", "--applies",
           "descendants", "--content", "stream isolation matters more", "--topic", "architecture")
    assert r.code == 0, r.err
    assert hn(repo, "memory", "retract", b, "--reason", "obsolete").code == 0
    _rec(repo, "verified by CI", "--evidence", f"git:{git(repo, 'rev-parse', 'HEAD')}", kind="verification")
    return repo


def _index(repo):
    return repo / ".git" / "hn" / "memory" / "index-v0.json"


def _recall(repo, *args):
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--lifecycle", "all", *args)
    assert r.code == 0, r.err
    return r.out


def test_rebuild_verify_and_determinism(populated):
    assert hn(populated, "memory", "index", "verify").err == "git-hn: memory index missing\n"
    r = hn(populated, "memory", "index", "rebuild")
    assert r.code == 0, r.err
    line = r.out.strip()
    assert line.startswith("Memory index rebuild: version 0, source sha256:") and line.endswith(", records 4")
    first = _index(populated).read_bytes()
    assert oct(os.stat(_index(populated)).st_mode & 0o777) == "0o600"
    assert oct(os.stat(_index(populated).parent).st_mode & 0o777) == "0o700"
    v = hn(populated, "memory", "index", "verify")
    assert v.code == 0 and v.out.replace("verify", "rebuild") == r.out
    answer = _recall(populated)
    _index(populated).unlink()
    (populated / ".git" / "hn" / "memory" / "recall-v0.sqlite").unlink()
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert _index(populated).read_bytes() == first
    assert _recall(populated) == answer
    doc = json.loads(first)
    assert list(doc) == ["version", "sourceFingerprint", "records", "tokens"]
    assert [r["id"] for r in doc["records"]] == sorted(r["id"] for r in doc["records"])
    # the large-document encoder is byte-identical to the reference indented encoder
    assert canonical.indented(doc) == first


def test_verify_reports_stale_and_exits_nonzero(populated):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    _rec(populated, "a newer memory")  # record refreshes the index: it is now absent
    assert hn(populated, "memory", "index", "verify").err == "git-hn: memory index missing\n"
    assert hn(populated, "memory", "index", "rebuild").code == 0
    git(populated, "update-ref", "refs/hn/memory/" + "a" * 64 + "/" + "b" * 64,
        git(populated, "for-each-ref", "--format=%(objectname)", "refs/hn/memory"))
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index stale: source or policy changed\n")


def _tamper_cases(repo):
    idx = _index(repo)
    data = idx.read_bytes()
    doc = json.loads(data)
    outside = repo.parent / "outside.json"

    def write(b):
        idx.write_bytes(b)
        os.chmod(idx, 0o600)

    def symlink_file():
        outside.write_bytes(data)
        idx.unlink()
        os.symlink(outside, idx)

    def symlink_dir():
        mem = idx.parent
        elsewhere = repo.parent / "elsewhere"
        shutil.move(str(mem), str(elsewhere))
        os.symlink(elsewhere, mem)

    def fifo():
        idx.unlink()
        os.mkfifo(idx, 0o600)

    def directory():
        idx.unlink()
        idx.mkdir(mode=0o700)
        (idx / "x").write_text("x")

    def too_large():
        with open(idx, "r+b") as fh:
            fh.truncate(268435456 + 1)

    doc2 = dict(doc, extra=1)
    doc3 = dict(doc)
    doc3["version"] = 1
    doc4 = json.loads(data)
    doc4["records"][0]["data"]["content"] = "poisoned"
    return [
        ("file mode", lambda: os.chmod(idx, 0o644), "corrupt"),
        ("dir mode", lambda: os.chmod(idx.parent, 0o755), "corrupt"),
        ("symlinked file", symlink_file, "corrupt"),
        ("symlinked directory", symlink_dir, "corrupt"),
        ("fifo", fifo, "corrupt"),
        ("directory", directory, "corrupt"),
        ("unknown field", lambda: write(canonical.indented(doc2)), "corrupt"),
        ("trailing data", lambda: write(data + b"{}\n"), "corrupt"),
        ("noncanonical", lambda: write(json.dumps(doc).encode()), "corrupt: noncanonical encoding"),
        ("not utf-8", lambda: write(data.replace(b'"version": 0', b'"version": 0, "\xff": 1')), "corrupt"),
        ("too large", too_large, "corrupt"),
        ("wrong version", lambda: write(canonical.indented(doc3)), "incompatible"),
        ("poisoned content", lambda: write(canonical.indented(doc4)), "corrupt: content digest does not match"),
        ("empty", lambda: write(b""), "corrupt"),
    ]


@pytest.mark.parametrize("case", range(14))
def test_fail_closed_cases_are_refused_then_rebuilt(populated, case):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    reference = _recall(populated)
    good = _index(populated).read_bytes()
    name, tamper, kind = _tamper_cases(populated)[case]
    tamper()
    r = hn(populated, "memory", "index", "verify")
    assert r.code == 1, name
    assert r.err.startswith(f"git-hn: memory index {kind}"), (name, r.err)
    before_refs = refs_snapshot(populated)
    assert _recall(populated) == reference, name  # recall rebuilt instead of using it
    assert refs_snapshot(populated) == before_refs
    idx = _index(populated)
    assert not idx.parent.is_symlink() and not idx.is_symlink()
    assert idx.read_bytes() == good
    assert oct(os.stat(idx).st_mode & 0o777) == "0o600"
    assert oct(os.stat(idx.parent).st_mode & 0o777) == "0o700"
    assert hn(populated, "memory", "index", "verify").code == 0


def test_unsafe_hn_directory_fails_and_changes_nothing(populated):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    hn_dir = populated / ".git" / "hn"
    os.chmod(hn_dir, 0o755)
    before = sorted(p.name for p in (hn_dir / "memory").iterdir())
    r = hn(populated, "memory", "recall", "--include-untrusted")
    assert r.err == f"git-hn: private identity directory {hn_dir} has unsafe permissions\n"
    r = hn(populated, "memory", "index", "rebuild")
    assert r.err == f"git-hn: private identity directory {hn_dir} has unsafe permissions\n"
    assert oct(os.stat(hn_dir).st_mode & 0o777) == "0o755"
    assert sorted(p.name for p in (hn_dir / "memory").iterdir()) == before


def test_fresh_index_serves_without_reading_streams(populated, monkeypatch):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    stat_before = os.stat(_index(populated))

    def forbidden(*a, **k):
        raise AssertionError("streams were re-read although the index is fresh")

    monkeypatch.setattr(streams, "collect", forbidden)
    out = json.loads(_recall(populated))
    assert out["matched"] == 4
    other = git(populated, "rev-parse", "HEAD")
    git(populated, "commit", "-q", "--allow-empty", "-m", "child")
    at_child = json.loads(_recall(populated))
    at_parent = json.loads(_recall(populated, "--at", other))
    assert {m["applicability"] for m in at_parent["memories"]} == {"applicable"}
    exact = [m for m in at_child["memories"] if m["data"]["applicability"]["mode"] == "exact"]
    assert exact == []  # the exact memory no longer applies at the child
    st = os.stat(_index(populated))
    assert (st.st_ino, st.st_mtime_ns) == (stat_before.st_ino, stat_before.st_mtime_ns)


def test_new_record_and_policy_change_are_followed(populated):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    new = _rec(populated, "brand new memory")
    assert not _index(populated).exists()  # the record left the index absent (consistent)
    assert new in _recall(populated)
    old_head = git(populated, "rev-parse", "HEAD")
    _commit_policy(populated)
    now = json.loads(_recall(populated))
    trusts = {m["kind"]: m["trust"] for m in now["memories"]}
    assert trusts["decision"] == "qualified" and trusts["verification"] == "kind-untrusted"
    before = json.loads(_recall(populated, "--at", old_head))
    assert {m["trust"] for m in before["memories"]} == {"policy-missing"}


def _commit_policy(repo):
    """Commit a policy that trusts the active actor's decisions only."""
    actor = (repo / ".git" / "hn" / "active").read_text()[:-1]
    (repo / ".hn").mkdir()
    (repo / ".hn" / "policy.json").write_text(json.dumps({
        "version": "hn.policy/0", "maintainers": [actor], "proposals": {"requiredAccepts": 1},
        "memory": {"trustedActors": [actor], "trustedKinds": ["decision"]}}))
    git(repo, "add", ".hn")
    git(repo, "commit", "-q", "-m", "policy")


def _random_requests(repo, head, parent):
    rng = random.Random(99)
    requests = []
    for _ in range(25):
        requests.append(core_recall.RecallRequest(
            at_commit=rng.choice([head, parent]),
            topic=tuple(rng.sample(["architecture", "tests", "ARCHITECTURE"], rng.randrange(0, 2))),
            kind=tuple(rng.sample(["decision", "observation", "verification"], rng.randrange(0, 3))),
            lifecycle=tuple(rng.choice([[], ["all"], ["active", "superseded"], ["retracted"]])),
            trust=(), query=rng.choice(["", "isolation", "stream isolation", "verified"]),
            max_records=rng.randrange(1, 5), max_content_bytes=rng.choice([65536, 60, 200]),
            include_untrusted=True, path=rng.choice(["", "", "docs/a.md"])))
    return requests


def test_index_answers_equal_full_projection(populated):
    head = git(populated, "rev-parse", "HEAD")
    git(populated, "commit", "-q", "--allow-empty", "-m", "child")
    parent = head
    head = git(populated, "rev-parse", "HEAD")
    repo = open_repo(str(populated))
    for req in _random_requests(populated, head, parent):
        try:
            expected = recall_service.recall_full(repo, req)
        except Exception as exc:  # noqa: BLE001 - the same error must come from the index path
            with pytest.raises(type(exc)) as err:
                recall_service.recall(repo, req)
            assert str(err.value) == str(exc)
            continue
        assert recall_service.recall(repo, req) == expected, req
    repo.close()


def _db(repo):
    return repo / ".git" / "hn" / "memory" / "recall-v0.sqlite"


def _edit_db(repo, sql, reseal=False):
    """Edit the recall database; ``reseal`` also rewrites its seal file the way a deliberate
    editor could (the seal then matches the edited file)."""
    from git_hn.store import index as store_index

    conn = sqlite3.connect(_db(repo))
    conn.executescript(sql)
    conn.commit()
    conn.close()
    if reseal:
        seal = _db(repo).parent / store_index.SEAL_NAME
        seal.write_text(store_index.seal_of(os.lstat(_db(repo))) + "\n")


def _doc_sql(n, row):
    from git_hn.core import canonical as c

    return f"UPDATE docs SET doc = X'{c.compact(row).hex()}' WHERE n = {n};"


def _doc(repo, n):
    conn = sqlite3.connect(_db(repo))
    try:
        return json.loads(conn.execute("SELECT doc FROM docs WHERE n = ?", (n,)).fetchone()[0])
    finally:
        conn.close()


def test_edited_database_is_never_served(populated):
    """Edits of the recall database are refused: any write changes the file under its seal, and
    an editor who also rewrites the seal still fails the checks made on every row about to be
    served (§8.5 row checks, signed record, expected ID, request match). Recall then rebuilds."""
    assert hn(populated, "memory", "index", "rebuild").code == 0
    reference = hn(populated, "memory", "recall", "--json", "--include-untrusted").out
    served = json.loads(reference)["memories"][0]
    retracted = "UPDATE rows SET lifecycle = 'active', lrank = 0 WHERE lifecycle = 'retracted';"
    swapped = "UPDATE docs SET doc = (SELECT doc FROM docs WHERE n = 1) WHERE n = 0;"
    poisoned = dict(_doc(populated, 0))
    poisoned["data"] = dict(poisoned["data"], content="poisoned")
    digest_fixed = dict(poisoned, contentDigest=grammar_digest("poisoned"))
    cases = [
        (retracted, False),          # a retracted memory relabelled active, no reseal
        ("DELETE FROM rows WHERE n = 0;", False),  # a row hidden (naive edit: the seal catches it)
        (retracted, True),           # relabelled and resealed: the full row disagrees
        (swapped, True),             # two rows' documents swapped: unexpected ID
        (_doc_sql(0, poisoned), True),       # content edited: the digest no longer matches
        (_doc_sql(0, digest_fixed), True),   # content and digest edited: not the signed record
        ("UPDATE docs SET doc = X'7b7d' WHERE n = 0;", True),  # not a row at all
        (_doc_sql(0, dict(_doc(populated, 0), signedTimestamp="2099-01-01T00:00:00Z")), True),
        ("UPDATE rows SET size = 1 WHERE n = 0;", True),  # paged by a size it does not have
    ]
    for sql, reseal in cases:
        _edit_db(populated, sql, reseal)
        r = hn(populated, "memory", "recall", "--json", "--include-untrusted")
        assert (r.code, r.out) == (0, reference), sql
        assert "poisoned" not in r.out and served["data"]["content"] in r.out
        assert hn(populated, "memory", "index", "verify").code == 0, sql  # rebuilt


def grammar_digest(text):
    from git_hn.core.grammar import content_digest

    return content_digest(text)


@pytest.mark.parametrize("sql", [
    "DELETE FROM rows WHERE n = 0;",                                         # a row hidden outright
    "UPDATE rows SET tokens = ' ' WHERE instr(tokens, ' isolation ') > 0;",  # hidden from one term
    "UPDATE rows SET kind = 'attempt' WHERE n = 0;",                         # a filter column changed
    "DELETE FROM sources;",
    "DELETE FROM docs WHERE n = 1;",
    "UPDATE verified SET signature = 'x' WHERE rowid = 1;",            # a check it did not make
])
def test_verify_compares_the_database_with_a_rebuild(populated, sql):
    """A consistent edit that only hides rows, with the seal rewritten to match, cannot be seen
    by recall's per-row checks; verify re-derives the database too and reports it."""
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0
    _edit_db(populated, sql, reseal=True)
    r = hn(populated, "memory", "index", "verify")
    assert r.code == 1
    assert r.err == "git-hn: memory index corrupt: recall database differs from a rebuild\n"
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0


def test_verify_reports_a_database_changed_after_it_was_built(populated):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    # the same content afterwards, but the file was written
    _edit_db(populated, "INSERT INTO meta VALUES ('x', 'y'); DELETE FROM meta WHERE key = 'x';")
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index corrupt: recall database was changed after "
                                  "it was built\n")
    before = _db(populated).stat().st_ino
    _recall(populated)
    assert _db(populated).stat().st_ino != before  # recall rebuilt instead of serving it
    assert hn(populated, "memory", "index", "verify").code == 0


def test_deliberate_lifecycle_relabel_is_reported_by_verify(populated):
    """The documented limit: an editor who rewrites a stored row's projection consistently (and
    the seal) is not caught by recall's per-row checks, which check signed data; verify is."""
    assert hn(populated, "memory", "index", "rebuild").code == 0
    conn = sqlite3.connect(_db(populated))
    n = conn.execute("SELECT n FROM rows WHERE lifecycle = 'retracted'").fetchone()[0]
    conn.close()
    row = dict(_doc(populated, n), lifecycle="active", retractions=[])
    _edit_db(populated, _doc_sql(n, row) + f"UPDATE rows SET lifecycle = 'active', lrank = 0 WHERE n = {n};",
             reseal=True)
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index corrupt: recall database differs from a rebuild\n")


def test_lifecycle_commands_refresh_the_index(populated):
    """supersede, retract and challenge leave the index consistent (here: absent) like record."""
    index = _index(populated)
    target = _rec(populated, "to be superseded")
    for args in (["supersede", target, "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                  "--content", "replacement"],
                 ["retract", target, "--reason", "obsolete"]):
        assert hn(populated, "memory", "index", "rebuild").code == 0
        assert index.exists()
        r = hn(populated, "memory", *args)
        assert r.code == 0, r.err
        assert not index.exists(), args
    assert hn(populated, "memory", "index", "rebuild").code == 0
    other = populated.parent / "other"
    git(populated.parent, "clone", "-q", str(populated), str(other))
    assert hn(other, "init", "--name", "Challenger").code == 0
    # challenge needs another actor's memory: the other clone records, then the populated one
    # challenges it after fetching the stream as a local source
    them = _rec(other, "challenge me")
    refs = git(other, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
    git(populated, "fetch", "-q", str(other), *[f"{r}:{r}" for r in refs])
    assert hn(populated, "memory", "index", "rebuild").code == 0
    r = hn(populated, "memory", "challenge", them, "--reason", "evidence-mismatch")
    assert r.code == 0, r.err
    assert not index.exists()


def test_failed_write_keeps_the_previous_index(populated, monkeypatch):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    good = _index(populated).read_bytes()
    _rec(populated, "another")
    assert hn(populated, "memory", "index", "rebuild").code == 0
    newer = _index(populated).read_bytes()
    assert newer != good
    import git_hn.store.private as private

    real_rename = os.rename

    def failing_rename(src, dst, *a, **k):
        if str(dst).endswith("index-v0.json"):
            raise OSError(28, "No space left on device")
        return real_rename(src, dst, *a, **k)

    monkeypatch.setattr(private.os, "rename", failing_rename)
    git(populated, "update-ref", "-d", git(populated, "for-each-ref", "--format=%(refname)", "refs/hn/memory"))
    r = hn(populated, "memory", "index", "rebuild")
    assert r.code == 1 and "cannot be written" in r.err
    assert _index(populated).read_bytes() == newer
    assert [p.name for p in _index(populated).parent.iterdir() if p.name.startswith(".hn-private-")] == []


def test_order_is_right_when_the_query_commit_changes_applicability(tmp_path):
    """Row order in the derived database must not depend on applicability at HEAD."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init").code == 0
    base = git(repo, "rev-parse", "HEAD")
    old = _rec(repo, "old descendants memory")
    git(repo, "commit", "-q", "--allow-empty", "-m", "child")
    new = _rec(repo, "new descendants memory")
    # at HEAD the exact memory is inapplicable; at base it applies and is older
    assert hn(repo, "memory", "index", "rebuild").code == 0
    git(repo, "checkout", "-q", base)
    newest = _rec(repo, "newest exact memory at base", applies="exact")
    git(repo, "checkout", "-q", "main")
    assert hn(repo, "memory", "index", "rebuild").code == 0
    ro = open_repo(str(repo))
    req = core_recall.RecallRequest(at_commit=base, include_untrusted=True)
    via_index = recall_service.recall(ro, req)
    assert via_index == recall_service.recall_full(ro, req)
    assert [m["id"] for m in via_index["memories"]] == [newest, old]
    assert new not in [m["id"] for m in via_index["memories"]]
    ro.close()


def test_database_built_by_a_forked_child(populated, monkeypatch):
    """Large rebuilds build the database in a child process; the result is the same."""
    assert hn(populated, "memory", "index", "rebuild").code == 0
    reference_db_rows = _db_rows(populated)
    reference = _recall(populated)
    monkeypatch.setattr(index_service, "DB_FORK_MIN", 0)
    (populated / ".git" / "hn" / "memory" / "recall-v0.sqlite").unlink()
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert _db_rows(populated) == reference_db_rows
    assert _recall(populated) == reference


def test_forked_database_is_not_installed_when_the_index_write_fails(populated, monkeypatch):
    monkeypatch.setattr(index_service, "DB_FORK_MIN", 0)
    import git_hn.store.index as store_index

    def failing_write(repo, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_index, "write_index", failing_write)
    repo = open_repo(str(populated))
    with pytest.raises(OSError):
        index_service.rebuild(repo)
    repo.close()
    mem = populated / ".git" / "hn" / "memory"
    assert not (mem / "recall-v0.sqlite").exists()
    assert [p.name for p in mem.iterdir() if p.name.startswith(".hn-private-")] == []


def _db_rows(repo):
    conn = sqlite3.connect(_db(repo))
    try:
        return (conn.execute("SELECT * FROM rows ORDER BY n").fetchall(),
                conn.execute("SELECT * FROM docs ORDER BY n").fetchall(),
                conn.execute("SELECT * FROM meta WHERE key != 'indexSeal' ORDER BY key").fetchall())
    finally:
        conn.close()


def test_refresh_deletes_exactly_the_index_files():
    from git_hn.service import index_refresh
    from git_hn.store import index as store_index

    assert set(index_refresh.NAMES) == {"index-v0.json", store_index.DB_NAME, store_index.SEAL_NAME}
    # the database is kept: never served for other refs, it records which heads were verified
    assert index_refresh.REFRESHED == ("index-v0.json",)


def test_an_index_over_its_size_bound_is_omitted_and_recall_is_served_from_the_database(
        populated, monkeypatch):
    """§8.1 bounds index-v0.json at 256 MiB (here lowered through the testing switch): a rebuild
    that would exceed it omits that file (and removes a stale one) and says so; the recall
    database holds every row itself, so recall is still served without re-reading streams, and
    verify accepts the omission only while a rebuild would still exceed the bound."""
    from helpers import hn_proc

    reference = _recall(populated)
    assert _index(populated).exists()
    size = _index(populated).stat().st_size
    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_INDEX_MAX_BYTES": str(size - 1)}
    r = hn_proc(populated, "memory", "index", "rebuild", env=env)
    assert r.code == 0, r.err
    assert r.out.splitlines()[1] == ("index-v0.json omitted: it would exceed its size bound "
                                     "(CONTRACT §8.1); recall is served from recall-v0.sqlite")
    assert not _index(populated).exists() and _db(populated).exists()
    v = hn_proc(populated, "memory", "index", "verify", env=env)
    assert v.code == 0 and v.out.replace("verify", "rebuild") == r.out
    # at the real bound the same index fits, so its absence is "missing"
    assert hn(populated, "memory", "index", "verify").err == "git-hn: memory index missing\n"
    db_inode = _db(populated).stat().st_ino
    r = hn_proc(populated, "memory", "recall", "--json", "--include-untrusted", "--lifecycle", "all",
                env=env)
    assert (r.code, r.out) == (0, reference)
    assert _db(populated).stat().st_ino == db_inode  # served, not rebuilt
    # in-process, with stream reading forbidden: the database alone answers
    def forbidden(*a, **k):
        raise AssertionError("streams were re-read although the database is fresh")

    with monkeypatch.context() as m:
        m.setenv("HN_INTERNAL_TESTING", "1")
        m.setenv("HN_TEST_INDEX_MAX_BYTES", str(size - 1))
        repo = open_repo(str(populated))
        req = core_recall.RecallRequest(at_commit=repo.head_commit(), include_untrusted=True,
                                        lifecycle=("all",), query="isolation")
        expected = recall_service.recall_full(repo, req)
        assert expected["matched"] == 3
        m.setattr(streams, "collect", forbidden)
        assert recall_service.recall(repo, req) == expected
        repo.close()
    # an index file appearing beside a database that recorded its omission: not served, rebuilt
    _index(populated).write_bytes(b"{}")
    os.chmod(_index(populated), 0o600)
    r = hn_proc(populated, "memory", "recall", "--json", "--include-untrusted", "--lifecycle", "all",
                env=env)
    assert (r.code, r.out, r.err) == (0, reference, "")
    assert not _index(populated).exists() and _db(populated).stat().st_ino != db_inode
    at_bound = dict(env, HN_TEST_INDEX_MAX_BYTES=str(size))  # exactly at the bound: written
    assert hn_proc(populated, "memory", "index", "rebuild", env=at_bound).out.count("\n") == 1
    assert _index(populated).stat().st_size == size
    assert hn_proc(populated, "memory", "index", "rebuild", env=env).code == 0
    assert not _index(populated).exists()
    # a new record: the database (all there is) is now stale, never served for the new refs
    new = _rec(populated, "recorded after the omission")
    v = hn_proc(populated, "memory", "index", "verify", env=env)
    assert (v.code, v.err) == (1, "git-hn: memory index stale: source or policy changed\n")
    r = hn_proc(populated, "memory", "recall", "--json", "--include-untrusted", env=env)
    assert r.code == 0 and new in r.out
    assert hn_proc(populated, "memory", "index", "verify", env=env).code == 0
    assert hn(populated, "memory", "index", "rebuild").out.count("\n") == 1  # the real bound: written
    assert _index(populated).exists()
    assert hn(populated, "memory", "index", "verify").code == 0


def test_database_is_served_from_a_path_with_uri_characters(tmp_path):
    """The database is opened through an SQLite URI; ``?``, ``#`` and ``%`` in the repository
    path must not change which file is opened (a wrong file would be rebuilt on every call)."""
    repo = make_repo(tmp_path / "a?b#c%41d")
    assert hn(repo, "init").code == 0
    memory = _rec(repo, "path with URI characters")
    first = _recall(repo)
    inode = _db(repo).stat().st_ino
    assert _recall(repo) == first and memory in first
    assert _db(repo).stat().st_ino == inode  # served, not rebuilt


def _db_tamper_cases(repo):
    db = _db(repo)
    seal = db.parent / "recall-v0.seal"
    outside = repo.parent / "outside.sqlite"

    def symlink(path):
        def go():
            shutil.copy(path, outside)
            path.unlink()
            os.symlink(outside, path)
        return go

    def replace_with(make):
        def go():
            db.unlink()
            make()
        return go

    def garbage():
        db.write_bytes(b"not a database at all" * 100)

    def truncated():
        with open(db, "r+b") as fh:
            fh.truncate(db.stat().st_size // 2)

    return [
        ("database mode", lambda: os.chmod(db, 0o644)),
        ("symlinked database", symlink(db)),
        ("fifo database", replace_with(lambda: os.mkfifo(db, 0o600))),
        ("directory database", replace_with(lambda: db.mkdir(mode=0o700))),
        ("garbage database", garbage),
        ("truncated database", truncated),
        ("wrong version", lambda: _edit_db(repo, "UPDATE meta SET value = '0' WHERE key = 'version';",
                                           reseal=True)),
        ("missing table", lambda: _edit_db(repo, "DROP TABLE docs;", reseal=True)),
        ("seal missing", lambda: seal.unlink()),
        ("seal mode", lambda: os.chmod(seal, 0o644)),
        ("symlinked seal", symlink(seal)),
        ("seal of another file", lambda: seal.write_text("1:2:3:4:5\n")),
    ]


@pytest.mark.parametrize("omitted", [False, True])
@pytest.mark.parametrize("case", range(12))
def test_unsafe_or_damaged_database_is_refused_then_rebuilt(populated, case, omitted, monkeypatch):
    """The recall database fails closed like the index (§8.5 through §11(d)), also when it is
    all there is (index-v0.json omitted for its size): never followed, never served; recall
    answers the same from a rebuild and leaves safe files behind."""
    if omitted:
        size = len(index_service.index_bytes(*_derived_and_tokens(populated), 1 << 40))
        monkeypatch.setenv("HN_INTERNAL_TESTING", "1")
        monkeypatch.setenv("HN_TEST_INDEX_MAX_BYTES", str(size - 1))
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert _index(populated).exists() != omitted
    reference = _recall(populated)
    name, tamper = _db_tamper_cases(populated)[case]
    tamper()
    assert hn(populated, "memory", "index", "verify").code == 1, name
    before = refs_snapshot(populated)
    outside = populated.parent / "outside.sqlite"
    target = outside.read_bytes() if outside.exists() else None
    assert _recall(populated) == reference, name
    assert refs_snapshot(populated) == before
    # a symlink's target is neither followed for writing nor removed
    assert (outside.read_bytes() if outside.exists() else None) == target, name
    for path in (_db(populated), _db(populated).parent / "recall-v0.seal"):
        st = os.lstat(path)
        assert not path.is_symlink() and path.is_file(), name
        assert oct(st.st_mode & 0o777) == "0o600", name
    assert hn(populated, "memory", "index", "verify").code == 0, name


def _derived_and_tokens(repo):
    r = open_repo(str(repo))
    try:
        derived = index_service.derive(r)
        return derived, index_service.row_tokens(derived.rows)
    finally:
        r.close()


def test_large_queries_and_pages_are_served(populated, monkeypatch):
    """Terms beyond those matched in SQL, and pages beyond one fetch, give the full
    projection's answer (SQLite's expression depth and variable count are bounded)."""
    repo = open_repo(str(populated))
    monkeypatch.setattr(index_service, "SQL_TERMS", 1)
    monkeypatch.setattr(index_service, "DOC_CHUNK", 2)
    head = repo.head_commit()
    for query in ("stream isolation matters", "isolation stream", "flaky isolation test nothing",
                  "verified by CI", "stream"):
        req = core_recall.RecallRequest(at_commit=head, include_untrusted=True, lifecycle=("all",),
                                        query=query, max_records=100)
        assert recall_service.recall(repo, req) == recall_service.recall_full(repo, req), query
    repo.close()
    words = " ".join(f"w{i}" for i in range(300))
    new = _rec(populated, "alpha " + words)
    r = hn(populated, "memory", "recall", "--json", "--include-untrusted", "--query", words)
    assert r.code == 0, r.err
    assert [m["id"] for m in r.json()["memories"]] == [new]


def test_a_database_that_cannot_be_written_fails_cleanly(populated):
    """A full disk (here a file-size limit) while writing the database is one clean error line,
    leaves no temporary file, and a later rebuild works."""
    from helpers import hn_file_limited

    for args in (["memory", "index", "rebuild"], ["memory", "recall", "--json"]):
        p = hn_file_limited(populated, 3000, *args)
        assert p.code == 1, args
        assert p.err.startswith("git-hn: ") and p.err.count("\n") == 1, p.err
        assert "internal error" not in p.err and "Traceback" not in p.err
        mem = populated / ".git" / "hn" / "memory"
        assert [n for n in os.listdir(mem) if n.startswith(".hn-private-")] == []
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0


def test_a_killed_rebuilds_temporary_files_are_swept(populated):
    from git_hn.store import index as store_index

    mem = populated / ".git" / "hn" / "memory"
    mem.mkdir(mode=0o700, parents=True, exist_ok=True)
    old, young = mem / ".hn-private-0123456789abcdef.sqlite", mem / ".hn-private-fedcba9876543210"
    for path in (old, young):
        path.write_bytes(b"partial")
    past = os.stat(old).st_mtime - store_index.STALE_TEMPORARY - 60
    os.utime(old, (past, past))
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert not old.exists() and young.exists()  # a concurrent write's file is left alone


def test_verify_calls_an_index_touched_after_the_build_stale(populated):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    os.utime(_index(populated))
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index stale: recall database was built with "
                                  "another index file\n")
    _recall(populated)  # rebuilt
    assert hn(populated, "memory", "index", "verify").code == 0


def _state(repo):
    """Index bytes (or None) and every database table but the seals."""
    idx = _index(repo)
    conn = sqlite3.connect(_db(repo))
    try:
        tables = [conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("rows", "docs", "sources")]
        tables.append(conn.execute("SELECT * FROM meta WHERE key != 'indexSeal' ORDER BY key").fetchall())
    finally:
        conn.close()
    return (idx.read_bytes() if idx.exists() else None), tables


def _count_verifications(monkeypatch):
    from git_hn.core import keys

    calls = []
    real = keys.verify

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(keys, "verify", counting)
    return calls


def test_incremental_rebuild_equals_a_full_rebuild(populated, monkeypatch):
    """An incremental rebuild (only signatures the previous build did not check are checked)
    writes exactly what a full rebuild writes, after each kind of change."""
    other = populated.parent / "other"
    git(populated.parent, "clone", "-q", str(populated), str(other))
    assert hn(other, "init", "--name", "Other").code == 0
    calls = _count_verifications(monkeypatch)
    target = json.loads(_recall(populated))["memories"][0]["id"]

    def fetch_other():
        refs = git(other, "for-each-ref", "--format=%(refname)", "refs/hn/memory").split()
        git(populated, "fetch", "-q", str(other), *[f"+{r}:{r}" for r in refs])

    changes = [
        ("record", lambda: _rec(populated, "appended after the build")),
        ("another actor's stream", lambda: (_rec(other, "from the other clone"), fetch_other())),
        ("its stream grows", lambda: (_rec(other, "second from the other clone"), fetch_other())),
        ("supersede", lambda: hn(populated, "memory", "supersede", target, "--kind", "decision",
                                 "--at", "HEAD", "--applies", "exact", "--content", "replaced")),
        ("policy and HEAD", lambda: _commit_policy(populated)),
        ("a stream deleted", lambda: git(populated, "update-ref", "-d", git(
            populated, "for-each-ref", "--format=%(refname)", "--count=1", "refs/hn/memory/")),)
    ]
    repo = open_repo(str(populated))
    index_service.rebuild(repo)
    for name, change in changes:
        change()
        repo.close()
        repo = open_repo(str(populated))
        previous = index_service.previously_verified(repo)
        assert previous, name  # the record's refresh kept the database
        calls.clear()
        index_service.rebuild(repo, previous)
        incremental, checked = _state(populated), len(calls)
        calls.clear()
        index_service.rebuild(repo)
        assert _state(populated) == incremental, name
        total = len(json.loads(_recall(populated))["memories"])
        assert checked < len(calls), (name, checked, len(calls))  # fewer signatures checked
        assert total > 0
    repo.close()


def test_incremental_rebuild_still_verifies_new_commits(populated):
    """A commit the previous build did not verify is verified: a forged one fails the
    incremental rebuild with the full rebuild's error, and recall never serves it."""
    from helpers import forged_commit, read_blob, tree_entries, write_blob

    assert hn(populated, "memory", "index", "rebuild").code == 0
    ref = git(populated, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    head = git(populated, "rev-parse", ref)
    entries = tree_entries(populated, head)
    payload = read_blob(populated, entries["memory.json"]).replace(b"verified by CI", b"forged by me")
    blob = write_blob(populated, payload)
    lines = "".join(f"100644 blob {blob if n == 'memory.json' else oid}\t{n}\n" for n, oid in entries.items())
    forged = forged_commit(populated, lines, parents=(head,))
    git(populated, "update-ref", ref, forged, head)
    repo = open_repo(str(populated))
    previous = index_service.previously_verified(repo)
    assert head in previous
    errors = []
    for verified in (previous, frozenset()):
        with pytest.raises(Exception) as err:
            index_service.rebuild(repo, verified)
        errors.append(str(err.value))
    repo.close()
    assert errors[0] == errors[1] and "invalid memory signature" in errors[0]
    r = hn(populated, "memory", "recall", "--json", "--include-untrusted")
    assert r.code == 1 and "invalid memory signature" in r.err


def _loose_object(repo, oid):
    return repo / ".git" / "objects" / oid[:2] / oid[2:]


def test_incremental_rebuild_rechecks_bytes_that_changed_under_an_id(populated):
    """Reuse is keyed by the exact payload and signature, not only by commit: an object file
    overwritten under the same ID (Git does not rehash on read) is verified again and refused
    as a full rebuild refuses it."""
    from helpers import read_blob, tree_entries, write_blob

    assert hn(populated, "memory", "index", "rebuild").code == 0
    ref = git(populated, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    blob = tree_entries(populated, git(populated, "rev-parse", ref))["memory.json"]
    payload = read_blob(populated, blob)
    forged = payload.replace(b"verified by CI", b"forged by me!!")
    assert len(forged) == len(payload) and forged != payload
    path = _loose_object(populated, blob)
    assert path.exists()
    replacement = _loose_object(populated, write_blob(populated, forged)).read_bytes()
    os.chmod(path, 0o644)
    path.write_bytes(replacement)
    assert read_blob(populated, blob) == forged
    repo = open_repo(str(populated))
    previous = index_service.previously_verified(repo)
    assert previous
    errors = []
    for verified in (previous, None):
        with pytest.raises(Exception) as err:
            index_service.rebuild(repo, verified)
        errors.append(str(err.value))
    repo.close()
    assert errors[0] == errors[1] and "invalid memory signature" in errors[0]


def test_incremental_rebuild_reuses_checks_of_a_rewound_ref(populated, monkeypatch):
    """A ref moved back below the head the previous build verified needs no signature check."""
    assert hn(populated, "memory", "index", "rebuild").code == 0
    ref = git(populated, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    git(populated, "update-ref", ref, git(populated, "rev-parse", ref + "~1"))
    calls = _count_verifications(monkeypatch)
    repo = open_repo(str(populated))
    index_service.rebuild(repo, index_service.previously_verified(repo))
    incremental = _state(populated)
    assert calls == []
    index_service.rebuild(repo)
    assert _state(populated) == incremental and len(calls) == 4
    repo.close()


def test_incremental_rebuild_needs_the_same_signature_checker(populated, monkeypatch):
    """Checks made under other verification code or library versions are not reused."""
    assert hn(populated, "memory", "index", "rebuild").code == 0
    repo = open_repo(str(populated))
    assert len(index_service.previously_verified(repo)) == 5
    monkeypatch.setattr(streams, "signature_checker", lambda: "another checker")
    assert index_service.previously_verified(repo) == {}
    repo.close()
