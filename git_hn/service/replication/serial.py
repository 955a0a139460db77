"""One import and one publication at a time per remote (git-hn; docs/decisions.md).

Owns the two lock files of each remote under ``<common-gitdir>/hn/locks/``, named by a digest of
the remote's name: ``import-<digest>.lock``, held by ``git hn sync`` and by the fetch hook's
import for the whole import (advertisement to promotion), and ``publication-<digest>.lock``, held
by sync's publication phase, by the background publisher a push starts and by every rewrite of
unpublished memories (``service.reanchor``), which must know what is published. Two syncs with one
remote, or a push's publisher and a sync, used to run side by side: one lost the accepted-ref
compare-and-swap or the server's ref lock and failed, or validated its own stream against a state
the other was changing. Now the second waits (a hook does not: it says so and lets Git go on).

``flock`` locks: the kernel releases one when its process ends, however it ends, so a killed sync
never blocks the next. And while a sync holds the import lock, no other git-hn is promoting for
that remote: what lets it remove the ref lock files a killed sync's Git left (``clear_dead``).
"""

from __future__ import annotations

import os
import stat
from contextlib import ExitStack, contextmanager

from ...core.lines import lines_of
from ...errors import ConflictError, HnError
from ...store.lock import mark_released, released_since, remote_digest, remote_lock_path, stream_lock
from ...store.repo import Repo


def lock_path(repo: Repo, remote: str, what: str) -> str:
    return remote_lock_path(repo.hn_dir, remote, what)


def publication_marker(repo: Repo, remote: str, suffix: str) -> str:
    """``<common-gitdir>/hn/replication/publication-<digest>.<suffix>``: the background
    publication's markers (``running``, ``failed``, ``said``; ``background`` writes them)."""
    return os.path.join(repo.hn_dir, "replication", f"publication-{remote_digest(remote)}.{suffix}")


def forget_failure(repo: Repo, remote: str) -> None:
    """A publication to ``remote`` succeeded (a sync's, a block-mode push's, a background one): an
    earlier background failure is history (the next push said it still, after ``sync --rebase``
    had mended it), and so is the one said last (``background``: a later failure is no repeat)."""
    for suffix in ("failed", "said"):
        try:
            os.unlink(publication_marker(repo, remote, suffix))
        except OSError:
            pass  # (none, or one that cannot go: the next push says it once more)


def busy(remote: str) -> str:
    return f"another git hn sync with {remote} is running; run git hn sync {remote} after it"


def importing(repo: Repo, remote: str, wait: float, waiting=None):
    """The import lock of ``remote`` (``held``)."""
    return held(repo, lock_path(repo, remote, "import"), remote, wait, busy(remote), waiting)


def publishing(repo: Repo, remote: str, wait: float, waiting=None):
    """The publication lock of ``remote`` (``held``)."""
    return held(repo, lock_path(repo, remote, "publication"), remote, wait,
                f"another publication to {remote} is running; run git hn sync {remote} after it", waiting)


@contextmanager
def held(repo: Repo, path: str, remote: str, wait: float, busy_text: str, waiting=None):
    """The lock at ``path``: at once, else (``waiting()`` told) within ``wait`` seconds, else
    ``ConflictError(busy_text)``. After a wait, the answers Git gave before it (a command asks
    its first questions while Python starts: ``store.git.start_early``) are dropped: the sync
    that ran meanwhile changed what they describe; so are they when the lock was free at once
    but released after they were asked (each holder marks its release: ``lock.mark_released``)."""
    try:
        lock = stream_lock(repo.hn_dir, path, remote, timeout=0.0, busy=busy_text)
        lock.__enter__()
        # free at once, but maybe only just: a holder that released it after the early questions
        # were asked may have changed what they describe (a trial: two syncs in one clone, the
        # second read the accepted tips from before the first one's promotion, and then blamed
        # the teammate's valid stream, "sequence 25, want 26", or lost the ref transaction's
        # compare-and-swap)
        if released_since(path, repo.git.early_since()):
            repo.git.forget_early()
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
        mark_released(path)
        lock.__exit__(None, None, None)


ACCEPT_WAIT = 600.0  # seconds a sync waits for another remote's to accept (validation can take minutes)


def accepting(repo: Repo, remote: str, waiting=None, wait: float = ACCEPT_WAIT):
    """The acceptance lock (``<common-gitdir>/hn/locks/accept.lock``), one for every remote: held
    by an import from the accepted set it checks continuity against (§9.8) to its ref
    transaction, so that imports from two remotes never accept two diverging copies of one
    stream. The network is used under it only by ``--recover-shallow`` and a partial clone, to
    fetch the anchors or files classification found missing (bounded by the import's watchdog;
    ``docs/decisions.md``); the quarantine fetch is done by then. The wait is long: a sync with
    another remote waits, it does not skip; a hook's import waits for nothing (``wait`` 0: it
    says that a sync with another remote is accepting, and names the sync to run after it)."""
    return held(repo, os.path.join(repo.hn_dir, "locks", "accept.lock"), remote, wait,
                f"a sync with another remote is accepting memories; run git hn sync {remote} after it",
                waiting)


def own_streams(repo: Repo, streams: list[tuple[str, str]], held: ExitStack) -> None:
    """Take, into ``held``, the stream lock of each of ``streams`` (``(actor, stream)``) that the
    active identity appends to here, in one order, as ``store.append`` and re-anchoring take
    them, before the state's lock. An import holds them from its continuity check to its ref
    transaction: the same identity in two clones (``identity export``/``import``), a ``record``
    here while the import brought the other clone's newer memory both read the stream before
    the other wrote, and both took the next sequence (a fork every read then refused, which no
    ``--rebase`` could mend). Now the record waits and continues the accepted chain (reading
    Git's answers afresh after its wait), or the import sees the record and refuses the fork
    with the ``--rebase`` advice."""
    from ...core.grammar import local_ref
    from ...store.identity import active_actor

    mine = active_actor(repo)
    for actor, stream in sorted(s for s in streams if s[0] == mine):
        held.enter_context(stream_lock(repo.hn_dir, repo.lock_path(actor, stream), local_ref(actor, stream),
                                       on_wait=repo.git.forget_early))


def _promoting_path(repo: Repo, remote: str) -> str:
    return os.path.join(repo.hn_dir, "replication", f"promoting-{remote_digest(remote)}")


def promoting(repo: Repo, remote: str, updates: list[str], pid: int | None = None) -> None:
    """Record the refs a promotion's ref transaction (its ``create``/``update`` lines) locks, and
    the process ID of that ``update-ref``: Git holds one ``<ref>.lock`` per ref until the
    transaction ends (for a prepared one, most of a sync); a Git killed with it leaves them all,
    failing every later promotion, and ``clear_dead`` removes exactly those once that Git has
    ended (it runs in a session of its own, so it outlives a killed sync for a moment: its
    locks are live until then). Best effort (a derived file)."""
    from ...store import private

    refs = (f"pid {pid}\n" if pid else "") + "".join(line.split(" ")[1] + "\n" for line in updates)
    try:
        private.write_private(repo.hn_dir, _promoting_path(repo, remote), refs.encode("utf-8"), derived=True)
    except (HnError, OSError):
        pass


def promoted(repo: Repo, remote: str) -> None:
    """The transaction ``promoting`` recorded has ended (committed or aborted: Git removed its locks)."""
    try:
        os.unlink(_promoting_path(repo, remote))
    except OSError:
        pass


def _ended(pid: int, wait: float = 30.0) -> bool:
    """Whether the ``update-ref`` with process ID ``pid`` has ended, waiting up to ``wait``
    seconds for it (a transaction a killed sync left ends as soon as it reads the end of its
    input, or its hooks return). A process of that ID that is not ``git update-ref`` (the ID was
    used again) counts as ended."""
    from ...store.process import ended

    return ended(pid, (b"update-ref",), wait)


def clear_dead(repo: Repo, remote: str) -> list[str] | None:
    """At the start of an import: remove the ref lock files that a killed sync's transaction
    left (the refs ``promoting`` recorded and no ``promoted`` cleared), then the record. Only
    under ``remote``'s import lock, so the sync that wrote the record is dead; only the lock
    files of accepted refs of ``remote`` it names, so a lock another process holds on any other
    ref stays its owner's. A record is derived: one whose process ID is damaged counts as ended,
    and one that cannot be read safely is left to the next ``promoting`` to replace. Returns the
    files removed; None when no killed promotion was found (or its Git still runs)."""
    from ...core.grammar import parse_accepted_ref
    from ...store import private
    from ...store.process_tree import is_pid

    try:
        data = private.read_private(repo.hn_dir, _promoting_path(repo, remote), 16 << 20)
    except (HnError, OSError):
        data = None
    if data is None:
        return None
    lines = lines_of(data.decode("utf-8", "replace"))
    if lines and lines[0].startswith("pid "):
        # (a damaged ID, one ``process_tree.is_pid`` refuses, names no running Git: ended, as a
        # record without one is; ``pid ²`` passed ``str.isdigit`` and every sync then failed in
        # ``int`` with an internal ValueError, a review)
        if is_pid(lines[0][4:]) and not _ended(int(lines[0][4:])):
            return None  # (still running: its locks are its own; the next sync looks again)
        lines = lines[1:]
    removed = []
    for ref in lines:
        parsed = parse_accepted_ref(ref)
        if parsed is None or parsed[0] != remote:
            continue
        path = os.path.join(repo.common_dir, ref + ".lock")
        try:
            st = os.lstat(path)
            # (never an empty one: a killed promotion's prepared Git wrote each new value into its
            # lock; an empty lock is a live ``git pack-refs`` (``git gc``) or deletion's, and removing
            # it lost what that Git then wrote over: a review of the same rule for appends, f65)
            if stat.S_ISREG(st.st_mode) and st.st_size:
                os.unlink(path)
                removed.append(path)
        except OSError:
            pass
    promoted(repo, remote)
    return removed
