"""Re-anchoring unpublished memories when Git rewrites their commits (issue 12, item 4).

``git commit --amend`` and ``git rebase`` (also through ``git pull --rebase``) replace commits and
tell the ``post-rewrite`` hook which old commit became which new one, as ``notes.rewrite`` uses it
for git notes. A memory anchored on a replaced commit that was never published would otherwise
point at history that exists nowhere but in the author's reflog: the push of the rewritten branch
cannot carry it, and its stream could never be published past it.

Owns: rebuilding the *unpublished tail* of the active identity's own local streams: from the first
memory above everything any remote was given (the state's record of publications, and the
accepted copies of the stream) that names a rewritten commit (its anchor, or ``git:`` evidence) or
a memory rebuilt before it, to the tip. Each rebuilt memory keeps its operation, content,
sequence and timestamp; anchors and ``git:`` evidence move to the new commits (anchored paths are
read again at the new commit), ``previous``, lifecycle targets and ``memory:`` evidence follow the
rebuilt IDs; every envelope is signed anew. The stream ref moves from the tip that was read to the
new tip in one compare-and-swap under the stream lock. A published memory is never rewritten. A
verification whose commit a rewrite replaced with another tree stays on the commit it tested
(signed again only when its predecessor is): moved, it would claim a test no one ran.

Trusts: the active identity (it signs), and the chains, which the verified state checked.
"""

from __future__ import annotations

from contextlib import ExitStack

from ..core import envelope as envmod
from ..core import keys
from ..core.envelope import Anchor, PathAnchor
from ..core.gostr import short_id
from ..core.grammar import LOCAL_PREFIX, memory_id
from ..core.tuples import NamedTuple
from ..errors import ConflictError, HnError, InputError, LocalStateError
from . import objects, renames, statedb, stateview, streams
from .identity import Identity
from .lock import stream_lock
from .repo import Repo


class Rewritten(NamedTuple):
    ref: str
    memories: int  # memories rebuilt (the first one named a rewritten commit), so signed again
    moved: int  # of those, the memories that named a rewritten commit (anchor or ``git:`` evidence)
    renamed: tuple  # (old memory ID, new memory ID) of each rebuilt memory, root first
    kept: tuple = ()  # (memory ID, old commit) of memories that name a rewritten commit and stay:
    # something published, or another identity's memory, cites them
    before: str = ""  # the stream's tip before the rebuild ("" when nothing was rebuilt): memory
    # refs keep no reflog, so ``git update-ref REF BEFORE`` is the only undo
    untested: tuple = ()  # ``Untested``, one per verification a rewrite left on a commit whose
    # replacement has another tree (``_untested``): carried, it would claim a test the new commit never had
    unanchored: tuple = ()  # ``Unanchored``, one per memory left on its commit because an anchored
    # path is no file at the new one (``_not_files``): signed there, its anchor would be invalid
    absent: tuple = ()  # ``Emptied``, one per anchored path that named a file at the rewritten
    # commit and names nothing at its replacement (``_emptied``): a file renamed or deleted
    narrowed: tuple = ()  # (new memory ID, ((path, "tree" or "commit"), ...)) of each memory moved
    # with the paths that are no file at the new commit left out of its anchor (``files_only``)


class Untested(NamedTuple):
    """A verification a rewrite left where it was signed (``_untested``)."""

    memory: str  # its ID (the new one when it was signed again: a memory before it was)
    anchor: str  # its anchor commit, which it keeps
    pairs: tuple  # (old, new) of every rewritten commit it names, anchor and ``git:`` evidence, in that order
    changed: tuple  # the old commits of ``pairs`` whose replacement has another tree (one at least)
    record: object  # its record: what records the result anew (mode, subject, paths, topics, evidence)


class Unanchored(NamedTuple):
    """A memory a rewrite left where it was signed: an anchored path is no file at the new commit."""

    memory: str  # its ID (the new one when it was signed again: a memory before it was)
    old: str  # the commit it keeps
    new: str  # the commit that replaced it
    path: str  # its first anchored path that is no file at ``new``
    node: str  # what that path is there: "tree" (a directory) or "commit" (a submodule)
    cited: bool = False  # a later unpublished memory of yours cites it, so ``--drop`` is refused


class Emptied(NamedTuple):
    """An anchored path a re-anchoring recorded ``absent``: a file at the old commit, none at the new."""

    memory: str  # the ID of the memory signed again
    path: str
    old: str  # the rewritten commit
    new: str  # its replacement, the memory's anchor now
    paths: tuple  # every path the memory anchors, in its order


def parse_mapping(data: bytes, oid_len: int) -> dict[str, str]:
    """``old new [extra]`` lines of ``post-rewrite``'s input; anything else is ignored."""
    out = {}
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) >= 2 and all(len(p) == oid_len and all(c in "0123456789abcdef" for c in p)
                                   for p in parts[:2]):
            out[parts[0]] = parts[1]
    return out


def reanchor(repo: Repo, ident: Identity, mapping: dict[str, str], cause: str = "rewrite",
             files_only: bool = False, library=None) -> list[Rewritten]:
    """Rebuild the unpublished tails of ``ident``'s local streams that name rewritten commits,
    and of those that cite a memory so rebuilt (a retraction or challenge recorded with
    ``--stream`` into another stream, ``memory:`` evidence): all of them in one ref transaction,
    so that no stream is left citing an ID that no longer exists. A rewrite (``cause``
    "rewrite": the ``post-rewrite`` hook) leaves a verification on its commit when the commit
    that replaced it has another tree (``_untested``); ``reanchor OLD NEW`` by hand carries it.
    A memory whose anchored path is no file at the new commit stays (``_not_files``), unless
    ``files_only`` (``reanchor OLD NEW --files-only``, asked by its author) carries it with such
    paths left out of its anchor. ``library``: the secret lint's, for the commits' name
    (``identity.commit_name``)."""
    if not mapping:
        return []
    listing = [s for s in streams.list_sources(repo) if s.actor == ident.actor]
    local = [s for s in listing if s.remote is None]
    if not local:
        return []
    published = _published_tips(repo, listing)
    # (everything in a stream some remote holds at its tip was published: nothing may be rewritten)
    open_ = sorted((s for s in local if s.head not in published.get(s.ref, set())), key=lambda s: s.ref)
    if not open_:
        return []
    with ExitStack() as held:
        for src in open_:  # (one order for every process: no two wait on each other)
            held.enter_context(stream_lock(repo.hn_dir, repo.lock_path(ident.actor, src.stream), src.ref))
        # listed again under the locks: a record that landed meanwhile moved a head, and the
        # stream read before it was skipped, silently (the amend's memory stayed on the old commit)
        listing = [s for s in streams.list_sources(repo) if s.actor == ident.actor]
        fresh = {s.ref: s for s in listing if s.remote is None}
        locked = [fresh[s.ref] for s in open_ if s.ref in fresh]
        published = _published_tips(repo, listing)  # (and what was published meanwhile)
        return _rebuild(repo, ident, [s for s in locked if s.head not in published.get(s.ref, set())],
                        listing, published, mapping, retest=cause == "rewrite", cause=cause, files_only=files_only,
                        library=library)


RENAMED_KEPT = 2048  # lines kept (about 300 KB)
DROPPED = "-"  # the new ID of a memory ``reanchor --drop`` discarded (its cause is "drop")
# cause -> how a "not found" says why the ID is gone (a review: "signed again … when its commit
# was rewritten" was said of a memory a --drop signed again, and of a dropped one nothing);
# "" for lines of earlier versions, which recorded no cause, and words true of every cause
CAUSES = {"rewrite": "when its commit was rewritten",
          "reanchor": "when git hn memory reanchor moved its stream off a commit",
          "drop": "when git hn memory reanchor --drop discarded an earlier memory of its stream",
          "sync": "when git hn sync --rebase rebuilt its stream on the remote's",
          "": "when git-hn rebuilt its stream (a rewritten commit, a reanchor, or a sync --rebase)"}


def remember_renames(repo: Repo, pairs: list[tuple[str, str]], cause: str = "") -> None:
    """Keep what each rebuilt memory was renamed to (``DROPPED`` for one discarded), and why
    (a key of ``CAUSES``), so that a command given an old ID can say which ID replaced it
    (``what_became``), and so that a refresh of the state that finds the old IDs gone knows
    git-hn took them (``rewound``: its callers write this before their refs move). Derived and
    best effort: only ever a hint. Earlier versions read a line of three fields as no rename
    (they ask for two IDs): they only lose the hint."""
    from . import private

    path = renames.path(repo)
    tail = f" {cause}" if cause else ""
    try:
        old = private.read_private(repo.hn_dir, path, renames.MAX_BYTES) or b""
        lines = old.splitlines() + [f"{a} {b}{tail}".encode("ascii") for a, b in pairs]
        # (this rewrite's pairs whole, however many: a review's 2,049 re-anchored memories lost their
        # first pair, and ``rewound`` took git-hn's own rewrite for a loss)
        kept = lines[-max(RENAMED_KEPT, len(pairs)):]
        private.write_private(repo.hn_dir, path, b"".join(x + b"\n" for x in kept), derived=True)
    except (HnError, OSError):
        pass


def what_became(repo: Repo, query: str) -> tuple[str, str]:
    """(the ID that replaced the memory ``query`` names, or "" when it was dropped or nothing is
    known, the cause of the last rename: a key of ``CAUSES``, or "drop" for a dropped one);
    ("", "") when no single recorded rename matches."""
    from ..core.grammar import is_digest_id
    from . import private

    q = query[len("sha256:"):] if query.startswith("sha256:") else query
    try:
        data = private.read_private(repo.hn_dir, renames.path(repo), renames.MAX_BYTES) or b""
    except (HnError, OSError):
        return "", ""
    known: dict[str, tuple[str, str]] = {}
    for line in data.decode("ascii", "replace").splitlines():
        a, b, *rest = line.split(" ") + [""]
        cause = rest[0] if rest and rest[0] in CAUSES else ""
        if is_digest_id(a) and (is_digest_id(b) or (b == DROPPED and cause == "drop")):
            known[a] = (b, cause)
    found = {a for a in known if a[len("sha256:"):].startswith(q)}
    if len(found) != 1:
        return "", ""
    (new, cause), seen = known[found.pop()], set()
    while new in known and new not in seen:
        seen.add(new)
        new, cause = known[new]
    return ("", "drop") if new == DROPPED else (new, cause)


def _published_tips(repo: Repo, listing: list) -> dict[str, set[str]]:
    """ref -> tips some remote holds: what publication recorded, and the accepted copies."""
    out: dict[str, set[str]] = {}
    for s in listing:
        if s.remote is not None:
            out.setdefault(f"{LOCAL_PREFIX}{s.actor}/{s.stream[len('sha256:'):]}", set()).add(s.head)
    rows = given(repo)
    if rows is None:  # nothing can say what was published: sign nothing again
        raise LocalStateError("cannot tell which of your memories were published: there is no "
                              "publication journal and the verified state cannot be read; run git hn "
                              "memory index rebuild, then retry")
    for _remote, ref, head in rows:
        out.setdefault(ref, set()).add(head)
    return out


def given(repo: Repo, ref: str | None = None, conn=None, offered: bool = True) -> list[tuple[str, str, str]] | None:
    """(remote, ref, head) of each tip publication gave a remote (of ``ref`` only, when named):
    the publication journal's lines (``store.given``) with the verified state's record (read
    through ``conn`` when one is open), and (``offered``) what a publication that was stopped may
    have given. None when neither can be read: then nothing can say."""
    from . import given as journal
    from .state import given_everywhere

    noted = journal.read(repo)  # (a damaged journal raises: it is never taken for "nothing")
    recorded = None
    try:
        if conn is not None:
            recorded = given_everywhere(conn, ref)
        else:  # the sealed state as it is (its record does not wait for a pending import)
            with statedb.locked(repo, exclusive=False, wait=2.0):
                opened = statedb.open_sealed(repo, readonly=True)
                if opened is not None:
                    try:
                        recorded = given_everywhere(opened, ref)
                    finally:
                        opened.close()
    except (HnError, OSError, statedb.Unwritable, statedb.sqlite3.Error):
        pass
    if recorded is None and noted is None:
        try:  # no sealed state: rebuilt here, its rebuild handing what it recorded to the journal
            with stateview.current(repo) as view:
                recorded = given_everywhere(view.conn, ref)
        except (HnError, OSError, statedb.Unwritable, statedb.sqlite3.Error):
            pass
        noted = journal.read(repo)
    if noted is None and recorded is None:
        return None
    # with what a stopped publication may have given (its push went on without it)
    stopped = journal.offered(repo) if offered else []
    rows = set(recorded or ()) | {r for r in [*(noted or ()), *stopped] if ref is None or r[1] == ref}
    return sorted(rows)


def _chain(repo: Repo, src, listing: list) -> list:
    """The verified memories of ``src``, root first."""
    scope = {(src.actor, src.stream)}
    sources = [s for s in listing if (s.actor, s.stream) in scope]
    try:
        with stateview.current(repo, listing=sources, scope=scope) as view:
            rows = view.conn.execute('SELECT c.id FROM chain c JOIN sources s ON s.sid = c.sid '
                                     "WHERE s.ref = ? ORDER BY c.seq", (src.ref,)).fetchall()
            ids = [r[0] for r in rows]
            mems = view.load(ids)
            return [mems[i] for i in ids]
    except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
        return streams.collect(repo, sources).chains.get(src.ref, [])


def _tail(repo: Repo, src, listing: list, mine: set) -> tuple[list, int]:
    """(the verified memories of ``src`` from the one under its unpublished part, root first;
    where that part starts in them): above the last memory a remote holds as a tip (``mine``).
    Only these are read from Git and checked (a rebase at 100,000 memories checked all 6,250 of
    its stream's): nothing published is signed again, and a rebuild chains onto the one under."""
    scope = {(src.actor, src.stream)}
    try:
        with stateview.current(repo, listing=[s for s in listing if (s.actor, s.stream) in scope], scope=scope) as view:
            for ids, floor in view.above(src.ref, mine):
                mems = view.load(ids)
                return [mems[i] for i in ids], min(floor, 1)
    except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
        pass
    chain = _chain(repo, src, listing)
    floor = max((i + 1 for i, m in enumerate(chain) if m.commit in mine), default=0)
    return chain[max(floor - 1, 0):], min(floor, 1)


def _rebuild(repo: Repo, ident: Identity, sources: list, listing: list, published: dict[str, set[str]],
             mapping: dict[str, str], retest: bool = False, cause: str = "",
             files_only: bool = False, library=None) -> list[Rewritten]:
    tails = []  # (source, chain, floor): the unpublished part of each stream starts at its floor
    for src in sources:
        chain, floor = _tail(repo, src, listing, published.get(src.ref, set()))
        if chain and chain[-1].commit == src.head:  # (else moved since it was listed: a retry sees it)
            tails.append((src, chain, floor))
    staying: dict[str, list] = {}  # ref -> (memory ID, commit it names) of each memory that stays on it
    for _round in range(len(tails) + 1):
        # each stream's part from its last memory cited from outside down stays as it is; what
        # stays is outside in turn, so what it cites stays too, until nothing more does
        pinned = _cited_from_outside(repo, tails)
        if not pinned:
            break
        raised = []
        for src, chain, floor in tails:
            top = max((i + 1 for i in range(floor, len(chain)) if chain[i].memory_id in pinned), default=floor)
            staying.setdefault(src.ref, []).extend((m.memory_id, _named_commit(m, mapping)) for m in chain[floor:top]
                                                   if _names_rewritten(m, mapping))
            raised.append((src, chain, top))
        tails = raised
    kept = [Rewritten(ref, 0, 0, (), tuple(stay)) for ref, stay in sorted(staying.items()) if stay]
    hold = _untested(repo, tails, mapping) if retest else {}
    entries = _entries(repo, tails, mapping)
    stuck = {mid: u for mid, u in _not_files(tails, mapping, entries).items() if mid not in hold}
    nodes = {n: v for n, v in entries.items() if v in ("tree", "commit")}
    if files_only:  # (the author asked: such paths leave the anchor, ``_envelopes`` skips a None)
        stuck, entries = {}, {n: None if n in nodes else v for n, v in entries.items()}
    keep = {**hold, **stuck}  # (each keeps the commits it names)
    plan = _plan(repo, tails, mapping, hold=keep, entries=entries)
    planned = {src.ref for src, _tail, _envs, _previous in plan}
    held = [Rewritten(src.ref, 0, 0, (), untested=stay, unanchored=left) for src, chain, floor in tails
            if src.ref not in planned
            for stay, left in [(tuple(Untested(m.memory_id, *hold[m.memory_id]) for m in chain[floor:] if m.memory_id in hold),
                                tuple(stuck[m.memory_id] for m in chain[floor:] if m.memory_id in stuck))]
            if stay or left]
    if not plan:
        return held + kept
    written, updates, done = [], [], []
    for src, tail, envs, previous in plan:
        objs, signed = _signed(repo, ident, envs, previous, library)
        written += objs
        updates.append(f"update {src.ref} {signed[-1].commit} {src.head}\n")
        renamed = tuple((m.memory_id, new.memory_id) for m, new in zip(tail, signed))
        now = dict(renamed)
        chain = next(chain for s, chain, _floor in tails if s.ref == src.ref)
        untested = tuple(Untested(now.get(m.memory_id, m.memory_id), *hold[m.memory_id]) for m in chain
                         if m.memory_id in hold)
        left = tuple(stuck[m.memory_id]._replace(memory=now.get(m.memory_id, m.memory_id)) for m in chain
                     if m.memory_id in stuck)
        done.append(Rewritten(src.ref, len(envs), sum(_names_rewritten(m, mapping) and m.memory_id not in keep
                                                      for m in tail), renamed, before=src.head, untested=untested,
                              unanchored=left, absent=_emptied(tail, envs, signed),
                              narrowed=_narrowed(tail, envs, signed, nodes)))
    objects.write_objects(repo, written)
    # the renames before the refs move: a read that sees them moved meanwhile knows git-hn did it
    # (``rewound``: no loss is noted); a transaction that fails leaves only a hint naming IDs never used
    remember_renames(repo, [pair for r in done for pair in r.renamed], cause)
    repo.git.forget_early()
    proc = repo.git.run(["update-ref", "-m", "hn: re-anchor unpublished memories", "--stdin"],
                        input="".join(updates).encode("ascii"), env={"HN_HOOK_ACTIVE": "1"})
    if proc.returncode != 0:  # (nothing moved: one transaction)
        import re

        locked = re.search(r"cannot lock ref '(refs/hn/memory/[0-9a-f]+/[0-9a-f]+)'",
                           proc.stderr.decode("utf-8", "replace"))
        if locked and "File exists" in proc.stderr.decode("utf-8", "replace"):
            raise ConflictError(f"memory ref {locked.group(1)} is locked (another Git is updating it, or one "
                                f"that stopped left its .lock file in {repo.common_dir}); nothing was signed again")
        raise ConflictError("a memory stream changed while its memories were re-anchored; nothing was "
                            "signed again")
    return sorted(done, key=lambda r: not r.moved) + held + kept  # (streams that moved first, each in ref order)


def _untested(repo: Repo, tails: list, mapping: dict[str, str]) -> dict[str, tuple]:
    """memory ID -> ``Untested``'s fields but the ID (anchor, pairs, changed, record) of each
    unpublished verification of ``tails`` that names (anchor, ``git:`` evidence) a rewritten
    commit whose replacement has another tree (an amend or a rebase that changed files): signed
    again there, it would claim a test of code no one tested, as ``--same-content`` would for a
    published one (docs/decisions.md, f71 and f85). One whose commits all kept their trees (a
    reword, a message-only amend) is carried. Every rewritten commit it names is kept, those of
    the same tree too (a review: a squash named only the first, and carrying that one left the
    memory on the other, its stream held). The trees come from one batch look-up
    (``same_trees``); a tree Git cannot name counts as changed."""
    found = {}
    for _src, chain, floor in tails:
        for m in chain[floor:]:
            rec = m.envelope.record
            if rec is not None and rec.kind == "verification" and _names_rewritten(m, mapping):
                items = [*(rec.evidence or ()), *(m.envelope.evidence or ())]
                named = [rec.anchor.commit] + [e[4:] for e in items if e.startswith("git:")]
                found[m.memory_id] = (tuple((c, mapping[c]) for c in dict.fromkeys(named) if c in mapping), rec)
    same = same_trees(repo, {pair for pairs, _rec in found.values() for pair in pairs})
    out = {}
    for mid, (pairs, rec) in found.items():
        changed = tuple(old for old, new in pairs if (old, new) not in same)
        if changed:
            out[mid] = (rec.anchor.commit, pairs, changed, rec)
    return out


def same_trees(repo: Repo, pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (old, new) commit pairs whose trees are equal (the batch ``cat-file`` this process
    keeps); none when Git cannot say. What decides whether a rewrite kept what a verification
    tested (``_untested``, and ``service.left_behind`` for a published one)."""
    if not pairs:
        return set()
    order = sorted(pairs)
    try:
        infos = repo.git.object_infos([f"{c}^{{tree}}" for p in order for c in p])
    except (HnError, OSError):
        return set()
    trees = [i[0] if i else None for i in infos]
    return {p for n, p in enumerate(order) if trees[2 * n] is not None and trees[2 * n] == trees[2 * n + 1]}


def _plan(repo: Repo, tails: list, mapping: dict[str, str], renamed: dict[str, str] | None = None,
          first=None, more: int = 0, hold: dict | None = None, entries: dict | None = None) -> list:
    """(source, tail, rebuilt envelopes, parent commit) of each stream to rebuild: from its
    first unpublished memory that names a rewritten commit or cites (target, ``memory:``
    evidence) a memory rebuilt in any stream. Computed again until no ID changes: a memory can
    only cite memories that existed before it, so this ends after at most as many rounds as
    the longest chain of citations. ``renamed`` (filled: old memory ID -> rebuilt ID, across
    streams); ``first(renamed)`` rebuilds, at the start of each round, what else is renamed (a
    rebase's forked tails, which the streams may cite and which may cite them); ``more``: the
    memories it rebuilds. ``hold``: memories that keep the commits they name (``_untested``,
    ``_not_files``), signed again only when a memory before them is. ``entries``: ``_entries``."""
    renamed = {} if renamed is None else renamed
    hold = hold or {}
    for _round in range(sum(len(chain) for _src, chain, _floor in tails) + more + 2):
        before, plan = dict(renamed), []
        if first is not None:
            first(renamed)
        for src, chain, floor in tails:
            start = next((i for i in range(floor, len(chain))
                          if (_names_rewritten(chain[i], mapping) and chain[i].memory_id not in hold)
                          or _cites(chain[i], renamed)), None)
            if start is None:
                continue
            tail = chain[start:]
            envs = _envelopes(repo, tail, mapping, chain[start - 1].memory_id if start else "",
                              renamed=renamed, hold=hold, entries=entries)
            plan.append((src, tail, envs, chain[start - 1].commit if start else ""))
        if renamed == before:
            return plan
    raise LocalStateError("re-anchoring found memories that cite each other in a circle; nothing was signed")


def _cited_from_outside(repo: Repo, tails: list) -> set[str]:
    """The unpublished memories of ``tails`` that a memory outside them cites (its lifecycle
    target, ``memory:`` evidence): a published memory of one's own, another identity's, an
    accepted copy. Signed again, they would leave that memory naming an ID that no longer exists
    (a published retraction can never follow: every clone that imported it failed with
    dependency-missing for good). From the verified state's two indexes, one query each per
    thousand IDs; a full collection when the state cannot answer."""
    from .state import chunks, marks, targeting_sql

    unpublished = {m.memory_id for _src, chain, floor in tails for m in chain[floor:]}
    if not unpublished:
        return set()
    pairs: list[tuple[str, str]] = []  # (citing memory, cited memory)
    try:
        with stateview.current(repo) as view:
            for part in chunks(sorted(unpublished)):
                pairs += view.conn.execute(targeting_sql(len(part), "id, target"), part).fetchall()
                pairs += view.conn.execute(f"SELECT owner, ref FROM evref WHERE type = 'memory' AND ref IN "
                                           f"({marks(len(part))})", part).fetchall()
    except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
        for m in streams.collect(repo).memories:
            env = m.envelope
            items = [*((env.record.evidence if env.record is not None else None) or ()), *(env.evidence or ())]
            pairs += [(m.memory_id, c) for c in [env.target, *(e[7:] for e in items if e.startswith("memory:"))]
                      if c in unpublished]
    return {cited for citing, cited in pairs if citing not in unpublished and cited in unpublished}


def _named_commit(mem, mapping: dict[str, str]) -> str:
    """The rewritten commit ``mem`` names (its anchor, else its first such ``git:`` evidence)."""
    rec = mem.envelope.record
    if rec is not None and rec.anchor.commit in mapping:
        return rec.anchor.commit
    items = [*((rec.evidence if rec is not None else None) or ()), *(mem.envelope.evidence or ())]
    return next(e[4:] for e in items if e.startswith("git:") and e[4:] in mapping)


def _cites(mem, renamed: dict[str, str]) -> bool:
    env = mem.envelope
    if env.target and env.target in renamed:
        return True
    items = [*((env.record.evidence if env.record is not None else None) or ()), *(env.evidence or ())]
    return any(e.startswith("memory:") and e[7:] in renamed for e in items)


def _signed(repo: Repo, ident: Identity, envs: list, parent: str, library=None) -> tuple[list, list]:
    """The objects of ``envs`` signed by ``ident`` as one commit chain on ``parent``, and their
    memories (``VerifiedMemory``: checked and signed here, as an append's are). The commits carry
    ``identity.commit_name``: never a secret-shaped name (the lint's ``library``)."""
    from ..core.chain import VerifiedMemory
    from .identity import commit_name

    written, signed = [], []
    seed, name = ident.seed(), commit_name(ident, library)
    for env in envs:
        envmod.check_envelope(env)
        payload = envmod.encode(env)
        mid = memory_id(payload)
        if keys.holds_seed(payload, seed):  # (as an append refuses it: a memory recorded before that check)
            raise InputError("a memory to sign again holds your git-hn private key; nothing was signed (if "
                             "that memory was ever published, treat the key as exposed)")
        signature = keys.b64_encode(keys.sign(seed, payload))
        commit, objs = objects.memory_commit_objects(
            payload, signature, parent, name, f"{short_id(ident.actor)}@hn.invalid",
            objects.timestamp_seconds(env.timestamp), f"hn memory {mid}", repo.object_format)
        written += objs
        signed.append(VerifiedMemory(mid, commit, env, payload, signature))
        parent = commit
    return written, signed


def _names_rewritten(mem, mapping: dict[str, str]) -> bool:
    env = mem.envelope
    rec = env.record
    gits = [e[4:] for e in (rec.evidence if rec else None) or () if e.startswith("git:")]
    gits += [e[4:] for e in env.evidence or () if e.startswith("git:")]
    return (rec is not None and rec.anchor.commit in mapping) or any(g in mapping for g in gits)


def _envelopes(repo: Repo, tail: list, mapping: dict[str, str], previous: str, sequence: int = 0,
               renamed: dict[str, str] | None = None, hold=(), entries: dict | None = None) -> list:
    """The tail's envelopes with rewritten commits and rebuilt IDs replaced, chained from
    ``previous`` (the IDs are computed as they are built, into ``renamed``, which may hold the
    rebuilt IDs of other streams); numbered from ``sequence`` when given (a rebase), else keeping
    their own. A memory of ``hold`` keeps the commits it names. Anchored paths are read again at
    the new commit (``entries``, else asked here)."""
    blobs = entries if entries is not None else _entries(repo, [(None, tail, 0)], mapping)
    renamed = {} if renamed is None else renamed
    out = []
    for m in tail:
        env = m.envelope
        rec = env.record
        moves = {} if m.memory_id in hold else mapping
        if rec is not None:
            commit = moves.get(rec.anchor.commit, rec.anchor.commit)
            paths = rec.anchor.paths
            if commit != rec.anchor.commit:
                paths = tuple(PathAnchor(p.path, blobs[f"{commit}:{p.path}"]) for p in paths
                              if blobs[f"{commit}:{p.path}"] is not None)  # (None: left out, --files-only)
            rec = rec._replace(anchor=Anchor(commit, paths, rec.anchor.subject),
                               evidence=_evidence(rec.evidence, moves, renamed))
        new = env._replace(previous=previous, record=rec, target=renamed.get(env.target, env.target),
                           evidence=_evidence(env.evidence, moves, renamed))
        if sequence:
            new = new._replace(sequence=sequence + len(out))
        mid = memory_id(envmod.encode(new))
        renamed[m.memory_id] = mid
        previous = mid
        out.append(new)
    return out


def _entries(repo: Repo, tails: list, mapping: dict[str, str]) -> dict[str, str]:
    """``NEW:path`` -> what the new commit has at each path anchored by a memory of ``tails`` on a
    rewritten commit: its blob, ``absent`` (no entry), or the type of an entry that is no file
    ("tree", or "commit" for a submodule), as ``record`` reads it (a symlink is a blob). One batch
    look-up for all; what it does not find (a submodule's commit is "missing" to it, as an absent
    path is) is read from the raw trees (``Resolver.entry``) through the object reader this
    process keeps: no process a commit (a review: one ``ls-tree`` a rewritten commit, 30 for a
    rebase of 30, for paths absent before the rewrite too)."""
    from ..core.projection import ProbeError
    from .resolver import Resolver

    need = sorted({f"{mapping[rec.anchor.commit]}:{p.path}" for _src, chain, floor in tails for m in chain[floor:]
                   for rec in [m.envelope.record] if rec is not None and rec.anchor.commit in mapping
                   for p in rec.anchor.paths})
    out = {n: (i[0] if i[1] == "blob" else i[1]) for n, i in zip(need, repo.git.infos_bulk(need)) if i is not None}
    trees = Resolver(repo, pending=frozenset())  # (the rewritten commits are here: nothing pending)
    for name in (n for n in need if n not in out):
        commit, _, path = name.partition(":")
        try:
            found = trees.entry(commit, path)
        except ProbeError:
            raise LocalStateError(f"git cannot read the tree of commit {commit}; nothing was signed again") from None
        out[name] = "absent" if found is None else found[2] if found[1] == "blob" else found[1]
    return out


def _emptied(tail: list, envs: list, signed: list) -> tuple:
    """``Emptied`` for each anchored path that named a blob at the rewritten commit and is recorded
    ``absent`` at its replacement: a file the rewrite renamed or deleted, which the hook and
    ``reanchor`` warn of (a trial: the hook made a renamed file's path absent without a word, and
    the memory was never stale again). A path absent already is not named again."""
    out = []
    for m, env, new in zip(tail, envs, signed):
        was, now = m.envelope.record, env.record
        if was is not None and now is not None and was.anchor.commit != now.anchor.commit:
            blobs = {p.path: p.blob for p in now.anchor.paths}  # (by path: --files-only leaves some out)
            out += [Emptied(new.memory_id, a.path, was.anchor.commit, now.anchor.commit, tuple(blobs))
                    for a in was.anchor.paths if a.blob != "absent" and blobs.get(a.path) == "absent"]
    return tuple(out)


def _narrowed(tail: list, envs: list, signed: list, nodes: dict[str, str]) -> tuple:
    """``Rewritten.narrowed``: each memory moved with anchored paths left out (``--files-only``),
    and what each of those is at the new commit (``nodes``: ``NEW:path`` -> "tree" or "commit")."""
    out = []
    for m, env, new in zip(tail, envs, signed):
        was, now = m.envelope.record, env.record
        if was is not None and now is not None and len(now.anchor.paths) < len(was.anchor.paths):
            kept = {p.path for p in now.anchor.paths}
            out.append((new.memory_id, tuple((p.path, nodes.get(f"{now.anchor.commit}:{p.path}", "tree"))
                                             for p in was.anchor.paths if p.path not in kept)))
    return tuple(out)


def _not_files(tails: list, mapping: dict[str, str], entries: dict[str, str]) -> dict[str, Unanchored]:
    """memory ID -> ``Unanchored`` for each memory of ``tails`` anchored on a rewritten commit whose
    anchored path is a directory or a submodule at the new one. Signed there, its anchor would be
    invalid (CONTRACT §5.5 step 2) and it would drop out of recall and the brief without a word;
    ``record`` refuses such a path ("anchor path P is not a blob at commit C"). So it keeps its
    commit, as a verification on a changed tree does (docs/decisions.md)."""
    out = {}
    for _src, chain, floor in tails:
        for m in chain[floor:]:
            rec = m.envelope.record
            if rec is None or rec.anchor.commit not in mapping:
                continue
            new = mapping[rec.anchor.commit]
            node = next(((p.path, entries[f"{new}:{p.path}"]) for p in rec.anchor.paths
                         if entries[f"{new}:{p.path}"] in ("tree", "commit")), None)
            if node is not None:
                out[m.memory_id] = Unanchored(m.memory_id, rec.anchor.commit, new, *node)
    if out:  # (cited by one that stays: ``--drop`` refuses, its line must not offer it; a review)
        cited = {c for _src, chain, floor in tails for m in chain[floor:] if m.memory_id not in out
                 for c in out if _cites(m, {c: ""})}
        out = {mid: u._replace(cited=mid in cited) for mid, u in out.items()}
    return out


def _evidence(items, mapping: dict[str, str], renamed: dict[str, str]):
    if not items:
        return items
    out = []
    for e in items:
        if e.startswith("git:") and e[4:] in mapping:
            e = "git:" + mapping[e[4:]]
        elif e.startswith("memory:") and e[7:] in renamed:
            e = "memory:" + renamed[e[7:]]
        if e not in out:  # two rewritten commits can become one (a squash)
            out.append(e)
    return tuple(out)
