"""An import's verified memories, held compact until their transaction (issue 11, f123).

Validation verifies every new memory of a sync at once, and classification and the plan of the
transactions look at all of them; but only the state's part of each transaction reads what a
memory says (its content), when it signed (its timestamp) and its signature. A 100,000-memory
sync held those for every memory from validation to its last transaction (~70 MiB of the ~130 MiB
its lean memories took). So as each verifier batch is collected, what ``compact`` takes from its memories (each one's
timestamp, content, payload and signature, after its memory ID) goes into an anonymous temporary
file (owner-only, already unlinked: nothing is left behind, whatever ends the process), and the
outcomes hold them ``compact``: the same memories with an empty content, timestamp and
signature. A memory read back is its compact copy with those four put back (``_whole``): every
value is the one verification gave (f134: the file held each memory pickled whole, and a second
pickle of its signatures; pickling the named tuples again was most of the 350 ms ``keep`` took at
20,000 memories). A transaction's state update takes its memories' signatures back
(``full(signed=True)``: its chain rows) and writes its rows a part at a time, each part's
memories read back whole (``store.insertion.loading``), from the file a batch at a time. Where no
temporary file can be made or written (a full disk), what is not in it is held whole, as before.

Owns: the file and its encoding (``marshal`` of plain tuples of strings and bytes: only this
process, one interpreter, writes and reads it). Trusts: nothing but its own writes.
"""

from __future__ import annotations

import marshal
import os

from ...core.chain import VerifiedMemory
from ...core.envelope import Envelope, Record


def compact(m: VerifiedMemory, commit: str = "") -> VerifiedMemory:
    """``m`` without its content, timestamp and signature (what classification, the plan and
    the receipts never read); its commit ID the string ``commit`` when that is equal (the walk's,
    which the import holds anyway). The tuples are made whole, not by ``_replace`` (a keyword
    call per tuple: 5.0 -> 2.1 ms per 2,048 memories)."""
    env = m[2]
    rec = env[_RECORD]
    if rec is not None:
        rec = _new(type(rec), (*rec[:_CONTENT], "", *rec[_CONTENT + 1:]))
    env = _new(type(env), (*env[:_TIMESTAMP], "", *env[_TIMESTAMP + 1:_RECORD], rec, *env[_RECORD + 1:]))
    return _new(VerifiedMemory, (m[0], commit if commit == m[1] else m[1], env, b"", ""))


_new = tuple.__new__
_TIMESTAMP, _RECORD = Envelope._fields.index("timestamp"), Envelope._fields.index("record")
_CONTENT = Record._fields.index("content")
_SEQUENCE = Envelope._fields.index("sequence")
assert _TIMESTAMP < _RECORD and VerifiedMemory._fields[2:] == ("envelope", "payload", "signature")


def is_compact(m: VerifiedMemory) -> bool:
    return not m.envelope.timestamp  # (a verified memory always has its timestamp)


def _taken(m: VerifiedMemory) -> tuple:
    """What ``compact`` takes from ``m``: (memory ID, timestamp, content, payload, signature)."""
    env = m[2]
    rec = env[_RECORD]
    return m[0], env[_TIMESTAMP], None if rec is None else rec[_CONTENT], m[3], m[4]


def _whole(c: VerifiedMemory, taken: tuple) -> VerifiedMemory:
    """The memory whose compact copy is ``c`` and of which ``_taken`` gave ``taken``."""
    env = c[2]
    rec = env[_RECORD]
    if rec is not None:
        rec = _new(type(rec), (*rec[:_CONTENT], taken[2], *rec[_CONTENT + 1:]))
    env = _new(type(env), (*env[:_TIMESTAMP], taken[1], *env[_TIMESTAMP + 1:_RECORD], rec, *env[_RECORD + 1:]))
    return _new(VerifiedMemory, (c[0], c[1], env, taken[3], taken[4]))


class Spilled:
    def __init__(self):
        import tempfile

        self._file = tempfile.TemporaryFile(prefix="hn-memories-")
        self._end = 0
        self.failed = False  # a write failed (a full disk): what is collected from then on is held whole
        # ref -> (offset, length, first and last sequence) of each batch of its memories written
        self._parts: dict[str, list[tuple[int, int, int, int]]] = {}
        self.written = 0  # memories written (the tests' counter)

    def keep(self, batch: list) -> list:
        """Write what ``compact`` takes from the memories of each ``(ref, memories, commits)`` of
        ``batch`` (some streams' memories of a verifier batch: ``ref``'s, in chain order, walked
        as ``commits``); return each one's memories compact, or whole when its write failed
        (nothing is held compact that the file does not hold). One seek and one flush a call
        (``verify.KEEP_EVERY``): one of each per stream was 10,000 of each at 10,000 streams."""
        if self.failed:
            return [memories for _r, memories, _c in batch]
        dumps = marshal.dumps
        file = self._file
        parts = []  # (ref, offset, length, first, last) of each ref written
        at = self._end
        try:
            file.seek(at)
            for ref, memories, _c in batch:
                if not memories:
                    continue
                data = dumps([_taken(m) for m in memories])
                file.write(data)  # (one write a ref, as a full disk fails it)
                seqs = [m[2][_SEQUENCE] for m in memories]
                parts.append((ref, at, len(data), min(seqs), max(seqs)))
                at += len(data)
            file.flush()
        except OSError:
            self.failed = True
            try:  # what was written before the failure is held compact, once in the file
                file.flush()
            except OSError:
                parts = []
        for ref, offset, length, first, last in parts:
            self._parts.setdefault(ref, []).append((offset, length, first, last))
        self._end = at  # (the end of the last ref written: after a failure, nothing more is)
        out = []
        written = {ref for ref, *_rest in parts}
        for ref, memories, commits in batch:
            if ref not in written:
                out.append(memories)
                continue
            self.written += len(memories)
            if len(commits) != len(memories):
                commits = [""] * len(memories)
            out.append([compact(m, c) for m, c in zip(memories, commits)])
        return out

    def full(self, ref: str, memories: list, signed: bool = False) -> list:
        """``memories`` (some of ``ref``'s, compact or not) whole, in their order; with ``signed``
        only their signatures (still compact otherwise: what the state's chain rows take)."""
        wanted = {m.memory_id for m in memories if is_compact(m) and not (signed and m.signature)}
        if not wanted:
            return list(memories)
        seqs = [m.envelope.sequence for m in memories if m.memory_id in wanted]
        low, high = min(seqs), max(seqs)
        found: dict[str, tuple] = {}
        for offset, length, first, last in self._parts.get(ref, ()):
            if last < low or first > high:
                continue
            found.update((t[0], t) for t in marshal.loads(self._read(offset, length)) if t[0] in wanted)
        if len(found) != len(wanted):
            raise OSError("an imported memory is missing from its temporary file")
        if signed:
            return [m._replace(signature=found[m.memory_id][4]) if m.memory_id in wanted else m
                    for m in memories]
        return [_whole(m, found[m.memory_id]) if m.memory_id in wanted else m for m in memories]

    def full_of_any(self, memories: list, ref_of) -> list:
        """``memories`` of any streams whole, in their order (``ref_of(actor, stream)``: the ref
        they were kept under). The batches they are in are read in the file's order, each once
        (the memories of a state part: 4,096 of 2,048 streams, ~12 % less than stream by stream)."""
        by_ref: dict[str, list] = {}
        for m in memories:
            if is_compact(m):
                by_ref.setdefault(ref_of(m.envelope.actor, m.envelope.stream), []).append(m)
        spans = []  # (offset, length, the IDs wanted from that batch)
        for ref, some in by_ref.items():
            seqs = [m.envelope.sequence for m in some]
            low, high, ids = min(seqs), max(seqs), {m.memory_id for m in some}
            spans += [(offset, length, ids)
                      for offset, length, first, last in self._parts.get(ref, ()) if first <= high and last >= low]
        spans.sort(key=lambda span: span[0])
        found = {}
        for offset, length, ids in spans:
            found.update((t[0], t) for t in marshal.loads(self._read(offset, length)) if t[0] in ids)
        try:
            return [_whole(m, found[m.memory_id]) if is_compact(m) else m for m in memories]
        except KeyError:
            raise OSError("an imported memory is missing from its temporary file") from None

    def _read(self, offset: int, length: int) -> bytes:
        """``length`` bytes of the file from ``offset`` (one ``pread``: no seek, no buffer)."""
        data = os.pread(self._file.fileno(), length, offset)
        if len(data) != length:
            raise OSError("the temporary file of imported memories is shorter than written")
        return data

    def close(self) -> None:
        try:
            self._file.close()
        except OSError:
            pass


def start() -> Spilled | None:
    """A new file, or None when none can be made (the memories are then held whole)."""
    try:
        return Spilled()
    except OSError:
        return None
