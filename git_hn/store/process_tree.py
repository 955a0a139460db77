"""The process table, where the system has one (Linux ``/proc``): a process's
``/proc/<pid>/stat`` (``read_stat``), one process named by its ID and its start time
(``start_time``, ``alive``: a record on disk that outlives its writer), and killing a child process with every process below it
(``kill_tree``: a git past its time bound, with ssh and its ProxyCommand below it), and the Git
process a hook runs in (``hook_caller``, ``git_above``), and whether that is a ``git pull``'s fetch
(``pulls``).

Owns: which processes belong to a tree being killed, and the order of its signals (asked to end,
then killed, round by round). Nothing is ever stopped: a process stopped by a git-hn that is
itself killed before it sends the next signal stays stopped for good (a review), holding whatever
it holds (a git, its ``*.lock``). A process ID alone names no process: once its process has ended
and been reaped, the system gives it to the next one, so a process listed here is always named by
its ID and its start time (field 22 of its ``stat``), held by a pidfd where there is one. Without
``/proc`` nothing below the child is found: the child alone is signalled, or, in a session of its
own, its process group (``kill_group``).

Trusts: the system's process table; nothing in it is trusted to be the process it was a moment
ago.
"""

from __future__ import annotations

import os

TREE_TERM = 0.5  # seconds the processes of a round have to end on SIGTERM before SIGKILL
ROUNDS = 10  # rounds at most: each for the processes the listing before it found new


def read_stat(pid: int) -> tuple[bytes, list[str]]:
    """(command name, the fields after it) of ``/proc/<pid>/stat``; OSError where there is none."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        head, tail = fh.read().rsplit(b")", 1)
    return head.split(b"(", 1)[1], tail.decode("ascii").split()


def start_time(pid: int) -> str | None:
    """Field 22 of process ``pid``'s ``stat`` (when it started, in clock ticks since boot): with
    the ID it names one process, not the next one given that ID; None where ``/proc`` cannot say."""
    try:
        return read_stat(pid)[1][19]
    except (OSError, IndexError, UnicodeDecodeError):
        return None


def alive(pid: int, start: str) -> bool:
    """Whether the process ``pid`` that started at ``start`` (``start_time``) still runs: a zombie
    has ended, and so has a process whose ID another one has now."""
    return _state(pid, start) not in "ZX"


def kill_tree(root: int) -> None:
    """End ``root`` (a child of this process's, not yet reaped) and every process below it: a
    timed-out ``git ls-remote`` over ssh left ``sh -c ssh …``, ssh and its ProxyCommand running
    on, reparented to init (a trial).

    In rounds: SIGTERM to the round's processes, and SIGKILL to those left after at most
    ``TREE_TERM`` seconds (ssh asking for a passphrase has turned the terminal's echo off and turns
    it back on only on a signal it can catch: a review, after SIGKILL the user's terminal stayed
    ``-echo``). Just before the SIGKILL ``/proc`` is listed again: what the round's processes
    started meanwhile (a handler's helper, or the child of one that outlived SIGTERM) is held
    while its parent still lives, and is the next round's, SIGTERM first too; at most ``ROUNDS``
    rounds, then SIGKILL alone. Nothing is ever stopped (see the module's docstring): a process
    started after a listing by a process that then ends is below init by the next one, out of
    sight, and runs on until it ends by itself."""
    import _signal

    tree, done = _Tree(root), False
    try:
        batch = [tree.root, *tree.hold_new()]
        for _ in range(ROUNDS):
            tree.send(batch, _signal.SIGTERM)
            tree.wait(batch, TREE_TERM)
            batch, ending = tree.hold_new(), batch  # (held first: once its parent dies, below init)
            tree.send(ending, _signal.SIGKILL)
            if not batch:
                break
        else:
            tree.send(batch, _signal.SIGKILL)  # (still starting processes after ROUNDS rounds)
        done = True
    finally:
        if not done:  # (an exception cut this short: what is held is not left running)
            tree.send(list(tree.held), _signal.SIGKILL)
        tree.close()


def kill_group(root: int) -> None:
    """End ``root`` (a child of this process's in a session of its own, not yet reaped: its
    process group's ID stays its own) and its process group where ``/proc`` cannot list what is
    below it (macOS, the BSDs): SIGTERM to the group, SIGKILL to it once ``root`` has ended or
    after ``TREE_TERM`` seconds, as ``kill_tree``'s rounds (ssh at a passphrase prompt puts the
    terminal back on SIGTERM). What left the group (a daemon, its own session) runs on."""
    import _signal
    import time

    for signum in (_signal.SIGTERM, _signal.SIGKILL):
        try:
            os.killpg(root, signum)
        except (ProcessLookupError, PermissionError):
            return
        deadline, delay = time.monotonic() + TREE_TERM, 0.001
        while signum == _signal.SIGTERM and not _exited(root) and time.monotonic() < deadline:
            time.sleep(delay)
            delay = min(delay * 2, 0.02)


class _Tree:
    """A process tree being killed: its root, a child of this process's (its ID is its own until
    it is reaped, which ``kill_tree`` never does), and the processes found below it. Each is held
    by a pidfd opened while its start time was still the one listed or, without pidfds, by that
    start time, read again before each signal: an ID the system has given to another program
    since it was listed is never signalled (a review's forced interleaving: a listed process
    ended, an unrelated program got its ID and was killed). A process stays held once found:
    what is found below it later belongs to the tree, below init by then or not."""

    def __init__(self, root: int):
        self.root = (root, None)  # (its start time is not needed: see above)
        self.held: dict[tuple[int, str | None], int] = {self.root: -1}  # (ID, start time): pidfd/-1
        self.seen: set[tuple[int, str]] = set()

    def hold_new(self) -> list[tuple[int, str | None]]:
        """Hold each process now below the root or below a process held, not seen before; those,
        parents before their children."""
        new = [p for p in _descendants(dict(self.held.keys())) if p not in self.seen]
        held = []
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
            held.append((pid, start))
        return held

    def send(self, batch: list[tuple[int, str | None]], signum: int) -> None:
        """``signum`` to each process of ``batch`` still held, the deepest first."""
        import _signal

        for key in reversed(batch):
            fd = self.held.get(key)
            if fd is None:  # (not this user's: left alone)
                continue
            pid, start = key
            try:
                if fd >= 0:
                    _signal.pidfd_send_signal(fd, signum)
                elif start is None or _state(pid, start) != "X":
                    os.kill(pid, signum)
            except PermissionError:  # (not this user's: left alone, and not waited for)
                if fd >= 0:
                    os.close(fd)
                del self.held[key]
            except OSError:  # (ended)
                pass

    def wait(self, batch: list[tuple[int, str | None]], timeout: float) -> None:
        """Until every process of ``batch`` still held has ended, or ``timeout`` seconds."""
        import time

        deadline, delay = time.monotonic() + timeout, 0.001
        while not all(_exited(pid) if start is None else _state(pid, start) in "ZX"
                      for pid, start in batch if (pid, start) in self.held):
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



# -- children in a session of their own (a Git that may contact a remote: no terminal) ----------

SESSIONS: set = set()  # such children not yet reaped (``process.Child``: added and discarded)


def in_session(child, main: bool) -> None:
    """Count ``child``, a Git that may contact a remote started in a session of its own (never a
    detached ``pack-refs`` or a prepared transaction: killed, they left Git's lock files behind, a
    review), for ``stop_sessions``; in the main thread
    (``main``), a hang-up or SIGTERM that would end this process at once (their default action) is
    raised as ``KeyboardInterrupt`` instead, so that the command's end stops the child: the
    terminal's signals no longer reach it."""
    SESSIONS.add(child)
    if main:
        import _signal

        for signum in (_signal.SIGHUP, _signal.SIGTERM):
            if _signal.getsignal(signum) == _signal.SIG_DFL:
                _signal.signal(signum, _interrupt)


def _interrupt(_signum, _frame) -> None:
    raise KeyboardInterrupt


def stop_sessions() -> None:
    """End the children ``in_session`` counted that still run, with their process
    group (``Child.kill``), the signals that would cut it ignored meanwhile (in the main thread, at
    the command's end): a command stopped by a signal, or ending on an error before it collected
    one (an early advertisement), left such a Git and its ssh running under init (a review)."""
    import _signal

    live = [child for child in list(SESSIONS) if child.poll() is None]  # (``poll`` may reap: a copy)
    for signum in (_signal.SIGINT, _signal.SIGHUP, _signal.SIGTERM) if live else ():
        try:
            _signal.signal(signum, _signal.SIG_IGN)
        except ValueError:  # (not the main thread, which alone sets handlers)
            break
    for child in live:
        child.kill()
        try:
            child.wait(timeout=10)
        except Exception:  # pragma: no cover - stuck in the kernel (``process.Timeout``)
            pass
    SESSIONS.clear()


# -- the Git process a hook runs in (Linux ``/proc``; None or the given ID elsewhere) ----------


def hook_caller() -> str | None:
    """The Git process that ran the hook wrapper that started this process (the wrapper's
    parent): its ID and start time (so a later process given the same ID is another), or None
    where ``/proc`` cannot say."""
    try:
        git = int(read_stat(os.getppid())[1][1])
        return f"{git} {read_stat(git)[1][19]}"
    except (OSError, IndexError, ValueError, UnicodeDecodeError):
        return None


def pulls(fetch: str) -> bool:
    """Whether the Git fetch ``fetch`` (``hook_caller``'s "<pid> <start time>") is the one a ``git
    pull`` runs: pull gives its fetch ``--update-head-ok`` (Git's ``builtin/pull.c``), which a
    user's fetch hardly ever has; from ``/proc/<pid>/cmdline`` when that process still started
    then (no process is run). False where ``/proc`` cannot say."""
    pid, _sp, start = fetch.partition(" ")
    try:
        if start_time(int(pid)) != start:
            return False
        with open(f"/proc/{int(pid)}/cmdline", "rb") as f:
            return b"--update-head-ok" in f.read(1 << 16).split(b"\0")
    except (OSError, ValueError):
        return False


PID_MAX = (1 << 31) - 1  # the largest ``pid_t`` (a C int): what the system calls take


def is_pid(word: str) -> bool:
    """Whether ``word`` is a process ID as Git, the shell and ps(1) write one: ASCII digits without
    a leading zero, from 1 to ``PID_MAX`` (``str.isdigit`` also takes ``²``, which ``int``
    refuses: a reread found an internal ``ValueError`` from a pre-push given one; 9999999999 made
    ``os.pidfd_open`` raise ``OverflowError``, and 0 names no process: ``kill(0, 0)`` asks about
    the caller's own process group). The one check of every reader: a review found the
    publisher's own refusing the 10 digits the pre-push took, whose memory then went
    unpublished, and nothing said so."""
    return 0 < len(word) <= 10 and word.isascii() and word.isdigit() and word[0] != "0" and int(word) <= PID_MAX


def git_above(given: str) -> str:
    """The process ID ``given`` if it is a ``git`` process, else the nearest ``git`` above it
    (a hook manager between Git and the wrapper: pre-commit runs it as ``<hook>.legacy`` from
    Python), else ``given`` itself. Where there is no ``/proc``, from one ps(1) listing (a
    portability trial: the publisher waited for pre-commit, which ends before Git sends the pack,
    and the push's memory was silently not published)."""
    if not is_pid(given):
        return given
    pid = int(given)
    for _ in range(4):
        try:
            name, rest = read_stat(pid)
            if name == b"git":
                return str(pid)
            pid = int(rest[1])
        except (OSError, IndexError, ValueError, UnicodeDecodeError):
            break
        if pid <= 1:
            break
    if pid == int(given) and no_proc():  # (macOS, the BSDs: ps(1) lists what /proc would)
        return _git_above_listed(int(given))
    return given


# -- where there is no ``/proc`` (macOS, the BSDs): ps(1), one process, only there -------------


def no_proc() -> bool:
    """Whether this system has no ``/proc`` process table (macOS, the BSDs; a Linux whose
    ``/proc`` is hidden): where it has one, ps(1) is never run (no process more on Linux)."""
    return not os.path.isdir("/proc/self")


def ps_arguments(pid: int) -> list[str] | None:
    """The command line of process ``pid`` as ps(1) gives it (``ps -ww -o args= -p PID``), split
    at blanks (ps joins the arguments with a space: an argument holding one reads as two); None
    where ``/proc`` exists (it says exactly) or ps cannot say."""
    if not no_proc():
        return None
    out = _ps("-ww", "-o", "args=", "-p", str(pid))
    return out.split() if out and out.strip() else None


def _git_above_listed(pid: int) -> str:
    """``git_above`` from one ``ps -A`` listing (ID, parent's ID, command name)."""
    out = _ps("-A", "-o", "pid=,ppid=,comm=")
    listed: dict[int, tuple[int, str]] = {}
    for line in (out or "").splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
            listed[int(parts[0])] = (int(parts[1]), parts[2].strip().rsplit("/", 1)[-1])
    given = pid
    for _ in range(4):
        if pid not in listed:
            break
        parent, name = listed[pid]
        if name == "git":
            return str(pid)
        pid = parent
        if pid <= 1:
            break
    return str(given)


def _ps(*args: str) -> str | None:
    """ps(1)'s output for ``args`` (the C locale; its standard error discarded), None when it
    cannot be run or fails. Spawned here, not by ``store.process`` (which imports this module)."""
    import _signal

    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.posix_spawnp("ps", ["ps", *args], {**os.environ, "LC_ALL": "C"}, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, write, 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)], setsigdef=(_signal.SIGPIPE,))
    except OSError:
        os.close(read)
        return None
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as fh:
        out = fh.read(1 << 24)
    status = os.waitpid(pid, 0)[1]
    return out.decode("utf-8", "surrogateescape") if os.waitstatus_to_exitcode(status) == 0 else None
