"""A remote's reminder records after the remote was renamed or its URL changed (git-hn;
docs/decisions.md).

``lost`` and ``atrisk`` keep their records per remote name (``<kind>-<remote digest>``), with a
digest of the remote's URL inside. Two everyday changes silenced the reminders for good (an
audit): ``git remote rename`` left the record under the old name's digest, where nothing looked
any more, and ``git remote set-url`` to another form of the same URL (a ``file://`` URL for a
path, ssh for https) made the URL check delete it. So:

- a name without a record of its own takes over an orphaned one, a record whose name digest no
  configured remote has, made for the same URL (``adopt``: one directory listing, once a command;
  a ``git remote`` and a ``git config`` only while a record of another name exists);
- a record made for the URL of another configured remote is that remote's (``hand_over``: moved
  to it, or its entries added to that remote's own record), never taken over, said or dropped
  under the name that holds it. A review: the usual fork setup, ``git remote rename origin
  upstream && git remote add origin <fork>``, reuses the old name; upstream never reminded, the
  first sync with the fork (which holds none of the memory refs) deleted the record, and a push
  to the fork that remembered an anchor took upstream's commits into the fork's reminder.
  ``adopt`` takes such a record over alike for a name without one (its ``git config`` asks
  for every remote's URL at once);
- a record made for another URL is kept until the remote shows whether it is the repository the
  record was made for (``same_repository``): it advertises a memory ref at a tip this clone gave
  it or accepted from it (the same repository: the record is taken over), or none of those refs
  at all (another repository under that name, a remote removed and added again: dropped, as
  before); a remote that does not answer, or lists those refs at other tips, leaves it as it is.

Trusts: the remote's listing of its memory refs, only to decide which record to keep (a remote
that lies can keep or drop a reminder, nothing more); this clone's records of what it gave and
accepted.
"""

from __future__ import annotations

import os
import weakref

from ...core.lines import lines_of
from ...store.repo import Repo

_looked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # repo -> {(kind, remote)} adopted or not


def adopt(repo: Repo, remote: str, kind: str, path: str) -> None:
    """When ``path`` (``remote``'s ``kind`` record) does not exist, take over the record of that
    kind made for ``remote``'s URL (its digest) that is orphaned, or held by a remote whose URL is
    another (``hand_over``'s case), with its companion files (``.keep``, ``.checked``): ``git
    remote rename`` left it under the old name. Asked once per remote and kind in a command;
    best effort (a record in doubt stays where it is)."""
    looked = _looked.setdefault(repo, set())
    if (kind, remote) in looked or os.path.exists(path):
        return
    looked.add((kind, remote))
    directory, prefix = os.path.dirname(path), f"{kind}-"
    try:
        names = os.listdir(directory)
    except OSError:
        return
    found = {n for n in names if n.startswith(prefix) and "." not in n}
    if not found:
        return  # (the usual case: no Git process)
    from ...store.lock import remote_digest

    others = {prefix + remote_digest(r): r for r in repo.remote_names() if r != remote}
    urls = url_keys(repo)
    key = urls.get(remote, "")
    if not key:
        return
    made = {n: url_line(repo, os.path.join(directory, n)) for n in sorted(found)}
    mine = [n for n in found - set(others) if made[n] == key]
    if not mine:  # (the fork setup: the record stayed under a name that now has another URL)
        mine = [n for n in found & set(others) if made[n] == key and urls.get(others[n]) != key]
    if not mine:
        return
    old = os.path.join(directory, max(mine, key=lambda n: _mtime(os.path.join(directory, n))))
    try:
        _take(names, old, path)
    except OSError:
        pass


def _take(names, old: str, path: str) -> None:
    """Move the record ``old`` to ``path`` with its companions (``names``: its directory's
    listing): companions first, the record last (a process that sees the record sees them)."""
    directory, base = os.path.dirname(old), os.path.basename(old)
    for name in names:
        if name.startswith(base + "."):
            _move(os.path.join(directory, name), path + name[len(base):])
    _move(old, path)


def url_keys(repo: Repo) -> dict[str, str]:
    """remote name -> the digest of its URL (``lost.url_key``'s, for every configured remote
    at once: one ``git config``)."""
    from ...core import hashing

    proc = repo.git.run(["config", "-z", "--get-regexp", r"^remote\..*\.url$"])
    out: dict[str, str] = {}
    for item in proc.stdout.split(b"\0") if proc.returncode == 0 else []:
        name, _nl, value = item.partition(b"\n")
        text = name.decode("utf-8", "surrogateescape")
        value = value.rstrip(b"\n")
        if text.startswith("remote.") and text.endswith(".url") and len(text) > 11 and value:
            out[text[7:-4]] = hashing.sha256(value).hexdigest()  # (the last one counts, as for ``--get``)
    return out


def hand_over(repo: Repo, remote: str, kind: str, path: str, made_for: str, lock) -> bool:
    """Whether ``path`` (``remote``'s ``kind`` record, made for the URL digest ``made_for``, not
    ``remote``'s own) went to the configured remote whose URL it was made for: moved there, or,
    when that one has a record of its own, its entries added to it (under that record's lock:
    ``lock(owner)``, ``lost.locked``'s).
    False, and nothing done, when no other remote has that URL. Best effort: a record that
    cannot be moved stays where it is, still another remote's (never said nor dropped here)."""
    from ...store.lock import remote_digest

    urls = url_keys(repo)
    owners = sorted(r for r, k in urls.items() if k == made_for and r != remote)
    if not owners or urls.get(remote) == made_for:
        return False
    directory = os.path.dirname(path)
    try:
        names = os.listdir(directory)
        for owner in owners:
            target = os.path.join(directory, f"{kind}-{remote_digest(owner)}")
            if not os.path.exists(target):
                _take(names, path, target)
                return True
        with lock(owners[0]):
            _merge(repo, names, path, os.path.join(directory, f"{kind}-{remote_digest(owners[0])}"))
    except OSError:
        pass
    return True


def _merge(repo: Repo, names, path: str, target: str) -> None:
    """Add the entries of ``path`` that ``target`` (another remote's record, locked) has no line
    for, then remove ``path``; a companion ``target`` lacks is moved, the others go."""
    from ...core.grammar import is_oid
    from ...errors import HnError
    from ...store import private

    def entries(data: bytes) -> list[str]:
        return lines_of(data.decode("utf-8", "surrogateescape"))

    try:
        theirs = entries(private.read_private(repo.hn_dir, target, 1 << 20) or b"")
        ours = entries(private.read_private(repo.hn_dir, path, 1 << 20) or b"")
    except HnError as exc:
        raise OSError(str(exc)) from None
    have = {line.split(" ", 1)[0] for line in theirs}
    added = [line for line in ours if is_oid(line.split(" ", 1)[0]) and line.split(" ", 1)[0] not in have]
    if added:
        try:
            private.write_private(repo.hn_dir, target, "".join(f"{line}\n" for line in theirs + added)
                                  .encode("utf-8", "surrogateescape"), derived=True)
        except HnError as exc:
            raise OSError(str(exc)) from None
    base = os.path.basename(path)
    for name in names:
        if name.startswith(base + "."):
            companion = os.path.join(os.path.dirname(path), name)
            try:
                _move(companion, target + name[len(base):])
            except OSError:
                os.unlink(companion)
    os.unlink(path)


def _move(old: str, new: str) -> None:
    """``old`` to ``new``, never over a file there (another process adopted it first)."""
    os.link(old, new)
    os.unlink(old)


def _mtime(path: str) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def url_line(repo: Repo, path: str) -> str | None:
    """The URL digest a record names (its ``url`` line), or None (no record, no line)."""
    from ...errors import HnError
    from ...store import private

    try:
        data = private.read_private(repo.hn_dir, path, 1 << 20) or b""
    except (HnError, OSError):
        return None
    for line in lines_of(data[:4096].decode("ascii", "replace"))[:3]:
        if line.startswith("url "):
            return line[4:]
    return None


def same_repository(repo: Repo, remote: str, timeout: float) -> bool | None:
    """Whether the repository ``remote`` pushes to now is the one its records were made for:
    True when it advertises a memory ref at the tip this clone gave it (``published_heads``) or
    accepted from it (``refs/hn/remotes/<remote>/memory/``), False when it advertises none of
    those refs at all, None when it cannot say (no answer within ``timeout``, several push URLs,
    or those refs at other tips only). One bounded ``ls-remote`` of ``refs/hn/memory/*`` and
    one ``for-each-ref``; only while a record made for another URL exists."""
    from ...core.grammar import LOCAL_PREFIX, parse_accepted_ref
    from ...store.transport import listed
    from .given_record import published_heads, push_urls

    urls = push_urls(repo, remote)
    lines = listed(repo, urls[0], patterns=(f"{LOCAL_PREFIX}*",), timeout=timeout) if len(urls) == 1 else None
    if lines is None:
        return None
    known = dict(published_heads(repo, remote))
    proc = repo.git.run(["for-each-ref", "--format=%(objectname) %(refname)", f"refs/hn/remotes/{remote}/memory/"])
    for line in lines_of(proc.stdout.decode("utf-8", "replace")) if proc.returncode == 0 else []:
        oid, _sp, ref = line.partition(" ")
        parsed = parse_accepted_ref(ref)
        if parsed is not None and parsed[0] == remote:
            known.setdefault(f"{LOCAL_PREFIX}{parsed[1]}/{parsed[2][len('sha256:'):]}", oid)
    there = {ref: oid for oid, ref in lines}
    if any(there.get(ref) == oid for ref, oid in known.items()):
        return True
    return None if any(ref in there for ref in known) else False
