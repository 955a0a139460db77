"""``git hn identity export|import`` (issue 13): the same actor in every clone of one person.

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
    top = worktree.toplevel(repo)
    if top is None:
        return
    parent = os.path.realpath(os.path.dirname(os.path.abspath(output)))
    inside = _within(parent, os.path.realpath(top))
    private = _within(parent, os.path.realpath(repo.git_dir)) or \
        _within(parent, os.path.realpath(repo.common_dir))
    if inside and not private:
        from ..core.gostr import one_line

        raise InputError(f"identity export file {one_line(os.path.abspath(output))} would be inside the "
                         "working tree, where a commit could publish the private key; write it "
                         "outside the repository")


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def import_file(repo: Repo, path: str, activate: bool) -> tuple[identity.Identity, str, bool, bool]:
    """(identity, record path, whether the record is new, whether it is now active)."""
    ident = identity_export.read_export(path)
    record, new, active = identity.install(repo, ident, activate=activate)
    return ident, record, new, active
