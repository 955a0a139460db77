"""A large import's temporary file of verified memories, written a verifier batch at a time
(``service.replication.spilled``, f129): what is held compact is exactly what the file holds,
and reads back equal to what was kept."""

import errno

from git_hn.core.chain import VerifiedMemory
from git_hn.core.envelope import Anchor, Applicability, Envelope, Record
from git_hn.service.replication import spilled


def _memory(stream: int, seq: int, record: bool = True) -> VerifiedMemory:
    rec = Record("observation", f"content {stream} {seq}", Anchor("c" * 40), Applicability("descendants"),
                 ("topic",)) if record else None
    env = Envelope("hn-memory/0", "record", "a" * 64, "Actor", "k" * 43, f"sha256:{stream:064x}", seq,
                   f"2026-01-0{seq}T00:00:00Z", "" if seq == 1 else f"sha256:{stream:060x}{seq - 1:04x}", rec)
    return VerifiedMemory(f"sha256:{stream:060x}{seq:04x}", f"{stream:036x}{seq:04x}", env, b"", f"sig{stream}-{seq}")


def _batch(streams: range, record: bool = True) -> list:
    out = []
    for s in streams:
        mems = [_memory(s, 1, record), _memory(s, 2, record)]
        out.append((f"refs/q/{s}", mems, [m.commit for m in mems]))
    return out


def _old_compact(m: VerifiedMemory, commit: str = "") -> VerifiedMemory:
    """What ``compact`` was (``_replace``): the tuples it makes must stay equal to these."""
    env = m.envelope
    rec = env.record if env.record is None else env.record._replace(content="")
    return VerifiedMemory(m.memory_id, commit if commit == m.commit else m.commit,
                          env._replace(timestamp="", record=rec), b"", "")


def test_a_batch_is_held_compact_and_reads_back_whole():
    kept = spilled.Spilled()
    try:
        batch = _batch(range(5)) + [("refs/q/empty", [], [])] + _batch(range(5, 8), record=False)
        held = kept.keep(batch)
        assert [len(h) for h in held] == [len(m) for _r, m, _c in batch]
        for (ref, mems, commits), got in zip(batch, held):
            assert got == [_old_compact(m, c) for m, c in zip(mems, commits)]
            assert all(spilled.is_compact(m) for m in got)
            assert all(type(g.envelope) is Envelope for g in got)
            assert all(g.commit is c for g, c in zip(got, commits))  # the walk's own string
            if mems:
                assert kept.full(ref, got) == mems
                assert [m.signature for m in kept.full(ref, got, signed=True)] == [m.signature for m in mems]
        assert kept.written == 16 and not kept.failed
        later = _batch(range(8, 10))
        held_later = kept.keep(later)
        everything = [m for h in held + held_later for m in h]
        ref_of = {(m.envelope.actor, m.envelope.stream): r for r, ms, _c in batch + later for m in ms}
        assert kept.full_of_any(everything, lambda a, s: ref_of[(a, s)]) == \
            [m for _r, ms, _c in batch + later for m in ms]
    finally:
        kept.close()


class _Failing:
    """The real temporary file, its ``write`` failing from the ``fail_at``-th call (a full disk),
    its ``flush`` too with ``flush_fails``."""

    def __init__(self, fh, fail_at: int, flush_fails: bool = False):
        self.fh, self.fail_at, self.flush_fails, self.writes = fh, fail_at, flush_fails, 0

    def write(self, data):
        self.writes += 1
        if self.writes >= self.fail_at:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.fh.write(data)

    def flush(self):
        if self.flush_fails and self.writes >= self.fail_at:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.fh.flush()

    def __getattr__(self, name):
        return getattr(self.fh, name)


def test_a_write_failing_mid_batch_holds_only_what_was_written_compact():
    kept = spilled.Spilled()
    kept._file = _Failing(kept._file, fail_at=3)
    try:
        batch = _batch(range(4))
        held = kept.keep(batch)
        assert kept.failed and kept.written == 4
        assert [all(spilled.is_compact(m) for m in h) for h in held] == [True, True, False, False]
        assert held[2:] == [batch[2][1], batch[3][1]]  # whole, as they came
        for (ref, mems, _c), got in zip(batch[:2], held[:2]):
            assert kept.full(ref, got) == mems
        assert kept.keep(_batch(range(4, 6))) == [m for _r, m, _c in _batch(range(4, 6))]  # nothing more written
        assert kept._file.writes == 3
    finally:
        kept.close()


def test_a_flush_failing_after_a_failed_write_holds_the_whole_batch_whole():
    kept = spilled.Spilled()
    kept._file = _Failing(kept._file, fail_at=3, flush_fails=True)
    try:
        batch = _batch(range(4))
        held = kept.keep(batch)
        assert kept.failed and kept.written == 0
        assert held == [m for _r, m, _c in batch] and not any(spilled.is_compact(m) for h in held for m in h)
    finally:
        kept.close()


def test_what_compact_takes_is_what_the_file_holds_and_puts_back_exactly():
    """f134: the file holds each memory's timestamp, content, payload and signature (not the
    memory pickled whole); its compact copy with those put back is the memory kept, every nested
    tuple of its own type, whatever the strings (a lone surrogate, a newline) or payload."""
    from git_hn.core.envelope import Handoff

    odd = _memory(3, 2)._replace(payload=b'{"x":1}\n\x00', signature="s\ud800ig")
    env = odd.envelope
    odd = odd._replace(envelope=env._replace(timestamp="2026-01-02T00:00:00.5Z\n", record=env.record._replace(
        content="line\nnext \udcff", evidence=("e",), handoff=Handoff(*[f"h{i}" for i in range(len(Handoff._fields))]))))
    batch = [("refs/q/odd", [_memory(3, 1), odd], [_memory(3, 1).commit, odd.commit])] + _batch(range(4, 6), record=False)
    kept = spilled.Spilled()
    try:
        held = kept.keep(batch)
        whole = kept.full("refs/q/odd", held[0])
        assert whole == batch[0][1]
        assert [type(m.envelope.record) for m in whole] == [Record, Record]
        assert type(whole[1].envelope.record.handoff) is Handoff and type(whole[1]) is VerifiedMemory
        assert kept.full("refs/q/4", held[1]) == batch[1][1] and held[1][0].envelope.record is None
        assert kept.full("refs/q/odd", held[0], signed=True)[1].signature == "s\ud800ig"
        assert kept.full("refs/q/odd", held[0], signed=True)[1].envelope.timestamp == ""  # (still compact)
        # nothing more than what ``compact`` takes went into the file: far less than the memories
        assert kept._end < sum(len(m.envelope.record.content if m.envelope.record else "") + 200
                               for _r, ms, _c in batch for m in ms)
    finally:
        kept.close()
