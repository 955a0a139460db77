"""Child processes without ``subprocess`` (issue 11: ~2 ms of every command's start-up).

Owns: starting a child with ``os.posix_spawn`` (``Child``: pipes, ``wait``/``poll``/``kill``,
``communicate``, the defaults of ``Popen`` that matter: SIGPIPE and SIGXFSZ back at their default
actions, no descriptor beyond the standard three), finding its executable on the child's PATH,
the one line said when the system will not start it (``not_started``), exchanging input and
output with it (``exchange``: one poll set with a pidfd, so an exit is seen
the moment it happens), holding a stopping signal back while a child is being started
(``popen``, ``defer_signal``), waiting for another process to end (``wait_for_exit``, ``ended``).
Killing a child with the processes below it, and finding the Git process a hook runs in
(``hook_caller``, ``git_above``), is ``store.process_tree``'s (``Child.kill_tree``).
What to run, and with which environment, is ``store.git``'s.

Trusts: the caller's arguments (argv lists, never a shell).
"""

from __future__ import annotations

import os
import sys

from ..core.tuples import NamedTuple

PIPE, DEVNULL = -1, -3  # as in ``subprocess``
POLL_MAX = 3600.0  # seconds one ``poll`` waits at most (a longer wait is several): its milliseconds
# are a C int, and an audit's timeout of 3,000,000 s raised OverflowError


class Completed(NamedTuple):
    """A finished process (``subprocess.CompletedProcess``'s fields)."""

    args: list
    returncode: int
    stdout: bytes
    stderr: bytes


class Timeout(Exception):
    """A process did not end within its time (``subprocess.TimeoutExpired``)."""


class Oversize(Exception):
    """A process wrote more to its stdout than its reader's bound (``exchange``'s ``limit``)."""


# whether the file system's encoding (the locale's) is not UTF-8 (``Child``)
_LOCALE_BYTES = sys.getfilesystemencoding() != "utf-8"


class Child:
    """A child process started with ``os.posix_spawn``: what git-hn uses of ``subprocess.Popen``
    (pipes, ``wait``/``poll``/``kill``, ``communicate``) without importing ``subprocess``
    (~2 ms of every command's start-up with the modules it pulls in, issue 11).

    Like ``Popen`` with its defaults, the child gets SIGPIPE and SIGXFSZ back at their default
    actions, a new session with ``start_new_session``, and no descriptor of this process beyond
    its standard three (Python opens every descriptor non-inheritable; those inherited from
    this process's own parent are made so before the first child starts). A working directory
    is given to Git as ``git -C DIR``, which starts Git exactly as in that directory.
    """

    def __init__(self, args, *, stdin=None, stdout=None, stderr=None, cwd=None, env=None,
                 executable=None, start_new_session=False, stdout_bytes: int = 0):
        # the C modules: ``signal`` and ``threading`` cost ~7 M instructions (~1.7 ms) to import,
        # for three numbers and a lock (issue 11: a command's fixed cost)
        import _signal
        import _thread

        _seal_inherited()
        self.args = args
        self.returncode = None
        self._lock = _thread.allocate_lock()
        argv = list(args)
        if argv[0] == "git" and _LOCALE_BYTES:
            # git-hn's text (revisions, ref names, paths Git gave it, argv: ``cli.main``) is
            # UTF-8; ``posix_spawn`` would encode it in the locale's codec (ISO-8859-1 gave Git
            # ``caf\xe9.txt`` for ``café.txt``; ASCII failed)
            argv[1:] = [a.encode("utf-8", "surrogateescape") if isinstance(a, str) else a for a in argv[1:]]
        if cwd is not None:
            if argv[0] != "git":
                raise ValueError("a working directory is supported for git only")
            argv[1:1] = ["-C", os.fspath(cwd)]  # (a directory of ``os``'s: its own encoding)
        env = os.environ if env is None else env
        path = executable or _executable(argv[0], env)
        self._session = bool(start_new_session)
        # a Git that may contact a remote (``transport.remote_env``): ``process_tree.stop_sessions``;
        # not a detached ``pack-refs`` or a prepared transaction, which a kill would leave locked.
        # Stopping signals are blocked from before it starts until it is counted (under load one came
        # in between, and it ran on with its ssh); the child starts with the mask of before
        stops = {_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP}
        self._remote = self._session and "GIT_ALLOW_PROTOCOL" in env
        mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, stops) if self._remote and in_main() else None
        try:
            self._start(path, argv, env, stdin, stdout, stderr, stdout_bytes,
                        {} if mask is None else {"setsigmask": mask})
        finally:
            if mask is not None:
                _signal.pthread_sigmask(_signal.SIG_SETMASK, mask)

    def _start(self, path, argv, env, stdin, stdout, stderr, stdout_bytes: int, spawn_mask: dict) -> None:
        import _signal

        actions, ours, theirs = [], [None, None, None], []
        try:
            for fd, how in ((0, stdin), (1, stdout), (2, stderr)):
                if how == PIPE:
                    r, w = os.pipe()
                    if fd == 1 and stdout_bytes:
                        _grow_pipe(r, stdout_bytes)
                    mine, child = (w, r) if fd == 0 else (r, w)
                    ours[fd] = mine
                    theirs.append(child)
                    actions.append((os.POSIX_SPAWN_DUP2, child, fd))
                elif how == DEVNULL:
                    actions.append((os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY, 0))
                elif how is not None:
                    raise ValueError("stdio must be PIPE, DEVNULL or None")
            spawn = os.posix_spawn if os.sep in path else os.posix_spawnp
            self.pid = spawn(path, argv, env, file_actions=actions, setsid=self._session,
                             setsigdef=(_signal.SIGPIPE, _signal.SIGXFSZ), **spawn_mask)
        except BaseException:
            for fd in ours + theirs:
                if fd is not None:
                    os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        self.stdin = os.fdopen(ours[0], "wb") if ours[0] is not None else None
        self.stdout = os.fdopen(ours[1], "rb") if ours[1] is not None else None
        self.stderr = os.fdopen(ours[2], "rb") if ours[2] is not None else None
        if self._remote:
            from .process_tree import in_session

            in_session(self, in_main())

    def _reaped(self, status: int) -> None:
        self.returncode = os.waitstatus_to_exitcode(status)
        if self._remote:
            from .process_tree import SESSIONS

            SESSIONS.discard(self)

    def poll(self):
        if self.returncode is None and self._lock.acquire(blocking=False):
            try:
                if self.returncode is None:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                    if pid == self.pid:
                        self._reaped(status)
            except ChildProcessError:  # reaped already (as Popen, taken as success)
                self.returncode = 0
            finally:
                self._lock.release()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        if timeout is None:
            with self._lock:
                if self.returncode is None:
                    try:
                        _pid, status = os.waitpid(self.pid, 0)
                        self._reaped(status)
                    except ChildProcessError:
                        self.returncode = 0
            return self.returncode
        import time

        deadline, delay = time.monotonic() + timeout, 0.0005
        while self.poll() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout(f"{self.args[0]} did not end within {timeout} seconds")
            time.sleep(min(delay, left))
            delay = min(delay * 2, 0.05)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL; to the whole process group of a child started in a session of its own (a Git
        that may contact a remote, its ssh beside it: a review saw it run on under init)."""
        import _signal

        if self.returncode is None:
            try:
                (os.killpg if self._session else os.kill)(self.pid, _signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def kill_tree(self) -> None:
        """``kill``, and every process it started (``process_tree.kill_tree``: SIGTERM first,
        then SIGKILL): a timed-out ``git ls-remote`` over ssh left ``sh -c ssh …``, ssh and its
        ProxyCommand running on, reparented to init (a trial). Found through ``/proc``, not a process
        group: most of git-hn's Git processes share this process's group. Where there is no
        ``/proc``, a child in a session of its own (a Git that may contact a remote) is ended with
        its process group (``process_tree.kill_group``: a portability trial found ssh left running)."""
        if self.returncode is None:
            from .process_tree import kill_group, kill_tree, no_proc

            if self._session and no_proc():
                kill_group(self.pid)
            else:
                kill_tree(self.pid)

    def communicate(self, data: bytes | None = None) -> tuple[bytes, bytes]:
        return exchange(self, data, 10**6)

    def __enter__(self):
        return self

    def __exit__(self, *_exc) -> None:
        for stream in (self.stdout, self.stderr, self.stdin):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self.wait()


_sealed = False


def _seal_inherited() -> None:
    """Make every descriptor this process inherited above 2 non-inheritable, once, so that no
    child gets one (``Popen``'s ``close_fds``)."""
    global _sealed
    if _sealed:
        return
    _sealed = True
    for listing in ("/proc/self/fd", "/dev/fd"):  # Linux, then the BSDs and macOS
        try:
            fds = [int(n) for n in os.listdir(listing)]
            break
        except (OSError, ValueError):
            continue
    else:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    os.set_inheritable(fd, False)
            except OSError:
                pass


_spawning = 0  # children being started right now (in ``popen``)
_MAIN_THREAD = __import__("_thread").get_ident()  # (imported by the command's start, in the main thread)
_deferred: list[int] = []  # signals that arrived meanwhile


def _grow_pipe(fd: int, size: int) -> None:
    """Let the pipe ``fd`` hold ``size`` bytes (Linux ``F_SETPIPE_SZ``), so that a child whose
    answer is read later (an early question) writes it all and exits meanwhile instead of
    stopping at the default 64 KiB. Best effort: elsewhere, above the system's limit or the
    user's pipe quota, the pipe keeps its size (the answer is then read as it comes, as before)."""
    import fcntl

    op = getattr(fcntl, "F_SETPIPE_SZ", None)
    if op is not None:
        try:
            fcntl.fcntl(fd, op, size)
        except OSError:
            pass


def running(pid: int, names: tuple[bytes, ...]) -> bool:
    """Whether process ``pid`` (anyone's) runs as a program whose command line holds one of
    ``names``: a process ID used again by another program counts as ended (without ``/proc``, any
    process of that ID counts as running)."""
    if pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            line = fh.read()
        return any(n in line for n in names)
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except (ProcessLookupError, OverflowError, ValueError):  # (OverflowError: a damaged record's ID)
            return False
        except OSError:
            return True


def ended(pid: int, names: tuple[bytes, ...], wait: float) -> bool:
    """Whether process ``pid`` no longer runs as one of ``names`` (``running``), waiting up to
    ``wait`` seconds for it (a killed writer's Git, which ends at the end of its input)."""
    return waited(lambda: running(pid, names), wait)


def waited(still, wait: float) -> bool:
    """Whether ``still()`` turned false within ``wait`` seconds, asked every 20 ms."""
    import time

    deadline = time.monotonic() + wait
    while still():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def wait_for_exit(pid: int, timeout: float) -> None:
    """Until process ``pid`` (not necessarily a child: the user's ``git push`` a background
    publisher waits for) has ended, or ``timeout`` seconds."""
    import select
    import time

    try:  # (none for what is no process ID: 0 names this process's group; 10**10 raised OverflowError)
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError, OverflowError, ValueError):  # gone already, or no pidfd: poll its existence
        deadline = time.monotonic() + timeout
        while pid > 0 and time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except (ProcessLookupError, OverflowError, ValueError):
                return
            except PermissionError:
                pass
            time.sleep(0.02)
        return
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + timeout
        while not poller.poll(min(max(deadline - time.monotonic(), 0), POLL_MAX) * 1000) \
                and time.monotonic() < deadline:
            pass
    finally:
        os.close(fd)


def popen(args, **kw) -> Child:
    """``subprocess.Popen``, with a stopping signal that arrives while the child is being started
    held back until the child exists: the child is then killed and reaped, and the signal raised
    (``errors.Signalled``). Raised in the middle of ``Popen``, it would leave a child that no one
    knows, still writing (into a quarantine being removed, say)."""
    global _spawning
    if not in_main():  # (signal handlers run in the main thread: only its starts are held)
        return Child(args, **kw)
    _spawning += 1
    try:
        proc = Child(args, **kw)
    except BaseException:
        _spawning -= 1
        _raise_deferred()
        raise
    _spawning -= 1
    if _deferred and not _spawning:
        _stop(proc)
        _raise_deferred()
    return proc


def in_main() -> bool:
    """Whether this is the main thread, where Python runs every signal handler: only its ``popen``
    and ``signals_held`` count in ``_spawning`` (another's kept the main thread's stop). Asked of
    ``_thread``: no ``threading`` for the hot commands, and ``Background``'s threads are told too."""
    import _thread

    return _thread.get_ident() == _MAIN_THREAD


def not_started(args, exc: OSError):
    """The ``GitError`` for a git process (``args``: Git's arguments) the system would not
    start: no ``git`` on PATH, or an argument list over the system's bound (``E2BIG``: an audit's
    push of 80,000 tags put every pushed tip on one ``rev-list``'s command line, and the
    system's words came out as ``cannot change /usr/lib/git-core/git``, naming a file nothing
    tried to change). One line that names the Git command and why; never the arguments
    themselves (they may be many, or carry a URL)."""
    import errno

    from ..errors import GitError

    if isinstance(exc, FileNotFoundError):
        return GitError("git is not installed or not on PATH")
    name = command_name(args)
    if exc.errno == errno.E2BIG:
        size = sum(len(os.fsencode(a)) + 1 for a in args)
        return GitError(f"git {name} could not be started: its {len(args)} arguments ({size} bytes) and "
                        "environment are over the system's limit for a command line")
    return GitError(f"git {name} could not be started: {exc.strerror or type(exc).__name__}")


_VALUED = frozenset({"-c", "-C", "--config-env", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                     "--super-prefix", "--attr-source", "--list-cmds"})  # (Git's options whose value follows)


def command_name(args) -> str:
    """The Git command ``args`` runs: the first argument that is no option of Git's own, nor the
    value of one (``-c x.y=1``, ``-C dir``): a review found ``git -c could not be started``."""
    words = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]
    i = 0
    while i < len(words):
        if not words[i].startswith("-"):
            return words[i]
        i += 2 if words[i] in _VALUED else 1
    return words[0] if words else "(no command)"


_found: dict[tuple[str, str], str] = {}


def _executable(name: str, env) -> str:
    """The file ``name`` runs as, searched in the child's PATH once per PATH (as ``Popen``
    searches it): the spawn then makes one ``execve``. ``name`` itself when it is a path or a
    relative PATH entry comes first (``posix_spawnp`` then searches); FileNotFoundError when no
    entry has it."""
    if os.sep in name:
        return name
    path = env.get("PATH", os.defpath)
    got = _found.get((name, path))
    if got is None:
        for d in path.split(os.pathsep):
            if not os.path.isabs(d):
                got = name  # relative to the child's directory: left to posix_spawnp
                break
            candidate = os.path.join(d, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                got = candidate
                break
        if got is None:
            raise FileNotFoundError(2, f"{name} not found on PATH")
        _found[(name, path)] = got
    return got


def defer_signal(signum: int) -> bool:
    """For a signal handler: whether a child is being started; the signal is then raised by
    ``popen`` as soon as the child exists (and has been stopped)."""
    if _spawning:
        _deferred.append(signum)
        return True
    return False


def _hold(signum, _frame) -> None:
    """The handler of a stopping signal inside ``signals_held``: the signal is kept, and
    delivered as the block ends."""
    _deferred.append(signum)


class signals_held:
    """A stopping signal (SIGINT, SIGTERM, SIGHUP) that arrives inside this block is delivered as
    it ends, to the handler that was in place before: for work that must not be cut between two
    steps, such as a pending anchor and its receipt, forking a worker process and handing it to
    its owner, or ending every worker.

    Whatever that handler is: the fetch hook's import runs with Python's own (Ctrl-C raises
    ``KeyboardInterrupt``), a sync with one that raises ``Signalled`` (``cli.commands``), and a
    review found the hook's import stopped between its anchor and its receipt, every read then
    failing until a sync. So in the main thread (where Python runs every signal handler, whichever
    thread the system gave the signal to) the outermost block puts a handler of its own in place
    that only keeps the signal; as it ends it puts the previous handlers back and raises the first
    signal kept again (``signal.raise_signal``): ``KeyboardInterrupt``, ``Signalled``, or the
    default action (the process ends), as if the signal arrived then. No signal mask changes, so a
    child started inside inherits nothing of it (an executed program takes the default action of
    a caught signal; ``workers`` sets its forked children's own). In another thread the block does
    nothing: no handler runs there, so nothing there can be cut; a stop raised meanwhile in the
    main thread is the main thread's (a review: a thread's block kept the main thread's Ctrl-C and
    raised it in that thread, where no one saw it: the sync went on and exited 0)."""

    def __enter__(self):
        global _spawning
        import _signal

        self.saved: dict = {}
        self.main = in_main()
        if not self.main:  # (no handler runs here: nothing to hold, nothing for another to keep)
            return self
        try:
            for s in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
                previous = _signal.getsignal(s)
                if previous is None or previous is _hold or previous == _signal.SIG_IGN:
                    continue  # (a handler set outside Python; an outer block's; ignored anyway)
                self.saved[s] = previous
                _signal.signal(s, _hold)  # (set, then pending signals run: another's may raise)
        except ValueError:  # not the main thread after all (``_MAIN_THREAD`` taken in another): none set
            self.saved, self.main = {}, False
            return self
        except BaseException:  # a signal that came before the hold was whole stops this, as it would have
            _deferred.clear()
            _restore(self.saved)
            raise
        # counted only now: a signal while the handlers were set was raised by the handler in place
        # (counted first, the sync's handler deferred it and its redelivery was lost: docs/decisions.md)
        _spawning += 1
        return self

    def __exit__(self, *exc) -> bool:
        global _spawning
        if not self.main:
            return False
        _spawning -= 1
        if not self.saved:  # an inner block (the outer one delivers), or not the main thread
            _raise_deferred()
            return False
        import _signal

        # the stopping signals blocked while the handlers are put back and what was kept is read:
        # one that comes meanwhile runs once they are unblocked, in the handler put back (a review:
        # the sync's handler raised in between, and the kept one, left over, stopped its cleanup)
        stopping = {_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP}
        blocked = _signal.pthread_sigmask(_signal.SIG_BLOCK, stopping) if hasattr(_signal, "pthread_sigmask") else None
        try:  # (the handlers first: a signal kept while they were put back is not left over, a review)
            _restore(self.saved)
        finally:
            kept = _deferred[:1]
            _deferred.clear()
            if blocked is not None:
                _signal.pthread_sigmask(_signal.SIG_SETMASK, blocked)
        if kept:
            _signal.raise_signal(kept[0])  # to the handler that was in place: as if it came now
        return False


class stops_after_write:
    """A command's scope (``memory record``): a stop from its memory's ref update on waits for the
    scope's end, the output written, and is dropped (the command ends anyway). ``store.append``
    hands the scope its hold once the ref moved (``keep``); with no scope (MCP) it ends it."""

    active: stops_after_write | None = None

    def __enter__(self):
        self.hold, stops_after_write.active = None, self
        return self

    def __exit__(self, *exc) -> bool:
        hold, self.hold, stops_after_write.active = self.hold, None, None
        if hold is not None:
            _deferred[:] = _deferred if exc[0] else []  # (finished: it said what it stored)
            hold.__exit__(*exc)
        return False

    @staticmethod
    def keep(hold: signals_held) -> None:
        scope = stops_after_write.active
        if scope is not None and scope.hold is None:
            scope.hold = hold
            return
        hold.__exit__(None, None, None)


def _restore(saved: dict) -> None:
    """Put the handlers ``saved`` back, every one, even when a signal that arrived meanwhile
    raises from its own handler as one is set (``signal.signal`` sets it, then runs pending
    handlers); that exception is raised once all are back."""
    import _signal

    raised = None
    for s, handler in saved.items():
        try:
            _signal.signal(s, handler)
        except BaseException as exc:  # noqa: BLE001 - the handler is set; the rest must be too
            raised = raised or exc
    if raised is not None:
        raise raised


def _raise_deferred() -> None:
    if _deferred and not _spawning:
        from ..errors import Signalled

        signum = _deferred[0]
        _deferred.clear()
        raise Signalled(signum)


def _stop(proc: Child) -> None:
    """Kill and reap a child whose caller is unwinding (a signal arrived while it ran), so that
    it writes nothing after the caller has cleaned up."""
    try:
        proc.kill()
        proc.wait(timeout=10)
    except (OSError, Timeout):  # pragma: no cover - already gone, or stuck
        pass


def exchange(proc: Child, data: bytes | None, timeout: float,
             limit: int | None = None) -> tuple[bytes, bytes]:
    """``proc.communicate(data, timeout)`` without its exit poll: ``communicate`` waits for
    the exit by sleeping in growing steps (half a millisecond, then one, then two…), which costs
    about a millisecond for every short git process. Here one poll set holds the pipes and, on
    Linux, a pidfd of the process, so the exit is noticed the moment it happens. Raises
    ``Timeout`` (the caller kills) when ``timeout`` seconds pass, ``Oversize`` (the caller kills)
    when stdout passes ``limit`` bytes: what a remote lists is never all held in memory. Of
    stderr, only its start and its end are kept (``stderr_kept.Stderr``)."""
    import select
    import time

    from .stderr_kept import Stderr

    deadline = time.monotonic() + timeout
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    reading: dict = {out_fd: [], err_fd: Stderr()}  # (stderr bounded)
    done: dict[int, bytes] = {}
    poller = select.poll()
    for fd in reading:
        poller.register(fd, select.POLLIN)
    view, offset, stdin = memoryview(data or b""), 0, None
    if proc.stdin is not None:
        if data:
            stdin = proc.stdin.fileno()
            poller.register(stdin, select.POLLOUT)
        else:
            proc.stdin.close()
    try:
        pidfd = os.pidfd_open(proc.pid)
        poller.register(pidfd, select.POLLIN)
    except (AttributeError, OSError):  # not Linux, or an old kernel: wait() below blocks
        pidfd = -1
    exited = pidfd < 0
    try:
        while reading or stdin is not None or not exited:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout(f"{proc.args[0]} did not end within {timeout} seconds")
            for fd, _event in poller.poll(min(left, POLL_MAX) * 1000):
                if fd == pidfd:
                    exited = True
                    poller.unregister(pidfd)
                elif fd == stdin:
                    try:
                        offset += os.write(stdin, view[offset:offset + select.PIPE_BUF])
                    except BrokenPipeError:
                        offset = len(view)
                    if offset >= len(view):
                        poller.unregister(stdin)
                        proc.stdin.close()
                        stdin = None
                else:
                    chunk = os.read(fd, 65536)
                    if chunk:
                        reading[fd].append(chunk)
                        if limit is not None and fd == out_fd:
                            limit -= len(chunk)
                            if limit < 0:
                                raise Oversize(f"{proc.args[0]} wrote more than its bound")
                    else:
                        poller.unregister(fd)
                        kept = reading.pop(fd)
                        done[fd] = kept.text() if fd == err_fd else b"".join(kept)
    except BaseException as exc:
        if not isinstance(exc, (Timeout, Oversize)):  # a signal: the child stops with us
            _stop(proc)
        raise
    finally:
        if pidfd >= 0:
            os.close(pidfd)
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    return done[out_fd], done[err_fd]
