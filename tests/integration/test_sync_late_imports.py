"""A sync of many streams imports nothing after its quarantine fetch (issue 11, f138): what
measurement, validation, promotion and the sync's end load is loaded while the fetch runs
(``meanwhile.prepare_validation``), when the main thread only waits. A sync-100 imported four
modules after it (``threading`` for the signature checks' threads, the promotion's plan, the URL
note, the lost streams' warning: ~1.2 ms of its critical path). A new process, since this one
has every module loaded already."""

from __future__ import annotations

import subprocess
import sys

from test_receipt_bound import _remote

_SCRIPT = r"""
import os, sys
from git_hn.store import quarantine
seen = {}
fetch = quarantine.Quarantine.fetch
def spying(*args, **kwargs):
    try:
        return fetch(*args, **kwargs)
    finally:
        seen.setdefault("after", set(sys.modules))
quarantine.Quarantine.fetch = spying
from git_hn.cli.main import main
code = main(["sync"])
late = sorted(set(sys.modules) - seen["after"]) if "after" in seen else ["(no fetch)"]
sys.stdout.flush()
sys.stderr.write("LATE " + " ".join(late) + "\n")
sys.stderr.flush()
os._exit(code or 0)
"""


def _late_imports(b) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=b, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    line = [x for x in proc.stderr.splitlines() if x.startswith("LATE")][-1]
    return line.split()[1:]


AFTER_FETCH_BEFORE = {"threading", "git_hn.service.replication.groups", "git_hn.service.replication.renamed",
                      "git_hn.service.lost_streams"}  # (what a sync-100 imported after its fetch before f138)


def test_a_sync_of_many_streams_loads_what_follows_its_fetch_while_it_runs(tmp_path):
    _remote_path, b = _remote(tmp_path, 4, 8, 2)  # 32 streams of 2 memories: the verifier's threads
    late = _late_imports(b)
    assert not AFTER_FETCH_BEFORE & set(late), late
    # (this clone has git-hn's hooks, whose check loads ``hookscripts`` at the end, and with it, since
    # f157, ``hookprelude``: the benchmark's fresh clone has none, and imports nothing after its fetch)
    assert set(late) <= {"git_hn.hookscripts", "git_hn.hookprelude", "math"}, late


def test_prepare_validation_loads_threading_and_compiles_the_header_check_only_for_many_streams(tmp_path):
    code = ("import sys\n"
            "from git_hn.service.replication import meanwhile\n"
            "assert 'threading' not in sys.modules\n"
            "meanwhile.prepare_validation(meanwhile.MANY_STREAMS - 1)\n"
            "from git_hn.core import chain\n"
            "few = 'threading' in sys.modules or chain._WELL_FORMED is not None\n"
            "meanwhile.prepare_validation(meanwhile.MANY_STREAMS)\n"
            "print(few, 'threading' in sys.modules and chain._WELL_FORMED is not None, all(m in sys.modules for m in (\n"
            "    'git_hn.service.replication.groups', 'git_hn.service.replication.renamed',\n"
            "    'git_hn.service.lost_streams')))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True", "True"]
