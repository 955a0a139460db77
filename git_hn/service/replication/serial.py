"""One import and one publication at a time per remote (git-hn; docs/decisions.md).

Owns the two lock files of each remote under ``<common-gitdir>/hn/locks/``, named by a digest of
the remote's name: ``import-<digest>.lock``, held by ``git hn sync`` and by the fetch hook's
import for the whole import (advertisement to promotion), and ``publication-<digest>.lock``, held
by sync's publication phase and by the background publisher a push starts. Two syncs with one
remote, or a push's publisher and a sync, used to run side by side: one lost the accepted-ref
compare-and-swap or the server's ref lock and failed, or validated its own stream against a state
the other was changing. Now the second waits (a hook does not: it says so and lets Git go on).

``flock`` locks: the kernel releases one when its process ends, however it ends, so a killed sync
never blocks the next. And while a sync holds the import lock, no other git-hn is promoting for
that remote: what lets it remove the ref lock files a killed sync's Git left (``stale_ref_locks``).
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

from ...core import hashing
from ...errors import ConflictError
from ...store.lock import stream_lock
from ...store.repo import Repo


def lock_path(repo: Repo, remote: str, what: str) -> str:
    digest = hashing.sha256(remote.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return os.path.join(repo.hn_dir, "locks", f"{what}-{digest}.lock")


def busy(remote: str) -> str:
    return f"another git hn sync with {remote} is running; run git hn sync {remote} after it"


def importing(repo: Repo, remote: str, wait: float, waiting=None):
    """The import lock of ``remote`` (``held``)."""
    return held(repo, lock_path(repo, remote, "import"), remote, wait, busy(remote), waiting)


def publishing(repo: Repo, remote: str, wait: float):
    """The publication lock of ``remote`` (``held``)."""
    return held(repo, lock_path(repo, remote, "publication"), remote, wait,
                f"another publication to {remote} is running; run git hn sync {remote} after it")


@contextmanager
def held(repo: Repo, path: str, remote: str, wait: float, busy_text: str, waiting=None):
    """The lock at ``path``: at once, else (``waiting()`` told) within ``wait`` seconds, else
    ``ConflictError(busy_text)``. After a wait, the answers Git gave before it (a command asks
    its first questions while Python starts: ``store.git.start_early``) are dropped: the sync
    that ran meanwhile changed what they describe."""
    try:
        lock = stream_lock(repo.hn_dir, path, remote, timeout=0.0, busy=busy_text)
        lock.__enter__()
    except ConflictError:
        if wait <= 0:
            raise
        if waiting is not None:
            waiting()
        lock = stream_lock(repo.hn_dir, path, remote, timeout=wait, busy=busy_text)
        lock.__enter__()
        repo.git.forget_early()
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


STALE_AFTER = 0.5  # seconds a ref lock file must stay unchanged to be taken for a dead process's


def stale_ref_locks(repo: Repo, remote: str) -> list[str]:
    """Remove the lock files under ``refs/hn/remotes/<remote>/`` that a killed sync's Git left
    (a prepared ref transaction holds one per accepted ref for most of a sync; a SIGKILL of the
    process group leaves them all, and every later promotion then fails). Called only by a sync
    that holds ``remote``'s import lock, after its own transaction failed: no other git-hn
    promotes for the remote then, and a lock file that stays unchanged for ``STALE_AFTER``
    seconds is no Git process's (Git holds these for milliseconds: a promotion, ``pack-refs``).
    Returns the files removed."""
    from ...core.grammar import REMOTES_PREFIX

    top = os.path.join(repo.common_dir, f"{REMOTES_PREFIX}{remote}/memory")

    def listed() -> dict[str, tuple]:
        found = {}
        for root, _dirs, files in os.walk(top):
            for name in files:
                if name.endswith(".lock"):
                    path = os.path.join(root, name)
                    try:
                        st = os.lstat(path)
                    except OSError:
                        continue
                    found[path] = (st.st_ino, st.st_mtime_ns, st.st_size)
        return found

    first = listed()
    if not first:
        return []
    time.sleep(STALE_AFTER)
    removed = []
    for path, seen in listed().items():
        if first.get(path) == seen:
            try:
                os.unlink(path)
                removed.append(path)
            except OSError:
                pass
    return removed
