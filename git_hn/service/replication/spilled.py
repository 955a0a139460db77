"""An import's verified memories, held compact until their transaction (issue 11, f123).

Validation verifies every new memory of a sync at once, and classification and the plan of the
transactions look at all of them; but only the state's part of each transaction reads what a
memory says (its content), when it signed (its timestamp) and its signature. A 100,000-memory
sync held those for every memory from validation to its last transaction (~70 MiB of the ~130 MiB
its lean memories took). So as each verifier batch is collected, its memories go whole into an
anonymous temporary file (owner-only, already unlinked: nothing is left behind, whatever ends
the process), and the outcomes hold them ``compact``: the same memories with an empty content,
timestamp and signature. ``full`` gives a transaction's memories back whole, read from the file
a batch at a time; every value is the one verification gave.

Owns: the file and its encoding (``pickle`` of the lists the verifier's workers pickled already;
only this process writes and reads it). Trusts: nothing but its own writes.
"""

from __future__ import annotations

import pickle

from ...core.chain import VerifiedMemory


def compact(m: VerifiedMemory) -> VerifiedMemory:
    """``m`` without its content, timestamp and signature (what classification, the plan and
    the receipts never read)."""
    env = m.envelope
    rec = env.record
    if rec is not None:
        rec = rec._replace(content="")
    return VerifiedMemory(m.memory_id, m.commit, env._replace(timestamp="", record=rec), b"", "")


def is_compact(m: VerifiedMemory) -> bool:
    return not m.signature  # (a verified memory always has its signature)


class Spilled:
    def __init__(self):
        import tempfile

        self._file = tempfile.TemporaryFile(prefix="hn-memories-")
        self._end = 0
        self._parts: dict[str, list[tuple[int, int]]] = {}  # ref -> (offset, length) of each batch
        self.written = 0  # memories written (the tests' counter)

    def keep(self, ref: str, memories: list) -> list:
        """Write ``memories`` (of ``ref``, in chain order) whole; return them compact."""
        if not memories:
            return memories
        data = pickle.dumps(memories, protocol=pickle.HIGHEST_PROTOCOL)
        self._file.seek(self._end)
        self._file.write(data)
        self._parts.setdefault(ref, []).append((self._end, len(data)))
        self._end += len(data)
        self.written += len(memories)
        return [compact(m) for m in memories]

    def full(self, ref: str, memories: list) -> list:
        """``memories`` (some of ``ref``'s, compact or not) whole, in their order."""
        wanted = {m.memory_id for m in memories if is_compact(m)}
        if not wanted:
            return list(memories)
        found: dict[str, VerifiedMemory] = {}
        for offset, length in self._parts.get(ref, ()):
            self._file.seek(offset)
            for m in pickle.loads(self._file.read(length)):
                if m.memory_id in wanted:
                    found[m.memory_id] = m
        if len(found) != len(wanted):
            raise OSError("an imported memory is missing from its temporary file")
        return [found[m.memory_id] if is_compact(m) else m for m in memories]

    def close(self) -> None:
        self._file.close()
