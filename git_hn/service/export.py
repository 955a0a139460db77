"""``git hn memory export``: the verified record memories that pass recall's filters (issue 14
item 6), each with its signed bytes, commit, source ref and projection.

Served from the verified state like ``memory log``: the context-free filters run in SQLite over
the rows table, trust is decided once per (actor, kind) pair with the policy at ``--at``, and the
matching memories are projected in batches from their closure (``View.project``: payloads read
from Git in one batch per 256 memories and re-checked against the state). ``export_full``
answers from a full projection of verified streams; a test compares the two.

Selection: recall's filters with ``memory log``'s defaults. An export is a copy of memory, not an
answer about one commit, so every lifecycle and every trust class is included unless a filter
narrows it, and applicability and evidence at ``--at`` are reported in each memory's projection,
never used to drop it. ``--at`` (default ``HEAD``) is the commit whose policy decides trust and at
which those classes are computed. There is no record limit. Retractions and challenges are not
records and pass no filter of their own: the ones accepted against an exported record are
exported with it (``projection`` null), so that a reader can re-verify the
``retractedBy``/``challengedBy`` IDs it is given, signature and all.

Order: (actor, stream, sequence), the order in which a reader re-verifies each chain. Read-only:
it writes only the private state.
"""

from __future__ import annotations

from ..core import export as core
from ..core import recall as recall_core
from ..core.projection import Context, project, row_index_json
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy
from .log import _as_candidate, request

BATCH = 256

__all__ = ["request", "export", "export_full", "chunks_of"]


def chunks_of(repo: Repo, req: recall_core.RecallRequest, at: str, fmt: str, found: list | None = None):
    """``git hn memory export``: the verified memories at revision ``at`` as the bytes of
    ``fmt`` (``jsonl`` or ``markdown``), in chunks; a bad format or revision fails first.
    ``found`` (a list) gets the number of records exported (the command's hints)."""
    from ..core import hints
    from ..errors import InputError

    if fmt not in core.FORMATS:
        raise InputError("memory export format is unsupported; " + hints.choice(fmt, core.FORMATS))
    commit = repo.resolve_commit(at)
    items = export(repo, req, commit)
    if found is not None:
        found.append(sum(1 for it in items if it.row is not None))
    if fmt == "jsonl":
        return [core.export_line(it, commit) for it in items]
    from .secretscan import shaped

    return [(line + "\n").encode("utf-8") for line in core.markdown(items, shaped)]


def export(repo: Repo, req: recall_core.RecallRequest, at: str) -> list[core.Exported]:
    """``at`` is a resolved commit OID."""
    from ..store import stateview

    terms = recall_core.parse_query(req.query)
    listing = streams.list_sources(repo)
    return stateview.serve(repo, lambda view: _export_view(repo, view, req, at, terms),
                           lambda: _export_full(repo, req, at, terms, listing), listing)


def export_full(repo: Repo, req: recall_core.RecallRequest, at: str) -> list[core.Exported]:
    """The same export from a full projection of verified streams (the reference; tests)."""
    return _export_full(repo, req, at, recall_core.parse_query(req.query))


def _context(repo: Repo, at: str):
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, at)
    return Context(at, "", "", policy.memory, policy.digest), resolver


def _export_view(repo: Repo, view, req, at: str, terms) -> list[core.Exported]:
    from ..store.stateview import Corrupt
    from .recall import _where
    from .rows import FROM, trust_filter

    ctx, resolver = _context(repo, at)
    where, args = _where(view, req, terms, grouping=False)
    if req.trust:
        narrowed = trust_filter(view, where, args, req.trust, ctx.policy)
        if narrowed is None:
            return []
        where, args = narrowed
    sql = f"SELECT r.id {FROM}" + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY r.actor, r.stream, r.seq, r.id"
    ids = [r[0] for r in view.conn.execute(sql, args)]
    out = []
    for i in range(0, len(ids), BATCH):
        batch = ids[i:i + BATCH]
        proj, mems = view.project(batch, ctx, resolver)
        refs = _source_refs(view, [mems[x].commit for x in batch if x in mems])
        for ident in batch:
            mem = mems.get(ident)
            row = row_index_json(proj.rows[ident])
            if mem is None or mem.commit not in refs or not recall_core.matches(_as_candidate(row), req, terms):
                raise Corrupt("a row's columns disagree with its projection")
            out.append(core.Exported(mem, refs[mem.commit], row))
    events = sorted({e for it in out for e in (*it.row["retractions"], *it.row["challengers"])})
    lifecycle = []
    for i in range(0, len(events), BATCH):
        batch = events[i:i + BATCH]
        mems = view.load(batch)
        refs = _source_refs(view, [mems[x].commit for x in batch if x in mems])
        for ident in batch:
            mem = mems.get(ident)
            if mem is None or mem.commit not in refs:
                raise Corrupt("an accepted retraction or challenge is missing from the state")
            lifecycle.append(core.Exported(mem, refs[mem.commit], None))
    return core.with_lifecycle(out, lifecycle)


def _source_refs(view, commits: list[str]) -> dict[str, str]:
    """The first source ref (by name) whose verified chain holds each commit."""
    from ..store.state import chunks, marks

    refs: dict[str, str] = {}
    for part in chunks(commits):
        for commit, ref in view.conn.execute(
                f'SELECT c."commit", s.ref FROM chain c JOIN sources s ON s.sid = c.sid '
                f'WHERE c."commit" IN ({marks(len(part))}) ORDER BY s.ref', part):
            refs.setdefault(commit, ref)
    return refs


def _export_full(repo: Repo, req, at: str, terms, sources=None) -> list[core.Exported]:
    collection = streams.collect(repo, sources)
    ctx, resolver = _context(repo, at)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    proj = project(list(collection.memories), ctx, resolver)
    refs: dict[str, str] = {}
    for ref in sorted(collection.chains):
        for m in collection.chains[ref]:
            refs.setdefault(m.commit, ref)
    out = []
    for mem in collection.memories:  # (actor, stream, sequence, ID)
        r = proj.rows.get(mem.memory_id)
        if r is None:
            continue
        row = row_index_json(r)
        if recall_core.matches(_as_candidate(row), req, terms):
            out.append(core.Exported(mem, refs[mem.commit], row))
    by_id = collection.by_id()
    events = sorted({e for it in out for e in (*it.row["retractions"], *it.row["challengers"])})
    lifecycle = [core.Exported(by_id[e], refs[by_id[e].commit], None) for e in events]
    return core.with_lifecycle(out, lifecycle)


def write_new_file(path: str, chunks) -> None:
    """Write ``chunks`` (bytes) to ``path``, which must not exist: ``O_CREAT | O_EXCL`` refuses an
    existing file and any symlink there, dangling or not (*clobbering*, *symlink redirection*).
    A failed write removes the half-written file; an existing file is never touched."""
    import os

    from ..core.gostr import shown_path
    from ..errors import InputError, LocalStateError
    from ..store.argpath import os_path

    try:
        fd = os.open(os_path(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    except FileExistsError:
        raise InputError(f"export output {shown_path(path)} already exists; choose a new file") from None
    except OSError as exc:
        raise LocalStateError(f"export output {shown_path(path)}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
    except OSError as exc:
        try:
            os.unlink(os_path(path))
        except OSError:
            pass
        raise LocalStateError(f"export output {shown_path(path)}: {exc.strerror}") from None
