"""Repository discovery and the paths of git-hn's private state (CONTRACT §2.2, §10.0).

Owns: finding the git directory, the common git directory and the object format; the Git version
check (remembered per git executable in ``hn/git-version-v0``, a derived file, so a command that
finds the same executable does not start ``git version`` again); resolving revisions to commits; building every private path (one function each, never an
f-string at a call site). Trusts: Git's answers about the repository it runs in.
"""

from __future__ import annotations

import os
import stat

from ..core.gostr import one_line, quoted
from ..core.lines import lines_of
from ..errors import GitError, HnError, InputError
from .discover import find
from .git import DISCOVERY, Git, take_early

MIN_GIT = (2, 30)


# (the contract's text, which every way out below follows)
NOT_A_REPOSITORY = "not a git repository"


class Repo:
    """One discovered repository: its runner, git directories and object format."""

    def __init__(self, git: Git, git_dir: str, common_dir: str, object_format: str):
        self.git = git
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.object_format = object_format
        git.objects_of = (common_dir, object_format)  # (``Git.presence`` in a partial clone)
        self._head: str | None = None
        self._pending = None
        self._remote_names: frozenset[str] | None = None
        self._stream_config: str | None = None
        # the remotes this command's last memory listing held accepted memory of (``streams.list_sources``;
        # the brief's header line reads it: ``service.brief.header_notes``), None before one
        self.listed_remotes: frozenset[str] | None = None
        self.quarantine = False
        # this command left the verified state behind the memory refs (built for a few streams
        # only, or a promotion it could not take): a sync brings it up (``stateview.catch_up``)
        self.state_behind = False
        # the longest wait for which a check that needs the verified state found its lock taken,
        # the check not done then (``stateview.checking``); 0 while none did
        self.state_busy = 0.0
        # a check that needs the verified state found none and could not build it (the pre-push
        # hook's anchor check: ``service.check_state``), the check not done then
        self.check_undone = False
        # seconds ``stateview.checking`` waits for the state's lock by default, when not its own
        # (None): a test seam, set only by the CLI (``hooks_cmd._check_wait``)
        self.check_wait: float | None = None
        # the "memory index removed" lines this command said (``stateview.warn``: each once)
        self.index_removed: set[str] = set()
        self.version_unsaved: tuple | None = None  # (``_checked_version``: saved at ``close``)

    def remote_names(self) -> frozenset[str]:
        """The configured remotes' names (one ``git remote``, asked once; often started early)."""
        if self._remote_names is None:
            from .git import PRE_PUSH_QUESTIONS

            proc = self.git.run(list(PRE_PUSH_QUESTIONS[0]))
            # (one a line: a name may hold U+00A0 or U+2028, which ``str.split()`` splits on)
            self._remote_names = frozenset(lines_of(proc.stdout.decode("utf-8", "replace")))
        return self._remote_names

    def may_have_remotes(self) -> bool:
        """False when the repository's own configuration file names no remote and includes no other
        file (a clone of no one's: recall and log then ask no ``git remote`` for the no-selection
        line on every read, and a write starts no question about remotes before ``git remote``
        answers); True whenever it cannot tell. A prediction only: a remote in the global
        configuration is not seen."""
        try:
            with open(os.path.join(self.common_dir, "config"), "rb") as f:
                data = f.read(1 << 20).lower()
        except OSError:
            return True
        return b"[remote" in data or b"[include" in data or len(data) >= 1 << 20

    def looks_like_server(self) -> bool:
        """Whether this is a bare repository with no remote configured: most likely the team's
        server-side repository, not anyone's clone (a bare clone has its origin). One
        ``git rev-parse`` more, only when there is no remote (``init`` and ``hooks install`` ask)."""
        if self.remote_names():
            return False
        proc = self.git.run(["rev-parse", "--is-bare-repository"])
        return proc.returncode == 0 and proc.stdout.strip() == b"true"

    def stream_config(self) -> str:
        """``git config hn.stream`` ("" when unset or unreadable; one process, asked once, often
        started early: ``store.streamchoice`` reads it)."""
        if self._stream_config is None:
            from .git import STREAM_CONFIG

            proc = self.git.run(list(STREAM_CONFIG))
            self._stream_config = proc.stdout.decode("utf-8", "replace").rstrip("\n") if proc.returncode == 0 else ""
        return self._stream_config

    def pending(self):
        """The replication pending state (§9.17); nothing is pending inside a quarantine."""
        if self._pending is None:
            if self.quarantine or not os.path.lexists(self.replication_dir()):
                from .pending import NONE  # never synced: nothing to read (nor code to load)

                self._pending = NONE
            else:
                from . import pending

                if pending.remembers_nothing(self):  # the usual answer, without the state's code
                    self._pending = pending.NONE
                else:
                    from . import replication

                    self._pending = replication.load_pending(self)
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

    def made_here_path(self) -> str:
        """git-hn: the actors ``init`` created here that no ``identity export`` has copied."""
        return os.path.join(self.hn_dir, "made-here-v0")

    def hints_said_path(self) -> str:
        """git-hn: the hints a write said in full lately (``store.hints_said``)."""
        return os.path.join(self.hn_dir, "hints-said-v0")

    def lock_path(self, actor: str, stream: str) -> str:
        return os.path.join(self.hn_dir, "locks", f"memory-{actor}-{stream[len('sha256:'):]}.lock")

    def verified_heads_path(self) -> str:
        return os.path.join(self.hn_dir, "memory", "verified-heads-v0.json")

    def replication_dir(self) -> str:
        """Where sync keeps its records (``store.replication``); none before a selection or a sync,
        which the reads' hints look for before they load sync's modules."""
        return os.path.join(self.hn_dir, "replication")

    def failed_imports_path(self) -> str:
        """``service.replication.failures``'s record (recall and the brief look for it first)."""
        return os.path.join(self.replication_dir(), "failed-imports")

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
        if rev == "HEAD":
            head = self.head_commit()
            if not head:
                raise InputError(self._head_error())
            return head
        proc = self.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"])
        out = proc.stdout.decode("ascii", "replace").strip()
        if proc.returncode != 0 or len(out) != self.oid_hex_len:
            raise InputError(f"revision {quoted(rev)} is not a commit")
        return out

    def _head_error(self) -> str:
        """``revision HEAD is not a commit`` (CONTRACT §10.0), and what to do when HEAD is unborn
        (no object at all, not a damaged or foreign one: issue 14) in this repository's words
        (``unborn_advice``)."""
        proc = self.git.run(["rev-parse", "--verify", "--quiet", "HEAD"])
        if proc.returncode != 0:
            situation, action = self.unborn_advice()
            return f"revision HEAD is not a commit; {situation}: {action}"
        return "revision HEAD is not a commit"

    def is_shallow(self) -> bool:
        """Whether this is a shallow clone (Git's ``shallow`` file in the common directory): one stat."""
        return os.path.exists(os.path.join(self.common_dir, "shallow"))

    def unborn_advice(self) -> tuple[str, str]:
        """(what is so, what to do) with HEAD unborn (``core.unborn``): a new repository, a clone
        whose HEAD names a branch its remote lacks, or a bare repository. Three or four processes
        (``git remote`` with remote-tracking refs), on this error path only."""
        from ..core.unborn import advice

        head = self.git.run(["symbolic-ref", "--quiet", "HEAD"])
        listed = self.git.run(["for-each-ref", "--format=%(refname)%00%(symref)", "refs/heads", "refs/remotes"])
        refs = [tuple(line.split("\0", 1)) for line in lines_of(listed.stdout.decode("utf-8", "replace"))
                if "\0" in line] if listed.returncode == 0 else []
        bare = self.git.run(["rev-parse", "--is-bare-repository"]).stdout.strip() == b"true"
        remotes = self.remote_names() if any(r.startswith("refs/remotes/") for r, _t in refs) else frozenset()
        return advice(head.stdout.decode("utf-8", "replace").strip() if head.returncode == 0 else "",
                      refs, remotes, bare)

    def ref_value(self, ref: str) -> str:
        """The object ID ``ref`` names now, or "" (none): one ``rev-parse``."""
        proc = self.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", ref])
        return proc.stdout.decode("ascii", "replace").strip() if proc.returncode == 0 else ""

    def head_commit(self) -> str:
        """The commit of HEAD, or "" when HEAD is unborn."""
        if self._head is None:  # through the batch process the command reads objects with anyway
            info = self.git.object_info("HEAD^{commit}")
            self._head = info[0] if info is not None and info[1] == "commit" else ""
        return self._head

    def close(self) -> None:
        if self.version_unsaved is not None:
            _save_version(self, *self.version_unsaved)
        self.git.close()


def check_git_version(git: Git) -> None:
    import re

    out = git.out(["version"])
    m = re.search(r"(\d+)\.(\d+)", out)
    version = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    if version < MIN_GIT:
        shown = out.split()[-1] if out.split() else "unknown"
        raise GitError(f"git {one_line(shown)} is too old; git-hn requires 2.30 or newer")
    git.version = version


def _git_stamp(git: Git) -> str | None:
    """The identity of the ``git`` executable this runner starts (the first on its PATH, as
    ``execvp`` finds it): path, device, inode, size and modification time; None if not found."""
    for directory in git.env.get("PATH", "").split(os.pathsep):
        path = os.path.join(directory or ".", "git")
        try:
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and os.access(path, os.X_OK):
            return f"{path}\0{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"
    return None


_VERSIONS_KEPT = 4  # `git hn` runs git-core's copy of git, a direct `git-hn` the one on PATH


def _checked_version(repo: Repo) -> None:
    """The version check, skipped when ``hn/git-version-v0`` says this same executable passed
    it. The file is derived: one ``stamp NUL major.minor`` line per executable seen lately;
    anything unreadable or different means checking again."""
    from . import private

    path = os.path.join(repo.hn_dir, "git-version-v0")
    stamp = _git_stamp(repo.git)
    if stamp is None:
        check_git_version(repo.git)
        return
    try:
        data = private.read_private(repo.hn_dir, path, 4096)
    except (OSError, HnError):
        data = None
    lines = lines_of(data.decode("utf-8", "surrogateescape")) if data else []
    for line in lines:
        known, _, version = line.rpartition("\0")
        parts = version.split(".")
        if known == stamp and len(parts) == 2 and all(p.isascii() and p.isdigit() for p in parts):  # (not "²")
            version_tuple = (int(parts[0]), int(parts[1]))
            if version_tuple >= MIN_GIT:
                repo.git.version = version_tuple
                return
    check_git_version(repo.git)
    if os.path.isdir(repo.hn_dir):
        _save_version(repo, path, stamp, lines)
    else:  # (a fresh clone's first command, ``replication select``, makes ``hn``: saved as it ends)
        repo.version_unsaved = (path, stamp, lines)


def _save_version(repo: Repo, path: str, stamp: str, lines: list[str]) -> None:
    """Remember that the executable ``stamp`` passed the check, in an existing ``hn`` only: a
    command never makes it for a derived file (a refused one leaves nothing behind)."""
    from . import private

    repo.version_unsaved = None
    if not os.path.isdir(repo.hn_dir):
        return
    major, minor = repo.git.version
    kept = [line for line in lines if not line.startswith(stamp + "\0")][:_VERSIONS_KEPT - 1]
    try:
        private.write_private(repo.hn_dir, path, "".join(
            f"{line}\n" for line in [f"{stamp}\0{major}.{minor}", *kept]).encode(
            "utf-8", "surrogateescape"), derived=True)
    except (OSError, HnError):
        pass  # only a cache: the next command checks again


OPENED: list = []  # repositories opened by this process; main() closes them (batch processes)


def close_all() -> None:
    while OPENED:
        OPENED.pop().close()


def unopenable(stderr: bytes) -> str:
    """Why Git says it cannot open the repository it found, in one line of git-hn's, from Git's
    own lines (2.39's): ``unknown repository extension(s) found:`` and ``repo version is 0, but
    v1-only extension(s) found:``, each followed by one name a line after a tab; ``Expected git
    repo version <= 1, found 2``. "" when Git says none of that (a review: with two extensions,
    or a version problem, git-hn still said "not a git repository"). Names are Git's reading of
    the config: one line each, cut by ``one_line``."""
    import re

    lines = stderr.decode("utf-8", "replace").split("\n")

    def names_after(k: int) -> str:
        found = []
        for line in lines[k + 1:]:
            if not line.startswith("\t"):
                break
            found.append(one_line(line.strip()))
        return ", ".join(dict.fromkeys(found)) or "(unnamed)"

    for k, line in enumerate(lines):
        said = line.split(": ", 1)[1] if line.startswith(("fatal: ", "warning: ", "error: ")) else line
        many = said.startswith("unknown repository extensions found:") or "v1-only extensions found:" in said
        s = "s" if many else ""
        if said.startswith(("unknown repository extension found:", "unknown repository extensions found:")):
            return f"unknown repository extension{s} {names_after(k)} (a newer Git made it?)"
        if said.startswith("repo version is 0, but v1-only extension"):
            return (f"its config sets extension{s} {names_after(k)}, which need{'' if many else 's'} "
                    "core.repositoryformatversion 1, and it is 0: set it to 1 in the repository's config file if "
                    f"{'they are' if many else 'it is'} meant, else remove {'them' if many else 'it'}")
        version = re.match(r"expected git repo version <= (\d+), found (\d+)", said, re.IGNORECASE)
        if version:
            return (f"its core.repositoryformatversion is {version[2]}, and this Git reads at most "
                    f"{version[1]} (a newer Git made it?)")
    return ""


def open_repo(cwd: str | None = None) -> Repo:
    """Discover the repository around ``cwd`` (default: the current directory)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    git = take_early(cwd) or Git(cwd)
    found = git.found = git.found or find(cwd, git.env)  # (kept: ``worktree.toplevel`` reads it)
    if found is None:
        proc = git.run(list(DISCOVERY))
        found = lines_of(proc.stdout.decode("utf-8", "surrogateescape"))
        if proc.returncode != 0 or len(found) != 3:
            check_git_version(git)  # a git too old for these options is named as such
            if b"dubious ownership" in proc.stderr:  # Git's safe.directory check (CVE-2022-24765)
                raise InputError("not a git repository: Git refuses one owned by another user here "
                                 "(git config --global --add safe.directory DIR trusts it, if you do)")
            why = unopenable(proc.stderr)
            if why:  # (a trial: a newer Git's extensions.refStorage was "not a git repository")
                raise InputError(f"Git cannot open this repository: {why}")
            # (the contract's text, then the next step: a newcomer ran git-hn outside any repository)
            raise InputError(NOT_A_REPOSITORY + "; run git hn inside a Git repository (cd into one), or "
                             "create one with git init")
    git_dir, common, fmt = found
    # relative to the physical directory Git ran in (``cwd`` may be reached through a link)
    common_dir = os.path.normpath(os.path.join(os.path.realpath(cwd), common))
    if fmt not in ("sha1", "sha256"):
        raise GitError(f"unsupported object format {one_line(fmt)}")
    repo = Repo(git=git, git_dir=git_dir, common_dir=common_dir, object_format=fmt)
    _checked_version(repo)
    OPENED.append(repo)
    return repo
