"""``git hn memory recall`` and ``git hn policy show`` (CONTRACT §6.6, §7, §11(d)).

Recall is served from the verified state: the request's context-free filters (kind, actor,
lifecycle, topics, subject, path, query terms) run in SQLite, the context-dependent classes are
decided once per group of rows sharing an anchor and evidence key (``service.rows``), and only the
page is projected, from its closure, with payloads read from Git and re-checked. ``recall_full``
answers from a full projection of verified streams; a test compares the two after every kind of
change. Recall never fetches, runs commands or updates refs; it writes only the private state.
"""

from __future__ import annotations

from ..core import recall as core
from ..core.grammar import is_oid
from ..core.projection import Context, project, row_index_json
from ..errors import InputError
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy


def resolve_input_commit(repo: Repo, at: str) -> str:
    """``atCommit`` of a machine request must be a full OID that resolves to itself as a commit."""
    if not is_oid(at) or len(at) != repo.oid_hex_len:
        raise InputError("recall input field atCommit must be an exact full commit ID")
    info = repo.git.object_info(at)
    if info is None or info[1] != "commit":
        raise InputError("recall input field atCommit is unavailable")
    return at


def projected_rows(repo: Repo, at: str, subject: str, path: str, sources=None):
    """(rows in index form, policy, sources, the collection) for one query context (CONTRACT
    §7.6 steps 1–2)."""
    if sources is None:
        sources = streams.list_sources(repo)
    collection = streams.collect(repo, sources)
    resolver = Resolver(repo)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    policy = load_policy(repo, resolver, at)
    ctx = Context(at, subject, path, policy.memory, policy.digest)
    proj = project(list(collection.memories), ctx, resolver)
    return [row_index_json(r) for r in proj.rows.values()], policy, sources, collection


def recall(repo: Repo, req: core.RecallRequest, *, from_input: bool = False) -> dict:
    """CONTRACT §7.6, served from the verified state (§11(d))."""
    return recall_counted(repo, req, from_input=from_input)[0]


def recall_counted(repo: Repo, req: core.RecallRequest, *, from_input: bool = False,
                   stopped: list | None = None) -> tuple[dict, dict[str, int]]:
    """``recall``, and how many memories the default trust filter hid, by trust class (the
    CLI's hint, issue 13): those the same request with ``--include-untrusted`` adds. ``stopped``
    gets the bounds a truncated page stopped at (``core.fill``'s ``why``)."""
    from ..store import stateview

    req, at, terms = _prepare(repo, req, from_input)
    listing = streams.list_sources(repo)
    made: dict = {}
    answer = _explained(repo, req, made, lambda: stateview.serve(
        repo, lambda view: _recall_view(repo, view, req, at, terms, made),
        lambda: _recall_full(repo, req, at, terms, listing, made), listing))
    if stopped is not None:
        stopped.extend(made.get("stopped") or ())
    return answer


def _explained(repo: Repo, req: core.RecallRequest, made: dict, answer):
    """``answer()``, with a first page's query noted in the cursor log (``store.cursorlog``) and
    a cursor that does not match explained from it: which part changed, and what to do.
    ``made`` is filled by the answer with what its query digest was made of (§7.5)."""
    from ..store import cursorlog

    try:
        doc, hidden = answer()
    except core.CursorMismatch as exc:
        then = cursorlog.find(repo, exc.digest)
        request = core.digest_request(req)
        moved = then is not None and core.source_fingerprint(then["policyDigest"], made["listing"]) != \
            then["sourceFingerprint"]
        raise InputError(f"{core.CURSOR_MISMATCH}; "
                         f"{core.mismatch(None if then is None else then['request'], request, moved)}") from None
    if "nextCursor" in doc and not req.cursor:
        cursorlog.note(repo, doc["queryDigest"], core.digest_request(req), made["fingerprint"],
                       made["policy"])
    return doc, hidden


def _hides_untrusted(req: core.RecallRequest) -> bool:
    return req.trust == ("qualified",) and not req.include_untrusted


class Hidden(dict):
    """trust class -> the memories the default trust filter hid (issue 13); ``elsewhere``: those
    that match every filter but do not apply at the query commit (their anchor commit is not in
    its history: a team trial's squash merge emptied recall on main without a word) and are
    anchored on a commit no branch, tag or remote-tracking ref holds any more (a memory of an
    open branch is not said while others matched: a review), and of
    them the first (smallest ID) the active identity signed (``mine``) and (ID, kind) of the
    first someone else signed (``theirs``): the hint's commands differ (only an author may
    supersede). ``on_ref``: (a ref's short name, how many, spread): of ``elsewhere``, those whose
    anchor a branch, tag or remote-tracking ref still holds (said only when nothing else matched),
    one such ref (an agent trial: told "a squash merge or a rebase? … supersede --at HEAD" of a
    decision on an open branch, an agent would have copied it onto main), and whether they are
    all on one ``"commit"``, all in that ``"ref"``'s history, or not (``"refs"``; f175:
    ``hints.not_applying`` names one plainly). ``exact``: (an anchor
    commit, how many) of those recorded ``--applies exact`` on a commit a ref holds; ``subject``:
    (a subject, how many) of those recorded ``--applies subject`` (the query has no subject); both
    said only when nothing else matched, each with the recall that lists them. ``kept``: (a keep
    branch's short name, how many) of ``elsewhere`` whose anchor only git-hn's keep branches hold
    (``held.off_branches``), so the hint does not say no ref holds it (a review). ``settled``: (ID,
    lifecycle) of one of ``elsewhere``, when none of them is active (``_name_away``). ``authors``:
    actor -> how many of the hidden are ``actor-untrusted`` memories it signed (the hint names
    those no longer trusted, ``service.revoked``); ``names``: actor -> signed name of each of
    them, when they are ``NAMED_AUTHORS`` or fewer (``_name_authors``), else None. ``unmerged``
    (f163): when others matched, (the commit with the most, how many on it, how many in all) of
    the ``--applies descendants`` memories left out only because a ref holds their anchor outside
    the query commit's history (work not merged here; a newcomer trial took their absence after a
    sync for a failed import), from the walk ``elsewhere`` runs anyway: no ref is named (that is a
    ``name-rev`` more)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.authors: dict[str, int] = {}

    def note(self, trust: str, actor: str, n: int = 1) -> None:
        """``n`` memories of ``actor`` hidden as ``trust``."""
        self[trust] = self.get(trust, 0) + n
        if trust == "actor-untrusted":
            self.authors[actor] = self.authors.get(actor, 0) + n

    names: dict[str, str] | None = None
    elsewhere = 0
    mine = ""
    theirs = ("", "")
    on_ref = ("", 0)
    exact = ("", 0)
    subject = ("", 0)
    kept = ("", 0)
    settled = ("", "")
    unmerged = ("", 0, 0)


def _recall_view(repo: Repo, view, req: core.RecallRequest, at: str, terms, made: dict):
    from . import rows as select

    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, at)
    listing = [(s.ref, s.head) for s in view.listing]
    fingerprint = core.source_fingerprint(policy.digest, listing)
    made.update(listing=listing, fingerprint=fingerprint, policy=policy.digest)
    digest = core.query_digest(req, fingerprint, policy.digest)
    ctx = Context(at, req.subject, req.path, policy.memory, policy.digest)
    where, args = _where(view, req, terms, grouping=True)
    groups = select.groups(view, where, args, by_index=terms is None)
    where, args = _where(view, req, terms, grouping=False)
    classes = select.Classes(ctx, resolver)
    classes.prefetch(groups)
    keep, matched, biggest, hidden = set(), 0, 0, Hidden()
    counting = _hides_untrusted(req)
    away: dict = {}  # group key -> (anchor commit, memories, mode, applicability subject)
    for g in groups:
        if not classes.candidate(g):
            if classes.applicability(g) == "inapplicable" and (not req.trust or classes.trust(g) in req.trust):
                away[g.key] = (g.anchor, g.count, g.mode, g.app_subject)
            continue
        if req.trust and classes.trust(g) not in req.trust:
            if counting:
                hidden.note(classes.trust(g), g.actor, g.count)
            continue
        keep.add(g.key)
        matched += g.count
        biggest = max(biggest, g.biggest)
    _name_authors(view, hidden)
    # of ``away``, where a ref still holds the anchor: by mode, anchor (or subject) -> memories
    held: dict = {"descendants": {}, "exact": {}, "subject": {}}
    if away:  # (when others matched, only those no ref holds any more: ``brief.left_behind_count``)
        from .held import off_branches  # (git-hn's hn-anchor/* keep branches hold nothing open)

        # (with nothing else matched, the hint may say no ref holds them: then the same walk names a
        # keep branch that alone holds one, a ``git log`` of ~8 ms more than the ``rev-list`` at
        # 20,000 memory refs, so only then)
        kept: dict | None = {} if not matched else None
        gone = off_branches(repo, {anchor for anchor, *_rest in away.values()}, kept)
        for anchor, n, mode, subject in away.values():
            if mode == "subject" and subject:  # (inapplicable for want of the subject, wherever anchored)
                held["subject"][subject] = held["subject"].get(subject, 0) + n
            elif anchor not in gone:
                part = held["exact" if mode == "exact" else "descendants"]
                part[anchor] = part.get(anchor, 0) + n
        away = {k: v for k, v in away.items() if v[0] in gone and not (v[2] == "subject" and v[3])}
        on_keeps = [(kept[v[0]], v[1]) for v in away.values() if v[0] in (kept or {})]
        if on_keeps:
            hidden.kept = (min(on_keeps)[0], sum(n for _name, n in on_keeps))
    if not matched:  # (nothing else matched: the reader asked, and is told where they apply)
        _name_held(repo, held, hidden)
    elif held["descendants"]:  # (others matched: counted, and named by a commit, with no process more)
        part = held["descendants"]
        anchor = min(part, key=lambda key: (-part[key], key))
        hidden.unmerged = (anchor, part[anchor], sum(part.values()))
    hidden.elsewhere = sum(v[1] for v in away.values()) + hidden.on_ref[1] + hidden.exact[1] + hidden.subject[1]
    if away:
        _name_away(repo, view, where, args, set(away), hidden)
    if req.rank:  # git-hn: the relevance order (core.search)
        why = made["stopped"] = []  # (the bounds the page stopped at: the terminal's line, f162)
        return (_ranked_view(view, req, ctx, resolver, where, args, keep, terms, digest, matched, biggest, why),
                hidden)
    if biggest > req.max_content_bytes:  # the first such row in order names the error (§7.6)
        first = select.ordered(view, where + ["r.size > ?"], args + [req.max_content_bytes], keep,
                               "r.id", limit=1)[0]
        raise core.too_large(first[0], biggest)
    after = None
    if req.cursor:
        last = core.decode_cursor(req.cursor, digest)
        found = select.ordered(view, where + ["r.id = ?"], args + [last], keep,
                               "r.lrank, r.ts, r.id", limit=1)
        row = found[0] if found else None
        if row is None:
            raise core.cursor_gone()
        after = tuple(row)
    why = made["stopped"] = []  # (the bounds the page stopped at: the terminal's line, f162)
    page, more = core.fill(req, select.ordered(view, where, args, keep, after=after) if matched else (), why)
    proj, _mems = view.project(page, ctx, resolver)
    out = [row_index_json(proj.rows[i]) for i in page]
    if not all(core.matches(r, req, terms) for r in out):
        from ..store.stateview import Corrupt

        raise Corrupt("a row's columns disagree with its projection")
    return core.document(digest, matched, out, more, req.max_bytes, bool(req.cursor), why), hidden


NAMED_AUTHORS = 2  # the trust hint names this many hidden authors at most (one line, bounded)


def _name_authors(view, hidden: Hidden) -> None:
    """``hidden.names`` of its one or two authors (``hints.named_authors``): the signed name of
    each one's newest memory in the state, read (and its signature checked) through the batch
    process the recall reads with anyway, so no Git process more."""
    if 0 < len(hidden.authors) <= NAMED_AUTHORS:
        hidden.names = _view_names(view, hidden.authors)


def _view_names(view, authors) -> dict[str, str] | None:
    """actor -> the signed name of its newest memory in the state, for each of ``authors``;
    None when one has none there."""
    ids = [row[0] for actor in authors for row in view.conn.execute(
        "SELECT id FROM memories WHERE actor = ? ORDER BY ts DESC, id LIMIT 1", (actor,))]
    names = {m.envelope.actor: m.envelope.actor_name for m in view.load(ids).values()}
    return names if names.keys() == set(authors) else None


def _newest_names(memories, authors) -> dict[str, str] | None:
    """``_view_names`` from a full collection's ``memories``."""
    mine = {a: sorted((m for m in memories if m.envelope.actor == a), key=lambda m: m.memory_id) for a in authors}
    names = {a: max(ms, key=lambda m: m.envelope.timestamp).envelope.actor_name for a, ms in mine.items() if ms}
    return names if names.keys() == set(authors) else None


def author_names(repo: Repo, authors) -> dict[str, str] | None:
    """The names the trust hint gives ``authors`` (actors whose memories the brief or the digest
    left out as ``actor-untrusted``), as recall names its own (``_name_authors``): None unless
    they are ``NAMED_AUTHORS`` or fewer (a trial: the brief's hint said ``git hn policy trust
    ACTOR`` while recall's named who and which ID)."""
    from ..store import stateview

    if not 0 < len(authors) <= NAMED_AUTHORS:
        return None
    return stateview.serve(repo, lambda view: _view_names(view, authors),
                           lambda: _newest_names(streams.collect(repo).memories, authors))


def _name_held(repo: Repo, held: dict, hidden: Hidden) -> None:
    """``hidden.on_ref``, ``exact`` and ``subject`` from ``held`` (mode -> anchor or subject ->
    memories): for each mode, the one with the most memories (then the smallest), and how many
    there are of that mode; a ref is asked for only for the descendants ones (one
    ``for-each-ref``). When no ref holds that anchor, a detached HEAD does (``gate.discarded``
    found it held): it is named ``HEAD``, else by its commit (a review: the memories were dropped
    from the count, and a recall on a detached HEAD's parent said nothing)."""
    def most(part: dict) -> str:
        return min(part, key=lambda key: (-part[key], key))

    if held["descendants"]:
        from .held import holding_ref, holds_all

        part = held["descendants"]
        anchor = most(part)
        ref = holding_ref(repo, anchor, held=True) or _held_by_head(repo, anchor)  # (``gate.discarded`` said so)
        # (all on one commit, or all in that ref's history, is said plainly: f175; a ``rev-list``
        # more only for several commits)
        spread = "commit" if len(part) == 1 else "ref" if holds_all(repo, ref, part) else "refs"
        hidden.on_ref = (ref, sum(part.values()), spread)
    if held["exact"]:
        hidden.exact = (most(held["exact"]), sum(held["exact"].values()))
    if held["subject"]:
        hidden.subject = (most(held["subject"]), sum(held["subject"].values()))


def _held_by_head(repo: Repo, anchor: str) -> str:
    """``HEAD`` when HEAD's history holds ``anchor`` (one ``merge-base --is-ancestor``), else the
    anchor's 12 first hex digits: a place to recall at for a held anchor no ref holds."""
    held = repo.git.run(["merge-base", "--is-ancestor", "--end-of-options", anchor, "HEAD"]).returncode == 0
    return "HEAD" if held else anchor[:12]


def _name_away(repo: Repo, view, where: list[str], args: list, away: set, hidden: Hidden) -> None:
    """``hidden.mine`` and ``hidden.theirs`` from the groups ``away`` (the inapplicable ones):
    one small query each (the first row by ID, an active one first), only when there are such
    groups. A superseded or retracted memory is never named there (``--lifecycle all``: a trial
    was offered to cite a memory already superseded; its successor is not in the row, and looking
    it up would be one query per row): when neither side has an active one, ``hidden.settled``
    names one, which the hint sends to ``show`` (it names the latest successor)."""
    from ..store.identity import active_actor
    from . import rows as select

    me = active_actor(repo)
    mine, settled = {k for k in away if k[2] == me}, []
    for keys, own in ((mine, True), (away - mine, False)):
        if not keys:
            continue
        keys = set(sorted(keys, key=repr)[:select.VALUES_UP_TO])  # (a row-value list: no function registered)
        sql, sql_args = away_sql(view, where, args, keys)
        row = view.conn.execute(sql, sql_args).fetchone()
        if row and row[2] != "active":
            settled.append((row[0], row[2]))
        elif row and own:
            hidden.mine = row[0]
        elif row:
            hidden.theirs = (row[0], row[1])
    if settled and not hidden.mine and not hidden.theirs[0]:
        hidden.settled = settled[0]


def away_sql(view, where: list[str], args: list, keys: set) -> tuple[str, list]:
    """The first row (lifecycle rank, then ID) passing ``where`` of the groups ``keys``. Their
    anchor keys and every lifecycle are named too, so SQLite reads only those groups' rows from
    the grouping index (named: with a kind filter SQLite chose every row of the kind): with the
    row-value list alone it scanned every row (0.3 s at 100,000 memories, for a hint about four)."""
    from ..core.limits import LIFECYCLES
    from . import rows as select

    clause, clause_args = select.keep_clause(view, keys)
    akeys = sorted({key[0] for key in keys})
    seek = [f"r.lifecycle IN ({','.join('?' * len(LIFECYCLES))})", f"r.akey IN ({','.join('?' * len(akeys))})"]
    return (f"SELECT r.id, r.kind, r.lifecycle FROM rows r INDEXED BY rows_groups JOIN akeys a ON a.akey = r.akey "
            f"WHERE {' AND '.join(seek + list(where) + [clause])} "
            "ORDER BY r.lrank, r.id LIMIT 1", [*LIFECYCLES, *akeys, *args, *clause_args])


def _ranked_view(view, req: core.RecallRequest, ctx, resolver, where, args, keep, query, digest: str,
                 matched: int, biggest: int, why: list) -> dict:
    """§7.6 steps 5–9 in relevance order (git-hn, ``core.search``): the kept rows are scored
    from the state's token sequences and corpus statistics, and only the best a page needs are
    read (``rows.Ranked``), then paged as in ``core.page``. Each served row must match the query
    when read from Git, with the token count and leaf frequencies the state scored it by;
    otherwise the state is corrupt and is not used."""
    from ..core import search
    from ..store.stateview import Corrupt
    from . import rows as select

    ranking = select.Ranked(view, where, args, keep, query) if matched else None

    def read(limit: int, **kw) -> list:
        got = ranking.rows(limit, **kw) if ranking else []
        if got and got[0][2] is None:  # (sorted first: a kept row without its token sequence)
            raise Corrupt("ranked rows disagree with their groups")
        return got

    if biggest > req.max_content_bytes:  # the first such row in order names the error (§7.6)
        first = read(1, over=req.max_content_bytes)
        if not first or first[0][1] <= req.max_content_bytes:
            raise Corrupt("ranked rows disagree with their groups")
        raise core.too_large(first[0][0], biggest)
    after = None
    if req.cursor:
        last = core.decode_cursor(req.cursor, digest)
        found = read(1, also=(["r.id = ?"], [last]))
        if not found:
            raise core.cursor_gone()
        rid, _size, _length, _freqs, score, lrank, ts = found[0]
        after = (score, lrank, ts, rid)
    # (one row more than a page: ``fill`` reads no further, and tells from it that rows remain)
    page, more = core.fill(req, ((item, item[1]) for item in read(req.max_records + 1, after=after)), why)
    proj, _mems = view.project([item[0] for item in page], ctx, resolver)
    leaves, out = query.leaves(), []
    for rid, _size, length, freqs, *_rest in page:
        row = row_index_json(proj.rows[rid])
        wrapped = core.row_sequence(row)
        if not core.matches(row, req, query, wrapped) or search.length(wrapped) != length \
                or search.frequencies(leaves, wrapped) != tuple(freqs):
            raise Corrupt("a row's columns disagree with its projection")
        out.append(row)
    return core.document(digest, matched, out, more, req.max_bytes, bool(req.cursor), why)


def _where(view, req: core.RecallRequest, terms, grouping: bool, kind_index: bool = True) -> tuple[list[str], list]:
    """The request's context-free filters as SQL over ``rows r JOIN akeys a``.

    How the lifecycle test is written decides the plan: counting without query terms reads the
    grouping index alone (``r.lifecycle``); with terms every row's tokens are read, and the
    page is read in §7.7 order from the order index, so there the test must not pick an index
    (``+r.lifecycle``), which would then be read row by row or sorted. With topics, the rows of
    the first are sought by ID (``topics``), and neither the lifecycle nor the kind picks one.
    Without ``kind_index`` (``memory log``, in its own order) the kind never picks one either: the
    newest rows are read from the log's order index until the page is full (S102 #4: every
    decision was read and sorted for 5 of them)."""
    from . import rows as select

    where, args = [], []
    lifecycle = "r.lifecycle" if grouping and not terms and not req.topic else "+r.lifecycle"
    kind = "+r.kind" if req.path or req.topic or not kind_index else "r.kind"  # (not every row of the kind)
    for column, values in ((kind, req.kind), ("r.actor", req.actor), (lifecycle, req.lifecycle)):
        if values:
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    if req.topic:  # (the rows of the first topic sought in ``topics``, S102 #3: not every row read)
        where.append("r.id IN (SELECT id FROM topics WHERE topic = ?)")
        args.append(req.topic[0])
    for topic in req.topic:
        where.append("instr(r.topics, ?) > 0")
        args.append(f"\n{topic}\n")
    if req.subject:
        where.append("(a.anchor_subject = ? OR a.app_subject = ?)")
        args += [req.subject, req.subject]
    if req.path:
        where.append(path_clause())
        args += path_args(req.path)
    more, more_args = select.query_clauses(view, terms)
    return where + more, args + more_args


def path_clause() -> str:
    """SQL keeping the rows anchored to a path (``path_args``): read through the grouping index
    from the anchor keys that name it, not by reading every row's ``pathset`` (0.4 s at 100,000
    memories for a path none is anchored to, S102 #2). A row's ``pathset`` lists exactly the
    paths of its anchor key's ``paths`` (a ``path<TAB>blob`` line each), and a path holds no
    control character, so both tests keep the same rows; every lifecycle is named so that SQLite
    can seek by anchor key."""
    from ..core.limits import LIFECYCLES

    return (f"r.lifecycle IN ({','.join('?' * len(LIFECYCLES))}) AND "
            "r.akey IN (SELECT akey FROM akeys WHERE instr(char(10) || paths, ?) > 0)")


def path_args(path: str) -> list:
    from ..core.limits import LIFECYCLES

    return [*LIFECYCLES, f"\n{path}\t"]


def recall_full(repo: Repo, req: core.RecallRequest, *, from_input: bool = False) -> dict:
    """The same answer from a full projection of verified streams (the reference; tests)."""
    req, at, terms = _prepare(repo, req, from_input)
    made: dict = {}
    return _explained(repo, req, made, lambda: _recall_full(repo, req, at, terms, made=made))[0]


def _recall_full(repo: Repo, req: core.RecallRequest, at: str, terms, sources=None, made: dict | None = None):
    rows, policy, sources, collection = projected_rows(repo, at, req.subject, req.path, sources)
    kept, hidden = [], Hidden()
    loose = req._replace(trust=()) if _hides_untrusted(req) else req
    for r in rows:
        if core.matches(r, loose, terms):
            if r["trust"] in req.trust or not req.trust:
                kept.append(r)
            else:
                hidden.note(r["trust"], r["actor"])
    if 0 < len(hidden.authors) <= NAMED_AUTHORS:  # (as ``_name_authors`` picks them from the state)
        hidden.names = _newest_names(collection.memories, hidden.authors)
    listing = [(s.ref, s.head) for s in sources]
    fingerprint = core.source_fingerprint(policy.digest, listing)
    if made is not None:
        made.update(listing=listing, fingerprint=fingerprint, policy=policy.digest)
    scores = core.relevance(kept, [core.row_sequence(r) for r in rows], terms) if req.rank else None
    why = None
    if made is not None:
        why = made["stopped"] = []  # (a state served before, then given up, left its own)
    return core.page(req, kept, core.query_digest(req, fingerprint, policy.digest), scores, why), hidden


def _prepare(repo: Repo, req: core.RecallRequest, from_input: bool):
    if from_input:
        at = resolve_input_commit(repo, req.at_commit)
    else:
        at = repo.resolve_commit(req.at_commit or "HEAD")
    try:
        req = core.normalize(req._replace(at_commit=at))
    except InputError as exc:
        from ..core.hints import both
        from .names import ACTOR_FILTER, explain_actor_filter

        if exc.message != ACTOR_FILTER:
            raise
        raise InputError(*both(explain_actor_filter, repo, req.actor)) from None
    return req, at, core.parse_query(req.query)


def policy_show(repo: Repo, rev: str, maintainers: list | None = None) -> dict:
    """CONTRACT §6.6's document; ``maintainers`` (when given) gets the policy's, which the
    document does not carry (for ``policy show``'s hint)."""
    try:
        commit = repo.resolve_commit(rev)
    except InputError as exc:  # (HEAD's own way out, for an unborn one, is already said)
        raise exc if rev == "HEAD" else InputError(f"{exc.message}; {_rev_way_out(repo, rev)}") from None
    policy = load_policy(repo, Resolver(repo), commit)
    if maintainers is not None:
        maintainers.extend(policy.maintainers)
    doc = {"version": 0, "commit": commit, "policyDigest": policy.digest}
    if policy.memory is not None:
        doc["memory"] = {"trustedActors": list(policy.memory.trusted_actors),
                         "trustedKinds": list(policy.memory.trusted_kinds)}
    return doc


def _rev_way_out(repo: Repo, rev: str) -> str:
    """What ``policy show``'s REV takes, after §10.0's ``revision <REV> is not a commit`` (a
    newcomer trial: ``policy show nosuchbranch`` said no more); with the remote-tracking branches
    named ``<remote>/<rev>``, which ``rev-parse`` does not try (a branch not checked out here).
    One ``for-each-ref``, on the error path only."""
    from ..core.gostr import quoted

    base = "refs/remotes/"
    proc = repo.git.run(["for-each-ref", "--format=%(refname)", f"{base}*/{rev}"])
    refs = proc.stdout.decode("utf-8", "replace").splitlines() if proc.returncode == 0 else []
    # (the pattern's ``*`` is one remote's name; ``rev``'s own glob characters match no ref name)
    names = [r[len(base):] for r in refs if r.endswith("/" + rev) and "/" not in r[len(base):-len(rev) - 1]]
    if not names:
        return "REV is a branch, tag or commit, e.g. git hn policy show origin/main"
    shown = " or ".join(quoted(n) for n in names[:3])
    return (f"REV is a branch, tag or commit, e.g. git hn policy show {shown} (the remote-tracking branch"
            f"{'es' if len(names) > 1 else ''} of that name)")


def policy_lines(doc: dict, names: dict[str, str] | None = None, width: int | None = None, cells=len) -> list[str]:
    """The contract's lines (§6.6); with ``names`` (a terminal's), each trusted actor known here
    is followed by its signed name, as inert text. With ``width`` (the terminal's columns, which
    ``cells`` measures) too narrow for one of those lines (``trustedActor: <64 hex>  Name`` is
    more than 80), each named actor is shown name first, with its short ID (``Bob
    (8a3f0c1d2e4b)``, as ``show`` names an author): wrapped by the terminal, the name alone on the
    next line read as another entry (a trial). An actor without a name keeps its full ID (78
    columns); piped output never gets names (§6.6's lines, byte for byte)."""
    lines = [f"Policy commit: {doc['commit']}", f"Policy digest: {doc['policyDigest']}"]
    mem = doc.get("memory")
    if mem is None:
        return lines + ["Memory policy: absent"]
    lines.append("Memory policy: present")
    from ..core.gostr import one_line

    if names:
        from ..core.hints import named_actor
        from ..core.log import inert

        shown = {a: inert(names[a]).strip() for a in mem["trustedActors"] if names.get(a)}
        full = {a: f"trustedActor: {one_line(a)}  {name}" for a, name in shown.items()}
        if width is not None and any(cells(line) > width for line in full.values()):
            full = {a: f"trustedActor: {named_actor(a, names[a])}" for a in shown}  # (the ID first)
        lines += [full.get(a) or f"trustedActor: {one_line(a)}" for a in mem["trustedActors"]]
    else:
        lines += [f"trustedActor: {one_line(a)}" for a in mem["trustedActors"]]
    lines += [f"trustedKind: {k}" for k in mem["trustedKinds"]]
    return lines


def directory_hint(repo: Repo, at: str, path: str, option: str = "--path", mcp: bool = False,
                   resolver: Resolver | None = None) -> str | None:
    """After a recall by ``path`` that matched nothing: when ``path`` is a directory at the query
    commit ``at`` (a revision), one line saying that ``option`` takes a file (paths are literal,
    CONTRACT §7.6: a trial's ``--path src`` matched nothing beside memories on src/parser.py) and
    naming a file in it; None otherwise. One tree walk, through the batch process. The file is
    shell-quoted for a command line; for an MCP client (``mcp``) it is a JSON string (a review:
    an agent copied the shell's quotes into its JSON). ``resolver``: one the caller looks the path
    up with again (``advice.path_hint``: the rename hint), so that a large directory is read once."""
    import json
    from shlex import quote

    from ..core.gostr import echoed, one_line
    from ..core.grammar import is_path
    from ..core.limits import LIMITS
    from ..core.projection import ProbeError
    from ..errors import HnError

    if not path or not is_path(path, LIMITS.max_path):
        return None
    try:
        commit = repo.resolve_commit(at)
        found = (resolver or Resolver(repo)).entry(commit, path)
    except (HnError, ProbeError):
        return None
    if found is None or found[1] != "tree":
        return None
    example = _first_file(repo, found[2], path)
    shown = json.dumps(one_line(example), ensure_ascii=False) if mcp else echoed(quote(example))
    such = f", such as {option} {shown}" if example and is_path(example, LIMITS.max_path) else ""
    return (f"nothing is anchored to {echoed(path)}: it is a directory at commit {commit[:12]}, and {option} "
            f"takes a file, compared literally; recall a file in it{such}")


def _first_file(repo: Repo, tree: str, path: str, depth: int = 8) -> str:
    """The first regular file (tree order) under the tree ``tree`` at ``path``, looking at most
    ``depth`` directories down the first subdirectory; "" when there is none."""
    from ..core.chain import parse_tree

    for _level in range(depth):
        obj = repo.git.read_object(tree)
        if obj is None or obj[0] != "tree":
            return ""
        try:
            entries = parse_tree(obj[1], repo.oid_hex_len // 2)
        except ValueError:
            return ""
        blob = next((e for e in entries if e[0] in (b"100644", b"100755")), None)
        if blob is not None:
            return f"{path}/{blob[1].decode('utf-8', 'surrogateescape')}"
        sub = next((e for e in entries if e[0] == b"40000"), None)
        if sub is None:
            return ""
        path, tree = f"{path}/{sub[1].decode('utf-8', 'surrogateescape')}", sub[2]
    return ""
