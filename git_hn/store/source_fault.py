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

from ..core.grammar import REMOTES_PREFIX, parse_accepted_ref, parse_local_ref
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
    cannot be read). Read without the state's lock: a hint, which the next read verifies."""
    from . import aside, statedb

    try:  # (else the state set aside when it disagreed with Git, sealed: it knows the tips it verified)
        conn = statedb.open_sealed(repo, readonly=True) or aside.open_aside(repo)
    except Exception:  # noqa: BLE001 - best effort on an error path: no answer, no second error
        return ""
    if conn is None:
        return ""
    try:  # (an object ID, or nothing: it is printed in a command to run)
        return aside.head_of(conn, ref)
    except Exception:  # noqa: BLE001 - (as above)
        return ""
    finally:
        conn.close()


BELOW = 64  # commits under an own stream's head searched for the last one that verifies


def _last_whole(repo: Repo, ref: str, actor: str, stream: str, head: str) -> tuple[str, int, int] | None:
    """(commit, its sequence, memories above it) of the newest commit of an own stream's chain
    below its head whose chain up to it verifies (objects, signatures, links: one pass, root
    first), within ``BELOW`` commits of the head; None when the chain cannot be walked (a commit is
    gone) or none does. Following it beats deleting the ref (a review: the way out removed every
    memory of a stream whose tip alone had lost an object)."""
    from ..core import chain
    from ..errors import HnError, ValidationError
    from . import streams, verify

    try:
        commits = streams.walk(repo, streams.Source(ref, head, actor, stream))
    except (HnError, OSError):
        return None
    commits.reverse()
    good, prev = 0, None
    verifier = verify.Verifier(len(commits))
    try:
        staged = verify.stage_commits(repo, commits)
        for i, ((commit, _tree), item, ok) in enumerate(zip(commits, staged,
                                                             verifier.results(verifier.submit(staged)))):
            try:
                mem = verify.finish_commit(commit, item, ok)
                chain.check_link(ref, actor, stream, i, mem, prev)
            except ValidationError:
                break
            good, prev = i + 1, mem
    except (HnError, OSError):
        return None
    finally:
        verifier.close()
    if not good or good == len(commits) or len(commits) - good > BELOW:
        return None
    return commits[good - 1][0], good, len(commits) - good


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
