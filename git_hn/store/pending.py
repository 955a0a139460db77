"""The replication pending state's value (CONTRACT §9.17): the objects no trust read may use
while an acceptance is pending, and the refusal it causes.

A leaf module, so that every command can hold "nothing is pending" (``NONE``) without loading
the replication state code: ``store/replication.py`` computes the value from receipts and
anchors when there are any.
"""

from __future__ import annotations

from ..core.tuples import NamedTuple
from ..errors import ValidationError


class Pending(NamedTuple):
    """The denied set (§9.17) and what a refusal message needs."""

    denied: dict  # oid -> (txn, remote)
    ok: bool  # False when the state is inconsistent: every trust read fails
    invalid_txn: str
    invalid_remote: str
    anchors: dict  # txn -> (remote, pending objects) for repair
    receipts: dict  # txn -> parsed receipt

    def remotes(self) -> set[str]:
        return ({r for r, _p in self.anchors.values()} | {v[1] for v in self.denied.values()}
                | ({self.invalid_remote} if not self.ok else set()))

    def refuse(self, oid: str) -> None:
        """Raise the §9.17 refusal if ``oid`` may not be read for trust."""
        if not self.ok:
            raise ValidationError(pending_message(self.invalid_txn, self.invalid_remote, oid, invalid=True))
        got = self.denied.get(oid)
        if got is not None:
            raise ValidationError(pending_message(got[0], got[1], oid))


NONE = Pending({}, True, "", "", {}, {})


def pending_message(txn: str, remote: str, oid: str = "", invalid: bool = False) -> str:
    parts = [f"replication acceptance pending; transaction={txn}"]
    if remote:
        parts.append(f"remote={remote}")
    if oid:
        parts.append(f"object={oid}")
    if invalid:
        parts.append("state=invalid")
    recovery = (f"retry git hn sync {remote} --recover-shallow" if remote else
                "repair the local replication transaction record before retrying sync")
    parts.append(f"recovery={recovery}")
    return "; ".join(parts)
