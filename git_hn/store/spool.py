"""An answer held aside until it is whole (issue 11: ``memory log``, ``export`` and ``view`` of a
whole history at 100k memories held every verified memory in memory at once, 0.5–0.9 GiB).

A command that writes the whole history verifies it page by page from the state and adds each
page's small tuples here; nothing reaches stdout or the output file until every page is verified,
so a state found corrupt part way is still discarded and the answer given again from the start
(``stateview.serve``: ``reset``), and the hints that come before the output (drift, shared names)
are decided from a first pass over what is held. Up to ``IN_MEMORY`` bytes stay in memory (the
usual log never touches a file); beyond, an anonymous temporary file (owner-only, already
unlinked: nothing is left behind, whatever ends the process) holds the rest.

Owns: the encoding (``marshal`` of lists of plain tuples, each length-prefixed: no code is run
on loading; or bytes read back by offset). Trusts: nothing but its own writes; what it holds was
verified before it was added.
"""

from __future__ import annotations

import io
import marshal

IN_MEMORY = 16 << 20


class Spool:
    def __init__(self) -> None:
        self._file = io.BytesIO()  # (``tempfile`` is imported only past ``IN_MEMORY``: 15 ms)
        self._on_disk = False
        self.count = 0

    def _write(self, data: bytes) -> int:
        self._file.seek(0, 2)
        at = self._file.tell()
        if not self._on_disk and at + len(data) > IN_MEMORY:
            import tempfile

            held, self._file = self._file, tempfile.TemporaryFile()
            self._file.write(held.getbuffer())
            self._on_disk = True
        self._file.write(data)
        return at

    def add(self, batch: list[tuple]) -> None:
        if batch:
            data = marshal.dumps(batch)
            self._write(len(data).to_bytes(8, "big") + data)
            self.count += len(batch)

    def put(self, data: bytes) -> int:
        """Hold ``data`` as it is (read back with ``read_at``); returns where it starts. A spool
        holds either ``put`` bytes or ``add`` batches, never both."""
        at = self._write(data)
        self.count += 1
        return at

    def read_at(self, at: int, size: int) -> bytes:
        self._file.seek(at)
        return self._file.read(size)

    def reset(self) -> None:
        """Forget everything added (an answer begun again)."""
        self._file.seek(0)
        self._file.truncate()
        self.count = 0

    def batches(self):
        """The batches as added, from the first; each call reads them again."""
        at = 0
        while True:  # (two reads a batch: ``marshal.load`` on the file read it a few bytes at a time)
            self._file.seek(at)  # (from where this reading left off: another may have moved it)
            size = self._file.read(8)
            if not size:
                return
            data = self._file.read(int.from_bytes(size, "big"))
            at += 8 + len(data)
            yield marshal.loads(data)

    def close(self) -> None:
        self._file.close()
