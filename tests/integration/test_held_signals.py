"""``process.signals_held`` against the sync's signal handler (``cli.commands._signals_raise``),
in a child Python process of its own (the handlers are process-wide): a stop is never lost.

Two reviews: a SIGINT that came while a held block was setting its handlers reached the sync's
handler, which took the block for a child being started and deferred it; its redelivery at the
end found the stop "already on its way", and the sync went on, ignoring every later Ctrl-C, to
exit 0. And a block in another thread kept the main thread's Ctrl-C and raised it in that thread,
where no one saw it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

RUN = textwrap.dedent("""
    import os, signal, sys, threading, time, _signal
    from git_hn.cli.commands import _signals_raise
    from git_hn.errors import Signalled
    from git_hn.store import process, threads
    case = sys.argv[1]
    try:
        with _signals_raise():
            if case == "while-setting":  # the Ctrl-C comes as the block asks for the first handler
                real, fired = _signal.getsignal, []

                def getsignal(s):
                    if not fired:
                        fired.append(1)
                        os.kill(os.getpid(), signal.SIGINT)
                    return real(s)

                _signal.getsignal = getsignal
                with process.signals_held():
                    pass
                _signal.getsignal = real
            else:  # another thread holds, over and over, while the main thread is stopped
                done = threading.Event()

                def holder():
                    while not done.is_set():
                        with process.signals_held():
                            time.sleep(0.0005)

                t = threading.Thread(target=holder)
                t.start()
                try:
                    time.sleep(0.05)
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(1.0)
                finally:
                    done.set()
                    t.join()
            print("went on")
    except Signalled as stop:
        print("stopped", stop.signum)
""")


def _run(case: str) -> str:
    proc = subprocess.run([sys.executable, "-c", RUN, case], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_stop_that_comes_while_a_held_block_sets_its_handlers_stops_the_sync():
    assert _run("while-setting") == "stopped 2"


def test_a_block_held_in_another_thread_never_keeps_the_main_threads_stop():
    assert all(_run("thread") == "stopped 2" for _ in range(5))


BACKGROUND = textwrap.dedent("""
    import os, signal, sys, time
    from git_hn.cli.commands import _signals_raise
    from git_hn.errors import Signalled
    from git_hn.store import process, threads
    stop = []
    try:
        with _signals_raise():
            def worker():  # (a ``Background`` thread: ``_thread`` alone, no ``threading`` loaded)
                while not stop:
                    for child in [process.popen(["true"], stdout=process.DEVNULL) for _ in range(20)]:
                        child.wait()
            bg = threads.Background(worker)
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1.0)
            stop.append(1)
            bg.join()
            print("went on", "threading" in sys.modules)
    except Signalled as s:
        stop.append(1)
        print("stopped", s.signum, "threading" in sys.modules)
""")


def test_a_background_thread_starting_git_never_keeps_the_main_threads_stop():
    """A review: "a command that never loaded ``threading`` started no thread" was false for
    ``threads.Background``, whose threads are ``_thread``'s: there the worker took itself for the
    main thread, and the main thread's Ctrl-C was raised in the worker (37 of 60 runs)."""
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", BACKGROUND], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout.strip() == "stopped 2 False", (proc.stdout, proc.stderr)


SECOND = textwrap.dedent("""
    import os, signal
    from git_hn.cli.commands import _signals_raise
    from git_hn.errors import Signalled
    from git_hn.store import process, threads

    class Trap(list):  # a second Ctrl-C lands as the ending block reads what it kept
        armed = False

        def __getitem__(self, k):
            if Trap.armed:
                Trap.armed = False
                os.kill(os.getpid(), signal.SIGINT)
            return list.__getitem__(self, k)

    process._deferred = Trap()
    with _signals_raise():
        try:
            with process.signals_held():
                os.kill(os.getpid(), signal.SIGINT)  # the first: kept by the block
                Trap.armed = True
        except Signalled as stop:
            print("stopped", stop.signum, "left", list(process._deferred))
        try:  # the cleanup the stop started runs a Git process (as the sync's does)
            print("cleanup", process.popen(["sleep", "0.1"]).wait())
        except Signalled as stop:
            print("cleanup stopped", stop.signum)
""")


def test_a_second_stop_while_a_held_block_ends_never_cuts_the_cleanup():
    """A review of 8d639d5: a second Ctrl-C that came after the block had put the sync's handler
    back, and before it read what it kept, was raised by that handler; the kept one stayed in
    ``_deferred``, and the cleanup's next Git process was killed as it started, and a second stop
    raised in the cleanup that ``_signals_raise`` promises to let run whole."""
    proc = subprocess.run([sys.executable, "-c", SECOND], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["stopped 2 left []", "cleanup 0"], proc.stdout
