"""``git hn memory recall`` and ``git hn policy show`` (CONTRACT §6.6, §7).

Recall reads verified streams, the policy at the exact query commit, and Git objects; it writes
nothing but (later) the private index. It never fetches, runs commands or updates refs.
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


def projected_rows(repo: Repo, at: str, subject: str, path: str):
    """(rows in index form, policy, sources) for one query context (CONTRACT §7.6 steps 1–2)."""
    sources = streams.list_sources(repo)
    collection = streams.collect(repo, sources)
    resolver = Resolver(repo)
    resolver.prefetch_types({m.envelope.record.anchor.commit for m in collection.memories
                             if m.envelope.record is not None})
    policy = load_policy(repo, resolver, at)
    ctx = Context(at, subject, path, policy.memory, policy.digest)
    proj = project(list(collection.memories), ctx, resolver)
    return [row_index_json(r) for r in proj.rows.values()], policy, sources


def recall(repo: Repo, req: core.RecallRequest, *, from_input: bool = False) -> dict:
    """CONTRACT §7.6, served from the private index (§11(d))."""
    from . import index

    req, at, terms = _prepare(repo, req, from_input)
    return index.recall(repo, req, at=at, terms=terms)


def recall_full(repo: Repo, req: core.RecallRequest, *, from_input: bool = False) -> dict:
    """The same answer from a full projection of verified streams (the reference; tests)."""
    req, at, terms = _prepare(repo, req, from_input)
    rows, policy, sources = projected_rows(repo, at, req.subject, req.path)
    kept = [r for r in rows if core.matches(r, req, terms)]
    fingerprint = core.source_fingerprint(policy.digest, [(s.ref, s.head) for s in sources])
    return core.page(req, kept, core.query_digest(req, fingerprint, policy.digest))


def _prepare(repo: Repo, req: core.RecallRequest, from_input: bool):
    if from_input:
        at = resolve_input_commit(repo, req.at_commit)
    else:
        at = repo.resolve_commit(req.at_commit or "HEAD")
    req = core.normalize(req._replace(at_commit=at))
    return req, at, core.query_terms(req.query)


def policy_show(repo: Repo, rev: str) -> dict:
    commit = repo.resolve_commit(rev)
    policy = load_policy(repo, Resolver(repo), commit)
    doc = {"version": 0, "commit": commit, "policyDigest": policy.digest}
    if policy.memory is not None:
        doc["memory"] = {"trustedActors": list(policy.memory.trusted_actors),
                         "trustedKinds": list(policy.memory.trusted_kinds)}
    return doc


def policy_lines(doc: dict) -> list[str]:
    lines = [f"Policy commit: {doc['commit']}", f"Policy digest: {doc['policyDigest']}"]
    mem = doc.get("memory")
    if mem is None:
        return lines + ["Memory policy: absent"]
    lines.append("Memory policy: present")
    from ..core.gostr import one_line

    lines += [f"trustedActor: {one_line(a)}" for a in mem["trustedActors"]]
    lines += [f"trustedKind: {k}" for k in mem["trustedKinds"]]
    return lines
