"""The working tree's ``.hn/policy.json``, for the commands that edit it (issue 13).

Owns: finding the working tree, reading the file there (bounded, regular files only) and
replacing it atomically. Trusts: nothing in the file; the caller validates every byte. Recall never
reads this file: trust is read from the query commit (CONTRACT §6.1), so an edit here changes
nothing until the user commits it, and nothing here stages or commits.

Attacks defended against: a symlink planted at ``.hn`` or ``.hn/policy.json`` redirecting the
write outside the repository (*symlink redirection*: both are refused, and files are opened with
``O_NOFOLLOW``); a FIFO or device at the path blocking the reader (*non-regular file*); a crash or
full disk halfway through leaving a truncated policy (*torn write*: the new bytes are written to a
temporary file and renamed over the old one); an edit racing another edit or an editor and
silently undoing it (*lost update*: the file is read again just before the rename and must still
hold the bytes the edit started from).
"""

from __future__ import annotations

import os
import stat

from ..core.limits import LIMITS
from ..errors import ConflictError, InputError, LocalStateError, PolicyError
from . import private
from .repo import Repo

POLICY = ".hn/policy.json"  # as named in messages (relative to the working tree)


def toplevel(repo: Repo) -> str | None:
    """The working tree's top directory, or None (a bare repository). Without a Git process when
    discovery already says it (``_discovered_top``)."""
    top = _discovered_top(repo)
    if top is not None:
        return top
    proc = repo.git.run(["rev-parse", "--show-toplevel"])
    out = proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n")
    return out if proc.returncode == 0 and out else None


def _discovered_top(repo: Repo) -> str | None:
    """What ``git rev-parse --show-toplevel`` prints, when discovery found a ``.git`` directory
    itself (``store.discover``: no variable steering Git, no linked worktree, no bare repository,
    not inside a Git directory): the directory holding it, unless the repository's configuration
    file sets ``core.worktree`` or ``core.bare`` (read from that file alone when Git finds a
    repository; a record's trust hint started this process after every write: issue 11). None
    whenever in doubt (a ``-c`` setting, an include, any mention of either key but ``bare =
    false``): Git answers. Tests compare it with Git's answer in each of these layouts."""
    found = getattr(repo.git, "found", None)
    if found is None or any(k in repo.git.env for k in ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")):
        return None
    try:
        with open(os.path.join(found[0], "config"), "rb") as fh:
            text = fh.read(1 << 16 | 1).decode("utf-8", "replace").lower()
    except OSError:
        return None
    if len(text) > 1 << 16 or "worktree" in text or "include" in text:
        return None
    at = text.find("bare")
    while at >= 0:
        if text[at + 4:].split("\n", 1)[0].replace(" ", "").replace("\t", "") != "=false":
            return None
        at = text.find("bare", at + 4)
    return os.path.dirname(found[0])


def from_top(repo: Repo) -> list[str]:
    """The options (``-C TOP``) that make a Git command's pathspec a path from the top of the
    working tree, not from the current directory; none without a working tree (a bare repository,
    or its ``.git`` directory: no subdirectory to count from). ``GIT_LITERAL_PATHSPECS`` (CONTRACT
    §10.0) rules out ``:(top)`` (a review: from a subdirectory, ``git log -- .hn/policy.json``
    asked about ``sub/dir/.hn/policy.json`` and found no revocation)."""
    top = toplevel(repo)
    return ["-C", top] if top else []


def policy_dir(top: str) -> str:
    return os.path.join(top, ".hn")


def policy_path(top: str) -> str:
    return os.path.join(top, ".hn", "policy.json")


def _lstat(path: str):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LocalStateError(f"{POLICY} cannot be read: {exc.strerror}") from None


def check_dir(top: str) -> bool:
    """True if ``.hn`` is a real directory, False if absent; refuses a symlink or another kind."""
    st = _lstat(policy_dir(top))
    if st is None:
        return False
    if stat.S_ISLNK(st.st_mode):
        raise InputError(".hn in the working tree is a symbolic link; git hn edits only a real "
                         f"{POLICY}")
    if not stat.S_ISDIR(st.st_mode):
        raise InputError(".hn in the working tree is not a directory")
    return True


def unusable(top: str) -> str:
    """Why git hn does not read the working tree's policy file, for ``policy show``'s hint (f160):
    "link" (a symbolic link at its path: never followed, *symlink redirection*) or "unreadable"
    (this user may not read it, or search ``.hn``); "" otherwise (no file, one ``read_policy``
    reads, or one it refuses for another reason: a link or a file at ``.hn``, a FIFO). A few
    ``lstat`` and ``access`` calls, never a read."""
    directory, path = policy_dir(top), policy_path(top)
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return ""
        if not os.access(directory, os.X_OK):
            return "unreadable"
        mode = os.lstat(path).st_mode
    except OSError:
        return ""
    if stat.S_ISLNK(mode):
        return "link"
    return "unreadable" if stat.S_ISREG(mode) and not os.access(path, os.R_OK) else ""


def read_policy(top: str) -> tuple[bytes, int] | None:
    """The working-tree policy's bytes and permission bits, or None when there is no file."""
    if not check_dir(top):
        return None
    path = policy_path(top)
    st = _lstat(path)
    if st is None:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise InputError(f"{POLICY} in the working tree is a symbolic link; git hn edits only a "
                         "regular file")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{POLICY} in the working tree is not a regular file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise LocalStateError(f"{POLICY} cannot be read: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"{POLICY} in the working tree is not a regular file")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 65_536)
            if not chunk:
                break
            total += len(chunk)
            if total > LIMITS.max_policy:  # (§6's words and where; ``policy_edit`` adds the way out)
                raise PolicyError(f"{POLICY} in the working tree is invalid: policy exceeds {LIMITS.max_policy} "
                                  "bytes")
            chunks.append(chunk)
    except OSError as exc:
        raise LocalStateError(f"{POLICY} cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)
    return b"".join(chunks), stat.S_IMODE(st.st_mode)


def write_policy(top: str, data: bytes, expected: bytes | None, mode: int | None = None) -> str:
    """Write ``data`` to the working-tree policy atomically and return its path.

    ``expected`` None: create the file, refusing if one exists (also one created meanwhile:
    the new file is linked into place, which never replaces anything). Else: replace the file,
    which must still hold exactly ``expected``; ``mode`` keeps its permission bits."""
    directory = policy_dir(top)
    if not check_dir(top):
        try:
            os.mkdir(directory)
        except FileExistsError:
            pass
        except OSError as exc:
            raise LocalStateError(f".hn cannot be created in the working tree: {exc.strerror}") from None
        check_dir(top)
    path = policy_path(top)

    def place(tmp: str) -> None:
        if expected is None:
            _link_new(tmp, path)
            return
        now = read_policy(top)
        if now is None or now[0] != expected:
            raise ConflictError(f"{POLICY} changed while git hn was editing it; run the command again")
        os.rename(tmp, path)

    try:
        private.write_beside(directory, ".policy.json.hn-", data, place, mode=mode, fsync=True)
    except OSError as exc:
        raise LocalStateError(f"{POLICY} cannot be written: {exc.strerror}") from None
    return path


def _link_new(tmp: str, path: str) -> None:
    try:
        os.link(tmp, path)  # fails if the path exists, whatever it is: nothing is overwritten
    except FileExistsError:
        raise InputError(f"{POLICY} already exists in the working tree; change it with "
                         "git hn policy trust|untrust") from None
    except OSError:  # a file system without hard links: rename, after checking once more
        if os.path.lexists(path):
            raise InputError(f"{POLICY} already exists in the working tree; change it with "
                             "git hn policy trust|untrust") from None
        os.rename(tmp, path)
        return
    os.unlink(tmp)
