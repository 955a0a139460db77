"""Reading memory while the committed ``.hn/policy.json`` is invalid (a newcomer trial).

CONTRACT §6.1: a policy that exists but is invalid fails every memory command that needs it,
and the trust of every memory depends on it. ``recall``, ``brief``, ``view`` and ``export``
keep failing (they select by trust; each takes ``--at REV``, which reads another commit's
policy). ``log`` and the human ``show``, which list memories whatever their trust, read
on when their caller asks for it (``notes``, a list the policy's error is added to): the
projection runs without a policy and every row's trust is shown as ``policy-invalid``, a class
the contract does not have, so it never appears in its formats (``show --json``, recall, the
brief) and never reads as trusted. Trusts: ``store.resolver`` for the policy's validation.
"""

from __future__ import annotations

from ..core.projection import Context
from ..errors import PolicyInvalid
from ..store.repo import Repo
from ..store.resolver import Resolver, load_policy, where

INVALID = "policy-invalid"


def head_context(repo: Repo, notes: list | None):
    """(Context at HEAD without subject or path, resolver, whether the policy is invalid). With
    ``notes`` (a list), an invalid policy adds the warning line's text to it and the context has
    no policy; without, it raises as ever."""
    head = repo.head_commit()
    resolver = Resolver(repo)
    try:
        policy = load_policy(repo, resolver, head)
    except PolicyInvalid as exc:
        if notes is None:
            raise
        notes.append(f"{where(exc.cause, head)}; until then every trust is shown as {INVALID}")
        return Context(head, "", "", None, ""), resolver, True
    return Context(head, "", "", policy.memory, policy.digest), resolver, False


def marked(row: dict) -> dict:
    """A projected row (index or show form) with its trust shown as ``policy-invalid``."""
    return {**row, "trust": INVALID}
