"""What a remote's chain that does not descend from the accepted head is (CONTRACT §11(a) calls
each an equivocation), and its words: the author's two histories, or the remote's rollback or
rewrite (a red-team remote, with no key, wrapped an author's signed memories in new commits).

Owns only that reading of two lists of memory IDs; pure (no I/O). Trusts the accepted chain's IDs
(verified when accepted) and nothing of the remote's but the IDs it is given, already verified.
"""

from __future__ import annotations


def seen_history(remote: str, accepted: dict[int, str], length: int, candidate: list[str]) -> tuple[str, str]:
    """What a chain that does not descend from the accepted head is (§11(a) calls each an
    equivocation), and its words: ``accepted``, the accepted chain's memory IDs by sequence (from
    1 to the shorter length), ``length`` its length; ``candidate`` the remote's chain's memory IDs,
    root first. Another memory at a common sequence: ``diverged``, the author signed two histories
    (no one else can sign one). Else a shorter chain: ``rolled-back``, the remote serves an earlier
    state; else ``rewritten``, the remote serves the accepted memories in other commits (a
    red-team remote, with no key, wrapped an author's signed memories in new commits, and clones
    blamed the author for an equivocation). ("", "") when the accepted chain cannot say."""
    common = min(length, len(candidate))
    if length <= 0 or any(n not in accepted for n in range(1, common + 1)):
        return "", ""
    for n in range(1, common + 1):
        if accepted[n] != candidate[n - 1]:
            return "diverged", f"its author signed two histories (another memory at sequence {n})"
    if len(candidate) < length:
        return "rolled-back", (f"{remote} rolled the stream back (to sequence {len(candidate)} of {length}), "
                               f"not its author")
    return "rewritten", f"{remote} rewrote the stream's commits (the same memories in other commits), not its author"
