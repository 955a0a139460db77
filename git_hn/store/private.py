"""Private files under ``<common-gitdir>/hn`` and ``<gitdir>/hn`` (CONTRACT §2.3, §2.4).

Owns: the safety rules for every private file and directory git-hn reads or writes (keyring,
``active``, locks, caches, selections, receipts): owner-only modes, no symlinks, regular files
only, bounded reads, atomic replacement. Trusts: nothing found on disk until these checks pass.

Attacks defended against: a symlink planted at ``.git/hn`` or at a key file redirecting reads or
writes elsewhere (*symlink redirection*); a group- or world-readable key file (*key disclosure*);
a FIFO or device at a private path blocking or feeding a reader (*non-regular file*); a partial
write leaving a truncated key record after a crash (*torn write*, prevented by rename).
"""

from __future__ import annotations

import os
import stat

from ..errors import LocalStateError, with_space_hint

DIR_MODE = 0o700
FILE_MODE = 0o600


def kind(path: str) -> str:
    """What the private file at ``path`` is, said after an error's text (a trial: a lock file and
    the view's page read as a "private identity file" on a read-only mount, which sounds like a
    key at risk): CONTRACT §0.5 keeps ``private identity file <path> …`` unchanged for every
    private file, so the kind is appended, ``""`` for an identity (``hn/identities/*``,
    ``hn/active``)."""
    name = os.path.basename(path)
    if name == "active" or os.path.basename(os.path.dirname(path)) == "identities":
        return ""
    what = "a lock file" if name.endswith(".lock") else "the page" if name.endswith((".html", ".htm")) else \
        "a private file of git-hn's"
    return f" ({what}, not a key)"


def cause(exc: OSError) -> str:
    """Why ``exc`` happened, as an error says it: the system's words, or, for a read-only mount,
    that the file system is read-only (the system's "Read-only file system" read as a name)."""
    import errno

    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    return with_space_hint(exc.strerror or type(exc).__name__)


def _dir_error(path: str, st: os.stat_result | None) -> str | None:
    if st is None:
        return None
    if stat.S_ISLNK(st.st_mode):
        return f"private identity directory {path} is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return f"private identity path {path} is not a directory"
    if not owner_only(st):
        return (f"private identity directory {path} has unsafe permissions; {_what(path)} must be closed "
                f"to group and others (mode 0700, or 0500 read-only; it has {stat.S_IMODE(st.st_mode):04o}): "
                f"{_chmod('700', path)}")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return (f"private identity directory {path} has unsafe permissions; {_what(path)} must be yours "
                f"(it belongs to user ID {st.st_uid})")
    return None


def owner_only(st: os.stat_result) -> bool:
    """Whether a private directory's permission bits are 0700 or a subset of them. The safety
    rule is that group and others can neither list, enter nor change it (*key disclosure*, a
    planted file); CONTRACT §2.3 says "exactly 0700", but a directory its owner made read-only
    (``chmod a-w``: 0500) keeps everyone else out as well, and reads then work (writes fail on
    the missing write bit and say so)."""
    return not stat.S_IMODE(st.st_mode) & ~DIR_MODE


# What each directory under ``hn`` holds, for the messages (the contract's prefix says
# "identity" for all of them, CONTRACT §0.5)
_AREAS = {"": "git-hn's private directory (its keyring, state and caches)",
          "identities": "git-hn's keyring", "replication": "git-hn's replication state",
          "locks": "git-hn's lock directory", "memory": "git-hn's memory state",
          "setup": "git-hn's setup record"}


def _what(path: str) -> str:
    parts = os.path.normpath(path).split(os.sep)
    if "hn" not in parts:
        return "git-hn's private directory"
    below = parts[len(parts) - parts[::-1].index("hn"):]
    return _AREAS.get(below[0] if below else "", "git-hn's private directory")


def _chmod(mode: str, path: str) -> str:
    import shlex  # error paths only

    return f"chmod {mode} {shlex.quote(path)}"


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LocalStateError(f"private identity path {path} is unreadable: {exc.strerror}") from None


def check_dir(path: str) -> bool:
    """True if the directory exists and is safe; False if absent; raises if unsafe."""
    st = _lstat(path)
    err = _dir_error(path, st)
    if err:
        raise LocalStateError(err)
    return st is not None


def check_dirs(root: str, directory: str) -> bool:
    """Check ``root`` and every directory below it down to ``directory``; False if one is absent."""
    for d in _chain(root, directory):
        if not check_dir(d):
            return False
    return True


def _chain(root: str, directory: str) -> list[str]:
    rel = os.path.relpath(directory, root)
    out = [root]
    if rel != ".":
        cur = root
        for part in rel.split(os.sep):
            cur = os.path.join(cur, part)
            out.append(cur)
    return out


def ensure_dirs(root: str, directory: str) -> None:
    """Create missing directories from ``root`` down to ``directory`` with mode 0700."""
    for d in _chain(root, directory):
        if not check_dir(d):
            try:
                os.mkdir(d, DIR_MODE)
            except FileExistsError:
                pass
            except OSError as exc:
                # (a review: a read-only mount's missing locks directory was an "identity" one)
                raise LocalStateError(f"{_what(d)} {d} cannot be created: {cause(exc)}") from None
            os.chmod(d, DIR_MODE)
            check_dir(d)


def check_file(path: str, st: os.stat_result, max_bytes: int) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise LocalStateError(f"private identity file {path} is a symbolic link{kind(path)}")
    if not stat.S_ISREG(st.st_mode):
        raise LocalStateError(f"private identity path {path} is not a regular file")
    if stat.S_IMODE(st.st_mode) & ~FILE_MODE:
        # (0400 passes, as a 0500 directory does, ``owner_only``: a trial's ``chmod -R a-w .git/hn``
        # made every receipt "invalid", the cause unsaid; what matters is that no one else can
        # read or change it, and a read-only file is replaced whole, by rename, when written)
        raise LocalStateError(f"private identity file {path} has unsafe permissions; it must be closed to group "
                              f"and others (mode 0600, or 0400 read-only; it has {stat.S_IMODE(st.st_mode):04o}): "
                              f"{_chmod('600', path)}{kind(path)}")
    if st.st_size > max_bytes:
        raise LocalStateError(f"private identity file {path} is too large{kind(path)}")


def unreadable(path: str, exc: OSError, st: os.stat_result) -> str:
    """The error for a private file (``st``: its ``lstat``) that cannot be opened for reading
    (``exc``), with the way out when its permissions refused it: its owner's ``chmod 600``, as
    for a mode too open (an audit: a key of mode 000 was "unreadable: Permission denied", no more),
    or, for another user's file, whose it is."""
    import errno

    text = f"private identity file {path} is unreadable: {cause(exc)}{kind(path)}"
    if exc.errno not in (errno.EACCES, errno.EPERM):
        return text
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return (f"{text}; it belongs to user ID {st.st_uid}: run git-hn as that user, or have them "
                f"{_chmod('600', path)}")
    return f"{text}: {_chmod('600', path)}"


def read_private(root: str, path: str, max_bytes: int = 65_536) -> bytes | None:
    """Bytes of a private file, or None when it (or a parent directory) does not exist."""
    if not check_dirs(root, os.path.dirname(path)):
        return None
    st = _lstat(path)
    if st is None:
        return None
    check_file(path, st, max_bytes)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LocalStateError(unreadable(path, exc, st)) from None
    try:
        st2 = os.fstat(fd)
        if (st2.st_ino, st2.st_dev) != (st.st_ino, st.st_dev):
            raise LocalStateError(f"private identity file {path} changed while reading{kind(path)}")
        check_file(path, st2, max_bytes)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 65_536)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:
                raise LocalStateError(f"private identity file {path} is too large{kind(path)}")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_private(root: str, path: str, data, fsync: bool = True, derived: bool = False) -> None:
    """Atomically replace a private file (CONTRACT §2.4); the previous file survives any failure.

    ``derived=True`` is for disposable files (caches): rename still makes the replacement atomic,
    nothing is fsynced (losing the newest version in a crash only costs a rebuild), and an unsafe
    target that is a symlink or a regular file is replaced (the symlink is unlinked, never
    followed) instead of refused, as the index does (§8.1).
    """
    directory = os.path.dirname(path)
    ensure_dirs(root, directory)
    st = _lstat(path)
    if derived:
        fsync = False
        if st is not None and (stat.S_ISLNK(st.st_mode) or (
                stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) != FILE_MODE)):
            try:
                os.unlink(path)
            except OSError as exc:
                raise LocalStateError(f"private identity file {path} cannot be replaced: "
                                      f"{cause(exc)}{kind(path)}") from None
            st = None
    if st is not None:
        check_file(path, st, max(st.st_size, 1))
    try:
        write_beside(directory, TEMPORARY, data, lambda tmp: os.rename(tmp, path), mode=FILE_MODE,
                     fsync=fsync)
    except OSError as exc:
        raise LocalStateError(f"private identity file {path} cannot be written: "
                              f"{cause(exc)}{kind(path)}") from None


def create_private(root: str, path: str, data: bytes) -> None:
    """Create a private file that must not exist yet (written whole, then linked into place, so
    of two writers racing one wins and the other gets ``FileExistsError``; CONTRACT §2.4's modes
    and fsyncs)."""
    directory = os.path.dirname(path)
    ensure_dirs(root, directory)

    def place(tmp: str) -> None:
        import errno

        try:
            os.link(tmp, path)
        except OSError as exc:  # a file system without hard links: created exclusively in place
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
                raise
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        os.unlink(tmp)

    try:
        write_beside(directory, TEMPORARY, data, place, mode=FILE_MODE, fsync=True)
    except FileExistsError:
        raise
    except OSError as exc:
        raise LocalStateError(f"private identity file {path} cannot be written: "
                              f"{cause(exc)}{kind(path)}") from None


STALE_TEMPORARY = 3600  # seconds: a temporary file this old belongs to no running write


def write_beside(directory: str, prefix: str, data, place, *, mode: int | None = None,
                 fsync: bool = False) -> None:
    """Write ``data`` (bytes, or bytes in parts: an iterable of them, as a page of the whole
    history is written, issue 11) to a new temporary file in ``directory`` (a fresh random name after
    ``prefix``, created exclusively, never through a symbolic link), then call ``place(tmp)``,
    which moves it into place (a rename, a link, after any last check). ``mode`` sets its
    permission bits; ``fsync`` syncs the file, then the directory. Whatever fails, the temporary
    file does not stay behind; ``OSError`` (and what ``place`` raises) propagates."""
    fd, tmp = -1, ""
    try:
        for _ in range(16):
            tmp = os.path.join(directory, prefix + os.urandom(8).hex())
            try:
                # created with ``mode`` itself: a private file is never readable by others,
                # not even for a moment
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o666 if mode is None else mode)
                break
            except FileExistsError:
                tmp = ""
        if fd < 0:
            raise OSError(17, "no unique temporary name")
        if mode is not None:
            os.fchmod(fd, mode)  # exactly, whatever the umask
        for chunk in (data,) if isinstance(data, (bytes, bytearray, memoryview)) else data:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        place(tmp)
        tmp = ""
        if fsync:
            dfd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass


TEMPORARY = ".hn-private-"  # the name prefix of a write in progress (or killed): never a record


def sweep_temporaries(directory: str) -> None:
    """Remove the ``.hn-private-*`` temporaries of writes that were killed in ``directory``
    (a concurrent write's are younger than ``STALE_TEMPORARY``)."""
    import time

    try:
        names = os.listdir(directory)
    except OSError:
        return
    now = time.time()
    for name in names:
        if name.startswith(TEMPORARY):
            path = os.path.join(directory, name)
            st = _lstat(path)
            if st is not None and stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_TEMPORARY:
                try:
                    os.unlink(path)
                except OSError:
                    pass
