"""Record requests: from command-line flags or a strict ``--input`` document to a validated
``Record`` (CONTRACT §10.2, §10.3, §10.5).

Owns: reading explicit input sources (a regular file or stdin, bounded), binding the version-0
request schema strictly, normalizing (topics, path order) and resolving anchors against Git.
Trusts: nothing supplied by the user; every field is checked here or by ``core.envelope``.

git-hn reads only what is explicitly supplied: never prompts, terminal history, environment,
clipboard or unrelated files.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

from ..core import envelope as envmod
from ..core.envelope import Anchor, Applicability, Handoff, PathAnchor, Record
from ..core.gostr import and_joined, echoed, one_line, quoted
from ..core.grammar import STREAM_CHOICE_RULE, is_actor, is_oid, is_stream_choice, normalize_topic
from ..core.limits import (APPLICABILITY_MODES, ATTEMPT_OUTCOMES, HANDOFF_LISTS, KINDS, LIMITS, PATH_RULE,
                           RECALL_MAX_CONTENT)
from ..core.strictjson import JsonFloat, integer_rule, json_type, read_document
from ..core.tuples import NamedTuple
from ..errors import InputError, UsageError, ValidationError
from ..store.repo import Repo
from .anchor_paths import absent_notes, check_given_absent, check_top_relative, tree_entry, uncommitted_notes

RECORD_USAGE = "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT"
# §1.5's text, then the form (a trial: --stream sha256:1234 got the bare text, no word of what a stream ID is)
STREAM_INVALID = f"memory stream is invalid; a stream is chosen by {STREAM_CHOICE_RULE}"
HANDOFF_FLAGS_USAGE = "usage: git hn memory handoff --at REV --applies MODE --content TEXT [record fields]"


_LIST_FIELDS = ("content", "positional", "content_file", "topic", "evidence", "path", "blob",
                "completed", "assumption", "blocker", "next_action")
_TEXT_FIELDS = ("kind", "at", "applies", "subject", "outcome", "stream", "actor")


class RecordFlags:
    """The record fields of CONTRACT §10.2 as parsed from the command line."""

    def __init__(self, **values):
        for name in _TEXT_FIELDS:
            setattr(self, name, values.pop(name, None))
        for name in _LIST_FIELDS:
            setattr(self, name, list(values.pop(name, None) or []))
        if values:
            raise TypeError(f"unknown record flags {sorted(values)}")

    def items(self) -> dict:
        return {name: getattr(self, name) for name in _TEXT_FIELDS + _LIST_FIELDS}


class RecordRequest(NamedTuple):
    record: Record
    stream: str | None
    actor: str | None
    # the topics exactly as given, before TrimSpace/ToLower/dedupe: the secret lint sees them
    # (CONTRACT §10.6), since a lowercased credential no longer looks like one
    raw_topics: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# explicit input sources


def read_explicit(path: str, max_bytes: int, *, stdin=None, option: str = "") -> bytes:
    """Bytes of ``path`` (``-`` is stdin), reading at most ``max_bytes + 1`` bytes. An error names
    ``option`` (``--content-file``, ``--input``), so that a command with several paths says which
    one is wrong (a newcomer trial: ``--content-file /nonexistent`` named neither), and the path
    as given (a later trial: "nothing is at the --content-file path" left the reader to find which
    path that was), on one line and at most ``ECHO_LIMIT`` characters (``quoted``), as ``view
    --output`` and ``identity export`` name theirs."""
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        return stream.read(max_bytes + 1)
    that = f'{option} "{quoted(path)}"' if option else f'"{quoted(path)}"'
    from ..store.argpath import os_path

    try:
        st = os.stat(os_path(path))
    except OSError as exc:
        why = f"{that} does not exist" if exc.errno == errno.ENOENT else f"{that} cannot be read: {exc.strerror}"
        raise InputError(f"explicit input must be a regular file; {why}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a pipe, socket or device)"
        raise InputError(f"explicit input must be a regular file; {that} is {kind}")
    try:
        with open(os_path(path), "rb") as fh:
            return fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"read explicit input: {exc.strerror}") from None


CONTENT_RULE = f"the content is non-blank UTF-8 text of at most {LIMITS.max_content} bytes"


def read_content_file(path: str) -> str:
    data = read_explicit(path, LIMITS.max_content, option="--content-file")
    if len(data) > LIMITS.max_content:  # (the size given: a trial got the bound alone, as import said it)
        try:
            from ..store.argpath import os_path

            given = f"{os.path.getsize(os_path(path))} bytes" if path != "-" else f"more than {LIMITS.max_content} bytes"
        except OSError:
            given = f"more than {LIMITS.max_content} bytes"
        raise ValidationError(f"memory record content is invalid; {CONTENT_RULE} ({given} given)")
    return decode_content(data)


def decode_content(data: bytes) -> str:
    """``data`` as the content's text, or the content rule and which byte is not UTF-8, at which
    offset of ``data`` (f143's agent trial got the rule alone for Latin-1). ``--content-file``'s
    bytes and what ``--edit``'s editor left (f145) are refused in these words."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"memory record content is invalid; {CONTENT_RULE} (the content given "
                              f"is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


# ---------------------------------------------------------------------------------------------
# anchors


def resolve_paths(repo: Repo, commit: str, paths: list[str],
                  blobs: list[str] | None) -> tuple[PathAnchor, ...]:
    """Blob of each path at ``commit`` (``absent`` when there is no entry), paths sorted; the
    anchor's path rules checked first (``path_refusal``), before any Git process."""
    from .anchor_paths import path_refusal

    refused = path_refusal(list(dict.fromkeys(paths)), repo=repo)
    if refused:
        raise ValidationError("; ".join(refused))
    resolved = {}
    for p in paths:
        resolved[p] = tree_entry(repo, commit, p)
    if blobs:
        for p, b in zip(paths, blobs):
            if b != resolved[p]:
                raise InputError(f"anchor.paths blob for {echoed(p)} does not match commit {commit}")
    entries = sorted({p: resolved[p] for p in paths}.items(), key=lambda kv: kv[0].encode("utf-8"))
    return tuple(PathAnchor(p, b) for p, b in entries)


def encoded_over_recall_bound(content: str) -> int:
    """git-hn: the size of ``content`` encoded as JSON (quotes and escapes counted), when it
    exceeds recall's default bound, else 0. Recall measures that size (CONTRACT §7.6 step 5) and
    fails as a whole while one matching memory exceeds its bound, so such a memory makes every
    default recall that matches it fail, in every clone that imports it (an agent trial: 65,535
    ``y`` and 50,002 bytes with 20,000 backslashes were signed without a word). It is not
    refused: the protocol allows it and the other implementation signs it. Cheap for the usual
    content: no character encodes to more than 6 bytes."""
    if len(content) * 6 + 2 <= RECALL_MAX_CONTENT:
        return 0
    from ..core.canonical import compact

    size = len(compact(content))
    return size if size > RECALL_MAX_CONTENT else 0


def recall_bound_note(size: int, option: str = "--max-content-bytes", what: str = "the content is",
                      it: str = "it") -> str:
    """The warning for a content of ``size`` encoded bytes (``encoded_over_recall_bound``), in
    one line; ``option`` names the bound as the reader passes it (a flag, or an MCP argument)."""
    return (f"{what} {size} bytes encoded as JSON (quotes and escapes counted), over recall's default "
            f"bound of {RECALL_MAX_CONTENT}: a recall that matches {it} fails unless it passes {option} "
            f"{size} or more")


# ---------------------------------------------------------------------------------------------
# flags


def content_from_flags(flags: RecordFlags) -> str | None:
    sources = len(flags.content) + len(flags.positional) + len(flags.content_file)
    if sources > 1:
        raise InputError(f"record content must have exactly one explicit source; {_sources_given(flags)}")
    if sources == 0:
        return None
    if flags.content_file:
        return read_content_file(flags.content_file[0])
    return (flags.content or flags.positional)[0]


def _sources_given(flags: RecordFlags) -> str:
    """What was given for the content, counted, never repeated (it may be a secret): a forgotten
    quote (``record ... Use sqlite``) made two positional arguments, and the contract's text
    alone baffled a newcomer."""
    parts = []
    for count, name in ((len(flags.content), "--content"), (len(flags.content_file), "--content-file")):
        if count:
            parts.append(name if count == 1 else f"{name} {count} times")
    count = len(flags.positional)
    if count:
        parts.append(f"{count} positional argument{'s' if count > 1 else ''}")
    if count > 1:
        return (f"got {' and '.join(parts)}: quote the content so that the shell passes it as one "
                'argument (--content "..." or "...")')
    return f"got {' and '.join(parts)}: give the content once"


def request_from_flags(repo: Repo, flags: RecordFlags, *, kind: str | None = None,
                       notes: list | None = None, typed: list[str] | None = None) -> RecordRequest:
    """CONTRACT §10.2: build and validate the record described by flags. ``notes`` (the command
    line's) gets the warnings to print once the record is signed (``absent_notes``); a path of
    ``typed`` (the ``--path`` values the user gave; default all of ``flags.path``, which for
    supersede holds inherited ones too) given relative to the current directory is refused
    (``check_top_relative``)."""
    usage = HANDOFF_FLAGS_USAGE if kind == "handoff" else RECORD_USAGE
    kind = kind or flags.kind
    content = content_from_flags(flags)
    if not kind or not flags.at or not flags.applies or content is None:
        missing = [name for name, value in (("--kind", kind), ("--at", flags.at), ("--applies", flags.applies))
                   if not value]
        if content is None:
            missing.append("content (--content TEXT, --content-file PATH or one positional argument)")
        from ..core.mistyped import also_unsupported  # error paths only

        raise UsageError(f"{usage}; missing {', '.join(missing)}" + also_unsupported(
            (("--kind", kind, KINDS), ("--applies", flags.applies, APPLICABILITY_MODES))))
    if flags.stream is not None and not is_stream_choice(flags.stream):
        raise ValidationError(STREAM_INVALID)
    if flags.actor is not None and not is_actor(flags.actor):
        raise InputError("--actor must be a full actor fingerprint")
    if flags.blob and len(flags.blob) != len(flags.path):
        raise InputError("--blob must be supplied once per --path")
    commit = repo.resolve_commit(flags.at)
    subject = flags.subject or ""
    # (surrogatepass: a --topic of bytes that are not UTF-8 reaches here as lone surrogates, and
    # check_record refuses it with its words; a plain encode() raised first, an internal error)
    topics = tuple(sorted({normalize_topic(t) for t in flags.topic},
                          key=lambda t: t.encode("utf-8", "surrogatepass")))
    handoff = None
    lists = (flags.completed, flags.assumption, flags.blocker, flags.next_action)
    if kind == "handoff" or any(lists):
        handoff = Handoff(*(tuple(x) for x in lists))
    paths = resolve_paths(repo, commit, flags.path, flags.blob)
    absent = [p.path for p in paths if p.blob == "absent" and p.path in set(flags.path if typed is None else typed)]
    if notes is not None and flags.blob:
        check_given_absent(repo, commit, absent, document=False)
    if notes is not None and not flags.blob:
        absent = [p.path for p in paths if p.blob == "absent"]
        check_top_relative(repo, commit, [p for p in absent if p in set(flags.path if typed is None else typed)])
        notes += absent_notes(commit, absent)
        if flags.at in ("HEAD", "@"):
            notes += uncommitted_notes(repo, commit, [p.path for p in paths if p.blob != "absent"])
    record = Record(
        kind=kind, content=content, anchor=Anchor(commit, paths, subject),
        applicability=Applicability(flags.applies, subject if flags.applies == "subject" else ""),
        topics=topics, evidence=tuple(flags.evidence), attempt_outcome=flags.outcome or "",
        handoff=handoff)
    try:
        envmod.check_record(record)
    except ValidationError as exc:
        from ..core import hints  # error paths only

        if exc.message == "memory attempt record has invalid fields" and record.attempt_outcome:
            check_flag_outcome(record)  # (an --outcome that is no token: the valid ones, as for a typo)
        raise ValidationError(hints.append(exc.message, record_hint(exc.message, record,
                                                                    resolve=commit_of(repo)))) from None
    return RecordRequest(record, flags.stream, flags.actor, tuple(flags.topic))


def check_flag_outcome(record: Record) -> None:
    """``record --outcome`` takes one of git-hn's attempt outcomes (issue 14): a typo such as
    ``maybe`` or ``fail`` would otherwise be signed for good, and the brief would miss a failed
    attempt. Called after the secret lint, which names a pasted credential first. ``--input``
    documents keep the protocol's rule (any token), as records from other implementations do."""
    if record.kind == "attempt" and record.attempt_outcome not in ATTEMPT_OUTCOMES:
        from ..core.mistyped import choice  # error paths only

        raise InputError("memory attempt outcome is unsupported; "
                         + choice(record.attempt_outcome, ATTEMPT_OUTCOMES))


def memory_of(repo):
    """prefix -> the one verified memory's full ID it names (as ``show`` finds it), or None (for
    an error's hint: never raises)."""
    def resolve(query: str) -> str | None:
        from ..errors import HnError
        from .show import is_query, resolve as find

        try:
            return find(repo, query) if is_query(query) else None
        except HnError:
            return None

    return resolve


def commit_of(repo):
    """revision -> its full commit ID, or None (for an error's hint: never raises)."""
    def resolve(rev: str) -> str | None:
        from ..errors import HnError

        try:
            return repo.resolve_commit(rev) if rev else None
        except HnError:
            return None

    return resolve


class Words(NamedTuple):
    """How the help after a refused record names things: the flags' words or a document's."""

    evidence: str
    content: str
    topics: str
    subject: str
    anchor: str
    outcome: str
    verification: str
    handoff_needs: str
    handoff_only: str
    topic_controls: str
    path: str
    handoff_lists: tuple[str, ...] = ()  # each handoff list's name, in HANDOFF_LISTS order
    handoff_unit: tuple[str, str] = ("", "")  # what an entry of a list is called: one, several
    topic_one: str = "a topic"  # one topic, as an error names it
    path_name: str = "--path"  # one anchor path, as an error names it
    paths_name: str = "--path values"  # anchor paths, counted


FLAG_WORDS = Words(
    "--evidence", CONTENT_RULE, f"at most {LIMITS.max_topics} --topic values, each at most {LIMITS.max_topic} bytes",
    "--applies subject needs --subject ID", "", "--outcome", "kind verification needs --evidence TYPED-ID", "",
    "--completed, --assumption, --blocker and --next-action are only for kind handoff",
    "a --topic value contains a control character (an escape, a newline, a tab)", PATH_RULE,
    ("--completed", "--assumption", "--blocker", "--next-action"), ("value", "values"), "each --topic value")
INPUT_WORDS = Words(
    "evidence", f"content is non-blank UTF-8 text of at most {LIMITS.max_content} bytes",
    f"at most {LIMITS.max_topics} topics, each at most {LIMITS.max_topic} bytes",
    "mode subject needs applicability.subject equal to anchor.subject (a typed subject)",
    "anchor.commit is a full commit ID (40 hex digits; 64 in a SHA-256 repository)", "attemptOutcome",
    "kind verification needs evidence (at least one typed ID)",
    "kind handoff needs handoff with the arrays " + ", ".join(HANDOFF_LISTS) + " (each entry non-blank)",
    "handoff is only for kind handoff",
    "a topic contains a control character (an escape, a newline, a tab)",
    "anchor.paths[].path " + PATH_RULE.removeprefix("--path "),
    tuple(f"handoff.{name}" for name in HANDOFF_LISTS), ("entry", "entries"),
    path_name="anchor.paths[].path", paths_name="anchor.paths entries")


def record_hint(message: str, record: Record, words: Words = FLAG_WORDS, resolve=None, memory=None) -> str:
    """What to change after ``check_record`` refused a record (issue 14), in ``words``: those of
    the flags or those of a request document (``--input``, the MCP write tools, from which an
    agent corrects itself). The valid kinds or modes with the closest one, the field a kind
    needs, the bounds, or the form evidence takes (``resolve``: revision -> full commit ID,
    ``commit_of``)."""
    from ..core import grammar, hints, mistyped  # error paths only

    kind = record.kind
    if message == "memory record topics are invalid" and len(record.topics or ()) <= LIMITS.max_topics \
            and any(grammar.has_control(t) for t in record.topics or ()):
        return words.topic_controls
    if message == "memory record topics are invalid" and any(not t.strip() for t in record.topics or ()):
        return "a topic is never blank (spaces are trimmed)"
    if message == "memory record topics are invalid" and not all(grammar.is_utf8(t) for t in record.topics or ()):
        # (bytes that are not UTF-8 on a command line reach here as lone surrogates; the topic is
        # not repeated)
        return f"{words.topic_one} is UTF-8 text (a lone surrogate or a byte that is not UTF-8 is not)"
    fixed = {"memory record content is invalid": words.content, "memory record topics are invalid": words.topics,
             "memory applicability subject must match anchor": words.subject,
             "memory anchor commit is invalid": words.anchor,
             "memory anchor subject is invalid": grammar.SUBJECT_FORM, "memory anchor path is invalid": words.path}
    if message == "memory record content is invalid" and isinstance(record.content, str):
        size = len(record.content.encode("utf-8", "surrogatepass"))
        if size > LIMITS.max_content:  # (how big it was: a trial got the bound alone)
            return f"{words.content} ({size} bytes given)"
        from ..core.gostr import is_blank, is_utf8  # (which rule it broke: f143's agent trial)

        if not is_utf8(record.content) or is_blank(record.content):
            broke = "not UTF-8" if not is_utf8(record.content) else "blank"
            return f"{words.content} (the content given is {broke})"
    if message in ("memory anchor path is invalid", "memory anchor paths exceed their bound"):
        from .anchor_paths import path_refusal

        refused = path_refusal([p.path for p in record.anchor.paths], words.path_name, words.paths_name, words.path)
        if refused:
            return refused[1]
    if message in fixed:
        return fixed[message]
    if message == "memory record evidence is invalid":
        return hints.evidence(record.evidence, LIMITS.max_evidence, grammar.is_typed_evidence, resolve,
                              name=words.evidence, memory=memory)
    if message == "memory record kind is unsupported":
        return ("a kind is required; " if not kind else "") + mistyped.choice(kind, KINDS)
    if message == "memory applicability mode is unsupported":
        return mistyped.choice(record.applicability.mode, APPLICABILITY_MODES)
    if message != f"memory {kind} record has invalid fields":
        return ""
    if kind == "attempt" and not record.attempt_outcome:
        return f"kind attempt needs {words.outcome} (" + ", ".join(ATTEMPT_OUTCOMES) + ")"
    if kind != "attempt" and record.attempt_outcome:
        return f"{words.outcome} is only for kind attempt"
    if kind == "verification" and not record.evidence:
        commit = record.anchor.commit if is_oid(record.anchor.commit or "") else ""
        return words.verification + hints.evidence_example(commit, flags=words is FLAG_WORDS)
    if kind == "handoff":
        return handoff_hint(record.handoff, words)
    return words.handoff_only if record.handoff is not None else ""


def handoff_hint(handoff: Handoff | None, words: Words) -> str:
    """Which handoff rule a refused handoff broke (CONTRACT §1.5 rule 7), naming the list and the
    limit: an agent trial got ``memory handoff record has invalid fields`` alone for 65 next
    actions or one of 4,097 bytes (and, over MCP, that the lists were needed, though given). Only
    counts and sizes are said, never an entry."""
    if handoff is None or any(x is None for x in handoff.lists()):
        return words.handoff_needs
    from ..core.gostr import is_blank, is_utf8, utf8_len  # error paths only

    most, longest, (one, unit) = LIMITS.max_handoff_entries, LIMITS.max_handoff_entry, words.handoff_unit
    total = 0
    for name, entries in zip(words.handoff_lists, handoff.lists()):
        if len(entries) > most:
            return f"at most {most} {name} {unit} ({len(entries)} given), each at most {longest} bytes"
        for entry in entries:
            if not is_utf8(entry):
                return f"each {name} {one} is valid UTF-8 text"
            if is_blank(entry):
                return f"each {name} {one} is non-blank (one is empty or only spaces)"
            if utf8_len(entry) > longest:
                return f"each {name} {one} is at most {longest} bytes (one has {utf8_len(entry)})"
            total += utf8_len(entry)
    if total > LIMITS.max_handoff_total:
        return (f"the {and_joined(words.handoff_lists)} {unit} hold at most "
                f"{LIMITS.max_handoff_total} bytes in all ({total} given)")
    return words.handoff_needs


# ---------------------------------------------------------------------------------------------
# strict --input (version 0)

_PREFIX = "record input: "
_TOP = ("version", "kind", "content", "anchor", "applicability", "topics", "evidence",
        "attemptOutcome", "handoff", "actor", "stream")


def _shown_key(key: str) -> str:
    """An unknown key as an error names it (``secretlint.shown_key``)."""
    from ..core.secretlint import shown_key

    return shown_key(key, one_line)


def unknown_key_hint(key: str, keys) -> str:
    """``; did you mean K?`` after an unknown field when a known key ``K`` is close (an agent
    trial: ``{"topic": [...]}`` to memory_record got "unknown field topic" alone), never for a
    key shaped like a credential (it is not echoed either); "" otherwise."""
    from ..core.mistyped import did_you_mean
    from ..core.secretlint import first_in_text

    if first_in_text(key, None) is not None:
        return ""
    said = did_you_mean(key, keys)
    return f"; {said}" if said else ""


class _Doc:
    """Strict binding of one JSON object: exact-case keys only (CONTRACT §13.12)."""

    def __init__(self, value, keys: tuple[str, ...], where: str):
        if not isinstance(value, dict):
            from ..core.hints import append, object_shape

            raise InputError(append(f"{_PREFIX}invalid JSON: json: cannot unmarshal {json_type(value)} into {where}",
                                    object_shape(where)))
        for key in value:
            if key not in keys:
                inside = " (it belongs inside handoff)" if key in HANDOFF_LISTS and "handoff" in keys else ""
                if key == "atCommit" and "anchor" in keys:  # (f143's agent trial: MCP's word, no hint)
                    inside = ("; a record request names its commit in anchor.commit, the full commit ID "
                              "(git rev-parse HEAD prints it): atCommit is the MCP tools' argument")
                hint = inside or unknown_key_hint(key, keys)
                named = _shown_key(key) if where == "request" else f"{where[len('request.'):]}.{_shown_key(key)}"
                raise InputError(f'{_PREFIX}invalid JSON: json: unknown field "{_shown_key(key)}"{hint}',
                                 f'{_PREFIX}unknown argument "{named}"{hint}')  # (as ``mcp_args`` says it)
        self.value = value
        self.where = where

    def has(self, key: str) -> bool:
        return key in self.value and self.value[key] is not None

    def text(self, key: str) -> str:
        v = self.value.get(key)
        if v is None:
            return ""
        if not isinstance(v, str) or isinstance(v, JsonFloat):
            raise InputError(f"{_PREFIX}invalid JSON: json: cannot unmarshal {json_type(v)} into "
                             f"field {self.where}.{key} of type string")
        return v

    def texts(self, key: str) -> list[str] | None:
        v = self.value.get(key)
        if v is None:
            return None
        if not isinstance(v, list):
            raise InputError(f"{_PREFIX}invalid JSON: json: cannot unmarshal {json_type(v)} into "
                             f"field {self.where}.{key} of type []string")
        out = []
        for item in v:
            if not isinstance(item, str) or isinstance(item, JsonFloat):
                raise InputError(f"{_PREFIX}invalid JSON: json: cannot unmarshal {json_type(item)} into "
                                 f"field {self.where}.{key} of type string")
            out.append(item)
        return out

    def obj(self, key: str, keys: tuple[str, ...]) -> "_Doc | None":
        v = self.value.get(key)
        if v is None:
            return None
        return _Doc(v, keys, f"{self.where}.{key}")


def parse_input(data: bytes) -> tuple[Record, str | None, str | None, dict, tuple[str, ...]]:
    """Bind and normalize a version-0 record request; anchors are not resolved yet.

    Returns (record, stream, actor, presence, raw topics) where presence tells which anchor
    fields the document supplied (for ``handoff --input`` filling, §10.3) and raw topics are the
    document's topics before normalization (for the secret lint).
    """
    doc = _Doc(read_document(data, prefix=_PREFIX, max_bytes=LIMITS.max_request, error=InputError),
               _TOP, "request")
    version = doc.value.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or isinstance(version, JsonFloat) \
            or version != 0:
        raise InputError(integer_rule("record input field version must be integer 0", version, 0, 0))
    topics, evidence = doc.texts("topics"), doc.texts("evidence")
    if topics is None or evidence is None:
        raise InputError("record input fields topics and evidence are required arrays")
    anchor = doc.obj("anchor", ("commit", "paths", "subject"))
    commit, subject, paths = "", "", ()
    if anchor is not None:
        commit, subject = anchor.text("commit"), anchor.text("subject")
        raw_paths = anchor.value.get("paths")
        if raw_paths is not None:
            if not isinstance(raw_paths, list):
                from ..core.hints import append, object_shape

                raise InputError(append(f"{_PREFIX}invalid JSON: json: cannot unmarshal {json_type(raw_paths)} "
                                        "into field request.anchor.paths of type []PathAnchor",
                                        object_shape("request.anchor.paths")))
            entries = []
            for item in raw_paths:
                pd = _Doc(item, ("path", "blob"), "request.anchor.paths")
                entries.append(PathAnchor(pd.text("path"), pd.text("blob")))
            paths = tuple(sorted(entries, key=lambda e: e.path.encode("utf-8", "surrogatepass")))
    app = doc.obj("applicability", ("mode", "subject"))
    mode, app_subject = (app.text("mode"), app.text("subject")) if app is not None else ("", "")
    handoff = None
    hd = doc.obj("handoff", HANDOFF_LISTS)
    if hd is not None:
        handoff = Handoff(*(None if hd.texts(n) is None else tuple(hd.texts(n)) for n in HANDOFF_LISTS))
    actor = doc.text("actor") if doc.has("actor") else None
    if actor is not None and not is_actor(actor):
        raise InputError("record input field actor must be a full actor fingerprint")
    stream = doc.text("stream") if doc.has("stream") else None
    if stream is not None and not is_stream_choice(stream):  # (git-hn: or a label, store.streamchoice)
        # (the contract's words first, the rule they begin going on: "must be a full stream ID; it
        # takes a full stream ID … or label:NAME" contradicted itself, a review)
        raise InputError(f"record input field stream must be {STREAM_CHOICE_RULE}")
    norm_topics = tuple(sorted({normalize_topic(t) for t in topics}, key=lambda t: t.encode("utf-8", "surrogatepass")))
    record = Record(
        kind=doc.text("kind"), content=doc.text("content"), anchor=Anchor(commit, paths, subject),
        applicability=Applicability(mode, app_subject), topics=norm_topics, evidence=tuple(evidence),
        attempt_outcome=doc.text("attemptOutcome"), handoff=handoff)
    presence = {"commit": bool(commit), "mode": bool(mode), "kind": doc.has("kind")}
    return record, stream, actor, presence, tuple(topics)


def check_input_anchor(repo: Repo, record: Record) -> None:
    """The anchor commit must be an exact available commit and path blobs must match it."""
    commit = record.anchor.commit
    info = repo.git.object_info(commit) if is_oid(commit) and len(commit) == repo.oid_hex_len else None
    if info is None or info[1] != "commit" or info[0] != commit:
        raise InputError("anchor.commit must be an exact available commit")
    for entry in record.anchor.paths:
        if tree_entry(repo, commit, entry.path) != entry.blob:
            raise InputError(f"anchor.paths blob for {echoed(entry.path)} does not match commit {commit}")


def request_from_input(repo: Repo, data: bytes, *, handoff_at: str | None = None,
                       handoff_applies: str | None = None, handoff: bool = False,
                       whole: bool = False) -> RecordRequest:
    """CONTRACT §10.5 (and §10.3 for ``handoff --input``). ``whole`` (the CLI's ``--input``): a
    refusal for a missing field also names every other required field the document lacks
    (``input_absent``; the MCP tools fill their defaults and say their arguments their own way),
    and a path given as ``absent`` that names a file from the current directory is refused
    (``anchor_paths.check_given_absent``)."""
    if not whole:
        return _request_from_input(repo, data, handoff_at, handoff_applies, handoff)
    try:
        req = _request_from_input(repo, data, handoff_at, handoff_applies, handoff)
    except (InputError, ValidationError) as exc:
        from .input_absent import with_lacking

        raise with_lacking(exc, data, handoff=handoff, at=handoff_at is not None,
                           applies=handoff_applies is not None) from None
    absent = [p.path for p in req.record.anchor.paths if p.blob == "absent"]
    if absent:
        check_input_anchor(repo, req.record)  # (an inexact commit or a wrong blob: the contract's error first)
        check_given_absent(repo, req.record.anchor.commit, absent, document=True)
    return req


def wrong_handoff_kind(kind, signs: str) -> InputError:
    """The refusal of a handoff document or tool call whose ``kind`` is given and is another
    (one left out is handoff): the value given, as inert text, then ``signs`` (who signs what).
    An audit: "kind must be handoff" read as if the key were required."""
    from ..core.hints import quoted_text

    shown = quoted_text(kind, 80) if isinstance(kind, str) else f"(a JSON {json_type(kind)})"
    return InputError(f"handoff input field kind {shown} is not handoff: {signs}")


def _request_from_input(repo: Repo, data: bytes, handoff_at: str | None, handoff_applies: str | None,
                        handoff: bool) -> RecordRequest:
    record, stream, actor, presence, raw_topics = parse_input(data)
    if handoff:
        if presence["kind"] and record.kind != "handoff":
            raise wrong_handoff_kind(record.kind, "git hn memory handoff signs handoffs only (leave kind out); "
                                                  "git hn memory record --input signs the other kinds")
        if record.handoff is None or any(x is None for x in record.handoff.lists()):
            from ..core import hints  # error paths only

            message = "memory handoff record has invalid fields"
            raise ValidationError(hints.append(message, record_hint(message, record, INPUT_WORDS)))
        anchor, app = record.anchor, record.applicability
        if handoff_at is not None:
            commit = repo.resolve_commit(handoff_at)
            if presence["commit"] and anchor.commit != commit:
                raise InputError("handoff input field anchor.commit conflicts with --at")
            anchor = Anchor(commit, anchor.paths, anchor.subject)
        if handoff_applies is not None:
            if presence["mode"] and app.mode != handoff_applies:
                raise InputError("handoff input field applicability.mode conflicts with --applies")
            app = Applicability(handoff_applies, app.subject)
        record = Record("handoff", record.content, anchor, app, record.topics, record.evidence,
                        record.attempt_outcome, record.handoff)  # (kind left out: this command's, §10.3)
    try:
        envmod.check_record(record)
    except ValidationError as exc:
        from ..core import hints  # error paths only

        raise ValidationError(hints.append(exc.message, record_hint(exc.message, record, INPUT_WORDS,
                                                                    memory=memory_of(repo)))) from None
    return RecordRequest(record, stream, actor, raw_topics)
