"""Appending one memory to a stream: the single state transition of a stream (CONTRACT §4.1,
§4.4, §10.4 steps 5–9, §11(a) item 3, §11(b)).

Owns: computing the next position (from the verified state, or by full verification of the
stream), signing a fresh envelope, writing the four objects, the compare-and-swap on the local
stream ref, with bounded retries under the stream lock, and recording the new memory in the
verified state. ``append`` appends one memory; ``append_all`` appends several as one commit
chain with one compare-and-swap (``memory import``: all or none). Trusts: the active identity
handed in, and chains only after ``streams`` (directly or through the state) verified them.

Attacks and races handled here:
- *lost update*: two writers read the same head; ``update-ref`` with the expected old value lets
  exactly one win, and the loser re-reads, re-signs and retries (never re-uses a signed envelope);
- *equivocation by the writer*: the next position continues the longest of the local and accepted
  chains only if they are prefix-consistent, and never a stream whose tip the verified state saw
  taken away outside git-hn (``rewound``), so git-hn never knowingly forks its own stream;
- *a killed writer*: the ref lock file its ``update-ref`` left is removed by the next writer of
  the stream, which holds the stream lock (``reflock``);
- *stale state*: the state is brought up to date with the stream's refs first, and the head
  commit's tree and signature are verified again either way (CONTRACT §4.4).
"""

from __future__ import annotations

import os
import time

from ..core import envelope as envmod
from ..core import keys
from ..core.chain import VerifiedMemory
from ..core.contexts import contextmanager
from ..core.envelope import Envelope, Record
from ..core.gostr import short_id
from ..core.grammar import default_stream, format_timestamp, local_ref, memory_id
from ..core.limits import PROTOCOL
from ..core.tuples import NamedTuple
from ..errors import ConflictError, HnError, InputError, LocalStateError, ValidationError
from . import objects, reflock, streams, verify
from .identity import Identity
from .lock import stream_lock
from .process import signals_held, stops_after_write
from .repo import Repo

ATTEMPTS = 4


class Draft(NamedTuple):
    """What the author asked for: everything of the envelope except position and time."""

    operation: str
    stream: str
    record: Record | None = None
    target: str = ""
    reason: str = ""
    evidence: tuple[str, ...] | None = None


class Position(NamedTuple):
    local_head: str
    parent: str
    sequence: int
    memory_id: str
    head: VerifiedMemory | None


class Appended(NamedTuple):
    memory_id: str
    commit: str
    envelope: Envelope
    replayed: bool = False


class _LostRace(ConflictError):
    """Internal: the stream head moved under the compare-and-swap, or Git could not take the
    ref's lock (``lock``: the lock file Git named); the append is retried."""

    def __init__(self, lock: str = ""):
        super().__init__("memory stream head moved during append")
        self.lock = lock


_LOCK_EXISTS = r"Unable to create '([^'\n]+\.lock)': File exists"  # compiled on a failure only


def _held_lock(stderr: bytes) -> str:
    """The lock file a failed ``update-ref`` could not create, if that was why."""
    import re

    m = re.search(_LOCK_EXISTS, stderr.decode("utf-8", "replace"))
    return m.group(1) if m else ""


# What Git says when the ref was not where the compare-and-swap expected it (it moved, was
# created or was deleted meanwhile): a lost race, retried from a fresh read
_MOVED = ("but expected", "reference already exists", "unable to resolve reference", "reference is missing")


def _refused(repo: Repo, ref: str, old: str, stderr: bytes) -> str:
    """Why Git did not move ``ref`` when it was no lost race, or "" when it was one: the ref
    moved (Git said so, or it is no longer ``old``, "" for none), or another process holds its lock file (an
    audit: a read-only ``.git/refs`` was called a lost race, retried and re-signed four times).
    Git's own line is said (with LC_ALL=C: ``git.GIT_ENV``), less what the caller says already."""
    text = stderr.decode("utf-8", "replace")
    if any(m in text for m in _MOVED) or _held_lock(stderr) or repo.ref_value(ref) != old:
        return ""
    line = next((l.strip() for l in text.splitlines() if l.strip()), "")
    for prefix in ("fatal: ", "error: ", f"cannot lock ref '{ref}': "):
        line = line.removeprefix(prefix)
    return line.replace(f" reference '{ref}'", " reference") or "git update-ref failed"


def refused_error(repo: Repo, ref: str, why: str) -> LocalStateError:
    """A ref write Git refused for a reason retrying cannot mend: said at once, with what to do."""
    fix = (f"check the permissions of {os.path.join(repo.common_dir, 'refs')}" if "Permission denied" in why
           else "fix that")
    return LocalStateError(f"append memory stream {ref}: Git cannot write the ref: {why}; nothing was recorded: "
                           f"{fix}, then run the command again")


def lost_race_error(ref: str, lock: str) -> ConflictError:
    """The error after the last attempt. A lock file that is still there after every retry will
    not go away by retrying: it is named, with what to do (CONTRACT §0.5: one line)."""
    if lock and os.path.lexists(lock):
        return ConflictError(f"append memory stream {ref}: the lock file {lock} exists: another Git "
                             "process is updating this ref, or one was killed; if no Git process is "
                             "running in this repository, remove that file and retry")
    return ConflictError(f"append memory stream {ref}: compare-and-swap failed; "
                         "reload and retry with a newly signed envelope")


def _wrap(head: str, exc: ValidationError) -> ValidationError:
    return ValidationError(f"read memory stream head {head}: {exc.message}")


def _from_state(repo: Repo, actor: str, stream: str, sources: list[streams.Source]) -> Position | None:
    """CONTRACT §4.4 through the verified state: the stream's refs are verified up to their
    current tips (only what is new), and the longest chain is continued. None when the state
    cannot answer or a chain is invalid: full verification then decides (and words the error)."""
    got = _state_read(repo, actor, stream, sources)
    return None if got is None else got[0]


def _state_read(repo: Repo, actor: str, stream: str, sources: list[streams.Source], like=None):
    """``_from_state``'s position, and (with ``like``, unsigned memories: ``append_all``'s
    drafts) the memories of the chain it continues that may equal one of them in their record
    fields (``View.alike``), read from Git and checked against the state (``View.load``); None
    when the state cannot answer."""
    from . import statedb, stateview

    local = next((s for s in sources if s.remote is None), None)
    try:
        with stateview.current(repo, listing=sources, scope={(actor, stream)}) as view:
            best = None
            for src in sources:  # the first longest chain in ref order, as full verification picks
                row = view.conn.execute("SELECT s.length, c.id, c.\"commit\", s.sid FROM sources s JOIN chain c "
                                        "ON c.sid = s.sid AND c.seq = s.length WHERE s.ref = ?",
                                        (src.ref,)).fetchone()
                if row is not None and (best is None or row[0] > best[0]):
                    best = row
            alike = [] if best is None or not like else list(view.load(view.alike(best[3], like)).values())
    except (stateview.Unavailable, stateview.Corrupt, statedb.Unwritable, ValidationError):
        return None
    if best is None:
        return Position(local.head if local else "", "", 0, "", None), []
    seq, mid, head, _sid = best
    try:
        from . import pending

        pending.refuse(repo, head)  # §4.4: the head is still checked against pending state
        tree, parents = streams.read_parents(repo, local.ref if local else "", head)
        if len(parents) > 1 or (seq == 1) != (not parents):
            return None
        mem = verify.verify_commits(repo, "", [(head, tree)])[0]
    except ValidationError:
        return None
    env = mem.envelope
    if mem.memory_id != mid or env.sequence != seq or env.actor != actor or env.stream != stream:
        return None
    return Position(local.head if local else "", head, seq, mid, mem), alike


def full_position(repo: Repo, actor: str, stream: str, sources: list[streams.Source]) -> Position:
    """Verify every source of the stream and continue the longest chain (§11(a) item 3)."""
    return _longest_chain(repo, sources)[0]


def _longest_chain(repo: Repo, sources: list[streams.Source]) -> tuple[Position, list[VerifiedMemory]]:
    """``full_position``, and the verified chain it continues (root first)."""
    chains: dict[str, list[VerifiedMemory]] = {}
    for src in sources:
        try:
            chains[src.ref] = streams.read_chain(repo, src)
        except ValidationError as exc:
            raise _wrap(src.head, exc) from None
    streams.check_divergence(chains, sources)
    local = next((s for s in sources if s.remote is None), None)
    best: list[VerifiedMemory] = []
    for src in sources:
        memories = chains[src.ref]
        if len(memories) > len(best):
            best = memories
    if not best:
        return Position(local.head if local else "", "", 0, "", None), []
    head = best[-1]
    return Position(local.head if local else "", head.commit, len(best), head.memory_id, head), best


def position(repo: Repo, actor: str, stream: str, use_cache: bool = True) -> Position:
    """Where ``stream`` stands (under its lock, for an append: §11(b))."""
    sources = streams.stream_sources(repo, actor, stream)
    if use_cache:
        pos = _from_state(repo, actor, stream, sources)
        if pos is not None:
            return pos
    return full_position(repo, actor, stream, sources)


def _check_not_lost(repo: Repo, actor: str, stream: str, pos: Position) -> None:
    """*Equivocation after a lost tip*: the stream's ref was deleted or moved back outside
    git-hn (``rewound``), so the position continues a chain without memories this key signed;
    the next sequence would be signed a second time. One ``lstat`` while nothing was lost."""
    from . import rewound

    refused = rewound.refusal(repo, actor, stream, pos.sequence + 1)
    if refused is not None:
        raise refused


def build_envelope(ident: Identity, draft: Draft, pos: Position, timestamp: str) -> Envelope:
    return Envelope(
        protocol=PROTOCOL, operation=draft.operation, actor=ident.actor, actor_name=ident.name,
        public_key=ident.public_key, stream=draft.stream, sequence=pos.sequence + 1,
        timestamp=timestamp, previous=pos.memory_id, record=draft.record, target=draft.target,
        reason=draft.reason, evidence=draft.evidence)


def replay_head(ident: Identity, draft: Draft):
    """The replay check of CONTRACT §7.14, as an ``append(replay=…)`` callback.

    The envelope about to be signed is compared with the head of the chain being continued in
    every field except ``timestamp``, ``sequence`` and ``previous``: the draft is encoded at the
    head's own position and time, and the bytes must equal the head's ``memory.json``. Equal
    bytes mean an agent retried a request that already succeeded (after a timeout, say), and the
    head is returned instead of a duplicate. Only the head is compared; an older equal memory is
    not a retry.
    """

    def replay(pos: Position):
        head = pos.head
        if head is None:
            return None
        old = head.envelope
        env = build_envelope(ident, draft, pos, old.timestamp)._replace(
            sequence=old.sequence, previous=old.previous)
        return head if envmod.encode(env) == head.payload else None

    return replay


def _state_append(repo: Repo, ref: str, pos: Position, mems: list[VerifiedMemory]):
    """The verified state's part of an append (the memories, root first), staged while Git writes
    the objects and moves the ref (``stateview.staged``: committed by the ``finish()`` this
    yields once the ref moved, rolled back otherwise). Nothing is recorded when the state is not
    exactly where this append read it: the next command's refresh verifies the append like any
    new commit. A state that cannot be written never fails the append; one left half written is
    discarded, with CONTRACT §8.4's warning (an audit's full disk deleted it unsaid)."""
    from . import statedb, stateview
    from .statedb import sqlite3

    def failed(exc: BaseException) -> None:
        if isinstance(exc, (sqlite3.Error, statedb.WriteFailed)):
            stateview.removed(repo, exc)  # else (busy, say) the state catches up on the next read

    def changes_of(conn):
        change = _change(conn, ref, pos, mems)
        return None if change is None else [change]

    return stateview.staged(repo, changes_of, failed, wait=2.0)


def _change(conn, ref: str, pos: Position, mems: list[VerifiedMemory]):
    """The state change of this append, or None when the state is not where it read it."""
    from . import state

    env = mems[-1].envelope
    stored = state.stored_sources(conn, {(env.actor, env.stream)})
    old = stored.get(ref)
    if (old.head if old else "") != pos.local_head:
        return None
    base = None
    if pos.parent:
        base = next((s for s in stored.values() if s.head == pos.parent and s.length == pos.sequence
                     and (s.actor, s.stream) == (env.actor, env.stream)), None)
        if base is None:
            return None
    return state.Change(streams.Source(ref, mems[-1].commit, env.actor, env.stream), old,
                        base.sid if base else None, pos.sequence, mems)


def now_timestamp() -> str:
    ns = time.time_ns()
    return format_timestamp(ns // 1_000_000_000, ns % 1_000_000_000)


class _Writers:
    """The two processes an append writes with, started when the attempt begins so that their
    start-up overlaps with finding the position and signing: ``unpack-objects`` (the objects)
    and ``update-ref --stdin`` (the compare-and-swap, applied when its input ends). Neither
    does anything until fed; an attempt that writes nothing stops them unfed."""

    def __init__(self, repo: Repo):
        self.unpack = repo.git.spawn(objects.UNPACK, stdin=True)
        # HN_HOOK_ACTIVE: a reference-transaction wrapper skips git-hn's own ref updates (§10.7)
        self.cas = repo.git.spawn(("update-ref", "-m", "hn: append memory", "--stdin"), stdin=True,
                                  env={"HN_HOOK_ACTIVE": "1"})

    def close(self) -> None:
        self.unpack.abandon()
        self.cas.abandon()


def _commit_objects(repo: Repo, ident: Identity, env: Envelope, payload: bytes, signature: str,
                    parent: str) -> tuple[str, list]:
    """§4.1 steps 3–6: the commit's OID and its objects, for one object-writing process (see
    ``objects``)."""
    return objects.memory_commit_objects(
        payload, signature, parent, ident.name, f"{short_id(ident.actor)}@hn.invalid",
        objects.timestamp_seconds(env.timestamp), f"hn memory {memory_id(payload)}",
        repo.object_format)


def _compare_and_swap(repo: Repo, ref: str, new: str, old: str, writers: _Writers, record: str) -> None:
    """``ref`` from ``old`` (empty: it must not exist) to ``new``, or ``_LostRace``, or, when Git
    refused for another reason (permissions, a directory in the way), the error. ``record``:
    where what Git is doing is written while it does it (``reflock``: a kill leaves it)."""
    expected, old = old, old or "0" * repo.oid_hex_len
    repo.git.forget_early()  # answers from before this write would be stale after it
    reflock.write_record(record, writers.cas.proc.pid, new)
    proc = writers.cas.finish(f"update {ref} {new} {old}\n".encode("ascii"))
    reflock.remove_record(record)  # (not when finish raised: the next writer looks at its Git)
    if proc.returncode < 0 and repo.ref_value(ref) == new:
        return  # (killed by a terminal's Ctrl-C to the whole group once the ref had moved: written)
    if proc.returncode != 0:
        why = _refused(repo, ref, expected, proc.stderr or b"")
        if why:
            raise refused_error(repo, ref, why)
        raise _LostRace(_held_lock(proc.stderr or b""))


@contextmanager
def _locked(repo: Repo, actor: str, stream: str, ref: str):
    """The stream lock of ``ref``; yields the path of its record (``reflock``). Once it is held,
    a ref lock file a killed writer of the stream left is removed (``reflock.clear_left``), and
    what Git answered before it is dropped (``Git.forget_early``), whether the lock was waited for
    or not: a sync's import may have taken and released it in between, moving the accepted copy,
    which no compare-and-swap of the local ref would notice (CONTRACT §11(b): the head is read
    under the lock; a review found a record that continued an overtaken chain, forking its own
    stream)."""
    path = repo.lock_path(actor, stream)
    with stream_lock(repo.hn_dir, path, ref):
        repo.git.forget_early()
        record = reflock.record_path(path)
        reflock.clear_left(record, repo.common_dir, ref, lambda: repo.ref_value(ref))
        yield record


def append(repo: Repo, ident: Identity, draft: Draft, *, check=None, replay=None,
           clock=now_timestamp, use_cache: bool = True, then_ask=()) -> Appended:
    """Append ``draft`` to ``refs/hn/memory/<actor>/<stream>`` (CONTRACT §4.1, §11(b)).

    ``check(position)`` runs the operation's target checks on every attempt; ``replay(position)``
    may return an existing memory to answer instead of appending (§7.14). Both run under the lock.
    ``then_ask``: read-only Git questions (argument tuples) the caller asks after the write, started
    together as soon as the ref moved (``Git.ask_early``: they run while the verified state commits
    and the lock is released; each is asked after the write, so it sees it); none for a replay.
    """
    ref = local_ref(ident.actor, draft.stream)
    seed = ident.seed()
    last_error = None
    # a stream another actor holds here is refused before its lock file is made (an audit found one
    # left by each refused record); the position comes from the listing under the lock, which checks
    # the owners again (this one may be overtaken before the lock is taken: a review's fork); once
    # the lock file exists, a refusal leaves nothing new, so the listing is asked once (a reread)
    if draft.stream != default_stream(ident.actor) and not os.path.exists(repo.lock_path(ident.actor, draft.stream)):
        streams.stream_sources(repo, ident.actor, draft.stream)
    with _locked(repo, ident.actor, draft.stream, ref) as record:
        for attempt in range(ATTEMPTS):
            if attempt:
                time.sleep(0.01 + os.urandom(1)[0] / 255 * 0.09)
            writers = _Writers(repo)
            try:
                pos = position(repo, ident.actor, draft.stream, use_cache=use_cache)
                _check_not_lost(repo, ident.actor, draft.stream, pos)
                if check is not None:
                    check(pos)
                if replay is not None:
                    existing = replay(pos)
                    if existing is not None:
                        return Appended(existing.memory_id, existing.commit, existing.envelope, True)
                env, payload, signature, mid = _signed(ident, seed, draft, pos, clock())
                commit, objs = _commit_objects(repo, ident, env, payload, signature, pos.parent)
                fed = objects.start_writing(repo, objs, writers.unpack)
                # the state's part is prepared while Git writes the objects, committed once the
                # ref moved (rolled back otherwise)
                with _state_append(repo, ref, pos, [VerifiedMemory(mid, commit, env, payload, signature)]) as done:
                    if fed:
                        objects.checked(writers.unpack.finish())
                    else:
                        objects.write_objects(repo, objs, writers.unpack)
                    # a stop from here on waits: once Git moved the ref the memory is stored, and
                    # the command says so (``process.stops_after_write``)
                    hold = signals_held()
                    hold.__enter__()
                    try:
                        _compare_and_swap(repo, ref, commit, pos.local_head, writers, record)
                    except BaseException as exc:
                        hold.__exit__(None, None, None)  # (lost, or failed: a stop is delivered now)
                        if not isinstance(exc, _LostRace):
                            raise
                        last_error = lost_race_error(ref, exc.lock)
                        continue
                    try:
                        _ask_early(repo, then_ask)
                        done()
                    finally:
                        stops_after_write.keep(hold)
            finally:
                writers.close()
            return Appended(mid, commit, env)
    raise last_error


def _ask_early(repo: Repo, questions) -> None:
    """Start ``append``'s ``then_ask`` now, each without waiting for its answer (``Git.ask_early``).
    A Git that cannot be started is left to the caller's own question, which reports it: the
    write is done, and nothing here may stop the state's commit."""
    try:
        for question in questions:
            repo.git.ask_early(question)
    except HnError:
        pass


def _signed(ident: Identity, seed: bytes, draft: Draft, pos: Position, timestamp: str):
    """``draft`` as the memory at ``pos``: its envelope checked as any reader checks it, bound
    to the signer, encoded and signed; (envelope, payload, signature text, memory ID)."""
    env = build_envelope(ident, draft, pos, timestamp)
    envmod.check_envelope(env)
    if env.public_key != ident.public_key or env.actor != ident.actor:
        raise ValidationError("memory identity does not match its signer")
    payload = envmod.encode(env)
    if keys.holds_seed(payload, seed):  # (the secret lint cannot know the key; this can)
        raise InputError("the memory holds your git-hn private key (in one of its fields); "
                         "nothing was signed: remove it (every signed memory is published and permanent)")
    return env, payload, keys.b64_encode(keys.sign(seed, payload)), memory_id(payload)


def append_all(repo: Repo, ident: Identity, stream: str, select, *,
               clock=now_timestamp, offered: list[Draft] | None = None) -> list[Appended]:
    """Append several drafts to ``refs/hn/memory/<actor>/<stream>`` as one commit chain with one
    compare-and-swap (``git hn memory import``): all of them or none.

    ``select(chain)`` gets verified memories of the chain being continued and returns the drafts
    to append, in order; none means nothing is written. ``chain`` is every memory of that chain
    (root first, fully verified), unless ``offered`` names the drafts ``select`` chooses from
    and the verified state is current for the stream's refs (§4.4, as ``append``): then it is
    those of the chain whose record fields may equal an offered draft's (``View.alike``:
    a superset of the memories any draft's envelope equals in every field but ``timestamp``,
    ``sequence`` and ``previous``, each read from Git and checked against the state), so a
    ``select`` that looks for such replays gets the same answer from either. It runs under the
    stream lock on every attempt, like ``append``'s replay check. Each memory gets its own
    ``clock()`` timestamp; every envelope is checked and signed before any object is written,
    all objects go to Git in one pack, and the ref moves once. A lost race is retried from a
    fresh read (and a fresh ``select``) like ``append``; after the last attempt nothing of this
    call is referenced.
    """
    ref = local_ref(ident.actor, stream)
    seed = ident.seed()
    like = _unsigned(ident, offered or [])
    last_error = None
    with _locked(repo, ident.actor, stream, ref) as record:
        for attempt in range(ATTEMPTS):
            if attempt:
                time.sleep(0.01 + os.urandom(1)[0] / 255 * 0.09)
            sources = streams.stream_sources(repo, ident.actor, stream)
            got = _state_read(repo, ident.actor, stream, sources, like=like) if like else None
            pos, chain = got if got is not None else _longest_chain(repo, sources)
            _check_not_lost(repo, ident.actor, stream, pos)
            drafts = list(select(chain))
            if not drafts:
                return []
            at, done, objs = pos, [], []
            for draft in drafts:
                if draft.stream != stream:
                    raise ValidationError("memory stream does not match the append")
                env, payload, signature, mid = _signed(ident, seed, draft, at, clock())
                commit, more = objects.memory_commit_objects(
                    payload, signature, at.parent, ident.name, f"{short_id(ident.actor)}@hn.invalid",
                    objects.timestamp_seconds(env.timestamp), f"hn memory {mid}", repo.object_format)
                objs += more
                done.append(VerifiedMemory(mid, commit, env, payload, signature))
                at = Position(at.local_head, commit, at.sequence + 1, mid, None)
            writers = _Writers(repo)
            try:
                fed = objects.start_writing(repo, objs, writers.unpack)
                with _state_append(repo, ref, pos, done) as recorded:
                    if fed:
                        objects.checked(writers.unpack.finish())
                    else:
                        objects.write_objects(repo, objs, writers.unpack)
                    try:
                        _compare_and_swap(repo, ref, at.parent, pos.local_head, writers, record)
                    except _LostRace as lost:
                        last_error = lost_race_error(ref, lost.lock)
                        continue
                    recorded()
            finally:
                writers.close()
            return [Appended(m.memory_id, m.commit, m.envelope) for m in done]
    raise last_error


def _unsigned(ident: Identity, drafts: list[Draft]) -> list[VerifiedMemory]:
    """``drafts`` as unsigned memories at the stream's root (the record fields are what
    ``View.alike`` compares), their envelopes decoded as a reader decodes a payload; none when
    one does not decode (the full read is used, and signing then refuses that draft)."""
    out = []
    for draft in drafts:
        try:
            env = envmod.decode(envmod.encode(build_envelope(ident, draft, Position("", "", 0, "", None),
                                                             "1970-01-01T00:00:00Z")))
        except (ValidationError, ValueError):
            return []
        out.append(VerifiedMemory("", "", env, b"", ""))
    return out


__all__ = ["Draft", "Position", "Appended", "append", "append_all", "position", "full_position",
           "replay_head", "HnError"]
