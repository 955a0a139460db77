"""After an import (``git hn sync``, the fetch hook): of the memories it accepted, those that
recall at HEAD leaves out because their anchor commit is not in HEAD's history (f163, a newcomer
trial: Bob's memory on his new commit was imported, then missing from every recall on Alice's
unmerged HEAD without a word, while ``memory log`` listed it; she concluded the sync had failed).

For a hint only: never an applicability decision, which the projection makes from raw parent
headers. Asked only when the import accepted memories, so a sync or fetch that brought nothing
runs nothing of it. Reads the verified state's rows as last verified (the import's promotion
wrote them) for the commits the import walked, one query per 900 of them; asks Git once which of
their anchors HEAD's history holds (one ``rev-list``) and, when some are outside it, once which
remote-tracking ref of the remote holds them (one ``name-rev``). Best effort: nothing when the
state or Git cannot answer, in a shallow clone (its history may be what is missing), or with
HEAD unborn. Trusts the state and Git's answers; the active identity's own memories coming back
are not counted (its author knows where they are).
"""

from __future__ import annotations

from ...errors import HnError
from ...store.repo import Repo

# a memory imported, counted when it is active and applies to the anchor's descendants: one
# ``--applies exact`` or ``subject`` is left out of recall at HEAD for another reason. CROSS JOIN
# keeps SQLite's order: from the import's commits (``chain_commit``) to their rows, never from
# every active row (the planner's choice for a plain JOIN: 0.7 s for a 20,000-memory import
# into a state of 20,000, a scan of the whole state per chunk, growing with history)
_ROWS = ('SELECT DISTINCT r.id, a.anchor FROM chain c CROSS JOIN rows r ON r.id = c.id '
         'CROSS JOIN akeys a ON a.akey = r.akey '
         'WHERE c."commit" IN ({}) AND a.mode = \'descendants\' AND r.lifecycle = \'active\' AND r.actor != ?')


def hint(repo: Repo, result) -> tuple[str, tuple] | None:
    """``core.not_merged.imported``'s (hint, shorter form) for ``result`` (a ``SyncResult``), or
    None when every memory it accepted that way is in HEAD's history (or nothing says)."""
    if not result.imported:
        return None
    from ...store import statedb

    asked = getattr(result, "not_merged_asked", None)
    try:
        if asked is not None and asked[0] == _walked(result) and asked[1].join() and asked[1].error is None:
            found, holding = asked[2]  # (``ask_ahead``'s answers, for the same memories)
        else:
            found = _outside(repo, result)
            holding = None if found is None else _holding(repo.git, result.remote, found[1])
    except (HnError, OSError, statedb.sqlite3.Error):  # (a hint: a state damaged or busy says nothing)
        return None
    if found is None:
        return None
    n, anchors = found
    from ...core.not_merged import imported

    ref, held = holding
    anchor = min(anchors, key=lambda a: (-anchors[a], a))
    return imported(n, result.imported, ref, held, anchor, anchors[anchor], result.remote)


def ask_ahead(repo: Repo, result) -> None:
    """Start ``hint``'s questions for ``result`` in a thread of their own, once its promotion has
    committed the state's rows and marked its streams promoted: its Git processes and the state's
    query then run while the sync writes its completion receipt and ends, instead of after
    (sync-100: ~4 ms of its critical path). The thread asks Git through a runner of its own
    (never this command's object reader, which the sync goes on using) and opens the state
    itself. ``hint`` takes its answer only while the result holds the same promoted commits (a
    second import pass makes another result: asked again then), and asks itself when the thread
    failed in any way."""
    walked = _walked(result)
    if not walked or not result.imported:
        return
    from ...store.git import Git
    from ...store.threads import Background

    git = Git(repo.git.cwd, timeout=repo.git.timeout)
    git.env, git.version = repo.git.env, repo.git.version  # (the same Git, environment and version)
    box: list = [None, None]

    def work():
        found = _outside(repo, result, walked, git)
        box[:] = found, None if found is None else _holding(git, result.remote, found[1])

    result.not_merged_asked = (walked, Background(work), box)


def _walked(result) -> list[str]:
    """The commits the import promoted (whole, or up to a missing dependency), sorted."""
    return sorted({c for o in result.outcomes if (o.status == "promoted" or o.prefix) and o.walked
                   for c, _tree in o.walked})


def _outside(repo: Repo, result, walked: list[str] | None = None,
             git=None) -> tuple[int, dict[str, int]] | None:
    """(how many of the accepted memories are outside HEAD's history, anchor -> how many of those
    are anchored on it), or None when none is. ``git``: the runner that asks (``ask_ahead``'s own;
    by default the repository's, HEAD through its object reader)."""
    if git is None:
        head = repo.head_commit()
    else:
        proc = git.run(["rev-parse", "-q", "--verify", "HEAD^{commit}"])
        head = proc.stdout.decode("ascii", "replace").strip() if proc.returncode == 0 else ""
    if not head or repo.is_shallow():
        return None
    walked = _walked(result) if walked is None else walked
    if not walked:
        return None
    from ...store import stateview
    from ...store.identity import active_actor
    from ...store.state import chunks, marks

    me = active_actor(repo) or ""
    rows: dict[str, str] = {}
    with stateview.last_verified(repo) as view:
        if view is None:
            return None
        for part in chunks(walked):
            rows.update(view.conn.execute(_ROWS.format(marks(len(part))), [*part, me]))
    if not rows:
        return None
    outside = _not_in_head(git or repo.git, set(rows.values()), head)
    anchors: dict[str, int] = {}
    for anchor in rows.values():
        if anchor in outside:
            anchors[anchor] = anchors.get(anchor, 0) + 1
    return (sum(anchors.values()), anchors) if anchors else None


def _not_in_head(git, anchors: set[str], head: str) -> set[str]:
    """Of ``anchors``, those HEAD's history does not contain: one ``rev-list`` of what they reach
    and HEAD does not (none when Git cannot answer, as for an anchor commit not here)."""
    walk = git.run(["rev-list", "--stdin"],
                        input="".join(f"{a}\n" for a in sorted(anchors)).encode() + f"^{head}\n".encode())
    if walk.returncode != 0:
        return set()
    return anchors & set(walk.stdout.decode("ascii", "replace").split())


def _holding(git, remote: str, anchors: dict[str, int]) -> tuple[str, int]:
    """(the short name of a remote-tracking ref of ``remote`` holding the most of the memories,
    anchor -> count, and how many it holds), one ``name-rev``; ("", 0) when none holds one.
    Neither ``<remote>/HEAD`` (a symbolic copy) nor git-hn's keep branches (``<remote>/hn-anchor/*``:
    they keep a commit on the remote, no open work) are named."""
    from .atrisk import KEEP_PREFIX

    keep = KEEP_PREFIX[len("refs/heads/"):]
    proc = git.run(["name-rev", f"--refs=refs/remotes/{remote}/*", f"--exclude=refs/remotes/{remote}/HEAD",
                         f"--exclude=refs/remotes/{remote}/{keep}*", *sorted(anchors)])
    held: dict[str, int] = {}
    for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines() if proc.returncode == 0 else ():
        commit, _sp, name = line.partition(" ")
        ref = name.split("~", 1)[0].split("^", 1)[0]  # (neither is allowed in a ref name)
        if commit in anchors and ref.startswith(f"remotes/{remote}/"):
            held[ref[len("remotes/"):]] = held.get(ref[len("remotes/"):], 0) + anchors[commit]
    if not held:
        return "", 0
    ref = min(held, key=lambda r: (-held[r], r))
    return ref, held[ref]
