"""Moving unpublished memories off a commit: after a rewrite (the ``post-rewrite`` hook) and by
hand (``git hn memory reanchor OLD NEW``), for a commit Git will never push, such as one a
``git reset`` discarded (git-hn extension; docs/decisions.md).

Owns: resolving the two revisions, the words of the result (one line per stream, with the new
IDs of the memories signed again), and keeping the exported index consistent afterwards. The
rebuilding itself is ``store.reanchor``'s: only the active identity's unpublished memories, from
the first that names OLD to the tip of its stream, each signed anew.
"""

from __future__ import annotations

from ..core.gostr import short_id
from ..core.grammar import is_oid, parse_local_ref
from ..core.lines import lines_of
from ..core.tuples import NamedTuple
from ..errors import HnError, InputError
from ..store import identity as identmod
from ..store import reanchor as store
from ..store.repo import Repo
from . import index_refresh

SHOWN_RENAMES = 5  # new IDs named per stream in a human line (``--json`` lists every one)


class Reanchored(NamedTuple):
    old: str  # the commit the memories named
    new: str  # the commit they name now
    streams: list  # store.reanchor.Rewritten, one per stream rebuilt
    absent: tuple = ()  # (memory ID, path): anchored paths NEW does not have (recorded as absent)
    detached: bool = False  # NEW is held only by a detached HEAD (``detached_hint``)


def reanchor(repo: Repo, old: str, new: str) -> Reanchored:
    """Move the active identity's unpublished memories that name commit ``old`` (as anchor or
    ``git:`` evidence) to commit ``new``; an error when there are none."""
    ident = identmod.load_active(repo)
    old_commit, new_commit = _old_commit(repo, old), repo.resolve_commit(new)
    if old_commit == new_commit:
        raise InputError(f"{old} and {new} are the same commit {old_commit}: nothing to move")
    detached = _held_by_head_only(repo, new_commit)
    done = rewrite(repo, ident, {old_commit: new_commit}, cause="reanchor")
    if done and not any(r.memories for r in done):  # (only memories that must stay)
        raise InputError(stream_line(done[0], ""))
    if not done:
        raise InputError(f"no unpublished memory of yours names commit {old_commit} (a published memory "
                         "is never rewritten: correct one with git hn memory supersede --at)" + _stopped_hint(repo))
    return Reanchored(old_commit, new_commit, done, tuple(_absent_at(repo, done, new_commit)), detached)


def _held_by_head_only(repo: Repo, new: str) -> bool:
    """Whether only HEAD (detached) holds ``new``, not a branch, tag or remote-tracking ref;
    refused when nothing does. HEAD counts, as it does for ``--drop``'s check and for ``record
    --at`` (a review: README said "a branch, tag or remote-tracking ref" while a detached HEAD's
    commit was taken): its memories wait, as any unpushed anchor's, until a branch that contains
    it is pushed (``detached_hint`` says so). One ``rev-list``; one more only for a commit no
    ref holds."""
    from .replication.gate import discarded

    if not discarded(repo, {new}, head=False):
        return False
    if discarded(repo, {new}):
        raise InputError(f"commit {new} is on no branch, tag or remote-tracking ref here either, nor HEAD, so "
                         "no push would carry it: name a commit on a branch you push")
    return True


def detached_hint(result: Reanchored) -> str:
    """After a move to a commit only a detached HEAD holds: what publishes its memories."""
    return (f"commit {result.new[:12]} is on no branch (only the detached HEAD holds it): the memories moved to it "
            "are published once a branch that contains it is pushed (git switch -c BRANCH, then git push REMOTE "
            "BRANCH), and are left behind again if HEAD moves off it first")


def _stopped_hint(repo: Repo) -> str:
    """When a stopped publication's offers count as published (``store.given``): how to settle them."""
    import shlex

    from ..store import given

    try:
        stopped = given.offered(repo)
    except (HnError, OSError):
        return ""
    if not stopped:
        return ""
    remotes = " ".join(sorted({given.remote_of(r) for r, _ref, _h in stopped}))  # (a push URL's key names it)
    return (f"; a publication to {remotes} was stopped while pushing, so what it sent counts as published "
            f"until git hn sync {shlex.quote(remotes.split()[0])} finds what the remote holds (when it holds less, no "
            "sooner than ten minutes after the stop: a server may still be taking that push); if that remote "
            f"is gone, remove its lines from {given.offered_path(repo)}")


def _absent_at(repo: Repo, done: list, commit: str) -> list[tuple[str, str]]:
    """(memory ID, path) of each anchored path the rebuilt memories anchored on ``commit`` now
    record as absent (``record`` warns of the same), from the state the rewrite left current."""
    from ..store import stateview

    ids = [new for r in done for _old, new in r.renamed]
    try:
        with stateview.current(repo) as view:
            mems = view.load(ids)
    except HnError:
        return []
    out = []
    for mid in ids:
        rec = mems[mid].envelope.record if mid in mems else None
        if rec is not None and rec.anchor.commit == commit:
            out += [(mid, p.path) for p in rec.anchor.paths if p.blob == "absent"]
    return out


def _old_commit(repo: Repo, rev: str) -> str:
    """OLD as a full commit ID: a revision, or the ID of a commit that is no longer here at all
    (``git gc`` pruned it after its reflog expired): in full, or by a prefix that names one anchor
    commit of the memories here, such as the 12 hex digits ``git hn sync`` and ``push`` print (a
    newcomer trial: the error said "named by its full ID, as git hn sync prints it", and sync
    printed 12)."""
    try:
        return repo.resolve_commit(rev)
    except InputError as exc:
        low = rev.lower()  # (Git takes a commit that is here in either case: one no longer here too)
        if is_oid(low) and len(low) == repo.oid_hex_len and repo.git.object_info(low) is None:
            return low
        if is_oid(low) and len(low) != repo.oid_hex_len:  # (the other object format's: never here, but
            return low  # ``git:`` evidence an older git-hn signed names it, which --drop discards; lint.withheld)
        if 4 <= len(low) < repo.oid_hex_len and all(c in "0123456789abcdef" for c in low):
            rev = low
            from ..store import stateview

            try:
                with stateview.current(repo) as view:
                    anchors = view.anchors(rev)
            except HnError:
                anchors = []
            if len(anchors) == 1:
                if repo.git.object_info(anchors[0]) is None:
                    return anchors[0]
                raise  # (a commit that is here, which Git found ambiguous among its objects)
            if len(anchors) > 1:
                raise InputError(f"{exc.message}; it begins more than one memory anchor commit here: give more of "
                                 "its hex digits, or its full ID") from None
            raise InputError(f"{exc.message}; nor does any memory here name a commit beginning so (a commit that "
                             "is no longer here is named by its full ID, or by the first digits git hn sync "
                             "prints)") from None
        raise


class Dropped(NamedTuple):
    commit: str  # the commit the discarded memories named
    streams: list  # store.discard.Discarded, one per stream rebuilt


def drop(repo: Repo, old: str) -> Dropped:
    """``git hn memory reanchor OLD --drop`` (git-hn): discard the active identity's unpublished
    memories that name commit ``old`` (``store.discard``), under the same publication locks and
    with the same refreshes as a rewrite; an error when there are none."""
    from ..store import discard

    ident = identmod.load_active(repo)
    commit = _old_commit(repo, old)
    _check_discarded(repo, commit)
    done = _rebuilding(repo, lambda: discard.discard(repo, ident, commit))
    if not done:
        raise InputError(f"no unpublished memory of yours names commit {commit} (a published memory is never "
                         "discarded: withdraw one with git hn memory retract)" + _stopped_hint(repo))
    return Dropped(commit, done)


def _check_discarded(repo: Repo, commit: str) -> None:
    """Refuse ``--drop`` for a commit a push can still carry: HEAD, a branch, a tag or a
    remote-tracking ref holds it (``gate.discarded``, the test the held publication's hint makes
    before it offers ``--drop``). Its memories publish with it; discarding them is not undone by
    any reflog (a review: a decision on ``main``'s tip was dropped without a word)."""
    from ..store.discard import NOTHING
    from .held import holding_ref
    from .replication.gate import ALL_REFS, discarded

    # every worktree's HEAD counts (a review: a commit checked out in a second worktree, which a
    # push from there carries, was dropped): one ``git worktree list``, on this path only
    heads = _worktree_heads(repo)
    if commit in discarded(repo, {commit}, ALL_REFS + tuple(heads.values())):
        return
    holder = holding_ref(repo, commit, held=True)
    tree = "" if holder else _worktree_holding(repo, commit, heads)
    if holder or not tree:
        by = f"{holder} holds it" if holder else \
            "a worktree's HEAD or a ref here holds it, perhaps a keep branch hn-anchor/… (git branch -a --contains names it)"
        then = "take the commit off your branches first"
    else:  # (a review: "git branch -a --contains" named nothing, and the commit was on no branch)
        from ..core.gostr import quoted

        by = f'the HEAD of worktree "{quoted(tree, 200)}" holds it'
        then = "move that worktree's HEAD off it first"
    raise InputError(f"commit {commit[:12]} is not discarded ({by}), so a push carries it and its memories with it; "
                     f"--drop is for a commit no branch, tag, remote-tracking ref or HEAD holds: withdraw a memory with "
                     f"git hn memory retract ID --reason obsolete, or {then}; {NOTHING}")


def _worktree_heads(repo: Repo) -> dict[str, str]:
    """Each worktree's path -> the commit its HEAD names (``git worktree list --porcelain -z``);
    a worktree on an unborn branch (Git lists its HEAD as the null ID: a review found ``rev-list``
    then failing with "bad object") or whose HEAD Git cannot read is left out."""
    listing = repo.git.run(["worktree", "list", "--porcelain", "-z"])
    if listing.returncode != 0:
        return {}
    heads, path = {}, ""
    for field in listing.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if field.startswith("worktree "):
            path = field[len("worktree "):]
        elif field.startswith("HEAD ") and is_oid(field[5:]) and field[5:].strip("0") and path:
            heads[path] = field[5:]
    return heads


def _worktree_holding(repo: Repo, commit: str, heads: dict[str, str]) -> str:
    """The path of a worktree whose HEAD holds ``commit`` (one ``merge-base`` a worktree, on the
    refusal's path only); "" when none does."""
    for path, head in sorted(heads.items()):
        if head == commit or repo.git.run(["merge-base", "--is-ancestor", commit, head]).returncode == 0:
            return path
    return ""


def drop_lines(result: Dropped) -> list[str]:
    out = []
    for d in result.streams:
        line = (f"dropped {_count(len(d.dropped))} of {_stream(d.ref)} that named {short_id(result.commit)}: "
                f"{', '.join(short_id(i) for i in d.dropped[:SHOWN_RENAMES])}" if d.dropped else
                f"signed again {_count(len(d.renamed))} of {_stream(d.ref)}, which name memories signed again")
        if d.dropped and d.removed:
            line += "; the stream held nothing else, so its ref is deleted"
        if d.renamed:
            more = len(d.renamed) - SHOWN_RENAMES
            renames = ", ".join(f"{short_id(a)} -> {short_id(b)}" for a, b in d.renamed[:SHOWN_RENAMES])
            line += (f"; {len(d.renamed)} later signed again, new IDs: " if d.dropped else "; new IDs: ") + \
                renames + (f" and {more} more" if more > 0 else "")
        out.append(line)
    # (refs/hn/* keep no reflog: a drop made by mistake is undone only from these tips)
    out += [f"undo: git update-ref {d.ref} {d.before}" for d in result.streams if d.before]
    return out


def drop_json(result: Dropped) -> dict:
    return {"commit": result.commit,
            "streams": [{"ref": d.ref, "before": d.before, "dropped": list(d.dropped), "removed": d.removed,
                         "renamed": [{"from": a, "to": b} for a, b in d.renamed]} for d in result.streams]}


PUBLICATION_WAIT = 60.0  # seconds a rewrite waits for a publication that is running


def rewrite(repo: Repo, ident, mapping: dict[str, str], cause: str = "rewrite") -> list:
    """``store.reanchor.reanchor``; when it moved refs, the exported index made consistent and
    the verified state brought to the rebuilt streams (their new commits verified now, as an
    append records its own), so that the state is exact for ``index verify`` and the next command.

    Under the publication lock of every remote (``replication.serial``): a push's background
    publisher that is still running may be sending a memory this would take for unpublished,
    and re-signing a memory the remote has splits the stream for good (the remote refuses the
    rebuilt one as a non-fast-forward). So the rewrite waits for it, and then knows what it
    published; a publisher that starts later finds the tips it was given replaced and sends
    nothing of them."""
    if not mapping:
        return []
    return _rebuilding(repo, lambda: store.reanchor(repo, ident, mapping, cause))


def _rebuilding(repo: Repo, rebuild) -> list:
    """``rebuild()`` (a list of results, each with the ``ref`` it moved) under the publication
    lock of every remote, then the index and the state brought to the refs it moved."""
    from contextlib import ExitStack

    from .replication import serial

    import sys

    proc = repo.git.run(["remote"])
    with ExitStack() as stack:
        for remote in sorted(set(lines_of(proc.stdout.decode("utf-8", "surrogateescape")))):
            said = f"git-hn: waiting for the memory publication to {remote} to end before re-anchoring\n"
            stack.enter_context(serial.publishing(repo, remote, PUBLICATION_WAIT,
                                                  lambda said=said: sys.stderr.write(said)))
        done = rebuild()
    if done:
        index_refresh.after_ref_change(repo)
        _refresh_state(repo, {parse_local_ref(r.ref) for r in done})
    return done


def _refresh_state(repo: Repo, scope: set) -> None:
    from ..store import stateview, streams

    try:
        listing = [s for s in streams.list_sources(repo) if (s.actor, s.stream) in scope]
        with stateview.current(repo, listing=listing, scope=scope):
            pass
    except HnError:
        pass  # the next command's refresh verifies them


def stream_line(r, where: str) -> str:
    """One stream's result: how many memories named a moved commit, and, when later memories of
    the stream had to be signed again (each names the one before it), how many, with new IDs."""
    if r.kept and not r.memories:  # (something published cites them: they stay as they are)
        ids = ", ".join(short_id(i) for i, _commit in r.kept[:SHOWN_RENAMES])
        commits = list(dict.fromkeys(c for _i, c in r.kept))
        keep = " ".join(f"{c}:refs/heads/hn-anchor/{c[:12]}" for c in commits)
        which = f"commit {commits[0]}" if len(commits) == 1 else f"commits {', '.join(commits)}"
        return (f"left {_count(len(r.kept))} of {_stream(r.ref)} on the old "
                f"{'commit' if len(commits) == 1 else 'commits'} ({ids}): a published memory, or "
                f"another identity's, cites it, so it cannot be signed again; its stream waits for {which}: "
                f"keep {'it' if len(commits) == 1 else 'them'} on the remote (git push REMOTE {keep})")
    line = f"re-anchored {_count(r.moved)} of {_stream(r.ref)} {where}"
    renames = ", ".join(f"{short_id(a)} -> {short_id(b)}" for a, b in r.renamed[:SHOWN_RENAMES])
    more = len(r.renamed) - SHOWN_RENAMES
    extra = f" and {more} more" if more > 0 else ""
    if not r.moved:  # a stream that cites a memory signed again (a retraction recorded with --stream)
        return (f"signed again {_count(r.memories)} of {_stream(r.ref)}, which name memories signed again; "
                f"new IDs: {renames}{extra}")
    if r.memories > r.moved:
        return f"{line}; {_count(r.memories)} signed again, new IDs: {renames}{extra}"
    return f"{line}; new IDs: {renames}{extra}"


def untested_line(done: list, what: str) -> str:
    """The post-rewrite hook's line for the verifications it left on the commits they tested
    (``Rewritten.untested``: the ``what``, an amend or a rebase, gave those commits another tree),
    "" for none: which, why, and the commands for the first (test NEW and record the result
    there, then discard the old one, which holds its stream's publication while it names a
    commit no push carries; or carry it by hand, for one sure the result holds)."""
    left = [u for r in done for u in r.untested]
    if not left:
        return ""
    n, (mid, old, new, mode) = len(left), left[0]
    ids = ", ".join(short_id(u[0]) for u in left[:SHOWN_RENAMES]) + (", ..." if n > SHOWN_RENAMES else "")
    one = n == 1
    return (f"left {n} unpublished {'verification' if one else 'verifications'} of yours on the "
            f"{'commit it' if one else 'commits they'} tested ({ids}): this {what} gave "
            f"{'that commit' if one else 'those commits'} another tree, so signing {'it' if one else 'them'} "
            f"again on the new {'one' if one else 'ones'} would claim a test no one ran there; test "
            f"{new[:12]}, then git hn memory record --kind verification --at {new} --applies {mode} "
            f"--evidence git:{new} --content TEXT records the result, and git hn memory reanchor {old} --drop "
            f"discards {short_id(mid)} (its stream is published only once {old[:12]} is pushed, or it is "
            f"dropped); if you are sure its result holds on the new tree, git hn memory reanchor {old} {new} "
            "carries it instead" + ("" if one else "; the same for each of the others, with the commits it names"))


def _stream(ref: str) -> str:
    """A stream as the other lines name it ("stream 74207987abf1"; ``--json`` gives the ref), the
    ref itself when it is none of this clone's memory refs (a team trial: "re-anchored 1
    unpublished memory of refs/hn/memory/<64 hex>/<64 hex>" beside 12-character IDs)."""
    parsed = parse_local_ref(ref)
    return f"stream {short_id(parsed[1])}" if parsed else ref


def _count(n: int) -> str:
    return f"{n} unpublished {'memory' if n == 1 else 'memories'}"


def result_lines(result: Reanchored) -> list[str]:
    """One line per stream, then one ``undo:`` line per stream rebuilt, with its tip before (memory
    refs keep no reflog; a trial found the help promising the tips, and only ``--drop`` printing
    them)."""
    out = [stream_line(r, f"from {short_id(result.old)} to {short_id(result.new)}") for r in result.streams]
    return out + [f"undo: git update-ref {r.ref} {r.before}" for r in result.streams if r.before]


def result_json(result: Reanchored) -> dict:
    return {"from": result.old, "to": result.new,
            "streams": [{"ref": r.ref, "reanchored": r.moved, "signed": r.memories,
                         **({"before": r.before} if r.before else {}),
                         "renamed": [{"from": a, "to": b} for a, b in r.renamed],
                         **({"kept": [{"memoryId": m, "commit": c} for m, c in r.kept]} if r.kept else {})}
                        for r in result.streams]}
