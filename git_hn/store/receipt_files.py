"""A replication record read back (CONTRACT §9.14, §9.17): one receipt or anchor file under
``<common-gitdir>/hn/replication/``, refused when it is over the bound a receipt is written within
(``OversizedRecord``, with the way out), parsed strictly (or, for a large file that is byte for
byte what git-hn writes, through orjson), and its object ID lists checked.

Owns no file: ``replication`` names the files, writes them and passes the bound it writes within,
and decides what the records mean (the pending state). Trusts nothing it reads: the private-file
rules (``private.read_private``), the size bound and strict parsing apply to every file. Loaded
only when a record is read (an anchor present, the pending state not remembered): never on a
command that finds nothing pending remembered.
"""

from __future__ import annotations

import os
import stat
import sys

from ..core import canonical
from ..core.gostr import Lazy
from ..core.strictjson import read_document
from ..errors import LocalStateError, OversizedRecord
from . import private


def bound_words(n: int) -> str:
    """A bound of ``n`` bytes in words ("16 MiB")."""
    return f"{n >> 20} MiB" if n >= 1 << 20 and not n % (1 << 20) else f"{n} bytes"


def check_size(path: str, bound: int) -> None:
    """Refuse the record at ``path`` when it is a regular file over ``bound`` bytes."""
    try:
        st = os.lstat(path)
    except OSError:
        return  # (read_private says what it is)
    if stat.S_ISREG(st.st_mode) and st.st_size > bound:
        remote = _remote_named(path)
        raise OversizedRecord(
            f"replication record {path} is {st.st_size} bytes, over the {bound_words(bound)} bound of a receipt "
            "(an earlier git-hn wrote it, for a sync of about 84,000 memories or more), so every memory read "
            f"refuses it: git hn sync {remote or '<remote>'} splits it into receipts within the bound")


def _remote_named(path: str) -> str:
    """The remote a record names in its first lines (only to word the way out), or ""."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return ""
    import re

    found = re.search(rb'\n  "remote": "([A-Za-z0-9._-]{1,100})",\n', head)
    return found.group(1).decode("ascii") if found else ""


def read_record(repo, path: str, bound: int) -> dict:
    """The receipt or anchor at ``path``, a JSON object of at most ``bound`` bytes."""
    check_size(path, bound)
    data = private.read_private(repo.hn_dir, path, max_bytes=bound)
    if data is None:
        raise LocalStateError(f"replication state file {path} disappeared")
    doc = read_own(data, bound)
    if doc is None:
        doc = read_document(data, prefix="", max_bytes=bound, error=LocalStateError)
    if not isinstance(doc, dict):
        raise LocalStateError(f"replication state file {path} is not an object")
    return doc


OWN_PARSE_FROM = 256 << 10  # bytes from which a state file is worth orjson's import


def read_own(data: bytes, bound: int):
    """The document, when ``data`` is exactly what git-hn writes (``indented_large``) within
    ``bound`` bytes; else None.

    State files hold tens of thousands of object IDs and are read by every command, so the
    strict parser is kept for files that do not re-encode byte for byte: a duplicate key, a
    non-canonical escape or number, or anything else git-hn would not write, falls through to it.
    Below ``OWN_PARSE_FROM`` bytes the strict parser reads the file unless orjson is loaded
    already: it takes ≈ 80 µs a KiB here, and orjson's import 13–20 ms (it pulls in
    ``dataclasses``, ``inspect``, ``uuid``...), so the receipt of a sync of 100 streams (130 KiB)
    read by the next command cost 20 ms through orjson against 10 ms without it.
    """
    if len(data) > bound or (len(data) < OWN_PARSE_FROM and "orjson" not in sys.modules):
        return None  # the strict parser reads it (it is also faster for small files)
    import orjson

    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    try:
        return doc if canonical.indented_large(doc) == data else None
    except (TypeError, ValueError):  # pragma: no cover - orjson output always re-encodes
        return None


_OID_LINES = Lazy(r"(?:[0-9a-f]{40}\n|[0-9a-f]{64}\n)*")


def check_oids(value) -> list[str]:
    """``value``, when it is a list of distinct object IDs (40 or 64 lowercase hex digits)."""
    if not isinstance(value, list) or not all(type(o) is str and len(o) in (40, 64) for o in value) \
            or _OID_LINES.fullmatch("".join(o + "\n" for o in value)) is None \
            or len(set(value)) != len(value):
        raise LocalStateError("invalid object list")
    return value
