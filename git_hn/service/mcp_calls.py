"""The tool calls of ``git hn mcp`` (CONTRACT §10.6): each binds its MCP arguments strictly and
calls one service, returning the result document.

Arguments are re-encoded as JSON and read with the same strict readers as ``--input`` (unknown
keys, wrong types, bad versions are refused with the same texts). On top of that an agent needs no
manual: a missing or null argument takes the CLI's default (``version`` 0, ``atCommit`` ``HEAD``, a
path's ``blob`` the one at the anchor commit,
applicability ``descendants``, no topics or evidence, empty handoff lists), and ``atCommit`` is
any revision, resolved as ``--at`` is (``rev-parse --verify`` after ``--end-of-options``).

Paths are relative to the top of the repository, as the CLI's; each call is given ``start``,
the path from the top of the directory the server was started in (``mcp_server.server_root``),
so that a path an agent gave from there is refused before anything is signed, as the CLI refuses
one given from the current directory (``anchor_paths.check_top_relative``).

Trust boundary: arguments come from a model that may have read hostile memory; nothing here
executes, fetches or follows anything an argument says. Whether a write tool may run at all is
decided by the caller (``mcp_server.call``), before any of this.
"""

from __future__ import annotations

from ..core.limits import HANDOFF_LISTS, LIMITS, WARNING
from ..errors import InputError
from .mcp_args import (allow as _allow, bind as _bind, commit as _commit, jtype as _jtype, as_object as _object,
                       positive as _positive, request_bytes as _request_bytes, sentences as _sentences,
                       version as _version)


# -- read tools ---------------------------------------------------------------------------------


def _show(repo, arguments) -> dict:
    from . import show

    doc = _bind(arguments, "show input: ", {"memory": "any", "maxContentBytes": "any"})
    memory = doc.get("memory")
    if not isinstance(memory, str):  # (an agent trial: {} was told "must be a string", not that it is missing)
        raise InputError(f"show input field memory {'is required' if memory is None else 'must be a string'}: a "
                         "memory ID (sha256: and 64 hex digits, or at least 8 of its first ones)")
    bound = _positive(doc.get("maxContentBytes", SHOW_MAX_CONTENT), "show", "maxContentBytes")
    out = show.show(repo, memory)
    left_out = _show_bounded(out, bound)
    why = show.inapplicable_hint(repo, out, mcp=True)  # (what the CLI says on stderr)
    text = _sentences(why, left_out, _drift(repo, repo.head_commit(), out))
    return {**out, "hint": text} if text else out


SHOW_MAX_CONTENT = 65_536  # recall's default bound (CONTRACT §7.6), for the memory text one show answers


def _shown_bytes(row) -> int:
    """The encoded size of a row's signed data: every field its author wrote (content, topics,
    anchor paths, subject, evidence, handoff lists, attempt fields), not the content alone (an
    S82 review: 16 handoff items of 4,000 U+0001 came back as 449,858 bytes under a bound of 10)."""
    from ..core import canonical

    data = row.get("data") if isinstance(row, dict) else None
    return len(canonical.compact_plain(data)) if isinstance(data, dict) else 0


def _show_bounded(doc: dict, bound: int) -> str:
    """Bound a ``memory_show`` answer by ``bound`` bytes of its rows' encoded data, as recall
    refuses a memory over ``maxContentBytes``; returns the hint for a target left out, or "".

    A memory whose own data exceeds the bound is refused, with the bound that lets it through.
    An agent trial: a memory of 65,000 U+0001 came back as 391,731 bytes in one call (each
    character is six bytes encoded), for any author, trusted or not, on an ID a brief or a hint
    named (*context flooding*). When the memory fits but its target (``targetProjection``, the
    row it supersedes, retracts or challenges) does not fit beside it, the target's row is left
    out, named in ``targetLeftOut`` and the hint: a 9-byte correction of a 120 KB memory is read
    without taking the memory it corrects (an S82 review: the refusal named the short memory,
    whose own text was not what was large). The CLI's show is not bounded."""
    own = _shown_bytes(doc.get("projection"))
    if own > bound:
        raise InputError(f"memory {doc['memoryId']} encoded data (its content, topics, paths and handoff or attempt "
                         f"fields) exceeds maxContentBytes; raise the explicit bound (it fits with maxContentBytes "
                         f"{own})")
    target = _shown_bytes(doc.get("targetProjection"))
    if own + target <= bound:
        return ""
    row = doc.pop("targetProjection")
    doc["targetLeftOut"] = row["id"]
    return (f"its target {row['id']} is left out: its encoded data takes {target} bytes, and with this memory's "
            f"it exceeds maxContentBytes {bound}; memory_show {row['id']} with maxContentBytes {target} shows it")


def _brief(repo, arguments) -> dict:
    from ..core import canonical
    from ..core.brief import DEFAULT_MAX_BYTES
    from . import brief

    doc = _bind(arguments, "brief input: ", {"version": "any", "atCommit": "string", "maxBytes": "any",
                                             "includeUntrusted": "bool", "base": "string",
                                             "paths": "strings", "topics": "strings"})
    _version(doc, "brief")
    bound = _positive(doc.get("maxBytes", DEFAULT_MAX_BYTES), "brief")
    commit = _commit(repo, doc.get("atCommit", "HEAD"))
    newer: list = []
    left: dict = {}

    def bounded(limit: int, left_out: dict | None = None) -> dict:
        newer.clear()
        return brief.brief(repo, commit, max_bytes=limit, from_input=True,  # exact by now
                           include_untrusted=doc.get("includeUntrusted", False), fmt="json",
                           base=doc.get("base"), paths=tuple(doc.get("paths", ())),
                           topics=tuple(doc.get("topics", ())), left_out=left_out, newer=newer)[0]

    result = bounded(bound, left)
    count = result.get("excludedUntrusted", 0)
    hidden, authors = {}, left.get("authors")
    if count:  # (a review: the hint offered to trust a revoked author, which the CLI's brief does not)
        from ..core.hints import left_out_classes
        from .policy_edit import policy_present

        hidden = left_out_classes(count, sum((authors or {}).values()), policy_present(repo, result["atCommit"]))
    base = _hinted(repo, {}, hidden, commit, _drift(repo, commit, result), authors)
    held = left.get("unmerged") if left.get("unmerged") and not repo.is_shallow() else None
    if newer or held:  # (a stream's newer handoff on another branch, as the Markdown brief's header says,
        # and f169's count of those left out as work not merged here, what the CLI says on stderr: on
        # the line whose brief lists them all when there is one, f177; the document keeps §7.15's keys)
        from ..core.not_merged import brief_lines

        lines = brief_lines(newer, held, "mcp", left.get("unmerged_mine", ()), left.get("unmerged_refs"))
        base = {**base, "hint": _sentences(base.get("hint", ""), *lines)}

    def hinted(doc: dict) -> dict:
        if not doc.get("omitted"):  # (an agent trial: the JSON brief left challenges out, saying only a count)
            return base
        if _listed(doc) or doc.one_fits is None:
            one = doc["omitted"] == 1  # (an S82 review: "1 items did not fit")
            left = (f"{doc['omitted']} {'item' if one else 'items'} did not fit in maxBytes {bound}: a larger maxBytes "
                    f"shows {'it' if one else 'them'}, or memory_recall lists {'it' if one else 'them'} by kind, path "
                    "or topic")
        else:  # (an agent trial: an empty brief, truncated, and no word of the bound it takes)
            left = f"none of its {doc['omitted']} items fits in maxBytes {bound} (an item is never cut): " \
                   f"maxBytes {doc.one_fits} shows one"
        return {**base, "hint": _sentences(base.get("hint", ""), left)}

    def fits(doc: dict, hint: dict) -> bool:
        return len(canonical.compact(doc)) + len(canonical.compact(hint)) - 1 <= bound

    hint = hinted(result)
    if not hint:
        return result
    if fits(result, hint):
        return {**result, **hint}
    try:  # (the hint counts against the bound too: the brief gives way, as it does to any field;
        # its count is the smaller brief's, whose digits may be one more: room for them)
        smaller = bounded(bound - (len(canonical.compact(hint)) - 1) - 8)
    except InputError:
        smaller = None  # (too small a bound for both)
    if smaller is not None and (_listed(smaller) or not _listed(result)):
        hint = hinted(smaller)
        if fits(smaller, hint):
            return {**smaller, **hint}
    if _listed(result) or not result["omitted"]:
        return result  # (the brief alone, as before)
    # (a brief that lists nothing of what it has, and no room to say so: the bound it takes, as
    # recall says the one its content takes)
    raise InputError(f"memory brief lists none of its {result['omitted']} items in maxBytes {bound} (an item is "
                     f"never cut), and has no room to say so; maxBytes {result.one_fits} lists one")


def _listed(doc: dict) -> bool:
    """Whether a brief document lists any item."""
    from ..core.brief import SECTIONS

    return any(doc[name] for name in SECTIONS)


def _hinted(repo, doc: dict, hidden: dict[str, int], at: str = "", drift: str = "",
            authors: dict | None = None) -> dict:
    """A read tool's document with ``hint`` when the trust policy hid memories: what the CLI
    says on stderr, which an agent never reads (its own record, then an empty recall, with
    nothing to say why); with the query commit ``at``, the authors no longer trusted too (of
    ``authors``, else ``hidden.authors``); and ``drift`` (``_drift``)."""
    from ..core.hints import trust_hidden
    from .policy_edit import not_maintainer
    from .policy_working import working_policy
    from .revoked import among

    from .brief import header_notes

    authors = getattr(hidden, "authors", None) if authors is None else authors
    authors = authors if at and hidden.get("actor-untrusted") else None
    revoked, every = among(repo, at, authors) if authors else ((), False)
    names = None
    if authors and not revoked and set(hidden) - {"actor-untrusted"} <= {c for c, n in hidden.items() if not n}:
        from .recall import author_names  # (as the CLI's recall names them: who, and the full ID to trust)

        names = getattr(hidden, "names", None) or author_names(repo, authors)
    # (a non-maintainer is told what a maintainer runs, as the CLI's hint tells it: a review)
    outsider = bool(any(hidden.values()) and not hidden.get("policy-missing") and not_maintainer(repo))
    text = trust_hidden(hidden, working_policy(repo) if hidden.get("policy-missing") else "",
                        see="includeUntrusted: true", revoked=revoked, every=every, names=names, mcp=True,
                        maintainer=not outsider)
    from . import lost_streams
    from .replication.failures import hint

    # (and: nothing imported here yet; streams the last sync did not import; an own stream's lost tip)
    text = _sentences(text or "", drift, *header_notes(repo), hint(repo), lost_streams.hint(repo, mcp=True))
    named = {"hiddenAuthors": sorted(names)} if names and text else {}  # (the IDs the hint names, to act on)
    return {**doc, "hint": text, **named} if text else doc


def _drift(repo, at: str, doc: dict) -> str:
    """The CLI's policy drift hint (``policy_drift``) for a read document at commit ``at``: the
    memories it shows as trusted that the reference branch's policy does not trust."""
    from ..core.brief import SECTIONS
    from .policy_drift import hint, shown_trusted

    return hint(repo, at, shown_trusted(doc, SECTIONS))


DIGEST_MAX_BYTES = 65_536  # an agent's context is not a month of full handoffs


def _digest(repo, arguments) -> dict:
    from ..core import canonical
    from ..core.brief import bounded_digest
    from . import digest

    doc = _bind(arguments, "digest input: ", {"version": "any", "month": "string",
                                              "includeUntrusted": "bool", "maxBytes": "any"})
    _version(doc, "digest")
    bound = doc.get("maxBytes", DIGEST_MAX_BYTES)
    if type(bound) is int and bound < 1024:  # (0 and negatives too: one rule, one message)
        raise InputError("digest input field maxBytes must be at least 1024")
    bound = _positive(bound, "digest", least=1024)
    from .recall import Hidden

    hidden = Hidden()
    full = digest.digest(repo, doc.get("month"), include_untrusted=doc.get("includeUntrusted", False),
                         hidden=hidden)
    drift = _drift(repo, repo.head_commit(), full)
    hint = _hinted(repo, {}, hidden, "HEAD", drift)  # (once: a review found the revocation looked up twice)
    room = len(canonical.compact(hint)) - 1 if hint else 0  # (the hint counts against the bound too)

    def size(obj) -> int:
        return len(canonical.compact(obj))

    if size(full) + room <= bound:
        return {**full, **hint}
    # (f62, an agents trial: the oldest are left out, and the hint says how many and how to see
    # them; its room is taken at its widest count)
    from ..core.hints import digest_older as older

    widest = {**hint, "hint": _sentences(hint.get("hint", ""), older(len(full["memories"]), full["month"], bound))}
    doc = bounded_digest(full, bound - (size(widest) - 1), size)
    return {**doc, **hint, "hint": _sentences(hint.get("hint", ""), older(doc["omitted"], full["month"], bound))}



def _recall(repo, arguments, start: str = "") -> dict:
    from ..core import recall as core
    from . import recall

    args = dict(_object(arguments, "recall input: "))
    _bind(args, "recall input: ", {k: "any" for k in args})  # the strict reader's refusals first
    if args.get("version") is None:
        args["version"] = 0
    at = args.get("atCommit")
    if isinstance(at, str):  # another type is refused by the strict reader, with its text
        args["atCommit"] = _commit(repo, at)
    elif at is None:
        args.pop("atCommit", None)
    req, at = core.parse_request(_request_bytes(args))
    req = req._replace(at_commit=at or repo.resolve_commit("HEAD"))
    doc, hidden = recall.recall_counted(repo, req, from_input=True)
    doc = _hinted(repo, doc, hidden, req.at_commit, _drift(repo, req.at_commit, doc))
    extra = _empty_hint(repo, req, hidden, bool(doc["matched"] or any(hidden.values())), start)
    unmerged = _unmerged(repo, getattr(hidden, "unmerged", None))
    if extra or unmerged:  # (what the CLI says on stderr; recall's unmerged, in its human forms: f169)
        doc["hint"] = _sentences(doc.get("hint", ""), extra, unmerged)
    return _recall_bounded(doc, req.max_bytes)


def _unmerged(repo, counted) -> str:
    """In the tools' words, the CLI's hint on memories a recall (``counted``: ``Hidden.unmerged``)
    left out only because their anchor, which a ref holds, is not in the query commit's history
    (work not merged here: f163's recall hint; an agent took a teammate's decisions on a fetched
    branch for ones that did not exist); "" when none was, or in a shallow clone (as the CLI).
    A brief's: ``core.not_merged.brief_lines``."""
    if not counted or not counted[2]:
        return ""
    if repo.is_shallow():
        return ""
    from ..core.not_merged import left_out

    anchor, on_anchor, n = counted
    return left_out(n, anchor, on_anchor, mcp=True)[0]


RECALL_LARGE = 65_536  # an answer larger than this, without maxBytes, says that maxBytes bounds it


def _recall_bounded(doc: dict, bound: int) -> dict:
    """A recall answer within ``maxBytes`` with its ``hint``: the hint counts against the bound,
    so the page gives way to it (``core.fit`` with ``room``: the rows left out are the next page's,
    from the shorter page's ``nextCursor``); when not even one row fits beside it, the hint is
    dropped (the page alone fits: the recall measured it). Without ``maxBytes`` an answer is
    bounded only by ``maxRecords`` rows and ``maxContentBytes`` of content (a trial's 100,000
    records came back as 627,645 bytes): past ``RECALL_LARGE`` bytes the hint says so."""
    from ..core import canonical
    from ..core import recall as core

    hint = {key: doc.pop(key) for key in ("hint", "hiddenAuthors") if key in doc}
    if not bound:
        size = len(canonical.compact(doc))
        if size > RECALL_LARGE:
            hint = {**hint, "hint": _sentences(hint.get("hint", ""), f"this answer is {size} bytes: maxBytes bounds the "
                                       "whole answer (the rest pages on by nextCursor)")}
        return {**doc, **hint}
    if not hint:
        return doc
    room = len(canonical.compact(hint)) - 1  # (a "hint" member: the braces give way to its comma)
    try:
        return {**core.fit(doc, bound, room), **hint}
    except InputError:
        return doc


def _empty_hint(repo, req, hidden, found: bool, start: str = "") -> str:
    """As the CLI says it: why a recall that ``found`` nothing did (``path`` names a directory,
    or it names a file only from the directory the server was started in, ``start``), or that
    matching memories were left out as not applying at the commit, also when others matched
    (not in a shallow clone, whose history may be what is missing)."""
    from ..core.hints import not_applying, places
    from . import recall
    from .replication.shallow import is_shallow

    n = getattr(hidden, "elsewhere", 0)
    return ("" if found else recall.directory_hint(repo, req.at_commit, req.path, "path", mcp=True)
            or _from_start(repo, req, start)) or \
        ("" if not n or is_shallow(repo) else
         not_applying(n, hidden.mine, hidden.theirs, **places(hidden), mcp=True))


def _from_start(repo, req, start: str) -> str:
    """``path`` names nothing at the query commit and names something there taken from the
    directory the server was started in: the path from the top (as the CLI's ``--path`` hint)."""
    from ..core.gostr import quoted
    from ..core.grammar import is_path
    from ..errors import HnError
    from .anchor_paths import tree_entry

    full = start + req.path
    if not start or not req.path or not is_path(full, LIMITS.max_path):
        return ""
    try:
        if tree_entry(repo, req.at_commit, req.path) != "absent" or tree_entry(repo, req.at_commit, full) == "absent":
            return ""
    except HnError:  # (a directory or a submodule there)
        return ""
    return (f'nothing is anchored to {quoted(req.path)}; paths are relative to the top of the repository, so from '
            f'the directory the server was started in that is path "{quoted(full)}"')


# -- write tools --------------------------------------------------------------------------------


def _record_request(repo, args: dict, *, handoff: bool, start: str = "", typed=None):
    """The strict record request of CONTRACT §10.5 from MCP arguments: MCP-only keys taken out,
    the CLI's defaults filled in where an argument is missing or null, then the ``--input``
    reader and its checks. A path of ``typed`` (the agent's; default every one) looked up and
    absent that names something from the server's start directory (``start``) is refused
    first (``anchor_paths.check_top_relative``)."""
    from .anchor_paths import check_top_relative
    from .requests import request_from_input

    prefix = "record input: "
    absent: list[tuple[str, str]] = []  # (path, commit) of each blob looked up and not found
    _bind(args, prefix, {k: "any" for k in args})  # the strict reader's refusals come first
    allow = _allow(args.pop("allowSecretShaped", None), prefix)
    at = args.pop("atCommit", None)
    if at is not None and not isinstance(at, str):
        raise InputError(f"{prefix}invalid JSON: json: cannot unmarshal {_jtype(at)} into field "
                         "request.atCommit of type string")
    if args.get("content") is None:  # (an agent trial: told the content was invalid, not that it was missing)
        raise InputError("record input field content is missing; content (the memory itself) is non-blank UTF-8 "
                         f"text of at most {LIMITS.max_content} bytes")
    defaults = {"version": 0, "topics": [], "evidence": [], "applicability": {"mode": "descendants"}}
    if handoff:
        defaults["kind"] = "handoff"
    for key, value in defaults.items():
        if args.get(key) is None:
            args[key] = value
    if isinstance(args["applicability"], dict) and args["applicability"].get("mode") is None:
        args["applicability"] = {**args["applicability"], "mode": "descendants"}
    anchor = {} if args.get("anchor") is None else args["anchor"]
    if isinstance(anchor, dict):
        if anchor.get("commit") is None:
            anchor = {**anchor, "commit": _commit(repo, at or "HEAD")}
        elif at and isinstance(anchor["commit"], str) and _commit(repo, at) != anchor["commit"]:
            raise InputError("record input field anchor.commit conflicts with atCommit")
        if isinstance(anchor.get("paths"), list) and isinstance(anchor["commit"], str):
            filled = _blobs_filled(repo, anchor["commit"], anchor["paths"])
            absent += [(q["path"], anchor["commit"]) for p, q in zip(anchor["paths"], filled)
                       if p is not q and q.get("blob") == "absent"]
            anchor = {**anchor, "paths": filled}
            check_top_relative(repo, anchor["commit"], [p for p, _c in absent if typed is None or p in typed],
                               start)
        args["anchor"] = anchor
    if handoff or args.get("kind") == "handoff":  # (memory_record of a handoff: the lists memory_handoff takes)
        lists = {} if args.get("handoff") is None else args["handoff"]
        if isinstance(lists, dict):
            args["handoff"] = {**lists, **{n: [] for n in HANDOFF_LISTS if lists.get(n) is None}}
    return request_from_input(repo, _request_bytes(args), handoff=handoff), allow, absent


def _blobs_filled(repo, commit: str, paths: list) -> list:
    """``anchor.paths`` with each missing ``blob`` taken from ``commit`` (``absent`` where the
    path names nothing), as ``--path`` does: an agent need not run ``git rev-parse`` itself. A
    blob that is given is checked by the strict reader as in ``--input``; anything malformed is
    left for it to refuse."""
    from ..core.grammar import is_oid, is_path
    from ..core.limits import LIMITS
    from .anchor_paths import tree_entry

    info = repo.git.object_info(commit) if is_oid(commit) else None
    if info is None or info[1] != "commit":  # (the strict reader names an unavailable commit)
        return paths
    return [{**p, "blob": tree_entry(repo, commit, p["path"])}
            if isinstance(p, dict) and p.get("blob") is None and isinstance(p.get("path"), str)
            and is_path(p["path"], LIMITS.max_path) else p for p in paths]


def _target(repo, value, what: str) -> str:
    """The memory a lifecycle tool names: a full ID, or a unique prefix of at least 8 hex
    characters, as ``memory_show`` and the CLI take it (an agent trial: the three lifecycle
    tools took full IDs only)."""
    from ..core.grammar import is_digest_id
    from . import show

    if isinstance(value, str) and is_digest_id(value):
        return value
    if not isinstance(value, str) or not show.is_query(value):
        why = f"; {show.not_a_name(value)}" if isinstance(value, str) else ""
        raise InputError(f"{what} input field memory {'is required: a' if value is None else 'must be a'} memory ID "
                         f"(sha256: and 64 hex digits, or at least 8 of its first ones{why})")
    return show.resolve(repo, value)


def _written(repo, result, absent: list, content: str = "", stream: str | None = None) -> dict:
    """A write's answer; ``pathWarnings`` when an anchored path named nothing (recorded as
    ``absent``, as the CLI's ``--path`` warns: a mistyped path is otherwise signed without a
    word), never echoing a path the secret lint flags; ``contentWarning`` when ``content``,
    encoded, is over recall's default bound (as the CLI warns: every recall that matches the
    memory then fails without a larger ``maxContentBytes``); ``hint`` when the trust policy at
    HEAD hides it (``memory.hidden_hint``), and when its publication waits for a push
    (``unpushed.waits_hint``)."""
    from . import memory
    from .requests import encoded_over_recall_bound, recall_bound_note
    from .secretscan import shaped

    doc = {"version": 0, "warning": WARNING, "result": memory.result_json(result)}
    notes = [f"anchor.paths {path} names nothing at commit {commit}; it is recorded as absent (paths are "
             "relative to the top of the repository)" for path, commit in absent if not shaped(path)]
    if notes:
        doc["pathWarnings"] = notes
    size = encoded_over_recall_bound(content)
    if size:
        doc["contentWarning"] = recall_bound_note(size, "maxContentBytes")
    from .unpushed import waits_hint

    hidden = memory.hidden_hint(repo, result, see="includeUntrusted: true", mcp=True)
    started = memory.new_stream_hint(result, given="stream", repo=repo, stream=stream)
    unpushed: list[str] = []  # (git: evidence commits on no branch of the remote: the CLI warns)
    waits = waits_hint(repo, result, evidence=unpushed)
    if hidden or started or waits or unpushed:  # (what the CLI says on stderr, in the field the read tools use)
        doc["hint"] = _sentences(started or "", hidden or "", waits or "", *unpushed)
    return doc


def _record(repo, arguments, handoff: bool, start: str = "") -> dict:
    from . import memory
    from .requests import wrong_handoff_kind

    args = dict(_object(arguments, "record input: "))
    if handoff and args.get("kind") not in (None, "handoff"):  # (before the attempt's own fields: an S82
        # review's kind "attempt" was asked for attemptOutcome, then refused for its kind: a circle)
        raise wrong_handoff_kind(args["kind"], "memory_handoff signs handoffs only (leave kind out); memory_record "
                                 "signs the other kinds")
    _outcome(args)
    req, allow, absent = _record_request(repo, args, handoff=handoff, start=start)
    doc = _written(repo, memory.record(repo, req, from_input=True, allow_secret_shaped=allow), absent,
                   req.record.content, req.stream)
    from ..core.gostr import one_line
    from ..core.hints import handoff_applies

    rec = req.record
    where = handoff_applies(rec.kind, rec.applicability.mode, one_line(rec.applicability.subject), rec.anchor.commit,
                            mcp=True)
    if where:  # (what the CLI says on stderr)
        doc["hint"] = _sentences(where, doc.get("hint", ""))
    return doc


def _outcome(args: dict) -> None:
    """An attempt's outcome is one of git-hn's four, as ``record --outcome`` takes (issue 14): an
    agent trial signed ``failure``, which no brief lists as a failed attempt, and ``Failed``
    got no word of what is allowed. The value is never echoed (it is the agent's text)."""
    from ..core.limits import ATTEMPT_OUTCOMES

    if args.get("kind") == "attempt" and args.get("attemptOutcome") not in ATTEMPT_OUTCOMES:
        raise InputError("record input field attemptOutcome must be one of " + ", ".join(ATTEMPT_OUTCOMES)
                         + " (the brief lists the failed ones)")


def _supersede(repo, arguments, start: str = "") -> dict:
    from . import lifecycle, memory

    args = dict(_object(arguments, "supersede input: "))
    target = _target(repo, args.pop("memory", None), "supersede")
    revive, branch = args.pop("allowRetracted", None), args.pop("allowBranch", None)
    for name, value in (("allowRetracted", revive), ("allowBranch", branch)):
        if value is not None and not isinstance(value, bool):
            raise InputError(f"supersede input: {name} must be true or false, not {_jtype(value)}")
    given = args.get("attemptOutcome") is not None or args.get("kind") is not None
    anchor = args.get("anchor")
    paths = anchor.get("paths") if isinstance(anchor, dict) else None
    # (a path inherited from the target is not checked, as the CLI's: the agent did not give it)
    typed = {p.get("path") for p in paths if isinstance(p, dict)} if isinstance(paths, list) else set()
    inherits_evidence = args.get("evidence") is None
    args = _inherited(repo, target, args)
    left = memory.not_importable(repo, args["evidence"]) if inherits_evidence and isinstance(
        args.get("evidence"), list) else []
    if left:  # (as ``lifecycle.inherit`` leaves them out)
        args["evidence"] = [e for e in args["evidence"] if e not in left]
    if given:  # (an outcome kept from the target is the target's, as the CLI keeps it unchecked)
        _outcome(args)
    req, allow, absent = _record_request(repo, args, handoff=False, start=start, typed=typed)
    earlier = lifecycle.successors(repo, target)
    result = lifecycle.supersede(repo, target, req, from_input=True, allow_secret_shaped=allow,
                                 refuse_retracted=not revive, allowed_by="allowRetracted: true",
                                 new_with="memory_record", refuse_branch=not branch,
                                 branch_by="allowBranch: true")
    doc = _written(repo, result, absent, req.record.content, req.stream)
    branched = lifecycle.branching_hint(target, earlier, result, mcp=True)
    kept = memory.not_carried(left, repo.oid_hex_len) if left else ""
    stale = _stale_successor(repo, result)
    if branched or kept or stale:  # (what the CLI says on stderr)
        doc["hint"] = _sentences(branched, kept, doc.get("hint", ""), stale)
    return doc


def _stale_successor(repo, result) -> str:
    """``hints.stale_successor`` in the tools' words (as the CLI's ``advice.stale_successor``)."""
    from ..core.gostr import one_line
    from ..core.hints import stale_successor
    from .brief import stale_at_head
    from .secretscan import shaped

    if getattr(result, "replayed", False) or getattr(result, "envelope", None) is None:
        return ""
    record = result.envelope.record
    paths = [one_line(p) for p in stale_at_head(repo, record) if not shaped(p)]
    return stale_successor(result.memory_id, record.anchor.commit, paths, mcp=True) if paths else ""


def _inherited(repo, target: str, args: dict) -> dict:
    """``memory_supersede``'s arguments with what is missing (absent or null) taken from the
    target, part by part, as ``git hn memory supersede`` keeps the flags not given
    (``lifecycle.inherit``): kind; the anchor's commit (unless ``atCommit`` is given), paths
    (looked up again at the commit signed) and subject; the applicability's mode and subject;
    topics; evidence; and, while the kind stays the same, the attempt outcome and each handoff
    list (a new handoff starts with empty lists). An agent that corrected a memory's content
    lost its paths and topics, so path and topic recall found neither memory. The target is
    checked first, with ``supersede``'s words (not found, renamed, not a record, not yours)."""
    from . import lifecycle

    rec = lifecycle.supersede_target(repo, target).envelope.record
    if rec is None:  # (a record operation without a record cannot verify; nothing to inherit)
        return args
    out = dict(args)
    given = lambda obj, key: isinstance(obj, dict) and obj.get(key) is not None  # noqa: E731
    if out.get("kind") is None:
        out["kind"] = rec.kind
    anchor, applicability = out.get("anchor"), out.get("applicability")
    # one subject, as --subject gives both: the agent's (applicability's, else anchor's), else the target's
    subject = (applicability["subject"] if given(applicability, "subject") else
               anchor["subject"] if given(anchor, "subject") else
               rec.applicability.subject or rec.anchor.subject)
    if anchor is None or isinstance(anchor, dict):  # (anything else: the strict reader refuses it)
        anchor = dict(anchor or {})
        if not given(anchor, "commit") and out.get("atCommit") is None:
            anchor["commit"] = rec.anchor.commit
        if not given(anchor, "paths"):
            anchor["paths"] = [{"path": p.path} for p in rec.anchor.paths]
        if not given(anchor, "subject") and subject:
            anchor["subject"] = subject
        out["anchor"] = anchor
    if applicability is None or isinstance(applicability, dict):
        applicability = dict(applicability or {})
        if not given(applicability, "mode"):
            applicability["mode"] = rec.applicability.mode
        if not given(applicability, "subject") and applicability["mode"] == "subject" and subject:
            applicability["subject"] = subject
        out["applicability"] = applicability
    for key, value in (("topics", rec.topics), ("evidence", rec.evidence)):
        if out.get(key) is None:
            out[key] = list(value or ())
    same = out["kind"] == rec.kind
    if same and out.get("attemptOutcome") is None and rec.attempt_outcome:
        out["attemptOutcome"] = rec.attempt_outcome
    if out["kind"] == "handoff":
        lists = out.get("handoff")
        if lists is None or isinstance(lists, dict):
            lists = dict(lists or {})
            old = rec.handoff.lists() if same and rec.handoff is not None else ((),) * len(HANDOFF_LISTS)
            for name, items in zip(HANDOFF_LISTS, old):
                if lists.get(name) is None:
                    lists[name] = list(items or ())
            out["handoff"] = lists
    return out


def _lifecycle(repo, arguments, operation: str) -> dict:
    from . import lifecycle

    fields = {"memory": "any", "reason": "any", "stream": "string", "allowSecretShaped": "any"}
    if operation == "challenge":
        fields["evidence"] = "strings"
    doc = _bind(arguments, f"{operation} input: ", fields)
    target = _target(repo, doc.get("memory"), operation)
    reason = doc.get("reason")
    if not isinstance(reason, str):
        raise InputError(f"{operation} input field reason must be a string such as incorrect")
    allow = _allow(doc.get("allowSecretShaped"), f"{operation} input: ")
    doc_stream = doc.get("stream")
    if operation == "retract":
        result = lifecycle.retract(repo, target, reason, doc_stream, allow_secret_shaped=allow)
    else:
        result = lifecycle.challenge(repo, target, reason, doc.get("evidence", []), doc_stream,
                                     allow_secret_shaped=allow)
    out = {"version": 0, "warning": WARNING, "result": lifecycle.result_json(result)}
    from . import memory

    started = memory.new_stream_hint(result, given="stream", repo=repo, stream=doc_stream)
    return {**out, "hint": _sentences(started)} if started else out


# each takes (repo, arguments, start): ``start`` as the module's docstring says
CALLS = {
    "memory_recall": _recall,
    "memory_show": lambda repo, a, _start="": _show(repo, a),
    "memory_brief": lambda repo, a, _start="": _brief(repo, a),
    "memory_digest": lambda repo, a, _start="": _digest(repo, a),
    "memory_record": lambda repo, a, start="": _record(repo, a, handoff=False, start=start),
    "memory_handoff": lambda repo, a, start="": _record(repo, a, handoff=True, start=start),
    "memory_supersede": _supersede,
    "memory_retract": lambda repo, a, _start="": _lifecycle(repo, a, "retract"),
    "memory_challenge": lambda repo, a, _start="": _lifecycle(repo, a, "challenge"),
}
