"""Anchors published while only a side branch of the remote held them (git-hn; docs/decisions.md).

A memory is published once its anchor commit is on the remote, and a feature branch is enough
for that. When the branch is then squash-merged on the server (a hosting UI) and deleted there,
the commit is on no branch of the remote any more: every importer of the stream stops at that
memory for good, while the author's own clone, which did not push anything that took it off
(``lost``'s case), was never told (a team trial), and its cleanup (``git branch -D``, ``git gc``)
then destroyed the only copy.

So when a publication gives a remote memories of this clone's streams (``note``, from
``publish.push``: the one place that knows what the remote just took), the anchors that the
remote's default branch (as this clone tracks it) does not contain are remembered, per remote, in
``<common-gitdir>/hn/replication/atrisk-<remote digest>`` (derived, private, bounded, best effort
as ``lost``'s file). Each ``git hn sync`` with that remote and each push to it then ask the remote
which branches it has (``check``: one bounded ``ls-remote --heads`` and at most two ``rev-list``,
only while the file exists: nothing at all otherwise): an anchor on the default branch (merged)
or on an ``hn-anchor/*`` branch (kept) is forgotten; one on another branch stays at risk; one on
no branch is gone, and said with ``lost``'s reminder until a branch holds it again. The remote's
answer decides, not this clone's remote-tracking refs: the deleted branch's tracking ref stays
here until a ``fetch --prune``, and would say the commit is still there. A branch tip this clone
does not have cannot be walked: what it may hold stays as it was (never called gone on a guess).

``tracked`` hands it, alike, the anchors of this clone's publications that left the remote's
tracking refs later (a teammate's force-push of the default branch).

Trusts: the remote's listing of its branches only to decide what to say (a remote that lies can
silence or raise the reminder, nothing more); this clone's object store for reachability.
"""

from __future__ import annotations

import os

from ...core.grammar import is_digest_id, is_oid
from ...core.lines import lines_of
from ...errors import HnError
from ...store.repo import Repo
from .lost import locked, not_held, unwritable, url_key

KEPT = 256  # anchors remembered per remote (the oldest go first)
CHECK_EVERY = 3600.0  # seconds a push goes without asking while nothing is gone (``due``)
AT_RISK, GONE = "r", "g"
KEEP_PREFIX = "refs/heads/hn-anchor/"  # the branches the reminder's command creates


def _path(repo: Repo, remote: str) -> str:
    from ...store.lock import remote_digest
    from .moved import adopt

    path = os.path.join(repo.hn_dir, "replication", f"atrisk-{remote_digest(remote)}")
    adopt(repo, remote, "atrisk", path)  # (``git remote rename``)
    return path


def _read(repo: Repo, remote: str, any_url: bool = False) -> tuple[str, dict[str, tuple[str, str]]]:
    """(the remote's default branch name as recorded, commit -> (first memory on it, state));
    nothing for a record made for another URL of ``remote`` (kept: ``_reverify``) unless
    ``any_url``; nothing, and no record, when that URL is another configured remote's, which the
    record goes to (``moved.hand_over``)."""
    from ...store import private

    path = _path(repo, remote)
    if not os.path.exists(path):
        return "", {}
    try:
        data = private.read_private(repo.hn_dir, path, 1 << 20) or b""
    except (HnError, OSError):
        return "", {}
    default, out, key, other = "", {}, None, False
    for line in lines_of(data.decode("utf-8", "replace")):
        if line.startswith("default "):
            default = line[len("default "):]
            continue
        if line.startswith("url ") and key is None:  # (one ``git config`` a record: an audit's corrupt
            key = url_key(repo, remote)  # record repeated the line 14,000 times, and ran that many)
        if line.startswith("url ") and line[4:] != key and not other:
            from .moved import hand_over

            other = True  # (asked once a record, as the URL is)
            if hand_over(repo, remote, "atrisk", path, line[4:], lambda owner: locked(repo, owner, "atrisk")):
                return "", {}
        if line.startswith("url ") and line[4:] != key and not any_url:
            # (another form of the URL, or another server under this name: ``_reverify`` decides)
            return "", {}
        parts = line.split(" ")
        if len(parts) == 3 and is_oid(parts[0]) and is_digest_id(parts[1]) and parts[2] in (AT_RISK, GONE):
            out.setdefault(parts[0], (parts[1], parts[2]))
    return default, out


def _write(repo: Repo, remote: str, default: str, entries: dict[str, tuple[str, str]],
           strict: bool = False, key: str | None = None) -> None:
    """Best effort, unless ``strict`` (a change by hand, ``forget``): then a failure raises.
    ``key``: the URL digest to write (the remote's own when None)."""
    from ...store import private

    path = target = _path(repo, remote)
    try:
        if not entries or not default:
            # the companion first, the record last: a companion that cannot go leaves the record as
            # it was, so ``forget`` stays all or nothing (an audit: the record went, its error named it)
            for target in (_checked_path(repo, remote), path):
                if os.path.lexists(target):
                    os.unlink(target)
            return
        kept = list(entries.items())[-KEPT:]
        text = (f"default {default}\nurl {url_key(repo, remote) if key is None else key}\n"
                + "".join(f"{c} {m} {s}\n" for c, (m, s) in kept))
        private.write_private(repo.hn_dir, path, text.encode("utf-8", "surrogateescape"), derived=True)
    except (HnError, OSError) as exc:
        if strict:
            raise unwritable(target, exc) from None


def recorded(repo: Repo, remote: str) -> tuple[str, dict[str, tuple[str, str]], str | None]:
    """(default branch, commit -> (first memory, ``AT_RISK`` or ``GONE``), the URL digest the
    record was made for), for a change by hand (``forget``), which holds ``locked(..., "atrisk")``
    around it and ``replace``: a record made for another URL of ``remote`` counts too, as
    ``lost.recorded``'s."""
    from .moved import url_line

    default, entries = _read(repo, remote, any_url=True)
    return default, entries, url_line(repo, _path(repo, remote))


def replace(repo: Repo, remote: str, default: str, entries: dict[str, tuple[str, str]],
            key: str | None = None) -> None:
    """Write ``entries`` as the record (none: the record goes), or raise (``forget``); ``key``:
    the URL digest it was made for (``recorded``), kept."""
    _write(repo, remote, default, entries, strict=True, key=key)


def _default_branch(repo: Repo, remote: str) -> tuple[str, str]:
    """(name, tip) of ``remote``'s default branch as this clone tracks it: the target of
    ``refs/remotes/<remote>/HEAD``, else its ``main``, else its ``master``; ("", "") when none.
    One ``for-each-ref``."""
    base = f"refs/remotes/{remote}/"
    proc = repo.git.run(["for-each-ref", "--format=%(objectname) %(refname) %(symref)",
                         f"{base}HEAD", f"{base}main", f"{base}master"])
    rows = {}
    for row in lines_of(proc.stdout.decode("utf-8", "surrogateescape")) if proc.returncode == 0 else []:
        oid, _sp, rest = row.partition(" ")
        ref, _sp, target = rest.partition(" ")
        rows[ref] = (oid, target)
    head = rows.get(f"{base}HEAD")
    # (a nested remote's ref, ``refs/remotes/<remote>/<x>/...``, is never this remote's branch)
    if head and head[1].startswith(base) and not head[1].startswith(_nested(repo, remote)) and is_oid(head[0]):
        return head[1][len(base):], head[0]
    for name in ("main", "master"):
        found = rows.get(f"{base}{name}")
        if found and is_oid(found[0]):
            return name, found[0]
    return "", ""


def _nested(repo: Repo, remote: str) -> tuple[str, ...]:
    from .gate import nested_prefixes

    return nested_prefixes(repo, remote)


def note(repo: Repo, remote: str, pairs: list[tuple[str, str]]) -> None:
    """Remember the anchors of ``pairs`` ((memory, anchor commit), root first) that ``remote``'s
    default branch does not contain: a publication just gave the remote those memories. One
    ``for-each-ref`` and one ``rev-list`` for all of them, none when every anchor is remembered
    already; nothing when this clone tracks no default branch of ``remote``. Best effort."""
    default, entries = _read(repo, remote, any_url=True)  # (another URL's record: taken over)
    first: dict[str, str] = {}
    for memory, commit in pairs:
        if is_oid(commit) and is_digest_id(memory) and commit not in entries:
            first.setdefault(commit, memory)
    if not first:
        return
    name, tip = _default_branch(repo, remote)
    if not name:
        return
    walk = repo.git.run(["rev-list", "--ignore-missing", "--stdin"],
                        input=("".join(f"{c}\n" for c in first) + f"^{tip}\n").encode("ascii"))
    if walk.returncode != 0:
        return
    off = set(walk.stdout.decode("ascii", "replace").split())
    risky = {c: m for c, m in first.items() if c in off}
    if not risky:
        return
    with locked(repo, remote, "atrisk"):  # (a review: a check forgetting all could drop it)
        default, entries = _read(repo, remote, any_url=True)
        for commit, memory in risky.items():
            entries.setdefault(commit, (memory, AT_RISK))
        _write(repo, remote, name, entries)


def remembered(repo: Repo, remote: str) -> bool:
    """Whether anything is at risk on ``remote`` (no Git process)."""
    return os.path.exists(_path(repo, remote))


def due(repo: Repo, remote: str) -> bool:
    """Whether a push to ``remote`` should ask it now (no Git process): something is gone (said
    at every push until it is back), or the last answer is ``CHECK_EVERY`` old. A push waits for
    the remote's answer, and a feature branch open for weeks kept every push paying a round trip
    (a review); a sync, which talks to the remote anyway, always asks."""
    if not remembered(repo, remote):
        return False
    import time

    from ...store import private

    path = _checked_path(repo, remote)
    try:  # (a private read: an audit's FIFO there held every push for good at a plain open())
        data = private.read_private(repo.hn_dir, path, 64)
        if data is None:
            return True
        answered = data[:16] != b"failed"
        recent = time.time() - os.lstat(path).st_mtime < CHECK_EVERY
    except (HnError, OSError):
        return True
    if recent and not answered:  # (a review: a remote that did not answer cost every push 10 s)
        return False
    return not recent or bool(gone(repo, remote))


def gone(repo: Repo, remote: str) -> dict[str, str]:
    """commit -> memory of the anchors the last answer found on no branch (no Git process)."""
    _default, entries = _read(repo, remote)
    return {c: m for c, (m, s) in entries.items() if s == GONE}


def _checked_path(repo: Repo, remote: str) -> str:
    return _path(repo, remote) + ".checked"


def _answered(repo: Repo, remote: str, ok: bool = True) -> None:
    from ...store import private

    try:
        private.write_private(repo.hn_dir, _checked_path(repo, remote), b"" if ok else b"failed", derived=True)
    except (HnError, OSError):
        pass


def check(repo: Repo, remote: str, sent: tuple[str, ...] = (), fetch=None,
          timeout: float | None = None, branches=None) -> dict[str, str]:
    """commit -> memory of the remembered anchors that no branch of ``remote`` holds now (to say,
    with ``lost.line``); the record is brought to what the remote says. ``sent``: the tips a push
    sends now (what they contain is not said: that push may put it back). ``fetch()``: fetches the
    remote's branches and says whether it did (a sync: a tip this clone lacks, such as the squash
    commit, can then be walked). {} and no Git process when nothing is remembered; when the
    remote does not answer (bounded by ``timeout``), what its last answer said, and a push asks
    again only an hour later (``due``). ``branches``: an ``asker``'s (the remote asked once for
    the push, ``lost``'s reminder sharing the answer)."""
    default, entries = _read(repo, remote)
    if not entries and remembered(repo, remote):
        default, entries = _reverify(repo, remote, timeout)
    if not entries:
        return {}
    heads = branches() if branches is not None else _branches(repo, remote, timeout)
    _answered(repo, remote, heads is not None)
    if heads is not None:
        merged_tips = {oid for ref, oid in heads.items()
                       if ref == f"refs/heads/{default}" or ref.startswith(KEEP_PREFIX)}
        other_tips = set(heads.values()) - merged_tips
        # (what this push sends is not counted: a dry-run or rejected push of the anchor
        # silenced the reminder for an hour, a review found; it only hides the line below)
        walked = _walk(repo, sorted(entries), merged_tips, other_tips)
        if walked is not None and walked[1] and fetch is not None and fetch():
            walked = _walk(repo, sorted(entries), merged_tips, other_tips)  # (the tips it lacked)
        if walked is not None:
            _update(repo, remote, walked[0])
    out = gone(repo, remote)  # (a remote that did not answer: what its last answer said)
    if sent and out:
        present = [c for c, here in zip(sorted(out), repo.git.presence(sorted(out))) if here]
        tips = [t for t, here in zip(sent, repo.git.presence(list(sent))) if here]
        off = not_held(repo, present, tips)
        out = {c: m for c, m in out.items() if off is None or c in off or c not in present}
    return out


def _reverify(repo: Repo, remote: str, timeout: float | None) -> tuple[str, dict[str, tuple[str, str]]]:
    """A record made for another URL of ``remote`` (``git remote set-url`` to another form of the
    same URL: an audit found the record, and the reminder, deleted for good): taken over once the
    remote shows it is the repository the record was made for (``moved.same_repository``),
    dropped when it shows it is another, kept as it is when it cannot say. What ``_read`` then
    gives (nothing unless taken over)."""
    from .lost import ASK_TIMEOUT
    from .moved import same_repository

    same = same_repository(repo, remote, ASK_TIMEOUT if timeout is None else timeout)
    if same is None:
        return "", {}
    with locked(repo, remote, "atrisk"):
        default, entries = _read(repo, remote, any_url=True)
        _write(repo, remote, default if same else "", entries if same else {})
    return _read(repo, remote)


def _walk(repo: Repo, commits: list[str], merged_tips: set[str], other_tips: set[str]):
    """(commit -> its new state, None: forgotten; whether some are undecided because a branch tip
    is not here), or None when Git fails. One presence question and at most two ``rev-list``."""
    tips = sorted(merged_tips | other_tips)
    here = dict(zip(tips + commits, repo.git.presence(tips + commits)))
    blind = not all(here[t] for t in merged_tips | other_tips)  # (a branch this clone cannot walk)
    unmerged = not_held(repo, [c for c in commits if here[c]], [t for t in merged_tips if here[t]])
    if unmerged is None:
        return None
    nowhere = not_held(repo, sorted(unmerged), [t for t in other_tips if here[t]]) if unmerged else set()
    if nowhere is None:
        return None
    state: dict[str, str | None] = {}
    for commit in commits:
        if here[commit] and commit not in unmerged:
            state[commit] = None  # merged into the default branch, or kept on an hn-anchor branch
        elif here[commit] and commit not in nowhere:
            state[commit] = AT_RISK  # on another branch of the remote
        elif not blind:  # (a commit not here at all is on no branch whose tip is here)
            state[commit] = GONE
    return state, blind and len(state) < len(commits)


def _update(repo: Repo, remote: str, state: dict[str, str | None]) -> None:
    with locked(repo, remote, "atrisk"):
        default, entries = _read(repo, remote)  # (again: a publication may have added some meanwhile)
        changed = {c: s for c, s in state.items() if c in entries and entries[c][1] != s}
        if not changed:
            return
        out = {}
        for commit, (memory, s) in entries.items():
            s = changed.get(commit, s)
            if s is not None:
                out[commit] = (memory, s)
        _write(repo, remote, default, out)


def asker(repo: Repo, remote: str, timeout: float | None):
    """A callable that asks ``remote`` for its branches (``_branches``) the first time it is
    called and gives that answer (None included: a remote that did not answer is not waited for
    twice) every time after: a push asks once for ``check`` and ``lost``'s reminder."""
    answer: list = []

    def ask() -> dict[str, str] | None:
        if not answer:
            answer.append(_branches(repo, remote, timeout))
        return answer[0]
    return ask


def _branches(repo: Repo, remote: str, timeout: float | None) -> dict[str, str] | None:
    """ref -> tip of every branch the repository ``remote`` pushes to advertises (one bounded
    ``ls-remote --heads``: publication went there, and with a push URL of its own the fetch URL
    is another repository, where the anchor never was: a review), or None when there are several
    push URLs, or it cannot be asked or does not answer (in time)."""
    from ...store.transport import listed
    from .given_record import push_urls

    urls = push_urls(repo, remote)
    lines = listed(repo, urls[0], ("--heads",), timeout=timeout) if len(urls) == 1 and urls[0] else None
    return None if lines is None else {ref: oid for oid, ref in lines if ref.startswith("refs/heads/")}
