"""A remote's reminder records after the remote was renamed or its URL changed (git-hn;
docs/decisions.md).

``lost`` and ``atrisk`` keep their records per remote name (``<kind>-<remote digest>``), with a
digest of the remote's URL inside. Two everyday changes silenced the reminders for good (an
audit): ``git remote rename`` left the record under the old name's digest, where nothing looked
any more, and ``git remote set-url`` to another form of the same URL (a ``file://`` URL for a
path, ssh for https) made the URL check delete it. So:

- a name without a record of its own takes over an orphaned one, a record whose name digest no
  configured remote has, made for the same URL (``adopt``: one directory listing, once a command;
  a ``git remote`` and a ``git config`` only while such a record exists);
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


def adopt(repo: Repo, remote: str, kind: str, path: str, url_key) -> None:
    """When ``path`` (``remote``'s ``kind`` record) does not exist, take over the orphaned record
    of that kind made for ``remote``'s URL (``url_key()``, its digest), with its companion files
    (``.keep``, ``.checked``): ``git remote rename`` left it under the old name. Asked once per
    remote and kind in a command; best effort (a record in doubt stays where it is)."""
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

    orphans = sorted(found - {prefix + remote_digest(r) for r in repo.remote_names()})
    key = url_key() if orphans else ""
    if not key:
        return
    mine = [n for n in orphans if _url_line(repo, os.path.join(directory, n)) == key]
    if not mine:
        return
    old = os.path.join(directory, max(mine, key=lambda n: _mtime(os.path.join(directory, n))))
    try:  # (companions first, the record last: a process that sees the record sees them)
        for name in names:
            if name.startswith(os.path.basename(old) + "."):
                _move(os.path.join(directory, name), path + name[len(os.path.basename(old)):])
        _move(old, path)
    except OSError:
        pass


def _move(old: str, new: str) -> None:
    """``old`` to ``new``, never over a file there (another process adopted it first)."""
    os.link(old, new)
    os.unlink(old)


def _mtime(path: str) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def _url_line(repo: Repo, path: str) -> str | None:
    """The URL digest a record names (its ``url`` line), or None."""
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
