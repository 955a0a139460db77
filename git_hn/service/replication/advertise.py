"""The remote's advertisement and what a sync requests from it (CONTRACT §9.4, §11(c); issue 11).

One ``git ls-remote`` lists the memory refs (and the collaboration refs §11(c) reports as
skipped). Only refs that match the memory ref grammar are considered, whatever the server sends.
Each selected stream then becomes an outcome: ambiguous or missing owners fail here; a stream
whose advertised tip equals the accepted tip is up to date and costs nothing more; the rest are
requested. The number requested in one sync is bounded by the selection's ``max-streams`` budget
(git-hn), so a remote advertising a huge number of streams cannot make one sync run for hours.
"""

from __future__ import annotations

import re

from ...core.grammar import REMOTES_PREFIX, is_oid, parse_local_ref
from ...store.transport import advertisement, remote_env
from ...store.repo import Repo
from .outcomes import UP_TO_DATE, Outcome, PhaseError, phase

_ACTOR_REF = re.compile(r"refs/hn/actors/[0-9a-f]{64}")
_PROPOSAL_REF = re.compile(r"refs/hn/proposals/[0-9a-f]{64}")


def advertise(repo: Repo, url: str, remote: str) -> tuple[dict, set]:
    """({stream: [(actor, oid)]}, {(kind, id)} of well-formed actor and proposal refs)."""
    proc = repo.git.run(list(advertisement(url)), env=remote_env())  # often started early
    if proc.returncode != 0:
        raise phase("advertisement", remote)
    memory: dict[str, list[tuple[str, str]]] = {}
    others: set[tuple[str, str]] = set()
    text = proc.stdout.decode("utf-8", "replace")
    n = repo.oid_hex_len
    # every line must be "<oid>\t<ref>"; the memory refs, nearly all of them, are taken in one
    # C-speed pass, and only the other lines are looked at one by one
    lines = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
    found = 0
    for oid, actor, hexs in _memory_line(n).findall(text):
        memory.setdefault("sha256:" + hexs, []).append((actor, oid))
        found += 1
    if found != lines:
        for line in text.splitlines():
            parts = line.split("\t")
            if len(parts) != 2 or not is_oid(parts[0]) or len(parts[0]) != n:
                raise phase("advertisement validation", remote)
            oid, ref = parts
            if parse_local_ref(ref) is not None:
                continue  # taken above
            if _ACTOR_REF.fullmatch(ref):
                others.add(("actor", ref.rsplit("/", 1)[1]))
            elif _PROPOSAL_REF.fullmatch(ref):
                others.add(("proposal", "sha256:" + ref.rsplit("/", 1)[1]))
    return memory, others


_LINES: dict = {}


def _memory_line(n: int):
    """A well-formed memory ref line (§3.1 grammar: lowercase hex, exact lengths)."""
    got = _LINES.get(n)
    if got is None:
        got = _LINES[n] = re.compile(rf"^([0-9a-f]{{{n}}})\trefs/hn/memory/([0-9a-f]{{64}})/([0-9a-f]{{64}})$",
                                     re.MULTILINE)
    return got


def accepted_heads(repo: Repo, remote: str) -> dict[tuple[str, str], str]:
    """(actor, stream) -> accepted tip of every accepted memory ref of ``remote`` (one
    ``for-each-ref``)."""
    prefix = f"{REMOTES_PREFIX}{remote}/memory/"
    out = repo.git.run(["for-each-ref", "--format=%(objectname) %(refname)", prefix])  # often early
    pattern = re.compile(rf"^([0-9a-f]{{{repo.oid_hex_len}}}) {re.escape(prefix)}([0-9a-f]{{64}})/([0-9a-f]{{64}})$",
                         re.MULTILINE)
    return {(actor, "sha256:" + hexs): oid
            for oid, actor, hexs in pattern.findall(out.stdout.decode("utf-8", "replace"))}


def requests(sel, advertised: dict, others: set, accepted: dict, result, remote: str) -> list[Outcome]:
    """Outcomes for every selector (§9.4, §11(c)); returns the streams to fetch."""
    for actor in sel.actors:
        result.outcomes.append(Outcome.skipped("actor", actor))
    for proposal in sel.proposals:
        result.outcomes.append(Outcome.skipped("proposal", proposal))
    if sel.all:
        seen = {(o.kind, o.id) for o in result.outcomes}
        for kind, ident in sorted(others):
            if (kind, ident) not in seen:
                result.outcomes.append(Outcome.skipped(kind, ident))
    wanted = []
    for stream in (sorted(advertised) if sel.all else list(sel.memories)):
        out = Outcome("memory", stream)
        owners = advertised.get(stream, [])
        result.outcomes.append(out)
        if len(owners) > 1:
            text = "advertised" if sel.all else "selected"
            out.fail("structurally-invalid", f"{text} memory {stream} has ambiguous owners on remote {remote}")
        elif not owners:
            out.fail("dependency-missing", f"selected memory {stream} is not advertised by remote {remote}",
                     missingId=stream,
                     recovery="verify the full selection ID and retry when the exact ref is advertised")
        else:
            out.actor, out.advertised = owners[0]
            out.old = accepted.get((out.actor, stream), "")
            if out.old == out.advertised:
                out.status = UP_TO_DATE
            else:
                wanted.append(out)
    limit = sel.max_streams
    if len(wanted) > limit:
        raise PhaseError(f"replication max-streams budget exceeded for remote {remote}: configured={limit} "
                         f"requested={len(wanted)}; select exact streams or raise it with "
                         f"git hn replication select {remote} --max-streams N")
    return wanted
