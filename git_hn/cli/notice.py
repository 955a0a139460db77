"""One status line on a terminal's stderr while the store verifies every memory again, and one
line when a command has waited a while for a lock another git-hn process holds.

A read command that finds no usable verified state (the first command after an install, or
after an upgrade that changes git-hn's verifying code or its Ed25519 libraries, a damaged
state file) verifies all memory before it answers: seconds at 100,000 memories. Once such work
has taken ``AFTER`` seconds, a line says what it is and how far it got, redrawn in place at most
every ``EVERY`` seconds, and erased when the work ends, before the command's own output or error
line. Nothing is shown when
stderr is not a terminal (agents, scripts, pipes) or ``TERM`` is ``dumb``, and rich is imported
only once the line is due.

No thread: the line is drawn when the store reports progress (``store.progress``), from the
thread doing the work, so nothing runs beside a fork of the verifier's worker processes. The
line holds only counts and fixed words, never author text.

A wait for another git-hn's lock (``store.progress.waiting``: a ``recall`` during an ``index
rebuild``, a push's hook during a sync) is said once it has lasted a second, in one line that
stays, once for each lock a command waits for: ``git-hn: waiting for another git-hn process
(pid 1234) that holds the memory state...``. It is said on any terminal, ``TERM=dumb`` too
(nothing is redrawn), and never elsewhere.
"""

from __future__ import annotations

import os
import sys
import time

from ..store import progress

AFTER = 1.0  # seconds of work before the line shows
EVERY = 0.1  # seconds between redraws
GOES_ON = 0.25  # seconds between two pieces of work that make them one wait


def install() -> None:
    """Listen for the store's long work when stderr is a terminal that can erase a line, and for
    its long waits when stderr is a terminal."""
    from .render import stderr_on_terminal

    if stderr_on_terminal():
        progress.listen(Line if os.environ.get("TERM", "dumb") != "dumb" else None, waited)


def waiting_words(what: str, pid: int | None) -> str:
    """What a wait for a lock (``what``: fixed words) that process ``pid`` holds is said as: in
    ``waited``'s line, and on ``sync``'s own progress line."""
    holder = f" (pid {pid})" if pid else ""
    return f"waiting for another git-hn process{holder} that holds {what}"


def waited(what: str, pid: int | None) -> None:
    """The line of a wait for a lock (``waiting_words``); a status line drawn is erased first,
    and drawn again as the work goes on."""
    from .render import fitted

    try:
        if Line.shown is not None and Line.shown.console:
            Line.shown._erase()
        sys.stderr.write(fitted(f"git-hn: {waiting_words(what, pid)}...") + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # a terminal gone: the wait goes on unsaid
        pass


class Line(progress.Work):
    previous = None  # (started, ended) of the last work, in monotonic seconds
    shown = None  # the work whose line is drawn

    def __init__(self, what: str, total: int):
        self.what, self.total = what, max(total, 1)
        self.done = 0
        self.started = time.monotonic()
        if Line.previous is not None and self.started - Line.previous[1] < GOES_ON:
            # the same wait goes on in another step (verifying, then storing): timed from its start
            self.started = Line.previous[0]
        self.drawn_at = 0.0
        self.console = None
        self.advance(0)  # drawn at once when the wait already outlasted ``AFTER``

    def advance(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.started < AFTER or now - self.drawn_at < EVERY:
            return
        self.drawn_at = now
        Line.shown = self
        try:
            self._draw(f"git hn: {self.what} ({min(100 * self.done // self.total, 99)}%)")
        except (OSError, ValueError, ImportError):  # a terminal gone: the work goes on unseen
            self.console = False

    def end(self) -> None:
        Line.previous = (self.started, time.monotonic())
        Line.shown = None
        if self.console:
            try:
                self._erase()
            except (OSError, ValueError):
                pass
        self.console = False

    def _draw(self, text: str) -> None:
        if self.console is False:
            return
        if self.console is None:
            from rich.console import Console

            self.console = Console(stderr=True, markup=False, emoji=False, highlight=False)
        from rich.text import Text

        self._erase()
        self.console.print(Text(text[: max(self.console.width - 1, 1)]), end="")

    def _erase(self) -> None:
        from rich.control import Control, ControlType

        self.console.control(Control((ControlType.CARRIAGE_RETURN,), (ControlType.ERASE_IN_LINE, 2)))
