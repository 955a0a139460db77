"""A remote renamed under git-hn (``git remote rename origin upstream``; git-hn, docs/decisions.md).

Git renames the remote's settings and its remote-tracking refs, and nothing of git-hn's: the saved
replication selection stayed under the old name, so the fetch hook imported nothing from the new
one, ``replication show upstream`` said ``saved: false``, and the accepted refs stayed under
``refs/hn/remotes/origin/`` (a trial, ncS94 finding 7).

So the URL each remote is synced from (or selected for) is recorded, as a digest (a URL may carry
credentials), in ``<common-gitdir>/hn/replication/urls/<name>`` (``note_url``; earlier clones'
quiet records, which hold the URL, count too). A saved selection whose name is no remote any more
(an *orphan*) with a recorded URL *fits* a configured remote that has no selection of its own and
whose fetch URL is that one, and that was no remote when the URL was recorded (with it, the
remotes configured then are kept): the same repository under a new name.

- A sync from such a remote moves the orphan's selection (and its learnt
  owners) to it before it imports (``adopt``) and says so in one line, with the command that
  removes what was accepted under the old name. Safe: the old name is no remote, so nothing
  reads its selection; the new one had none, so its default was every stream (CONTRACT §9.1), and
  a moved selection imports no more than that; everything imported is validated as ever. A
  selection never synced or selected while its remote existed has no URL recorded and is never
  moved (``replication select`` may save one before its remote is added, §9.2).
- The reads (recall, the JSON brief, ``index verify``: ``unimported.hint``) and ``replication
  show`` say which sync moves it (``hint``, ``fits``). The fetch hook's wrapper starts no git-hn
  for a remote without a selection (``hookscripts``), so a fetch moves nothing: the next read says
  what does.

Cost: nothing without a saved selection. With one, a check that found nothing leaves a derived
record of ``.git/config``'s and the selections directory's signatures (``CHECKED``): while they
stay the same, a read starts no Git process for it (two ``stat`` calls and one small read); after
they changed, ``git remote`` (once per command, ``Repo.remote_names``), and a remote's URL only
when an orphan's URL is recorded. Trusts its own derived files, and Git's configuration.
"""

from __future__ import annotations

import os
from shlex import quote

from ...core.grammar import is_remote_name
from ...core.hashing import sha256_hex
from ...errors import HnError
from ...store import private
from ...store import replication as rstate
from ...store.repo import Repo

CHECKED = "renamed-checked"  # derived: the signature at which no saved selection fitted a renamed remote
MAX_FIT = 8  # configured remotes without a selection asked for their URL, at most
URLS_MAX = 1 << 16  # bytes of a URL record read


def url_digest(url: str) -> str:
    # (``core.hashing``: every sync notes its URL, and hashlib's loading of OpenSSL cost 3 ms of it)
    return sha256_hex(url.encode("utf-8", "surrogateescape"))


def _url_path(repo: Repo, remote: str) -> str:
    return rstate._per_remote(repo, "urls", remote)


def note_url(repo: Repo, remote: str, url: str) -> None:
    """Record the digest of the fetch URL ``remote`` was synced from or selected for, and the
    remotes configured then (a derived file, written only when the URL changes; best effort)."""
    if not url:
        return
    digest = url_digest(url)
    path = _url_path(repo, remote)
    try:
        if (private.read_private(repo.hn_dir, path, max_bytes=URLS_MAX) or b"").split(b"\n", 1)[0] == digest.encode():
            return
        names = "".join(f"{n}\n" for n in sorted(repo.remote_names()))
        private.write_private(repo.hn_dir, path, f"{digest}\n{names}".encode("utf-8", "surrogateescape"), derived=True)
    except (HnError, OSError):
        pass


def noted_url(repo: Repo, remote: str) -> tuple[str, frozenset[str] | None]:
    """The digest ``note_url`` recorded for ``remote`` and the remotes configured then, else the
    digest of the URL in its quiet record (an earlier git-hn's) and None, else ("", None)."""
    try:
        lines = (private.read_private(repo.hn_dir, _url_path(repo, remote), max_bytes=URLS_MAX) or b"").decode(
            "utf-8", "surrogateescape").split("\n")
        if len(lines[0]) == 64 and not lines[0].strip("0123456789abcdef"):
            return lines[0], frozenset(n for n in lines[1:] if n)
        lines = (private.read_private(repo.hn_dir, rstate.quiet_path(repo, remote), 1 << 16) or b"").decode(
            "utf-8", "surrogateescape").split("\n")
    except (HnError, OSError):
        return "", None
    return (url_digest(lines[3]) if len(lines) > 4 and lines[3] else ""), None


def _saved(repo: Repo) -> list[str]:
    """The remotes with a saved selection file, sorted (no Git process)."""
    try:
        stems = {n[:-len(".json")] for n in rstate._entries(repo, "selections") if n.endswith(".json")}
    except (HnError, OSError):
        return []
    return [r for r in rstate._remotes_of(stems, stems) if is_remote_name(r)]  # (names shown, in commands)


def _signature(repo: Repo) -> str:
    """What the check's answer depends on, as cheaply as it can be read: ``.git/config``'s and the
    selections directory's identity, size and change time ("" when either cannot be read)."""
    parts = []
    for path in (os.path.join(repo.common_dir, "config"), os.path.join(rstate.root(repo), "selections")):
        try:
            st = os.stat(path)
        except OSError:
            return ""
        parts.append(f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
    return " ".join(parts) + "\n"


def _checked(repo: Repo, signature: str) -> bool:
    try:
        return bool(signature) and private.read_private(
            repo.hn_dir, os.path.join(rstate.root(repo), CHECKED), max_bytes=512) == signature.encode()
    except (HnError, OSError):
        return False


def _note_checked(repo: Repo, signature: str) -> None:
    if signature:
        try:
            private.write_private(repo.hn_dir, os.path.join(rstate.root(repo), CHECKED), signature.encode(),
                                  derived=True)
        except (HnError, OSError):
            pass


def _orphans(repo: Repo, saved: list[str]) -> dict[str, tuple[str, frozenset[str] | None]]:
    """Of the ``saved`` selections, those whose remote is no remote here any more and whose URL is
    recorded: name -> (URL digest, the remotes configured when it was recorded, or None)
    (``git remote``, once per command: ``Repo.remote_names``)."""
    configured = repo.remote_names()
    return {r: noted for r in saved if r not in configured for noted in (noted_url(repo, r),) if noted[0]}


def _fitting(orphans: dict, remote: str, digest: str) -> list[str]:
    """The orphans ``remote`` (fetch URL digest ``digest``) may be the new name of: the same URL,
    and not a remote already when that URL was recorded (a review: a second remote of the same
    URL removed left its selection, which the first one, there all along, never had)."""
    return sorted(r for r, (d, then) in orphans.items() if d == digest and (then is None or remote not in then))


def _fetch_url(repo: Repo, remote: str) -> str:
    from ...store.transport import url_question

    proc = repo.git.run(list(url_question(remote)))
    return proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""


def fits(repo: Repo, remote: str, url: str | None = None) -> str:
    """For ``remote``, which has no saved selection: the one orphan selection (``_orphans``) whose
    recorded URL is ``remote``'s fetch URL (``url``, else asked), or "". No Git process while the
    remotes and selections are as they were when nothing fitted last."""
    saved = _saved(repo)
    if not saved or remote in saved:
        return ""
    signature = _signature(repo)
    if _checked(repo, signature):
        return ""
    orphans = _orphans(repo, saved)
    digest = url_digest(url if url is not None else _fetch_url(repo, remote)) if orphans else ""
    found = _fitting(orphans, remote, digest)
    if len(found) != 1:
        if not orphans:  # (else another remote may fit one: not settled for every remote)
            _note_checked(repo, signature)
        return ""
    return found[0]


def adopt(repo: Repo, remote: str, url: str | None = None) -> str:
    """Before an import from ``remote``, which has no saved selection: move the selection that
    ``fits`` it (and its learnt owners) to it, and return the line that says so; "" when none fits
    or the move fails (then nothing changed but, at worst, a copy saved under ``remote``)."""
    old = fits(repo, remote, url)
    if not old:
        return ""
    try:
        sel, data = rstate.read_selection(repo, old)
        if data is None:
            return ""
        rstate.save_selection(repo, sel._replace(remote=remote))
        owners = rstate.load_owners(repo, old)
        if owners:
            rstate.save_owners(repo, remote, owners)
        note_url(repo, remote, url if url is not None else _fetch_url(repo, remote))
        for path in (rstate.selection_path(repo, old), rstate.owners_path(repo, old), _url_path(repo, old)):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
    except (HnError, OSError):
        return ""
    line = (f"Replication selection of {old} moved to {remote}: {old} is no remote any more, and {remote} has its "
            "URL (git remote rename moves none of git-hn's records)")
    held = repo.git.run(["for-each-ref", "--count=1", "--format=%(refname)", "--end-of-options",
                         f"refs/hn/remotes/{old}/"])
    if held.returncode == 0 and held.stdout.strip():
        line += (f"; what was accepted from {old} stays under refs/hn/remotes/{old}/ until removed: git for-each-ref "
                 f"--format='delete %(refname)' {quote(f'refs/hn/remotes/{old}/')} | git update-ref --stdin")
    return line


def hint(repo: Repo) -> str:
    """For the reads: each configured remote without a saved selection that an orphan selection
    ``fits``, and the sync that moves it there; "" when none (the usual read: no Git process)."""
    saved = _saved(repo)
    if not saved:
        return ""
    signature = _signature(repo)
    if _checked(repo, signature):
        return ""
    orphans = _orphans(repo, saved)
    candidates = sorted(repo.remote_names() - set(saved))[:MAX_FIT] if orphans else []
    parts = []
    for remote in candidates:
        found = _fitting(orphans, remote, url_digest(_fetch_url(repo, remote)))
        if len(found) == 1:
            parts.append(f"the replication selection saved for {found[0]}, which is no remote any more, is "
                         f"{remote}'s (the same URL: git remote rename moves none of git-hn's records): git hn sync "
                         f"{quote(remote)} moves it there and imports what it selects")
    if not parts:
        _note_checked(repo, signature)
    return "; ".join(parts)
