"""The hints a command said in full lately: ``<common-gitdir>/hn/hints-said-v0``, a private
file (CONTRACT §2.3, §2.4 through ``store.private``), never committed or fetched.

A burst of records (an agent's) repeated the same long hint on every one (the memory left out
for want of a trust policy, its publication waiting for a push), as a burst of syncs, empty
recalls or empty logs did the one that no replication selection is saved; the CLI
(``cli.advice``) says it in full once, and within ``WINDOW`` seconds of that says a shorter line
instead. This module decides which, from this file alone, and is loaded only when a command has
such a hint to print.

Owns: the file's format, one line per hint said in full, ``<unix seconds> <sha256 hex of the
hint's text>`` (a digest: the hint's text, a branch name in it, is never stored), at most
``KEPT`` lines, each younger than ``WINDOW``. Trusts: nothing in it. A file that is missing,
unreadable, malformed, a symbolic link, not a regular file of mode exactly 0600, or that says a
time to come, means "say it in full"; writing it is best effort (a read-only disk: the hint is
said in full, and the command goes on). Disposable (``derived``): not fsynced, and an unsafe
file in its place is replaced, as the other memo files are (``store.pending``).
"""

from __future__ import annotations

import os
import stat

from ..errors import HnError

WINDOW = 600  # seconds: a hint said in full is said shorter for this long
KEPT = 32  # lines at most (a few hints are said after a write: the file stays small)
MAX_BYTES = 4096


def _key(text: str) -> str:
    from ..core import hashing

    return hashing.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def read_said(repo) -> dict[str, int]:
    """The hints said in full, their digests to the time each was (empty when the file cannot
    be trusted, as the module says)."""
    path = repo.hints_said_path()
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o600:
            return {}
        from . import private

        data = private.read_private(repo.hn_dir, path, max_bytes=MAX_BYTES)
    except (OSError, HnError):
        return {}
    said: dict[str, int] = {}
    try:
        text = (data or b"").decode("ascii")
    except UnicodeDecodeError:
        return {}
    lines = text.split("\n")
    if lines.pop():
        return {}  # (no newline at its end: a torn or foreign file)
    for line in lines:
        when, sp, key = line.partition(" ")
        if not sp or not when.isdigit() or len(when) > 12 or len(key) != 64 or \
                key.strip("0123456789abcdef"):
            return {}  # (malformed: all of it is doubted)
        said[key] = int(when)
    return said


def said_at(repo, text: str, now: float) -> int | None:
    """When ``text`` was said in full, if that was within ``WINDOW`` seconds before ``now``."""
    when = read_said(repo).get(_key(text))
    return when if when is not None and 0 <= now - when < WINDOW else None


def remember(repo, text: str, now: float) -> None:
    """Write down that ``text`` was said in full at ``now``, keeping the lines still in the window
    (best effort: a file that cannot be written leaves the next write to say it in full)."""
    said = {k: w for k, w in read_said(repo).items() if 0 <= now - w < WINDOW}
    said[_key(text)] = int(now)
    newest = sorted(said.items(), key=lambda kv: kv[1])[-KEPT:]
    data = "".join(f"{w} {k}\n" for k, w in newest).encode("ascii")
    from . import private

    try:
        private.write_private(repo.hn_dir, repo.hints_said_path(), data, derived=True)
    except (OSError, HnError):
        pass
