"""``git hn memory show`` (CONTRACT §7.13): find one verified memory and describe it.

Lookup covers every verified memory (any operation); a prefix must name exactly one. The answer
comes from the verified state: the memory, its target, and the projection of their closure (what
targets them, what they target, what cites them), which is exactly what a full projection gives
for them (``show_full`` is that full projection; a test compares both). The output nests author
data under ``projection.data`` and never interprets it.
"""

from __future__ import annotations

from ..core.contexts import contextmanager
from ..core.gostr import HEX_DIGITS, content_text, is_lower_hex, quoted, short_id
from ..core.limits import WARNING
from ..core.projection import project, row_show_json
from ..errors import InputError
from ..store import streams
from ..store.repo import Repo
from .invalid_policy import head_context, marked


def _query_hex(q: str) -> bool:
    """``[0-9a-f]{8,64}`` is all of ``q`` (without ``re``: ~13 M instructions of every show)."""
    return 8 <= len(q) <= 64 and is_lower_hex(q)


def _hex(query: str) -> str:
    q = query[len("sha256:"):] if query.startswith("sha256:") else query
    if not _query_hex(q):
        from ..core.hints import append  # error paths only

        if _query_hex(q.lower()):  # (a review: uppercase hex got the generic line; §7.13's error stays first)
            raise InputError(append(_not_found(query).message, f"memory IDs are lowercase hex: give {quoted(q.lower())}"))
        raise InputError(append(_not_found(query).message, "a memory is named by its ID (sha256: and 64 "
                                f"lowercase hex digits) or by at least 8 of its first ones ({not_a_name(query)})"))
    return q


def not_a_name(text: str) -> str:
    """Why ``text`` (not ``is_query``) cannot name a memory, for the parentheses after the rule:
    the first character that is not lowercase hex, else how many digits it has (a newcomer
    trial: ``show 12`` got the rule alone, and could not tell which part of it was broken).
    Every error that refuses such a name says it this way."""
    q = text[len("sha256:"):] if text.startswith("sha256:") else text
    if not q:
        return "nothing follows sha256:" if text else "it is empty"
    if _query_hex(q.lower()):
        return f"this one is uppercase: give {q.lower()}"
    bad = q.lstrip(HEX_DIGITS)[:1]
    if not bad:
        return f"this one has {len(q)} digit{'' if len(q) == 1 else 's'}"
    code = ord(bad)
    if 0xDC80 <= code <= 0xDCFF:  # (a byte of the command line that is not UTF-8)
        shown = f"byte 0x{code - 0xDC00:02x}"
    else:
        shown = f'"{bad}"' if bad.isascii() and bad.isprintable() and bad != '"' else f"U+{code:04X}"
    return f"{shown} is not a lowercase hex digit"


def _not_found(query: str) -> InputError:
    return InputError(f"memory {quoted(query)} was not found in verified local or accepted streams")


def _one(query: str, matches: list):
    if not matches:
        raise _not_found(query)
    if len(matches) > 1:
        raise InputError(f"memory lookup {quoted(query)} is ambiguous; use the full memory ID")
    return matches[0]


def is_query(text: str) -> bool:
    """A full memory ID or a prefix ``show`` accepts: optional ``sha256:``, 8-64 lowercase hex."""
    q = text[len("sha256:"):] if text.startswith("sha256:") else text
    return _query_hex(q)


def resolve(repo: Repo, query: str) -> str:
    """The one verified memory ID ``query`` names, found exactly as ``show`` finds it (unknown
    and ambiguous prefixes fail with ``show``'s errors). Corrections use it for their targets."""
    from ..store import stateview

    with renamed_hint(repo, query):
        return stateview.serve(repo, lambda view: _one(query, view.find(_hex(query))),
                               lambda: find(streams.collect(repo), query).memory_id)


@contextmanager
def renamed_hint(repo: Repo, query: str):
    """A "not found" for ``query`` says which ID replaced it, and why, when a rewrite, a reanchor,
    a ``--drop`` or a ``sync --rebase`` signed that memory again, or that ``--drop`` discarded it
    (``store.reanchor.what_became``): the ID printed before is gone. Worded for the CLI and for
    MCP (``errors.HnError``'s ``mcp``)."""
    try:
        yield
    except InputError as exc:
        if exc.message != _not_found(query).message:
            raise
        from ..core.hints import both
        from ..store.reanchor import what_became

        new, cause = what_became(repo, query)
        commit = not new and cause != "drop" and _names_a_commit(repo, query)  # (a newcomer gave git log's ID)
        # (a newcomer trial: the actor ID ``identity list`` prints, or a stream's, got the generic line)
        owner = () if new or cause == "drop" or commit else _names_an_owner(repo, query)
        lost = [] if new or cause == "drop" or commit or owner else _lost(repo)  # (an own stream's ref moved back)
        raise InputError(*both(_not_found_way, exc.message, query, new, cause, commit, lost, owner)) from None


def _names_an_owner(repo: Repo, query: str) -> tuple[str, str] | tuple[()]:
    """("actor", its ID) when ``query`` (a full ID or a unique prefix, as ``show`` takes memory
    IDs) names an actor with a memory stream here or an identity of the keyring, else ("stream",
    its owner) when it names one memory stream here (local or accepted), else (). Read for an
    error only; a ref or a keyring that cannot be read gives ()."""
    from ..errors import HnError
    from ..store import identity

    q = query[len("sha256:"):] if query.startswith("sha256:") else query
    if not _query_hex(q):
        return ()
    try:
        sources = streams.list_sources(repo)
        actors = {s.actor for s in sources} | {ident.actor for ident, _active in identity.list_identities(repo)}
    except (HnError, OSError):
        return ()
    for what, found in (("actor", {a: a for a in actors}), ("stream", {s.stream[len("sha256:"):]: s.actor for s in sources})):
        named = {owner for key, owner in found.items() if key.startswith(q)}
        if len(named) == 1:
            return what, named.pop()
    return ()


def _lost(repo: Repo) -> list:
    """``rewound.standing`` of the active identity's streams ([] after one ``lstat`` when none
    lost memories outside git-hn)."""
    from ..store import identity, rewound

    return rewound.standing(repo, identity.active_actor(repo)) if rewound.read(repo) else []


# what a "not found" goes on with when the ID is not one a rewrite replaced nor a commit (a team
# trial: the bare contract text left an agent guessing between a typo and a teammate's memory)
NOT_FOUND_WAY = "git hn memory log lists the IDs this clone holds, and git hn sync REMOTE imports a teammate's"
NOT_FOUND_WAY_MCP = ('memory_recall with lifecycle ["all"] and includeUntrusted true lists the memories this clone '
                     "holds, and git hn sync REMOTE (a command, no MCP tool) imports a teammate's")


def _not_found_way(message: str, query: str, new: str, cause: str, commit: bool, lost: list = (),
                   owner: tuple = (), mcp: bool = False) -> str:
    """``renamed_hint``'s message: the "not found" ``message``, then what became of ``query``
    (signed again as ``new`` for ``cause``, dropped, or a ``commit``), or what it names instead
    (``owner``: an actor or a stream, and the actor whose memories to list), or that a stream of
    the reader's own lost memories outside git-hn (``lost``: it may have been one of them), or
    where IDs are listed."""
    from ..store.reanchor import CAUSES

    if new:
        short = new[len("sha256:"):][:12]
        show = f"memory_show with memory {short}" if mcp else f"git hn memory show {short}"
        return f"{message}; it was signed again as {new} {CAUSES[cause]} ({show})"
    if cause == "drop":
        return (f"{message}; it was dropped by git hn memory reanchor --drop (unpublished, on a commit no ref held); "
                "the tip that command printed brings it back: git update-ref REF TIP")
    if commit:
        recall = f"memory_recall with atCommit {query}" if mcp else f"git hn memory recall --at {query}"
        listed = "" if mcp else ", git hn memory log all of them"
        return f"{message}; {query} is a commit, not a memory: {recall} lists the memories that apply there{listed}"
    if owner:
        what, actor = owner
        listing = (f'memory_recall with actor ["{actor}"], lifecycle ["all"] and includeUntrusted true' if mcp
                   else f"git hn memory log --actor {actor}")
        return (f"{message}; {query} is an actor, not a memory: {listing} lists the memories it signed"
                if what == "actor" else
                f"{message}; {query} is a memory stream, not a memory: {listing} lists the memories of its owner")
    if lost:
        from ..store.rewound import warning

        return f"{message}; it may be one of these: {warning(lost, mcp)}"
    return f"{message}; {NOT_FOUND_WAY_MCP if mcp else NOT_FOUND_WAY}"


def _names_a_commit(repo: Repo, query: str) -> bool:
    if not _query_hex(query):
        return False
    proc = repo.git.run(["rev-parse", "--verify", "-q", "--end-of-options", f"{query}^{{commit}}"])
    return proc.returncode == 0


def find(collection: streams.Collection, query: str):
    q = _hex(query)
    return _one(query, [m for m in collection.memories if m.memory_id[len("sha256:"):].startswith(q)])


def envelope_summary(env) -> dict:
    out = {"protocol": env.protocol, "operation": env.operation, "actor": env.actor,
           "actorName": env.actor_name, "publicKey": env.public_key, "stream": env.stream,
           "sequence": env.sequence, "timestamp": env.timestamp}
    if env.previous:
        out["previous"] = env.previous
    if env.target:
        out["target"] = env.target
    if env.reason:
        out["reason"] = env.reason
    if env.evidence:
        out["evidence"] = list(env.evidence)
    out["signature"] = "valid"
    return out


def show(repo: Repo, query: str, notes: list | None = None, reasons: dict | None = None) -> dict:
    """CONTRACT §7.13 from the verified state. With ``notes`` (a list; the human output only),
    an invalid policy at HEAD adds its warning to ``notes`` and the trust is shown as
    ``policy-invalid`` (``invalid_policy``); without, it fails as §6.1 says. With ``reasons`` (a
    dict; a terminal's view only), each challenger's signed reason is put in it by ID
    (``challenge_reasons``): §7.13's document has no place for it."""
    from ..store import stateview

    with renamed_hint(repo, query):
        return stateview.serve(repo, lambda view: _show_view(repo, view, query, notes, reasons),
                               lambda: show_full(repo, query, notes, reasons))


def _show_view(repo: Repo, view, query: str, notes=None, reasons=None) -> dict:
    mid = _one(query, view.find(_hex(query)))
    target = view.info([mid])[mid].target
    names = {mid, target} - {""}
    ctx, resolver, invalid = head_context(repo, notes)
    # what can own or name a dependency of these two: whatever targets or cites them
    proj, mems = view.project(names, ctx, resolver, extra=view.targeting(names) | view.citing(names))
    doc = _document(mems[mid], proj, invalid)
    if reasons is not None:  # (the challenges are in ``mems``: they target the memory)
        challenge_reasons(doc, mems, reasons)
    return doc


def show_full(repo: Repo, query: str, notes: list | None = None, reasons: dict | None = None) -> dict:
    """CONTRACT §7.13 from a full collection and projection: context ``HEAD`` (empty when
    unborn), no subject, no path. The reference the state's answer is tested against."""
    collection = streams.collect(repo)
    with renamed_hint(repo, query):  # (the same words as ``show``'s)
        mem = find(collection, query)
    ctx, resolver, invalid = head_context(repo, notes)
    doc = _document(mem, project(list(collection.memories), ctx, resolver), invalid)
    if reasons is not None:
        challenge_reasons(doc, {m.memory_id: m for m in collection.memories}, reasons)
    return doc


def challenge_reasons(doc: dict, mems: dict, reasons: dict) -> None:
    """Put in ``reasons`` the signed reason of each memory that challenges ``doc``'s (a newcomer
    trial: a terminal's ``show`` said ``Challenged by`` and not why; the page and the challenge's
    own ``show`` say it). Author text: shown inert, by the caller."""
    for other in (doc.get("projection") or {}).get("challengers", ()):
        mem = mems.get(other)
        if mem is not None and mem.envelope.reason:
            reasons[other] = mem.envelope.reason


def _document(mem, proj, invalid: bool = False) -> dict:
    mid, target = mem.memory_id, mem.envelope.target
    doc = {"version": 0, "warning": WARNING, "memoryId": mid, "commit": mem.commit,
           "envelope": envelope_summary(mem.envelope)}
    shown = marked if invalid else (lambda row: row)
    if mid in proj.rows:
        doc["projection"] = shown(row_show_json(proj.rows[mid]))
    if target and target in proj.rows:
        doc["targetProjection"] = shown(row_show_json(proj.rows[target]))
    names = {mid, target} - {""}
    doc["relationships"] = [r for r in proj.relationships
                            if r["memoryId"] == mid or r["targetId"] == mid]
    doc["missingDependencies"] = [d for d in proj.dependencies
                                  if d["ownerId"] in names or d["missingId"] in names]
    return doc


def _projection_lines(label: str, row: dict) -> list[str]:
    return [f"{label}: {row['id']}", f"Lifecycle: {row['lifecycle']}",
            f"Applicability: {row['applicability']}", f"Evidence: {row['evidence']}",
            f"Trust: {row['trust']}", f"Content digest: {row['contentDigest']}",
            f"Content (inert): {content_text(row['data']['content'])}"]


def human_lines(doc: dict) -> list[str]:
    env = doc["envelope"]
    lines = [WARNING, f"Memory: {doc['memoryId']}", f"Commit: {doc['commit']}",
             f"Actor: {env['actor']}", f"Stream: {env['stream']}", f"Operation: {env['operation']}",
             "Signature: valid"]
    if "projection" in doc:
        lines += _projection_lines("Projection", doc["projection"])
    if "targetProjection" in doc:
        lines += _projection_lines("Target projection", doc["targetProjection"])
    return lines


def inapplicable_hint(repo: Repo, doc: dict, mcp: bool = False) -> str:
    """Why a memory that ``show`` found is left out of recall and the brief at ``HEAD``: its
    anchor does not apply there (after an amend or a rebase of a published commit, or on
    another branch), and how its author records it again; "" when it applies. When a branch,
    tag or remote-tracking ref still holds its anchor, that ref is named and no carrying over is
    suggested (an agent trial: following "supersede --at HEAD" copies a branch's memory onto
    main). A superseded one names its latest successor instead, and what that one needs
    (``_superseded``; a team trial was told to supersede it again, which is refused); a
    retracted one gets no command. ``mcp``: in the MCP tools' words (a trial: ``memory_show``
    said nothing of it)."""
    row = doc.get("projection")
    if not row or row["applicability"] != "inapplicable" or doc["envelope"]["operation"] not in ("record", "supersede"):
        return ""
    mode = (row["data"].get("applicability") or {}).get("mode")
    commit, short = row["anchor"]["commit"][:12], short_id(doc["memoryId"])
    if row["lifecycle"] in ("superseded", "branching"):
        return _superseded(repo, doc, mcp)
    if mode == "exact":
        return (f"memory {short} applies at commit {commit} only ({'exact' if mcp else '--applies exact'}), not at "
                "HEAD: recall and the brief at HEAD leave it out")
    if mode != "descendants":
        return ""
    from ..core.hints import code_word, plain_word, shell_word
    from .held import holding_ref

    held = holding_ref(repo, row["anchor"]["commit"])
    # (MCP: a teammate's ref name as an escaped code span, and bare in a tool's arguments only when
    # plain: ``core.away._why``)
    ref = (code_word if mcp else shell_word)(held) if held else ""
    if ref:
        there = f"memory_recall with atCommit {held if plain_word(held) else commit}" if mcp else \
            f"git hn memory recall --at {ref}"
        return (f"memory {short} is anchored on commit {commit}, on {ref}, which HEAD does not contain (not merged "
                f"here): recall and the brief at HEAD leave it out; {there} lists it there")
    text = (f"memory {short} applies where commit {commit} is in the history, and HEAD does not contain it (an "
            "amended or rebased commit, or another branch): recall and the brief at HEAD leave it out")
    from ..store.identity import active_actor

    if row["lifecycle"] != "active" or active_actor(repo) != doc["envelope"]["actor"]:  # (None without an identity)
        return text
    head = repo.head_commit()
    if row["kind"] == "verification" and head and not _same_tree(repo, row["anchor"]["commit"], head):
        # (docs/decisions.md: carried as it is, it would claim a test HEAD never had)
        again = (f"memory_supersede with memory {short}, atCommit HEAD, evidence git:{head} and the new result as "
                 "content" if mcp else
                 f"git hn memory supersede {short} --at HEAD --evidence git:{head} --content TEXT")
        return (f"{text}; it is a verification of another tree than HEAD's, so test HEAD, then {again} records the "
                "result")
    again = f"memory_supersede with memory {short}, atCommit HEAD and content" if mcp else \
        f"git hn memory supersede {short} --at HEAD --same-content"
    return f"{text}; {again} records it again on HEAD"


def _same_tree(repo: Repo, a: str, b: str) -> bool:
    infos = repo.git.object_infos([f"{a}^{{tree}}", f"{b}^{{tree}}"])
    return bool(infos[0] and infos[1] and infos[0][0] == infos[1][0])


def _superseded(repo: Repo, doc: dict, mcp: bool) -> str:
    """``inapplicable_hint`` of a superseded memory: it has a successor already, so a supersede
    of it is refused (or branches it); its latest successor is named (``lineage.line_end``), and
    that one's own hint follows when HEAD leaves it out too."""
    from ..errors import HnError
    from .lineage import line_end

    short = short_id(doc["memoryId"])
    end = line_end(repo, doc["memoryId"])
    if end is None:
        return ""
    _ts, latest, retracted = end
    said = f"memory {short} is superseded (latest: {short_id(latest)})"
    if retracted:
        return f"{said}, and its author retracted that one: recall and the brief leave the line out"
    see = f"memory_show with memory {short_id(latest)}" if mcp else f"git hn memory show {short_id(latest)}"
    try:
        then = show(repo, latest)
    except HnError:
        return f"{said}: recall and the brief show that one where it applies ({see})"
    if (then.get("projection") or {}).get("applicability") == "applicable":
        return f"{said}, which applies at HEAD: recall and the brief at HEAD show that one ({see})"
    why = inapplicable_hint(repo, then, mcp)
    return f"{said}, which HEAD leaves out too: {why}" if why else f"{said} ({see})"
