"""Putting a new verified state file in place, and taking one away (issue 11; CONTRACT §8.1): a
new, empty database made beside the state (``create``), put in place of it whole and sealed
(``install``) or dropped (``drop``), and the state deleted (``discard``) with SQLite's side files
and whatever stands where they go. What the state recorded that remotes were given goes into the
publication journal first (``store.given``), so that no rebuild forgets it.

Run only when the state is built, rebuilt or found unusable, never by a command that reads or
updates a sealed state in place; always under the state's exclusive lock (``statedb.locked``),
by ``store.stateview``, ``store.aside`` and ``service.index``. ``store.statedb`` owns the file's
location rules, schema, seal and lock, which this follows. Trusts nothing at those paths: nothing
is followed (a symlink is removed, never its target; a directory where a file or a side file
should be is taken away), and a state read for its publication record must be a regular,
owner-only file within ``statedb.MAX_BYTES``.
"""

from __future__ import annotations

import os
import stat

from ..errors import LocalStateError
from . import private
from .repo import Repo
from .statedb import (MAX_BYTES, SCHEMA, VERSION, _connect, _ensure_dirs, _lstat, _safe_file, checker, failure,
                      paths, sqlite3, write_seal)


def create(repo: Repo) -> tuple[sqlite3.Connection, str]:
    """A new, empty database beside the state (under the exclusive lock) and its path: the
    state in place is left as it is until ``install`` puts the new one there (CONTRACT §8.1: a
    failed write leaves the prior index intact; an audit's full disk deleted it)."""
    mem, _db, _seal = paths(repo)
    _ensure_dirs(repo, mem)
    private.sweep_temporaries(mem)
    tmp = os.path.join(mem, private.TEMPORARY + os.urandom(8).hex() + ".sqlite")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        conn = _connect(tmp, False)
        try:
            conn.executescript(SCHEMA)
            conn.executemany("INSERT INTO meta VALUES (?, ?)",
                             [("version", VERSION), ("checker", checker()),
                              ("objectFormat", repo.object_format)])
        except BaseException:
            conn.close()
            raise
        os.chmod(tmp, 0o600)
        return conn, tmp
    except (OSError, sqlite3.Error) as exc:
        drop(tmp)
        raise failure(exc) from None


def drop(tmp: str) -> None:
    """Remove a database ``create`` made that is not installed (never raises)."""
    for path in (tmp, tmp + "-journal"):
        try:
            os.unlink(path)
        except OSError:
            pass


def install(repo: Repo, tmp: str) -> sqlite3.Connection:
    """Put the complete database ``tmp`` (closed) in place of the state, seal it and open it.
    The rename replaces the old file at once; the seal is written after it, since it records
    the file's change time, which the rename sets. Should that small write fail, the old seal
    does not match the new file, so the state is absent (rebuilt on the next read), never
    doubtful."""
    _mem, db, _seal = paths(repo)
    try:
        _keep_given(repo, db)
        _clear(db)
        os.rename(tmp, db)
    except (OSError, LocalStateError) as exc:
        drop(tmp)
        raise failure(exc) from None
    write_seal(repo)
    try:
        return _connect(db, False)
    except sqlite3.Error as exc:
        raise failure(exc) from None


def _clear(db: str) -> None:
    """What must not stay beside (or instead of) a database renamed to ``db``: SQLite's side
    files (an old journal would be applied to the new file) and a non-regular file at ``db``
    (a directory a rename cannot replace; a symlink is replaced, never followed)."""
    if stat.S_ISDIR(getattr(_lstat(db), "st_mode", 0)):
        _remove(db)
    for path in _side_files(db):
        _remove(path)


def _side_files(db: str) -> tuple[str, ...]:
    """SQLite's files beside the database ``db``: its rollback journal, write-ahead log and
    shared-memory index."""
    return db + "-journal", db + "-wal", db + "-shm"


def _remove(path: str) -> None:
    """Take ``path`` away, whatever it is, never following it: a directory with its tree, else
    the entry itself (a symlink, never its target); nothing when there is none. An ``OSError``
    is the caller's to say (``_clear`` and ``discard``, which walk the same files)."""
    st = _lstat(path)
    if st is None:
        return
    if stat.S_ISDIR(st.st_mode):
        import shutil

        shutil.rmtree(path)
    else:
        os.unlink(path)


def _keep_given(repo: Repo, db: str) -> None:
    """Before the state is discarded: what it recorded that remotes were given goes into the
    publication journal (``store.given``; best effort: a state that cannot be read gives
    nothing)."""
    from . import given

    rows = []
    if _safe_file(_lstat(db), MAX_BYTES):  # (never a link, a FIFO, a device or another user's file)
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                rows = conn.execute("SELECT remote, ref, head FROM published").fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            rows = []
    given.adopt(repo, [tuple(map(str, r)) for r in rows if all(isinstance(v, str) for v in r)])


def discard(repo: Repo) -> None:
    """Delete the database and its seal (always safe: the state is rebuilt from streams).
    Nothing is followed: a symlink is removed, never its target."""
    _mem, db, seal = paths(repo)
    for path in (seal, db, *_side_files(db)):
        try:
            _remove(path)
        except OSError as exc:
            raise LocalStateError(f"memory state {path} cannot be removed: {exc.strerror}") from None
