"""Where the record of git-hn's own renames lives, and which memory IDs it names as replaced
(git-hn; docs/decisions.md). ``reanchor.remember_renames`` writes it (re-anchoring, ``reanchor
--drop``, ``sync --rebase``) and ``reanchor.what_became`` reads it for a "not found"; ``rewound``
reads the old IDs to tell git-hn's own rewrites of a stream from a loss. Its own room so that
neither import the other's dependencies. Trusts nothing it reads beyond a set of IDs to compare.
"""

from __future__ import annotations

import os

from ..errors import HnError
from .repo import Repo

RENAMED = "renamed-v0"  # <hn>/memory/renamed-v0: "old-id new-id [cause]" lines of the latest renames
MAX_BYTES = 1 << 20


def path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "memory", RENAMED)


def replaced(repo: Repo) -> set[str]:
    """The memory IDs the record names as signed again or dropped (its lines' first words) and
    those it names as what they became (the second: a review ran the "Undo:" line ``reanchor``
    prints, which moves the ref back off them, and was told the stream lost them outside git-hn);
    none when it cannot be read."""
    from . import private

    try:
        data = private.read_private(repo.hn_dir, path(repo), MAX_BYTES) or b""
    except (HnError, OSError):
        return set()
    return {word for line in data.decode("ascii", "replace").splitlines() for word in line.split(" ")[:2]}
