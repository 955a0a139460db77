"""Own memory streams whose ref was deleted or moved back outside git-hn (docs/decisions.md).

Memory refs keep no reflog (``core.logAllRefUpdates`` does not cover ``refs/hn``), so a trial's
``git update-ref -d refs/hn/memory/<you>/<stream>``, a ``git update-ref`` to an older commit of
the stream, or a forced ``git fetch origin '+refs/hn/memory/*:refs/hn/memory/*'`` took the
user's unpublished memories out of every read without a word, and the next ``record`` signed a
new memory at a sequence the key had signed already: the same key, two memories at one place of
one stream, which every clone that sees both calls a fork.

Owns the record ``<common-gitdir>/hn/rewound-v0`` (``<ref> <tip> <count>`` lines) and its three
uses. *Noting*: when the verified state's refresh (``stateview.update``, under the state's
exclusive lock) moves a local stream ref that no longer contains the tip the state recorded
for it (deleted, or moved to a commit that does not descend from it), the memories of the old
chain that no verified chain holds any more are lost; unless every one of them is a memory
git-hn itself signed again or dropped (``reanchor``'s renames record, which its rewrites write
before they move a ref: ``reanchor --drop``, re-anchoring, ``sync --rebase``), the ref, the old
tip and how many were lost are noted. git-hn's own appends update the state with the ref
(``stateview.staged``), so they never look like a move. *Saying*: every read names the active
identity's noted streams in one line, with ``git update-ref REF TIP`` while the tip's commit is
here. *Refusing*: an append to a noted stream is refused (``append``): it would sign a sequence
the key already signed. An entry goes once a ref of its stream (the local one, or an accepted
copy) contains its tip again. The record survives the state: a state discarded and rebuilt
knows no old tip, and what it did not note before is not noted after (said in decisions.md),
except a state set aside because it disagreed with Git (``store.aside``): ``settle`` compares its
tips with every ref before any state is refreshed or built, and before every append.

Costs nothing when nothing moved back: the refresh looks only at changes it computes anyway, and
the reads and appends ask one ``lstat`` of the record; Git is asked only while it holds an entry
of the active identity. Trusts the verified state and its own record, which only ever names refs
and commits to check again in Git.
"""

from __future__ import annotations

import os

from ..core.grammar import LOCAL_PREFIX, is_oid, local_ref, parse_local_ref
from ..core.tuples import NamedTuple
from ..errors import ConflictError, HnError, LocalStateError
from .repo import Repo

RECORD = "rewound-v0"
MAX_SEQUENCE = 10 ** 12 - 1  # (what the record keeps: 12 digits)
KEPT = 1024  # entries kept (the newest): only streams of this clone's identities are noted
MAX_BYTES = 1 << 16


class Lost(NamedTuple):
    ref: str  # refs/hn/memory/<actor>/<hex>
    tip: str  # the commit the ref no longer contains
    count: int  # memories of that chain no verified chain held any more when it was noted
    sequence: int = 0  # the sequence of that tip (0: not recorded, by an earlier version)

    def owner(self) -> tuple[str, str] | None:
        return parse_local_ref(self.ref)


def path(repo: Repo) -> str:
    return os.path.join(repo.hn_dir, RECORD)


def read(repo: Repo) -> list[Lost]:
    """The entries, oldest first; [] after one ``lstat`` when there is no record."""
    if not os.path.lexists(path(repo)):
        return []
    from . import private

    try:
        data = private.read_private(repo.hn_dir, path(repo), MAX_BYTES) or b""
    except (HnError, OSError):
        return []
    out = []
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) in (3, 4) and parse_local_ref(parts[0]) and is_oid(parts[1]) \
                and all(p.isascii() and p.isdigit() and len(p) <= 12 for p in parts[2:]):
            out.append(Lost(parts[0], parts[1], *map(int, parts[2:])))
    return out


def _write(repo: Repo, entries: list[Lost]) -> None:
    from . import private

    if not entries:
        try:
            os.unlink(path(repo))
        except FileNotFoundError:
            pass
        return
    text = "".join(f"{e.ref} {e.tip} {e.count} {e.sequence}\n" for e in entries[-KEPT:])
    private.write_private(repo.hn_dir, path(repo), text.encode("ascii"))


# ---------------------------------------------------------------------------------------------
# noting (the state's refresh, under its exclusive lock)


def moved_off(conn, changes: list, removed: list[str]) -> list[tuple]:
    """(ref, stored tip, memory IDs above what the new chain keeps, the tip's sequence) of each
    local stream ref the
    refresh is about to move off the tip the state recorded: deleted, or not a forward move.
    Read before ``state.apply`` changes the tables; nothing is asked for other changes."""
    moved = []
    for ch in changes:
        old = ch.source.remote is None and ch.old
        if old and not (ch.base_sid == old.sid and ch.base_seq == old.length):
            moved.append((ch.source.ref, old.sid, old.head, ch.base_seq if ch.base_sid == old.sid else 0,
                          old.length))
    for ref in removed:
        if ref.startswith(LOCAL_PREFIX):
            row = conn.execute("SELECT sid, head, length FROM sources WHERE ref = ?", (ref,)).fetchone()
            if row is not None:
                moved.append((ref, row[0], row[1], 0, row[2]))
    return [(ref, head, [r[0] for r in conn.execute("SELECT id FROM chain WHERE sid = ? AND seq > ? ORDER BY seq",
                                                       (sid, keep))], length)
            for ref, sid, head, keep, length in moved]


# ---------------------------------------------------------------------------------------------
# a state set aside because it disagreed with Git (``store.aside``): its tips, compared


def settle(repo: Repo, refuse: bool = False) -> bool:
    """Under the state's exclusive lock: note each own stream ref the aside knew that no longer
    contains the tip it recorded, then drop the aside once no such ref is left at its recorded tip.
    Returns whether a state that verified every ref may drop it too: False while it is kept
    because it could not be read or compared, or a loss it found could not be noted (a review: the
    aside was dropped all the same, and the next record signed a sequence again); ``refuse`` (an
    append) then raises the refusal, saying what to fix. One ``lstat`` when there is none; else
    one listing of every memory ref, and one ``git merge-base --is-ancestor`` for each own ref
    that changed (for an aside not vouched for, ``_unvouched_moved``'s three processes)."""
    from . import aside

    if not os.path.lexists(aside.paths(repo)[0]):
        return True
    from . import statedb, streams

    opened = aside.open_to_compare(repo)
    if opened is None:
        return False  # (kept: it cannot be read safely, so nothing it says is used)
    conn, vouched = opened
    try:
        listing = streams.list_sources(repo)  # every ref: a scoped listing makes the others look deleted
        found, left = (_aside_moved if vouched else _unvouched_moved)(repo, conn, listing)
    except statedb.sqlite3.Error:
        if not vouched:
            aside.drop(repo)  # (no database: it says nothing)
        return False
    except (HnError, OSError):
        return False  # (compared by the next command; kept meanwhile)
    finally:
        conn.close()
    if found:
        try:
            _write(repo, _merged(repo, read(repo), found))
        except (HnError, OSError) as exc:
            if refuse:
                raise _unnotable(repo, exc) from None
            return False  # (kept: the next append refuses until it can be noted)
    if not left:
        aside.drop(repo)
    return True


def _unnotable(repo: Repo, exc: BaseException) -> LocalStateError:
    """The refusal of an append whose stream's loss the record (``rewound-v0``) cannot note."""
    import shlex
    import stat

    from ..errors import chmod_way_out
    from .private import cause

    where = path(repo)
    try:
        st = os.lstat(where)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        why = "it is a directory" if stat.S_ISDIR(st.st_mode) else "it is not a regular file"
        fix = f"remove it (rm -r {shlex.quote(where)}: git-hn writes a file there)"
    elif st is not None and stat.S_IMODE(st.st_mode) & ~0o600:
        why = f"its mode {stat.S_IMODE(st.st_mode):04o} lets others read or change it"
        fix = f"close it to others (chmod 600 {shlex.quote(where)})"
    else:
        why = cause(exc) if isinstance(exc, OSError) else "it cannot be replaced"
        fix = chmod_way_out(repo.hn_dir, repo.hn_dir, recursive=True)
    return LocalStateError(f"your own memory stream moved off a tip that git-hn verified, and the record of "
                           f"lost streams, {where}, cannot be written to note it ({why}); nothing was signed: "
                           f"{fix}, then run the command again")


def settle_now(repo: Repo) -> None:
    """``settle`` under the state's exclusive lock, for an append (which holds only its stream's
    lock): one ``lstat`` when there is no aside. A lock that stays taken refuses the append
    (``statedb.locked``'s ``ConflictError``): it cannot know whether it would sign a sequence again."""
    from . import aside, statedb

    if not os.path.lexists(aside.paths(repo)[0]):
        return
    try:
        with statedb.locked(repo, exclusive=True):
            settle(repo, refuse=True)
    except statedb.Unwritable:  # (the loss cannot be noted: nothing is signed until it can be)
        if _unnoted(repo):
            from ..errors import chmod_way_out

            mem = statedb.paths(repo)[0]
            raise LocalStateError(f"your own memory stream moved off a tip that git-hn verified, and {mem} "
                                  f"cannot be written to note it; nothing was signed: "
                                  f"{chmod_way_out('it', repo.hn_dir, recursive=True)}, then run the command "
                                  "again") from None


def _unnoted(repo: Repo) -> bool:
    """Whether the aside names an own ref moved off its tip (read only)."""
    from . import aside, statedb, streams

    opened = aside.open_to_compare(repo)
    if opened is None:
        return False
    conn, vouched = opened
    try:
        return bool((_aside_moved if vouched else _unvouched_moved)(repo, conn, streams.list_sources(repo))[0])
    except (HnError, OSError, statedb.sqlite3.Error):
        return True  # (it cannot be told: refused, as above)
    finally:
        conn.close()


def _aside_moved(repo: Repo, conn, listing: list) -> tuple[list[Lost], bool]:
    """(``Lost`` of each own ref moved off the tip the aside recorded, whether an own ref is
    still at its recorded tip)."""
    from .renames import replaced

    heads = {s.ref: s.head for s in listing}
    copies: dict = {}  # (actor, stream) -> the heads of all its refs now, local and accepted
    for s in listing:
        copies.setdefault((s.actor, s.stream), set()).add(s.head)
    found, left, renamed = [], False, None
    for sid, ref, head, length in conn.execute("SELECT sid, ref, head, length FROM sources").fetchall():
        owner = parse_local_ref(ref) if isinstance(ref, str) else None
        if not owner or not is_oid(head) or not isinstance(length, int) or not 0 < length <= MAX_SEQUENCE \
                or not os.path.exists(repo.identity_path(owner[0])):
            continue
        now = heads.get(ref)
        if now == head:
            left = True
            continue
        if now and repo.git.run(["merge-base", "--is-ancestor", "--end-of-options", head, now]).returncode == 0:
            continue  # (moved forward)
        rows = conn.execute('SELECT seq, "commit", id FROM chain WHERE sid = ? ORDER BY seq', (sid,)).fetchall()
        held = copies.get(owner, set())
        kept = max((seq for seq, commit, _id in rows if isinstance(seq, int) and commit in held), default=0)
        lost = [i for seq, _commit, i in rows if isinstance(seq, int) and seq > kept and isinstance(i, str)]
        if lost and renamed is None:
            renamed = replaced(repo)
        lost = [i for i in lost if i not in (renamed or ())]
        if lost:
            found.append(Lost(ref, head, len(lost), length))
    return found, left


def _unvouched_moved(repo: Repo, conn, listing: list) -> tuple[list[Lost], bool]:
    """``_aside_moved`` for an aside whose seal does not match (no seal, edited, or copied without
    its file times): it only names the tips. A tip is noted only when Git shows it to be a memory
    commit (its tree names ``memory.json``) that no ref of its stream contains, with its sequence
    and the memories lost counted by Git, never taken from the aside: a made-up tip (a review's
    planted file) notes nothing. Three git processes for each own ref that changed."""
    from .renames import replaced

    heads = {s.ref: s.head for s in listing}
    copies: dict = {}  # (actor, stream) -> the heads of all its refs now, local and accepted
    for s in listing:
        copies.setdefault((s.actor, s.stream), set()).add(s.head)
    git = repo.git.without_lazy_fetch()
    found, left, renamed = [], False, None
    for sid, ref, head in conn.execute("SELECT sid, ref, head FROM sources").fetchall():
        owner = parse_local_ref(ref) if isinstance(ref, str) else None
        if not owner or not is_oid(head) or not os.path.exists(repo.identity_path(owner[0])):
            continue
        if heads.get(ref) == head:
            left = True
            continue
        if git.run(["rev-parse", "--verify", "-q", "--end-of-options", f"{head}^{{commit}}:memory.json"]).returncode:
            continue  # (no memory commit here: nothing Git shows was lost)
        proc = git.run(["rev-list", head, "--not", *sorted(copies.get(owner, ())), "--"])
        count = git.run(["rev-list", "--count", head, "--"])
        if proc.returncode or count.returncode or not count.stdout.strip().isdigit():
            continue
        ids = dict(r for r in conn.execute('SELECT "commit", id FROM chain WHERE sid = ?', (sid,)).fetchall()
                   if all(isinstance(v, str) for v in r))
        lost = proc.stdout.decode("ascii", "replace").split()
        if lost and renamed is None:
            renamed = replaced(repo)
        lost = [c for c in lost if ids.get(c) not in (renamed or ())]
        sequence = int(count.stdout.strip())
        if lost and 0 < sequence <= MAX_SEQUENCE:
            found.append(Lost(ref, head, len(lost), sequence))
    return found, left


def note(repo: Repo, conn, moved: list[tuple]) -> None:
    """After ``state.apply``: note each of ``moved`` (``moved_off``) whose memories no verified
    chain holds any more, unless git-hn itself signed all of those again or dropped them. Best
    effort: a record that cannot be written only leaves the loss unsaid, as before it existed."""
    from .state import chunks, marks

    found = []
    renamed = None
    for ref, tip, ids, length in moved:
        owner = parse_local_ref(ref)
        # only streams of an identity of this clone (a review: a remote's 64 deleted refs of another
        # actor, fetched through the user's forced refspec, pushed the user's own entry out)
        if not owner or not os.path.exists(repo.identity_path(owner[0])):
            continue
        held: set[str] = set()
        for part in chunks(ids):
            held.update(r[0] for r in conn.execute(f"SELECT id FROM memories WHERE id IN ({marks(len(part))})", part))
        lost = [i for i in ids if i not in held]
        if not lost:
            continue
        if renamed is None:
            from .renames import replaced

            renamed = replaced(repo)
        lost = [i for i in lost if i not in renamed]
        if lost:
            found.append(Lost(ref, tip, len(lost), length if isinstance(length, int) else 0))
    record(repo, found)


def record(repo: Repo, found: list[Lost]) -> None:
    """Note ``found`` (under the state's lock). Best effort: a record that cannot be written
    only leaves the loss unsaid, as before it existed."""
    if not found:
        return
    try:
        _write(repo, _merged(repo, read(repo), found))
    except (HnError, OSError):
        pass


def _merged(repo: Repo, entries: list[Lost], found: list[Lost]) -> list[Lost]:
    """``entries`` with ``found`` noted: a ref moved back again before it was restored keeps one
    entry, the tip that contains the other (its restore brings back both losses; two entries
    would have told the user to restore one tip, then move the ref back to the other). One
    ``git merge-base --is-ancestor`` for each entry of the same ref, only then."""
    def contains(tip: str, other: str) -> bool:
        return tip == other or repo.git.run(["merge-base", "--is-ancestor", "--end-of-options", other,
                                             tip]).returncode == 0

    for f in found:
        same = [e for e in entries if e.ref == f.ref]
        over = next((e for e in same if contains(e.tip, f.tip)), None)
        if over is not None:
            entries = [e._replace(count=e.count + (f.count if e.tip != f.tip else 0),
                                  sequence=max(e.sequence, f.sequence)) if e == over else e
                       for e in entries]
            continue
        under = {e for e in same if contains(f.tip, e.tip)}
        entries = [e for e in entries if e not in under] + [f]
    return entries


# ---------------------------------------------------------------------------------------------
# saying and refusing


class Standing(NamedTuple):
    lost: Lost
    here: bool  # the tip's memory is still in this clone (``git update-ref REF TIP`` restores it)
    commit_here: bool = False  # (not ``here``) the tip's commit is, only its memory object is gone


def standing(repo: Repo, actor: str | None, stream: str | None = None) -> list[Standing]:
    """The entries of ``actor``'s streams (of ``stream`` only, if named) that no ref of their
    stream contains again: entries that one does are forgotten. One ``lstat`` when there is no
    record; Git is asked (the tips' presence, then one ``for-each-ref --contains`` each) only for
    entries of ``actor``."""
    if not actor:
        return []
    mine = [e for e in read(repo) if e.owner() and e.owner()[0] == actor
            and (stream is None or e.ref == local_ref(actor, stream))]
    if not mine:
        return []
    # (the tip's memory, not only its commit: a tip whose object was lost is no restore: a review)
    present = [i is not None for i in repo.git.without_lazy_fetch().infos_bulk(
        [f"{e.tip}:memory.json" for e in mine], oneshot=True)]
    missing = [e.tip for e, here in zip(mine, present) if not here]
    commits = iter([i is not None and i[1] == "commit" for i in repo.git.without_lazy_fetch().infos_bulk(
        missing, oneshot=True)])  # (what is gone, said by name: a review found "the commit" said of its blob)
    out, back = [], []
    for e, here in zip(mine, present):
        if here and _contained(repo, e):
            back.append(e)
        else:
            out.append(Standing(e, here, False if here else next(commits)))
    if back:
        _forget(repo, back)
    return out


def _contained(repo: Repo, e: Lost) -> bool:
    a, hexid = e.ref[len(LOCAL_PREFIX):].split("/")
    proc = repo.git.run(["for-each-ref", "--count=1", "--format=%(refname)", "--contains", e.tip,
                         "--end-of-options", e.ref, f"refs/hn/remotes/*/memory/{a}/{hexid}"])
    return proc.returncode == 0 and bool(proc.stdout.strip())


def _forget(repo: Repo, back: list[Lost]) -> None:
    """Drop ``back`` from the record, under the state's lock (the refresh writes it there); left
    for the next read when the lock is busy."""
    from . import statedb

    try:
        with statedb.locked(repo, exclusive=True, wait=0.5):
            _write(repo, [e for e in read(repo) if e not in back])
    except (ConflictError, statedb.Unwritable, HnError, OSError):
        pass


def _memories(n: int) -> str:
    return f"{n} {'memory' if n == 1 else 'memories'}"


def _way(found: list[Standing], mcp: bool = False) -> str:
    """What puts the streams of ``found`` back, or (their tips pruned) what to do instead."""
    refs = {s.lost.ref: s for s in reversed(found)}  # (one entry a ref: its first, ``_merged`` keeps them apart)
    here = [s.lost for s in found if s.here and refs[s.lost.ref] is s]
    gone = [s for s in found if not s.here]
    parts = []
    if here:
        parts.append(" && ".join(f"git update-ref {e.ref} {e.tip}" for e in here)
                     + f" restores {'it' if len(here) == 1 else 'them'}")
    if gone:
        e = gone[0].lost
        other = '"stream": "label:NAME"' if mcp else "--stream label:NAME (or git config hn.stream label:NAME)"
        whose = "its" if len(found) == 1 else "the"
        if gone[0].commit_here:  # (only its memory object is gone: a plain fetch would not send it again)
            what = (f"{whose} tip commit {e.tip[:12]} is here but its memory object is no longer in this clone "
                    f"(pruned or damaged): a clone or backup that has it can put it back (git fetch --refetch it, "
                    f"then git update-ref {e.ref} {e.tip})")
        else:
            what = (f"{whose} tip commit {e.tip[:12]} is no longer in this clone (pruned or damaged): a clone or "
                    f"backup that has it can put it back (git fetch it, then git update-ref {e.ref} {e.tip})")
        parts.append(f"{what}; else record to another stream of yours with {other}")
    return "; ".join(parts)


def warning(found: list[Standing], mcp: bool = False) -> str:
    """The one line a read says of ``found`` (``standing``), "" for none."""
    if not found:
        return ""
    first = found[0].lost
    n = sum(s.lost.count for s in found)
    what = (f"your memory stream {first.ref.rsplit('/', 1)[1][:12]}" if len(found) == 1 else
            f"{len(found)} of your memory streams (first: {first.ref.rsplit('/', 1)[1][:12]})")
    return (f"{what} lost {_memories(n)} outside git-hn: {'its ref was' if len(found) == 1 else 'their refs were'} "
            f"deleted or moved back from {'commit ' + first.tip[:12] if len(found) == 1 else 'their tips'}, so "
            f"recall, the brief and log leave {'it' if n == 1 else 'them'} out, and git-hn signs nothing more "
            f"there (it would sign {'its sequence' if n == 1 else 'their sequences'} again): {_way(found, mcp)}")


def refusal(repo: Repo, actor: str, stream: str, sequence: int) -> LocalStateError | None:
    """The error an append of ``actor`` to ``stream`` at ``sequence`` gets while the stream's
    tip is lost (``standing``) and that tip's sequence is ``sequence`` or later (an append past
    it signs no sequence twice: a review found streams refused at sequences never signed), else
    None. A state set aside first has its tips compared with the refs (``settle_now``: one
    ``lstat`` when there is none), whatever command built or refreshed the state since."""
    settle_now(repo)
    found = [s for s in standing(repo, actor, stream) if not s.lost.sequence or sequence <= s.lost.sequence]
    if not found:
        return None
    e = found[0].lost
    head = (f"memory stream {stream[len('sha256:'):][:12]} of yours lost {_memories(e.count)} outside git-hn (its "
            f"ref was deleted or moved back from commit {e.tip[:12]}), and a memory signed at its sequence "
            f"{sequence} would be the second this key signed there (a fork of the stream); nothing was signed: ")
    return LocalStateError(head + _way(found[:1]), mcp=head + _way(found[:1], mcp=True))
