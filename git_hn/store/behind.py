"""Read-only Git questions started from a thread of their own (``Git.ask_behind``).

Starting a process blocks the thread that starts it until the new Git runs (``posix_spawn``
returns once the program is executing: 1 to 2 ms a process on a loaded machine, most of what an
answer costs), and the interpreter lets other threads run meanwhile. After a write, the questions
its hints ask (``memory.write_hints``) were four such starts in a row, each after the last one's
answer (issue 11, fixed cost); started here, they start while the command commits its verified
state, releases its lock and imports what the hints need.

Owns nothing but the order of starts: each question is an early answer of ``Git`` (collected by
``run`` with equal arguments, dropped by every write: ``Git.forget_early``), and a placeholder
waits for the thread before it is collected or dropped. Trusts ``Git.spawn``.
"""

from __future__ import annotations

import time

from .process import Background


def ask_behind(git, questions, key) -> None:
    """``Git.ask_behind``: a placeholder for each of ``questions`` not asked yet (``key``: where
    ``Git.run`` looks for it), and one thread that starts them in order."""
    fresh = [q for q in dict.fromkeys(map(tuple, questions)) if key(q) not in git._early]
    if not fresh:
        return
    git._early_since = git._early_since if git._early else time.time_ns()  # (``Git.early_since``)
    starts = Starts(git, fresh)
    git._early.update((key(q), Pending(starts, i, git.timeout)) for i, q in enumerate(fresh))


class Starts:
    """The thread that starts ``questions`` in order, and what it started (or why it stopped)."""

    def __init__(self, git, questions):
        self.started: list = []
        self.thread = Background(self._start_all, git, questions)

    def _start_all(self, git, questions) -> None:
        for args in questions:
            size = git.LISTING_PIPE_BYTES if args and args[0] in git.LISTINGS else 0
            self.started.append(git.spawn(args, stdout_bytes=size))

    def of(self, index: int):
        """The ``index``-th question's ``Started`` once the thread ended; raises what stopped its
        start (``not_started``: no git on PATH), as ``run`` would have."""
        self.thread.join()
        if index >= len(self.started):
            raise self.thread.error or RuntimeError("git was not started")
        return self.started[index]


class Pending:
    """One question ``Starts`` is starting, where ``Git`` keeps its early answers (``Started``'s
    ``finish``, ``abandon`` and ``timeout``)."""

    def __init__(self, starts: Starts, index: int, timeout: float):
        self.starts, self.index, self.timeout = starts, index, timeout

    def finish(self, data: bytes | None = None, limit: int | None = None):
        started = self.starts.of(self.index)
        started.timeout = self.timeout  # (``run``'s own bound, when it gave one)
        return started.finish(data, limit)

    def abandon(self) -> None:
        self.starts.thread.join()
        if self.index < len(self.starts.started):
            self.starts.started[self.index].abandon()
