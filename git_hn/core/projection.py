"""Projection: from the verified memory set to rows with lifecycle, applicability, evidence and
trust (CONTRACT §5).

Pure. Git objects are consulted only through an injected ``resolver`` (see ``store.resolver``),
which answers object-type probes, literal tree lookups and raw parent headers. The result never
depends on arrival order or timestamps: memories are processed in ID order and every list is
sorted, so two clones that hold the same memories project the same rows. This defends against
*ordering attacks*, in which a remote chooses the winner of a conflict by controlling when or in
which order memories arrive.

Five judgments are kept separate: signature validity (done before this module), policy trust,
evidence resolution, and the lifecycle graph; semantic truth and prompt authority are never
granted here.
"""

from __future__ import annotations

from .chain import VerifiedMemory
from .envelope import Record, anchor_json, record_json
from .grammar import content_digest
from ..errors import HnError
from .tuples import NamedTuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (core.tuples)
if TYPE_CHECKING:  # annotations only: a command that projects without a policy never loads it
    from .policy import MemoryPolicy

LIFECYCLE_RANK = {"active": 0, "superseded": 1, "retracted": 2, "branching": 3}
APPLICABILITY_RANK = {"applicable": 0, "inapplicable": 1, "anchor-missing": 2}
APPLICABILITIES = ("applicable", "inapplicable", "anchor-missing", "anchor-invalid")
EVIDENCE_CLASSES = ("resolved", "missing", "invalid")


class ProbeError(HnError):
    """A resolver could not inspect an object (wrong OID length, unreadable object). Callers
    classify it (anchor-invalid, policy unavailable); it is never shown as such."""

    def __init__(self, oid: str):
        super().__init__(f"object {oid[:80]!r} cannot be inspected")
        self.oid = oid


class Context(NamedTuple):
    at_commit: str
    subject: str
    path: str
    policy: MemoryPolicy | None
    policy_digest: str


class Lifecycle(NamedTuple):
    """Context-free part of one row: its lifecycle class and accepted edges."""

    lifecycle: str
    challengers: tuple[str, ...]
    successors: tuple[str, ...]
    retractions: tuple[str, ...]


class Graph(NamedTuple):
    lifecycles: dict  # row id -> Lifecycle
    relationships: list  # accepted relationship dicts, sorted
    diagnostics: list  # diagnostic dicts, sorted
    dependencies: list  # lifecycle-target dependency dicts


class Row(NamedTuple):
    id: str
    stream: str
    actor: str
    signed_timestamp: str
    record: Record
    lifecycle: Lifecycle
    applicability: str
    evidence: str
    evidence_details: tuple
    dependencies: tuple
    trust: str


class Projection(NamedTuple):
    rows: dict  # id -> Row
    relationships: list
    dependencies: list
    diagnostics: list


def dependency(kind: str, owner: str, stream: str, missing: str, reason: str, operation: str = "") -> dict:
    out = {"kind": kind, "ownerId": owner, "stream": stream}
    if operation:
        out["operation"] = operation
    out["missingId"] = missing
    out["reason"] = reason
    return out


def has_row(mem: VerifiedMemory) -> bool:
    return mem.envelope.operation in ("record", "supersede") and mem.envelope.record is not None


_ACTIVE = Lifecycle("active", (), (), ())


class Node(NamedTuple):
    """What the lifecycle graph needs of one verified memory (plain data, §5.3)."""

    id: str
    operation: str
    target: str
    actor: str
    stream: str
    has_row: bool


def node(mem: VerifiedMemory) -> Node:
    env = mem.envelope
    return Node(mem.memory_id, env.operation, env.target, env.actor, env.stream, has_row(mem))


def lifecycle_graph(memories: list[VerifiedMemory]) -> Graph:
    """CONTRACT §5.3–§5.4: relationships, diagnostics and lifecycle classes (context-free)."""
    return graph_of([node(m) for m in memories])


def graph_of(nodes: list[Node]) -> Graph:
    """``lifecycle_graph`` over plain nodes: the same function of the same facts, so that a
    stored state can recompute the classes of a few rows from the nodes around them (every
    memory that targets one of them, and the rows they target)."""
    by_id = {n.id: n for n in nodes}
    edges: dict[str, dict[str, list[str]]] = {}
    relationships, diagnostics, deps = [], [], []
    missing_target: set[str] = set()
    related = sorted(n.id for n in nodes if n.operation in ("supersede", "retract", "challenge"))
    for mid in related:
        n = by_id[mid]
        # Every memory here was verified, so its envelope is valid; ``malformed-relationship``
        # cannot arise from a verified set.
        if n.target == mid:
            diagnostics.append(_node_diagnostic(n, "self-target"))
            continue
        target = by_id.get(n.target)
        if target is None:
            deps.append(dependency("lifecycle-target", mid, n.stream, n.target,
                                   "target-unavailable", n.operation))
            if n.operation == "supersede":
                missing_target.add(mid)
            continue
        if not target.has_row:
            diagnostics.append(_node_diagnostic(n, "wrong-target-kind"))
            continue
        if n.operation in ("supersede", "retract") and n.actor != target.actor:
            diagnostics.append(_node_diagnostic(n, "actor-mismatch"))
            continue
        relationships.append({"memoryId": mid, "stream": n.stream, "actor": n.actor,
                              "operation": n.operation, "targetId": n.target})
        edges.setdefault(n.target, {"supersede": [], "retract": [], "challenge": []})[n.operation].append(mid)
    lifecycles = {}
    for n in nodes:
        if not n.has_row:
            continue
        rid = n.id
        e = edges.get(rid)
        if e is None and rid not in missing_target:
            lifecycles[rid] = _ACTIVE
            continue
        e = e or {"supersede": [], "retract": [], "challenge": []}
        successors = tuple(sorted(e["supersede"]))
        retractions = tuple(sorted(e["retract"]))
        if rid in missing_target:
            cls = "dependency-missing"
        elif retractions:
            cls = "retracted"
        elif len(successors) > 1:
            cls = "branching"
        elif successors:
            cls = "superseded"
        else:
            cls = "active"
        lifecycles[rid] = Lifecycle(cls, tuple(sorted(e["challenge"])), successors, retractions)
    relationships.sort(key=lambda r: (r["targetId"], r["operation"], r["memoryId"]))
    diagnostics.sort(key=lambda d: (d["memoryId"], d["code"]))
    return Graph(lifecycles, relationships, diagnostics, deps)


def _node_diagnostic(n: Node, code: str) -> dict:
    out = {"memoryId": n.id, "stream": n.stream, "operation": n.operation}
    if n.target:
        out["targetId"] = n.target
    out["code"] = code
    return out


class _Ancestry:
    """Memoized ancestry, one walk per query commit: one ``git rev-list`` when the resolver can
    prove it equals the raw-header walk (see ``Resolver.reachable``), else breadth-first over raw
    parent headers."""

    def __init__(self, resolver):
        self.resolver = resolver
        self.walks: dict[str, tuple[set, str]] = {}

    def walk(self, start: str) -> tuple[set, str]:
        """(readable commits reachable from ``start``, first unreadable commit in BFS order)."""
        got = self.walks.get(start)
        if got is not None:
            return got
        fast = getattr(self.resolver, "reachable", None)
        commits = fast(start) if fast is not None else None
        if commits is not None:  # the same set, from one Git process; nothing was missing
            got = (commits, "")
            self.walks[start] = got
            return got
        seen = {start}
        queue = [start]
        readable = set()
        first_missing = ""
        i = 0
        while i < len(queue):
            commit = queue[i]
            i += 1
            try:
                parents = self.resolver.parents(commit)
            except ProbeError:
                parents = None
            if parents is None:
                first_missing = first_missing or commit
                continue
            readable.add(commit)
            for p in parents:
                if p not in seen:
                    seen.add(p)
                    queue.append(p)
        got = (readable, first_missing)
        self.walks[start] = got
        return got

    def contains(self, start: str, anchor: str) -> tuple[bool, str]:
        """(anchor found, first missing commit in BFS order or "")."""
        fast = getattr(self.resolver, "is_ancestor", None)
        if fast is not None and fast(anchor, start):
            return True, ""
        readable, first_missing = self.walk(start)
        return anchor in readable, first_missing


def applicability(mem: VerifiedMemory, ctx: Context, resolver, ancestry: _Ancestry) -> tuple[str, list]:
    """CONTRACT §5.5 for one row: (class, dependencies)."""
    record = mem.envelope.record
    rid, stream = mem.memory_id, mem.envelope.stream
    anchor = record.anchor
    a = anchor.commit
    try:
        kind = resolver.object_type(a)
    except ProbeError:
        return "anchor-invalid", []
    if kind is None:
        return "anchor-missing", [dependency("anchor-commit", rid, stream, a, "anchor-commit-unavailable")]
    if kind != "commit":
        return "anchor-invalid", []
    for entry in anchor.paths:
        try:
            found = resolver.tree_entry(a, entry.path)
        except ProbeError:
            return "anchor-invalid", []
        if found is not None and found[0] != "blob":
            return "anchor-invalid", []
        if entry.blob == "absent":
            if found is not None:
                return "anchor-invalid", []
        elif found is None or found[1] != entry.blob:
            return "anchor-invalid", []
    r = ctx.at_commit or a
    if r != a:
        try:
            rkind = resolver.object_type(r)
        except ProbeError:
            return "anchor-invalid", []
        if rkind is None:
            return "anchor-missing", [dependency("query-commit", rid, stream, r, "query-commit-unavailable")]
        if rkind != "commit":
            return "anchor-invalid", []
    mode = record.applicability.mode
    if mode == "exact":
        cls = "applicable" if r == a else "inapplicable"
    elif mode == "descendants":
        found, first_missing = ancestry.contains(r, a) if r != a else (True, "")
        if found:
            cls = "applicable"
        elif first_missing:
            return "anchor-missing", [dependency("anchor-ancestry", rid, stream, first_missing,
                                                 "ancestry-commit-unavailable")]
        else:
            cls = "inapplicable"
    else:
        s = ctx.subject
        cls = ("applicable" if s and s == record.applicability.subject and s == anchor.subject
               else "inapplicable")
    if cls == "applicable":
        if ctx.subject and mode != "subject" and ctx.subject != anchor.subject:
            cls = "inapplicable"
        elif ctx.path and ctx.path not in {p.path for p in anchor.paths}:
            cls = "inapplicable"
    return cls, []


def evidence(mem: VerifiedMemory, memory_ids, resolver) -> tuple[str, list, list]:
    """CONTRACT §5.6: (overall class, details sorted by (type, requested), dependencies)."""
    if not mem.envelope.record.evidence:  # (most records: a sync of 20,000 classified each)
        return "resolved", [], []
    rid, stream = mem.memory_id, mem.envelope.stream
    details, deps = [], []
    for item in mem.envelope.record.evidence or ():
        typ, sep, requested = item.partition(":")
        if not sep or not requested:
            status, reason, typ, requested = "invalid", "malformed-id", typ, requested
        elif typ == "git":
            try:
                found = resolver.object_type(requested)
                status, reason = ("resolved", "exact-object") if found else ("missing", "object-unavailable")
            except ProbeError:
                status, reason = "invalid", "object-inspection-failed"
        elif typ == "event":
            status, reason = "missing", "event-unavailable"
        elif typ == "memory":
            status, reason = (("resolved", "accepted-memory") if requested in memory_ids
                              else ("missing", "memory-unavailable"))
        else:
            status, reason = "invalid", "unsupported-type"
        details.append({"type": typ, "requested": requested, "ownerId": rid, "status": status,
                        "reason": reason})
        if status == "missing":
            deps.append(dependency(f"evidence-{typ}", rid, stream, requested, reason))
    details.sort(key=lambda d: (d["type"], d["requested"]))
    statuses = {d["status"] for d in details}
    overall = "invalid" if "invalid" in statuses else "missing" if "missing" in statuses else "resolved"
    return overall, details, deps


def trust(actor: str, kind: str, policy: MemoryPolicy | None) -> str:
    """CONTRACT §5.7; the actor check takes precedence."""
    if policy is None:
        return "policy-missing"
    if actor not in policy.trusted_actors:
        return "actor-untrusted"
    if kind not in policy.trusted_kinds:
        return "kind-untrusted"
    return "qualified"


def sort_row_dependencies(deps) -> list:
    return sorted(deps, key=lambda d: (d["missingId"], d["kind"], d.get("operation", ""),
                                       d["ownerId"], d["stream"], d["reason"]))


def project(memories: list[VerifiedMemory], ctx: Context, resolver, known=None) -> Projection:
    """CONTRACT §5: the projection of the verified set for one context.

    ``known`` answers ``memory ID in the verified set`` when ``memories`` is only part of it (a
    closure read from the verified state): every memory that targets a wanted row, and every
    row a wanted memory targets, must then be among ``memories``, so that the wanted rows'
    lifecycles, relationships and dependencies are exactly those of the whole set.
    """
    graph = lifecycle_graph(memories)
    ids = {m.memory_id for m in memories} if known is None else known
    ancestry = _Ancestry(resolver)
    rows = {}
    all_deps = list(graph.dependencies)
    by_id = {m.memory_id: m for m in memories}
    owned: dict[str, list] = {}
    for d in graph.dependencies:
        owned.setdefault(d["ownerId"], []).append(d)
    # Applicability depends only on the anchor, the applicability and the context, so rows that
    # share them (most rows of a session share one anchor commit) are decided once.
    memo: dict = {}
    for rid in sorted(graph.lifecycles):
        mem = by_id[rid]
        env = mem.envelope
        record = env.record
        key = (record.anchor, record.applicability)
        got = memo.get(key)
        if got is None:
            cls, deps = applicability(mem, ctx, resolver, ancestry)
            got = memo[key] = (cls, [(d["kind"], d["missingId"], d["reason"]) for d in deps])
        app = got[0]
        app_deps = [dependency(kind, rid, env.stream, missing, reason) for kind, missing, reason in got[1]]
        ev, details, ev_deps = evidence(mem, ids, resolver)
        own = owned.get(rid, []) + app_deps + ev_deps
        if own:
            all_deps += app_deps + ev_deps
            own = tuple(sort_row_dependencies(own))
        rows[rid] = Row(rid, env.stream, env.actor, env.timestamp, record, graph.lifecycles[rid],
                        app, ev, tuple(details), tuple(own), trust(env.actor, record.kind, ctx.policy))
    all_deps.sort(key=lambda d: (d["missingId"], d["ownerId"], d["kind"], d.get("operation", "")))
    return Projection(rows, graph.relationships, all_deps, graph.diagnostics)


def row_show_json(row: Row) -> dict:
    """CONTRACT §5.9 (``show``): the full signed record, evidence in signed order."""
    lc = row.lifecycle
    return {
        "id": row.id, "stream": row.stream, "actor": row.actor, "kind": row.record.kind,
        "contentDigest": content_digest(row.record.content), "anchor": anchor_json(row.record.anchor),
        "signature": "valid", "lifecycle": lc.lifecycle, "challengers": list(lc.challengers),
        "successors": list(lc.successors), "retractions": list(lc.retractions),
        "applicability": row.applicability, "evidence": row.evidence,
        "evidenceDetails": [dict(d) for d in row.evidence_details], "trust": row.trust,
        "data": record_json(row.record),
    }


def normalized_record_json(record: Record) -> dict:
    """``data`` of an index row (§8.2): topics and evidence sorted and unique, paths sorted."""
    data = record_json(record)
    data["topics"] = sorted(set(data["topics"]))
    data["evidence"] = sorted(set(data["evidence"]))
    anchor = data["anchor"]
    if "paths" in anchor:
        anchor["paths"] = sorted(anchor["paths"], key=lambda p: p["path"].encode("utf-8"))
    return data


def row_index_json(row: Row) -> dict:
    """CONTRACT §8.2 / §7.11: the index and recall row."""
    lc = row.lifecycle
    data = normalized_record_json(row.record)
    return {
        "id": row.id, "stream": row.stream, "actor": row.actor, "signedTimestamp": row.signed_timestamp,
        "kind": row.record.kind, "contentDigest": content_digest(row.record.content),
        "anchor": data["anchor"], "signature": "valid", "lifecycle": lc.lifecycle,
        "challengers": list(lc.challengers), "successors": list(lc.successors),
        "retractions": list(lc.retractions), "applicability": row.applicability,
        "evidence": row.evidence,
        "evidenceDetails": sorted((dict(d) for d in row.evidence_details),
                                  key=lambda d: (d["type"], d["requested"], d["ownerId"])),
        "dependencies": [dict(d) for d in row.dependencies], "trust": row.trust, "data": data,
    }
