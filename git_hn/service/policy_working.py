"""What the working tree's ``.hn/policy.json`` holds beside the committed policy (a ``policy
init`` or ``trust`` not committed yet), for the trust hints of a write, of the brief and of the
read tools, and for ``policy show``. Read-only: nothing here edits the file (``policy_edit``
does). The policy document's module is loaded only when there is a file to read: a record's trust
hint asks after every write in a repository whose policy does not trust it yet (issue 11, fixed
cost). Trusts nothing in the file: it is validated as ``policy show`` validates it.
"""

from __future__ import annotations

from ..errors import HnError, PolicyError
from ..store import worktree
from ..store.repo import Repo


def _working_file(repo: Repo) -> bytes | None:
    """The working tree's policy file, None when there is none (or no working tree); raises
    what ``worktree.read_policy`` refuses (a symbolic link, an unsafe directory)."""
    top = worktree.toplevel(repo)
    found = None if top is None else worktree.read_policy(top)
    return None if found is None else found[0]


def _committed_as(repo: Repo, commit: str, data: bytes) -> bool:
    """Whether ``commit`` holds exactly ``data`` as its policy."""
    committed = repo.git.run(["cat-file", "blob", f"{commit}:{worktree.POLICY}"])
    return committed.returncode == 0 and committed.stdout == data


def working_policy(repo: Repo) -> str:
    """What the working tree holds at the policy's path, for the trust hint: "" (nothing, or no
    working tree), ``no-memory`` (a policy without a memory section), ``memory``, ``committed``
    (one with it, as HEAD has it) or ``invalid``."""
    try:
        data = _working_file(repo)
    except HnError:
        return "invalid"
    if data is None:
        return ""
    from ..core.policyedit import canonical_document

    try:
        doc = canonical_document(data)
    except PolicyError:
        return "invalid"
    if doc.get("memory") is None:
        return "no-memory"
    return "committed" if _committed_as(repo, "HEAD", data) else "memory"


def uncommitted_memory(repo: Repo) -> dict | None:
    """The memory section of the working tree's policy when it is not committed as it is at
    HEAD (a ``policy init`` or ``trust`` before the commit), for the setup's trust hint; None
    when there is none, it is committed, or it cannot be read."""
    try:
        data = _working_file(repo)
        if data is None or _committed_as(repo, "HEAD", data):
            return None
        from ..core.policyedit import canonical_document

        memory = canonical_document(data).get("memory")
    except HnError:
        return None
    return memory if isinstance(memory, dict) else None


def differs_from_working(repo: Repo, commit: str) -> bool:
    """Whether the working tree holds a policy file that is not the policy at ``commit`` (a
    ``policy init`` or ``trust`` not committed yet: what ``policy show`` shows is the committed
    one, which a newcomer took for a failed init). A file over the policy's bound is one (f151:
    no policy at a commit that can be shown is that large, and it went unmentioned), and so is a
    symbolic link or a file this user may not read (``worktree.unusable``, f160: neither was)."""
    try:
        data = _working_file(repo)
    except PolicyError:  # (``worktree.read_policy``'s only one: over the bound)
        return True
    except HnError:
        top = worktree.toplevel(repo)
        return top is not None and bool(worktree.unusable(top))
    return data is not None and not _committed_as(repo, commit, data)
