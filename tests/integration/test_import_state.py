"""``memory import`` reads the stream it appends to from the verified state (issue 11, finding 1
of S102): the replay comparison gets the memories whose record fields may equal a draft's
(``View.alike``), not the whole stream re-read and re-verified. These tests hold it to the full
path's answers: the same replays (the same memory ID when a stream holds a draft twice), the
same refusals of an invalid stream, and a state behind the refs caught up first."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from helpers import actor_of, git, git_processes, hn, hn_proc, record_id, refs_snapshot
from independent import append_by_hand, unb64
from state_compare import compare

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import memgen  # noqa: E402


def _draft(commit: str, content: str, **extra) -> dict:
    doc = {"version": 0, "kind": "decision", "content": content, "anchor": {"commit": commit},
           "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
    doc.update(extra)
    return doc


def _write(path: Path, docs) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


def _ref(repo) -> str:
    return git(repo, "for-each-ref", "--format=%(refname)", f"refs/hn/memory/{actor_of(repo)}")


def _own_actor(repo) -> memgen.Actor:
    hn_dir = Path(repo) / ".git" / "hn"
    doc = json.loads((hn_dir / "identities" / f"{(hn_dir / 'active').read_text().strip()}.json").read_text())
    return memgen.Actor(unb64(doc["privateKey"])[:32], doc["name"])


def _by_hand(repo, content: str, **record) -> str:
    doc = {"kind": "decision", "content": content, "anchor": {"commit": git(repo, "rev-parse", "HEAD")},
           "applicability": {"mode": "descendants"}, "topics": [], "evidence": []}
    doc.update(record)
    return append_by_hand(repo, doc)


def _replays(repo, drafts_docs) -> tuple[dict, dict, int]:
    """What ``append_all``'s ``select`` is handed, as {replay key: memory ID} of the memories
    any draft equals, from the full read and from the state (nothing is appended: ``select``
    returns no draft), and how many memories the state path handed over."""
    from git_hn.core import export as core
    from git_hn.service.requests import request_from_input
    from git_hn.store import identity as identmod
    from git_hn.store.append import Draft, Position, append_all, build_envelope
    from git_hn.store.repo import open_repo

    r = open_repo(str(repo))
    try:
        ident = identmod.load_active(r)
        stream = f"sha256:{_ref(repo).rsplit('/', 1)[1]}"
        drafts = [Draft("record", stream, request_from_input(r, json.dumps(d).encode()).record) for d in drafts_docs]
        origin = Position("", "", 0, "", None)
        keys = {core.replay_key(build_envelope(ident, d, origin, "1970-01-01T00:00:00Z")) for d in drafts}
        got = {}

        def select(name):
            def pick(chain):
                got[name] = list(chain)
                return []
            return pick

        assert append_all(r, ident, stream, select("full")) == []
        assert append_all(r, ident, stream, select("state"), offered=drafts) == []
    finally:
        r.close()

    def matched(chain):
        existing = {core.replay_key(m.envelope): m.memory_id for m in chain}
        return {k: existing[k] for k in keys if k in existing}

    return matched(got["full"]), matched(got["state"]), len(got["state"])


def test_import_does_not_walk_the_stream_when_the_state_is_current(inited, tmp_path):
    """With the state current, an import reads no chain: no ``git log`` walks the stream (the
    full read lists a chain of 32 or more commits with one)."""
    head = git(inited, "rev-parse", "HEAD")
    memgen.write_streams(str(inited), dict(os.environ, HN_HOOK_ACTIVE="1"), [_own_actor(inited)], 40, head,
                         random.Random(3))
    assert hn(inited, "memory", "log").code == 0  # the state, current
    trace = tmp_path / "trace2"
    trace.mkdir()
    path = _write(tmp_path / "d.jsonl", [_draft(head, f"draft {i}") for i in range(3)])
    r = hn_proc(inited, "memory", "import", str(path), "--json", env={"GIT_TRACE2_EVENT": str(trace)})
    assert r.code == 0, r.err
    assert json.loads(r.out)["appended"] == 3
    started = git_processes(trace)
    assert not [argv for argv in started if "log" in argv], started
    assert git(inited, "rev-list", "--count", _ref(inited)) == "43"
    again = hn(inited, "memory", "import", str(path), "--json")
    assert again.json()["appended"] == 0 and all(m["replayed"] for m in again.json()["memories"])
    compare(inited)


def test_the_state_hands_select_the_same_replays_as_the_full_read(inited, tmp_path):
    """Drafts equal to memories of the stream (one recorded twice: the later is the one named,
    as the full read names it), to a memory only an accepted copy holds, and drafts that differ
    from one in a single field each: the state path finds exactly the full read's replays,
    handing over only the memories alike."""
    head = git(inited, "rev-parse", "HEAD")
    git(inited, "commit", "-q", "--allow-empty", "-m", "second")
    other = git(inited, "rev-parse", "HEAD")
    base = _draft(head, "Use canonical JSON", topics=["storage"], evidence=["git:" + head])
    record_id(inited, content="noise 1")
    _by_hand(inited, "Use canonical JSON", anchor={"commit": head}, topics=["storage"], evidence=["git:" + head])
    record_id(inited, content="noise 2")
    later = _by_hand(inited, "Use canonical JSON", anchor={"commit": head}, topics=["storage"], evidence=["git:" + head])
    # an accepted copy ahead of the local ref holds the last memory (a teammate's clone of it)
    local = git(inited, "rev-parse", _ref(inited))
    _by_hand(inited, "only the copy holds this", kind="observation")
    copy = _ref(inited).replace("refs/hn/memory/", "refs/hn/remotes/origin/memory/")
    git(inited, "update-ref", copy, git(inited, "rev-parse", _ref(inited)))
    git(inited, "update-ref", _ref(inited), local)
    assert hn(inited, "memory", "log").code == 0  # the state, current (the local ref was never past `local`)
    variants = [base, _draft(other, "only the copy holds this", kind="observation"),
                {**base, "kind": "observation"}, {**base, "content": "Use canonical JSON."},
                {**base, "topics": ["storage", "json"]}, {**base, "evidence": []},
                {**base, "anchor": {"commit": other}}, {**base, "applicability": {"mode": "exact"}},
                _draft(other, "noise 1"), _draft(other, "noise 2")]
    full, from_state, handed = _replays(inited, variants)
    assert full == from_state
    assert len(full) == 4 and handed == 5  # base (twice), the copy's memory, both noises
    named = hn(inited, "memory", "import", str(_write(tmp_path / "d.jsonl", variants)), "--json").json()
    assert [m["replayed"] for m in named["memories"]] == [True, True] + [False] * 6 + [True, True]
    assert named["memories"][0]["memoryId"] == later and later in full.values()
    compare(inited)


def test_a_state_behind_the_refs_is_caught_up_before_it_answers(inited, tmp_path):
    """A memory appended outside git-hn after the state was current is verified and compared
    like any other: a draft equal to it is a replay."""
    head = git(inited, "rev-parse", "HEAD")
    record_id(inited, content="first")
    assert hn(inited, "memory", "log").code == 0
    mid = _by_hand(inited, "appended by another tool")
    r = hn(inited, "memory", "import", str(_write(tmp_path / "d.jsonl", [_draft(head, "appended by another tool")])),
           "--json")
    assert r.code == 0, r.err
    assert r.json()["appended"] == 0 and r.json()["memories"][0]["memoryId"] == mid
    full, from_state, _handed = _replays(inited, [_draft(head, "appended by another tool")])
    assert full == from_state == {next(iter(full)): mid}


def test_an_invalid_stream_is_refused_with_the_full_reads_words(inited, tmp_path):
    """A commit on the stream whose signature does not verify: the state cannot take it, and
    the import says what the full read says, appending nothing. (A guard: the full read, the
    only one before the state path, refused it in the same words.)"""
    from git_hn.errors import ValidationError
    from git_hn.store import append as appendmod
    from git_hn.store import streams
    from git_hn.store.repo import open_repo

    head = git(inited, "rev-parse", "HEAD")
    record_id(inited, content="first")
    assert hn(inited, "memory", "log").code == 0
    ref = _ref(inited)
    tip = git(inited, "rev-parse", ref)
    payload = git(inited, "cat-file", "blob", f"{tip}:memory.json").replace("first", "forged")
    blob = git(inited, "hash-object", "-w", "--stdin", input=payload.encode())
    sig = git(inited, "rev-parse", f"{tip}:signature")
    tree = git(inited, "mktree", input=f"100644 blob {blob}\tmemory.json\n100644 blob {sig}\tsignature\n".encode())
    git(inited, "update-ref", ref, git(inited, "commit-tree", tree, "-m", "forged"), tip)
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "import", str(_write(tmp_path / "d.jsonl", [_draft(head, "a draft")])))
    repo = open_repo(str(inited))
    try:
        with pytest.raises(ValidationError) as full:
            appendmod._longest_chain(repo, streams.stream_sources(repo, actor_of(inited), f"sha256:{ref.rsplit('/', 1)[1]}"))
    finally:
        repo.close()
    assert r.code == 1 and r.err == f"git-hn: {full.value.message}\n"
    assert refs_snapshot(inited) == before


def test_an_import_after_the_stream_was_moved_back_outside_git_hn_signs_no_sequence_twice(inited, tmp_path):
    """The state saw the stream's tip; the ref was then moved back by hand. Like ``record``, the
    import refuses to sign the lost tip's sequence again (a fork of the stream) and says how to
    restore it; nothing is signed."""
    head = git(inited, "rev-parse", "HEAD")
    record_id(inited, content="m1")
    c1 = git(inited, "rev-parse", _ref(inited))
    record_id(inited, content="m2")
    assert hn(inited, "memory", "log").code == 0
    git(inited, "update-ref", _ref(inited), c1)
    before = refs_snapshot(inited)
    r = hn(inited, "memory", "import", str(_write(tmp_path / "d.jsonl", [_draft(head, "a draft")])))
    assert r.code == 1 and "lost 1 memory outside git-hn" in r.err and "nothing was signed" in r.err, r.err
    assert refs_snapshot(inited) == before
