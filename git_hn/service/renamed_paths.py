"""After a read by ``--path`` that matched nothing (``recall``, ``log``, ``export``): the
memories anchored to the file's earlier name (a trial: after ``git mv old.txt new.txt`` and a
commit, ``recall --path new.txt`` matched nothing and nothing hinted at the memories on
``old.txt``; the brief called them stale without saying the file was renamed).

Cost: nothing unless the query found nothing and the path is a file at the query commit (one
lookup through the batch process the caller's tree walk already uses). Then one Git process,
``git log --follow --diff-filter=R``, bounded by ``RENAMES`` renames and ``FOLLOW_SECONDS``
seconds, gives the file's earlier names; the memories anchored to them are read from the
sealed state as last verified (the command has just verified it: no listing, no process).
Never one process per memory. Trusts Git's rename detection only as a hint: nothing is
signed or moved here. A path the secret lint flags (``secretscan.shaped``) is never repeated.
"""

from __future__ import annotations

from ..store.repo import Repo

RENAMES = 8  # renames of the file ``git log --follow`` reports at most
FOLLOW_SECONDS = 2.0  # a history too long to follow in this time gives no hint
NAMED_IDS = 3  # memories a hint names by ID


def earlier_names(repo: Repo, commit: str, path: str) -> list[str]:
    """The names ``path`` had before, newest first, as ``git log --follow`` sees its renames from
    ``commit`` back (at most ``RENAMES``); none when Git cannot say in ``FOLLOW_SECONDS``."""
    from ..errors import HnError

    try:
        proc = repo.git.run(["log", "--follow", "-M", "--diff-filter=R", "--name-status", "-z", "--format=",
                             f"--max-count={RENAMES}", "--end-of-options", commit, "--", path],
                            timeout=FOLLOW_SECONDS, limit=1 << 20)
    except HnError:
        return []
    if proc.returncode != 0:
        return []
    fields = [f for f in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if f]
    names = [fields[i + 1] for i in range(0, len(fields) - 2, 3) if fields[i].startswith("R")]
    return [n for n in dict.fromkeys(names) if n != path]


def _anchored(repo: Repo, req, names: list[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(name, [(memory ID, pathset)]) for each of ``names`` that memories passing ``req``'s
    context-free filters (its path aside; trust is not a filter here: ``req`` normalized, as
    ``recall_core.normalize`` leaves it) are anchored to."""
    from ..core import recall as recall_core
    from ..errors import HnError
    from ..store import stateview
    from ..store.statedb import sqlite3
    from .recall import _where
    from .rows import FROM

    try:
        terms = recall_core.parse_query(req.query)
        out = []
        with stateview.last_verified(repo) as view:
            if view is None:
                return []
            for name in names:
                where, args = _where(view, req._replace(path=name), terms, grouping=False)
                rows = view.conn.execute(f"SELECT r.id, r.pathset {FROM} WHERE {' AND '.join(where)} "
                                         "ORDER BY r.id", args).fetchall()
                if rows:
                    out.append((name, [(i, p) for i, p in rows]))
        return out
    except (HnError, sqlite3.Error, ValueError):
        return []


def renamed_hint(repo: Repo, req, path: str, at: str, command: str) -> str:
    """The hint (one line) for a ``command`` (``recall``, ``log``, ``export``) by ``path`` at
    revision ``at`` that matched nothing, when memories are anchored to an earlier name of the
    file; "" otherwise."""
    from shlex import quote

    from ..core.gostr import short_id
    from ..core.hints import shell_path
    from ..core.projection import ProbeError
    from ..errors import HnError
    from ..store.resolver import Resolver
    from .secretscan import shaped

    try:
        commit = repo.resolve_commit(at)
        found = Resolver(repo).entry(commit, path)
    except (HnError, ProbeError, UnicodeError):
        return ""
    if found is None or found[1] != "blob" or shaped(path):
        return ""
    names = [n for n in earlier_names(repo, commit, path) if not shaped(n)]
    anchored = _anchored(repo, req, names) if names else []
    if not anchored:
        return ""
    old, memories = anchored[0]
    one = len(memories) == 1
    there = f"--at {quote(at)}" if at not in ("HEAD", "@") else "--at HEAD"
    counted = "1 memory is" if one else f"{len(memories)} memories are"
    text = (f"nothing is anchored to {shell_path(path)}, but {counted} anchored to {shell_path(old)}, its "
            f"earlier name (Git sees the file renamed since): git hn memory {command} --path {shell_path(old)} shows "
            f"{'it' if one else 'them'}")
    paths = [p for p in (memories[0][1] or "").split("\n") if p] if one else []
    moved = [path if p == old else p for p in paths]
    if one and moved and not any(shaped(p) for p in moved):
        given = " ".join(f"--path {shell_path(p)}" for p in sorted(set(moved)))
        text += (f", and git hn memory supersede {short_id(memories[0][0])} {there} --same-content {given} "
                 "anchors it to the file where it is now")
    else:
        ids = ", ".join(short_id(i) for i, _p in memories[:NAMED_IDS]) + (", ..." if len(memories) > NAMED_IDS else "")
        text += (f" ({ids}), and git hn memory supersede ID {there} --same-content with --path {shell_path(path)} "
                 f"and a --path for each other file it is about anchors {'it' if one else 'each'} to the file "
                 "where it is now")
    more = len(anchored) - 1
    if more:
        text += f"; memories are anchored to {more} more of its earlier names"
    return text
