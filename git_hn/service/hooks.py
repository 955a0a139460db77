"""Git hooks: install and status of the wrappers (CONTRACT §10.7); uninstall is
``hook_uninstall``'s, what they run ``hook_runs``'.

Install never replaces a user's hook: an existing ``<hook>`` moves to ``hn-chained/<hook>`` in the
same directory, under its own name, and the wrapper runs it first with the same arguments, stdin
and ``$0`` (see ``hookscripts``), honouring its status. Every file git-hn writes or moves is
recorded with its SHA-256 and mode, and uninstall refuses unless both the wrapper and the chained
hook are still exactly what was recorded, so it can restore the directory byte for byte and never
deletes a hook it did not write. Install never writes into files Git tracks or shows in
``git status`` (a committed ``core.hooksPath`` such as ``.husky``): it refuses, and says how to call
git-hn from the team's own hook instead.

The wrappers (``hookscripts``) run ``git hn hooks run <hook>`` (``hook_runs``).
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager

from ..core import hashing
from ..errors import HnError, InputError
from ..hookpaths import PUBLISHER
from ..store.repo import Repo
from .hook_calls import calls_git_hn, loops_back, pre_commit_script, rechainable, skips_pre_commit
from .hook_location import (CHAINED_DIR, HOOKS, LEGACY, Location, in_this_worktree, locate, make_absolute,
                            make_hooks_dir, own_recorded, per_worktree_hooks, refuse_shared, refuse_worktree_files,
                            refused_in, relative_hooks_path, shared_hooks_path, within, writable)

__all__ = ["HOOKS", "PUBLISHER", "Location", "locate", "install", "status_lines",
           "selection_hint", "wrappers_here", "wrapper_text", "shared_hooks_path"]



def wrapper_text(name: str, executable: str | None = None) -> bytes:
    import shlex  # (the templates and ``shlex`` only here: a hook's run never writes a wrapper)
    from ..hookpaths import git_hn_path, wrapper_mark
    from ..hookscripts import TEMPLATES

    return TEMPLATES[name].replace("@WRAPPER@", wrapper_mark(TEMPLATES[name])).replace(
        "@GIT_HN@", shlex.quote(executable or git_hn_path())).encode()


def _sha(path: str) -> str | None:
    """The SHA-256 of the file at ``path`` (a link followed), None when there is nothing, and
    ``special`` for what is not a regular file (a FIFO is never opened: it would block)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return "special"
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"hook {path} is a directory, not a hook; nothing was changed")
    if not stat.S_ISREG(st.st_mode):
        return "special"
    try:
        with open(path, "rb") as fh:
            return hashing.sha256(fh.read()).hexdigest()
    except FileNotFoundError:
        return None


def _wrapper_head(name: str) -> bytes:
    """The first two lines of every wrapper git-hn ever wrote for ``name`` (``hookscripts``)."""
    return f"#!/bin/sh\n# git-hn {name} wrapper (installed by `git hn hooks install`; see git-hn-hooks(1)).\n".encode()


_HEADS = tuple(_wrapper_head(n) for n in HOOKS)


def _is_wrapper(path: str) -> bool:
    """Whether ``path`` is a regular file that starts as a git-hn wrapper does (any version, any
    executable path). Never a symbolic link (a link is the user's: chained and put back as it
    was), never opened unless it is a regular file (a FIFO named like a hook blocks no one)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return False
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        head = os.read(fd, 160)
    except OSError:
        return False
    finally:
        os.close(fd)
    return head.startswith(_HEADS)


def _replaced(path: str, chained: str, mine: dict) -> bool:
    """Whether the wrapper is gone with nothing chained left to restore (a hook manager's own
    hook in its place, or nothing), or a hook manager put the chained hook back over it (husky
    re-generating its stubs: the hook is the same as its chained copy)."""
    if not os.path.lexists(chained):  # (a chained copy deleted by hand was the user's to delete)
        return not _is_wrapper(path)  # anything but a wrapper of ours someone edited
    return mine.get("chained") is not None and _fingerprint(path) == _fingerprint(chained)


PRE_COMMIT_LEGACY = ".legacy"  # pre-commit's "migration mode": the hook it found, run after its own


def _migrated(path: str, mine: dict) -> bool:
    """Whether pre-commit's ``install`` moved the wrapper to ``<hook>.legacy`` (it runs it)."""
    return os.path.lexists(path) and _sha(path) != mine["wrapper"] \
        and _sha(path + PRE_COMMIT_LEGACY) == mine["wrapper"]


def _put_back(mine: dict, chained: str, path: str) -> None:
    """The hook install chained, back at ``path`` as it was (a relative link as its text), in place
    of the wrapper there, by one rename: when it cannot be put back, the wrapper stays and still
    runs it (a review: the wrapper was removed first, and a refused put-back left the user's hook
    in hn-chained/, where Git never runs it)."""
    if not mine.get("chainedLink"):
        os.rename(chained, path)
        return
    text = os.readlink(chained)
    os.unlink(chained)
    tmp = f"{path}.hn-{os.urandom(6).hex()}"
    try:
        os.symlink(mine["chainedLink"], tmp)
        os.replace(tmp, path)
    except OSError as exc:
        for undo in (lambda: os.unlink(tmp), lambda: os.symlink(text, chained)):  # (the wrapper runs it again)
            try:
                undo()
            except OSError:
                pass
        raise OSError(exc.errno, exc.strerror, path) from None  # (named as the hook, not the link's text)


def _fingerprint(path: str) -> str | None:
    """What install records of a hook it chains: its content's SHA-256, or for a link,
    ``link:<its text>`` (what it links to is the team's file, which may change, or may not
    exist); None when there is nothing."""
    if os.path.islink(path):
        return "link:" + os.readlink(path)
    return _sha(path)


def refuse_elsewhere(loc: Location, repo: Repo | None = None) -> None:
    """This repository's wrappers are still in the directory its record names, which is not where
    this install would write (``core.hooksPath`` changed since, or another worktree's relative
    one): a second install would move the record and strand them and the hooks they chain."""
    if loc.private_root is None or not loc.gitdir:
        return
    recorded, by = own_recorded(loc, loc.gitdir)
    if not recorded or not (by == loc.gitdir or within(recorded, loc.gitdir)) or not os.path.isdir(recorded) \
            or os.path.realpath(recorded) == os.path.realpath(loc.dir):
        return
    there = Location(recorded, loc.record, loc.private_root, loc.gitdir)
    if not wrappers_here(there):
        return
    if repo is not None and (within(recorded, loc.gitdir) or not per_worktree_hooks(repo)):
        # (what ``uninstall`` here follows: ``_follow_record``)
        raise InputError(f"git-hn's hooks of this repository are installed in {recorded} (with core.hooksPath as "
                         "it was): git hn hooks uninstall takes them out from there, then install again")
    relative = relative_hooks_path(repo) if not in_this_worktree(repo, recorded) else ""
    if relative:  # (a trial: a worktree of a repository whose untracked core.hooksPath is relative
        # ran no hook, and this refusal's way out only moved the problem to the other worktree)
        raise InputError(f"git-hn's hooks of this repository are installed in {recorded}, another worktree's: "
                         f"{make_absolute(relative, recorded)}; nothing was changed")
    raise InputError(f"git-hn's hooks of this repository are installed in {recorded} (another worktree's, or "
                     f"with core.hooksPath as it was): uninstall them from there first (git hn hooks "
                     "uninstall where core.hooksPath names that directory), then install here")


@contextmanager
def _changing(loc: Location):
    """One ``hooks install|uninstall`` at a time in ``loc.dir``: an ``flock`` on its parent
    directory (which exists before the hooks directory does; no file of git-hn's among the
    user's). Two at once each planned from what they read, and one chained git-hn's own wrapper
    as the user's hook, which was then lost for good."""
    from ..store.lock import flock_within

    try:
        fd = os.open(os.path.dirname(os.path.abspath(loc.dir)), os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # (no parent: nothing to take turns over; install says why it cannot)
        yield
        return
    try:
        try:
            flock_within(fd, CHANGE_WAIT, f"another git hn hooks install or uninstall is changing {loc.dir}; "
                                          "run the command again")
        except OSError as exc:  # (a file system without locks, NFS without lockd: as before, unlocked)
            if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                raise
        yield
    finally:
        os.close(fd)


CHANGE_WAIT = 30.0  # seconds an install or uninstall waits for another one in the same directory


def install(loc: Location, repo: Repo | None = None) -> list[str]:
    with _changing(loc):
        return _install(loc, repo)


def _install(loc: Location, repo: Repo | None = None) -> list[str]:
    make_hooks_dir(repo, loc, create=False)  # (a file there: said so, before any other refusal reads it)
    refuse_worktree_files(repo, loc)
    refuse_shared(repo, loc)
    refuse_elsewhere(loc, repo)
    make_hooks_dir(repo, loc)
    record = loc.load()
    plan = []
    for name in HOOKS:
        path = loc.path(name)
        text = wrapper_text(name)
        mine = record.get(name)
        if mine is None and os.path.lexists(path) and not _is_wrapper(path) \
                and _is_wrapper(path + PRE_COMMIT_LEGACY):
            _refuse_unrecorded(loc, path + PRE_COMMIT_LEGACY)  # (pre-commit runs it: taken on there)
            plan.append((name, path + PRE_COMMIT_LEGACY, text, None, ADOPT))
            continue
        if mine is not None and _migrated(path, mine) and rechainable(loc, name):
            plan.append((name, path, text, path, RECHAIN))  # (pre-commit ran it first, or gave it no input)
            continue
        if mine is not None and _migrated(path, mine):
            # pre-commit runs the wrapper as <hook>.legacy: refreshed there; pre-commit's own
            # hook is not the user's to chain while the wrapper is its legacy hook (they would
            # run each other in a loop)
            if _sha(path + PRE_COMMIT_LEGACY) != hashing.sha256(text).hexdigest():
                plan.append((name, path + PRE_COMMIT_LEGACY, text, None, REFRESH))
            continue
        current = _fingerprint(path)  # (a dangling link is a hook too: chained, never overwritten)
        if mine is not None and current == mine["wrapper"]:
            legacy = os.path.lexists(path + LEGACY) and mine.get("chained") is not None
            if current == hashing.sha256(text).hexdigest() and not legacy:
                continue  # already installed, unchanged
            if legacy and os.path.lexists(loc.chained(name)):
                raise InputError(f"hook {loc.chained(name)} already exists; refusing to install")
            plan.append((name, path, text, path + LEGACY if legacy else None, REFRESH))  # in place
            continue
        if current is not None and _is_wrapper(path):
            # git-hn's own wrapper, not as this record has it: chained, it would run itself
            if mine is not None:
                if current == hashing.sha256(text).hexdigest():
                    plan.append((name, path, text, None, REFRESH))  # (already today's: recorded)
                    continue
                raise InputError(f"hook {path} changed since install (git-hn's wrapper, edited); refusing to "
                                 "install over the edit: take it out (or delete the file), then install again")
            _refuse_unrecorded(loc, path)
            plan.append((name, path, text, None, ADOPT))  # this Git directory's: its record was lost
            continue
        if current is not None:
            if os.path.lexists(loc.chained(name)) and _fingerprint(loc.chained(name)) != current:
                # (the same hook twice is a hook manager that rewrote its stubs over the
                # wrappers, husky's `prepare`: the copy is chained again)
                raise InputError(f"hook {loc.chained(name)} already exists and differs from {path}; "
                                 "refusing to install: keep the one that is wanted as "
                                 f"{path}, remove the other, then install again")
            plan.append((name, path, text, path, NEW))
        elif mine is not None and mine.get("chained") is not None and loc.current_chained(name) is not None \
                and mine["chained"] in (_fingerprint(loc.current_chained(name)), _sha(loc.current_chained(name))):
            # the wrapper deleted by hand, the hook it chains still there as recorded: chained again
            plan.append((name, path, text, None, REFRESH))
        elif mine is None and loc.current_chained(name) is not None and loc.gitdir and within(loc.dir, loc.gitdir):
            # a chained hook with neither its wrapper nor its record (both lost): the new wrapper
            # runs it, so uninstall must put it back (this Git directory's: nothing else writes here)
            plan.append((name, path, text, None, ADOPT))
        else:
            plan.append((name, path, text, None, NEW))
    if _heal(loc, record):  # (only once nothing above refused)
        loc.save(record)
    if not plan:
        return status_lines(loc)
    switched = {name: other[0] for name in HOOKS if (other := _runs_other(loc, name))}  # (an upgrade's PATH)
    updated = {name for name in HOOKS if name not in switched and _older_text(loc, name)}  # (an upgrade in place)
    loc.save(record)  # the record can be written: else nothing is, not even a wrapper
    done: list = []  # what ``_apply`` did, for ``_undo``
    folder = os.path.join(loc.dir, CHAINED_DIR)
    had_folder = os.path.lexists(folder)
    try:
        _apply(loc, plan, record, done)
        loc.save(record)
    except (OSError, HnError) as exc:
        _undo(done)
        if not had_folder:
            try:
                os.rmdir(folder)
            except OSError:
                pass
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else getattr(exc, "message", str(exc))
        if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM):  # (read-only: what to do)
            why += f"; {writable(loc, 'install', refused_in(exc, loc.dir)[1])}"
        raise InputError(f"hooks could not be installed in {loc.dir}: {why}; nothing was changed") from None
    return status_lines(loc, switched, updated)


def _refuse_unrecorded(loc: Location, path: str) -> None:
    """A wrapper of git-hn's at ``path`` that the record does not name is taken on only in this
    repository's own Git directory (nothing else writes there: its record was lost); elsewhere
    another repository may own it, so install refuses, saying how to tell and what to do."""
    if loc.gitdir and within(loc.dir, loc.gitdir):
        return
    record = "this repository's hook record" if loc.private_root is not None else f"the record {loc.record}"
    raise InputError(f"{path} is already a git-hn wrapper that {record} does not name: a repository whose "
                     "core.hooksPath names this directory installed it (git hn hooks uninstall in that "
                     "repository takes it out), or the record was lost (then take git-hn's wrappers out by hand: "
                     f"delete each, and move {CHAINED_DIR}/<hook>, if there, back in its place); nothing was changed")


LEFTHOOK_OLD = ".old"  # lefthook's install renames the hook it finds to <hook>.old, and never runs it


def _drop_stale_old(loc: Location) -> bool:
    """Remove each git-hn wrapper lefthook's install renamed to ``<hook>.old`` (a file with a
    wrapper's first two lines; another hook is at ``<hook>``): nothing runs it, and lefthook's next
    install failed on it ("can't rename pre-push to pre-push.old - file already exists"), as
    uninstall left it behind. Whether any was removed."""
    removed = False
    for name in HOOKS:
        old = loc.path(name) + LEFTHOOK_OLD
        if os.path.lexists(loc.path(name)) and _is_wrapper(old):
            os.unlink(old)
            removed = True
    return removed


def _heal(loc: Location, record: dict) -> bool:
    """Remove a chained "user's hook" that is itself a git-hn wrapper (an earlier version chained
    another repository's wrappers, or its own after a lost record: each then ran itself without
    end); its record entry then chains nothing. Whether anything changed."""
    changed = _drop_stale_old(loc)
    for name in HOOKS:
        path = loc.path(name)
        if not os.path.lexists(path) and _is_wrapper(path + PRE_COMMIT_LEGACY):
            os.unlink(path + PRE_COMMIT_LEGACY)  # (pre-commit gone: nothing runs it, a wrapper is written anew)
            changed = True
        chained = loc.current_chained(name)
        if chained is None or not (_is_wrapper(chained) or loops_back(loc, name)):
            continue
        os.unlink(chained)  # (a wrapper of git-hn's, or pre-commit's script it runs again: regular files)
        changed = True
        if name in record:
            record[name] = {**record[name], "chained": None, "chainedMode": None}
            record[name].pop("chainedLink", None)
    if changed:
        try:
            os.rmdir(os.path.join(loc.dir, CHAINED_DIR))  # (only when empty)
        except OSError:
            pass
    return changed


NEW, REFRESH, ADOPT = "new", "refresh", "adopt"  # a plan's kinds: a wrapper where none of this
# record's is (what the record said of a chained hook is void), one of its own refreshed, or a
# wrapper in this Git directory whose record was lost (taken on, with the hook it chains)
RECHAIN = "rechain"  # pre-commit's hook chained, the wrapper back from <hook>.legacy



def _apply(loc: Location, plan: list, record: dict, done: list) -> None:
    for name, path, text, chain, kind in plan:
        entry = record.get(name, {}) if kind == REFRESH else {}
        entry = {"name": name, "chained": None, "chainedMode": None, **entry}
        if kind != REFRESH:
            entry.pop("chainedLink", None)
            entry["chained"] = entry["chainedMode"] = None
        if kind == RECHAIN:  # pre-commit's hook to hn-chained/, the wrapper back from <hook>.legacy
            target = loc.chained(name)
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            if os.path.lexists(target):  # (the same script: ``rechainable``) kept as chained
                os.replace(path, target)
            else:
                os.rename(path, target)
            done.append(("chained", path, target, None))
            os.rename(path + PRE_COMMIT_LEGACY, path)
            done.append(("chained", path + PRE_COMMIT_LEGACY, path, None))
            entry["chained"] = _fingerprint(target)
            entry["chainedMode"] = stat.S_IMODE(os.lstat(target).st_mode)
            chain = None
        if kind == ADOPT and loc.current_chained(name) is not None:
            chain = loc.current_chained(name)
            if chain == loc.chained(name):
                _adopt_chained(entry, chain, path)
                chain = None
        if chain:
            target = loc.chained(name)
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            link = os.readlink(chain) if os.path.islink(chain) else None
            if link is not None and not os.path.isabs(link):
                # a relative link (``../../scripts/pre-push``) moved one folder down would point at
                # nothing, and the team's hook would silently stop running: the chained link
                # points at the same file from its new folder, and uninstall restores the original
                os.symlink(os.path.relpath(os.path.join(os.path.dirname(chain), link), os.path.dirname(target)),
                           target)
                os.unlink(chain)
                if chain == path:
                    entry["chainedLink"] = link
            else:
                os.rename(chain, target)
            done.append(("chained", chain, target, link))
            if chain == path:
                st = os.lstat(target)
                entry["chained"] = _fingerprint(target)
                entry["chainedMode"] = stat.S_IMODE(st.st_mode)
            else:  # (the legacy layout's copy, moved: what uninstall puts back, from where it is now)
                _adopt_chained(entry, target, path)
        old = None  # a wrapper refreshed in place: undone by writing it back
        if not os.path.islink(path) and os.path.isfile(path):
            with open(path, "rb") as fh:
                old = fh.read()
        tmp = path + ".hn-tmp"
        try:
            with open(tmp, "wb") as fh:
                fh.write(text)
            os.chmod(tmp, 0o755)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        done.append(("wrapper", path, old, None))
        entry["wrapper"] = hashing.sha256(text).hexdigest()
        record[name] = entry


def _adopt_chained(entry: dict, chained: str, path: str) -> None:
    """Record ``chained`` (found in place, its install's record lost) as the hook to put back at
    ``path``: a relative link is put back with the text that points at the same file from there."""
    entry["chained"] = _fingerprint(chained)
    entry["chainedMode"] = stat.S_IMODE(os.lstat(chained).st_mode)
    link = os.readlink(chained) if os.path.islink(chained) else None
    if link is not None and not os.path.isabs(link):
        entry["chainedLink"] = os.path.relpath(os.path.join(os.path.dirname(chained), link), os.path.dirname(path))


def _undo(done: list) -> None:
    """Take back what ``_apply`` did, last first (best effort: the install's error is what is
    reported): ``("wrapper", path, bytes before or None)`` is written back or removed;
    ``("chained", where it was, where it went, its relative link text or None)`` moves back."""
    for kind, first, second, link in reversed(done):
        try:
            if kind == "wrapper" and second is not None:  # a wrapper refreshed in place
                with open(first, "wb") as fh:
                    fh.write(second)
            elif kind == "wrapper":
                os.unlink(first)
            elif link is not None and not os.path.isabs(link):
                os.unlink(second)
                os.symlink(link, first)
            else:
                os.rename(second, first)
        except OSError:
            pass


def selection_hint(repo: Repo | None) -> str:
    """After a repository's install: a hint when no remote has a saved selection, since the
    fetch hook imports only for a remote that has one (CONTRACT §10.7); "" otherwise."""
    if repo is None:
        return ""
    from ..store.replication import root

    try:
        saved = any(n.endswith(".json") for n in os.listdir(os.path.join(root(repo), "selections")))
    except OSError:
        saved = False
    if saved:
        return ""
    return ("no replication selection is saved here, so a fetch imports no memory; choose what to "
            "import with git hn replication select --all (or --memory sha256:<stream>)")


def wrappers_here(loc: Location, record: dict | None = None) -> set[str]:
    """The hooks of the record that leave a trace in ``loc.dir``: the wrapper itself, the wrapper
    pre-commit moved to ``<hook>.legacy``, or a chained copy of the user's hook."""
    record = loc.load() if record is None else record
    return {n for n, mine in record.items() if n in HOOKS and (
        _sha(loc.path(n)) == mine["wrapper"] or _migrated(loc.path(n), mine) or loc.current_chained(n))}


def _runs_other(loc: Location, name: str) -> tuple[str, str] | None:
    """``hookpaths.other_git_hn`` of the wrapper of ``name`` (where pre-commit moved it, too)."""
    from ..hookpaths import other_git_hn

    wrapper = _wrapper_of(loc, name)
    return other_git_hn(wrapper) if wrapper else None


def _wrapper_of(loc: Location, name: str) -> str | None:
    path = loc.path(name)
    return next((p for p in (path, path + PRE_COMMIT_LEGACY) if _is_wrapper(p)), None)


def _older_text(loc: Location, name: str) -> bool:
    """Whether the wrapper of ``name`` is an earlier git-hn's text: not this git-hn's template
    filled with the executable it records (an upgrade trial: ``install.sh`` run again into the
    same directory keeps every clone's wrappers, so fixes to them never arrived, and status said
    ``installed``). A wrapper that records another executable is ``_runs_other``'s to tell."""
    from ..hookpaths import recorded_git_hn

    wrapper = _wrapper_of(loc, name)
    recorded = recorded_git_hn(wrapper) if wrapper else None
    return recorded is not None and _sha(wrapper) != hashing.sha256(wrapper_text(name, recorded)).hexdigest()


def status_lines(loc: Location, switched: dict | None = None, updated: set | None = None) -> list[str]:
    """One line per hook; ``switched``: the git-hn each wrapper ran before ``install`` rewrote it;
    ``updated``: the hooks whose wrapper ``install`` rewrote from an earlier git-hn's text. For the
    global location, each command it gives is the ``--global`` one (an S82 review: an earlier
    git-hn's global wrapper said "git hn hooks install updates it", which then refused, the hooks
    being the global core.hooksPath's)."""
    lines = _status_lines(loc, switched, updated)
    if loc.private_root is not None:
        return lines
    import re

    command = re.compile(r"git hn hooks (install|uninstall)\b(?! --global)")
    return [command.sub(r"git hn hooks \1 --global", line).replace(", then install again", ", then install --global "
                                                                     "again") for line in lines]


def _status_lines(loc: Location, switched: dict | None, updated: set | None) -> list[str]:
    record = loc.load()
    lines = []
    for name in HOOKS:
        path = loc.path(name)
        mine = record.get(name)
        loop = mine is not None and _migrated(path, mine) and loops_back(loc, name)
        if loop and not skips_pre_commit(path + PRE_COMMIT_LEGACY):  # (a wrapper an earlier git-hn wrote)
            lines.append(f"{name}: broken: pre-commit runs it as {name}{PRE_COMMIT_LEGACY}, and it runs pre-commit's "
                         f"own hook again ({CHAINED_DIR}/{name}), which stops with pre-commit's \"bug: ... migration "
                         f"mode\" error{', so every push fails' if name == 'pre-push' else ''}; git hn hooks install "
                         "repairs it")
        elif mine is not None and _migrated(path, mine) and name == "post-rewrite":
            # (a team trial: pre-commit passes a legacy hook its input only for pre-push, so the
            # rewritten commits never reach git-hn and an amend or a rebase re-anchors nothing)
            how = ("git hn hooks install chains pre-commit's hook instead, so both run" if rechainable(loc, name)
                   else f"pre-commit uninstall -t {name} puts git-hn's back (then leave {name} out of pre-commit's "
                   "hook types)")
            lines.append(f"{name}: installed but inert: pre-commit runs it as {name}{PRE_COMMIT_LEGACY} without the "
                         f"rewritten commits, so an amend or a rebase re-anchors nothing; {how}")
        elif mine is not None and _migrated(path, mine) and name == "pre-push" and pre_commit_script(path):
            # (a trial: pre-commit runs its legacy hook before its own checks, so memory went out
            # with a push they then refused)
            how = ("git hn hooks install chains pre-commit's hook instead, so its checks run first"
                   if rechainable(loc, name) else "git hn hooks uninstall, then git hn hooks install, puts "
                   "pre-commit's hook first (with the hook git-hn chained as pre-commit's legacy hook)")
            skips = (f"; it skips {CHAINED_DIR}/{name}, a copy of pre-commit's own hook" if loop else "")
            lines.append(f"{name}: installed but publishes too early: pre-commit runs it as {name}{PRE_COMMIT_LEGACY} "
                         f"before its own checks, so memory is published even for a push they refuse{skips}; {how}")
        elif mine is not None and _migrated(path, mine):
            lines.append(f"{name}: installed (pre-commit runs it as {name}{PRE_COMMIT_LEGACY})")
        elif mine is not None and _sha(path) != mine["wrapper"] and _is_wrapper(path):
            # (a newcomer's edited wrapper was "not installed", and the hint said the record "was lost")
            lines.append(f"{name}: edited since install (git-hn's wrapper, changed by hand): Git runs it as it "
                         "is; git hn hooks install and uninstall refuse over the edit until it is taken out "
                         "(or the file deleted)")
        elif (mine is None or _sha(path) != mine["wrapper"]) and calls_git_hn(loc, name):
            lines.append(f"{name}: run by hand from {calls_git_hn(loc, name)} (its line git hn hooks run {name}, as "
                         "git-hn-hooks(1) gives it; no wrapper of git-hn's)")
        elif mine is None or _sha(path) != mine["wrapper"]:
            lines.append(f"{name}: not installed")
        elif loc.current_chained(name) is not None:
            chained = os.path.relpath(loc.current_chained(name), loc.dir)
            lines.append(f"{name}: installed (chains {chained})")
        else:
            lines.append(f"{name}: installed")
    if loc.runs_from:  # (a team trial: "installed" for hooks Git no longer runs, said only in a hint after)
        rel = os.path.relpath(loc.dir)
        where = loc.dir if rel == ".." or rel.startswith(".." + os.sep) else rel
        for i, (name, line) in enumerate(zip(HOOKS, lines)):
            rest = line[len(f"{name}: installed"):]
            if line.startswith(f"{name}: installed") and rest[:2] in ("", " ("):
                lines[i] = (f"{name}: installed in {where}{rest}, not run (core.hooksPath changed since): "
                            "git hn hooks uninstall, then install again")
            elif line.startswith(f"{name}: edited since install"):  # (a trial: "Git runs it as it is")
                lines[i] = (f"{name}: edited since install in {where} (git-hn's wrapper, changed by hand), not run "
                            "(core.hooksPath changed since): take the edit out (or delete the file), then git hn "
                            "hooks uninstall, then install again")
        return lines
    for i, (name, line) in enumerate(zip(HOOKS, lines)):  # (an upgrade trial: hooks kept running the old one)
        if not line.startswith(f"{name}: installed") or line[len(f"{name}: installed"):][:2] not in ("", " ("):
            continue
        other = _runs_other(loc, name)
        if other is not None:
            lines[i] += f", runs {other[0]}, not this git-hn ({other[1]}); git hn hooks install makes it run this one"
        elif (switched or {}).get(name):
            from ..hookpaths import git_hn_path

            lines[i] += f", switched from {switched[name]} to this git-hn ({git_hn_path()})"
        elif name in (updated or ()):
            lines[i] += ", its wrapper updated from an earlier git-hn's"
        elif _older_text(loc, name):
            lines[i] += ", an earlier git-hn's wrapper (fixes since do not reach it): git hn hooks install updates it"
    return lines
