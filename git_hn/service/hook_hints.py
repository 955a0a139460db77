"""What ``git hn hooks status`` and ``uninstall`` add on stderr after their lines (``after_hint``),
and ``install`` (``install_hint``):
what the lines alone would leave a user believing wrongly; and which installed hooks are gone
(``gone_since_install``, the warning after a record or a sync). Reads the hooks' record and
directory (``hooks``, ``hook_location``); changes nothing."""

from __future__ import annotations

import os

from ..errors import HnError
from ..store.repo import Repo
from .hook_location import (CHAINED_DIR, HOOKS, Location, in_this_worktree, make_absolute, relative_hooks_path,
                            shared_hooks_path, within)
from .hooks import _is_wrapper, _migrated, _sha, wrappers_here

__all__ = ["after_hint", "earlier_wrapper", "failed_publications", "global_status", "gone_since_install",
           "install_hint"]


def failed_publications(repo: Repo | None) -> str:
    """After ``status``: the remotes whose last background publication failed (a trial: status
    said "installed" for hooks whose every publication was refused), else ""."""
    if repo is None:
        return ""
    from .replication.background import failure_recorded

    failed = sorted(r for r in repo.remote_names() if failure_recorded(repo, r))
    if not failed:
        return ""
    first = failed[0]
    more = f" (and {len(failed) - 1} other remote{'s' if len(failed) > 2 else ''})" if len(failed) > 1 else ""
    return (f"the last background publication to {first}{more} failed: git hn sync {first} publishes again "
            "and says why")


def install_hint(loc: Location, repo: Repo | None) -> str:
    """After ``install``: that a relative ``core.hooksPath`` leaves linked worktrees without
    these hooks (install writes only where the directory is not tracked, so no other worktree
    has it), else ""."""
    relative = relative_hooks_path(repo)
    return (f"other worktrees (git worktree add) run none of these: {make_absolute(relative, loc.dir)}"
            if relative else "")


def after_hint(loc: Location, repo: Repo | None, which: str) -> str:
    """After ``status`` or ``uninstall``: what the lines alone would leave a user believing wrongly
    (they do not run, they run from elsewhere, they are another repository's), else ""."""
    shared = shared_hooks_path(repo)
    record = loc.load()
    unrecorded = [n for n in HOOKS if _is_wrapper(loc.path(n)) and n not in record]  # (one the record
    # names that differs is an edit, which the status line says)
    whose = "this repository's record" if loc.private_root is not None else f"the record {loc.record}"
    if which == "uninstall":
        if shared and not record and os.path.lexists(os.path.join(os.path.expanduser(shared), "hn-hooks.json")):
            return (f"git-hn's hooks for every repository are still in your global core.hooksPath ({shared}): "
                    "git hn hooks uninstall --global takes them out")
        if unrecorded and loc.gitdir and within(loc.dir, loc.gitdir):  # (this repository's own: its record was lost)
            return (f"{loc.dir} still holds git-hn wrappers this repository's record does not name (it was lost): "
                    "git hn hooks install takes them on again, then git hn hooks uninstall takes them out")
        if unrecorded:
            return (f"{loc.dir} still holds git-hn wrappers that {whose} does not name, left as they are: a "
                    "repository whose core.hooksPath names this directory installed them (git hn hooks uninstall "
                    "there takes them out), or the record was lost (then delete each by hand, and move "
                    f"{CHAINED_DIR}/<hook>, if there, back in its place)")
        return ""
    if shared and unrecorded and os.path.realpath(os.path.expanduser(shared)) == os.path.realpath(loc.dir):
        return (f"core.hooksPath is set in your global or system Git config ({shared}): git hn hooks status "
                "--global shows what is installed there")
    if loc.installed_by:
        return (f"these hooks were installed by the repository whose Git directory is {loc.installed_by} (this one is "
                "a copy of it, with its core.hooksPath): they run here too, and its git hn hooks uninstall takes "
                "them out")
    if loc.moved_from and not os.path.isdir(loc.dir):
        return (f"core.hooksPath names {loc.dir}, which does not exist (this repository was moved since git-hn "
                "installed hooks there): Git runs no hook; set core.hooksPath to where they are now")
    if loc.elsewhere and not wrappers_here(loc) and relative_hooks_path(repo) and \
            not in_this_worktree(repo, loc.elsewhere):  # (else this worktree's own, under an older setting)
        return f"Git runs no hook of git-hn's in this worktree: {make_absolute(relative_hooks_path(repo), loc.elsewhere)}"
    if loc.elsewhere and not wrappers_here(loc):
        return (f"this repository's record names git-hn's hooks in {loc.elsewhere} (installed from another "
                "worktree, or with another core.hooksPath), not where Git runs hooks now")
    if loc.runs_from:
        return (f"these are in {loc.dir}, where git-hn installed them, but Git now runs hooks from "
                f"{loc.runs_from} (core.hooksPath changed since): they do not run; git hn hooks uninstall, then "
                "install again")
    if unrecorded and loc.gitdir and within(loc.dir, loc.gitdir):
        return (f"{loc.dir} holds git-hn wrappers this repository's record does not name (it was lost): they run; "
                "git hn hooks install takes them on again")
    if unrecorded:
        return (f"{loc.dir} holds git-hn wrappers that {whose} does not name (a repository whose "
                "core.hooksPath names the same directory installed them, or the record was lost): they run here too")
    if shared:
        return (f"core.hooksPath is set in your global or system Git config ({shared}): git hn hooks status "
                "--global shows what is installed there")
    return ""


def gone_since_install(repo: Repo) -> list[str]:
    """The hooks this repository's install record names whose wrapper is no longer in the
    directory it was installed in (nor moved or chained there by a hook manager), in ``HOOKS``
    order; [] without a record, or when it cannot be read. No Git process: the record names the
    directory (``hooks status`` says more, and follows a ``core.hooksPath`` set since)."""
    import json

    from ..store import private

    path = os.path.join(repo.hn_dir, "hooks.json")
    if not os.path.exists(path):
        return []
    try:
        doc = json.loads(private.read_private(repo.hn_dir, path) or b"{}")
        if doc.get("gitdir") and os.path.realpath(doc["gitdir"]) != os.path.realpath(repo.common_dir):
            return []  # (a moved or copied repository: the record names the old place; hooks status follows it)
        record = {h["name"]: h for h in doc["hooks"]} if doc.get("version") == 1 else {}
        loc = Location(doc["dir"], path, repo.hn_dir, doc.get("gitdir", ""))
        # the wrapper itself, or where pre-commit moved it (it runs it); a chained copy of the
        # user's hook is a trace of the install, not a hook that runs git-hn (a team trial: a
        # manager that only rewrote its stub left it, and no record warned)
        here = {n for n, mine in record.items() if n in HOOKS and (
            _sha(loc.path(n)) == mine["wrapper"] or _migrated(loc.path(n), mine))}
    except (HnError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    return [n for n in HOOKS if n in record and n not in here]


def earlier_wrapper(repo: Repo, name: str) -> str:
    """What a hook run says when the wrapper that started it did not export this git-hn's
    ``HN_WRAPPER`` (``hooks_cmd``): that the ``name`` wrapper where Git runs hooks is an earlier
    git-hn's text, as ``hooks status`` tells it (an upgrade trial: pushes, fetches and rewrites
    ran old wrappers and said nothing), else "" (a hook run by hand, a wrapper edited since
    install: status names those). One ``git rev-parse`` and a read of that file, only on this way."""
    from .hooks import _older_text, _wrapper_of

    proc = repo.git.run(["rev-parse", "--git-path", "hooks"])
    if proc.returncode != 0:
        return ""
    hook_dir = os.path.abspath(os.path.join(os.getcwd(), proc.stdout.decode("utf-8", "surrogateescape").strip()))
    shared = os.path.join(hook_dir, "hn-hooks.json")
    glob = os.path.isfile(shared) and not os.path.islink(shared)  # (hooks install --global's record)
    loc = Location(hook_dir, shared, None) if glob else Location(hook_dir, os.path.join(repo.hn_dir, "hooks.json"),
                                                                  repo.hn_dir)
    try:
        mine = loc.load().get(name)
    except HnError:
        mine = None
    wrapper = _wrapper_of(loc, name)
    if wrapper is None or (mine is not None and _sha(wrapper) != mine["wrapper"]) or not _older_text(loc, name):
        return ""
    whose = "the global" if glob else "this repository's"
    return (f"{whose} {name} hook ({wrapper}) is an earlier git-hn's wrapper (fixes since do not reach it): "
            f"git hn hooks install{' --global' if glob else ''} updates it")


def global_status(loc: Location, repo: Repo | None) -> list[str] | None:
    """``hooks status``'s lines in a repository that runs the hooks ``hooks install --global``
    put in the global (or system) core.hooksPath and has no install of its own: each hook that
    is there is ``installed globally in DIR``, with what ``status --global`` says of it (which
    git-hn it runs, an earlier git-hn's wrapper). None elsewhere. (An upgrade trial: status said
    "not installed" for hooks that ran there, and only --global told their state.)"""
    from .hooks import status_lines

    shared = shared_hooks_path(repo)
    if not shared or loc.load() or os.path.realpath(os.path.expanduser(shared)) != os.path.realpath(loc.dir):
        return None
    record = os.path.join(loc.dir, "hn-hooks.json")
    if not os.path.isfile(record) or os.path.islink(record):
        return None
    lines = status_lines(Location(loc.dir, record, None))
    for i, (name, line) in enumerate(zip(HOOKS, lines)):
        if line.startswith(f"{name}: installed"):
            lines[i] = f"{name}: installed globally in {loc.dir} (core.hooksPath){line[len(name) + 11:]}"
    return lines
