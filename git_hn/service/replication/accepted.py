"""What a sync knows of the memories the main repository already verified (CONTRACT §9.8, §9.9,
§11(a); issue 11).

A sync validates candidates against the accepted set: it continues chains from their verified
tips, refuses chains that diverge from another verified source of the same stream, and projects
its candidates together with the memories they name. ``FromState`` answers from the verified
state (brought up to date first, at the cost of what changed); ``FromCollection`` answers from a
full collection, for when the state cannot answer (replication state pending). Both answer the
same questions with the same meaning, so the import does not care which one it has.
"""

from __future__ import annotations

from ...core.chain import VerifiedMemory
from ...store import state as statemod
from ...store.state import chunks, marks


def others_sql(n: int) -> str:
    """The sources of ``n`` (actor, stream) pairs (2n parameters), each found by the
    ``sources_stream`` index (an ``IN`` list of row values would scan every source)."""
    values = ", ".join("(?, ?)" for _ in range(n))
    return (f"WITH w(actor, stream) AS (VALUES {values}) SELECT s.ref, s.actor, s.stream FROM w "
            "JOIN sources s ON s.actor = w.actor AND s.stream = w.stream")


class FromState:
    def __init__(self, view):
        self.view = view
        self.conn = view.conn

    def source(self, ref: str):
        """(length, head memory ID) of a verified source, or None."""
        row = self.conn.execute("SELECT s.length, c.id FROM sources s JOIN chain c ON c.sid = s.sid "
                                "AND c.seq = s.length WHERE s.ref = ?", (ref,)).fetchone()
        return None if row is None else (row[0], row[1])

    def known(self, commits: list[str]) -> dict[str, tuple[int, str, str, str]]:
        """commit -> (sequence, memory ID, actor, stream) for commits some verified chain holds
        (the actor and stream its memory was signed for: a ref may name another)."""
        out = {}
        for part in chunks(commits):
            for c, seq, mid, actor, stream in self.conn.execute(
                    f'SELECT c."commit", c.seq, c.id, m.actor, m.stream FROM chain c JOIN memories m '
                    f'ON m.id = c.id WHERE c."commit" IN ({marks(len(part))})', part):
                out.setdefault(c, (seq, mid, actor, stream))
        return out

    def others(self, actor: str, stream: str, own_ref: str) -> list[str]:
        """The other verified sources of one stream, by ref name."""
        return sorted(r[0] for r in self.conn.execute(
            "SELECT ref FROM sources WHERE actor = ? AND stream = ? AND ref != ?", (actor, stream, own_ref)))

    def others_of(self, streams: list[tuple[str, str, str]]) -> dict[tuple[str, str], list[str]]:
        """``others`` for many (actor, stream, own ref) at once (one query per chunk)."""
        own = {(a, st): ref for a, st, ref in streams}
        out: dict[tuple[str, str], list[str]] = {key: [] for key in own}
        for part in chunks(sorted(own), statemod.CHUNK // 2):
            for ref, actor, stream in self.conn.execute(others_sql(len(part)), [v for key in part for v in key]):
                if ref != own[(actor, stream)]:
                    out[(actor, stream)].append(ref)
        return {key: sorted(refs) for key, refs in out.items()}

    def ids_at(self, ref: str, seqs: list[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for part in chunks(seqs):
            out.update(self.conn.execute(
                f"SELECT c.seq, c.id FROM chain c JOIN sources s ON s.sid = c.sid WHERE s.ref = ? "
                f"AND c.seq IN ({marks(len(part))})", (ref, *part)).fetchall())
        return out

    def present(self, ids) -> set[str]:
        return self.view.present(ids)

    def load(self, ids) -> dict[str, VerifiedMemory]:
        return self.view.load(ids)


class FromCollection:
    def __init__(self, collection):
        self.collection = collection
        self.by_id = collection.by_id()
        self.by_ref = {s.ref: s for s in collection.sources}
        self.commits: dict[str, tuple[int, str, str, str]] = {}
        for memories in collection.chains.values():
            for i, m in enumerate(memories, 1):
                self.commits.setdefault(m.commit, (i, m.memory_id, m.envelope.actor, m.envelope.stream))

    def source(self, ref: str):
        chain = self.collection.chains.get(ref)
        return (len(chain), chain[-1].memory_id) if chain else None

    def known(self, commits: list[str]) -> dict[str, tuple[int, str, str, str]]:
        return {c: self.commits[c] for c in commits if c in self.commits}

    def others(self, actor: str, stream: str, own_ref: str) -> list[str]:
        return sorted(ref for ref, s in self.by_ref.items()
                      if (s.actor, s.stream) == (actor, stream) and ref != own_ref)

    def others_of(self, streams: list[tuple[str, str, str]]) -> dict[tuple[str, str], list[str]]:
        return {(a, st): self.others(a, st, ref) for a, st, ref in streams}

    def ids_at(self, ref: str, seqs: list[int]) -> dict[int, str]:
        chain = self.collection.chains.get(ref, [])
        return {n: chain[n - 1].memory_id for n in seqs if 0 < n <= len(chain)}

    def present(self, ids) -> set[str]:
        return {i for i in ids if i in self.by_id}

    def load(self, ids) -> dict[str, VerifiedMemory]:
        return {i: self.by_id[i] for i in ids if i in self.by_id}
