"""A full disk under the memory state: the messages name it and say what to do.

A trial filled the disk: ``index rebuild`` said ``memory index could not be written: cannot
rollback - no transaction is active`` and every recall warned with that text, since SQLite had
rolled the transaction back itself on ``database or disk is full`` and git-hn's own ``ROLLBACK``
then raised in its place. A real full file system here: a small tmpfs mounted over
``.git/hn/memory`` in a user and mount namespace of the test's own (skipped where ``unshare``
may not make one)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from helpers import hn

MOUNT = 'mount -t tmpfs -o "size=$1,mode=0700" tmpfs "$2" && shift 2 && exec "$@"'


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", "mount -t tmpfs tmpfs /mnt"],
                          capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not _unshare_works(), reason="needs unshare --user --mount with tmpfs")


def _on_small_disk(repo, size: str, *args) -> subprocess.CompletedProcess:
    """``git-hn ARGS`` in ``repo`` with ``.git/hn/memory`` on a new tmpfs of ``size``."""
    return subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", MOUNT, "sh", size,
                           str(repo / ".git" / "hn" / "memory"), shutil.which("git-hn") or "git-hn", *args],
                          cwd=repo, capture_output=True, text=True, timeout=120)


def test_a_full_disk_is_named_as_such_and_says_what_to_do(inited):
    for i in range(30):
        assert hn(inited, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
                  "--content", f"memory {i} " * 20).code == 0
    states = 0
    for kib in range(64, 176, 16):  # full at each step of the rebuild (the schema, the rows, the export)
        r = _on_small_disk(inited, f"{kib}k", "memory", "index", "rebuild")
        assert r.returncode == 1 and r.stderr.count("\n") == 1, (kib, r.stderr)
        assert r.stderr.endswith(("could not be written: database or disk is full; free some disk space\n",
                                  "cannot be written: No space left on device; free some disk space\n",
                                  "cannot be written: No space left on device; free some disk space (a private "
                                  "file of git-hn's, not a key)\n")), (kib, r.stderr)
        if "database or disk is full" not in r.stderr:
            continue  # (the state fitted: the export did not; recall writes no export)
        states += 1
        r = _on_small_disk(inited, f"{kib}k", "memory", "recall", "--include-untrusted")
        assert r.returncode == 0, (kib, r.stderr)
        assert r.stderr.splitlines()[0] == ("git-hn: warning: memory index removed: database or disk is full; "
                                            "free some disk space"), (kib, r.stderr)
    assert states >= 3
