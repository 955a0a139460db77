"""The verified state for the pre-push hook's anchor check (``push_removals``, git-hn;
docs/decisions.md), when this clone has none sealed (never built here, discarded as damaged,
another git-hn's): the check then answered from no state, none anchored, and ``hn.prePush=block``
let a push take a published memory's anchor off the remote unsaid. Now the check brings the state
up to date itself (``stateview.built_for_check``: bounded by ``checking``'s wait for the lock),
saying so first when that verifies many memories; and when it cannot, the check is "not done",
as for a busy state: one line saying why and what to do (``block`` refuses the push with it).

Owns: those lines (``undone_line``, ``busy_line``). Trusts: ``stateview`` for the state and
``progress`` for how much it verifies; no exception's text is said (it may carry author text).
"""

from __future__ import annotations

from ..errors import HnError, StateBusy, StateUnavailable, StateUnwritable, ValidationError
from ..store.repo import Repo


def undone_line(remote: str, block: bool, why: str, then: str, checked_then: str) -> str:
    """The line for a push that takes commits off ``remote`` whose anchor check could not be
    done (``why``): with ``block`` a refusal ending in ``then``; else a warning, ending in what
    has such a push checked (``checked_then``)."""
    what = f"this push takes commits off {remote}, and git-hn cannot check whether memories are anchored on them: {why}"
    if block:
        return f"{what}; {then}"
    return f"warning: {what}; to have such a push checked, {checked_then}"


def busy_line(remote: str, block: bool) -> str:
    """``undone_line`` while the verified state stays busy (``stateview.checking``): the check
    could not be done, as for a remote tip this clone lacks (``push_removals._unfetched_line``)."""
    return undone_line(remote, block, "the memory state is busy (another git-hn is updating it: git hn memory index "
                       "rebuild, say)", "push again once that ends", "push once that ends")


def built(repo: Repo, remote: str, block: bool, ask) -> tuple[object, str]:
    """(``ask(view)`` on the state brought up to date, "") for a check that found no sealed state;
    (None, "") when this clone has no memory refs (nothing verified here is anchored anywhere);
    (None, the line) when the state cannot be brought up to date: its lock stays taken
    (``busy_line``), its directory cannot be written, a replication acceptance is pending, a
    memory stream of this clone does not verify, or anything else fails (``undone_line``).
    A build that verifies ``progress.NOTICE_FROM`` memory commits or more is said first, once."""
    from ..store import progress, streams
    from ..store.statedb import sqlite3
    from ..store.stateview import built_for_check

    said: list[str] = []

    def notice(what: str, _total: int) -> None:
        if not said:  # (fixed words and counts only: ``progress``)
            import sys

            said.append(what)
            sys.stderr.write(f"git-hn: this clone has no memory state: building it once to check what this push "
                             f"takes off {remote} ({what})\n")

    try:
        listing = streams.list_sources(repo)
        if not listing:
            return None, ""
        with progress.heard(notice), built_for_check(repo, listing) as view:
            return ask(view), ""
    except StateBusy:  # (``Repo.state_busy`` says so)
        return None, busy_line(remote, block)
    except (HnError, OSError, sqlite3.Error) as exc:  # (``StateUnwritable``, ``StateUnavailable`` too)
        repo.check_undone = True  # (the tracking refs' record keeps what it saw: ``tracked.check_push``)
        return None, _undone(repo, remote, block, exc)


def _undone(repo: Repo, remote: str, block: bool, exc: BaseException) -> str:
    """The line for a state ``built`` could not bring up to date (``exc``: never said itself)."""
    if isinstance(exc, StateUnwritable):
        from ..errors import chmod_way_out

        way = chmod_way_out("it", repo.hn_dir, recursive=True)
        return undone_line(remote, block, f"this clone has no memory state, and it cannot be built here: "
                           f"{repo.hn_dir} cannot be written", f"{way}, then push again", f"{way}, then push")
    if isinstance(exc, StateUnavailable):
        name = _pending_remote(repo)
        sync = f"git hn sync {name}"
        return undone_line(remote, block, f"this clone has no memory state, and it cannot be built while a "
                           f"replication acceptance from {name} is pending", f"run {sync}, then push again",
                           f"run {sync} first")
    if isinstance(exc, ValidationError):
        why = "this clone has no memory state, and it cannot be built: a memory stream here does not verify"
    else:
        why = "this clone has no memory state, and building it failed"
    rebuild = "git hn memory index rebuild says why"
    return undone_line(remote, block, f"{why} ({rebuild})", "push again once it builds", "push once it builds")


def _pending_remote(repo: Repo) -> str:
    """The remote a pending replication acceptance is from (``REMOTE`` when none can be named
    safely: a name that is no remote's, CONTRACT §3.2, is never put in a command to paste)."""
    from ..core.remotes import is_remote_name

    try:
        names = sorted(r for r in repo.pending().remotes() if is_remote_name(r))
    except (HnError, OSError):
        names = []
    return names[0] if names else "REMOTE"
