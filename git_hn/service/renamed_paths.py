"""After a read by ``--path`` that matched nothing (``recall``, ``log``, ``export``): the
memories anchored to the file's earlier name (a trial: after ``git mv old.txt new.txt`` and a
commit, ``recall --path new.txt`` matched nothing and nothing hinted at the memories on
``old.txt``; the brief called them stale without saying the file was renamed).

Cost: nothing unless the query found nothing and the path is a file at the query commit (one
lookup through the batch process the caller's tree walk already uses). Then one Git process,
``git log --follow --diff-filter=AR``, bounded by ``RENAMES`` renames and ``FOLLOW_SECONDS``
seconds, gives the file's earlier names, the commits that renamed it, and the commit that gave
it each name (the rename into it, or the addition where the file began); the memories anchored
to them are read from the sealed state as last verified (the command has just verified it: no
listing, no process). When some are, one more, ``git rev-list --parents``, bounded by
``BEFORE`` commits and ``FOLLOW_SECONDS`` seconds, lists the history before the renames: a
memory counts only when its anchor commit is an ancestor of the parent of the commit that
renamed the file from that name (a review: a memory on another file that later took the old
name was offered to be moved onto this one), and descends from the commit that gave the file
that name, or is it (a review: a memory on an earlier file of that name, deleted before this one
was added, was offered too). One anchored further back than ``BEFORE`` commits is left out of
the hint, and so is an earlier name whose start the bounded ``git log`` did not reach. Git's
history is the judge of "the same file": content replaced in place is a modification to it.
Never one process per memory. Trusts Git's rename detection only as a hint: nothing is signed or
moved here. A path the secret lint flags (``secretscan.shaped``) is never repeated.
"""

from __future__ import annotations

import re

from ..store.repo import Repo

RENAMES = 8  # renames of the file ``git log --follow`` reports at most
FOLLOW_SECONDS = 2.0  # a history too long to follow in this time gives no hint
BEFORE = 10000  # commits before the renames the anchors are looked for among (``git rev-list``)
NAMED_IDS = 3  # memories a hint names by ID

_HEADER = re.compile(r"[0-9a-f]+(?: [0-9a-f]+)*")


def renames(repo: Repo, commit: str, path: str) -> list[tuple[str, tuple[str, ...], str]]:
    """(earlier name, parents of the commit that renamed the file from it, the commit that gave
    the file that name) for the names ``path`` had before, newest first, as ``git log --follow``
    sees its renames from ``commit`` back to the addition where the file began (at most
    ``RENAMES``; a name whose start is further back is left out); none when Git cannot say in
    ``FOLLOW_SECONDS``. What Git reports before that addition is another file's history (the
    name deleted once, and added again later)."""
    from ..errors import HnError

    try:
        proc = repo.git.run(["log", "--follow", "-M", "--diff-filter=AR", "--name-status", "-z", "--format=%H %P",
                             f"--max-count={RENAMES + 1}", "--end-of-options", commit, "--", path],
                            timeout=FOLLOW_SECONDS, limit=1 << 20)
    except HnError:
        return []
    if proc.returncode != 0:
        return []
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    at, parents, current, pending = "", (), path, None  # (pending: a name waiting for its start)
    i = 0
    while i < len(fields):
        field = fields[i].lstrip("\n")
        i += 1
        if not field:
            continue
        if field[0].isupper():  # a status (a header is lowercase hex): its names follow
            names = fields[i:i + (2 if field[0] in "RC" else 1)]
            i += len(names)
            added = field == "A" and names == [current]
            if not added and not (field.startswith("R") and len(names) == 2 and names[1] == current and parents):
                continue
            if pending is not None:  # (this commit gave the file the name it was renamed from later)
                out.setdefault(pending[0], (pending[1], at))
                pending = None
            if added:  # (where the file began: what Git reports before is another file's)
                break
            current = names[0]
            if current != path:
                pending = (current, parents)
        elif _HEADER.fullmatch(field.rstrip(" ")):  # (a root commit's ends in a space: no parents)
            at, *rest = field.rstrip(" ").split(" ")
            parents = tuple(rest)
    return [(name, parents, start) for name, (parents, start) in out.items()]


def _before(repo: Repo, found: list, renamed: dict) -> list:
    """``found`` (``_anchored``'s) with only the memories anchored at an ancestor of the parent of
    the commit that renamed the file from their name and at a descendant of the commit that gave
    the file that name, or at it (``renamed``: name -> (parents, that commit)), among the
    ``BEFORE`` commits before the renames: one ``git rev-list --parents`` for all of them, which
    stops at the oldest such start (nothing older can count)."""
    from ..errors import HnError

    starts = sorted({p for name, _rows in found for p in renamed[name][0]})
    oldest = renamed[found[-1][0]][1]  # (``found`` keeps the newest-first order of the names)
    try:
        proc = repo.git.run(["rev-list", "--parents", f"--max-count={BEFORE}", "--end-of-options", *starts,
                             f"^{oldest}^@", "--"],
                            timeout=FOLLOW_SECONDS, limit=(BEFORE + 1) * 4 * 66)
    except HnError:
        return []
    if proc.returncode != 0:
        return []
    graph = {}
    for line in proc.stdout.decode("ascii", "replace").splitlines():
        commit, *parents = line.split(" ")
        graph[commit] = parents
    out = []
    for name, rows in found:
        seen, todo = set(), [p for p in renamed[name][0] if p in graph]
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.add(c)
                todo += [p for p in graph.get(c, ()) if p not in seen]
        since = _since(graph, renamed[name][1])
        kept = [row for row in rows if row[2] in seen and row[2] in since]
        if kept:
            out.append((name, kept))
    return out


def _since(graph: dict, start: str) -> set:
    """The commits of ``graph`` (commit -> parents) that are ``start`` or descend from it: each
    commit decided once, from its parents (no recursion: a long history is a deep one)."""
    memo = {start: True}
    for top in graph:
        stack = [top]
        while stack:
            c = stack[-1]
            if c in memo:
                stack.pop()
                continue
            todo = [p for p in graph.get(c, ()) if p not in memo]
            if todo:
                stack += todo
                continue
            memo[c] = any(memo[p] for p in graph.get(c, ()))
            stack.pop()
    return {c for c, yes in memo.items() if yes}


def _anchored(repo: Repo, req, names: list[str]) -> list[tuple[str, list[tuple[str, str, str, str, str]]]]:
    """(name, [(memory ID, pathset, anchor commit, actor, kind)]) for each of ``names`` that
    memories passing ``req``'s context-free filters (its path aside; trust is not a filter here:
    ``req`` normalized, as ``recall_core.normalize`` leaves it) are anchored to."""
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
                rows = view.conn.execute(f"SELECT r.id, r.pathset, a.anchor, r.actor, r.kind {FROM} WHERE "
                                         f"{' AND '.join(where)} ORDER BY r.id", args).fetchall()
                if rows:
                    out.append((name, [tuple(row) for row in rows]))
        return out
    except (HnError, sqlite3.Error, ValueError):
        return []


def _none_anchored(repo: Repo, req) -> bool:
    """Whether no memory of ``req``'s lifecycles is anchored to any path at all in the state as
    last verified: then none is anchored to an earlier name either, and the hint needs no ``git
    log --follow`` (0.1 s in a 100,000-file directory, S102 #2). One seek through the grouping
    index from the anchor keys that name a path."""
    from ..core.limits import LIFECYCLES
    from ..errors import HnError
    from ..store import stateview
    from ..store.statedb import sqlite3

    lifecycles = list(req.lifecycle or LIFECYCLES)
    try:
        with stateview.last_verified(repo) as view:
            return view is not None and view.conn.execute(
                "SELECT 1 FROM rows r INDEXED BY rows_groups WHERE "
                f"r.lifecycle IN ({','.join('?' * len(lifecycles))}) AND "
                "r.akey IN (SELECT akey FROM akeys WHERE paths != '') LIMIT 1", lifecycles).fetchone() is None
    except (HnError, sqlite3.Error):
        return False


def _hidden_by_trust(repo: Repo, commit: str, memories: list) -> bool:
    """Whether ``recall``'s default trust filter hides one of ``memories`` at ``commit`` (its
    policy: a lookup through the batch process the hint's tree lookup used; an invalid policy
    hides every one)."""
    from ..core.projection import trust
    from ..errors import HnError
    from ..store.resolver import Resolver, load_policy

    try:
        policy = load_policy(repo, Resolver(repo), commit).memory
    except HnError:
        return True
    return any(trust(actor, kind, policy) != "qualified" for _i, _p, _a, actor, kind in memories)


def renamed_hint(repo: Repo, req, path: str, at: str, command: str, resolver=None) -> str:
    """The hint (one line) for a ``command`` (``recall``, ``log``, ``export``) by ``path`` at
    revision ``at`` that matched nothing, when memories are anchored to an earlier name of the
    file; "" otherwise. The command that shows them shows them: ``recall``'s has
    ``--include-untrusted`` when the trust policy would hide one (``log`` and ``export`` list
    every trust class). The way to move them to the file's name now is ``supersede
    --same-content`` for the reader's own; another author's only its author may supersede (the
    refusal's words), so for those it is a record of the reader's own there citing it (a
    review: the hint offered a supersede that was refused). ``resolver``: the one the caller
    looked the path up with (``directory_hint``), whose objects are read already."""
    from shlex import quote

    from ..core.gostr import short_id
    from ..core.hints import cite_at, shell_path
    from ..core.projection import ProbeError
    from ..errors import HnError
    from ..store.identity import active_actor
    from ..store.resolver import Resolver
    from .secretscan import shaped

    try:
        commit = repo.resolve_commit(at)
        found = (resolver or Resolver(repo)).entry(commit, path)
    except (HnError, ProbeError, UnicodeError):
        return ""
    if found is None or found[1] != "blob" or shaped(path) or _none_anchored(repo, req):
        return ""
    renamed = {n: (parents, start) for n, parents, start in renames(repo, commit, path) if not shaped(n)}
    anchored = _anchored(repo, req, list(renamed)) if renamed else []
    anchored = _before(repo, anchored, renamed) if anchored else []
    if not anchored:
        return ""
    old, memories = anchored[0]
    one = len(memories) == 1
    at_text = quote(at) if at not in ("HEAD", "@") else "HEAD"
    there = f"--at {at_text}"
    counted = "1 memory is" if one else f"{len(memories)} memories are"
    see = " --include-untrusted" if command == "recall" and _hidden_by_trust(repo, commit, memories) else ""
    text = (f"nothing is anchored to {shell_path(path)}, but {counted} anchored to {shell_path(old)}, its "
            f"earlier name (Git sees the file renamed since): git hn memory {command} --path {shell_path(old)}{see} "
            f"shows {'it' if one else 'them'}")
    me = active_actor(repo)
    mine = [m for m in memories if m[3] == me]
    theirs = [m for m in memories if m[3] != me]
    paths = [p for p in (memories[0][1] or "").split("\n") if p] if one else []
    moved = [path if p == old else p for p in paths]
    if one and moved and not any(shaped(p) for p in moved):
        given = " ".join(f"--path {shell_path(p)}" for p in sorted(set(moved)))
        ident = short_id(memories[0][0])
        if mine:
            text += (f", and git hn memory supersede {ident} {there} --same-content {given} "
                     "anchors it to the file where it is now")
        else:
            cite = cite_at(ident, memories[0][4], at_text).replace(" --content TEXT", f" {given} --content TEXT", 1)
            text += (f"; only its author may supersede it, so {cite} records your own on the file where it is now, "
                     "citing it")
        return text + _more(len(anchored) - 1)

    def ids(part: list) -> str:
        return (", ".join(short_id(m[0]) for m in part[:NAMED_IDS])
                + (", ..." if len(part) > NAMED_IDS else ""))

    def supersede(what: str) -> str:
        return (f"git hn memory supersede ID {there} --same-content with --path {shell_path(path)} and a --path "
                f"for each other file it is about anchors {what} to the file where it is now")

    def record(what: str) -> str:
        return (f"git hn memory record --kind KIND --at {at_text} --applies descendants --evidence memory:ID "
                f"--path {shell_path(path)} --content TEXT records your own on the file where it is now, citing {what}")

    if not theirs:
        text += f" ({ids(mine)}), and " + supersede("it" if one else "each")
    elif not mine:
        text += (f" ({ids(theirs)}), and as only {'its author' if one else 'their authors'} may supersede "
                 f"{'it' if one else 'them'}, " + record("it" if one else "each"))
    else:
        single = len(theirs) == 1
        others = "another author's" if single else "other authors'"
        text += (f"; yours ({ids(mine)}): " + supersede("it" if len(mine) == 1 else "each")
                 + f"; {others} ({ids(theirs)}), which only {'its author' if single else 'their authors'} may "
                 "supersede: " + record("it" if single else "each"))
    return text + _more(len(anchored) - 1)


def _more(more: int) -> str:
    return f"; memories are anchored to {more} more of its earlier names" if more else ""
