"""The threads git-hn starts, and whether any other runs.

Owns: ``Background`` (every thread git-hn starts) and ``alone``: whether the asking thread is
the process's only one. Trusts: nothing.

``_thread._count()`` counts a thread only once it has run, and a new thread runs only when it
gets the GIL: one started a moment ago is not counted yet, though it may import a module at
the next switch (a CI run of the suite saw ``store.sqlitelib`` take itself for alone beside
such a thread). So a ``Background`` thread counts from before it starts until its function has
ended (``_live``), and the interpreter's count covers it from its first step to its exit. A
thread some library starts with ``_thread.start_new_thread`` counts once it has run;
``threading.Thread.start`` waits for that itself.
"""

from __future__ import annotations

import _thread

_live: set = set()  # (the Background threads not ended; set.add and set.discard hold the GIL)


def alone() -> bool:
    """Whether no other thread runs, nor any ``Background`` thread is about to."""
    return not _live and not _thread._count()


class Background:
    """``fn(*args)`` in a thread of its own, for the threads that serve a child process or a
    batch of work (draining a pipe, waiting for an exit, feeding a batch, checking signatures).

    ``threading.Thread.start`` returns only once the new thread has run, which needs the GIL:
    while another thread computes, that is one or two of the interpreter's 5 ms switch intervals
    (a sync started a dozen threads and spent 13 ms of its critical path in ``start``). This
    returns at once (``_thread.start_new_thread``); ``join`` waits for the end. Like a daemon
    thread, it never keeps the interpreter alive; an exception ends it and is kept in
    ``error`` (the callers catch what they expect themselves)."""

    def __init__(self, fn, *args):
        self.error: BaseException | None = None
        self._done = _thread.allocate_lock()
        self._done.acquire()
        _live.add(self)
        try:
            _thread.start_new_thread(self._run, (fn, args))
        except BaseException:
            _live.discard(self)
            raise

    def _run(self, fn, args) -> None:
        try:
            fn(*args)
        except BaseException as exc:  # noqa: BLE001 - kept for the owner, as a thread would lose it
            self.error = exc
        finally:
            _live.discard(self)
            self._done.release()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the end (at most ``timeout`` seconds); whether it ended."""
        if not self._done.acquire(timeout=-1 if timeout is None else timeout):
            return False
        self._done.release()
        return True

    def is_alive(self) -> bool:
        if self._done.acquire(blocking=False):
            self._done.release()
            return False
        return True
