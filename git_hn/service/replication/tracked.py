"""Anchors that left a remote's branches without a push of this clone (git-hn; docs/decisions.md).

A teammate's force-push of ``main`` (or a branch deleted there) can take off the remote the
anchor commit of a memory this clone published while that commit was on ``main``: every importer
of the stream then stops at that memory, and at every later one, while the author's own
``git hn sync`` said "up to date" (a team trial). ``lost`` knows only what this clone's own
pushes took off; ``atrisk`` only anchors that were off the default branch when they were
published.

So each sync, each push and each import of the fetch hook compares ``remote``'s
remote-tracking refs with those it saw last (``check``): the tips, in
``<common-gitdir>/hn/replication/tracked-<remote digest>`` (derived, private, best effort). When
they are the same, that is all (one ``for-each-ref``: a sync or fetch hook that brought nothing
pays nothing more). When they moved, one ``rev-list`` names the commits the old tips reached and
the new ones do not (none after fast-forwards, the usual case); the memories of this clone's
own publications to ``remote`` anchored on those (``lost.held``, from the verified state) are
handed to ``atrisk``, which asks the remote itself which branches hold them and says, with
``lost``'s reminder, those no branch holds. The tracking refs only raise the question: a
tracking ref deleted by hand, or stale, never makes a reminder on its own (said nothing on a
guess). The first check in a clone only records the tips. The pre-push check records them as the
push moves them (``after_push``), once the hook lets the push go on (``check_push``): Git moves
them itself once the push lands, where no git-hn looks, and a record left as it was before the
author's push made a teammate's force-push back to it look like no move (a team trial); a push
the hook refuses leaves the record as it was (a review). So does a check that finds the verified
state busy (another git-hn updating it: asked again next time), and a push whose anchor check the
busy state, or a missing one that could not be built, kept from being done (``Repo.state_busy``,
``Repo.check_undone``: the next check walks what it took off).

The fetch hook, when it leaves its per-fetch stamp, also writes the anchor commits of this
clone's own publications to ``remote`` (``note_published``), which the wrapper reads for the
fetch's later refs.

A record made for another URL of the remote (``git remote set-url``) keeps what it saw once
the remote shows it is the same repository (``moved.same_repository``), and a renamed remote
takes its record over (``moved.adopt``), as ``lost``'s and ``atrisk``'s records do.

Trusts: this clone's remote-tracking refs to decide what to ask, the remote's answer (through
``atrisk``) to decide what to say; the remote's memory refs only to decide which record to keep.
"""

from __future__ import annotations

import os
from collections.abc import Callable  # (not ``typing``: ~3 ms of imports on a sync's path)

from ...core.grammar import is_oid
from ...core.remotes import refspec_star
from ...errors import HnError, StateBusy
from ...store.repo import Repo

MAGIC = "hn-tracked/0"
MAX_BYTES = 1 << 22  # a record larger than this (~100,000 tips) is taken as absent


def _path(repo: Repo, remote: str) -> str:
    from ...store.lock import remote_digest
    from .moved import adopt

    path = os.path.join(repo.hn_dir, "replication", f"tracked-{remote_digest(remote)}")
    adopt(repo, remote, "tracked", path)  # (``git remote rename``: as ``lost``'s and ``atrisk``'s)
    return path


def tips(repo: Repo, remote: str) -> set[str] | None:
    """The commits ``remote``'s own remote-tracking refs point at (not ``HEAD``, a symbolic ref,
    nor the refs of a remote named ``<remote>/<x>``: ``gate.tracking``); None when Git fails.
    One ``for-each-ref``; the configured remotes are asked only when a ref name leaves it open."""
    rows = _rows(repo, remote)
    return None if rows is None else set(rows.values())


def _rows(repo: Repo, remote: str) -> dict[str, str] | None:
    """``tips``, by ref: remote-tracking ref -> the object ID it points at."""
    base = f"refs/remotes/{remote}/"
    proc = repo.git.run([*_LISTING, base])
    if proc.returncode != 0:
        return None
    from ...core.lines import lines_of  # (not ``splitlines``: U+2028 may be in a ref name)

    rows = [row.split(" ", 1) for row in lines_of(proc.stdout.decode("utf-8", "surrogateescape"))]
    return _own(repo, remote, {ref: oid for oid, ref in (r for r in rows if len(r) == 2)
                               if ref != f"{base}HEAD" and is_oid(oid)})


def ask_ahead(repo: Repo, remote: str) -> None:
    """Start the Git questions ``check`` asks first, for it to collect (``Git.ask_early``): the
    listing of ``remote``'s tracking refs and, with no record yet (a first check), its URL.
    For a sync that promoted: they run while it writes its completion receipt, instead of after
    it (issue 11). A ref write through Git meanwhile drops them, and ``check`` asks again."""
    from ...store.lock import remote_digest

    try:
        repo.git.ask_early(_LISTING + (f"refs/remotes/{remote}/",))
        if not os.path.exists(os.path.join(repo.hn_dir, "replication", f"tracked-{remote_digest(remote)}")):
            repo.git.ask_early(("config", "--get", f"remote.{remote}.url"))
    except HnError:
        pass  # (``check`` asks them itself, and says nothing when Git cannot answer)


_LISTING = ("for-each-ref", "--format=%(objectname) %(refname)", "--end-of-options")


def _own(repo: Repo, remote: str, rows: dict[str, str]) -> dict[str, str]:
    """``rows`` (tracking ref -> object ID) without the refs of a remote named ``<remote>/<x>``."""
    base = f"refs/remotes/{remote}/"
    if any("/" in ref[len(base):] for ref in rows):
        from .gate import nested_prefixes

        others = nested_prefixes(repo, remote)
        return {ref: oid for ref, oid in rows.items() if not ref.startswith(others)}
    return rows


def after_push(remote: str, specs: list[str], data: bytes) -> dict[str, str]:
    """The remote-tracking refs a push (the pre-push hook's input ``data``) moves once it lands:
    tracking ref -> the object ID it sends ("" for a deletion). As Git maps each remote ref it
    updates: by the first of the remote's fetch refspecs ``specs`` that maps it under
    ``refs/remotes/<remote>/``. A negative refspec (``^``) excludes nothing here: Git 2.39 moves
    the tracking ref of a pushed branch that a negative fetch refspec names (a review checked it;
    its negative-refspec test reverses the sides, which a pushed ref never matches). No Git
    process."""
    from ...core.lines import lines_of

    out: dict[str, str] = {}
    for line in lines_of(data.decode("utf-8", "surrogateescape")):
        parts = line.split(" ")
        if len(parts) != 4 or not is_oid(parts[1]):
            continue
        dst = parts[2]
        for spec in specs:
            src, sep, to = spec.lstrip("+").partition(":")
            star = refspec_star(src, dst) if sep and not spec.startswith("^") and src.count("*") == to.count("*") \
                else None
            if star is not None:
                name = to.replace("*", star)
                if name.startswith(f"refs/remotes/{remote}/"):
                    out[name] = parts[1] if parts[1].strip("0") else ""
                break
    return out


def _read(repo: Repo, remote: str) -> tuple[str, set[str]] | None:
    """(the digest of the remote's URL the tips were seen under, the tips), or None when there
    is no record (or an unreadable one)."""
    from ...store import private

    try:
        data = private.read_private(repo.hn_dir, _path(repo, remote), MAX_BYTES)
    except (HnError, OSError):
        return None
    lines = (data or b"").decode("ascii", "replace").splitlines()
    if len(lines) < 2 or lines[0] != MAGIC or not lines[1].startswith("url "):
        return None
    return lines[1][4:], {t for t in lines[2:] if is_oid(t)}


def _write(repo: Repo, remote: str, key: str, now: set[str]) -> None:
    from ...store import private

    text = f"{MAGIC}\nurl {key}\n" + "".join(f"{t}\n" for t in sorted(now))
    try:
        private.write_private(repo.hn_dir, _path(repo, remote), text.encode("ascii"), derived=True)
    except (HnError, OSError):
        pass


def check(repo: Repo, remote: str, timeout: float | None = None) -> bool:
    """Hand ``atrisk`` the anchors of this clone's publications to ``remote`` that its
    remote-tracking refs held when last seen and no longer hold; whether any was handed (the
    caller then asks the remote now). One ``for-each-ref`` when the refs did not move; then one
    ``rev-list``, and a ``git config`` and the verified state only when a commit left them.
    Best effort: nothing is said when Git or the state cannot answer. A record made for another
    URL of ``remote`` (``git remote set-url``) keeps the commits that left only once the remote
    shows it is the same repository (``moved.same_repository``, within ``timeout`` seconds:
    ``lost.ASK_TIMEOUT`` by default); one that cannot say leaves the record as it is (asked
    again next time), and only another repository makes it record the tips alone (an audit:
    any change of URL dropped the commits a teammate's force-push took off)."""
    return _check(repo, remote, timeout)[0]


def check_push(repo: Repo, remote: str, pushed: dict[str, str]) -> tuple[bool, Callable[[], None]]:
    """``check``, for the pre-push hook: (whether an anchor was handed, the write that makes the
    record take the tracking refs as ``pushed`` (``after_push``) moves them, for the hook to call
    once it lets the push go on). Git moves them itself after the push, and no git-hn sees that
    move: a team trial's record kept main as it was before the author's push, and a teammate's
    force-push back to it looked like no move at all. A push the hook refuses (``hn.prePush
    block``) must leave the record as the check left it (a review: the refused tip was recorded,
    and a teammate's force-push off an anchor then looked like a move from that tip, unsaid). A
    push that does not land for another reason (the remote rejects it) leaves a tip in the
    record that the refs never held: the next check walks from it, and says only what the
    remote was given and its branches no longer hold. The write is a file, no Git process."""
    handed, landing = _check(repo, remote, None, pushed)
    if landing is None:
        return handed, lambda: None
    key, after = landing
    # (a check of this hook found the state busy, or none it could build, and what the push takes
    # off went unchecked: the record keeps the tips seen before it, so the next check walks what
    # the push took off)
    return handed, lambda: None if repo.state_busy or repo.check_undone else _write(repo, remote, key, after)


def _check(repo: Repo, remote: str, timeout: float | None,
           pushed: dict[str, str] | None = None) -> tuple[bool, tuple[str, set[str]] | None]:
    """``check``, and (the URL key, the tips) the record takes once ``pushed`` lands, when
    that differs from what the check wrote (None otherwise)."""
    rows = _rows(repo, remote)
    if rows is None:
        return False, None
    now = set(rows.values())
    after = now if not pushed else _landed(repo, remote, rows, pushed)
    seen = _read(repo, remote)
    if seen is not None and seen[1] == now:  # (the usual sync, fetch or push: nothing more is asked)
        return False, (seen[0], after) if after != now else None
    from .lost import url_key

    if seen is None or not seen[1]:  # (a first check: the tips only)
        key = url_key(repo, remote)
        _write(repo, remote, key, now)
        return False, (key, after) if after != now else None
    walk = repo.git.run(["rev-list", "--ignore-missing", "--stdin"],
                        input=("".join(f"{t}\n" for t in sorted(seen[1] - now))
                               + "".join(f"^{t}\n" for t in sorted(now))).encode("ascii"))
    left = walk.stdout.decode("ascii", "replace").split() if walk.returncode == 0 else []
    key = url_key(repo, remote) if left else seen[0]  # (asked only when a commit left: fast-forwards are
    if key != seen[0]:  # the usual move) another URL: the same repository, or another server
        from .lost import ASK_TIMEOUT
        from .moved import same_repository

        same = same_repository(repo, remote, ASK_TIMEOUT if timeout is None else timeout)
        if same is None:
            return False, None  # (the record stays as it is: the next check asks again)
        if not same:
            left = []  # another server under this name: its tips only
    try:
        pairs = _published_on(repo, remote, left) if left else []
    except StateBusy:  # (another git-hn updates the state: the record stays as it is, and the next
        return False, None  # check asks again, instead of recording tips whose question went unasked)
    if pairs:
        from . import atrisk

        atrisk.note(repo, remote, pairs)
    _write(repo, remote, key, now)  # (after the note: a crash in between asks again)
    handed = bool(pairs) and atrisk.remembered(repo, remote)
    return handed, (key, after) if after != now else None


def _landed(repo: Repo, remote: str, rows: dict[str, str], pushed: dict[str, str]) -> set[str]:
    """The tips of ``rows`` (tracking ref -> object ID) once ``pushed`` moved them ("": deleted)."""
    return {oid for oid in {**rows, **_own(repo, remote, pushed)}.values() if oid}


def _published_on(repo: Repo, remote: str, commits: list[str]) -> list[tuple[str, str]]:
    """(memory, anchor) of the memories this clone gave ``remote`` anchored on ``commits``, from
    one look at the state as last verified; raises ``StateBusy`` when it is busy for 0.2 s
    (``stateview.checking``: the caller then leaves its record as it was, to ask again)."""
    from ...store import stateview
    from .gate import anchored_on
    from .lost import held

    try:
        with stateview.checking(repo, wait=0.2) as view:  # (a fetch never waits for the state: a trial)
            return held(repo, remote, anchored_on(repo, commits, view), view, own=True)
    except StateBusy:
        raise
    except (HnError, OSError):  # (a lock file that cannot be opened: as the state's answer, none)
        return []


PUBLISHED_MAGIC = "hn-published/0"


def note_published(repo: Repo, remote: str, without: frozenset[str] = frozenset()) -> None:
    """Write the anchor commits of the memories this clone gave ``remote`` (each stream up to
    the tip it was last given: ``published_heads``; and the active identity's accepted copies
    from it), one a line after ``PUBLISHED_MAGIC``, to ``replication.published_path`` (derived,
    private; rewritten only when it changes). The ``reference-transaction`` wrapper reads it for
    a fetch's later force-pushed refs, once git-hn's import or check ran for the fetch: it starts
    git-hn's check of what left only when one of these left the tracking refs (a review: the
    ``checked`` stamp of the first force-pushed ref kept a later ref's force-push, which took this
    clone's anchor off, unsaid at fetch time). Written by the fetch hook beside its per-fetch
    stamp (``fetch_hook._note_imported``), the only time the wrapper reads it, so neither a sync nor
    a push pays for it. ``without``: the anchors this fetch's reminders already named, left out
    (a review: each later ref whose anchor was in the list started a check that said the whole
    reminder again). Best effort: when the state cannot answer the file is removed (absent: the
    wrapper does as before it existed)."""
    from ...store import private
    from ...store import replication as rstate
    from .published_anchors import own_anchors

    path = rstate.published_path(repo, remote)
    anchors = own_anchors(repo, remote)  # (kept current from what changed: a memo beside ``path``)
    try:
        if anchors is None:
            os.unlink(path)
            return
        text = (PUBLISHED_MAGIC + "\n" + "".join(f"{a}\n" for a in sorted(anchors - without))).encode("ascii")
        if private.read_private(repo.hn_dir, path, MAX_BYTES) != text:
            private.write_private(repo.hn_dir, path, text, derived=True)
    except (HnError, OSError):
        pass
