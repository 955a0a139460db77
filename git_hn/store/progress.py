"""Telling whoever listens that the store is doing long work of its own accord.

A read command normally answers from the verified state in milliseconds; when it must verify
every memory again (the state is missing, after an install or an upgrade that changes git-hn's
verifying code or its Ed25519 libraries, or was damaged, or cannot answer), that is seconds at 100,000 memories, with nothing
on the screen. The store announces such work here, as plain counts; it never renders. The CLI
listens on a terminal (``cli.notice``; a hook's command too, git passing its stderr through); the
MCP server, ``sync`` (which draws its own progress, and hears only of waits) and every command
whose stderr is not a terminal do not, and then this costs nothing.

The store also says when a command has waited ``SAY_AFTER`` seconds for a lock another git-hn
process holds (``waiting``: the verified state's, a stream's, a remote's import or publication):
a push made during an ``index rebuild`` sat for seconds, a ``recall`` for up to two minutes, with
no word. Said once for each lock a command waits for, and never while the lock is free.

Owns: the one listener (and, for a block, one that hears first: ``heard``). Trusts: the listener
to return at once and raise nothing.
"""

from __future__ import annotations

import time

NOTICE_FROM = 1000  # memory commits: a full verification of fewer ends before any notice shows


class Work:
    """Long work as it goes: ``advance(n)`` units done (``total`` in all), ``end()`` once."""

    def advance(self, n: int) -> None:
        pass

    def end(self) -> None:
        pass


SILENT = Work()
_listener = None
_waited = None
_said: set[str] = set()  # the locks whose wait this command has told of (``waiting``)


def listen(listener, waited=None) -> None:
    """``listener(what, total)`` returns a ``Work`` for each long piece of work (None: nobody
    listens); ``what`` is a few fixed words and counts, never author text. ``waited(what, pid)``
    is told of a long wait for a lock (``waiting``; None: nobody listens)."""
    global _listener, _waited
    _listener, _waited = listener, waited


class heard:
    """While the ``with`` block runs, ``first(what, total)`` hears of each long piece of work
    before the listener does (whether one listens or not): a hook that builds the state to check a
    push says so once, on a stderr that is no terminal too (``service.check_state``). (A class:
    this module imports nothing.)"""

    def __init__(self, first):
        self.first, self.previous = first, None

    def __enter__(self) -> None:
        global _listener
        self.previous = previous = _listener

        def both(what: str, total: int) -> Work:
            self.first(what, total)
            return previous(what, total) if previous is not None else SILENT

        _listener = both

    def __exit__(self, *_exc) -> None:
        global _listener
        _listener = self.previous


def verifying(commits: int, distinct=None) -> Work:
    """The ``Work`` of verifying ``commits`` memory commits in full (``distinct()``, when given,
    counts those that are verified once: the same commit may be reached from several refs):
    two units a commit, one as it is read and staged, one as its verified memory is taken (the
    signatures are checked between, on the workers)."""
    if _listener is None or commits < NOTICE_FROM:
        return SILENT
    n = distinct() if distinct is not None else commits
    return _listener(f"verifying {n:,} memories", 2 * n)


STORING_STEPS = 5  # ``derive.load``'s steps (``state.load_collection``'s)


def storing(memories: int) -> Work:
    """The ``Work`` of loading ``memories`` verified memories into an empty state, in steps."""
    if _listener is None or memories < NOTICE_FROM:
        return SILENT
    return _listener(f"storing {memories:,} verified memories", STORING_STEPS)


SAY_AFTER = 1.0  # seconds of waiting for another git-hn's lock before the wait is said


class Wait:
    """A wait for a lock another process holds, from its first try that found it taken: ``poll()``
    at each try after tells whoever listens once the wait has lasted ``SAY_AFTER`` seconds
    (``waiting``). ``what``: a few fixed words, what the lock guards (None: never said);
    ``holder()``: the holder's process ID or None, asked only when someone listens."""

    def __init__(self, what: str | None, holder):
        self.what, self.holder = what, holder
        self.started = time.monotonic()

    def poll(self) -> None:
        if self.what is not None and time.monotonic() - self.started >= SAY_AFTER:
            waiting(self.what, self.holder)
            self.what = None


def waiting(what: str, holder) -> None:
    """Tell the listener that this command waits for ``what`` (the lock of the memory state, say),
    at most once a command for each ``what``; ``holder()``: the process ID holding it, or None."""
    if _waited is None or what in _said:
        return
    _said.add(what)
    _waited(what, holder())
