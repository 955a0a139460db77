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
