"""Ref lock files that a killed append left on its stream (git-hn; docs/decisions.md).

Owns ``<common-gitdir>/hn/locks/memory-<actor>-<stream-hex>.cas``: while an append's ``update-ref``
moves the stream ref, the process ID and start time of that Git and the commit it writes. Git
holds ``<ref>.lock`` from reading its input until the ref has moved; an append killed with its
process group (an agent host's timeout) left that file, and every later write to the stream failed
with "the lock file … exists" until someone deleted it by hand. The record is written before Git
is fed and removed once Git has answered, so one that is still there when the stream lock is taken
was left by a writer that died after writing it (whoever held the stream lock before has ended:
the kernel released its ``flock``), which proves nothing about the ref lock: its ``update-ref``
may have ended on its own, the ref moved, and the lock there now be a live Git's (a review: an
empty lock a ``git pack-refs`` held was removed, and the memory recorded meanwhile was lost when
the pack-refs ended). ``clear_left`` therefore removes ``<ref>.lock`` only when all of these
hold: the recorded ``update-ref`` (that ID with that start time; a damaged ID, which
``process_tree.is_pid`` refuses, names none) has ended, the lock file holds exactly the commit
it was writing (Git writes the new value right after creating the file; an
empty lock is what a live ref deletion or ``pack-refs`` holds), and the ref does not already name
that commit (then that Git moved the ref and removed its lock: a lock holding the value is
another's). Any other lock stays its owner's, and the append names it, as before. What an append
costs: one file written and removed around its compare-and-swap, the ``update-ref``'s ``/proc/<pid>/stat`` read, and one failed
``open`` when it takes the stream lock; a Git process only when a left lock holds the recorded
commit.

Trusts: the private directory's files (written by this user's git-hn only); nothing of a record
is used but a process to wait for and an object ID to compare.
"""

from __future__ import annotations

import os
import stat

from .process import ended, waited
from .process_tree import alive, is_pid, start_time

WAIT = 5.0  # seconds to wait for a killed writer's ``update-ref`` (it ends at the end of its input)


def record_path(stream_lock_path: str) -> str:
    """The record beside a stream's lock file (``Repo.lock_path``)."""
    return stream_lock_path[: -len(".lock")] + ".cas"


def write_record(path: str, pid: int, new: str) -> None:
    """Before ``update-ref`` (``pid``, a child not yet reaped: its start time is its own) is fed:
    it is about to write ``new``. Best effort: without the record, a lock a kill leaves is named by
    the next append, as before."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    try:
        os.write(fd, f"{pid} {start_time(pid) or '-'} {new}\n".encode("ascii"))
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_record(path: str) -> None:
    """``update-ref`` has answered: its lock is gone (the ref moved, or Git removed it)."""
    try:
        os.unlink(path)
    except OSError:
        pass


def clear_left(path: str, common_dir: str, ref: str, current, wait: float = WAIT) -> str | None:
    """Under the stream lock of ``ref``: when the record at ``path`` is there (its writer died
    after writing it), remove ``<ref>.lock`` if it is that writer's (see the module's docstring;
    ``current()``: the ref's value now), then the record. Returns the lock file removed, if any."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # (a FIFO never holds us)
    except OSError:
        return None  # (the usual case: no record, one failed open)
    try:
        st = os.fstat(fd)
        data = os.read(fd, 256) if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() else b""
    finally:
        os.close(fd)
    fields = data.decode("ascii", "replace").split()
    if len(fields) == 2:  # (a record of a git-hn before f65: no start time)
        fields.insert(1, "-")
    removed = None
    if len(fields) == 3 and (fields[1] == "-" or fields[1].isdigit()) \
            and fields[2] and all(c in "0123456789abcdef" for c in fields[2]):
        pid, start, new = fields
        # (an ID ``is_pid`` refuses names no running Git: ended, as ``serial.clear_dead`` takes
        # a damaged one, and the lock's other tests below still decide)
        if is_pid(pid) and not _writer_ended(int(pid), start, wait):
            return None  # (still running: the lock is its own; the append names it if it stays)
        lock = os.path.join(common_dir, ref + ".lock")
        left = _left_by(lock, new)
        if left is not None and current() != new:  # (the ref names it: the lock is another's)
            removed = _remove_same(lock, left)
    remove_record(path)
    return removed


def _writer_ended(pid: int, start: str, wait: float) -> bool:
    """Whether the recorded ``update-ref`` has ended, waiting up to ``wait`` seconds for it (a
    killed writer's Git ends at the end of its input). Named by its start time where ``/proc``
    gave one (an ID the system gave another process since is ended), else by its command line."""
    if start == "-":
        return ended(pid, (b"update-ref",), wait)
    return waited(lambda: alive(pid, start), wait)


def _left_by(lock: str, new: str) -> tuple[int, int] | None:
    """(device, inode) of ``lock`` when it is a regular file holding exactly ``new`` (what Git
    writes into a ref's lock file right after creating it, before it renames it over the ref; the
    newline is a second write), else None: an empty lock is a live deletion's or ``pack-refs``'s."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # (a FIFO there hung every append)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        held = os.read(fd, 256)
    finally:
        os.close(fd)
    return (st.st_dev, st.st_ino) if held in (new.encode("ascii"), new.encode("ascii") + b"\n") else None


def _remove_same(lock: str, left: tuple[int, int]) -> str | None:
    """Remove ``lock`` if it is still the file read (not one a Git created since)."""
    try:
        st = os.lstat(lock)
        if (st.st_dev, st.st_ino) == left:
            os.unlink(lock)
            return lock
    except OSError:
        pass
    return None
