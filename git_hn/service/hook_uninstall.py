"""``git hn hooks uninstall`` (CONTRACT §10.7): take git-hn's wrappers out of a hooks directory
and put back, byte for byte, the hooks they chained.

Owns nothing of its own: the install record (``hook_location.Location``) and the wrappers are
``hooks``', whose checks it uses (``_changing``: one install or uninstall at a time; ``_sha``,
``_fingerprint``: what the record says). Trusts the record only as far as the files still match
it: a wrapper or a chained hook changed since install is refused, never overwritten nor deleted;
every refusal comes before the first file is touched, and a failure part way keeps in the record
what is still there.
"""

from __future__ import annotations

import os

from ..errors import InputError
from .hook_calls import loops_back
from .hook_location import CHAINED_DIR, HOOKS, Location, uninstall_failed
from .hooks import (PRE_COMMIT_LEGACY, _changing, _drop_stale_old, _fingerprint, _is_wrapper, _migrated, _put_back,
                    _replaced, _sha, status_lines, wrappers_here)


def uninstall(loc: Location) -> list[str]:
    """Take git-hn's wrappers out and put back what they chained. Where the record's directory is
    gone or not this repository's to follow (``locate``), only this directory's own wrappers are
    taken out and nothing else is touched; with none here, an install elsewhere is named."""
    with _changing(loc):
        return _uninstall(loc)


def _uninstall(loc: Location) -> list[str]:
    record = loc.load()
    if record and loc.installed_by:
        raise InputError(f"git-hn's hooks in {loc.dir} were installed by the repository whose Git directory is "
                         f"{loc.installed_by} (this one is a copy of it, with its core.hooksPath): uninstall them "
                         "there; nothing was changed")
    if record and loc.moved_from and not os.path.isdir(loc.dir):
        raise InputError(f"core.hooksPath names {loc.dir}, which does not exist: this repository was moved since "
                         "git-hn installed its hooks there; set core.hooksPath to where they are now, then "
                         "uninstall again; nothing was changed")
    away = loc.recorded_gone or bool(loc.elsewhere)
    if away:
        here = wrappers_here(loc, record)
        if loc.elsewhere and not here:
            raise InputError(f"git-hn's hooks were installed in {loc.elsewhere}, not where Git runs hooks now "
                             f"({loc.dir}): uninstall from where core.hooksPath named them then (another "
                             "worktree, or with the setting as it was), or remove them there by hand")
        for name in [n for n in record if n in HOOKS and n not in here]:
            record.pop(name)  # (not here: left as it is, and no longer this record's)
    for name in HOOKS:
        mine = record.get(name)
        if mine is None:
            continue
        path = loc.path(name)
        chained = loc.current_chained(name) or loc.chained(name)
        if _sha(path) != mine["wrapper"] and (_replaced(path, chained, mine) or _migrated(path, mine)):
            continue  # the wrapper is gone already, or pre-commit moved it (below)
        if not os.path.lexists(path) and not os.path.lexists(chained):
            continue  # deleted by hand, with nothing chained: only the record stays
        if not os.path.lexists(path):  # (and the chained copy is there)
            raise InputError(f"hook {path} changed since install; refusing to uninstall (it was removed, and "
                             f"{chained} holds the hook that was there before: move that back to {path} if it "
                             "is still wanted, or remove it, then uninstall again)")
        if _sha(path) != mine["wrapper"] and os.path.lexists(chained):
            raise InputError(f"hook {path} changed since install; refusing to uninstall ({chained} holds the hook "
                             f"that was there before: keep the one that is wanted as {path}, remove the other, "
                             "then uninstall again)")
        if _sha(path) != mine["wrapper"]:  # (a newcomer's edit: the refusal gave no way on)
            raise InputError(f"hook {path} changed since install (git-hn's wrapper, edited); refusing to "
                             "uninstall over the edit: take it out, or delete the file if nothing in it is "
                             "wanted, then uninstall again; nothing was changed")
        if mine.get("chained") is not None and os.path.lexists(chained) \
                and mine["chained"] not in (_fingerprint(chained), _sha(chained)):
            raise InputError(f"hook {chained} changed since install (the hook git-hn's {name} wrapper runs, "
                             f"edited since); refusing to put it back: to keep the edit, replace {path} with "
                             "it by hand, then uninstall again; nothing was changed")
    removed = {}  # name: what the line says it did (a newcomer trial: "not installed" after each uninstall)
    taking: dict = {}  # the hook being taken out: kept in the record if that fails
    try:
        for name in HOOKS:
            taking = {name: record.pop(name)} if name in record else {}
            if taking:
                _take_out(loc, name, taking[name], removed)
        taking = {}
        _drop_stale_old(loc)
    except OSError as exc:  # (a read-only hooks directory: the record keeps what is still there)
        loc.save({**record, **taking})
        raise InputError(uninstall_failed(loc, exc, list(removed))) from None
    try:
        os.rmdir(os.path.join(loc.dir, CHAINED_DIR))  # only when empty: never anyone else's files
    except OSError:
        pass
    loc.save(record)
    return [f"{n}: {removed[n]}" if line == f"{n}: not installed" and n in removed else line
            for n, line in zip(HOOKS, status_lines(loc))]


def _take_out(loc: Location, name: str, mine: dict, removed: dict) -> None:
    """``name``'s wrapper out, and the hook it chained put back (``removed[name]`` says so)."""
    path = loc.path(name)
    chained = loc.current_chained(name)
    if chained is not None and _is_wrapper(chained):  # (chained into itself by an earlier version)
        os.unlink(chained)
        chained = None
    if _migrated(path, mine):  # pre-commit runs it as <hook>.legacy: what it chained goes there
        loop = loops_back(loc, name)  # (unless that is pre-commit's own script: it would run itself)
        if chained is not None and not loop:
            _put_back(mine, chained, path + PRE_COMMIT_LEGACY)  # (over the wrapper)
        else:
            os.unlink(path + PRE_COMMIT_LEGACY)
            if loop:
                os.unlink(chained)
        removed[name] = "removed"
        return
    if _sha(path) != mine["wrapper"]:  # replaced by the hook it chains: drop the copy only
        if chained is not None:
            os.unlink(chained)
        return
    if mine.get("chained") is not None and chained is not None:
        _put_back(mine, chained, path)  # (over the wrapper)
        removed[name] = "removed, and the hook it chained put back"
        return
    os.unlink(path)  # (nothing chained, or deleted by hand: nothing to put back)
    removed[name] = "removed"
