"""``store.threads.Background``: a thread started without waiting for the GIL, joined by a lock."""

from __future__ import annotations

import statistics
import threading
import time

from git_hn.store.threads import Background


def test_it_runs_the_function_and_join_waits_for_its_end():
    gate = threading.Event()
    seen = []
    bg = Background(lambda x: (gate.wait(), seen.append(x)), 7)
    assert bg.is_alive() and bg.join(timeout=0.05) is False and seen == []
    gate.set()
    assert bg.join() is True and bg.join() is True  # again: still ended
    assert seen == [7] and not bg.is_alive() and bg.error is None


def test_an_exception_ends_it_and_is_kept():
    def fail():
        raise ValueError("boom")

    bg = Background(fail)
    assert bg.join(timeout=10)
    assert isinstance(bg.error, ValueError) and str(bg.error) == "boom"


def test_starting_does_not_wait_for_a_thread_that_holds_the_gil():
    """``threading.Thread.start`` waits for the new thread to run, which takes one or two 5 ms
    switch intervals while another thread computes; ``Background`` returns at once."""
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            sum(range(1000))

    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    try:
        took = []
        for _ in range(10):
            t0 = time.perf_counter()
            bg = Background(lambda: None)
            took.append(time.perf_counter() - t0)
            assert bg.join(timeout=10)
    finally:
        stop.set()
        spinner.join()
    assert statistics.median(took) < 0.004, took
