"""An own stream ref deleted or moved back outside git-hn (``store.rewound``, docs/decisions.md).

A trial (ncS94, finding 1): ``git update-ref -d refs/hn/memory/<you>/<stream>``, a ``git
update-ref`` to an older commit of the stream, or a forced ``git fetch origin
'+refs/hn/memory/*:refs/hn/memory/*'`` took the user's unpublished memories out of every read
without a word (``Matched: 0``, ``no memory here yet``), and the next ``record`` signed a new
memory at a sequence the key had signed already: an equivocation every other clone sees as a
fork. Memory refs keep no reflog, so after ``git gc --prune=now`` they were gone for good.
Real repositories, real Git, a real bare remote, the installed hook wrappers.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import actor_of, git, hn, make_repo, record_id, refs_snapshot, shared_remote


def _setup(tmp_path, n: int = 2):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    ids = [record_id(repo, content=f"note {i}") for i in range(n)]
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    return repo, ids, ref, git(repo, "rev-parse", ref)


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "outside git-hn" in line]


def _record(repo, content="after the loss", *extra):
    return hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", content, *extra)


def test_a_deleted_own_stream_ref_is_said_by_every_read_and_refuses_the_same_sequence(tmp_path):
    repo, ids, ref, tip = _setup(tmp_path)
    assert hn(repo, "memory", "recall").code == 0  # (the state knows the tip)
    git(repo, "update-ref", "-d", ref)
    restore = f"git update-ref {ref} {tip} restores it"
    for args in (("memory", "recall"), ("memory", "recall", "--json"), ("memory", "brief"),
                 ("memory", "brief", "--json"), ("memory", "log")):
        r = hn(repo, *args)
        assert r.code == 0, (args, r.err)
        [line] = _warnings(r.err)  # once per command
        assert line.startswith("git-hn: warning: your memory stream ") and "lost 2 memories" in line, line
        assert line.endswith(restore), line
    doc = hn(repo, "memory", "recall", "--json").json()  # --json stdout is the contract's document
    assert doc["matched"] == 0
    # show of a lost ID: the one error line says where it may have gone
    shown = hn(repo, "memory", "show", ids[0])
    assert shown.code == 1 and len(shown.err.splitlines()) == 1 and restore in shown.err, shown.err
    # record would sign sequence 1 again: refused in one line, nothing changes
    before = refs_snapshot(repo)
    refused = _record(repo)
    assert refused.code == 1, refused.out
    [line] = refused.err.splitlines()
    stream = ref.rsplit("/", 1)[1][:12]
    assert f"memory stream {stream} of yours lost 2 memories" in line and f"commit {tip[:12]}" in line, line
    assert "sequence 1" in line and "nothing was signed" in line and line.endswith(restore), line
    assert refs_snapshot(repo) == before
    retract = hn(repo, "memory", "retract", ids[1], "--reason", "obsolete")  # (a lost target: where it went)
    assert retract.code == 1 and len(retract.err.splitlines()) == 1 and restore in retract.err, retract.err
    # the command it gives restores the stream; then all is as before
    git(repo, "update-ref", ref, tip)
    r = hn(repo, "memory", "recall", "--json", "--include-untrusted")
    assert not _warnings(r.err) and r.json()["matched"] == 2
    assert not (Path(repo) / ".git" / "hn" / "rewound-v0").exists()
    assert _record(repo).code == 0
    assert json.loads(git(repo, "cat-file", "blob", f"{ref}:memory.json"))["sequence"] == 3


def test_a_rewound_own_stream_ref_is_said_and_refused(tmp_path):
    repo, ids, ref, tip = _setup(tmp_path, 3)
    assert hn(repo, "memory", "log").code == 0
    git(repo, "update-ref", ref, f"{tip}~2")  # (Git names no old value: the state knew the tip)
    r = hn(repo, "memory", "recall")
    [line] = _warnings(r.err)
    assert "lost 2 memories" in line and line.endswith(f"git update-ref {ref} {tip} restores it"), line
    refused = _record(repo)
    assert refused.code == 1 and "sequence 2" in refused.err, refused.err
    for args in (("retract", ids[0], "--reason", "obsolete"), ("supersede", ids[0], "--content", "newer"),
                 ("challenge", ids[0], "--reason", "wrong")):  # (every append to the stream)
        r = hn(repo, "memory", *args)
        assert r.code == 1 and "sequence 2" in r.err and "nothing was signed" in r.err, (args, r.err)
    # moved back once more before it was restored: one entry, whose restore brings back both
    git(repo, "update-ref", "-d", ref)
    [line] = _warnings(hn(repo, "memory", "log").err)
    assert "lost 3 memories" in line and line.endswith(f"git update-ref {ref} {tip} restores it"), line
    git(repo, "update-ref", ref, tip)
    assert [m["id"] for m in hn(repo, "memory", "log", "--json").json()["memories"]] == ids[::-1]
    assert _record(repo).code == 0


def test_a_pruned_lost_tip_is_said_gone_and_another_stream_records(tmp_path):
    repo, _ids, ref, tip = _setup(tmp_path)
    git(repo, "update-ref", "-d", ref)
    git(repo, "gc", "-q", "--prune=now")  # (no reflog holds it: gone from this clone)
    assert subprocess.run(["git", "cat-file", "-e", tip], cwd=repo).returncode != 0
    [line] = _warnings(hn(repo, "memory", "recall").err)
    assert f"tip commit {tip[:12]} is no longer in this clone" in line and "--stream label:NAME" in line, line
    assert "restores it" not in line
    refused = _record(repo)
    assert refused.code == 1 and "--stream label:NAME" in refused.err and "sequence 1" in refused.err, refused.err
    # the way out: another stream of one's own (the lost one stays closed)
    other = _record(repo, "in another stream", "--stream", "label:after-gc")
    assert other.code == 0, other.err
    assert _record(repo).code == 1


def test_a_forced_fetch_that_rewinds_ones_stream_is_said_by_the_hook_and_sync(tmp_path):
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "hooks", "install").code == 0
    record_id(alice, content="published")
    assert hn(alice, "sync").code == 0
    record_id(alice, content="bob unpublished X")
    ref = f"refs/hn/memory/{actor_of(alice)}/"
    ref = git(alice, "for-each-ref", "--format=%(refname)", ref)
    tip = git(alice, "rev-parse", ref)
    fetch = subprocess.run(["git", "fetch", "origin", "+refs/hn/memory/*:refs/hn/memory/*"], cwd=alice,
                           capture_output=True, text=True)
    assert fetch.returncode == 0, fetch.stderr
    assert "forced update" in fetch.stderr
    [line] = _warnings(fetch.stderr)  # said by the hook, at the fetch
    assert "lost 1 memory" in line and line.endswith(f"git update-ref {ref} {tip} restores it"), line
    synced = hn(alice, "sync")
    assert [line] == _warnings(synced.err), synced.err
    recall = hn(alice, "memory", "recall", "--query", "unpublished")
    assert recall.code == 0 and len(_warnings(recall.err)) == 1
    assert _record(alice).code == 1
    git(alice, "update-ref", ref, tip)
    assert hn(alice, "memory", "recall", "--query", "unpublished", "--json", "--include-untrusted").json()["matched"] == 1


def test_packing_refs_and_moving_forward_say_nothing(tmp_path):
    """Guard (passes without the fix: nothing was ever said): the wrapper's check of an own
    memory ref's transaction leaves ``git pack-refs``, ``git gc`` and a forward move unsaid."""
    repo, _ids, ref, tip = _setup(tmp_path)
    assert hn(repo, "hooks", "install").code == 0
    for args in (["pack-refs", "--all"], ["gc", "-q"], ["update-ref", ref, tip]):
        proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
        assert proc.returncode == 0 and "git-hn" not in proc.stderr, (args, proc.stderr)
    assert _record(repo).code == 0


def _commit(repo, name) -> str:
    (repo / f"{name}.txt").write_text(f"{name}\n")
    git(repo, "add", f"{name}.txt")
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


def test_git_hns_own_drop_and_reanchor_move_the_ref_back_unsaid(tmp_path):
    """Guard (passes without the fix, which said nothing of any move): ``reanchor --drop``, a
    re-anchoring after ``commit --amend`` and ``reanchor OLD NEW`` move the stream's ref off the
    tip the state knew; git-hn did it, so no read warns and record goes on. A reader refreshing
    the state while the ref moves (a reference-transaction hook of the user's, which git-hn's
    own transactions run too) knows it as well: git-hn writes its renames before the refs move."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    hook = repo / ".git" / "hooks" / "reference-transaction"
    reading = ('#!/bin/sh\nif [ "$1" = committed ] && grep -q " refs/hn/memory/"; then\n'
               '    git hn memory log >/dev/null 2>&1\nfi\nexit 0\n')
    base = git(repo, "rev-parse", "HEAD")
    record_id(repo, content="stays")
    dropped = _commit(repo, "c2")
    record_id(repo, content="on a commit nobody wants", at=dropped)
    record_id(repo, content="after it")
    assert hn(repo, "memory", "recall").code == 0  # (the state knows the tip)
    git(repo, "reset", "-q", "--hard", base)
    hook.write_text(reading)  # (only around git-hn's rewrites: a record holds the state's lock over its ref move)
    hook.chmod(0o755)
    r = hn(repo, "memory", "reanchor", dropped[:12], "--drop")
    assert r.code == 0, r.err
    hook.unlink()
    amended = _commit(repo, "c3")
    record_id(repo, content="on c3", at=amended)
    assert hn(repo, "memory", "log").code == 0
    git(repo, "commit", "-q", "--amend", "-m", "c3 amended")
    hook.write_text(reading)
    r = hn(repo, "memory", "reanchor", amended[:12], "HEAD")
    assert r.code == 0, r.err
    hook.unlink()
    for args in (("memory", "recall"), ("memory", "log"), ("memory", "brief")):
        assert not _warnings(hn(repo, *args).err), args
    assert not (repo / ".git" / "hn" / "rewound-v0").exists()
    assert _record(repo).code == 0


def test_running_the_undo_line_reanchor_printed_is_not_a_loss(tmp_path):
    """A review (S96, finding 2): ``reanchor --drop`` prints an "Undo:" line (``git update-ref REF
    TIP``); running it moved the ref off the memories the drop had signed again, and every read
    then said the stream lost them outside git-hn, and record was refused at a sequence never
    signed. The renames record names both sides of each rename as git-hn's own."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    base = git(repo, "rev-parse", "HEAD")
    record_id(repo, content="stays")
    dropped = _commit(repo, "c2")
    record_id(repo, content="on a commit nobody wants", at=dropped)
    record_id(repo, content="after it, signed again by the drop", at=base)
    assert hn(repo, "memory", "recall").code == 0
    git(repo, "reset", "-q", "--hard", base)
    r = hn(repo, "memory", "reanchor", dropped[:12], "--drop")
    assert r.code == 0, r.err
    [undo] = [line for line in (r.out + r.err).splitlines() if "Undo:" in line]
    assert hn(repo, "memory", "recall").code == 0  # (the state knows the rewritten tip)
    argv = undo.split("Undo:", 1)[1].strip().split()
    assert argv[:2] == ["git", "update-ref"], undo
    git(repo, *argv[1:])
    for args in (("memory", "recall"), ("memory", "log")):
        assert not _warnings(hn(repo, *args).err), args
    assert _record(repo).code == 0


def test_another_actors_deleted_refs_are_not_noted_and_push_out_nothing(tmp_path):
    """The same review (finding 1): every local memory ref moved back was noted, another actor's
    too, and the record kept its newest 64 entries, so a remote's 64 deleted streams, fetched
    through a forced refspec, pushed the user's own entry out, and record signed sequence 1
    again. Only streams of this clone's identities are noted now."""
    repo, _ids, ref, tip = _setup(tmp_path)
    other = make_repo(tmp_path / "other")
    assert hn(other, "init", "--name", "Mallory").code == 0
    for i in range(3):
        assert hn(other, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--stream", f"label:s{i}", "--content", f"m{i}").code == 0
    git(repo, "fetch", "-q", str(other), "+refs/hn/memory/*:refs/hn/memory/*")
    assert hn(repo, "memory", "log").code == 0  # (the state knows every tip)
    git(repo, "update-ref", "-d", ref)
    mallory = actor_of(other)
    for line in git(repo, "for-each-ref", "--format=%(refname)", f"refs/hn/memory/{mallory}/").splitlines():
        git(repo, "update-ref", "-d", line)
    r = hn(repo, "memory", "log")
    [line] = _warnings(r.err)
    assert line.endswith(f"git update-ref {ref} {tip} restores it"), line
    noted = (repo / ".git" / "hn" / "rewound-v0").read_text()
    assert mallory not in noted and ref in noted, noted
    assert _record(repo).code == 1  # (still refused: sequence 1 was signed)


def test_an_append_past_the_lost_tips_sequence_is_not_refused(tmp_path):
    """The same review: the refusal named "sequence N would be the second this key signed there"
    for any N, also past the lost tip. It applies at the lost tip's sequence and below."""
    from git_hn.store import rewound
    from git_hn.store.repo import open_repo

    repo, _ids, ref, _tip = _setup(tmp_path)
    assert hn(repo, "memory", "recall").code == 0
    git(repo, "update-ref", "-d", ref)
    assert hn(repo, "memory", "log").code == 0  # (noted)
    actor, hexid = ref[len("refs/hn/memory/"):].split("/")
    opened = open_repo(str(repo))
    assert rewound.refusal(opened, actor, f"sha256:{hexid}", 2) is not None
    assert rewound.refusal(opened, actor, f"sha256:{hexid}", 3) is None


def test_a_rewrite_of_more_memories_than_the_renames_record_keeps_is_kept_whole(tmp_path):
    """The same review (finding 3): the renames record kept its last 2048 lines, written before the
    ref moves, so a rewrite of 2,049 memories lost its own first pair and the next read took
    git-hn's re-anchoring for a loss. A rewrite's pairs are kept whole, however many."""
    from git_hn.store import renames
    from git_hn.store.reanchor import RENAMED_KEPT, remember_renames
    from git_hn.store.repo import open_repo

    repo, _ids, _ref, _tip = _setup(tmp_path, n=1)
    opened = open_repo(str(repo))
    pairs = [(f"sha256:{i:064x}", f"sha256:{i + 10 ** 6:064x}") for i in range(RENAMED_KEPT + 5)]
    remember_renames(opened, pairs, "rewrite")
    assert {a for a, _ in pairs} | {b for _, b in pairs} <= renames.replaced(opened)


def test_the_wrapper_starts_no_git_hn_for_packing_or_a_forward_move(tmp_path, monkeypatch):
    """The same review (finding 7): the wrapper's filter (``own_stream_moved``) could start git-hn
    on every such transaction and the tests above still passed (they read only what is printed;
    ``git pack-refs --all`` with six own refs took 0.88 s instead of 0.05 s). The Git processes of
    ``git pack-refs`` and of a forward ``git update-ref REF NEW OLD`` are the wrapper's own
    questions only: git-hn, whose state refresh lists the refs, is not started."""
    from helpers import git_processes

    repo, _ids, ref, tip = _setup(tmp_path)
    parent = git(repo, "rev-parse", f"{tip}^")
    assert hn(repo, "hooks", "install").code == 0
    git(repo, "-c", "core.hooksPath=/dev/null", "update-ref", ref, parent)  # (back, unseen by the hooks)
    for n, (args, allowed) in enumerate(((["update-ref", ref, tip, parent], {"update-ref", "rev-parse", "merge-base"}),
                                         (["pack-refs", "--all"], {"pack-refs", "rev-parse"}))):
        trace = tmp_path / f"trace{n}"
        trace.mkdir()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        assert proc.returncode == 0 and "git-hn" not in proc.stderr, (args, proc.stderr)
        asked = [a[0] for a in git_processes(trace) if a]
        assert asked and set(asked) <= allowed, (args, asked)


def _drop_tip_blob(repo, ref) -> None:
    blob = git(repo, "rev-parse", f"{ref}:memory.json")
    (Path(repo) / ".git" / "objects" / blob[:2] / blob[2:]).unlink()


def test_a_lost_object_of_the_tip_keeps_its_tips_and_its_way_out_signs_no_sequence_again(tmp_path):
    """A review (S96, finding 4): with the blob of an own stream's tip gone, ``memory log`` (which
    reads it) discarded the state that knew the tip, so its way out (``git update-ref -d REF``,
    "removes it with its memories") lost the intact memories too, and the next record signed
    sequence 1 again without a word. The state is set aside, never served, for the tips it verified;
    the way out puts back the last commit that verifies, and the loss above it is noted."""
    repo, ids, ref, tip = _setup(tmp_path)
    assert hn(repo, "memory", "log").code == 0  # (the state knows the tip)
    _drop_tip_blob(repo, ref)
    parent = git(repo, "rev-parse", f"{tip}^")
    r = hn(repo, "memory", "log")
    assert r.code == 1 and len(r.err.splitlines()) == 1, r.err
    assert f"git update-ref {ref} {parent} puts back its last commit that verifies (sequence 1)" in r.err, r.err
    assert "update-ref -d" not in r.err and "notes the memories above it as lost" in r.err, r.err
    kept = Path(repo) / ".git" / "hn" / "memory"
    assert not (kept / "state-v0.sqlite").exists() and (kept / "state-v0.aside").exists()  # (never served)
    git(repo, "update-ref", ref, parent)  # (the way out it gave)
    r = hn(repo, "memory", "log", "--json")
    assert r.code == 0 and [m["id"] for m in r.json()["memories"]] == ids[:1], r.err
    [line] = _warnings(r.err)
    assert "lost 1 memory" in line and "no longer in this clone" in line and "restores it" not in line, line
    assert not (kept / "state-v0.aside").exists()  # (compared, then replaced by the state built)
    before = refs_snapshot(repo)
    refused = _record(repo)
    assert refused.code == 1 and "sequence 2" in refused.err and "nothing was signed" in refused.err, refused.err
    assert refs_snapshot(repo) == before


def test_deleting_a_stream_whose_tip_lost_an_object_refuses_its_sequences(tmp_path):
    """The same review: following the earlier way out, ``git update-ref -d REF`` after the failing
    read, recorded at sequence 1 again: the state that knew the tip was gone."""
    repo, _ids, ref, _tip = _setup(tmp_path)
    assert hn(repo, "memory", "log").code == 0
    _drop_tip_blob(repo, ref)
    assert hn(repo, "memory", "log").code == 1
    git(repo, "update-ref", "-d", ref)
    [line] = _warnings(hn(repo, "memory", "log").err)
    assert "lost 2 memories" in line, line
    refused = _record(repo)
    assert refused.code == 1 and "sequence 1" in refused.err, refused.err


def test_deleting_a_packed_own_stream_ref_warns_once(tmp_path):
    """A review (S96): ``git update-ref -d`` of an own stream ref that ``git pack-refs --all`` had
    packed printed the lost-stream line twice: Git runs the hook for the packed-refs transaction
    (its loose ref's lock still held) and again for the loose one. The first starts nothing."""
    repo, _ids, ref, tip = _setup(tmp_path)
    assert hn(repo, "memory", "log").code == 0
    assert hn(repo, "hooks", "install").code == 0
    for args in (["update-ref", "-d", ref], ["update-ref", "-d", ref, tip]):  # (Git gives no old value, or one)
        git(repo, "pack-refs", "--all")
        assert ref in (repo / ".git" / "packed-refs").read_text()
        proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        [line] = _warnings(proc.stderr)
        assert line.endswith(f"git update-ref {ref} {tip} restores it"), line
        git(repo, "update-ref", ref, tip)
        assert not _warnings(hn(repo, "memory", "log").err)
