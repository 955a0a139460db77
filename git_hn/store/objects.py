"""Writing one memory commit's objects with a single Git process (CONTRACT §4.1 steps 3–6).

Owns: building the two blobs, the tree and the commit of a memory, and handing them to
``git unpack-objects --strict`` as one small pack, so that an append costs one object-writing
process instead of four (``hash-object`` twice, ``mktree``, ``commit-tree``). Git still writes and
fsck-checks every object (``--strict``), in its own loose-object format, honouring the
repository's object format and fsync settings. Trusts: nothing; every input was validated before.

The objects are exactly those of §4.1: ``memory.json`` and ``signature`` as mode-100644 blobs in a
two-entry tree, and a commit with at most one parent, author and committer
``<name> <<shortID>@hn.invalid> <seconds> +0000`` and message ``hn memory <memoryID>\\n``. The name
is cleaned the way ``git commit-tree`` cleans an identity (leading and trailing "crud" removed,
``<``, ``>`` and newlines dropped), so the commit bytes match what plumbing would have written.
Commit bytes are transport identity only; memory IDs do not depend on them.
"""

from __future__ import annotations

import zlib

from ..core import hashing
from ..errors import GitError
from .repo import Repo

_TYPES = {"commit": 1, "tree": 2, "blob": 3}
_CRUD = set(b" .,:;<>\"\\'") | set(range(0, 33))


object_id = hashing.object_id


def clean_ident_name(name: str) -> bytes:
    """Git's ``strbuf_addstr_without_crud`` (ident.c)."""
    raw = name.encode("utf-8")
    start, end = 0, len(raw)
    while start < end and raw[start] in _CRUD:
        start += 1
    while end > start and raw[end - 1] in _CRUD:
        end -= 1
    return bytes(b for b in raw[start:end] if b not in b"\n<>")


def timestamp_seconds(ts: str) -> int:
    """Seconds since the epoch of a §1.8 timestamp (fraction dropped, offset applied)."""
    y, mo, d = int(ts[0:4]), int(ts[5:7]), int(ts[8:10])
    hh, mm, ss = int(ts[11:13]), int(ts[14:16]), int(ts[17:19])
    yy = y - (mo <= 2)
    era = yy // 400
    yoe = yy - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146097 + doe - 719468
    seconds = days * 86400 + hh * 3600 + mm * 60 + ss
    if not ts.endswith("Z"):
        sign = 1 if ts[-6] == "+" else -1
        seconds -= sign * (int(ts[-5:-3]) * 3600 + int(ts[-2:]) * 60)
    return seconds


def _pack_entry(kind: str, data: bytes) -> bytes:
    size = len(data)
    first = (_TYPES[kind] << 4) | (size & 0x0F)
    size >>= 4
    header = bytearray()
    while size:
        header.append(first | 0x80)
        first = size & 0x7F
        size >>= 7
    header.append(first)
    return bytes(header) + zlib.compress(data, 1)


def build_pack(objects: list[tuple[str, bytes]], object_format: str) -> bytes:
    body = b"PACK" + (2).to_bytes(4, "big") + len(objects).to_bytes(4, "big")
    body += b"".join(_pack_entry(kind, data) for kind, data in objects)
    trailer = hashing.sha256(body) if object_format == "sha256" else hashing.sha1(body)
    return body + trailer.digest()


def memory_commit_objects(payload: bytes, signature: str, parent: str, name: str, email: str,
                          seconds: int, message: str, object_format: str) -> tuple[str, list]:
    """(commit OID, [(type, bytes)...]) for one memory commit."""
    sig = signature.encode("ascii")
    m = object_id("blob", payload, object_format)
    s = object_id("blob", sig, object_format)
    tree = b"100644 memory.json\x00" + m + b"100644 signature\x00" + s
    t = object_id("tree", tree, object_format)
    who = clean_ident_name(name) or email.split("@")[0].encode()
    ident = b"%s <%s> %d +0000" % (who, email.encode(), seconds)
    commit = b"tree " + t.hex().encode() + b"\n"
    if parent:
        commit += b"parent " + parent.encode() + b"\n"
    commit += b"author " + ident + b"\ncommitter " + ident + b"\n\n" + message.encode() + b"\n"
    c = object_id("commit", commit, object_format)
    return c.hex(), [("blob", payload), ("blob", sig), ("tree", tree), ("commit", commit)]


UNPACK = ("unpack-objects", "-q", "--strict")


def write_objects(repo: Repo, objects: list[tuple[str, bytes]], writer=None) -> None:
    """Write ``objects`` with one ``unpack-objects`` process: ``writer`` when the caller started
    it early (``repo.git.spawn(UNPACK, stdin=True)``), else a new one."""
    pack = build_pack(objects, repo.object_format)
    checked(writer.finish(pack) if writer is not None else repo.git.run(list(UNPACK), input=pack))


def start_writing(repo: Repo, objects: list[tuple[str, bytes]], writer) -> bool:
    """Hand ``objects`` to the early ``writer`` and return while Git writes them (a small pack:
    see ``Started.feed``); ``checked(writer.finish())`` then waits. False when the pack is too
    large to hand over at once: ``write_objects`` then writes it."""
    return writer.feed(build_pack(objects, repo.object_format))


def checked(proc) -> None:
    """``unpack-objects``' result, or the error it ended with."""
    if proc.returncode != 0:
        from .git import first_line

        raise GitError(f"write memory commit: {first_line(proc.stderr)}")
