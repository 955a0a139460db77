"""Whether a memory just signed will wait for its anchor commit before it is published (a
team trial; CONTRACT §9.13 and ``replication.gate``).

A stream is published only up to the memory before the first one whose anchor commit is on no
branch of the remote: one memory anchored on a local feature branch holds back every later
memory of its stream ("3 memories wait until commit … is on origin"), and the author heard of it
only at the next sync. ``waits_hint`` says so when the memory is signed, as one line.

It runs after every write, so it is kept cheap: the remote it names is the one ``git hn sync``
publishes to by default (``origin``, else the first configured remote), skipped when its
``remote.<name>.hnPublish`` is false; three questions started together (the remotes, that
remote's tracking refs, the ``hnPublish`` settings and fetch refspecs: ``pruned_by_fetch`` warns
from those when a refspec writes the memory refs, as a mirror clone's does), the last two only
once ``git remote`` names one when the repository's configuration names none; nothing more when
the anchor is one of that remote's tips; else one ``rev-list`` (bounded in time: the hint is advice) and, only when the hint
is given and the anchor is not HEAD, one ``merge-base --is-ancestor`` to name the current branch;
when that branch has a remote-tracking branch the walk does not show under HEAD, one more to tell
whether it is behind (f170: the push the hint named is then refused; ``_behind``).
The earlier memories of the stream that remote was not given are read from the verified state
and the publication journal (no Git process); their anchors join that one ``rev-list``, and when
the first of them that is not on the remote holds this one back (a team trial: a decision on main
waited behind memories of an unpushed feature branch, and the hint named main), the hint names
that commit and, with one ``name-rev`` of the local branches, a branch that holds it.
No local branch is listed or searched. Trusts the remote-tracking refs (a publication reads the
same ones, of the same remote: ``gate._not_on_remote``); never contacts a remote. Author text (a
branch name) is shell-quoted inside the command it names.
"""

from __future__ import annotations

from ..core.lines import lines_of
from ..core.remotes import refspec_star
from ..store.git import PRE_PUSH_QUESTIONS, config_false
from ..store.repo import Repo

# the longest a walk may take (no commit-graph, a deep anchor: 60,000 commits ~175 ms); not less:
# on a loaded 2-core machine a Git process's start alone can take tens of milliseconds, and a hint
# that goes silent under load would make its tests, and the advice, depend on the hour
WALK_SECONDS = 0.5
TRACKING = ("for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/")
# (the fetch refspecs too: ``pruned_by_fetch`` reads them from the same answer, no process more;
# a record, handoff or supersede starts these once its ref moved: ``memory.write_hints``)
# (and ``core.hooksPath``: where Git runs hooks, so the hint knows whether a push publishes the
# memory with no process more: ``_push_unhooked``, f176)
PUBLISH = ("config", "--get-regexp", r"^(core\.hookspath|remote\..*\.(hnpublish|fetch|mirror))$")


def _named_remote(repo: Repo, publish_text: str) -> str | None:
    """The remote ``git hn sync`` publishes to by default: ``origin`` when configured, else the
    first; None without remotes or when publication to it is off (``hnPublish`` false)."""
    names = repo.remote_names()
    if not names:
        return None
    remote = "origin" if "origin" in names else sorted(names)[0]
    key = f"remote.{remote}.hnpublish".lower()
    for line in lines_of(publish_text):
        name, _sp, value = line.partition(" ")
        if name.lower() == key and config_false(value if _sp else None):
            return None
    return remote


def _tips(repo: Repo, remote: str, listing: str) -> list[str]:
    """The tips of ``remote``'s tracking refs (not another remote's nested under its name)."""
    prefix = f"refs/remotes/{remote}/"
    others = tuple(f"refs/remotes/{n}/" for n in repo.remote_names() if n.startswith(remote + "/"))
    tips = set()
    for line in lines_of(listing):
        oid, _sp, ref = line.partition(" ")
        if ref.startswith(prefix) and not ref.startswith(others) and not ref.endswith("/HEAD"):
            tips.add(oid)
    return sorted(tips)


def _current_branch(repo: Repo, anchor: str) -> str:
    """The current branch when it contains ``anchor`` (one ``merge-base --is-ancestor`` unless
    the anchor is HEAD); "" otherwise, or when Git could not answer."""
    proc = repo.git.run(["symbolic-ref", "--short", "-q", "HEAD"])
    branch = proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""
    if not branch or repo.head_commit() == anchor:
        return branch
    from ..errors import HnError

    try:
        held = repo.git.run(["merge-base", "--is-ancestor", anchor, "HEAD"], timeout=WALK_SECONDS)
    except HnError:  # (no answer in time: the branch is not named)
        return ""
    return branch if held.returncode == 0 else ""


def _earlier(repo: Repo, remote: str, env, commit: str) -> list[tuple[str, str]] | None:
    """(memory ID, anchor commit) of each memory of ``env``'s stream before the one at ``commit``
    that ``remote`` was not given yet (above the head publication last recorded for it, else from
    the root), root first; memories without an anchor are left out. From the verified state the
    append just wrote and the publication journal: no Git process. None when the state cannot
    say (it is not at ``commit``)."""
    from ..core.grammar import local_ref
    from ..errors import HnError
    from ..store import statedb
    from ..store.statedb import sqlite3
    from .replication.given_record import published_heads

    ref = local_ref(env.actor, env.stream)
    try:
        with statedb.locked(repo, exclusive=False, wait=0.5):
            conn = statedb.open_sealed(repo, readonly=True)
            if conn is None:
                return None
            try:
                rows = conn.execute(
                    'SELECT c."commit", c.id, a.anchor FROM chain c JOIN sources s ON s.sid = c.sid '
                    "LEFT JOIN rows r ON r.id = c.id LEFT JOIN akeys a ON a.akey = r.akey "
                    "WHERE s.ref = ? ORDER BY c.seq", (ref,)).fetchall()
            finally:
                conn.close()
    except (HnError, OSError, sqlite3.Error):
        return None
    commits = [row[0] for row in rows]
    if commit not in commits:
        return None
    base = published_heads(repo, remote).get(ref, "")
    start = commits.index(base) + 1 if base in commits else 0
    return [(mid, anchor) for _c, mid, anchor in rows[start:commits.index(commit)] if anchor]


def _missing(repo: Repo, anchors: list[str], tips: list[str],
             cited: list[str] = (), graph: dict | None = None) -> tuple[set[str], set[str]] | None:
    """Of ``anchors`` and ``cited`` (``git:`` evidence commits), those no tip in ``tips`` reaches,
    and of those cited, the ones a missing anchor carries (its push does: no warning): an anchor
    cited itself, without a walk, and one a missing anchor reaches. One ``rev-list``, bounded in
    time, only when there are tips (``--parents`` only for a cited commit that is no anchor: one
    no tip reaches is reached from an anchor only through commits no tip reaches, all in its
    answer; ``graph``, when given, gets that answer's commits and their parents: ``_behind`` reads
    it). None when Git could not answer in time (nothing is said then). With no tips every
    one is missing and no walk is made (a review: the whole history walked, past its bound in a
    long one, and the timeout said the anchor cited was on no branch): a cited commit that is no
    anchor is then warned of, as before any was counted carried."""
    from ..errors import HnError

    todo = sorted((set(anchors) | set(cited)) - set(tips))
    direct = set(cited) & set(anchors)
    far = set(cited) - direct
    if not todo or not tips:
        return set(todo), direct
    argv = ["rev-list", "--parents", "--stdin"] if far or graph is not None else ["rev-list", "--stdin"]
    try:
        walk = repo.git.run(argv, timeout=WALK_SECONDS,
                            input=("".join(f"{a}\n" for a in todo) + "".join(f"^{t}\n" for t in tips)).encode())
    except HnError:  # (no answer in time)
        return None
    if walk.returncode != 0:
        return None
    parents = {line.split()[0]: line.split()[1:] for line in lines_of(walk.stdout.decode("ascii", "replace"))}
    missing = set(todo) & set(parents)
    if graph is not None:
        graph.update(parents)
    return missing, direct | _carried(parents, missing & set(anchors), missing & far)


def _carried(parents: dict[str, list[str]], anchors: set[str], cited: set[str]) -> set[str]:
    """Of ``cited``, those reachable from ``anchors`` through ``parents`` (the walk's graph)."""
    seen, todo = set(anchors), list(anchors)
    while todo and not cited <= seen:
        for parent in parents.get(todo.pop(), ()):
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return cited & seen


def _branch_of(repo: Repo, commit: str) -> str:
    """``branches_of`` for one commit; "" when no local branch holds it."""
    return branches_of(repo, [commit]).get(commit, "")


def branches_of(repo: Repo, commits) -> dict[str, str]:
    """commit -> a local branch (not a keep branch, ``hn-anchor/*``) whose history holds it, for
    each of ``commits`` (commit IDs) one holds: one ``name-rev`` for them all, bounded in time
    (the record's hint for an earlier memory's anchor, and ``gate.named_branches`` for sync's and
    the pre-push hook's lines); none named when Git could not answer."""
    from ..errors import HnError

    todo = sorted(set(commits))
    if not todo:
        return {}
    try:
        proc = repo.git.run(["name-rev", "--refs=refs/heads/*", "--exclude=refs/heads/hn-anchor/*", *todo],
                            timeout=WALK_SECONDS)
    except HnError:
        return {}
    found = {}
    for line in lines_of(proc.stdout.decode("utf-8", "surrogateescape")) if proc.returncode == 0 else ():
        commit, _sp, name = line.partition(" ")
        name = name.split("~", 1)[0].split("^", 1)[0]  # (neither is allowed in a ref name)
        if commit in todo and name not in ("", "undefined"):
            found[commit] = name
    return found


def waits_hint(repo: Repo, result, warnings: list | None = None, evidence: list | None = None,
               again: list | None = None) -> str | None:
    """After a record, handoff or supersede was signed (not a replay): one line when its
    publication to the named remote waits for a commit that is on none of that remote's tracking
    refs: the anchor of the earliest memory of its stream that remote was not given yet and whose
    anchor is not there (a stream publishes in order: a team trial pushed main as this hint said,
    and the memory still waited for an earlier one anchored on an unpushed feature branch), else
    its own anchor. None otherwise (no remote, publication to it off, every such anchor on one of
    its tracking refs, or Git could not answer in time: the hint is advice, never an error).
    ``warnings`` gets ``pruned_by_fetch``'s line, when there is one; ``evidence`` one when a
    ``git:`` evidence commit is on none of the remote's tracking refs (``unpushed_evidence``: the
    commits join the anchors' one ``rev-list``, no process more). ``again`` gets the shorter form of
    the line, for a write that said it in full lately (``cli.advice``); the line for an earlier
    memory's anchor (``_held_by_earlier``) is known by its words whatever its count."""
    env = result.envelope
    if env.record is None or getattr(result, "replayed", False):
        return None
    anchor = env.record.anchor.commit
    git = repo.git
    known = getattr(repo, "_remote_names", None) is not None  # (asked already: not again)
    if not known and repo.may_have_remotes():  # (the three together: a write started them already)
        for question in (PRE_PUSH_QUESTIONS[0], TRACKING, PUBLISH):
            git.ask_early(question)
    if not repo.remote_names():
        return None  # (no remote, so no remote.<name>.* setting either: no refspec to warn of)
    for question in (TRACKING, PUBLISH):
        git.ask_early(question)
    listing = git.run(list(TRACKING))
    publish = git.run(list(PUBLISH))
    if warnings is not None and publish.returncode == 0:
        risk = pruned_by_fetch(publish.stdout.decode("utf-8", "surrogateescape"))
        if risk:
            warnings.append(risk)
    remote = _named_remote(repo, publish.stdout.decode("utf-8", "surrogateescape"))
    if remote is None or listing.returncode != 0 or _mirrors(publish.stdout.decode("utf-8", "surrogateescape"), remote):
        return None
    tracked = _maps_branches(publish.stdout.decode("utf-8", "surrogateescape"), remote)
    tips = _tips(repo, remote, listing.stdout.decode("utf-8", "surrogateescape"))
    earlier = _earlier(repo, remote, env, result.commit) or []
    cited = _evidence_commits(repo, env.record.evidence) if evidence is not None else []
    graph: dict[str, list[str]] = {}  # (the walk's commits and parents: ``_behind``)
    walked = _missing(repo, [a for _m, a in earlier] + [anchor], tips, cited, graph)
    if walked is None:
        return None
    missing, carried = walked
    # (a cited commit a waited-for anchor reaches is published with it: the hint's own advice,
    # ``--evidence git:<the --at commit>``, was warned of as on no branch)
    unpushed = [c for c in cited if c in missing and c not in carried]
    if unpushed:
        evidence.append(unpushed_evidence(remote, unpushed, tracked))
    first = next((i for i, (_m, a) in enumerate(earlier) if a in missing), None)
    if first is not None and earlier[first][1] != anchor:
        return _held_by_earlier(repo, env, remote, earlier[first], len(earlier) - first + 1, tracked, again,
                                publish.stdout.decode("utf-8", "surrogateescape"))
    if anchor not in missing:
        return None
    answers = (publish.stdout.decode("utf-8", "surrogateescape"), listing.stdout.decode("utf-8", "surrogateescape"),
               graph)
    return _held_by_own(repo, env, remote, anchor, tracked, again, answers)


def _evidence_commits(repo: Repo, evidence) -> list[str]:
    """The commits among the ``git:`` items of ``evidence``: one question to the object reader
    (``record`` asked it the same just before: ``memory.absent_git``); none without such items."""
    oids = sorted({e[4:] for e in evidence or () if e.startswith("git:") and len(e) - 4 == repo.oid_hex_len})
    if not oids:
        return []
    return [oid for oid, info in zip(oids, repo.git.infos_bulk(oids)) if info is not None and info[1] == "commit"]


def unpushed_evidence(remote: str, commits: list[str], tracked: bool = True) -> str:
    """The warning for ``git:`` evidence commits on none of ``remote``'s tracking refs that no
    anchor the publication waits for reaches: §9.9 makes each an ``evidence-git`` dependency that
    stops every importing clone lacking it at this memory (and at every later one of the stream),
    while the publication waits only for anchors. A branch that contains it, not "it": a commit
    a ``git reset`` left on no local branch is pushed by no ``git push``; ``git fetch`` when the
    tracking refs may be stale, as the anchor hint says (``tracked``: a refspec maps the
    remote's branches)."""
    from shlex import quote

    named = ", ".join(c[:12] for c in commits)
    one = len(commits) == 1
    what = f"evidence commit {named} is" if one else f"evidence commits {named} are"
    it = "it" if one else "them"
    fetch = f", or git fetch {quote(remote)} if {'it is' if one else 'they are'} there already" if tracked else ""
    return (f"{what} on no branch of {remote}: clones importing this stream cannot verify that evidence, and stop "
            f"at this memory, until a branch that contains {it} is pushed{fetch} (the stream's publication does "
            f"not wait for {it})")


def _mirrors(config: str, remote: str) -> bool:
    """Whether ``remote.<remote>.mirror`` is true (``config``: ``PUBLISH``'s answer): a mirror
    clone's branches are the remote's own, Git refuses ``git push REMOTE BRANCH`` to it (``--mirror
    can't be combined with refspecs``), and the sync's gate asks the remote itself; no hint (a
    review: the hint gave that refused push for a commit already on the remote)."""
    key = f"remote.{remote}.mirror".lower()
    return any(name.lower() == key and not config_false(value if sp else None)
               for name, sp, value in (line.partition(" ") for line in lines_of(config)))


def _maps_branches(config: str, remote: str) -> bool:
    """Whether a fetch refspec of ``remote`` maps its branches under ``refs/remotes/<remote>/``
    (``config``: ``PUBLISH``'s answer), as the gate asks (``gate.branch_refspecs``): else no
    fetch tells this clone what the remote's branches hold (a bare clone, a mirror)."""
    key = f"remote.{remote}.fetch"
    for line in lines_of(config):
        name, _sp, spec = line.partition(" ")
        src, colon, dst = spec.strip().lstrip("+").partition(":")
        if name == key and colon and src.startswith("refs/heads/") and dst.startswith(f"refs/remotes/{remote}/"):
            return True
    return False


def _fetch_or_track(remote: str, one: str, tracked: bool) -> str:
    """The second way out: a fetch when ``one`` (a branch of the remote) may be there already;
    without a refspec that maps its branches (a review: a bare clone was told to fetch, which
    moves nothing there), that the sync asks the remote, and the refspec that tracks them."""
    from shlex import quote

    if tracked:
        return f"or git fetch {quote(remote)} if {one} is there already"
    spec = quote(f"+refs/heads/*:refs/remotes/{remote}/*")
    return (f"no remote.{remote}.fetch maps {quote(remote)}'s branches (a bare clone?), so only git hn sync "
            f"{quote(remote)} tells whether {one} is there already; to track them, git config --add "
            f"remote.{remote}.fetch {spec} && git fetch {quote(remote)}")


def push_command(remote: str, branch: str) -> str:
    """``git push REMOTE BRANCH``, each name shell-quoted (a branch may be named ``$(…)``)."""
    from shlex import quote

    return f"git push {quote(remote)} {quote(branch)}"


def push_branch(remote: str, branch: str, tracked: bool = True) -> str:
    """The way out naming ``branch``, the one that holds the anchor (both hints say it alike, and
    ``git hn sync``'s and the pre-push hook's lines: ``gate.Held.line``)."""
    return f"branch {branch}: {push_command(remote, branch)}; {_fetch_or_track(remote, 'it', tracked)}"


def _held_by_own(repo: Repo, env, remote: str, anchor: str, tracked: bool, again: list | None = None,
                 answers: tuple = ("", "", {})) -> str:
    """The hint when the memory's own anchor holds it back; ``answers``: the configuration, the
    remote-tracking refs and the walk that ``waits_hint`` read (``_behind``)."""
    from shlex import quote

    from ..core.gostr import short_id

    branch = _current_branch(repo, anchor)
    behind = _behind(repo, remote, branch, *answers) if branch and tracked else ""
    push = push_command(remote, branch)
    if behind:  # (f170: the push this hint named is refused as a non-fast-forward)
        push = f"git pull --rebase {quote(remote)} {quote(branch)}, then {push}"
        how = f"branch {branch} is behind {behind}, so Git refuses its push: {push}"
        if _unhooked(repo):  # (f174: followed as said, no hook moved the memory or published it)
            from .hooks_here import NO_HOOKS_SO, REANCHOR_NAMED

            push += f", then git hn sync {quote(remote)}"
            how = (f"branch {branch} is behind {behind}, so Git refuses its push: {push}, {REANCHOR_NAMED}; "
                   f"{NO_HOOKS_SO} neither the rebase nor the push carries it")
    elif branch:
        how, push = _named_push(repo, remote, branch, tracked, answers[0])
    else:
        how = f"push a branch that contains it, {_fetch_or_track(remote, 'one', tracked)}"
    if again is not None:
        again.append((f"publication of stream {short_id(env.stream)} to {remote} still waits until commit "
                      f"{anchor[:12]} is pushed", push if branch else "push a branch that contains it"))
    return (f"publication of stream {short_id(env.stream)} to {remote} waits until commit {anchor[:12]} is "
            f"pushed ({how}): later memories of this stream wait behind it")


def _named_push(repo: Repo, remote: str, branch: str, tracked: bool, config: str) -> tuple[str, str]:
    """(the way out naming ``branch``, its command alone for the shorter form): where git-hn's
    pre-push hook is known not to run (``_push_unhooked``), the push publishes no memory (f176: a
    clone without the hooks was told only ``git push origin BRANCH``, and the memory stayed), so
    the sync after it is named, as sync's own line does (``gate.Held.line``, ``unhooked``)."""
    from shlex import quote

    push = push_command(remote, branch)
    if not tracked or not _push_unhooked(repo, config):
        return push_branch(remote, branch, tracked), push
    from .hooks_here import NO_HOOKS_SO

    push += f", then git hn sync {quote(remote)}"
    return (f"branch {branch}: {push}; {_fetch_or_track(remote, 'it', tracked)}, then the sync; {NO_HOOKS_SO} "
            "the push does not carry the memory"), push


def _push_unhooked(repo: Repo, config: str) -> bool:
    """Whether git-hn's pre-push wrapper is known not to run here: read where Git runs hooks from
    ``config`` (``PUBLISH``'s answer, read already: ``core.hooksPath``, else the common Git
    directory's ``hooks``) and the first bytes of the file there. No Git process, as the usual
    record asks none for it; only a relative ``core.hooksPath`` (resolved where Git runs the hook)
    is asked of Git, one ``git rev-parse`` (``hooks_here.wrappers_run``)."""
    import os

    from .hooks_here import PUSH, wrappers_in, wrappers_run

    value = None
    for line in lines_of(config):
        name, sp, setting = line.partition(" ")
        if name.lower() == "core.hookspath":
            value = setting if sp else ""  # (the last one wins, as for Git)
    if value is None:
        return not wrappers_in(os.path.join(repo.common_dir, "hooks"), PUSH)
    value = os.path.expanduser(value)
    if not os.path.isabs(value):
        return wrappers_run(repo, PUSH) is False
    return not wrappers_in(value, PUSH)


def _unhooked(repo: Repo) -> bool:
    """Whether git-hn's pre-push and post-rewrite wrappers are known not to run here (sync's
    ``hooks_here.unhooked`` for the same case, f170): one ``git rev-parse``, asked only for a
    branch behind its remote's, so the usual hint costs nothing more."""
    from .hooks_here import REBASE, wrappers_run

    return wrappers_run(repo, REBASE) is False


def _behind(repo: Repo, remote: str, branch: str, config: str, listing: str, graph: dict) -> str:
    """``branch``'s remote-tracking branch (``origin/main``), the current branch, when it is no
    ancestor of HEAD: a push of the branch is refused as a non-fast-forward (``refused_branches``
    tells the same for a sync); "" otherwise, or when Git could not answer in time. No Git process
    when it has no remote-tracking branch, or the walk ``waits_hint`` made (``graph``) passes from
    HEAD through a commit whose parent is its tip (a branch committed on since it was fetched or
    pulled); else one ``merge-base --is-ancestor``, bounded in time."""
    from ..core.remotes import tracking_ref
    from ..errors import HnError

    specs = [spec.strip() for name, _sp, spec in (line.partition(" ") for line in lines_of(config))
             if name == f"remote.{remote}.fetch"]
    tracking = tracking_ref(f"refs/heads/{branch}", remote, specs)
    there = next((oid for oid, _sp, ref in (line.partition(" ") for line in lines_of(listing)) if ref == tracking),
                 None) if tracking else None
    head = repo.head_commit()
    if not there or there == head or _reaches(graph, head, there):
        return ""
    try:
        proc = repo.git.run(["merge-base", "--is-ancestor", there, head], timeout=WALK_SECONDS)
    except HnError:  # (no answer in time: the words are the usual ones)
        return ""
    return tracking.removeprefix("refs/remotes/") if proc.returncode == 1 else ""


def _reaches(graph: dict[str, list[str]], start: str, target: str) -> bool:
    """Whether ``target`` is a parent of a commit ``graph`` reaches from ``start`` through parents."""
    seen, todo = {start}, [start]
    while todo:
        for parent in graph.get(todo.pop(), ()):
            if parent == target:
                return True
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return False


def _held_by_earlier(repo: Repo, env, remote: str, first: tuple[str, str], waiting: int, tracked: bool,
                     again: list | None = None, config: str = "") -> str:
    """The hint when an earlier memory of the stream, ``first`` (memory ID, anchor), holds this
    one back: its anchor and the branch that holds it, and that feature work recorded in a stream
    of its own would not hold back the rest (``streamchoice``; README, "Streams and labels").
    ``again`` gets its shorter form, with the line as it reads whatever the count (its key, for
    ``cli.advice``): one more memory waits at each write of a burst, and the ~600 characters were
    said again at each (f149's note)."""
    from shlex import quote

    from ..core.gostr import short_id

    memory, anchor = first
    branch = _branch_of(repo, anchor)
    if branch:
        how, push = _named_push(repo, remote, branch, tracked, config)
    else:
        how = f"no branch here contains it: git hn sync {quote(remote)} says how to move or drop memory {short_id(memory)}"

    def line(count: str) -> str:
        return (f"publication of stream {short_id(env.stream)} to {remote} waits until commit {anchor[:12]} is "
                f"pushed ({how}): memory {short_id(memory)}, recorded earlier in this stream, is anchored there, and "
                f"{count} memories, this one included, wait behind it; to keep unpushed feature work from holding "
                "back the rest, record it in a stream of its own (--stream label:NAME, or git config --worktree "
                "hn.stream label:NAME in its worktree)")

    if again is not None:
        again.append((f"publication of stream {short_id(env.stream)} to {remote} still waits until commit "
                      f"{anchor[:12]} is pushed: memory {short_id(memory)} is anchored there, and {waiting} "
                      "memories wait behind it",
                      push if branch else
                      f"git hn sync {quote(remote)} says how to move or drop memory {short_id(memory)}",
                      line("N")))
    return line(str(waiting))


_SAMPLE = "refs/hn/memory/a/b"  # (a memory ref, as a refspec's pattern would match it)


def pruned_by_fetch(config: str) -> str | None:
    """After a memory was signed: one line when a remote's fetch refspec writes this clone's own
    memory refs (``+refs/*:refs/*``, a ``git clone --mirror``): a pruning fetch of it deletes
    every stream that remote does not hold, and the signed, unpublished memory is gone for good
    (a trial: ``- [deleted] (none) -> refs/hn/memory/…``, and nothing warned); a forcing refspec
    replaces it on any fetch by the remote's older tip. None when no
    refspec maps them, or a negative one (``^refs/hn/*``) keeps them out. ``config``: ``git config
    --get-regexp``'s lines (``PUBLISH``'s answer; other keys are passed over)."""
    from shlex import quote

    mapped: dict[str, str] = {}
    kept: set[str] = set()
    for line in lines_of(config):
        key, _sp, spec = line.partition(" ")
        if not key.lower().endswith(".fetch"):
            continue
        remote = key[len("remote."):-len(".fetch")]
        spec = spec.strip()
        if spec.startswith("^"):
            if refspec_star(spec[1:], _SAMPLE) is not None:
                kept.add(remote)
            continue
        src, colon, dst = spec.lstrip("+").partition(":")
        if colon and refspec_star(dst, _SAMPLE) is not None:
            mapped.setdefault(remote, spec)
    remote = next((r for r in sorted(mapped) if r not in kept), None)
    if remote is None:
        return None
    spec = mapped[remote]
    # a forcing refspec (``+``, a mirror clone's) replaces a memory ref by the remote's older tip on
    # any fetch (a review: a plain ``git fetch origin`` printed ``(forced update)`` over an
    # unpublished memory); without ``+`` only a pruning fetch takes it (deletes it)
    loses = (f"any fetch of it (git fetch {quote(remote)}) replaces the memory {quote(remote)} does not hold "
             "yet with what it holds, and a pruning one deletes it" if spec.startswith("+") else
             f"a pruning fetch (git fetch --prune) deletes the memory {quote(remote)} does not hold yet")
    return (f"remote.{remote}.fetch ({spec}) writes this clone's memory refs: {loses}, for good; keep fetches "
            f"off it: git config --add remote.{remote}.fetch {quote('^refs/hn/*')} (or publish it first: git hn "
            f"sync {quote(remote)})")

