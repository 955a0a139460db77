"""The verified state's file: ``<common-gitdir>/hn/memory/state-v0.sqlite`` (issue 11).

Owns the location rules (owner-only directories, a regular 0600 file, nothing followed), the
schema and its version, the seal ``state-v0.seal``, and the lock ``hn/locks/state.lock`` under
which the file is read (shared) or written (exclusive). Trusts nothing on disk until these checks
pass; any doubt is answered with ``None`` ("no usable state") and the caller rebuilds from
verified streams, never with the doubtful file.

The seal is the database file's identity and size and change times (device, inode, size, mtime
and ctime in nanoseconds), written by git-hn after each of its own write transactions, while it
holds the exclusive lock. Any other write to the file (``sqlite3``, an editor, a copy over it)
changes its ctime, which no user tool can set back, so an edited, swapped or replaced file is
never served (*state poisoning*). Someone who rewrites the database and the seal file
consistently defeats this (they can equally rewrite the memory refs); ``git hn memory index
verify`` re-derives everything and reports such a state.

Writes need no durability: a crash in the middle of one leaves a file whose seal does not match,
which is discarded and rebuilt. So SQLite keeps its journal in memory and never syncs. A new state
is put in place, and one taken away, by ``state_replace``, under these rules.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

from ..core import hashing
from ..core.contexts import contextmanager
from ..errors import HnError, LocalStateError, StateBusy, StateUnwritable, StateWriteFailed
from . import private
from .repo import Repo

try:  # the C module the sqlite3 package re-exports, without ``functools`` (``sqlitelib``)
    from .sqlitelib import sqlite3
except ImportError:  # pragma: no cover - an interpreter without it
    import sqlite3

VERSION = "8"  # 6: the rows_log index; 7: given_lines; 8: topics
NAME = "state-v0.sqlite"
SEAL = "state-v0.seal"
MAX_BYTES = 8 << 30
LOCK_WAIT = 120.0  # seconds: a first build at 100k memories takes ~20 s

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources(sid INTEGER PRIMARY KEY, ref TEXT NOT NULL UNIQUE, head TEXT NOT NULL,
                     actor TEXT NOT NULL, stream TEXT NOT NULL, length INTEGER NOT NULL);
CREATE INDEX sources_stream ON sources(actor, stream);
CREATE TABLE chain(sid INTEGER NOT NULL, seq INTEGER NOT NULL, "commit" TEXT NOT NULL,
                   id TEXT NOT NULL, signature TEXT NOT NULL, PRIMARY KEY(sid, seq)) WITHOUT ROWID;
CREATE INDEX chain_commit ON chain("commit");
CREATE INDEX chain_id ON chain(id);
CREATE TABLE memories(id TEXT PRIMARY KEY, "commit" TEXT NOT NULL, actor TEXT NOT NULL,
                      stream TEXT NOT NULL, seq INTEGER NOT NULL, operation TEXT NOT NULL,
                      target TEXT NOT NULL, ts TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX memories_target ON memories(target) WHERE target != '';
CREATE TABLE evref(owner TEXT NOT NULL, type TEXT NOT NULL, ref TEXT NOT NULL,
                   PRIMARY KEY(owner, type, ref)) WITHOUT ROWID;
CREATE INDEX evref_ref ON evref(ref);
CREATE TABLE akeys(akey INTEGER PRIMARY KEY, anchor TEXT NOT NULL, mode TEXT NOT NULL,
                   app_subject TEXT NOT NULL, anchor_subject TEXT NOT NULL, paths TEXT NOT NULL,
                   git TEXT NOT NULL, event INTEGER NOT NULL,
                   UNIQUE(anchor, mode, app_subject, anchor_subject, paths, git, event));
CREATE TABLE rows(id TEXT PRIMARY KEY, kind TEXT NOT NULL, lifecycle TEXT NOT NULL,
                  lrank INTEGER NOT NULL, challenged INTEGER NOT NULL, ts TEXT NOT NULL,
                  utc TEXT NOT NULL, size INTEGER NOT NULL, akey INTEGER NOT NULL,
                  ev_memory TEXT NOT NULL, actor TEXT NOT NULL, stream TEXT NOT NULL,
                  seq INTEGER NOT NULL, outcome TEXT NOT NULL, topics TEXT NOT NULL,
                  pathset TEXT NOT NULL, tokens TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX rows_order ON rows(lrank, ts DESC, id);
CREATE INDEX rows_kind ON rows(kind, lrank, ts DESC, id);
CREATE INDEX rows_challenged ON rows(lrank, ts DESC, id) WHERE challenged = 1;
CREATE INDEX rows_groups ON rows(lifecycle, akey, ev_memory, actor, kind, size);
CREATE INDEX rows_utc ON rows(utc);
CREATE INDEX rows_log ON rows(rtrim(utc, 'Z') DESC, id);  -- memory log's order (core.log.KEY_SQL)
CREATE TABLE texts(id TEXT PRIMARY KEY, length INTEGER NOT NULL, seq TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX texts_length ON texts(length);
CREATE TABLE topics(topic TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(topic, id)) WITHOUT ROWID;  -- each of rows.topics
CREATE TABLE published(remote TEXT NOT NULL, ref TEXT NOT NULL, head TEXT NOT NULL,
                       PRIMARY KEY(remote, ref)) WITHOUT ROWID;
CREATE TABLE given_lines(remote TEXT PRIMARY KEY, lines TEXT NOT NULL) WITHOUT ROWID;  -- published, as text
"""
BY_MEMORY = (("memories", "id"), ("rows", "id"), ("texts", "id"), ("evref", "owner"), ("topics", "id"))  # (table, key)

# What the verification outcome and every derived column are a function of, besides the bytes:
# the code that decides them. A state written by other code is discarded, never reused.
_CODE = ("core/canonical.py", "core/chain.py", "core/envelope.py", "core/gostr.py",
         "core/grammar.py", "core/keys.py", "core/limits.py", "core/projection.py",
         "core/search.py", "core/strictjson.py", "store/derive.py", "store/insertion.py", "store/rowcolumns.py",
         "store/state.py", "store/statedb.py", "store/streams.py", "store/touched.py", "store/verify.py")
_checker: str | None = None


def checker() -> str:
    """A digest of the file identities (size, modification time) of the code that verifies and
    derives, and of the Ed25519 libraries' binaries (OpenSSL's, libsodium's: ``_library_files``),
    found without importing them. Any reinstall or edit changes it, and the state is then
    verified again (unless its content is the same: ``content``): stat calls, not reading and
    hashing the code on every command."""
    global _checker
    if _checker is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashing.sha256()
        for name in _CODE:
            st = os.stat(os.path.join(root, name))
            h.update(f"{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        lib = _libraries(_find_spec())
        _checker = h.hexdigest() + "/" + hashing.sha256(lib.encode()).hexdigest()[:16]
    return _checker


def _find_spec():
    # ``importlib.machinery.PathFinder`` itself, from the module the interpreter always has
    # loaded: importing ``importlib`` would load ``warnings`` too (~1.3 ms of every command)
    from _frozen_importlib_external import PathFinder

    return PathFinder.find_spec


def _libraries(find_spec) -> str:
    """The identities (name, size, modification time) of ``_library_files``."""
    lib = ""
    for name, path in _library_files(find_spec):
        if path is None:
            lib += name
            continue
        try:
            st = os.stat(path)
            lib += f"{name}:{st.st_size}:{st.st_mtime_ns};"
        except OSError:
            lib += f"{name}:unreadable;"
    return lib


CONTENT_FROM = 1000  # memories from which a built state records ``content`` (what a rebuild costs more than)
CONTENT_FROM_BYTES = 2 << 20  # the size of a state of about that many memories (~2 KB each)
# the code an Ed25519 verdict depends on besides the libraries: the key and signature decoding
# and scan (``core.chain``, ``core.keys``) and the check itself (``core.keys``, ``store.verify``)
_SIGNATURE_CODE = ("core/chain.py", "core/keys.py", "store/verify.py")
_lines: dict | None = None


def content() -> str:
    """A digest of the *bytes* of what ``checker`` identifies by size and time: the code that
    verifies and derives and the Ed25519 libraries' binaries (tens of milliseconds: the libraries
    are megabytes). A state built from at least ``CONTENT_FROM`` memories records it (one that
    grew to ``CONTENT_FROM_BYTES`` records it when next opened for writing), and a state
    whose ``checker`` differs is kept when this is what it recorded: a reinstall of the same code
    (pip writes every file anew: new times, same bytes) then costs this, not a full verification
    (seconds at 100,000 memories). Any changed byte, or a file gone, still discards the state."""
    lines = _file_lines()
    return _digest(lines[n] for n in [*_CODE, *lines["libraries"]])


def signatures() -> str:
    """A digest of the bytes an Ed25519 verdict depends on (``_SIGNATURE_CODE`` and the
    libraries), recorded with ``content``: a state rebuilt after an upgrade that left them alone
    hands its verdicts to the rebuild (``verified_signatures``), which then checks no signature
    it already checked (a third of the collection's time, an eighth of the command's at 10,000
    memories)."""
    lines = _file_lines()
    return _digest(lines[n] for n in [*_SIGNATURE_CODE, *lines["libraries"]])


def _file_lines() -> dict:
    """Each file's line of ``content_of``, by name (``libraries``: the libraries' names), read once."""
    global _lines
    if _lines is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        libs = _library_files(_find_spec())
        lines = dict(zip(_CODE, _lines_of([(n, os.path.join(root, n)) for n in _CODE])))
        lines.update(zip([n for n, _p in libs], _lines_of(libs)))
        lines["libraries"] = [n for n, _p in libs]
        _lines = lines
    return _lines


def content_of(files: list[tuple[str, str | None]]) -> str:
    """One digest of the names and bytes of ``files`` ((name, path); a None path stands for its
    name alone; a directory or an unreadable file is named as such): one line per file, its
    name and the SHA-256 of its bytes."""
    return _digest(_lines_of(files))


def _digest(lines) -> str:
    return hashing.sha256("\n".join(lines).encode()).hexdigest()


def _lines_of(files: list[tuple[str, str | None]]) -> list[str]:
    lines = []
    for name, path in files:
        if path is None:
            lines.append(f"{name}\0-")
            continue
        try:
            with open(path, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    raise IsADirectoryError
                h = hashing.sha256()
                while chunk := fh.read(1 << 20):
                    h.update(chunk)
            lines.append(f"{name}\0{h.hexdigest()}")
        except IsADirectoryError:
            lines.append(f"{name}\0not a file")
        except OSError:
            lines.append(f"{name}\0unreadable")
    return lines


def _library_files(find_spec) -> list[tuple[str, str | None]]:
    """The Ed25519 libraries' binaries: cryptography's (it carries OpenSSL) and PyNaCl's (it
    carries libsodium, which ``core.keys`` lets accept first), as (name, path) in name order,
    located by ``find_spec(package)`` without importing them; (what is missing, None) for a
    package that is absent or unreadable."""
    out: list[tuple[str, str | None]] = []
    for package, inner, prefix in (("cryptography", ("hazmat", "bindings"), "_rust"), ("nacl", (), "_sodium")):
        spec = find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            out.append((f"{package}:absent;", None))
            continue
        base = os.path.join(list(spec.submodule_search_locations)[0], *inner)
        try:
            out += [(n, os.path.join(base, n)) for n in sorted(n for n in os.listdir(base) if n.startswith(prefix))]
        except OSError:
            out.append((f"{package}:unreadable;", None))
    return out


def paths(repo: Repo) -> tuple[str, str, str]:
    """(memory directory, database, seal) under the common git directory."""
    mem = os.path.join(repo.hn_dir, "memory")
    return mem, os.path.join(mem, NAME), os.path.join(mem, SEAL)


def lock_path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "locks", "state.lock")


def _seal_of(st: os.stat_result, counter: int) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{counter}"


def _change_counter(db: str) -> int | None:
    """SQLite's file change counter (header bytes 24-27), which every committed write through
    SQLite increments: an edit made with ``sqlite3`` within the same clock tick as git-hn's own
    last write (file times are that coarse on some systems) still changes the seal."""
    head = _read_start(db, 100)
    return int.from_bytes(head[24:28], "big") if head is not None and len(head) == 100 else None


def _read_start(path: str, n: int) -> bytes | None:
    """At most the first ``n`` bytes of ``path`` (never through a symbolic link), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return os.read(fd, n)
    finally:
        os.close(fd)


def _lstat(path: str):
    try:
        return os.lstat(path)
    except OSError:
        return None


def _safe_file(st, limit: int) -> bool:
    return (st is not None and stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
            and st.st_uid == os.getuid() and st.st_size <= limit)


def safe_dirs(repo: Repo) -> bool:
    for d in (repo.hn_dir, paths(repo)[0]):
        st = _lstat(d)
        if st is None or not stat.S_ISDIR(st.st_mode) or not private.owner_only(st) \
                or st.st_uid != os.getuid():
            return False
    return True


def sealed(repo: Repo) -> bool:
    """Whether the database file is the one git-hn last wrote (see the module docstring)."""
    _mem, db, seal = paths(repo)
    return seal_matches(db, seal)


def file_seal(db: str) -> bytes | None:
    """The seal line of the safe database file ``db`` as it is now; None when it is not one."""
    st = _lstat(db)
    counter = _change_counter(db) if _safe_file(st, MAX_BYTES) else None  # (never read a directory, a FIFO)
    if counter is None:
        return None
    return (_seal_of(st, counter) + "\n").encode()


def seal_matches(db: str, seal: str) -> bool:
    """Whether the safe file ``seal`` holds ``file_seal(db)``: ``db`` is the file git-hn sealed."""
    line = file_seal(db)
    return line is not None and _safe_file(_lstat(seal), 256) and _read_start(seal, 257) == line


def unsealed_by_metadata(repo: Repo) -> bool:
    """Whether the seal differs only in what a ``chmod`` changes: the change time, and write bits
    of a file still closed to others (a review: ``chmod -R a-w .git/hn`` unseals the state, and
    verify called it corrupt). Never a reason to serve it (``sealed`` decides): only to say why."""
    _mem, db, seal = paths(repo)
    st, recorded, counter = _lstat(db), _read_start(seal, 257), _change_counter(db)
    if st is None or recorded is None or counter is None or not stat.S_ISREG(st.st_mode) \
            or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & ~0o600:
        return False
    was, now = recorded.decode("ascii", "replace").rstrip("\n").split(":"), _seal_of(st, counter).split(":")
    return len(was) == len(now) and was[:4] + was[5:] == now[:4] + now[5:]  # (all but the ctime, [4])


def sealed_but_metadata(db: str, seal: str) -> bool:
    """Whether ``seal`` holds ``db``'s seal but for what a ``chmod`` or a copy that keeps file
    times (``cp -a``, ``rsync -a``) changes: the device, the inode, the change time, and the
    permission bits of files still closed to others (0600 or less). Its size, modification time
    and SQLite change counter are the sealed ones. For the set-aside state (``store.aside``),
    which only ever makes git-hn refuse more: a review's ``chmod -R u+w .git/hn`` unsealed it,
    it was dropped, and the way out then signed a sequence again. Never a reason to serve a state."""
    st, seal_st = _lstat(db), _lstat(seal)
    for s, limit in ((st, MAX_BYTES), (seal_st, 256)):
        if s is None or not stat.S_ISREG(s.st_mode) or s.st_uid != os.getuid() \
                or stat.S_IMODE(s.st_mode) & ~0o600 or s.st_size > limit:
            return False
    recorded, counter = _read_start(seal, 257), _change_counter(db)
    if recorded is None or counter is None:
        return False
    was, now = recorded.decode("ascii", "replace").rstrip("\n").split(":"), _seal_of(st, counter).split(":")
    return len(was) == len(now) and was[2:4] + was[5:] == now[2:4] + now[5:]  # (size, mtime, counter)


def write_seal(repo: Repo) -> None:
    mem, db, seal = paths(repo)
    try:
        counter = _change_counter(db)
        private.write_private(repo.hn_dir, seal, (_seal_of(os.lstat(db), counter or 0) + "\n").encode(),
                              derived=True)
    except (OSError, LocalStateError) as exc:
        raise failure(exc) from None


def uri_path(path: str) -> str:
    """``path`` as an SQLite URI path: the characters a URI gives meaning to are escaped
    (RFC 3986 percent-encoding of everything outside the unreserved set and ``/``)."""
    safe = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
    return "".join(chr(b) if b in safe else f"%{b:02X}" for b in os.fsencode(path))


DISK_JOURNAL_FROM = 2048  # memories a write adds from which its rollback journal is a file (``journal_on_disk``)


def journal_on_disk(conn: sqlite3.Connection) -> None:
    """Before a large write transaction on ``conn``: SQLite's rollback journal in a file beside the
    database (deleted when the transaction ends) instead of in memory. The journal holds the
    original of every page the transaction changes, and rows keyed by memory ID change pages all
    over the file: the last of three transactions of a 100,000-memory sync held ~175 MiB of them.
    The rules are the same (no sync, the seal): a crash leaves a journal ``discard`` removes."""
    conn.execute("PRAGMA journal_mode=DELETE")


def _connect(db: str, readonly: bool) -> sqlite3.Connection:
    mode = "ro" if readonly else "rw"
    conn = sqlite3.connect(f"file:{uri_path(db)}?mode={mode}&nofollow=1", uri=True,
                           isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=MEMORY")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA temp_store=MEMORY")
    return conn


def _opened(repo: Repo, readonly: bool) -> tuple[sqlite3.Connection, dict] | None:
    """(the database, its meta) if it is safe, sealed and of this version and object format,
    else None (``open_sealed``, ``open_unidentified``)."""
    if not safe_dirs(repo) or not sealed(repo):
        return None
    try:
        conn = _connect(paths(repo)[1], readonly)
    except sqlite3.Error:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        meta = {}
    if meta.get("version") != VERSION or meta.get("objectFormat") != repo.object_format:
        conn.close()
        return None
    return conn, meta


def open_sealed(repo: Repo, readonly: bool) -> sqlite3.Connection | None:
    """The database if it is safe, sealed, of this version and checker; else None. Of another
    checker but the same ``content``, it is taken over when opened for writing (the checker
    recorded anew, the seal renewed); read-only, it is None until then."""
    opened = _opened(repo, readonly)
    if opened is None:
        return None
    conn, meta = opened
    if meta.get("checker") != checker():
        if readonly or meta.get("content") is None or meta.get("content") != content():
            conn.close()
            return None
        try:  # the same code and libraries, installed anew
            conn.execute("UPDATE meta SET value = ? WHERE key = 'checker'", (checker(),))
            write_seal(repo)
        except (sqlite3.Error, WriteFailed):
            conn.close()
            return None
    elif not readonly and "content" not in meta and _size(repo) >= CONTENT_FROM_BYTES:
        try:  # a state that grew past ``CONTENT_FROM`` memories since it was built
            record_content(conn)
            write_seal(repo)
        except (sqlite3.Error, WriteFailed):
            conn.close()
            return None
    return conn


def open_unidentified(repo: Repo) -> sqlite3.Connection | None:
    """Read-only, for ``index verify`` alone (never served): a safe, sealed state of this version
    whose checker is another and which records no ``content`` (built from fewer than
    ``CONTENT_FROM`` memories), so nothing tells whether the code that wrote it was this one,
    installed anew, or other code; else None. Verify compares it with its re-derivation."""
    opened = _opened(repo, True)
    if opened is None:
        return None
    conn, meta = opened
    if meta.get("checker") in (None, checker()) or "content" in meta:
        conn.close()
        return None
    return conn


def _size(repo: Repo) -> int:
    st = _lstat(paths(repo)[1])
    return st.st_size if st is not None else 0


def record_content(conn) -> None:
    """Record ``content`` and ``signatures`` in a state being written (the caller seals it)."""
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     [("content", content()), ("signatures", signatures())])


def verified_signatures(repo: Repo) -> dict[str, tuple[str, str]] | None:
    """For a state about to be replaced (under the exclusive lock): the Ed25519 verdicts it
    holds, when it is sealed and of this version and the bytes that gave them are the current
    ones (``signatures``): {commit: (memory ID, signature text)}, as ``streams.collect`` takes
    them (it still reads, scans, decodes and checks every commit, and reuses a verdict only for
    the exact payload and signature it was given for). Else None."""
    if not safe_dirs(repo) or not sealed(repo):
        return None
    try:
        conn = _connect(paths(repo)[1], True)
    except sqlite3.Error:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("version") != VERSION or meta.get("objectFormat") != repo.object_format \
                or meta.get("signatures") != signatures():
            return None
        return {c: (i, sig) for c, i, sig in conn.execute('SELECT "commit", id, signature FROM chain')}
    except sqlite3.Error:
        return None
    finally:
        conn.close()


Unwritable = StateUnwritable
WriteFailed = StateWriteFailed


def failure(exc: BaseException) -> WriteFailed:
    if isinstance(exc, WriteFailed):
        return exc
    if isinstance(exc, OSError):
        return WriteFailed(exc.strerror or type(exc).__name__)
    if isinstance(exc, LocalStateError):
        return WriteFailed(exc.message.removeprefix("memory state could not be written: "))
    if isinstance(exc, HnError):  # (git-hn's own words, whole: cut at 120 characters, a divergent
        return WriteFailed(exc.message)  # chain's line lost its refs and its reason mid actor ID)
    return WriteFailed(str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__)


def _ensure_dirs(repo: Repo, directory: str) -> None:
    try:
        private.ensure_dirs(repo.hn_dir, directory)
    except LocalStateError:
        if private.check_dirs(repo.hn_dir, directory):  # raises the §2.3 message if unsafe
            return
        raise Unwritable from None


@contextmanager
def sealed_for_writing(repo: Repo, wait: float = 2.0):
    """Under the exclusive lock, the sealed state opened for writing, or None when there is none
    safe to write to. When the block ends normally having changed it (its own transactions
    committed), the seal is renewed; the connection is always closed."""
    with locked(repo, exclusive=True, wait=wait):
        conn = open_sealed(repo, readonly=False)
        try:
            yield conn
            if conn is not None and conn.total_changes:
                write_seal(repo)
        finally:
            if conn is not None:
                conn.close()


def writable(repo: Repo) -> bool:
    """Whether the state's directory (or, while it does not exist, ``hn``) can have files
    created and removed in it by this process (its permission bits, ACLs, a read-only mount)."""
    for d in (paths(repo)[0], repo.hn_dir):
        if os.path.isdir(d):
            return os.access(d, os.W_OK | os.X_OK)
    return True


def _read_only_lock(path: str) -> int:
    """``path`` opened for reading only, or -1: a shared ``flock`` needs no write access, so a
    reader (``index verify``) takes it in a ``.git/hn`` made read-only (``chmod -R a-w``: an
    audit found verify refused there, though it writes nothing). A missing lock file is not made."""
    try:
        return os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return -1


@contextmanager
def locked(repo: Repo, exclusive: bool, wait: float = LOCK_WAIT):
    """Hold ``hn/locks/state.lock`` (shared for reading, exclusive for writing). Exclusive, in
    a state directory this process cannot write (made read-only, another user's), ``Unwritable``
    before anything is tried: a state that cannot be written cannot be rebuilt, nor discarded."""
    path = lock_path(repo)
    _ensure_dirs(repo, os.path.dirname(path))
    if exclusive and not writable(repo):
        raise Unwritable
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        if os.path.islink(path):
            raise LocalStateError(f"private identity file {path} is a symbolic link{private.kind(path)}") from None
        fd = _read_only_lock(path) if not exclusive and exc.errno in (errno.EACCES, errno.EROFS, errno.EPERM) else -1
        if fd < 0 and exc.errno in (errno.EACCES, errno.EROFS, errno.EPERM):
            raise Unwritable from None
        if fd < 0:
            raise LocalStateError(f"private identity file {path} cannot be opened: "
                                  f"{private.cause(exc)}{private.kind(path)}") from None
    try:
        private.check_file(path, os.fstat(fd), 0)
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        deadline = time.monotonic() + wait
        delay, waited = 0.002, None
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:  # (a rebuild stopped with Ctrl-Z holds it for good: a trial)
                    raise StateBusy(f"memory state is busy: another git-hn process holds {path} (git hn memory "
                                        "index rebuild, say, or one stopped with Ctrl-Z); retry once it ends") from None
                if waited is None:  # (the first try that found it taken: said once it lasts)
                    from .lock import wait_for

                    waited = wait_for(fd, path)
                waited.poll()
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)
