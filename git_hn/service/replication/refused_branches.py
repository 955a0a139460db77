"""Which waiting anchors sit on a branch whose push Git refuses itself (f162, a newcomer trial).

A memory waits until its anchor commit is on the remote (``gate``). The pre-push hook says so
for an anchor this push does not carry, with "push a branch that contains it" (``hook_runs.
_held_for_good``). But Git hands pre-push no line for a ref it already refuses as a non-fast-
forward (the remote's branch, as fetched here, has commits the local one lacks): the user had
just pushed the branch that contains the anchor, was told to push it, and Git's own
``! [rejected]`` followed. For "fetch first" (the remote's tip not fetched) Git does give the
line, the anchor counts as carried, and nothing is said. Both refusals now say nothing of the
memory (as f109 decided for what the push takes off): Git's rejection says to integrate the
remote's commits and push again, and the memory follows that push (``post-rewrite`` re-anchors
it after a rebase; the background publication of this push holds it, as before).

``git hn sync``'s own line for such a memory (f166) said "push a branch that contains it" too:
the branch had been pushed, and refused. ``said_behind`` marks it (``gate.Held.behind``), and its
line names the branch, the remote-tracking branch it is behind, and what Git's rejection means:
``git pull --rebase``, then push.

Owns nothing on disk. Trusts this clone's branches and remote-tracking refs (what Git itself
decides a non-fast-forward from); used for words on stderr only, never to decide what is
published.
"""

from __future__ import annotations

from ...core.lines import lines_of
from ...core.remotes import tracking_ref
from ...store.repo import Repo


def on_refused_branches(repo: Repo, remote: str, specs: list[str], commits: set[str]) -> set[str]:
    """Of ``commits`` (anchors not on ``remote``, nor carried by this push), those that a local
    branch contains whose push Git refuses as a non-fast-forward (``behind_remote``)."""
    return set(behind_remote(repo, remote, specs, commits))


def said_behind(repo: Repo, remote: str, held: list) -> list:
    """``held`` (``gate.Held``, a sync's), with ``behind`` set on each whose line would say "push a
    branch that contains it" (no other case of it: discarded, citing, a push URL's, a bare
    clone's) while a branch that contains its commit is behind its remote-tracking branch. No Git
    process when no such line is held; else one ``git config`` and ``behind_remote``'s."""
    from .gate import branch_refspecs

    plain = {h.commit for h in held if _plain(h)}
    if not plain:
        return held
    found = behind_remote(repo, remote, branch_refspecs(repo, remote), plain)
    return [h._replace(behind=found[h.commit]) if _plain(h) and h.commit in found else h for h in held]


def _plain(h) -> bool:
    return bool(h.commit) and not (h.discarded or h.cites or h.untracked or h.where or h.unmapped)


def behind_remote(repo: Repo, remote: str, specs: list[str], commits: set[str]) -> dict[str, tuple[str, str]]:
    """commit -> (a local branch that contains it, that branch's remote-tracking branch), for
    each of ``commits`` that a local branch contains whose remote-tracking branch (``specs``: the
    remote's fetch refspecs) is no ancestor of it: a push of that branch is refused as a
    non-fast-forward. One ``for-each-ref`` when no branch differs from its remote-tracking one;
    else one more for each commit, and one ``rev-list`` for each branch that contains one."""
    if not commits:
        return {}
    listed = repo.git.run(["for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/",
                           f"refs/remotes/{remote}/"])
    if listed.returncode != 0:
        return {}
    tips = {ref: oid for line in lines_of(listed.stdout.decode("utf-8", "replace"))
            for oid, _sp, ref in [line.partition(" ")]}
    apart = {}  # local branch -> (its tip, its remote-tracking branch, that one's tip), where they differ
    for ref, tip in tips.items():
        if ref.startswith("refs/heads/"):
            tracking = tracking_ref(ref, remote, specs) or ""
            there = tips.get(tracking)
            if there and there != tip:
                apart[ref] = (tip, tracking, there)
    if not apart:
        return {}
    refused: dict[str, tuple[str, str]] = {}
    behind: dict[str, bool] = {}
    for commit in sorted(commits):
        holding = repo.git.run(["for-each-ref", "--format=%(refname)", f"--contains={commit}", *sorted(apart)])
        for ref in lines_of(holding.stdout.decode("utf-8", "replace")) if holding.returncode == 0 else []:
            if ref in apart and ref not in behind:
                tip, _tracking_ref, there = apart[ref]
                walk = repo.git.run(["rev-list", "--max-count=1", "--stdin"],
                                    input=f"{there}\n^{tip}\n".encode("ascii"))
                behind[ref] = walk.returncode == 0 and bool(walk.stdout.strip())
            if behind.get(ref):
                refused[commit] = (ref, apart[ref][1])
                break
    return refused

