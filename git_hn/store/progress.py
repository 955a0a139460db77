"""Telling whoever listens that the store is doing long work of its own accord.

A read command normally answers from the verified state in milliseconds; when it must verify
every memory again (the state is missing, after an install or an upgrade that changes git-hn's
verifying code or its Ed25519 libraries, or was damaged, or cannot answer), that is seconds at 100,000 memories, with nothing
on the screen. The store announces such work here, as plain counts; it never renders. The CLI
listens on a terminal (``cli.notice``); hooks, the MCP server, ``sync`` (which draws its own
progress) and every command whose stderr is not a terminal do not, and then this costs nothing.

Owns: the one listener (and, for a block, one that hears first: ``heard``). Trusts: the listener
to return at once and raise nothing.
"""

from __future__ import annotations

NOTICE_FROM = 1000  # memory commits: a full verification of fewer ends before any notice shows


class Work:
    """Long work as it goes: ``advance(n)`` units done (``total`` in all), ``end()`` once."""

    def advance(self, n: int) -> None:
        pass

    def end(self) -> None:
        pass


SILENT = Work()
_listener = None


def listen(listener) -> None:
    """``listener(what, total)`` returns a ``Work`` for each long piece of work (None: nobody
    listens); ``what`` is a few fixed words and counts, never author text."""
    global _listener
    _listener = listener


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
