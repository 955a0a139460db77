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
    return stateview.serve(repo, lambda view: _from_view(repo, view, commit),
                           lambda: _from_full(repo, commit, listing), listing)


def document_full(repo: Repo, at: str = "HEAD") -> dict:
    """The same document from a full projection of verified streams (the reference; tests)."""
    return _from_full(repo, repo.resolve_commit(at or "HEAD"))


def render(doc: dict) -> str:
    from importlib import resources

    assets = resources.files("git_hn") / "assets"
    return core.render(doc, (assets / "view.js").read_text("utf-8"),
                       (assets / "view.css").read_text("utf-8"))


def _context(repo: Repo, commit: str):
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, commit)
    return Context(commit, "", "", policy.memory, policy.digest), resolver


def _from_view(repo: Repo, view, commit: str) -> dict:
    from ..store.stateview import Corrupt

    ctx, resolver = _context(repo, commit)
    ids = [r[0] for r in view.conn.execute("SELECT id FROM rows ORDER BY id")]
    entries, events = [], []
    for i in range(0, len(ids), BATCH):
        batch = ids[i:i + BATCH]
        proj, mems = view.project(batch, ctx, resolver)
        for ident in batch:
            if ident not in mems or ident not in proj.rows:
                raise Corrupt("a row without its memory")
            row = row_index_json(proj.rows[ident])
            entries.append(_entry(row, mems[ident].envelope))
            for other in row["retractions"] + row["challengers"]:
                if other not in mems:
                    raise Corrupt("a relation without its memory")
                events.append(core.event_entry(other, mems[other].envelope, ctx.policy))
    return core.document(entries, events, commit)


def _from_full(repo: Repo, commit: str, sources=None) -> dict:
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
    return core.document(entries, events, commit)


def _entry(row: dict, env) -> dict:
    return core.memory_entry(row, env.actor_name, env.target if env.operation == "supersede" else "")


# -- writing ---------------------------------------------------------------------------------


def write_default(repo: Repo, page: str) -> str:
    path = page_path(repo)
    try:
        private.write_private(repo.worktree_hn_dir, path, page.encode("utf-8"), derived=True)
    except LocalStateError as exc:
        # a private directory (or a git directory) made read-only, a read-only mount: the page
        # can still go elsewhere
        hn = repo.worktree_hn_dir
        if not os.access(hn if os.path.isdir(hn) else os.path.dirname(hn), os.W_OK | os.X_OK):
            raise LocalStateError(f"{exc.message}; git hn memory view --output FILE writes the page "
                                  "elsewhere") from None
        raise
    return path


def write_output(path: str, page: str) -> str:
    """Write ``page`` to a user-named file (see the module docstring for what is refused)."""
    path = os.path.abspath(path)
    _check_replaceable(path)
    def place(tmp: str) -> None:
        _check_replaceable(path)  # again, just before the rename: the narrowest window we can give
        os.rename(tmp, path)

    try:
        private.write_beside(os.path.dirname(path), ".hn-view-", page.encode("utf-8"), place)
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

    doc = document(repo, at)
    drift = hint(repo, doc["atCommit"], {(m["actor"], m["kind"]) for m in doc["memories"] if m["trust"] == "qualified"})
    notice = "; ".join(filter(None, (drift, _revoked_notice(repo, doc))))
    empty = "" if doc["memories"] else nothing_here(repo)
    shown = {**doc, "notice": core.inert_line(notice[:1].upper() + notice[1:])} if notice else doc
    page = render({**shown, "empty": core.inert_line(empty[:1].upper() + empty[1:])} if empty else shown)
    from ..store.argpath import os_path

    return (write_output(os_path(output), page) if output else write_default(repo, page)), drift, empty


def _revoked_notice(repo: Repo, doc: dict) -> str:
    """Of the authors of the memories the page shows as ``actor-untrusted``, those the policy no
    longer trusts, since when (``service.revoked``: one bounded, advisory lookup a page, and none
    when no memory is shown so), as recall's hint says it; "" otherwise (a newcomer trial: the
    page showed the old key's memories untrusted without the reason recall gives)."""
    from collections import Counter

    from ..core.hints import no_longer_trusted
    from .revoked import among

    authors = Counter(m["actor"] for m in doc["memories"] if m.get("trust") == "actor-untrusted")
    revoked, _every = among(repo, doc["atCommit"], dict(authors))
    return f"of the authors shown as untrusted, {no_longer_trusted(revoked)}" if revoked else ""
