"""Lifecycle operations: supersede, retract, challenge (CONTRACT §5.3, §10.3, §10.4).

Who may do what is decided against the verified memory set, under the stream lock (and, for
supersede and retract, the target's lock, across the clone's streams), on every append attempt: supersede and retract only by the target's author, challenge only by another
actor. A corrected memory is never rewritten; its history stays, and projection derives the
lifecycle class from the new relationship.

Corrections without retyping (issue 14): ``supersede`` fills every record field the caller leaves
out from the target's record (``inherit``), and ``retract`` of a memory that already carries an
accepted retraction appends nothing and answers ``AlreadyRetracted``.
"""

from __future__ import annotations

import contextlib

from ..core import grammar
from ..core.gostr import short_id, to_lower, trim_space
from ..core.limits import LIMITS
from ..core.tuples import NamedTuple
from ..errors import InputError, ValidationError
from ..store import identity as identmod
from ..store import streams
from ..store.append import Appended, Draft, append, replay_head
from ..store.repo import Repo
from . import index_refresh
from .lineage import line_end
from .memory import check_actor, check_cited, check_cited_evidence, check_signer, lint, write_hints
from .requests import RecordFlags, RecordRequest, check_input_anchor, content_from_flags


def _not_found(target: str) -> InputError:
    return InputError(f"memory {target} was not found in verified local or accepted streams")


def target_of(repo: Repo, target: str) -> tuple[str, str, str] | None:
    """(operation, actor, target) of a verified memory, from the verified state (or a full
    collection when the state cannot answer); None when no verified stream holds it."""
    from ..store import stateview

    def from_view(view):
        info = view.info([target]).get(target)
        return None if info is None else (info.operation, info.actor, info.target)

    def full():
        mem = streams.collect(repo).by_id().get(target)
        return None if mem is None else (mem.envelope.operation, mem.envelope.actor, mem.envelope.target)

    return stateview.serve(repo, from_view, full)


def _check_target(operation: str, target: str, actor: str, found: tuple[str, str, str] | None, lookup,
                  kind: str = "", latest=lambda _target: None) -> None:
    """The target checks of ``operation`` on ``found`` (``target_of``'s answer); ``lookup``
    (an ID -> ``target_of``'s answer) is asked, on the error path only, who signed the memory
    a challenge or a retraction named; ``kind``: the target's record kind, when the caller has
    it (a supersede), for the record that cites it; ``latest`` (``_latest``), on the error path
    only, the end of the target's line of successors, which a refusal's ways out then name. Each
    refusal is worded for the CLI and for MCP."""
    from ..core.hints import both

    if found is None:
        raise _not_found(target)
    op, author, named = found
    if op not in ("record", "supersede"):
        of = lookup(named) if named else None
        yours = of is not None and of[1] == actor
        raise InputError(*both(_not_a_record, operation, target, op, named, yours))
    if operation == "challenge":
        if author == actor:
            raise InputError(*both(_own_memory, target, latest(target)))
    elif author != actor:
        raise InputError(*both(_not_yours, operation, target, kind, latest(target)))


def _latest(repo: Repo, target: str) -> tuple[str, bool, str] | None:
    """(ID, retracted, record kind) of the memory that ends ``target``'s line of successors
    (``lineage.line_end``, what ``supersede`` refuses with, "already superseded (latest: …)"),
    None when it has none: for a refusal's ways out, which name that one (a review: they
    offered to challenge, cite or supersede a memory already superseded, which recall's hint
    no longer does, 64156f3)."""
    end = line_end(repo, target)
    if end is None:
        return None
    _ts, latest, retracted = end
    mem = target_memory(repo, latest)
    return latest, retracted, mem.envelope.record.kind if mem is not None and mem.envelope.record is not None else ""


def _not_a_record(operation: str, target: str, op: str, named: str, yours: bool, mcp: bool = False) -> str:
    from ..core.hints import append, not_a_record

    what = "supersession" if operation == "supersede" else "lifecycle"
    return append(f"{what} target {target} is not a memory record",
                  not_a_record(operation, op, named, yours, mcp) if named else "")


def _own_memory(target: str, end=None, mcp: bool = False) -> str:
    """The ways out name the memory (a trial was given ``git hn memory supersede MEMORY`` with its
    ID known): the CLI by its short ID, which every command takes, MCP by the full one; for a
    superseded one (``end``: ``_latest``'s), the latest of its line, whose supersede is not
    refused."""
    from ..core.hints import lifecycle_way

    head = f"an author cannot challenge their own memory {target}"
    if end is not None:
        latest, retracted, _kind = end
        named = latest if mcp else short_id(latest)
        if retracted:
            record = "memory_record" if mcp else "git hn memory record"
            return (f"{head}; you superseded it already, and retracted the latest of its line, {latest}: nothing of "
                    f"it is active to correct ({record} records anew)")
        return (f"{head}; you superseded it already (latest: {latest}): to correct it, supersede the latest "
                f"({lifecycle_way('supersede', named, mcp)}), or retract it ({lifecycle_way('retract', named, mcp)})")
    named = target if mcp else short_id(target)
    return (f"{head}; to correct it, supersede it ({lifecycle_way('supersede', named, mcp)}), or retract it "
            f"({lifecycle_way('retract', named, mcp)})")


def _not_yours(operation: str, target: str, kind: str = "", end=None, mcp: bool = False) -> str:
    """Another author's memory: challenge it, by its ID (a trial was given ``challenge MEMORY``);
    in place of a supersede, also a record of one's own that cites it, as README says of a
    departed teammate's decision (``kind``: the target's, else the placeholder KIND). One its
    author superseded (``end``: ``_latest``'s): the ways out name the latest of its line (its
    kind for the citation), or none when that one is retracted."""
    from ..core.hints import cite_at, lifecycle_way

    head = f"only the target author may {operation} memory {target}"
    if end is not None:
        latest, retracted, kind = end
        head += f"; its author superseded it (latest: {latest})"
        if retracted:
            record = "memory_record" if mcp else "git hn memory record"
            return (f"{head}, and retracted that one: nothing of it is active to dispute or replace ({record} "
                    "records your own)")
        target, what = latest, "the latest"
    else:
        what = "it"
    named = target if mcp else short_id(target)
    how = "test a commit and cite it" if kind == "verification" else "cite it"  # (a result of your own: cite_at)
    cite = (f"; to record your own in its place, {how}: {cite_at(named, kind or 'KIND', 'HEAD', mcp)}"
            if operation == "supersede" else "")
    lead = "to dispute another author's memory, challenge it" if end is None else f"to dispute it, challenge {what}"
    return f"{head}; {lead}: {lifecycle_way('challenge', named, mcp)}{cite}"


def _target_check(repo: Repo, operation: str, target: str, actor: str):
    def check(_position):
        from .show import renamed_hint

        with renamed_hint(repo, target):
            _check_target(operation, target, actor, target_of(repo, target), lambda t: target_of(repo, t),
                          latest=lambda t: _latest(repo, t))

    return check


def normalize_reason(operation: str, reason: str) -> str:
    """§10.3: TrimSpace and lowercase, then it must be a token; nothing else is rewritten. The
    contract's error names no rule; git-hn's goes on with it and a token made of the words given
    (a person writes a sentence first)."""
    value = to_lower(trim_space(reason))
    if not grammar.is_token(value, LIMITS.max_reason):
        raise ValidationError(f"memory {operation} operation has invalid fields; a reason is one token "
                              f"of a-z and 0-9 joined by -, at most {LIMITS.max_reason} bytes, such as "
                              f"{_token_like(reason, value)}")
    return value


def _token_like(raw: str, text: str) -> str:
    """A token made of ``text``'s ASCII letters and digits (``incorrect`` when there are none,
    or when ``raw`` holds secret-shaped text, which an error never repeats)."""
    import re

    from ..core.secretlint import first_in_text

    if first_in_text(raw, None) is not None:
        return "incorrect"
    words = re.findall(r"[a-z0-9]+", text)
    token = "-".join(words)[:LIMITS.max_reason].strip("-")
    return token if grammar.is_token(token, LIMITS.max_reason) else "incorrect"


def _stream(repo: Repo, ident, stream: str | None) -> str:
    """The stream a lifecycle memory appends to: the one named (a full ID or ``label:NAME``),
    else ``GIT_HN_STREAM``, ``hn.stream``, the default stream (``store.streamchoice``)."""
    from ..store import streamchoice

    if stream is not None and not grammar.is_stream_choice(stream):
        from .requests import STREAM_INVALID

        raise ValidationError(STREAM_INVALID)
    return streamchoice.stream_for(repo, ident.actor, stream)


def _append(repo: Repo, ident, draft: Draft, operation: str, target: str, check=None) -> Appended:
    """Append under the target checks, or return the head this request repeats (§7.14). A
    supersession or retraction holds ``target``'s lock (``_target_locked``) around it. A
    supersession's hints' questions start once the ref moved (``memory.write_hints``; a retraction
    or challenge gets neither hint)."""
    check_signer(ident)
    with _target_locked(repo, target) if operation != "challenge" else contextlib.nullcontext():
        result = append(repo, ident, draft, check=check or _target_check(repo, operation, target, ident.actor),
                        replay=replay_head(ident, draft),
                        then_ask=write_hints(repo) if operation == "supersede" else ())
    if not result.replayed:
        index_refresh.after_ref_change(repo)
    return result


@contextlib.contextmanager
def _target_locked(repo: Repo, target: str):
    """``target``'s lock (``store.lock.target_lock_path``), held from the checks that read what
    targets it (already superseded, already retracted) to the stream ref's update. The stream
    lock that ``append`` takes is the stream's only: two agents of one clone superseding one
    memory from two streams (as they are told to: a stream each) both found no successor, and
    both signed one (a trial: 9 rounds in 10), so the memory branched for good, unsaid. Now the
    second waits and is refused. What Git answered before the lock is dropped: the check must
    see the first one's memory. Two clones can still both supersede (docs/decisions.md)."""
    from ..store.lock import stream_lock, target_lock_path

    with stream_lock(repo.hn_dir, target_lock_path(repo.hn_dir, target), target,
                     busy=f"memory {target} is being superseded or retracted by another git-hn process "
                          "of this repository; retry"):
        repo.git.forget_early()
        yield


def target_memory(repo: Repo, target: str):
    """The verified memory ``target`` (full ID), or None."""
    from ..store import stateview

    return stateview.serve(repo, lambda view: view.load([target]).get(target),
                           lambda: streams.collect(repo).by_id().get(target))


def supersede_target(repo: Repo, target: str):
    """The verified memory ``supersede TARGET`` replaces, once the target checks pass with
    their words (not found, signed again under another ID, not a record, not yours)."""
    from .show import renamed_hint

    ident = identmod.load_active(repo)
    mem = target_memory(repo, target)
    with renamed_hint(repo, target):
        _check_target("supersede", target, ident.actor,
                      None if mem is None else (mem.envelope.operation, mem.envelope.actor, mem.envelope.target),
                      lambda t: target_of(repo, t),
                      mem.envelope.record.kind if mem is not None and mem.envelope.record is not None else "",
                      lambda t: _latest(repo, t))
    return mem


_HANDOFF_FLAGS = ("completed", "assumption", "blocker", "next_action")


def inherit(repo: Repo, target: str, flags: RecordFlags, *, edit=None, refuse_retracted: bool = False,
            refuse_branch: bool = False, notes: list | None = None, same_content: bool = False) -> RecordFlags:
    """The record flags of ``supersede TARGET``: every field the caller did not give is the
    target's (kind, anchor commit, applicability, subject, topics, paths, evidence, and the
    attempt outcome and handoff lists while the kind stays the same). Inherited paths are resolved
    again at the new anchor commit. New content is required: from the flags, or from the editor
    (``edit``, an ``editor.EditFile``), which starts from the target's content. The target checks
    run first, so no one edits text that cannot be signed. Inherited ``memory:`` evidence that no
    verified stream here holds, and ``git:`` evidence of the other object format's length
    (signed by another implementation, or an older git-hn, which checked nothing), is left
    out (``memory.not_importable``), said in ``notes`` as ``(path, text)`` warnings: carried over, ``record`` refuses it, and
    the flags could not take it out.

    ``same_content`` (``--same-content``, git-hn; docs/decisions.md): the target's content too, so
    that the whole record is the target's but what the flags give (a team trial retyped a
    published memory to carry it over to its rebased commit: ``--at NEW --same-content``). It
    takes no other content source and needs some other field: alone it would sign the target's
    record again."""
    given = content_from_flags(flags)
    if same_content:
        _check_same_content(flags, given, edit)
    elif edit is not None and given is not None:
        raise InputError("--edit cannot be combined with --content, --content-file or positional content")
    elif edit is None and given is None:
        raise InputError("supersede needs new content: --content TEXT, --content-file PATH or --edit (or, to carry "
                         "the memory to another commit as it is, --at REV --same-content)")
    rec = supersede_target(repo, target).envelope.record
    if same_content:
        given = rec.content
    if refuse_retracted:  # (before the editor opens: no one writes text that will not be signed)
        check_not_retracted(repo, target)
    if refuse_branch and edit is not None:  # (a review: the editor opened, then the refusal came)
        check_not_branching(repo, target)  # (checked again under the lock, after the replay check)
    out = RecordFlags(**flags.items())
    if given is not None:  # read once: a --content-file of - is stdin
        out.content, out.positional, out.content_file = [given], [], []
    # (None: not given; "" is given, and refused by the record's checks, not replaced by the
    # target's: a script's unset --at "$REV" signed the target's anchor; a differential trial)
    out.kind = rec.kind if out.kind is None else out.kind
    out.at = rec.anchor.commit if out.at is None else out.at
    out.applies = rec.applicability.mode if out.applies is None else out.applies
    if out.subject is None:
        out.subject = rec.anchor.subject or rec.applicability.subject or None
    out.topic = out.topic or list(rec.topics)
    out.path = out.path or [p.path for p in rec.anchor.paths]
    if not out.evidence:
        from .memory import not_carried, not_importable

        left = not_importable(repo, rec.evidence or ())
        out.evidence = [e for e in rec.evidence or () if e not in left]
        if left and notes is not None:
            notes.append(("", not_carried(left, repo.oid_hex_len)))
    if out.kind == rec.kind:
        if out.outcome is None:
            out.outcome = rec.attempt_outcome or None
        if rec.handoff is not None:
            for name, items in zip(_HANDOFF_FLAGS, rec.handoff.lists()):
                setattr(out, name, getattr(out, name) or list(items or ()))
    if edit is not None:
        edited = edit.edit(rec.content)
        given = [v for k, v in flags.items().items() if k not in ("stream", "actor") and v is not None and v != []]
        if edited == rec.content.rstrip("\r\n") and not given:  # (--subject "" is given: it clears)
            # as git commit aborts on an unchanged template: a signed memory is for good
            edit.discard()  # nothing of the user's to keep
            raise InputError("content unchanged in the editor and no other field given; nothing appended")
        out.content, out.positional, out.content_file = [edited], [], []
    return out


def _check_same_content(flags: RecordFlags, given, edit) -> None:
    if given is not None or edit is not None:
        raise InputError("--same-content cannot be combined with --content, --content-file, positional content "
                         "or --edit: it keeps the target's content; nothing appended")
    # (a field given empty counts: --subject "" clears the subject; ``check_changed`` then
    # compares the record built with the target's, for fields given their own values)
    if not any(v is not None and v != [] for k, v in flags.items().items() if k not in ("stream", "actor")):
        raise InputError(SAME_RECORD)


SAME_RECORD = ("--same-content with no other field would sign the target's record again unchanged: give "
               "what changes, such as --at REV; nothing appended")


def check_changed(repo: Repo, target: str, record, edit=None) -> None:
    """``--same-content`` (or ``--edit``, given ``edit``): refuse a record equal to the target's
    own, the fields given having the target's values (a review: ``--at`` naming the target's own
    anchor commit signed a duplicate)."""
    if record != supersede_target(repo, target).envelope.record:
        return
    if edit is not None:
        edit.discard()  # (the content is the target's: nothing of the user's to keep)
        raise InputError("content unchanged in the editor and the fields given equal the target's; nothing appended")
    raise InputError(SAME_RECORD.replace("with no other field", "with fields equal to the target's"))


def supersede(repo: Repo, target: str, req: RecordRequest, *, from_input: bool = False,
              allow_secret_shaped: bool = False, refuse_retracted: bool = False,
              allowed_by: str = "--allow-retracted", new_with: str = "git hn memory record",
              refuse_branch: bool = False, branch_by: str = "--allow-branch") -> Appended:
    """Supersede ``target``. ``refuse_retracted`` (the CLI unless ``--allow-retracted``, MCP
    unless ``allowRetracted``: ``allowed_by`` names it, ``new_with`` what records anew): a target its author retracted is
    refused under the stream lock (``check_not_retracted``); ``refuse_branch`` (the CLI unless
    ``--allow-branch``, MCP unless ``allowBranch``: ``branch_by``): so is a target that has an
    active successor (``check_not_branching``); a request that repeats the stream head is still
    answered as a replay (§7.14), before either."""
    lint(req.record, allow_secret_shaped=allow_secret_shaped, raw_topics=req.raw_topics)
    ident = identmod.load_active(repo)
    check_actor(req.actor, ident)
    if from_input:
        check_input_anchor(repo, req.record)
    check_cited(repo, [req.record])
    draft = Draft("supersede", _stream(repo, ident, req.stream), req.record, target=target)
    targets, replay = _target_check(repo, "supersede", target, ident.actor), replay_head(ident, draft)

    def check(pos):
        targets(pos)
        if (refuse_retracted or refuse_branch) and replay(pos) is None:
            if refuse_retracted:
                check_not_retracted(repo, target, allowed_by, new_with)
            if refuse_branch:
                check_not_branching(repo, target, branch_by, allowed_by, new_with)

    return _append(repo, ident, draft, "supersede", target, check=check)


def check_not_retracted(repo: Repo, target: str, allowed_by: str = "--allow-retracted",
                        new_with: str = "git hn memory record") -> None:
    """Refuse to supersede a memory its author retracted (a newcomer trial: it signed, without a
    word, an active successor of a withdrawn memory, for good). Stopped before signing rather
    than warned after, as a branching supersession is: what was withdrawn coming back is rarely
    meant, and a signature cannot be taken back; ``--allow-retracted`` says it is meant."""
    mem = retraction_of(repo, target)
    if mem is not None:
        raise InputError(f"memory {target} is retracted (by {mem.memory_id}): a successor would be active, "
                         f"bringing back what its author withdrew; add {allowed_by} if that is meant, or "
                         f"record a new memory with {new_with}; nothing appended")


def check_not_branching(repo: Repo, target: str, branch_by: str = "--allow-branch",
                        allowed_by: str = "--allow-retracted", new_with: str = "git hn memory record") -> None:
    """Refuse to supersede a memory that has a successor (a newcomer trial: running
    ``supersede`` again to fix a typo in the correction signed a second successor, and the
    memory's lifecycle was ``branching`` for good; the hint came after the signature). The
    correction to correct is the newest memory at the end of the target's line that has no
    successor (``line_end``); when the line ends in a retracted memory, none can be superseded
    without branching or reviving, and the refusal says so (a review: naming a memory that was
    refused in turn sent the author round in a loop). ``branch_by`` says a branch is meant."""
    end = line_end(repo, target)
    if end is None:
        return
    _ts, latest, retracted = end
    if retracted:
        raise InputError(f"memory {short_id(target)} is already superseded; its latest successor {latest} was "
                         f"retracted: record anew ({new_with}), supersede {latest} with {allowed_by}, or add "
                         f"{branch_by} to branch on purpose; nothing appended")
    fix = (f"git hn memory supersede {latest}, with the new content" if branch_by.startswith("--")
           else f"memory_supersede with memory {latest}")
    raise InputError(f"memory {short_id(target)} is already superseded (latest: {latest}); a second successor "
                     f"would split it for good (lifecycle branching): to correct the correction, supersede the "
                     f"latest instead ({fix}), or add {branch_by} to branch on purpose; nothing appended")


def successors(repo: Repo, target: str) -> list[str]:
    """The IDs of the accepted supersessions of ``target`` (§5.3: by its author), sorted: a
    further one makes its lifecycle ``branching``, which ``supersede`` warns of."""
    from ..store import stateview

    def from_view(view):
        author = view.info([target]).get(target)
        infos = view.info(view.targeting({target}))
        return sorted(i for i, inf in infos.items()
                      if author is not None and inf.operation == "supersede" and inf.actor == author.actor)

    def full():
        by_id = streams.collect(repo).by_id()
        mem = by_id.get(target)
        return sorted(m.memory_id for m in by_id.values() if mem is not None
                      and m.envelope.operation == "supersede" and m.envelope.target == target
                      and m.envelope.actor == mem.envelope.actor)

    return stateview.serve(repo, from_view, full)


def branching_hint(target: str, earlier: list[str], result: Appended, mcp: bool = False) -> str:
    """After ``supersede``: when ``target`` had supersessions already (``earlier``, asked before
    the append), the line that says it now branches; "" otherwise (also for a replay). ``mcp``:
    in the MCP tools' words (``memory_show`` of the target lists its successors)."""
    from ..core.gostr import short_id

    earlier = [s for s in earlier if s != result.memory_id]
    if not earlier or result.replayed:
        return ""
    more = f" and {len(earlier) - 1} more" if len(earlier) > 1 else ""
    return (f"memory {short_id(target)} was already superseded by {short_id(earlier[0])}{more}; it now has "
            f"{len(earlier) + 1} successors (lifecycle branching): to continue a line instead, supersede its "
            + (f"latest memory (memory_show with memory {short_id(target)} lists the successors in relationships)"
               if mcp else "latest memory (git hn memory log --graph shows the lines)"))


class AlreadyRetracted(NamedTuple):
    """``retract`` of a memory that is already retracted: nothing was appended."""
    target: str
    retraction: Appended  # the accepted retraction with the lowest ID


class _Retracted(Exception):
    def __init__(self, mem):
        super().__init__(mem.memory_id)
        self.mem = mem


def retraction_of(repo: Repo, target: str):
    """The accepted retraction (§5.3: a retract by the target's author) of ``target`` with the
    lowest ID, as a verified memory; None when ``target`` is not retracted."""
    from ..store import stateview

    def from_view(view):
        author = view.info([target]).get(target)
        infos = view.info(view.targeting({target}))
        rids = sorted(i for i, inf in infos.items()
                      if author is not None and inf.operation == "retract" and inf.actor == author.actor)
        return view.load(rids[:1]).get(rids[0]) if rids else None

    def full():
        by_id = streams.collect(repo).by_id()
        mem = by_id.get(target)
        found = sorted((m for m in by_id.values() if mem is not None and m.envelope.operation == "retract"
                        and m.envelope.target == target and m.envelope.actor == mem.envelope.actor),
                       key=lambda m: m.memory_id)
        return found[0] if found else None

    return stateview.serve(repo, from_view, full)


def retract(repo: Repo, target: str, reason: str, stream: str | None, *,
            allow_secret_shaped: bool = False) -> Appended | AlreadyRetracted:
    """Retract ``target``. A request that repeats the stream head is a replay (§7.14); any other
    retraction of a memory that is already retracted appends nothing (``AlreadyRetracted``)."""
    raw_reason, reason = reason, normalize_reason("retract", reason)
    lint(None, reason, allow_secret_shaped=allow_secret_shaped, raw_reason=raw_reason)
    ident = identmod.load_active(repo)
    draft = Draft("retract", _stream(repo, ident, stream), None, target=target, reason=reason)
    targets, replay = _target_check(repo, "retract", target, ident.actor), replay_head(ident, draft)
    targets(None)  # (refused before the target's lock file is made, as a supersede is; again under the lock)

    def check(pos):
        targets(pos)
        if replay(pos) is None:
            mem = retraction_of(repo, target)
            if mem is not None:
                raise _Retracted(mem)

    try:
        return _append(repo, ident, draft, "retract", target, check=check)
    except _Retracted as done:
        return AlreadyRetracted(target, Appended(done.mem.memory_id, done.mem.commit, done.mem.envelope))


def result_json(result: Appended | AlreadyRetracted) -> dict:
    from .memory import result_json as appended_json

    if isinstance(result, AlreadyRetracted):
        return {**appended_json(result.retraction), "alreadyRetracted": True, "target": result.target}
    return appended_json(result)


def result_lines(result: Appended | AlreadyRetracted) -> list[str]:
    """CONTRACT §7.14's lines. A retraction that was already there: its lines, as ``--json`` gives
    its object, then what was not done, as a replay ends with its ``Replayed:`` line (f171: only
    the sentence was printed, so a script that reads ``Memory:`` from every retract found none)."""
    from .memory import result_lines as appended_lines

    if isinstance(result, AlreadyRetracted):
        return [*appended_lines(result.retraction),
                f"Memory {result.target} is already retracted by {result.retraction.memory_id}; nothing appended"]
    return appended_lines(result)


def challenge(repo: Repo, target: str, reason: str, evidence: list[str], stream: str | None, *,
              allow_secret_shaped: bool = False) -> Appended:
    raw_reason, reason = reason, normalize_reason("challenge", reason)
    items = tuple(evidence)
    if (len(items) > LIMITS.max_evidence or len(set(items)) != len(items)
            or not all(grammar.is_typed_evidence(e) for e in items)):
        from ..core import hints  # error paths only
        from .requests import commit_of, memory_of

        raise ValidationError(hints.append("memory challenge evidence is invalid", hints.evidence(
            items, LIMITS.max_evidence, grammar.is_typed_evidence, commit_of(repo), memory=memory_of(repo))))
    lint(None, reason, allow_secret_shaped=allow_secret_shaped, raw_reason=raw_reason)
    ident = identmod.load_active(repo)
    check_cited_evidence(repo, items, "challenge")
    draft = Draft("challenge", _stream(repo, ident, stream), None, target=target, reason=reason,
                  evidence=items or None)
    return _append(repo, ident, draft, "challenge", target)
