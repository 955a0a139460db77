"""Memory commands as services: record, handoff and their output documents (CONTRACT §7.14,
§10.3, §10.4).

Each function takes an open repository and a parsed request, performs one operation in the
contract's check order, and returns plain values for the CLI to render. Nothing here parses argv or
prints.
"""

from __future__ import annotations

from ..core.envelope import anchor_json
from ..core.grammar import default_stream
from ..errors import HnError, InputError
from ..store import identity as identmod
from ..store import streamchoice
from ..store.append import Appended, Draft, append, replay_head
from ..store.repo import Repo
from . import index_refresh
from .requests import RecordRequest, check_flag_outcome, check_input_anchor


def _library(text: str):
    from .secretscan import scan  # detect-secrets: loaded only for text that passes the gate

    return scan(text)


NAME_REFUSED = ("the active identity's name is secret-shaped ({detector}), and the name is signed into every "
                "memory and published with it, so nothing was signed; git-hn cannot rename an identity: make a new "
                "one (git hn init --name NAME in an empty repository, git hn identity export --output FILE there, "
                "then here git hn identity import FILE --activate, and delete FILE); memories the old identity "
                "signed keep its name and stay valid")


def check_signer(ident) -> None:
    """Refuse to sign with an identity whose name fails the secret lint ``init`` and ``identity
    import`` apply (one stored before they did: a review found it signed into every new memory).
    Only the detector is named, never the name; ``--allow-secret-shaped`` does not cover it (it
    is for the request's own text). The library is reached only for a name that passes its gate."""
    from ..core.secretlint import first_in_text

    detector = first_in_text(ident.name, _library)
    if detector is not None:
        from ..errors import SecretShapedError

        raise SecretShapedError(NAME_REFUSED.format(detector=detector))


def lint(record, reason: str = "", *, allow_secret_shaped: bool = False,
         raw_topics=(), raw_reason: str | None = None) -> None:
    """CONTRACT §10.4 step 1 (end): the secret lint of §10.6, unless deliberately skipped.

    ``raw_topics`` and ``raw_reason`` are the author's text before normalization (trimming,
    lowercasing): a credential is refused in the spelling it was given, not only in the spelling
    that would be signed.
    """
    if allow_secret_shaped:
        return
    from ..core import secretlint
    from ..errors import SecretShapedError

    finding = secretlint.lint(record, reason, _library, raw_topics=raw_topics,
                              raw_reason=raw_reason)
    if finding is not None:
        raise SecretShapedError(secretlint.refusal(finding), finding)


def record(repo: Repo, req: RecordRequest, *, from_input: bool = False,
           allow_secret_shaped: bool = False) -> Appended:
    """Append a ``record`` memory (CONTRACT §10.4), or return the head it would repeat (§7.14)."""
    lint(req.record, allow_secret_shaped=allow_secret_shaped, raw_topics=req.raw_topics)
    if not from_input:
        check_flag_outcome(req.record)
    _list_sources_early(repo, req.stream)
    ident = identmod.load_active(repo)
    check_actor(req.actor, ident)
    check_signer(ident)
    if from_input:
        check_input_anchor(repo, req.record)
    check_cited(repo, [req.record])
    stream = streamchoice.stream_for(repo, ident.actor, req.stream)
    draft = Draft("record", stream, req.record)
    result = append(repo, ident, draft, replay=replay_head(ident, draft), then_ask=write_hints(repo))
    if not result.replayed:
        index_refresh.after_ref_change(repo)
    return result


def write_hints(repo: Repo) -> tuple:
    """What the hints after a record, handoff or supersede ask Git (``hidden_hint``,
    ``unpushed.waits_hint``: every caller of ``record`` and ``lifecycle.supersede`` gives both),
    for ``append`` to start together once the ref moved: four processes ran one after another
    after the write (issue 11, fixed cost). The remotes only when not asked already; their
    tracking refs and settings only when the repository's configuration may name one
    (``Repo.may_have_remotes``: without a remote, ``waits_hint`` asks neither)."""
    from ..store.git import PRE_PUSH_QUESTIONS
    from .unpushed import PUBLISH, TRACKING

    known = getattr(repo, "_remote_names", None) is not None
    remotes = repo.remote_names() if known else repo.may_have_remotes()
    return (() if known else (PRE_PUSH_QUESTIONS[0],)) + ((TRACKING, PUBLISH) if remotes else ())


def check_actor(actor: str | None, ident, where: str = "") -> None:
    """A request's ``actor`` (``--actor``, ``--input``, an MCP write, an import line ``where``
    names), when given, is the active identity's: the contract's text, then which actor that is
    (an agent trial: told only that it did not match, it could not tell which one would)."""
    if actor is not None and actor != ident.actor:
        raise InputError(f"{where}record input actor does not match the active identity; the active identity's "
                         f"actor is {ident.actor}")


def check_cited(repo: Repo, records, line=lambda _i: "") -> None:
    """Refuse, before anything is signed, ``memory:`` evidence naming no memory this clone has
    verified (local or accepted streams): §9.9 makes it a blocking ``evidence-memory`` dependency,
    so every clone importing the stream would stop at that memory, and at every later one of the
    append-only stream, for good (an agent trial: a mistyped ID, signed without a word, held a
    stream's handoffs from every other clone). One state query for all of ``records``; ``line(i)``
    prefixes the error for the ``i``-th (``memory import``'s line number). First, with no Git
    process, a ``git:`` item of the other object format's length (``_refuse_foreign``), then, with
    one batch question to the object reader, one naming no object here (``_refuse_absent``)."""
    cited = [(i, e) for i, rec in enumerate(records) for e in (rec.evidence or ())]
    _refuse_foreign(repo, cited, line, "record")
    _refuse_absent(repo, cited, line, "record")
    _refuse_unheld(repo, cited, line, "record")


def check_cited_evidence(repo: Repo, evidence, operation: str) -> None:
    """``check_cited`` for the evidence of a ``challenge`` (which carries no record): a team
    trial signed a challenge citing an unknown ``memory:`` ID that ``record`` refused, and the same
    §9.9 dependency blocked every importer of the challenger's stream."""
    cited = [(0, e) for e in evidence]
    _refuse_foreign(repo, cited, lambda _i: "", operation)
    _refuse_absent(repo, cited, lambda _i: "", operation)
    _refuse_unheld(repo, cited, lambda _i: "", operation)


def _refuse_foreign(repo: Repo, cited, line, operation: str) -> None:
    """A ``git:`` item of the other object format's length (a SHA-256 ID in a SHA-1 repository)
    names no object this repository can ever hold: §5.5 makes it ``invalid``, and §9.9 refuses the
    whole stream in every importing clone, and every later memory of the append-only stream with
    it (a trial of unusual repositories: signed, published, and the author's next memories reached
    no one). git-hn refuses to sign what no importer can accept (docs/decisions.md)."""
    from ..core.grammar import foreign_git_evidence

    for i, typed in cited:
        if foreign_git_evidence([typed], repo.oid_hex_len):
            from ..core.hints import foreign_evidence
            from ..errors import ValidationError

            refused = "nothing was recorded" if operation == "record" else f"the {operation} was not signed"
            raise ValidationError(f"{line(i)}memory {operation} evidence is invalid; "
                                  + foreign_evidence(typed, repo.oid_hex_len, refused))


def absent_git(repo: Repo, evidence) -> list[str]:
    """The ``git:`` items of ``evidence`` (of this repository's object format's length) that name
    no object here, in order: one batch question to the object reader for them all (the one the
    projection's evidence probe asks, ``resolver.prefetch_types``); none without such items."""
    from ..core.grammar import is_oid

    oids = sorted({e[4:] for e in evidence or () if e.startswith("git:") and is_oid(e[4:])
                   and len(e) - 4 == repo.oid_hex_len})
    if not oids:
        return []
    here = {oid for oid, info in zip(oids, repo.git.infos_bulk(oids)) if info is not None}
    return [e for e in evidence if e.startswith("git:") and e[4:] in oids and e[4:] not in here]


def _refuse_absent(repo: Repo, cited, line, operation: str) -> None:
    """A ``git:`` item naming no object in this repository: §5.6 makes it ``missing``, and §9.9 a
    blocking ``evidence-git`` dependency in every importing clone that lacks the object too (a
    docs audit: a mistyped ID was signed without a word, published, and held the author's whole
    stream from every teammate). The contract lets an implementation sign it; git-hn, as for
    ``memory:`` evidence, refuses to sign what it cannot show any importer will accept
    (docs/decisions.md). An object ID is named: it is what the user typed and must check."""
    absent = set(absent_git(repo, [e for _i, e in cited]))
    for i, typed in cited:
        if typed in absent:
            refused = "nothing was recorded" if operation == "record" else f"the {operation} was not signed"
            raise InputError(f"{line(i)}memory {operation} evidence {typed} names no object in this repository "
                             f"(a typo, or not fetched yet); {refused} (every clone importing this stream would "
                             "stop at it): check the ID, or git fetch the remote that has it first")


def _refuse_unheld(repo: Repo, cited, line, operation: str) -> None:
    unheld = set(unheld_memories(repo, [e for _i, e in cited]))
    for i, typed in cited:
        if typed not in unheld:
            continue
        mid = typed[len("memory:"):]
        from ..store.reanchor import CAUSES, what_became

        new, cause = what_became(repo, mid)
        way = (f"cite memory:{new}, the ID it was signed again as {CAUSES[cause]}" if new else
               "it was dropped by git hn memory reanchor --drop: leave it out" if cause == "drop" else
               "git hn sync the remote that holds it first, or leave it out")
        # (a review: a refused challenge said "nothing was recorded")
        refused = "nothing was recorded" if operation == "record" else f"the {operation} was not signed"
        raise InputError(f"{line(i)}memory {operation} evidence {typed} names a memory not found in verified local or "
                         f"accepted streams; {refused} (every clone importing this stream would stop "
                         f"at it for good): {way}")


def not_importable(repo: Repo, evidence) -> list[str]:
    """The items of an inherited ``evidence`` that no importer could accept: ``memory:`` items no
    verified stream here holds (``unheld_memories``), ``git:`` items of the other object
    format's length, which an older git-hn, or another implementation, signed, and ``git:`` items
    naming no object here (``absent_git``)."""
    from ..core.grammar import foreign_git_evidence

    foreign = [e for e in evidence or () if foreign_git_evidence([e], repo.oid_hex_len)]
    unheld = set(unheld_memories(repo, evidence or ())) | set(absent_git(repo, evidence or ()))
    return [e for e in evidence or () if e in unheld or e in foreign]


def unheld_memories(repo: Repo, evidence) -> list[str]:
    """The ``memory:`` items of ``evidence`` that no verified local or accepted stream holds, in
    order: one state query (none when there is no such item)."""
    cited = [e for e in evidence if e.startswith("memory:")]
    if not cited:
        return []
    from ..store import stateview, streams

    ids = sorted({e[len("memory:"):] for e in cited})
    known = stateview.serve(repo, lambda view: set(view.info(ids)),
                            lambda: set(streams.collect(repo).by_id()) & set(ids))
    return [e for e in cited if e[len("memory:"):] not in known]


def not_carried(left: list[str], oid_len: int = 0) -> str:
    """What a supersession says of the target's evidence it did not inherit (``not_importable``);
    ``oid_len``: the repository's object ID length (a ``git:`` item of it names no object here)."""
    absent = [e for e in left if e.startswith("git:") and len(e) - 4 == oid_len]
    if absent:
        foreign = [e for e in left if e.startswith("git:") and e not in absent]
        why = [*(["no verified memory here has the memory: IDs"] if any(e.startswith("memory:") for e in left) else []),
               *(["a git: ID of the other object format's length names no object this repository can hold"]
                 if foreign else []),
               f"{', '.join(absent)} {'names' if len(absent) == 1 else 'name'} no object in this repository"]
        return (f"evidence {', '.join(left)} of the superseded memory was not carried over: {'; '.join(why)}; a "
                "clone importing the new memory would stop at it")
    memories = [e for e in left if e.startswith("memory:")]
    if len(memories) == len(left):
        return (f"evidence {', '.join(left)} of the superseded memory was not carried over: no verified memory here "
                "has that ID, and a clone importing the new memory would stop at it for good")
    why = "no verified memory here has the memory: IDs, and " if memories else ""
    return (f"evidence {', '.join(left)} of the superseded memory was not carried over: {why}a git: ID of the other "
            "object format's length names no object this repository can hold; a clone importing the new memory "
            "would refuse it for good")


def _list_sources_early(repo: Repo, stream: str | None) -> None:
    """Let Git list the stream's refs while the signing key loads (the library's import is the
    longest step of a record), for ``append``'s check of the stream's owners before its lock:
    a stream other than the signer's default one. The position is listed again under the lock
    (an answer from before it may be overtaken), so the default stream, which that check never
    refuses, asks nothing early; nor does a stream whose lock file exists, for which ``append``
    skips that check (a refusal leaves nothing new): asked anyway, the listing was started and
    then dropped, one Git process of every such record for nothing."""
    import os

    from ..core.grammar import default_stream, is_digest_id
    from ..store import streams

    actor = identmod.active_actor(repo)
    try:
        stream = streamchoice.stream_for(repo, actor, stream) if actor else None
        if stream is not None and is_digest_id(stream) and stream != default_stream(actor) \
                and not os.path.exists(repo.lock_path(actor, stream)):
            streams.ask_sources_early(repo, actor, stream)
    except HnError:
        pass  # the append lists them itself (and says what is wrong with the choice)


def _working_tree_policy(repo: Repo, actor: str, kind: str) -> str:
    """What the working tree's ``.hn/policy.json`` changes for ``actor``'s ``kind`` once it is
    committed, when it is not the policy at HEAD (a ``policy init`` or ``trust`` not committed
    yet: the hint said "a maintainer runs git hn policy init" to someone who had; recall's hint
    already said the file takes effect once committed); "" when there is no such file."""
    from ..core.policy import MemoryPolicy
    from ..core.projection import trust
    from .policy_working import uncommitted_memory, working_policy

    state = working_policy(repo)
    if state == "invalid":
        return ".hn/policy.json in the working tree is invalid: fix it, then commit it"
    if state == "no-memory":
        return (".hn/policy.json in the working tree has no memory section yet: git hn policy trust "
                f"{actor} adds one, then commit it")
    memory = uncommitted_memory(repo) if state == "memory" else None
    if memory is None:
        return ""
    pending = MemoryPolicy(tuple(memory.get("trustedActors") or ()), tuple(memory.get("trustedKinds") or ()))
    if trust(actor, kind, pending) == "qualified":
        return ".hn/policy.json in the working tree trusts it and takes effect once it is committed"
    missing = f"git hn policy trust {actor}" if actor not in pending.trusted_actors else \
        f"git hn policy trust --kind {kind}"
    return f".hn/policy.json in the working tree does not trust it yet: {missing}, then commit it"


def result_json(result: Appended) -> dict:
    env = result.envelope
    out = {"version": 0, "memoryId": result.memory_id, "stream": env.stream, "actor": env.actor}
    if env.record is not None:
        out["anchor"] = anchor_json(env.record.anchor)
    if result.replayed:
        out["replayed"] = True
    return out


def result_lines(result: Appended) -> list[str]:
    env = result.envelope
    lines = [f"Memory: {result.memory_id}", f"Stream: {env.stream}", f"Actor: {env.actor}"]
    if env.record is not None:
        lines.append(f"Anchor: {env.record.anchor.commit}")
    if result.replayed:
        lines.append("Replayed: existing memory returned; nothing appended")
    return lines


def new_stream_hint(result, given: str = "--stream", repo: Repo | None = None,
                    stream: str | None = None) -> str | None:
    """After a memory was signed: one line when it started a stream other than the signer's
    default one (§3.3), so that a mistyped ``--stream`` (or label) is not silent: the memory went
    to a stream of its own, which recall shows beside the others but which no one may have meant
    to start. With ``repo``, the request's ``stream`` (None: it named none) says which label chose
    it and where the choice came from (``streamchoice``)."""
    env = getattr(result, "envelope", None)
    if env is None or getattr(result, "replayed", True) or env.sequence != 1 or env.stream == default_stream(env.actor):
        return None
    try:
        choice = streamchoice.choose(repo, stream, given) if repo is not None else None
    except HnError:
        choice = None
    name, notes, without = env.stream, [], given
    if choice is not None and choice.value and choice.stream(env.actor) == env.stream:
        if choice.label():
            name, notes = choice.label(), [env.stream]
        if choice.origin in (streamchoice.ENV, streamchoice.CONFIG):
            notes.append(f"chosen by {'git config ' if choice.origin == streamchoice.CONFIG else ''}{choice.origin}")
            without = f"{given}, {streamchoice.ENV} or git config {streamchoice.CONFIG}"
    notes.append("this is its first memory")
    return (f"started a new stream {name} ({'; '.join(notes)}); your default stream, where memories go without "
            f"{without}, is {default_stream(env.actor)}")


def hidden_hint(repo: Repo, result: Appended, see: str = "--include-untrusted", mcp: bool = False,
                again: list | None = None) -> str | None:
    """After a record, handoff or supersede was signed: one line when the trust policy at HEAD
    (the commit the next recall and brief read by default; the anchor while HEAD is unborn) does
    not qualify it, so its author learns now, not from an empty brief, that it is hidden and what
    a maintainer runs to trust it (for an actor the policy no longer trusts, since which commit,
    and nothing to run: ``service.revoked``). ``see``: how the reader shows it anyway (an option, or an MCP
    argument). A retraction or challenge takes effect whatever its author's trust (§5.3), so it
    gets none. One policy read (the blob at HEAD), no verification. When the policy at HEAD
    qualifies it and the reference branch's does not (``service.policy_drift``: an agent trial
    signed on after a fetch brought its key's revocation, with no word, while its reads said so),
    the drift line. ``mcp``: in the MCP tools' words. ``again`` gets the line's shorter form
    (what is still so, and the way out), for a write that said this line in full lately
    (``cli.advice``); the drift line has none."""
    from ..core.projection import trust
    from ..store.resolver import Resolver, load_policy

    env = result.envelope
    if env.record is None:
        return None
    commit = repo.head_commit() or env.record.anchor.commit
    try:
        memory = load_policy(repo, Resolver(repo), commit).memory
    except HnError:
        return None  # (an invalid committed policy: every read at HEAD says so, with its fix)
    cls = trust(env.actor, env.record.kind, memory)
    if cls == "qualified":
        # (without a remote there is no reference branch to drift from, but for a local upstream,
        # rare: its ``for-each-ref`` is not run, and a record's fixed cost stays, issue 11; ``git
        # remote`` is asked once for the write's other hints anyway. An S82 review counted 11 Git
        # processes to a trusted record, 10 before the drift line)
        if not repo.remote_names():
            return None
        from .policy_drift import hint

        return hint(repo, commit, {(env.actor, env.record.kind)}) or None
    actor = env.actor  # (in full: a prefix names only an actor whose memory the maintainer has fetched)
    # (a replay signs nothing: "Replayed: … nothing appended" was followed by "memory signed, but …", a trial)
    signed = "memory already signed (replayed)" if getattr(result, "replayed", False) else "memory signed"
    start = f"{signed}, but recall and the brief leave it out ({see} shows it) until the trust policy trusts it:"
    waiting = _working_tree_policy(repo, env.actor, env.record.kind)
    if waiting:
        at_head = "HEAD has no memory trust policy" if cls == "policy-missing" else "the policy at HEAD does not trust it"
        _again(again, signed, at_head, waiting)
        return f"{start} {at_head}; {waiting}"
    if cls == "policy-missing":
        # (a newcomer trial: "then git hn policy trust <64 hex> for this actor" after every record,
        # though policy init trusts whoever runs it, in a repository with no one else to run it)
        if not repo.remote_names():
            _again(again, signed, "HEAD has no memory trust policy", "git hn policy init, then commit .hn/policy.json")
            return (f"{start} HEAD has no memory trust policy; git hn policy init creates one that trusts whoever "
                    "runs it (run here, this identity), then commit .hn/policy.json")
        _again(again, signed, "HEAD has no memory trust policy", "a maintainer runs git hn policy init")
        return (f"{start} HEAD has no memory trust policy; a maintainer runs git hn policy init (which trusts whoever "
                f"runs it; git hn policy trust {actor} adds this actor when another runs it) and commits "
                ".hn/policy.json")
    if cls == "actor-untrusted":
        from .revoked import revocations

        gone = revocations(repo, commit, [actor]).get(actor)
        if gone is not None:  # (a team trial: a revoked key's holder was told what a maintainer runs to trust it)
            from ..core.hints import new_identity, since

            _again(again, signed, f"the policy at HEAD no longer trusts actor {actor[:12]}", "to sign again, make a "
                   "new identity")
            return (f"{signed}, but recall and the brief leave it out ({see} shows it): the policy at HEAD no "
                    f"longer trusts actor {actor[:12]}, {since(gone.commit, gone.subject)}; to sign again, "
                    f"{new_identity(mcp)}")
        from ..core.hints import MAINTAINER_RUNS

        _again(again, signed, f"the policy at HEAD does not trust actor {actor[:12]}",
               f"a maintainer runs git hn policy trust {actor}")
        return (f"{start} the policy at HEAD does not trust actor {actor[:12]}; "
                f"{MAINTAINER_RUNS.format(command=f'git hn policy trust {actor}')}")
    from ..core.hints import MAINTAINER_RUNS  # (only where a maintainer's command is named)

    _again(again, signed, f"the policy at HEAD does not trust kind {env.record.kind}",
           f"a maintainer runs git hn policy trust --kind {env.record.kind}")
    return (f"{start} the policy at HEAD does not trust kind {env.record.kind}; "
            f"{MAINTAINER_RUNS.format(command=f'git hn policy trust --kind {env.record.kind}')}")


def _again(again: list | None, signed: str, state: str, way_out: str) -> None:
    """``hidden_hint``'s shorter form into ``again``: the memory is still left out, why, and the
    way out (the CLI adds when it was said in full)."""
    if again is not None:
        again.append((f"{signed}, still left out of recall and the brief: {state}", way_out))
