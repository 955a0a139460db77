"""Partial clones (``git clone --filter``; git-hn): whether a repository is one, and the Git
environment in which it says which objects it has without fetching the ones it lacks.

Owns: that answer, and the small private repository ``<common-gitdir>/hn/objects-view`` it
needs. Trusts: the repository's own files (its pack directory and config), read as Git leaves
them; nothing a remote sent.

Why: in a repository with a promisor remote, Git fetches any object it is asked about and lacks
from that remote, one ``git fetch`` per object (a *lazy fetch*), each followed by ``git
maintenance run --auto``. A sync asks the main repository which of the fetched memory objects it
already has, nearly all of them new: 69 fetches for a stream of 30 memories (1 s against 0.1 s
in a full clone), and every one put an object of a memory not yet validated into the main object
store, past the quarantine (CONTRACT §9.10: only promoted objects are copied there). Git 2.39
has no switch for a lookup that does not fetch: ``cat-file -e`` and ``--batch-check`` fetch,
``rev-list --missing=print`` refuses a missing object named on its command line, and
``GIT_NO_LAZY_FETCH=1`` (2.44, backported to 2.39.4) makes a lookup of a promised object fail
the whole process ("could not fetch … from promisor remote"), after reading every promisor pack
to learn which objects are promised. So the question is asked of a *view* instead: a repository
with no configuration but its object format, whose object directory is the main repository's
(``GIT_OBJECT_DIRECTORY``). Git reads the same packs, loose objects and alternates there, and,
with no promisor remote, answers "missing" for what is not on disk. Nothing is ever written to
the main store through it.

A repository is taken as partial when its pack directory holds a ``.promisor`` pack (every
partial clone's first pack is one) or its config names a promisor remote (``remote.<name>.
promisor``, ``extensions.partialClone``): a false positive only asks through the view, which
answers the same.
"""

from __future__ import annotations

import os

from ..errors import HnError
from . import private

VIEW = "objects-view"
CONFIG_MAX = 1 << 20  # bytes of the repository's config read for the word "promisor"


def is_partial(common_dir: str) -> bool:
    """Whether Git may fetch a missing object of this repository from a promisor remote."""
    try:
        with os.scandir(os.path.join(common_dir, "objects", "pack")) as it:
            if any(e.name.endswith(".promisor") for e in it):
                return True
    except OSError:
        pass
    try:
        with open(os.path.join(common_dir, "config"), "rb") as fh:
            text = fh.read(CONFIG_MAX).lower()
    except OSError:
        return False
    return b"promisor" in text or b"partialclone" in text


def view_dir(common_dir: str) -> str:
    return os.path.join(common_dir, "hn", VIEW)


def view_env(common_dir: str, object_format: str, inherited: dict) -> dict | None:
    """In a partial clone: the variables a scrubbed runner (``store.git``) needs to answer from
    this repository's objects without lazy fetches (the view's ``GIT_DIR``, the objects'
    ``GIT_OBJECT_DIRECTORY``, and alternates named in ``inherited``, the main runner's
    environment). None for any other repository, or when the view cannot be made (the caller
    then asks the repository itself, as before)."""
    if not is_partial(common_dir):
        return None
    try:
        view = _ensure_view(common_dir, object_format)
    except (OSError, HnError):
        return None
    env = {"GIT_DIR": view, "GIT_COMMON_DIR": view,
           "GIT_OBJECT_DIRECTORY": inherited.get("GIT_OBJECT_DIRECTORY") or os.path.join(common_dir, "objects")}
    if inherited.get("GIT_ALTERNATE_OBJECT_DIRECTORIES"):
        env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = inherited["GIT_ALTERNATE_OBJECT_DIRECTORIES"]
    return env


def _ensure_view(common_dir: str, object_format: str) -> str:
    """The view's directory, made (or mended) when it is not exactly what it must be: ``HEAD``,
    ``refs/`` and a config of the object format alone (no hooks, no promisor remote)."""
    hn_dir = os.path.join(common_dir, "hn")
    if not os.path.isdir(hn_dir):  # (a command never makes ``hn`` for a derived file: ``repo._checked_version``)
        raise FileNotFoundError(hn_dir)
    view = view_dir(common_dir)
    config = "[core]\n\trepositoryformatversion = {}\n\tbare = true\n".format(
        0 if object_format == "sha1" else 1)
    if object_format != "sha1":
        config += f"[extensions]\n\tobjectformat = {object_format}\n"
    files = {"HEAD": b"ref: refs/heads/main\n", "config": config.encode("ascii")}
    if all(private.read_private(hn_dir, os.path.join(view, name)) == data for name, data in files.items()) \
            and os.path.isdir(os.path.join(view, "refs")):
        return view
    private.ensure_dirs(hn_dir, os.path.join(view, "refs"))
    for name, data in files.items():
        private.write_private(hn_dir, os.path.join(view, name), data, derived=True)
    return view
