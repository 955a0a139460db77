"""``git hn memory brief`` and ``git hn memory digest`` (CONTRACT §7.15).

Both are read-only views over a full projection of the verified memory set: no fetch, no ref
update, no index write. The brief reads no clock; the digest reads it only for its default month.
Rows come from the same projection recall uses (``core.projection``), in index-row form, so an item
is exactly the row recall would return for the same context.

Staleness is decided offline against the query commit with the literal tree lookup of §5.5
(``Resolver.entry``), so a memory anchored to a file that later commits changed is flagged without
any service.
"""

from __future__ import annotations

from ..core import brief as core
from ..core.projection import Context, ProbeError, project, row_index_json
from ..errors import InputError
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy


def _projection(repo: Repo, at: str):
    collection = streams.collect(repo)
    resolver = Resolver(repo)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    policy = load_policy(repo, resolver, at)
    proj = project(list(collection.memories), Context(at, "", "", policy.memory, policy.digest),
                   resolver)
    return collection, resolver, policy, proj


def _blob_at(resolver: Resolver, commit: str):
    memo: dict[str, str] = {}

    def blob_at(path: str) -> str:
        if path not in memo:
            try:
                found = resolver.entry(commit, path)
            except ProbeError:
                found = (b"", "unreadable", "unreadable")  # cannot confirm it is unchanged
            memo[path] = "absent" if found is None else (found[2] if found[1] == "blob" else
                                                          f"{found[1]}:{found[2]}")
        return memo[path]

    return blob_at


def brief_sections(repo: Repo, at: str, include_untrusted: bool):
    """(head of the document, full sections) for the brief at commit ``at`` (a full OID)."""
    collection, resolver, policy, proj = _projection(repo, at)
    by_id = collection.by_id()
    blob_at = _blob_at(resolver, at)
    candidates, excluded = [], 0
    for row in proj.rows.values():
        if (row.lifecycle.lifecycle != "active" or row.applicability != "applicable"
                or row.evidence != "resolved"):
            continue
        if row.trust != "qualified" and not include_untrusted:
            excluded += 1
            continue
        data = row_index_json(row)
        challenged_by = None
        if row.lifecycle.challengers:
            challenged_by = []
            for cid in row.lifecycle.challengers:
                env = by_id[cid].envelope
                challenged_by.append({"memoryId": cid, "actor": env.actor, "reason": env.reason,
                                      "evidence": list(env.evidence or ())})
        candidates.append(core.item(data, core.stale_paths(data, blob_at), challenged_by))
    sequences = {m.memory_id: m.envelope.sequence for m in collection.memories}
    top = core.head(at, policy.digest, excluded)
    return top, core.sections(candidates, sequences)


def brief(repo: Repo, at: str, *, max_bytes: int = core.DEFAULT_MAX_BYTES,
          include_untrusted: bool = False, fmt: str = "markdown",
          from_input: bool = False) -> tuple[dict, bytes]:
    """The bounded brief: (document, exact output bytes of format ``fmt``)."""
    if max_bytes <= 0:
        raise InputError("brief bound must be positive")
    if from_input:
        from .recall import resolve_input_commit

        try:
            commit = resolve_input_commit(repo, at)
        except InputError as exc:
            raise InputError(exc.message.replace("recall input", "brief input")) from None
    else:
        commit = repo.resolve_commit(at)
    top, full = brief_sections(repo, commit, include_untrusted)
    return core.bounded(top, full, max_bytes, fmt)


def digest(repo: Repo, month: str | None, *, include_untrusted: bool = False) -> dict:
    """CONTRACT §7.15: the handoffs and decisions signed within one UTC month."""
    if month is None:
        import time

        month = time.strftime("%Y-%m", time.gmtime())  # the only clock the command reads
    core.check_month(month)
    head = repo.head_commit()
    collection = streams.collect(repo)
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, head)
    proj = project(list(collection.memories), Context(head, "", "", policy.memory, policy.digest),
                   resolver)
    rows = [row_index_json(r) for r in proj.rows.values()
            if include_untrusted or r.trust == "qualified"]
    return core.digest_doc(month, core.digest_rows(rows, month))


def digest_lines(doc: dict) -> list[str]:
    return core.digest_lines(doc)
