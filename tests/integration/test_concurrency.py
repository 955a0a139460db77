"""Concurrent writers of one stream (CONTRACT §4.1, §11(b)): real processes, real Git."""

from __future__ import annotations

import os
import subprocess

import pytest

from git_hn.store.append import Draft, append
from git_hn.store.identity import load_active
from git_hn.store.repo import open_repo
from git_hn.core.envelope import Anchor, Applicability, Record
from git_hn.core.grammar import default_stream
from helpers import git, hn
from independent import Writer, unb64, verify_commit


def _foreign_append(repo, content):
    """Append with plain plumbing, as a writer the stream lock cannot see (another tool)."""
    import json

    hn_dir = repo / ".git" / "hn"
    actor = (hn_dir / "active").read_text()[:-1]
    doc = json.loads((hn_dir / "identities" / f"{actor}.json").read_text())
    w = Writer(unb64(doc["privateKey"])[:32], doc["name"])
    ref = f"refs/hn/memory/{w.actor}/{w.stream[7:]}"
    head = git(repo, "rev-parse", "--verify", "-q", ref, check=False)
    seq, prev = 1, ""
    if head:
        env = verify_commit(repo, head)
        seq, prev = env["sequence"] + 1, env["_id"]
    record = {"kind": "observation", "content": content, "anchor": {"commit": git(repo, "rev-parse", "HEAD")},
              "applicability": {"mode": "exact"}, "topics": [], "evidence": []}
    w.write(repo, w.envelope(seq, prev, "2026-01-01T00:00:00Z", record), parent=head)


def test_eight_concurrent_record_processes(inited):
    procs = [subprocess.Popen(["git", "hn", "memory", "record", "--kind", "observation", "--at", "HEAD",
                               "--applies", "exact", "--content", f"writer {i}", "--json"],
                              cwd=inited, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=dict(os.environ))
             for i in range(8)]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert all(code == 0 for code, _o, _e in results), results
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    commits = git(inited, "rev-list", "--reverse", ref).split()
    envs = [verify_commit(inited, c) for c in commits]
    assert [e["sequence"] for e in envs] == list(range(1, 9))
    assert sorted(e["record"]["content"] for e in envs) == sorted(f"writer {i}" for i in range(8))
    for prev, cur in zip(envs, envs[1:]):
        assert cur["previous"] == prev["_id"]
    # and git-hn's own full verification agrees
    assert hn(inited, "memory", "show", envs[-1]["_id"]).code == 0


def test_lost_race_is_retried_with_a_fresh_envelope(inited):
    """A writer that is overtaken between reading the head and its CAS re-signs and succeeds."""
    repo = open_repo(str(inited))
    ident = load_active(repo)
    head = git(inited, "rev-parse", "HEAD")
    record = Record("observation", "racer", Anchor(head), Applicability("exact"), (), ())
    calls = []

    def overtaking_check(pos):
        calls.append(pos.sequence)
        if len(calls) == 1:  # another writer appends right after we read the head
            _foreign_append(inited, "overtaker")

    result = append(repo, ident, Draft("record", default_stream(ident.actor), record),
                    check=overtaking_check)
    assert calls == [0, 1]
    assert result.envelope.sequence == 2
    ref = git(inited, "for-each-ref", "--format=%(refname)", "refs/hn/memory")
    envs = [verify_commit(inited, c) for c in git(inited, "rev-list", "--reverse", ref).split()]
    assert [e["record"]["content"] for e in envs] == ["overtaker", "racer"]
    repo.close()


def test_exhausted_retries_report_the_contract_message(inited):
    repo = open_repo(str(inited))
    ident = load_active(repo)
    head = git(inited, "rev-parse", "HEAD")
    record = Record("observation", "loser", Anchor(head), Applicability("exact"), (), ())
    attempts = []

    def always_overtaken(pos):
        attempts.append(pos.sequence)
        _foreign_append(inited, f"overtaker {len(attempts)}")

    import pytest

    from git_hn.errors import ConflictError

    stream = default_stream(ident.actor)
    with pytest.raises(ConflictError) as err:
        append(repo, ident, Draft("record", stream, record), check=always_overtaken)
    ref = f"refs/hn/memory/{ident.actor}/{stream[7:]}"
    assert err.value.message == (f"append memory stream {ref}: compare-and-swap failed; reload and "
                                 "retry with a newly signed envelope")
    assert len(attempts) == 4
    contents = [verify_commit(inited, c)["record"]["content"]
                for c in git(inited, "rev-list", "--reverse", ref).split()]
    assert contents == [f"overtaker {i}" for i in range(1, 5)]
    repo.close()


def _held_target_race(inited, argv):
    """Run ``git hn memory <argv>`` (stream label:agent-a) on a fresh memory while this test holds
    that memory's lifecycle lock, as a process of another stream that has passed its checks and
    not yet moved its ref does; the test appends that process's memory (``operation``, default
    stream) after giving the command time to finish if it does not wait, then lets go. Returns
    (the command's result, the target, the memory's projection)."""
    import json
    import time

    from git_hn.store.lock import stream_lock, target_lock_path

    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "target", "--json")
    target = json.loads(r.out)["memoryId"]
    repo = open_repo(str(inited))
    ident = load_active(repo)
    op = argv[0]
    with stream_lock(repo.hn_dir, target_lock_path(repo.hn_dir, target), target):
        proc = subprocess.Popen(["git", "hn", "memory", op, target, *argv[1:], "--stream", "label:agent-a",
                                 "--json"], cwd=inited, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 2.0  # (a command that does not wait has long finished by then)
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if op == "supersede":
            from git_hn.service.lifecycle import target_memory

            rec = target_memory(repo, target).envelope.record._replace(content="fix B")
            draft = Draft("supersede", default_stream(ident.actor), rec, target=target)
        else:
            draft = Draft("retract", default_stream(ident.actor), None, target=target, reason="wrong")
        append(repo, ident, draft)
    out, err = proc.communicate(timeout=60)
    repo.close()
    shown = json.loads(hn(inited, "memory", "show", target, "--json").out)["projection"]
    return (proc.returncode, out.decode(), err.decode()), target, shown


def test_two_streams_superseding_one_memory_do_not_branch_it(inited):
    """A race of two agents of one clone, a stream each (as they are told): both found no
    successor and both signed one, so the memory was ``branching`` for good, unsaid. The second
    now waits for the first's ref update and is refused with the latest successor's name."""
    (code, out, err), target, shown = _held_target_race(inited, ["supersede", "--content", "fix A"])
    assert code == 1 and out == "", (out, err)
    assert f"is already superseded (latest: {shown['successors'][0]})" in err
    assert (shown["lifecycle"], len(shown["successors"])) == ("superseded", 1)


def test_two_streams_retracting_one_memory_retract_it_once(inited):
    (code, out, err), target, shown = _held_target_race(inited, ["retract", "--reason", "wrong"])
    assert code == 0, err
    import json

    assert json.loads(out)["alreadyRetracted"] is True
    assert shown["lifecycle"] == "retracted"


def _loose_objects(repo) -> int:
    return int(git(repo, "count-objects").split()[0])


@pytest.mark.parametrize("operation", ["record", "retract", "supersede"])
def test_a_ref_git_cannot_write_is_no_lost_race(inited, operation):
    """An audit: with ``.git/refs`` read-only, record, retract and supersede said "compare-and-swap
    failed; reload and retry", after signing four times and leaving 16 loose objects. Git's refusal
    for another reason than a moved ref is said at once, in Git's words, and nothing is retried.
    The trigger works as root too: a directory (holding a file no ref listing shows) where the
    new stream's ref file must go."""
    import json

    from git_hn.core.grammar import labelled_stream

    r = hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
           "--content", "the target", "--json")
    target = json.loads(r.out)["memoryId"]
    actor = load_active(open_repo(str(inited))).actor
    ref = f"refs/hn/memory/{actor}/{labelled_stream(actor, 'blocked')[7:]}"
    (inited / ".git" / ref).mkdir(parents=True)
    (inited / ".git" / ref / "x.lock").write_bytes(b"")
    refs = git(inited, "for-each-ref")
    loose = _loose_objects(inited)
    argv = {"record": ["record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants", "--content", "hi"],
            "retract": ["retract", target, "--reason", "wrong"],
            "supersede": ["supersede", target, "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                          "--content", "newer"]}[operation]
    r = hn(inited, "memory", *argv, "--stream", "label:blocked")
    assert (r.code, r.out) == (1, "")
    assert "compare-and-swap" not in r.err and r.err.count("\n") == 1
    assert _loose_objects(inited) - loose <= 4  # (one attempt's objects: the commit, its tree, two blobs)
    assert r.err == (f"git-hn: append memory stream {ref}: Git cannot write the ref: there is a non-empty directory "
                     f"'.git/{ref}' blocking reference; nothing was recorded: fix that, then run the command again\n")
    assert git(inited, "for-each-ref") == refs
