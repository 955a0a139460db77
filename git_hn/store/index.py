"""The private index files under ``<gitdir>/hn/memory/`` (CONTRACT §8.1, §8.5, §11(d)).

Owns: the location rules (owner-only directories, regular 0600 files, no symlinks followed), the
atomic replacement of ``index-v0.json``, and the derived recall database ``recall-v0.sqlite``
(an embedded SQLite file: each row's filter columns and tokens, and the row itself as compact
JSON, so that recall needs nothing else, also when ``index-v0.json`` is over its size bound and
not written) with ``recall-v0.seal``, the database file's seal taken when it was installed.
Trusts: nothing on disk until these checks pass; a refused file is reported as the §8.5 kind and
the caller rebuilds from verified streams.

Attacks defended against: a symlink at ``hn/memory`` or at an index file redirecting a write
(*symlink redirection*: symlinks are unlinked, never followed); a group-writable index another
local user could poison (*unsafe permissions*); a huge file exhausting memory (*oversize*).
The derived database is bound to the source fingerprint and to a seal of the exact
``index-v0.json`` it was built with (SHA-256 plus inode, size and change times, so that the two
are one unit without rehashing the index on every recall), or to its absence when it was omitted.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat

from ..core.index import IndexError_
from ..core.limits import LIMITS
from ..errors import LocalStateError
from . import private
from .repo import Repo

DB_NAME = "recall-v0.sqlite"
SEAL_NAME = "recall-v0.seal"  # the database's own seal, taken when it was installed
DB_VERSION = "7"
MAX_DB = 4 << 30


def paths(repo: Repo) -> tuple[str, str, str, str]:
    hn = repo.worktree_hn_dir
    mem = os.path.join(hn, "memory")
    return hn, mem, os.path.join(mem, "index-v0.json"), os.path.join(mem, DB_NAME)


def _lstat(path: str):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise IndexError_("corrupt", f"{path} is unreadable: {exc.strerror}") from None


def _unsafe_dir(st) -> str:
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if stat.S_IMODE(st.st_mode) != 0o700 or st.st_uid != os.getuid():
        return "has unsafe permissions"
    return ""


def _unsafe_file(st, limit: int) -> str:
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if stat.S_IMODE(st.st_mode) != 0o600 or st.st_uid != os.getuid():
        return "has unsafe permissions"
    if st.st_size > limit:
        return "is too large"
    return ""


def check_git_dir(repo: Repo) -> None:
    g = repo.git_dir
    st = _lstat(g)
    if not os.path.isabs(g) or os.path.normpath(g) != g or st is None or not stat.S_ISDIR(st.st_mode):
        raise LocalStateError(f"git directory {g} is not a clean absolute directory")


def load_index_bytes(repo: Repo) -> tuple[bytes, os.stat_result]:
    """Read ``index-v0.json`` under the §8.5 file rules; raises ``IndexError_``."""
    hn, mem, index, _db = paths(repo)
    for d in (hn, mem):
        st = _lstat(d)
        if st is None:
            raise IndexError_("missing")
        why = _unsafe_dir(st)
        if why:
            raise IndexError_("corrupt", f"{d} {why}")
    st = _lstat(index)
    if st is None:
        raise IndexError_("missing")
    why = _unsafe_file(st, LIMITS.max_index)
    if why:
        raise IndexError_("corrupt", f"{index} {why}")
    try:
        fd = os.open(index, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise IndexError_("corrupt", f"{index} is unreadable: {exc.strerror}") from None
    try:
        st2 = os.fstat(fd)
        if (st2.st_ino, st2.st_dev) != (st.st_ino, st.st_dev) or _unsafe_file(st2, LIMITS.max_index):
            raise IndexError_("corrupt", f"{index} changed while reading")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 22)
            if not chunk:
                break
            total += len(chunk)
            if total > LIMITS.max_index:
                raise IndexError_("corrupt", f"{index} is too large")
            chunks.append(chunk)
        return b"".join(chunks), st2
    finally:
        os.close(fd)


def seal_of(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def current_seal(repo: Repo) -> str | None:
    """The seal of the index file now, or None if it is absent or unsafe (never followed)."""
    hn, mem, index, _db = paths(repo)
    for d in (hn, mem):
        st = _lstat(d)
        if st is None or _unsafe_dir(st):
            return None
    st = _lstat(index)
    if st is None or _unsafe_file(st, LIMITS.max_index):
        return None
    return seal_of(st)


def repair_location(repo: Repo) -> None:
    """§8.1 "Rebuild replaces what it may replace", in the contract's order."""
    check_git_dir(repo)
    hn, mem, index, db = paths(repo)
    st = _lstat(hn)
    if st is None:
        private.ensure_dirs(hn, hn)
    else:
        private.check_dir(hn)  # symlink, wrong type or mode: the §2.3 message, nothing changes
    st = _lstat(mem)
    if st is not None:
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            os.unlink(mem)
            st = None
        elif st.st_uid != os.getuid():
            private.check_dir(mem)
            raise LocalStateError(f"private identity directory {mem} has unsafe permissions")
        elif stat.S_IMODE(st.st_mode) != 0o700:
            os.chmod(mem, 0o700)
            _remove(db)
            _remove(os.path.join(mem, SEAL_NAME))
    if st is None:
        private.ensure_dirs(hn, mem)
    _sweep_temporaries(mem)
    for path in (index, db, os.path.join(mem, SEAL_NAME)):
        st = _lstat(path)
        if st is None:
            continue
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(path)  # rmtree never follows symlinks inside (it unlinks them)
        elif not stat.S_ISREG(st.st_mode):
            os.unlink(path)


STALE_TEMPORARY = 3600  # seconds: a temporary file this old belongs to no running write


def _sweep_temporaries(mem: str) -> None:
    """Remove the temporary files of writes that were killed (a concurrent write's are younger)."""
    import time

    try:
        names = os.listdir(mem)
    except OSError:
        return
    now = time.time()
    for name in names:
        if name.startswith(".hn-private-"):
            path = os.path.join(mem, name)
            st = _lstat(path)
            if st is not None and stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_TEMPORARY:
                try:
                    os.unlink(path)
                except OSError:
                    pass


def _remove(path: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def remove_all(repo: Repo) -> None:
    """Delete the index and every derived file (always safe: they are rebuilt from streams)."""
    _hn, mem, index, db = paths(repo)
    st = _lstat(mem)
    if st is None or stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return
    for path in (index, db, os.path.join(mem, SEAL_NAME)):
        _remove(path)


def remove_index(repo: Repo) -> None:
    """Delete only ``index-v0.json`` (the derived database keeps its verified memories)."""
    _hn, mem, index, _db = paths(repo)
    st = _lstat(mem)
    if st is None or stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return
    _remove(index)


def write_index(repo: Repo, data: bytes) -> os.stat_result:
    """Atomically replace ``index-v0.json`` (§2.4 atomic write; a failure keeps the old one)."""
    hn, _mem, index, _db = paths(repo)
    private.write_private(hn, index, data, fsync=False, derived=True)
    return os.lstat(index)


# ---------------------------------------------------------------------------------------------
# the derived recall database

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources(ref TEXT PRIMARY KEY, head TEXT NOT NULL);
CREATE TABLE rows(n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "commit" TEXT NOT NULL,
                  actor TEXT NOT NULL, stream TEXT NOT NULL, kind TEXT NOT NULL,
                  lifecycle TEXT NOT NULL, lrank INTEGER NOT NULL, ts TEXT NOT NULL,
                  size INTEGER NOT NULL, anchor TEXT NOT NULL, mode TEXT NOT NULL,
                  app_subject TEXT NOT NULL, anchor_subject TEXT NOT NULL, paths TEXT NOT NULL,
                  topics TEXT NOT NULL, evidence TEXT NOT NULL, ev_memory TEXT NOT NULL,
                  tokens TEXT NOT NULL);
CREATE TABLE docs(n INTEGER PRIMARY KEY, doc BLOB NOT NULL);
CREATE TABLE verified("commit" TEXT PRIMARY KEY, id TEXT NOT NULL, signature TEXT NOT NULL);
"""


def db_seal_matches(repo: Repo) -> bool:
    """Whether the database file is the one installed: its seal (inode, size, mtime, ctime; any
    write through SQLite or another tool changes them, and no user tool can set a ctime back)
    equals the one recorded beside it."""
    _hn, mem, _index, db = paths(repo)
    seal_path = os.path.join(mem, SEAL_NAME)
    st, st_seal = _lstat(db), _lstat(seal_path)
    if st is None or st_seal is None or _unsafe_file(st_seal, 256):
        return False
    try:
        fd = os.open(seal_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        recorded = os.read(fd, 257)
    finally:
        os.close(fd)
    return recorded == (seal_of(st) + "\n").encode()


def open_db_readonly(repo: Repo, sealed: bool = True) -> sqlite3.Connection | None:
    """The derived database if its location and file are safe, and (``sealed``) unchanged since
    it was installed; else None (nothing is followed)."""
    hn, mem, _index, db = paths(repo)
    for d in (hn, mem):
        st = _lstat(d)
        if st is None or _unsafe_dir(st):
            return None
    st = _lstat(db)
    if st is None or _unsafe_file(st, MAX_DB):
        return None
    if sealed and not db_seal_matches(repo):
        return None
    try:
        from urllib.parse import quote

        conn = sqlite3.connect(f"file:{quote(db)}?mode=ro&nofollow=1", uri=True)
        conn.execute("PRAGMA query_only=ON")
        return conn
    except sqlite3.Error:
        return None


def create_db(repo: Repo) -> tuple[sqlite3.Connection, str]:
    """A new database at a private temporary path in the memory directory (0600)."""
    _hn, mem, _index, _db = paths(repo)
    tmp = os.path.join(mem, ".hn-private-" + os.urandom(8).hex() + ".sqlite")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    os.close(fd)
    conn = None
    try:
        conn = sqlite3.connect(tmp)
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.executescript(SCHEMA)
    except BaseException:
        if conn is not None:
            conn.close()
        discard_tmp(tmp)
        raise
    return conn, tmp


def install_db(repo: Repo, conn: sqlite3.Connection, tmp: str) -> None:
    conn.commit()
    conn.close()
    os.chmod(tmp, 0o600)
    hn, mem, _index, db = paths(repo)
    _remove(os.path.join(mem, SEAL_NAME))
    os.rename(tmp, db)
    private.write_private(hn, os.path.join(mem, SEAL_NAME), (seal_of(os.lstat(db)) + "\n").encode(),
                          fsync=False, derived=True)


def discard_tmp(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
