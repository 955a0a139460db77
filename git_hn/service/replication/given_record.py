"""What each remote was given of the local streams, for publication: recorded after every
publication in the publication journal (``store.given``, which outlives the state) and in the
verified state (``state.record_published``, the fast copy), and read back from both.

Owns no file of its own; trusts what this repository recorded.
"""

from __future__ import annotations

import os

from ...errors import HnError
from ...store import state as statemod
from ...store import statedb
from ...store.repo import Repo


def note_held(repo: Repo, remote: str, same: dict[str, str]) -> None:
    """The streams ``remote`` holds at their local tips, into the publication journal when it
    does not say so (a journal moved aside, or one an earlier git-hn never wrote)."""
    if not same:
        return
    from ...store import given

    if os.path.lexists(given.path(repo)):  # the usual sync: the state's record says it already
        recorded = _recorded(repo, remote, sorted(same))
        same = {r: h for r, h in same.items() if recorded.get(r) != h}
        if not same:
            return  # (the journal is read only for what the state does not record)
        noted = given.newest(repo, remote, same)
        same = {r: h for r, h in same.items() if noted.get(r) != h}
    if same:
        remember(repo, remote, same)


def _recorded(repo: Repo, remote: str, refs: list[str] | None = None) -> dict[str, str]:
    """What the state records ``remote`` was given (of ``refs`` only, when named); {} when it
    cannot be read."""
    from ...store.statedb import sqlite3

    try:
        with statedb.locked(repo, exclusive=False, wait=2.0):
            conn = statedb.open_sealed(repo, readonly=True)
            if conn is None:
                return {}
            try:
                return statemod.published_heads(conn, remote) if refs is None else \
                    statemod.published_of(conn, remote, refs)
            finally:
                conn.close()
    except (HnError, OSError, sqlite3.Error):
        return {}


def remember(repo: Repo, remote: str, heads: dict[str, str]) -> None:
    """Record the tips ``remote`` now holds: in the publication journal (``store.given``: what
    keeps re-anchoring from signing them again), then in the state (bookkeeping for the next
    push; a failure there only costs a push later)."""
    from ...store import given
    from ...store.statedb import sqlite3

    if not heads:
        return
    try:
        given.note(repo, remote, heads)
    except (HnError, OSError) as exc:
        import sys

        sys.stderr.write(f"git-hn: warning: what {remote} was given could not be recorded "
                         f"({getattr(exc, 'message', None) or exc.strerror}); until it is, do not "
                         "rewrite the commits your published memories name\n")
    try:
        with statedb.sealed_for_writing(repo) as conn:
            if conn is not None:
                statemod.record_published(conn, remote, heads)
    except (HnError, OSError, sqlite3.Error, statedb.Unwritable):
        pass


def published_heads(repo: Repo, remote: str) -> dict[str, str]:
    """ref -> the tip ``remote`` was last given, from the state's bookkeeping over the
    publication journal's (``store.given``: what a rebuilt state no longer has); {} when neither
    can be read (``remote_bases`` then asks the remote itself)."""
    from ...store import given as journal

    return {**journal.newest(repo, remote), **_recorded(repo, remote)}


def settle_stopped(repo: Repo, remote: str, advertised: dict[str, str]) -> None:
    """What publications that were stopped offered ``remote`` (``store.given``), settled by this
    run's advertisement once their processes have ended: given (journalled) or not (dropped)."""
    from ...store import given

    if not os.path.lexists(given.offered_path(repo)):
        return  # (the usual case: one stat)

    def contains(tip: str, head: str) -> bool | None:
        if tip == head:
            return True
        if repo.git.object_info(tip) is None:
            return None  # (the remote's tip is not known here: another clone's; undecided)
        proc = repo.git.run(["merge-base", "--is-ancestor", head, tip])
        return {0: True, 1: False}.get(proc.returncode)

    settled = given.settle_stopped(repo, remote, advertised, contains)
    if settled:
        remember(repo, remote, settled)
