"""Which untrusted actors the trust policy once trusted, and the commit that stopped it (a team
trial): after a key was revoked, every message about it still said to trust it (recall's hint,
``identity show`` in the revoked actor's clone, a record's hint), a ready-made request that
whoever holds a stolen key could forward to a maintainer. The messages say instead since when
it is no longer trusted, and suggest nothing.

What counts: a commit whose memory policy (``core.policy``, parsed) does not list the actor in
``trustedActors`` while its parent's did. Nothing else does: not another line naming the actor (a
review: Carol, never trusted, stepping down from ``maintainers`` was said to be no longer trusted),
nor a file that is no valid policy, nor a commit that deletes the file, nor one that adds it back
(a review: ``git rm .hn/policy.json`` then its restoration, unchanged, warned a push of every key
the policy trusts, the pusher's own included). Of a merge whose parents disagree, the removal is a commit on
the side that dropped it, which the walk reaches too: the merge is named only when none is found.
An actor that no listed policy trusted gets the message's usual advice.

Cost, only when such a message is about to be printed (never on the quiet path): one ``rev-parse
--show-toplevel`` (the pathspec counts from the top: a review found the lookup blind from a
subdirectory) and one ``git log`` listing the newest ``COMMITS`` commits of the query commit's
history that changed ``.hn/policy.json``, in topological order (a revocation committed with a
skewed date is still newer than the trust it ends), each with the file's blob before and after
(``--raw``: Git compares trees and reads no blob), in at most ``LOG_SECONDS`` and ``LOG_BYTES``;
then the batch reader gives those blobs' sizes, and their contents: each at most the size a policy
may have (``LIMITS.max_policy``: a larger one is not read and says nothing; a review's history of
policies rewritten to tens of megabytes cost seconds and gigabytes), ``READ_BYTES`` in all, the
newest first, each parsed (a file that is no valid policy says nothing of anyone). A partial
clone reads only the blobs it has. The walk is as long as the history, for an actor never trusted too (Git sorts every commit
before it stops at ``COMMITS``): about 6 us a commit here without a commit-graph, 4 with one, 1
with its changed-path filters (``git commit-graph write --changed-paths``); a history Git cannot
walk in ``LOG_SECONDS`` (about 150,000 commits without a commit-graph) gets the usual advice, a
second later. Any failure is the usual advice too: this is a hint's detail, never an error (a
review: a timed-out ``git log`` failed a ``memory record`` that had stored its memory).

Trusts: the history of the file in this clone, as the policy at each commit is trusted; the
subject is its author's text, returned one line and at most ``SUBJECT_SHOWN`` characters (the
wording, ``core.hints.no_longer_trusted``, makes it inert).
"""

from __future__ import annotations

from ..core.tuples import NamedTuple
from ..errors import GitTimedOut, HnError
from ..store.repo import Repo

SHOWN = 3  # actors a message names as no longer trusted (those with the most memories first)
COMMITS = 50  # newest commits of the query commit's history that changed the policy file, read
LOG_SECONDS = 1.0  # for the ``git log`` listing them (a hint's detail: a recall waits for it)
LOG_BYTES = COMMITS * 4096  # of its output (a commit ID, and the blobs of a merge's parents)
READ_BYTES = 4 << 20  # of policy blobs read, in all
COMMIT_BYTES = 1 << 20  # of a revoking commit read for its subject (a larger one is named without it)
SUBJECT_SHOWN = 60  # characters of the removing commit's subject
POLICY_PATH = ".hn/policy.json"


class Revoked(NamedTuple):
    actor: str
    commit: str  # the commit of the query commit's history that removed it from the policy
    subject: str  # that commit's subject: author text, one line, bounded


class Dropped(NamedTuple):
    """``dropped_in``'s answer: a ``Revoked`` of the pushed range, and a pushed commit after it
    that trusts the actor again ("" when none does), with its subject (as ``subject``)."""

    actor: str
    commit: str
    subject: str
    again: str
    again_subject: str


class Change(NamedTuple):
    """A listed commit: the policy file's blob in each parent and in the commit ("": no policy
    file there; None: not a regular file, which is no policy)."""

    commit: str
    before: tuple
    after: str | None


def revocations(repo: Repo, commit: str, actors, seconds: float = LOG_SECONDS,
                timeouts: bool = False) -> dict[str, Revoked]:
    """actor -> its removal from the memory policy's trusted actors in the history of ``commit``,
    for the first ``SHOWN`` of ``actors`` (full IDs) that a listed policy trusted and the newest
    change removed; {} without actors or a commit, and whenever the lookup cannot answer, unless
    ``timeouts``: then a ``git log`` that did not end in ``seconds`` raises ``GitTimedOut``."""
    from ..core import grammar

    asked = [a for a in dict.fromkeys(actors) if grammar.is_actor(a)][:SHOWN]
    if not asked or not commit:
        return {}
    try:
        changes, _parents = _changes(repo, commit, seconds=seconds)
        trusts = _trusts(repo, changes, asked)
        found = {a: c for a in asked if (c := _removal(a, changes, trusts)) is not None}
        subjects = {c: got[0] for c, got in _commits(repo, sorted(set(found.values()))).items()}
    except GitTimedOut:
        if timeouts:
            raise
        return {}
    except (HnError, OSError, ValueError):
        return {}  # (advisory: the message keeps its usual advice)
    return {a: Revoked(a, c, subjects.get(c, "")) for a, c in found.items()}


def dropped_in(repo: Repo, old: str, new: str, actors, seconds: float = LOG_SECONDS,
               timeouts: bool = False) -> dict[str, Dropped]:
    """actor -> a commit of ``OLD..NEW`` (the commits a push brings) whose memory policy stopped
    trusting it, for the first ``SHOWN`` of ``actors`` that one dropped, whatever the policy says
    after it (the caller asks about the actors ``new``'s policy trusts: a merge or rebase that
    brought the revocation in and kept the side from before it, or a re-trust). A merge that kept
    a parent's policy is no change of its own (``--full-history`` lists the other side's). With
    it, in ``again``, a commit of the range that trusts the actor again after the removal: one
    parent (no merge resolution), the removal its ancestor (the listing's parents, rewritten to
    listed commits by ``--simplify-merges``: not the listing's order, which puts another side of
    a merge anywhere), its parent's policy not trusting the actor and its own trusting it; the
    nearest the removal. Nothing decides the re-trust was meant (a review: the author dates a
    previous rule compared are the branch author's to write, a rebase resets commit dates, and a
    rebased or merged side from before the revocation is exactly what the caller warns of): the
    caller names it, and warns all the same. {} whenever the lookup cannot answer (``timeouts``:
    as ``revocations``'). One ``git log`` of the range, bounded as ``revocations``'."""
    from ..core import grammar

    asked = [a for a in dict.fromkeys(actors) if grammar.is_actor(a)]
    if not asked or not grammar.is_oid(old) or not grammar.is_oid(new):
        return {}
    try:
        changes, parents = _changes(repo, f"{old}..{new}", full_history=True, seconds=seconds)
        trusts = _trusts(repo, changes, asked)
        found = {}
        for actor in asked:
            commit = _removal(actor, changes, trusts, newest_trusting=False)
            if commit is not None:
                found[actor] = (commit, _trusted_again(actor, commit, changes, parents, trusts))
            if len(found) >= SHOWN:
                break
        read = _commits(repo, sorted({c for commit, again in found.values() for c in (commit, *again)}))
    except GitTimedOut:
        if timeouts:
            raise
        return {}
    except (HnError, OSError, ValueError):
        return {}
    out = {}
    for actor, (commit, again) in found.items():
        # (one parent in its own header: a merge's listed parents can be fewer, once
        # --simplify-merges drops a side that holds no listed commit)
        by = next((c for c in again if c in read and read[c][1] == 1), "")
        out[actor] = Dropped(actor, commit, read.get(commit, ("", 0))[0], by, read.get(by, ("", 0))[0])
    return out


def _trusted_again(actor: str, removal: str, changes: list[Change], parents: dict, trusts: dict) -> list[str]:
    """The listed commits that descend from ``removal`` (``parents``: each listed commit's, in the
    listing's order, children first) and trust ``actor`` while their one listed parent's policy
    does not, the nearest the removal first: at most ``SHOWN``."""
    below = {removal}
    for commit in reversed(list(parents)):  # (oldest first: a commit after its parents)
        if commit != removal and any(p in below for p in parents[commit]):
            below.add(commit)
    out = []
    for change in reversed(changes):
        if (change.commit != removal and change.commit in below and len(change.before) == 1
                and _trusted(actor, change.before[0], trusts) is False and _trusted(actor, change.after, trusts)):
            out.append(change.commit)
    return out[:SHOWN]


def among(repo: Repo, commit: str, authors: dict) -> tuple[tuple[Revoked, ...], bool]:
    """For a hint about memories hidden as ``actor-untrusted``: of their ``authors`` (actor ->
    how many), those no longer trusted (``revocations``; the ``SHOWN`` with the most memories are
    asked about), and whether that is every one of them."""
    if not authors or not commit:
        return (), False
    asked = sorted(authors, key=lambda a: (-authors[a], a))[:SHOWN]
    found = revocations(repo, commit, asked)
    revoked = tuple(found[a] for a in asked if a in found)
    return revoked, len(revoked) == len(authors)


def _changes(repo: Repo, commit: str, full_history: bool = False,
             seconds: float = LOG_SECONDS) -> tuple[list[Change], dict]:
    """The listed commits that change the policy, newest first in topological order (one ``git
    log``, bounded), and every listed commit -> its parents as listed, in the same order; with
    ``full_history``, those of a merge's side that the merge's policy ignored too (Git otherwise
    follows only a parent whose policy the merge kept), and the parents rewritten to listed
    commits (``--simplify-merges``: which listed commit descends from which, a merge that changes
    nothing dropped)."""
    from ..core.grammar import is_oid
    from ..store.worktree import from_top

    # (-c: a merge that differs from every parent lists each parent's blob; --root: a root
    # commit's too, whatever log.showRoot says; no rename following, diff driver or signature)
    proc = repo.git.run([*from_top(repo), "log", "--format=%x01%H %P", "--topo-order", f"-n{COMMITS}", "-c", "--raw",
                         "--root", "--no-abbrev", "--no-renames", "--no-follow", "--no-ext-diff", "--no-textconv",
                         "--no-show-signature", "--no-color",
                         *(["--full-history", "--simplify-merges"] if full_history else []),
                         "--end-of-options", commit, "--", POLICY_PATH],
                        timeout=seconds, limit=LOG_BYTES)
    if proc.returncode != 0:
        return [], {}
    rows: list[list[str]] = []
    parents: dict[str, tuple] = {}
    for line in proc.stdout.decode("ascii", "replace").split("\n"):
        head = line[1:].split()
        if line.startswith("\x01") and head and all(is_oid(h) for h in head):
            rows.append([head[0]])
            parents[head[0]] = tuple(head[1:])
        elif line.startswith(":") and line.endswith("\t" + POLICY_PATH) and rows and len(rows[-1]) == 1:
            rows[-1].append(line)
    return [change for change in (_raw(*row) for row in rows if len(row) == 2) if change is not None], parents


def _raw(commit: str, line: str) -> Change | None:
    """A listed commit's ``--raw`` line (``:MODE MODE OID OID STATUS\\tPATH``; a merge's has one
    more colon, mode and blob per parent), or None when it is not one."""
    meta = line.partition("\t")[0]
    parents = len(meta) - len(meta.lstrip(":"))
    fields = meta[parents:].split(" ")
    if len(fields) != 2 * (parents + 1) + 1:
        return None
    modes, oids = fields[:parents + 1], fields[parents + 1:2 * (parents + 1)]
    blobs = ["" if not oid.strip("0") else oid if mode in ("100644", "100755") else None
             for mode, oid in zip(modes, oids)]
    return Change(commit, tuple(blobs[:-1]), blobs[-1])


def _trusts(repo: Repo, changes: list[Change], asked: list[str]) -> dict[str, frozenset | None]:
    """blob -> which of ``asked`` its memory policy trusts (None: not known: not read, larger than
    a policy may be, beyond ``READ_BYTES``, or no valid policy)."""
    from ..core.limits import LIMITS
    from ..core.policy import load
    from ..store.promisor import is_partial

    blobs = list(dict.fromkeys(b for c in changes for b in (c.after, *c.before) if b))
    out: dict[str, frozenset | None] = dict.fromkeys(blobs)
    if not blobs:
        return out
    if is_partial(repo.common_dir):  # (never a lazy fetch for a hint)
        blobs = [b for b, here in zip(blobs, repo.git.presence(blobs)) if here]
    todo, total = [], 0
    for blob, info in zip(blobs, repo.git.object_infos(blobs)):
        if info is not None and info[1] == "blob" and info[2] <= LIMITS.max_policy and total + info[2] <= READ_BYTES:
            todo.append(blob)
            total += info[2]
    for blob, got in zip(todo, repo.git.read_objects_bounded(todo, LIMITS.max_policy)):
        data = got[2] if got is not None and got[0] == "blob" else None
        if data is None:
            continue
        # (parsed even when it names none of them: a trial's JSON typo, committed then fixed, was
        # taken for a valid policy trusting no one, so the fix "trusted again" every key. A
        # megabyte parses in about 15 ms, and READ_BYTES bounds the whole)
        try:
            memory = load(data).memory
        except HnError:
            continue  # (no valid policy: it says nothing)
        out[blob] = frozenset(a for a in asked if memory is not None and a in memory.trusted_actors)
    return out


def _removal(actor: str, changes: list[Change], trusts: dict, newest_trusting: bool = True) -> str | None:
    """The newest listed commit whose policy does not trust ``actor`` while its parent's did: of a
    merge, only when every parent's did (else the removal is on a parent's side, listed later),
    unless no other is found. None while the newest listed policy trusts it (unless not
    ``newest_trusting``: then any such commit). A commit that deletes the file is none, and no
    newest policy: a missing policy is no revocation (``_trusted``)."""
    merge, newest = None, True
    for change in changes:
        if change.after == "":  # (the file deleted: no one untrusted, and no newest policy either)
            continue
        now = _trusted(actor, change.after, trusts)
        if now is not False:
            if newest and now and newest_trusting:
                return None
            newest = False
            continue
        newest = False
        before = [_trusted(actor, b, trusts) for b in change.before]
        if all(before):
            return change.commit
        if merge is None and any(before):
            merge = change.commit
    return merge


def _trusted(actor: str, blob, trusts: dict) -> bool | None:
    """Whether the policy ``blob`` trusts ``actor`` (None: not known)."""
    if blob == "":  # (no policy file: says nothing of anyone. A review: a policy deleted then
        return None  # restored unchanged was one revocation and one re-trust of every trusted key)
    found = trusts.get(blob)  # (None for a blob not known, or no regular file)
    return None if found is None else actor in found


def _commits(repo: Repo, commits: list[str]) -> dict[str, tuple[str, int]]:
    """commit -> its subject as ``git log``'s ``%s`` has it (the first paragraph of its message
    on one line), bounded: author text; and how many parents its header names."""
    from ..core.gostr import bounded

    out = {}
    for commit, got in zip(commits, repo.git.read_objects_bounded(commits, COMMIT_BYTES)):
        if got is None or got[0] != "commit" or got[2] is None:
            continue
        header, _, body = got[2].partition(b"\n\n")
        message = body.decode("utf-8", "replace")
        lines = []
        for line in message.split("\n"):
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line.rstrip())
        subject = bounded(" ".join(lines))
        out[commit] = (subject if len(subject) <= SUBJECT_SHOWN else subject[:SUBJECT_SHOWN - 1] + "…",
                       sum(1 for line in header.split(b"\n") if line.startswith(b"parent ")))
    return out
