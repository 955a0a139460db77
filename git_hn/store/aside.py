"""A verified state set aside because it disagreed with Git: ``<common-gitdir>/hn/memory/state-v0.aside``
and its seal ``state-v0.aside-seal`` (docs/decisions.md).

A read that finds an object of a stream changed or gone (``stateview.Corrupt``) never serves the
state again, but the state was the only record of the tips it verified: discarded, the way out of
the broken own stream (moving its ref back, or deleting it) went unnoted, and the next ``record``
signed a sequence the key had signed already (a fork of the user's own stream). So its database
is renamed here (``set_aside``) and sealed as the state is (``statedb.file_seal``: device, inode,
size, times and SQLite's change counter, after the rename), and it stays until every own stream
ref it knew has been compared with the refs (``settle``): a ref that no longer contains the tip it
recorded is noted as lost (``rewound.settle``), so appends at or below its sequence are refused.

``rewound.settle`` runs before anything could forget those tips: at the top of every state
refresh or build (``stateview.update``, ``stateview.build``: an append's scoped build, publish,
gate, lint, reanchor, ``index rebuild``) and in every append's lost-stream check
(``rewound.refusal``). It lists every memory ref (never a caller's scoped listing: a ref left out
would look deleted). The aside goes once each own ref it knew moved forward or was noted, or once
a state verified every ref (a full build or refresh: it knows their tips itself). This module
owns the file; ``rewound`` the comparison.

Trusts the aside only as far as the state: an aside whose seal does not match (planted, edited,
left by an earlier version) is never read for what is served or printed (``open_aside``), and each
value read from it is checked (object IDs, refs of this clone's own identities, sequences in
range) before it is used or printed. It is never dropped unread either: the comparison reads it
(``open_to_compare``), one whose seal differs only by a ``chmod`` or a copy as a sealed one, any
other only for tips that Git itself shows to be memory commits of the stream, each counted by Git
(``rewound``). Costs one ``lstat`` when there is none.
"""

from __future__ import annotations

import os
import stat

from ..errors import LocalStateError
from . import private, statedb
from .repo import Repo

NAME = "state-v0.aside"
SEAL = "state-v0.aside-seal"


def paths(repo: Repo) -> tuple[str, str]:
    """(the set-aside database, its seal)."""
    mem = statedb.paths(repo)[0]
    return os.path.join(mem, NAME), os.path.join(mem, SEAL)


def set_aside(repo: Repo) -> None:
    """Under the state's exclusive lock: ``state_replace.discard`` a sealed state that disagrees with
    Git, keeping its database here, sealed, for the tips it verified. Best effort: else the state
    is only discarded (and an aside that could not be sealed is never read)."""
    _mem, db, _seal = statedb.paths(repo)
    if statedb.sealed(repo):
        path, seal = paths(repo)
        try:
            drop(repo)
            os.rename(db, path)
            line = statedb.file_seal(path)
            if line is not None:
                private.write_private(repo.hn_dir, seal, line, derived=True)
        except (OSError, LocalStateError):
            pass
    from .state_replace import discard

    discard(repo)


def open_aside(repo: Repo):
    """The set-aside state, read-only, or None: none, unsafe, unreadable, or its seal does not match
    (planted or edited: a review's planted file noted a made-up tip as lost, for good)."""
    path, seal = paths(repo)
    if not os.path.lexists(path) or not statedb.safe_dirs(repo) or not statedb.seal_matches(path, seal):
        return None
    try:
        return statedb.sqlite3.connect(f"file:{statedb.uri_path(path)}?mode=ro&nofollow=1", uri=True)
    except statedb.sqlite3.Error:
        return None


def open_to_compare(repo: Repo):
    """(the set-aside state read-only, whether it is vouched for) for ``rewound.settle``, or None
    when there is none or it cannot be read safely. Vouched: its seal matches, or differs only by
    what a ``chmod`` or a copy that keeps file times changes (``statedb.sealed_but_metadata``; a
    review: ``chmod -R u+w .git/hn``, git-hn's own way out, or a ``cp -a`` of the clone unsealed
    it and it was dropped, so the way out signed a sequence again). Not vouched for (no seal,
    edited, copied without its times): read all the same, since it only ever makes git-hn refuse
    more, but the caller checks what it names against Git (``rewound``)."""
    path, seal = paths(repo)
    if not os.path.lexists(path) or not statedb.safe_dirs(repo):
        return None
    vouched = statedb.seal_matches(path, seal) or statedb.sealed_but_metadata(path, seal)
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not vouched and not (stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid()
                            and not stat.S_IMODE(st.st_mode) & ~0o600 and st.st_size <= statedb.MAX_BYTES):
        return None
    try:
        return statedb.sqlite3.connect(f"file:{statedb.uri_path(path)}?mode=ro&nofollow=1", uri=True), vouched
    except statedb.sqlite3.Error:
        return None


def drop(repo: Repo) -> None:
    """Remove the aside and its seal (best effort)."""
    for path in paths(repo):
        try:
            os.unlink(path)
        except OSError:
            pass
