"""The recall cursor log: ``<common-gitdir>/hn/memory/recall-cursors-v0.jsonl`` (git-hn).

Owns one private, disposable file that remembers, for each recall that returned a ``nextCursor``
in this clone, what its query digest was made of: the normalized request (without the cursor),
the source fingerprint and the policy digest (CONTRACT §7.5). A cursor carries only the digest
(§7.10), so when it no longer matches, this is how git-hn can tell which part changed: other
arguments, or memory refs that moved (an agent trial: every new memory, even one on another
branch, broke every cursor with the same words, and no agent could tell why).

Trusts nothing it reads: a line is only ever compared with what the current recall computed, to
choose the words of an error; it never decides what recall answers. Writes are best effort: any
failure (a read-only directory, an unsafe file, a full disk) leaves recall's answer as it was.
Append-only lines of at most ``MAX_LINE`` bytes, kept under ``MAX_BYTES`` by rewriting the file
with its newest half; a line lost to a race only costs a vaguer message.
"""

from __future__ import annotations

import os
import stat

from ..core import canonical
from ..errors import HnError
from . import private
from .repo import Repo

NAME = "recall-cursors-v0.jsonl"
MAX_BYTES = 256 << 10
MAX_LINE = 16 << 10


def path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "memory", NAME)


def note(repo: Repo, digest: str, request: dict, fingerprint: str, policy_digest: str) -> None:
    """Remember what the cursors of query ``digest`` were made for (best effort)."""
    line = canonical.compact({"queryDigest": digest, "request": request, "sourceFingerprint": fingerprint,
                              "policyDigest": policy_digest}) + b"\n"
    if len(line) > MAX_LINE:
        return
    file = path(repo)
    try:
        if not private.check_dirs(repo.hn_dir, os.path.dirname(file)):
            return  # (no verified state here yet: nothing to make the directory for)
        fd = os.open(file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0),
                     private.FILE_MODE)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) != private.FILE_MODE \
                    or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
                return
            if st.st_size + len(line) <= MAX_BYTES:
                os.write(fd, line)
                return
        finally:
            os.close(fd)
        kept, size = [], 0
        for raw in reversed(_lines(repo)):  # the newest half
            size += len(raw)
            if size > MAX_BYTES // 2:
                break
            kept.insert(0, raw)
        private.write_private(repo.hn_dir, file, b"".join(kept) + line, derived=True)
    except (OSError, HnError):
        return


def _lines(repo: Repo) -> list[bytes]:
    try:
        data = private.read_private(repo.hn_dir, path(repo), MAX_BYTES + MAX_LINE)
    except HnError:
        return []
    return [] if data is None else data.splitlines(keepends=True)


def find(repo: Repo, digest: str) -> dict | None:
    """What the newest recall that returned cursors of query ``digest`` was made of
    (``request``, ``sourceFingerprint``, ``policyDigest``), or None when this clone has no
    usable line for it."""
    import json  # (only for a cursor that does not match: json costs every recall ~4.5 M instructions)

    for raw in reversed(_lines(repo)):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if (isinstance(entry, dict) and entry.get("queryDigest") == digest and isinstance(entry.get("request"), dict)
                and isinstance(entry.get("sourceFingerprint"), str) and isinstance(entry.get("policyDigest"), str)):
            return entry
    return None
