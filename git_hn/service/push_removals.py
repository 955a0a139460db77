"""What a push takes off a remote that others need (the pre-push hook's checks, git-hn;
docs/decisions.md): anchor commits of memories the remote holds (``removing_anchors``: a
force-push after a rebase, a deleted branch), and memory refs (``deleting_memory``). With
``hn.prePush`` at ``warn`` each is one warning line and the push goes on; with ``block`` the hook
refuses the push (``hook_runs.run_pre_push``); an anchor check that finds no verified state
brings it up to date first, or says it could not be done (``check_state``). The anchor line names
whose memories they are (an author name is signed author text: made inert and bounded): a team
trial's push deleting a teammate's branch was not told whose memories it stranded. Trusts: Git's hook input, this
clone's remote-tracking refs and verified state (its memory refs, each written only once its chain
verified, when that state cannot say which remote tips are accepted here: ``refs_accepted``), and
the command line of the ``git push`` the hook runs in (only to tell a mirror push: ``mirror_push``).
"""

from __future__ import annotations

from ..core.lines import lines_of
from ..errors import HnError, StateBusy
from ..store.repo import Repo

NAMES_SHOWN = 3  # authors a line names (then "and N others")


def removing_anchors(repo: Repo, remote: str, data: bytes, block: bool = False) -> tuple[str, list, bool, list]:
    """A line when this push takes off ``remote`` commits that verified memories are anchored
    on (a force-push after a rebase, a deleted branch): a memory is imported only with its anchor
    commit, so whoever imports its stream from that remote stops at it until the commit is there
    again. (One line, naming the first such memory, whose memories they are and how to keep the
    commit (``block``: a refusal, so the keeping push comes first), "" otherwise; the (memory,
    commit) pairs, which ``lost`` remembers when the push goes on; whether the push takes any
    commit off at all (``unimported_there`` asks then); the remote's old tips this clone lacks
    (``publish.removed_by_push``: what the push takes off behind them is not known here).) git-hn never keeps the commit
    there itself: a push may be made to take a secret off the remote (automatic keeping was tried
    and a review broke it: docs/decisions.md)."""
    import shlex

    from .replication import publish

    # (branches and tags only: a deleted memory ref's chain, or a mirror's stash, holds no anchor,
    # and its tip in the keep command made an hn-anchor branch of a memory commit: a review)
    code = b"".join(line for line in data.splitlines(keepends=True)
                    if (line.split(b" ", 3)[2:3] or [b""])[0].startswith((b"refs/heads/", b"refs/tags/")))
    removed, old_tips, unfetched = publish.removed_by_push(repo, remote, code)
    try:
        hits, whose, undone = _anchored(repo, remote, removed, block)
    except StateBusy:  # (the check cannot be done now: said, and refused with ``block``)
        from .check_state import busy_line

        return busy_line(remote, block), [], True, unfetched
    if undone:  # (no state, and none could be built: said as the busy state is)
        return undone, [], True, unfetched
    if not hits:
        return "", [], bool(removed), unfetched
    from ..core.gostr import short_id

    # a person's line names them by 12 characters, as the held-back publication lines do (a team
    # trial: two full IDs and the command's made the line unreadable); the command keeps full IDs
    memory, commit = short_id(hits[0][0]), hits[0][1][:12]
    commits = len({c for _m, c in hits})
    keep = " ".join(f"{t}:refs/heads/hn-anchor/{t[:12]}" for t in old_tips)  # (each contains what it loses)
    push = f"git push {shlex.quote(remote)} {keep}"  # (a command to paste: every name shell-quoted)
    how = f"push it there first: {push}" if block else f"to keep it there, also {push}"
    if commits == 1 and len(hits) == 1:
        return (f"this push takes commit {commit} off {remote}, and memory {memory}{whose} is anchored on it: "
                f"whoever imports its stream from {remote} stops there until the commit is back; {how}"), hits, True, \
            unfetched
    what = f"commit {commit}" if commits == 1 else f"{commits} commits"
    how = how.replace("push it there", "push them there").replace("keep it there", "keep them there")
    return (f"this push takes {what} off {remote}, and {len(hits)} memories{whose} are anchored on "
            f"{'it' if commits == 1 else 'them'} (first: memory {memory}): whoever imports their streams from "
            f"{remote} stops at the first of them until the commits are back; {how}"), hits, True, unfetched


def _anchored(repo: Repo, remote: str, removed: list[str], block: bool = False) -> tuple[list, str, str]:
    """(the (memory, commit) pairs of the verified memories anchored on ``removed`` that ``remote``
    holds, whose they are: ``_held_on``; "", or the line saying the check could not be done), from
    one look at the state as last verified, or ``StateBusy`` when it stays busy
    (``stateview.checking``: a push that takes commits off is not let go unchecked because another
    git-hn holds the state, docs/decisions.md). Where there is no sealed state (never built in this
    clone, discarded, another git-hn's) and this clone has memory refs, the state is brought up to
    date first (``check_state.built``: it answered none, and ``block`` let such a push go on
    unsaid); the line when it cannot be. None asked when the push takes nothing off."""
    from ..store.stateview import checking

    if not removed:
        return [], "", ""
    try:
        with checking(repo) as view:
            if view is not None:
                return (*_held_on(repo, remote, removed, view), "")
    except StateBusy:
        raise
    except (HnError, OSError):  # (a lock file that cannot be opened: as the state's answer, none)
        return [], "", ""
    from .check_state import built

    answer, undone = built(repo, remote, block, lambda view: _held_on(repo, remote, removed, view))
    return (*(answer or ([], "")), undone)


def _held_on(repo: Repo, remote: str, removed: list[str], view) -> tuple[list, str]:
    """(the (memory, commit) pairs of the verified memories anchored on ``removed`` that ``remote``
    holds (``gate.anchored_on``, ``lost.held``), whose they are (``_authors``)), from ``view``;
    none when it cannot answer."""
    from .replication import gate, lost

    try:
        hits = lost.held(repo, remote, gate.anchored_on(repo, removed, view), view)  # (only what the remote has)
        return hits, _authors(view, [m for m, _c in hits]) if hits else ""
    except (HnError, OSError):
        return [], ""


def unimported_there(repo: Repo, remote: str, block: bool, timeout: float, unfetched: list | None = None) -> str:
    """A line when ``remote`` holds memory streams whose tips this clone has not accepted (its
    verified chains hold no such commit): ``removing_anchors`` knows only the memories this clone
    verified, so a push that takes commits off could strand a teammate's memory it never imported
    (a team trial: a clone that had only pulled force-pushed under ``block`` and took a published
    anchor off unsaid). One bounded ``ls-remote`` of ``refs/hn/memory/*`` at the remote's push URL,
    asked only for a push that takes commits off; "" when there is none such, or the remote
    cannot say (in ``timeout`` seconds). Only streams ``git hn sync`` would import count (a
    review: an exact selection's clone was refused forever, told to sync, which never imports
    what the selection leaves out), and not those the last sync recorded as failed (``failures``:
    sync, recall and the brief already say them); each ref counts (a review: refs sharing a tip
    were counted once). With ``unfetched`` (the remote's old tips this push forces or deletes that
    this clone lacks: ``removing_anchors``), the line says that instead when the remote holds any
    memory ref, or cannot say: what the push takes off behind them cannot be checked, whoever's
    memory it is (docs/decisions.md)."""
    from ..core.gostr import bounded
    from ..core.grammar import parse_local_ref
    from ..store.transport import listed
    from .replication.failures import failed_streams
    from .replication.given_record import push_urls

    urls = push_urls(repo, remote)
    lines = listed(repo, urls[0], patterns=("refs/hn/memory/*",), timeout=timeout) \
        if len(urls) == 1 and urls[0] else None
    if unfetched:
        if lines is None or any(ref.startswith("refs/hn/memory/") for _oid, ref in lines):
            return _unfetched_line(remote, unfetched, block)
        return ""  # (no memory there: nothing the push takes off is an anchor)
    wanted = _imported_by(repo, remote)
    failed = failed_streams(repo, remote)
    refs = []  # (tip, what names it: the stream as ``select --memory`` takes it, else the ref)
    for oid, ref in lines or []:
        parsed = parse_local_ref(ref) if ref.startswith("refs/hn/memory/") else None
        if not ref.startswith("refs/hn/memory/") or (parsed and parsed[1] in failed) or \
                (wanted is not None and (parsed is None or parsed[1] not in wanted)):
            continue
        refs.append((oid, parsed[1] if parsed else ref))
    known = _accepted(repo, sorted({oid for oid, _n in refs}), {oid: n for oid, n in refs}) if refs else set()
    unknown = sorted(name for oid, name in refs if oid not in known)
    if not unknown:
        return ""
    from shlex import quote

    from .replication.outcomes import counted

    # (a newcomer trial: "a stream this clone has not imported" read as never imported, of a stream
    # imported all but its latest memories; its tip is what is not here, either way)
    what = (f"{remote} has {counted(len(unknown), 'memory stream', 'memory streams')} with memories this clone "
            f"has not imported (first: {bounded(unknown[0], 160)}), and this push takes commits off {remote}: git-hn "
            f"cannot tell whether memories of {'it' if len(unknown) == 1 else 'them'} are anchored on those commits")
    if block:
        return f"{what}; run git hn sync {quote(remote)} first, then push again"
    return f"warning: {what} (git hn sync {quote(remote)} imports them; a later push then checks)"


def _unfetched_line(remote: str, unfetched: list, block: bool) -> str:
    """The line for a push that forces or deletes a remote ref whose tip this clone lacks
    (``unfetched``: (remote ref, old tip, deleted)): the first named, its branch or tag as a
    person reads it, bounded (Git's hook input names the remote ref as the push gave it)."""
    from shlex import quote

    from ..core.gostr import bounded

    ref, oid, _deleted = unfetched[0]
    name = ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else \
        f"tag {ref[len('refs/tags/'):]}" if ref.startswith("refs/tags/") else ref
    more = len(unfetched) - 1
    what = f"{remote}'s {bounded(name, 120)} is at {oid[:12]}" + \
        (f" ({more} more {'ref' if more == 1 else 'refs'} this push replaces or deletes too)" if more else "")
    if block:
        return (f"{what}, which this clone has not fetched: git fetch {quote(remote)} first, then push again "
                f"(what the push takes off cannot be checked)")
    return (f"warning: {what}, which this clone has not fetched, so git-hn cannot check what this push takes "
            f"off {remote} for memories' anchor commits (git fetch {quote(remote)} before such a push lets it)")


def forced_push(configured: bool, push_pid: str, remote: str = "") -> bool | None:
    """Whether this push may force an update (``--force``, ``-f``, a lease, ``+REFSPEC``,
    ``--mirror``; ``configured``: a ``+`` push refspec of the remote): Git runs pre-push also for
    the ref it then refuses as "fetch first" (an update, not forced, of a remote tip this clone
    lacks), and its hook input does not tell them apart (a deletion needs no force). Read from the
    command line of the ``git push`` this hook runs in (``push_pid``), as ``mirror_push`` reads
    it; None when that cannot be read: the caller must then neither count the update as one Git
    refuses nor offer to repeat it forced (a portability trial: counted as forced, an ordinary
    push was refused with a forcing command whose lease was the remote's current tip, and pasted,
    it took a teammate's commit off; docs/decisions.md). None too for ps(1)'s words that may not be
    the push's own (``_unsure``: a review's ``-o "title=Fix -f flag"`` read as ``-f``)."""
    if configured:
        return True
    argv = _push_arguments(push_pid, remote)
    return None if argv is None else _forces(argv)


def _forces(argv: list[str]) -> bool:
    """Whether the ``git push`` command line ``argv`` forces: ``-f`` (in a group of short
    options too), a long option Git takes for ``--force``, ``--force-with-lease`` or
    ``--force-if-includes`` (any abbreviation) or for ``--mirror``, or a refspec starting with
    ``+``."""
    skip, ended = False, False
    for word in argv[_command_at(argv) + 1:]:
        if skip:
            skip = False
        elif ended or not word.startswith("-") or word == "-":
            if word.startswith("+"):
                return True
        elif word == "--":
            ended = True
        elif word in _VALUED:
            skip = True
        elif word.startswith("--"):
            name = word[2:].split("=", 1)[0]
            if name and ("force".startswith(name) or name.startswith("force") or "mirror".startswith(name)):
                return True
        else:  # short options: ``o`` takes the rest, or the next word, as its value
            for i, c in enumerate(word[1:]):
                if c == "f":
                    return True
                if c == "o":
                    skip = i == len(word) - 2
                    break
    return False


def _imported_by(repo: Repo, remote: str) -> set[str] | None:
    """The streams a sync of ``remote`` imports by its saved selection: None for every stream
    (``--all``, no selection saved, or one that cannot be read); an exact selection's streams
    otherwise (actor and proposal selectors import nothing: they are skipped, unsupported)."""
    from ..errors import HnError
    from ..store.replication import read_selection

    try:
        sel = read_selection(repo, remote)[0]
    except (HnError, OSError):
        return None
    return None if sel.all else set(sel.memories)


def _accepted(repo: Repo, commits: list[str], streams: dict[str, str]) -> set[str]:
    """Those of ``commits`` that a chain of the state as last verified holds; when the state
    cannot answer (busy, absent), those an accepted memory ref holds (``refs_accepted``: a busy
    state said every remote stream was not imported, and ``block`` refused the push)."""
    from ..store.state import chunks, marks
    from ..store.statedb import sqlite3
    from ..store.stateview import last_verified

    out: set[str] = set()
    try:
        with last_verified(repo) as view:
            if view is not None:
                for part in chunks(commits):
                    out |= {r[0] for r in view.conn.execute(
                        f'SELECT "commit" FROM chain WHERE "commit" IN ({marks(len(part))})', part)}
                return out
    except (HnError, OSError, sqlite3.Error):
        pass
    try:
        return refs_accepted(repo, commits, streams)
    except (HnError, OSError):  # (Git could not start: none, as before)
        return set()


def refs_accepted(repo: Repo, commits: list[str], streams: dict[str, str]) -> set[str]:
    """Those of ``commits`` (each with its stream, ``streams``: commit -> ``sha256:<hex>`` as the
    remote's ref names it, when it does) that a memory ref of this clone holds: the user's own
    (``refs/hn/memory/*``) and the accepted copies (``refs/hn/remotes/*/memory/*``), each written
    only once its chain verified (an append signs it; a promotion, CONTRACT §9.11, follows the
    validation). A commit that is a ref's tip (the usual case after a sync) costs the listing
    only (one ``for-each-ref``); for the others, one ``rev-list`` walks the chains of their
    streams' refs here (a chain holds only its stream's memories: §4.2); no more when Git cannot
    answer (``GitError``; a malformed memory ref: ``ValidationError``, as for every read). No
    process per ref. A tip under a ref name that is no stream counts only when it is a
    head here (the state counted it when any chain held it: a sync never imports such a ref)."""
    from ..store.streams import list_sources

    heads: set[str] = set()
    of_stream: dict[str, set[str]] = {}
    for source in list_sources(repo):  # (the listing every read parses: a malformed ref raises)
        heads.add(source.head)
        of_stream.setdefault(source.stream, set()).add(source.head)
    out = {c for c in commits if c in heads}
    starts = sorted({h for c in commits if c not in out for h in of_stream.get(streams.get(c, ""), ())})
    if not starts:
        return out
    walk = repo.git.run(["rev-list", "--stdin"], input="".join(f"{h}\n" for h in starts).encode("ascii"))
    if walk.returncode != 0:
        return out
    chains = set(walk.stdout.decode("ascii", "replace").split())
    return out | {c for c in commits if c in chains}


def _authors(view, memories: list[str]) -> str:
    """` of ACTOR ("NAME", a self-chosen name), ... and N others`: who signed ``memories``, in
    their order, once each, as every hint names an author (``hints.named_actor``: the short actor
    ID first, the name inert and bounded after it, said to be its author's own choice: a review
    found a name ``Maintainer (15bae93237fc)`` shown first, posing as another's ID); "" when the
    state as last verified (``view``) cannot say (no verification in a hook)."""
    from ..core.gostr import short_id
    from ..core.hints import named_actor
    from ..store.statedb import sqlite3

    want = list(dict.fromkeys(memories))
    try:  # (as ``lost.held`` found these memories: the state as last verified, payloads re-checked)
        loaded = view.load(want) if view is not None else {}
        found = {i: (m.envelope.actor_name, m.envelope.actor) for i, m in loaded.items()}
    except (HnError, OSError, sqlite3.Error):
        return ""
    shown = list(dict.fromkeys(named_actor(short_id(found[m][1]), found[m][0])  # (quoted one way: a
                               for m in want if m in found))  # name's own quotes posed as a second author)
    if not shown:
        return ""
    rest = len(shown) - NAMES_SHOWN
    return f" of {', '.join(shown[:NAMES_SHOWN])}" + (f" and {rest} {'other' if rest == 1 else 'others'}"
                                                      if rest > 0 else "")


KEEP_BRANCHES = "refs/heads/hn-anchor/"  # the branches that keep anchor commits on a remote


def mirror_push(data: bytes, configured: bool, push_pid: str, remote: str = "") -> bool:
    """Whether this push is ``git push --mirror`` (Git's hook input ``data``): Git does not give
    pre-push the refs a mirror push prunes (it names only those it sends), so ``deleting_memory``
    asks the remote. Git's own signals: ``remote.<name>.mirror`` set (``configured``: every push
    to that remote mirrors, or fails), or ``--mirror`` on the command line of the ``git push``
    this hook runs in (``push_pid``; an alias is expanded there). Where that command line cannot
    be read (no ``/proc``, no Git process above the hook; ps(1)'s words that may not be the push's
    own, ``_unsure``), a push that copies accepted copies
    (``refs/hn/remotes/*``) or remote-tracking refs under their own names counts, as it did
    before: a review found ``git push backup 'refs/remotes/origin/*:refs/remotes/origin/*'``,
    which deletes nothing, refused as a mirror that deletes the remote's memory refs."""
    if configured:
        return True
    argv = _push_arguments(push_pid, remote)
    if argv is not None:
        return _mirrors(argv)
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split(" ")
        if len(parts) == 4 and parts[1].strip("0") and (
                parts[0].startswith("refs/hn/remotes/") or
                (parts[0].startswith("refs/remotes/") and parts[0] == parts[2])):
            return True
    return False


# ``git push`` options whose value is the next word (a push option may be ``--mirror``)
_VALUED = frozenset(("-o", "--push-option", "--receive-pack", "--exec", "--repo"))


def _mirrors(argv: list[str]) -> bool:
    """Whether the ``git push`` command line ``argv`` mirrors: its last ``--mirror`` or
    ``--no-mirror``, in any abbreviation Git takes (``--m``, ``--no-m``: no other option of
    ``git push`` starts so), before ``--``."""
    mirror, skip = False, False
    for word in argv[_command_at(argv) + 1:]:
        if skip:
            skip = False
        elif word == "--":
            break
        elif word in _VALUED:
            skip = True
        elif len(word) > 2 and "--mirror".startswith(word):
            mirror = True
        elif len(word) > 5 and "--no-mirror".startswith(word):
            mirror = False
    return mirror


def _push_arguments(pid: str, remote: str = "") -> list[str] | None:
    """The command line of the ``git push`` process ``pid`` (Linux ``/proc``; where there is no
    ``/proc``, ps(1)'s, its words split at blanks: ``process_tree.ps_arguments``), None when it
    cannot be read, is no ``git push``, or is ps(1)'s and its words may not be Git's (``_unsure``;
    ``remote``: the hook's first argument, the remote or the URL pushed to)."""
    from ..store.process_tree import is_pid

    if not is_pid(pid):
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read(1 << 20).decode("utf-8", "surrogateescape").split("\0")
    except OSError:
        from ..store.process_tree import ps_arguments

        argv = ps_arguments(int(pid))  # (None where /proc exists: no process more on Linux)
        if argv is None or _unsure(argv, remote):
            return None
    at = _command_at(argv)
    return argv if at < len(argv) and argv[at] == "push" else None


# Git's own options (before the command) whose value is the next word
_GIT_VALUED = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix",
                         "--attr-source", "--list-cmds"))


def _command_at(argv: list[str]) -> int:
    """Where the command word (``push``) of the Git command line ``argv`` is: after Git's own
    options, those taking a value with it (``git -C push push``: the second)."""
    at = 1
    while at < len(argv) and argv[at].startswith("-"):
        at += 2 if argv[at] in _GIT_VALUED else 1
    return at


def _unsure(argv: list[str], remote: str) -> bool:
    """Whether the words of ``argv``, a command line ps(1) gave with its arguments joined by
    blanks and split here at blanks, may not be the push's own: any option that takes a value
    (``-o "title=Fix -f flag"`` reads as ``-f``; ``-c "x=y push"`` as the command), the Git
    program at a path with a blank, the remote or URL pushed to holding a blank (``/srv/a -f``),
    or a revision expression that may hold one (``HEAD^{/fix -f}``). Only a plain command line
    is read (a review: ``-o`` made an ordinary push read as forced, and refused with a command
    that forced it; docs/decisions.md)."""
    if any(c.isspace() for c in remote) or argv[0].rsplit("/", 1)[-1] not in ("git", "git.exe"):
        return True
    at = _command_at(argv)
    for word in argv[1:at]:
        if word in _GIT_VALUED or "=" in word:
            return True
    for word in argv[at + 1:]:
        if word in _VALUED or (word.startswith("-") and "=" in word) or "{" in word or ":/" in word or \
                (word.startswith("-") and not word.startswith("--") and "o" in word):
            return True
    return False


def deleting_memory(repo: Repo, remote: str, data: bytes, mirror: bool, url: str = "",
                    timeout: float | None = None, place: str = "") -> str:
    """A warning when this push deletes memory refs on ``remote`` (``git push --delete
    refs/hn/...``; ``git push --mirror`` from a clone that lacks some of them) or copies this
    clone's accepted copies (``refs/hn/remotes/*``) there: memory history is append-only, and a
    teammate's deleted stream is not this clone's to restore. Git does not tell pre-push what a
    mirror push prunes, so a ``mirror`` push (``mirror_push``) asks the remote for its memory
    refs (one ``ls-remote``, only then; a review: a clone that had imported nothing mirrored over
    a remote's memory refs and keep branches unsaid), at the URL this push goes to: ``url``, as
    Git gives it to the hook, else the remote's one push URL (a review: the remote's name asked
    its fetch URL, another repository when a push URL is set, and the mirror push deleted the
    memory refs there unsaid), within ``timeout`` seconds (a remote that does not answer by then
    counts as one that cannot say: none of its deletions is counted, as ``unimported_there``
    and ``atrisk`` go on without their answers). "" when the push touches none. ``place``: which of
    the remote's several push URLs ``url`` is ("push URL 2 of origin"), said instead of the remote."""
    zero = "0" * repo.oid_hex_len
    deleted: list[str] = []
    copied = 0
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split(" ")
        if len(parts) != 4:
            continue
        lref, loid, rref, roid = parts
        if rref.startswith("refs/hn/") and loid == zero and roid != zero:
            deleted.append(rref)
        elif lref.startswith("refs/hn/remotes/") and loid != zero:
            copied += 1
    keeps: list[str] = []  # the remote's hn-anchor branches a mirror push deletes
    if mirror:  # it also deletes every remote memory ref this clone lacks
        from ..store.git import LOCAL_LISTING
        from ..store.transport import listed
        from .replication.given_record import push_urls

        urls = [url] if url else push_urls(repo, remote)
        # (None: the remote cannot say, a listing over the bound among them: its deletions are not counted)
        there = listed(repo, urls[0], patterns=("refs/hn/memory/*", f"{KEEP_BRANCHES}*"), timeout=timeout) \
            if len(urls) == 1 and urls[0] else None
        here = set(lines_of(repo.git.run([*LOCAL_LISTING, KEEP_BRANCHES]).stdout.decode("utf-8", "replace")))
        for _oid, ref in there or []:
            if ref in here or ref in deleted or ref in keeps:
                continue
            (keeps if ref.startswith(KEEP_BRANCHES) else deleted).append(ref)
    first = min(deleted) if deleted else ""
    if not deleted and not copied:
        return ""
    what, on = [], f"at {place}" if place else f"on {remote}"
    if deleted:
        n = len(deleted)
        what.append(f"deletes {n} memory {'ref' if n == 1 else 'refs'} {on} (first: {first})")
    if keeps:  # (a team trial: the warning named the memory refs, not the anchor branches it also
        # deleted, which kept memories' anchor commits on the remote)
        from ..core.gostr import bounded

        n = len(keeps)
        what.append(f"deletes {n} hn-anchor {'branch' if n == 1 else 'branches'} {on} (first: "
                    f"{bounded(min(keeps), 120)}), which {'keeps' if n == 1 else 'keep'} memories' anchor commits there")
    if copied:
        what.append(f"copies {copied} of this clone's accepted memory refs (refs/hn/remotes/*) there")
    advice = "; push branches and tags by name instead of --mirror" if mirror else ""
    return (f"this push {' and '.join(what)}: memory history is append-only, and whoever relies on "
            f"{remote}'s streams loses them{advice}")


def only_deletes(data: bytes) -> bool:
    """Whether a push (Git's hook input ``data``) only deletes refs: it publishes nothing, so the
    pre-push hook's "a push to a URL publishes no memory" hint is no news to it (a review)."""
    rows = [p for p in (line.split(" ") for line in lines_of(data.decode("utf-8", "replace"))) if len(p) == 4]
    return bool(rows) and not any(p[1].strip("0") for p in rows)


def deleting_memory_at_url(repo: Repo, data: bytes) -> str:
    """``deleting_memory``'s line for a push to a URL (Git's hook input ``data``): the memory refs
    it deletes there, the URL never echoed (it may carry credentials); "" when it deletes none. A
    review: such a push was said to "send memory refs to a URL", and with ``hn.prePush`` at
    ``block`` went on, while the same deletion pushed to the remote's name is refused. No Git
    process (a mirror's prune is not asked of a URL here: for a mirror push to a remote's URL the
    hook asks ``deleting_memory`` as for that remote, of the URL). Memory refs only (``refs/hn/memory/``): a
    review found any ``refs/hn/`` ref counted, and said to be a memory ref."""
    zero = "0" * repo.oid_hex_len
    deleted = sorted(p[2] for p in (line.split(" ") for line in lines_of(data.decode("utf-8", "replace")))
                     if len(p) == 4 and p[2].startswith("refs/hn/memory/") and p[1] == zero and p[3] != zero)
    if not deleted:
        return ""
    n = len(deleted)
    return (f"this push deletes {n} memory {'ref' if n == 1 else 'refs'} at the URL it pushes to (first: "
            f"{deleted[0]}): memory history is append-only, and whoever relies on those streams loses them")


def _rows(data: bytes) -> list[list[str]]:
    """The hook input ``data``'s lines as (local ref, local tip, remote ref, remote tip)."""
    return [p for p in (line.split(" ") for line in lines_of(data.decode("utf-8", "surrogateescape")))
            if len(p) == 4]


def without_updates(data: bytes) -> bytes:
    """The hook input ``data`` without its updates of refs the remote has (both tips set): for a
    push that forces nothing (``forced_push``), each takes nothing off. Git performs such an update
    only as a fast-forward (what the remote had stays, whatever this clone's remote-tracking ref
    says), and refuses the rest itself: "fetch first" (a tip this clone lacks) and a tag that exists
    reach the hook (a tip known to be no ancestor does not); its deletions and new refs stay (a soak
    trial: the walk from a stale refs/remotes/origin/main made a push Git refused as "fetch first"
    take a teammate's anchor off, and block offered a forced push instead)."""
    rows = _rows(data)
    kept = [p for p in rows if not (p[1].strip("0") and p[3].strip("0"))]
    return data if len(kept) == len(rows) else "".join(f"{' '.join(p)}\n" for p in kept).encode(
        "utf-8", "surrogateescape")


def seen_tips(repo: Repo, remote: str, data: bytes) -> dict[str, str]:
    """remote ref -> the tip this clone last saw ``remote`` have there, for each ref the push
    (the hook's input ``data``) updates or deletes: a branch's remote-tracking ref
    (refs/remotes/<remote>/<branch>, as Git's own ``--force-with-lease=<ref>`` takes it), "" when
    it has none; a ref with no remote-tracking ref (a tag), the remote's tip when this clone has
    that object, else "". One ``for-each-ref`` (for a way out only: ``hook_runs.anyway``)."""
    rows = [p for p in _rows(data) if p[3].strip("0")]
    if not rows:
        return {}
    base = f"refs/remotes/{remote}/"
    branches = {p[2]: base + p[2][len("refs/heads/"):] for p in rows if p[2].startswith("refs/heads/")}
    tracked: dict[str, str] = {}
    if branches:
        proc = repo.git.run(["for-each-ref", "--format=%(refname) %(objectname)", *sorted(set(branches.values()))])
        for line in lines_of(proc.stdout.decode("utf-8", "surrogateescape")) if proc.returncode == 0 else []:
            ref, _sp, oid = line.partition(" ")
            tracked[ref] = oid
    others = [p[3] for p in rows if p[2] not in branches]
    present = {o for o, info in zip(others, repo.git.object_infos(others) if others else []) if info is not None}
    return {p[2]: tracked.get(branches[p[2]], "") if p[2] in branches else (p[3] if p[3] in present else "")
            for p in rows}
