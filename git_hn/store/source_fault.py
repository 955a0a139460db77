"""What to do about a memory ref of this repository whose chain does not verify (git-hn; CONTRACT
§4.3, §11(a) item 2; docs/decisions.md).

Collection fails closed: one invalid source fails every read, record and rebuild (``streams``),
and it must, since a reader that skipped it would serve a partial history as complete. But the
line said only "memory source REF: verify memory commit C: invalid memory signature", and a trial
found no way out of it: a user's fetch refspec ``+refs/hn/*:refs/hn/*`` had written a remote's
forged commit past the quarantine, over a teammate's stream and over the user's own. Only
promotion writes the accepted copies (``refs/hn/remotes/``), after validation, and only the
user's identities sign their own streams: an invalid commit at either was put there in this
clone, never by an import, and the way out depends on whose the ref is:

- an accepted copy, or a stream no identity of this clone signs: delete the ref; a sync imports
  the remote's copy again through the quarantine, where an invalid one stays out;
- a stream of an identity in this clone's keyring: its memories may be nowhere else, so it is
  put back, to the tip the verified state last verified for that ref when it knows one (the
  state keeps its previous tips when an update fails, and one that disagreed with Git is set
  aside for them), else to an accepted copy of the stream (a remote's, without the memories not
  published to it), else to the last commit below the head whose chain still verifies; deleting
  it would lose them, and the next record would sign their sequences again.

A fetch refspec that writes into ``refs/hn/`` writes it again at the next fetch: it is named
first. Everything here runs only on that error path; each question is best effort (an answer
that cannot be read is left out, never an error of its own). Trusts: the refs, the keyring's
file names and the state's recorded tips, as hints for the user to act on: whatever ref the user
puts back is verified by the next read like any other.
"""

from __future__ import annotations

import os

from ..core.grammar import REMOTES_PREFIX, is_oid, parse_accepted_ref, parse_local_ref
from .repo import Repo


def way_out(repo: Repo, ref: str) -> str:
    """"; " and what to do about ``ref``, a source of this repository that does not verify; ""
    in a quarantine (its refs are no user's) or for a ref of no known shape."""
    if repo.quarantine:
        return ""
    accepted = parse_accepted_ref(ref)
    local = parse_local_ref(ref)
    if accepted is None and local is None:
        return ""
    refspec = _writing_refspec(repo)
    first = ""
    if refspec is not None:
        from shlex import quote

        name, value = refspec
        first = (f"; the fetch refspec {value} of remote {name} writes refs/hn/ past the quarantine: remove it "
                 f"(git config --fixed-value --unset {quote(f'remote.{name}.fetch')} {quote(value)})")
    if accepted is not None:
        remote = accepted[0]
        return (f"{first}; this clone's copy from {remote} was changed after its import (not by {remote}): "
                f"git update-ref -d {ref} removes it, then git hn sync {remote} imports it again through the "
                "quarantine")
    actor, stream = local
    if not os.path.exists(repo.identity_path(actor)):
        return (f"{first}; no identity of this clone signs it, so it was written here past the quarantine: "
                f"git update-ref -d {ref} removes it, then git hn sync REMOTE imports the stream through the "
                "quarantine")
    head = repo.ref_value(ref)
    tip = _last_verified(repo, ref)
    if tip and tip != head:
        return (f"{first}; it is your own stream, changed after git-hn last verified it: git update-ref {ref} "
                f"{tip} puts back that tip")
    copy = _accepted_copy(repo, actor, stream, head)
    whole = _last_whole(repo, ref, actor, stream, head) if head and copy is None else None
    if whole is not None:
        commit, sequence, above = whole
        noted = ("git-hn notes the memories above it as lost and signs nothing at their sequences" if tip == head
                 else "then record to another stream of yours (--stream label:NAME): recording to this one would "
                 f"sign sequence {sequence + 1} a second time")
        return (f"{first}; it is your own stream, and its last "
                f"{'memory no longer verifies' if above == 1 else f'{above} memories no longer verify'} here: a clone or "
                f"backup that has {'it' if above == 1 else 'them'} can put {'it' if above == 1 else 'them'} back (git fetch --refetch REMOTE {ref}, Git 2.36+); else git update-ref {ref} "
                f"{commit} puts back its last commit that verifies (sequence {sequence}), and {noted}")
    if copy is not None:
        return (f"{first}; it is your own stream: git update-ref {ref} {copy[1]} puts back {copy[0]}'s copy "
                f"(memories not published to {copy[0]} are lost)")
    return (f"{first}; it is your own stream and no verified copy of it is known here: a clone or backup "
            f"that has it can put it back (git fetch it, then git update-ref {ref} TIP); else git update-ref -d "
            f"{ref} removes it with its memories, and record to another stream of yours (--stream label:NAME): "
            "recording to this one again would sign its sequences a second time")


def _last_verified(repo: Repo, ref: str) -> str:
    """The tip the verified state last verified for ``ref`` ("" if none is recorded, or the state
    cannot be read; an object ID, or nothing: it is printed in a command to run). Read without the
    state's lock: a hint, which the next read verifies."""
    row = _recorded(repo, "SELECT head FROM sources WHERE ref = ?", (ref,))
    return row[0] if row and is_oid(row[0]) else ""


def _recorded(repo: Repo, sql: str, params: tuple):
    """The first row ``sql`` finds in the sealed state, else in the one set aside when it
    disagreed with Git (``store.aside``: it knows the tips it verified, and a state built since
    for other streams does not); None when neither has one or can be read."""
    from . import aside, statedb

    for opened in (lambda: statedb.open_sealed(repo, readonly=True), lambda: aside.open_aside(repo)):
        try:
            conn = opened()
        except Exception:  # noqa: BLE001 - best effort on an error path: no answer, no second error
            continue
        if conn is None:
            continue
        try:
            row = conn.execute(sql, params).fetchone()
        except Exception:  # noqa: BLE001 - (as above)
            row = None
        finally:
            conn.close()
        if row is not None:
            return row
    return None


BELOW = 64  # commits under an own stream's head searched for the last one that verifies


def _last_whole(repo: Repo, ref: str, actor: str, stream: str, head: str) -> tuple[str, int, int] | None:
    """(commit, its sequence, memories above it) of the newest commit of an own stream's chain
    below its head whose chain up to it verifies, within ``BELOW`` commits of the head; None when
    none does, a commit is gone, or the chain below those commits is not known to verify.
    Following it beats deleting the ref (a review: the way out removed every memory of a stream
    whose tip alone had lost an object).

    Only the ``BELOW`` + 1 commits from the head are read and verified (objects, signatures,
    links: one pass, lowest first), whatever the stream's length (a review: 3000 memories were all
    verified again on each failing command, 1-2 s each). The lowest of them is the root, or a
    commit a verified state (sealed, or set aside: ``store.aside``) recorded at its sequence,
    which vouches for the chain under it."""
    from ..core import chain
    from ..errors import HnError, ValidationError
    from . import verify

    window, commit = [], head  # (commit, tree), head first
    try:
        while commit and len(window) <= BELOW:
            obj = repo.git.read_object(commit)
            if obj is None or obj[0] != "commit":
                return None
            tree, parents = chain.parse_commit(commit, obj[1])
            if len(parents) > 1:
                return None
            window.append((commit, tree))
            commit = parents[0] if parents else ""
        window.reverse()
        verifier = verify.Verifier(len(window))
        try:
            staged = verify.stage_commits(repo, window)
            mems = []
            for (c, _tree), item, ok in zip(window, staged, verifier.results(verifier.submit(staged))):
                try:
                    mems.append(verify.finish_commit(c, item, ok))
                except ValidationError:
                    mems.append(None)
        finally:
            verifier.close()
    except (HnError, OSError):
        return None
    first = mems[0].envelope.sequence if mems[0] is not None else 0
    if not first or (commit and not _vouched(repo, ref, window[0][0], first)):
        return None
    good, prev = 0, None
    for j, mem in enumerate(mems):
        try:
            if mem is None:
                break
            if j or not commit:
                chain.check_link(ref, actor, stream, first - 1 + j, mem, prev)
            elif mem.envelope.actor != actor or mem.envelope.stream != stream:
                break
        except ValidationError:
            break
        good, prev = j + 1, mem
    if not good or good == len(mems):
        return None
    return window[good - 1][0], first - 1 + good, len(mems) - good


def _vouched(repo: Repo, ref: str, commit: str, sequence: int) -> bool:
    """Whether a verified state (``_recorded``) recorded ``commit`` at ``sequence`` of ``ref``'s
    chain: it verified the chain up to it."""
    row = _recorded(repo, 'SELECT c."commit" FROM chain c JOIN sources s ON s.sid = c.sid '
                    "WHERE s.ref = ? AND c.seq = ?", (ref, sequence))
    return bool(row) and row[0] == commit


def _accepted_copy(repo: Repo, actor: str, stream: str, head: str | None) -> tuple[str, str] | None:
    """(remote, tip) of the first accepted copy of the stream whose tip is not ``head``."""
    proc = repo.git.run(["for-each-ref", "--format=%(refname) %(objectname)",
                         f"{REMOTES_PREFIX}*/memory/{actor}/{stream[len('sha256:'):]}"])
    if proc.returncode != 0:
        return None
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        ref, _sp, tip = line.partition(" ")
        parsed = parse_accepted_ref(ref)
        if parsed is not None and tip and tip != head:
            return parsed[0], tip
    return None


def _writing_refspec(repo: Repo) -> tuple[str, str] | None:
    """(remote, refspec) of the first configured fetch refspec whose destination is under
    ``refs/hn/``: a fetch through it writes memory refs that no sync validated."""
    proc = repo.git.run(["config", "-z", "--get-regexp", r"^remote\..*\.fetch$"])
    if proc.returncode != 0:
        return None
    for item in proc.stdout.decode("utf-8", "replace").split("\0"):
        key, _nl, value = item.partition("\n")
        if not key.startswith("remote.") or not key.endswith(".fetch") or not value.isprintable():
            continue  # (a name or value that would not print as one line is not named)
        name = key[len("remote."):-len(".fetch")]
        if _writes_memory(value.partition(":")[2]) and name.isprintable():
            return name, value
    return None


def _writes_memory(dst: str) -> bool:
    """Whether a fetch refspec's destination can write a ``refs/hn/`` ref: one under it, or a
    pattern whose fixed part is a prefix of ``refs/hn/memory/`` (a review: a mirror's
    ``+refs/*:refs/*`` was not named, and the next fetch wrote the forged ref again)."""
    if "*" not in dst:
        return dst.startswith("refs/hn/")
    fixed = dst.split("*", 1)[0]
    return fixed.startswith("refs/hn/") or "refs/hn/memory/".startswith(fixed)
