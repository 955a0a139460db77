"""The ``git-hn`` executable (``cli.main.run``) runs the cyclic garbage collector every
``GC_EVERY`` allocations: with Python's default threshold a record or a recall ran about 18
collections, 3 ms of its fixed cost (issue 11), to free about a hundred objects. Real commands in
a real repository, run through ``run`` in a process of their own; the collections are counted by
the interpreter's own ``gc.callbacks``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import hn

_COUNTED = """
import gc, sys
import git_hn.cli.main as m
n = [0]
gc.callbacks.append(lambda phase, info: phase == "start" and n.__setitem__(0, n[0] + 1))
real = m.main
def counted():
    code = real()
    sys.stderr.write(f"collections {n[0]} enabled {gc.isenabled()}\\n")
    return code
m.main = counted
sys.argv = ["git-hn", *sys.argv[1:]]
m.run()
"""


@pytest.mark.parametrize("args", [["memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
                                   "--content", "second"],
                                  ["memory", "recall"], ["memory", "brief"]])
def test_a_short_command_runs_no_collection(inited, args):
    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "first").code == 0
    proc = subprocess.run([sys.executable, "-c", _COUNTED, *args], cwd=inited, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "collections 0 enabled True" in proc.stderr.splitlines()


# the executable (bin/git-hn, run as pip installs it: its file read and run as ``__main__``), with
# the interpreter's collections counted from its first line to the command's exit
_EXECUTABLE = """
import gc, os, sys
path = sys.argv[1]
sys.argv = [path, *sys.argv[2:]]
with open(path) as fh:
    code = compile(fh.read(), path, "exec")
n = [0]
early = [0]  # before the command's entry is loaded
def count(phase, info):
    if phase == "start":
        n[0] += 1
        early[0] += "git_hn.cli.main" not in sys.modules
real_exit = os._exit
def counted(code):
    sys.stderr.write(f"collections {n[0]} before the entry {early[0]} threshold {gc.get_threshold()[0]}\\n")
    real_exit(code)
os._exit = counted
gc.collect()  # (this probe's own allocations are not counted)
gc.callbacks.append(count)
exec(code, {"__name__": "__main__"})
"""


def test_the_executable_sets_the_threshold_before_anything_is_imported(inited):
    """``bin/git-hn`` (``pyproject.toml`` installs it instead of a console script, whose launcher
    imported ``re`` first: six collections under the default threshold, ~3 M instructions of every
    command) runs a record (the second: the first builds the state) without one collection from its
    first line on."""
    from pathlib import Path

    from git_hn.cli.main import GC_EVERY

    assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "exact",
              "--content", "first").code == 0
    executable = Path(__file__).resolve().parents[2] / "bin" / "git-hn"
    assert f"gc.set_threshold({GC_EVERY:_}," in executable.read_text()  # (the same value as ``run``)
    proc = subprocess.run([sys.executable, "-c", _EXECUTABLE, str(executable), "memory", "record", "--kind", "decision",
                           "--at", "HEAD", "--applies", "exact", "--content", "second"], cwd=inited, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Memory: sha256:")
    assert f"collections 0 before the entry 0 threshold {GC_EVERY}" in proc.stderr.splitlines()
