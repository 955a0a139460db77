"""A reinstall of the same git-hn keeps the verified state; changed code rebuilds it.

pip writes every file of a package anew, so a reinstall (or an upgrade that does not touch the
verifying code) changes the state's checker, which identifies that code and the Ed25519
libraries by size and modification time: before, the next command verified every memory again
(seconds at 100,000 memories). A state built from ``statedb.CONTENT_FROM`` memories or more also
records the digest of their bytes, and is kept when only the times moved; rebuilt after an
upgrade that left the signature code alone, it checks no signature twice. Here git-hn runs from
a copy of its package, whose files are then touched (as a reinstall does) or changed.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import git_hn
from helpers import one_stream

PROBE = ("import sys\n"
         "sys.path.insert(0, sys.argv[1])\n"
         "from git_hn.core import keys\n"
         "from git_hn.store import statedb, verify\n"
         "assert statedb.__file__.startswith(sys.argv[1]), statedb.__file__\n"
         "statedb.CONTENT_FROM = 1\n"
         "staged, checked = [], []\n"
         "real_stage, real_verify = verify.stage_commits, keys.verify\n"
         "def stage(repo, commits, read=None):\n"
         "    staged.extend(commits)\n"
         "    return real_stage(repo, commits, read)\n"
         "def check(*args):\n"
         "    checked.append(1)\n"
         "    return real_verify(*args)\n"
         "verify.stage_commits, keys.verify = stage, check\n"
         "from git_hn.cli.main import main\n"
         "code = main(sys.argv[2:])\n"
         "sys.stdout.flush()\n"
         "sys.stderr.write(f'verified {len(staged)} {len(checked)}')\n"
         "sys.exit(code)\n")


def _run(repo: Path, package: Path) -> tuple[str, int, int]:
    """(recall's output, commits read and checked, signatures checked) with git-hn loaded from
    ``package``."""
    proc = subprocess.run([sys.executable, "-c", PROBE, str(package), "memory", "recall", "--json",
                           "--include-untrusted"], cwd=repo, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    staged, checked = proc.stderr.decode().rsplit("verified ", 1)[1].split()
    return proc.stdout.decode(), int(staged), int(checked)


def _meta(repo: Path) -> dict:
    with sqlite3.connect(repo / ".git" / "hn" / "memory" / "state-v0.sqlite") as conn:
        return dict(conn.execute("SELECT key, value FROM meta"))


def test_a_reinstall_keeps_the_state_and_a_changed_byte_rebuilds_it(tmp_path):
    repo = one_stream(tmp_path, 6)
    # (the import brought the state current, with this test's own git-hn: a copy of its package
    # keeps the files' sizes and times, which identify the code, so that state would be served)
    for leftover in (repo / ".git" / "hn" / "memory").glob("state-v0.*"):
        leftover.unlink()
    package = tmp_path / "site"
    shutil.copytree(Path(git_hn.__file__).parent, package / "git_hn",
                    ignore=shutil.ignore_patterns("__pycache__"))

    out, staged, checked = _run(repo, package)  # this package's first command builds the state
    assert (staged, checked) == (6, 6) and json.loads(out)["matched"] == 6
    first = _meta(repo)
    assert first["content"] and first["signatures"]

    later = time.time() + 100  # a reinstall: every file written anew, the same bytes
    for root, _dirs, files in os.walk(package):
        for name in files:
            os.utime(os.path.join(root, name), (later, later))
    assert _run(repo, package) == (out, 0, 0)  # kept: nothing verified again
    second = _meta(repo)
    assert second["checker"] != first["checker"] and second["content"] == first["content"]
    assert _run(repo, package) == (out, 0, 0)

    # an upgrade that changes verifying code but not the signature code: every commit is read,
    # scanned and decoded again under the new code, no signature is checked twice
    projection = package / "git_hn" / "core" / "projection.py"
    projection.write_bytes(projection.read_bytes() + b"\n# one more line\n")
    assert _run(repo, package) == (out, 6, 0)
    third = _meta(repo)
    assert third["content"] != first["content"] and third["signatures"] == first["signatures"]

    chain = package / "git_hn" / "core" / "chain.py"  # one that changes the signature code
    chain.write_bytes(chain.read_bytes() + b"\n# one more line\n")
    assert _run(repo, package) == (out, 6, 6)  # everything verified again under the new code
    assert _meta(repo)["signatures"] != first["signatures"]


def _hn_from(package: Path, repo: Path, *args: str) -> subprocess.CompletedProcess:
    code = ("import sys\nsys.path.insert(0, sys.argv[1])\nfrom git_hn.cli.main import main\n"
            "sys.exit(main(sys.argv[2:]))\n")
    return subprocess.run([sys.executable, "-c", code, str(package), *args], cwd=repo, capture_output=True,
                          text=True, timeout=120)


def test_index_verify_passes_after_a_reinstall_of_the_same_code_over_a_small_state(tmp_path):
    """An audit (README: "a reinstall of the same code keeps the state"): a state of fewer than
    ``CONTENT_FROM`` memories records no content digest, and after a reinstall (every file
    written anew) ``index verify`` failed with "written by another version or installation"
    until some read rebuilt it. It now compares that state with its re-derivation, as it does
    any state, and passes."""
    repo = one_stream(tmp_path, 3)
    package = tmp_path / "site"
    shutil.copytree(Path(git_hn.__file__).parent, package / "git_hn",
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert _hn_from(package, repo, "memory", "recall", "-n", "1").returncode == 0  # built by this package
    assert "content" not in _meta(repo)
    first = _hn_from(package, repo, "memory", "index", "verify")
    assert (first.returncode, first.stderr) == (0, "")

    later = time.time() + 100  # a reinstall: every file written anew, the same bytes
    for root, _dirs, files in os.walk(package):
        for name in files:
            os.utime(os.path.join(root, name), (later, later))
    again = _hn_from(package, repo, "memory", "index", "verify")
    assert (again.returncode, again.stderr, again.stdout) == (0, "", first.stdout)
