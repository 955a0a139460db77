"""What a remote's branches hold, asked of the remote itself (git-hn; docs/decisions.md).

The gate (``gate.gate``) counts a commit as on a remote when the remote's remote-tracking refs
contain it. Two kinds of remote leave those refs saying nothing: one that pushes elsewhere than
it fetches (``push_targets``), and one whose branches no fetch refspec maps under
``refs/remotes/<remote>/`` (a bare clone has no ``remote.<name>.fetch``: a trial's memory waited
for good for a commit that was the remote's ``main``, and ``git fetch`` changed nothing). Both
are asked (``ask``: one bounded ``ls-remote`` of the branches and memory refs), and the gate
counts the branch tips this clone has (``untracked_gate``, for the second).

Owns nothing on disk. Trusts what the remote advertises only to decide what to publish to that
same remote: a remote that claims a branch or a tip it lacks misleads its own readers alone, as
its remote-tracking refs would.
"""

from __future__ import annotations

from ...core.grammar import LOCAL_PREFIX
from ...store.repo import Repo
from .gate import Held, branch_refspecs, gate
from .outcomes import format_of, other_format


def ask(repo: Repo, url: str, timeout: float, why: list | None = None, as_remote: dict | None = None,
        remote: str = "", what: str = "") -> tuple[list[str], dict[str, str], bool] | None:
    """(the commits ``url``'s branches name that this clone has, ref -> tip of its memory refs,
    whether a branch names a commit this clone lacks): one ``ls-remote`` within ``timeout``
    seconds; None when it cannot be asked or does not answer (``why`` gets the reason:
    ``transport.listed``'s). A branch tip this clone lacks counts for nothing (what it holds
    cannot be walked here: a memory waiting for a commit may be wrong to wait, and its line says
    so, ``gate.Held.unseen``); a partial clone is asked whether it has each
    without fetching it (``presence``: a review saw one lazy fetch per branch of a fork it lacks).
    ``as_remote``: ``_as_remote``'s environment, so that the URL is asked as it is pushed to (a
    review: a push URL reached through the remote's ``uploadpack`` or ``proxy`` was asked without
    them, and never got memory). Raises ``outcomes.other_format`` when its object IDs are of the
    other format (``remote``, ``what``: how it is named)."""
    from ...store.transport import listed

    lines = listed(repo, url, patterns=("refs/heads/*", f"{LOCAL_PREFIX}*"), timeout=timeout, why=why,
                   as_remote=as_remote)
    if lines is None:
        return None
    theirs = format_of([oid for oid, _ref in lines], repo.oid_hex_len)
    if theirs:  # (a push there fails: "the receiving end does not support this repository's hash algorithm")
        raise other_format(remote, theirs, repo.oid_hex_len, what)
    tips = sorted({oid for oid, ref in lines if ref.startswith("refs/heads/")})
    here = [oid for oid, present in zip(tips, repo.git.presence(tips) if tips else []) if present]
    infos = repo.git.infos_bulk(here) if here else []  # (each one here: nothing is fetched)
    there = [oid for oid, info in zip(here, infos) if info is not None and info[1] == "commit"]
    return there, {ref: oid for oid, ref in lines if ref.startswith(LOCAL_PREFIX)}, len(there) < len(tips)


def untracked_gate(repo: Repo, remote: str, url: str, tips: dict[str, str], bases: dict[str, str],
                   listing: list | None, gated: tuple, timeout: float) -> tuple:
    """``gated`` (``gate.gate``'s answer for ``tips``), or, when a memory waits for an anchor
    commit that no branch of this clone holds back (not ``discarded``) and no remote-tracking ref
    of ``remote`` says what it holds (no fetch refspec maps its branches: a bare clone; or none was
    ever fetched: a remote of the other object format, which no fetch reaches): the gate again
    with the branch tips the remote advertises now (those this clone has: an anchor counts only
    when it is an ancestor of one). Without a refspec, what still waits (or all of it, when the
    remote does not answer) is marked ``unmapped``: its line gives the refspec that tracks them,
    never ``git fetch`` alone, which moves nothing there; and ``unseen`` when a branch there names
    a commit this clone lacks (it may contain the anchor: fetch, not push). Raises ``outcomes.other_format`` for a
    remote of the other object format. No Git process more while nothing waits on a commit, one
    or two (``git config``, ``for-each-ref``) when one does, one ``ls-remote`` in those clones."""
    allowed, held = gated
    if not any(h.commit and not h.discarded for h in held):
        return gated
    mapped = any(not s.startswith("^") for s in branch_refspecs(repo, remote))
    if mapped and repo.git.run(["for-each-ref", "--count=1", "--format=x", f"refs/remotes/{remote}/"]).stdout.strip():
        return gated
    asked = ask(repo, url, timeout, remote=remote)
    unseen = False
    if asked is not None:
        allowed, held = gate(repo, remote, tips, bases, listing, asked[0])
        unseen = asked[2]  # (a branch there names a commit this clone lacks: it may hold the anchor)
    return allowed, held if mapped else [_unmapped(h, unseen) for h in held]


def _unmapped(held: Held, unseen: bool) -> Held:
    return held._replace(unmapped=True, unseen=unseen) if held.commit and not held.discarded else held
