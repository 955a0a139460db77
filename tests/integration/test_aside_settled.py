"""A state set aside because it disagreed with Git (``store.aside``, docs/decisions.md).

A review (S99, finding 1): the aside was removed by every state install but compared with the
refs only by a full build. Every ``record`` builds a scoped state, and ``index rebuild`` builds
directly, so after the very way out the error line gave (``git update-ref REF PARENT``), or
``update-ref -d``, the next ``record`` signed a sequence the key had signed already (a fork).
Finding 4: an aside nobody sealed (planted, or left over) noted a made-up tip as lost, for good.
Real repositories, real Git, the installed hook wrappers.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from helpers import git, hn, make_repo, read_only, record_id, refs_snapshot


def _setup(tmp_path):
    """Two memories; the state knows the tip; then the tip's memory object is removed and a read
    sets the state aside. (repo, ref, tip, parent)."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    for i in range(2):
        record_id(repo, content=f"note {i}")
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    tip = git(repo, "rev-parse", ref)
    assert hn(repo, "memory", "log").code == 0
    blob = git(repo, "rev-parse", f"{ref}:memory.json")
    (Path(repo) / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    failed = hn(repo, "memory", "log")
    assert failed.code == 1 and "puts back its last commit that verifies (sequence 1)" in failed.err, failed.err
    assert (_mem(repo) / "state-v0.aside").exists()
    return repo, ref, tip, git(repo, "rev-parse", f"{tip}^")


def _mem(repo) -> Path:
    return Path(repo) / ".git" / "hn" / "memory"


def _record(repo, content="after the loss"):
    return hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", content)


def _refused_at(repo, sequence: int) -> None:
    before = refs_snapshot(repo)
    refused = _record(repo)
    assert refused.code == 1 and len(refused.err.splitlines()) == 1, (refused.out, refused.err)
    assert f"at its sequence {sequence} would be the second" in refused.err and "nothing was signed" in refused.err, \
        refused.err
    assert refs_snapshot(repo) == before


def test_the_way_out_then_record_signs_no_sequence_again(tmp_path):
    """The error line's own way out (``git update-ref REF PARENT``), then ``record`` at once: its
    scoped build removed the aside unread, and sequence 2 was signed a second time."""
    repo, ref, _tip, parent = _setup(tmp_path)
    git(repo, "update-ref", ref, parent)
    _refused_at(repo, 2)
    assert (Path(repo) / ".git" / "hn" / "rewound-v0").exists()


def test_deleting_the_ref_then_record_signs_no_sequence_again(tmp_path):
    """``git update-ref -d REF`` (the earlier way out), then ``record``: sequence 1 again."""
    repo, ref, _tip, _parent = _setup(tmp_path)
    git(repo, "update-ref", "-d", ref)
    _refused_at(repo, 1)


def test_a_ref_file_written_past_the_hooks_then_record_signs_no_sequence_again(tmp_path):
    """Hooks installed, but the ref file written directly (no transaction, so no hook ran)."""
    repo, ref, _tip, parent = _setup(tmp_path)
    assert hn(repo, "hooks", "install").code == 0
    (Path(repo) / ".git" / ref).write_text(parent + "\n")
    assert git(repo, "rev-parse", ref) == parent
    _refused_at(repo, 2)


def test_an_index_rebuild_after_the_way_out_notes_the_loss(tmp_path):
    """``index rebuild`` (a natural repair step) built the state directly and removed the aside
    unread; the next record signed sequence 2 again."""
    repo, ref, _tip, parent = _setup(tmp_path)
    git(repo, "update-ref", ref, parent)
    rebuilt = hn(repo, "memory", "index", "rebuild")
    assert rebuilt.code == 0, rebuilt.err
    assert not (_mem(repo) / "state-v0.aside").exists()  # (compared, then replaced by a full state)
    _refused_at(repo, 2)


def test_another_streams_build_keeps_the_aside_for_the_lost_one(tmp_path):
    """A record to another stream of one's own (the way out the lost-stream line gives) builds a
    state for that stream only: the broken stream's ref, still at its recorded tip, stays to be
    compared, and moving it back afterwards is noted as before."""
    repo, ref, _tip, parent = _setup(tmp_path)
    other = hn(repo, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
               "--content", "elsewhere", "--stream", "label:other")
    assert other.code == 0, other.err
    assert (_mem(repo) / "state-v0.aside").exists()
    git(repo, "update-ref", ref, parent)
    _refused_at(repo, 2)


def _plant(repo, ref: str, head: str, length: int = 2) -> None:
    mem = _mem(repo)
    path = mem / "state-v0.aside"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE sources(sid INTEGER PRIMARY KEY, ref TEXT, head TEXT, actor TEXT, "
                       "stream TEXT, length INTEGER); CREATE TABLE chain(sid INTEGER, seq INTEGER, "
                       '"commit" TEXT, id TEXT, signature TEXT);')
    conn.execute("INSERT INTO sources VALUES (1, ?, ?, '', '', ?)", (ref, head, length))
    conn.execute("INSERT INTO chain VALUES (1, 1, ?, 'x', '')", (head,))
    conn.commit()
    conn.close()
    path.chmod(0o600)


def test_a_planted_aside_without_a_seal_notes_nothing(tmp_path):
    """Finding 4 (*state poisoning* of the aside): an aside no git-hn sealed, naming a made-up
    tip, made every read warn of a loss and refused record for good (the tip can never return)."""
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "Alice").code == 0
    record_id(repo, content="note")
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    for name in ("state-v0.sqlite", "state-v0.seal"):  # (no state: the next read builds one in full)
        (_mem(repo) / name).unlink()
    _plant(repo, ref, "2" * 40)
    r = hn(repo, "memory", "recall", "--include-untrusted")
    assert r.code == 0 and "lost" not in r.err and "222222222222" not in r.err, r.err
    assert not (Path(repo) / ".git" / "hn" / "rewound-v0").exists()
    assert _record(repo).code == 0
    assert json.loads(git(repo, "cat-file", "blob", f"{ref}:memory.json"))["sequence"] == 2


def test_a_sealed_aside_with_a_head_that_is_no_object_id_is_not_printed(tmp_path):
    """The way out prints the tip the aside recorded in a ``git update-ref`` command: a value
    that is no object ID (the aside and its seal rewritten together) is never printed."""
    repo, ref, _tip, _parent = _setup(tmp_path)
    path = _mem(repo) / "state-v0.aside"
    conn = sqlite3.connect(path)
    conn.execute("UPDATE sources SET head = '$(touch pwned)' WHERE ref = ?", (ref,))
    conn.commit()
    conn.close()
    from git_hn.store import statedb

    (_mem(repo) / "state-v0.aside-seal").write_bytes(statedb.file_seal(str(path)))
    r = hn(repo, "memory", "log")
    assert r.code == 1 and "pwned" not in r.err and "puts back its last commit that verifies" in r.err, r.err


def test_a_state_directory_that_cannot_be_written_refuses_the_record_it_cannot_note(tmp_path):
    """The loss cannot be noted where the state's directory cannot be written: the append that
    would sign the sequence again is refused, saying what to make writable."""


    repo, ref, _tip, parent = _setup(tmp_path)
    git(repo, "update-ref", ref, parent)
    before = refs_snapshot(repo)
    with read_only(_mem(repo)):
        refused = _record(repo)
    assert refused.code == 1 and len(refused.err.splitlines()) == 1, (refused.out, refused.err)
    assert "cannot be written to note it; nothing was signed" in refused.err and "chmod -R u+w" in refused.err, \
        refused.err
    assert refs_snapshot(repo) == before
    _refused_at(repo, 2)  # (writable again: noted, and refused as any lost tip is)


def _fork_free(repo, parent_of_tip=2) -> None:
    """The error line's way out, then ``record``: refused at the lost tip's sequence."""
    ref = git(repo, "for-each-ref", "--format=%(refname)", "refs/hn/memory/")
    git(repo, "update-ref", ref, git(repo, "rev-parse", f"{ref}^"))
    _refused_at(repo, parent_of_tip)


@pytest.mark.parametrize("mode", ["u+w", "go-rwx"])
def test_a_chmod_of_the_hn_directory_keeps_the_aside(tmp_path, mode):
    """A review (S101, finding 1): ``chmod -R u+w .git/hn`` (git-hn's own way out of an unwritable
    state) changes the aside's change time, so its seal no longer matched; the comparison dropped
    it unread, and the way out then signed sequence 2 a second time. A seal that differs only by
    what a chmod changes is the aside's own."""
    from git_hn.store import statedb

    repo, _ref, _tip, _parent = _setup(tmp_path)
    subprocess.run(["chmod", "-R", mode, str(Path(repo) / ".git" / "hn")], check=True)
    assert not statedb.seal_matches(str(_mem(repo) / "state-v0.aside"), str(_mem(repo) / "state-v0.aside-seal"))
    _fork_free(repo)


def test_a_copy_of_the_clone_keeps_the_aside(tmp_path):
    """S101 finding 1: ``cp -a`` of the clone (another inode, so another seal): in the copy, the
    way out then record signed sequence 2 again."""
    repo, _ref, _tip, _parent = _setup(tmp_path)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(repo), str(copy)], check=True)
    _fork_free(copy)
    _fork_free(repo)


def test_an_aside_without_its_seal_notes_only_what_git_shows(tmp_path):
    """S101 finding 1: an aside whose seal does not match (here: removed; or edited, or copied
    without its file times) was dropped unread. It is compared all the same, but only for a tip
    Git itself has as a memory commit, counted by Git (a made-up tip notes nothing:
    ``test_a_planted_aside_without_a_seal_notes_nothing``)."""
    repo, ref, tip, _parent = _setup(tmp_path)
    (_mem(repo) / "state-v0.aside-seal").unlink()
    _fork_free(repo)
    assert (Path(repo) / ".git" / "hn" / "rewound-v0").read_text() == f"{ref} {tip} 1 2\n"


@pytest.mark.parametrize("blocker", ["directory", "open file"])
def test_a_loss_that_cannot_be_noted_keeps_the_aside_and_refuses_the_record(tmp_path, blocker):
    """A review (S101, finding 2): with ``rewound-v0`` a directory, or a file others may read, the
    loss could not be noted, yet the aside was dropped, and the next record signed sequence 2 a
    second time. The record is refused, in one line naming the file and its fix, and the aside
    kept, through a full rebuild too, until the loss is noted."""
    repo, ref, _tip, parent = _setup(tmp_path)
    note = Path(repo) / ".git" / "hn" / "rewound-v0"
    if blocker == "directory":
        note.mkdir()
    else:
        note.write_text("")
        note.chmod(0o644)
    git(repo, "update-ref", ref, parent)
    assert hn(repo, "memory", "index", "rebuild").code == 0
    assert (_mem(repo) / "state-v0.aside").exists()
    before = refs_snapshot(repo)
    refused = _record(repo)
    assert refused.code == 1 and len(refused.err.splitlines()) == 1, (refused.out, refused.err)
    assert f"{note}, cannot be written to note it" in refused.err and "nothing was signed" in refused.err, refused.err
    fix = f"rm -r {note}" if blocker == "directory" else f"chmod 600 {note}"
    assert fix in refused.err, refused.err
    assert refs_snapshot(repo) == before and (_mem(repo) / "state-v0.aside").exists()
    subprocess.run(fix.split(), check=True)
    _refused_at(repo, 2)


def test_the_refusal_says_the_memory_object_is_gone_not_the_commit(tmp_path):
    """S101 finding 7: only the tip's ``memory.json`` blob was gone, yet the line said its tip
    commit was no longer in this clone (``git cat-file -t`` answered ``commit``)."""
    repo, ref, tip, parent = _setup(tmp_path)
    git(repo, "update-ref", ref, parent)
    refused = _record(repo)
    assert refused.code == 1 and f"tip commit {tip[:12]} is here but its memory object is no longer" in refused.err, \
        refused.err
    assert f"tip commit {tip[:12]} is no longer" not in refused.err and "git fetch --refetch" in refused.err
