"""Object resolver for projection and policy loading (CONTRACT §5.1, §5.5, §6.1, §10.0).

Owns: answering "does this object exist and what is it", literal tree lookups and raw parent
headers, all through the repository's one ``cat-file --batch`` process, memoized per run. Trusts:
Git's object store; nothing else. Tree lookups walk raw tree objects component by component, so a
path is always a literal, repository-relative byte string (never pathspec magic, never relative to
the current directory), and a gitlink is reported as a gitlink even though its commit is absent.

An OID whose length does not match the repository's object format is a probe error, never
"missing" (§5.5): asking Git would wrongly answer ``missing``.
"""

from __future__ import annotations


from ..core.chain import find_entry, parse_commit
from ..core.gostr import is_lower_hex
from ..core.policy import Policy, load
from ..errors import PolicyError, PolicyInvalid, ValidationError
from .repo import Repo

_MODE_TYPE = {b"40000": "tree", b"160000": "commit"}


class Resolver:
    def __init__(self, repo: Repo, pending=None):
        self.repo = repo
        # objects pending replication are absent to every probe (§9.17)
        self.pending = pending if pending is not None else repo.pending().denied
        self._types: dict[str, str | None] = {}
        self._objects: dict[str, tuple[str, bytes] | None] = {}
        self._parents: dict[str, tuple | None] = {}
        self._reachable: dict[str, set | None] = {}

    def _check(self, oid: str) -> None:
        from ..core.projection import ProbeError

        if not is_lower_hex(oid, self.repo.oid_hex_len):
            raise ProbeError(oid)

    def object_type(self, oid: str) -> str | None:
        self._check(oid)
        if oid in self.pending:
            return None
        if oid not in self._types:
            info = self.repo.git.object_info(oid)
            self._types[oid] = None if info is None else info[1]
        return self._types[oid]

    def prefetch_types(self, oids) -> None:
        """Probe many objects with one pipelined batch (no per-memory process)."""
        todo = sorted({o for o in oids if o not in self._types and is_lower_hex(o, self.repo.oid_hex_len)})
        for oid, info in zip(todo, self.repo.git.infos_bulk(todo)):
            self._types[oid] = None if info is None else info[1]

    def _object(self, oid: str) -> tuple[str, bytes] | None:
        if oid in self.pending:
            return None
        if oid not in self._objects:
            self._objects[oid] = self.repo.git.read_object(oid)
        return self._objects[oid]

    def parents(self, commit: str) -> tuple | None:
        self._check(commit)
        if commit not in self._parents:
            obj = self._object(commit)
            if obj is None or obj[0] != "commit":
                self._parents[commit] = None
            else:
                try:
                    self._parents[commit] = parse_commit(commit, obj[1])[1]
                except ValidationError:
                    self._parents[commit] = None
        return self._parents[commit]

    def entry(self, commit: str, path: str) -> tuple[bytes, str, str] | None:
        """(mode, type, oid) of the literal ``path`` in ``commit``'s tree, or None."""
        from ..core.projection import ProbeError

        self._check(commit)
        obj = self._object(commit)
        if obj is None or obj[0] != "commit":
            raise ProbeError(commit)
        tree = parse_commit(commit, obj[1])[0]
        parts = path.encode("utf-8").split(b"/")
        for i, name in enumerate(parts):
            tobj = self._object(tree)
            if tobj is None or tobj[0] != "tree":
                raise ProbeError(tree)
            try:
                found = find_entry(tobj[1], name, self.repo.oid_hex_len // 2)
            except ValueError:
                raise ProbeError(tree) from None
            if found is None:
                return None
            mode, _name, oid = found
            kind = _MODE_TYPE.get(mode, "blob")
            if i == len(parts) - 1:
                return mode, kind, oid
            if kind != "tree":
                return None
            tree = oid
        return None  # pragma: no cover - loop always returns

    def missing_tree(self, commit: str, path: str) -> str | None:
        """The first tree on the literal ``path`` of ``commit`` (its root tree, then each folder)
        that this repository lacks, or None: all of them are here, or the walk ends before one is
        missing (no such commit or path, a file where a folder is, a malformed object: what
        ``entry`` judges). A treeless partial clone (``git clone --filter=tree:0``) has the
        commits of its branches but not their trees; a missing tree is not an invalid anchor."""
        self._check(commit)
        obj = self._object(commit)
        if obj is None or obj[0] != "commit":
            return None
        try:
            tree = parse_commit(commit, obj[1])[0]
        except ValidationError:
            return None
        if not is_lower_hex(tree, self.repo.oid_hex_len):
            return None
        for name in path.encode("utf-8").split(b"/"):
            tobj = self._object(tree)
            if tobj is None:
                return None if tree in self.pending else tree
            if tobj[0] != "tree":
                return None
            try:
                found = find_entry(tobj[1], name, self.repo.oid_hex_len // 2)
            except ValueError:
                return None
            if found is None or _MODE_TYPE.get(found[0], "blob") != "tree":
                return None
            tree = found[2]
        return None

    def tree_entry(self, commit: str, path: str) -> tuple[str, str] | None:
        found = self.entry(commit, path)
        return None if found is None else (found[1], found[2])

    def reachable(self, start: str) -> set | None:
        """Every commit reachable from ``start``, from one ``git rev-list`` (§5.4 ancestry), when
        that is provably what the raw-header walk finds: no grafts, no shallow boundary (replace
        refs and the commit-graph are off), no pending object in the history, and Git read
        every commit. Otherwise None, and the caller walks raw headers itself."""
        import os

        if not is_lower_hex(start, self.repo.oid_hex_len):
            return None
        common = self.repo.common_dir
        if any(os.path.exists(os.path.join(common, p)) for p in ("info/grafts", "shallow")):
            return None
        if start in self._reachable:
            return self._reachable[start]
        status, out = self.repo.git.stdout_only(["-c", "core.commitGraph=false", "rev-list",
                                                 "--end-of-options", start, "--"])
        commits = set(out.decode("ascii", "replace").split()) if status == 0 else None
        if commits is not None and (start not in commits
                                    or (self.pending and not commits.isdisjoint(self.pending))):
            commits = None
        self._reachable[start] = commits
        return commits

    def is_ancestor(self, anchor: str, start: str) -> bool:
        """Positive-only shortcut (§11(d)); never used when grafts could change ancestry."""
        return False

    def read_blob(self, oid: str) -> bytes | None:
        obj = self._object(oid)
        return obj[1] if obj is not None and obj[0] == "blob" else None


def load_policy(repo: Repo, resolver: Resolver, commit: str) -> Policy:
    """The policy at the exact query commit (CONTRACT §6.1, §13.16); "" means no commit."""
    if not commit:
        return load(None)
    from ..core.projection import ProbeError

    from . import pending

    try:
        pending.refuse(repo, commit)  # (a live sync's acceptance is waited for)
    except ValidationError as exc:
        raise PolicyError(exc.message) from None

    try:
        found = resolver.entry(commit, ".hn/policy.json")
    except ProbeError:
        raise PolicyError(f"policy at commit {commit} is unavailable") from None
    if found is None:
        return load(None)
    mode, kind, oid = found
    if kind != "blob" or mode not in (b"100644", b"100755"):
        raise _invalid("policy .hn/policy.json is not a regular file", commit)
    info = repo.git.object_info(oid)
    if info is None:
        raise PolicyError(f"policy at commit {commit} is unavailable")
    from ..core.limits import LIMITS

    if info[2] > LIMITS.max_policy:
        raise _invalid(f"policy exceeds {LIMITS.max_policy} bytes", commit)
    data = resolver.read_blob(oid)
    if data is None:
        raise PolicyError(f"policy at commit {commit} is unavailable")
    try:
        return load(data)
    except PolicyError as exc:
        raise _invalid(exc.message, commit) from None


def where(cause: str, commit: str) -> str:
    """Where an invalid committed policy is and what to do (after §6.2's text)."""
    return f"{cause}; in .hn/policy.json of commit {commit[:12]}: fix the file and commit it"


def _invalid(cause: str, commit: str) -> PolicyInvalid:
    """An invalid committed policy's error: every command that needs the policy at that commit
    fails until it is fixed (§6.1), so the message also says what still reads memory meanwhile
    (a newcomer trial found no way around it for log and show)."""
    return PolicyInvalid(f"{where(cause, commit)}; until then git hn memory log and show (without --json) "
                         "read memory, their trust shown as policy-invalid", cause)
