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
import sqlite3

from ..core import canonical
from ..core import index as core_index
from ..core import recall as core_recall
from ..core.chain import VerifiedMemory
from ..core.projection import (Context, ProbeError, _Ancestry, applicability, dependency, evidence,
                               normalized_record_json, project, row_index_json,
                               sort_row_dependencies, trust)
from ..errors import HnError, ValidationError
from ..store import index as store_index
from ..store import streams
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy

STORED_DEP_KINDS = ("lifecycle-target", "evidence-memory")


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
    """CONTRACT §8.4: repair the location, derive, write the index, then the sealed database."""
    store_index.repair_location(repo)
    doc, collection, policy_digest = derive(repo)
    data = core_index.encode(doc)
    st = store_index.write_index(repo, data)
    _write_db(repo, doc, collection, policy_digest, hashlib.sha256(data).hexdigest(),
              store_index.seal_of(st))
    return Built(doc["sourceFingerprint"], len(doc["records"]))


def _write_db(repo: Repo, doc: dict, collection, policy_digest: str, digest: str, seal: str) -> None:
    import orjson

    conn, tmp = store_index.create_db(repo)
    try:
        meta = {"version": store_index.DB_VERSION, "sourceFingerprint": doc["sourceFingerprint"],
                "policyDigest": policy_digest, "indexSha256": digest, "indexSeal": seal}
        conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        conn.executemany("INSERT INTO sources VALUES (?, ?)",
                         [(s.ref, s.head) for s in collection.sources])
        conn.executemany('INSERT INTO chain VALUES (?, ?, ?, ?)',
                         [(ref, i + 1, m.commit, m.memory_id) for ref, mems in collection.chains.items()
                          for i, m in enumerate(mems)])
        conn.executemany('INSERT INTO memories VALUES (?, ?, ?, ?)',
                         [(m.memory_id, m.commit, m.payload, m.signature) for m in collection.memories])
        commits = {m.memory_id: m.commit for m in collection.memories}
        numbers = {}
        rows = []
        for n, row in enumerate(doc["records"]):
            numbers[row["id"]] = n
            size = core_recall.encoded_content_size(row)
            rows.append((n, row["id"], commits[row["id"]], row["actor"], row["stream"], row["kind"],
                         row["lifecycle"], size, orjson.dumps(row).decode()))
        conn.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO postings VALUES (?, ?)",
                         [(t["token"], numbers[i]) for t in doc["tokens"] for i in t["memoryIds"]])
        store_index.install_db(repo, conn, tmp)
    except BaseException:
        try:
            conn.close()
        finally:
            store_index.discard_tmp(tmp)
        raise


def verify(repo: Repo) -> Built:
    """CONTRACT §8.6: load (fail closed), compare fingerprints, re-derive and compare bytes."""
    data, _st = store_index.load_index_bytes(repo)
    doc = core_index.decode(data)
    sources = streams.list_sources(repo)
    _head, policy = head_context(repo, Resolver(repo))
    current = core_recall.source_fingerprint(policy.digest, [(s.ref, s.head) for s in sources])
    if doc["sourceFingerprint"] != current:
        raise core_index.IndexError_("stale", "source or policy changed")
    derived, _collection, _digest = derive(repo, sources)
    if core_index.encode(derived) != data:
        raise core_index.IndexError_("stale", "derived projection changed")
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


def _candidates(conn: sqlite3.Connection, req, terms) -> list[tuple]:
    """Rows passing the context-free filters that SQL can decide (tokens, kind, actor, lifecycle)."""
    where, args = [], []
    if terms:
        sub = " INTERSECT ".join("SELECT n FROM postings WHERE token = ?" for _ in terms)
        where.append(f"n IN ({sub})")
        args += terms
    for column, values in (("kind", req.kind), ("actor", req.actor), ("lifecycle", req.lifecycle)):
        if values:
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    sql = 'SELECT n, id, "commit", actor, stream, lifecycle, size, row FROM rows'
    if where:
        sql += " WHERE " + " AND ".join(where)
    return conn.execute(sql, args).fetchall()


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
    """§11(d) per-row verification of the rows about to be served; raises ``_RowMismatch``."""
    heads: dict[tuple[str, str], list[streams.Source]] = {}
    for s in sources:
        heads.setdefault((s.actor, s.stream), []).append(s)
    members: dict[str, set] = {}
    for commit, row in page:
        try:
            tree, parents = streams.read_parents(repo, "index", commit)
            mem = streams.verify_commits(repo, "index", [(commit, tree)])[0]
        except (ValidationError, HnError):
            raise _RowMismatch from None
        if mem.memory_id != row["id"] or mem.envelope.record is None \
                or normalized_record_json(mem.envelope.record) != row["data"] \
                or mem.envelope.actor != row["actor"] or mem.envelope.stream != row["stream"]:
            raise _RowMismatch
        ok = False
        for src in heads.get((row["actor"], row["stream"]), []):
            if src.ref not in members:
                members[src.ref] = _chain_members(repo, src)
            if commit in members[src.ref]:
                ok = True
                break
        if not ok:
            raise _RowMismatch


def _chain_members(repo: Repo, source: streams.Source) -> set:
    """Commits of a source's chain.

    The fingerprint matched, so this head is the one whose chain the rebuild verified from raw
    parent headers (every commit with exactly one parent). Without grafts or a shallow boundary,
    ``rev-list --first-parent`` of that head lists exactly those commits, in one process;
    otherwise the raw walk decides.
    """
    import os

    if not any(os.path.exists(os.path.join(repo.common_dir, p)) for p in ("info/grafts", "shallow")):
        proc = repo.git.run(["rev-list", "--first-parent", "--end-of-options", source.head])
        if proc.returncode == 0:
            return set(proc.stdout.decode("ascii", "replace").split())
    try:
        return {c for c, _t in streams.walk(repo, source)}
    except ValidationError:
        return set()


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
            rebuild(repo)
            conn = _fresh_db(repo, {fp_c, fp_h})
            if conn is None:
                raise HnError("memory index could not be rebuilt")
        try:
            candidates = _candidates(conn, req, terms)
        finally:
            conn.close()
        rows = [orjson.loads(c[7]) for c in candidates]
        commits = {c[1]: c[2] for c in candidates}
        resolver.prefetch_types({r["data"]["anchor"]["commit"] for r in rows} |
                                {e[4:] for r in rows for e in r["data"]["evidence"] if e.startswith("git:")})
        ancestry = _Ancestry(resolver)
        kept = []
        for row in rows:
            if not _context_free_match(row, req):
                continue
            full = recompute(row, ctx, resolver, ancestry)
            if core_recall.matches(full, req, None):
                kept.append(full)
        doc = core_recall.page(req, kept, digest)
        try:
            _verify_rows(repo, [(commits[r["id"]], r) for r in doc["memories"]], sources)
        except _RowMismatch:
            store_index.remove_all(repo)
            continue
        return doc
    raise HnError("memory index could not be verified after a rebuild")


def _context_free_match(row: dict, req) -> bool:
    data = row["data"]
    if req.topic and not set(req.topic) <= set(data["topics"]):
        return False
    if req.subject and req.subject not in (data["anchor"].get("subject", ""),
                                           data["applicability"].get("subject", "")):
        return False
    if req.path and req.path not in {p["path"] for p in data["anchor"].get("paths", ())}:
        return False
    return True


__all__ = ["rebuild", "verify", "recall", "after_ref_change", "canonical", "ProbeError", "dependency"]
