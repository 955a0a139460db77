"""Which git-hn executable the hook wrappers run (``hookscripts``): the one install records in
each wrapper, and the one on PATH. Trusts nothing it reads: a wrapper's ``recorded=`` line is
only compared, never run from here.
"""

from __future__ import annotations

import os

PUBLISHER = "publish"  # internal: ``git hn hooks run publish REMOTE``, the background publication


def git_hn_path() -> str:
    """The git-hn executable the wrappers (and the background publisher) run: the one on PATH."""
    import shutil  # (here: with bz2, lzma and fnmatch, ~3 ms of every hook run's imports)

    found = shutil.which("git-hn")
    return os.path.abspath(found) if found else "git-hn"


def recorded_git_hn(path: str) -> str | None:
    """The executable the wrapper at ``path`` records (its ``recorded=`` line: ``git_hn_path``
    at install), or None when none can be read. Nothing is followed."""
    import shlex

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        head = os.read(fd, 1 << 16).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in head.splitlines():
        if line.strip().startswith("recorded="):
            try:
                words = shlex.split(line.strip()[len("recorded="):])
            except ValueError:
                return None
            return words[0] if len(words) == 1 else None
    return None


def other_git_hn(path: str) -> tuple[str, str] | None:
    """(the git-hn the wrapper at ``path`` runs, this one) when they are two executables: hooks
    installed with another git-hn first on PATH keep running it after an upgrade elsewhere
    (every push and fetch then runs old code, and the state flips between the two). None when
    they are one (links resolved), or the recorded one is gone (the wrapper then runs PATH's)."""
    recorded, here = recorded_git_hn(path), git_hn_path()
    if recorded is None or not os.path.isabs(here) or not os.path.isfile(recorded) \
            or not os.access(recorded, os.X_OK) or os.path.realpath(recorded) == os.path.realpath(here):
        return None
    return recorded, here


def wrapper_mark(template: str) -> str:
    """What a wrapper of ``template`` exports as ``HN_WRAPPER`` (its ``@WRAPPER@``): 16 hex digits
    of the SHA-256 of the template, so a hook run tells a wrapper of this git-hn's text from an
    earlier one's with no file read (an upgrade trial: only ``hooks status`` said so)."""
    from .core.hashing import sha256_hex  # (not hashlib: loading OpenSSL cost every hook run 3 ms)

    return sha256_hex(template.encode())[:16]
