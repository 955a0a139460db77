"""Foundation behaviours that were implemented but untested, on real repositories.

Each section pins one rule that a reviewer could remove without any other test failing:

1. Verify before parse (CONTRACT §4.2 step 5, §11(e)): an unsigned payload that is also
   malformed or non-canonical reports ``invalid memory signature``, never a JSON error; the same
   bytes *signed* report the JSON error, which shows that the order, not the bytes, decides.
   Checked through collection (``show``, ``recall``), through an accepted source, through the
   append path (``record`` re-reads the head) and on ``core.chain.check_memory``.
2. The advisory stream lock (§2.2, §11(b)): its path and modes, a writer that queues behind a
   held lock, and the ``memory stream <ref> is busy; retry`` failure after the 10 s wait.
3. Stream agreement (§4.2 step 6): a validly signed memory under another stream's ref.
4. Tree shape (§4.2 step 2): a memory tree with one entry.
5. Size bounds at limit-1 / limit / limit+1 (§1.1, §4.2 step 3, §2.3): the ``signature`` blob,
   the ``memory.json`` blob and the 65,536-byte private file.
6. Keyring safety (§2.3): a 0755 keyring directory and an ``active`` path that is a directory.
7. ``memory handoff --input FILE --applies MODE`` fills an absent applicability mode (§10.2).

Attacks are planted with plain Git plumbing (``hash-object``, ``mktree``, ``commit-tree``,
``update-ref``) and signed, where a test needs a valid signature, with ``cryptography`` directly,
as ``tests/adversarial/test_tampered_streams.py`` does. Nothing is mocked.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import time

import pytest

from git_hn.core import chain
from git_hn.core.limits import LIMITS
from git_hn.errors import ConflictError, ValidationError
from git_hn.store.lock import stream_lock
from helpers import actor_of, git, hn, hn_proc, record_id, refs_snapshot, unhinted, without_way_out
from helpers import forged_commit as _commit, read_blob as _blob, tree_entries as _entries, write_blob as _write
from independent import b64, unb64

RECORD = ("memory", "record", "--json", "--kind", "decision", "--at", "HEAD", "--applies",
          "descendants", "--content")


# ---------------------------------------------------------------------------------------------
# Plumbing helpers


def _ref(repo) -> str:
    """The only local memory ref (the default stream of the active identity)."""
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory").splitlines()
    assert len(refs) == 1, refs
    return refs[0]


def _head(repo) -> str:
    return git(repo, "rev-parse", _ref(repo))


def _head_payload(repo) -> tuple[bytes, bytes]:
    """(memory.json, signature) bytes of the local stream head."""
    entries = _entries(repo, _head(repo))
    return _blob(repo, entries["memory.json"]), _blob(repo, entries["signature"])


def _replace_head(repo, payload: bytes | None = None, signature: bytes | None = None,
                  tree_lines: str | None = None) -> str:
    """Replace the head commit of the local stream (same parents) and move the ref to it."""
    ref = _ref(repo)
    head = git(repo, "rev-parse", ref)
    entries = _entries(repo, head)
    m = _write(repo, payload) if payload is not None else entries["memory.json"]
    s = _write(repo, signature) if signature is not None else entries["signature"]
    if tree_lines is None:
        tree_lines = f"100644 blob {m}\tmemory.json\n100644 blob {s}\tsignature\n"
    parents = git(repo, "log", "-1", "--format=%P", head).split()
    commit = _commit(repo, tree_lines, parents)
    git(repo, "update-ref", ref, commit)
    return commit


def _sign(repo, payload: bytes) -> bytes:
    """A valid signature text over ``payload`` by the active identity (independent of git_hn)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    hn_dir = repo / ".git" / "hn"
    doc = json.loads((hn_dir / "identities" / f"{actor_of(repo)}.json").read_text())
    seed = unb64(doc["privateKey"])[:32]
    return b64(Ed25519PrivateKey.from_private_bytes(seed).sign(payload)).encode()


def _err(repo, *args) -> str:
    """The error line, less the way out an invalid memory ref's line ends with (``without_way_out``)."""
    r = hn(repo, *args)
    assert r.code == 1, r
    assert r.out == "", r
    return without_way_out(r.err)


def _source_error(ref: str, suffix: str) -> str:
    return f"git-hn: memory source {ref}: {suffix}\n"


# ---------------------------------------------------------------------------------------------
# 1. Verify before parse (§11(e))

# (label, how the stored payload is damaged, the error once the damaged bytes are validly signed)
DAMAGE = [
    ("truncated", lambda p: p[:-1], "invalid memory JSON"),
    ("trailing-value", lambda p: p + b"{}", "invalid memory JSON trailing data"),
    ("whitespace", lambda p: p[:1] + b" " + p[1:], "memory JSON is not canonical"),
    ("invalid-utf8", lambda p: p.replace(b'"second"', b'"sec\xffnd"'), "invalid memory JSON encoding"),
]


@pytest.mark.parametrize("label,damage,_signed_error", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_unsigned_malformed_payload_reports_signature_not_json(inited, label, damage, _signed_error):
    first = record_id(inited, content="first")
    record_id(inited, content="second")
    ref = _ref(inited)
    payload, signature = _head_payload(inited)
    damaged = damage(payload)
    assert damaged != payload and b'"publicKey":"' in damaged  # the key scan still succeeds
    commit = _replace_head(inited, payload=damaged, signature=signature)
    before = refs_snapshot(inited)
    expected = _source_error(ref, f"verify memory commit {commit}: invalid memory signature")
    # collection: show and recall read every stream
    assert _err(inited, "memory", "show", first) == expected
    assert _err(inited, "memory", "recall", "--json") == expected
    # append: record re-reads (and verifies) the local head before continuing it
    assert _err(inited, *RECORD, "third") == f"git-hn: read memory stream head {commit}: {expected[8:]}"
    assert refs_snapshot(inited) == before


@pytest.mark.parametrize("label,damage,signed_error", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_signed_malformed_payload_reports_the_json_error(inited, label, damage, signed_error):
    first = record_id(inited, content="first")
    record_id(inited, content="second")
    ref = _ref(inited)
    payload, _signature = _head_payload(inited)
    damaged = damage(payload)
    commit = _replace_head(inited, payload=damaged, signature=_sign(inited, damaged))
    expected = _source_error(ref, f"verify memory commit {commit}: {signed_error}")
    assert _err(inited, "memory", "show", first) == expected
    assert _err(inited, "memory", "recall", "--json") == expected


def test_unsigned_malformed_payload_in_an_accepted_source(inited):
    """The same order holds for an accepted copy (refs/hn/remotes/<remote>/memory/...)."""
    first = record_id(inited, content="first")
    record_id(inited, content="second")
    local = _ref(inited)
    payload, signature = _head_payload(inited)
    commit = _replace_head(inited, payload=payload[:-1], signature=signature)
    accepted = "refs/hn/remotes/origin/memory/" + local[len("refs/hn/memory/"):]
    git(inited, "update-ref", accepted, commit)
    git(inited, "update-ref", "-d", local)
    assert git(inited, "for-each-ref", "--format=%(refname)", "refs/hn") == accepted
    expected = _source_error(accepted, f"verify memory commit {commit}: invalid memory signature")
    assert _err(inited, "memory", "show", first) == expected


def test_check_memory_verifies_before_parsing(inited):
    """``core.chain.check_memory`` (the sequential form of the same checks) has the same order."""
    record_id(inited, content="second")
    head = _head(inited)
    payload, signature = _head_payload(inited)
    assert chain.check_memory(head, payload, signature).payload == payload
    for _label, damage, signed_error in DAMAGE:
        damaged = damage(payload)
        with pytest.raises(ValidationError) as unsigned:
            chain.check_memory(head, damaged, signature)
        assert unsigned.value.message == f"verify memory commit {head}: invalid memory signature"
        with pytest.raises(ValidationError) as signed:
            chain.check_memory(head, damaged, _sign(inited, damaged))
        assert signed.value.message == f"verify memory commit {head}: {signed_error}"


# ---------------------------------------------------------------------------------------------
# 2. The advisory stream lock (§2.2, §11(b))


def _lock_path(repo) -> str:
    ref = _ref(repo)
    actor, hexpart = ref.split("/")[3:5]
    return str(repo / ".git" / "hn" / "locks" / f"memory-{actor}-{hexpart}.lock")


class _Held:
    """An exclusive ``flock`` on the stream's lock file, taken the way lock.py takes it."""

    def __init__(self, path: str):
        self.fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BaseException:
            os.close(self.fd)
            raise

    def release(self) -> None:
        if self.fd >= 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1


def test_lock_file_path_and_modes_survive_records(inited):
    record_id(inited, content="first")
    path = _lock_path(inited)
    locks = os.path.dirname(path)
    assert sorted(os.listdir(locks)) == sorted([os.path.basename(path), "state.lock"])
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_size == 0
    assert stat.S_IMODE(os.lstat(locks).st_mode) == 0o700
    record_id(inited, content="second")
    again = os.lstat(path)  # never deleted or replaced: the same inode is locked by every writer
    assert (again.st_ino, again.st_dev, stat.S_IMODE(again.st_mode)) == (st.st_ino, st.st_dev, 0o600)
    assert sorted(os.listdir(locks)) == sorted([os.path.basename(path), "state.lock"])


def test_record_queues_behind_a_held_lock_then_succeeds(inited):
    record_id(inited, content="first")
    ref, head = _ref(inited), _head(inited)
    held = _Held(_lock_path(inited))
    try:
        proc = subprocess.Popen(["git", "hn", *RECORD, "queued"], cwd=inited,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(2.0)
        assert proc.poll() is None, proc.communicate()  # still waiting for the lock
        assert git(inited, "rev-parse", ref) == head  # nothing appended while the lock is held
    finally:
        held.release()
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, unhinted(err.decode())) == (0, "")
    mid = json.loads(out)["memoryId"]
    assert git(inited, "rev-parse", ref) != head
    assert git(inited, "log", "-1", "--format=%s", ref) == f"hn memory {mid}"


def test_record_reports_busy_after_the_lock_timeout(inited):
    record_id(inited, content="first")
    ref = _ref(inited)
    before = refs_snapshot(inited)
    held = _Held(_lock_path(inited))
    try:
        start = time.monotonic()
        r = hn_proc(inited, *RECORD, "never written", timeout=60)
        elapsed = time.monotonic() - start
    finally:
        held.release()
    assert (r.code, r.out, r.err) == (1, "", f"git-hn: memory stream {ref} is busy; retry\n")
    assert 10.0 <= elapsed < 30.0, elapsed  # §11(b): the writer waits (at most) 10 s
    assert refs_snapshot(inited) == before


def test_stream_lock_function_times_out_and_then_acquires(inited):
    record_id(inited, content="first")
    ref, path = _ref(inited), _lock_path(inited)
    hn_dir = str(inited / ".git" / "hn")
    held = _Held(path)
    try:
        with pytest.raises(ConflictError) as busy:
            with stream_lock(hn_dir, path, ref, timeout=0.2):
                pytest.fail("lock taken while another open file description holds it")
        assert busy.value.message == f"memory stream {ref} is busy; retry"
    finally:
        held.release()
    with stream_lock(hn_dir, path, ref, timeout=0.2):
        with pytest.raises(BlockingIOError):  # while held by stream_lock, others cannot lock
            _Held(path)


# ---------------------------------------------------------------------------------------------
# 3. Stream agreement (§4.2 step 6)


def test_signed_memory_under_another_stream_ref_is_refused(inited):
    mid = record_id(inited, content="only")
    ref, head = _ref(inited), _head(inited)
    actor, real = ref.split("/")[3:5]
    other = "e" * 64
    assert other != real
    forged = f"refs/hn/memory/{actor}/{other}"
    git(inited, "update-ref", forged, head)
    before = refs_snapshot(inited)
    expected = (f"git-hn: memory source {forged} commit {head} has stream sha256:{real}, "
                f"want sha256:{other}\n")
    assert _err(inited, "memory", "show", mid) == expected
    assert _err(inited, "memory", "recall", "--json") == expected
    assert refs_snapshot(inited) == before


# ---------------------------------------------------------------------------------------------
# 4. Tree shape (§4.2 step 2)


@pytest.mark.parametrize("keep", ["memory.json", "signature"])
def test_single_entry_memory_tree_is_refused(inited, keep):
    mid = record_id(inited, content="first")
    record_id(inited, content="second")
    ref = _ref(inited)
    oid = _entries(inited, _head(inited))[keep]
    commit = _replace_head(inited, tree_lines=f"100644 blob {oid}\t{keep}\n")
    before = refs_snapshot(inited)
    suffix = f"memory commit {commit} tree must contain exactly memory.json and signature"
    assert _err(inited, "memory", "show", mid) == _source_error(ref, suffix)
    assert _err(inited, *RECORD, "third") == \
        f"git-hn: read memory stream head {commit}: memory source {ref}: {suffix}\n"
    assert refs_snapshot(inited) == before


# ---------------------------------------------------------------------------------------------
# 5. Size bounds (§1.1, §4.2 step 3, §2.3)


def test_protocol_limits_have_the_contract_values():
    assert (LIMITS.max_memory_blob, LIMITS.max_signature_blob, LIMITS.max_private_file) == \
        (524_288, 128, 65_536)


@pytest.mark.parametrize("payload_size,signature_size,error", [
    (524_287, 128, None),
    (524_288, 128, None),
    (524_289, 128, "memory.json at memory commit c exceeds its bound"),
    (0, 127, None),
    (0, 129, "signature at memory commit c exceeds its bound"),
    (524_289, 129, "memory.json at memory commit c exceeds its bound"),
])
def test_check_sizes_boundaries(payload_size, signature_size, error):
    if error is None:
        assert chain.check_sizes("c", payload_size, signature_size) is None
    else:
        with pytest.raises(ValidationError) as exc:
            chain.check_sizes("c", payload_size, signature_size)
        assert exc.value.message == error


@pytest.mark.parametrize("size", [127, 128, 129])
def test_signature_blob_bound_through_show(inited, size):
    mid = record_id(inited, content="first")
    ref = _ref(inited)
    # "A" * n is canonical unpadded base64 for n = 127 and 128 (95 and 96 bytes, not 64)
    commit = _replace_head(inited, signature=b"A" * size)
    suffix = (f"signature at memory commit {commit} exceeds its bound" if size > 128
              else f"verify memory commit {commit}: invalid memory signature")
    assert _err(inited, "memory", "show", mid) == _source_error(ref, suffix)


@pytest.mark.parametrize("size", [524_287, 524_288, 524_289])
def test_memory_json_blob_bound_through_show(inited, size):
    """A validly signed payload padded with spaces: within the bound it is verified and parsed
    (so it fails only as non-canonical); one byte more and it is refused before any read."""
    mid = record_id(inited, content="first")
    ref = _ref(inited)
    payload, _signature = _head_payload(inited)
    padded = payload + b" " * (size - len(payload))
    assert len(padded) == size
    commit = _replace_head(inited, payload=padded, signature=_sign(inited, padded))
    suffix = (f"memory.json at memory commit {commit} exceeds its bound" if size > 524_288
              else f"verify memory commit {commit}: memory JSON is not canonical")
    assert _err(inited, "memory", "show", mid) == _source_error(ref, suffix)


@pytest.mark.parametrize("size", [65_535, 65_536, 65_537])
def test_identity_file_size_bound(inited, size):
    key = inited / ".git" / "hn" / "identities" / f"{actor_of(inited)}.json"
    good = key.read_bytes()
    with open(key, "ab") as fh:  # trailing whitespace keeps the JSON valid and the mode 0600
        fh.write(b"\n" * (size - len(good)))
    assert key.stat().st_size == size and stat.S_IMODE(key.stat().st_mode) == 0o600
    r = hn(inited, "identity", "show")
    if size <= 65_536:  # (its one hint: what the trust policy at HEAD says of the identity)
        assert r.code == 0 and r.err.startswith("git-hn: hint: trust: ") and r.err.count("\n") == 1, r
        assert r.out.splitlines()[1] == f"Actor:  {actor_of(inited)}"
    else:
        assert (r.code, r.out, r.err) == (1, "", f"git-hn: private identity file {key} is too large\n")
        before = refs_snapshot(inited)
        assert _err(inited, *RECORD, "x") == f"git-hn: private identity file {key} is too large\n"
        assert refs_snapshot(inited) == before


# ---------------------------------------------------------------------------------------------
# 6. Keyring safety (§2.3)


@pytest.mark.parametrize("which", ["hn", "hn/identities"])
def test_keyring_directory_with_mode_0755_is_refused(inited, which):
    directory = inited / ".git" / which
    os.chmod(directory, 0o755)
    before = refs_snapshot(inited)
    what = "git-hn's keyring" if which == "hn/identities" else \
        "git-hn's private directory (its keyring, state and caches)"
    expected = (f"git-hn: private identity directory {directory} has unsafe permissions; {what} must be "
                f"closed to group and others (mode 0700, or 0500 read-only; it has 0755): chmod 700 {directory}\n")
    assert _err(inited, "identity", "show") == expected
    assert _err(inited, *RECORD, "x") == expected
    assert refs_snapshot(inited) == before
    assert stat.S_IMODE(os.lstat(directory).st_mode) == 0o755  # refused, never silently fixed
    os.chmod(directory, 0o700)
    assert hn(inited, "identity", "show").code == 0


def test_active_path_that_is_a_directory_is_refused(inited):
    active = inited / ".git" / "hn" / "active"
    active.unlink()
    active.mkdir(mode=0o700)
    before = refs_snapshot(inited)
    expected = f"git-hn: private identity path {active} is not a regular file\n"
    assert _err(inited, "identity", "show") == expected
    assert _err(inited, *RECORD, "x") == expected
    assert refs_snapshot(inited) == before
    assert active.is_dir() and os.listdir(active) == []


# ---------------------------------------------------------------------------------------------
# 7. handoff --input fills an absent applicability mode from --applies (§10.2)

HANDOFF_REQUEST = {"version": 0, "kind": "handoff", "content": "handoff via input",
                   "topics": [], "evidence": [],
                   "handoff": {"completed": ["a"], "assumptions": [], "blockers": [],
                               "nextActions": ["b"]}}


@pytest.mark.parametrize("applicability", [None, {}, {"mode": ""}],
                         ids=["key-missing", "object-empty", "mode-empty"])
@pytest.mark.parametrize("mode", ["exact", "descendants"])
def test_handoff_input_takes_mode_from_applies(inited, tmp_path, applicability, mode):
    head = git(inited, "rev-parse", "HEAD")
    req = dict(HANDOFF_REQUEST)
    if applicability is not None:
        req["applicability"] = applicability
    f = tmp_path / "handoff.json"
    f.write_text(json.dumps(req))
    r = hn(inited, "memory", "handoff", "--input", str(f), "--json", "--at", "HEAD",
           "--applies", mode)
    assert r.code == 0, r.err
    out = r.json()
    assert out["anchor"]["commit"] == head
    assert git(inited, "log", "-1", "--format=%s", _ref(inited)) == f"hn memory {out['memoryId']}"
    envelope = json.loads(_blob(inited, _entries(inited, _head(inited))["memory.json"]))
    assert envelope["record"]["applicability"] == {"mode": mode}
    assert envelope["record"]["anchor"]["commit"] == head
    shown = hn(inited, "memory", "show", out["memoryId"], "--json").json()
    assert shown["projection"]["data"]["applicability"] == {"mode": mode}


def test_handoff_input_without_mode_or_applies_is_refused(inited, tmp_path):
    f = tmp_path / "handoff.json"
    f.write_text(json.dumps(HANDOFF_REQUEST))
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "handoff", "--input", str(f), "--json", "--at", "HEAD")
    assert (r.code, r.out, r.err) == (1, "", "git-hn: memory applicability mode is unsupported; valid: exact, "
                                             "descendants, subject\n")
    assert refs_snapshot(inited) == before
