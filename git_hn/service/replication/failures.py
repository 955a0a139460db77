"""Streams the last import from each remote did not import (git-hn; docs/decisions.md).

A team trial: a fresh clone's ``git hn sync`` failed for one teammate's stream (an early memory's
anchor commit was gone from the remote), so none of that stream's memories were imported, an
active decision among them; ``recall`` and the brief then showed the other memories and said
nothing was missing. Agents read the brief, not the sync's output.

So each import that ran to its end (``git hn sync``, and the fetch hook's import, which is a
sync without publication) writes the streams it did not import, per remote, into
``<common-gitdir>/hn/replication/failed-imports`` (``note``): each stream's ID, the name its
memories sign with, the memory it stops at and the anchor commit that memory misses, and the
outcome's status. A later import of that remote replaces the remote's entry: a stream that
imports is no longer named, and a remote whose import failed as a whole (unreachable, an error
before any outcome) keeps what it had. ``hint`` reads it back for recall, the brief and the MCP
read tools: one small file read, no Git process. Derived, private, best effort (a failure to
write it costs the hint only). Two syncs of different remotes that end together may each write
the file from what it read: one remote's entry may then be that of its previous import, until
its next one. Trusts nothing in the file beyond its shape; the name is author text, inert and
bounded where it is shown.
"""

from __future__ import annotations

import json
import os

from ...core.grammar import is_digest_id, is_oid
from ...errors import HnError
from ...store.repo import Repo
from .anchor_ways import BOTH, BRANCHES, SHALLOW, beyond_fetched

MAGIC = "hn-failed-imports/0"
MAX_BYTES = 1 << 16  # a larger record is taken as absent
MAX_STREAMS = 100  # per remote: the hint names one and counts the rest
# the statuses an entry may hold: CONTRACT §9.14's, less those of a stream that imported (a review:
# a hand-edited status was printed as it was)
STATUSES = frozenset({"fetched", "over-budget", "structurally-invalid", "dependency-missing",
                      "relationship-invalid", "promotable", "equivocation"})
# an equivocation's hint says what was seen (``seen.seen_history``): a red-team remote that
# wrapped an author's memories in new commits got the hint "of "Alice": equivocation"
SEEN = {"rewritten": "{remote} rewrote its commits (the same memories), not its author",
        "rolled-back": "{remote} rolled it back to an earlier memory, not its author",
        "diverged": "equivocation, its author signed two histories"}


def _path(repo: Repo) -> str:
    return repo.failed_imports_path()  # (built there: recall and the brief look for it first)


def _read(repo: Repo, configured: bool = False) -> dict[str, list[dict]]:
    """remote -> its entries; {} when there is no record or it cannot be read. A key that is no
    remote name (CONTRACT §3.2) is dropped, and with ``configured`` one that ``git remote`` no
    longer lists (a review: a removed remote's streams were named for ever, a renamed one's twice;
    ``Repo.remote_names``, asked only when the file has entries)."""
    from ...core.remotes import is_remote_name
    from ...store import private

    try:
        data = private.read_private(repo.hn_dir, _path(repo), MAX_BYTES)
        doc = json.loads(data) if data else None
    except (HnError, OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != MAGIC or not isinstance(doc.get("remotes"), dict):
        return {}
    out = {r: [e for e in entries if _valid(e)] for r, entries in doc["remotes"].items()
           if isinstance(r, str) and is_remote_name(r) and isinstance(entries, list)}
    if configured and out:
        names = repo.remote_names()
        out = {r: entries for r, entries in out.items() if r in names}
    return out


def _valid(entry) -> bool:
    return (isinstance(entry, dict) and is_digest_id(entry.get("stream", "")) and isinstance(entry.get("name", ""), str)
            and entry.get("status") in STATUSES
            and (entry.get("memory", "") == "" or is_digest_id(entry["memory"]))
            and (entry.get("commit", "") == "" or is_oid(entry["commit"]))
            and (entry.get("seen", "") == "" or entry["seen"] in SEEN)
            and (entry.get("beyond", "") == "" or entry["beyond"] in BEYOND))


BEYOND = (SHALLOW, BRANCHES, BOTH)


def beyond_of(repo: Repo, remote: str, result) -> str:
    """What this clone did not fetch of ``remote`` where a missing anchor commit may be
    (``anchor_ways.beyond_fetched``): "" when it is neither shallow nor narrower than every
    branch (then "not on REMOTE" holds: its fetch brought every branch). A stat, and the remote's
    branches this clone's refspecs leave out as the sync asked the remote (``result.unfetched``:
    asked for a missing anchor commit no fetched branch has); a shallow clone's sync does not ask
    (its recovery is to deepen), and its refspecs are read instead (one ``git config``)."""
    from .gate import fetches_every_branch
    from .shallow import is_shallow

    shallow = is_shallow(repo)
    narrow = bool(result.unfetched)
    if shallow and not narrow:
        try:
            narrow = not fetches_every_branch(repo, remote)
        except HnError:
            pass
    return BOTH if shallow and narrow else SHALLOW if shallow else BRANCHES if narrow else ""


def entries_of(result, beyond: str = "") -> list[dict]:
    """The streams ``result`` (a ``SyncResult``) did not import, as the record keeps them: in
    ``failures``' order (a stream failing only because another did comes after the others, so the
    hint, which names the first, names a cause: it named whichever stream ID sorted first).
    ``beyond``: what this clone did not fetch (``beyond_of``), kept with a missing anchor commit."""
    out = []
    for o in result.failures():
        if o.kind != "memory" or not is_digest_id(o.id):
            continue
        owner = o.fields.get("ownerMemoryId") or ""
        missing = o.fields.get("missingId") or "" if o.fields.get("dependencyKind") == "anchor-commit" else ""
        names = [m.envelope.actor_name for m in (o.memories or ()) if m.memory_id == owner] or \
            [m.envelope.actor_name for m in (o.memories or ())][:1]
        out.append({"stream": o.id, "name": names[0] if names else "", "status": str(o.status),
                    "memory": owner if is_digest_id(owner) else "", "commit": missing if is_oid(missing) else "",
                    **({"seen": o.fields["seen"]} if o.fields.get("seen") in SEEN else {}),
                    **({"beyond": beyond} if beyond and is_oid(missing) else {})})
    return out[:MAX_STREAMS]


def note(repo: Repo, remote: str, result) -> None:
    """After an import of ``remote`` that ran to its end: its entry becomes the streams this one
    did not import (none: the entry is dropped). Best effort."""
    from ...store import private

    entries = entries_of(result)
    if any(e["commit"] for e in entries):  # (asked only then: a missing anchor commit's where)
        entries = entries_of(result, beyond_of(repo, remote, result))
    remotes = _read(repo, configured=True)  # (a removed or renamed remote's entry goes: a review)
    if remotes.get(remote, []) == entries or (not entries and remote not in remotes):
        return  # (the usual sync: one read, nothing written)
    if entries:
        remotes[remote] = entries
    else:
        remotes.pop(remote, None)
    try:
        if remotes:
            text = json.dumps({"format": MAGIC, "remotes": remotes}, sort_keys=True, ensure_ascii=True)
            private.write_private(repo.hn_dir, _path(repo), text.encode("ascii"), derived=True)
        else:
            os.unlink(_path(repo))
    except (HnError, OSError):
        pass


def failed_streams(repo: Repo, remote: str) -> set[str]:
    """The streams ``remote``'s last import did not import, as recorded (the pre-push hook's
    ``unimported_there`` leaves them out: the sync already says them)."""
    return {e["stream"] for e in _read(repo).get(remote, [])}


def hint(repo: Repo) -> str:
    """One line naming the streams each remote's last import did not import, and the sync that
    says why; "" when every import ended with all its streams (or none is recorded). One file
    read."""
    from shlex import quote

    from ...core.gostr import short_id
    from ...core.hints import of_author

    parts = []
    for remote, entries in sorted(_read(repo, configured=True).items()):
        if not entries:
            continue
        first = entries[0]
        who = of_author(first["name"]) if first.get("name") else ""
        where = f": stops at memory {short_id(first['memory'])}" if first.get("memory") else \
            f": {SEEN[first['seen']].format(remote=remote)}" if first.get("seen") else f": {first['status']}"
        how = f"git hn sync {quote(remote)} says why"
        if first.get("memory") and first.get("commit"):
            if first.get("beyond"):  # (a shallow or single-branch clone: F100, a trial)
                said, how = beyond_fetched(remote, first["commit"], first["beyond"])
                where += f", whose anchor commit {first['commit'][:12]} {said}"
            else:
                where += f", whose anchor commit {first['commit'][:12]} is not on {remote}"
        more = f"; and {len(entries) - 1} more" if len(entries) > 1 else ""
        count = "1 stream" if len(entries) == 1 else f"{len(entries)} streams"
        parts.append(f"{count} of {remote} did not import at the last sync (stream {short_id(first['stream'])}"
                     f"{who}{where}{more}); {how}")
    return "; ".join(parts)
