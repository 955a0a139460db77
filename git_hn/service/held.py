"""Which ref holds a commit: where a memory that does not apply at the query commit is anchored.

For hints only (the brief's newer handoffs, recall's left-out memories, ``show``): never a trust
or applicability decision, which the projection makes from raw parent headers. Trusts nothing it
is given beyond a commit ID already checked as an OID.
"""

from __future__ import annotations

from ..store.repo import Repo

# (pattern, what name-rev writes before a name of it): branches, then remote-tracking refs, then tags
_KINDS = (("refs/heads/*", ""), ("refs/remotes/*", "remotes/"), ("refs/tags/*", "tags/"))


def _keeps(repo: Repo) -> tuple[str, list[str]]:
    """(the keep branches' name pattern, each remote's copies of them): ``hn-anchor/*`` and
    ``<remote>/hn-anchor/*``, from ``atrisk.KEEP_PREFIX`` (what the reminder's command creates).
    One pattern per remote, never ``*/hn-anchor/*``: Git matches ``--exclude`` with ``*`` across
    ``/``, so that one also left out a teammate's ``origin/wip/hn-anchor/x`` (a review)."""
    from .replication.atrisk import KEEP_PREFIX

    name = KEEP_PREFIX[len("refs/heads/"):]
    return f"{name}*", [f"{remote}/{name}*" for remote in sorted(repo.remote_names())]


def off_branches(repo: Repo, commits, kept: dict[str, str] | None = None) -> set[str]:
    """Of ``commits``, those no branch, tag or remote-tracking ref here holds, nor HEAD
    (``gate.discarded``, one ``rev-list``), counting none of git-hn's keep branches: a local
    ``hn-anchor/*`` branch or a remote's ``<remote>/hn-anchor/*``. Such a ref exists only to keep an
    anchor commit on the remote for its importers (the reminder's ``git push REMOTE
    C:refs/heads/hn-anchor/…``), not an open branch where the memory still applies: a team trial
    followed the reminder after a squash merge, and recall and the brief on main then said
    nothing of the branch's decisions (recall offered ``recall --at origin/hn-anchor/…``). Both
    spellings of the branch pattern: Git matches ``--exclude`` against the short name before
    ``--branches`` (2.39), and a later Git may match the full one. ``kept``, when given, gets for
    each commit returned that a keep branch holds the short name of one (the first by name),
    from the same one walk (``_walk_keeping``): a hint then says so rather than "no branch, tag or
    remote-tracking ref here" (a review)."""
    from .replication.gate import discarded

    name, copies = _keeps(repo)
    refs = (f"--exclude={name}", f"--exclude=refs/heads/{name}", "--branches", "--tags",
            *(f"--exclude={c}" for c in copies), "--remotes")
    if kept is None:
        return discarded(repo, set(commits), refs)
    return _walk_keeping(repo, set(commits), refs, kept)


def _walk_keeping(repo: Repo, commits: set[str], refs: tuple[str, ...], kept: dict[str, str]) -> set[str]:
    """``gate.discarded``'s one walk (from ``commits``, not from ``refs`` nor HEAD), started from
    the keep branches too, and printing each commit's parents and the keep branches that point
    at it: a ``git log``, whose ``--decorate-refs`` reads only those refs (``rev-list``'s ``%D``
    reads every ref's object: +0.23 s at 20,000 memory refs). A keep branch reaches a commit of
    ``commits`` that no other ref holds through such commits only (one between that another ref
    held would hold it too), so the walk's own output names the keep branch: no process more.
    Fills ``kept``; the commits no other ref holds (or that are not here), none named when Git
    cannot answer."""
    from ..core.grammar import is_oid
    from ..core.lines import lines_of
    from .replication.atrisk import KEEP_PREFIX

    ordered = sorted(commits)
    present = [c for c, info in zip(ordered, repo.git.infos_bulk(ordered)) if info is not None and info[1] == "commit"]
    absent = set(ordered) - set(present)
    if not present:
        return absent
    name = KEEP_PREFIX[len("refs/heads/"):]  # hn-anchor/
    remotes = sorted(repo.remote_names())
    head = repo.head_commit()
    walk = repo.git.run(["log", "--stdin", "--no-show-signature", "--no-color", "--format=%H %P%x00%D",
                         f"--decorate-refs={KEEP_PREFIX.rstrip('/')}",
                         *(f"--decorate-refs=refs/remotes/{r}/{name.rstrip('/')}" for r in remotes),
                         f"--branches={name}*", *(f"--remotes={r}/{name}*" for r in remotes), "--not", *refs],
                        input="".join(f"{c}\n" for c in present).encode() + (f"^{head}\n".encode() if head else b""))
    if walk.returncode != 0:
        return absent
    parents: dict[str, list[str]] = {}
    tips: dict[str, str] = {}  # keep branch tip -> the first keep branch's short name
    for line in lines_of(walk.stdout.decode("utf-8", "surrogateescape")):
        ids, _nul, names = line.partition("\0")
        commit, *up = ids.split(" ")
        if not is_oid(commit):
            continue
        parents[commit] = up
        keeps = sorted(n for n in (d.split(" -> ")[-1] for d in names.split(", ")) if n.startswith(name) or
                       any(n.startswith(f"{r}/{name}") for r in remotes))
        if keeps:
            tips[commit] = keeps[0]
    off = {c for c in present if c in parents}
    seen: set[str] = set()
    for tip, ref in sorted(tips.items(), key=lambda t: (t[1], t[0])):  # (the first name first)
        todo = [tip]
        while todo:
            commit = todo.pop()
            if commit in seen or commit not in parents:
                continue
            seen.add(commit)
            if commit in off:
                kept.setdefault(commit, ref)
            todo.extend(parents[commit])
    return absent | off


def holding_ref(repo: Repo, commit: str, held: bool = False) -> str:
    """``holding_refs`` for one commit."""
    return holding_refs(repo, [commit], held).get(commit, "")


def holding_refs(repo: Repo, commits, held: bool = False, kept: dict[str, str] | None = None,
                 also=()) -> dict[str, str]:
    """For each of ``commits`` (present commit IDs) that a ref's history holds, the short name of
    such a ref: a branch, else a remote-tracking ref (a symbolic ``…/HEAD`` is skipped), else a
    tag; where a memory that does not apply here is anchored, for a hint (an agent trial: "a
    squash merge or a rebase? … supersede --at HEAD" copied a decision of an open branch onto
    main). ``git name-rev`` names them all in one walk from the tips, one process for each kind
    of ref while some commit is not named yet (a measurement: ``for-each-ref --contains``, one
    process per commit, took 60 to 100 ms with 2,000 tags and 500 branches, and 1.8 s for an old
    commit of a 30,000-commit history; a pass takes 10 to 30 ms). Unless the caller knows each is
    ``held`` (by a ref or HEAD), the commits no ref holds are set aside first (``gate.discarded``,
    one ``rev-list``, about 10 ms), so that a branch deleted after its squash merge, the usual
    case, costs no walk of every ref's history. Like name-rev, a clock more than a day off may
    leave a commit unnamed (then it reads as held by no ref); so does a ref named ``undefined``
    whose tip is the commit itself. git-hn's keep branches (``off_branches``) hold nothing here;
    ``kept``: ``off_branches``' (not filled when ``held``). ``also``: commits named too by the
    processes ``commits`` need, never one more for them (f177: the anchors of a brief's count of
    memories not merged here, on a handoff's ref or not)."""
    todo = sorted(set(commits))
    extra = sorted(set(also) - set(todo))
    if todo and not held:
        gone = off_branches(repo, todo + extra, kept)
        todo, extra = [c for c in todo if c not in gone], [c for c in extra if c not in gone]
    found: dict[str, str] = {}
    name, copies = _keeps(repo)
    keeps = [f"--exclude=refs/heads/{name}", *(f"--exclude=refs/remotes/{c}" for c in copies)]
    for pattern, prefix in _KINDS:
        if not todo:
            break
        skip = ["--exclude=refs/remotes/*/HEAD"] if prefix == "remotes/" else []
        proc = repo.git.run(["name-rev", f"--refs={pattern}", *keeps, *skip, *todo, *extra])
        for line in proc.stdout.decode("utf-8", "replace").splitlines() if proc.returncode == 0 else ():
            commit, _sp, name = line.partition(" ")
            ref = name.split("~", 1)[0].split("^", 1)[0]  # (neither is allowed in a ref name)
            if (commit in todo or commit in extra) and ref and ref != "undefined" and ref.startswith(prefix):
                found[commit] = ref[len(prefix):]
        todo, extra = [c for c in todo if c not in found], [c for c in extra if c not in found]
    return found


def holds_all(repo: Repo, ref: str, commits) -> bool:
    """Whether the history of ``ref`` (a short name ``holding_refs`` gave, ``HEAD`` or a commit)
    holds every one of ``commits`` (present commit IDs): one ``rev-list`` of what they reach and
    it does not, stopped at the first such commit; False when Git cannot answer. So recall's hint
    names one ref plainly when it holds all the memories left out, not "refs ... such as" it
    (f175, a newcomer trial)."""
    lines = "".join(f"{c}\n" for c in sorted(set(commits))) + f"^{ref}\n"
    proc = repo.git.run(["rev-list", "--max-count=1", "--stdin"], input=lines.encode("utf-8", "surrogateescape"))
    return proc.returncode == 0 and not proc.stdout.strip()
