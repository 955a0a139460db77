"""The replication pending state's value (CONTRACT §9.17): the objects no trust read may use
while an acceptance is pending, and the refusal it causes (after waiting for a live sync that is
completing its acceptance: ``refuse``); and the remembered answer "nothing is pending"
(``pending-v0.memo``).

A leaf module, so that every command can hold "nothing is pending" (``NONE``), and find it
remembered, without loading the replication state code: ``store/replication.py`` computes the
value from receipts and anchors when it is not remembered.
"""

from __future__ import annotations

import os

from ..core.tuples import NamedTuple
from ..errors import HnError, ValidationError


class Pending(NamedTuple):
    """The denied set (§9.17) and what a refusal message needs."""

    denied: dict  # oid -> (txn, remote)
    ok: bool  # False when the state is inconsistent: every trust read fails
    invalid_txn: str
    invalid_remote: str
    anchors: dict  # txn -> (remote, pending objects) for repair
    receipts: dict  # txn -> parsed receipt

    def remotes(self) -> set[str]:
        return ({r for r, _p in self.anchors.values()} | {v[1] for v in self.denied.values()}
                | ({self.invalid_remote} if not self.ok else set()))

    def refuse(self, oid: str) -> None:
        """Raise the §9.17 refusal if ``oid`` may not be read for trust."""
        if not self.ok:
            raise ValidationError(pending_message(self.invalid_txn, self.invalid_remote, oid, invalid=True))
        got = self.denied.get(oid)
        if got is not None:
            raise ValidationError(pending_message(got[0], got[1], oid))


NONE = Pending({}, True, "", "", {}, {})


ACCEPTANCE_WAIT = 30.0  # seconds a read waits for a live sync to complete the acceptance it committed


def refuse(repo, oid: str) -> None:
    """``repo.pending().refuse(oid)``, except for an object a live acceptance denies only for
    the moment: a sync commits its accepted-ref transaction and then writes the ``complete``
    receipt that accepts what the new tips reach (§9.11–§9.12), and a command of another process
    that read the new tip between the two found it denied and was told to run
    ``--recover-shallow`` (2–3 % of reads during a teammate's import, a trial). While the denying
    transaction's remote has its import lock held elsewhere (that sync is running: it holds it
    from its repair of pending state to its ``complete`` receipt), the read waits for it, at
    most ``ACCEPTANCE_WAIT`` seconds, and reads the pending state again. With no sync running it
    is a crash's leftover and is refused at once (§9.17, fail closed); so is anything still
    denied after the wait."""
    pending = repo.pending()
    try:
        pending.refuse(oid)
        return
    except ValidationError:
        got = pending.denied.get(oid) if pending.ok else None
        if got is None or not _wait_for_import(repo, got[1]):
            raise
    repo.forget_pending()
    repo.pending().refuse(oid)


def _wait_for_import(repo, remote: str) -> bool:
    """Whether ``remote``'s import lock was held by another process, waiting (polled, never
    taken: a read must not hold up the sync) until it is released or ``ACCEPTANCE_WAIT`` ends."""
    import time

    from .lock import held_elsewhere, remote_lock_path

    path = remote_lock_path(repo.hn_dir, remote, "import")
    if not remote or not held_elsewhere(path):
        return False
    # one wait a command, shared by every stream it reads (a review: a read of N denied streams
    # waited N times 30 s, one after another)
    deadline = getattr(repo, "acceptance_deadline", None) or time.monotonic() + ACCEPTANCE_WAIT
    repo.acceptance_deadline = deadline
    while held_elsewhere(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return True


def pending_message(txn: str, remote: str, oid: str = "", invalid: bool = False) -> str:
    parts = [f"replication acceptance pending; transaction={txn}"]
    if remote:
        parts.append(f"remote={remote}")
    if oid:
        parts.append(f"object={oid}")
    if invalid:
        parts.append("state=invalid")
    recovery = (f"retry git hn sync {remote} --recover-shallow" if remote else
                "repair the local replication transaction record before retrying sync")
    parts.append(f"recovery={recovery}")
    return "; ".join(parts)


# -- the remembered answer ---------------------------------------------------------------------

MEMO = "pending-v0.memo"


def _replication(repo) -> str:
    return os.path.join(repo.hn_dir, "replication")


def memo_files(repo) -> list[str] | None:
    """The identity (name, inode, size, mtime, ctime) of every receipt and anchor file: what the
    remembered answer was computed from. None when they cannot be read safely (the answer is
    then computed, and any problem reported, the long way)."""
    from . import private

    parts = []
    for directory in ("transactions", "anchors"):
        path = os.path.join(_replication(repo), directory)
        try:
            if not private.check_dirs(repo.hn_dir, path):
                continue
            for name in sorted(n for n in os.listdir(path) if not n.startswith(private.TEMPORARY)):
                st = os.lstat(os.path.join(path, name))
                parts.append(f"{directory}/{name}\0{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
        except (OSError, HnError):
            return None
    return parts


def memo_key(files: list[str]) -> str:
    from ..core import hashing

    return hashing.sha256("\n".join(files).encode("utf-8", "surrogateescape")).hexdigest()


def remembered(repo) -> str | None:
    """The key under which "nothing is pending" was remembered, if it was."""
    from . import private

    try:
        data = private.read_private(repo.hn_dir, os.path.join(_replication(repo), MEMO), max_bytes=128)
    except HnError:
        return None
    return data.decode("ascii", "replace").strip() if data is not None else None


def remembers_nothing(repo) -> bool:
    """Whether "nothing is pending" is remembered for the receipt and anchor files as they are."""
    return nothing_pending_files(repo) is not None


def remember_nothing(repo, files: list[str]) -> None:
    """Remember "nothing is pending" for ``files`` (``memo_files``). Best effort: a disposable
    file, not fsynced (losing it costs one reading of the receipts)."""
    from . import private

    try:
        private.write_private(repo.hn_dir, os.path.join(_replication(repo), MEMO),
                              (memo_key(files) + "\n").encode(), derived=True)
    except HnError:
        pass


def nothing_pending_files(repo) -> list[str] | None:
    """When "nothing is pending" is remembered, the receipt and anchor files it was remembered
    for (for ``remember_completed``); else None."""
    files = memo_files(repo)
    return files if files is not None and remembered(repo) == memo_key(files) else None


def remember_completed(repo, before: list[str] | None, txn: str) -> None:
    """After transaction ``txn`` completed (its ``complete`` receipt written, its anchor
    removed): when nothing was pending before it (``before``: ``nothing_pending_files``'s
    answer then) and the receipt and anchor files are now exactly those plus that receipt,
    nothing is pending now either (a ``complete`` receipt only accepts objects). Remember that,
    so that the next command does not read the receipt the sync just wrote. Any other change
    (another sync's anchor, a reconciled receipt, a file that changed) leaves the answer to be
    computed the long way."""
    if before is None:
        return
    after = memo_files(repo)
    mine = f"transactions/{txn}.json\0"
    if after is None or len(after) != len(before) + 1 or [f for f in after if not f.startswith(mine)] != before:
        return
    remember_nothing(repo, after)
