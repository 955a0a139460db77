"""Where git-hn's hook wrappers live and whose record names them (CONTRACT §10.7; the install
itself is ``service.hooks``'s).

Owns the reading of the hook record's ``dir`` and ``gitdir`` and the questions around them: the
hooks directory Git runs from now, the directory a record names (followed when it is this
repository's: inside its Git directory, mapped across a ``mv`` or a ``cp -a``; or written here
while ``core.hooksPath`` is not each worktree's own), another repository's record that still
names the same directory, and a global or system ``core.hooksPath``; and the refusals that follow
from where they would be written (a hooks directory in the working tree, which is the team's; a
global one, every repository's). Trusts: the record only as far as it names this repository
(``gitdir``).
"""

from __future__ import annotations

import json
import os

from ..core import canonical
from ..core.lines import lines_of
from ..errors import HnError, InputError, LocalStateError
from ..store import private
from ..store.git import config_false
from ..store.repo import Repo

HOOKS = ("pre-push", "reference-transaction", "post-rewrite")
CHAINED_DIR = "hn-chained"  # chained hooks keep their names in this folder of the hooks directory
LEGACY = ".hn-chained"  # where git-hn before this layout put them (``<hook>.hn-chained``)


class Location:
    """Where hooks live and where their record is kept (repository or ``--global``)."""

    def __init__(self, hook_dir: str, record: str, private_root: str | None, gitdir: str = ""):
        self.dir, self.record, self.private_root = hook_dir, record, private_root
        self.gitdir = gitdir  # the repository's common Git directory, recorded with the install
        self.runs_from = ""  # where Git runs hooks from now, when not ``dir`` (moved since install)
        self.recorded_gone = False  # the directory the record names exists no more
        self.elsewhere = ""  # the directory the record names, when it is not followed (``locate``)
        self.installed_by = ""  # the Git directory that wrote the record, when it is another's whose
        # own record names ``dir`` too (a copy whose core.hooksPath names the original's directory)
        self.moved_from = ""  # the Git directory that wrote the record, another's that no longer names
        # ``dir`` (a moved repository, or a copy whose original has uninstalled)

    def path(self, name: str) -> str:
        return os.path.join(self.dir, name)

    def chained(self, name: str) -> str:
        return os.path.join(self.dir, CHAINED_DIR, name)

    def current_chained(self, name: str) -> str | None:
        """Where ``name``'s chained hook is now (this layout, or the legacy one), if anywhere."""
        for path in (self.chained(name), self.path(name) + LEGACY):
            if os.path.lexists(path):
                return path
        return None

    def load(self) -> dict:
        try:
            if self.private_root is not None:
                data = private.read_private(self.private_root, self.record)
            else:
                with open(self.record, "rb") as fh:
                    data = fh.read(65_537)
        except FileNotFoundError:
            data = None
        if data is None:
            return {}
        try:
            doc = json.loads(data)
            return {h["name"]: h for h in doc["hooks"]} if doc.get("version") == 1 else {}
        except (ValueError, KeyError, TypeError, AttributeError):
            raise LocalStateError(self.invalid_record()) from None

    def invalid_record(self) -> str:
        """The error for a record that cannot be read, and the safe way out (an audit: "garbage
        hooks.json gives only hook record …/hooks.json is invalid"). The record is git-hn's own
        list of what it installed; once it is removed, ``hooks install`` recognizes git-hn's
        wrappers in the directory and takes them on again, their chained hooks included, so that
        ``uninstall`` then puts each chained hook back."""
        import shlex

        where = "" if self.private_root is not None else " --global"
        return (f"hook record {self.record} is invalid; it only lists the hooks git-hn installed in {self.dir}: "
                f"remove it (rm {shlex.quote(self.record)}), then git hn hooks install{where} takes git-hn's "
                "hooks there on again (your own chained hooks stay)")

    def save(self, hooks: dict) -> None:
        if not hooks:
            try:
                os.unlink(self.record)
            except FileNotFoundError:
                pass
            return
        doc = {"version": 1, "dir": self.dir, "hooks": [hooks[n] for n in HOOKS if n in hooks]}
        if self.gitdir:  # (which repository installed them: a copied record names another)
            doc["gitdir"] = self.gitdir
        try:
            doc = canonical.indented(doc)
        except UnicodeEncodeError:
            # a directory whose path is not UTF-8 (a repository in ``/tmp/caf\xe9``): its bytes
            # are the lone surrogates Python reads them as, kept as their JSON escapes
            # (``\udce9``), which every reader of the record (``json.loads``) gives back as the
            # same path. (The install failed here, after writing its wrappers: status then said
            # they were not installed.) Refusing instead would leave such a repository, where
            # every other command works, without hooks.
            doc = (json.dumps(doc, indent=2) + "\n").encode("ascii")
        if self.private_root is not None:
            private.write_private(self.private_root, self.record, doc)
            return
        tmp = self.record + ".tmp-" + os.urandom(4).hex()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(doc)
        os.replace(tmp, self.record)


def locate(repo: Repo | None, global_: bool, which: str = "install") -> Location:
    from ..store.git import Git

    if global_:
        git = Git(os.getcwd())
        proc = git.run(["config", "--global", "--get", "core.hooksPath"])
        value = proc.stdout.decode("utf-8", "surrogateescape").strip()
        if proc.returncode != 0 or not value:
            if which != "install":  # (status, uninstall: nothing can be installed globally)
                raise InputError(f"no global core.hooksPath is set, so no hook of git-hn's is installed "
                                 f"globally (hooks {which} --global reads that directory); git hn hooks {which} "
                                 "without --global works on this repository's hooks")
            # (an audit: the line named the setting, not how to set it, nor what setting it does)
            raise InputError("hooks install --global requires git config --global core.hooksPath: set it (git config "
                             "--global core.hooksPath ~/.config/git/hooks; Git then runs the hooks there, not each "
                             "repository's own), then run git hn hooks install --global again; or run git hn hooks "
                             "install in each repository")
        if not value.startswith(("/", "~")):
            from ..core.gostr import echoed

            raise InputError(f"the global core.hooksPath is relative ({echoed(value)}): Git resolves it in each "
                             f"repository, so each has its own; run git hn hooks {which} in each repository")
        hook_dir = os.path.abspath(os.path.expanduser(value))
        return Location(hook_dir, os.path.join(hook_dir, "hn-hooks.json"), None)
    proc = repo.git.run(["rev-parse", "--git-path", "hooks"])
    rel = proc.stdout.decode("utf-8", "surrogateescape").strip()
    hook_dir = os.path.abspath(os.path.join(os.getcwd(), rel))
    gitdir = os.path.realpath(repo.common_dir)
    loc = Location(hook_dir, os.path.join(repo.hn_dir, "hooks.json"), repo.hn_dir, gitdir)
    if which != "install":  # (status, uninstall: where this repository installed them, if elsewhere
        _follow_record(loc, repo, gitdir)  # now: a core.hooksPath set or unset since, a mv, a copy)
    return loc


def _follow_record(loc: Location, repo: Repo, gitdir: str) -> None:
    """Point ``loc`` at the hooks directory the record names when that is this repository's and
    not where Git runs hooks now; else note it (``elsewhere``) or note it gone.

    A directory in the Git directory that wrote the record is taken as the same place in this
    one (a ``mv``, or a ``cp -a`` copy, whose record names the original's). Followed: a
    directory in this repository's Git directory, or one this repository's record names while
    ``core.hooksPath`` is unset or absolute. Not followed: a directory another repository's
    record names outside its Git directory, one a record from before records named their
    repository names outside this Git directory, and any while ``core.hooksPath`` is relative
    or worktrees have configurations of their own (each may run hooks from its own directory)."""
    hook_dir = loc.dir
    recorded, by = own_recorded(loc, gitdir)
    if not recorded:
        return
    if os.path.realpath(recorded) == os.path.realpath(hook_dir):
        if by and by != gitdir and not within(recorded, gitdir):
            if _record_names(by, recorded) is False:
                loc.moved_from = by
            else:  # (it names this directory, or cannot be read: then it is not ours to act on)
                loc.installed_by = by
        return
    if not os.path.isdir(recorded):
        loc.recorded_gone = True  # (removed with its directory: nothing left to take out there)
        return
    if within(recorded, gitdir) or (by == gitdir and not per_worktree_hooks(repo)):
        loc.dir, loc.runs_from = recorded, hook_dir
    else:
        loc.elsewhere = recorded


def own_recorded(loc: Location, gitdir: str) -> tuple[str, str]:
    """(the hooks directory the record names, as this repository's: a directory inside the Git
    directory the record names is mapped into this one; that Git directory), "" for each missing."""
    recorded, by = named_dirs(loc)
    if recorded and by and by != gitdir and within(recorded, by):
        return gitdir + os.path.realpath(recorded)[len(by):], by
    return recorded, by


def _record_names(gitdir: str, hook_dir: str) -> bool | None:
    """Whether the hook record in Git directory ``gitdir`` exists, was written there, and names
    ``hook_dir`` (so its repository owns the wrappers there); None when it exists and cannot be
    read (another user's, damaged): not known to be anyone else's."""
    hn_dir = os.path.join(gitdir, "hn")
    record = os.path.join(hn_dir, "hooks.json")
    if not os.path.lexists(record):
        return False
    try:
        data = private.read_private(hn_dir, record)
        doc = json.loads(data) if data is not None else None
    except (HnError, OSError, ValueError):
        return None
    return isinstance(doc, dict) and doc.get("gitdir") == gitdir and isinstance(doc.get("dir"), str) \
        and os.path.realpath(doc["dir"]) == os.path.realpath(hook_dir)


def within(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` (a real path) or below it, by its real path."""
    real = os.path.realpath(path)
    return real == directory or real.startswith(directory + os.sep)


def per_worktree_hooks(repo: Repo) -> bool:
    """Whether each worktree may run hooks from a directory of its own: a relative
    ``core.hooksPath`` (resolved in each worktree), or per-worktree configuration
    (``extensions.worktreeConfig``: ``git config --worktree core.hooksPath``)."""
    proc = repo.git.run(["config", "--get-regexp", r"^(core\.hookspath|extensions\.worktreeconfig)$"])
    hooks_path, per_worktree = "", False
    for line in lines_of(proc.stdout.decode("utf-8", "replace")):
        key, _sp, value = line.partition(" ")
        if key == "core.hookspath":
            hooks_path = value.strip()
        elif key == "extensions.worktreeconfig":
            per_worktree = not config_false(value if _sp else None)
    if hooks_path and not hooks_path.startswith(("/", "~")):
        return True
    if not per_worktree:
        return False
    # (``git sparse-checkout`` turns the extension on in a repository of one worktree)
    listed = repo.git.run(["worktree", "list", "--porcelain", "-z"]).stdout
    return sum(1 for f in listed.split(b"\0") if f.startswith(b"worktree ")) > 1


def relative_hooks_path(repo: Repo | None) -> str:
    """``core.hooksPath`` when it is relative (each worktree resolves it from its own top, so a
    linked worktree runs hooks from a directory of its own, none when the directory is not
    tracked), else ""."""
    if repo is None:
        return ""
    value = repo.git.run(["config", "--get", "core.hooksPath"]).stdout.decode("utf-8", "surrogateescape").strip()
    if not value or value.startswith(("/", "~")) or os.path.normpath(value).split(os.sep)[0] == "..":
        return ""  # (a review: ``../shared-hooks`` may be one directory for sibling worktrees)
    return value


def in_this_worktree(repo: Repo, path: str) -> bool:
    """Whether ``path`` lies in this worktree (a directory an older relative ``core.hooksPath``
    named here, not another worktree's)."""
    top = repo.git.run(["rev-parse", "--show-toplevel"]).stdout.decode("utf-8", "surrogateescape").strip()
    return bool(top) and within(path, os.path.realpath(top))


def make_absolute(value: str, recorded: str) -> str:  # (``relative_hooks_path``'s value)
    """The way out when a relative ``core.hooksPath`` (``value``) leaves a worktree without the
    hooks installed in ``recorded``: the setting made absolute, so every worktree runs them."""
    from shlex import quote

    return (f"core.hooksPath {value} is relative, so each worktree runs hooks from its own {value}: to run "
            f"these in every worktree, make it absolute: git config core.hooksPath {quote(recorded)}")


def named_dirs(loc: Location) -> tuple[str, str]:
    """(the hooks directory the record names, the Git directory it names), "" for each missing."""
    try:
        data = private.read_private(loc.private_root, loc.record)
        doc = json.loads(data) if data is not None else None
    except (HnError, OSError, ValueError):
        return "", ""
    if not isinstance(doc, dict):
        return "", ""
    value, by = doc.get("dir"), doc.get("gitdir")
    return (value if isinstance(value, str) and os.path.isabs(value) else "",
            by if isinstance(by, str) and os.path.isabs(by) else "")


def shared_hooks_path(repo: Repo | None) -> str:
    """The hooks directory when ``core.hooksPath`` comes from the user's global or system config
    (every repository's hooks), else ""."""
    if repo is None:
        return ""
    proc = repo.git.run(["config", "--show-scope", "--get", "core.hooksPath"])
    scope, _tab, value = proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n").partition("\t")
    if not value.startswith(("/", "~")):  # (a relative one is each repository's own: Git resolves it
        return ""                          # from the top of the working tree)
    return value if proc.returncode == 0 and scope in ("global", "system") else ""


def refuse_worktree_files(repo: Repo | None, loc: Location) -> None:
    """Item 2 of issue 12: a hooks directory inside the working tree (a committed
    ``core.hooksPath``) is the team's. Refuse, before writing anything, when a file install would
    write or move is tracked, or would show in ``git status`` (not ignored). Husky's generated
    ``.husky/_`` ignores itself and is accepted."""
    if repo is None:
        return
    top = repo.git.run(["rev-parse", "--show-toplevel"])
    if top.returncode != 0 or not top.stdout.strip():
        return  # a bare repository has no working tree
    root = os.path.realpath(top.stdout.decode("utf-8", "surrogateescape").strip())
    hook_dir = os.path.realpath(loc.dir)
    if hook_dir != root and not hook_dir.startswith(root + os.sep):
        return
    for git_dir in {os.path.realpath(repo.git_dir), os.path.realpath(repo.common_dir)}:
        if hook_dir == git_dir or hook_dir.startswith(git_dir + os.sep):
            return  # .git/hooks: never part of the working tree
    rel = [os.path.relpath(os.path.join(hook_dir, p), root)
           for name in HOOKS for p in (name, os.path.join(CHAINED_DIR, name))]
    listed = repo.git.run(["-C", root, "ls-files", "-z", "--", *rel]).stdout.split(b"\0")  # (paths from the top)
    tracked = {p.decode("utf-8", "surrogateescape") for p in listed if p}
    data = "\0".join(rel).encode("utf-8", "surrogateescape") + b"\0"
    # check-ignore refuses literal pathspecs; these are plain paths of our own making
    answer = repo.git.run(["-C", root, "check-ignore", "--no-index", "-z", "--stdin"], input=data,
                          env={"GIT_LITERAL_PATHSPECS": "0"}).stdout
    ignored = {p.decode("utf-8", "surrogateescape") for p in answer.split(b"\0") if p}
    shown = [p for p in rel if p in tracked or p not in ignored]
    if shown:
        where = os.path.relpath(hook_dir, root)
        raise InputError(f"refusing to install into {where} (core.hooksPath): {shown[0]} is tracked or "
                         "would show in git status; call git-hn from the team's own hook instead "
                         "(see git-hn-hooks(1), HOOK MANAGERS)")


def refuse_shared(repo: Repo | None, loc: Location) -> None:
    """A repository install whose hooks directory is every repository's (a global
    ``core.hooksPath``): the wrappers would run everywhere while only this repository's record
    knew of them, and another repository's install would then find them as someone else's
    hooks. Refused unless this repository installed there already (a refresh)."""
    shared = shared_hooks_path(repo)
    if not shared:
        return
    shared = os.path.abspath(os.path.expanduser(shared))
    if loc.load() and os.path.realpath(named_dirs(loc)[0] or loc.dir) == os.path.realpath(shared):
        return  # (this repository installed there before: a refresh)
    if os.path.lexists(os.path.join(shared, "hn-hooks.json")):
        raise InputError(f"git-hn's hooks are installed already in your global or system core.hooksPath "
                         f"({shared}), for every repository (git hn hooks status --global shows them)")
    raise InputError(f"core.hooksPath is set in your global or system Git config ({shared}), so hooks "
                     "installed here would run in every repository: git hn hooks install --global installs them "
                     "there on purpose; for this repository only, git config core.hooksPath "
                     "\"$(git rev-parse --path-format=absolute --git-common-dir)/hooks\" first")


def make_hooks_dir(repo: Repo | None, loc: Location, create: bool = True) -> None:
    """Create ``loc.dir`` when it is missing (with ``create``); refuse first, saying what to
    change, when it (or a directory it would be created in) is not a directory: a file, a link to
    nothing (an audit: ``.git/hooks`` or ``core.hooksPath`` naming a regular file got only "cannot
    change …: File exists", and a tracked file there "a.txt/pre-push is tracked"). Git itself runs
    no hook then."""
    from ..core.gostr import shown_path

    blocker = loc.dir
    while not os.path.lexists(blocker) and os.path.dirname(blocker) != blocker:
        blocker = os.path.dirname(blocker)
    if not os.path.isdir(blocker):
        what = ("a symbolic link to nothing" if os.path.islink(blocker) and not os.path.exists(blocker)
                else "a file" if os.path.isfile(blocker) else "a special file (a FIFO, a socket or a device)")
        raise InputError(_not_a_directory(repo, loc, shown_path(blocker), what))
    if not create:
        return
    try:
        os.makedirs(loc.dir, exist_ok=True)
    except OSError as exc:
        raise InputError(f"hooks directory {shown_path(loc.dir)} cannot be created: {exc.strerror}; create it "
                         "(or make its parent writable), or set core.hooksPath to a directory you can write; "
                         "nothing was changed") from None


def _not_a_directory(repo: Repo | None, loc: Location, blocker: str, what: str) -> str:
    """``make_hooks_dir``'s refusal: ``blocker`` (the hooks directory, or where it would be created)
    is ``what``. Named as the setting that chose it, when one did, with the command that changes
    it in that setting's own file."""
    from shlex import quote

    from ..core.gostr import shown_path

    git = repo.git if repo is not None else None
    if git is None:
        from ..store.git import Git

        git = Git(os.getcwd())
    proc = git.run(["config", "--show-scope", "--get", "core.hooksPath"] if repo is not None
                   else ["config", "--global", "--show-scope", "--get", "core.hooksPath"])
    scope, _tab, value = proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n").partition("\t")
    where = f"{blocker} is {what}" if blocker == shown_path(loc.dir) else \
        f"{blocker}, where it would be created, is {what}"
    if proc.returncode != 0 or not value:
        return (f"Git's hooks directory {where}, not a directory: rename or remove it (Git runs no hook from it "
                "as it is), then git hn hooks install again; nothing was changed")
    flag = {"local": "", "global": " --global", "system": " --system", "worktree": " --worktree"}.get(scope)
    if flag is None:  # (given on the command line or in the environment: changed there)
        how = "set core.hooksPath to a directory where it is given"
    elif repo is None:
        how = f"set it to a directory (git config{flag} core.hooksPath DIR)"
    else:
        how = (f"set it to a directory (git config{flag} core.hooksPath DIR) or unset it "
               f"(git config{flag} --unset core.hooksPath)")
    named = f"core.hooksPath {quote(shown_path(value))}"
    return (f"{named} is {what}, not a directory: {how}; nothing was changed" if blocker == shown_path(loc.dir)
            else f"{named} cannot be a directory: {where}: {how}; nothing was changed")


def uninstall_failed(loc: Location, exc: OSError, removed: list[str]) -> str:
    """The refusal when a wrapper cannot be taken out of ``loc.dir`` (``exc``: a read-only
    directory, an immutable file; an audit got only the catch-all "cannot change …/pre-push:
    Permission denied"), and ``removed``, the hooks taken out before it."""
    from ..core.gostr import and_joined, shown_path

    failed, directory = refused_in(exc, loc.dir)
    names = and_joined(removed)
    done = (f"{names} {'was' if len(removed) == 1 else 'were'} taken out, the others are as they were" if removed
            else "nothing was changed")
    return (f"hooks could not be uninstalled from {shown_path(loc.dir)}: {shown_path(failed)}: "
            f"{exc.strerror or type(exc).__name__}; {writable(loc, 'uninstall', directory)}; {done}")


def writable(loc: Location, which: str, directory: str | None = None) -> str:
    """The way out of an install or uninstall (``which``) whose change ``directory`` refused (the
    hooks directory, or its ``hn-chained``: ``refused_in``)."""
    from ..core.gostr import shown_path
    from ..errors import chmod_way_out

    again = f"git hn hooks {which}" + ("" if loc.private_root is not None else " --global")
    return f"{chmod_way_out('the directory and its hooks', shown_path(directory or loc.dir))}, then {again} again"


def refused_in(exc: OSError, default: str) -> tuple[str, str]:
    """The path whose change ``exc`` refused, and the directory to make writable: of the paths it
    names (a rename names two), the first whose directory cannot be written, else the first (its
    file refused: immutable), else ``default`` (a review: a read-only hooks/hn-chained was said to
    be hooks/, which was writable)."""
    paths = [os.fsdecode(f) for f in (exc.filename, exc.filename2) if f is not None]
    path = next((p for p in paths if not os.access(os.path.dirname(p), os.W_OK)), paths[0] if paths else None)
    return (path, os.path.dirname(path)) if path is not None else (default, default)
