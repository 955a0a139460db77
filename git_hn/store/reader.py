"""The persistent object readers: one ``git cat-file --batch``, ``--batch-check`` or
``--batch-command`` process, asked many questions over its pipes (``store.git`` decides when to
start one, and starts them in its runner's directory and environment).

Owns: the batch protocol (names in, headers and contents out, bounded reads), and ending a
reader (its pipes close; a thread reaps it). Trusts: the ``git`` found on PATH, and its answers
only as far as the protocol's framing. Does not trust the names it is asked for: a newline in
one would desynchronise the protocol, so such a name is refused.
"""

from __future__ import annotations

from ..errors import GitError
from .process import DEVNULL, PIPE, Child, not_started, popen
from .threads import Background


class Reader:
    """A persistent ``git cat-file --batch``, ``--batch-check`` or ``--batch-command`` process
    (the last answers both: ``contents NAME`` as ``--batch`` would, ``info NAME`` as
    ``--batch-check`` would).

    Object names written to it are validated hex object IDs or names git-hn built itself; a
    newline in a name would desynchronise the protocol, so names containing one are refused.
    """

    def __init__(self, git, mode: str, proc: Child | None = None):  # git: a store.git.Git
        self.mode = mode
        self.proc = proc if proc is not None else self.popen(git, mode)
        self._room: int | None = None  # what Git's input pipe holds (``_room_in_pipe``)

    @staticmethod
    def popen(git, mode: str) -> Child:  # started in the runner's directory and environment
        # ``--batch-command`` buffers its answers until each ``flush`` (``_send`` ends every
        # question list with one): without ``--buffer`` Git writes each answer with a system call
        # of its own, and this side reads them as they trickle in (800 objects: 5.9 -> 4.9 ms)
        extra = ["--buffer"] if mode == "--batch-command" else []
        try:
            return popen(["git", "cat-file", mode, *extra], stdin=PIPE,
                         stdout=PIPE, stderr=DEVNULL,
                         cwd=git.cwd, env=git.env)
        except OSError as exc:
            raise not_started(["cat-file", mode], exc) from None

    @staticmethod
    def end(proc: Child) -> None:
        """Stop a batch process that was never used (started early, then not needed); a thread
        reaps it."""
        proc.kill()
        proc.stdin.close()
        proc.stdout.close()
        Background(proc.wait)

    def _send(self, names: list[str], info: bool = False) -> None:
        self._write(self._questions(names, info))

    def _questions(self, names: list[str], info: bool) -> bytes:
        verb = ("info " if info else "contents ") if self.mode == "--batch-command" else ""
        data = object_names(names, verb)
        return data + b"flush\n" if verb else data

    def _write(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _header(self, name: str) -> list[bytes] | None:
        line = self.proc.stdout.readline()
        if not line:
            raise GitError("git cat-file stopped unexpectedly")
        return answer_fields(line, name)

    def _read_one(self, name: str, max_size: int | None = None, info: bool = False):
        parts = self._header(name)
        if parts is None:
            return None
        if info or self.mode == "--batch-check":
            return parts[0].decode("ascii"), parts[1].decode("ascii"), int(parts[2])
        size = int(parts[2])
        kind = parts[1].decode("ascii")
        if max_size is not None and size > max_size:
            return self._drained(kind, size)
        data = self.proc.stdout.read(size + 1)
        if len(data) != size + 1:
            raise GitError("git cat-file stopped unexpectedly")
        if max_size is not None:
            return kind, size, data[:size]
        return kind, data[:size]

    def read(self, name: str, max_size: int | None = None, info: bool = False):
        self._send([name], info)
        return self._read_one(name, max_size, info)

    def info(self, name: str):
        return self.read(name, info=self.mode == "--batch-command")

    def read_many(self, names: list[str], max_size: int | None = None, info: bool = False) -> list:
        if len(names) <= 1:
            return [self.read(n, max_size, info) for n in names]
        data = self._questions(names, info) if len(names) <= self.AT_ONCE else b""
        if data and len(data) <= self._room_in_pipe():
            # the questions fit in Git's empty input pipe: written at once, they never wait for
            # Git to read, so no writer thread is needed (a thread's start and join cost
            # 0.1-0.7 ms an exchange, more under load: a sync-100 has six such exchanges)
            try:
                self._write(data)
            except (BrokenPipeError, OSError):  # (Git stopped: its answers say so)
                pass
            try:
                return self._answers(names, max_size, info)
            except BaseException:
                self.proc.kill()  # (out of step: as below)
                raise
        # A writer thread keeps both pipes moving so that neither side blocks on a full buffer.
        # Every question is encoded here first, so that a name Git cannot be asked (a newline in
        # it: ``object_name``) is refused before anything is written: raised in the thread, it
        # left the answers to be waited for forever (f138's review)
        parts = [data] if data else [self._questions(names[i:i + 512], info) for i in range(0, len(names), 512)]
        errors = []

        def writer():
            try:
                for part in parts:
                    self._write(part)
            except (BrokenPipeError, OSError) as exc:  # pragma: no cover - process died
                errors.append(exc)

        thread = Background(writer)
        try:
            return self._answers(names, max_size, info)
        except BaseException:
            # out of step now (a signal, or a broken answer): stop it, which also unblocks the
            # writer, and let every later use fail rather than wait forever
            self.proc.kill()
            raise
        finally:
            thread.join()

    def _answers(self, names: list[str], max_size: int | None, info: bool) -> list:
        """``_read_one`` of each of ``names`` in turn, its steps written out in one loop (a large
        sync reads ~80,000 objects: a call or two per object fewer, and the type names shared
        instead of decoded each time). An answer that is not a found object's header, and a
        content over ``max_size``, go through ``_read_one``'s own steps."""
        stdout = self.proc.stdout
        readline, read = stdout.readline, stdout.read
        sized = info or self.mode == "--batch-check"
        bounded = max_size is not None
        kinds = _KINDS
        out = []
        append = out.append
        for name in names:
            line = readline()
            parts = line.rstrip(b"\n").split(b" ")
            if len(parts) != 3 or not parts[2].isdigit():  # missing, or not an answer at all
                if not line:
                    raise GitError("git cat-file stopped unexpectedly")
                append(answer_fields(line, name))  # (None when missing; else it raises)
                continue
            kind = kinds.get(parts[1]) or parts[1].decode("ascii")
            size = int(parts[2])
            if sized:
                append((parts[0].decode("ascii"), kind, size))
                continue
            if bounded and size > max_size:
                append(self._drained(kind, size))
                continue
            data = read(size + 1)
            if len(data) != size + 1:
                raise GitError("git cat-file stopped unexpectedly")
            append((kind, size, data[:size]) if bounded else (kind, data[:size]))
        return out

    AT_ONCE = 1024  # questions at most that ``read_many`` may write without its writer thread

    def _room_in_pipe(self) -> int:
        """The capacity of Git's input pipe, asked once (Linux ``F_GETPIPE_SZ``; elsewhere 0).
        Between two exchanges the pipe is empty (Git read every question it answered), so a
        write of at most that many bytes never blocks, whatever Git's answers wait for."""
        if self._room is None:
            import fcntl

            try:
                self._room = fcntl.fcntl(self.proc.stdin.fileno(), getattr(fcntl, "F_GETPIPE_SZ"))
            except (AttributeError, OSError, ValueError):
                self._room = 0
        return self._room

    def _drained(self, kind: str, size: int) -> tuple[str, int, None]:
        """An object over the bound asked: its content read off the pipe in chunks, never held."""
        left = size + 1
        while left:
            chunk = self.proc.stdout.read(min(left, 1 << 20))
            if not chunk:
                raise GitError("git cat-file stopped unexpectedly")
            left -= len(chunk)
        return kind, size, None

    def info_many(self, names: list[str]) -> list:
        return self.read_many(names, info=self.mode == "--batch-command")

    def close(self) -> None:
        """End the reader: its input and output close, so it exits on its own at once (it only
        reads: nothing of it has to finish before the command does), and a thread reaps it. A
        command's exit then does not wait for it (half a millisecond of every command), and a
        long-running server leaves no zombie."""
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:  # pragma: no cover
                pass
        Background(self.proc.wait)


_KINDS = {b"blob": "blob", b"tree": "tree", b"commit": "commit", b"tag": "tag"}


def object_name(name: str) -> bytes:
    if "\n" in name or "\r" in name:
        raise GitError("object name contains a newline")
    return name.encode("utf-8", "surrogateescape") + b"\n"


def object_names(names: list[str], verb: str = "") -> bytes:
    """``object_name`` of each of ``names`` after ``verb``, joined: one join and one encoding
    for the lot (a large sync asks ~80,000 names), the same bytes, and the same refusal."""
    text = "\n".join(names)
    if text.count("\n") != len(names) - 1 or "\r" in text:
        return b"".join(verb.encode() + object_name(n) for n in names)  # (refuses the name at fault)
    if verb:
        text = verb + text.replace("\n", "\n" + verb)
    return (text + "\n").encode("utf-8", "surrogateescape") if names else b""


def answer_fields(line: bytes, name: str) -> list[bytes] | None:
    """The fields (object ID, type, size) of the answer ``line`` to the question ``name``, or None
    when Git has no such object. Git answers a name it cannot find with the name as asked, then
    `` missing`` (or `` ambiguous``), so a ``NEW:path`` whose path holds spaces is not three
    fields: the answer is compared with the asked name (each answer is to one asked line, in
    order), never split (a trial: ``NEW:a b.txt missing`` became int(b"missing"), and every
    re-anchoring of a memory on such a path, absent at the new commit, stopped)."""
    line = line.rstrip(b"\n")
    parts = line.split(b" ")
    if len(parts) == 3 and parts[2].isdigit():  # (found: "missing" and "ambiguous" end no answer in digits)
        return parts
    asked = object_name(name)[:-1]
    if line in (asked + b" missing", asked + b" ambiguous"):
        return None
    raise GitError(f"git cat-file answered unexpectedly for {name}")
