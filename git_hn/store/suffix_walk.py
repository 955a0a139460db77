"""The new commits of a stream ref that was rewritten above a commit the verified state holds
(issue 11; ``state._change`` asks it before walking the whole chain).

``git hn memory reanchor`` (and the post-rewrite hook) rebuilds a stream's unpublished tail: the
ref moves from its old tip to a new chain that shares everything below the first rebuilt memory.
That is no forward move, so ``state._change`` walked the new chain from its head to the root and
then asked which of its commits a verified chain holds: 6,250 commits of a 100,000-memory
repository's stream (~430 ms) to find one rebuilt memory's parent. Here one ``git log`` lists
only the commits the old tip does not reach, and the commit the last of them chains onto must be
one a verified chain holds (it is on the old tip's chain, which is verified): the walk stops at
the first known commit from the head, exactly where the whole walk's search stops, since every
commit below that one is reached from the old tip.

Trusts: Git's commit parser for the listing only where it equals the raw parent headers (no
grafts nor shallow file, replace refs off, the commit-graph off, as ``streams._walk_hinted``);
each listed parent is checked against the next line, and anything else (a merge, a root, no
known commit) answers None, for the caller's whole walk. The state is updated only while
nothing is pending (``stateview.current``), so no commit here needs ``pending``'s refusal.
"""

from __future__ import annotations

import os

from .repo import Repo


def walk_rewritten(repo: Repo, conn, src, old, known_commits) -> tuple[list, tuple[int, int]] | None:
    """(new commits of ``src`` head first, (sid, seq) of the first commit below them that a
    verified chain holds), for ``src`` (a ``streams.Source``) whose recorded tip was ``old``'s
    (a ``state.Stored`` of the same stream); None when that cannot be shown from the listing.
    ``known_commits``: ``state.known_commits`` (passed in: this module is below the state's)."""
    if old is None or not old.head or (old.actor, old.stream) != (src.actor, src.stream):
        return None
    hit = known_commits(conn, [src.head]).get(src.head)
    if hit is not None:  # (rewound to a commit a verified chain holds: no listing at all)
        return [], (hit[0], hit[1])
    if any(os.path.exists(os.path.join(repo.common_dir, p)) for p in ("info/grafts", "shallow")):
        return None
    proc = repo.git.run(["-c", "core.commitGraph=false", "log", "--no-show-signature", "--no-color",
                         "--first-parent", "--format=%H %T %P", "--end-of-options", src.head,
                         "^" + old.head, "--"])
    if proc.returncode != 0:
        return None
    n = repo.oid_hex_len
    lines = proc.stdout.decode("ascii", "replace").splitlines()
    walked = []
    below = ""
    for i, line in enumerate(lines):
        parts = line.split(" ")
        if len(parts) != 3 or len(parts[0]) != n or len(parts[1]) != n or len(parts[2]) != n:
            return None  # (a root, or a merge: the whole walk says what it is)
        if i + 1 < len(lines) and parts[2] != lines[i + 1][:n]:
            return None
        walked.append((parts[0], parts[1]))
        below = parts[2]
    if not walked or walked[0][0] != src.head:
        return None
    known = known_commits(conn, [c for c, _t in walked] + [below])
    for i, (commit, _tree) in enumerate(walked):  # (a commit some other chain holds stops it first)
        hit = known.get(commit)
        if hit is not None:
            return walked[:i], (hit[0], hit[1])
    hit = known.get(below)
    return None if hit is None else (walked, (hit[0], hit[1]))
