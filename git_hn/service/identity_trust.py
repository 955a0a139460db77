"""What the trust policy at HEAD says of the active identity (onboarding, a team trial):
``identity show`` and ``identity public`` say it on stderr, ``identity public --json`` in its
document, so a newcomer learns whether their memory will show in recall and the brief, and what
a maintainer runs, before the first empty brief.

Reads the policy committed at HEAD (one blob, no verification of memory) and, when HEAD's has
none or does not trust the actor, whether the working tree's ``.hn/policy.json`` differs; when
it trusts the actor, whether the reference branch's policy does too (``service.policy_drift``).
Trusts the committed policy (as recall does).
"""

from __future__ import annotations

from ..errors import HnError
from ..store.repo import Repo


def trust_at_head(repo: Repo, actor: str) -> dict:
    """``{"commit", "trust"[, "trustedKinds"]}``: ``trust`` is ``qualified`` (the policy at HEAD
    trusts the actor, for ``trustedKinds``), ``kind-untrusted`` (it trusts the actor for no kind:
    ``trustedKinds`` empty, so recall leaves all of its memory out), ``actor-untrusted``,
    ``policy-missing`` (no memory
    section, or no file), ``policy-invalid``; ``commit`` is HEAD's (None while it is unborn,
    with ``trust`` ``policy-missing``)."""
    from ..store.resolver import Resolver, load_policy

    head = repo.head_commit() or None
    if head is None:
        return {"commit": None, "trust": "policy-missing"}
    try:
        memory = load_policy(repo, Resolver(repo), head).memory
    except HnError:
        return {"commit": head, "trust": "policy-invalid"}
    if memory is None:
        return {"commit": head, "trust": "policy-missing"}
    if actor not in memory.trusted_actors:
        return {"commit": head, "trust": "actor-untrusted"}
    kinds = list(memory.trusted_kinds)  # (a review: "qualified" for no kind, where recall says kind-untrusted)
    return {"commit": head, "trust": "qualified" if kinds else "kind-untrusted", "trustedKinds": kinds}


def trust_line(repo: Repo, actor: str, found: dict) -> str:
    """One line of ``found`` (``trust_at_head``) for a person: whether memory signed by ``actor``
    shows in default recall and the brief, and what a maintainer runs when it does not; for an
    actor the policy no longer trusts (``service.revoked``), since when, and no such command."""
    commit = f"HEAD ({found['commit'][:12]})" if found["commit"] else "HEAD (no commit yet)"
    trust = found["trust"]
    if trust == "qualified":
        return (f"trust: the policy at {commit} trusts this actor for {', '.join(found['trustedKinds'])}: its "
                "memory of those kinds shows in recall and the brief")
    if trust == "policy-invalid":
        return f"trust: the policy at {commit} is invalid, and every read at HEAD fails: git hn policy show says why"
    from ..core.hints import MAINTAINER_RUNS

    working = _working(repo)
    if trust == "kind-untrusted":
        return (f"trust: the policy at {commit} trusts this actor but no kind of memory, so default recall and the "
                f"brief leave its memory out; {MAINTAINER_RUNS.format(command='git hn policy trust --kind KIND')}"
                f"{working}")
    if trust == "policy-missing":
        return (f"trust: {commit} has no memory trust policy, so default recall and the brief show no memory; a "
                f"maintainer runs git hn policy init (which trusts whoever runs it), then git hn policy trust "
                f"{actor}, and commits .hn/policy.json{working}")
    gone = revoked(repo, actor, found["commit"])
    if gone is not None:  # (a team trial: the line told a revoked key's holder to ask to be trusted again)
        from ..core.hints import NEW_IDENTITY, since

        return (f"trust: the policy at {commit} no longer trusts this actor, {since(gone.commit, gone.subject)}, so "
                f"default recall and the brief leave its memory out; to sign again, {NEW_IDENTITY}, and send a "
                f"maintainer what its git hn identity public prints{working}")
    return (f"trust: the policy at {commit} does not trust this actor, so default recall and the brief leave its "
            f"memory out; {MAINTAINER_RUNS.format(command=f'git hn policy trust {actor}')}{working}")


def revoked(repo: Repo, actor: str, head: str | None = None):
    """The removal of ``actor`` from the trusted actors in HEAD's history (``service.revoked``:
    bounded, advisory), or None."""
    from .revoked import revocations

    head = repo.head_commit() if head is None else head
    return revocations(repo, head, [actor]).get(actor) if head else None


def init_refusal(repo: Repo, exc) -> Exception:
    """``init``'s refusal where an identity is active (``store.identity.IdentityExists``): when the
    policy at HEAD no longer trusts it, since when and how to make a new one (a newcomer trial was
    told to make a new identity, and ``init`` refused without saying how); else ``exc`` itself."""
    from ..core.hints import NEW_IDENTITY, since
    from ..errors import InputError

    gone = revoked(repo, exc.actor)
    if gone is None:
        return exc
    return InputError(f"identity already exists at {exc.path}, and it is no longer trusted "
                      f"{since(gone.commit, gone.subject)}: to sign again, {NEW_IDENTITY}")


def drift_line(repo: Repo, actor: str, found: dict) -> str:
    """When the policy at HEAD trusts ``actor`` (``found``: ``trust_at_head``) and the reference
    branch's does not, the drift line recall prints (``service.policy_drift``); "" otherwise (a
    newcomer trial: in a clone that had fetched the revocation of its key without merging it,
    ``identity show`` said only that HEAD's policy trusts it, while recall said origin's does not)."""
    if found["trust"] != "qualified":
        return ""
    from .policy_drift import hint

    return hint(repo, found["commit"], {(actor, kind) for kind in found["trustedKinds"]})


def _working(repo: Repo) -> str:
    """`` (.hn/policy.json in the working tree differs: committed, it applies)`` when the
    working tree's policy is not HEAD's; "" otherwise."""
    from .policy_edit import uncommitted

    try:
        return " (.hn/policy.json in the working tree differs from HEAD's: it applies once committed)" \
            if uncommitted(repo) else ""
    except HnError:  # (no working tree)
        return ""


def public_json(ident, found: dict) -> dict:
    """``identity public --json`` (git-hn): the identity's public facts and ``trustAtHead``."""
    return {"version": 0, "actor": ident.actor, "name": ident.name, "publicKey": ident.public_key,
            "trustAtHead": found}
