"""Index rebuild, verify, refresh, and recall served from the index (CONTRACT §8, §11(d)).

The persisted ``index-v0.json`` is always exactly what a full rebuild at the ``HEAD`` context
writes, in upstream's schema. Recall does not parse it: it is served from the derived database
built in the same rebuild and sealed to it, with every context-dependent field (applicability,
``git:``/``event:`` evidence, trust) recomputed for the query context, and every returned row
verified against Git before output. Any doubt about the index or the database is answered by a
rebuild from verified streams, never by using them.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3

from ..core import canonical
from ..core import index as core_index
from ..core import recall as core_recall
from ..core.chain import VerifiedMemory
from ..core.chain import parse_commit as chain_parse_commit
from ..core.projection import (LIFECYCLE_RANK, Context, ProbeError, _Ancestry, applicability,
                               dependency, evidence, normalized_record_json, project,
                               row_index_json, sort_row_dependencies, trust)
from ..errors import HnError, ValidationError
from ..store import index as store_index
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy

STORED_DEP_KINDS = ("lifecycle-target", "evidence-memory")
DB_FORK_MIN = 20_000  # below this, forking to build the database in parallel does not pay


class Built:
    def __init__(self, fingerprint: str, count: int):
        self.fingerprint, self.count = fingerprint, count


def head_context(repo: Repo, resolver: Resolver):
    head = repo.head_commit()
    policy = load_policy(repo, resolver, head)
    return head, policy


def derive(repo: Repo, sources=None):
    """Full re-derivation at the HEAD context: (index document, collection, policy digest)."""
    if sources is None:
        sources = streams.list_sources(repo)
    collection = streams.collect(repo, sources)
    resolver = Resolver(repo)
    head, policy = head_context(repo, resolver)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    proj = project(list(collection.memories), Context(head, "", "", policy.memory, policy.digest),
                   resolver)
    rows = [row_index_json(r) for r in proj.rows.values()]
    fingerprint = core_recall.source_fingerprint(policy.digest, [(s.ref, s.head) for s in sources])
    return core_index.build(fingerprint, rows), collection, policy.digest


def rebuild(repo: Repo) -> Built:
    """CONTRACT §8.4: repair the location, derive, write the index, then the sealed database.

    The cyclic garbage collector is paused meanwhile: a rebuild allocates hundreds of thousands
    of small acyclic objects, and repeated full collections over them cost ~15% at 100k.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return _rebuild(repo)
    finally:
        if enabled:
            gc.enable()


def _rebuild(repo: Repo) -> Built:
    store_index.repair_location(repo)
    doc, collection, policy_digest = derive(repo)
    # The database is built by a forked child while this process encodes and writes the index
    # (two cores, two independent halves); the child receives the index seal and record
    # locations at the end and installs the database only if the index was written.
    writer = _DbWriter(repo, doc, collection, policy_digest)
    try:
        data = core_index.encode(doc)
        bound = _index_bound()
        if len(data) > bound:
            # §8.1 bounds the file; an index that cannot be written is absent, which is
            # consistent, and the stale one (if any) must not stay behind
            store_index.remove_all(repo)
            raise core_index.IndexTooLarge(len(data), bound)
        st = store_index.write_index(repo, data)
        writer.finish(hashlib.sha256(data).hexdigest(), store_index.seal_of(st),
                      record_slices(data, len(doc["records"])))
    finally:
        writer.abort()
    return Built(doc["sourceFingerprint"], len(doc["records"]))


class _DbWriter:
    def __init__(self, repo: Repo, doc: dict, collection, policy_digest: str):
        import os

        self.pid = 0
        self.inline = (repo, doc, collection, policy_digest)
        if len(doc["records"]) < DB_FORK_MIN or not hasattr(os, "fork"):
            return
        read_end, self.write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child; its outcome is checked by the parent
            code = 1
            try:
                os.close(self.write_end)
                with os.fdopen(read_end, "rb") as pipe:
                    _write_db(repo, doc, collection, policy_digest, _receive(pipe))
                code = 0
            except BaseException:  # noqa: BLE001 - the child reports by exit status only
                code = 1
            finally:
                os._exit(code)
        os.close(read_end)
        self.pid = pid

    def finish(self, digest: str, seal: str, slices: list) -> None:
        import os
        import pickle

        if not self.pid:
            _write_db(*self.inline, lambda: (digest, seal, slices))
            return
        payload = pickle.dumps((digest, seal, slices))
        with os.fdopen(self.write_end, "wb") as pipe:
            pipe.write(payload)
        self.write_end = -1
        _pid, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if os.waitstatus_to_exitcode(status) != 0:
            from ..errors import LocalStateError

            raise LocalStateError("memory index database could not be written")

    def abort(self) -> None:
        import os

        if self.pid:
            if self.write_end >= 0:
                os.close(self.write_end)  # the child sees end-of-file and writes nothing
                self.write_end = -1
            os.waitpid(self.pid, 0)
            self.pid = 0


def _receive(pipe):
    """A callable the child uses to wait for (digest, seal, slices) from the parent."""
    def get():
        import pickle

        data = pipe.read()
        if not data:
            raise EOFError("index was not written")
        return pickle.loads(data)

    return get


_RECORD_START = b'\n    {\n      "id": "'
_RECORD_END = b"\n    }"


def record_slices(data: bytes, count: int) -> list[tuple[int, int]]:
    """(offset, length) of each record object in encoded index bytes, in order.

    In the indented layout a record opens with ``{`` on a line indented four spaces and closes
    with the first ``}`` so indented; strings never hold raw newlines, and nested objects are
    indented deeper, so neither pattern can occur inside a record.
    """
    out = []
    pos = 0
    for _ in range(count):
        start = data.index(_RECORD_START, pos) + 5
        end = data.index(_RECORD_END, start) + len(_RECORD_END)
        out.append((start, end - start))
        pos = end
    return out


def _db_content(doc: dict, collection):
    """What the database holds besides ``locations`` and ``meta``: (sources, rows, postings,
    row number by ID), in insertion order. Shared by the build and by ``verify``."""
    sources = sorted((s.ref, s.head) for s in collection.sources)
    commits = {m.memory_id: m.commit for m in collection.memories}
    # Row numbers follow the §7.7 order of the context-free keys (lifecycle rank, signed
    # timestamp descending bytewise, ID), so recall reads candidates already ordered.
    ordered = list(doc["records"])  # sorted by ID; stable sorts add the other keys
    ordered.sort(key=lambda r: r["signedTimestamp"], reverse=True)  # ASCII: str order is bytewise
    ordered.sort(key=lambda r: LIFECYCLE_RANK.get(r["lifecycle"], 4))
    numbers = {}
    rows = []
    for n, row in enumerate(ordered):
        numbers[row["id"]] = n
        rows.append(_row_columns(n, row, commits[row["id"]]))
    postings = [(t["token"], _pack(sorted(numbers[i] for i in t["memoryIds"]))) for t in doc["tokens"]]
    return sources, rows, postings, numbers


def _write_db(repo: Repo, doc: dict, collection, policy_digest: str, located) -> None:
    """Build the sealed database; ``located()`` returns (index SHA-256, seal, record slices)."""
    conn, tmp = store_index.create_db(repo)
    try:
        sources, rows, postings, numbers = _db_content(doc, collection)
        conn.executemany("INSERT INTO sources VALUES (?, ?)", sources)
        conn.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         rows)
        conn.executemany("INSERT INTO postings VALUES (?, ?)", postings)
        digest, seal, slices = located()
        conn.executemany("INSERT INTO locations VALUES (?, ?, ?)",
                         [(numbers[row["id"]], sl[0], sl[1]) for row, sl in zip(doc["records"], slices)])
        meta = {"version": store_index.DB_VERSION, "sourceFingerprint": doc["sourceFingerprint"],
                "policyDigest": policy_digest, "indexSha256": digest, "indexSeal": seal}
        conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        store_index.install_db(repo, conn, tmp)
    except BaseException:
        try:
            conn.close()
        finally:
            store_index.discard_tmp(tmp)
        raise


def _verify_db(repo: Repo, data: bytes, doc: dict, collection, policy_digest: str) -> None:
    """The database, when there is one, must hold exactly what a rebuild from ``doc`` writes
    (a consistent edit of filter columns or postings could otherwise hide rows from recall)."""
    conn = store_index.open_db_readonly(repo)
    if conn is None:
        if os.path.lexists(store_index.paths(repo)[3]):
            raise core_index.IndexError_("corrupt", "recall database is unsafe or unreadable")
        return
    try:
        sources, rows, postings, numbers = _db_content(doc, collection)
        slices = record_slices(data, len(doc["records"]))
        locations = sorted((numbers[row["id"]], sl[0], sl[1]) for row, sl in zip(doc["records"], slices))
        meta = {"version": store_index.DB_VERSION, "sourceFingerprint": doc["sourceFingerprint"],
                "policyDigest": policy_digest, "indexSha256": hashlib.sha256(data).hexdigest(),
                "indexSeal": store_index.current_seal(repo)}
        same = (dict(conn.execute("SELECT key, value FROM meta").fetchall()) == meta
                and conn.execute("SELECT ref, head FROM sources ORDER BY ref").fetchall() == sources
                and conn.execute("SELECT * FROM rows ORDER BY n").fetchall() == [tuple(r) for r in rows]
                and conn.execute("SELECT n, offset, length FROM locations ORDER BY n").fetchall() == locations
                and conn.execute("SELECT token, ns FROM postings ORDER BY token").fetchall()
                == sorted(postings))
    except sqlite3.Error:
        same = False
    finally:
        conn.close()
    if not same:
        raise core_index.IndexError_("corrupt", "recall database differs from a rebuild")


def _pack(numbers: list[int]) -> bytes:
    """Row numbers as little-endian unsigned 32-bit integers (one blob per token)."""
    import array
    import sys

    packed = array.array("I", numbers)
    if sys.byteorder != "little":  # pragma: no cover - all supported machines are little-endian
        packed.byteswap()
    return packed.tobytes()


def _unpack(blob: bytes):
    import array
    import sys

    if not isinstance(blob, bytes) or len(blob) % 4:
        raise sqlite3.DatabaseError("malformed postings")
    packed = array.array("I")
    packed.frombytes(blob)
    if sys.byteorder != "little":  # pragma: no cover
        packed.byteswap()
    return packed


def _row_columns(n: int, row: dict, commit: str) -> tuple:
    """The context-free columns recall filters on; the full row stays in ``row`` (JSON)."""
    data = row["data"]
    anchor = data["anchor"]
    paths = "".join(f"{p['path']}\t{p['blob']}\n" for p in anchor.get("paths", ()))
    memory = [d["status"] for d in row["evidenceDetails"] if d["type"] == "memory"]
    ev_memory = "" if not memory else ("missing" if "missing" in memory else "resolved")
    return (n, row["id"], commit, row["actor"], row["stream"], row["kind"], row["lifecycle"],
            LIFECYCLE_RANK.get(row["lifecycle"], 4), row["signedTimestamp"],
            core_recall.encoded_content_size(row), anchor["commit"], data["applicability"]["mode"],
            data["applicability"].get("subject", ""), anchor.get("subject", ""), paths,
            "\n".join(data["topics"]), "\n".join(data["evidence"]), ev_memory)


def verify(repo: Repo) -> Built:
    """CONTRACT §8.6: load (fail closed), compare fingerprints, re-derive and compare bytes."""
    data, _st = store_index.load_index_bytes(repo)
    doc = core_index.decode(data)
    sources = streams.list_sources(repo)
    _head, policy = head_context(repo, Resolver(repo))
    current = core_recall.source_fingerprint(policy.digest, [(s.ref, s.head) for s in sources])
    if doc["sourceFingerprint"] != current:
        raise core_index.IndexError_("stale", "source or policy changed")
    derived, collection, digest = derive(repo, sources)
    if core_index.encode(derived) != data:
        raise core_index.IndexError_("stale", "derived projection changed")
    _verify_db(repo, data, derived, collection, digest)
    return Built(doc["sourceFingerprint"], len(doc["records"]))


def after_ref_change(repo: Repo) -> None:
    """§8.4 refresh: the index is left absent (consistent); the next recall rebuilds it."""
    import sys

    try:
        store_index.remove_all(repo)
    except OSError as exc:
        sys.stderr.write(f"git-hn: warning: memory index removed: {exc.strerror}\n")


# ---------------------------------------------------------------------------------------------
# recall from the index


def _fresh_db(repo: Repo, fingerprints: set[str]) -> sqlite3.Connection | None:
    conn = store_index.open_db_readonly(repo)
    if conn is None:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        seal = store_index.current_seal(repo)
        if (meta.get("version") == store_index.DB_VERSION and meta.get("sourceFingerprint") in fingerprints
                and seal is not None and meta.get("indexSeal") == seal):
            return conn
    except sqlite3.Error:
        pass
    conn.close()
    return None


_COLUMNS = ('n, id, "commit", actor, stream, kind, lifecycle, ts, size, anchor, mode, app_subject, '
            'anchor_subject, paths, topics, evidence, ev_memory')


def _candidates(conn: sqlite3.Connection, req, terms) -> list[tuple]:
    """Rows passing the context-free filters SQL can decide, in §7.7 order within one
    applicability class (row numbers were assigned in that order at build time)."""
    where, args = [], []
    for column, values in (("kind", req.kind), ("actor", req.actor), ("lifecycle", req.lifecycle)):
        if values:
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    sql = f"SELECT {_COLUMNS} FROM rows"
    if not terms:
        if where:
            sql += " WHERE " + " AND ".join(where)
        return conn.execute(sql + " ORDER BY n", args).fetchall()
    numbers = None
    for term in terms:
        found = conn.execute("SELECT ns FROM postings WHERE token = ?", (term,)).fetchone()
        ns = set(_unpack(found[0])) if found else set()
        numbers = ns if numbers is None else numbers & ns
        if not numbers:
            return []
    ordered = sorted(numbers)
    out = []
    for i in range(0, len(ordered), 500):
        chunk = ordered[i:i + 500]
        clause = " AND ".join(where + [f"n IN ({','.join('?' * len(chunk))})"])
        out += conn.execute(f"{sql} WHERE {clause} ORDER BY n", args + chunk).fetchall()
    return out


def _memory_view(row: dict) -> VerifiedMemory:
    """A minimal memory for the projection helpers: the record and its owner."""
    from ..core.envelope import Envelope
    from ..core.index import _record_from_data

    env = Envelope("hn-memory/0", "record", row["actor"], "", "", row["stream"], 1,
                   row["signedTimestamp"], record=_record_from_data(row["data"]))
    return VerifiedMemory(row["id"], "", env, b"", "")


def recompute(row: dict, ctx: Context, resolver, ancestry) -> dict:
    """§11(d) query-time recomputation of the context-dependent fields of a stored row."""
    mem = _memory_view(row)
    app, app_deps = applicability(mem, ctx, resolver, ancestry)
    _overall, details, ev_deps = evidence(mem, frozenset(), resolver)
    kept = [d for d in row["evidenceDetails"] if d["type"] == "memory"]
    details = [d for d in details if d["type"] != "memory"] + kept
    details.sort(key=lambda d: (d["type"], d["requested"], d["ownerId"]))
    statuses = {d["status"] for d in details}
    overall = "invalid" if "invalid" in statuses else "missing" if "missing" in statuses else "resolved"
    deps = [d for d in row["dependencies"] if d["kind"] in STORED_DEP_KINDS]
    deps += app_deps + [d for d in ev_deps if d["kind"] != "evidence-memory"]
    out = dict(row)
    out["applicability"] = app
    out["evidence"] = overall
    out["evidenceDetails"] = details
    out["dependencies"] = sort_row_dependencies(deps)
    out["trust"] = trust(row["actor"], row["kind"], ctx.policy)
    return out


class _RowMismatch(Exception):
    pass


def _verify_rows(repo: Repo, page: list[tuple], sources) -> None:
    """§11(d) per-row verification of the rows about to be served; raises ``_RowMismatch``.

    Each row's ``memory.json`` and ``signature`` are read from Git at the recorded commit and
    verified (SHA-256 equals the ID, Ed25519, canonical bytes), its record must equal the stored
    ``data``, and the commit must be in the chain of a current source head of its stream.
    """
    by_stream: dict[tuple[str, str], list[str]] = {}
    if not page:
        return
    try:
        objs = repo.git.read_objects([commit for commit, _row in page])
        pairs = []
        for (commit, _row), obj in zip(page, objs):
            if obj is None or obj[0] != "commit":
                raise _RowMismatch
            pairs.append((commit, chain_parse_commit(commit, obj[1])[0]))
        memories = streams.verify_commits(repo, "index", pairs)
    except (ValidationError, HnError):
        raise _RowMismatch from None
    for (commit, row), mem in zip(page, memories):
        if mem.memory_id != row["id"] or mem.envelope.record is None \
                or normalized_record_json(mem.envelope.record) != row["data"] \
                or mem.envelope.actor != row["actor"] or mem.envelope.stream != row["stream"]:
            raise _RowMismatch
        by_stream.setdefault((row["actor"], row["stream"]), []).append(commit)
    for (actor, stream), commits in by_stream.items():
        wanted = set(commits)
        for src in sources:
            if src.actor == actor and src.stream == stream:
                wanted -= _found_in_chain(repo, src, wanted)
            if not wanted:
                break
        if wanted:
            raise _RowMismatch


def _found_in_chain(repo: Repo, source: streams.Source, wanted: set) -> set:
    """Which of ``wanted`` are in the source's chain.

    The fingerprint matched, so this head is the one whose chain the rebuild verified from raw
    parent headers (every commit with exactly one parent). Without grafts or a shallow boundary,
    ``rev-list --first-parent`` of that head lists exactly those commits; it is read only until
    every wanted commit was seen. Otherwise the raw walk decides.
    """
    import os

    found: set = set()
    if not any(os.path.exists(os.path.join(repo.common_dir, p)) for p in ("info/grafts", "shallow")):
        listing = repo.git.lines(["rev-list", "--first-parent", "--end-of-options", source.head])
        try:
            for commit in listing:
                if commit in wanted:
                    found.add(commit)
                    if found == wanted:
                        break
        finally:
            listing.close()
        return found
    try:
        return {c for c, _t in streams.walk(repo, source)} & wanted
    except ValidationError:
        return set()


def _column_record(c: tuple):
    from ..core.envelope import Anchor, Applicability, PathAnchor, Record

    paths = tuple(PathAnchor(*line.split("\t")) for line in c[13].split("\n") if line)
    return Record(c[5], "", Anchor(c[9], paths, c[12]), Applicability(c[10], c[11]), (),
                  tuple(e for e in c[15].split("\n") if e))


class _Classes:
    """Memoized context classes per distinct anchor, evidence set and (actor, kind)."""

    def __init__(self, ctx: Context, resolver):
        self.ctx, self.resolver = ctx, resolver
        self.ancestry = _Ancestry(resolver)
        self.app: dict = {}
        self.ev: dict = {}

    def applicability(self, c: tuple) -> str:
        key = (c[9], c[10], c[11], c[12], c[13])
        got = self.app.get(key)
        if got is None:
            from ..core.envelope import Envelope

            env = Envelope("hn-memory/0", "record", c[3], "", "", c[4], 1, "", record=_column_record(c))
            got = applicability(VerifiedMemory(c[1], "", env, b"", ""), self.ctx, self.resolver,
                                self.ancestry)[0]
            self.app[key] = got
        return got

    def evidence(self, c: tuple) -> str:
        key = (c[15], c[16])
        got = self.ev.get(key)
        if got is None:
            statuses = {c[16]} - {""}
            for item in c[15].split("\n"):
                if not item or item.startswith("memory:"):
                    continue
                if item.startswith("event:"):
                    statuses.add("missing")
                    continue
                try:
                    statuses.add("resolved" if self.resolver.object_type(item[4:]) else "missing")
                except ProbeError:
                    statuses.add("invalid")
            got = "invalid" if "invalid" in statuses else "missing" if "missing" in statuses else "resolved"
            self.ev[key] = got
        return got


def _select(candidates: list[tuple], req, classes: _Classes) -> list[tuple]:
    """§7.6 step 3 over candidate columns: every filter, applicable, resolved."""
    topics = set(req.topic)
    out = []
    trusts: dict = {}
    for c in candidates:
        if topics and not topics <= set(c[14].split("\n")):
            continue
        if req.subject and req.subject not in (c[12], c[11]):
            continue
        if req.path and req.path not in {line.split("\t")[0] for line in c[13].split("\n") if line}:
            continue
        key = (c[3], c[5])
        t = trusts.get(key)
        if t is None:
            t = trusts[key] = trust(c[3], c[5], classes.ctx.policy)
        if req.trust and t not in req.trust:
            continue
        if classes.applicability(c) != "applicable" or classes.evidence(c) != "resolved":
            continue
        out.append(c)
    return out


def _page(req, selected: list[tuple], digest: str) -> tuple[list[tuple], dict]:
    """§7.6 steps 5–8 on columns (already in §7.7 order); returns the page and the document head."""
    from ..errors import InputError

    for c in selected:
        if c[8] > req.max_content_bytes:
            raise InputError(f"memory {c[1]} encoded content exceeds maxContentBytes; raise the explicit bound")
    start = 0
    if req.cursor:
        last = core_recall.decode_cursor(req.cursor, digest)
        for i, c in enumerate(selected):
            if c[1] == last:
                start = i + 1
                break
        else:
            raise InputError("recall cursor no longer names a result in this query")
    page, used, i = [], 0, start
    while i < len(selected) and len(page) < req.max_records and used + selected[i][8] <= req.max_content_bytes:
        page.append(selected[i])
        used += selected[i][8]
        i += 1
    return page, {"matched": len(selected), "truncated": i < len(selected)}


def _index_bound() -> int:
    """§8.1's 256 MiB, or (only under ``HN_INTERNAL_TESTING=1``) ``HN_TEST_INDEX_MAX_BYTES``, so
    that tests reach the bound without writing 256 MiB."""
    from ..core.limits import LIMITS

    if os.environ.get("HN_INTERNAL_TESTING") == "1":
        value = os.environ.get("HN_TEST_INDEX_MAX_BYTES", "")
        if value.isdigit():
            return int(value)
    return LIMITS.max_index


def _recall_without_index(repo: Repo, req) -> dict:
    """The same answer from a full projection of verified streams, for a repository whose index
    would exceed its size bound (slow, but never wrong and never refused)."""
    from .recall import recall_full

    return recall_full(repo, req)


def recall(repo: Repo, req, *, at: str, terms) -> dict:
    """Serve a normalized request from a fresh index (rebuilding it when it is not)."""
    import orjson

    sources = streams.list_sources(repo)
    resolver = Resolver(repo)
    policy = load_policy(repo, resolver, at)
    head = repo.head_commit()
    head_policy = policy if head == at else load_policy(repo, resolver, head)
    pairs = [(s.ref, s.head) for s in sources]
    fp_c = core_recall.source_fingerprint(policy.digest, pairs)
    fp_h = core_recall.source_fingerprint(head_policy.digest, pairs)
    digest = core_recall.query_digest(req, fp_c, policy.digest)
    ctx = Context(at, req.subject, req.path, policy.memory, policy.digest)
    for attempt in range(2):
        conn = _fresh_db(repo, {fp_c, fp_h}) if attempt == 0 else None
        if conn is None:
            try:
                rebuild(repo)
            except core_index.IndexTooLarge:
                return _recall_without_index(repo, req)
            conn = _fresh_db(repo, {fp_c, fp_h})
            if conn is None:
                raise HnError("memory index could not be rebuilt")
        try:
            candidates = _candidates(conn, req, terms)
            resolver.prefetch_types({c[9] for c in candidates} |
                                    {e[4:] for c in candidates for e in c[15].split("\n") if e.startswith("git:")})
            selected = _select(candidates, req, _Classes(ctx, resolver))
            page, head_doc = _page(req, selected, digest)
            slices = dict((n, (o, ln)) for n, o, ln in conn.execute(
                f"SELECT n, offset, length FROM locations WHERE n IN ({','.join('?' * len(page))})",
                [c[0] for c in page]).fetchall()) if page else {}
            seal = dict(conn.execute("SELECT key, value FROM meta").fetchall())["indexSeal"]
        finally:
            conn.close()
        ancestry = _Ancestry(resolver)
        try:
            texts = store_index.read_slices(repo, seal, [slices[c[0]] for c in page])
            stored = [orjson.loads(t) for t in texts]
            if [r.get("id") if isinstance(r, dict) else None for r in stored] != [c[1] for c in page]:
                raise _RowMismatch
            out_rows = [recompute(r, ctx, resolver, ancestry) for r in stored]
            # the database's filter columns must agree with the rows they stand for
            if not all(core_recall.matches(r, req, terms) for r in out_rows):
                raise _RowMismatch
        except (core_index.IndexError_, orjson.JSONDecodeError, OSError, _RowMismatch):
            store_index.remove_all(repo)
            continue
        try:
            _verify_rows(repo, [(c[2], r) for c, r in zip(page, out_rows)], sources)
        except _RowMismatch:
            store_index.remove_all(repo)
            continue
        return core_recall.document(digest, head_doc["matched"], out_rows, head_doc["truncated"])
    raise HnError("memory index could not be verified after a rebuild")


__all__ = ["rebuild", "verify", "recall", "after_ref_change", "canonical", "ProbeError", "dependency"]
