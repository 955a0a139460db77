"""A reinstall of the same git-hn keeps the verified state; changed code rebuilds it.

pip writes every file of a package anew, so a reinstall (or an upgrade that does not touch the
verifying code) changes the state's checker, which identifies that code and the Ed25519
libraries by size and modification time: before, the next command verified every memory again
(seconds at 100,000 memories). A state built from ``statedb.CONTENT_FROM`` memories or more also
records the digest of their bytes, and is kept when only the times moved. Here git-hn runs from
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
from helpers import git, hn, make_repo

PROBE = ("import sys\n"
         "sys.path.insert(0, sys.argv[1])\n"
         "from git_hn.store import statedb, verify\n"
         "assert statedb.__file__.startswith(sys.argv[1]), statedb.__file__\n"
         "statedb.CONTENT_FROM = 1\n"
         "staged = []\n"
         "real = verify.stage_commits\n"
         "def counting(repo, commits, read=None):\n"
         "    staged.extend(commits)\n"
         "    return real(repo, commits, read)\n"
         "verify.stage_commits = counting\n"
         "from git_hn.cli.main import main\n"
         "code = main(sys.argv[2:])\n"
         "sys.stdout.flush()\n"
         "sys.stderr.write(f'verified {len(staged)}')\n"
         "sys.exit(code)\n")


def _run(repo: Path, package: Path) -> tuple[str, int]:
    """(recall's output, commits verified) with git-hn loaded from ``package``."""
    proc = subprocess.run([sys.executable, "-c", PROBE, str(package), "memory", "recall", "--json",
                           "--include-untrusted"], cwd=repo, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode(), int(proc.stderr.decode().rsplit("verified ", 1)[1])


def _meta(repo: Path) -> dict:
    with sqlite3.connect(repo / ".git" / "hn" / "memory" / "state-v0.sqlite") as conn:
        return dict(conn.execute("SELECT key, value FROM meta"))


def test_a_reinstall_keeps_the_state_and_a_changed_byte_rebuilds_it(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert hn(repo, "init", "--name", "A").code == 0
    head = git(repo, "rev-parse", "HEAD")
    lines = [json.dumps({"version": 0, "kind": "observation", "content": f"note {i}",
                         "anchor": {"commit": head}, "applicability": {"mode": "descendants"},
                         "topics": [], "evidence": []}) for i in range(6)]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    assert hn(repo, "memory", "import", str(tmp_path / "d.jsonl")).code == 0
    package = tmp_path / "site"
    shutil.copytree(Path(git_hn.__file__).parent, package / "git_hn",
                    ignore=shutil.ignore_patterns("__pycache__"))

    out, verified = _run(repo, package)  # this package's first command builds the state
    assert verified == 6 and json.loads(out)["matched"] == 6
    first = _meta(repo)
    assert first["content"]

    later = time.time() + 100  # a reinstall: every file written anew, the same bytes
    for root, _dirs, files in os.walk(package):
        for name in files:
            os.utime(os.path.join(root, name), (later, later))
    again, verified = _run(repo, package)
    assert (again, verified) == (out, 0)  # kept: nothing verified again
    second = _meta(repo)
    assert second["checker"] != first["checker"] and second["content"] == first["content"]
    assert _run(repo, package) == (out, 0)

    chain = package / "git_hn" / "core" / "chain.py"  # an upgrade that changes verifying code
    chain.write_bytes(chain.read_bytes() + b"\n# one more line\n")
    again, verified = _run(repo, package)
    assert (again, verified) == (out, 6)  # verified again under the new code
    assert _meta(repo)["content"] not in ("", first["content"])
