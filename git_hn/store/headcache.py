"""The verified-head cache (CONTRACT §4.4): ``<common-gitdir>/hn/memory/verified-heads-v0.json``.

Owns a map from source ref to the ``{head, memoryId, sequence}`` of a chain git-hn fully verified
(or appended to). It is derived and disposable: a missing, unreadable, unsafe or malformed cache
reads as empty and never causes an error; appends then fall back to full verification. It is
written without fsync: after a crash a stale or empty cache only costs one full verification.
Collection, ``show``, recall and index rebuild never read it.
"""

from __future__ import annotations

from ..core import canonical
from ..core.grammar import is_digest_id, is_oid
from ..core.strictjson import read_document
from ..errors import HnError
from . import private
from .repo import Repo

VERSION = 0


def load(repo: Repo) -> dict[str, tuple[str, str, int]]:
    try:
        data = private.read_private(repo.hn_dir, repo.verified_heads_path(), max_bytes=64 << 20)
        if data is None:
            return {}
        doc = read_document(data, prefix="", max_bytes=64 << 20)
    except HnError:
        return {}
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("heads"), list):
        return {}
    out = {}
    for item in doc["heads"]:
        if not isinstance(item, dict):
            return {}
        ref, head, mid, seq = item.get("ref"), item.get("head"), item.get("memoryId"), item.get("sequence")
        if (not isinstance(ref, str) or not is_oid(head) or not is_digest_id(mid)
                or isinstance(seq, bool) or not isinstance(seq, int) or seq < 1):
            return {}
        out[ref] = (head, mid, seq)
    return out


def store(repo: Repo, heads: dict[str, tuple[str, str, int]]) -> None:
    doc = {"version": VERSION, "heads": [
        {"ref": ref, "head": h, "memoryId": m, "sequence": s}
        for ref, (h, m, s) in sorted(heads.items())]}
    try:
        private.write_private(repo.hn_dir, repo.verified_heads_path(), canonical.indented(doc),
                              derived=True)
    except HnError:
        pass


def update(repo: Repo, entries: dict[str, tuple[str, str, int]]) -> None:
    heads = load(repo)
    if all(heads.get(k) == v for k, v in entries.items()):
        return
    heads.update(entries)
    store(repo, heads)
