"""Which untrusted actors the trust policy once trusted, and the commit that stopped it (a team
trial): after a key was revoked, every message about it still said to trust it (recall's hint,
``identity show`` in the revoked actor's clone, a record's hint), a ready-made request that
whoever holds a stolen key could forward to a maintainer. The messages say instead since when
it is no longer trusted, and suggest nothing.

One ``git log`` of the query commit's history (run at the top of the working tree: a review found
the pathspec counted from a subdirectory), limited to ``.hn/policy.json`` and to the changes
of lines that name one of the actors asked about (``-G``, no external diff or textconv driver),
and only when such a message is about to be printed: never on the quiet path. At most ``SHOWN``
actors are asked about and ``COMMITS`` commits read. The newest commit whose change names an
actor decides: one that removed a line naming it and added none is its removal; any other says
nothing. An actor removed by a merge's resolution only, or longer ago than those commits, is not
found, and the message keeps its usual advice.

Trusts: the history of the file in this clone, as the policy at each commit is trusted; the
subject is its author's text, returned one line and at most ``SUBJECT_SHOWN`` characters (the
wording, ``core.hints.no_longer_trusted``, makes it inert).
"""

from __future__ import annotations

from ..core.tuples import NamedTuple
from ..store.repo import Repo

SHOWN = 3  # actors a message names as no longer trusted (those with the most memories first)
COMMITS = 20  # newest commits of the policy's history that change a line naming one of them
SUBJECT_SHOWN = 60  # characters of the removing commit's subject


class Revoked(NamedTuple):
    actor: str
    commit: str  # the commit of the query commit's history that removed it from the policy
    subject: str  # that commit's subject: author text, one line, bounded


def revocations(repo: Repo, commit: str, actors) -> dict[str, Revoked]:
    """actor -> its removal from ``.hn/policy.json`` in the history of ``commit``, for the first
    ``SHOWN`` of ``actors`` (full IDs) that the file once named and whose newest change removed
    them; one ``git log``, none without actors or a commit."""
    from ..core import grammar
    from ..core.gostr import bounded

    asked = [a for a in dict.fromkeys(actors) if grammar.is_actor(a)][:SHOWN]
    if not asked or not commit:
        return {}
    from ..store.worktree import from_top

    proc = repo.git.run([*from_top(repo), "log", f"-n{COMMITS}", f"-G{'|'.join(asked)}", "-p", "-U0", "--no-color",
                         "--no-ext-diff", "--no-textconv", "--no-renames", "--format=%x00%H %s", "--end-of-options",
                         commit, "--", ".hn/policy.json"])
    if proc.returncode != 0:
        return {}
    found: dict[str, Revoked] = {}
    decided: set[str] = set()
    for chunk in proc.stdout.decode("utf-8", "replace").split("\x00")[1:]:
        head, _nl, diff = chunk.partition("\n")
        oid, _sp, subject = head.partition(" ")
        lines = diff.splitlines()
        removed = " ".join(x for x in lines if x.startswith("-") and not x.startswith("---"))
        added = " ".join(x for x in lines if x.startswith("+") and not x.startswith("+++"))
        for actor in asked:
            if actor in decided or (actor not in removed and actor not in added):
                continue
            decided.add(actor)
            if actor in removed and actor not in added:
                subject = bounded(subject)
                cut = subject if len(subject) <= SUBJECT_SHOWN else subject[:SUBJECT_SHOWN - 1] + "…"
                found[actor] = Revoked(actor, oid, cut)
    return found


def among(repo: Repo, commit: str, authors: dict) -> tuple[tuple[Revoked, ...], bool]:
    """For a hint about memories hidden as ``actor-untrusted``: of their ``authors`` (actor ->
    how many), those no longer trusted (``revocations``; the ``SHOWN`` with the most memories are
    asked about), and whether that is every one of them."""
    if not authors or not commit:
        return (), False
    asked = sorted(authors, key=lambda a: (-authors[a], a))[:SHOWN]
    found = revocations(repo, commit, asked)
    revoked = tuple(found[a] for a in asked if a in found)
    return revoked, len(revoked) == len(authors)
