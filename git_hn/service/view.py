"""``git hn memory view``: the page of every verified memory, written to one file (issue 14).

Served from the verified state like ``memory log``: every record row is listed in SQL, and the
rows are projected in batches from their closure (``View.project``: payloads read from Git and
re-checked), which also yields the retractions and challenges that target them (their author
names and reasons are shown under their target, after whether the policy trusts their authors).
``page_full`` answers from a full projection of verified streams (the reference; a test compares
the two). Trust, standing and applicability are decided with the policy at the query commit
(``--at``, default HEAD).

Writing: the default file is private (``page_path``, under ``<gitdir>/hn``, owner-only, replaced
atomically). A file named with ``--output`` is replaced only when it does not exist or is a page
this command wrote earlier (``core.view_page.is_page``); anything else, a symbolic link or a
non-regular file is refused, so a typo cannot clobber an unrelated file (*destructive
overwrite*). The new page is written to a temporary file beside it and renamed over it.
"""

from __future__ import annotations

import os
import stat

from ..core import view_page as core
from ..core.projection import Context, project, row_index_json
from ..errors import InputError, LocalStateError
from ..store import private, streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy

BATCH = 256
PAGE_NAME = "hn-memory.html"


def page_path(repo: Repo) -> str:
    """The default page: private, per worktree (its HEAD is the default query commit)."""
    return os.path.join(repo.worktree_hn_dir, PAGE_NAME)


def document(repo: Repo, at: str = "HEAD") -> dict:
    """The page's data document (``core.view_page.document``) at revision ``at``."""
    from ..store import stateview

    commit = repo.resolve_commit(at or "HEAD")
    listing = streams.list_sources(repo)

    def with_view(view):
        entries, events = [], []
        _from_view(repo, view, commit, entries.extend, events.extend)
        return core.document(entries, events, commit)

    return stateview.serve(repo, with_view, lambda: _from_full(repo, commit, listing), listing)


def document_full(repo: Repo, at: str = "HEAD") -> dict:
    """The same document from a full projection of verified streams (the reference; tests)."""
    return _from_full(repo, repo.resolve_commit(at or "HEAD"))


def render(doc: dict) -> str:
    script, style = _assets()
    return core.render(doc, script, style)


def _assets() -> tuple[str, str]:
    from importlib import resources

    assets = resources.files("git_hn") / "assets"
    return (assets / "view.js").read_text("utf-8"), (assets / "view.css").read_text("utf-8")


def _context(repo: Repo, commit: str):
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, commit)
    return Context(commit, "", "", policy.memory, policy.digest), resolver


def _from_view(repo: Repo, view, commit: str, add_entries, add_events) -> None:
    """The timeline's entries, newest first (``memory log``'s order, which ``core.view_page
    .document`` gives too), to ``add_entries`` a batch at a time; the retractions and challenges
    of each batch to ``add_events``."""
    from ..core import log as logcore
    from ..store.stateview import Corrupt

    ctx, resolver = _context(repo, commit)
    rows = view.conn.execute(f"SELECT r.id FROM rows r ORDER BY {logcore.KEY_SQL} DESC, r.id")
    while True:
        batch = [r[0] for r in rows.fetchmany(BATCH)]
        if not batch:
            return
        proj, mems = view.project(batch, ctx, resolver)
        entries, events = [], []
        for ident in batch:
            if ident not in mems or ident not in proj.rows:
                raise Corrupt("a row without its memory")
            row = row_index_json(proj.rows[ident])
            entries.append(_entry(row, mems[ident].envelope))
            for other in row["retractions"] + row["challengers"]:
                if other not in mems:
                    raise Corrupt("a relation without its memory")
                events.append(core.event_entry(other, mems[other].envelope, ctx.policy))
        add_entries(entries)
        add_events(events)
        view.forget()  # (only the entries are kept: issue 11)


class Held:
    """A page's entries verified a batch at a time and held (``store.spool``) until the page is
    written, with what is decided over all of them first: their count, the paths that look alike
    (``core.view_page.document``), the (actor, kind) pairs shown qualified (the drift hint) and
    the untrusted authors (the revoked notice). The events (retractions and challenges, sorted
    by ID) are kept in memory: one small entry each."""

    def __init__(self, commit: str):
        from ..store.spool import Spool

        self.commit = commit
        self.entries = Spool()
        self.reset()

    def reset(self) -> None:
        from collections import Counter

        self.entries.reset()
        self.events: list[dict] = []
        self.paths: set[str] = set()
        self.qualified: set = set()
        self.untrusted: Counter = Counter()

    def add_entries(self, batch: list[dict]) -> None:
        for e in batch:
            self.paths.update(e["paths"])
            if e["trust"] == "qualified":
                self.qualified.add((e["actor"], e["kind"]))
            elif e["trust"] == "actor-untrusted":
                self.untrusted[e["actor"]] += 1
        self.entries.add(batch)

    def add_events(self, batch: list[dict]) -> None:
        self.events += batch

    def chunks(self, notice: str, empty: str):
        """The page's bytes, in parts (``core.view_page.render_parts``)."""
        from ..core.invisible import lookalikes

        told = lookalikes(self.paths)
        skeleton = {"version": 0, "atCommit": self.commit, "memories": [],
                    "events": sorted(self.events, key=lambda e: e["id"])}
        if notice:
            skeleton["notice"] = core.inert_line(notice[:1].upper() + notice[1:])
        if empty:
            skeleton["empty"] = core.inert_line(empty[:1].upper() + empty[1:])

        def batches():
            for batch in self.entries.batches():
                yield [e | {"paths": [f"{p} ({told[p]})" if p in told else p for p in e["paths"]]}
                       if told and any(p in told for p in e["paths"]) else e for e in batch]

        try:
            for part in core.render_parts(skeleton, batches(), self.entries.count, *_assets()):
                yield part.encode("utf-8")
        finally:
            self.entries.close()


def held_page(repo: Repo, at: str = "HEAD") -> Held:
    """The page at revision ``at``, verified and held (``Held``)."""
    from ..store import stateview

    commit = repo.resolve_commit(at or "HEAD")
    listing = streams.list_sources(repo)
    held = Held(commit)

    def with_view(view):
        held.reset()  # (a state found corrupt part way: the page begins again)
        _from_view(repo, view, commit, held.add_entries, held.add_events)

    def full():
        held.reset()
        entries, events = _full_parts(repo, commit, listing)
        for i in range(0, len(entries), BATCH):
            held.add_entries(entries[i:i + BATCH])
        held.add_events(events)

    try:
        stateview.serve(repo, with_view, full, listing)
    except BaseException:
        held.entries.close()
        raise
    return held


def _from_full(repo: Repo, commit: str, sources=None) -> dict:
    entries, events = _full_parts(repo, commit, sources)
    return core.document(entries, events, commit)


def _full_parts(repo: Repo, commit: str, sources=None) -> tuple[list[dict], list[dict]]:
    """The timeline's entries, newest first, and the events, from a full projection."""
    from ..core import log as logcore

    collection = streams.collect(repo, sources)
    ctx, resolver = _context(repo, commit)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    proj = project(list(collection.memories), ctx, resolver)
    envelopes = {m.memory_id: m.envelope for m in collection.memories}
    entries, events = [], []
    for r in proj.rows.values():
        row = row_index_json(r)
        entries.append(_entry(row, envelopes[row["id"]]))
        for other in row["retractions"] + row["challengers"]:
            events.append(core.event_entry(other, envelopes[other], ctx.policy))
    entries.sort(key=lambda e: e["id"])
    entries.sort(key=lambda e: logcore.order_key(e["utc"]), reverse=True)
    return entries, events


def _entry(row: dict, env) -> dict:
    return core.memory_entry(row, env.actor_name, env.target if env.operation == "supersede" else "")


# -- writing ---------------------------------------------------------------------------------


def write_default(repo: Repo, page) -> str:
    """``page``: its text, or its bytes in parts."""
    path = page_path(repo)
    try:
        private.write_private(repo.worktree_hn_dir, path, page.encode("utf-8") if isinstance(page, str) else page,
                              derived=True)
    except LocalStateError as exc:
        # a private directory (or a git directory) made read-only, a read-only mount: the page
        # can still go elsewhere
        hn = repo.worktree_hn_dir
        if not os.access(hn if os.path.isdir(hn) else os.path.dirname(hn), os.W_OK | os.X_OK):
            raise LocalStateError(f"{exc.message}; git hn memory view --output FILE writes the page "
                                  "elsewhere") from None
        raise
    return path


def write_output(path: str, page) -> str:
    """Write ``page`` (its text, or its bytes in parts) to a user-named file (see the module
    docstring for what is refused)."""
    path = os.path.abspath(path)
    _check_replaceable(path)
    def place(tmp: str) -> None:
        _check_replaceable(path)  # again, just before the rename: the narrowest window we can give
        os.rename(tmp, path)

    try:
        private.write_beside(os.path.dirname(path), ".hn-view-", page.encode("utf-8") if isinstance(page, str) else page,
                             place)
    except OSError as exc:
        # (a review: a read-only mount was said in the system's raw words, the page unnamed as such)
        import errno

        then = "; choose another --output" if exc.errno == errno.EROFS else ""
        raise LocalStateError(f"page {_shown(path)} cannot be written: {private.cause(exc)}{then}") from None
    return path


def _check_replaceable(path: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not os.path.isdir(os.path.dirname(path)):
            raise InputError(f"cannot write {_shown(path)}: no such directory") from None
        return
    except OSError as exc:
        raise InputError(f"cannot write {_shown(path)}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):  # (--output DIR/: say what it is, and what to give instead)
        raise InputError(f"refusing to replace {_shown(path)}: it is a directory; name a file in it")
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        raise InputError(f"refusing to replace {_shown(path)}: not a regular file")
    try:  # never follows a link planted since, never blocks on a FIFO swapped in
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            head = os.read(fd, core.MARKER_WITHIN) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(f"cannot read {_shown(path)}: {exc.strerror}") from None
    if not core.is_page(head):
        raise InputError(f"refusing to replace {_shown(path)}: it is not a page written by "
                         "git hn memory view; remove it or choose another --output")


def _shown(path: str) -> str:
    from ..core.gostr import shown_path

    return shown_path(path)


def write_page(repo: Repo, at: str, output: str | None) -> tuple[str, str, str]:
    """``git hn memory view``: the page at revision ``at`` written to ``output`` (or the private
    default); returns the path written, the policy drift hint (``policy_drift``: the page
    shows it too, as its ``notice``, with the authors shown untrusted that the policy no longer
    trusts), "" when there is none, and the hint of a page with no memory at all (log's:
    ``unimported.nothing_here``, which the page shows in its empty timeline), "" otherwise."""
    from .policy_drift import hint
    from .unimported import nothing_here

    page = held_page(repo, at)
    try:
        drift = hint(repo, page.commit, page.qualified)
        notice = "; ".join(filter(None, (drift, _revoked_notice(repo, page.commit, page.untrusted))))
        empty = "" if page.entries.count else nothing_here(repo)
        from ..store.argpath import os_path

        chunks = page.chunks(notice, empty)
        return (write_output(os_path(output), chunks) if output else write_default(repo, chunks)), drift, empty
    finally:
        page.entries.close()


def _revoked_notice(repo: Repo, commit: str, authors) -> str:
    """Of the authors of the memories the page shows as ``actor-untrusted`` (``authors``: how
    many each), those the policy no longer trusts, since when (``service.revoked``: one bounded,
    advisory lookup a page, and none when no memory is shown so), as recall's hint says it; ""
    otherwise (a newcomer trial: the page showed the old key's memories untrusted without the
    reason recall gives)."""
    from ..core.hints import no_longer_trusted
    from .revoked import among

    revoked, _every = among(repo, commit, dict(authors))
    return f"of the authors shown as untrusted, {no_longer_trusted(revoked)}" if revoked else ""
