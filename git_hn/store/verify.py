"""Verifying memory commits (CONTRACT §4.2 steps 1–4, §11(e)): the signature pipeline.

Owns: reading a memory commit's objects in pipelined batches (``stage_commits``: Git's fsck
header rules, tree shape, sizes, the bounded public-key scan), the Ed25519 checks, run inline for
a few commits and on two workers for many (``Verifier``: threads, or forked processes for large
batches, both ``store.workers``), and finishing each commit into a ``VerifiedMemory`` once its
signature verified (``finish_commit``; nothing unsigned reaches the JSON parser).
``verify_commits`` verifies one chain, ``verify_many`` many chains through one pipeline. Walking
chains and collecting sources is ``streams``'s; the rules themselves are ``core.chain``'s.

Trusts: nothing read from Git; the caller walked the commits.
"""

from __future__ import annotations

from ..core import chain
from ..core.chain import VerifiedMemory
from ..core.envelope import Envelope, Record
from ..core.limits import LIMITS
from ..errors import ValidationError
from .repo import Repo


def stage_commits(repo: Repo, commits: list[tuple[str, str]], read: dict | None = None,
                  consume: bool = False) -> list:
    """§4.2 steps 1–4 and the §11(e) key scan for each (commit, tree): per commit, either a
    ``ValidationError`` or ``(payload, signature blob, public key, signature)``.

    Objects are fetched in pipelined batches (trees, commits, then blobs); sizes come from the
    batch headers and an oversize blob is drained, never buffered (§4.2 step 3). ``read`` holds
    objects already read, by object ID, as ``(type, size, content)``: trees read the same way
    (bounded at 4,096 bytes), and commits and blobs whole (content never None), which the
    bounded reads below would return unchanged. With ``consume``, the commits and blobs taken
    from ``read`` are removed from it (the trees stay: ``groups.range_objects`` reads them).
    """
    oid_bytes = repo.oid_hex_len // 2
    # a memory tree is two entries (~100 bytes); a larger "tree" cannot be valid and is not read
    trees = _read_bounded(repo, [t for _c, t in commits], 4096, read)
    raws = _read_bounded(repo, [c for c, _t in commits], MAX_COMMIT_BYTES, read, consume)
    parsed: list = []
    blob_oids: list[str] = []
    for (commit, _tree), obj, raw in zip(commits, trees, raws):
        try:
            _fsck_commit(commit, raw)
            if obj is None or obj[0] != "tree":
                raise ValidationError(f"memory commit {commit} is unavailable or not a commit")
            if obj[2] is None:
                raise ValidationError(f"memory commit {commit} has invalid tree entry")
            try:
                entries = chain.parse_tree(obj[2], oid_bytes)
            except ValueError:
                raise ValidationError(f"memory commit {commit} has invalid tree entry") from None
            m, s = chain.check_tree(commit, entries)
            parsed.append((m, s))
            blob_oids += [m, s]
        except ValidationError as exc:
            parsed.append(exc)
    blobs = iter(_read_bounded(repo, blob_oids, LIMITS.max_memory_blob, read, consume))
    staged: list = []
    for (commit, _tree), item in zip(commits, parsed):
        if isinstance(item, ValidationError):
            staged.append(item)
            continue
        payload, signature = next(blobs), next(blobs)
        try:
            if payload is None or signature is None or payload[0] != "blob" or signature[0] != "blob":
                raise ValidationError(f"memory commit {commit} has invalid tree entry")
            chain.check_sizes(commit, payload[1], signature[1])
            key, sig = chain.precheck_memory(commit, payload[2], signature[2])
            staged.append((payload[2], signature[2], key, sig))
        except ValidationError as exc:
            staged.append(exc)
    return staged


MAX_COMMIT_BYTES = 1 << 20  # a memory commit is a few hundred bytes; a larger one is refused unread


def _read_bounded(repo: Repo, oids: list[str], bound: int, read: dict | None, consume: bool = False) -> list:
    """``read_objects_bounded(oids, bound)``, taking what ``read`` holds instead of asking Git
    (and removing it from ``read`` with ``consume``: an object asked twice is read again)."""
    if not oids:
        return []
    if not read:
        return repo.git.read_objects_bounded(oids, bound)
    want = [o for o in oids if o not in read]
    got = dict(zip(want, repo.git.read_objects_bounded(want, bound))) if want else {}
    out = [read[o] if o in read else got[o] for o in oids]
    if consume:
        for o in oids:
            read.pop(o, None)
    return out


def _fsck_commit(commit: str, raw) -> None:
    """The header of a memory commit must pass Git's fsck, or it could verify here and never
    replicate (every fetch runs with ``transfer.fsckObjects``)."""
    if raw is None or raw[0] != "commit":
        raise ValidationError(f"memory commit {commit} is unavailable or not a commit")
    if raw[2] is None:
        raise ValidationError(f"memory commit {commit} is malformed (larger than {MAX_COMMIT_BYTES} bytes)")
    error = chain.fsck_commit_error(raw[2])
    if error:
        raise ValidationError(f"memory commit {commit} is malformed ({error}): Git refuses to transfer it")


def finish_commit(commit: str, item, ok) -> VerifiedMemory:
    """§11(e) items 3–4 for one staged commit, after its signature was checked.

    ``ok`` is the verification result; the payload is parsed only when it is true.
    """
    if isinstance(item, ValidationError):
        raise item
    if not ok:
        raise chain.signature_failure(commit, item[2])
    return chain.finish_memory(commit, item[0], item[1], item[2])


def verify_commits(repo: Repo, ref: str, commits: list[tuple[str, str]]) -> list[VerifiedMemory]:
    """Verify memory commits (root first); the first error in chain order is raised.

    Commits are staged in slices, and each slice's signatures are submitted to the verifier as
    soon as it is staged, so reading the next slice overlaps with verifying this one.
    """
    verifier = Verifier(len(commits))
    if len(commits) >= 256:
        from ..core.canonical import load_fast_codec

        load_fast_codec()  # many payloads to decode: worth orjson's import
    tickets = []
    # slices grow from 256 to 2,048 commits, so the workers start early and stay busy
    step = {"processes": 256, "threads": 64}.get(verifier.kind, max(len(commits), 1))
    try:
        i = 0
        while i < len(commits):
            part = commits[i:i + step]
            i += step
            step = min(step * 2, 2048)
            staged = stage_commits(repo, part)
            tickets.append((part, staged, verifier.submit(staged)))
        out = []
        for part, staged, ticket in tickets:
            for (commit, _tree), item, ok in zip(part, staged, verifier.results(ticket)):
                try:
                    out.append(finish_commit(commit, item, ok))
                except ValidationError as exc:
                    raise ValidationError(f"memory source {ref}: {exc.message}") from None
    finally:
        verifier.close()
    return out


def stage_batch(repo: Repo, commits: list[tuple[str, str]], raws: dict, verified: dict) -> tuple[list, list]:
    """Stage one batch of a bulk verification: ``stage_commits`` fed the commits ``raws`` already
    holds (``object ID -> (type, content)``, taken out of it as they are used, so a large walk's
    objects are held once), then ``(staged, checks)``: the staged items and what the verifier is
    given for them (None where ``verified``, ``commit -> (memory ID, signature)``, shows the exact
    payload and signature were verified before)."""
    read = {}
    for c, _t in commits:
        obj = raws.pop(c, None)
        if obj is not None and len(obj[1]) <= MAX_COMMIT_BYTES:
            read[c] = (obj[0], len(obj[1]), obj[1])
    staged = stage_commits(repo, commits, read)
    return staged, (unverified(commits, staged, verified) if verified else staged)


def unverified(commits: list[tuple[str, str]], staged: list, verified: dict) -> list:
    """``staged`` with None for each item whose exact payload and signature were verified before
    (``_check_signature`` accepts None unread)."""
    from ..core.grammar import memory_id

    out = []
    for (commit, _tree), item in zip(commits, staged):
        known = verified.get(commit)
        if known is not None and not isinstance(item, ValidationError) \
                and known == (memory_id(item[0]), item[1].decode("ascii", "replace")):
            item = None
        out.append(item)
    return out


def _check_signature(item) -> bool:
    from ..core.keys import verify

    if item is None:  # the same bytes were verified before, by the same code (``collect``'s ``verified``)
        return True
    if isinstance(item, ValidationError):
        return False
    try:
        verify(item[2], item[3], item[0])
        return True
    except ValidationError:
        return False


def _check_chunk(chunk: list) -> list[bool]:
    return [_check_signature(i) for i in chunk]


def _check_and_decode_chunk(chunk: list) -> list:
    """In a worker process: each (commit, staged item)'s signature, and only then its payload
    (§11(e) order): a ``VerifiedMemory``, or the ``ValidationError`` that commit gets."""
    out = []
    for commit, item in chunk:
        try:
            out.append(finish_commit(commit, item, _check_signature(item)))
        except ValidationError as exc:
            out.append(exc)
    return out


def _check_decode_lean_chunk(chunk: list) -> list:
    """``_check_and_decode_chunk``, its memories ``lean_memories`` (a smaller pickle, and less to hold)."""
    return lean_memories(_check_and_decode_chunk(chunk))


def lean_memories(items: list) -> list:
    """``items`` (``VerifiedMemory`` or errors, passed through) as an import holds them once they
    verified: without their payloads (verified and decoded; nothing after validation reads them:
    the state stores the envelope's columns and the signature), and with the values that repeat
    across a stream (actor, name, key, stream, kind, anchor, applicability, topics, evidence, the
    ``previous`` link equal to the memory before's ID) shared by equal ones of ``items`` instead
    of held once per memory (100,000 memories held ~3.9 KB each, ~2.4 KB so). Every value is
    equal to the one it replaces."""
    shared: dict = {}

    def one(value):
        try:
            return shared.setdefault((type(value), value), value)
        except TypeError:  # (not hashable: kept as it is)
            return value

    new = tuple.__new__  # (each record built from its fields at once, not field by field through ``_replace``)
    out = []
    before = None  # the memory ID of the item before, when it is a memory
    for m in items:
        if type(m) is not VerifiedMemory:
            out.append(m)
            before = None
            continue
        protocol, operation, actor, name, key, stream, sequence, timestamp, previous, rec, target, reason, \
            evidence = m.envelope
        if rec is not None:
            kind, content, anchor, applicability, topics, rec_evidence, outcome, handoff = rec
            rec = new(Record, (one(kind), content, one(anchor), one(applicability), one(topics), one(rec_evidence),
                               outcome, handoff))
        if before is None or previous != before:
            previous = one(previous)
        else:
            previous = before
        env = new(Envelope, (one(protocol), one(operation), one(actor), one(name), one(key), one(stream), sequence,
                             timestamp, previous, rec, target, reason, evidence))
        out.append(new(VerifiedMemory, (m.memory_id, m.commit, env, b"", m.signature)))
        before = m.memory_id
    return out


class Verifier:
    """Ed25519 over the exact payload bytes of staged memories, possibly in parallel.

    Small batches run inline. Larger ones run in chunks on two workers while the caller keeps
    reading and parsing: threads for medium batches (libsodium, and mostly the cryptography
    library, release the GIL while they verify: ``core.keys``), forked processes of git-hn's own
    for large ones (``workers.Processes``: no GIL contention with the parsing thread). A payload
    is still parsed only after its own signature verified (§11(e)); results equal a sequential
    loop, whatever happens to a worker.
    """

    CHUNK = 256
    THREAD_CHUNK = 32  # small, so that the caller decodes the first while the next verify

    def __init__(self, expected: int):
        self.pool = None
        self.kind = "inline" if expected < 32 else "threads" if expected < 2048 else "processes"

    def _pool(self):
        """The workers, started at first use: processes, else threads (no process could be
        started), else none (no thread could either: ``kind`` becomes inline)."""
        if self.pool is None:
            if self.kind == "processes":
                from .process import signals_held
                from .workers import Processes

                # a stopping signal that arrives meanwhile is raised once the workers are owned
                # here (``close`` then ends them), never between a fork and its owner
                with signals_held():
                    try:
                        workers = Processes(2, _WORK)
                    except RuntimeError:  # a thread could not start (what was forked has ended)
                        workers = None
                    if workers is not None and workers.children:
                        self.pool = workers
                    else:
                        self.kind = "threads"
            if self.kind == "threads":
                from .workers import Threads

                try:
                    self.pool = Threads(2, _check_signature)
                except RuntimeError:
                    self.kind = "inline"
        return self.pool

    def submit(self, staged: list):
        pool = self._pool() if self.kind != "inline" else None
        if self.kind == "inline":
            return [("done", [_check_signature(i) for i in staged])]
        if self.kind == "processes":
            return [pool.submit(_CHECK, staged[i:i + self.CHUNK]) for i in range(0, len(staged), self.CHUNK)]
        step = self.THREAD_CHUNK
        return [("job", pool.submit(staged[i:i + step])) for i in range(0, len(staged), step)]

    def submit_decoding(self, pairs: list, lean: bool = False):
        """``submit`` for worker processes that also decode what verified (the parent then has
        only results to collect), ``lean`` ones with it; None for other kinds of verifier."""
        if self.kind != "processes":
            return None
        pool = self._pool()
        if self.kind != "processes":
            return None
        work = _CHECK_DECODE_LEAN if lean else _CHECK_AND_DECODE
        return [pool.submit(work, pairs[i:i + self.CHUNK]) for i in range(0, len(pairs), self.CHUNK)]

    @staticmethod
    def ready(ticket) -> bool:
        """Whether ``results(ticket)`` would answer without waiting for a worker."""
        return all(how == "done" or (how == "worker" and handle[0].ready(handle[1]))
                   or (how == "job" and handle.done.is_set()) for how, handle in ticket)

    @staticmethod
    def results(ticket):
        for how, handle in ticket:
            if how == "done":
                yield from handle
            elif how == "worker":
                child, k = handle
                yield from child.result(k)
            else:
                yield from handle.get()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


_CHECK, _CHECK_AND_DECODE, _CHECK_DECODE_LEAN = 0, 1, 2  # what a worker process computes over a chunk
_WORK = (_check_chunk, _check_and_decode_chunk, _check_decode_lean_chunk)


FIRST_BATCH = 256  # commits in ``verify_many``'s first batch for worker processes (then doubling)


def verify_many(repo: Repo, items: list[tuple[str, list]], read: dict | None = None,
                progress=None, lean: bool = False, keep=None) -> dict[str, object]:
    """Verify the commits (root first) of many refs with one pipeline: per ref, the list of
    ``VerifiedMemory`` or the first ``ValidationError`` in chain order (prefixed with the ref,
    as ``verify_commits`` words it). Signatures of all refs share the verifier's workers.
    ``read`` holds objects already read (``stage_commits``); ``progress(done, total)`` is told
    after each batch. With ``lean`` (an import's validation) the memories are ``lean_memories`` ones and
    the commits and blobs taken from ``read`` leave it. ``keep(batch)``, when given, is
    handed each batch's verified memories as they are collected, a ``(ref, memories, commit IDs
    walked for them)`` for each ref, and returns what is held of each (``replication.spilled``: a large
    import holds them compact).

    Worker processes' batches are collected at most ``WINDOW`` batches behind the one being
    read, so that the staged payloads held stay a few batches' whatever the number of commits
    (100,000 memories staged at once held ~100 MiB more at the end of an import's validation)."""
    total = sum(len(c) for _r, c in items)
    verifier = Verifier(total)
    if total >= 256:
        from ..core.canonical import load_fast_codec

        load_fast_codec()
    out: dict[str, object] = {}
    tickets: list = []
    done = 0

    def give(kept: list) -> None:
        for (got, _k), held in zip(kept, keep([k for _g, k in kept])):
            got += held

    def collect(batch, staged, decoded, ticket) -> None:
        nonlocal done
        results = iter(Verifier.results(ticket))
        pos = iter(staged)
        kept: list = []  # (the ref's list in ``out``, what ``keep`` is given for it)
        waiting = 0  # memories in ``kept``
        for ref, commits in batch:  # a ref split across batches goes on where it stopped
            got = out.setdefault(ref, [])
            failed = got if isinstance(got, ValidationError) else None
            memories = []
            for commit, _tree in commits:
                item, ok = next(pos), next(results)
                if failed is not None:
                    continue
                try:
                    if decoded:  # the worker verified, then decoded (or refused)
                        if isinstance(ok, ValidationError):
                            raise ok
                        memories.append(ok)
                    else:
                        memories.append(finish_commit(commit, item, ok))
                except ValidationError as exc:
                    failed = ValidationError(f"memory source {ref}: {exc.message}")
            if failed is not None:
                out[ref] = failed
            else:
                held = memories if decoded or not lean else lean_memories(memories)
                if keep is None:
                    got += held
                else:
                    kept.append((got, (ref, held, [c for c, _t in commits])))
                    waiting += len(held)
                    if waiting >= KEEP_EVERY:
                        give(kept)
                        kept, waiting = [], 0
            done += len(commits)
        if kept:
            give(kept)
        if progress is not None:
            progress(done, total)

    # batches grow from 256 to 2,048 commits (as ``verify_commits``'s slices), a long chain split
    # across them: the worker processes verify one batch while the next is read, from early on
    step = FIRST_BATCH if verifier.kind == "processes" else max(total, 1)
    try:
        batch: list = []
        size = 0
        for ref, commits in items:
            at = 0
            while True:
                room = step - size
                part = commits if at == 0 and len(commits) <= room else commits[at:at + room]
                batch.append((ref, part))
                size += len(part)
                at += len(part)
                if size >= step:
                    tickets.append(_submit(repo, verifier, batch, read, lean))
                    batch, size, step = [], 0, max(min(step * 2, 2048), step)
                    if verifier.kind == "processes" and len(tickets) > WINDOW:
                        got = tickets.pop(0)
                        collect(got[0], got[1], *got[2])
                if at >= len(commits):
                    break
        if batch:
            tickets.append(_submit(repo, verifier, batch, read, lean))
        if verifier.kind == "threads":
            # staged at once (the worker threads would wait for the GIL while this thread parses)
            # and every signature checked before decoding, for the same reason: a worker that
            # finished a check waits for the interpreter's switch interval (5 ms) to go on
            tickets = [(b, st, (d, [("done", list(Verifier.results(t)))])) for b, st, (d, t) in tickets]
        while tickets:
            got = tickets.pop(0)
            collect(got[0], got[1], *got[2])
    finally:
        verifier.close()
    return out


# memories handed to ``keep`` at once, about (``verify_many``): one write and flush of its file for
# many streams' memories (not one each), while the whole memories waiting for it stay few (a
# verifier batch's 2,048 at once would hold ~5 MiB more of them, beside their compact copies)
KEEP_EVERY = 256
WINDOW = 4  # batches submitted to worker processes and not collected yet, at most (``verify_many``)


def _submit(repo: Repo, verifier, batch: list, read: dict | None = None, lean: bool = False):
    flat = [c for _r, commits in batch for c in commits]
    staged = (stage_commits(repo, flat, read, consume=True) if lean else stage_commits(repo, flat, read)) \
        if flat else []
    ticket = verifier.submit_decoding([(c, item) for (c, _t), item in zip(flat, staged)], lean)
    if ticket is not None:
        return batch, staged, (True, ticket)
    return batch, staged, (False, verifier.submit(staged))
