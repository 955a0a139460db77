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

A remote whose saved selection selects no stream at all (``--actor`` or ``--proposal`` alone:
git-hn imports nothing for them) is named apart, served or not, with the selection that does
import (``streamless``; a newcomer trial's clone synced such a selection, and every read then
said only that there was no memory here).
"""

from __future__ import annotations

from ..store.repo import Repo


def remotes(repo: Repo, saved: list[str] | None = None) -> list[str]:
    """The remotes (configured ones) with a saved selection that imported nothing yet, and that
    selects some stream (``streamless`` has the others: a sync would import nothing for them);
    ``saved``: ``store.replication.streamless``'s answer, when the caller read it."""
    from ..store import replication as rstate

    names = rstate.unserved(repo)
    if not names:
        return []
    lost = set(rstate.streamless(repo) if saved is None else saved)  # (once: a review found it read per remote)
    return _empty(repo, [r for r in names if r not in lost])


def streamless(repo: Repo, saved: list[str] | None = None, imported: bool = True) -> list[str]:
    """The remotes (configured ones) whose saved selection selects no memory stream (only
    ``--actor`` or ``--proposal`` selectors: ``store.replication.streamless``, or ``saved``, its
    answer) and from which nothing is imported, whether or not a sync served them since. The
    one test of every read (recall, log, the JSON brief, and the Markdown brief's header and the
    MCP tools' ``hint`` through ``brief.header_notes``: a review found the header naming a removed
    remote, whose sync fails). ``imported=False``: the caller knows that this clone holds no
    accepted memory ref at all (the header read the listing), so no ref is asked about."""
    from ..store import replication as rstate

    names = rstate.streamless(repo) if saved is None else saved
    return _empty(repo, names, imported) if names else []


def _empty(repo: Repo, names: list[str], imported: bool = True) -> list[str]:
    """Of ``names``, the configured remotes this clone holds no accepted memory ref from (each one
    asked, unless ``imported`` is False: none is held at all)."""
    configured = repo.remote_names()
    out = []
    for remote in names:
        if remote not in configured:
            continue  # (``replication select`` said it does not exist; a sync would say so)
        if not imported:
            out.append(remote)
            continue
        proc = repo.git.run(["for-each-ref", "--count=1", "--format=%(refname)", "--end-of-options",
                             f"refs/hn/remotes/{remote}/memory/"])
        if proc.returncode == 0 and not proc.stdout.strip():
            out.append(remote)
    return out


def streamless_text(names: list[str]) -> str:
    """What to run when the selections saved for ``names`` select no memory stream (the advice is
    ``core.selection.select_streams``, bare ``replication select``'s)."""
    from ..core.selection import select_streams

    return "; ".join(f"the replication selection saved for {r} selects no memory stream, so nothing is imported "
                     f"from it: {select_streams(r)}, then git hn sync {r} imports it" for r in names)


def hint(repo: Repo) -> str:
    """One line for ``streamless`` and ``remotes``, "" when there is none (the selection files
    read once)."""
    from ..store import replication as rstate
    from .replication.renamed import hint as renamed

    moved = renamed(repo)  # (a remote renamed: its selection is under the old name)
    saved = rstate.streamless(repo)
    lost = streamless(repo, saved)
    names = remotes(repo, saved)
    if not names:
        return "; ".join(filter(None, (moved, streamless_text(lost))))
    syncs = ", then ".join(f"git hn sync {r}" for r in names)
    one = len(names) == 1
    return "; ".join(filter(None, (moved, streamless_text(lost), (
        f"nothing is imported from {' or '.join(names)} yet, though {'its' if one else 'their'} replication "
        f"{'selection is' if one else 'selections are'} saved: {syncs} imports what "
        f"{'it selects' if one else 'they select'} (a git fetch imports only when it moves a branch)"))))


def nothing_here(repo: Repo, again: list | None = None) -> str:
    """The line of ``memory log`` and ``memory view`` when this clone holds no memory at all: what
    imports the team's (no selection saved, one not synced yet, or one that selects no stream)
    and what adds one's own. (A newcomer trial: view wrote an empty page and said nothing, where
    log, recall and the brief said what to run.) ``again`` gets the shorter form of the line that
    no selection is saved (what is still so, the way out: ``cli.advice.said_lately``)."""
    from ..store.identity import active_actor
    from .hooks import selection_hint

    team = selection_hint(repo) if repo.remote_names() else ""
    # without an identity, record fails: the first step is init (a newcomer trial); and
    # without a commit, it has nothing to anchor to: the first commit comes first (a trial)
    steps = [] if repo.head_commit() else ["make the first commit (git commit)"]
    if not active_actor(repo):
        steps.append("create your identity with git hn init --name NAME")
    first = f"{', '.join(steps)}, then " if steps else ""
    waiting = "" if team else hint(repo)
    if waiting:  # (a newcomer trial: a saved selection had imported nothing; the sync comes first)
        return f"no memory here yet: {waiting}; to add your own, {first}record one with git hn memory record"
    if team and again is not None:
        again.append(("no memory here yet, and still no replication selection is saved here, so a fetch imports "
                      "no memory", "git hn replication select --all or --memory sha256:<stream>, then git hn sync, "
                      f"imports the team's; to add your own, {first}record one with git hn memory record"))
    return f"no memory here yet: {first}record one with git hn memory record" + (f"; {team}, then git hn sync"
                                                                                  if team else "")
