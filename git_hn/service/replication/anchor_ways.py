"""Ways back for a lost anchor commit: the words a sync's lines (``fetch_hints``, ``whose_anchor``),
its ``--json`` ``hint`` and the fetch hook's one line give for a commit some memory is anchored on
that this clone lacks (who can put it back, a branch this clone does not fetch that keeps it, how
to leave the stream out).
Pure text from what the caller measured; trusts its arguments, reads nothing."""

from __future__ import annotations


def anchor_branch(remote: str, ref: str) -> str:
    """The way out for an anchor commit that ``ref`` (``refs/heads/hn-anchor/…``) of ``remote``
    has as its tip, which this clone's fetch refspecs leave out (``SyncResult.kept``): tracking
    those branches brings it, and every anchor kept there later (a trial: a single-branch clone,
    ``git clone --depth 1`` even after ``--unshallow``, named one missing commit per stream on
    every sync)."""
    from shlex import quote

    return (f"{remote}'s branch {ref.removeprefix('refs/heads/')} keeps it, and this clone does not fetch {remote}'s "
            f"hn-anchor/* branches (a single-branch clone?): git remote set-branches --add {quote(remote)} "
            f"{quote('hn-anchor/*')} && git fetch {quote(remote)} brings it and every anchor kept so (then git hn sync "
            f"{quote(remote)} again)")


def put_back(remote: str, missing: str, where: str, unfetched: bool = False, said: bool = False,
             kept: str = "") -> str:
    """The way out for an anchor commit ``missing`` that no branch of ``remote`` the clone got
    (``where``: "this clone fetches" after a sync's own fetch of them, "this fetch brought" in the
    fetch hook) has: who can put it back, and how to leave the stream out. Said by the sync's
    closing line (``failure_pointer``) and the fetch hook's one line (a team trial: the hook said
    "run git hn sync origin", which fails the same way). ``unfetched`` (``SyncResult.unfetched``):
    the remote has branches the clone's refspecs leave out, so ``git fetch REMOTE C`` comes first
    (a review: a --single-branch clone was told to have the commit put back while origin's
    ``feature`` held it). The select takes full stream IDs, which these lines cut to 12
    characters: it says where they are listed. ``said``: a line above gave the commands for the
    commit (``SyncResult._anchor_hints``), which this one points at rather than repeats.
    ``kept``: the branch under ``refs/heads/hn-anchor/`` of the remote, not fetched here, whose
    tip is the commit (``anchor_branch``)."""
    from shlex import quote

    leave = (f"one git hn replication select {quote(remote)} --memory STREAM... leaves the stream out (it replaces "
             "the saved selection: give a --memory for every stream to keep, each by its full ID, which git hn "
             f"sync {quote(remote)} --json lists)")
    if said:
        return (f"no branch of {remote} {where} has commit {missing[:12]} (the line above that names it says how "
                f"to bring it back); or {leave}")
    if kept:
        return f"commit {missing[:12]}: {anchor_branch(remote, kept)}; or {leave}"
    back = (f"a clone that still has it (its author's, most likely) can put it back: git push {quote(remote)} "
            f"{missing}:refs/heads/hn-anchor/{missing[:12]}; or {leave}")
    if unfetched:
        return (f"git fetch {quote(remote)} {missing} brings commit {missing[:12]} if a branch of {remote} this clone "
                f"does not fetch has it (then git hn sync {quote(remote)}); if none has it, {back}")
    return f"no branch of {remote} {where} has commit {missing[:12]}: {back}"


SHALLOW, BRANCHES, BOTH = "shallow", "branches", "both"  # what this clone did not fetch (``beyond``)


def beyond_fetched(remote: str, missing: str, beyond: str) -> tuple[str, str]:
    """(where, how) for an anchor commit ``missing`` that this clone lacks while the remote may
    well have it, beyond what the clone fetched (``beyond``): a shallow clone's depth (``SHALLOW``),
    the branches its fetch refspecs leave out (``BRANCHES``: a ``--single-branch`` clone), or
    either (``BOTH``: ``git clone --depth 1``). A trial: such clones were told the commit "is not
    on origin", which in git-hn's words means someone must push an ``hn-anchor`` branch, while the
    commit was the parent of origin's tip past the shallow boundary, or origin's ``feature``.
    ``where`` follows "whose anchor commit C"; ``how`` is the command that brings it: deepening
    the clone, or fetching the commit by ID, which brings it from whichever branch has it."""
    from shlex import quote

    what = {SHALLOW: "this shallow clone's depth", BRANCHES: "the branches this clone fetches",
            BOTH: "this shallow clone's depth and branches"}[beyond]
    r = quote(remote)
    if beyond == SHALLOW:
        how = f"git fetch --unshallow {r} (or --deepen=N) brings it, then git hn sync {r}"
    else:
        how = f"git fetch {r} {missing} brings it, then git hn sync {r}"
    return f"may be on {remote} beyond {what}", how


def fetch_hints(result, missing: list[str], whose: dict[str, str], back: str) -> dict[str, str]:
    """``SyncResult._anchor_hints``' lines for the commits no branch under ``hn-anchor/`` is known
    to keep (``result``: the sync's ``SyncResult``, read only)."""
    if result.branches_fetched and result.unfetched:  # (a review: a --single-branch clone's anchor was
        # on a branch it does not fetch, and only "put it back" was offered; git fetch REMOTE C brought it)
        return {oid: f"Commit {oid} is not here, nor on any branch of {result.remote} this clone fetches (this sync "
                f"has just fetched them){whose[oid]}: git fetch {result.remote} {oid} brings it if a "
                f"branch this clone does not fetch has it (then git hn sync {result.remote} again); if a rebase, an "
                f"amend or a deleted branch took it off, {back.format(oid=oid, short=oid[:12])}"
                for oid in missing}
    if result.branches_fetched:  # (this sync fetched the remote's branches for it: none has it)
        return {oid: f"Commit {oid} is not here, nor on any branch of {result.remote} this clone fetches (this sync "
                f"has just fetched them){whose[oid]}: if a rebase, an amend or a deleted branch took it "
                f"off, {back.format(oid=oid, short=oid[:12])}" for oid in missing}
    why = f" (this sync's fetch of {result.remote}'s branches: {result.branch_fetch})" if result.branch_fetch else ""
    return {oid: f"Commit {oid} is not here{whose[oid]}{why}: git fetch {result.remote}"
            f"{' ' + oid if result.unfetched else ''} brings it if a branch "
            f"of {result.remote} has it (then git hn sync {result.remote} again); if none has it any more (a "
            f"rebase, an amend or a deleted branch), {back.format(oid=oid, short=oid[:12])}"
            for oid in missing}


def whose_anchor(o) -> str:
    """`, and memory M of ACTOR ("NAME", a self-chosen name) is anchored on it`: who can bring the
    commit back (a team trial: the line named only the commit, and the reader could not tell whose
    clone has it); the ID first (``hints.named_actor``: a name shown first posed as another's ID)."""
    from ...core.gostr import short_id
    from ...core.hints import named_actor

    owner = o.fields.get("ownerMemoryId") or ""
    names = [m.envelope.actor_name for m in o.memories if m.memory_id == owner] or \
        [m.envelope.actor_name for m in o.memories[:1]]
    # (author text, quoted one way: raw, a name's own quotes posed as a second author with a fake ID)
    who = named_actor(short_id(o.actor), names[0] if names else None)
    return f", and memory {short_id(owner)} of {who} is anchored on it" if owner and o.actor else ""
