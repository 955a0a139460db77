"""Whether git-hn's hook wrappers run in this clone, for the words of a line that would otherwise
promise what only they do (f170). ``git hn sync``'s line for a memory whose push is still to be
made said "the memory follows that push": true where the pre-push hook publishes it (and, after
``git pull --rebase``, the post-rewrite hook moves it to the rebased commit), not in a clone
without them, where the memory stays until the next ``git hn sync`` (and, rebased, until
``git hn memory reanchor``). ``unhooked`` marks such lines (``gate.Held.unhooked``).

Owns nothing on disk and changes nothing. Reads the hooks directory Git runs from now
(``hook_location.locate``: one ``git rev-parse``) and the first bytes of the files there; trusts
them only for words on stderr, never to decide what is published.
"""

from __future__ import annotations

from ..store.repo import Repo
from .hook_location import locate
from .hooks import PRE_COMMIT_LEGACY, _is_wrapper

PUSH = ("pre-push",)  # what carries a memory with a push
REBASE = ("pre-push", "post-rewrite")  # and what moves it to the rebased commit first

# the words of such a line where they do not run (sync's ``gate.Held.text``, record's hint: f174)
NO_HOOKS_SO = "this clone has no git-hn hooks (git hn hooks install adds them), so"
REANCHOR_NAMED = "which names the git hn memory reanchor that moves the memory to the rebased commit"


def wrappers_run(repo: Repo, names: tuple[str, ...]) -> bool | None:
    """Whether each of ``names`` is a git-hn wrapper where Git runs hooks now (its own file, or the
    ``.legacy`` file ``pre-commit install`` moved it to, which pre-commit's hook runs); None when
    Git cannot say where that is."""
    from ..errors import HnError

    try:
        loc = locate(repo, False)
    except (HnError, OSError):
        return None
    return wrappers_in(loc.dir, names)


def wrappers_in(hook_dir: str, names: tuple[str, ...]) -> bool:
    """Whether each of ``names`` in ``hook_dir`` is a git-hn wrapper (``wrappers_run``'s test, for a
    caller that knows the directory already: record's hint, from the configuration it read)."""
    import os

    return all(_is_wrapper(os.path.join(hook_dir, n)) or _is_wrapper(os.path.join(hook_dir, n) + PRE_COMMIT_LEGACY)
               for n in names)


def unhooked(repo: Repo, held: list) -> list:
    """``held`` (``gate.Held``, a sync's), with ``unhooked`` set on each line that would say the
    memory follows a push still to be made (``behind``: after a rebase; ``where``: a push URL's)
    when the hooks that make it so do not run here. No Git process when no such line is held;
    else one for each kind of line (when Git cannot say, the words stay as before)."""
    runs: dict[tuple, bool | None] = {}
    out = []
    for h in held:
        needs = REBASE if h.behind else PUSH if _pushed_from_here(h) else None
        if needs is not None and needs not in runs:
            runs[needs] = wrappers_run(repo, needs)
        out.append(h._replace(unhooked=True) if needs is not None and runs[needs] is False else h)
    return out


def _pushed_from_here(h) -> bool:
    """Whether ``h``'s line is a push URL's that says to push a branch (``Held.line``'s ``where``
    case: not a citing, discarded, untracked, unseen or bare clone's one)."""
    return bool(h.where and h.commit) and not (h.cites or h.discarded or h.untracked or h.unseen or h.unmapped)
