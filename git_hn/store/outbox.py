"""Outboxes: many memory refs pushed through one wildcard refspec (issue 11).

Owns ``refs/hn/outbox/<name>/<actor>/<stream>`` and the lock files
``<common-gitdir>/hn/outbox/<name>``.

``git push`` matches each explicit refspec against every local ref, under each of its rev-parse
rules (Git 2.39: about a microsecond per pair), so pushing k streams from a clone holding n refs
cost k x n: 3,000 new streams among 6,000 refs took 23 s of Git's CPU, 10,000 among 20,000
(a first publication, an import) minutes. A wildcard refspec is expanded ref by ref instead
(the same 3,000: 0.34 s). So a large publication writes the tips it pushes (the verified ones
the caller names, not whatever the memory refs hold by then) under a fresh outbox name in one
``update-ref --stdin``, pushes ``refs/hn/outbox/<name>/*:refs/hn/memory/*`` (non-forced, as each
explicit refspec was) and deletes them in one more. Only git-hn's own publication writes here;
no listing of memory refs sees an outbox.

An outbox holds an exclusive POSIX record lock on its lock file for its whole life (released by
the kernel when its process dies, and not inherited by forked children). The refs of an outbox
whose lock can be taken (its publisher was killed) are deleted by the next publication that
uses one (``sweep``), and only then its lock file.

Trusts: the caller verified the tips it names.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager

from ..core.grammar import LOCAL_PREFIX
from ..core.lines import lines_of
from ..errors import HnError
from . import private
from .repo import Repo

PREFIX = "refs/hn/outbox/"
_NAME_LEN = 16  # hex characters of an outbox name
_QUIET = {"HN_HOOK_ACTIVE": "1"}  # git-hn's own hooks stay out of these ref changes


def _directory(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "outbox")


def _is_name(name: str) -> bool:
    return len(name) == _NAME_LEN and all(c in "0123456789abcdef" for c in name)


@contextmanager
def staged(repo: Repo, tips: dict[str, str]):
    """Put each local memory ref's tip in ``tips`` (``refs/hn/memory/<actor>/<stream>`` ->
    commit) under a new outbox, and yield the refspec that pushes them all to the same names;
    None (nothing written) when the outbox cannot be made. The outbox is gone when the block
    ends (left for ``sweep`` if Git refused to delete it)."""
    try:
        made = _make(repo, tips)
    except (HnError, OSError):
        made = None
    if made is None:
        yield None
        return
    fd, lock_path, name, refs = made
    try:
        yield f"{PREFIX}{name}/*:{LOCAL_PREFIX}*"
    finally:
        try:
            if _delete(repo, refs):
                os.unlink(lock_path)
        except (HnError, OSError):
            pass  # the next sweep deletes it
        finally:
            os.close(fd)


def _make(repo: Repo, tips: dict[str, str]):
    """(lock descriptor, lock path, name, outbox ref -> tip) of a new outbox holding ``tips``,
    or None when Git refused them (nothing written)."""
    directory = _directory(repo)
    private.ensure_dirs(repo.hn_dir, directory)
    sweep(repo)
    name = os.urandom(_NAME_LEN // 2).hex()
    lock_path = os.path.join(directory, name)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, private.FILE_MODE)
    try:
        os.fchmod(fd, private.FILE_MODE)  # whatever the umask: ``sweep`` checks the mode
        fcntl.lockf(fd, fcntl.LOCK_EX)
        refs = {f"{PREFIX}{name}/{ref[len(LOCAL_PREFIX):]}": tip for ref, tip in sorted(tips.items())}
        made = repo.git.run(["update-ref", "--stdin"], env=_QUIET,
                            input="".join(f"create {r} {t}\n" for r, t in refs.items()).encode())
        if made.returncode == 0:
            return fd, lock_path, name, refs
    except BaseException:
        os.close(fd)  # the lock file stays: whatever Git wrote is the next sweep's
        raise
    os.close(fd)  # one transaction: nothing was written
    os.unlink(lock_path)
    return None


def _delete(repo: Repo, refs: dict[str, str]) -> bool:
    if not refs:
        return True
    done = repo.git.run(["update-ref", "--stdin"], env=_QUIET,
                        input="".join(f"delete {r} {t}\n" for r, t in refs.items()).encode())
    return done.returncode == 0


def sweep(repo: Repo) -> int:
    """Delete the refs of every outbox no live publication holds, then its lock file; the number
    of outboxes removed. A lock file is looked at only if it is a regular file of ours (no Git
    process at all when there is none). Errors leave an outbox for the next sweep."""
    directory = _directory(repo)
    try:
        names = sorted(n for n in os.listdir(directory) if _is_name(n))
    except OSError:
        return 0
    removed = 0
    for name in names:
        path = os.path.join(directory, name)
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            continue
        try:
            private.check_file(path, os.fstat(fd), 0)
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (OSError, HnError):
            os.close(fd)
            continue  # a live publication holds it (or it is not ours to touch)
        try:
            listing = repo.git.run(["for-each-ref", "--format=%(refname) %(objectname)", f"{PREFIX}{name}/"])
            if listing.returncode != 0:
                continue
            left = dict(line.split(" ", 1) for line in lines_of(listing.stdout.decode("utf-8", "replace"))
                        if " " in line)
            if _delete(repo, left):
                os.unlink(path)
                removed += 1
        finally:
            os.close(fd)
    return removed
