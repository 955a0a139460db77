"""Anchors a push took off a remote, remembered until they are back (git-hn; docs/decisions.md).

A memory is imported only with its anchor commit, so after a force-push or a deleted branch took
that commit off a remote, whoever imports the memory's stream from there stops at it, and at
every later memory of the stream, until the commit is there again. The pre-push hook says so once,
with the push that keeps it (``push_removals.removing_anchors``); a team trial showed once is not
enough: the warning scrolled by, and the author's memories were held from the team for good while
nothing said so again. git-hn never pushes such a commit back itself: a push may have been made to
take a secret off the remote.

So the hook remembers (``remember``) the commits and the first memory on each, per remote, in
``<common-gitdir>/hn/replication/lost-<remote digest>`` (derived, private, bounded; only memories
the remote holds: ``held``), and each later push to that remote and each ``git hn sync`` with it
asks which are still not on it (``still_lost``: one ``rev-list``, only while the file exists) and
says so in one line whose command puts them all back (``tips``, ``line``), until none is left:
then the file goes. The file's first line is ``url <digest>`` of the remote's URL; a record made
for another URL (``git remote set-url``, or a remote removed and added again for another
server) is kept until the remote says which (``moved.same_repository``), and a renamed remote
takes its record over (``moved.adopt``); each read-modify-write holds the record's lock
(``locked``). Best effort: a file that cannot be read or written is ignored.
"""

from __future__ import annotations

import os
from contextlib import ExitStack, contextmanager

from ...core.grammar import is_digest_id, is_oid
from ...core.lines import lines_of
from ...errors import HnError
from ...store.repo import Repo

KEPT = 256  # commits remembered per remote (the oldest go first)
LOCK_WAIT = 5.0  # seconds a change waits for a record's lock (``locked``)
ASK_TIMEOUT = 10.0  # seconds the remote is given to list its keep branches, unless the caller says


def _path(repo: Repo, remote: str) -> str:
    from ...store.lock import remote_digest
    from .moved import adopt

    path = os.path.join(repo.hn_dir, "replication", f"lost-{remote_digest(remote)}")
    adopt(repo, remote, "lost", path)  # (``git remote rename``)
    return path


def url_key(repo: Repo, remote: str) -> str:
    """A digest of ``remote``'s URL (``remote.<remote>.url``; "" without one): the record keeps
    it, not the URL, which may carry credentials."""
    from ...core import hashing

    proc = repo.git.run(["config", "--get", f"remote.{remote}.url"])
    url = proc.stdout.rstrip(b"\n") if proc.returncode == 0 else b""
    return hashing.sha256(url).hexdigest() if url else ""


def _read(repo: Repo, remote: str, any_url: bool = False) -> tuple[dict[str, str], str | None]:
    """(commit -> the first memory remembered on it, the digest of the remote's URL now): {} and
    None when the record was made for another URL (an audit: after ``git remote remove X`` and
    ``git remote add X`` with another server, the old reminder named the unrelated one), its
    commits and None with ``any_url``; {} and "" (no record) when that URL is another configured
    remote's, which the record goes to (``moved.hand_over``); no Git process while there is no
    record."""
    from ...store import private

    path = _path(repo, remote)
    if not os.path.exists(path):
        return {}, ""
    try:
        data = private.read_private(repo.hn_dir, path, 1 << 20) or b""
    except (HnError, OSError):
        return {}, ""
    key: str | None = url_key(repo, remote)
    out: dict[str, str] = {}
    for line in data.decode("ascii", "replace").splitlines():
        commit, _sp, memory = line.partition(" ")
        if commit == "url" and key is not None and memory != key:  # (a record without the line is an older git-hn's)
            from .moved import hand_over

            if hand_over(repo, remote, "lost", path, memory, lambda owner: locked(repo, owner)):  # (a fork setup)
                return {}, ""
            if not any_url:
                return {}, None
            key = None
        if is_oid(commit) and is_digest_id(memory):
            out.setdefault(commit, memory)
    return out, key


def _write(repo: Repo, remote: str, lost: dict[str, str], key: str | None = None, strict: bool = False) -> None:
    """Best effort, unless ``strict`` (a change by hand, ``forget``): then a failure raises."""
    from ...store import private

    path = _path(repo, remote)
    try:
        if not lost:
            for gone in (path, _keep_path(repo, remote)):
                if os.path.exists(gone):
                    os.unlink(gone)
            return
        key = url_key(repo, remote) if key is None else key
        kept = list(lost.items())[-KEPT:]
        private.write_private(repo.hn_dir, path, (f"url {key}\n" + "".join(f"{c} {m}\n" for c, m in kept)
                                                  ).encode("ascii"), derived=True)
    except (HnError, OSError) as exc:
        if strict:
            raise unwritable(path, exc) from None


def unwritable(path: str, exc: Exception) -> HnError:
    """The error of a record that a change by hand could not write (``strict``)."""
    from ...errors import LocalStateError

    return exc if isinstance(exc, HnError) else LocalStateError(
        f"cannot change {path}: {exc.strerror or type(exc).__name__}")


def recorded(repo: Repo, remote: str) -> tuple[dict[str, str], str | None]:
    """(commit -> first memory, the URL digest the record was made for), for a change by hand
    (``forget``), which holds ``locked`` around it and ``replace``: a record made for another URL
    of ``remote`` counts too, and keeps its URL line (a review: right after ``git remote set-url``
    to another form of the URL, the commit the next sync reminded of was "not remembered")."""
    from .moved import url_line

    lost, key = _read(repo, remote, any_url=True)
    return lost, url_line(repo, _path(repo, remote)) if key is None else key


def replace(repo: Repo, remote: str, lost: dict[str, str], key: str | None) -> None:
    """Write ``lost`` as the record (none: the record goes), or raise (``forget``)."""
    _write(repo, remote, lost, key, strict=True)


def held(repo: Repo, remote: str, hits: list[tuple[str, str]], view, own: bool = False) -> list[tuple[str, str]]:
    """Of ``hits`` ((memory, anchor commit) pairs), those ``remote`` holds: in a stream this
    clone gave it (the memory at or before the tip it was last given: ``published_heads``) or
    in an accepted copy from it (``refs/hn/remotes/<remote>/memory/``; with ``own``, only of the
    active identity's streams: after ``git remote rename`` the journal of what was given names the
    old remote, and the author's copy accepted back is what shows the remote holds them). An audit found the
    warning and the reminders for a remote that publication was off for, which no memory was
    ever published to, and for memories a remote never received: nothing stops there for its
    importers. From ``view``, the state as last verified (the caller's, with ``gate.anchored_on``'s
    answer: ``stateview.checking``); none when it cannot answer (the caller warns)."""
    from ...store.state import chunks, marks
    from ...store.statedb import sqlite3
    from ...store.identity import active_actor
    from .given_record import published_heads

    if not hits or view is None:
        return []
    accepted = f"refs/hn/remotes/{remote}/memory/"
    given = published_heads(repo, remote)
    there: set[str] = set()
    try:
        found = []  # (memory, ref, seq) of each chain holding a memory of ``hits``
        for part in chunks(sorted({m for m, _c in hits})):
            found += view.conn.execute(
                f"SELECT c.id, s.ref, c.seq FROM chain c JOIN sources s ON s.sid = c.sid "
                f"WHERE c.id IN ({marks(len(part))})", part).fetchall()
        tips = sorted({given[r] for _m, r, _s in found if r in given})
        reached: dict[str, int] = {}  # ref -> the sequence number of the tip it was given
        for part in chunks(tips):
            for ref, seq, commit in view.conn.execute(
                    f"SELECT s.ref, c.seq, c.\"commit\" FROM chain c JOIN sources s ON s.sid = c.sid "
                    f"WHERE c.\"commit\" IN ({marks(len(part))})", part):
                if given.get(ref) == commit:
                    reached[ref] = seq
        actor = active_actor(repo) if own else None
        mine = f"{accepted}{actor}/" if actor else accepted if not own else None
        for memory, ref, seq in found:
            if (mine is not None and ref.startswith(mine)) or seq <= reached.get(ref, -1):
                there.add(memory)
    except (HnError, OSError, sqlite3.Error):
        return []
    return [(m, c) for m, c in hits if m in there]


@contextmanager
def locked(repo: Repo, remote: str, name: str = "lost", strict: bool = False):
    """The record's own lock (``hn/locks/<name>-<remote digest>.lock``), around each of its
    read-modify-writes: an audit's two pushes remembering 100 commits each left 166 of them.
    Short (no Git process runs under it); best effort as the record is: after a few seconds,
    or when the lock cannot be opened, the change is made without it. ``strict`` (a change by
    hand, ``forget``): then that is an error, and nothing is changed."""
    from ...store.lock import remote_lock_path, stream_lock

    busy = f"the {name} anchor record of {remote} is being changed by another git-hn; retry"
    with ExitStack() as stack:
        try:
            stack.enter_context(stream_lock(repo.hn_dir, remote_lock_path(repo.hn_dir, remote, name), remote,
                                            timeout=LOCK_WAIT, busy=busy))
        except (HnError, OSError) as exc:
            if strict:
                raise unwritable(remote_lock_path(repo.hn_dir, remote, name), exc) from None
        yield


def remember(repo: Repo, remote: str, hits: list[tuple[str, str]]) -> None:
    """Remember the (memory, anchor commit) pairs a push takes off ``remote``."""
    with locked(repo, remote):
        lost, key = _read(repo, remote, any_url=True)  # (another URL's record is taken over)
        for memory, commit in hits:
            lost.setdefault(commit, memory)
        _write(repo, remote, lost, key or None)


def _forget(repo: Repo, remote: str, back: set[str]) -> None:
    """Drop the commits ``back`` from the record, keeping what another process remembered
    since it was read."""
    with locked(repo, remote):
        lost, key = _read(repo, remote)
        if key is not None and any(c in back for c in lost):  # (another URL's record: ``_reverified``)
            _write(repo, remote, {c: m for c, m in lost.items() if c not in back}, key)


def _reverified(repo: Repo, remote: str, timeout: float) -> dict[str, str]:
    """The commits of a record made for another URL of ``remote`` once the remote shows it is the
    repository the record was made for (``moved.same_repository``: the record is taken over);
    {} otherwise, the record dropped when the remote shows it is another repository, kept when
    it cannot say (asked again next time). An audit: ``git remote set-url`` to another form of
    the same URL deleted the record, and the reminder, for good."""
    from .moved import same_repository

    same = same_repository(repo, remote, timeout)
    if same is None:
        return {}
    with locked(repo, remote):
        lost, key = _read(repo, remote, any_url=True)
        if key is None:
            _write(repo, remote, lost if same else {})
    return lost if same else {}


def still_lost(repo: Repo, remote: str, sent: tuple[str, ...] = (), timeout: float = ASK_TIMEOUT) -> dict[str, str]:
    """commit -> memory of the remembered commits that no remote-tracking ref of ``remote``
    contains (the record is brought to that), without those one of ``sent`` (the tips a push
    sends now) contains: those are only not said, since the push may not land (a rejected or
    dry-run push of the anchor wiped the reminder for good, a trial found). {} and no Git process
    when nothing is remembered. A commit this clone no longer has is kept (it cannot be told; the
    line says a clone that has it can put it back). ``timeout``: how long the remote may take to
    say what an earlier push kept (``_kept_by_a_push``)."""
    lost, key = _read(repo, remote)
    if key is None:
        lost = _reverified(repo, remote, timeout)
    if not lost:
        return {}
    listed = _off(repo, remote, lost, ())
    if listed is None:
        return lost
    # (--ignore-missing drops what is not here at all: that stays remembered)
    present = repo.git.presence(sorted(lost))
    left = {c: m for (c, m), here in zip(lost.items(), present) if c in listed or not here}
    if left != lost:
        _forget(repo, remote, set(lost) - set(left))
    if left:
        left = _kept_by_a_push(repo, remote, left, timeout)
    if sent and left:
        shown = _off(repo, remote, left, sent)
        return left if shown is None else {c: m for c, m in left.items() if c in shown or c not in listed}
    return left


def kept_there(repo: Repo, remote: str, url: str, lost: dict[str, str],
               timeout: float = ASK_TIMEOUT) -> dict[str, str]:
    """Of ``lost``, those that a ``refs/heads/hn-anchor/*`` branch of ``remote`` (what the
    reminder's command pushes) contains are forgotten; the rest is returned. For a clone whose
    fetch refspecs never bring those branches (a single-branch clone: a review found the
    reminder there for good after its command was followed; a push-only remote: an audit). One
    ``ls-remote`` of those names, bounded, and one ``rev-list`` when it lists any this clone has
    (the command's tip contains the older commits it puts back); nothing is forgotten when the
    remote cannot say, or does not within ``timeout`` seconds (an audit: Git's own 300 s held a
    sync with ``hn.syncStallTimeout`` 3 for 301 s, and a push for 300 s in its hook)."""
    rest = _kept(repo, remote, url, lost, timeout)
    return lost if rest is None else rest


def _kept(repo: Repo, remote: str, url: str, lost: dict[str, str], timeout: float) -> dict[str, str] | None:
    """``kept_there``'s answer, or None when the remote gave none."""
    from ...store.transport import listed as listing

    lines = listing(repo, url, patterns=("refs/heads/hn-anchor/*",), timeout=timeout) if lost else None
    if lines is None:
        return None
    return _held_off(repo, remote, lost, {oid for oid, ref in lines if ref.startswith("refs/heads/hn-anchor/")})


def off_branches(repo: Repo, remote: str, lost: dict[str, str], heads: dict[str, str]) -> dict[str, str]:
    """Of ``lost``, those no branch of ``heads`` (ref -> tip: the remote's answer, ``atrisk.asker``)
    holds; the others are forgotten. A team trial: Bob put the anchor back on an ``hn-anchor``
    branch, and Alice's pre-push, from remote-tracking refs she had not fetched since, still said
    it "is no longer on any branch of origin" and told her to push it. A branch tip this clone
    lacks holds only itself, as far as this clone can tell."""
    return _held_off(repo, remote, lost, set(heads.values()), only=True) if lost else lost


def _held_off(repo: Repo, remote: str, lost: dict[str, str], listed: set[str], only: bool = False) -> dict[str, str]:
    """``lost`` without what the branch tips ``listed`` hold (forgotten); ``only``: those tips
    alone decide (not this clone's remote-tracking refs, which may still hold a deleted branch)."""
    back = {c for c in lost if c in listed}
    rest = [c for c in lost if c not in back]
    tips = sorted(o for o, here in zip(sorted(listed), repo.git.presence(sorted(listed))) if here) if rest else []
    if tips:
        present = {c for c, here in zip(rest, repo.git.presence(rest)) if here}
        off = not_held(repo, sorted(present), tips) if only else _off(repo, remote, dict.fromkeys(present), tuple(tips))
        if off is not None:
            back |= present - off
    if not back:
        return lost
    _forget(repo, remote, back)
    return {c: m for c, m in lost.items() if c not in back}


def _keep_path(repo: Repo, remote: str) -> str:
    return _path(repo, remote) + ".keep"


def note_keeps(repo: Repo, remote: str, data: bytes) -> None:
    """A push (the pre-push hook's input ``data``) that creates or moves a
    ``refs/heads/hn-anchor/*`` branch on ``remote`` while something is remembered for it: noted
    (``<record>.keep``), so that the next ``still_lost`` asks the remote whether it landed
    (``kept_there``). Only then: before the push ends nothing can tell, and a rejected or dry-run
    push keeps nothing. Where a remote-tracking ref follows the branch this is not needed, but
    a push-only remote (no fetch refspec) has none: an audit found the reminder there after
    its command was followed, at every push."""
    from ...store import private

    if b"refs/heads/hn-anchor/" not in data or not os.path.exists(_path(repo, remote)):
        return
    zero = "0" * repo.oid_hex_len
    if not any(len(p) == 4 and p[1] != zero and p[2].startswith("refs/heads/hn-anchor/")
               for p in (line.split(" ") for line in lines_of(data.decode("utf-8", "replace")))):
        return
    try:
        private.write_private(repo.hn_dir, _keep_path(repo, remote), b"", derived=True)
    except (HnError, OSError):
        pass


def _kept_by_a_push(repo: Repo, remote: str, left: dict[str, str], timeout: float) -> dict[str, str]:
    """``left``, without what an earlier push's ``hn-anchor`` branch put back (``note_keeps``),
    asked of the remote's push URL (within ``timeout`` seconds); the note goes once the remote
    answered (or cannot be asked: several push URLs). One that did not answer keeps it, and the
    next push or sync asks again: an audit found the note dropped unanswered, and every later
    push repeating a reminder its command had already ended."""
    path = _keep_path(repo, remote)
    if not os.path.exists(path):
        return left
    from .given_record import push_urls

    urls = push_urls(repo, remote)
    if len(urls) == 1:
        rest = _kept(repo, remote, urls[0], left, timeout)
        if rest is None:
            return left
        left = rest
    try:
        os.unlink(path)
    except OSError:
        pass
    return left


def _off(repo: Repo, remote: str, commits: dict, sent: tuple[str, ...]) -> set[str] | None:
    """What ``commits`` reach that no remote-tracking ref of ``remote`` nor ``sent`` contains:
    each of them itself while it is off (one ``rev-list``; None when Git fails). ``sent`` goes
    on its standard input, once each and only object IDs: an audit's push of 80,000 tags put
    every one on the command line, over the system's limit, and the push was refused."""
    from .gate import tracking  # (only while a commit is remembered)

    negatives = "".join(f"^{t}\n" for t in dict.fromkeys(sent) if is_oid(t))
    walk = repo.git.run(["rev-list", "--ignore-missing", "--stdin", "--not", *tracking(repo, remote, ("HEAD",))],
                        input=("".join(f"{c}\n" for c in commits) + negatives).encode())
    return set(walk.stdout.decode("ascii", "replace").split()) if walk.returncode == 0 else None


def reminder(repo: Repo, remote: str, lost: dict[str, str], stale: bool = False) -> str:
    """The reminder for ``lost``, its command pushing what this clone has of them (``tips``);
    ``stale``: the remote could not be asked now, so it says what the last fetch showed."""
    kept, absent = tips(repo, lost)
    return line(remote, lost, kept, absent, stale)


def tips(repo: Repo, lost: dict[str, str]) -> tuple[list[str], list[str]]:
    """(the fewest of the commits of ``lost`` this clone has that contain all it has of them,
    none an ancestor of another: one ``merge-base --independent``, in the record's order; those
    it does not have). An audit: the reminder named one of several commits, following it put
    back only that one, and the next push asked for the next; a review: a commit gone from this
    clone in the one command made it fail whole (``fatal: bad object``)."""
    commits = list(lost)
    here = [c for c, present in zip(commits, repo.git.presence(commits)) if present]
    absent = [c for c in commits if c not in here]
    if len(here) < 2:
        return here, absent
    walk = repo.git.run(["merge-base", "--independent", *here])
    independent = set(walk.stdout.decode("ascii", "replace").split()) if walk.returncode == 0 else set(here)
    return [c for c in here if c in independent], absent


def line(remote: str, lost: dict[str, str], tips: list[str] | None = None, absent: list[str] = (),
         stale: bool = False) -> str:
    """The reminder, in one line, naming commits and the memory by 12 characters (the command
    keeps full commit IDs); its command pushes ``tips`` (``tips()``: they contain every
    commit of ``lost`` this clone has; the first commit when none is given: for a clone that has
    it), and ``absent`` (commits this clone does not have) are named apart, with the fetch by ID
    that brings one back if the remote still has the object; when this clone has none of them
    (``tips`` empty), the command is that fetch of them all, then their push. Then, for a commit
    taken off on purpose only (or, none being here, that no one has), how to end the reminder by
    hand (``forget``), which puts nothing back. ``stale``: said "as of your last fetch" (the remote could not be asked now)."""
    commit, memory = next(iter(lost.items()))
    n = len(lost)
    from shlex import quote  # (a command to paste: an audit's remote x$(touch${IFS}/tmp/PWNED) ran)

    from ...core.gostr import short_id

    # a person's line names commit and memory by 12 characters, as the pre-push "takes ... off"
    # line does (a review: two full IDs and the command's made it unreadable); the command keeps
    # full commit IDs, which a clone that has them pushes as printed
    # (a trial: with the commit gone from this clone too, the push it was told to run failed with
    # "fatal: bad object"; the server may still hold the object, which a fetch by its ID brings)
    nowhere = tips is not None and not tips and bool(absent)  # none of them is in this clone
    keep = " ".join(f"{t}:refs/heads/hn-anchor/{t[:12]}" for t in (absent if nowhere else tips or [commit]))
    what = f"commit {commit[:12]}" if n == 1 else f"{n} commits (first: {commit[:12]})"
    text = (f"{what}, which memory {short_id(memory)} {'is' if n == 1 else 'and others are'} anchored on, "
            f"{'is' if n == 1 else 'are'} no longer on any branch of {remote}"
            f"{f' as of your last fetch of {remote}' if stale else ''} (a force-push, or a branch deleted or "
            f"squash-merged there): "
            f"whoever imports {'its stream' if n == 1 else 'their streams'} from {remote} stops there; ")
    it = "it" if len(absent) == 1 else "them"
    if nowhere:
        text += (f"{'it is' if len(absent) == 1 else 'they are'} not in this clone either: git fetch {quote(remote)} "
                 f"{' '.join(absent)} && git push {quote(remote)} {keep} puts {it} back if {remote} still has the "
                 f"object{'' if len(absent) == 1 else 's'} (a clone that has {it} pushes {it} alike)")
    else:
        text += (f"a clone that has {'it' if n == 1 else 'them'} puts {'it' if n == 1 else 'them'} back with git push "
                 f"{quote(remote)} {keep}")
    if tips and absent:
        from .outcomes import counted

        text += (f"; {counted(len(absent), 'of them is', 'of them are')} not in this clone (first: {absent[0][:12]}): "
                 f"git fetch {quote(remote)} {absent[0]} brings it if {remote} still has it, or a clone that has it "
                 "pushes it alike")
    # (a team trial: "if the memory needs it no more, ... forget-anchors ends this reminder" read as
    # a routine way out, yet every importer needs the anchor: forgetting only hid the problem from
    # the one person who can fix it. It is offered for a commit taken off on purpose alone)
    if nowhere:  # (then forgetting is also the way out when no one has the commit any more)
        purpose = f"if no one has {it}, or {'it was' if n == 1 else 'they were'} taken off on purpose (a secret)"
    else:
        purpose = f"only if {'it was' if n == 1 else 'they were'} taken off on purpose (a secret)"
    if n == 1:
        return (f"{text}; {purpose}, git hn replication forget-anchors "
                f"{quote(remote)} {commit[:12]} ends this reminder, and importers still stop at the memory")
    return (f"{text}; {purpose}, git hn replication forget-anchors "
            f"{quote(remote)} COMMIT... ends the reminder (with no COMMIT, for all of them), and importers still "
            "stop at those memories")


def not_held(repo: Repo, commits: list[str], tips: list[str]) -> set[str] | None:
    """Those of ``commits`` (all here) that none of ``tips`` (all here) contains: one ``rev-list``,
    none when there is nothing to ask; None when Git fails."""
    if not commits or not tips:
        return set(commits)
    walk = repo.git.run(["rev-list", "--stdin"],
                        input=("".join(f"{c}\n" for c in commits) + "".join(f"^{t}\n" for t in tips)).encode())
    if walk.returncode != 0:
        return None
    beyond = set(walk.stdout.decode("ascii", "replace").split())
    return {c for c in commits if c in beyond}
