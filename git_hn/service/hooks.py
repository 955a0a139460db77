"""Git hooks: install, uninstall, status, and what the wrappers run (CONTRACT §10.7).

Install never replaces a user's hook: an existing ``<hook>`` moves to ``hn-chained/<hook>`` in the
same directory, under its own name, and the wrapper runs it first with the same arguments, stdin
and ``$0`` (see ``hookscripts``), honouring its status. Every file git-hn writes or moves is
recorded with its SHA-256 and mode, and uninstall refuses unless both the wrapper and the chained
hook are still exactly what was recorded, so it can restore the directory byte for byte and never
deletes a hook it did not write. Install never writes into files Git tracks or shows in
``git status`` (a committed ``core.hooksPath`` such as ``.husky``): it refuses, and says how to call
git-hn from the team's own hook instead.

The wrappers: ``pre-push`` validates, lints and publishes local streams to the pushed remote
(with ``hn.prePush`` at its default, ``warn``, the publication runs in the background after the
checks, so the user's push does not wait for a second push; ``block`` publishes before the push
goes on, and a failure stops it);
``reference-transaction`` stands in for the post-fetch hook Git does not have, importing a
remote's selected streams after a committed transaction updated its remote-tracking refs. Both do
nothing for git-hn's own Git processes (``HN_HOOK_ACTIVE``), so they never recurse.
"""

from __future__ import annotations

import json
import os
import stat
import sys

from ..core import canonical, hashing
from ..errors import ConflictError, HnError, InputError, LocalStateError
from ..store import private
from ..store.git import PRE_PUSH_QUESTIONS
from ..store.repo import Repo

HOOKS = ("pre-push", "reference-transaction", "post-rewrite")
PUBLISHER = "publish"  # internal: ``git hn hooks run publish REMOTE``, the background publication
CHAINED_DIR = "hn-chained"  # chained hooks keep their names in this folder of the hooks directory
LEGACY = ".hn-chained"  # where git-hn before this layout put them (``<hook>.hn-chained``)


def wrapper_text(name: str, executable: str | None = None) -> bytes:
    import shlex  # (the templates and ``shlex`` only here: a hook's run never writes a wrapper)

    from ..hookscripts import TEMPLATES, git_hn_path

    return TEMPLATES[name].replace("@GIT_HN@", shlex.quote(executable or git_hn_path())).encode()


def _sha(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashing.sha256(fh.read()).hexdigest()
    except FileNotFoundError:
        return None


def _replaced(path: str, chained: str, mine: dict) -> bool:
    """Whether a hook manager put the chained hook back over the wrapper (husky re-generating
    its stubs): the hook is the same as its chained copy, or, with none chained, not git-hn's."""
    if mine.get("chained") is None:  # anything but a wrapper of ours someone edited
        try:
            with open(path, "rb") as fh:
                ours = b"(installed by `git hn hooks install`" in fh.read(4096)
        except OSError:
            return False
        return not ours and not os.path.lexists(chained)
    return os.path.lexists(chained) and _fingerprint(path) == _fingerprint(chained)


PRE_COMMIT_LEGACY = ".legacy"  # pre-commit's "migration mode": the hook it found, run after its own


def _migrated(path: str, mine: dict) -> bool:
    """Whether pre-commit's ``install`` moved the wrapper to ``<hook>.legacy`` (it runs it)."""
    return _sha(path) != mine["wrapper"] and _sha(path + PRE_COMMIT_LEGACY) == mine["wrapper"]


def _put_back(mine: dict, chained: str, path: str) -> None:
    """The hook install chained, back at ``path`` as it was (a relative link as its text)."""
    if mine.get("chainedLink"):
        os.unlink(chained)
        os.symlink(mine["chainedLink"], path)
    else:
        os.rename(chained, path)


def _fingerprint(path: str) -> str | None:
    """What install records of a hook it chains: its content's SHA-256, or for a link,
    ``link:<its text>`` (what it links to is the team's file, which may change, or may not
    exist); None when there is nothing."""
    if os.path.islink(path):
        return "link:" + os.readlink(path)
    return _sha(path)


class Location:
    """Where hooks live and where their record is kept (repository or ``--global``)."""

    def __init__(self, hook_dir: str, record: str, private_root: str | None):
        self.dir, self.record, self.private_root = hook_dir, record, private_root

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
            raise LocalStateError(f"hook record {self.record} is invalid") from None

    def save(self, hooks: dict) -> None:
        if not hooks:
            try:
                os.unlink(self.record)
            except FileNotFoundError:
                pass
            return
        doc = canonical.indented({"version": 1, "dir": self.dir,
                                  "hooks": [hooks[n] for n in HOOKS if n in hooks]})
        if self.private_root is not None:
            private.write_private(self.private_root, self.record, doc)
            return
        tmp = self.record + ".tmp-" + os.urandom(4).hex()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(doc)
        os.replace(tmp, self.record)


def locate(repo: Repo | None, global_: bool) -> Location:
    from ..store.git import Git

    if global_:
        git = Git(os.getcwd())
        proc = git.run(["config", "--global", "--get", "core.hooksPath"])
        value = proc.stdout.decode("utf-8", "surrogateescape").strip()
        if proc.returncode != 0 or not value:
            raise InputError("hooks install --global requires git config --global core.hooksPath")
        hook_dir = os.path.abspath(os.path.expanduser(value))
        return Location(hook_dir, os.path.join(hook_dir, "hn-hooks.json"), None)
    proc = repo.git.run(["rev-parse", "--git-path", "hooks"])
    rel = proc.stdout.decode("utf-8", "surrogateescape").strip()
    hook_dir = os.path.abspath(os.path.join(os.getcwd(), rel))
    return Location(hook_dir, os.path.join(repo.hn_dir, "hooks.json"), repo.hn_dir)


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
    listed = repo.git.run(["ls-files", "-z", "--", *rel]).stdout.split(b"\0")
    tracked = {p.decode("utf-8", "surrogateescape") for p in listed if p}
    data = "\0".join(rel).encode("utf-8", "surrogateescape") + b"\0"
    # check-ignore refuses literal pathspecs; these are plain paths of our own making
    answer = repo.git.run(["check-ignore", "--no-index", "-z", "--stdin"], input=data,
                          env={"GIT_LITERAL_PATHSPECS": "0"}).stdout
    ignored = {p.decode("utf-8", "surrogateescape") for p in answer.split(b"\0") if p}
    shown = [p for p in rel if p in tracked or p not in ignored]
    if shown:
        where = os.path.relpath(hook_dir, root)
        raise InputError(f"refusing to install into {where} (core.hooksPath): {shown[0]} is tracked or "
                         "would show in git status; call git-hn from the team's own hook instead "
                         "(see git-hn-hooks(1), HOOK MANAGERS)")


def install(loc: Location, repo: Repo | None = None) -> list[str]:
    refuse_worktree_files(repo, loc)
    os.makedirs(loc.dir, exist_ok=True)
    record = loc.load()
    plan = []
    for name in HOOKS:
        path = loc.path(name)
        text = wrapper_text(name)
        mine = record.get(name)
        current = _fingerprint(path)  # (a dangling link is a hook too: chained, never overwritten)
        if mine is not None and current == mine["wrapper"]:
            legacy = os.path.lexists(path + LEGACY) and mine.get("chained") is not None
            if current == hashing.sha256(text).hexdigest() and not legacy:
                continue  # already installed, unchanged
            if legacy and os.path.lexists(loc.chained(name)):
                raise InputError(f"hook {loc.chained(name)} already exists; refusing to install")
            plan.append((name, path, text, path + LEGACY if legacy else None))  # refreshed in place
            continue
        if current is not None:
            if os.path.lexists(loc.chained(name)) and _fingerprint(loc.chained(name)) != current:
                # (the same hook twice is a hook manager that rewrote its stubs over the
                # wrappers, husky's `prepare`: the copy is chained again)
                raise InputError(f"hook {loc.chained(name)} already exists and differs from {path}; "
                                 "refusing to install: keep the one that is wanted as "
                                 f"{path}, remove the other, then install again")
            plan.append((name, path, text, path))
        else:
            plan.append((name, path, text, None))
    for name, path, text, chain in plan:
        entry = record.get(name, {"name": name, "chained": None, "chainedMode": None})
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
            if chain == path:
                st = os.lstat(target)
                entry["chained"] = _fingerprint(target)
                entry["chainedMode"] = stat.S_IMODE(st.st_mode)
        tmp = path + ".hn-tmp"
        with open(tmp, "wb") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
        entry["wrapper"] = hashing.sha256(text).hexdigest()
        record[name] = entry
    loc.save(record)
    return status_lines(loc)


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


def uninstall(loc: Location) -> list[str]:
    record = loc.load()
    for name in HOOKS:
        mine = record.get(name)
        if mine is None:
            continue
        path = loc.path(name)
        chained = loc.current_chained(name) or loc.chained(name)
        if _sha(path) != mine["wrapper"] and (_replaced(path, chained, mine) or _migrated(path, mine)):
            continue  # the wrapper is gone already, or pre-commit moved it (below)
        if _sha(path) != mine["wrapper"]:
            raise InputError(f"hook {path} changed since install; refusing to uninstall")
        if mine.get("chained") is not None and mine["chained"] not in (_fingerprint(chained), _sha(chained)):
            raise InputError(f"hook {chained} changed since install; refusing to uninstall")
    for name in HOOKS:
        mine = record.pop(name, None)
        if mine is None:
            continue
        path = loc.path(name)
        chained = loc.current_chained(name)
        if _migrated(path, mine):  # pre-commit runs it as <hook>.legacy: what it chained goes there
            os.unlink(path + PRE_COMMIT_LEGACY)
            if chained is not None:
                _put_back(mine, chained, path + PRE_COMMIT_LEGACY)
            continue
        if _sha(path) != mine["wrapper"]:  # replaced by the hook it chains: drop the copy only
            if chained is not None:
                os.unlink(chained)
            continue
        os.unlink(path)
        if mine.get("chained") is not None:
            _put_back(mine, loc.current_chained(name), path)
    try:
        os.rmdir(os.path.join(loc.dir, CHAINED_DIR))  # only when empty: never anyone else's files
    except OSError:
        pass
    loc.save(record)
    return status_lines(loc)


def status_lines(loc: Location) -> list[str]:
    record = loc.load()
    lines = []
    for name in HOOKS:
        path = loc.path(name)
        mine = record.get(name)
        if mine is not None and _migrated(path, mine):
            lines.append(f"{name}: installed (pre-commit runs it as {name}{PRE_COMMIT_LEGACY})")
        elif mine is None or _sha(path) != mine["wrapper"]:
            lines.append(f"{name}: not installed")
        elif loc.current_chained(name) is not None:
            chained = os.path.relpath(loc.current_chained(name), loc.dir)
            lines.append(f"{name}: installed (chains {chained})")
        else:
            lines.append(f"{name}: installed")
    return lines


# ---------------------------------------------------------------------------------------------
# what the wrappers run


def _remotes(repo: Repo) -> set[str]:
    proc = repo.git.run(list(PRE_PUSH_QUESTIONS[0]))  # often started early (cli.main)
    return set(proc.stdout.decode("utf-8", "replace").split())


WAYS_OUT = ("to push the code without publishing memory: git config hn.prePush warn "
            "(publish in the background), or git push --no-verify (this push only)")


def run_pre_push(repo: Repo, remote: str, data: bytes = b"") -> int:
    """Verify, lint and publish the local streams that moved since ``remote`` last got them;
    the exit status per hn.prePush. Imported streams are never published; a stream whose tip the
    remote already has costs nothing (issue 11). ``data``: the hook's input (what is pushed)."""
    if os.environ.get("HN_HOOK_ACTIVE"):
        return 0
    # pre-commit's "migration mode" runs this wrapper as pre-push.legacy with this variable set;
    # inherited by git-hn's own publication push, it makes pre-commit's hook there refuse the push
    os.environ.pop("PRE_COMMIT_RUNNING_LEGACY", None)
    if remote not in _remotes(repo):
        named = _remote_of_url(repo, remote)
        if named:  # a push to a URL: Git updates no remote-tracking ref, so nothing could be gated
            # (the URL itself is never echoed: it may carry credentials)
            sys.stderr.write(f"git-hn: a push to a URL publishes no memory; that URL is remote {named}'s: "
                             f"git hn sync {named} publishes it (or push with git push {named})\n")
        return 0
    _note_push(repo, remote, data)
    from ..store import streams
    from .replication import PhaseError, background, lint, publish

    found: list[tuple[str, str]] = []  # (ref, problem): reported one line each, in ref order
    try:
        text = streams.listing_text(repo)  # one for-each-ref (started early: cli.main)
    except HnError:
        text = None
    quick = publish.moved_since_given(repo, remote, text) if text is not None else None
    if quick is not None:  # the usual case: only the few streams that moved are read
        listing, heads, given = quick
    else:
        try:
            listing = streams.list_sources(repo, text)  # a malformed ref fails it
        except HnError:
            listing = None
        if listing is None:  # name every malformed local ref, and go on with the valid ones
            listing = lint.valid_sources(repo, found)
        heads = {s.ref: s.head for s in listing if s.remote is None}
        given = publish.remote_bases(repo, remote, heads, publish.published_heads(repo, remote))
    moved = sorted(r for r, h in heads.items() if given.get(r) != h)
    publishable = []
    anchors: dict = {}
    if moved:
        findings = lint.check_moved(repo, listing, moved, given, found, anchors)
        for ref in moved:
            if ref not in findings:
                continue  # its stream did not verify: already reported
            for mid, field, detector in findings[ref]:
                found.append((ref, f"secret-shaped text in memory {mid} {field} ({detector}); "
                                   f"stream {ref} not published"))
            if not findings[ref]:
                publishable.append(ref)
    problems = [p for _r, p in sorted(found, key=lambda f: f[0])]
    for line in _held_for_good(repo, remote, {r: anchors.get(r, []) for r in publishable}, data):
        sys.stderr.write(f"git-hn: {line}\n")  # a warning: the push itself may go on
    removing = _removing_anchors(repo, remote, data)
    if removing:
        sys.stderr.write(f"git-hn: {removing}\n")
    block = repo.git.run(list(PRE_PUSH_QUESTIONS[1])).stdout.decode().strip() == "block"
    deleting = _deleting_memory(repo, remote, data)
    if deleting and block:  # refused (below)
        problems.insert(0, deleting)
    elif deleting:
        sys.stderr.write(f"git-hn: {deleting}\n")
    earlier = background.take_failure(repo, remote)
    if earlier:  # a background publication failed: said once, and its streams go again now
        sys.stderr.write(f"git-hn: the last background publication to {remote} failed: {earlier}\n")
    push_pid = _push_process()  # the git push this hook runs in (the wrapper says)
    if publishable and block:
        # what is anchored on commits the remote already has goes now; the rest waits for this
        # push to succeed (publication after it, in the background, as with warn)
        allowed, held = publish.gate(repo, remote, {r: heads[r] for r in publishable}, given, listing)
        ready = sorted(r for r in allowed if given.get(r) != allowed[r])
        try:
            publish.push(repo, remote, ready, allowed, exact=True)
        except PhaseError as exc:  # this push stops here: say how to go on (issue 14)
            problems.append(f"{exc.message}; {WAYS_OUT}")
        if held:
            background.start(repo, remote, {h.ref: heads[h.ref] for h in held}, push_pid)
    elif publishable:
        background.start(repo, remote, {r: heads[r] for r in publishable}, push_pid)
    if not problems:
        return 0
    if block and WAYS_OUT not in problems[-1]:  # this push stops: the last line says how to go on
        problems[-1] = f"{problems[-1]}; {WAYS_OUT}"
    for problem in problems:
        sys.stderr.write(f"git-hn: {problem}\n")
    return 1 if block else 0


def _remote_of_url(repo: Repo, url: str) -> str:
    """The configured remote whose URL (or push URL) ``url`` is, comparing local paths by their
    real path; "" if none."""
    proc = repo.git.run(["config", "--get-regexp", r"^remote\..*\.(push)?url$"])
    if proc.returncode != 0 or not url:
        return ""

    def same(a: str, b: str) -> bool:
        if a == b:
            return True
        local = [x[len("file://"):] if x.startswith("file://") else x for x in (a, b)]
        if any(":" in x.split("/", 1)[0] for x in local):  # scp-like or another scheme
            return False
        return os.path.realpath(local[0]) == os.path.realpath(local[1])

    for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines():
        key, _sp, value = line.partition(" ")
        name = key[len("remote."):key.rindex(".")]
        if same(url, value):
            return name
    return ""


def _held_for_good(repo: Repo, remote: str, anchors: dict, data: bytes) -> list[str]:
    """What ``git hn sync`` says of a stream held back by a discarded commit (``publish.Held``),
    for each stream about to be published whose new memories (``anchors``: ref -> (memory ID,
    anchor commit or "") above what the remote was given) wait for a commit that no push can
    carry. An anchor this push sends (a tip in the hook's input ``data``) is not asked about, so
    the usual push (a memory recorded at the commit pushed) starts no Git process here."""
    from .replication import publish

    pushed = {parts[1] for line in data.decode("ascii", "replace").splitlines()
              for parts in [line.split(" ")] if len(parts) == 4}
    doubtful = {a for links in anchors.values() for _m, a in links if a and a not in pushed}
    gone = publish.discarded(repo, doubtful) if doubtful else set()
    out = []
    for ref, links in sorted(anchors.items()):
        k = next((i for i, (_m, a) in enumerate(links) if a in gone), None)
        if k is not None:
            out.append(publish.Held(ref, links[k][0], links[k][1], len(links) - k, True).line(remote))
    return out


def _deleting_memory(repo: Repo, remote: str, data: bytes) -> str:
    """A warning when this push deletes memory refs on ``remote`` (``git push --delete
    refs/hn/...``; ``git push --mirror`` from a clone that lacks some of them) or copies this
    clone's accepted copies (``refs/hn/remotes/*``) there: memory history is append-only, and a
    teammate's deleted stream is not this clone's to restore. Git does not tell pre-push what a
    mirror push prunes, so a push that copies accepted copies (what ``--mirror`` does) asks the
    remote for its memory refs (one ``ls-remote``, only then). "" when the push touches none."""
    zero = "0" * repo.oid_hex_len
    deleted: list[str] = []
    copied = 0
    for line in data.decode("utf-8", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) != 4:
            continue
        lref, loid, rref, roid = parts
        if rref.startswith("refs/hn/") and loid == zero and roid != zero:
            deleted.append(rref)
        elif lref.startswith("refs/hn/remotes/") and loid != zero:
            copied += 1
    if copied:  # a mirror push: it also deletes every remote memory ref this clone lacks
        from ..store.git import LOCAL_LISTING
        from ..store.transport import remote_env

        there = repo.git.run(["ls-remote", "--refs", "--", remote, "refs/hn/memory/*"], env=remote_env())
        here = set(repo.git.run(list(LOCAL_LISTING)).stdout.decode("utf-8", "replace").split())
        if there.returncode == 0:
            for line in there.stdout.decode("utf-8", "replace").splitlines():
                ref = line.partition("\t")[2]
                if ref and ref not in here and ref not in deleted:
                    deleted.append(ref)
    first = min(deleted) if deleted else ""
    if not deleted and not copied:
        return ""
    what = []
    if deleted:
        n = len(deleted)
        what.append(f"deletes {n} memory {'ref' if n == 1 else 'refs'} on {remote} (first: {first})")
    if copied:
        what.append(f"copies {copied} of this clone's accepted memory refs (refs/hn/remotes/*) there")
    advice = "; push branches and tags by name instead of --mirror" if copied else ""
    return (f"this push {' and '.join(what)}: memory history is append-only, and whoever relies on "
            f"{remote}'s streams loses them{advice}")


def _removing_anchors(repo: Repo, remote: str, data: bytes) -> str:
    """A warning when this push takes off ``remote`` commits that verified memories are anchored
    on (a force-push after a rebase, a deleted branch): a memory is imported only with its anchor
    commit, so whoever imports its stream from that remote stops at it until the commit is there
    again. One line, naming the first such memory and how to keep its commit; "" otherwise."""
    from .replication import publish

    removed, old_tips = publish.removed_by_push(repo, remote, data)
    hits = publish.anchored_on(repo, removed)
    if not hits:
        return ""
    memory, commit = hits[0]
    commits = len({c for _m, c in hits})
    keep = " ".join(f"{t}:refs/heads/hn-anchor/{t[:12]}" for t in old_tips)  # (each contains what it loses)
    if commits == 1 and len(hits) == 1:
        return (f"this push takes commit {commit} off {remote}, and memory {memory} is anchored on it: whoever "
                f"imports its stream from {remote} stops there until the commit is back; to keep it there, "
                f"also git push {remote} {keep}")
    what = f"commit {commit}" if commits == 1 else f"{commits} commits"
    return (f"this push takes {what} off {remote}, and {len(hits)} memories are anchored on "
            f"{'it' if commits == 1 else 'them'} (first: memory {memory}): whoever imports their streams from "
            f"{remote} stops at the first of them until the commits are back; to keep them there, also "
            f"git push {remote} {keep}")


def _note_push(repo: Repo, remote: str, data: bytes) -> None:
    """Tell the ``reference-transaction`` wrapper which update is this push's own: when it
    succeeds, Git moves ``refs/remotes/<remote>/*`` to the commits pushed, in transactions of
    this same ``git push`` process, and such an update brings nothing to import (this hook
    publishes). The note (``hn/replication/pushing/<name>``, named as the remote's selection
    file) holds the push's process ID and the pushed object IDs; the wrapper skips a transaction
    only when its parent is that process and every remote-tracking ref it moves goes to one of
    them, so a note that outlives its push matches nothing else. Only for a remote with a saved
    selection (without one the wrapper imports nothing anyway); best effort."""
    from ..core.grammar import is_oid
    from ..store import private
    from ..store import replication as rstate

    push_pid = _push_process()
    if not push_pid.isdigit() or not os.path.isfile(rstate.selection_path(repo, remote)):
        return
    oids = set()
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) != 4 or not is_oid(parts[1]):
            return  # not Git's pre-push input: no note
        oids.add(parts[1])
    try:
        private.write_private(repo.hn_dir, rstate.pushing_path(repo, remote),
                              f"{push_pid}\n{' '.join(sorted(oids))}\n".encode("ascii"), derived=True)
    except (HnError, OSError):
        pass


def _push_process() -> str:
    """The ``git push`` this pre-push hook runs in (``HN_PUSH_PID``, the wrapper's parent, or
    the Git above a hook manager that ran it): the background publisher waits for it."""
    from ..store.process import git_above

    return git_above(os.environ.get("HN_PUSH_PID", ""))


def run_background_publication(repo: Repo, remote: str, data: bytes, push_pid: str = "") -> int:
    """The background half of ``pre-push`` (``git hn hooks run publish REMOTE [PID]``)."""
    from .replication import background

    background.publish_given(repo, remote, data, push_pid)
    return 0


def run_post_rewrite(repo: Repo, data: bytes, command: str = "") -> int:
    """After ``git commit --amend`` or ``git rebase``: re-anchor the active identity's memories
    that were never published and name a rewritten commit (``store.reanchor``). Never fails
    the user's command; what it did is one line per stream.

    An ``amend`` while a rebase is in progress (a squash or fixup step, an amend at an ``edit``
    stop, or one an ``--exec`` command makes) is left to the rebase: its own ``post-rewrite`` at
    the end maps the commits it replaced, and if it is aborted nothing was rewritten
    (re-anchoring at the step left memories on a commit the abort discarded). Such an amend's
    mapping is kept (``<gitdir>/hn/rebase-amends``) and followed from the rebase's: Git's final
    list names the commit a step made, not the one an ``--exec`` amend then made of it."""
    from ..store.reanchor import parse_mapping

    amends = os.path.join(repo.worktree_hn_dir, "rebase-amends")
    if command == "amend" and any(os.path.isdir(os.path.join(repo.git_dir, d))
                                  for d in ("rebase-merge", "rebase-apply")):
        _keep_amends(repo, amends, data)
        return 0
    mapping = parse_mapping(data, repo.oid_hex_len)
    if command == "rebase":  # the steps' amends too (a commit the rebase kept, then amended), followed
        later = parse_mapping(_take(repo, amends), repo.oid_hex_len)
        mapping = {**later, **mapping}
        for old, new in mapping.items():
            seen = set()
            while new in later and new not in seen:
                seen.add(new)
                new = later[new]
            mapping[old] = new
    from ..store import identity as identmod
    from . import reanchor

    try:
        ident = identmod.load_active(repo)
    except HnError:
        return 0  # no identity here: no memory of ours to re-anchor
    try:
        done = reanchor.rewrite(repo, ident, mapping)
    except HnError as exc:
        sys.stderr.write(f"git-hn: memories on rewritten commits were not re-anchored: {exc.message}\n")
        return 0
    for r in done:
        sys.stderr.write(f"git-hn: {reanchor.stream_line(r, 'on the rewritten commits')}\n")
    return 0


def _keep_amends(repo: Repo, path: str, data: bytes) -> None:
    from ..store import private

    try:
        before = private.read_private(repo.worktree_hn_dir, path, 1 << 20) or b""
        private.write_private(repo.worktree_hn_dir, path, (before + data)[-(1 << 20):], derived=True)
    except (HnError, OSError):
        pass  # best effort: the rebase's own list still moves what it names


def _take(repo: Repo, path: str) -> bytes:
    from ..store import private

    try:
        data = private.read_private(repo.worktree_hn_dir, path, 1 << 20) or b""
        os.unlink(path)
    except (HnError, OSError):
        return b""
    return data


def run_reference_transaction(repo: Repo, state: str, data: bytes) -> int:
    """After a committed transaction: import for every remote with a saved selection whose
    remote-tracking refs it gave a value (a deletion, as ``git fetch --prune`` makes, brings
    nothing to import). Never fails the user's command."""
    if state != "committed":
        return 0
    from ..store import replication
    from .replication import sync

    touched = set()
    for line in data.decode("utf-8", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) == 3 and parts[2].startswith("refs/remotes/") and parts[1].strip("0"):
            rest = parts[2][len("refs/remotes/"):]
            if "/" in rest:
                touched.add(rest.split("/", 1)[0])
    from ..store.process import hook_caller

    fetch = hook_caller() if touched else None
    for remote in sorted(touched):
        if not os.path.exists(replication.selection_path(repo, remote)):
            continue
        if fetch is not None and replication.failed_during(repo, remote, fetch):
            continue  # this fetch's first ref already failed the import, and said so
        try:
            # by the advertisement even for streams known by name: when it finds nothing to
            # import (the usual fetch) it leaves the quiet record, and the hooked fetches after
            # it start no git-hn (``hookscripts``); a fetch by name would leave none
            result = sync(repo, remote, publish=False, by_name=False, wait=0)  # never holds up Git
            failed = bool(result.exit_message())
        except ConflictError as exc:  # another sync with that remote is running
            sys.stderr.write(f"git-hn: {exc.message}\n")
            continue
        except HnError:
            failed = True
        if failed:
            sys.stderr.write(f"git-hn: memory import from {remote} failed; run git hn sync {remote}\n")
            if fetch is not None:
                replication.note_failed(repo, remote, fetch)
    return 0
