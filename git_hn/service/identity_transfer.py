"""``git hn identity export|import|use`` (issue 13): the same actor in every clone of one person,
and a way back to another identity of the keyring.

Export writes the active identity to a new private file (``store.identity_export``), refusing a
path inside the working tree, where ``git add -A`` and a push would publish the private key
(*key disclosure by commit*). Import checks such a file and installs it into this repository's
keyring (``store.identity.install``). Trusts: the export file only after the keyring's checks.
"""

from __future__ import annotations

import os

from ..errors import InputError
from ..store import identity, identity_export, worktree
from ..store.repo import Repo


def export_active(repo: Repo, output: str) -> tuple[identity.Identity, str]:
    ident = identity.load_active(repo)
    if output not in ("", "-"):
        _refuse_working_tree(repo, output)
    return ident, identity_export.write_export(ident, output)


def _refuse_working_tree(repo: Repo, output: str) -> None:
    """Every working tree of the repository counts (the one the command runs in, if any, and
    every linked one: run from inside ``.git``, from a bare repository with linked worktrees, or
    aimed at a sibling worktree, the key landed in one)."""
    tops = {os.path.realpath(t) for t in _working_trees(repo)}
    parent = os.path.realpath(os.path.dirname(os.path.abspath(output)))
    inside = any(_within(parent, top) for top in tops)
    private = _within(parent, os.path.realpath(repo.git_dir)) or \
        _within(parent, os.path.realpath(repo.common_dir))
    if inside and not private:
        from ..core.gostr import one_line

        raise InputError(f"identity export file {one_line(os.path.abspath(output))} would be inside the "
                         "working tree, where a commit could publish the private key; write it "
                         "outside the repository")


def _working_trees(repo: Repo) -> list[str]:
    top = worktree.toplevel(repo)
    found = [top] if top is not None else []
    proc = repo.git.run(["worktree", "list", "--porcelain", "-z"])
    path = None
    for field in proc.stdout.split(b"\0") if proc.returncode == 0 else ():
        if field.startswith(b"worktree "):
            path = field[len(b"worktree "):].decode("utf-8", "surrogateescape")
            found.append(path)
        elif field == b"bare" and path is not None:
            found.remove(path)  # (a bare repository's directory is its Git directory)
    return found


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def import_file(repo: Repo, path: str, activate: bool) -> tuple[identity.Identity, str, bool, bool]:
    """(identity, record path, whether the record is new, whether it is now active)."""
    ident = identity_export.read_export(path)
    record, new, active = identity.install(repo, ident, activate=activate)
    return ident, record, new, active


def use(repo: Repo, query: str) -> tuple[identity.Identity, bool]:
    """Make the stored identity that ``query`` names (a name, a hex prefix of at least eight
    characters or a full actor ID, as ``policy trust`` takes them, among this keyring's
    identities only) the active one: (it, whether it was active already)."""
    from ..core.policyedit import Known, resolve_actor

    stored = [Known(ident.actor, (ident.name,)) for ident, _active in identity.list_identities(repo)]
    try:
        who = resolve_actor(query, stored)
    except InputError as exc:
        if not exc.message.startswith("no known actor"):
            raise
        from ..core.gostr import one_line, quoted

        names = ", ".join(f"{one_line(k.names[0])} ({k.actor[:12]})" for k in stored[:5]) or "none"
        raise InputError(f"no identity of this keyring matches {quoted(query)} (it holds: {names}); "
                         "import another with git hn identity import FILE") from None
    return identity.activate(repo, who.actor)
