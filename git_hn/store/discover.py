"""Finding the repository around a directory without starting Git, in the layout of a clone.

Owns: the answer ``git rev-parse --absolute-git-dir --git-common-dir --show-object-format`` gives
in the usual case (a working tree whose ``.git`` is a directory of this user, with no extension
in its configuration), read from the file system: starting that process was a millisecond or
more of every command's start, and its start-up competed with the command's imports for the
machine's cores (issue 11: fixed cost).

Trusts nothing it has not checked, and decides nothing Git could decide differently: for
anything else (``GIT_DIR`` and the other variables that steer discovery, a ``.git`` file of a
linked worktree or submodule, a symbolic link, a bare repository or a directory inside a Git
directory, a directory owned by someone else (``safe.directory`` is Git's to apply), another file
system on the way up, any ``extensions`` or an unknown ``repositoryformatversion`` in the
configuration, a ``.git`` that does not look like a Git directory) ``find`` returns None and the
caller asks Git. Tests compare its answers with Git's in each of these layouts.
"""

from __future__ import annotations

import os
import stat

# variables under which Git finds another repository, or finds this one differently
_STEERING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
             "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_NAMESPACE")
_CONFIG_MAX = 1 << 16
_HEX = "0123456789abcdef"


def find(cwd: str, env) -> tuple[str, str, str] | None:
    """(absolute Git directory, common directory, object format) of the repository around
    ``cwd``, as ``git rev-parse`` would print them run in ``env``, or None: ask Git."""
    if any(name in env for name in _STEERING) or any(name.startswith("GIT_TEST_") for name in env):
        return None
    try:
        here = os.path.realpath(cwd)  # Git starts from the physical directory
        device = os.stat(here).st_dev
        while True:
            dotgit = os.path.join(here, ".git")
            try:
                st = os.lstat(dotgit)
            except FileNotFoundError:
                st = None
            if st is not None:
                if not stat.S_ISDIR(st.st_mode):
                    return None  # a gitfile (linked worktree, submodule) or a link: Git reads it
                return _answer(here, dotgit, st)
            if os.path.lexists(os.path.join(here, "HEAD")):
                return None  # perhaps a bare repository, or inside a Git directory
            parent = os.path.dirname(here)
            if parent == here or os.stat(parent).st_dev != device:
                return None  # not in a repository, or another file system: Git words it
            here = parent
    except (OSError, ValueError):
        return None


def _answer(top: str, dotgit: str, st) -> tuple[str, str, str] | None:
    uid = os.geteuid()
    if st.st_uid != uid or os.stat(top).st_uid != uid:
        return None  # ownership (and ``safe.directory``) is Git's to judge
    if os.path.lexists(os.path.join(dotgit, "commondir")) or not _is_git_directory(dotgit):
        return None
    if not _plain_config(os.path.join(dotgit, "config")):
        return None
    return dotgit, dotgit, "sha1"


def _is_git_directory(path: str) -> bool:
    """Git's ``is_git_directory``: a valid ``HEAD``, and ``objects`` and ``refs`` it may enter."""
    if not (os.access(os.path.join(path, "objects"), os.X_OK)
            and os.access(os.path.join(path, "refs"), os.X_OK)):
        return False
    head = os.path.join(path, "HEAD")
    st = os.lstat(head)
    if stat.S_ISLNK(st.st_mode):
        return os.readlink(head).startswith("refs/")
    if not stat.S_ISREG(st.st_mode) or st.st_size > 4096:
        return False
    with open(head, "rb") as fh:
        data = fh.read(4097).decode("ascii", "replace").strip()
    if data.startswith("ref: "):
        return data[5:].strip().startswith("refs/")
    return len(data) in (40, 64) and not data.strip(_HEX)


def _plain_config(path: str) -> bool:
    """The configuration declares no extension and a repository format Git reads as version 0
    or 1 (the format is read from this file alone, never through includes)."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode) or st.st_size > _CONFIG_MAX:
        return False
    with open(path, "rb") as fh:
        text = fh.read(_CONFIG_MAX + 1).decode("utf-8", "replace").lower()
    if "extensions" in text:
        return False
    at = text.find("repositoryformatversion")
    while at >= 0:
        value = text[at + len("repositoryformatversion"):].split("\n", 1)[0]
        if value.replace(" ", "").replace("\t", "") not in ("=0", "=1"):
            return False
        at = text.find("repositoryformatversion", at + 1)
    return True
