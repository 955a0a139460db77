"""The fetch hook (CONTRACT §10.7): what the ``reference-transaction`` wrapper runs after a
committed transaction moved a remote's remote-tracking refs, standing in for the post-fetch hook
Git does not have (and after one that moved an own memory ref back: ``lost_streams``). It imports the remote's selected streams (or, when the wrapper found the
remote quiet, only checks what a force-push took off the tracking refs), says in one line why an
import failed (or, once in ten minutes, that one accepted memories anchored on commits not merged
here: ``replication.not_merged``), and leaves the per-fetch stamp (and the list of this clone's published anchors)
that the wrapper reads so that git-hn runs at most once per fetch. Never fails the user's Git
command. Trusts: Git's hook input, as Git gives it; the verified state for what this clone
published.
"""

from __future__ import annotations

import os
import sys

from ..core.lines import lines_of
from ..errors import ConflictError, HnError
from ..store.repo import Repo


def run_reference_transaction(repo: Repo, state: str, data: bytes, how: str = "",
                              signal_at: str | None = None) -> int:
    """After a committed transaction: import for every remote with a saved selection whose
    remote-tracking refs it gave a value (a deletion, as ``git fetch --prune`` makes, brings
    nothing to import). ``how`` ``quiet`` (the wrapper found the remote quiet, and a tracking ref
    moved off a commit: ``hookscripts``): no import, only the check of what left the tracking
    refs (``replication.anchors_left``); ``unanswered`` (its question for the remote's memory refs
    ran out of time): the import fails at once, and asks nothing again (``_unanswered``); ``own``
    (a Git command other than git-hn moved back or deleted a memory ref of an identity here): no
    import, only the warning of what that took (``lost_streams``). ``signal_at``: git-hn's own test hook
    (``signal:<seam>``, as ``replication.sync``'s ``interrupt_after``). Never fails the user's
    command."""
    if state != "committed":
        return 0
    if how == "own":  # (the wrapper saw an own memory ref moved back or deleted: not git-hn's doing)
        from .lost_streams import after_transaction

        said = after_transaction(repo, data)
        if said:
            sys.stderr.write(f"git-hn: warning: {said}\n")
        return 0
    from ..store import replication
    from .replication import anchors_left, sync

    touched = set()
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split(" ")
        if len(parts) == 3 and parts[2].startswith("refs/remotes/") and parts[1].strip("0"):
            rest = parts[2][len("refs/remotes/"):]
            if "/" in rest:
                touched.add(rest.split("/", 1)[0])
    fetch = _fetch_process() if touched else None
    for remote in sorted(touched):
        if not os.path.exists(replication.selection_path(repo, remote)):
            continue
        named = _named_earlier(repo, remote, fetch) if fetch is not None else frozenset()
        if how == "quiet":  # (an audit: each force-pushed ref started a whole import, and its round trip)
            said = anchors_left(repo, remote, named)
            for line in said:
                sys.stderr.write(f"git-hn: {line}\n")
            if fetch is not None:  # (the fetch's later refs start nothing)
                _note_imported(repo, remote, fetch, "checked", bool(said))
            continue
        if fetch is not None and replication.failed_during(repo, remote, fetch):
            continue  # this fetch's first ref already failed the import, and said so
        if how == "unanswered" and _unanswered(repo, remote, fetch):
            continue
        reminded = False
        try:
            # by the advertisement even for streams known by name: when it finds nothing to
            # import (the usual fetch) it leaves the quiet record, and the hooked fetches after
            # it start no git-hn (``hookscripts``); a fetch by name would leave none
            result = sync(repo, remote, publish=False, by_name=False, wait=0, named=named,  # never holds up Git
                          interrupt_after=signal_at)
            failed = bool(result.exit_message())
            said = " ".join(o.fields.get("diagnostic", "") for o in result.outcomes) + result.exit_message()
            cause, way_out = first_failure(result, _beyond(repo, remote, result)) if failed else ("", "")
            for line in result.reminders:  # (a teammate's force-push took an anchor of ours off it)
                sys.stderr.write(f"git-hn: {line}\n")
            reminded = bool(result.reminders)
            if not failed and result.imported:
                _not_merged(repo, result, fetch)
        except ConflictError as exc:  # another sync with that remote is running, or with another accepting
            sys.stderr.write(f"git-hn: {exc.message}\n")
            if fetch is not None:  # (said once: this fetch's later ref transactions do not import again)
                replication.note_failed(repo, remote, fetch)
            continue
        except HnError as exc:
            failed, said = True, exc.message
            cause, way_out = _shortened(exc.message), ""
        if failed:
            sys.stderr.write(f"git-hn: memory import from {remote} failed{_why(repo, said, remote, cause, way_out)}\n")
            if fetch is not None:
                replication.note_failed(repo, remote, fetch)
        if fetch is not None:  # (the wrapper starts no git-hn for this fetch's later refs: finding 1)
            _note_imported(repo, remote, fetch, said=reminded)
    return 0


def _not_merged(repo: Repo, result, fetch: str | None) -> None:
    """After an import that accepted memories: the hint that some are anchored on commits not
    merged here (``replication.not_merged``; a newcomer trial took their absence from recall for a
    failed import), said once in ten minutes per remote and ref (``store.hints_said``, the memo
    ``git hn sync`` shares): a fetch after fetch brought the same line each time. Not in a ``git
    pull`` (``process_tree.pulls``), which merges right after its fetch: "not merged here" would
    be stale once it returns. Best effort."""
    from ..store.process_tree import pulls

    if fetch is not None and pulls(fetch):
        return
    import time

    from ..store import hints_said
    from .replication.not_merged import hint

    found = hint(repo, result)
    if found is None:
        return
    key, now = found[1][2], time.time()
    if hints_said.said_at(repo, key, now) is None:
        sys.stderr.write(f"git-hn: hint: {found[0]}\n")
        hints_said.remember(repo, key, now)


def _unanswered(repo: Repo, remote: str, fetch: str | None) -> bool:
    """``how`` ``unanswered``: the wrapper's question for the remote's memory refs ran out of the
    seconds its quiet record gives it (``hookscripts``), which are the import's own bound
    (``hn.syncStallTimeout``) as it was when the record was written. When the setting still is at
    most that, the import fails at once with the advertisement's line (a red-team trial: a remote
    that stalled only that listing held ``git fetch`` for the wrapper's 300 s, then the import
    asked again for its own 60 s), and True. Else (the setting raised since; no record to say)
    False: the import asks as usual."""
    from ..store import replication
    from .replication.advertise import unanswered
    from .replication.transfer import stall_timeout

    waited = replication.quiet_bound(repo, remote)
    try:
        if waited is None or stall_timeout(repo) > waited:
            return False
    except HnError:
        return False  # (the import refuses the setting, and says so)
    replication.forget_quiet(repo, remote)  # (as the import does before it asks: it decides anew)
    said = unanswered(remote, waited).message
    sys.stderr.write(f"git-hn: memory import from {remote} failed{_why(repo, said, remote, _shortened(said))}\n")
    if fetch is not None:
        replication.note_failed(repo, remote, fetch)
        _note_imported(repo, remote, fetch)
    return True


def _fetch_process() -> str | None:
    """The Git process this hook runs in, as ``process_tree.hook_caller`` names it ("<pid> <start
    time>"): as the wrapper named it (``HN_FETCH_CALLER``, from its ``$PPID``: no ``/proc`` needed,
    a portability trial found every once-per-fetch safeguard off without it), else from
    ``/proc``; None where neither says. A caller without a start time (``-``: neither ``/proc``
    nor ps(1) could give one) is none: a later fetch given the same process ID would match its
    stamp and import nothing (a reread)."""
    given = os.environ.get("HN_FETCH_CALLER", "")
    pid, _sep, start = given.partition(" ")
    from ..store.process_tree import hook_caller, is_pid

    if is_pid(pid) and start and start != "-" and " " not in start:
        return given

    return hook_caller()


def _note_imported(repo: Repo, remote: str, fetch: str, token: str = "imported", said: bool = False) -> None:
    """Tell the ``reference-transaction`` wrapper that git-hn ran for this fetch (``fetch``:
    ``hook_caller``'s "<pid> <start time>") and ``remote``: ``imported`` after its import (a later
    ref of the fetch that moved a tracking ref off a commit still starts one check of what left:
    a review found a fetch that brought memory and force-pushed main silent about main's anchor),
    ``checked`` after that check (nothing more starts): Git 2.39 runs the hook once per ref a fetch
    updates, and a fetch of 100 new branches started git-hn 100 times (40 force-pushed ones, 40
    times). The wrapper's stamp (``<quiet record>.seen``), the token in place of the quiet
    record's ID, after the list of this clone's published anchors that the wrapper reads with it
    for the fetch's later refs (``tracked.note_published``); best effort. ``said``: this run's
    reminder named the anchors ``atrisk`` finds gone; they, and those an earlier run of the same
    fetch named (kept in the stamp, a line each after its first), are left out of the list, so a
    later ref that left only those starts nothing (a review: one fetch said the reminder once
    per force-pushed branch)."""
    from ..store import private
    from ..store import replication as rstate
    from .replication import atrisk
    from .replication.tracked import note_published

    path = rstate.quiet_path(repo, remote) + ".seen"
    named = set(_named_earlier(repo, remote, fetch))
    named |= set(atrisk.gone(repo, remote)) if said else set()
    note_published(repo, remote, frozenset(named))
    try:
        text = "".join(f"{line}\n" for line in [f"hn-seen/0 {fetch} {token}", *sorted(named)])
        private.write_private(repo.hn_dir, path, text.encode("ascii"), derived=True)
    except (HnError, OSError):
        pass


STAMP_LIMIT = 4 << 20  # bytes of the stamp read back (~100,000 anchors; the wrapper reads its first line only)


def _named_earlier(repo: Repo, remote: str, fetch: str) -> frozenset[str]:
    """The anchors an earlier run of this fetch (``fetch``: ``hook_caller``'s "<pid> <start
    time>") named in its reminder, from the stamp ``_note_imported`` leaves; none when the stamp
    is another fetch's, absent or unreadable. A later run leaves them out of its reminder (a
    review: two ``hn-anchor/*`` branches force-pushed in one push made the next fetch say the
    reminder twice, the second line naming the first's anchor again)."""
    from ..core.grammar import is_oid
    from ..store import private
    from ..store import replication as rstate

    path = rstate.quiet_path(repo, remote) + ".seen"
    try:
        lines = (private.read_private(repo.hn_dir, path, STAMP_LIMIT) or b"").decode("ascii").splitlines()
    except (HnError, OSError, UnicodeDecodeError):
        return frozenset()
    if not lines or lines[0].split(" ")[1:3] != fetch.split(" "):
        return frozenset()
    return frozenset(c for c in lines[1:] if is_oid(c))


def _why(repo: Repo, said: str, remote: str, cause: str = "", way_out: str = "") -> str:
    """The end of the fetch hook's one line: a prompt the import could not show, or access an ssh
    remote refused (the prompt OpenSSH 9 could not show, F67), with its way out (``git hn sync``
    would fail the same way), else the first cause (``first_failure``) and its way out:
    ``way_out`` when a sync cannot help either, else where the details are."""
    from shlex import quote as shlex_quote

    from ..store.transport import ACCESS_REFUSED, NO_CREDENTIALS, NO_PASSPHRASE, without_terminal

    reason = next((r for r in (NO_PASSPHRASE, NO_CREDENTIALS, ACCESS_REFUSED) if r in said), "")
    way = without_terminal(reason, remote, git=repo.git) if reason else ""
    if way:
        return f": {reason}; {way}"
    return (f": {cause}" if cause else "") + "; " + (way_out or f"run git hn sync {shlex_quote(remote)}")


CAUSE_LIMIT = 200  # characters of the cause the fetch hook's line gives (``git hn sync`` says all)


def _beyond(repo: Repo, remote: str, result) -> str:
    """``failures.beyond_of`` when the first failure is a missing anchor commit (else "": asked
    only then)."""
    first = next(iter(result.failures()), None)
    if first is None or first.fields.get("dependencyKind") != "anchor-commit":
        return ""
    from .replication.failures import beyond_of

    return beyond_of(repo, remote, result)


def first_failure(result, beyond: str = "") -> tuple[str, str]:
    """The fetch hook's reason, in its one line (a team trial: "memory import from origin failed"
    on every fetch, and no reason), and its way out when ``git hn sync`` is not it: the first
    failing stream's, shortened, as ``stream S of "NAME" stops at memory M, whose anchor commit C
    is not on REMOTE`` for the usual case, else its diagnostic with IDs cut to 12 characters and
    without its recovery; else the import phase's error. For that usual case the way out is who
    can put the commit back (``anchor_ways.put_back``): the fetch that started the hook brought the
    remote's branches, and none had the commit, so a sync, which fetches them again, fails the
    same way (a team trial). In a shallow clone (``beyond``: what it did not fetch,
    ``failures.beyond_of``) the commit may be on the remote past what the fetch brought: the line
    says so, with the command that brings it (``anchor_ways.beyond_fetched``; a trial: "is not on
    origin" for the parent of origin's tip past the shallow boundary). For a fetch the
    remote refused access to, it is the outcome's credentials advice (a sync's fetch has no
    terminal either). Author text (the name) is inert and bounded. No Git process."""
    from ..core.gostr import one_line, short_id
    from ..core.hints import of_author
    from .replication.anchor_ways import BOTH, SHALLOW, beyond_fetched, put_back

    for o in result.failures():  # (a stream's own failure first: one failing only by another's comes after)
        owner, missing = o.fields.get("ownerMemoryId") or "", o.fields.get("missingId") or ""
        if o.fields.get("dependencyKind") == "anchor-commit" and owner and missing:
            names = [m.envelope.actor_name for m in o.memories if m.memory_id == owner]
            who = of_author(names[0]) if names else ""
            if beyond in (SHALLOW, BOTH):  # (a single-branch clone's is ``put_back``'s ``unfetched``)
                where, how = beyond_fetched(result.remote, missing, beyond)
                return f"stream {short_id(o.id)}{who} stops at memory {short_id(owner)}, whose anchor commit " \
                       f"{missing[:12]} {where}", how
            back = one_line(o.fields.get("recovery") or "").startswith("fetch a branch that contains")
            where = f"on a branch of {result.remote} this fetch brought" if result.unfetched else f"on {result.remote}"
            return (f"stream {short_id(o.id)}{who} stops at memory {short_id(owner)}, whose anchor commit "
                    f"{missing[:12]} is not {where}",
                    put_back(result.remote, missing, "this fetch brought", result.unfetched,
                             kept=result.kept.get(missing, "")) if back else "")
        if o.fields.get("seenWords"):  # (what the remote did, or the author: not the IDs of two commits)
            names = [m.envelope.actor_name for m in o.memories or ()][:1]
            who = of_author(names[0]) if names else ""
            return f"stream {short_id(o.id)}{who}: equivocation: {o.fields['seenWords']}", ""
        text = o.fields.get("diagnostic", "").split("; recovery: ")[0]
        # (a fetch refused access: the sync's fetch runs without a terminal too, and fails alike;
        # a stream that fails by another's: a sync fails alike until that one is fixed)
        way_out = result.recovery(o) if o.fields.get("refused") or result.root(o) is not None else ""
        return _shortened(text.replace(f"selection memory {o.id} ", f"stream {short_id(o.id)}: ", 1)), way_out
    return _shortened(result.import_error), ""


def _shortened(text: str) -> str:
    """``text`` on one line, with full object and memory IDs cut to 12 characters, and at most
    ``CAUSE_LIMIT`` characters (then "…")."""
    import re

    from ..core.gostr import cut

    return cut(re.sub(r"\b(sha256:)?([0-9a-f]{12})[0-9a-f]{28,52}\b", lambda m: m.group(2), text), CAUSE_LIMIT)
