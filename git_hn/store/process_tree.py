"""The process table, where the system has one (Linux ``/proc``): a process's
``/proc/<pid>/stat`` (``read_stat``), and killing a child process with every process below it
(``kill_tree``: a git past its time bound, with ssh and its ProxyCommand below it).

Owns: which processes belong to a tree being killed, and the order of its signals (stopped,
asked to end, then killed). A process ID alone names no process: once its process has ended and
been reaped, the system gives it to the next one, so a process listed here is always named by its
ID and its start time (field 22 of its ``stat``), held by a pidfd where there is one. Without
``/proc`` nothing below the child is found: the child alone is signalled.

Trusts: the system's process table; nothing in it is trusted to be the process it was a moment
ago.
"""

from __future__ import annotations

import os

TREE_TERM = 0.5  # seconds a tree being killed has to end on SIGTERM before SIGKILL
FREEZE = 0.2  # seconds a tree being stopped waits at most for its processes to stop


def read_stat(pid: int) -> tuple[bytes, list[str]]:
    """(command name, the fields after it) of ``/proc/<pid>/stat``; OSError where there is none."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        head, tail = fh.read().rsplit(b")", 1)
    return head.split(b"(", 1)[1], tail.decode("ascii").split()


def kill_tree(root: int) -> None:
    """End ``root`` (a child of this process's, not yet reaped) and every process below it: a
    timed-out ``git ls-remote`` over ssh left ``sh -c ssh …``, ssh and its ProxyCommand running
    on, reparented to init (a trial).

    SIGTERM first, then SIGKILL to what is left after at most ``TREE_TERM`` seconds: ssh asking
    for a passphrase has turned the terminal's echo off and turns it back on only on a signal it
    can catch (a review: after SIGKILL the user's terminal stayed ``-echo``). Before each, the tree
    is stopped and listed again until no new process shows (``_Tree.freeze``)."""
    import _signal

    tree = _Tree(root)
    try:
        tree.freeze()
        tree.send(_signal.SIGTERM)  # (pending while stopped: handled once continued)
        tree.send(_signal.SIGCONT)
        tree.wait(TREE_TERM)
        tree.freeze()  # (what is left, and what a handler started meanwhile)
    finally:
        tree.send(_signal.SIGKILL)  # (a signal that cut this short leaves nothing stopped either)
        tree.close()


class _Tree:
    """A process tree being killed: its root, a child of this process's (its ID is its own until
    it is reaped, which ``kill_tree`` never does), and the processes found below it. Each is held
    by a pidfd opened while its start time was still the one listed or, without pidfds, by that
    start time, read again before each signal: an ID the system has given to another program
    since it was listed is never signalled (a review's forced interleaving: a listed process
    ended, an unrelated program got its ID and was killed)."""

    def __init__(self, root: int):
        self.root = root
        self.held: dict[tuple[int, str], int] = {}  # (ID, start time): pidfd, or -1
        self.seen: set[tuple[int, str]] = set()

    def freeze(self) -> None:
        """SIGSTOP to the tree, then to each process found below it since, until a listing made
        once all are stopped finds none new (bounded): a stopped process starts none, and a
        process started by one that then ends is below init, out of sight (a review: a process
        that git started after the tree was listed was left running)."""
        import _signal
        import time

        self.send(_signal.SIGSTOP)
        deadline = time.monotonic() + FREEZE
        for _ in range(20):
            while time.monotonic() < deadline and not all(
                    _state(pid, start) in "TtZX?" for pid, start in [(self.root, None), *self.held]):
                time.sleep(0.001)  # (a signal takes effect when its process next runs)
            if not self.hold_new(_signal.SIGSTOP):
                return

    def hold_new(self, signum: int | None = None) -> bool:
        """Hold each process now below the root or below a process held, not seen before, and
        send it ``signum``; whether there was any."""
        roots: dict[int, str | None] = {pid: start for pid, start in self.held}
        roots[self.root] = None
        new = [p for p in _descendants(roots) if p not in self.seen]
        for pid, start in new:
            self.seen.add((pid, start))
            try:
                fd = os.pidfd_open(pid)
            except (AttributeError, OSError):  # none here (or it ended, as its start time says)
                fd = -1
            if _state(pid, start) == "X":  # ended; its ID may be another's already
                if fd >= 0:
                    os.close(fd)
                continue
            self.held[pid, start] = fd
            if signum is not None:
                self._signal(pid, start, fd, signum)
        return bool(new)

    def _signal(self, pid: int, start: str, fd: int, signum: int) -> None:
        import _signal

        try:
            if fd >= 0:
                _signal.pidfd_send_signal(fd, signum)
            elif _state(pid, start) != "X":
                os.kill(pid, signum)
        except PermissionError:  # (not this user's: left alone, and not waited for)
            if fd >= 0:
                os.close(fd)
            del self.held[pid, start]
        except OSError:  # (ended)
            pass

    def send(self, signum: int) -> None:
        """``signum`` to every process of the tree, the deepest first."""
        for (pid, start), fd in reversed(list(self.held.items())):
            self._signal(pid, start, fd, signum)
        try:
            os.kill(self.root, signum)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float) -> None:
        """Until every process of the tree has ended, or ``timeout`` seconds."""
        import time

        deadline, delay = time.monotonic() + timeout, 0.001
        while not (_exited(self.root) and all(_state(pid, start) in "ZX" for pid, start in self.held)):
            if time.monotonic() >= deadline:
                return
            time.sleep(delay)
            delay = min(delay * 2, 0.02)

    def close(self) -> None:
        for fd in self.held.values():
            if fd >= 0:
                os.close(fd)
        self.held.clear()


def _descendants(roots: dict[int, str | None]) -> list[tuple[int, str]]:
    """The processes below ``roots`` (ID: start time, or None for a child of this process's), each
    with its start time; a root whose ID has another start time now is another process, and has
    none (nothing is found without ``/proc``)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    listed: dict[int, tuple[int, str]] = {}  # ID: (parent's ID, start time)
    for name in names:
        if name.isdigit():
            try:
                fields = read_stat(int(name))[1]
                listed[int(name)] = (int(fields[1]), fields[19])
            except (OSError, IndexError, ValueError, UnicodeDecodeError):
                continue  # (ended meanwhile)
    below: dict[int, list[int]] = {}
    for pid, (parent, _start) in listed.items():
        below.setdefault(parent, []).append(pid)
    todo = [pid for pid, start in roots.items() if start is None or listed.get(pid, (0, ""))[1] == start]
    found, done = [], set(todo)  # (a listing is not one instant: IDs given again could make a loop)
    while todo:
        for pid in below.get(todo.pop(), ()):
            if pid not in done:
                done.add(pid)
                found.append((pid, listed[pid][1]))
                todo.append(pid)
    return found


def _state(pid: int, start: str | None) -> str:
    """The state letter of process ``pid`` (``start``: its start time, None for a child of this
    process's): X (ended) when its ID is another process's now, ? where ``/proc`` cannot say."""
    try:
        fields = read_stat(pid)[1]
    except (OSError, IndexError, UnicodeDecodeError):
        return "?" if start is None else "X"
    return fields[0] if start is None or fields[19] == start else "X"


def _exited(pid: int) -> bool:
    """Whether the child ``pid`` has exited, left unreaped (so that its ID stays its own)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True
    except AttributeError:  # (no waitid: macOS before Python 3.13)
        return _state(pid, None) in "Z?"
