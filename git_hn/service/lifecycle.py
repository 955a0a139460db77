"""Lifecycle operations: supersede, retract, challenge (CONTRACT §5.3, §10.3, §10.4).

Who may do what is decided against the verified memory set, under the stream lock, on every
append attempt: supersede and retract only by the target's author, challenge only by another
actor. A corrected memory is never rewritten; its history stays, and projection derives the
lifecycle class from the new relationship.
"""

from __future__ import annotations

from ..core import grammar
from ..core.gostr import to_lower, trim_space
from ..core.limits import LIMITS
from ..errors import InputError, ValidationError
from ..store import identity as identmod
from ..store import streams
from ..store.append import Appended, Draft, append, replay_head
from ..store.repo import Repo
from . import index_refresh
from .memory import lint
from .requests import RecordRequest, check_input_anchor


def _not_found(target: str) -> InputError:
    return InputError(f"memory {target} was not found in verified local or accepted streams")


def target_of(repo: Repo, target: str) -> tuple[str, str] | None:
    """(operation, actor) of a verified memory, from the verified state (or a full collection
    when the state cannot answer); None when no verified stream holds it."""
    from ..store import stateview

    def from_view(view):
        info = view.info([target]).get(target)
        return None if info is None else (info.operation, info.actor)

    def full():
        mem = streams.collect(repo).by_id().get(target)
        return None if mem is None else (mem.envelope.operation, mem.envelope.actor)

    return stateview.serve(repo, from_view, full)


def _target_check(repo: Repo, operation: str, target: str, actor: str):
    def check(_position):
        found = target_of(repo, target)
        if found is None:
            raise _not_found(target)
        op, author = found
        if op not in ("record", "supersede"):
            if operation == "supersede":
                raise InputError(f"supersession target {target} is not a memory record")
            raise InputError(f"lifecycle target {target} is not a memory record")
        if operation == "challenge":
            if author == actor:
                raise InputError(f"an author cannot challenge their own memory {target}")
        elif author != actor:
            raise InputError(f"only the target author may {operation} memory {target}")

    return check


def normalize_reason(operation: str, reason: str) -> str:
    """§10.3: TrimSpace and lowercase, then it must be a token; nothing else is rewritten."""
    value = to_lower(trim_space(reason))
    if not grammar.is_token(value, LIMITS.max_reason):
        raise ValidationError(f"memory {operation} operation has invalid fields")
    return value


def _stream(ident, stream: str | None) -> str:
    if stream is None:
        return grammar.default_stream(ident.actor)
    if not grammar.is_digest_id(stream):
        raise ValidationError("memory stream is invalid")
    return stream


def _append(repo: Repo, ident, draft: Draft, operation: str, target: str) -> Appended:
    """Append under the target checks, or return the head this request repeats (§7.14)."""
    result = append(repo, ident, draft, check=_target_check(repo, operation, target, ident.actor),
                    replay=replay_head(ident, draft))
    if not result.replayed:
        index_refresh.after_ref_change(repo)
    return result


def supersede(repo: Repo, target: str, req: RecordRequest, *, from_input: bool = False,
              allow_secret_shaped: bool = False) -> Appended:
    lint(req.record, allow_secret_shaped=allow_secret_shaped, raw_topics=req.raw_topics)
    ident = identmod.load_active(repo)
    if req.actor is not None and req.actor != ident.actor:
        raise InputError("record input actor does not match the active identity")
    if from_input:
        check_input_anchor(repo, req.record)
    draft = Draft("supersede", _stream(ident, req.stream), req.record, target=target)
    return _append(repo, ident, draft, "supersede", target)


def retract(repo: Repo, target: str, reason: str, stream: str | None, *,
            allow_secret_shaped: bool = False) -> Appended:
    raw_reason, reason = reason, normalize_reason("retract", reason)
    lint(None, reason, allow_secret_shaped=allow_secret_shaped, raw_reason=raw_reason)
    ident = identmod.load_active(repo)
    draft = Draft("retract", _stream(ident, stream), None, target=target, reason=reason)
    return _append(repo, ident, draft, "retract", target)


def challenge(repo: Repo, target: str, reason: str, evidence: list[str], stream: str | None, *,
              allow_secret_shaped: bool = False) -> Appended:
    raw_reason, reason = reason, normalize_reason("challenge", reason)
    items = tuple(evidence)
    if (len(items) > LIMITS.max_evidence or len(set(items)) != len(items)
            or not all(grammar.is_typed_evidence(e) for e in items)):
        raise ValidationError("memory challenge evidence is invalid")
    lint(None, reason, allow_secret_shaped=allow_secret_shaped, raw_reason=raw_reason)
    ident = identmod.load_active(repo)
    draft = Draft("challenge", _stream(ident, stream), None, target=target, reason=reason,
                  evidence=items or None)
    return _append(repo, ident, draft, "challenge", target)
