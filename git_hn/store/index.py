"""The exported index file ``<gitdir>/hn/memory/index-v0.json`` (CONTRACT §8.1, §8.5).

Owns: the location rules (owner-only directories, regular 0600 files, no symlinks followed) and
the atomic replacement of ``index-v0.json``, the upstream-schema export that ``index rebuild``
writes for other hn-memory/0 implementations (git-hn itself serves from the verified state).
Trusts: nothing on disk until these checks pass; a refused file is reported as the §8.5 kind.

Attacks defended against: a symlink at ``hn/memory`` or at the index file redirecting a write
(*symlink redirection*: symlinks are unlinked, never followed); a group-writable index another
local user could poison (*unsafe permissions*); a huge file exhausting memory (*oversize*).
"""

from __future__ import annotations

import os
import shutil
import stat

from ..core.index import IndexError_
from ..core.limits import LIMITS
from ..errors import LocalStateError
from . import private
from .repo import Repo

LEGACY = ("recall-v0.sqlite", "recall-v0.seal")  # derived files of earlier versions: removed


def paths(repo: Repo) -> tuple[str, str, str]:
    hn = repo.worktree_hn_dir
    mem = os.path.join(hn, "memory")
    return hn, mem, os.path.join(mem, "index-v0.json")


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
    if not private.owner_only(st) or st.st_uid != os.getuid():
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
    hn, mem, index = paths(repo)
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


def repair_location(repo: Repo) -> None:
    """§8.1 "Rebuild replaces what it may replace", in the contract's order."""
    check_git_dir(repo)
    hn, mem, index = paths(repo)
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
        elif not private.owner_only(st):  # (one its owner made read-only stays so: the write fails)
            os.chmod(mem, 0o700)
    if st is None:
        private.ensure_dirs(hn, mem)
    private.sweep_temporaries(mem)
    for path in (index, *(os.path.join(mem, n) for n in LEGACY)):
        st = _lstat(path)
        if st is None:
            continue
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(path)  # rmtree never follows symlinks inside (it unlinks them)
        elif not stat.S_ISREG(st.st_mode):
            os.unlink(path)


def _remove(path: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def remove_index(repo: Repo) -> None:
    """Delete ``index-v0.json`` (always safe: an absent index is consistent, §8.4)."""
    _hn, mem, index = paths(repo)
    st = _lstat(mem)
    if st is None or stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return
    _remove(index)


def write_index(repo: Repo, data: bytes) -> None:
    """Atomically replace ``index-v0.json`` (§2.4 atomic write; a failure keeps the old one)."""
    hn, _mem, index = paths(repo)
    private.write_private(hn, index, data, fsync=False, derived=True)
