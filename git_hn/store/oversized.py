"""Receipts an earlier git-hn wrote over the 16 MiB every reader accepts (CONTRACT §9.14, §9.17;
f115): a sync of about 84,000 memories or more wrote one, and every read of the clone failed
from then on. A sync of that receipt's remote splits it, before anything else, into receipts
within the bound that say the same (docs/decisions.md, "A receipt over 16 MiB is split, never
dropped"):

- a ``complete`` receipt only marks its objects accepted (§9.17 step 3): its parts are
  ``complete`` receipts whose accepted objects are, together, exactly its own;
- a ``validated`` one whose promotions the refs hold (the sync stopped after its ref
  transaction) is what ``promote.repair_pending`` completes: its parts are ``complete``;
- a ``validated`` one whose refs never moved denies objects that no accepted ref reaches: no
  part can keep that denial (each anchor must list exactly its receipt's pending objects, and
  the repair needs them in one), so nothing is changed and the line says what to check and do.

The parts are written first, then the anchor and the record are removed: a stop between leaves
the record, which the next sync splits again (the parts are the same files).
"""

from __future__ import annotations

import os

from ..core.grammar import is_oid, parse_accepted_ref
from ..core.strictjson import read_document
from ..errors import LocalStateError
from . import private
from . import replication as rstate

SPLIT_MAX = 1 << 30  # bytes of an oversized record read to split it (what a sync of millions would write)


def split(repo, remote: str, ref_value) -> int:
    """Split ``remote``'s oversized receipts (``ref_value(ref)``: a ref's value, or ""); the
    number split. Raises ``LocalStateError`` (the line) for one that cannot be split safely."""
    done = 0
    for name in rstate._entries(repo, "transactions"):
        txn = name[:-len(".json")]
        path = rstate.receipt_path(repo, txn)
        try:
            if not name.endswith(".json") or not rstate.is_txn(txn) or os.lstat(path).st_size <= rstate.RECEIPT_MAX:
                continue
        except OSError:
            continue
        doc = _read(repo, path, txn)
        if doc["remote"] != remote:
            continue  # (a sync of that remote splits it)
        anchor = rstate.anchor_path(repo, txn)
        promotions = doc.get("promotions") or []
        if doc["state"] == "validated" and not (promotions and all(
                ref_value(p["ref"]) == p["newOid"] for p in promotions)):
            raise LocalStateError(
                f"replication record {_shown(repo, path)} is over the {rstate.bound_text()} bound of a receipt (an "
                f"earlier git-hn wrote it) and records an acceptance from {remote} that never moved its refs: the "
                f"{len(doc['pendingObjects'])} objects it denies were validated and copied, and no accepted ref "
                f"reaches them; check that no ref you made points at them, then move it and "
                f"{_shown(repo, anchor)} out of the Git directory and run git hn sync {remote}")
        for i, part in enumerate(_parts(doc, repo.oid_hex_len), 1):
            part_txn = f"{txn}-part{i}"
            rstate.write_receipt(repo, part_txn, remote, "complete", part["outcomes"], part["promotions"],
                                 part["pending"], part["accepted"])
        rstate.remove_anchor(repo, txn)
        os.unlink(path)
        done += 1
    if done:
        repo.forget_pending()
    return done


def _shown(repo, path: str) -> str:
    """``path`` as a shell finds it (a sync never shows the Git directory itself: §0.5)."""
    return "$(git rev-parse --git-common-dir)/" + os.path.relpath(path, repo.common_dir)


def _read(repo, path: str, txn: str) -> dict:
    """The oversized receipt, read as strictly as any (``replication._load_pending``)."""
    data = private.read_private(repo.hn_dir, path, max_bytes=SPLIT_MAX)
    if data is None:
        raise LocalStateError(f"replication state file {path} disappeared")
    doc = read_document(data, prefix=f"replication record {_shown(repo, path)}: ", max_bytes=SPLIT_MAX, error=LocalStateError)
    if not isinstance(doc, dict) or doc.get("version") != 2 or type(doc.get("version")) is not int \
            or doc.get("id") != txn or not isinstance(doc.get("remote"), str) \
            or doc.get("state") not in ("validated", "complete") \
            or not isinstance(doc.get("outcomes") or [], list) or not isinstance(doc.get("promotions") or [], list):
        raise LocalStateError(f"invalid receipt {txn}: {_shown(repo, path)} is over the {rstate.bound_text()} bound "
                              "and not a receipt git-hn can split; repair the local replication transaction record")
    from .receipt_files import check_oids

    check_oids(doc.get("pendingObjects"))
    check_oids(doc.get("acceptedObjects"))
    for p in doc.get("promotions") or []:
        if not isinstance(p, dict) or parse_accepted_ref(p.get("ref", "")) is None or not is_oid(p.get("newOid", "")):
            raise LocalStateError(f"invalid receipt promotion in {txn}")
    return doc


def _parts(doc: dict, oid_len: int) -> list[dict]:
    """``doc``'s accepted objects in consecutive parts that fit the bound, each with the pending
    objects among them; the first also lists the outcomes and promotions when they take no more
    than a quarter of it (they record what happened; only the objects decide what is denied)."""
    bound = rstate.RECEIPT_MAX
    outcomes, promotions = doc.get("outcomes") or [], doc.get("promotions") or []
    listed = sum(rstate.element_bytes(v) for v in (*outcomes, *promotions))
    if listed > bound // 4:
        outcomes, promotions, listed = [], [], 0
    accepted, pending = doc["acceptedObjects"], set(doc["pendingObjects"])
    per = 2 * rstate.oid_bytes(oid_len)
    room = bound - 1024 - listed
    size = max(1, room // per)
    parts, start = [], 0
    while start < len(accepted) or not parts:
        chunk = accepted[start:start + size]
        parts.append({"outcomes": outcomes if not parts else [], "promotions": promotions if not parts else [],
                      "accepted": chunk, "pending": [o for o in chunk if o in pending]})
        start += size
    leftover = pending - set(accepted)  # (pending objects a receipt did not accept: kept as listed)
    if leftover:
        parts[-1]["pending"] += sorted(leftover)
    return parts
