"""Saying that the active identity's own stream lost memories outside git-hn (``store.rewound``;
docs/decisions.md): the reads' one line, and the ``reference-transaction`` hook's when a Git
command other than git-hn moved such a ref back or deleted it (a forced fetch into
``refs/hn/memory/*``, ``git update-ref``).

Trusts the verified state (which notes the loss when it sees the ref move) and Git.
"""

from __future__ import annotations

from ..core.lines import lines_of
from ..errors import HnError
from ..store.repo import Repo


def hint(repo: Repo, mcp: bool = False) -> str:
    """The line for the active identity's streams that lost memories (``rewound.warning``), ""
    when none did. One ``lstat`` when nothing was noted; never fails a read."""
    from ..store import rewound

    if not rewound.read(repo):
        return ""
    from ..store import identity

    try:
        return rewound.warning(rewound.standing(repo, identity.active_actor(repo)), mcp=mcp)
    except (HnError, OSError):
        return ""


def after_transaction(repo: Repo, data: bytes) -> str:
    """After a committed ref transaction that git-hn did not make: when it wrote a local memory
    ref (``data``: Git's ``<old> <new> <ref>`` lines; ``git update-ref`` without an old value gives
    zeros, so the state, which recorded the tip, decides), the state is brought to the refs now
    (which notes what the move took: ``rewound``) and the line is returned ("" otherwise). Waits
    at most briefly for the state: the user's Git command is running."""
    from ..core.grammar import LOCAL_PREFIX
    from ..store import stateview

    if not any(len(p) == 3 and p[2].startswith(LOCAL_PREFIX)
               for p in (line.split(" ") for line in lines_of(data.decode("utf-8", "replace")))):
        return ""
    stateview.catch_up(repo, wait=2.0)
    return hint(repo)
