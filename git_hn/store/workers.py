"""Two workers that compute chunks of work beside the caller: threads (``Threads``, for work
that releases the GIL, such as libsodium's signature checks) or forked processes of
git-hn's own (``Processes``). ``store.verify`` decides which, and what they compute.

Owns: the workers' lives (started once, ended by ``close`` whatever state they are in), the
pipes and pickled frames between this process and a worker process, and the rule that a chunk a
worker did not hand back is computed by the caller, so that results always equal a sequential
loop. Trusts: the work functions it is given (run in a forked copy of this process), and nothing
a worker process hands back beyond being a list of the chunk's length (anything else is
computed again here).
"""

from __future__ import annotations


def worker_signals() -> None:
    """A forked worker ends quietly when it is stopped: the parent's handlers (which turn a
    signal into an exception that cleans up, ``cli.commands``) are the parent's alone."""
    import signal

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides


class Processes:
    """Worker processes of git-hn's own, forked once (when this is made), that compute chunks
    dealt to them in turn, each by one of the functions of ``work``. ``multiprocessing.Pool``
    is not used: a pool worker that dies, as the kernel's out-of-memory killer ends one, loses
    its task, and waiting for that result never ends; and its workers keep every descriptor of
    the parent open. Closed with stopping signals held (``process.signals_held``), and to be
    made so (as ``Verifier`` does), so that no worker is ever left without an owner."""

    def __init__(self, n: int, work: tuple):
        self.work = work  # the functions a chunk is sent to be computed by, by index
        # every child is forked before any thread here starts (a fork copies only the forking
        # thread: a lock another thread held would stay held in the child)
        self.children: list[_Child] = []
        for _ in range(n):
            forked = _Child.fork(work)
            if forked is None:
                break
            self.children.append(_Child(*forked, work))
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
            return "done", self.work[work](chunk)
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

    def __init__(self, pid: int, tasks: int, results: int, work: tuple):
        import threading
        from collections import deque

        self.pid, self.work = pid, work
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
    def fork(work: tuple) -> tuple[int, int, int] | None:
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
                worker_signals()
                _serve(task_r, result_w, work)
                code = 0
            finally:
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        return pid, task_w, result_r

    def start(self) -> None:
        """Start the feeding and draining threads (each then owns its pipe); when one cannot
        start, the caller ``abandon``s the child."""
        from .threads import Background

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
        frame = _frame((work, chunk))
        with self._cond:
            k = len(self._chunks)
            self._chunks.append((work, chunk))
            self._outbox.append(frame)
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
                    frame = self._outbox.popleft()
                _write_all(fd, frame)
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

    def ready(self, k: int) -> bool:
        """Whether ``result(k)`` would answer without waiting for the child."""
        with self._cond:
            return len(self._frames) > k or self.ended

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
            out = self.work[work](chunk)
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


def _serve(tasks: int, results: int, work: tuple) -> None:  # pragma: no cover - in a worker process
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
        which, chunk = pickle.loads(body)
        _write_all(results, _frame(work[which](chunk)))


def _frame(obj) -> bytes:
    """``obj`` pickled, after its length (8 bytes, big-endian): one frame of the pipes."""
    import pickle

    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(8, "big") + data


def _write_all(fd: int, data: bytes) -> None:
    import os

    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class Job:
    def __init__(self, items: list):
        import threading

        self.items, self.result, self.error = items, None, None
        self.done = threading.Event()

    def get(self) -> list:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.result


class Threads:
    """Worker threads that compute ``check`` over each item of submitted chunks, oldest first,
    while the caller reads and decodes (``concurrent.futures`` would cost ~3 ms to import)."""

    def __init__(self, n: int, check):
        import threading
        from collections import deque

        from .threads import Background

        self.check = check  # computed for each item of a chunk
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

    def submit(self, items: list) -> Job:
        job = Job(items)
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
                job.result = [self.check(i) for i in job.items]
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
