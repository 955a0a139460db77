"""Which ref holds a commit: where a memory that does not apply at the query commit is anchored.

For hints only (the brief's newer handoffs, recall's left-out memories, ``show``): never a trust
or applicability decision, which the projection makes from raw parent headers. Trusts nothing it
is given beyond a commit ID already checked as an OID.
"""

from __future__ import annotations

from ..store.repo import Repo


def holding_ref(repo: Repo, commit: str) -> str:
    """The short name of the first branch, remote-tracking ref or tag (in that order) whose
    history holds ``commit`` (a symbolic ``…/HEAD`` is skipped), else "": where a memory that does
    not apply here is anchored, for a hint (an agent trial: "a squash merge or a rebase? …
    supersede --at HEAD" copied a decision of an open branch onto main). One ``for-each-ref``."""
    proc = repo.git.run(["for-each-ref", "--count=16", "--format=%(refname:short)%00%(symref)",
                         f"--contains={commit}", "refs/heads/", "refs/tags/", "refs/remotes/"])
    for line in proc.stdout.decode("utf-8", "replace").splitlines() if proc.returncode == 0 else ():
        name, _nul, symref = line.partition("\0")
        if name and not symref:
            return name
    return ""
