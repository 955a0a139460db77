"""Index rebuild, verify, refresh, and recall served from the index (CONTRACT §8, §11(d)).

The persisted ``index-v0.json`` is always exactly what a full rebuild at the ``HEAD`` context
writes, in upstream's schema, or absent when that would exceed the §8.1 size bound. Recall does
not parse it: it is served from the derived database built in the same rebuild and sealed to it
(or to its absence), which holds every row itself. Every context-dependent field
(applicability, ``git:``/``event:`` evidence, trust) is recomputed for the query context, and
every returned row is checked like an index row and verified against Git before output. Any
doubt about the index or the database is answered by a rebuild from verified streams, never by
using them.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from typing import NamedTuple

from ..core import canonical
from ..core import index as core_index
from ..core import recall as core_recall
from ..core.chain import VerifiedMemory
from ..core.chain import parse_commit as chain_parse_commit
from ..core.projection import (LIFECYCLE_RANK, Context, ProbeError, _Ancestry, applicability,
                               dependency, evidence, normalized_record_json, project,
                               row_index_json, sort_row_dependencies, trust)
from ..core.gostr import tokens
from ..errors import HnError, ValidationError
from ..store import index as store_index
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy

STORED_DEP_KINDS = ("lifecycle-target", "evidence-memory")
DB_FORK_MIN = 20_000  # below this, forking to build the database in parallel does not pay


class Built(NamedTuple):
    fingerprint: str
    count: int
    omitted: bool  # index-v0.json not written: over the §8.1 size bound


class Derived(NamedTuple):
    """A full re-derivation at the ``HEAD`` context."""

    fingerprint: str
    rows: list  # index rows (§8.2), sorted by ID
    sources: list  # (ref, head) of every source, sorted
    commits: dict  # memory ID -> commit, for every row
    verified: list  # (commit, memory ID, signature text) of every verified memory, sorted
    policy_digest: str


def head_context(repo: Repo, resolver: Resolver):
    head = repo.head_commit()
    policy = load_policy(repo, resolver, head)
    return head, policy


def derive(repo: Repo, sources=None, verified: dict | None = None) -> Derived:
    """Verify every stream and project it at the HEAD context (CONTRACT §8.4); ``verified``
    are signatures an earlier build checked (``streams.collect``)."""
    if sources is None:
        sources = streams.list_sources(repo)
    collection = streams.collect(repo, sources, verified)
    resolver = Resolver(repo)
    head, policy = head_context(repo, resolver)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    proj = project(list(collection.memories), Context(head, "", "", policy.memory, policy.digest),
                   resolver)
    rows = sorted((row_index_json(r) for r in proj.rows.values()), key=lambda r: r["id"])
    fingerprint = core_recall.source_fingerprint(policy.digest, [(s.ref, s.head) for s in sources])
    # only what the database needs is kept: the verified memories (payloads, envelopes) are freed
    commits = {m.memory_id: m.commit for m in collection.memories}
    return Derived(fingerprint, rows, sorted((s.ref, s.head) for s in collection.sources),
                   {r["id"]: commits[r["id"]] for r in rows},
                   sorted((m.commit, m.memory_id, m.signature) for m in collection.memories),
                   policy.digest)


def row_tokens(rows: list) -> list[list[str]]:
    """§7.9 tokens of each row's text, in row order."""
    return [tokens(core_index.row_text(r)) for r in rows]


# In the indented layout every posting is a line of 8 spaces, a quoted 71-character memory ID and
# a newline: 82 bytes at least. With the contents this bounds the index size from below.
_POSTING_MIN = 82


def index_bytes(derived: Derived, toks: list, bound: int) -> bytes | None:
    """The upstream-schema index, or None when it would exceed ``bound`` (§8.1: such an index is
    not written). A lower bound on its size is checked first, so that an index far over the
    bound (hundreds of megabytes at 100k memories) is never encoded only to be discarded."""
    lower = sum(map(len, toks)) * _POSTING_MIN + sum(len(r["data"]["content"]) for r in derived.rows)
    if lower > bound:
        return None
    data = core_index.encode(core_index.build(derived.fingerprint, derived.rows, toks))
    return data if len(data) <= bound else None


def is_current(repo: Repo) -> bool:
    """Whether recall would be served from the index now (at ``HEAD``'s policy)."""
    _head, policy = head_context(repo, Resolver(repo))
    pairs = [(s.ref, s.head) for s in streams.list_sources(repo)]
    conn = _fresh_db(repo, {core_recall.source_fingerprint(policy.digest, pairs)})
    if conn is None:
        return False
    conn.close()
    return True


def previously_verified(repo: Repo) -> dict:
    """Commit -> (memory ID, signature text) of every memory the current recall database was
    built from, if it is intact (sealed, of this version) and was built under the same signature
    checker (``streams.signature_checker``); else empty."""
    conn = store_index.open_db_readonly(repo)
    if conn is None:
        return {}
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("version") != store_index.DB_VERSION or not meta.get("verifier") \
                or meta.get("verifier") != streams.signature_checker():
            return {}
        return {c: (i, sig) for c, i, sig in conn.execute("SELECT \"commit\", id, signature FROM verified")}
    except sqlite3.Error:
        return {}
    finally:
        conn.close()


def rebuild(repo: Repo, verified: dict | None = None) -> Built:
    """CONTRACT §8.4: repair the location, derive, write the index, then the recall database.

    ``verified`` (from ``previously_verified``) makes the rebuild incremental: only signatures
    not checked by the previous build are checked; the result is a full rebuild's (tested).

    The cyclic garbage collector is paused meanwhile: a rebuild allocates hundreds of thousands
    of small acyclic objects, and repeated full collections over them cost ~15% at 100k.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return _rebuild(repo, verified)
    finally:
        if enabled:
            gc.enable()


def _rebuild(repo: Repo, verified: dict | None) -> Built:
    store_index.repair_location(repo)
    derived = derive(repo, verified=verified)
    # The database's row columns are built by a forked child while this process tokenizes and
    # encodes the rows (two cores, two halves); tokens and documents reach the child in chunks,
    # in row-number order, so that it inserts rows while the rest are on their way. The index is
    # encoded and written last, and the child installs the database only when told how that
    # ended (its seal, or its omission).
    order = _row_order(derived.rows)
    writer = _DbWriter(repo, derived, order)
    try:
        by_number: list = []
        for start in range(0, len(order), TOKEN_CHUNK):
            rows = [derived.rows[i] for i in order[start:start + TOKEN_CHUNK]]
            chunk = row_tokens(rows)
            by_number += chunk
            writer.send(("rows", _token_column(chunk), [_encode_doc(r) for r in rows]))
        toks: list = [None] * len(order)
        for n, i in enumerate(order):
            toks[i] = by_number[n]
        del by_number
        data = index_bytes(derived, toks, _index_bound())
        if data is None:
            # an index that cannot be written is absent (consistent); a stale one must not stay
            store_index.remove_index(repo)
            state = ("", OMITTED)
        else:
            st = store_index.write_index(repo, data)
            state = (hashlib.sha256(data).hexdigest(), store_index.seal_of(st))
        writer.finish(state)
    finally:
        writer.abort()
    return Built(derived.fingerprint, len(derived.rows), data is None)


OMITTED = "omitted"  # the index seal recorded when index-v0.json was over its bound
TOKEN_CHUNK = 8192


class _DbWriter:
    """Builds the database inline, or in a forked child for large rebuilds.

    Messages (``("rows", token column chunk, document chunk)`` ..., then
    ``("done", index state)``) are pickled
    over a pipe to the child, where a thread collects them so that the sender never waits.
    """

    def __init__(self, repo: Repo, derived: Derived, order: list[int]):
        self.pid = 0
        self.pipe = None
        self.inline = (repo, derived, order)
        self.queued: list = []
        if len(derived.rows) < DB_FORK_MIN or not hasattr(os, "fork"):
            return
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to spare: build inline
            os.close(read_end)
            os.close(write_end)
            return
        if pid == 0:  # pragma: no cover - runs in the child; its outcome is checked by the parent
            code = 1
            try:
                os.close(write_end)
                _write_db(repo, derived, order, _received(os.fdopen(read_end, "rb")))
                code = 0
            except BaseException:  # noqa: BLE001 - the child reports by exit status only
                code = 1
            finally:
                os._exit(code)
        os.close(read_end)
        self.pipe = os.fdopen(write_end, "wb")
        self.pid = pid
        import queue
        import threading

        # a writer thread, so that this process keeps working while the child is busy
        self.outbox: queue.Queue = queue.Queue()
        self.sender = threading.Thread(target=self._send_all, daemon=True)
        self.sender.start()

    def _send_all(self) -> None:
        while True:
            data = self.outbox.get()
            if data is None:
                return
            try:
                self.pipe.write(data)
            except OSError:  # the child died: its exit status reports it
                return

    def send(self, message: tuple) -> None:
        import pickle

        if self.pipe is None:
            self.queued.append(message)
        else:
            self.outbox.put(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def _close_pipe(self) -> None:
        self.outbox.put(None)
        self.sender.join()
        try:
            self.pipe.close()
        except OSError:
            pass
        self.pipe = None

    def finish(self, state: tuple[str, str]) -> None:
        if not self.pid:
            self.send(("done", state))
            try:
                _write_db(*self.inline, iter(self.queued))
            except (OSError, sqlite3.Error) as exc:
                from ..errors import LocalStateError

                cause = (exc.strerror if isinstance(exc, OSError) else str(exc)) or type(exc).__name__
                raise LocalStateError(f"memory index database could not be written: {cause}") from None
            return
        self.send(("done", state))
        self._close_pipe()
        _pid, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if os.waitstatus_to_exitcode(status) != 0:
            from ..errors import LocalStateError

            raise LocalStateError("memory index database could not be written")

    def abort(self) -> None:
        if self.pid:
            if self.pipe is not None:
                self._close_pipe()  # the child sees end-of-file before "done": writes nothing
            os.waitpid(self.pid, 0)
            self.pid = 0


def _received(pipe):
    """The parent's messages, read by a thread as they arrive; end-of-file before ``done`` ends
    the iteration with ``EOFError`` (the database is then not installed)."""
    import pickle
    import queue
    import threading

    box: queue.Queue = queue.Queue()

    def reader():
        try:
            while True:
                message = pickle.load(pipe)
                box.put(message)
                if message[0] == "done":
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            box.put(("error", exc))

    threading.Thread(target=reader, daemon=True).start()
    while True:
        message = box.get()
        if message[0] == "error":
            raise EOFError("the index step did not finish")
        yield message
        if message[0] == "done":
            return


def _row_order(rows: list) -> list[int]:
    """Positions of ``rows`` (sorted by ID) in the context-free part of the §7.7 order
    (lifecycle rank, signed timestamp descending bytewise, ID): row number n is ``order[n]``,
    so that recall reads candidates already ordered."""
    order = list(range(len(rows)))  # by ID; the stable sorts add the other keys
    order.sort(key=lambda i: rows[i]["signedTimestamp"], reverse=True)  # ASCII: bytewise
    order.sort(key=lambda i: LIFECYCLE_RANK.get(rows[i]["lifecycle"], 4))
    return order


def _token_column(toks: list) -> list[str]:
    """Each row's tokens as `` tok1 tok2 … `` (a term matches exactly where `` term `` occurs:
    tokens never hold a space)."""
    return [" " + " ".join(t) + " " for t in toks]


def _encode_doc(row: dict) -> bytes:
    orjson = canonical.load_fast_codec()
    try:
        return orjson.dumps(row)
    except TypeError:  # pragma: no cover - index rows hold only strings, lists and objects
        return canonical.compact(row)


def _db_columns(derived: Derived, order: list[int]) -> tuple[list, list]:
    """(sources, row columns without tokens) by row number. Shared by the build and by
    ``verify``; the rest of a row is its token column and its document (``_encode_doc``)."""
    sources, commits, rows = derived.sources, derived.commits, derived.rows
    columns = [_row_columns(n, rows[i], commits[rows[i]["id"]]) for n, i in enumerate(order)]
    return sources, columns


def _meta(derived: Derived, state: tuple[str, str]) -> dict:
    return {"version": store_index.DB_VERSION, "sourceFingerprint": derived.fingerprint,
            "policyDigest": derived.policy_digest, "indexSha256": state[0], "indexSeal": state[1],
            "verifier": streams.signature_checker()}


def _write_db(repo: Repo, derived: Derived, order: list[int], messages) -> None:
    """Build and install the database from the row chunks and the index state in ``messages``;
    nothing is installed unless ``("done", state)`` arrives after every row."""
    conn, tmp = store_index.create_db(repo)
    try:
        sources, columns = _db_columns(derived, order)
        conn.executemany("INSERT INTO sources VALUES (?, ?)", sources)
        conn.executemany("INSERT INTO verified VALUES (?, ?, ?)", derived.verified)
        n = 0
        insert = "INSERT INTO rows VALUES (" + ", ".join("?" * 19) + ")"
        for message in messages:
            if message[0] == "rows":
                _kind, tokens_chunk, docs = message
                conn.executemany(insert, [c + (t,) for c, t in zip(columns[n:n + len(docs)], tokens_chunk)])
                conn.executemany("INSERT INTO docs VALUES (?, ?)", enumerate(docs, n))
                n += len(docs)
                continue
            if n != len(columns):
                raise ValueError("rows incomplete")
            conn.executemany("INSERT INTO meta VALUES (?, ?)", _meta(derived, message[1]).items())
            store_index.install_db(repo, conn, tmp)
            return
        raise EOFError("the index step did not finish")
    except BaseException:
        try:
            conn.close()
        finally:
            store_index.discard_tmp(tmp)
        raise


def _verify_db(repo: Repo, derived: Derived, toks: list, state: tuple[str, str]) -> None:
    """The database must hold exactly what a rebuild writes (a consistent edit of filter
    columns or tokens could otherwise hide rows from recall). ``state`` is the index's."""
    conn = store_index.open_db_readonly(repo, sealed=False)
    if conn is None:
        if os.path.lexists(store_index.paths(repo)[3]):
            raise core_index.IndexError_("corrupt", "recall database is unsafe or unreadable")
        if state[1] == OMITTED:
            raise core_index.IndexError_("missing")
        return
    if not store_index.db_seal_matches(repo):
        conn.close()
        raise core_index.IndexError_("corrupt", "recall database was changed after it was built")
    try:
        order = _row_order(derived.rows)
        sources, columns = _db_columns(derived, order)
        rows = [c + (t,) for c, t in zip(columns, _token_column([toks[i] for i in order]))]
        docs = [(n, _encode_doc(derived.rows[i])) for n, i in enumerate(order)]
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        expected = _meta(derived, state)
        if {**meta, "indexSeal": ""} == {**expected, "indexSeal": ""} and meta != expected:
            # the same build, but index-v0.json is another file now (rewritten or touched);
            # recall rebuilds rather than serve it
            raise core_index.IndexError_("stale", "recall database was built with another index file")
        same = (meta == expected
                and conn.execute("SELECT ref, head FROM sources ORDER BY ref").fetchall() == sources
                and conn.execute('SELECT "commit", id, signature FROM verified ORDER BY "commit"').fetchall()
                == derived.verified
                and conn.execute("SELECT * FROM rows ORDER BY n").fetchall() == rows
                and conn.execute("SELECT n, doc FROM docs ORDER BY n").fetchall() == docs)
    except sqlite3.Error:
        same = False
    finally:
        conn.close()
    if not same:
        raise core_index.IndexError_("corrupt", "recall database differs from a rebuild")


def _row_columns(n: int, row: dict, commit: str) -> tuple:
    """The context-free columns recall filters on (the row itself is in ``docs``)."""
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


def _omitted_db(repo: Repo) -> str | None:
    """The source fingerprint of a database recording an omitted index, else None."""
    conn = store_index.open_db_readonly(repo, sealed=False)
    if conn is None:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    if meta.get("version") == store_index.DB_VERSION and meta.get("indexSeal") == OMITTED:
        return meta.get("sourceFingerprint")
    return None


def verify(repo: Repo) -> Built:
    """CONTRACT §8.6: load (fail closed), compare fingerprints, re-derive and compare bytes.

    An absent ``index-v0.json`` is ``missing`` unless the database records that it was omitted
    for its size; the re-derivation must then agree that it is over the bound.
    """
    try:
        data, _st = store_index.load_index_bytes(repo)
        recorded = core_index.decode(data)["sourceFingerprint"]
    except core_index.IndexError_ as exc:
        recorded = _omitted_db(repo) if exc.kind == "missing" else None
        if recorded is None:
            raise
        data = None
    sources = streams.list_sources(repo)
    _head, policy = head_context(repo, Resolver(repo))
    current = core_recall.source_fingerprint(policy.digest, [(s.ref, s.head) for s in sources])
    if recorded != current:
        raise core_index.IndexError_("stale", "source or policy changed")
    derived = derive(repo, sources)
    toks = row_tokens(derived.rows)
    expected = index_bytes(derived, toks, _index_bound())
    if data is None:
        if expected is not None:
            raise core_index.IndexError_("missing")
        state = ("", OMITTED)
    else:
        if expected != data:
            raise core_index.IndexError_("stale", "derived projection changed")
        state = (hashlib.sha256(data).hexdigest(), store_index.current_seal(repo))
    _verify_db(repo, derived, toks, state)
    return Built(current, len(derived.rows), data is None)


# ---------------------------------------------------------------------------------------------
# recall from the index


def _fresh_db(repo: Repo, fingerprints: set[str]) -> sqlite3.Connection | None:
    """The database if it is current: its version, one of the query's source fingerprints, and
    the index it was built with (the same file, by seal, or still absent when it was omitted)."""
    conn = store_index.open_db_readonly(repo)
    if conn is None:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("version") == store_index.DB_VERSION and meta.get("sourceFingerprint") in fingerprints:
            if meta.get("indexSeal") == OMITTED:
                fresh = not os.path.lexists(store_index.paths(repo)[2])
            else:
                seal = store_index.current_seal(repo)
                fresh = seal is not None and meta.get("indexSeal") == seal
            if fresh:
                return conn
    except sqlite3.Error:
        pass
    conn.close()
    return None


SQL_TERMS = 32  # query terms matched in SQL; further ones are matched on the fetched column
DOC_CHUNK = 500  # stored rows fetched per query (SQLite limits bound variables)
_COLUMNS = ('n, id, "commit", actor, stream, kind, lifecycle, ts, size, anchor, mode, app_subject, '
            'anchor_subject, paths, topics, evidence, ev_memory')


def _candidates(conn: sqlite3.Connection, req, terms) -> list[tuple]:
    """Rows passing the context-free filters SQL can decide, in §7.7 order within one
    applicability class (row numbers were assigned in that order at build time). A term matches
    a row whose token column holds `` term `` (one scan in SQLite, no posting lists to build)."""
    where, args = [], []
    for column, values in (("kind", req.kind), ("actor", req.actor), ("lifecycle", req.lifecycle)):
        if values:
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    terms = list(terms or ())
    for term in terms[:SQL_TERMS]:
        where.append("instr(tokens, ?) > 0")
        args.append(f" {term} ")
    rest = [f" {t} " for t in terms[SQL_TERMS:]]  # beyond SQLite's expression depth: checked here
    sql = f"SELECT {_COLUMNS}{', tokens' if rest else ''} FROM rows"
    if where:
        sql += " WHERE " + " AND ".join(where)
    found = conn.execute(sql + " ORDER BY n", args).fetchall()
    if rest:
        found = [c[:-1] for c in found if all(t in c[-1] for t in rest)]
    return found


def _docs(conn: sqlite3.Connection, numbers: list[int]) -> dict:
    """Stored rows by row number, fetched in chunks below SQLite's variable limit."""
    out: dict = {}
    for i in range(0, len(numbers), DOC_CHUNK):
        chunk = numbers[i:i + DOC_CHUNK]
        out.update(conn.execute(f"SELECT n, doc FROM docs WHERE n IN ({','.join('?' * len(chunk))})",
                                chunk).fetchall())
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
                or mem.envelope.actor != row["actor"] or mem.envelope.stream != row["stream"] \
                or mem.envelope.timestamp != row["signedTimestamp"]:
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
            # incremental while the database is intact; after a mismatch it was removed: full
            rebuild(repo, previously_verified(repo))
            conn = _fresh_db(repo, {fp_c, fp_h})
            if conn is None:
                raise HnError("memory index could not be rebuilt")
        try:
            candidates = _candidates(conn, req, terms)
            resolver.prefetch_types({c[9] for c in candidates} |
                                    {e[4:] for c in candidates for e in c[15].split("\n") if e.startswith("git:")})
            selected = _select(candidates, req, _Classes(ctx, resolver))
            page, head_doc = _page(req, selected, digest)
            docs = _docs(conn, [c[0] for c in page])
        except sqlite3.Error:
            docs = None
        finally:
            conn.close()
        ancestry = _Ancestry(resolver)
        try:
            if docs is None:
                raise _RowMismatch
            stored = [orjson.loads(docs.get(c[0], b"")) for c in page]
            for r, c in zip(stored, page):
                core_index.check_row(r)  # the §8.5 row checks an index load makes
                if r["id"] != c[1] or core_recall.encoded_content_size(r) != c[8]:
                    raise _RowMismatch  # another row, or paged by a size it does not have
            out_rows = [recompute(r, ctx, resolver, ancestry) for r in stored]
            # the database's filter columns must agree with the rows they stand for
            if not all(core_recall.matches(r, req, terms) for r in out_rows):
                raise _RowMismatch
        except (ValueError, TypeError, KeyError, core_index.IndexError_, _RowMismatch):
            store_index.remove_all(repo)
            continue
        try:
            _verify_rows(repo, [(c[2], r) for c, r in zip(page, out_rows)], sources)
        except _RowMismatch:
            store_index.remove_all(repo)
            continue
        return core_recall.document(digest, head_doc["matched"], out_rows, head_doc["truncated"])
    raise HnError("memory index could not be verified after a rebuild")


__all__ = ["rebuild", "verify", "recall", "previously_verified", "canonical", "ProbeError", "dependency"]
