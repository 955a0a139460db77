"""``git hn replication forget-anchors REMOTE [COMMIT]...``: anchors forgotten by hand (git-hn;
docs/decisions.md 2b, 2i).

``lost`` and ``atrisk`` remember, per remote, the anchor commits a push took off it or that were
published while only a side branch held them, and their reminder is said at every push to it
and sync with it until a branch of the remote holds the commit again. A user may decide that a
memory does not need its anchor back (the commit held a secret, the memory is obsolete): the
only way out was then to push the commit back all the same. This takes the named commits (or,
with none named, every one remembered for the remote) out of both records. Nothing is pushed,
fetched or signed, and no memory changes: whoever imports such a stream from the remote still
stops at an anchor no branch holds. So it is offered for a commit taken off on purpose (a
secret) only, never as the routine way out (a team trial: every importer needs the anchor, and
forgetting hid the problem from the one person who could fix it), and both the dry run and the
real run say in one hint line that importers still stop at those memories (``after_hint``).

A COMMIT is matched against the records' entries, never the repository: the commit may be gone
from this clone (often why it is forgotten), and a prefix that names one commit here could name
another one remembered. All or nothing: a remote that does not exist, a COMMIT that is no
commit ID, names no entry or names several, a busy lock or a record that cannot be written
change nothing (the second record's failure puts the first one back). Both records' locks are
held, ``lost``'s then ``atrisk``'s (no other code takes both), from the reads to the writes, and
strictly: the records' usual best effort would let a busy lock or a failed write pass silently. A
dry run, which writes neither record, takes neither lock (it works in a read-only ``.git/hn``).
Before them, the check of the remote-tracking refs (``tracked``) is settled, in a dry run too
(it changes only those derived records): a commit they lost since it last ran (this clone's own
force-push, a teammate's one fetched) would otherwise be handed back to ``atrisk`` by the next
sync, forgotten or not, and a dry run would list less than the real run forgets.

Trusts: the records (private files this clone derived) and this clone's remote configuration.
"""

from __future__ import annotations

from contextlib import ExitStack

from ...core.gostr import bounded, quoted, short_id
from ...core.lines import lines_of
from ...core.tuples import NamedTuple
from ...errors import HnError, InputError
from ...store.repo import Repo
from . import atrisk, lost

MIN_PREFIX = 4  # hex digits of an abbreviated COMMIT (Git's own minimum abbreviation)
SUBJECT_SHOWN = 60  # characters of a commit's subject a human line shows


class Forgotten(NamedTuple):
    commit: str
    memory: str  # the first memory remembered on it
    records: tuple  # "lost" (a push took it off), then "at-risk" or "gone" (``atrisk``'s state)
    subject: str | None = None  # the commit's subject; None when this clone does not have it


def forget(repo: Repo, remote: str, given: list[str], dry_run: bool = False) -> list[Forgotten]:
    """Take the commits ``given`` names (full or abbreviated IDs; none: all) out of ``remote``'s
    records, or with ``dry_run`` only say which; in the records' order, ``lost``'s first."""
    check_remote(repo, remote)
    wanted = list(dict.fromkeys(check_commit(word) for word in given))
    from . import tracked  # (a review: commits the remote-tracking refs lost since their last check
    # were handed to ``atrisk`` by the next sync, after they were forgotten; and in a dry run too:
    # it listed less than the real run then forgot, another review found)

    tracked.check(repo, remote)
    # (a dry run changes neither record, so it takes neither lock: an audit found their lock files made
    # by it, and it failed in a read-only .git/hn; each record is read whole, as written, by rename)
    with ExitStack() as held:
        if not dry_run:
            held.enter_context(lost.locked(repo, remote, strict=True))
            held.enter_context(lost.locked(repo, remote, "atrisk", strict=True))
        taken, key = lost.recorded(repo, remote)  # (made for another form of its URL too: a review)
        default, risky, risky_key = atrisk.recorded(repo, remote)
        entries = {**taken, **{c: m for c, (m, _s) in risky.items() if c not in taken}}
        chosen = resolve(wanted, list(entries), remote) if wanted else list(entries)
        if chosen and not dry_run:
            left = {c: m for c, m in taken.items() if c not in chosen}
            if left != taken:
                lost.replace(repo, remote, left, key)
            try:
                if any(c in risky for c in chosen):
                    atrisk.replace(repo, remote, default, {c: e for c, e in risky.items() if c not in chosen},
                                   risky_key)
            except HnError:
                if left != taken:
                    try:
                        lost.replace(repo, remote, taken, key)  # (all or nothing)
                    except HnError:  # (the first failure is the one to report)
                        pass
                raise
    picked = set(chosen)
    ordered = [c for c in entries if c in picked]
    subjects = _subjects(repo, ordered)
    return [Forgotten(c, entries[c], (*(("lost",) if c in taken else ()),
                                      *((("at-risk" if risky[c][1] == atrisk.AT_RISK else "gone"),)
                                        if c in risky else ())), subjects.get(c)) for c in ordered]


def check_remote(repo: Repo, remote: str) -> None:
    """``remote`` is a remote of this repository (its transport is not asked about: nothing
    is sent to it)."""
    from ...core.grammar import is_remote_name
    from ...store.transport import url_question

    if is_remote_name(remote) and repo.git.run(list(url_question(remote))).returncode == 0:
        return
    names = lines_of(repo.git.run(["remote"]).stdout.decode("utf-8", "replace"))
    known = f"the remotes here: {', '.join(names[:10])}{', ...' if len(names) > 10 else ''}" if names \
        else "this repository has none"
    raise InputError(f'remote "{quoted(remote)}" does not exist ({known}); nothing is remembered for it')


def check_commit(word: str) -> str:
    """A COMMIT as given: a full commit ID or at least ``MIN_PREFIX`` of its first hex digits,
    in lowercase."""
    text = word.lower()
    if not MIN_PREFIX <= len(text) <= 64 or text.strip("0123456789abcdef"):
        raise InputError(f'"{quoted(word)}" is not a commit ID: a COMMIT is a full commit ID or at least '
                         f"{MIN_PREFIX} of its first hex digits")
    return text


def resolve(wanted: list[str], commits: list[str], remote: str) -> list[str]:
    """The remembered commit each of ``wanted`` names, or an error naming the first one that
    names none of ``commits``, or several."""
    out = []
    for word in wanted:
        found = [c for c in commits if c.startswith(word)]
        if not found:
            how = (f"{len(commits)} {'is' if len(commits) == 1 else 'are'}: git hn replication forget-anchors "
                   f"{remote} --dry-run lists them" if commits else "nothing is")
            raise InputError(f"commit {word} is not remembered for {remote} ({how})")
        if len(found) > 1:
            raise InputError(f"commit {word} is ambiguous: {len(found)} commits remembered for {remote} start "
                             f"with it ({', '.join(short_id(c) for c in found[:3])}{', ...' if len(found) > 3 else ''}"
                             "); give more of its digits")
        out.append(found[0])
    return list(dict.fromkeys(out))


def _subjects(repo: Repo, commits: list[str]) -> dict[str, str]:
    """commit -> its subject, for those of ``commits`` this clone has (one ``cat-file`` and one
    ``log``; none when there are none)."""
    if not commits:
        return {}
    here = [c for c, info in zip(commits, repo.git.infos_bulk(commits)) if info is not None and info[1] == "commit"]
    if not here:
        return {}
    proc = repo.git.run(["log", "--no-walk=unsorted", "--format=%H %s", *here])
    if proc.returncode != 0:
        return {}
    out = {}
    for row in lines_of(proc.stdout.decode("utf-8", "replace")):
        commit, _sp, subject = row.partition(" ")
        out[commit] = bounded(subject)
    return out


def result_lines(remote: str, forgotten: list[Forgotten], dry_run: bool, everything: bool) -> list[str]:
    """One line per commit: ``Forgot <commit> (memory <short>): <subject>``."""
    if not forgotten:
        return [f"Nothing is remembered for {remote}"] if everything else []
    verb = "Would forget" if dry_run else "Forgot"
    out = []
    for f in forgotten:
        if f.subject is None:
            out.append(f"{verb} {f.commit} (memory {short_id(f.memory)}; not in this clone)")
        else:
            subject = f.subject if len(f.subject) <= SUBJECT_SHOWN else f.subject[:SUBJECT_SHOWN - 1] + "…"
            out.append(f"{verb} {f.commit} (memory {short_id(f.memory)}): {subject}")
    return out


def result_json(remote: str, forgotten: list[Forgotten], dry_run: bool) -> dict:
    return {"remote": remote, "dryRun": dry_run,
            "forgotten": [{"commit": f.commit, "memoryId": f.memory, "records": list(f.records),
                           "present": f.subject is not None, "subject": f.subject} for f in forgotten]}


def after_hint(remote: str, forgotten: list[Forgotten], dry_run: bool = False) -> str:
    """What forgetting does not do, in one line (a hint after the lines, the dry run's too: a team
    trial took forgetting for a fix, and it only hides the problem from whoever can put the commit
    back)."""
    from shlex import quote  # (a command to paste: every name shell-quoted)

    one = len(forgotten) == 1
    what = "that commit" if one else "those commits"
    stops = (f"whoever imports {'its memory' if one else 'their memories'} from {remote} still stops at "
             f"{'that memory' if one else 'those memories'} while no branch of {remote} holds {what}")
    if dry_run:
        return (f"forgetting only stops the reminder: {stops}; pushing {what} back (git push {quote(remote)} "
                "COMMIT:refs/heads/hn-anchor/NAME) is what lets them import")
    return f"no push to {remote} nor sync with it reminds of {'it' if one else 'them'} now; {stops}"
