"""What each remote was given of the local streams: a journal that outlives the verified state.

Owns ``<common-gitdir>/hn/replication/given-v0``: one line ``<remote> <ref> <head>`` for each
tip a publication gave a remote; and ``offered-v0``, one line ``<remote> <ref> <head> <owner>
<push pid> <time>`` for each tip a push is sending, until its answer is read (a publication stopped
there leaves them: its ``git push`` may have gone on, and they count as given until a sync's
advertisement, read once those processes ended, settles them). Trusts: this repository's
private directory.

Re-anchoring and ``sync --rebase`` sign memories again only when no remote was given them
(§11(a) item 3: git-hn never knowingly creates divergence). The verified state keeps the same
record for speed (``state.record_published``), but the state is derived: a rebuild, a new
version of git-hn or a copied repository discards it, and a memory already published then looked
unpublished, was signed a second time at the same sequence, and the clone equivocated. So the
record that decides is this file: appended (and fsynced) after every publication, never
discarded with the state, and read together with the state's copy (``store.reanchor.given``,
which rebuilds a state it cannot read; when neither can be read, nothing can say what was
published, and callers refuse to sign again). It is created at the first publication, or when a
state that recorded publications is discarded (with what that state recorded, for clones that
published with an earlier git-hn); it is compacted to the newest line of each (remote, ref) once
it passes ``COMPACT_AT`` (a remote's tips only move forward).
Remote names hold no space or newline (Git refuses them), so a line splits from the right. What
one of a remote's several push URLs took is kept under a key of its own, the remote's name, a
space and a digest of that URL (``remote_of`` names the remote), and under the remote's name only
what every one of them holds (``service.replication.push_targets``).

``pushed-v0`` says which of those tips ``git push`` itself gave, and when: one line ``<remote>
<ref> <head> <unix seconds>`` for each stream a pre-push hook's publication moved (in the
background or, with ``hn.prePush block``, in the hook), kept ``PUSHED_WINDOW`` seconds (a
newcomer who had just recorded and pushed read sync's "up to date" as "nothing was published":
``pushed_lately`` lets sync say what the push did). Advice only: derived and best effort, but
read, changed and replaced whole under the replication directory's lock (``_records_lock``, as the
offered record is), so two publishers at once both land; a file that is missing, unsafe,
malformed or over ``PUSHED_MAX`` bytes means "nothing said". A push URL of a remote that pushes
elsewhere than it fetches has lines of its own, under that URL's key (``remote_of``), never under
the remote's name.
"""

from __future__ import annotations

import errno
import os
import stat

from ..core.grammar import is_oid
from ..core.lines import lines_of
from ..errors import HnError, LocalStateError
from . import private
from .process import running
from .repo import Repo

NAME = "given-v0"
COMPACT_AT = 4 << 20
MAX_BYTES = 64 << 20


def path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "replication", NAME)


def _line(remote: str, ref: str, head: str) -> str:
    return f"{remote} {ref} {head}\n"


def read(repo: Repo) -> list[tuple[str, str, str]] | None:
    """(remote, ref, head) of every line; None when there is no journal; a damaged journal
    raises (it must not be taken for "nothing was given")."""
    data = private.read_private(repo.hn_dir, path(repo), max_bytes=MAX_BYTES)
    if data is None:
        return None
    out = []
    text = data.decode("utf-8", "surrogateescape")
    # (an append a crash cut short leaves its line unterminated: that one record is lost, as a
    # crash between the push and its line loses it; the journal stays readable)
    for line in lines_of(text[:text.rfind("\n") + 1]):
        parts = line.rsplit(" ", 2)
        if len(parts) != 3 or not parts[0] or not parts[1].startswith("refs/hn/memory/") \
                or not is_oid(parts[2]):
            raise LocalStateError(f"publication journal {path(repo)} is damaged (each line is a remote, a "
                                  "memory ref and an object ID): move it aside, then run git hn sync "
                                  "with each remote, which records again what each holds")
        out.append((parts[0], parts[1], parts[2]))
    return out


def newest(repo: Repo, remote: str, refs=None) -> dict[str, str]:
    """ref -> the newest tip ``remote`` was given (of ``refs`` only, when named), for the
    publication gate when the state has no record of a ref; {} when there is no journal or it
    cannot be read (the gate then holds, or asks the remote)."""
    try:
        rows = read(repo) or ()
    except HnError:
        return {}
    want = None if refs is None else set(refs)
    return {ref: head for r, ref, head in rows if r == remote and (want is None or ref in want)}


def remote_of(key: str) -> str:
    """The remote a record's key belongs to: a key of one of a remote's several push URLs is
    its name, a space and a digest of that URL (``given_record.url_key``)."""
    return key.split(" ", 1)[0]


def note(repo: Repo, remote: str, heads: dict[str, str]) -> None:
    """Append that ``remote`` was given ``heads`` (ref -> tip), durably (created if missing)."""
    _append(repo, "".join(_line(remote, ref, head) for ref, head in sorted(heads.items())))


OFFERED = "offered-v0"  # tips a publication is pushing, until it is known what the remote took


def offered_path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "replication", OFFERED)


class Offer(tuple):
    """One line of the offered record: ``remote ref head owner push time``: the git-hn that
    offered the tip (``<pid>-<nonce>``: a process ID used again is not this owner), its
    ``git push``'s process ID (0 until it started), and when (seconds since the epoch)."""

    __slots__ = ()

    def __new__(cls, remote: str, ref: str, head: str, owner: str, push: int, time: int):
        return tuple.__new__(cls, (remote, ref, head, owner, push, time))

    remote = property(lambda self: self[0])
    ref = property(lambda self: self[1])
    head = property(lambda self: self[2])
    owner = property(lambda self: self[3])
    push = property(lambda self: self[4])
    time = property(lambda self: self[5])


_ME = f"{os.getpid()}-{os.urandom(6).hex()}"  # this process, as an offer's owner (``_me``)


def _me() -> str:
    global _ME
    if not _ME.startswith(f"{os.getpid()}-"):  # (a forked child is another owner)
        _ME = f"{os.getpid()}-{os.urandom(6).hex()}"
    return _ME


# A stopped push's offer is settled as not given only this long after it was made: a server's
# receive-pack may still apply a push for a while after its client died (ssh, https)
SETTLE_AFTER = 600


def _read_offers(repo: Repo) -> list[Offer]:
    import re

    data = private.read_private(repo.hn_dir, offered_path(repo), max_bytes=MAX_BYTES)
    out = []
    for line in lines_of((data or b"").decode("utf-8", "surrogateescape")):
        parts = line.rsplit(" ", 5)
        if len(parts) != 6 or not parts[0] or not parts[1].startswith("refs/hn/memory/") or not is_oid(parts[2]) \
                or not re.fullmatch(r"[0-9]+-[0-9a-f]+", parts[3]) or not re.fullmatch("[0-9]+", parts[4]) \
                or not re.fullmatch("[0-9]+", parts[5]):  # (isdigit takes "²", which int refuses)
            raise LocalStateError(f"publication record {offered_path(repo)} is damaged: move it aside only "
                                  "once git hn sync with each remote has recorded what each holds")
        out.append(Offer(parts[0], parts[1], parts[2], parts[3], int(parts[4]), int(parts[5])))
    return out


def offered(repo: Repo) -> list[tuple[str, str, str]]:
    """(remote, ref, head) of each tip a publication offered a remote and that is not known to
    be settled: a publication stopped while its ``git push`` went on (Ctrl-C, a killed
    background publisher), or one still running. The remote may hold them, so nothing signs
    them again (read with the journal, ``store.reanchor.given``); a damaged record raises, as
    the journal does."""
    return sorted({(o.remote, o.ref, o.head) for o in _read_offers(repo)})


def offer(repo: Repo, remote: str, heads: dict[str, str], push: int = 0, theirs: bool = False) -> None:
    """Before a push: record (durably) that ``remote`` may be given ``heads`` by this process (by
    the ``git push`` ``push``, when it runs already: a pre-push hook's). ``theirs``: the push is
    the user's own (memory refs pushed by hand), not one this process makes: the offer gets an
    owner of its own, so that this process's publication settling its own offers (a block-mode
    hook's, before the user's push is even sent) leaves it for a later sync to settle. Best
    effort: a record that cannot be written or read never stops a publication (a damaged one
    makes re-anchoring refuse, as a damaged journal does, until it is moved aside)."""
    import time

    if heads:
        now = int(time.time())
        owner = f"{os.getpid()}-{os.urandom(6).hex()}" if theirs else _me()
        _edit(repo, lambda rows: rows + [Offer(remote, r, h, owner, push, now) for r, h in sorted(heads.items())])


def pushing(repo: Repo, remote: str, pid: int) -> None:
    """This process's offers to ``remote`` are being pushed by the ``git push`` ``pid``."""
    me = _me()
    _edit(repo, lambda rows: [Offer(*o[:4], pid, o.time) if o.owner == me and o.remote == remote else o
                              for o in rows])


def settled(repo: Repo, remote: str, given: dict[str, str], answered: set | None) -> None:
    """After this process's push to ``remote`` answered (what it gave journalled): its own offers
    of the refs the answer named (``answered``; None: every ref) are settled, given or not, and
    another's offer of exactly a tip it gave. The rest stay for ``settle_stopped``: a push that
    failed without naming a ref (a connection lost after the server took it) may have given it,
    and this push's answer says nothing of a push that may still be running."""
    me = _me()

    def done(o: Offer) -> bool:
        if o.owner == me:
            return answered is None or o.ref in answered or o.ref in given
        return given.get(o.ref) == o.head

    _edit(repo, lambda rows: [o for o in rows if o.remote != remote or not done(o)])


def settle_stopped(repo: Repo, remote: str, advertised: dict[str, str], judge, now: float | None = None) \
        -> dict[str, str]:
    """Settle the offers to ``remote`` of publications that were stopped, once their git-hn and
    their ``git push`` have ended, by the remote's ``advertised`` tips: an offer the remote holds
    (the tip, or one that contains it: ``judge(pairs)`` answers for every (tip, head) pair at
    once, True, False or None when it cannot tell) was given (the journal gets it: returned,
    ref -> tip). One it does not hold (the ref absent, or a tip below it) is dropped only
    ``SETTLE_AFTER`` seconds after it was made (a server may still be applying that push);
    undecided ones (the remote's tip not known here) stay."""
    import time

    now = time.time() if now is None else now
    given: dict[str, str] = {}

    def edit(rows: list[Offer]) -> list[Offer]:
        keep, ended = [], []
        for o in rows:
            if o.time > now + 60:  # (made while the clock was ahead: counted from now, not from then)
                o = Offer(*o[:5], int(now))
            pid = int(o.owner.split("-", 1)[0])
            if o.remote != remote or o.owner == _me() or running(pid, (b"git-hn", b"git_hn")) \
                    or (o.push and running(o.push, (b"push",))):
                keep.append(o)
            else:
                ended.append(o)
        pairs = sorted({(advertised[o.ref], o.head) for o in ended if o.ref in advertised})
        verdicts = judge(pairs) if pairs else {}
        for o in ended:
            tip = advertised.get(o.ref)
            verdict = False if tip is None else verdicts.get((tip, o.head))  # True, False, None: not known
            if verdict:
                given[o.ref] = tip
            elif verdict is None or now - o.time < SETTLE_AFTER:
                keep.append(o)
        return keep

    _edit(repo, edit)
    return given


def _edit(repo: Repo, change) -> None:
    """Read, change and write the offered record under its lock; best effort."""
    try:
        with _records_lock(repo):
            rows = _read_offers(repo)
            new = change(list(rows))
            if new != rows:
                _write_offered(repo, new)
    except (HnError, OSError):
        pass


def _write_offered(repo: Repo, rows) -> None:
    if not rows:
        try:
            os.unlink(offered_path(repo))
        except FileNotFoundError:
            pass
        return
    text = "".join(f"{o.remote} {o.ref} {o.head} {o.owner} {o.push} {o.time}\n" for o in rows)
    private.write_private(repo.hn_dir, offered_path(repo), text.encode("utf-8", "surrogateescape"))


class _records_lock:
    """An exclusive lock for the read-modify-write of the offered record and of the pushed record
    (publications to two remotes may run at once): on the replication directory itself, held
    only while one of them is read, changed and replaced."""

    def __init__(self, repo: Repo):
        self.repo = repo

    def __enter__(self):
        import fcntl

        target = path(self.repo)
        private.ensure_dirs(self.repo.hn_dir, os.path.dirname(target))
        self.fd = os.open(os.path.dirname(target), os.O_RDONLY)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self.fd

    def __exit__(self, *_exc):
        os.close(self.fd)


def adopt(repo: Repo, rows) -> None:
    """Make sure the journal holds ``rows`` ((remote, ref, head), what a state about to be
    discarded recorded); best effort, never raises."""
    try:
        missing = set(rows) - set(read(repo) or ())
        if missing:
            _append(repo, "".join(_line(*r) for r in sorted(missing)))
    except (HnError, OSError):
        pass


def _append(repo: Repo, text: str) -> None:
    """Append ``text`` under an exclusive lock of the journal file (publications to two remotes
    may run at once), compacting it past ``COMPACT_AT``; a writer that waited while another
    compacted opens the new file again."""
    import fcntl

    target = path(repo)
    private.ensure_dirs(repo.hn_dir, os.path.dirname(target))
    while True:
        try:
            # (non-blocking: an audit's FIFO there held the sync, and the publisher with its lock, for good)
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0),
                         private.FILE_MODE)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # (a FIFO no one reads: a review found "No such device" said)
                raise LocalStateError(f"private identity path {target} is not a regular file: remove it") from None
            raise LocalStateError(f"publication journal {target} cannot be written: {exc.strerror}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # (before the lock: a FIFO is refused here)
                raise LocalStateError(f"private identity path {target} is not a regular file: remove it")
            fcntl.flock(fd, fcntl.LOCK_EX)
            st = os.fstat(fd)
            try:
                now = os.lstat(target)
            except FileNotFoundError:
                now = None
            if now is None or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                continue  # compacted (replaced) while this writer waited: open the new one
            private.check_file(target, st, MAX_BYTES)
            data = text.encode("utf-8", "surrogateescape")
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
            if os.fstat(fd).st_size > COMPACT_AT:
                _compact(repo)  # (under this lock: no append is lost to the rewrite)
            return
        except OSError as exc:
            raise LocalStateError(f"publication journal {target} cannot be written: {exc.strerror}") from None
        finally:
            os.close(fd)


def _compact(repo: Repo) -> None:
    """Keep the newest line of each (remote, ref), in one atomic rewrite."""
    newest: dict[tuple[str, str], str] = {}
    for remote, ref, head in read(repo) or ():
        newest[(remote, ref)] = head
    text = "".join(_line(r, ref, h) for (r, ref), h in sorted(newest.items()))
    private.write_private(repo.hn_dir, path(repo), text.encode("utf-8", "surrogateescape"))


PUSHED = "pushed-v0"  # the tips a ``git push``'s own publication gave each remote lately, and when
PUSHED_WINDOW = 600  # seconds a line is kept (and said by sync)
PUSHED_MAX = 1 << 20


def pushed_path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, "replication", PUSHED)


def _read_pushed(repo: Repo, now: float) -> list[tuple[str, str, str, int]]:
    """(remote, ref, head, time) of the lines younger than ``PUSHED_WINDOW`` ([] when the file is
    missing or cannot be trusted: a line malformed, or a time to come, doubts it all)."""
    try:
        data = private.read_private(repo.hn_dir, pushed_path(repo), max_bytes=PUSHED_MAX) or b""
        text = data.decode("utf-8", "surrogateescape")
    except (HnError, OSError):
        return []
    rows = []
    for line in lines_of(text):
        parts = line.rsplit(" ", 3)
        if len(parts) != 4 or not parts[0] or not parts[1].startswith("refs/hn/memory/") or \
                not is_oid(parts[2]) or not parts[3].isascii() or not parts[3].isdigit() or len(parts[3]) > 12:
            return []
        if int(parts[3]) > now + 60:
            return []
        rows.append((parts[0], parts[1], parts[2], int(parts[3])))
    return [r for r in rows if now - r[3] < PUSHED_WINDOW]


def note_pushed(repo: Repo, remote: str, heads: dict[str, str], now: float | None = None) -> None:
    """After a pre-push hook's publication moved ``heads`` (ref -> tip) on ``remote``: write
    them down with the time, beside the lines of the window that are still the newest of their
    (remote, ref). Best effort: never raises."""
    import time

    if not heads:
        return
    now = time.time() if now is None else now
    try:
        # (under the lock from the read to the rename: a publisher to another remote, or another
        # push's, that read the file meanwhile dropped this one's lines when it replaced it, f159)
        with _records_lock(repo):
            kept = [r for r in _read_pushed(repo, now) if r[0] != remote or r[1] not in heads]
            rows = kept + [(remote, ref, head, int(now)) for ref, head in sorted(heads.items())]
            data = "".join(f"{r} {ref} {head} {when}\n" for r, ref, head, when in rows).encode(
                "utf-8", "surrogateescape")
            if len(data) > PUSHED_MAX:
                return  # (a publication of ~7,000 streams: said by no sync, as before)
            private.write_private(repo.hn_dir, pushed_path(repo), data, derived=True)
    except (HnError, OSError):
        pass


def pushed_lately(repo: Repo, remote: str, same: dict[str, str], now: float | None = None) -> dict[str, int]:
    """When a ``git push``'s publication gave ``remote`` (or the push URL a key names) each of
    ``same`` (ref -> the local tip it holds), for those it gave at exactly that tip within
    ``PUSHED_WINDOW`` seconds: ref -> the time. One ``lstat`` when no push published lately."""
    import time

    try:
        os.lstat(pushed_path(repo))
    except OSError:
        return {}  # (the usual sync: nothing more)
    now = time.time() if now is None else now
    return {ref: when for r, ref, head, when in _read_pushed(repo, now) if r == remote and same.get(ref) == head}
