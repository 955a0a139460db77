"""Verifying memory commits (CONTRACT §4.2 steps 1–4, §11(e)): the signature pipeline.

Owns: reading a memory commit's objects in pipelined batches (``stage_commits``: Git's fsck
header rules, tree shape, sizes, the bounded public-key scan), the Ed25519 checks, run inline for
a few commits and on two workers (threads, or forked processes for large batches) for many
(``Verifier``), and finishing each commit into a ``VerifiedMemory`` once its signature verified
(``finish_commit``; nothing unsigned reaches the JSON parser). ``verify_commits`` verifies one
chain, ``verify_many`` many chains through one pipeline. Walking chains and collecting sources is
``streams``'s; the rules themselves are ``core.chain``'s.

Trusts: nothing read from Git; the caller walked the commits.
"""

from __future__ import annotations

from ..core import chain
from ..core.chain import VerifiedMemory
from ..core.limits import LIMITS
from ..errors import ValidationError
from .repo import Repo


def stage_commits(repo: Repo, commits: list[tuple[str, str]], read: dict | None = None) -> list:
    """§4.2 steps 1–4 and the §11(e) key scan for each (commit, tree): per commit, either a
    ``ValidationError`` or ``(payload, signature blob, public key, signature)``.

    Objects are fetched in pipelined batches (trees, commits, then blobs); sizes come from the
    batch headers and an oversize blob is drained, never buffered (§4.2 step 3). ``read`` holds
    objects already read, by object ID, as ``(type, size, content)``: trees read the same way
    (bounded at 4,096 bytes), and commits and blobs whole (content never None), which the
    bounded reads below would return unchanged.
    """
    oid_bytes = repo.oid_hex_len // 2
    # a memory tree is two entries (~100 bytes); a larger "tree" cannot be valid and is not read
    trees = _read_bounded(repo, [t for _c, t in commits], 4096, read)
    raws = _read_bounded(repo, [c for c, _t in commits], MAX_COMMIT_BYTES, read)
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
    blobs = iter(_read_bounded(repo, blob_oids, LIMITS.max_memory_blob, read))
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


def _read_bounded(repo: Repo, oids: list[str], bound: int, read: dict | None) -> list:
    """``read_objects_bounded(oids, bound)``, taking what ``read`` holds instead of asking Git."""
    if not oids:
        return []
    if not read:
        return repo.git.read_objects_bounded(oids, bound)
    want = [o for o in oids if o not in read]
    got = dict(zip(want, repo.git.read_objects_bounded(want, bound))) if want else {}
    return [read[o] if o in read else got[o] for o in oids]


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


def signature_checker() -> str:
    """What the outcome of a signature check depends on besides its bytes: the code of
    ``core.keys`` (weak-key rules, ``verify``) and the cryptography and OpenSSL versions. Earlier
    checks are reused only under the same value; "" (unknown) reuses nothing."""
    from ..core import hashing

    from ..core import keys

    try:
        import cryptography
        from cryptography.hazmat.backends.openssl.backend import backend

        with open(keys.__file__, "rb") as fh:
            code = hashing.sha256(fh.read()).hexdigest()
        return f"{code} cryptography/{cryptography.__version__} {backend.openssl_version_text()}"
    except (OSError, ImportError, AttributeError):  # pragma: no cover - nothing reused then
        return ""


def _check_signature(item) -> bool:
    from ..core.keys import verify

    if item is None:  # the same bytes were verified by an earlier collection (``collect``)
        return True
    if isinstance(item, ValidationError):
        return False
    try:
        verify(item[2], item[3], item[0])
        return True
    except ValidationError:
        return False


def _worker_signals() -> None:
    """A forked worker ends quietly when the pool stops it: the parent's handlers (which turn a
    signal into an exception that cleans up, ``cli.commands``) are the parent's alone."""
    import signal

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides


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


class Verifier:
    """Ed25519 over the exact payload bytes of staged memories, possibly in parallel.

    Small batches run inline. Larger ones run in chunks on two workers while the caller keeps
    reading and parsing: threads for medium batches (``cryptography`` releases the GIL while it
    verifies), forked processes of git-hn's own for large ones (``_Workers``: no GIL contention
    with the parsing thread). A payload is still parsed only after its own signature verified
    (§11(e)); results equal a sequential loop, whatever happens to a worker.
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

                # a stopping signal that arrives meanwhile is raised once the workers are owned
                # here (``close`` then ends them), never between a fork and its owner
                with signals_held():
                    try:
                        workers = _Workers(2)
                    except RuntimeError:  # a thread could not start (what was forked has ended)
                        workers = None
                    if workers is not None and workers.children:
                        self.pool = workers
                    else:
                        self.kind = "threads"
            if self.kind == "threads":
                try:
                    self.pool = _Threads(2)
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

    def submit_decoding(self, pairs: list):
        """``submit`` for worker processes that also decode what verified (the parent then has
        only results to collect); None for other kinds of verifier."""
        if self.kind != "processes":
            return None
        pool = self._pool()
        if self.kind != "processes":
            return None
        return [pool.submit(_CHECK_AND_DECODE, pairs[i:i + self.CHUNK]) for i in range(0, len(pairs), self.CHUNK)]

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


_CHECK, _CHECK_AND_DECODE = 0, 1  # what a worker process computes over a chunk
_WORK = (_check_chunk, _check_and_decode_chunk)


class _Workers:
    """Worker processes of git-hn's own, forked once per verifier, that compute chunks dealt to
    them in turn (``multiprocessing.Pool`` is not used: a pool worker that dies, as the kernel's
    out-of-memory killer ends one, loses its task, and waiting for that result never ends; and
    its workers keep every descriptor of the parent open). Started and closed with stopping
    signals held (``process.signals_held``), so that none is left without an owner."""

    def __init__(self, n: int):
        # every child is forked before any thread here starts (a fork copies only the forking
        # thread: a lock another thread held would stay held in the child)
        self.children: list[_Child] = []
        for _ in range(n):
            forked = _Child.fork()
            if forked is None:
                break
            self.children.append(_Child(*forked))
        started: list[_Child] = []
        try:
            for child in self.children:
                child.start()
                started.append(child)
        except BaseException:  # a thread could not start: end every child, own nothing
            for child in self.children:
                if child in started:
                    child.stop(force=True)
                    child.wait()
                else:
                    child.abandon()
            self.children = []
            raise
        self._turn = 0

    def submit(self, work: int, chunk: list):
        alive = [c for c in self.children if not c.ended]
        if not alive:  # every worker is gone: computed here
            return "done", _WORK[work](chunk)
        child = alive[self._turn % len(alive)]
        self._turn += 1
        return "worker", (child, child.send(work, chunk))

    def close(self) -> None:
        from .process import signals_held

        with signals_held():  # every child is stopped, whatever arrives meanwhile
            for child in self.children:
                child.stop()
            for child in self.children:
                child.wait()
            self.children = []


class _Child:
    """One forked worker: chunks go to it through one pipe (a thread here writes them, so that
    the caller never waits for the child to read), each chunk's result comes back as a pickle
    through another, drained by a second thread as it arrives.

    The child holds nothing of this process's but memory: it closes every inherited file
    descriptor but its two pipes (a pipe to a live Git process, such as a prepared ref
    transaction waiting for the end of its input, a lock file, the state's database), takes the
    default signal handlers, and leaves with ``os._exit`` at the end of its input (nothing of
    this process is cleaned up twice). A child that fails in any way (killed, a broken result)
    leaves the chunks it did not hand back to this process, which computes them itself: the
    results always equal the sequential loop, and no wait depends on a child that is gone."""

    def __init__(self, pid: int, tasks: int, results: int):
        import threading
        from collections import deque

        self.pid = pid
        self.status: int | None = None  # the child's wait status, once reaped
        self.ended = False  # no more results will come (its output ended, it was reaped)
        self._tasks, self._results = tasks, results
        self._chunks: list = []  # what was sent, by number (None once its result was taken)
        self._frames: list[bytes] = []  # the pickled result of each chunk handed back so far
        self._outbox: deque = deque()
        self._cond = threading.Condition()
        self._closing = False
        self._reaping = False  # its process ID is being (or was) reaped: never signalled after
        self._feeder = self._drain = None

    @staticmethod
    def fork() -> tuple[int, int, int] | None:
        """Fork a worker: (its process ID, the input to write chunks to, the output its results
        come from), or None when it cannot be started."""
        import os

        fds: list[int] = []
        try:
            fds += os.pipe()
            fds += os.pipe()
        except OSError:
            for fd in fds:
                os.close(fd)
            return None
        task_r, task_w, result_r, result_w = fds
        from .process import _grow_pipe

        _grow_pipe(result_r, 1 << 20)  # a chunk's results in one write: the child goes on at once
        try:
            pid = os.fork()
        except OSError:
            for fd in fds:
                os.close(fd)
            return None
        if pid == 0:  # pragma: no cover - the child (tested by what it hands back, or fails to)
            code = 1
            try:
                keep = sorted((task_r, result_w))
                os.closerange(0, keep[0])
                os.closerange(keep[0] + 1, keep[1])
                os.closerange(keep[1] + 1, 1 << 20)
                _worker_signals()
                _serve(task_r, result_w)
                code = 0
            finally:
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        return pid, task_w, result_r

    def start(self) -> None:
        """Start the feeding and draining threads (each then owns its pipe); when one cannot
        start, the caller ``abandon``s the child."""
        from .process import Background

        self._feeder = Background(self._feed, self._tasks)
        self._drain = Background(self._read, self._results)

    def abandon(self) -> None:
        """End a child whose threads did not both start, and release what neither owns."""
        import os
        import signal

        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._drain is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            if self._feeder is None:
                os.close(self._tasks)  # (a feeder that started closes it as it ends)
            os.close(self._results)
            self._reap()

    def send(self, work: int, chunk: list) -> int:
        """Queue ``chunk`` for the child; the number its result is asked by (``result``)."""
        import pickle

        frame = pickle.dumps((work, chunk), pickle.HIGHEST_PROTOCOL)
        with self._cond:
            k = len(self._chunks)
            self._chunks.append((work, chunk))
            self._outbox.append(len(frame).to_bytes(8, "big") + frame)
            self._cond.notify_all()
        return k

    def _feed(self, fd: int) -> None:
        import os

        try:
            while True:
                with self._cond:
                    while not self._outbox and not self._closing:
                        self._cond.wait()
                    if not self._outbox:
                        return
                    view = memoryview(self._outbox.popleft())
                while view:
                    view = view[os.write(fd, view):]
        except OSError:
            pass  # the child is gone: what it did not answer is computed here (``result``)
        finally:
            os.close(fd)  # the end of its input: the child leaves

    def _read(self, fd: int) -> None:
        import os

        buf = bytearray()
        try:
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                buf += chunk
                while len(buf) >= 8 and len(buf) >= 8 + int.from_bytes(buf[:8], "big"):
                    end = 8 + int.from_bytes(buf[:8], "big")
                    frame = bytes(buf[8:end])
                    del buf[:end]
                    with self._cond:
                        self._frames.append(frame)
                        self._cond.notify_all()
        except OSError:
            pass
        finally:
            os.close(fd)
            self._reap()

    def _reap(self) -> None:
        import os

        with self._cond:
            self._reaping = True  # from here its process ID may be another process's: no signal
        try:
            self.status = os.waitpid(self.pid, 0)[1]
        except ChildProcessError:  # reaped by the kernel already (SIGCHLD ignored)
            pass
        finally:
            with self._cond:
                self.ended = True
                self._cond.notify_all()

    def result(self, k: int) -> list:
        """The result of chunk ``k``: the child's, or computed here when it did not hand it back."""
        with self._cond:
            while len(self._frames) <= k and not self.ended:
                self._cond.wait()
            frame = self._frames[k] if k < len(self._frames) else None
            if frame is not None:
                self._frames[k] = b""
            work, chunk = self._chunks[k]
            self._chunks[k] = None
        out = None
        if frame is not None:
            import pickle

            try:
                out = pickle.loads(frame)
            except Exception:  # noqa: BLE001 - a broken result: the chunk is computed here instead
                out = None
        if type(out) is not list or len(out) != len(chunk):
            out = _WORK[work](chunk)
        return out

    def stop(self, force: bool = False) -> None:
        """No more chunks; a child still working on some (or any, with ``force``) is ended now
        (its results are not wanted: the caller failed, or took everything it needed)."""
        import os
        import signal

        with self._cond:
            self._closing = True
            self._outbox.clear()
            self._cond.notify_all()
            if not self._reaping and (force or len(self._frames) < len(self._chunks)):
                try:  # under the lock: the drain thread cannot reap it meanwhile
                    os.kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass

    def wait(self) -> None:
        for thread in (self._feeder, self._drain):
            if thread is not None:
                thread.join()


def _serve(tasks: int, results: int) -> None:  # pragma: no cover - runs in a worker process
    """A worker's loop: each chunk read from ``tasks`` is computed and its result written to
    ``results``, until the end of ``tasks``."""
    import os
    import pickle

    def exactly(n: int) -> bytes | None:
        got = bytearray()
        while len(got) < n:
            part = os.read(tasks, n - len(got))
            if not part:
                return None
            got += part
        return bytes(got)

    while True:
        head = exactly(8)
        if head is None:
            return
        body = exactly(int.from_bytes(head, "big"))
        if body is None:
            return
        work, chunk = pickle.loads(body)
        data = pickle.dumps(_WORK[work](chunk), pickle.HIGHEST_PROTOCOL)
        view = memoryview(len(data).to_bytes(8, "big") + data)
        while view:
            view = view[os.write(results, view):]


class _Job:
    def __init__(self, items: list):
        import threading

        self.items, self.result, self.error = items, None, None
        self.done = threading.Event()

    def get(self) -> list:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.result


class _Threads:
    """Worker threads that check the signatures of submitted chunks, oldest first, while the
    caller reads and decodes (``concurrent.futures`` would cost ~3 ms to import)."""

    def __init__(self, n: int):
        import threading
        from collections import deque

        from .process import Background

        self._jobs: deque = deque()
        self._cond = threading.Condition()
        self._stopping = False
        self._threads: list = []
        try:
            for _ in range(n):
                self._threads.append(Background(self._run))
        except BaseException:  # one could not start: those that did end at once
            self.close()
            raise

    def submit(self, items: list) -> _Job:
        job = _Job(items)
        with self._cond:
            self._jobs.append(job)
            self._cond.notify()
        return job

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._stopping:
                    self._cond.wait()
                if not self._jobs:
                    return
                job = self._jobs.popleft()
            try:
                job.result = [_check_signature(i) for i in job.items]
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised by get()
                job.error = exc
            job.done.set()

    def close(self) -> None:
        with self._cond:
            self._stopping = True
            self._jobs.clear()
            self._cond.notify_all()
        for thread in self._threads:
            thread.join()


def verify_many(repo: Repo, items: list[tuple[str, list]], read: dict | None = None,
                progress=None) -> dict[str, object]:
    """Verify the commits (root first) of many refs with one pipeline: per ref, the list of
    ``VerifiedMemory`` or the first ``ValidationError`` in chain order (prefixed with the ref,
    as ``verify_commits`` words it). Signatures of all refs share the verifier's workers.
    ``read`` holds objects already read (``stage_commits``); ``progress(done, total)`` is told
    after each batch."""
    total = sum(len(c) for _r, c in items)
    verifier = Verifier(total)
    if total >= 256:
        from ..core.canonical import load_fast_codec

        load_fast_codec()
    out: dict[str, object] = {}
    tickets = []
    done = 0
    try:
        batch: list = []
        size = 0
        for ref, commits in items:
            batch.append((ref, commits))
            size += len(commits)
            if size >= 2048:  # the worker processes verify one batch while the next is read
                tickets.append(_submit(repo, verifier, batch, read))
                batch, size = [], 0
        if batch:
            tickets.append(_submit(repo, verifier, batch, read))
        if verifier.kind == "threads":
            # staged at once (the worker threads would wait for the GIL while this thread parses)
            # and every signature checked before decoding, for the same reason: a worker that
            # finished a check waits for the interpreter's switch interval (5 ms) to go on
            tickets = [(b, st, (d, [("done", list(Verifier.results(t)))])) for b, st, (d, t) in tickets]
        for batch, staged, (decoded, ticket) in tickets:
            results = iter(Verifier.results(ticket))
            pos = iter(staged)
            for ref, commits in batch:
                memories = []
                failed = None
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
                out[ref] = failed if failed is not None else memories
                done += len(commits)
            if progress is not None:
                progress(done, total)
    finally:
        verifier.close()
    return out


def _submit(repo: Repo, verifier, batch: list, read: dict | None = None):
    flat = [c for _r, commits in batch for c in commits]
    staged = stage_commits(repo, flat, read) if flat else []
    ticket = verifier.submit_decoding([(c, item) for (c, _t), item in zip(flat, staged)])
    if ticket is not None:
        return batch, staged, (True, ticket)
    return batch, staged, (False, verifier.submit(staged))
