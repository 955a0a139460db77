"""Quarantine repositories for replication (CONTRACT §9.5, §9.10, §11(e) "Quarantine hygiene").

Owns: creating a fresh bare repository per transaction under
``<common-gitdir>/hn/replication/quarantine/txn-*``, running every Git process that talks to a
remote or reads fetched data with a scrubbed environment, fetching exact refs under a byte
watchdog and a stall timeout, copying exactly the accepted objects into the main repository, and
removing the quarantine (only ever a ``txn-*`` directory directly under the quarantine root).

Trusts: nothing fetched; the user's transport and credential settings, which the advertisement
(run in the main repository) already used: the environment keeps ``GIT_SSH``,
``GIT_SSH_COMMAND``, ``SSH_AUTH_SOCK``, proxy variables and the user's global and system config
files (``store.git``), and before the first fetch from a remote that is not local the transport
keys (``core.sshCommand``, ``ssh.variant``, ``core.gitProxy``, ``core.askPass``, ``http.*``,
``credential.*``: ``transport.TRANSPORT_CONFIG``) of the main repository's own config and of
``git -c`` are carried to the quarantine's processes in their environment (``GIT_CONFIG_COUNT``;
never written to a file a killed sync would leave behind), read by one ``git config`` process. Attacks
defended against:
- *environment injection*: ``GIT_DIR``, ``GIT_OBJECT_DIRECTORY``, alternates, ``git -c``
  settings (``GIT_CONFIG_PARAMETERS``, ``GIT_CONFIG_COUNT``…) and similar variables are dropped,
  so a hostile environment cannot point the fetch at the main repository or another store, or
  outrank the quarantine's hook and fsck settings; only allow-listed transport keys are copied;
- *hook execution*: ``core.hooksPath`` is the null device, under which no hook can exist;
- *malformed objects*: ``transfer.fsckObjects`` makes Git refuse them while receiving;
- *pack bombs and endless streams*: a watchdog kills a fetch whose objects grow past the byte
  budget, and a stall timeout kills one that stops making progress (its objects growing: a
  server's progress text is no progress);
- *transport helpers*: ``ext::``/``fd::`` and every other helper form are refused before any Git
  process contacts the remote, and ``GIT_ALLOW_PROTOCOL`` limits Git itself (``transport``).
"""

from __future__ import annotations

import os
import time

from ..errors import GitError, LocalStateError
from . import private
from .git import Git
from .process import DEVNULL, PIPE, Child, Timeout, popen
from .threads import Background
from .repo import Repo
from .replication import is_txn, quarantine_root
from .transport import is_local, remote_env, transport_config_question, transport_settings

_made: set[str] = set()  # the quarantines this process made (``left_behind``)
SWEEP_AGE = 60.0  # seconds: a quarantine younger than this is never swept (it may be starting)
LOCK = "hn-quarantine.lock"  # locked by the sync that owns the quarantine, for its whole life


def sweep(main: Repo, min_age: float = SWEEP_AGE) -> int:
    """Remove quarantines that no live sync holds (issue 12): a sync killed with SIGKILL, or by a
    crash, leaves its ``txn-*`` directory behind. Every live quarantine holds an exclusive POSIX
    record lock on its ``LOCK`` file for its whole life (released by the kernel when its process
    dies, and, unlike ``flock``, not inherited by the verifier's forked workers, which may
    outlive a killed parent for a moment), so a directory whose lock can be taken, or that has no
    lock file, and which is older than ``min_age``, is abandoned. Only ``txn-*`` directories
    directly under the quarantine root, never a symlink. Returns how many were removed; errors
    leave a directory for the next sweep."""
    import fcntl

    root = quarantine_root(main)
    try:
        entries = [e for e in os.scandir(root) if is_txn(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return 0
    removed = 0
    now = time.time()
    for entry in entries:
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime < min_age:
                continue
            fd = os.open(os.path.join(entry.path, LOCK), os.O_RDWR | os.O_NOFOLLOW)
        except FileNotFoundError:
            fd = -1  # killed before it took its lock
        except OSError:
            continue
        try:
            if fd >= 0:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a live sync holds it
        try:
            remove_tree(entry.path)
            removed += not os.path.lexists(entry.path)
        finally:
            if fd >= 0:
                os.close(fd)
    return removed


def remove_tree(path: str) -> None:
    """``shutil.rmtree(path, ignore_errors=True)`` without importing ``shutil`` (with bz2, lzma
    and fnmatch, ~1.5 ms of every sync's imports for this one call, f133): the same walk through
    directory descriptors, which never follows a symbolic link (a link, ``path`` itself too, is
    not entered; one inside is removed as a file), every error left for the next removal."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        _remove_entries(fd)
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        pass


def _remove_entries(fd: int) -> None:
    """Remove everything in the directory open as ``fd`` (``remove_tree``)."""
    try:
        with os.scandir(fd) as it:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
    except OSError:
        return
    for name, is_dir in entries:
        try:
            if not is_dir:
                os.unlink(name, dir_fd=fd)
                continue
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            try:
                _remove_entries(sub)
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=fd)
        except OSError:
            pass


def left_behind() -> list[str]:
    """The quarantines this process made that are still there: a stopped sync's line says its
    quarantine was removed only when it was (a review found one left behind, cut by a second
    Ctrl-C, under a line that said it was removed). A later sync's ``sweep`` removes them."""
    return sorted(p for p in _made if os.path.lexists(p))


class Quarantine:
    """One transaction's bare repository; a context manager that always removes it."""

    def __init__(self, main: Repo):
        self.main = main
        self.root = quarantine_root(main)
        private.ensure_dirs(main.hn_dir, self.root)
        self.txn = "txn-" + os.urandom(12).hex()
        self.path = os.path.join(self.root, self.txn)
        _made.add(self.path)  # (first: a stop that comes after the mkdir still finds it)
        self._held = None
        try:  # (a stop right after the mkdir left the directory behind: trials)
            os.mkdir(self.path, 0o700)
            self._held = _hold(self.path)  # until removed: ``sweep`` leaves a held quarantine alone
            self._set_up(main)
        except BaseException:  # a failure or a signal while setting up: nothing is left behind
            if os.path.lexists(self.path):
                self._discard()
            raise

    def _set_up(self, main: Repo) -> None:
        # no hook can exist under a device file: none ever runs here
        self.hooks = os.devnull
        env = {**remote_env(), "GIT_DIR": self.path}
        self.git = Git(self.path, extra_env=env, scrub=True)
        self.git.version = main.git.version  # the same executable: one batch process answers all
        _init_bare(self.path, main.object_format)
        # the settings every process here must run with, appended to the fresh repository's own
        # configuration (one file write instead of one git config process per setting); no
        # maintenance either (a fetch would start ``git maintenance run --auto`` and wait for it)
        settings = (("core", "hooksPath", self.hooks), ("transfer", "fsckObjects", "true"),
                    ("fetch", "fsckObjects", "true"), ("receive", "fsckObjects", "true"),
                    ("gc", "auto", "0"), ("maintenance", "auto", "false"), ("core", "commitGraph", "false"),
                    ("fetch", "writeCommitGraph", "false"))
        self._append_config([(section, None, key, value) for section, key, value in settings])
        main_objects = os.path.join(main.common_dir, "objects")
        info = os.path.join(self.path, "objects", "info")
        # Alternates let the fetch negotiate with what the main repository already has, so
        # objects are never transferred twice; nothing is ever written to the main store here.
        # Written as the path's bytes: a repository at a path that is not UTF-8 (``/tmp/caf\xe9``)
        # made the UTF-8 text handle fail, and every sync and fetch-side import with it.
        with open(os.path.join(info, "alternates"), "wb") as fh:
            fh.write(os.fsencode(main_objects) + b"\n")
        shallow = os.path.join(main.common_dir, "shallow")
        if os.path.exists(shallow):
            # the borrowed history stops at the main repository's shallow boundary; Git must know
            # that, or it reads past it while negotiating and fails on the missing parents
            import shutil

            shutil.copyfile(shallow, os.path.join(self.path, "shallow"))
        self.repo = Repo(self.git, self.path, self.path, main.object_format)
        self.repo.quarantine = True

    carried = False  # the main repository's transport settings are in this config

    def _append_config(self, entries) -> None:
        """Append (section, subsection, name, value) entries to this repository's config file
        in one write; value None is a bare boolean."""
        text = "".join(_config_entry(*entry) for entry in entries)
        with open(os.path.join(self.path, "config"), "a", encoding="utf-8",
                  errors="surrogateescape") as fh:
            fh.write(text)

    def carry_transport(self) -> None:
        """Give this repository's Git processes the transport and credential settings of the
        main repository's own config, its worktree config and ``git -c``
        (``transport.TRANSPORT_CONFIG``), once, so that the fetch reaches the remote as the
        advertisement did; the global and system files are read here as they are there. Nothing
        else is carried. Best effort: a config that cannot be read carries nothing.

        They are carried in the processes' environment (``GIT_CONFIG_COUNT``), never written to
        a file: an ``http.extraHeader`` holds a token, and a file would outlive a killed sync
        (a CI job that scrubs the header from ``.git/config`` would leave this copy behind)."""
        if self.carried:
            return
        self.carried = True
        proc = self.main.git.run(list(transport_config_question()))
        if proc.returncode != 0:
            return
        carried = {}
        for n, (section, sub, name, value) in enumerate(transport_settings(proc.stdout)):
            key = section if sub is None else f"{section}.{sub}"
            carried[f"GIT_CONFIG_KEY_{n}"] = f"{key}.{name}"
            carried[f"GIT_CONFIG_VALUE_{n}"] = "true" if value is None else value  # (a bare key is true)
        if carried:
            self.git.env.update(carried, GIT_CONFIG_COUNT=str(len(carried) // 2))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def remove(self) -> None:
        self.repo.close()
        self._discard()

    def _discard(self) -> None:
        parent, name = os.path.split(self.path)
        if parent != self.root or not is_txn(name) or os.path.islink(self.path):
            raise LocalStateError("quarantine cleanup refused an unexpected path")
        remove_tree(self.path)
        for _ in range(40):  # a Git child still finishing its last write: gone within moments
            if not os.path.lexists(self.path):
                break
            time.sleep(0.025)
            remove_tree(self.path)
        if self._held is not None:
            os.close(self._held)
            self._held = None
        if os.path.lexists(self.path):
            raise LocalStateError("quarantine cleanup failed")
        _made.discard(self.path)

    def objects_size(self) -> int:
        total = 0
        stack = [os.path.join(self.path, "objects")]
        while stack:
            d = stack.pop()
            try:
                with os.scandir(d) as it:
                    for entry in it:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            try:
                                total += entry.stat(follow_symlinks=False).st_size
                            except FileNotFoundError:
                                pass
            except FileNotFoundError:
                continue
        return total

    def fetch(self, url: str, wants: list[str], max_total: int, stall_seconds: float,
              fetch_head: bool = False, meanwhile=None, depth: int = 0, negotiate: bool = True,
              trees: bool = False) -> str:
        """Fetch exact objects (the advertised tips) under the watchdog, in one ``git fetch``
        (on its standard input, so that any number fits): "" on success, else "size" or "stall"
        or "failed". With ``fetch_head``, ``wants`` are exact refspecs and the tips Git fetched
        are left in ``FETCH_HEAD`` (``fetch_head()``). ``meanwhile()`` runs once the fetch has
        started (the caller's preparations: they delay the watchdog's first look). ``depth``:
        a shallow fetch of that depth (``--recover-shallow``'s missing anchors). Without
        ``negotiate``, no commit is offered as had (Git's own lazy fetch does so): a server
        counts every object of a commit it is told is here as here, and a partial clone's
        commits lack their files (``service.replication.partial``). With ``trees``, ``wants``
        are trees and each comes alone, without what it names (``--filter=tree:0``: a treeless
        clone's folders on an anchored path, ``partial``)."""
        self.failure = ""
        if not is_local(url):
            self.carry_transport()
        target = self.remote_url(url)
        env = self.git.env
        if trees:
            env = _as_promisor(env, target)
        args = ["git", *(() if negotiate else ("-c", "fetch.negotiationAlgorithm=noop")), "fetch", "--no-tags",
                *(() if fetch_head else ("--no-write-fetch-head",)),
                *((f"--depth={depth}",) if depth else ()), *(("--filter=tree:0",) if trees else ()),
                "--progress", "--stdin", "--end-of-options", target]
        limit = max_total + max(1 << 20, max_total // 8)
        start_size = self.objects_size()
        # its own process group, so that a kill reaches the transport helper and index-pack too
        proc = popen(args, cwd=self.path, env=env, stdin=PIPE,
                     stdout=DEVNULL, stderr=PIPE,
                     start_new_session=True)
        try:
            proc.stdin.write("".join(r + "\n" for r in wants).encode())
            proc.stdin.close()
        except OSError:  # the fetch ended early; its status says why
            pass
        if meanwhile is not None:
            try:
                meanwhile()
            except BaseException:
                _kill(proc)
                proc.stderr.close()
                raise
        # progress is the quarantine receiving objects, never the server's words: a remote that
        # answered a pack request with "Counting objects: N" every 10 s and not one pack byte
        # held a sync, and ``git fetch``'s import, until Ctrl-C (a red-team trial). Git's own
        # lines count once the pack has begun to arrive ("Resolving deltas" writes nothing).
        activity = {"t": time.monotonic(), "grew": False}
        tail = bytearray()  # Git's last words, for why a fetch failed (never shown: ``known_reason``)

        def drain():
            line = b""  # the start of the unfinished line
            while True:
                chunk = proc.stderr.read1(4096) if hasattr(proc.stderr, "read1") else proc.stderr.read(4096)
                if not chunk:
                    break
                own, line = _own_lines(line, chunk)
                if own and activity["grew"]:
                    activity["t"] = time.monotonic()
                tail.extend(chunk)
                del tail[:-8192]

        reader = Background(drain)
        import _thread  # (not ``threading``: ~0.5 ms of imports before the fetch starts, for one event)

        ended = _thread.allocate_lock()  # released the moment the fetch ends
        ended.acquire()
        Background(lambda: (proc.wait(), ended.release()))
        last_size = start_size
        verdict = ""
        try:
            while True:
                done = ended.acquire(timeout=0.02)  # wakes the moment the fetch ends
                # measured as it ends too: a fetch that ended between two looks went unmeasured,
                # and one over its budget passed when it was fast (a CI run: a 3 MiB recovery
                # fetch under a 64 KiB budget was let through, the verdict hanging on timing)
                size = self.objects_size()
                if size - start_size > limit:
                    verdict = "size"
                    self.measured = size
                    break
                if done:
                    break
                now = time.monotonic()
                if size != last_size:
                    last_size = size
                    activity["t"] = now
                    activity["grew"] = True
                if now - activity["t"] > stall_seconds:
                    verdict = "stall"
                    break
        finally:
            if proc.poll() is None:
                _kill(proc)
            reader.join(timeout=5)
            proc.stderr.close()
        if verdict:
            return verdict
        if proc.returncode == 0:
            return ""
        from .transport import NO_GIT_REPOSITORY, UNREADABLE_PATH, known_reason, local_path, unreadable_repository

        self.failure = known_reason(bytes(tail))
        path = local_path(target) if self.failure == NO_GIT_REPOSITORY else ""  # ("" for a ~user with no home)
        if path and unreadable_repository(path):
            self.failure = UNREADABLE_PATH  # (a path this user may not read, as the advertisement says: f160, f165)
        return "failed"

    measured = 0
    failure = ""  # why the last fetch failed, in git-hn's fixed words ("" if Git did not say)

    def remote_url(self, url: str) -> str:
        """``url`` as Git means it in the main repository, for a Git process that runs here. A
        relative local path (``git remote add origin ../team.git``) is relative to the directory
        Git works in there: the top of the working tree, or, where there is none (a bare
        repository, or inside the Git directory), the directory the command runs in. In this
        quarantine it would name another path. One that starts with ``~`` (``~/team.git``,
        ``~alice/team.git``) is a home directory's, wherever Git runs: Git's upload-pack expands it
        (``enter_repo``; ``HOME`` is kept here), and joined to the top it named no repository
        (f168). Every other URL is returned as it is."""
        if not is_local(url) or "://" in url or os.path.isabs(url) or url.startswith("~"):
            return url
        if self._base is None:
            top = self.main.git.run(["rev-parse", "--show-toplevel"])
            found = top.stdout.decode("utf-8", "surrogateescape").rstrip("\n")
            self._base = found if top.returncode == 0 and found else self.main.git.cwd
        return os.path.join(self._base, url)

    _base: str | None = None

    FETCH_HEAD_MAX = 16 << 20

    def fetch_head(self) -> bytes:
        """The ``FETCH_HEAD`` the last ``fetch(..., fetch_head=True)`` wrote (b"" if none; a file
        Git wrote here, bounded all the same)."""
        try:
            with open(os.path.join(self.path, "FETCH_HEAD"), "rb") as fh:
                data = fh.read(self.FETCH_HEAD_MAX + 1)
        except OSError:
            return b""
        return b"" if len(data) > self.FETCH_HEAD_MAX else data

    # -- object copy (§9.10) -------------------------------------------------------------------

    def copy_to_main(self, pending: list[str], accepted: set) -> list[list[str]]:
        """Put the pending objects into the main store, transferring nothing twice; returns the
        object IDs of each pack adopted whole (as its index lists them).

        A pack the fetch wrote is adopted whole only when every object in it is accepted (the
        usual case: negotiation against the main store kept it to what was missing), so no
        object that was not validated ever reaches the main store; whatever else is pending is
        packed from here and indexed by the main repository. Raises ``GitError``.
        """
        remaining = set(pending)
        adopted = []
        # (a pack of more objects than are accepted cannot be adopted: its names are not read, the
        # 400,000 of a 100,000-memory sync's pack ~40 MiB more in each of its transactions)
        for base, oids in self.own_packs(most=len(accepted)):
            if remaining and not remaining.isdisjoint(oids) and accepted.issuperset(oids):
                self.adopt_pack(base)
                remaining.difference_update(oids)
                adopted.append(oids)
        if not remaining:
            return adopted
        self._pack_into_main(sorted(remaining))
        return adopted

    COPY_CHUNK = 1 << 20  # bytes of pack in flight between the two Git processes (``_pack_into_main``)

    def _pack_into_main(self, oids: list[str]) -> None:
        """Pack ``oids`` here (no delta search: the objects are copied as they are, quickly) into
        the main repository's ``index-pack --stdin``, ``COPY_CHUNK`` bytes at a time: the pack is
        never held whole (the first of two transactions of a 100,000-memory sync held its
        ~75 MB pack twice over, ~230 MiB more for a moment). Raises ``GitError``: the packing's
        when it failed (the index then failed on its truncated input), else the index's."""
        packer = popen(["git", "pack-objects", "--stdout", "-q", "--window=0"], stdin=PIPE, stdout=PIPE,
                       stderr=DEVNULL, cwd=self.git.cwd, env=self.git.env)
        indexer = None
        try:
            names = "".join(o + "\n" for o in oids).encode()

            def feed() -> None:
                try:
                    packer.stdin.write(names)
                finally:
                    packer.stdin.close()

            feeder = Background(feed)  # (pack-objects reads every name before it writes)
            while True:
                chunk = packer.stdout.read(self.COPY_CHUNK)
                if not chunk:
                    break
                if indexer is None:  # (once there is a pack: a packing that fails at once leaves the main store be)
                    # named Git directory: run from a subdirectory of the working tree, ``index-pack --stdin``
                    # (Git 2.39) writes its pack under that subdirectory's own ``.git/objects/pack``
                    indexer = popen(["git", f"--git-dir={self.main.git_dir}", "index-pack", "--stdin",
                                     "--fix-thin"], stdin=PIPE, stdout=DEVNULL, stderr=DEVNULL,
                                    cwd=self.main.git.cwd, env=self.main.git.env)
                try:
                    indexer.stdin.write(chunk)
                except OSError:  # the index stopped: its status says so
                    break
            feeder.join()
        finally:
            for proc in (packer, indexer):
                if proc is not None:
                    for pipe in (proc.stdin, proc.stdout):
                        if pipe is not None and not pipe.closed:
                            try:
                                pipe.close()
                            except OSError:
                                pass
                    proc.wait()
        if packer.returncode != 0:
            raise GitError("quarantine object packing failed")
        if indexer is None or indexer.returncode != 0:
            raise GitError("main repository object indexing failed")

    def own_packs(self, most: int | None = None) -> list[tuple[str, list[str]]]:
        """(path without extension, object IDs) of each complete pack the fetches wrote here (of
        at most ``most`` objects, when given)."""
        pack_dir = os.path.join(self.path, "objects", "pack")
        try:
            names = sorted(os.listdir(pack_dir))
        except FileNotFoundError:
            return []
        out = []
        for name in names:
            if not (name.startswith("pack-") and name.endswith(".idx")):
                continue
            base = os.path.join(pack_dir, name[:-4])
            oids = _idx_names(base + ".idx", self.repo.oid_hex_len // 2, most)
            if oids is not None and os.path.isfile(base + ".pack"):
                out.append((base, oids))
        return out

    def adopt_pack(self, base: str) -> None:
        """Link (or copy) one fetched pack into the main store, its index last.

        The caller has checked that every object in it is accepted. Git received the pack with
        ``fsckObjects`` and wrote the index itself; the names are content checksums, so a pack
        already present under the same name is the same pack.
        """
        main_pack = os.path.join(self.main.common_dir, "objects", "pack")
        os.makedirs(main_pack, exist_ok=True)
        name = os.path.basename(base)
        for ext in (".pack", ".rev", ".idx"):  # Git uses a pack once its index exists
            src = base + ext
            if not os.path.isfile(src):
                if ext == ".rev":
                    continue
                raise LocalStateError("quarantine pack disappeared")
            tmp = os.path.join(main_pack, f"tmp_hn_{os.urandom(8).hex()}{ext}")
            try:
                os.link(src, tmp)
            except OSError:
                import shutil

                shutil.copyfile(src, tmp)
                os.chmod(tmp, 0o444)
            os.replace(tmp, os.path.join(main_pack, name + ext))


def _init_bare(path: str, object_format: str) -> None:
    """What ``git init --bare --template= --object-format=<f>`` writes into the empty directory
    ``path`` (no sample hooks or other template files to trust), without starting Git: the
    directories Git needs (not ``refs/heads`` or ``refs/tags``, which it creates when it
    writes a branch or a tag: each new file or directory is a fraction of a millisecond on some
    file systems), ``HEAD`` and the core configuration (format version 1 and the extension for
    SHA-256, as Git writes them). Raises ``OSError``."""
    for d in ("objects", "objects/info", "objects/pack", "refs"):
        os.mkdir(os.path.join(path, d), 0o700)
    config = "[core]\n\trepositoryformatversion = {}\n\tfilemode = true\n\tbare = true\n".format(
        0 if object_format == "sha1" else 1)
    if object_format != "sha1":
        config += f"[extensions]\n\tobjectformat = {object_format}\n"
    for name, text in (("HEAD", "ref: refs/heads/main\n"), ("config", config)):
        with open(os.path.join(path, name), "x", encoding="ascii") as fh:
            fh.write(text)


def _hold(path: str) -> int | None:
    """An exclusive POSIX record lock on a quarantine's ``LOCK`` file, held by this process."""
    import fcntl

    try:
        fd = os.open(os.path.join(path, LOCK), os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _config_entry(section: str, subsection: str | None, name: str, value: str | None) -> str:
    """One configuration entry under its own section header (a subsection is quoted with ``\\``
    and ``"`` escaped; Git allows no newline in one)."""
    head = section
    if subsection is not None:
        head += ' "' + subsection.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return f"[{head}]\n\t{name}\n"
    return f"[{head}]\n\t{name} = {_config_value(value)}\n"


def _config_value(value: str) -> str:
    """A Git configuration value written as a quoted string (a path may hold anything)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _idx_names(path: str, oid_bytes: int, most: int | None = None) -> list[str] | None:
    """Object IDs listed by a version-2 pack index, or None for anything else (or for an index
    of more than ``most`` objects, when given: its names are not read)."""
    start = 8 + 1024
    try:
        with open(path, "rb") as fh:
            head = fh.read(start)
            if len(head) < start or head[:8] != b"\xfftOc\x00\x00\x00\x02":
                return None
            count = int.from_bytes(head[8 + 255 * 4:start], "big")
            if most is not None and count > most:
                return None
            data = fh.read(count * oid_bytes)
    except OSError:
        return None
    if len(data) < count * oid_bytes:
        return None
    hexed = data.hex()
    step = oid_bytes * 2
    return [hexed[i:i + step] for i in range(0, len(hexed), step)]


REMOTE_TEXT = b"remote:"


def _own_lines(line: bytes, chunk: bytes) -> tuple[bool, bytes]:
    """Whether ``chunk`` ends a line the fetch's own Git processes wrote ("Resolving deltas: 40%"),
    given ``line``, the start of the line it continues; and the start of the line it leaves
    unfinished. Git writes every line of the server's progress band with the prefix "remote: "
    (``sideband.c``), which is the server's text, not a measure of anything received. (An ssh
    server's own error stream reaches here unprefixed: it counts only once the pack has begun to
    arrive, as every own line does, ``Quarantine.fetch``.)"""
    parts = (line + chunk).replace(b"\r", b"\n").split(b"\n")
    rest = parts.pop()[:len(REMOTE_TEXT)]  # only its start says whose it is
    return any(part and not part.startswith(REMOTE_TEXT) for part in parts), rest


def _kill(proc: Child) -> None:
    """Stop a fetch and every helper it started (remote-https, index-pack)."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=10)
    except Timeout:  # pragma: no cover
        pass


def _as_promisor(env: dict, url: str) -> dict:
    """``env`` for a filtered fetch from ``url`` that leaves this quarantine's config as it is.
    Git records the remote of a first filtered fetch as a promisor in the repository's config
    (``partial_clone_register``) unless it is one already, with a filter: every later read here
    of an object not on disk would then fetch it from that remote (a *lazy fetch*), unbounded by
    the watchdog and past the byte budget. Said for this one process, in its environment (as the
    carried transport settings are, ``carry_transport``), the remote is one already, and nothing
    is written (Git names a remote given by URL by that URL)."""
    n = int(env.get("GIT_CONFIG_COUNT") or 0)
    return {**env, f"GIT_CONFIG_KEY_{n}": f"remote.{url}.promisor", f"GIT_CONFIG_VALUE_{n}": "true",
            f"GIT_CONFIG_KEY_{n + 1}": f"remote.{url}.partialCloneFilter", f"GIT_CONFIG_VALUE_{n + 1}": "tree:0",
            "GIT_CONFIG_COUNT": str(n + 2)}
