"""What each remote was given of the local streams, for publication: recorded after every
publication in the publication journal (``store.given``, which outlives the state) and in the
verified state (``state.record_published``, the fast copy), and read back from both.

Owns no file of its own; trusts what this repository recorded.
"""

from __future__ import annotations

import os

from ...core.hashing import sha256_hex
from ...core.lines import lines_of
from ...errors import HnError
from ...store import state as statemod
from ...store import statedb
from ...store.repo import Repo


def note_held(repo: Repo, remote: str, same: dict[str, str], lately: list | None = None) -> None:
    """The streams ``remote`` holds at their local tips, into the publication journal when it
    does not say so (a journal moved aside, or one an earlier git-hn never wrote). ``lately``
    gets when a ``git push``'s own publication gave it those tips, for those it gave lately
    (``given.pushed_lately``: one ``lstat`` when none)."""
    if not same:
        return
    from ...store import given

    if lately is not None:
        lately.extend(given.pushed_lately(repo, remote, same).values())

    if os.path.lexists(given.path(repo)):  # the usual sync: the state's record says it already
        recorded = _recorded(repo, remote, sorted(same))
        same = {r: h for r, h in same.items() if recorded.get(r) != h}
        if not same:
            return  # (the journal is read only for what the state does not record)
        noted = given.newest(repo, remote, same)
        same = {r: h for r, h in same.items() if noted.get(r) != h}
    if same:
        remember(repo, remote, same)


def _recorded(repo: Repo, remote: str, refs: list[str] | None = None) -> dict[str, str]:
    """What the state records ``remote`` was given (of ``refs`` only, when named); {} when it
    cannot be read."""
    from ...store.statedb import sqlite3

    try:
        with statedb.locked(repo, exclusive=False, wait=2.0):
            conn = statedb.open_sealed(repo, readonly=True)
            if conn is None:
                return {}
            try:
                return statemod.published_heads(conn, remote) if refs is None else \
                    statemod.published_of(conn, remote, refs)
            finally:
                conn.close()
    except (HnError, OSError, sqlite3.Error):
        return {}


def remember(repo: Repo, remote: str, heads: dict[str, str]) -> None:
    """Record the tips ``remote`` now holds: in the publication journal (``store.given``: what
    keeps re-anchoring from signing them again), then in the state (bookkeeping for the next
    push; a failure there only costs a push later)."""
    from ...store import given
    from ...store.statedb import sqlite3

    if not heads:
        return
    try:
        given.note(repo, remote, heads)
    except (HnError, OSError) as exc:
        import sys

        sys.stderr.write(f"git-hn: warning: what {remote} was given could not be recorded "
                         f"({getattr(exc, 'message', None) or exc.strerror}); until it is, do not "
                         "rewrite the commits your published memories name\n")
    try:
        with statedb.sealed_for_writing(repo) as conn:
            if conn is not None:
                statemod.record_published(conn, remote, heads)
    except (HnError, OSError, sqlite3.Error, statedb.Unwritable):
        pass


def published_heads(repo: Repo, remote: str) -> dict[str, str]:
    """ref -> the tip ``remote`` was last given, from the state's bookkeeping over the
    publication journal's (``store.given``: what a rebuilt state no longer has); {} when neither
    can be read (``remote_bases`` then asks the remote itself)."""
    from ...store import given as journal

    return {**journal.newest(repo, remote), **_recorded(repo, remote)}


def settle_stopped(repo: Repo, remote: str, advertised: dict[str, str], url: str) -> None:
    """What publications that were stopped offered ``remote`` (``store.given``), settled by this
    run's advertisement (of ``url``, the URL it fetches from) once their processes have ended:
    given (journalled) or not (dropped). That advertisement answers only where ``remote`` pushes
    to that URL alone; a push URL of its own (``pushurl``, ``pushInsteadOf``) may be another
    repository, and is asked itself for the offered refs (one ``ls-remote``); with several push
    URLs the offers wait for a push to answer. That ``ls-remote`` is bounded by the sync's
    ``hn.syncStallTimeout`` (an audit: the remote questions beside the sync's own waited Git's
    300 s)."""
    from ...store import given

    if not os.path.lexists(given.offered_path(repo)):
        return  # (the usual case: one stat)
    urls = push_urls(repo, remote)
    if len(urls) != 1:
        return
    if urls[0] != url:
        try:
            offered = {ref for r, ref, _h in given.offered(repo) if r == remote}
        except (HnError, OSError):
            return
        from .transfer import stall_timeout

        advertised = _asked(repo, urls[0], offered, stall_timeout(repo))
        if advertised is None:
            return
    settled = given.settle_stopped(repo, remote, advertised, lambda pairs: contains(repo, pairs))
    if settled:
        remember(repo, remote, settled)


def _asked(repo: Repo, url: str, refs: set[str], timeout: float) -> dict[str, str] | None:
    """ref -> tip of ``refs`` at ``url`` (one ``ls-remote`` of the memory refs, within
    ``timeout`` seconds); None when it cannot be asked or does not answer."""
    from ...store.transport import listed

    lines = listed(repo, url, patterns=("refs/hn/memory/*",), timeout=timeout) if refs else None
    return None if lines is None else {ref: oid for oid, ref in lines if ref in refs}


def push_urls(repo: Repo, remote: str) -> list[str]:
    """Every URL ``git push remote`` pushes to ([] when Git cannot say)."""
    proc = repo.git.run(["remote", "get-url", "--push", "--all", "--end-of-options", remote])
    return lines_of(proc.stdout.decode("utf-8", "surrogateescape")) if proc.returncode == 0 else []


def url_key(remote: str, url: str) -> str:
    """The name the publication records keep what one push URL of ``remote`` took under, when
    ``remote`` pushes elsewhere than it fetches (``push_targets``): the name, a space and a digest
    of the URL without its credentials (``plain_url``; never the URL). Git refuses a space in a
    remote's name, so such a key is no remote's (``store.given.remote_of`` names it)."""
    return set_key(remote, [url])


def set_key(remote: str, urls: list[str]) -> str:
    """The name the publication records keep what every one of ``urls`` (the push URLs of
    ``remote``, which pushes elsewhere than it fetches) holds under: the name, a space and a
    digest of the set of those URLs (``plain_url``), so that a push URL added, removed or
    changed starts a record of its own and the pre-push hook's bookkeeping asks each URL again
    (a review: a mirror added as a second push URL after a publication, and a record an earlier
    git-hn wrote under the remote's name when any URL took a stream, were read as "every push URL
    holds it", and the mirror never got it). One URL's set digests as that URL (``url_key``)."""
    text = "\n".join(sorted({plain_url(u) for u in urls}))
    return f"{remote} {sha256_hex(text.encode('utf-8', 'surrogateescape'))[:16]}"


def plain_url(url: str) -> str:
    """``url`` without the userinfo of a ``scheme://user:password@host/...`` URL: what a record's
    key digests, so that no password is ever hashed into it and a rotated token keeps its
    records (a review)."""
    import re

    found = re.match(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/]*@)", url)
    return found.group(1) + url[found.end():] if found else url


def contains(repo: Repo, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], bool | None]:
    """For each (tip, head): whether commit ``tip`` contains ``head`` (None when this clone
    cannot tell: the tip, a commit of another clone's, is not here). One ``cat-file`` and one
    ``rev-list`` for them all: ``rev-list heads ^tips`` lists what no tip contains, so a head it
    lists is contained by none (False is exact); a head another pair's tip contains counts as
    contained (True errs only towards "given", which keeps a memory from being signed again)."""
    out: dict[tuple[str, str], bool | None] = {p: True for p in pairs if p[0] == p[1]}
    rest = [p for p in pairs if p[0] != p[1]]
    if not rest:
        return out
    oids = sorted({x for p in rest for x in p})
    here = {oid for oid, present in zip(oids, repo.git.presence(oids)) if present}
    known = [p for p in rest if p[0] in here and p[1] in here]
    out.update({p: None for p in rest if p not in known})
    if known:
        walk = repo.git.run(["rev-list", "--stdin"],
                            input="".join(f"{head}\n^{tip}\n" for tip, head in known).encode("ascii"))
        outside = set(walk.stdout.decode("ascii", "replace").split()) if walk.returncode == 0 else None
        out.update({p: None if outside is None else p[1] not in outside for p in known})
    return out
