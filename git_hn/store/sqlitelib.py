"""The SQLite module, loaded without ``functools``.

Owns: importing ``_sqlite3``, the C module the ``sqlite3`` package re-exports (``connect``,
``Connection`` and ``Error`` are the same objects; the package adds only adapters git-hn never
uses, and ~2 ms of imports: ``datetime``). Trusts: nothing.

When it is loaded, the C module takes ``functools.lru_cache``, which every connection calls
once, for its statement cache: ``lru_cache(cached_statements)(connection)``, a
``_functools._lru_cache_wrapper`` of the connection. ``functools`` loads ``collections``,
``keyword``, ``operator``, ``reprlib`` and ``types`` with it, ~7 M instructions (6% of a
record, which uses nothing else of them: issue 11, fixed cost). So while the C module loads,
``sys.modules`` holds a stand-in ``functools`` whose ``lru_cache`` makes that same wrapper
(``_lru_cache``); the stand-in is removed at once, and any later ``import functools`` loads the
real module. It stands in only while the loading thread is the process's only one (no other
thread can import while it stands there: ``threads.alone``, which counts a thread git-hn
started a moment ago that has not run yet; a sync loads modules in threads while its fetch
runs, and there the real module loads). When ``functools`` is loaded already,
nothing stands in; when the C module asks
the stand-in for anything more (another Python version), it is loaded again with the real one.
``tests/unit/test_sqlitelib.py`` compares the two caches.
"""

from __future__ import annotations

import sys


def _cache_info(*fields):
    """``functools._CacheInfo``, loaded when a cache's ``cache_info()`` is asked (never by git-hn)."""
    from functools import _CacheInfo

    return _CacheInfo(*fields)


def _lru_cache(maxsize=128, typed=False):
    """``functools.lru_cache`` for what the C module asks of it (an integer size); anything else
    is the real one's."""
    if type(maxsize) is not int:
        from functools import lru_cache

        return lru_cache(maxsize, typed)
    from _functools import _lru_cache_wrapper

    size = max(maxsize, 0)

    def decorating(func):
        return _lru_cache_wrapper(func, size, typed, _cache_info)

    return decorating


def _load():
    from .threads import alone

    if "functools" in sys.modules or not alone():
        # (loaded already, or another thread runs: one that imported ``functools`` while the
        # stand-in stood in ``sys.modules`` would get a module without ``wraps`` or ``partial``,
        # so the stand-in is used only while this is the process's one thread)
        import _sqlite3

        return _sqlite3
    stand_in = type(sys)("functools")
    stand_in.lru_cache = _lru_cache
    sys.modules["functools"] = stand_in
    try:
        import _sqlite3
    except ImportError:
        raise
    except Exception:  # (a C module that asks the stand-in for more: with the real one)
        sys.modules.pop("functools", None)
        import _sqlite3
    finally:
        if sys.modules.get("functools") is stand_in:
            del sys.modules["functools"]
    return _sqlite3


sqlite3 = _load()
