"""What a change of the verified state touches, asked of the state's tables (``state.derive``):
the memories that target one of a set of IDs, and those whose ``memory:`` evidence cites one.

IDs are looked up ``CHUNK`` at a time, each an index probe, unless the index holds no more
entries than there are IDs: then one pass over that index answers instead, keeping the entries
whose ID is in the set. Reading an entry costs less than probing for one, and a first sync into
a fresh clone asked 20,000 IDs of empty indexes (46 statements, ~40 ms; 200 IDs, ~0.25 ms). The
entries are counted only up to one more than the IDs, so a long history is never counted whole.
The pairs found are the same either way. Trusts the state's
file as ``state`` does: it only reads it.
"""

from __future__ import annotations

CHUNK = 900  # bound parameters per statement (``state.CHUNK``)


def _parts(ids: set):
    items = list(ids)
    for i in range(0, len(items), CHUNK):
        yield items[i:i + CHUNK]


def _passes(conn, entries_sql: str, ids: set) -> bool:
    """Whether one pass over the entries ``entries_sql`` selects reads no more of them than
    ``ids`` would probe (counted up to one more than that: never the whole of a long history)."""
    n = len(ids)
    return conn.execute(f"SELECT count(*) FROM ({entries_sql} LIMIT ?)", (n + 1,)).fetchone()[0] <= n


def targeting(conn, ids: set, probe_sql) -> list[tuple[str, str]]:
    """(id, target) of every memory whose target is in ``ids``; ``probe_sql(n, columns)``:
    ``state.targeting_sql``. A pass reads the partial index ``memories_target`` (the memories
    that target anything), as the probes do."""
    if _passes(conn, "SELECT 1 FROM memories WHERE target != ''", ids):
        return [(mid, target) for mid, target in conn.execute("SELECT id, target FROM memories WHERE target != ''")
                if target in ids]
    return [row for part in _parts(ids) for row in conn.execute(probe_sql(len(part), "id, target"), part)]


def citing(conn, ids: set) -> list[str]:
    """The owner of every ``memory:`` evidence reference to one of ``ids`` (once per reference)."""
    if _passes(conn, "SELECT 1 FROM evref", ids):  # (the pass reads the whole table)
        return [owner for owner, ref in conn.execute("SELECT owner, ref FROM evref WHERE type = 'memory'")
                if ref in ids]
    return [r[0] for part in _parts(ids) for r in conn.execute(
        f"SELECT owner FROM evref WHERE type = 'memory' AND ref IN ({','.join('?' * len(part))})", part)]
