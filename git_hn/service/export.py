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
    ``fmt`` (``jsonl`` or ``markdown``), in chunks; a bad format or revision fails first, and
    the whole export is verified before the first chunk (an iterator over what ``Held`` keeps).
    ``found`` (a list) gets the number of records exported (the command's hints)."""
    from ..errors import InputError

    if fmt not in core.FORMATS:
        from ..core.mistyped import choice

        raise InputError("memory export format is unsupported; " + choice(fmt, core.FORMATS))
    commit = repo.resolve_commit(at)
    held = _held(repo, req, commit, fmt)
    if found is not None:
        found.append(held.records.count)
    return held.chunks()


class Held:
    """An export verified a batch at a time and kept only as its output (issue 11: a whole
    export at 100k memories held every memory, 0.9 GiB): for JSON Lines, each record's and each
    retraction's or challenge's line with its (actor, stream, sequence, ID), records in that
    order and the others sorted apart, merged when written; for Markdown, each record's entry,
    placed by its ``core.export.md_key`` (kept in memory: four short strings a record) and read
    back by offset."""

    def __init__(self, at: str, fmt: str):
        from ..store.spool import Spool

        self.at, self.fmt, self.withheld = at, fmt, None
        if fmt == "markdown":
            from .secretscan import shaped

            self.withheld = shaped
        self.records, self.events = Spool(), Spool()
        self.keys: list[tuple] = []

    def reset(self) -> None:
        self.records.reset()
        self.events.reset()
        self.keys = []

    def add_records(self, batch: list[core.Exported]) -> None:
        if self.fmt == "jsonl":
            self.records.add([(*_order(it), core.export_line(it, self.at)) for it in batch])
            return
        for it in batch:
            entry = _md_bytes(core.md_entry(it, self.withheld))
            self.keys.append((*core.md_key(it), (self.records.put(entry), len(entry))))

    def add_events(self, batch: list[core.Exported]) -> None:
        if self.fmt == "jsonl":  # (Markdown shows them with their record)
            self.events.add([(*_order(it), core.export_line(it, self.at)) for it in batch])

    def chunks(self):
        try:
            if self.fmt == "jsonl":
                import heapq

                for *_key, line in heapq.merge(_each(self.records), _each(self.events), key=lambda x: x[:4]):
                    yield line
                return
            yield _md_bytes(core.md_head(self.records.count))
            plan = core.md_plan(self.keys)
            self.keys = []
            for part in plan:
                yield _md_bytes(part) if isinstance(part, list) else self.records.read_at(*part)
        finally:
            self.close()

    def close(self) -> None:
        self.records.close()
        self.events.close()


def _each(spool):
    for batch in spool.batches():
        yield from batch


def _order(it: core.Exported) -> tuple:
    env = it.memory.envelope
    return env.actor, env.stream, env.sequence, it.memory.memory_id


def _md_bytes(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _held(repo: Repo, req: recall_core.RecallRequest, at: str, fmt: str) -> Held:
    from ..store import stateview

    terms = recall_core.parse_query(req.query)
    listing = streams.list_sources(repo)
    held = Held(at, fmt)

    def with_view(view):
        held.reset()  # (a state found corrupt part way: the export begins again)
        _export_view(repo, view, req, at, terms, held.add_records, held.add_events)

    def full():
        held.reset()
        found = _export_full(repo, req, at, terms, listing)
        held.add_records([it for it in found if it.row is not None])
        held.add_events([it for it in found if it.row is None])

    try:
        stateview.serve(repo, with_view, full, listing)
    except BaseException:
        held.close()
        raise
    return held


def export(repo: Repo, req: recall_core.RecallRequest, at: str) -> list[core.Exported]:
    """``at`` is a resolved commit OID."""
    from ..store import stateview

    terms = recall_core.parse_query(req.query)
    listing = streams.list_sources(repo)

    def with_view(view):
        records, events = [], []
        _export_view(repo, view, req, at, terms, records.extend, events.extend)
        return core.with_lifecycle(records, events)

    return stateview.serve(repo, with_view, lambda: _export_full(repo, req, at, terms, listing), listing)


def export_full(repo: Repo, req: recall_core.RecallRequest, at: str) -> list[core.Exported]:
    """The same export from a full projection of verified streams (the reference; tests)."""
    return _export_full(repo, req, at, recall_core.parse_query(req.query))


def _context(repo: Repo, at: str):
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, at)
    return Context(at, "", "", policy.memory, policy.digest), resolver


def _export_view(repo: Repo, view, req, at: str, terms, add_records, add_events) -> None:
    """The records, in (actor, stream, sequence, ID) order, to ``add_records`` a batch at a
    time, then the retractions and challenges accepted against them, in the same order, to
    ``add_events``."""
    from ..store.state import chunks, marks
    from ..store.stateview import Corrupt
    from .recall import _where
    from .rows import FROM, trust_filter

    ctx, resolver = _context(repo, at)
    where, args = _where(view, req, terms, grouping=False)
    if req.trust:
        narrowed = trust_filter(view, where, args, req.trust, ctx.policy)
        if narrowed is None:
            return
        where, args = narrowed
    sql = f"SELECT r.id {FROM}" + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY r.actor, r.stream, r.seq, r.id"
    rows = view.conn.execute(sql, args)
    events: set[str] = set()
    last = None  # (the written order is the SQL order: checked against the signed envelopes)
    while True:
        batch = [r[0] for r in rows.fetchmany(BATCH)]
        if not batch:
            break
        proj, mems = view.project(batch, ctx, resolver)
        refs = _source_refs(view, [mems[x].commit for x in batch if x in mems])
        out = []
        for ident in batch:
            mem = mems.get(ident)
            row = row_index_json(proj.rows[ident])
            if mem is None or mem.commit not in refs or not recall_core.matches(_as_candidate(row), req, terms):
                raise Corrupt("a row's columns disagree with its projection")
            key = _order(core.Exported(mem, "", row))
            if last is not None and key < last:
                raise Corrupt("the state's order disagrees with the memories")
            last = key
            out.append(core.Exported(mem, refs[mem.commit], row))
            events.update(row["retractions"], row["challengers"])
        add_records(out)
        view.forget()  # (only the output is kept: issue 11)
    order = []  # the events' (actor, stream, sequence, ID), from the state: loaded in that order
    ids = sorted(events)
    for part in chunks(ids):
        order += view.conn.execute(f"SELECT actor, stream, seq, id FROM memories WHERE id IN ({marks(len(part))})",
                                   part).fetchall()
    if len(order) != len(ids):
        raise Corrupt("an accepted retraction or challenge is missing from the state")
    order.sort()
    for i in range(0, len(order), BATCH):
        batch = [x[3] for x in order[i:i + BATCH]]
        mems = view.load(batch)
        refs = _source_refs(view, [mems[x].commit for x in batch if x in mems])
        out = []
        for ident in batch:
            mem = mems.get(ident)
            if mem is None or mem.commit not in refs:
                raise Corrupt("an accepted retraction or challenge is missing from the state")
            out.append(core.Exported(mem, refs[mem.commit], None))
        add_events(sorted(out, key=_order))
        view.forget()


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
