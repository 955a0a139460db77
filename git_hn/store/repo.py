"""Repository discovery and the paths of git-hn's private state (CONTRACT §2.2, §10.0).

Owns: finding the git directory, the common git directory and the object format; the Git version
check; resolving revisions to commits; building every private path (one function each, never an
f-string at a call site). Trusts: Git's answers about the repository it runs in.
"""

from __future__ import annotations

import os
import re

from ..core.gostr import one_line
from ..errors import GitError, InputError
from .git import Git

MIN_GIT = (2, 30)


class Repo:
    """One discovered repository: its runner, git directories and object format."""

    def __init__(self, git: Git, git_dir: str, common_dir: str, object_format: str):
        self.git = git
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.object_format = object_format
        self._head: str | None = None
        self._pending = None
        self.quarantine = False

    def pending(self):
        """The replication pending state (§9.17); nothing is pending inside a quarantine."""
        if self._pending is None:
            from . import replication

            self._pending = replication.NONE if self.quarantine else replication.load_pending(self)
        return self._pending

    def forget_pending(self) -> None:
        self._pending = None

    # -- private paths (CONTRACT §2.2) ---------------------------------------------------------

    @property
    def hn_dir(self) -> str:
        return os.path.join(self.common_dir, "hn")

    @property
    def worktree_hn_dir(self) -> str:
        return os.path.join(self.git_dir, "hn")

    def identities_dir(self) -> str:
        return os.path.join(self.hn_dir, "identities")

    def identity_path(self, actor: str) -> str:
        return os.path.join(self.hn_dir, "identities", actor + ".json")

    def active_path(self) -> str:
        return os.path.join(self.hn_dir, "active")

    def legacy_identity_path(self) -> str:
        return os.path.join(self.hn_dir, "identity.json")

    def lock_path(self, actor: str, stream: str) -> str:
        return os.path.join(self.hn_dir, "locks", f"memory-{actor}-{stream[len('sha256:'):]}.lock")

    def verified_heads_path(self) -> str:
        return os.path.join(self.hn_dir, "memory", "verified-heads-v0.json")

    def index_dir(self) -> str:
        return os.path.join(self.worktree_hn_dir, "memory")

    def index_path(self) -> str:
        return os.path.join(self.worktree_hn_dir, "memory", "index-v0.json")

    @property
    def oid_hex_len(self) -> int:
        return 64 if self.object_format == "sha256" else 40

    # -- revisions ------------------------------------------------------------------------------

    def resolve_commit(self, rev: str) -> str:
        """A full commit OID for REV, or ``revision <REV> is not a commit`` (CONTRACT §10.0)."""
        proc = self.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"])
        out = proc.stdout.decode("ascii", "replace").strip()
        if proc.returncode != 0 or len(out) != self.oid_hex_len:
            raise InputError(f"revision {one_line(rev)} is not a commit")
        return out

    def head_commit(self) -> str:
        """The commit of HEAD, or "" when HEAD is unborn."""
        if self._head is None:
            proc = self.git.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
            self._head = proc.stdout.decode("ascii").strip() if proc.returncode == 0 else ""
        return self._head

    def close(self) -> None:
        self.git.close()


def check_git_version(git: Git) -> None:
    out = git.out(["version"])
    m = re.search(r"(\d+)\.(\d+)", out)
    version = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    if version < MIN_GIT:
        shown = out.split()[-1] if out.split() else "unknown"
        raise GitError(f"git {one_line(shown)} is too old; git-hn requires 2.30 or newer")


OPENED: list = []  # repositories opened by this process; main() closes them (batch processes)


def close_all() -> None:
    while OPENED:
        OPENED.pop().close()


def open_repo(cwd: str | None = None) -> Repo:
    """Discover the repository around ``cwd`` (default: the current directory)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    git = Git(cwd)
    check_git_version(git)
    proc = git.run(["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-object-format"])
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) != 3:
        raise InputError("not a git repository")
    git_dir, common, fmt = lines
    common_dir = os.path.normpath(os.path.join(cwd, common))
    if fmt not in ("sha1", "sha256"):
        raise GitError(f"unsupported object format {one_line(fmt)}")
    repo = Repo(git=git, git_dir=git_dir, common_dir=common_dir, object_format=fmt)
    OPENED.append(repo)
    return repo
