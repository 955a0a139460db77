"""The anchor commits of this clone's own publications to a remote, kept current from what
changed (issue 11; ``tracked.note_published`` writes them for the fetch hook's wrapper).

Owns the memo ``<replication.published_path>.memo`` (derived, private, disposable): for each
stream ref that counts (each local stream up to the tip the remote was last given,
``published_heads``; each of the active identity's accepted copies from the remote, up to its
head) the tip it was computed at and the anchors of the chain up to that tip. Every fetch that
imported recomputed them all with one join over every chain this clone gave the remote: ~450 ms
of a 100,000-memory clone's fetch hook, for a fetch that brought one teammate's memory and
changed none of them (the scale sweep). Now a ref whose tip is one the memo holds (under this
ref or another: the own copy accepted back) is taken as it is; one whose earlier tip is still in
the ref's verified chain below the new one adds only the chain entries above it; anything else (a rewritten or new ref, no memo, a memo of another checker) is
computed from its whole chain, as before.

Why the memo may be trusted: a tip is a commit, and the chain below it (every memory, its anchor)
is fixed by that commit's ID, so the anchors up to a tip are a function of the tip alone; the
state is still asked, each time, whether each tip is in the ref's current verified chain (where
it is not, the ref counts nothing, as the full join says), and the memo is dropped when the
state's checker (the code that derived the anchors) is another. Trusts: the verified state, as
the full join did; the memo only for commits the state places in the same chain.
"""

from __future__ import annotations

import os

from ...core.grammar import is_oid
from ...errors import HnError
from ...store.repo import Repo

MEMO_MAGIC = "hn-published-memo/0"
MEMO_LIMIT = 16 << 20  # bytes of memo read back (~400,000 anchor lines); a larger one is not written


def own_anchors(repo: Repo, remote: str) -> set[str] | None:
    """The anchor commits ``tracked.note_published`` writes; None when the state cannot answer. None
    at all, without opening the state, in a clone with no active identity and no stream of its own
    (a reader's: nothing of it was given to the remote, nor is accepted back from it); before,
    every fetch that started git-hn there loaded the state's modules and opened it twice (~6 ms
    at 5,000 accepted streams), and when the state could not answer the wrapper had no list."""
    if not os.path.lexists(repo.active_path()):
        listed = repo.git.run(["for-each-ref", "--count=1", "--format=%(refname)", "refs/hn/memory/"])
        if listed.returncode == 0 and not listed.stdout.strip():
            return set()
    from ...store.identity import active_actor
    from ...store.statedb import sqlite3
    from ...store.stateview import last_verified
    from .given_record import published_heads

    given = published_heads(repo, remote)
    actor = active_actor(repo)
    memo_path = _memo_path(repo, remote)
    try:
        with last_verified(repo) as view:
            if view is None:
                return None
            conn = view.conn
            tips = _tips(conn, remote, given, actor)
            checker = _checker(conn)
            memo = _read_memo(repo, memo_path, checker)
            by_tip = {tip: anchors for tip, anchors in memo.values()}
            entries: dict[str, tuple[str, frozenset[str]]] = {}
            for ref, (sid, tip, seq) in tips.items():
                # (a tip counted under another ref is taken as it is: the own copy accepted back
                # at the tip that was published, the usual case)
                anchors = by_tip.get(tip)
                if anchors is None:
                    anchors = by_tip[tip] = _anchors_to(conn, sid, tip, seq, memo.get(ref))
                entries[ref] = (tip, anchors)
    except (HnError, OSError, sqlite3.Error):
        return None
    if entries != memo:
        _write_memo(repo, memo_path, checker, entries)
    out: set[str] = set()
    for _tip, anchors in entries.values():
        out |= anchors
    return out


def _tips(conn, remote: str, given: dict[str, str], actor: str | None) -> dict[str, tuple[int, str, int]]:
    """ref -> (its state source ID, the tip that counts, that tip's place in the ref's verified
    chain): each given ref whose given tip is in its chain (one query for them all: a clone that
    published 10,000 streams asked 10,000 times), and each of ``actor``'s accepted copies from
    ``remote`` at its head (after ``git remote rename``, as ``lost.held``). Index lookups only."""
    out: dict[str, tuple[int, str, int]] = {}
    if given:
        import json

        for ref, sid, tip, seq in conn.execute(
                "WITH g(ref, tip) AS (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') "
                "FROM json_each(?)) SELECT s.ref, s.sid, t.\"commit\", t.seq FROM g JOIN sources s ON s.ref = g.ref "
                'JOIN chain t ON t.sid = s.sid AND t."commit" = g.tip', (json.dumps(sorted(given.items())),)):
            out[ref] = (sid, tip, seq)
    if actor:
        mine = f"refs/hn/remotes/{remote}/memory/{actor}/"
        for ref, sid, head, length in conn.execute(
                "SELECT ref, sid, head, length FROM sources WHERE substr(ref, 1, ?) = ?", (len(mine), mine)):
            if length > 0:  # (a chain's entries are numbered from 1: its head is at ``length``)
                out[ref] = (sid, head, length)
    return out


def _anchors_to(conn, sid: int, tip: str, seq: int, known: tuple[str, frozenset[str]] | None) -> frozenset[str]:
    """The anchors of chain ``sid`` up to ``seq`` (where ``tip`` is). ``known`` (an earlier tip, its
    anchors): taken as it is when it is this tip; extended by the entries above it when that tip
    is in this chain below ``seq`` (the chain under a commit is fixed by its ID); else unused."""
    low = 0
    base: frozenset[str] = frozenset()
    if known is not None:
        if known[0] == tip:
            return known[1]
        row = conn.execute('SELECT seq FROM chain WHERE sid = ? AND "commit" = ?', (sid, known[0])).fetchone()
        if row is not None and row[0] < seq:
            low, base = row[0] + 1, known[1]
    found = {a for (a,) in conn.execute(
        "SELECT DISTINCT a.anchor FROM chain c JOIN rows r ON r.id = c.id JOIN akeys a ON a.akey = r.akey "
        "WHERE c.sid = ? AND c.seq >= ? AND c.seq <= ?", (sid, low, seq)) if is_oid(a)}
    return base | found if found - base else base


def _checker(conn) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = 'checker'").fetchone()
    return str(row[0]) if row else ""


def _memo_path(repo: Repo, remote: str) -> str:
    from ...store import replication as rstate

    return rstate.published_path(repo, remote) + ".memo"


def _read_memo(repo: Repo, path: str, checker: str) -> dict[str, tuple[str, frozenset[str]]]:
    """The memo's entries (ref -> (tip, anchors)); {} when it is absent, unreadable, malformed
    in any way, or made under another checker. Each tip's anchors are written once (``tip TIP
    N`` and N lines), then each ref at its tip (``ref REF TIP``): the own copy accepted back
    shares the published stream's."""
    from ...store import private

    try:
        data = private.read_private(repo.hn_dir, path, MEMO_LIMIT)
        lines = (data or b"").decode("utf-8").split("\n")
    except (HnError, OSError, UnicodeDecodeError):
        return {}
    if len(lines) < 2 or lines[0] != f"{MEMO_MAGIC} {checker}" or lines[-1] != "":
        return {}
    tips: dict[str, frozenset[str]] = {}
    out: dict[str, tuple[str, frozenset[str]]] = {}
    i, end = 1, len(lines) - 1
    while i < end:
        head = lines[i].split(" ")
        if len(head) == 3 and head[0] == "ref" and head[2] in tips and head[1] not in out:
            out[head[1]] = (head[2], tips[head[2]])
            i += 1
            continue
        if len(head) != 3 or head[0] != "tip" or not is_oid(head[1]) or not head[2].isdigit() or head[1] in tips:
            return {}
        n = int(head[2])
        anchors = lines[i + 1:i + 1 + n]
        if len(anchors) != n or not all(is_oid(a) for a in anchors):
            return {}
        tips[head[1]] = frozenset(anchors)
        i += 1 + n
    return out


def _write_memo(repo: Repo, path: str, checker: str, entries: dict[str, tuple[str, frozenset[str]]]) -> None:
    """Replace the memo (best effort; one too large for ``MEMO_LIMIT`` is removed instead)."""
    from ...store import private

    parts = [f"{MEMO_MAGIC} {checker}\n"]
    for tip, anchors in sorted({tip: anchors for tip, anchors in entries.values()}.items()):
        parts.append(f"tip {tip} {len(anchors)}\n")
        parts.extend(f"{a}\n" for a in sorted(anchors))
    for ref in sorted(entries):
        if " " not in ref and "\n" not in ref:  # (none Git accepts has either: no line reads back as another)
            parts.append(f"ref {ref} {entries[ref][0]}\n")
    data = "".join(parts).encode("utf-8")
    try:
        if len(data) > MEMO_LIMIT:
            os.unlink(path)
            return
        private.write_private(repo.hn_dir, path, data, derived=True)
    except (HnError, OSError):  # (absent already, or unwritable: the next run computes it again)
        pass
