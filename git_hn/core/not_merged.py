"""The hints that memory is anchored on commits not merged here (f163): after an import (a sync,
the fetch hook) that accepted memories HEAD's history does not contain, and after a recall that
found others but left such memories out.

Pure. Owns only the wording (a newcomer trial: Bob's memory, anchored on his new commit, was
imported by ``git fetch`` and ``git hn sync``, then missing from every recall on the unmerged
HEAD without a word, while ``memory log`` listed it: the user concluded the sync had failed).
Every ref name is shown as one shell word with invisible characters and undecodable bytes
spelled (``hints.shell_path``: a teammate names the branch, and the command is pasted); no
author text is shown.
"""

from __future__ import annotations

from .hints import shell_path

# the memo's key for the import's hint (``store.hints_said``): one per remote and ref, whatever
# the count, so a fetch hook that imports more of the same branch's memory within the window
# says nothing again, and a sync says the shorter form
IMPORTED_KEY = "imported memories not merged here: {remote} {where}"


def imported(n: int, total: int, ref: str, held: int, anchor: str, remote: str) -> tuple[str, tuple]:
    """(the hint, its shorter form for ``cli.advice.said_lately``: what is still so, the way out,
    the memo's key) after an import from ``remote``: ``n`` of the ``total`` memories it accepted
    are anchored (``--applies descendants``) on commits HEAD's history does not contain; ``ref``,
    a remote-tracking ref's short name holding ``held`` of them ("" when none does: then
    ``anchor``, the commit with the most, is named)."""
    where = shell_path(ref) if ref else anchor[:12]
    one = n == 1
    if n == total:
        lead = "the imported memory is" if one else f"the {n} imported memories are"
    else:
        lead = f"{n} of the imported memories {'is' if one else 'are'}"
    what = f"{lead} anchored on {'a commit' if one else 'commits'} not merged here"
    it = "it" if one else "them"
    if ref and held >= n:
        place, tail = f" (on {where})", f"recall lists {it} once you merge {where}, or now with "
        listed = f"git hn memory recall --at {where}"
    elif ref:
        place, tail = f" ({held} of them on {where})", "recall lists them once merged, and those now with "
        listed = f"git hn memory recall --at {where}"
    else:
        place = f" (on commit {where})" if one else f" (such as commit {where})"
        tail, listed = f"recall lists {it} once merged, or {'it' if one else 'what applies there'} now with ", \
            f"git hn memory recall --at {where}"
    return (f"{what}{place}: {tail}{listed}",
            (what, listed + (f" lists {it}" if ref and held >= n else " lists what applies there"),
             IMPORTED_KEY.format(remote=remote, where=where)))


# the memo's key for recall's hint: one, whatever the count and the commit (a team with open
# branches leaves some out of most recalls: said in full once in the window, then shorter)
RECALL_KEY = "recall: matching memories anchored on commits not merged here"


def left_out(n: int, anchor: str, on_anchor: int) -> tuple[str, tuple[str, str, str]]:
    """(the hint, its shorter form) after a recall that found memories: ``n`` more that match were
    left out only because they are anchored (``--applies descendants``) on commits outside the
    query commit's history that a branch, tag or remote-tracking ref here holds (work not merged
    here), ``on_anchor`` of them on ``anchor``, the commit with the most."""
    c = anchor[:12]
    one = n == 1
    what = (f"{n} more matching {'memory was' if one else 'memories were'} left out, anchored on "
            f"{'a commit' if one else 'commits'} not merged here")
    if on_anchor >= n:
        listed = f"git hn memory recall --at {c} lists {'it' if one else 'them'}"
        place = f" ({c})"
    else:
        listed = f"git hn memory recall --at {c} lists what applies there"
        place = f" (such as {c}, {on_anchor} of them)"
    return (f"{what}{place}: {listed}, and git branch -a "
            f"--contains {c} names the branch to merge", (what, listed, RECALL_KEY))
