"""Running a command as on a system without ``/proc`` (macOS, the BSDs), for the portability
tests: in a mount namespace of its own whose ``/proc`` is an empty tmpfs, so every ``/proc`` read
of git-hn and of its hook wrappers fails as it would there. ps(1) on PATH is the system's own ps,
run in a namespace of its own where the real process table is mounted at ``/proc`` again (ps
cannot see the processes otherwise), so a ps fallback answers from the live processes; with
``ps=False`` there is no ps at all. Needs root and unshare(1): the tests skip elsewhere."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

_HIDE = 'mount -t proc proc "$0" && mount -t tmpfs none /proc || exit 99; exec "$@"'
_PS = """#!/bin/sh
exec unshare -m --propagation private /bin/sh -c 'mount --bind "$0" /proc || exit 98; exec {ps} "$@"' {real} "$@"
"""


def _usable() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                            "mount -t tmpfs none /proc && [ ! -e /proc/self ]"], capture_output=True)
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(not _usable(), reason="needs root and unshare(1) to hide /proc")


def without_proc(root: Path, argv: list[str], cwd, *, ps: bool = True, hidden: tuple = ("setsid",),
                 input: str | None = None, env: dict | None = None, timeout: float = 120):
    """``argv`` run in ``cwd`` with ``/proc`` hidden; ``hidden``: programs taken off PATH (every
    other program of PATH is reached through one directory of links, under ``root``)."""
    bin_dir, real = path_without(root, hidden, ps), root / "noproc-real"
    full = {**os.environ, **(env or {}), "PATH": str(bin_dir)}
    return subprocess.run(["unshare", "-m", "--propagation", "private", "/bin/sh", "-c", _HIDE, str(real),
                           *argv], cwd=cwd, env=full, capture_output=True, text=True, input=input,
                          timeout=timeout)


def path_without(root: Path, hidden: tuple = ("setsid",), ps: bool = True) -> Path:
    """A directory of links to every program of PATH but ``hidden`` (and ps(1), which is the
    namespace's stand-in described above, or none), made once under ``root``: PATH for a
    system without those programs."""
    bin_dir, real = root / "noproc-bin", root / "noproc-real"
    if not bin_dir.exists():
        bin_dir.mkdir(parents=True)
        real.mkdir()
        for d in os.environ["PATH"].split(os.pathsep):
            if not os.path.isdir(d):
                continue
            for name in os.listdir(d):
                link = bin_dir / name
                if name not in hidden and name != "ps" and not os.path.lexists(link):
                    link.symlink_to(os.path.join(d, name))
        if ps:
            (bin_dir / "ps").write_text(_PS.format(ps=shutil.which("ps"), real=real))
            (bin_dir / "ps").chmod(0o755)
    return bin_dir
