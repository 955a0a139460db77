"""Freed memory given back to the system between a large import's phases (issue 11, f123).

CPython returns the small objects it frees to its own arenas, and glibc keeps what larger frees
leave inside its heap until the heap's top is free: a 100,000-memory sync's measurement and
validation free tens of MiB each (objects read, staged payloads, worker results), which then
stayed resident under the next phase's own. glibc's ``malloc_trim(0)`` hands every free page of
its heap back (a few milliseconds); elsewhere (musl, macOS) there is none and nothing is done.
"""

from __future__ import annotations

_trim = None  # glibc's malloc_trim, False where there is none (looked up once)
calls = 0  # trims done (the tests' counter)


def release() -> bool:
    """Give free heap pages back to the system; False where the C library cannot."""
    global _trim, calls
    if _trim is None:
        try:
            import ctypes

            found = ctypes.CDLL(None).malloc_trim
            found.argtypes, found.restype = [ctypes.c_size_t], ctypes.c_int
            _trim = found
        except (ImportError, OSError, AttributeError):
            _trim = False
    if not _trim:
        return False
    _trim(0)
    calls += 1
    return True
