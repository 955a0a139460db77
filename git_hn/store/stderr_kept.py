"""A child process's stderr, bounded (``process.exchange``): its start and its end kept, what
lies between drained and dropped, so that a hostile remote's hook printing without end through
``git push`` or ``git fetch`` costs no memory.

Owns: how much of a child's stderr is kept, and the line that says what was left out.
Trusts: nothing in the bytes (they are kept, never interpreted here).
"""

from __future__ import annotations

STDERR_HEAD = STDERR_TAIL = 32768  # bytes of a child's stderr kept from its start and its end


class Stderr:
    """A child's stderr, at most ``STDERR_HEAD + STDERR_TAIL`` bytes of it held: its start (a
    server's first ``remote:`` line, the reason a push was refused) and its end (Git's own
    ``fatal:``/``error:`` lines, written last), whole lines each; what lies between is drained
    and dropped, and said in one line of its own. A hostile remote's hook can print without end
    through ``git push`` or ``git fetch`` (one that printed 400 MB took a sync to 1.2 GB)."""

    def __init__(self):
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0

    def append(self, chunk: bytes) -> None:
        room = STDERR_HEAD - len(self.head)
        if room > 0 and not self.tail:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * STDERR_TAIL:  # (trimmed now and then, not at every chunk)
                self._trim()

    def _trim(self) -> None:
        cut = len(self.tail) - STDERR_TAIL
        if cut > 0:
            self.dropped += cut
            del self.tail[:cut]

    def text(self) -> bytes:
        self._trim()
        head, tail, dropped = bytes(self.head), bytes(self.tail), self.dropped
        if not dropped:
            return head + tail
        cut = head.rfind(b"\n") + 1  # whole lines on both sides of what is left out
        head, dropped = (head[:cut], dropped + len(head) - cut) if cut else (head + b"\n", dropped)
        cut = tail.find(b"\n") + 1
        tail, dropped = tail[cut:], dropped + cut
        return head + b"[%d bytes of output left out]\n" % dropped + tail
