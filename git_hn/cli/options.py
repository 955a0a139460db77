"""Option tables shared by the typer commands and the fast argv parser (CONTRACT §10.1, §10.2).

Pure data plus one small GNU-style parser. ``git hn memory record`` and ``handoff`` are the hot
path of every agent, and importing typer costs more than the whole record budget, so ``main`` parses
those two commands with ``parse`` below. The typer commands declare the same options from these
tables, and a test checks that both parsers accept the same options and produce the same values.
The commands parsed by hand without a table (``sync``, ``mcp``, ``version``) word their usage
errors with ``switches`` and ``bad_option``, in the same words.
"""

from __future__ import annotations

from ..core.gostr import or_joined
from ..core.limits import LIFECYCLES, TRUSTS
from ..core.tuples import NamedTuple
from ..errors import UsageError


NO_COLOR_HELP = "never colour the output on a terminal (also: NO_COLOR set, TERM=dumb)"
STREAM_HELP = ("full stream ID, or label:NAME: your stream of that name, the same for the same NAME (one "
               "per agent or worktree); default: GIT_HN_STREAM, else git config hn.stream, else your "
               "default stream")


class Opt(NamedTuple):
    name: str
    dest: str
    metavar: str | None = None  # None: a boolean switch
    multiple: bool = False
    help: str = ""
    once: bool = False  # a filter of one value: given twice is an error (neither AND nor OR is meant)
    signed: bool = False  # one value that is signed: given twice is an error (the last one is a guess)
    clears: bool = False  # "" is a value: it clears the target's (supersede --subject ""); else "" is refused


# the options every command takes after it too (before it: ``main.dispatch``): a command whose
# table lacks one takes it all the same (``parse``; typer's commands: ``app.HnCommand``), and
# where its output has no colour it changes nothing. Only a command with coloured output lists
# ``--no-color`` in its -h (a newcomer trial: ``brief --no-color`` and ``export --no-color`` were
# refused, in two different orders, while ``policy show --no-color`` was taken)
GLOBAL_OPTS = (Opt("--no-color", "no_color", help=NO_COLOR_HELP),)


RECORD_FIELDS = (
    Opt("--kind", "kind", "KIND", help="record kind: observation, decision, assumption, attempt, "
                                      "verification or handoff", signed=True),
    Opt("--at", "at", "REV", help="anchor commit (resolved to a full commit ID)", signed=True),
    # (each mode's meaning, CONTRACT §5.5: a newcomer trial guessed exact for a verification, and
    # the next commit's recall and brief left it out, for good)
    Opt("--applies", "applies", "MODE", help="applicability: exact (only at the anchor commit itself), "
                                             "descendants (at the anchor commit and every commit that has it "
                                             "in its history) or subject (only to a read of the same --subject, "
                                             "such as recall --subject)", signed=True),
    Opt("--content", "content", "TEXT", multiple=True, help="content text"),
    Opt("--content-file", "content_file", "PATH", multiple=True,
        help="read the content bytes from PATH, or from stdin for -"),
    Opt("--subject", "subject", "ID", help="typed subject anchor: TYPE:sha256:<64 hex>, TYPE being issue, "
                                         "proposal, event, policy, pipeline or run; by convention the hex is "
                                         "the SHA-256 of the subject's URL (printf %s URL | sha256sum)",
        signed=True),
    Opt("--outcome", "outcome", "TOKEN", help="attempt outcome: succeeded, failed, partial or abandoned",
        signed=True),
    Opt("--stream", "stream", "ID", help=STREAM_HELP, signed=True),
    Opt("--actor", "actor", "A", help="must equal the active identity's actor", signed=True),
    Opt("--topic", "topic", "T", multiple=True, help="topic label (repeatable)"),
    Opt("--evidence", "evidence", "TYPED-ID", multiple=True,
        help="typed evidence: git:<oid>, event:sha256:<id> or memory:sha256:<id>, where a short "
             "memory ID is resolved to its full one (repeatable; a verification needs one)"),
    Opt("--path", "path", "P", multiple=True, help="anchored repository-relative path (repeatable)"),
    Opt("--blob", "blob", "B", multiple=True, help="expected blob of each --path (once per --path)"),
    Opt("--completed", "completed", "TEXT", multiple=True, help="handoff: completed item"),
    Opt("--assumption", "assumption", "TEXT", multiple=True, help="handoff: assumption"),
    Opt("--blocker", "blocker", "TEXT", multiple=True, help="handoff: blocker"),
    Opt("--next-action", "next_action", "TEXT", multiple=True,
        help="handoff: proposed next action (inert data, never executed)"),
)
COMMON = (
    Opt("--json", "json", help="print the result as one line of JSON"),
    Opt("--input", "input", "FILE|-", help="strict version-0 JSON request from FILE or stdin"),
    Opt("--allow-secret-shaped", "allow_secret_shaped",
        help="sign even if the text looks like a credential"),
    Opt("--no-color", "no_color", help=NO_COLOR_HELP),
)


def _said(opts, names, before: str = "", after: str = "") -> tuple[Opt, ...]:
    """``opts`` with the help of ``names`` saying more (what is required, what is inherited)."""
    return tuple(o._replace(help=before + o.help + after) if o.name in names else o for o in opts)


# -h says what the command needs: record's --kind, --at and --applies are required (unless
# --input gives the whole request), handoff's --at and --applies too (unless its --input request
# has them); handoff takes no --outcome (only an attempt has one). supersede's help says that
# what it is not given is the superseded memory's.
_ANCHORING = ("--kind", "--at", "--applies")
RECORD_OPTS = _said(RECORD_FIELDS, _ANCHORING, "required without --input: ") + COMMON
HANDOFF_OPTS = _said(tuple(o for o in RECORD_FIELDS if o.name not in ("--kind", "--outcome")),
                     _ANCHORING, "required, unless the --input request has it: ") + COMMON
SUPERSEDE_OPTS = tuple(o._replace(clears=True) if o.name == "--subject" else o for o in RECORD_FIELDS) + COMMON + (
    Opt("--edit", "edit", help="write the new content in your editor, starting from the target's"),
    Opt("--same-content", "same_content",
        help="keep the target's content (git-hn): with --at REV, the same memory carried over to another "
             "commit, such as the one a rebase made of its anchor; its git: evidence is kept as it was "
             "(--evidence replaces it)"),
    Opt("--allow-retracted", "allow_retracted",
        help="supersede a memory its author retracted (its successor is active: what was withdrawn is back)"),
    Opt("--allow-branch", "allow_branch",
        help="supersede a memory that has a successor already (two successors: lifecycle branching)"),
)


def stray(usage: str, args: list[str]) -> UsageError:
    """The usage error for arguments beyond a command's operands, saying which (``mistyped``)."""
    from ..core import hints, mistyped  # error paths only

    return UsageError(hints.append(usage, mistyped.unexpected(args)))


def bad_option(usage: str, arg: str, switches, others=(), instead=None, operands: bool = True) -> UsageError:
    """The usage error for an option-shaped ``arg`` of a command parsed by hand (``sync``,
    ``mcp``, ``version``), saying which: one of its ``switches`` given a value or twice, or an
    unknown option (``mistyped``, with the closest of ``switches`` and ``others``; ``instead``: name
    -> what to run instead, "" when nothing is known)."""
    from ..core import mistyped  # error paths only

    name, eq, _value = arg.partition("=")
    if name in switches:
        return UsageError(f"{usage}; {name} {'takes no value' if eq else 'was given twice'}")
    other = instead(name) if instead else ""
    if other:
        return UsageError(f"{usage}; {other}")
    return UsageError(f"{usage}; {mistyped.unknown_option(name, (*switches, *others), every_option(), operands)}")


def select_instead(name: str, argv: list[str]) -> str:
    """``sync`` given an option of ``replication select`` (a trial: ``git hn sync --all`` was told
    only that other commands take it): the select to run, then the sync, with the remote of
    ``argv`` when it names one; "" for any other option."""
    opt = next((o for o in SELECT_OPTS if o.name == name), None)
    if opt is None:
        return ""
    from ..core.remotes import is_remote_name  # error paths only

    words, takes = [], {o.name for o in SELECT_OPTS if o.metavar}
    for i, w in enumerate(argv):
        if w == "--":
            break
        if not w.startswith("-") and not (i and argv[i - 1] in takes):  # (not the value of --max-events N)
            words.append(w)
    remote = f" {words[0]}" if words and is_remote_name(words[0]) else ""
    given = f"{name} {opt.metavar}" if opt.metavar else name
    return (f"unknown option {name} for sync; git hn replication select takes it: run git hn replication "
            f"select{remote} {given}, then git hn sync{remote}")


def switches(argv: list[str], names, usage: str, operands: int = 0, instead=None) -> tuple[set, list[str]]:
    """(the switches given, the positional words) of a command of switches only, parsed by hand
    (``sync``, ``version``): each of ``names`` at most once, at most ``operands`` words (``--``
    ends the options; CONTRACT §9.3); anything else is a usage error that says which
    (``instead``: as ``bad_option``'s)."""
    seen: set = set()
    words: list[str] = []
    dashdash = False
    for arg in argv:
        if not dashdash and arg == "--":
            dashdash = True
        elif dashdash or not arg.startswith("-"):
            if len(words) == operands:
                raise stray(usage, [arg])
            words.append(arg)
        elif arg in names and arg not in seen:
            seen.add(arg)
        else:
            raise bad_option(usage, arg, names, instead=instead, operands=operands > 0)
    return seen, words


HELP_WORDS = ("-h", "--help")


def is_option_word(word: str, names) -> bool:
    """Whether ``word``, found where an option's value belongs, is rather the next option: one of
    ``names`` (the command's options, ``--name`` or ``--name=V``), ``-h``/``--help`` or ``--``.
    Taken as the value it would be signed for good (``--topic --content x`` signed the topic
    ``--content``; a newcomer trial), so it is a missing value; ``--topic=--content`` still
    gives that value on purpose."""
    return word in HELP_WORDS or word == "--" or (word.startswith("-") and word.partition("=")[0] in names)


def missing_value(name: str, metavar: str, next_word: str | None = None) -> str:
    """The reason of the usage error for option ``name`` given without its value: at the end of
    the arguments, or followed by ``next_word``, another option (``is_option_word``)."""
    if next_word is None:
        return f"{name} needs a value {metavar}"
    from ..core.gostr import quoted  # error paths only

    return (f"{name} needs a value {metavar} before {quoted(next_word.partition('=')[0])} "
            f"({name}=VALUE gives a value that starts with -)")


def check_click(args: list[str], params, table, usage: str, show_help) -> None:
    """The rules of ``parse`` that click lacks, checked on ``args`` before click parses them for a
    typer command (its click option ``params``; ``table``: its options table, if it has one):
    an option followed by another of its options (or ``-h``, ``--``) is missing its value, rather
    than taking that option's name as its value (``is_option_word``); ``-h`` anywhere before
    ``--`` calls ``show_help`` (click raised on an unknown option before its eager help); an
    empty value (``empty``) and an option that is not repeatable given twice (``twice``) are
    usage errors, where click took "" as a value and kept the last one silently."""
    names = {n for p in params for n in p.opts}
    valued = {n: p for p in params if not p.is_flag and not p.count for n in p.opts}
    for word, after in zip(args, args[1:]):
        if word == "--":
            break
        if word in valued and is_option_word(after, names):
            raise UsageError(f"{usage}; {missing_value(word, valued[word].metavar or word.lstrip('-').upper(), after)}")
    if any(w in HELP_WORDS for w in args[:args.index("--") if "--" in args else len(args)]):
        show_help()
    byname = {n: p for p in params for n in p.opts}
    table = {o.name: o for o in table}
    seen: set = set()
    i = 0
    while i < len(args) and args[i] != "--":
        word = args[i]
        i += 1
        name, eq, value = word.partition("=")
        p = byname.get(name) if word.startswith("-") else None
        if p is None or p.multiple or ((p.is_flag or p.count) and eq):
            continue  # (click's own errors, or a repeatable option)
        if not (p.is_flag or p.count):
            if not eq:
                if i >= len(args):
                    return
                value, i = args[i], i + 1
            if value == "" and not (name in table and table[name].clears):
                raise empty(usage, name, table[name].metavar if name in table else p.metavar)
        if p.name in seen:
            raise twice(usage, name, table.get(name) or (
                None if p.is_flag or p.count else Opt(name, p.name, p.metavar or "VALUE")))
        seen.add(p.name)


def every_option() -> set[str]:
    """The name of every option some command of this table takes (for an unknown option's hint:
    ``log --at`` is told log has none, not a close name of log's)."""
    return {o.name for key, table in globals().items() if key.endswith(("_OPTS", "_FIELDS")) and
            isinstance(table, tuple) for o in table if isinstance(o, Opt)}


def twice(usage: str, name: str, opt: Opt | None = None) -> UsageError:
    """The usage error for option ``name`` given twice. One rule on both parsers and every
    command (a differential trial: ``init --name A --name B`` signed B, ``export --output F
    --output -`` wrote to stdout, while ``record --kind a --kind b`` was refused): an option
    that is not repeatable is refused when given twice, a switch too, rather than the last
    one winning silently (docs/decisions.md). ``opt`` (its table entry, when it has one) says
    why it takes one value."""
    if opt is None or opt.metavar is None:
        return UsageError(f"{usage}; {name} was given twice")
    how = ("put the terms in one: --query 'a b' (both) or --query 'a OR b' (either)"
           if name == "--query" else "to match either of two, run the command once for each"
           if opt.once else "a signed memory cannot be changed later: give the one you mean"
           if opt.signed else "give the one you mean")
    return UsageError(f"{usage}; {name} was given twice: it takes one value ({how})")


_WHAT = {"REV": "a revision", "N": "a number", "FILE": "a file name", "FILE|-": "a file name or -",
         "PATH": "a path", "P": "a path", "NAME": "a name", "ID": "an ID", "TEXT": "a text", "C": "a cursor",
         "ORDER": "default or relevance", "FORMAT": "jsonl or markdown", "KIND": "a kind", "MODE": "a mode",
         "TOKEN": "an outcome", "A": "an actor", "YYYY-MM": "a month", "REASON": "a reason"}


def empty(usage: str, name: str, metavar: str | None) -> UsageError:
    """The usage error for option ``name`` given an empty value (``--at ""``): refused on every
    path, rather than taken as not given (a script's unset ``--at "$REV"`` signed the target's
    anchor for good, or got an unfiltered recall; a differential trial)."""
    what = _WHAT.get(metavar or "", metavar or "a value")
    return UsageError(f"{usage}; {name} is empty: give {what}, or leave the option out")


def parse(argv: list[str], opts: tuple[Opt, ...], usage: str, operands: bool = True) -> tuple[dict, list[str]]:
    """GNU-style parsing: ``--x V``, ``--x=V``, switches, interleaved positionals, ``--``.

    Mirrors click's rules, but for one: an option that takes a value consumes the next argument
    unless that is another option of the command, ``-h`` or ``--`` (``is_option_word``: then the
    value is missing); a switch given a value is a usage error; anything else starting with ``-``
    is an unknown option (``operands``: whether the command takes any, for its hint). The
    ``GLOBAL_OPTS`` are options of every table.
    """
    table = {o.name: o for o in opts}
    for o in GLOBAL_OPTS:
        table.setdefault(o.name, o)
    values: dict = {o.dest: ([] if o.multiple else (False if o.metavar is None else None)) for o in table.values()}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional.extend(argv[i:])
            break
        if arg.startswith("-") and arg != "-":
            name, eq, inline = arg.partition("=")
            opt = table.get(name)
            if opt is None:
                from ..core import mistyped  # error paths only

                raise UsageError(f"{usage}; {mistyped.unknown_option(name, table, every_option(), operands)}")
            if opt.metavar is None:
                if eq:
                    raise UsageError(f"{usage}; {name} takes no value")
                if values[opt.dest]:
                    raise twice(usage, name, opt)
                values[opt.dest] = True
                continue
            if not eq:
                if i >= len(argv):
                    raise UsageError(f"{usage}; {missing_value(name, opt.metavar)}")
                if is_option_word(argv[i], table):
                    raise UsageError(f"{usage}; {missing_value(name, opt.metavar, argv[i])}")
                inline = argv[i]
                i += 1
            if opt.multiple:
                values[opt.dest].append(inline)
            else:
                if inline == "" and not opt.clears:
                    raise empty(usage, name, opt.metavar)
                if values[opt.dest] is not None:
                    raise twice(usage, name, opt)
                values[opt.dest] = inline
            continue
        positional.append(arg)
    return values, positional

SHOW_OPTS = (Opt("--json", "json", help="print one line of JSON"),
             Opt("--no-color", "no_color", help=NO_COLOR_HELP))
BRIEF_OPTS = (
    Opt("--at", "at", "REV", help="query commit (default HEAD)"),
    Opt("--max-bytes", "max_bytes", "N", help="bound on the output bytes (default 16384)"),
    Opt("--base", "base", "REV", help="rank first what is anchored to paths changed since REV "
        "(default: the branch's upstream)"),
    Opt("--path", "path", "P", multiple=True, help="rank first what is anchored to P (repeatable)"),
    Opt("--topic", "topic", "T", multiple=True, help="rank first what carries topic T (repeatable)"),
    Opt("--include-untrusted", "include_untrusted", help="also list memories the policy does not qualify"),
    Opt("--json", "json", help="print one line of JSON"),
    Opt("--markdown", "markdown", help="print Markdown (the default)"),
)
DIGEST_OPTS = (
    Opt("--month", "month", "YYYY-MM", help="UTC month (default: the current one)"),
    Opt("--include-untrusted", "include_untrusted", help="also list memories the policy does not qualify"),
    Opt("--json", "json", help="print one line of JSON"),
    Opt("--no-color", "no_color", help=NO_COLOR_HELP),
)
# the classes --lifecycle and --trust take (CONTRACT §5.4, §6.3), from the projection's own lists:
# -h lists them (a newcomer trial learned them only from an error)
LIFECYCLE_VALUES = or_joined(LIFECYCLES)
TRUST_VALUES = or_joined(TRUSTS)
ACTOR_FILTER_HELP = ("actor: full ID, a unique prefix of 8+ hex characters, or a display name exactly one known "
                     "actor has (repeatable)")
LOG_OPTS = (
    Opt("--kind", "kind", "K", multiple=True, help="kind (repeatable)"),
    Opt("--actor", "actor", "A", multiple=True, help=ACTOR_FILTER_HELP),
    Opt("--topic", "topic", "T", multiple=True, help="topic (repeatable; all must match)"),
    Opt("--path", "path", "P", help="anchored repository-relative path (one)", once=True),
    Opt("--subject", "subject", "ID", help="typed subject, TYPE:sha256:<64 hex> (one)", once=True),
    Opt("--lifecycle", "lifecycle", "L", multiple=True,
        help=f"lifecycle class: {LIFECYCLE_VALUES} (repeatable; default: all)"),
    Opt("--trust", "trust", "T", multiple=True, help=f"trust class: {TRUST_VALUES} (repeatable; default: all)"),
    Opt("--query", "query", "TEXT", help="terms (all must match), as in recall", once=True),
    # (collected, to say "give -n N, -N or --max-count N once" of -1 -2, which has no -n to name)
    Opt("--max-count", "max_count", "N", multiple=True, help="at most N memories, newest first"),
    Opt("-n", "n", "N", multiple=True, help="the same as --max-count (and -N, as in git log -3)"),
    Opt("--graph", "graph", help="list each memory's supersede, retract and challenge relations"),
    Opt("--no-pager", "no_pager", help="never page (a pipe, a file or --json never page anyway)"),
    Opt("--no-color", "no_color", help=NO_COLOR_HELP),
    Opt("--json", "json", help="print one line of JSON"),
)
_LIFECYCLE_TAIL = (
    Opt("--stream", "stream", "ID", help=STREAM_HELP, signed=True),
    Opt("--json", "json", help="print one line of JSON"),
    # (CONTRACT §10.6 lints a retraction's and a challenge's reason, their one free field)
    Opt("--allow-secret-shaped", "allow_secret_shaped",
        help="sign even if the reason looks like a credential (the secret lint checks --reason)"),
    Opt("--no-color", "no_color", help=NO_COLOR_HELP),
)
RETRACT_OPTS = (Opt("--reason", "reason", "REASON", help="one token of a-z and 0-9 joined by -, such as "
                                                         "incorrect or obsolete", signed=True),) + _LIFECYCLE_TAIL
CHALLENGE_OPTS = (Opt("--reason", "reason", "REASON", help="one token of a-z and 0-9 joined by -, such as "
                                                           "evidence-mismatch (to explain in words, record "
                                                           "an observation and give it as --evidence "
                                                           "memory:ID)", signed=True),
                  Opt("--evidence", "evidence", "TYPED-ID", multiple=True,
                      help="typed evidence: git:<oid>, event:sha256:<id> or memory:sha256:<id>, where a short "
                           "memory ID is resolved to its full one (repeatable)"),
                  ) + _LIFECYCLE_TAIL

RECALL_OPTS = (
    Opt("--at", "at", "REV", help="query commit (default HEAD)"),
    Opt("--subject", "subject", "ID", help="typed subject, TYPE:sha256:<64 hex> (one)", once=True),
    Opt("--path", "path", "P", help="anchored repository-relative path (one)", once=True),
    Opt("--topic", "topic", "T", multiple=True, help="topic (repeatable; all must match)"),
    Opt("--kind", "kind", "K", multiple=True, help="kind (repeatable)"),
    Opt("--actor", "actor", "A", multiple=True, help=ACTOR_FILTER_HELP),
    Opt("--lifecycle", "lifecycle", "L", multiple=True,
        help=f"lifecycle class: {LIFECYCLE_VALUES} (repeatable; default: active), or the single value all"),
    Opt("--trust", "trust", "T", multiple=True,
        help=f"trust class: {TRUST_VALUES} (repeatable; default: qualified, or every class with "
             "--include-untrusted)"),
    Opt("--query", "query", "TEXT",
        help='terms (all must match); also prefix*, "a phrase", and a OR b (binds tighter than AND)',
        once=True),
    Opt("--rank", "rank", "ORDER", help="default (newest first) or relevance (BM25; needs --query)"),
    Opt("--max-records", "max_records", "N", help="at most N records per page (default 20)"),
    Opt("-n", "n", "N", help="the same as --max-records (git-hn, as in git hn memory log -n N)"),
    Opt("--max-content-bytes", "max_content_bytes", "N",
        help="at most N bytes of encoded content per page (default 65536); one matching memory larger than "
             "N fails the whole request (a memory is never cut), so this is no page size: --max-bytes is"),
    Opt("--max-bytes", "max_bytes", "N",
        help="at most N bytes of output (the --json line; the same page in human output): memories are "
             "added until the next would not fit, then truncated and nextCursor page on (git-hn; default: "
             "no bound)"),
    Opt("--cursor", "cursor", "C",
        help="the nextCursor of the previous page; it holds while the arguments (--max-bytes aside) are the "
             "same and no memory is recorded, imported or synced here (any new memory ends it: start again without "
             "it; a larger --max-records or --max-bytes pages less)"),
    Opt("--include-untrusted", "include_untrusted",
        help="also return memories the policy does not qualify (their real trust class is shown)"),
    Opt("--no-color", "no_color", help=NO_COLOR_HELP),
    Opt("--json", "json", help="print one line of JSON"),
    Opt("--input", "input", "FILE|-", help="strict version-0 recall request (needs --json)"),
)

# (an export's defaults are log's: every lifecycle and trust class unless a filter narrows it)
_EXPORT_DEFAULTS = {"--lifecycle": f"lifecycle class: {LIFECYCLE_VALUES} (repeatable; default: all)",
                    "--trust": f"trust class: {TRUST_VALUES} (repeatable; default: all)"}
_EXPORT_FILTERS = tuple(o._replace(help=_EXPORT_DEFAULTS.get(o.name, o.help)) for o in RECALL_OPTS if o.name in (
    "--at", "--subject", "--path", "--topic", "--kind", "--actor", "--lifecycle", "--trust", "--query"))
EXPORT_OPTS = (
    Opt("--format", "format", "FORMAT", help="jsonl (default: one verified memory per line, enough to "
        "re-verify it) or markdown (for people)"),
) + _EXPORT_FILTERS + (
    Opt("--output", "output", "FILE", help="write to FILE, a new file (default, or -: standard output)"),
)
IMPORT_OPTS = (
    Opt("--stream", "stream", "ID", help=STREAM_HELP),
    Opt("--allow-secret-shaped", "allow_secret_shaped", help="sign even if a draft looks like a credential"),
    Opt("--json", "json", help="print the result as one line of JSON"),
    Opt("--no-color", "no_color", help=NO_COLOR_HELP),
)
VIEW_OPTS = (
    Opt("--at", "at", "REV", help="query commit (default HEAD)"),
    Opt("--output", "output", "FILE", help="write the page to FILE (an existing FILE is replaced only if it "
        "is an earlier page; default: hn-memory.html in the repository's private git directory)"),
    Opt("--open", "open", help="open the page in a browser"),
)

SELECT_OPTS = (
    Opt("--actor", "actor", "ACTOR", multiple=True,
        help="actor selector (stored; actor streams are not imported by git-hn)"),
    Opt("--proposal", "proposal", "ID", multiple=True,
        help="proposal selector (stored; not imported by git-hn)"),
    Opt("--memory", "memory", "STREAM", multiple=True, help="exact memory stream ID to import"),
    Opt("--all", "all", help="import every advertised memory stream (exclusive with selectors)"),
    Opt("--max-events", "max_events", "N", help="budget: memories per stream (default 10000)"),
    Opt("--max-objects", "max_objects", "N", help="budget: new objects per stream (default 100000)"),
    Opt("--max-object-bytes", "max_object_bytes", "N",
        help="budget: largest object in bytes (default 67108864)"),
    Opt("--max-attachment-bytes", "max_attachment_bytes", "N",
        help="budget: attachment bytes (default 16777216; memory has none)"),
    Opt("--max-total-bytes", "max_total_bytes", "N",
        help="budget: total new bytes per stream, also the fetch watchdog's limit (default 1073741824)"),
    Opt("--max-streams", "max_streams", "N",
        help="budget: streams one sync may import (git-hn; default 16384)"),
)
