"""Ref lock files that a killed append left on its stream (git-hn; docs/decisions.md).

Owns ``<common-gitdir>/hn/locks/memory-<actor>-<stream-hex>.cas``: while an append's ``update-ref``
moves the stream ref, the process ID of that Git and the commit it writes. Git holds
``<ref>.lock`` from reading its input until the ref has moved; an append killed with its process
group (an agent host's timeout) left that file, and every later write to the stream failed with
"the lock file … exists" until someone deleted it by hand. The record is written before Git is
fed and removed once Git has answered, so one that is still there when the stream lock is taken
was left by a writer that died mid-update (whoever held the stream lock before has ended: the
kernel released its ``flock``). ``clear_left`` then waits for that Git to end and removes
``<ref>.lock`` only if it holds nothing or that commit: a lock a user's ``git update-ref`` or
``git pack-refs`` holds at that moment holds another value, and stays its owner's (the append
then names it, as before). What an append costs: one file written and removed around its
compare-and-swap, and one failed ``open`` when it takes the stream lock; no Git process.

Trusts: the private directory's files (written by this user's git-hn only); nothing of a record
is used but a process ID to wait for and an object ID to compare.
"""

from __future__ import annotations

import os
import stat

from .process import ended

WAIT = 5.0  # seconds to wait for a killed writer's ``update-ref`` (it ends at the end of its input)


def record_path(stream_lock_path: str) -> str:
    """The record beside a stream's lock file (``Repo.lock_path``)."""
    return stream_lock_path[: -len(".lock")] + ".cas"


def write_record(path: str, pid: int, new: str) -> None:
    """Before ``update-ref`` (``pid``) is fed: it is about to write ``new``. Best effort: without
    the record, a lock a kill leaves is named by the next append, as before."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    try:
        os.write(fd, f"{pid} {new}\n".encode("ascii"))
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


def clear_left(path: str, common_dir: str, ref: str, wait: float = WAIT) -> str | None:
    """Under the stream lock of ``ref``: when the record at ``path`` is there (its writer died
    mid-update), remove ``<ref>.lock`` if that writer's Git has ended and the file holds nothing
    or the commit it was writing; then the record. Returns the lock file removed, if any."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None  # (the usual case: no record, one failed open)
    try:
        st = os.fstat(fd)
        data = os.read(fd, 256) if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() else b""
    finally:
        os.close(fd)
    fields = data.decode("ascii", "replace").split()
    removed = None
    if len(fields) == 2 and fields[0].isdigit() and all(c in "0123456789abcdef" for c in fields[1]):
        if not ended(int(fields[0]), (b"update-ref",), wait):
            return None  # (still running: the lock is its own; the append names it if it stays)
        lock = os.path.join(common_dir, ref + ".lock")
        if _left_by(lock, fields[1]):
            try:
                os.unlink(lock)
                removed = lock
            except OSError:
                pass
    remove_record(path)
    return removed


def _left_by(lock: str, new: str) -> bool:
    """Whether ``lock`` is a regular file holding nothing or ``new`` (what Git writes into a ref's
    lock file before it renames it over the ref)."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return os.read(fd, 256).strip() in (b"", new.encode("ascii"))
    finally:
        os.close(fd)
