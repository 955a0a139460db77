"""The index (CONTRACT §8, §11(d); issue 11): the verified state that recall, show, brief and
digest serve from, kept current by what changed; ``index rebuild`` and ``verify``; the exported
``index-v0.json``; and every way a damaged state or export is refused."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3

import pytest

from git_hn.core import canonical, keys
from git_hn.core import recall as core_recall
from git_hn.service import recall as recall_service
from git_hn.store import private, state_replace, statedb, streams
from git_hn.store.repo import open_repo
from helpers import git, hn, hn_file_limited, hn_proc, make_repo, record_id, refs_snapshot, staged_commits


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


def _db(repo):
    return repo / ".git" / "hn" / "memory" / statedb.NAME


def _seal(repo):
    return repo / ".git" / "hn" / "memory" / statedb.SEAL


def _recall(repo, *args):
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted", "--lifecycle", "all", *args)
    assert r.code == 0, r.err
    return r.out


def test_rebuild_verify_and_determinism(populated):
    assert hn(populated, "memory", "index", "verify").code == 0  # the writes kept the state fresh
    assert not _index(populated).exists()  # ...and wrote no export
    r = hn(populated, "memory", "index", "rebuild")
    assert r.code == 0, r.err
    line = r.out.strip()
    assert line.startswith("Memory index rebuild: version 0, source sha256:") and line.endswith(", records 4")
    first = _index(populated).read_bytes()
    for path in (_index(populated), _db(populated), _seal(populated)):
        assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(_index(populated).parent).st_mode & 0o777) == "0o700"
    v = hn(populated, "memory", "index", "verify")
    assert v.code == 0 and v.out.replace("verify", "rebuild") == r.out
    answer = _recall(populated)
    for path in (_index(populated), _db(populated), _seal(populated)):
        path.unlink()
    assert hn(populated, "memory", "index", "verify").err == (
        "git-hn: memory index missing: no memory state is stored here (none was built yet, or it was removed); git hn "
        "memory index rebuild builds it\n")
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert _index(populated).read_bytes() == first
    assert _recall(populated) == answer
    doc = json.loads(first)
    assert list(doc) == ["version", "sourceFingerprint", "records", "tokens"]
    assert [r["id"] for r in doc["records"]] == sorted(r["id"] for r in doc["records"])
    # the large-document encoder is byte-identical to the reference indented encoder
    assert canonical.indented(doc) == first


def test_writes_keep_the_state_fresh_and_verify_follows_ref_changes(populated):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    _rec(populated, "a newer memory")  # the export described other refs: removed; state updated
    assert not _index(populated).exists()
    assert hn(populated, "memory", "index", "verify").code == 0
    git(populated, "update-ref", "refs/hn/memory/" + "a" * 64 + "/" + "b" * 64,
        git(populated, "for-each-ref", "--format=%(objectname)", "refs/hn/memory"))
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index stale: source or policy changed; git hn memory index rebuild, or any "
                                  "read (git hn memory recall), replaces it\n")
    r = hn(populated, "memory", "recall", "--json")  # that ref's chain belongs to another actor
    assert r.code == 1 and "has owner" in r.err
    git(populated, "update-ref", "-d", "refs/hn/memory/" + "a" * 64 + "/" + "b" * 64)
    assert hn(populated, "memory", "index", "verify").code == 0


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
        ("symlinked file", symlink_file, "corrupt"),
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


@pytest.mark.parametrize("case", range(12))
def test_a_damaged_export_is_reported_never_read_and_replaced_by_rebuild(populated, case):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    reference = _recall(populated)
    good = _index(populated).read_bytes()
    name, tamper, kind = _tamper_cases(populated)[case]
    tamper()
    r = hn(populated, "memory", "index", "verify")
    assert r.code == 1, name
    assert r.err.startswith(f"git-hn: memory index {kind}"), (name, r.err)
    before_refs = refs_snapshot(populated)
    assert _recall(populated) == reference, name  # recall never reads the export
    assert refs_snapshot(populated) == before_refs
    assert hn(populated, "memory", "index", "rebuild").code == 0
    idx = _index(populated)
    assert not idx.parent.is_symlink() and not idx.is_symlink()
    assert idx.read_bytes() == good
    assert oct(os.stat(idx).st_mode & 0o777) == "0o600"
    assert hn(populated, "memory", "index", "verify").code == 0


@pytest.mark.parametrize("replicated", [False, True])
def test_unsafe_hn_directory_fails_and_changes_nothing(populated, replicated):
    hn_dir = populated / ".git" / "hn"
    if replicated:  # (a clone that synced has hn/replication: its records were read first)
        (hn_dir / "replication").mkdir(mode=0o700, exist_ok=True)
    os.chmod(hn_dir, 0o755)
    before = sorted(p.name for p in (hn_dir / "memory").iterdir())
    for args in (["memory", "recall", "--include-untrusted"], ["memory", "index", "rebuild"],
                 ["memory", "brief"]):
        r = hn(populated, *args)
        assert r.err == (f"git-hn: private identity directory {hn_dir} has unsafe permissions; git-hn's "
                         "private directory (its keyring, state and caches) must be closed to group and "
                         f"others (mode 0700, or 0500 read-only; it has 0755): chmod 700 {hn_dir}\n"), args
    assert oct(os.stat(hn_dir).st_mode & 0o777) == "0o755"
    assert sorted(p.name for p in (hn_dir / "memory").iterdir()) == before


def test_a_fresh_state_serves_without_reading_streams(populated, monkeypatch):
    _recall(populated)
    stat_before = os.stat(_db(populated))

    def forbidden(*a, **k):
        raise AssertionError("streams were re-read although the state is fresh")

    monkeypatch.setattr(streams, "collect", forbidden)
    staged = staged_commits(monkeypatch)
    out = json.loads(_recall(populated))
    assert out["matched"] == 4
    other = git(populated, "rev-parse", "HEAD")
    git(populated, "commit", "-q", "--allow-empty", "-m", "child")
    at_child = json.loads(_recall(populated))
    at_parent = json.loads(_recall(populated, "--at", other))
    assert {m["applicability"] for m in at_parent["memories"]} == {"applicable"}
    exact = [m for m in at_child["memories"] if m["data"]["applicability"]["mode"] == "exact"]
    assert exact == []  # the exact memory no longer applies at the child
    assert hn(populated, "memory", "brief", "--json").code == 0
    assert hn(populated, "memory", "digest", "--json").code == 0
    assert hn(populated, "memory", "show", out["memories"][0]["id"]).code == 0
    assert staged == []
    st = os.stat(_db(populated))
    assert (st.st_ino, st.st_mtime_ns) == (stat_before.st_ino, stat_before.st_mtime_ns)


def test_only_new_commits_are_verified_and_a_rewound_ref_costs_none(populated, monkeypatch):
    _recall(populated)
    ref = git(populated, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    tip = git(populated, "rev-parse", ref)
    git(populated, "update-ref", ref, tip + "~2")
    staged = staged_commits(monkeypatch)
    assert json.loads(_recall(populated))["matched"] == 3  # the retraction and the last record
    assert staged == []  # a prefix of a verified chain: nothing to verify
    git(populated, "update-ref", ref, tip)  # moved forward by two commits
    assert json.loads(_recall(populated))["matched"] == 4
    assert len(staged) == 2  # exactly the two new ones (the state keeps what its refs hold)
    staged.clear()
    new = _rec(populated, "one more")  # record verifies its head (§4.4) and adds the new one
    assert len(staged) == 1
    staged.clear()
    newest = git(populated, "rev-parse", ref)
    git(populated, "update-ref", ref, tip)
    assert new not in _recall(populated)
    git(populated, "update-ref", ref, newest)
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index stale: source or policy changed; git hn memory index rebuild, or any "
                                  "read (git hn memory recall), replaces it\n")
    assert new in _recall(populated)
    assert staged == [newest]
    assert hn(populated, "memory", "index", "verify").code == 0


def test_a_state_written_under_another_checker_is_not_reused(populated, monkeypatch):
    _recall(populated)
    staged = staged_commits(monkeypatch)
    monkeypatch.setattr(statedb, "_checker", "another verification code or library")
    assert json.loads(_recall(populated))["matched"] == 4
    assert len(staged) == 5  # everything verified again, under this checker


def _meta(repo) -> dict:
    with sqlite3.connect(_db(repo)) as conn:
        return dict(conn.execute("SELECT key, value FROM meta"))


def test_a_state_of_the_same_code_installed_anew_is_kept_and_of_other_code_rebuilt(populated, monkeypatch):
    """A reinstall writes every file anew (new times: another checker) with the same bytes: a
    state built from enough memories to be worth it records their digest, and is then kept,
    taken over under the new checker; other bytes (``content``) make it verified again."""
    monkeypatch.setattr(statedb, "CONTENT_FROM", 1)
    _db(populated).unlink()  # built again, now recording the content digest
    expected = _recall(populated)
    assert _meta(populated)["content"] == statedb.content()
    inode = _db(populated).stat().st_ino
    staged = staged_commits(monkeypatch)
    monkeypatch.setattr(statedb, "_checker", "the same code, installed anew")
    assert _recall(populated) == expected
    assert staged == []  # nothing verified again
    assert _db(populated).stat().st_ino == inode
    assert _meta(populated)["checker"] == "the same code, installed anew"
    assert _recall(populated) == expected and staged == []  # served read-only from now on
    monkeypatch.setattr(statedb, "_checker", "installed anew once more")
    assert hn(populated, "memory", "index", "verify").code == 0  # takes it over too
    assert _meta(populated)["checker"] == "installed anew once more"
    assert _db(populated).stat().st_ino == inode
    staged.clear()
    monkeypatch.setattr(statedb, "_checker", "other code")
    monkeypatch.setattr(statedb, "content", lambda: "other bytes")
    assert _recall(populated) == expected
    assert len(staged) == 5  # everything verified again, under this checker
    assert _meta(populated)["content"] == "other bytes"


def test_a_state_records_its_content_digest_once_it_is_large(populated, monkeypatch):
    """Below ``CONTENT_FROM`` memories a rebuild costs less than the digest (the libraries are
    megabytes): such a state records none. One that grew to ``CONTENT_FROM_BYTES`` (the common
    way: built small, then records and syncs added to it) records it when next written, and
    is then kept across a reinstall."""
    _recall(populated)
    assert "content" not in _meta(populated)
    _rec(populated, "one more")
    assert "content" not in _meta(populated)
    monkeypatch.setattr(statedb, "CONTENT_FROM_BYTES", 1)
    _rec(populated, "and one more")
    assert _meta(populated)["content"] == statedb.content()
    expected = _recall(populated)
    staged = staged_commits(monkeypatch)
    monkeypatch.setattr(statedb, "_checker", "the same code, installed anew")
    assert _recall(populated) == expected and staged == []


def test_a_rebuild_after_an_upgrade_reuses_the_signature_checks_of_unchanged_signature_code(populated, monkeypatch):
    """An upgrade that changes verifying code but not the signature code or the libraries
    (``statedb.signatures``) rebuilds the state reading, scanning and decoding every commit
    again, but checks no signature the replaced state checked; other signature code, or a
    state whose file was changed, gets every signature checked."""
    monkeypatch.setattr(statedb, "CONTENT_FROM", 1)
    _db(populated).unlink()
    expected = _recall(populated)
    assert _meta(populated)["signatures"] == statedb.signatures()
    checks = []
    real = keys.verify
    monkeypatch.setattr(keys, "verify", lambda *a: (checks.append(1), real(*a))[1])
    staged = staged_commits(monkeypatch)
    monkeypatch.setattr(statedb, "_checker", "upgraded")
    monkeypatch.setattr(statedb, "content", lambda: "upgraded derivation code")
    assert _recall(populated) == expected
    assert (len(staged), len(checks)) == (5, 0)
    assert _meta(populated)["content"] == "upgraded derivation code"
    staged.clear()
    monkeypatch.setattr(statedb, "_checker", "upgraded again")
    monkeypatch.setattr(statedb, "content", lambda: "upgraded signature code")
    monkeypatch.setattr(statedb, "signatures", lambda: "upgraded signature code")
    assert _recall(populated) == expected
    assert (len(staged), len(checks)) == (5, 5)
    staged.clear()
    checks.clear()
    with sqlite3.connect(_db(populated)) as conn:  # a state changed behind git-hn's back
        conn.execute("UPDATE meta SET value = 'anything' WHERE key = 'checker'")
    assert _recall(populated) == expected
    assert (len(staged), len(checks)) == (5, 5)  # its verdicts are not taken
    assert hn(populated, "memory", "index", "verify").code == 0


def test_index_verify_compares_a_small_state_of_another_installation_and_leaves_it(populated, monkeypatch):
    """A state under ``CONTENT_FROM`` memories records no content digest, so after any reinstall
    (another checker) nothing says whether other code wrote it: verify compares its tables with
    the re-derivation, passes when they agree (an audit: a reinstall of the same code made it
    fail as "another version or installation" until a read rebuilt the state), and calls it
    incompatible when they differ. It writes nothing either way; reads still rebuild it."""
    _recall(populated)
    before = _db(populated).read_bytes()
    monkeypatch.setattr(statedb, "_checker", "the same code, installed anew")
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (0, "") and r.out.startswith("Memory index verify: version 0, source ")
    assert _db(populated).read_bytes() == before

    monkeypatch.setattr(statedb, "_checker", "another verification code or library")
    with sqlite3.connect(_db(populated)) as conn:  # what other code derived differently, sealed by it
        conn.execute("UPDATE rows SET size = size + 1")
    opened = open_repo(str(populated))
    statedb.write_seal(opened)
    opened.close()
    before = _db(populated).read_bytes()
    monkeypatch.setattr(statedb, "_checker", "this code")
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index incompatible: memory state was written by another version "
                                  "or installation of git-hn and differs from what this one derives; "
                                  "git hn memory index rebuild replaces it\n")
    assert _db(populated).read_bytes() == before


def test_index_verify_calls_a_state_of_other_code_by_its_bytes_incompatible_and_leaves_it(populated, monkeypatch):
    monkeypatch.setattr(statedb, "CONTENT_FROM", 1)
    _db(populated).unlink()
    _recall(populated)
    before = _db(populated).read_bytes()
    monkeypatch.setattr(statedb, "_checker", "another verification code or library")
    monkeypatch.setattr(statedb, "content", lambda: "other derivation code")
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index incompatible: memory state was written by another version "
                                  "or installation of git-hn; git hn memory index rebuild replaces it\n")
    assert _db(populated).read_bytes() == before
    assert hn(populated, "memory", "index", "rebuild").code == 0  # as the line says
    assert hn(populated, "memory", "index", "verify").code == 0


def test_index_verify_in_a_copied_repository_names_the_copy_and_the_way_out(populated, tmp_path):
    """A trial: a clone copied with ``cp -a`` (or restored from a backup) has a state whose seal
    names another file (inode, change time), which ``verify`` blamed on an interrupted write."""
    _recall(populated)
    copy = tmp_path / "copy"
    shutil.copytree(populated, copy, symlinks=True)  # ``cp -a``: modes and times kept
    r = hn(copy, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index corrupt: memory state is unsealed: a write of it was "
                                  "interrupted, it was changed after it was written, or the repository was "
                                  "copied or moved; git hn memory index rebuild, or any read (git hn memory recall), "
                                  "replaces it\n")
    assert hn(copy, "memory", "index", "rebuild").code == 0
    assert hn(copy, "memory", "index", "verify").code == 0


def test_new_record_and_policy_change_are_followed(populated):
    new = _rec(populated, "brand new memory")
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


def _random_requests(head, parent):
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


def test_state_answers_equal_full_projection(populated):
    head = git(populated, "rev-parse", "HEAD")
    git(populated, "commit", "-q", "--allow-empty", "-m", "child")
    parent = head
    head = git(populated, "rev-parse", "HEAD")
    repo = open_repo(str(populated))
    for req in _random_requests(head, parent):
        try:
            expected = recall_service.recall_full(repo, req)
        except Exception as exc:  # noqa: BLE001 - the same error must come from the state path
            with pytest.raises(type(exc)) as err:
                recall_service.recall(repo, req)
            assert str(err.value) == str(exc)
            continue
        assert recall_service.recall(repo, req) == expected, req
    repo.close()


def test_order_is_right_when_the_query_commit_changes_applicability(tmp_path):
    """Row order must not depend on applicability at HEAD."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init").code == 0
    base = git(repo, "rev-parse", "HEAD")
    old = _rec(repo, "old descendants memory")
    git(repo, "commit", "-q", "--allow-empty", "-m", "child")
    new = _rec(repo, "new descendants memory")
    git(repo, "checkout", "-q", base)
    newest = _rec(repo, "newest exact memory at base", applies="exact")
    git(repo, "checkout", "-q", "main")
    ro = open_repo(str(repo))
    req = core_recall.RecallRequest(at_commit=base, include_untrusted=True)
    via_state = recall_service.recall(ro, req)
    assert via_state == recall_service.recall_full(ro, req)
    assert [m["id"] for m in via_state["memories"]] == [newest, old]
    assert new not in [m["id"] for m in via_state["memories"]]
    ro.close()


def test_a_failed_export_write_keeps_the_previous_export(populated, monkeypatch):
    assert hn(populated, "memory", "index", "rebuild").code == 0
    good = _index(populated).read_bytes()
    import git_hn.store.private as private

    real_rename = os.rename

    def failing_rename(src, dst, *a, **k):
        if str(dst).endswith("index-v0.json"):
            raise OSError(28, "No space left on device")
        return real_rename(src, dst, *a, **k)

    monkeypatch.setattr(private.os, "rename", failing_rename)
    r = hn(populated, "memory", "index", "rebuild")
    assert r.code == 1 and "cannot be written" in r.err
    assert _index(populated).read_bytes() == good
    assert [p.name for p in _index(populated).parent.iterdir() if p.name.startswith(".hn-private-")] == []


def test_an_export_over_its_size_bound_is_omitted(populated):
    """§8.1 bounds index-v0.json at 256 MiB (here lowered through the testing switch): a rebuild
    that would exceed it omits that file (and removes a stale one) and says so; the state answers
    as always."""
    reference = _recall(populated)
    assert hn(populated, "memory", "index", "rebuild").code == 0
    size = _index(populated).stat().st_size
    env = {"HN_INTERNAL_TESTING": "1", "HN_TEST_INDEX_MAX_BYTES": str(size - 1)}
    r = hn_proc(populated, "memory", "index", "rebuild", env=env)
    assert r.code == 0, r.err
    assert r.out.splitlines()[1] == ("index-v0.json omitted: it would exceed its size bound "
                                     "(CONTRACT §8.1); recall is served from the verified state")
    assert not _index(populated).exists()
    assert hn_proc(populated, "memory", "index", "verify", env=env).code == 0
    assert _recall(populated) == reference
    at_bound = dict(env, HN_TEST_INDEX_MAX_BYTES=str(size))  # exactly at the bound: written
    assert hn_proc(populated, "memory", "index", "rebuild", env=at_bound).out.count("\n") == 1
    assert _index(populated).stat().st_size == size
    # without the testing switch the variable has no effect
    assert hn_proc(populated, "memory", "index", "rebuild",
                   env={"HN_TEST_INDEX_MAX_BYTES": "1"}).out.count("\n") == 1


def test_state_is_served_from_a_path_with_uri_characters(tmp_path):
    """The state is opened through an SQLite URI; ``?``, ``#`` and ``%`` in the repository
    path must not change which file is opened (a wrong file would be rebuilt on every call)."""
    repo = make_repo(tmp_path / "a?b#c%41d")
    assert hn(repo, "init").code == 0
    memory = _rec(repo, "path with URI characters")
    first = _recall(repo)
    inode = _db(repo).stat().st_ino
    assert _recall(repo) == first and memory in first
    assert _db(repo).stat().st_ino == inode  # served, not rebuilt


def _state_tamper_cases(repo):
    db, seal = _db(repo), _seal(repo)
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

    def edit(sql):
        def go():
            conn = sqlite3.connect(db)
            conn.executescript(sql)
            conn.commit()
            conn.close()
        return go

    def truncated():
        with open(db, "r+b") as fh:
            fh.truncate(db.stat().st_size // 2)

    return [
        ("database mode", lambda: os.chmod(db, 0o644)),
        ("symlinked database", symlink(db)),
        ("fifo database", replace_with(lambda: os.mkfifo(db, 0o600))),
        ("directory database", replace_with(lambda: db.mkdir(mode=0o700))),
        ("garbage database", lambda: db.write_bytes(b"not a database at all" * 100)),
        ("truncated database", truncated),
        ("edited row", edit("UPDATE rows SET lifecycle = 'retracted';")),
        ("swapped tip", edit("UPDATE sources SET head = (SELECT \"commit\" FROM chain WHERE seq = 1);")),
        ("wrong version", edit("UPDATE meta SET value = '0' WHERE key = 'version';")),
        ("seal missing", lambda: seal.unlink()),
        ("seal mode", lambda: os.chmod(seal, 0o644)),
        ("symlinked seal", symlink(seal)),
        ("seal of another file", lambda: seal.write_text("1:2:3:4:5\n")),
    ]


@pytest.mark.parametrize("case", range(13))
def test_unsafe_or_damaged_state_is_refused_then_rebuilt(populated, case):
    """The state fails closed like the index (§8.5): never followed, never served; the answer
    is a rebuild's, and safe files are left behind."""
    reference = _recall(populated)
    name, tamper = _state_tamper_cases(populated)[case]
    tamper()
    assert hn(populated, "memory", "index", "verify").code == 1, name
    before = refs_snapshot(populated)
    outside = populated.parent / "outside.sqlite"
    target = outside.read_bytes() if outside.exists() else None
    assert _recall(populated) == reference, name
    assert refs_snapshot(populated) == before
    # a symlink's target is neither followed for writing nor removed
    assert (outside.read_bytes() if outside.exists() else None) == target, name
    for path in (_db(populated), _seal(populated)):
        st = os.lstat(path)
        assert not path.is_symlink() and path.is_file(), name
        assert oct(st.st_mode & 0o777) == "0o600", name
    assert hn(populated, "memory", "index", "verify").code == 0, name


def test_large_queries_and_pages_are_served(populated, monkeypatch):
    """Terms beyond those matched with instr(), and pages beyond one SQL chunk, give the full
    projection's answer (SQLite's expression depth and variable count are bounded)."""
    from git_hn.service import rows as select
    from git_hn.store import state

    repo = open_repo(str(populated))
    monkeypatch.setattr(select, "SQL_TERMS", 1)
    monkeypatch.setattr(state, "CHUNK", 2)
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


def test_a_state_that_cannot_be_written_warns_and_still_answers(populated):
    """A full disk (here a file-size limit) while writing the state: read commands answer from
    a full verification with one warning line; ``index rebuild`` fails with one clean line;
    nothing temporary is left behind, and a later rebuild works."""
    reference = _recall(populated)
    for path in (_db(populated), _seal(populated)):
        path.unlink()
    p = hn_file_limited(populated, 3000, "memory", "recall", "--json", "--include-untrusted",
                        "--lifecycle", "all")
    assert p.code == 0 and p.out == reference
    assert p.err.startswith("git-hn: warning: memory index removed: ") and p.err.count("\n") == 1
    p = hn_file_limited(populated, 3000, "memory", "index", "rebuild")
    assert p.code == 1 and p.err.startswith("git-hn: memory index could not be written: ")
    assert p.err.count("\n") == 1 and "internal error" not in p.err
    mem = populated / ".git" / "hn" / "memory"
    assert [n for n in os.listdir(mem) if n.startswith(".hn-private-")] == []
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0


def test_a_rebuild_that_cannot_be_written_leaves_the_prior_state(populated):
    """CONTRACT §8.1/§8.4: a failed write leaves the prior index intact. An audit's full disk
    (here a file-size limit) made ``index rebuild`` fail after deleting the state and its seal;
    the new state is now built beside them and renamed over them only once complete."""
    _recall(populated)
    assert hn(populated, "memory", "index", "rebuild").code == 0  # (an export too)
    mem = populated / ".git" / "hn" / "memory"
    before = {p.name: p.read_bytes() for p in mem.iterdir()}
    assert {statedb.NAME, statedb.SEAL, "index-v0.json"} <= set(before)
    p = hn_file_limited(populated, 4096, "memory", "index", "rebuild")
    assert p.code == 1 and p.err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in mem.iterdir()} == before
    assert p.err == ("git-hn: memory index could not be written: disk I/O error; check the free disk space and "
                     "the file-size limit (ulimit -f)\n")
    r = hn(populated, "memory", "index", "verify")  # (the state kept is still the sealed, verified one)
    assert r.code == 0, r.err


def test_a_write_that_cannot_update_the_state_says_it_was_removed_once(populated):
    """CONTRACT §8.4: when a command that moved memory refs cannot bring the state along, the
    state is deleted with one ``memory index removed`` warning, and the exit status stays. An
    audit: under a file-size limit ``record`` deleted it silently, and ``memory log`` (which
    answers from the state twice) said the warning twice."""
    _recall(populated)
    assert _db(populated).exists() and _seal(populated).exists()
    p = hn_file_limited(populated, 4096, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies",
                        "descendants", "--content", "recorded on a full disk")
    assert p.code == 0 and p.out.startswith("Memory: sha256:")
    warning = ("git-hn: warning: memory index removed: disk I/O error; check the free disk space and the file-size "
               "limit (ulimit -f)")
    assert [line for line in p.err.splitlines() if "warning" in line] == [warning]
    assert not _db(populated).exists() and not _seal(populated).exists()
    for args in (("memory", "log"), ("memory", "recall", "--include-untrusted", "--query", "isolation")):
        p = hn_file_limited(populated, 4096, *args)
        assert p.code == 0 and p.out
        assert [line for line in p.err.splitlines() if "warning" in line] == [warning], args
    assert "recorded on a full disk" in hn(populated, "memory", "log").out  # (rebuilt once it can be)
    assert _seal(populated).exists()


def test_a_killed_builds_temporary_files_are_swept(populated):
    mem = populated / ".git" / "hn" / "memory"
    old, young = mem / ".hn-private-0123456789abcdef.sqlite", mem / ".hn-private-fedcba9876543210"
    for path in (old, young):
        path.write_bytes(b"partial")
    past = os.stat(old).st_mtime - private.STALE_TEMPORARY - 60
    os.utime(old, (past, past))
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert not old.exists() and young.exists()  # a concurrent write's file is left alone


def test_verify_compares_the_state_with_a_rebuild(populated):
    """An edit that keeps the file's seal (a deliberate editor rewrites it too) is still found by
    ``verify``, which re-derives every table; without the seal, the edit is named as such."""
    _recall(populated)
    conn = sqlite3.connect(_db(populated))
    conn.execute("DELETE FROM rows WHERE kind = 'verification'")
    conn.commit()
    conn.close()
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index corrupt: memory state is unsealed: a write of it "
                                  "was interrupted, it was changed after it was written, or the repository was "
                                  "copied or moved; git hn memory index rebuild, or any read (git hn memory recall), "
                                  "replaces it\n")
    repo = open_repo(str(populated))
    statedb.write_seal(repo)
    repo.close()
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index corrupt: memory state differs from a rebuild; git hn "
                                  "memory index rebuild replaces it\n")
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0


def test_verify_where_the_state_cannot_be_written_says_a_chmod_unsealed_it(populated):
    """A review (after 6794b0b): ``chmod -R a-w .git/hn`` changes the state's mode and change time,
    which unseals it, and verify said "corrupt … git hn memory index rebuild replaces it"; that
    rebuild then failed, read-only. Verify now says it cannot verify here, and what lets it (for
    root, whom modes do not stop, the state's directory is immutable too: ``read_only``). The state
    is still not served; once it can be written, the rebuild named replaces it."""
    from helpers import read_only

    _recall(populated)
    db, hn_dir = _db(populated), populated / ".git" / "hn"
    db.chmod(0o400)  # (what chmod -R a-w does to it: its mode, and so its change time)
    with read_only(hn_dir / "memory"):
        r = hn(populated, "memory", "index", "verify")
        assert (r.code, r.err) == (1, f"git-hn: memory index cannot be verified here: {hn_dir / 'memory'} cannot be "
                                      "written, and the memory state's permissions changed since git-hn sealed it (a "
                                      f"chmod), which unseals it; make it writable (chmod -R u+w {hn_dir}), then git "
                                      "hn memory index rebuild replaces it\n")
        db.chmod(0o600)  # (its bytes rewritten too: no sign that only a chmod changed it)
        db.write_bytes(db.read_bytes())
        db.chmod(0o400)
        r = hn(populated, "memory", "index", "verify")
        assert (r.code, r.err) == (1, "git-hn: memory index corrupt: memory state is unsealed: a write of it was "
                                      "interrupted, it was changed after it was written, or the repository was copied "
                                      f"or moved; make it writable (chmod -R u+w {hn_dir}), then git hn memory index "
                                      "rebuild replaces it\n")
    db.chmod(0o600)
    r = hn(populated, "memory", "index", "verify")
    assert r.code == 1 and r.err.endswith("; git hn memory index rebuild, or any read (git hn memory recall), "
                                          "replaces it\n"), r.err
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0


def _files(directory):
    """Every file and directory under ``directory``: its mode, and a file's bytes."""
    return {p.relative_to(directory).as_posix(): (p.stat().st_mode, p.is_file() and p.read_bytes())
            for p in sorted(directory.rglob("*"))}


@pytest.mark.parametrize("where", ["memory", "locks"])
def test_a_rebuild_where_the_state_cannot_be_written_names_the_directory_and_the_chmod(populated, where):
    """A review: with the state's directory (or, while the state's lock file does not exist, the
    locks' one) made read-only, ``index rebuild`` said only "a read-only file system, or another
    user's repository", though ``verify`` there names the chmod. It names the directory and the
    chmod, and changes nothing (for root, whom modes do not stop, the directory is immutable too:
    ``read_only``); made writable, the rebuild it names succeeds."""
    from helpers import read_only

    assert hn(populated, "memory", "index", "rebuild").code == 0
    hn_dir = populated / ".git" / "hn"
    if where == "locks":
        (hn_dir / "locks" / "state.lock").unlink()
    refs = refs_snapshot(populated)
    with read_only(hn_dir / where):
        before = _files(hn_dir)
        r = hn(populated, "memory", "index", "rebuild")
        assert (r.code, r.err) == (1, f"git-hn: memory index could not be written: {hn_dir / where} cannot be "
                                      f"written; make it writable (chmod -R u+w {hn_dir}), then run git hn memory "
                                      "index rebuild again\n")
        assert _files(hn_dir) == before and refs_snapshot(populated) == refs
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0


@pytest.mark.parametrize("which", ["rebuild", "verify"])
def test_a_read_only_private_directory_is_named_not_an_internal_message(populated, monkeypatch, which):
    """With ``.git/hn`` on a read-only file system, ``index rebuild|verify`` printed only
    "memory state cannot answer", a message meant never to reach the user. (The file system
    refuses the state's lock file here as a read-only mount refuses it: EROFS.)"""
    import errno

    from git_hn.errors import LocalStateError
    from git_hn.service import index as service

    real = os.open

    def read_only(path, flags, *args, **kw):
        if str(path).endswith("state.lock") and flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real(path, flags, *args, **kw)

    repo = open_repo(str(populated))
    monkeypatch.setattr(os, "open", read_only)
    if which == "verify":  # (f92, an audit: a shared lock needs no write access, so verify answers
        # when the lock file is there, opened read-only; it is not made on a read-only file system)
        assert service.verify(repo).count > 0
        (populated / ".git" / "hn" / "locks" / "state.lock").unlink()
    with pytest.raises(LocalStateError) as caught:
        getattr(service, which)(repo)
    hn_dir = str(populated / ".git" / "hn")
    assert caught.value.message == (
        f"memory index could not be written: {hn_dir} cannot be written here (a read-only file system, or "
        "another user's repository)" if which == "rebuild" else
        f"memory index cannot be verified: its lock in {hn_dir} cannot be taken here (a read-only file "
        "system, or another user's repository)")
    repo.close()


@pytest.mark.parametrize("races", [1, 3])
def test_a_rebuild_overtaken_by_a_record_never_leaves_a_stale_export(inited, monkeypatch, races):
    """A ``record`` that moves a memory ref after ``index rebuild`` listed the refs (it removes
    the export only after its ref moved, possibly before the rebuild writes it): the rebuild
    lists the refs again once its export is written and is done again, so ``index verify``
    passes afterwards. Overtaken on every attempt, it fails with one line and leaves no export.
    The records are real ones, run while the rebuild derives the state (``derive.load``)."""
    import subprocess

    from git_hn.service import index as index_service
    from git_hn.store import derive
    import sys
    from pathlib import Path

    git_hn = str(Path(sys.executable).parent / "git-hn")
    for n in range(3):
        record_id(inited, content=f"before {n}")
    load, raced = derive.load, []

    def load_then_race(repo, conn, listing, *args, **kwargs):
        out = load(repo, conn, listing, *args, **kwargs)
        if len(raced) < races:  # a record during each of the first ``races`` attempts
            raced.append(subprocess.run([git_hn, "memory", "record", "--kind", "observation", "--at", "HEAD",
                                         "--applies", "descendants", "--content", f"raced {len(raced)}"], cwd=inited,
                                        capture_output=True).returncode)
        return out

    monkeypatch.setattr(derive, "load", load_then_race)
    from git_hn.errors import ConflictError

    if races == 3:
        with pytest.raises(ConflictError, match="overtaken by 3 writes"):
            index_service.rebuild(open_repo(str(inited)))
        assert not (inited / ".git" / "hn" / "memory" / "index-v0.json").exists()
        return
    built = index_service.rebuild(open_repo(str(inited)))
    monkeypatch.undo()
    r = hn(inited, "memory", "index", "verify")
    assert r.code == 0, r.err
    assert raced == [0] and built.count == 4


def _plant_side_files(db, outside):
    """A directory, a symlink to a file outside and a stray file where SQLite's side files go."""
    (db.parent / (db.name + "-journal")).mkdir()
    (db.parent / (db.name + "-journal") / "inner").write_text("x\n")
    (db.parent / (db.name + "-wal")).symlink_to(outside)
    (db.parent / (db.name + "-shm")).write_bytes(b"stale")


def test_a_rebuild_and_a_discard_take_every_side_file_away_and_follow_no_link(populated, tmp_path):
    """Guard, not made to fail by the change it came with (a reread: ``state_replace._clear``, before
    a rebuilt state is renamed in, and ``discard`` walked the same files each its own way, and
    now share ``_remove``): whatever stands where SQLite's journal, log and shared-memory files
    go, a directory, a symlink or a stray file, is taken away by both, and a symlink's target
    outside is never touched (*symlink redirection*)."""
    outside = tmp_path / "outside"
    outside.write_text("keep\n")
    db = _db(populated)
    before = _recall(populated)
    _plant_side_files(db, outside)
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert not [n for n in ("-journal", "-wal", "-shm") if os.path.lexists(f"{db}{n}")]
    assert outside.read_text() == "keep\n" and _recall(populated) == before
    _plant_side_files(db, outside)
    state_replace.discard(open_repo(str(populated)))
    assert not [n for n in ("", "-journal", "-wal", "-shm") if os.path.lexists(f"{db}{n}")]
    assert not os.path.lexists(_seal(populated))
    assert outside.read_text() == "keep\n" and _recall(populated) == before


def test_verify_in_a_copied_repository_names_the_read_or_rebuild_that_replaces_the_state(populated, tmp_path):
    """A trial (ncS94, finding 6): in a ``cp -a`` copy of a clone (a CI cache restored, say) the
    state's seal no longer matches (another inode), and verify said "corrupt" with only the
    rebuild as a way out, while every read quietly rebuilt it. Verify still reports it (it is a
    check), in the contract's words, and names both ways out; after a read it passes."""
    _recall(populated)
    copy = tmp_path / "copy"
    shutil.copytree(populated, copy, symlinks=True)
    r = hn(copy, "memory", "index", "verify")
    assert r.code == 1 and r.err.startswith("git-hn: memory index corrupt: memory state is unsealed: "), r.err
    assert r.err.endswith("; git hn memory index rebuild, or any read (git hn memory recall), replaces it\n"), r.err
    _recall(copy)
    assert hn(copy, "memory", "index", "verify").code == 0


def test_verify_after_refs_changed_outside_git_hn_says_what_brings_it_up_to_date(populated):
    """The same trial: after ``git update-ref -d`` of a stream, verify said only "memory index
    stale: source or policy changed" (§8.6's words, kept), with no way out; the next read caught
    the state up. With the export present, no read rewrites it: only the rebuild is named."""
    _recall(populated)
    ref = git(populated, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    tip = git(populated, "rev-parse", ref)
    git(populated, "update-ref", "-d", ref)
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, "git-hn: memory index stale: source or policy changed; git hn memory index "
                                  "rebuild, or any read (git hn memory recall), replaces it\n")
    _recall(populated)
    assert hn(populated, "memory", "index", "verify").code == 0
    git(populated, "update-ref", ref, tip)  # (put back: the next read catches up again)
    assert hn(populated, "memory", "index", "rebuild").code == 0 and _index(populated).exists()
    git(populated, "update-ref", "-d", ref)
    for _ in range(2):  # (a read catches the state up and leaves the export: verify says so again)
        r = hn(populated, "memory", "index", "verify")
        assert (r.code, r.err) == (1, "git-hn: memory index stale: source or policy changed; git hn memory "
                                      "index rebuild replaces it\n")
        _recall(populated)
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert hn(populated, "memory", "index", "verify").code == 0


def test_verify_of_an_export_it_refuses_says_what_replaces_it(populated):
    """A trial (f105): after ``chmod -R a-w .git/hn`` verify said only "index-v0.json has unsafe
    permissions". Each refusal of the export now ends with what lets a rebuild replace it, and the
    rebuild named; ``hn`` itself, which no rebuild changes, is named with its §2.3 chmod."""
    from helpers import read_only

    assert hn(populated, "memory", "index", "rebuild").code == 0
    index, hn_dir = _index(populated), populated / ".git" / "hn"
    index.chmod(0o400)  # (what chmod -R a-w does to it)
    with read_only(hn_dir / "memory"):
        r = hn(populated, "memory", "index", "verify")
        assert (r.code, r.err) == (1, f"git-hn: memory index corrupt: {index} has unsafe permissions; make it writable "
                                      f"(chmod -R u+w {hn_dir}), then git hn memory index rebuild replaces it\n")
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, f"git-hn: memory index corrupt: {index} has unsafe permissions; git hn memory "
                                  "index rebuild replaces it\n")
    index.unlink()
    index.symlink_to(populated / "README.md")
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, f"git-hn: memory index corrupt: {index} is a symbolic link; git hn memory index "
                                  "rebuild replaces it\n")
    (hn_dir / "memory").chmod(0o750)
    r = hn(populated, "memory", "index", "verify")
    assert (r.code, r.err) == (1, f"git-hn: memory index corrupt: {hn_dir / 'memory'} has unsafe permissions; git hn "
                                  "memory index rebuild repairs it\n")
    hn_dir.chmod(0o750)
    r = hn(populated, "memory", "index", "verify")
    assert r.code == 1 and r.err.endswith(f"it has 0750): chmod 700 {hn_dir}\n"), r.err
    hn_dir.chmod(0o700)
    assert hn(populated, "memory", "index", "rebuild").code == 0
    assert oct((hn_dir / "memory").stat().st_mode & 0o777) == "0o700" and not index.is_symlink()
    assert hn(populated, "memory", "index", "verify").code == 0
