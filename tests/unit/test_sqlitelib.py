"""``store.sqlitelib`` loads the SQLite module without ``functools`` (~7 M instructions of every
command that reads the verified state, issue 11), and the statement cache it gives each
connection is the one ``functools.lru_cache`` gives: the same C wrapper, sizes and hits. Each
process check runs in a fresh interpreter, where nothing loaded ``functools`` before."""

from __future__ import annotations

import functools
import os
import subprocess
import sys

import pytest

from git_hn.store import sqlitelib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _fresh(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-800:]
    return proc.stdout


def test_the_state_module_loads_sqlite_without_functools_and_leaves_no_stand_in():
    out = _fresh(
        "import sys\n"
        "from git_hn.store import statedb\n"
        "print('functools' in sys.modules, 'collections' in sys.modules)\n"
        "conn = statedb.sqlite3.connect(':memory:')\n"
        "for n in range(3):\n"
        "    conn.execute('SELECT ? + 1', (n,)).fetchall()\n"
        "print(conn.execute('SELECT 41 + 1').fetchone()[0])\n"
        "import functools, sqlite3\n"  # (the real modules load afterwards, the package on the same C module)
        "print(functools.reduce(int.__add__, [1, 2, 3]), sqlite3.connect is statedb.sqlite3.connect)\n")
    assert out.split() == ["False", "False", "42", "6", "True"]


def test_with_functools_loaded_already_nothing_stands_in():
    out = _fresh(
        "import functools, sys\n"
        "real = sys.modules['functools']\n"
        "from git_hn.store import statedb\n"
        "print(sys.modules['functools'] is real, statedb.sqlite3.connect(':memory:').execute('SELECT 1').fetchone()[0])\n")
    assert out.split() == ["True", "1"]


@pytest.mark.parametrize("size", [0, 1, 2, 128, -5])
def test_the_statement_cache_is_the_one_lru_cache_makes(size):
    made = []

    def statement(sql):
        made.append(sql)
        return ("prepared", sql)

    ours = sqlitelib._lru_cache(size)(statement)
    theirs = functools.lru_cache(size)(statement)
    assert type(ours) is type(theirs)
    for sql in ("a", "b", "a", "c", "a", "b", "b"):
        assert ours(sql) == theirs(sql) == ("prepared", sql)
    assert tuple(ours.cache_info()) == tuple(theirs.cache_info())
    assert made[0::2] == made[1::2]  # (each miss made one statement on each side, in the same order)
    ours.cache_clear()
    assert ours.cache_info().currsize == 0


def test_a_size_that_is_no_integer_is_the_real_lru_cache_s():
    cached = sqlitelib._lru_cache(None)(lambda sql: sql.upper())
    assert cached("x") == "X" and cached.cache_info().maxsize is None


def test_while_another_thread_runs_the_real_functools_loads_and_nothing_stands_in():
    """Another thread could import ``functools`` while the stand-in stood in ``sys.modules``, and
    get a module without ``wraps`` or ``partial`` (a review of f139): with any other thread
    running, the real module loads (a sync loads modules in threads while its fetch runs). The
    thread is a library's own (``_thread``'s), and has run: Python counts it from then on."""
    out = _fresh(
        "import sys, _thread, time\n"
        "ran = _thread.allocate_lock()\n"
        "ran.acquire()\n"
        "_thread.start_new_thread(lambda: (ran.release(), time.sleep(2)), ())\n"
        "ran.acquire()\n"
        "from git_hn.store import statedb\n"
        "f = sys.modules.get('functools')\n"
        "print(f is not None and hasattr(f, 'wraps') and hasattr(f, 'partial'))\n"
        "print(statedb.sqlite3.connect(':memory:').execute('SELECT 1').fetchone()[0])\n")
    assert out.split() == ["True", "1"]


def test_a_thread_git_hn_started_that_has_not_run_yet_counts_too():
    """A CI run loaded the stand-in beside a thread started a moment before: Python counts a
    thread only once it has run, which needs the GIL. Here the GIL is not let go between the
    start and the question (a 60 s switch interval, no I/O), so the thread cannot have run."""
    out = _fresh(
        "import sys, _thread, time\n"
        "from git_hn.store import threads\n"
        "before = threads.alone()\n"
        "sys.setswitchinterval(60)\n"
        "bg = threads.Background(time.sleep, 0.3)\n"
        "counted, now = _thread._count(), threads.alone()\n"
        "sys.setswitchinterval(0.005)\n"
        "bg.join()\n"
        "t = time.monotonic()\n"  # (the thread exits a moment after its function ends)
        "while not threads.alone() and time.monotonic() - t < 10:\n"
        "    time.sleep(0.01)\n"
        "print(before, counted, now, threads.alone())\n")
    assert out.split() == ["True", "0", "False", "True"]


def test_the_state_module_asks_whether_a_started_thread_is_about_to_run():
    """The loading decision is ``threads.alone``'s: with a ``Background`` thread counted as
    started and not yet run (held there for as long as the import takes, which no real start
    can be), the real ``functools`` loads and nothing stands in."""
    out = _fresh(
        "import sys\n"
        "from git_hn.store import threads\n"
        "threads._live.add('a thread not yet run')\n"
        "from git_hn.store import statedb\n"
        "f = sys.modules.get('functools')\n"
        "print(f is not None and hasattr(f, 'wraps') and hasattr(f, 'partial'))\n"
        "print(statedb.sqlite3.connect(':memory:').execute('SELECT 1').fetchone()[0])\n")
    assert out.split() == ["True", "1"]
