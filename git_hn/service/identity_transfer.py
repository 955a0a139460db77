"""``git hn identity export|import|use|remove`` (issue 13): the same actor in every clone of one
person, a way back to another identity of the keyring, and (git-hn) a way to drop one from it.

Export writes the active identity to a new private file (``store.identity_export``), refusing a
path inside the working tree, where ``git add -A`` and a push would publish the private key
(*key disclosure by commit*). Import checks such a file and installs it into this repository's
keyring (``store.identity.install``). Trusts: the export file only after the keyring's checks.
"""

from __future__ import annotations

import os

from ..core.tuples import NamedTuple
from ..errors import InputError
from ..store import identity, identity_export, worktree
from ..store.repo import Repo


def export_active(repo: Repo, output: str) -> tuple[identity.Identity, str]:
    ident = identity.load_active(repo)
    if output not in ("", "-"):
        _refuse_working_tree(repo, output)
    path = identity_export.write_export(ident, output)
    identity.note_made_here(repo, ident.actor, False)  # (a copy exists now: it may sign elsewhere)
    return ident, path


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
        from ..core.gostr import shown_path

        raise InputError(f"identity export file {shown_path(os.path.abspath(output))} would be inside the "
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
    _check_name(ident.name)
    record, new, active = identity.install(repo, ident, activate=activate)
    return ident, record, new, active


def _check_name(name: str) -> None:
    """Refuse an identity whose name is secret-shaped, as ``init`` refuses one (a review: an
    exported identity renamed to a GitHub token was imported, then signed into every memory):
    the name is not the key, and a copy of the file with another ``name`` imports the same
    identity. Only the detector is named, never the name."""
    from ..core.secretlint import first_in_text
    from .secretscan import scan

    detector = first_in_text(name, scan)
    if detector is not None:
        from ..errors import SecretShapedError

        raise SecretShapedError(f"identity name is refused: it is secret-shaped ({detector}), and the name is "
                                "signed into every memory and published with it; nothing was imported: name it "
                                'anew in a copy of the file (its "name" field), which imports the same key')


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
        from ..core.gostr import quoted

        from .names import named_identity

        names = ", ".join(named_identity(k.actor, k.names[0]) for k in stored[:5]) or "none"
        raise InputError(f"no identity of this keyring matches {quoted(query)} (it holds: {names}); "
                         "import another with git hn identity import FILE") from None
    return identity.activate(repo, who.actor)


def strays(repo: Repo, keep: str = "") -> list[tuple[identity.Identity, bool]]:
    """(identity, whether active) of each identity of the keyring but ``keep`` that ``remove``
    takes without a copy: ``init`` made it here, no export copied it, and no stream of it is here
    (a first ``init`` on a new machine, before the identity used elsewhere was imported)."""
    from ..store import streams

    made = identity.made_here(repo)
    candidates = [(i, a) for i, a in identity.list_identities(repo) if i.actor in made and i.actor != keep]
    if not candidates:
        return []
    signed = {s.actor for s in streams.list_sources(repo)}
    return [(i, a) for i, a in candidates if i.actor not in signed]


class Removed(NamedTuple):
    ident: identity.Identity
    streams: int  # streams of its memories this clone holds (its own or accepted copies)
    backup: str  # the file that holds a copy of it (absolute), or "" (it had none to keep)


def remove(repo: Repo, query: str, backup: str | None) -> Removed:
    """``git hn identity remove ACTOR [--backup FILE]`` (git-hn; docs/decisions.md): delete a
    stored identity that is not the active one, private key included.

    A key is the one thing no command can make again: without it nobody can add to its streams or
    supersede or retract its memories. So the removal goes ahead without a copy only when the key
    can have signed nothing anywhere: ``init`` generated it here, no export copied it
    (``identity.made_here``), and no stream of it is here (a stray identity of a first ``init``).
    Else ``backup`` must name a file holding that identity: an existing one (an earlier export,
    checked as an import checks it) or a new one, written as ``identity export`` writes one. ACTOR
    is an actor ID or a prefix of at least eight hex digits, never a name: the identity to keep
    and the one to drop often share it. Every refusal leaves the keyring as it was."""
    from ..store import streams
    from .names import named_identity

    stored = identity.list_identities(repo)
    held = ", ".join(named_identity(i.actor, i.name) for i, _a in stored[:5]) or "none"
    if not (8 <= len(query) <= 64 and all(c in "0123456789abcdefABCDEF" for c in query)):
        raise InputError(f"identity remove takes an identity's actor ID, or a prefix of at least 8 hex digits of it "
                         f"(never a name, which two identities may share): this keyring holds {held}; nothing was "
                         "removed")
    found = [i for i, _a in stored if i.actor.startswith(query.lower())]
    if len(found) != 1:
        what = ("no identity of this keyring has an actor ID" if not found else
                f"{len(found)} identities of this keyring have actor IDs")
        longer = "; use a longer prefix or the full actor ID" if found else ""  # (as use, trust and recall say)
        raise InputError(f"{what} starting with {query} (it holds {held}){longer}; nothing was removed")
    ident = found[0]
    if any(active for i, active in stored if i.actor == ident.actor):
        raise InputError(identity.active_not_removed(ident, named_identity(ident.actor, ident.name)))
    count = sum(s.actor == ident.actor for s in streams.list_sources(repo))
    who = named_identity(ident.actor, ident.name)
    if backup is None and (count or ident.actor not in identity.made_here(repo)):
        why = (f"it signed the {count} memory stream{'' if count == 1 else 's'} this clone holds of it" if count else
               "it may have signed memories in another clone (only a key git hn init made here that no export "
               "copied is known to have signed nothing elsewhere)")
        raise InputError(f"identity {who} is not removed: {why}, and without its private key nobody can add to them "
                         "or correct them; keep a copy with --backup FILE (a new file is written as git hn identity "
                         "export writes one; an existing one must hold this identity); nothing was removed")
    kept = _backup(repo, ident, backup) if backup is not None else ""
    identity.remove(repo, ident.actor)
    return Removed(ident, count, kept)


def _backup(repo: Repo, ident: identity.Identity, path: str) -> str:
    """The file ``path`` holding ``ident``: checked when it exists, else written (0600, outside
    every working tree, as ``export_active`` writes one)."""
    from ..core.gostr import echoed
    from ..errors import HnError

    target = os.path.abspath(path)
    if path in ("", "-") or not os.path.lexists(target):
        try:
            if path not in ("", "-"):
                _refuse_working_tree(repo, path)
            return identity_export.write_export(ident, path)
        except HnError as exc:
            raise type(exc)(f"{exc.message}; nothing was removed") from None
    try:
        found = identity_export.read_export(path)
    except HnError as exc:
        raise type(exc)(f"--backup: {exc.message}; nothing was removed") from None
    if found != ident:
        from .names import named_identity

        raise InputError(f"--backup: identity file {echoed(target)} holds identity "
                         f"{named_identity(found.actor, found.name)}, not the one to remove; nothing was removed")
    return target
