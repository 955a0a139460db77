"""Ref lock files of a stream that a killed ``memory record`` left (``store.reflock``), with real
Git processes: the killed writer's ``update-ref`` paused by a reference-transaction hook, and the
live Git that holds a lock while the next append runs (a held ``update-ref --stdin``
transaction, as ``git pack-refs`` or a ref deletion holds one)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from helpers import actor_of, git, hn

RECORD = ("memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact", "--content")


def _record(repo, content) -> dict:
    r = hn(repo, *RECORD, content, "--json")
    assert r.code == 0, r.err
    return r.json()


def _paused_record(repo, tmp_path, content: str):
    """A ``record`` of ``content`` started as its own process group, returned once its
    ``update-ref`` holds the stream ref's lock with the new commit in it: a reference-transaction
    hook holds the prepared transaction until ``tmp_path/go`` exists. Returns (the process, the
    ref, its lock file)."""
    first = _record(repo, "before the kill")
    ref = f"refs/hn/memory/{actor_of(repo)}/{first['stream'].split(':')[1]}"
    hooks, paused = tmp_path / "hooks", tmp_path / "paused"
    hooks.mkdir()
    (hooks / "reference-transaction").write_text(
        '#!/bin/sh\ncat >/dev/null\nif [ "$1" = prepared ] && [ -n "$PAUSE_AT" ]; then : > "$PAUSE_AT"\n'
        '  n=0; while [ ! -e "$PAUSE_AT.go" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done; fi\n')
    (hooks / "reference-transaction").chmod(0o755)
    git(repo, "config", "core.hooksPath", str(hooks))
    code = "import sys\nfrom git_hn.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    proc = subprocess.Popen([sys.executable, "-c", code, *RECORD, content], cwd=repo, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, "PAUSE_AT": str(paused)})
    deadline = time.monotonic() + 60
    while not paused.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    lock = repo / ".git" / (ref + ".lock")
    assert lock.exists()
    return proc, ref, lock


def _killed_mid_update(repo, tmp_path):
    """A ``record`` killed with its process group (an agent host's timeout) while its
    ``update-ref`` holds the stream ref's lock. Returns (the ref, its lock file)."""
    proc, ref, lock = _paused_record(repo, tmp_path, "killed")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert lock.exists()
    return ref, lock


def _killed_after_its_git(repo, tmp_path):
    """A ``record`` killed alone (its ``git hn`` was) while its ``update-ref`` held the lock: that
    Git goes on, moves the ref and removes its lock, and the record of the update stays. Returns
    (the ref, its lock file path, the commit the killed record wrote)."""
    proc, ref, lock = _paused_record(repo, tmp_path, "killed alone")
    new = lock.read_text().strip()
    proc.kill()
    proc.wait()
    (tmp_path / "paused.go").write_text("")
    deadline = time.monotonic() + 60
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert git(repo, "rev-parse", ref) == new and list((repo / ".git" / "hn" / "locks").glob("*.cas"))
    return ref, lock, new


def _held_transaction(repo, *lines: str) -> subprocess.Popen:
    """A live ``git update-ref --stdin`` transaction, prepared (its ref locks taken) and held
    open on its input."""
    proc = subprocess.Popen(["git", "update-ref", "--stdin"], cwd=repo, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    proc.stdin.write("".join(f"{line}\n" for line in ("start", *lines, "prepare")).encode())
    proc.stdin.flush()
    assert [proc.stdout.readline(), proc.stdout.readline()] == [b"start: ok\n", b"prepare: ok\n"]
    return proc


def test_a_ref_lock_a_killed_record_left_is_removed_by_the_next_write(inited, tmp_path):
    """Every later write to the stream failed until a file under .git was deleted by hand (an
    agents trial). The next writer of the stream, under its stream lock, finds the record of the
    dead writer's update and removes the lock file that update left."""
    ref, lock = _killed_mid_update(inited, tmp_path)
    before = git(inited, "rev-parse", ref)
    r = hn(inited, *RECORD, "after the kill", "--json")
    assert r.code == 0, r.err
    assert not lock.exists()
    assert git(inited, "rev-parse", f"{ref}~1") == before  # (the killed one wrote nothing)
    assert hn(inited, "memory", "index", "verify").code == 0


def test_a_ref_lock_holding_another_value_than_the_killed_writers_stays(inited, tmp_path):
    """A lock file that holds a value the dead writer was not writing is another process's (a
    user's ``git update-ref`` at that moment): it stays, and the append names it."""
    ref, lock = _killed_mid_update(inited, tmp_path)
    lock.write_text(git(inited, "rev-parse", "HEAD") + "\n")
    r = hn(inited, *RECORD, "after the kill")
    assert r.code == 1 and f"the lock file {lock} exists" in r.err
    assert lock.exists()


def test_an_empty_ref_lock_a_live_git_holds_stays_though_a_killed_writer_left_its_record(inited, tmp_path):
    """A review (S56): an empty lock is what a live ref deletion or ``git pack-refs`` (``git gc``)
    holds; the next append removed it, said ``Memory: …``, and the memory was gone when that Git
    moved the ref. The lock stays and the append names it."""
    ref, lock = _killed_mid_update(inited, tmp_path)
    lock.unlink()  # (the kill's lock removed by hand, as the append's message says; its record stays)
    held = _held_transaction(inited, f"delete {ref} {git(inited, 'rev-parse', ref)}")
    assert lock.read_bytes() == b""
    r = hn(inited, *RECORD, "while a deletion holds the lock")
    assert (r.code, r.out) == (1, "") and f"the lock file {lock} exists" in r.err
    out, _err = held.communicate(b"commit\n", timeout=60)
    assert out == b"commit: ok\n" and held.returncode == 0  # (its deletion went through, as asked)
    assert git(inited, "for-each-ref", "refs/hn/memory") == ""


def test_a_record_whose_git_moved_the_ref_removes_no_lock(inited, tmp_path):
    """A review (S56): a record left by a ``record`` killed after its ``update-ref`` was fed proves
    nothing about the lock there later, once that Git has moved the ref (the ref names the recorded
    commit): a lock holding that value too (``git reflog expire --updateref`` writes the ref's
    value into it) is a live Git's. It stays, and the record goes."""
    ref, lock, new = _killed_after_its_git(inited, tmp_path)
    lock.write_text(new + "\n")
    r = hn(inited, *RECORD, "after the kill")
    assert (r.code, r.out) == (1, "") and f"the lock file {lock} exists" in r.err
    assert lock.read_text() == new + "\n"
    assert not list((inited / ".git" / "hn" / "locks").glob("*.cas"))
    lock.unlink()
    assert hn(inited, *RECORD, "once it is gone").code == 0
    assert git(inited, "rev-parse", f"{ref}~1") == new


def test_a_held_deletion_after_a_record_whose_git_moved_the_ref(inited, tmp_path):
    """The review's case as it happens: the killed ``record``'s Git moved the ref, then a live
    deletion holds its (empty) lock; the next append names the lock and loses nothing."""
    ref, lock, new = _killed_after_its_git(inited, tmp_path)
    held = _held_transaction(inited, f"delete {ref} {new}")
    r = hn(inited, *RECORD, "while a deletion holds the lock")
    assert (r.code, r.out) == (1, "") and f"the lock file {lock} exists" in r.err
    held.communicate(b"abort\n", timeout=60)
    assert git(inited, "rev-parse", ref) == new and not lock.exists()


def test_a_fifo_at_the_ref_lock_never_holds_the_next_write(inited, tmp_path):
    """A FIFO where the killed writer's ref lock would be (anyone who can write ``.git`` can put
    one there) made every later append hang for good: the lock was opened for reading without
    ``O_NONBLOCK`` before it was found not to be a file (a review). Now the write ends, with Git's
    own refusal naming the lock."""
    first = _record(inited, "before the fifo")
    ref = f"refs/hn/memory/{actor_of(inited)}/{first['stream'].split(':')[1]}"
    [cas] = [p.with_suffix(".cas") for p in (inited / ".git" / "hn" / "locks").glob("memory-*.lock")]
    cas.write_text(f"1 - {git(inited, 'rev-parse', ref)}\n")
    lock = inited / ".git" / f"{ref}.lock"
    os.mkfifo(lock)
    code = "import sys\nfrom git_hn.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    proc = subprocess.run([sys.executable, "-c", code, *RECORD, "after the fifo"], cwd=inited,
                          capture_output=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert f"{ref}.lock".encode() in proc.stderr, proc.stderr
    assert lock.exists() and not lock.is_file()  # (not ours to remove: no writer's lock)


def test_a_record_with_a_damaged_process_id_is_taken_as_ended(inited):
    """A record whose process ID is none (``process_tree.is_pid``: the one check of every reader)
    names no running Git: taken as ended, as a damaged ``promoting`` record is
    (``serial.clear_dead``), and the lock holding its commit goes. Before, an ID that was not
    digits left the lock for good, each later append naming it, while ``0`` or one above any
    ``pid_max`` reached the system and was taken as ended there."""
    first = _record(inited, "before the damaged record")
    ref = f"refs/hn/memory/{actor_of(inited)}/{first['stream'].split(':')[1]}"
    [cas] = [p.with_suffix(".cas") for p in (inited / ".git" / "hn" / "locks").glob("memory-*.lock")]
    lock = inited / ".git" / f"{ref}.lock"
    new = git(inited, "rev-parse", "HEAD")  # (a value the ref does not hold)
    for word in ("x", "\u00b2", "-1", "0", "9999999999"):
        lock.write_text(new + "\n")
        cas.write_bytes(f"{word} - {new}\n".encode())
        r = hn(inited, *RECORD, f"after a record of {word}")
        assert r.code == 0, (word, r.err)
        assert not lock.exists() and not cas.exists(), word
