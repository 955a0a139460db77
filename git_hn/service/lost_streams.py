"""Saying that the active identity's own stream lost memories outside git-hn (``store.rewound``;
docs/decisions.md): the reads' one line.

Trusts the verified state (which notes the loss when it sees the ref move) and Git.
"""

from __future__ import annotations

from ..errors import HnError
from ..store.repo import Repo


def hint(repo: Repo, mcp: bool = False) -> str:
    """The line for the active identity's streams that lost memories (``rewound.warning``), ""
    when none did. One ``lstat`` when nothing was noted; never fails a read."""
    from ..store import identity, rewound

    if not rewound.read(repo):
        return ""
    try:
        return rewound.warning(rewound.standing(repo, identity.active_actor(repo)), mcp=mcp)
    except (HnError, OSError):
        return ""
