"""Advisory stream locks (CONTRACT §11(b)).

Owns ``<common-gitdir>/hn/locks/memory-<actor>-<stream-hex>.lock``: an exclusive ``flock`` that
local writers of one stream hold from reading the head until the compare-and-swap ends, so that a
burst of concurrent local writers queues instead of exhausting its retries. The lock files are
never deleted (deleting a lock file another process holds would let a third process lock a new
inode), so a request refused without needing the lock is refused before it is taken, and a dry
run takes none (an audit found files left by refusals, and previews that failed in a read-only
``.git/hn``). The compare-and-swap, not this lock, is what guards against every other writer. Also
the paths of the other ``flock`` locks: a remote's, and a lifecycle target's
(``target-<xx>.lock``, which no compare-and-swap backs: ``service.lifecycle``). And, for a wait
that lasts (``wait_for``), what each lock guards in a few fixed words and which process holds it.
"""

from __future__ import annotations

import fcntl
import os
import time

from ..core.contexts import contextmanager
from ..errors import ConflictError, LocalStateError, chmod_way_out
from . import private


@contextmanager
def stream_lock(hn_dir: str, path: str, ref: str, timeout: float = 10.0, busy: str = "", on_wait=None):
    """The exclusive lock at ``path``; ``busy`` is the error when it stays taken (default: the
    stream ``ref`` is busy). Also the lock of other one-at-a-time work (publication, setup).
    ``on_wait()`` runs once the lock is held when it was not free at once: a command drops the
    answers Git gave before the wait (``Git.forget_early``), which the holder may have changed."""
    private.ensure_dirs(hn_dir, os.path.dirname(path))
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        if os.path.islink(path):
            raise LocalStateError(f"private identity file {path} is a symbolic link{private.kind(path)}") from None
        raise LocalStateError(f"private identity file {path} cannot be opened: "
                              f"{private.cause(exc)}{private.kind(path)}{_way_out(hn_dir, exc)}") from None
    try:
        private.check_file(path, os.fstat(fd), 0)
        if flock_within(fd, timeout, busy or f"memory stream {ref} is busy; retry", path) and on_wait is not None:
            on_wait()
        _HELD.add(path)
        try:
            yield
        finally:
            _HELD.discard(path)
    finally:
        os.close(fd)


def _way_out(hn_dir: str, exc: OSError) -> str:
    """After a lock file's refusal: what lets the command write (an audit: a read-only ``.git/hn``
    gave "cannot be opened: Permission denied (a lock file, not a key)", and nothing to do)."""
    import errno

    if exc.errno == errno.EROFS:
        return f"; this command writes in {hn_dir}: run it where the repository is not mounted read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"; this command writes in {hn_dir}: {chmod_way_out('it and its files', hn_dir, recursive=True)}"
    return ""


_HELD: set[str] = set()  # the lock files this process holds (``held_elsewhere`` is about others)


def flock_within(fd: int, timeout: float, busy: str, path: str = "") -> bool:
    """An exclusive ``flock`` of ``fd`` (the lock file at ``path``: a wait for it is said,
    ``wait_for``), waiting at most ``timeout`` seconds, else ``ConflictError(busy)``; whether it
    had to wait."""
    deadline = time.monotonic() + timeout
    wait = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return wait is not None
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ConflictError(busy) from None
            wait = wait or wait_for(fd, path)
            wait.poll()
            time.sleep(0.005)


# what each of git-hn's lock files guards, by the start of its name, in the words of the line that
# says a command waits for it (``progress.waiting``): fixed words, never a name from the repository
GUARDS = (("state.lock", "the memory state"), ("memory-", "this memory stream"),
          ("import-", "this remote's import"), ("publication-", "this remote's publication"),
          ("accept.lock", "the acceptance of memories"), ("target-", "this memory's lifecycle"),
          ("policy-", "the policy file"), ("setup.lock", "git hn setup"))


def wait_for(fd: int, path: str):
    """The ``progress.Wait`` of the lock file at ``path`` (open as ``fd``), from its first try that
    found it taken (only then is ``progress`` loaded: nothing is paid while locks are free)."""
    from . import progress

    name = os.path.basename(path)
    what = next((words for start, words in GUARDS if name.startswith(start)), "one of git-hn's locks")
    return progress.Wait(what if path else None, lambda: holder(fd))


def holder(fd: int) -> int | None:
    """The ID of a process (not this one) that holds a ``flock`` of ``fd``'s file, as Linux lists
    it (``/proc/locks``: no lock file holds its holder's ID); None elsewhere, or when none is
    listed (released meanwhile; one in a PID namespace this process cannot see)."""
    try:
        st = os.fstat(fd)
        with open("/proc/locks", "rb") as f:
            listing = f.read(4 << 20)
    except OSError:
        return None
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}".encode()
    for line in listing.splitlines():
        fields = line.split()  # ``1: FLOCK ADVISORY WRITE <pid> <maj>:<min>:<inode> 0 EOF``; a
        # waiter's line has ``->`` after its number
        if len(fields) > 5 and fields[1] == b"FLOCK" and fields[5] == inode and fields[4].isdigit():
            pid = int(fields[4])
            if 0 < pid != os.getpid():
                return pid
    return None


def remote_digest(remote: str) -> str:
    """The name part of a remote's lock and marker files (``service.replication.serial``)."""
    from ..core import hashing

    return hashing.sha256(remote.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def remote_lock_path(hn_dir: str, remote: str, what: str) -> str:
    """``<common-gitdir>/hn/locks/<what>-<digest>.lock``: a remote's ``import`` or
    ``publication`` lock (``service.replication.serial`` takes them)."""
    return os.path.join(hn_dir, "locks", f"{what}-{remote_digest(remote)}.lock")


def target_lock_path(hn_dir: str, target: str) -> str:
    """``<common-gitdir>/hn/locks/target-<2 hex>.lock``: the lock that supersessions and
    retractions of ``target`` (a memory ID) hold from their target checks to their ref update
    (``service.lifecycle``). One of 256 files, by a digest of the ID: lock files are never
    deleted, so one per memory would pile up, and two targets sharing a file only queue."""
    from ..core import hashing

    digest = hashing.sha256(target.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(hn_dir, "locks", f"target-{digest[:2]}.lock")


def held_elsewhere(path: str) -> bool:
    """Whether another process holds the ``flock`` at ``path`` now (False when there is no
    such file, or it cannot be opened, or this process holds it)."""
    if path in _HELD:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # (closing releases a lock this probe took)


def mark_released(path: str) -> None:
    """Just before releasing the lock at ``path``: set its modification time to now
    (``time.time_ns()``), so that a command that asked Git its early questions before this
    holder's changes, and then takes the lock without waiting, knows they are stale
    (``released_since``). Best effort."""
    now = time.time_ns()
    try:
        os.utime(path, ns=(now, now), follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass


def released_since(path: str, since: int | None) -> bool:
    """Whether the lock at ``path`` was released (``mark_released``) at or after ``since``
    (``time.time_ns()``; None: never). A file never marked (created just now, by this command
    perhaps: its first sync) has the same change and modification times, and was never held."""
    if since is None:
        return False
    try:
        st = os.lstat(path)
        return st.st_mtime_ns >= since and st.st_mtime_ns != st.st_ctime_ns
    except OSError:
        return True  # (unknown: taken as changed, which only costs the questions asked again)
