"""Accepting a transaction (CONTRACT §9.10–§9.12, §9.17, §9.19): pending anchor, ``validated``
receipt, object copy, one atomic ``update-ref --stdin`` promotion, ``complete`` receipt, and the
repair of pending state a crash left behind. Then the verified state takes the promoted memories
as they were verified in quarantine, so that nothing is verified twice and the index is fresh
after the sync (§8.4 amendment).

Free functions over a ``run`` (the import in progress): promotion has one entry point,
``accept``; ``repair_pending`` and ``reconcile`` are the only other writers of receipts.
"""

from __future__ import annotations

import os

from ...core.grammar import accepted_ref
from ...errors import ConflictError, HnError, Interrupted, Signalled
from ...store import pending as pendingmod
from ...store import replication as rstate
from ...store.process import signals_held
from .outcomes import PhaseError, completion_failed, phase, residue


STATE_WAIT = 10.0  # seconds a sync's promotion waits for the state's lock (then the state catches up later)
PACK_REFS_FROM = 512  # accepted refs written (loose) since refs were last packed that make a sync pack them


def repair_pending(repo, remote: str) -> None:
    """§9.17: rewrite a ``validated`` receipt from each pending anchor of this remote; an
    anchor whose promotions are already committed (a crash before the ``complete`` receipt) is
    completed instead, since its objects are then accepted. First, a receipt over the bound an
    earlier git-hn wrote for this remote is split into receipts within it (``store.oversized``;
    one it cannot split safely fails the sync with its line)."""
    from ...store import oversized

    rstate.sweep_records(repo)
    oversized.split(repo, remote, repo.ref_value)
    try:
        pending = rstate.load_pending(repo)
        if not pending.anchors:
            return
        for txn, (owner, objs) in pending.anchors.items():
            if owner != remote:
                continue
            rec = pending.receipts.get(txn)
            if rec is not None and rec.get("version") == 2 and rec.get("state") == "complete" \
                    and set(objs) <= set(rec.get("acceptedObjects", [])):
                rstate.remove_anchor(repo, txn)
                continue
            promotions = (rec or {}).get("promotions") or []
            if rec is not None and promotions and all(
                    repo.ref_value(p.get("ref", "")) == p.get("newOid") for p in promotions):
                rstate.write_receipt(repo, txn, owner, "complete", rec.get("outcomes") or [],
                                     promotions, objs, rec.get("acceptedObjects") or objs)
                rstate.remove_anchor(repo, txn)
                continue
            rstate.write_receipt(repo, txn, owner, "validated", (rec or {}).get("outcomes") or [],
                                 (rec or {}).get("promotions") or [], objs,
                                 (rec or {}).get("acceptedObjects") or objs)
    except (HnError, OSError):
        raise phase("pending acceptance reconciliation", remote) from None
    finally:
        repo.forget_pending()


def unfinished(repo, remote: str) -> bool:
    """After a stopped sync: whether an acceptance with ``remote`` is left pending in a way that
    denies trust reads until ``git hn sync <remote>`` completes it (§9.17): an anchor without its
    receipt (the state is invalid), or one whose promotions the refs already hold. An anchor
    whose refs were never moved denies only objects no ref reaches. False when unreadable."""
    try:
        for txn, (owner, _objs) in rstate.load_anchors(repo).items():
            if owner != remote:
                continue
            rec = rstate.load_receipt(repo, txn)
            if rec is None:
                return True
            promotions = rec.get("promotions") or []
            if rec.get("state") != "complete" and promotions and all(
                    repo.ref_value(p.get("ref", "")) == p.get("newOid") for p in promotions):
                return True
    except (HnError, OSError):
        return False
    return False


def accept(run, promotable: list) -> None:
    """§9.10–§9.12 for the promotable outcomes, in the contract's order, with its crash seams:
    in one transaction, or, when their objects do not fit one receipt, in several, each of
    whole streams in (kind, id) order and each complete before the next begins (``groups``).
    The crash seams stop the last of them (earlier ones are complete then). The quarantine is
    removed once the last one's objects are copied."""
    from . import groups as groupsmod

    planned = groupsmod.plan(run, promotable)
    # the trees measurement read, which cutting a stream (``groups.range_objects``) lists from:
    # nothing is cut after the plan (100,000 of them: ~20 MiB held through every transaction)
    run.prefetched = None
    run.release()
    if not planned:
        return  # (every stream failed: too large for any receipt)
    accepted: list = []  # the objects of each transaction of this sync so far (``reconcile``)
    for i, group in enumerate(planned):
        txn = run.q.txn if i == 0 else groupsmod.new_txn()
        _accept_group(run, group, txn, i == len(planned) - 1, accepted)
        run.release()


def _accept_group(run, group, txn: str, last: bool, accepted: set) -> None:
    """One transaction: ``group``'s streams, under ``txn``."""
    from . import groups as groupsmod
    from . import serial, shallow

    repo, q, remote = run.repo, run.q, run.remote
    promotable = group.streams
    promotions = groupsmod.promotions(remote, promotable)
    accepted_objs = group.objects
    pending = run.absent_from_main(accepted_objs)
    outcomes = groupsmod.outcomes_of(run, group)
    validated = [rstate.receipt_bytes(txn, remote, "validated", outcomes, promotions, pending, accepted_objs)]
    if len(validated[0]) > rstate.RECEIPT_MAX:  # (``groups.plan`` keeps it within: a guard, before any write)
        raise phase("validated transaction recording", remote)

    def residue_seam(step: str, what: str) -> None:
        if last:
            run.residue_seam(step, what)

    checker = start_check(repo)  # (Git starts while the anchor and the receipt are written)
    try:
        missing = _anchor_copy_check(run, group, txn, pending, validated, checker, residue_seam)
    finally:
        if checker is not None:
            checker.abandon()  # (over when it answered; else unheard: a failure before the check)
    if missing is not None:
        raise residue(f"object verification failed at {missing}", remote)
    run.known_main.update(dict.fromkeys(pending, True))  # (a later group's objects are asked anew)
    residue_seam("after-object-copy", "interrupted after object copy")
    if last:
        try:
            q.remove()
        except HnError:
            raise residue("quarantine cleanup failed", remote) from None
    residue_seam("before-promotion", "interrupted immediately before accepted-ref transaction")
    rebased = _rebased(run, promotable)
    Signalled.unless_lost()  # (the last moment a stop leaves nothing promoted by this group)
    with signals_held():  # (see above: the ref transaction to the completion receipt)
        updates = _updates(promotions) + [f"update {r.ref} {r.tip} {r.old}" for r in rebased]
        prepared, tx = _matching(run, updates), None
        if prepared is None:
            tx = _transaction(repo, updates, remote)
        elif prepared.ready(block=False):
            tx, run.prepared = prepared.commit(), None
        # meanwhile the state takes the promoted memories, committed only if the refs are
        with run.loading(), state_promotion(run, promotable, rebased) as finish:
            if tx is None:  # Git was still preparing when the state began; or it refused
                tx = prepared.commit() if prepared.ready() else _restart(run, repo, updates)
                run.prepared = None
            code, _out, err = tx.wait()
            ok = code == 0
            serial.promoted(repo, remote)
            finish(ok)
        if not ok:
            raise _transaction_failed(remote, err)
        if last:  # (the sync's check of the tracking refs asks them next: they run meanwhile)
            from .tracked import ask_ahead

            ask_ahead(repo, remote)
        for o in promotable:
            if not o.prefix:  # a stream promoted up to a missing dependency stays failed
                o.status = "promoted"
        if last and run.publish:  # (``git hn sync``'s hint, asked while the receipt is written)
            from .not_merged import ask_ahead as ask_not_merged

            ask_not_merged(repo, run.result)
        if rebased:
            run.result.rebased = [*run.result.rebased, *rebased]
        n = sum(getattr(o, "last", True) for o in promotable)  # (a stream promoted in parts: once)
        run.result.promoted += n
        if rstate.loose_refs_written(repo, len(promotions)) >= PACK_REFS_FROM:
            # as many loose ref files as that, written by this promotion or by earlier ones since
            # git-hn last packed, make every later listing of refs slow (each is a file to read:
            # 10,000 of them ≈ 3× a packed listing), and a user's own `git gc` or `git pack-refs`
            # slow too (Git deletes each packed loose ref in a transaction of its own, each running
            # the reference-transaction hook twice: ≈ 3 ms a ref with git-hn's wrapper, 1.5 s for
            # 500); pack them, as git gc would, and like git gc --auto in the background: that is
            # seconds of file system work for 10,000 refs (2–4 s here) that no answer of this sync
            # depends on, and Git's locks keep it safe beside later commands. No hook runs (for the
            # reason above: 5,000 refs kept the machine busy for many seconds after the sync);
            # packing changes no ref's value
            repo.git.detach(["-c", f"core.hooksPath={os.devnull}", "pack-refs", "--all"],
                            env={"HN_HOOK_ACTIVE": "1"})
            rstate.set_loose_refs(repo, 0)
        from .. import index_refresh

        index_refresh.after_ref_change(repo)
        try:
            shallow.release(repo, [m.commit for o in promotable for m in o.memories])
            if last:
                run.seam("before-completion-receipt")
        except Interrupted:
            run.seam_error = completion_failed(n, remote).message
            raise
        outcomes = groupsmod.outcomes_of(run, group)
        try:
            rstate.write_receipt(repo, txn, remote, "complete", outcomes, promotions, pending, accepted_objs)
        except (HnError, OSError):
            raise completion_failed(n, remote) from None
        try:
            rstate.remove_anchor(repo, txn)
        except OSError as exc:
            raise PhaseError(f"replication promotion succeeded for {n} selection(s), but completed "
                             f"pending-anchor cleanup failed for remote {remote}: {exc.strerror}") from None
        accepted.append(accepted_objs)
        reconcile(repo, remote, txn, accepted, n)
        pendingmod.remember_completed(repo, run.nothing_pending, txn)
        repo.forget_pending()
        if not last:  # (the next group's transaction is remembered from here)
            run.nothing_pending = pendingmod.nothing_pending_files(repo)
        _release(promotable)


def _anchor_copy_check(run, group, txn: str, pending: list, validated: list, checker, residue_seam) -> str | None:
    """``_accept_group``'s steps from the pending anchor to the main store's check of the accepted
    objects (§9.10): the first of them missing, or None (``first_missing``, ``checker`` answering).
    ``validated``: the receipt's bytes, in a list that lets them go once written."""
    from . import shallow

    repo, q, remote = run.repo, run.q, run.remote
    accepted_objs = group.objects
    # a stopping signal (Ctrl-C, SIGTERM) is held across the two steps that leave pending state
    # which denies every read until a sync repairs it (§9.17): from the anchor to its receipt,
    # and from the ref transaction to the completion receipt. A stop lands before or after them,
    # never between (docs/decisions.md, "A stopped sync never leaves its acceptance pending")
    with signals_held():
        try:
            rstate.write_anchor(repo, txn, remote, pending)
        except (HnError, OSError):
            raise phase("pending acceptance anchoring", remote) from None
        residue_seam("after-pending-anchor", "interrupted after pending anchor before object copy")
        try:  # (the bytes measured above: encoded once, and not held past here)
            rstate.write_receipt_bytes(repo, txn, validated.pop())
        except (HnError, OSError):
            raise phase("validated transaction recording", remote) from None
    adopted: list[list[str]] = []
    if pending:
        run.say("copy objects")
        try:
            adopted = q.copy_to_main(pending, set(accepted_objs))
        except (OSError, HnError):
            raise phase("object copy", remote) from None
    repo.git.close()  # a fresh batch process sees the new pack
    shallow.add_shallow(repo, group.shallow)
    return first_missing(repo, accepted_objs, adopted, checker)


def _release(promotable: list) -> None:
    """After a transaction completed: the verified memories of the streams it promoted whole are
    not held any longer (the state has their rows; a sync of 100,000 memories in two transactions
    held the first's 50,000 through the second's state update). Nothing after promotion reads
    them: a promoted stream counts what it imported by its walked commits, and only failed
    streams (a stream promoted up to a missing dependency among them) are looked into for the
    sync's lines."""
    for o in promotable:
        whole = getattr(o, "whole", o)  # (a ``groups.Part``: the stream it is a part of)
        if whole is not o:
            o.memories = ()
        if whole.status == "promoted" and not whole.prefix and whole.walked is not None \
                and getattr(o, "last", True):
            whole.memories = ()


def _rebased(run, promotable: list) -> list:
    """``sync --rebase``: for each promoted copy of the user's own stream that parts from the
    local stream (``own_fork``), the local stream's unpublished memories signed
    again on top of what this transaction accepts, and the user's other streams citing them
    rebuilt to follow (``store.rebase.rebase``), their objects written now; the ref
    transaction moves the local refs with the accepted one, so that the two never disagree in
    the main repository. A copy promoted only up to before where the two part (a missing
    dependency) leaves the local stream as it is."""
    from ...store import objects
    from ...store.reanchor import remember_renames

    forks = []
    for o in promotable:
        if o.rebase is None or not o.memories:
            continue
        ref, old, tail = o.rebase
        onto = run.full(o, o.memories[-1:])[0]
        if onto.envelope.sequence < tail[0].envelope.sequence:
            continue
        forks.append((ref, old, tail, onto))
    if not forks:
        return []
    from ...store.rebase import rebase  # (only for a fork: every promotion comes here)

    try:
        from ..secretscan import scan

        out = rebase(run.repo, run.identity, forks, scan)
        objects.write_objects(run.repo, [obj for r in out for obj in r.objects])
        # (before the transaction moves the local refs: a read meanwhile knows git-hn did it, ``rewound``)
        remember_renames(run.repo, [pair for r in out for pair in r.renamed], "sync")
    except ConflictError as exc:
        raise residue(f"rebase stopped: {exc.message}", run.remote) from None
    except (HnError, OSError):
        raise residue("rebased memory writing failed", run.remote) from None
    return out


def start_check(repo):
    """The ``cat-file --batch-check`` that ``first_missing`` asks, started before the pending
    anchor is written: Git's start-up overlaps with the anchor's and the receipt's writes, not
    with the sync's wait (sync-100: ~1 ms). It is asked only after the copy: Git looks the packs
    up again, and reads the loose object files, for an object it does not find, so its answer
    counts what the copy brought (as the object reader started during the fetch reads the pack
    the fetch installs after it: ``meanwhile``). None when it cannot start (then asked anew)."""
    try:
        return repo.git.without_lazy_fetch().spawn(["cat-file", "--batch-check", "--buffer"], stdin=True)
    except HnError:
        return None


def first_missing(repo, oids: list[str], adopted: list[list[str]], checker=None) -> str | None:
    """The first of ``oids`` (in their order) that the main store lacks, or None: the check
    before any ref points at them (§9.10). An object of a pack adopted whole (``adopted``: each
    pack's object IDs, as the index Git wrote for it lists them) is found through that index,
    which was linked into the main store with the pack: one object of each such pack is asked,
    and every other object itself (10,000 memories: 40,000 lookups, ≈ 80 ms, become one). Should
    any answer be missing, every object is asked, so the one named is the same either way.
    ``checker``: ``start_check``'s process, which answers the first question when it can."""
    in_packs: set[str] = set()
    probes = []
    for listed in adopted:
        in_packs.update(listed)
        probes.append(listed[0])
    asked = [o for o in oids if o not in in_packs] + probes
    present = _checked(checker, asked) if checker is not None else None
    if present is None:
        present = repo.git.presence(asked, expected=True)
    if all(present):
        return None
    for oid, present in zip(oids, repo.git.presence(oids, expected=True)):
        if not present:
            return oid
    return None


def _checked(checker, oids: list[str]) -> list[bool] | None:
    """Whether the main store has each of ``oids``, as ``checker`` (``start_check``) answers
    them all at once (``Git.presence``'s answer); None when it cannot say (too many for one
    process, a failed Git, an answer of another shape): then ``presence`` asks."""
    from ...store.git import Git
    from ...store.reader import answer_fields, object_names

    if not oids or len(oids) > Git.BULK_NAMES:
        return None
    try:
        got = checker.finish(object_names(oids))
        if got.returncode != 0:
            return None
        lines = got.stdout.split(b"\n")
        if len(lines) != len(oids) + 1 or lines[-1]:
            return None
        return [answer_fields(line, o) is not None for line, o in zip(lines, oids)]
    except HnError:
        return None


def _updates(promotions: list[dict]) -> list[str]:
    """The ref transaction's lines for ``promotions``, in ref order."""
    return [f"update {p['ref']} {p['newOid']} {p['oldOid']}" if "oldOid" in p
            else f"create {p['ref']} {p['newOid']}"
            for p in sorted(promotions, key=lambda p: p["ref"])]


def prepare(run, wanted: list) -> None:
    """Right after the fetch, start the ref transaction that promotes every fetched stream
    (``Git.prepare``): Git creates and checks the lock files of the accepted refs (for 100 new
    refs, tens of milliseconds of directory and file creation) while Python measures and
    validates, and ``accept`` commits it only if validation promotes exactly those refs, after
    the objects are in the main store. Nothing is written before that commit: a transaction that
    does not match, or a sync that fails or is interrupted, aborts it (``discard_prepared``).
    Git reads the new tips from the quarantine's store to check them (an alternate of that one
    process only, as ``receive-pack`` lets its hooks read a push's quarantine)."""
    alive = [o for o in wanted if o.alive]
    objects = os.path.join(run.q.path, "objects")
    if not alive or ":" in objects or objects.startswith('"'):
        return  # (a path Git would split or unquote as an alternate: the usual transaction)
    inherited = run.repo.git.env.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")
    env = {"HN_HOOK_ACTIVE": "1",
           "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects + (":" + inherited if inherited else "")}
    from . import serial

    from .groups import promotions

    updates = _updates(promotions(run.remote, alive))
    try:
        run.prepared = run.repo.git.prepare(updates, env=env)
    except HnError:
        run.prepared = None  # ``accept`` starts the transaction itself
        return
    serial.promoting(run.repo, run.remote, updates, run.prepared.proc.pid)


def _matching(run, updates: list[str]):
    """The transaction ``prepare`` started, when it holds exactly ``updates`` (it stays the
    run's, which aborts it unless it is committed); else None (it is aborted: nothing was
    written)."""
    prepared = run.prepared
    if prepared is not None and prepared.updates != tuple(updates):
        discard_prepared(run)
        return None
    return prepared


def state_interrupted(repo) -> bool:
    """Whether the verified state's file exists and is not sealed (a write of it was cut short:
    a killed promotion, say), while no command is writing it (a build or an update is unsealed
    until it ends: then the state lock is held). Two ``lstat`` calls and two small reads, and a
    lock tried once only when the file is not sealed."""
    from ...errors import ConflictError
    from ...store import statedb

    if not os.path.lexists(statedb.paths(repo)[1]) or statedb.sealed(repo):
        return False
    try:
        with statedb.locked(repo, exclusive=False, wait=0):
            return os.path.lexists(statedb.paths(repo)[1]) and not statedb.sealed(repo)
    except (ConflictError, HnError, OSError, statedb.Unwritable):
        return False  # (being written now, or not readable here: the next read sees to it)


def after_killed_promotion(repo) -> None:
    """A promotion whose sync was killed: its transaction (in a session of its own) may have
    committed after it died, and its state write may have been cut short. The exported index
    is brought back to a consistent state and the verified state to the refs now (rebuilt if
    its write was interrupted), as the promotion would have left them, so that ``index verify``
    passes after this sync even when nothing is left to promote. Best effort: a read repairs
    the state as well."""
    from ...store import stateview
    from .. import index_refresh

    index_refresh.after_ref_change(repo)
    stateview.catch_up(repo)


def _transaction_failed(remote: str, err: bytes):
    """The contract's failure, with the one cause git-hn can name and the user can mend: a ref's
    lock file that a stopped Git left (Git never removes another process's lock)."""
    import re

    from ...core.gostr import one_line

    error = residue("accepted-ref transaction failed", remote)
    found = re.search(rb"Unable to create '([^']+\.lock)': File exists", err)
    if found:
        path = one_line(found.group(1).decode("utf-8", "replace"))
        error.message += (f"; Git could not lock a ref: {path} exists (another Git command holds it, or one "
                          "that was stopped left it); if no Git command is running in this repository, delete "
                          "it and sync again")
    return error


def _transaction(repo, updates: list[str], remote: str):
    """The promotion's ref transaction (§9.11), started now."""
    from ...store.git import REF_TRANSACTION
    from . import serial

    lines = ["start", *updates, "prepare", "commit"]
    tx = repo.git.start(list(REF_TRANSACTION), input=("\n".join(lines) + "\n").encode(),
                        env={"HN_HOOK_ACTIVE": "1"})
    serial.promoting(repo, remote, updates, tx.pid)
    return tx


def _restart(run, repo, updates: list[str]):
    """Git refused the prepared transaction (nothing was written): the contract's transaction,
    which fails or succeeds as it would have."""
    discard_prepared(run)
    return _transaction(repo, updates, run.remote)


def discard_prepared(run) -> None:
    """Abort a prepared transaction that was not committed (nothing is written)."""
    prepared, run.prepared = run.prepared, None
    if prepared is not None:
        prepared.abort()
        from . import serial

        serial.promoted(run.repo, run.remote)


def reconcile(repo, remote: str, txn: str, accepted: list, n: int) -> None:
    """§9.12: complete other pending anchors of this remote whose objects this sync's
    transactions accepted (``accepted``: each one's objects; their union is made only when such
    an anchor is pending, a set of 200,000 object IDs held to the end of a 100,000-memory sync)."""
    try:
        have = None
        for other, (owner, objs) in rstate.load_anchors(repo).items():
            if other == txn or owner != remote:
                continue
            if have is None:
                have = set().union(*accepted)
            if not have.issuperset(objs):
                continue
            rec = rstate.load_receipt(repo, other) or {}
            rstate.write_receipt(repo, other, owner, "complete", rec.get("outcomes") or [],
                                 rec.get("promotions") or [], objs, rec.get("acceptedObjects") or objs)
            rstate.remove_anchor(repo, other)
    except (HnError, OSError) as exc:
        raise PhaseError(f"replication promotion succeeded for {n} selection(s), but pending "
                         f"transaction reconciliation failed for remote {remote}: {exc}") from None


def state_promotion(run, promotable: list, rebased: list = ()):
    """Give the verified state the promoted memories as verified in quarantine (the commits are
    the same objects in the main store), while the ref transaction runs
    (``stateview.staged``): ``finish(ok)`` commits that only if the refs were promoted. Nothing
    happens when the state did not record exactly the tips they continue (its next refresh
    verifies what it lacks; meanwhile ``Repo.state_behind`` says so, and a sync brings it up when
    it ends: a state of another git-hn, which a sync killed after validation leaves in place, left
    the promoted refs out until the next read). Never changes the sync's outcome: a failure is the
    §8.4 warning.

    The fetch hook's import (``run.wait`` 0) never waits for the state's lock, which any read
    holds shared (a review: ``git fetch`` held 10 s without a word): when it is taken the refs
    are promoted without the state's part, and the next read brings the state to them (the
    state records the tips it was built from, and is never served for others)."""
    from ...store import stateview

    before, run.repo.state_behind = run.repo.state_behind, True  # until the changes are staged (a
    # failure to commit them is warned of and the state discarded instead)

    def changes_of(conn):
        changes = _changes(run, conn, promotable, rebased)
        if changes is not None:
            run.repo.state_behind = before
        return changes

    return stateview.staged(run.repo, changes_of, lambda exc: _failed(run.repo, exc),
                            wait=STATE_WAIT if run.wait else 0)


def _changes(run, conn, promotable: list, rebased: list = ()):
    from ...core.grammar import parse_local_ref
    from ...store import state, streams

    stored = state.stored_sources(conn, {(o.actor, o.id) for o in promotable}
                                  | {parse_local_ref(r.ref) for r in rebased if r.follows})
    changes = []
    for r in rebased:  # the local stream: its first ``seq - 1`` memories, the copy's above, the rebuilt
        old = stored.get(r.ref)
        if r.follows:  # another stream rebuilt in place: its memories below the first rebuilt one stay
            if old is None or old.head != r.old:
                return None
            actor, stream = parse_local_ref(r.ref)
            changes.append(state.Change(streams.Source(r.ref, r.tip, actor, stream), old, old.sid,
                                        r.memories[0].envelope.sequence - 1, list(r.memories)))
            continue
        first = r.memories[0].envelope.sequence  # the rebuilt memories continue the accepted tip
        actor, stream = parse_local_ref(r.ref)
        o = next(o for o in promotable if (o.actor, o.id) == (actor, stream))
        parted = o.rebase[2][0].envelope.sequence  # where the local stream and the copy part
        if old is None or old.head != r.old:
            return None
        copy = run.full(o, [m for m in o.memories if parted <= m.envelope.sequence < first])
        changes.append(state.Change(streams.Source(r.ref, r.tip, actor, stream), old, old.sid,
                                    parted - 1, copy + list(r.memories)))
    for o in promotable:
        ref = accepted_ref(run.remote, o.actor, o.id)
        old = stored.get(ref)
        if (old.head if old else "") != o.old:
            return None  # the state is elsewhere: its refresh catches up
        base_commit, base_seq = o.base
        base_sid = None
        if base_commit:
            row = conn.execute('SELECT sid FROM chain WHERE "commit" = ? AND seq = ? LIMIT 1',
                               (base_commit, base_seq)).fetchone()
            if row is None:
                return None
            base_sid = row[0]
        changes.append(state.Change(streams.Source(ref, o.advertised, o.actor, o.id, run.remote),
                                    old, base_sid, base_seq, run.full(o, signed=True)))
    return changes


def _failed(repo, exc) -> None:
    """Under the state's lock: discard it and say so (§8.4: the outcome stands)."""
    from ...store import stateview

    stateview.removed(repo, exc)
