"""``.hn/policy.json``: whole-document validation, the memory section and the digest (CONTRACT §6).

Pure: takes the file bytes (or None when the query commit has no such entry) and returns the
memory policy and its digest. The policy is read from the exact query commit by the store, never
from the working tree: a policy an attacker edits locally (or stages) must not change which
memories are trusted at a given commit (*working-tree policy injection*).

Absence is not trust: without a memory section every memory is ``policy-missing``.
"""

from __future__ import annotations


from ..errors import PolicyError
from . import hashing
from .gostr import Lazy
from .limits import KINDS, LIMITS
from .strictjson import JsonFloat, fold_key, json_type, read_document
from .tuples import NamedTuple

MISSING_DIGEST = "sha256:" + hashing.sha256(b"hn-memory-policy-missing-v0").hexdigest()
_ACTOR_ANY_CASE = Lazy(r"[0-9a-fA-F]{64}")
_PIPELINE = Lazy(r"[A-Za-z0-9._-]{1,64}")
INT64_MAX = 2**63 - 1


class MemoryPolicy(NamedTuple):
    trusted_actors: tuple[str, ...]
    trusted_kinds: tuple[str, ...]


class Policy(NamedTuple):
    digest: str
    memory: MemoryPolicy | None
    present: bool
    maintainers: tuple[str, ...] = ()  # as written (``policy show`` names them; nothing is enforced with them)


def digest_of(data: bytes | None) -> str:
    if data is None:
        return MISSING_DIGEST
    return "sha256:" + hashing.sha256(data).hexdigest()


def _bind(value, names: tuple[str, ...], where: str) -> dict:
    """Go struct binding: keys fold to field names (ASCII case, K, ſ); unknown keys refused.
    The causes after ``parse policy: `` are git-hn's own words (CONTRACT §0.5), not Go's: a
    newcomer trial read ``json: unknown field "extra"`` as a message from another program."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _wrong(value, where, "an object")
    fields = {n.lower(): n for n in names}
    out = {}
    for key, v in value.items():
        name = fields.get(fold_key(key))
        if name is None:
            raise PolicyError(f'parse policy: unknown field "{_safe(key)}" in {where}, which takes only '
                              f'{", ".join(names)}')
        out[name] = v
    return out


def _wrong(v, where: str, expected: str) -> PolicyError:
    kind = "a number with a fraction or exponent" if isinstance(v, JsonFloat) else {
        "bool": "true or false", "number": "a number", "string": "a string", "array": "a list",
        "object": "an object"}.get(json_type(v), json_type(v))
    return PolicyError(f"parse policy: {where} must be {expected}, not {kind}")


def _safe(s: str) -> str:
    """A policy's own text quoted in an error: one line of at most 240 bytes (a policy is read
    from the commit asked about, which anyone's branch can hold)."""
    from .gostr import bounded

    return bounded(s)


def _string(v, where: str) -> str:
    if v is None:
        return ""
    if not isinstance(v, str) or isinstance(v, JsonFloat):
        raise _wrong(v, where, "a string")
    return v


def _strings(v, where: str) -> list[str] | None:
    if v is None:
        return None
    if not isinstance(v, list):
        raise _wrong(v, where, "a list of strings")
    return [_string(x, f"each entry of {where}") for x in v]


def _int(v, where: str) -> int:
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, int) or isinstance(v, JsonFloat):
        raise _wrong(v, where, "a whole number")
    if v > INT64_MAX:
        raise PolicyError(f"parse policy: {where} is too large")
    return v


def _bool(v, where: str) -> bool:
    if v is None:
        return False
    if not isinstance(v, bool):
        raise _wrong(v, where, "true or false")
    return v


def _check_actors(items: list[str], label: str) -> None:
    seen = set()
    for a in items:
        if _ACTOR_ANY_CASE.fullmatch(a) is None:
            raise PolicyError(f'{label} contains invalid actor "{_safe(a)}"')
        if a in seen:
            raise PolicyError(f"{label} contains duplicate actor {a}")
        seen.add(a)


def parse_policy(data: bytes, in_order: bool = True) -> MemoryPolicy | None:
    """Validate a complete ``hn.policy/0`` document and return its memory section (or None).
    ``in_order=False`` lets the memory lists be out of order (and returns them as written): for
    ``git hn policy trust|untrust``, which write them sorted, never for a policy that is read."""
    return _parse(data, in_order)[1]


def _parse(data: bytes, in_order: bool = True) -> tuple[tuple[str, ...], MemoryPolicy | None]:
    """``parse_policy``, with the maintainers first."""
    if len(data) > LIMITS.max_policy:
        raise PolicyError(f"policy exceeds {LIMITS.max_policy} bytes")
    doc = read_document(data, prefix="parse policy: ", max_bytes=LIMITS.max_policy, fold_keys=True,
                        error=PolicyError)
    if doc is None:
        doc = {}
    top = _bind(doc, ("version", "maintainers", "proposals", "pipelines", "memory"), "the policy")
    version = _string(top.get("version"), "version")
    if version != "hn.policy/0":
        raise PolicyError(f'unsupported policy version "{_safe(version)}"')
    maintainers = _strings(top.get("maintainers"), "maintainers") or []
    if not maintainers:
        raise PolicyError("policy requires at least one maintainer")
    _check_actors(maintainers, "maintainers")
    proposals = _bind(top.get("proposals"), ("requiredApprovals", "requiredAccepts",
                                             "trustedReviewers", "allowAuthorApproval"), "proposals")
    approvals = _int(proposals.get("requiredApprovals"), "proposals.requiredApprovals")
    accepts = _int(proposals.get("requiredAccepts"), "proposals.requiredAccepts")
    reviewers = _strings(proposals.get("trustedReviewers"), "proposals.trustedReviewers") or []
    _bool(proposals.get("allowAuthorApproval"), "proposals.allowAuthorApproval")
    if not 0 <= approvals <= 64:
        raise PolicyError("requiredApprovals must be between 0 and 64")
    if approvals > len(reviewers):
        raise PolicyError("requiredApprovals exceeds the number of trusted reviewers")
    if not 1 <= accepts <= len(maintainers):
        raise PolicyError("requiredAccepts must be between 1 and the number of maintainers")
    _check_actors(reviewers, "trustedReviewers")
    pipelines = top.get("pipelines")
    if pipelines is not None:
        if not isinstance(pipelines, dict):
            raise _wrong(pipelines, "pipelines", "an object")
        for name in sorted(pipelines):
            if _PIPELINE.fullmatch(name) is None or name in (".", ".."):
                raise PolicyError(f'policy has invalid pipeline name "{_safe(name)}"')
            spec = _bind(pipelines[name], ("requiredResults", "trustedRunners"), f'pipeline "{name}"')
            results = _int(spec.get("requiredResults"), f'pipeline "{name}" requiredResults')
            runners = _strings(spec.get("trustedRunners"), f'pipeline "{name}" trustedRunners') or []
            if not 1 <= results <= 64:
                raise PolicyError(f'pipeline "{name}" requiredResults must be between 1 and 64')
            if results > len(runners):
                raise PolicyError(f'pipeline "{name}" requiredResults exceeds its trusted runner count')
            _check_actors(runners, f"pipeline {name} trustedRunners")
    return tuple(maintainers), _memory_section(top.get("memory"), in_order)


def _memory_section(value, in_order: bool) -> MemoryPolicy | None:
    if value is None:
        return None
    mem = _bind(value, ("trustedActors", "trustedKinds"), "memory")
    actors = _strings(mem.get("trustedActors"), "memory.trustedActors")
    if actors is None:
        raise PolicyError("memory trustedActors is required")
    kinds = _strings(mem.get("trustedKinds"), "memory.trustedKinds")
    if kinds is None:
        raise PolicyError("memory trustedKinds is required")
    seen: set[str] = set()
    for a in actors:
        if _ACTOR_ANY_CASE.fullmatch(a) is None:
            raise PolicyError(f'memory trustedActors contains invalid actor "{_safe(a)}"')
        if a in seen:
            raise PolicyError(f"memory trustedActors contains duplicate actor {a}")
        seen.add(a)
    if in_order and actors != sorted(actors):
        raise PolicyError("memory trustedActors must be sorted")
    seen = set()
    for k in kinds:
        if k not in KINDS:
            raise PolicyError(f'memory trustedKinds contains invalid kind "{_safe(k)}"')
        if k in seen:
            raise PolicyError(f"memory trustedKinds contains duplicate kind {k}")
        seen.add(k)
    if in_order and kinds != sorted(kinds):
        raise PolicyError("memory trustedKinds must be sorted")
    return MemoryPolicy(tuple(actors), tuple(kinds))


def load(data: bytes | None) -> Policy:
    """The policy at a commit: ``data`` is the file's bytes, or None when it has no entry."""
    if data is None:
        return Policy(MISSING_DIGEST, None, False)
    maintainers, memory = _parse(data)
    return Policy(digest_of(data), memory, True, maintainers)


def actor_standing(actor: str, policy: MemoryPolicy | None) -> tuple[str, str]:
    """Whether the memory policy at a commit lists ``actor`` (matched exactly, as §5.7 matches an
    author): ``("trusted" | "untrusted", why)``. Said beside a challenger's or retractor's signed
    name wherever one is shown: any actor's challenge counts (§5.3) and a name is its author's own
    choice (*impersonation*: a Cyrillic "А" signs as "Аlice"), so the standing, not the name, tells
    a teammate's challenge from a stranger's."""
    if policy is None:
        return "untrusted", "there is no trust policy at this commit"
    if actor in policy.trusted_actors:
        return "trusted", "the policy at this commit lists this actor"
    return "untrusted", "the policy at this commit does not list this actor"
