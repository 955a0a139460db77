"""Remotes whose saved replication selection has imported nothing yet (git-hn; docs/decisions.md).

A team trial's fresh clone: ``git clone``, ``git hn hooks install``, ``git hn replication select
--all``, then a ``git fetch`` that moved no branch (so the fetch hook imported nothing). The
remote held memory, yet ``recall`` answered "Matched: 0" and the JSON brief and ``index verify``
said nothing more. A selection imports nothing by itself; ``git hn sync REMOTE`` does.

A remote counts here when its selection is saved, no sync has served it since (neither its quiet
record nor the ``served`` mark a sync's import leaves when it ends without an error is as new as
the selection: ``store.replication.unserved``, no Git process), and
this clone holds no accepted memory ref from it (one ``for-each-ref --count=1`` per such
remote, only then). A sync that found nothing to import leaves the quiet record, so a remote
that holds no memory is not named again. Trusts the files under ``.git/hn/replication`` and
the refs.
"""

from __future__ import annotations

from ..store.repo import Repo


def remotes(repo: Repo) -> list[str]:
    """The remotes (configured ones) with a saved selection that imported nothing yet."""
    from ..store import replication as rstate

    names = rstate.unserved(repo)
    if not names:
        return []
    configured = repo.remote_names()
    out = []
    for remote in names:
        if remote not in configured:
            continue  # (``replication select`` said it does not exist; a sync would say so)
        proc = repo.git.run(["for-each-ref", "--count=1", "--format=%(refname)", "--end-of-options",
                             f"refs/hn/remotes/{remote}/memory/"])
        if proc.returncode == 0 and not proc.stdout.strip():
            out.append(remote)
    return out


def hint(repo: Repo) -> str:
    """One line for ``remotes``, "" when there is none."""
    names = remotes(repo)
    if not names:
        return ""
    syncs = ", then ".join(f"git hn sync {r}" for r in names)
    one = len(names) == 1
    return (f"nothing is imported from {' or '.join(names)} yet, though {'its' if one else 'their'} replication "
            f"{'selection is' if one else 'selections are'} saved: {syncs} imports what "
            f"{'it selects' if one else 'they select'} (a git fetch imports only when it moves a branch)")
