"""``git hn setup AGENT [--remove] [--print]``: make a coding agent use git-hn unaided (issue 13).

Owns: reading and writing the agent files of the working tree (``setup_content`` says which,
``setup_edits`` computes their new bytes) and the private record that lets ``--remove`` put every
file back byte for byte, ``<common-gitdir>/hn/setup/record-v0.json``. Trusts: Git's answer about
the working tree; nothing in the files it edits.

The record holds, per file, the bytes before git-hn first changed it (or that it did not exist),
the SHA-256 of what setup last wrote, the agents that rely on it (``AGENTS.md`` serves both
``codex`` and ``agents-md``) and the directories setup created. A file is named by its real path
relative to its working tree, prefixed with ``<worktree id>//`` in a linked worktree (they share
the record in the common git directory), so the record still matches after the repository or
the worktree is moved; records of older versions, keyed by absolute path, are read too.
``--remove`` restores those bytes when the file is still exactly what setup wrote and they held
nothing of git-hn's; otherwise it takes out only git-hn's entries and keeps the rest (and says
when the file changed since). An entry of git-hn's form that the bytes before already held (the
user's own brief hook) is theirs and stays. A file still used by another
agent's setup is kept. A setup changes all its files or none: each new file is written first
(in git-hn's setup directory in the git directory, or beside its target on another file system),
then the record, then the files are renamed into place (a failure puts back what was already
replaced, and removes what was staged). A crash in between leaves a record that no file matches:
``--remove`` then falls back to taking git-hn's entries out; the next setup removes the copies
it left in the git directory.

Attacks defended against: a committed symbolic link (``.claude`` -> ``~/.config/...``, or
``AGENTS.md`` -> a file in ``.git``) that would make setup write outside the working tree or
into the git directory (*symlink redirection*): every path is resolved first and refused unless
it stays in the working tree, outside the git directories; files are replaced by rename, never
written through a link. A FIFO or device in place of a configuration file (*non-regular file*)
and a huge file are refused before reading.
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import json
import os
import stat
from dataclasses import dataclass

from ..core import canonical, hashing
from ..errors import HnError, InputError, LocalStateError, chmod_way_out
from ..store import private
from ..store.repo import Repo
from . import setup_content as content
from .setup_edits import MAX_BYTES, Edit, edit_for

MAX_RECORD = 16 << 20


def record_path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "setup", "record-v0.json")


def lock_path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "locks", "setup.lock")


def check_agent(agent: str) -> str:
    if agent not in content.AGENTS:
        from ..core.gostr import one_line, spell_backslash

        raise InputError(f"unknown agent \"{spell_backslash(one_line(agent)[:40])}\"; use claude, codex, cursor or "
                         "agents-md")
    return agent


@dataclass
class Planned:
    rel: str
    real: str
    before: bytes | None
    after: bytes | None
    edit: Edit
    line: str = ""


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashing.sha256_hex(data)


# -- where files are ---------------------------------------------------------------------------


def _worktree(repo: Repo) -> str:
    proc = repo.git.run(["rev-parse", "--show-toplevel"])
    top = proc.stdout.decode("utf-8", "surrogateescape").strip()
    if proc.returncode != 0 or not top:
        raise InputError("git hn setup needs a working tree")
    return os.path.realpath(top)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _resolve(repo: Repo, top: str, rel: str) -> str:
    real = os.path.realpath(os.path.join(top, *rel.split("/")))
    guards = {os.path.realpath(repo.git_dir), os.path.realpath(repo.common_dir)}
    if not _inside(real, top) or any(_inside(real, g) for g in guards):
        raise InputError(f"{rel} resolves outside the working tree; not changed")
    return real


def _read(real: str, rel: str) -> bytes | None:
    try:
        st = os.lstat(real)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise InputError(f"{rel}: a parent is not a directory; not changed") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{rel} is not a regular file; not changed")
    if st.st_size > MAX_BYTES:
        raise InputError(f"{rel} is larger than 1 MiB; not changed")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{rel} cannot be read: {exc.strerror}; not changed") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{rel} is larger than 1 MiB; not changed")
    return data


def _missing_dirs(real: str, top: str) -> list[str]:
    """The directories above ``real`` that do not exist yet, relative to ``top``."""
    out, cur = [], os.path.dirname(real)
    while cur != top and _inside(cur, top) and not os.path.isdir(cur):
        out.append(_relative(cur, top))
        cur = os.path.dirname(cur)
    return out[::-1]


def _relative(real: str, top: str) -> str:
    return os.path.relpath(real, top).replace(os.sep, "/")


def _worktree_id(repo: Repo) -> str:
    """"" for the main working tree, else the linked worktree's name under ``worktrees/``."""
    git_dir = os.path.realpath(repo.git_dir)
    return "" if git_dir == os.path.realpath(repo.common_dir) else os.path.basename(git_dir)


class Keys:
    """How the record names the files and directories of this working tree."""

    def __init__(self, repo: Repo, top: str):
        worktree = _worktree_id(repo)
        self.top, self.prefix = top, f"{worktree}//" if worktree else ""

    def key(self, real: str) -> str:
        return self.prefix + _relative(real, self.top)

    def adopt(self, files: dict) -> dict:
        """``files`` with the absolute keys and directories of older records that lie in this
        working tree made relative (other absolute keys belong to another worktree: kept)."""
        out = {}
        for key, entry in files.items():
            if os.path.isabs(key) and _inside(key, self.top):
                key = self.key(key)
            dirs = [_relative(d, self.top) if os.path.isabs(d) and _inside(d, self.top) else d
                    for d in entry["createdDirs"]]
            out[key] = {**entry, "createdDirs": dirs}
        return out

    def directory(self, d: str) -> str | None:
        """The directory to remove, or None when it is not (any more) in this working tree."""
        real = d if os.path.isabs(d) else os.path.join(self.top, *d.split("/"))
        return real if _inside(os.path.realpath(real), self.top) and real != self.top else None


def _stage(real: str, data: bytes, made: list[str], spare: str | None = None) -> str:
    """Write ``data`` to a new temporary file and return its path: nothing a reader sees changes
    yet. It is written in ``spare`` (git-hn's setup directory in the git directory) when that is
    on the file system of ``real``: one a killed setup leaves is not in the working tree, where a
    copy of a gitignored ``.mcp.json`` holding a token would be under a name no ignore rule
    matches (a review); else, or when it cannot be written there, beside ``real``. The
    directories created for ``real`` are appended to ``made``."""
    directory, missing = os.path.dirname(real), []
    while not os.path.isdir(directory):
        missing.append(directory)
        directory = os.path.dirname(directory)
    for d in reversed(missing):
        os.mkdir(d)
        made.append(d)
    directory = os.path.dirname(real)
    try:
        mode = stat.S_IMODE(os.lstat(real).st_mode)
    except FileNotFoundError:
        mode = None
    name = f".{os.path.basename(real)}{_STAGED}"
    if spare is not None and _same_device(spare, directory):
        try:
            return _write_new(os.path.join(spare, name + os.urandom(6).hex()), data, mode)
        except OSError:
            pass  # (the setup directory refused it: beside, where a failure is the target's own)
    return _write_new(os.path.join(directory, name + os.urandom(6).hex()), data, mode)


def _same_device(a: str, b: str) -> bool:
    try:
        return os.stat(a).st_dev == os.stat(b).st_dev
    except OSError:
        return False


def _write_new(tmp: str, data: bytes, mode: int | None) -> str:
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


_STAGED = ".git-hn-"  # (in a staged copy's name, before its random part)


def _sweep(spare: str) -> None:
    """Remove the staged copies a killed setup left in ``spare`` (the setup lock is held: no
    running setup has any there). Best effort."""
    try:
        with os.scandir(spare) as entries:
            left = [e.path for e in entries if e.name.startswith(".") and _STAGED in e.name
                    and e.is_file(follow_symlinks=False)]
    except OSError:
        return
    for path in left:
        _unlink(path)


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def _place(real: str, data: bytes | None, tmp: str | None) -> None:
    if data is None:
        try:
            os.unlink(real)
        except FileNotFoundError:
            pass
        return
    try:
        os.replace(tmp, real)
    except OSError as exc:
        import errno

        if exc.errno != errno.EXDEV:
            raise
        # (another mount of the same file system, a bind mount: no rename across it; staged
        # again beside the target, and the first copy removed)
        beside = _stage(real, data, [])
        try:
            os.replace(beside, real)
        except BaseException:
            _unlink(beside)
            raise
        _unlink(tmp)


def _write_all(repo: Repo, name: str, record: dict, plans: list[Planned], before: bytes | None) -> None:
    """Write the record and every changed file of ``plans``, or change nothing (an audit: with
    ``.claude`` read-only, ``.mcp.json`` and the record were written, then setup failed). Every
    new file is staged first (``_stage``), so a full disk or a read-only directory fails before
    anything shows; a rename that still fails puts back the files already replaced and the
    record's bytes ``before``. Only if that too fails does the error say what is left."""
    changing = [p for p in plans if p.after != p.before]
    staged: dict[str, str] = {}
    made: list[str] = []
    spare = _spare(repo)

    def discard() -> None:
        for tmp in staged.values():
            _unlink(tmp)
        for d in reversed(made):
            try:
                os.rmdir(d)
            except OSError:
                pass

    def fail(p: Planned, exc: OSError, done: list[Planned] | None) -> InputError:
        # (``done`` is None before the record was saved, else the files replaced so far)
        left = [q.rel for q in done or () if not _put_back(q)]
        discard()
        why = f"{p.rel} cannot be written: {private.cause(exc)}"
        if left:
            return InputError(f"{why}; {' and '.join(left)} changed and could not be put back: "
                              f"{name} --remove takes git-hn's part out")
        if done is not None:
            try:
                _restore_record(repo, before)
            except HnError:
                pass  # (a record that no file matches: --remove takes git-hn's entries out)
        return InputError(f"{why}; not changed: run {name} again once it can be written")

    try:  # (whatever stops it before a file is placed, a staged copy is not left: a review found them)
        for p in changing:
            if p.after is not None:
                try:
                    staged[p.real] = _stage(p.real, p.after, made, spare)
                except OSError as exc:
                    raise fail(p, exc, None) from None
        _save_record(repo, record, name)
    except BaseException:
        discard()
        raise
    done: list[Planned] = []
    for p in changing:
        try:
            _place(p.real, p.after, staged.get(p.real))
        except OSError as exc:
            raise fail(p, exc, done) from None
        staged.pop(p.real, None)
        done.append(p)


def _put_back(p: Planned) -> bool:
    """Give ``p``'s file its bytes before again; False if that failed."""
    tmp = None
    try:
        tmp = None if p.before is None else _stage(p.real, p.before, [])
        _place(p.real, p.before, tmp)
    except OSError:
        if tmp is not None:
            _unlink(tmp)
        return False
    return True


def _spare(repo: Repo) -> str | None:
    """git-hn's setup directory, where copies are staged (``_stage``), with any a killed setup
    left there removed; None when it cannot be made."""
    spare = os.path.dirname(record_path(repo))
    try:
        private.ensure_dirs(repo.hn_dir, spare)
    except (HnError, OSError):
        return None
    _sweep(spare)
    return spare


def _restore_record(repo: Repo, data: bytes | None) -> None:
    if data is None:
        _unlink(record_path(repo))
    else:
        private.write_private(repo.hn_dir, record_path(repo), data)


def _remove_dirs(keys: Keys, dirs: list[str]) -> None:
    found = [real for real in map(keys.directory, dirs) if real is not None]
    for d in sorted(found, key=len, reverse=True):
        try:
            os.rmdir(d)
        except OSError:
            pass  # not empty (someone else's files) or already gone


# -- the record --------------------------------------------------------------------------------


def _check_entry(entry) -> bool:
    return (isinstance(entry, dict) and set(entry) == {"original", "exact", "written", "owners",
                                                       "createdDirs"}
            and (entry["original"] is None or isinstance(entry["original"], str))
            and isinstance(entry["exact"], bool) and isinstance(entry["written"], str)
            and isinstance(entry["owners"], list)
            and all(isinstance(o, str) and o in content.AGENTS for o in entry["owners"])
            and isinstance(entry["createdDirs"], list)
            and all(isinstance(d, str) for d in entry["createdDirs"]))


def load_record(repo: Repo, keys: Keys | None = None) -> dict:
    path = record_path(repo)
    data = private.read_private(repo.hn_dir, path, max_bytes=MAX_RECORD)
    if data is None:
        return {}
    try:
        doc = json.loads(data)
        files = doc["files"]
        ok = doc.get("version") == 0 and isinstance(files, dict) and all(
            isinstance(k, str) and _check_entry(v) for k, v in files.items())
    except (ValueError, KeyError, TypeError, AttributeError):
        ok = False
    if not ok:
        raise LocalStateError(f"setup record {path} is invalid")
    return files if keys is None else keys.adopt(files)


def _save_record(repo: Repo, files: dict, name: str) -> None:
    path = record_path(repo)
    if not files:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:  # (a bare OSError skipped the clean-up of the staged copies: a review)
            raise LocalStateError(f"private identity file {path} cannot be removed: {private.cause(exc)}"
                                  f"{private.kind(path)}; nothing was changed: {_writable(path, exc, name)}") from None
        return
    private.write_private(repo.hn_dir, path, canonical.indented({"version": 0, "files": files}))


def _writable(path: str, exc: OSError, name: str) -> str:
    """What lets ``name`` remove ``path`` after ``exc``."""
    import errno

    if exc.errno == errno.EROFS:
        return f"run {name} where the repository is not mounted read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"{chmod_way_out('its directory', os.path.dirname(path))}, then run {name} again"
    return f"fix that, then run {name} again"


def _original(entry: dict) -> bytes | None:
    return None if entry["original"] is None else base64.b64decode(entry["original"])


def _locked(repo: Repo, timeout: float = 10.0):
    from ..store.lock import stream_lock

    return stream_lock(repo.hn_dir, lock_path(repo), "setup", timeout,
                       busy="another git hn setup is running; retry")


# -- setup and remove --------------------------------------------------------------------------


def _targets(repo: Repo, keys: Keys, agent: str) -> list[tuple[content.Target, str, str, bytes | None]]:
    """(target, path as written, real path, bytes now) of each file of ``agent``."""
    out, seen = [], {}
    for target in content.TARGETS[agent]:
        rel = target.path
        real = _resolve(repo, keys.top, rel)
        if real in seen:
            raise InputError(f"{rel} and {seen[real]} are the same file; not changed")
        seen[real] = rel
        out.append((target, rel, real, _read(real, rel)))
    return out


def _plan_add(agent: str, targets, record: dict, keys: Keys) -> list[Planned]:
    plans = []
    for target, rel, real, before in targets:
        edit = edit_for(target)
        entry = record.get(keys.key(real))
        edit.upgrade = entry is not None and entry["written"] == _sha(before)  # (as setup last wrote it)
        edit.original = None if entry is None else _original(entry)  # (what the user had: theirs)
        if (target.kind == content.WHOLE and before is not None and before != edit.add(None, rel)
                and not (entry is not None and entry["written"] == _sha(before))
                and _sha(before) not in content.FORMER_CURSOR_RULES):
            raise InputError(f"{rel} exists and was not written by git hn setup; not changed")
        after = edit.add(before, rel)
        if after == before:
            line = f"{rel}: unchanged" + (f" ({edit.note})" if edit.note else "")
        else:
            line = f"{rel}: " + ("created" if before is None else "updated")
            if edit.note:  # (an entry left as is beside what was added: said on the first run too)
                line += f" ({edit.note})"
        plans.append(Planned(rel, real, before, after, edit, line))
    return plans


def _clean(edit: Edit, data: bytes | None, rel: str) -> bool:
    """True if ``data`` holds nothing of git-hn's: then it is the bytes --remove restores."""
    if data is None:
        return True
    try:
        return edit.strip(data, rel, created=False) == data
    except InputError:
        return False


def _record_add(keys: Keys, agent: str, plans: list[Planned], record: dict) -> dict:
    """``record`` updated for the files ``plans`` write."""
    for p in plans:
        key = keys.key(p.real)
        entry = record.get(key)
        if p.after == p.before:
            if entry is not None and agent not in entry["owners"]:
                entry["owners"] = sorted({*entry["owners"], agent})
            continue
        if entry is not None and entry["written"] == _sha(p.before):
            original, exact = _original(entry), entry["exact"]  # a newer version of git-hn's part
            owners, dirs = {*entry["owners"], agent}, list(entry["createdDirs"])
        elif entry is not None and not _clean(p.edit, p.before, p.rel):
            # changed since setup wrote it, and still holding git-hn's part: its entries are
            # git-hn's, not the user's, so --remove keeps asking the bytes before the first setup
            # (taking these bytes as the original, --remove said "nothing of git-hn's" and left
            # every hook after a setup took out an older git-hn's second brief hook)
            original, exact = _original(entry), False
            owners, dirs = {*entry["owners"], agent}, list(entry["createdDirs"])
        else:
            # The bytes before are kept even when they hold entries of git-hn's form (the user's
            # own brief hook): --remove then keeps those entries (``Edit.original``).
            exact = _clean(p.edit, p.before, p.rel)
            original = p.before
            owners = {*entry["owners"], agent} if entry is not None and not exact else {agent}
            dirs = []
        dirs += _missing_dirs(p.real, keys.top)
        record[key] = {"original": None if original is None else
                          base64.b64encode(original).decode("ascii"),
                          "exact": exact, "written": _sha(p.after), "owners": sorted(owners),
                          "createdDirs": dirs}
    return record


def _plan_remove(agent: str, targets, record: dict, keys: Keys) -> tuple[list[Planned], dict]:
    plans, updates = [], {}
    for target, rel, real, before in targets:
        edit = edit_for(target)
        key = keys.key(real)
        entry = record.get(key)
        others = sorted(set(entry["owners"]) - {agent}) if entry is not None else []
        if others:
            updates[key] = {**entry, "owners": others}
            plans.append(Planned(rel, real, before, before, edit,
                                 f"{rel}: kept (git hn setup {' and '.join(others)} uses it)"))
            continue
        if entry is not None:
            updates[key] = None
        if entry is not None and entry["exact"] and entry["written"] == _sha(before):
            after = _original(entry)
            line = f"{rel}: " + ("restored" if after is not None else "removed")
        elif before is None:
            after, line = None, f"{rel}: absent"
        else:
            created = entry is not None and entry["exact"] and entry["original"] is None
            edit.original = None if entry is None else _original(entry)
            after = edit.strip(before, rel, created)
            if after == before:  # a whole file of git-hn's that someone edited stays theirs
                line = f"{rel}: changed since setup; left as is" if (
                    target.kind == content.WHOLE and entry is not None) else \
                    f"{rel}: {edit.note}" if edit.note else f"{rel}: nothing of git-hn's"
            elif entry is not None and entry["written"] != _sha(before):
                line = f"{rel}: git-hn's entries removed (the file changed since setup; the rest is kept)"
            else:
                line = f"{rel}: git-hn's entries removed"
            if after != before and edit.note:  # (something of git-hn's form stayed: said why)
                line += f"; {edit.note}"
        plans.append(Planned(rel, real, before, after, edit, line))
    return plans, updates


def _diff(p: Planned) -> list[str]:
    def lines(data):
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    out = difflib.unified_diff(lines(p.before), lines(p.after),
                               "/dev/null" if p.before is None else f"a/{p.rel}",
                               "/dev/null" if p.after is None else f"b/{p.rel}")
    return [line.rstrip("\r\n") for line in out]


AGENT_KINDS = ("handoff", "decision")  # what an agent's next session must see of this one


def trust_hint(repo: Repo) -> str | None:
    """After a setup: why the brief the agent reads at session start will show nothing of its
    own (it shows only trusted memory, and its stderr hint does not reach the agent), or None.
    Nothing is said on an unborn HEAD or without an identity (``record`` says what to do)."""
    from ..core.gostr import short_id
    from ..store import identity as identmod
    from ..store.resolver import Resolver, load_policy

    head = repo.head_commit()
    actor = identmod.active_actor(repo)
    if not head or not actor:
        return None
    start = "the brief an agent reads at session start shows only memory the committed trust policy trusts"
    try:
        memory = load_policy(repo, Resolver(repo), head).memory
    except HnError as exc:  # (the brief fails the same way: said here, where someone reads it)
        return f"the session-start brief will fail until the committed policy is fixed: {exc.message}"
    working = _working_trust(repo, actor)
    if memory is None:
        from ..store import worktree

        top = worktree.toplevel(repo)
        present = top is not None and os.path.lexists(worktree.policy_path(top))
        how = f"git hn policy trust {short_id(actor)}, then" if present else "git hn policy init, then"
        if working is not None and working[0]:  # (an agent trial: told to trust, it was "Unchanged")
            how = (f"git hn policy trust --kind {' --kind '.join(working[1])}, then" if working[1] else
                   "the working tree's policy trusts you already:")
        return f"{start}, and HEAD has no memory trust policy, so it will show nothing: {how} commit .hn/policy.json"
    kinds = [k for k in AGENT_KINDS if k not in memory.trusted_kinds]
    if actor not in memory.trusted_actors:
        if working is not None and working[0] and not working[1]:
            return (f"{start}, and it does not trust your identity ({short_id(actor)}); the working tree's policy "
                    "does: commit .hn/policy.json")
        from .revoked import revocations

        gone = revocations(repo, head, [actor]).get(actor)
        if gone is not None:  # (no trust to ask for: a revoked key, perhaps in a thief's hands)
            from ..core.hints import since

            return (f"{start}, and it no longer trusts your identity ({short_id(actor)}), {since(gone.commit, gone.subject)}: "
                    "the agent's records and handoffs will not show in its next brief")
        return (f"{start}, and it does not trust your identity ({short_id(actor)}): until a maintainer runs "
                f"git hn policy trust {short_id(actor)} and commits .hn/policy.json, the agent's records and "
                "handoffs will not show in its next brief")
    if kinds:
        if working is not None and working[0] and not working[1]:
            return (f"{start}, and it does not trust the kinds {', '.join(kinds)}; the working tree's policy "
                    "does: commit .hn/policy.json")
        return (f"{start}, and it does not trust the kinds {', '.join(kinds)}: git hn policy trust --kind "
                f"{' --kind '.join(kinds)}, then commit .hn/policy.json")
    return None


def _working_trust(repo: Repo, actor: str) -> tuple[bool, list[str]] | None:
    """For a working-tree policy not committed yet: (whether it trusts ``actor``, the agent
    kinds it does not trust); None when there is none (``policy_working.uncommitted_memory``)."""
    from .policy_working import uncommitted_memory

    memory = uncommitted_memory(repo)
    if memory is None:
        return None
    trusted = memory.get("trustedKinds") or ()
    return actor in (memory.get("trustedActors") or ()), [k for k in AGENT_KINDS if k not in trusted]


def run(repo: Repo, agent: str, *, remove: bool = False, dry_run: bool = False) -> list[str]:
    """Set ``agent`` up (or take it out with ``remove``) and return the lines to print; with
    ``dry_run``, return the unified diff of what would change and write nothing."""
    check_agent(agent)
    keys = Keys(repo, _worktree(repo))
    name = f"git hn setup {agent}" + (" --remove" if remove else "")
    # (a dry run writes nothing, so it takes no lock: an audit's --print made .git/hn/locks/setup.lock,
    # and failed in a read-only .git/hn; what it shows may be overtaken, as any preview)
    with contextlib.nullcontext() if dry_run else _locked(repo):
        record = load_record(repo, keys)
        targets = _targets(repo, keys, agent)
        if remove:
            plans, updates = _plan_remove(agent, targets, record, keys)
        else:
            plans, updates = _plan_add(agent, targets, record, keys), {}
        changing = [p for p in plans if p.after != p.before]
        if dry_run:
            diff = [line for p in changing for line in _diff(p)]
            return diff or [f"{name}: nothing would change"]
        before = private.read_private(repo.hn_dir, record_path(repo), max_bytes=MAX_RECORD)
        if not remove:
            _write_all(repo, name, _record_add(keys, agent, plans, record), plans, before)
        else:
            dirs = [d for key, entry in updates.items() if entry is None
                    for d in record[key]["createdDirs"]]
            for key, entry in updates.items():
                if entry is None:
                    del record[key]
                else:
                    record[key] = entry
            _write_all(repo, name, record, plans, before)
            _remove_dirs(keys, dirs)
        lines = [p.line for p in plans]
    if not changing:
        return lines + [f"{name}: " + ("nothing to remove" if remove else
                                       "already set up; nothing changed")]
    note = content.NOTES.get(agent) if not remove else None
    return lines + [f"{name}: done" + (f" ({note})" if note else "")]
