"""The one exception hierarchy of git-hn.

Every failure git-hn reports is an ``HnError`` whose ``message`` is the exact one-line text of
CONTRACT §0.5 (without the ``git-hn: `` prefix, which the CLI adds). Subclasses say where the
fault comes from, so callers can decide what to retry or how to classify an outcome; the text is
what users and tests see. Foreign exceptions (OSError, subprocess failures, JSON decoder errors)
are translated once, at the module boundary that met them, with ``raise … from``.

Messages never carry private key material or whole payloads: constructors take the finished
message, and callers build it only from identifiers that passed ``one_line``.

A message whose way out names a CLI command may carry a second wording, ``mcp``: the same
message with the way out an MCP client can take (a tool and its arguments), which ``git hn mcp``
answers instead (an agent trial: told to run ``git hn memory challenge MEMORY --reason REASON``,
an agent with MCP tools only could not). Both are built by one function of ``core.hints`` with
an ``mcp`` switch (``hints.both``), so the contract's text is written once.
"""

from __future__ import annotations


class HnError(Exception):
    """Root of every error git-hn reports. ``message`` is the contract's text; ``mcp``, when
    given, the same text in the MCP tools' words (``for_mcp``)."""

    def __init__(self, message: str, mcp: str | None = None):
        super().__init__(message)
        self.message = message
        self.mcp = mcp

    def for_mcp(self) -> str:
        """The message as ``git hn mcp`` answers it: its MCP wording, else the message."""
        return self.mcp or self.message

    def __str__(self) -> str:
        return self.message


class UsageError(HnError):
    """The command line does not have the shape the command needs (CONTRACT §10.1)."""


class InputError(HnError):
    """A request supplied by the user (flags, ``--input`` documents, filters) is invalid."""


class SecretShapedError(InputError):
    """The secret lint refused a request before signing (CONTRACT §10.6). ``finding`` names the
    field and the detector, never the value."""

    def __init__(self, message: str, finding=None):
        super().__init__(message)
        self.finding = finding


class ValidationError(HnError):
    """Memory data fails a protocol rule (CONTRACT §1.4–§1.6, §4.2): hostile or corrupt bytes."""


class PolicyError(HnError):
    """``.hn/policy.json`` at the query commit is invalid (CONTRACT §6.2–§6.3)."""


class PolicyInvalid(PolicyError):
    """The committed ``.hn/policy.json`` exists and fails §6.2–§6.3 (not: unavailable, or at a
    commit replication holds). ``cause`` is the contract's text alone, without where and what to
    do, for a command that reads on without the policy (``service.invalid_policy``)."""

    def __init__(self, message: str, cause: str):
        super().__init__(message)
        self.cause = cause


class LocalStateError(HnError):
    """Private local state (keyring, locks, caches, index) is missing, unsafe or unreadable."""


class ConflictError(HnError):
    """A compare-and-swap lost a race, or a lock could not be taken in time."""


class StateBusy(ConflictError):
    """The verified state's lock stayed taken (another git-hn updating the state) for as long as
    the caller waits: a check that needs the state cannot be done now (``stateview.checking``)."""


class BudgetError(HnError):
    """A bound or replication budget was exceeded."""


class GitError(HnError):
    """A Git process failed in a way git-hn cannot attribute to the user's input."""


class GitTimedOut(GitError):
    """A Git process did not end within its caller's time and was stopped (a hint that gives up
    on it may say so: ``service.retrust``)."""


class OutputTooLarge(GitError):
    """A Git process wrote more than its caller's bound on its output (``limit`` bytes); it was
    stopped. A remote's listing is bounded so (``store.transport.advertisement_limit``)."""

    def __init__(self, message: str, limit: int):
        super().__init__(message)
        self.limit = limit


class RemoteError(HnError):
    """A remote, or data fetched from it, is invalid or hostile."""


class OversizedRecord(LocalStateError):
    """A replication receipt or anchor over the bound a receipt is written within
    (``store.replication.RECEIPT_MAX``): an earlier git-hn wrote one for a sync of about 84,000
    memories or more (f115), and every read refused it. Said with its path and the way out
    (``store.oversized`` splits it), never as "repair the local replication transaction record"
    (raised by ``store.receipt_files``)."""


class StateError(LocalStateError):
    """The verified state cannot answer this command; it is answered from a full verification
    instead (these never reach the user as such)."""

    def __init__(self, message: str = "memory state cannot answer"):
        super().__init__(message)


class StateUnavailable(StateError):
    """Replication state is pending: reads must check every commit against it (§9.17)."""


class StateCorrupt(StateError):
    """The state disagrees with Git; it is discarded."""


class StateUnwritable(StateError):
    """The private directory cannot be written here (a read-only or foreign repository)."""


class StateWriteFailed(StateError):
    """Writing the state failed (a full disk, an I/O error); ``cause`` is one line without data."""

    def __init__(self, cause: str):
        cause = with_space_hint(cause)
        super().__init__(f"memory state could not be written: {cause}")
        self.cause = cause


# what a full disk is called: SQLite's SQLITE_FULL, and the system's ENOSPC (a trial filled the
# disk; the index messages said what had failed and not what to do)
DISK_FULL = ("database or disk is full", "No space left on device")


# SQLite's SQLITE_IOERR, which is also what a write refused for the file-size limit (EFBIG) or a
# failing disk (EIO) becomes (an audit: the index messages said no more than this)
IO_ERROR = "disk I/O error"


def with_space_hint(cause: str) -> str:
    """``cause``, followed by what to do when it says the disk is full (or, SQLite's I/O error,
    may mean it)."""
    if cause == IO_ERROR:
        return f"{cause}; check the free disk space and the file-size limit (ulimit -f)"
    return f"{cause}; free some disk space" if cause.endswith(DISK_FULL) else cause


def chmod_way_out(what: str, path: str, recursive: bool = False) -> str:
    """The way out of a write that permissions refused: "make WHAT writable (chmod [-R ]u+w
    PATH)", ``path`` one shell word (one spelling for the lock, the state, the hooks and setup's
    refusals, which a reread found written out by each)."""
    import shlex

    return f"make {what} writable (chmod {'-R ' if recursive else ''}u+w {shlex.quote(path)})"


class Signalled(BaseException):
    """A termination signal (SIGTERM, SIGINT, SIGHUP) arrived during a command that cleans up
    before it ends (``sync``). Like ``KeyboardInterrupt`` it is not an ``HnError``: no handler
    that turns errors into outcomes may catch it, so every ``finally`` runs on the way out.

    ``taken``: the signals the command's stop handler took (``cli.commands._signals_raise``),
    for ``unless_lost``."""

    taken: list[int] = []

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @classmethod
    def unless_lost(cls) -> None:
        """Raise the stop a handler took whose exception never arrived, before a step that
        cannot be undone (a promotion's ref transaction; and as a sync's fetch ends, before
        anything is measured or verified): Python drops an exception that a signal
        handler raises while ``compile()`` runs (a module imported from source, its bytecode
        cache missing or stale and unwritable; CPython 3.10 to 3.13, most of the times tried),
        and a sync stopped by SIGTERM during such an import promoted everything and exited 0.
        Reached with a stop taken, its exception was lost: any other way here would have
        unwound past it."""
        if cls.taken:
            raise cls(cls.taken[0])


class Interrupted(HnError):
    """A crash seam stopped a replication transaction (only under the testing switch, §9.19)."""
