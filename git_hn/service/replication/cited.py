"""What a publication must wait for because it cites it (git-hn; docs/decisions.md).

A memory that cites another (its lifecycle target: a retraction or challenge recorded with
``--stream`` into another stream; ``memory:`` evidence) is given to a remote only once that remote
holds the memory it cites, when that memory is one of this clone's own streams: published first,
the citing memory made every clone that imported it fail with dependency-missing until the other
stream followed, and when the other memory was re-anchored meanwhile (an amend), for good. The
remote holds a memory when its accepted copy from that remote holds it, when what that remote
was given of its stream reaches it, or when this same publication gives it. Memories of streams
this clone does not hold are the importer's to select (CONTRACT §9.9), never waited for.

Owns nothing on disk; reads the verified state's ``chain``, ``sources``, ``memories`` (targets)
and ``evref`` tables through a view the caller holds. Trusts that state.
"""

from __future__ import annotations

from ...core.grammar import LOCAL_PREFIX, parse_accepted_ref
from ...store.state import chunks, marks


def cites_of(conn, ids: list[str]) -> dict[str, tuple[str, ...]]:
    """memory ID -> the memory IDs it cites (its target, its record's ``memory:`` evidence), for
    those of ``ids`` that cite any: two queries per thousand IDs."""
    out: dict[str, list[str]] = {}
    for part in chunks(ids):
        for mid, target in conn.execute(f'SELECT id, target FROM memories WHERE id IN ({marks(len(part))}) '
                                        "AND target != ''", part):
            out.setdefault(mid, []).append(target)
        for owner, ref in conn.execute(f"SELECT owner, ref FROM evref WHERE type = 'memory' AND owner IN "
                                       f"({marks(len(part))})", part):
            out.setdefault(owner, []).append(ref)
    return {mid: tuple(dict.fromkeys(refs)) for mid, refs in out.items()}


def located(conn, ids: set[str]) -> dict[str, list[tuple[str, int]]]:
    """memory ID -> (source ref, sequence) of every verified source that holds it."""
    out: dict[str, list[tuple[str, int]]] = {}
    for part in chunks(sorted(ids)):
        for mid, ref, seq in conn.execute('SELECT c.id, s.ref, c.seq FROM chain c JOIN sources s ON s.sid = c.sid '
                                          f"WHERE c.id IN ({marks(len(part))})", part):
            out.setdefault(mid, []).append((ref, seq))
    return out


def sequence_of(conn, ref: str, commit: str) -> int | None:
    row = conn.execute('SELECT c.seq FROM chain c JOIN sources s ON s.sid = c.sid WHERE s.ref = ? '
                       'AND c."commit" = ?', (ref, commit)).fetchone()
    return None if row is None else row[0]


def waits(remote: str, chains: dict, cut: dict[str, int], places: dict[str, list[tuple[str, int]]],
          given_seq: dict[str, int]) -> dict[str, tuple[int, str]]:
    """ref -> (index of its first link that must wait, the memory that link cites) for the refs
    whose part allowed so far (``chains[ref][:cut[ref]]``, links with ``seq`` and ``cites``)
    cites a memory of one of this clone's own streams that ``remote`` will not hold after this
    publication. ``places``: where each cited memory is (``located``); ``given_seq``: local ref
    -> the sequence ``remote`` was given of it. Cuts only ever shrink, so this settles in at most
    as many rounds as there are streams."""
    cut = dict(cut)
    held: dict[str, tuple[int, str]] = {}
    for _round in range(len(chains) + 1):
        allowed_seq = {ref: links[cut[ref] - 1].seq if cut[ref] else -1 for ref, links in chains.items()}
        changed = False
        for ref, links in chains.items():
            for k, link in enumerate(links[:cut[ref]]):
                missing = next((c for c in link.cites if not _held_there(remote, places.get(c, ()), allowed_seq,
                                                                         given_seq)), None)
                if missing is not None:
                    cut[ref] = k
                    held[ref] = (k, missing)
                    changed = True
                    break
        if not changed:
            return held
    return held


def _held_there(remote: str, places, allowed_seq: dict[str, int], given_seq: dict[str, int]) -> bool:
    """Whether ``remote`` holds (or is about to be given) a memory found at ``places``."""
    own = False
    for ref, seq in places:
        accepted = parse_accepted_ref(ref)
        if accepted is not None:
            if accepted[0] == remote:
                return True
            continue
        if ref.startswith(LOCAL_PREFIX):
            own = True
            if seq <= max(allowed_seq.get(ref, -1), given_seq.get(ref, -1)):
                return True
    return not own  # (a memory of no stream of this clone's: the importer's to select, not waited for)


def relies(remote: str, chains: dict, cut: dict[str, int], places: dict[str, list[tuple[str, int]]],
           given_seq: dict[str, int]) -> dict[str, set[str]]:
    """ref -> the other local refs whose part in this same publication holds a memory that the
    part of ref allowed (``chains[ref][:cut[ref]]``) cites, and that ``remote`` holds no other
    way: those must reach the remote first (a push is not atomic: a server can take one ref and
    refuse another, and the citing memory then went out alone)."""
    allowed_seq = {ref: links[cut[ref] - 1].seq if cut[ref] else -1 for ref, links in chains.items()}
    out: dict[str, set[str]] = {}
    for ref, links in chains.items():
        for link in links[:cut[ref]]:
            for c in link.cites:
                source = _relied_on(remote, places.get(c, ()), allowed_seq, given_seq)
                if source is not None and source != ref:
                    out.setdefault(ref, set()).add(source)
    return out


def first_relying(remote: str, chains: dict, cut: dict[str, int], places: dict[str, list[tuple[str, int]]],
                  given_seq: dict[str, int], ref: str) -> tuple[int, str]:
    """(index of the first link of ``ref``'s allowed part that cites a memory another ref of
    this same publication gives, that memory) (``relies``, link by link)."""
    allowed_seq = {r: links[cut[r] - 1].seq if cut[r] else -1 for r, links in chains.items()}
    for k, link in enumerate(chains[ref][:cut[ref]]):
        for c in link.cites:
            source = _relied_on(remote, places.get(c, ()), allowed_seq, given_seq)
            if source is not None and source != ref:
                return k, c
    return cut[ref], ""


def _relied_on(remote: str, places, allowed_seq: dict[str, int], given_seq: dict[str, int]) -> str | None:
    """The local ref whose part in this publication gives ``remote`` a memory found at
    ``places``, when nothing else does (its accepted copy from there, what it was given)."""
    if any((parse_accepted_ref(ref) or ("",))[0] == remote for ref, _seq in places):
        return None
    local = [(ref, seq) for ref, seq in places if ref.startswith(LOCAL_PREFIX)]
    if any(seq <= given_seq.get(ref, -1) for ref, seq in local):
        return None
    return next((ref for ref, seq in local if seq <= allowed_seq.get(ref, -1)), None)
