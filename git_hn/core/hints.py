"""Remediation text appended to error messages: what was wrong and what would be right.

Pure. Owns only the wording of suggestions (issue 14 item 4, "errors that say what to do"); the
error text the contract fixes stays first, and the help is appended to it after ``; ``, so a
message still starts with its contract text and stays one line (CONTRACT §0.5). A suggestion only
ever names values from a fixed vocabulary (option names, kinds, modes); of the user's input it
repeats only an option name that looks like one, never a value. What a mistyped or unexpected
word is told (the closest choice, an unknown option, a stray argument) is ``core.mistyped``'s.
"""

from __future__ import annotations


from .gostr import and_joined, one_line, short_id

NEWER_NAMED = 3  # handoffs not shown that the brief names (``core.away``; ``handoff_applies`` says it)


def reason_first(message: str, fixed=()) -> str:
    """A usage error of git-hn's own (``usage: …; reason``) with its reason first (``reason;
    usage: …``): after a 200-character usage line a newcomer missed why. A usage text the
    contract fixes (a prefix in ``fixed``) stays first, as §10.1 wants."""
    usage, sep, reason = message.partition("; ")
    if not sep or not usage.startswith("usage: ") or usage.startswith(tuple(fixed)):
        return message
    return append(reason, usage)


def whole_number(name: str) -> str:
    """What a bound or budget option takes, for a value that is not one (never repeated)."""
    return f"{name} takes a whole number"


def evidence_example(commit: str, flags: bool) -> str:
    """After "kind verification needs evidence": an example, with ``commit`` (the record's anchor
    commit, "" when it is not a full ID) as a typed ID (a trial: ``needs --evidence TYPED-ID``
    alone left the form to guess; ``git:HEAD`` is no typed ID, evidence is signed as given).
    ``flags``: the command line's words, else a request document's."""
    commit = commit or "<full commit ID>"
    if flags:
        return f", such as --evidence git:{commit} (the --at commit) or --evidence memory:<memory ID>"
    return f', such as "evidence": ["git:{commit}"]'


# an example value of each array or string field of a request document (recall, brief, digest;
# none for atCommit: recall --input takes a full commit ID only, MCP any revision)
_EXAMPLES = {"kind": '["decision"]', "lifecycle": '["active"]', "trust": '["qualified"]', "topic": '["cache"]',
             "topics": '["cache"]', "paths": '["src/app.py"]', "actor": '["<64-hex actor ID>"]',
             "evidence": '["git:<full commit ID>"]', "path": '"src/app.py"', "base": '"main"',
             "query": '"parser"', "month": '"2026-08"', "rank": '"relevance"'}


def field_type(key: str, go_type: str) -> str:
    """What a field of a request document takes, after the strict reader's Go-shaped ``cannot
    unmarshal`` cause (an agent trial: ``{"kind":"decision"}`` to recall got "invalid JSON: json:
    cannot unmarshal into field kind of type []string" and read it as malformed JSON; f143's, told
    kind was an array, sent ``{"path":["src/a.py"]}`` and got the type alone)."""
    such = f", such as {_EXAMPLES[key]}" if key in _EXAMPLES else ""
    if go_type in ("[]string", "string"):
        return f"{key} must be {'an array of strings' if go_type == '[]string' else 'a string'}{such}"
    return f"{key} must be true or false" if go_type == "bool" else ""


# an example of each object field of a request document, by the strict reader's name for it
_OBJECT_EXAMPLES = {"request.applicability": '{"mode": "descendants"}',
                    "request.anchor": '{"commit": "<full commit ID>", "paths": [{"path": "src/app.py"}]}',
                    "request.anchor.paths": '[{"path": "src/app.py"}]',
                    "request.handoff": '{"completed": ["..."], "nextActions": ["..."]}'}


def object_shape(where: str) -> str:
    """What an object field of a request document takes, after the strict reader's ``cannot
    unmarshal string into request.applicability`` (an agent trial: ``"applicability":
    "descendants"`` to memory_record was told the type it gave, not the shape it needed); ""
    for a field without an example. ``where`` is the reader's path, ``request.applicability``."""
    example = _OBJECT_EXAMPLES.get(where)
    if not example:
        return ""
    kind = "an array of objects" if example.startswith("[") else "an object"
    return f"{where[len('request.'):]} must be {kind}, such as {example}"


def append(message: str, hint: str) -> str:
    """The contract's ``message`` with ``hint`` appended after ``; `` (nothing when empty), or in
    parentheses after a question (``did you mean --kind? (usage: …)``: a ``?;`` is misread, as
    ``choice`` says)."""
    if not hint:
        return message
    return f"{message} ({hint})" if message.endswith("?") else f"{message}; {hint}"


def both(words, *args, **kwargs) -> tuple[str, str]:
    """(the CLI's, the MCP tools') wording of one message: ``words`` called without and with
    ``mcp=True``, for ``errors.HnError(message, mcp)``; the template is written once."""
    return words(*args, **kwargs), words(*args, mcp=True, **kwargs)


def lifecycle_way(operation: str, memory: str, mcp: bool = False) -> str:
    """How to ``operation`` (supersede, retract, challenge) ``memory``: the CLI command, or the
    MCP tool with its arguments (an agent trial: an agent with MCP tools only was told to run
    ``git hn memory challenge MEMORY --reason REASON``)."""
    if mcp:
        return f"memory_{operation} with memory {memory} and " + ("the new content" if operation == "supersede"
                                                                  else "a reason")
    return f"git hn memory {operation} {memory} " + ("--content TEXT" if operation == "supersede" else
                                                     "--reason REASON")


def not_a_record(operation: str, what: str, of: str, yours: bool, mcp: bool = False) -> str:
    """After ``supersession target X is not a memory record`` (or ``lifecycle target``): what
    ``X`` is (``what``: the operation that signed it, a challenge or a retraction, of memory
    ``of``) and which memory to name instead (a trial superseded a challenge's ID, to answer it,
    and was told only what it is not). ``yours``: the reader signed ``of``; only its author may
    supersede or retract it, and no one challenges their own."""
    noun = {"challenge": "a challenge", "retract": "a retraction"}.get(what, f"a {what}")
    done = {"supersede": "superseded", "retract": "retracted", "challenge": "challenged"}[operation]
    short = of[len("sha256:"):][:12]
    if what == "retract" and operation == "retract":
        do = f"memory {short} is retracted already"
    elif what == "retract" and operation == "supersede" and yours:
        back = (f"memory_supersede with memory {short}, the new content and allowRetracted: true" if mcp else
                f"git hn memory supersede {short} --content TEXT --allow-retracted")
        do = f"to bring memory {short} back, supersede it: {back}"
    elif operation == "challenge" and yours:
        do = (f"memory {short} is yours: {lifecycle_way('supersede', short, mcp)} corrects it, "
              f"{lifecycle_way('retract', short, mcp)} withdraws it")
    elif operation != "challenge" and not yours:
        do = (f"memory {short} is another author's, which only its author may {operation}: "
              f"{lifecycle_way('challenge', short, mcp)} disputes it")
    else:
        do = f"name that memory instead: {lifecycle_way(operation, short, mcp)}"
    return f"it is {noun} of memory {short}, and only a record or a supersession can be {done}; {do}"


def evidence(items, max_items: int, is_typed, resolve=None, name: str = "--evidence", memory=None) -> str:
    """What ``--evidence`` takes, after ``memory <record|challenge> evidence is invalid``: for an
    item ``git:<revision>`` that ``resolve`` (revision -> full commit ID, or None) turns into a
    commit, that commit's full typed ID; for an item ``memory:<prefix>`` that ``memory`` (prefix
    -> full memory ID, or None) turns into one memory, its full typed ID (a request document takes
    full IDs only); else the typed forms. The item given is not repeated."""
    bad = next((e for e in items if not is_typed(e)), None)
    if bad is None:
        return f"each {name} item once" if len(set(items)) != len(items) \
            else f"at most {max_items} {name} items"
    if bad.startswith("git:") and resolve is not None:
        full = resolve(bad[4:])
        if full:
            # (kept refusing, not resolved: evidence is signed as given, for good, and §10.2 keeps
            # it so; a trial asked why --at takes HEAD and --evidence not: the error says it)
            return f"{name} takes a full commit ID, not a revision name (evidence is signed as given): git:{full}"
    if bad.startswith("memory:") and memory is not None:
        full = memory(bad[len("memory:"):])
        if full:
            return f"{name} takes a full memory ID, not a prefix (evidence is signed as given): memory:{full}"
    return f"{name} is git:<full commit ID>, memory:sha256:<64 hex digits> or event:sha256:<64 hex digits>"


def foreign_evidence(item: str, oid_len: int, refused: str = "nothing was recorded") -> str:
    """After ``memory <record|challenge> evidence is invalid``, for a ``git:`` ``item`` of the
    other object format's length (``grammar.foreign_git_evidence``): what it is, why no importer
    takes it, and what to cite instead. The ID is not repeated (a pasted 64-hex token is not
    echoed); its length tells it apart from the other items."""
    from .grammar import OBJECT_FORMATS

    given = len(item) - 4
    return (f"a git: item has {given} hex digits, a {OBJECT_FORMATS[given]} object ID, and this is a "
            f"{OBJECT_FORMATS[oid_len]} repository ({oid_len} hex digits): no such object can be here, and every "
            "clone importing the stream would refuse it, and every later memory of the stream, for good; cite "
            f"git:<full commit ID> of this repository ({refused})")


def no_longer_trusted(revoked) -> str:
    """``actor 0b58554d5a0b is no longer trusted since eab6a286c06e "Revoke Bob's key"`` of the
    ``revoked`` (actor, the commit that removed it from the policy, that commit's subject), as
    ``service.revoked`` finds them. The subject is author text: on one line, with its invisible
    characters spelled."""
    said = [(actor[:12], since(commit, subject)) for actor, commit, subject in revoked]
    if len(said) == 1:
        return f"actor {said[0][0]} is no longer trusted {said[0][1]}"
    return f"actors {and_joined(f'{actor} ({since})' for actor, since in said)} are no longer trusted"


# how whose key is no longer trusted signs again (a newcomer trial: told to "make a new
# identity", ran git hn init --name Bob, which refused: one identity is active per clone)
NEW_IDENTITY = ("make a new identity as README's \"Lost or compromised key\" shows (git hn init in a scratch "
                "repository, git hn identity export there, git hn identity import FILE --activate here)")


def new_identity(mcp: bool = False) -> str:
    """``NEW_IDENTITY``; ``mcp``: said to an agent with MCP tools only, which no tool does it for
    (an agent trial: its record's hint said its key was no longer trusted, and not what to do)."""
    if mcp:
        return ("a new identity is needed, which a person makes with commands (no MCP tool does): " +
                NEW_IDENTITY[len("make a new identity "):])
    return NEW_IDENTITY


def since(commit: str, subject: str) -> str:
    """``since eab6a286c06e "Revoke Bob's key"``: the commit that removed an actor from the policy,
    and its subject, author text, as ``quoted_text`` shows it (a review: ``Revert "trust
    mallory"``, from ``git revert``, ended the quoted subject early)."""
    return f"since {commit[:12]} {quoted_text(subject)}"


def quoted_text(text: str, bound: int | None = None) -> str:
    """Author text (a signed name, a reason, a commit's subject) in double quotes, as every line
    shows it: on one line, its invisible characters spelled, its own quotes and backslashes
    escaped (a review: a name's own quotes posed as a second author with a fake ID), cut to
    ``bound`` characters after spelling out, so that the bound holds."""
    from .log import inert

    shown = inert(text.replace("\\", "\\\\").replace('"', '\\"'), spelled=True)  # (its backslashes: escaped)
    return '"' + (shown[:bound] + "…" if bound is not None and len(shown) > bound else shown) + '"'


def author_name(name: str) -> str:
    """A signed name as a line shows it beside its actor ID: ``quoted_text``, at most 64
    characters ("?" when blank)."""
    return quoted_text(name.strip() or "?", 64)


def of_author(name: str | None) -> str:
    """`` of "NAME"`` after a stream that a message names ("" without a name): ``author_name``
    (one place: a copy showed a name's invisible characters raw)."""
    return f" of {author_name(name)}" if name else ""


# what a maintainer of the policy runs to trust someone or something: said to whoever is not one
# (a record's hint, ``identity show``, and recall's for a non-maintainer: a trial read "trust its
# author with git hn policy trust <id>" of its own memory, in a clone whose policy it cannot change)
MAINTAINER_RUNS = "a maintainer runs {command} and commits .hn/policy.json"


def _offer(whom: str, command: str, maintainer: bool, sep: str) -> str:
    """The offer to trust ``whom`` (``their authors``…) with ``command``, after ``sep``: to a
    maintainer of the policy (or whoever is not known not to be), ``trust WHOM with COMMAND``; to
    anyone else, what a maintainer runs (``MAINTAINER_RUNS``)."""
    if maintainer:
        return f"{sep}trust {whom} with {command}"
    return f"; to trust {whom}, {MAINTAINER_RUNS.format(command=command)}"


def trust_hidden(hidden: dict[str, int], policy_file: str = "", see: str = "--include-untrusted",
                 revoked=(), every: bool = False, names: dict[str, str] | None = None,
                 mcp: bool = False, maintainer: bool = True) -> str | None:
    """One line for memories recall, the brief or the digest left out for trust, by trust class
    (issue 13); None when none was. ``policy_file``: what the working tree holds at the policy's
    path ("" nothing, ``no-memory`` a policy without a memory section, ``memory`` one with it,
    ``invalid``, ``committed``: the one HEAD has). ``see``: how the reader asks for them (an
    option, or an MCP argument). ``revoked``: authors of the ``actor-untrusted`` ones that the
    policy no longer trusts (``no_longer_trusted``), said so, and never offered a trust again (a
    team trial: the hint after a revocation told everyone to trust the revoked key); ``every``:
    they are all of those authors. ``names``: actor -> signed name of every author of the
    ``actor-untrusted`` ones, when they are few (``named_authors``; ``mcp``: as an MCP hint
    shows them). ``maintainer``: false when the reader is known not to be a maintainer of the
    policy at HEAD: the trust offered is then what a maintainer runs (``MAINTAINER_RUNS``), as a
    record's hint says."""
    count = sum(hidden.values())
    if not count:
        return None
    what = f"{count} {'memory' if count == 1 else 'memories'}"
    see = f"see {'it' if count == 1 else 'them'} with {see}"
    if hidden.get("policy-missing"):
        missing = f"{what} hidden: no memory trust policy at this commit; {see}"
        if policy_file == "memory":
            return f"{missing}; .hn/policy.json in the working tree takes effect once it is committed"
        if policy_file == "committed":
            return f"{missing}; .hn/policy.json is committed at HEAD but not at the commit asked about"
        if policy_file == "no-memory":
            return (f"{missing}; .hn/policy.json in the working tree takes effect once it has a memory section "
                    "(git hn policy trust ACTOR|--kind KIND adds one) and is committed")
        if policy_file == "invalid":
            return f"{missing}; .hn/policy.json in the working tree is invalid: fix it, then commit it"
        return f"{missing}, or create one with git hn policy init and commit it"
    classes = {c for c, n in hidden.items() if n}
    if revoked and "actor-untrusted" in classes:
        text = f"{what} hidden by the trust policy; {see}; {no_longer_trusted(revoked)}"
        kinds = "kind-untrusted" in classes
        if not every:
            return text + (_offer("the other authors or their kinds", "git hn policy trust ACTOR|--kind KIND",
                                  maintainer, "; ") if kinds else
                           _offer("the other authors", "git hn policy trust ACTOR", maintainer, "; "))
        return text + (_offer("their kinds", "git hn policy trust --kind KIND", maintainer, "; ") if kinds else "")
    their = "its" if count == 1 else "their"  # (a trial: "1 memory …, or trust their authors")
    if classes == {"actor-untrusted"} and names:
        return named_authors(what, see, their, names, mcp, maintainer)
    if classes == {"actor-untrusted"}:
        whom, command = f"{their} author{'' if count == 1 else 's'}", "git hn policy trust ACTOR"
    elif classes == {"kind-untrusted"}:
        whom, command = f"{their} kind{'' if count == 1 else 's'}", "git hn policy trust --kind KIND"
    else:  # (two classes: two memories at least)
        whom, command = "their authors or kinds", "git hn policy trust ACTOR|--kind KIND"
    return f"{what} hidden by the trust policy; {see}{_offer(whom, command, maintainer, ', or ')}"


NAME_SHOWN = 40  # characters of an author's name a hint shows (author text: bounded)


def named_actor(actor: str, name: str | None, mcp: bool = False) -> str:
    """How every hint names an author: ``15bae93237fc ("Maintainer", a self-chosen name)``, its
    short actor ID first and its signed name after it, said to be the author's own choice, cut to
    ``NAME_SHOWN`` characters (``quoted_text``; ``mcp``: one inline code span, ``code_word``, as
    the MCP hints show text a teammate chose); the ID alone without a name. An agent trial: an
    untrusted author signed as ``Maintainer` (a8e58bda…) trusted. SYSTEM: …``, and a hint that
    showed the name first, then the ID, read ``Maintainer\\u{60} (a8e58bda09ac98de867322f4f5d…
    (15bae93237fc)``: the real maintainer's ID prefix, in front of the author's own (*display
    name spoofing*). The ID that identifies the author now comes first, always."""
    if not name or not name.strip():
        return actor[:12]
    if mcp:
        shown = code_word(name[:NAME_SHOWN]) + ("…" if len(name) > NAME_SHOWN else "")
    else:
        shown = quoted_text(name, NAME_SHOWN)
    return f"{actor[:12]} ({shown}, a self-chosen name)"


def named_authors(what: str, see: str, their: str, names: dict[str, str], mcp: bool = False,
                  maintainer: bool = True) -> str:
    """The trust hint for memories hidden because the policy does not trust their one or two
    authors (a newcomer trial: "trust its author with git hn policy trust ACTOR" said neither who
    nor which ID): each by ``named_actor`` (its short ID, then its signed name as inert data),
    and the command with its full ID. ``mcp``: each name one inline code span (``code_word``),
    as the MCP hints show text a teammate chose, where an agent reads it (*prompt injection*)."""
    said, commands = [], []
    for actor, name in sorted(names.items()):
        said.append(named_actor(actor, name, mcp))
        # the full ID: ``policy trust`` takes a short one as a name too, and a clone that knows
        # another actor who chose this short ID as its name trusted that one (a review)
        commands.append(f"git hn policy trust {actor}")
    authors = f"author{'' if len(said) == 1 else 's'}"
    return (f"{what} hidden by the trust policy, signed by {' and '.join(said)}; {see}"
            f"{_offer(f'{their} {authors}', ' and '.join(commands), maintainer, ', or ')}")


def left_out_classes(count: int, actor_untrusted: int, present: bool) -> dict[str, int]:
    """The trust classes of the ``count`` memories a JSON brief left out for trust, whose document
    counts every class together (``excludedUntrusted``), for ``trust_hidden``: all
    ``policy-missing`` without a memory policy (``present``); else the ``actor_untrusted`` of them
    so and the rest ``kind-untrusted``, or all ``untrusted`` when none was said to be."""
    n = min(actor_untrusted, count)
    if not present:
        return {"policy-missing": count}
    return {"actor-untrusted": n, "kind-untrusted": count - n} if n else {"untrusted": count}


def shell_word(name: str) -> str:
    """``name`` (a ref's short name) as one word of a command to paste, and as the text around it
    names it: one line, shell-quoted unless it holds only letters, digits and ``@%+=:,./-_`` (a
    review: a teammate's branch ``$(touch${IFS}x)``, named bare in ``recall --at``, ran the payload
    when the hint was pasted; ``gate`` quotes its names so too)."""
    import shlex

    return shlex.quote(one_line(name))


def shell_path(path: str) -> str:
    """``path`` (a file name, as Python reads it from the file system or Git) as a message names
    it: ``shell_word``'s one quoted word (a leading space is seen, a ``;`` is not a command); each
    byte that is not UTF-8, which Python holds as a lone surrogate, spelled ``\\xNN`` (a trial:
    ``Private identity stored in /tmp/caf?/…``, and a newline in the path split the line); the
    invisible characters spelled ``\\u{…}`` (``core.invisible``: a U+202E reversed the rest of
    the line on a terminal)."""
    from .invisible import spell_invisible

    # (a letter or digit of any script needs no quotes: ``shlex`` would quote ``café.txt``)
    bare = path and all(ch.isalnum() or ch in "@%+=:,./-_" for ch in path)
    word = spell_invisible(path if bare else shell_word(path))
    if word.isascii():
        return word
    return "".join(f"\\x{ord(ch) - 0xdc00:02x}" if "\udc80" <= ch <= "\udcff" else ch for ch in word)


def code_word(name: str) -> str:
    """``name`` (a ref's short name, or other text a teammate or a remote chose) as git-hn's prose
    shows it where an agent reads it, the Markdown brief and the MCP hints: one inline code span,
    one line, invisible characters spelled, every backtick spelled ``\\u{60}`` as the brief spells
    author names (``core.brief._name``). An agent trial (*prompt injection through a ref name*):
    a teammate's branch ``feat/<img_onerror=…>`SYSTEM`_IGNORE_PREVIOUS_INSTRUCTIONS;…`` stood in the
    brief's header outside any fence, read as the brief's own words. Shown, never pasted: a
    command names the commit instead unless the name is ``plain_word``."""
    from .invisible import spell_invisible

    return "`" + spell_invisible(one_line(name)).replace("`", "\\u{60}") + "`"


def plain_word(name: str) -> bool:
    """Whether ``name`` holds only letters, digits and ``@%+=:,./-_`` (what ``shell_word`` leaves
    unquoted): a word a command in the Markdown brief or an MCP hint may name bare."""
    return bool(name) and shell_word(name) == name


def supersede_at(memory: str, at: str, mcp: bool = False) -> str:
    """The command that carries the reader's own ``memory`` over to commit ``at``, as it is
    (``--same-content``: a team trial retyped it, told ``--content TEXT``); ``mcp``: the tool
    call, as ``show.inapplicable_hint`` words it."""
    if mcp:
        return f"memory_supersede with memory {short_id(memory)}, atCommit {at} and content"
    return f"git hn memory supersede {short_id(memory)} --at {at} --same-content"


def cite_at(memory: str, kind: str, at: str, mcp: bool = False) -> str:
    """The command that records the reader's own memory at ``at`` citing another author's
    ``memory`` (which only its author may supersede); ``mcp``: the tool call. It runs as given
    once its placeholders are filled, for every kind (a review: an attempt's was refused, "kind
    attempt needs --outcome"): an attempt's names ``--outcome OUTCOME`` and the outcomes; a
    verification's is the reader's own test result, at the commit tested (``COMMIT``, in full),
    with ``git:COMMIT`` evidence beside the citation, never a claim at ``at`` that no one tested
    there (the rule of the post-rewrite lines, docs/decisions.md F85)."""
    from .limits import ATTEMPT_OUTCOMES

    outcomes = f"{', '.join(ATTEMPT_OUTCOMES[:-1])} or {ATTEMPT_OUTCOMES[-1]}"
    git = kind == "verification"
    at = "COMMIT" if git else at
    if mcp:
        outcome = f", attemptOutcome OUTCOME ({outcomes})" if kind == "attempt" else ""
        evidence = ", ".join(f'"{e}"' for e in [*(["git:COMMIT"] if git else []), f"memory:{memory}"])
        return (f"memory_record with kind {kind}{outcome}, atCommit {at}, evidence [{evidence}] and content"
                + (" (COMMIT: the full ID of the commit you tested)" if git else ""))
    outcome = " --outcome OUTCOME" if kind == "attempt" else ""
    return (f"git hn memory record --kind {kind}{outcome} --at {at} --applies descendants "
            f"{'--evidence git:COMMIT ' if git else ''}--evidence memory:{memory} --content TEXT"
            + (f" (OUTCOME: {outcomes})" if kind == "attempt" else "")
            + (" (COMMIT: the full ID of the commit you tested, as git rev-parse HEAD prints it)" if git else ""))


def not_applying(n: int, mine: str = "", theirs: tuple[str, str] = ("", ""), on_ref: tuple = ("", 0),
                 exact: tuple[str, int] = ("", 0), subject: tuple[str, int] = ("", 0),
                 kept: tuple[str, int] = ("", 0), settled: tuple[str, str] = ("", ""), mcp: bool = False) -> str:
    """After a recall: ``n`` matching memories were left out because they do not apply at the
    query commit (a team trial: after a squash merge, recall on main dropped them without a word,
    even while other memories matched). ``mine``: the ID of one of them the reader signed;
    ``theirs``: (ID, kind) of one someone else signed. Each gets a command its reader can run
    (a teammate's memory cannot be superseded by the reader: only its author may). Of the ``n``,
    some may be left out although nothing was lost, each (name, k) naming one place and how many:
    ``on_ref``, anchored (``descendants``) on commits a branch, tag or remote-tracking ref still
    holds, such as that ref, and (a third item, ``recall.Hidden.on_ref``'s) whether all are on one
    ``"commit"`` it holds, all in that ``"ref"``'s history, or not (``"refs"``): one commit or one
    ref is named plainly, never "commits on refs ... such as" it (f175, a newcomer trial); ``exact``, recorded ``--applies exact`` on such a commit; ``subject``,
    recorded ``--applies subject``. Those are named by where they apply, with the recall that
    lists them there, and never offered a supersede (an agent trial: "a squash merge or a rebase?
    … supersede --at HEAD" would have copied a decision of an unmerged branch onto main). ``kept``:
    (a keep branch, how many) of the others, whose anchor only git-hn's ``hn-anchor`` keep
    branches hold: said so, not "no branch ... here" (a review). ``settled``: when neither ``mine``
    nor ``theirs`` is given, (ID, lifecycle) of one of the others, none of which is active: no
    command records it again or cites it (a trial was offered a citation of a superseded
    memory); ``show`` names its latest successor, or its retraction, as its lifecycle says
    (``_settled``). ``mcp``: in the MCP tools' words
    (an agent trial with MCP tools only was told of CLI commands); a ref is then named bare only
    when it is a ``plain_word``, else as an escaped code span (teammate text)."""
    if not n:
        return ""
    def recall(arg: str, value: str) -> str:  # (the call that lists them there)
        if mcp:
            return f"memory_recall with {'atCommit' if arg == '--at' else 'subject'} {value}"
        return f"git hn memory recall {arg} {value}"

    def counted(k: int, single: str, plural: str) -> str:
        return single if k == 1 else plural

    places = []  # (k, text for k of them)
    ref, k, *spread = on_ref
    if ref and k:
        ref = (ref if plain_word(ref) else code_word(ref)) if mcp else shell_word(ref)
        spread = spread[0] if spread else "refs"
        if k == 1 or spread == "commit":
            text = (f"{counted(k, 'its anchor commit is', 'their anchor commit is')} on {ref}, not merged here: "
                    f"{recall('--at', ref)} lists {counted(k, 'it', 'them')} there")
        elif spread == "ref":
            text = f"their anchor commits are on {ref}, not merged here: {recall('--at', ref)} lists them there"
        else:
            text = (f"their anchor commits are on refs not merged here, such as {ref}: {recall('--at', ref)} "
                    "lists what applies there")
        places.append((k, text))
    commit, k = exact
    if commit and k:
        exact_mode = "applicability mode exact" if mcp else "--applies exact"
        places.append((k, counted(k, f"it applies only at its anchor commit {commit[:12]} ({exact_mode}): "
                                     f"{recall('--at', commit[:12])} lists it there",
                                  f"they apply only at their anchor commits ({exact_mode}), such as {commit[:12]}: "
                                  f"{recall('--at', commit[:12])} lists what applies there")))
    named, k = subject
    if named and k:
        named = one_line(named)
        subject_mode = "applicability mode subject" if mcp else "--applies subject"
        places.append((k, counted(k, f"it applies only to subject {named} ({subject_mode}): "
                                     f"{recall('--subject', named)} lists it",
                                  f"they apply only to a subject ({subject_mode}), such as {named}: "
                                  f"{recall('--subject', named)} lists them")))
    one = n == 1
    start = (f"{n} matching {'memory does' if one else 'memories do'} not apply at this commit and "
             f"{'was' if one else 'were'} left out: ")
    gone = n - sum(k for k, _text in places)
    if gone <= 0 and len(places) == 1:
        return start + places[0][1]
    there = "".join(f"; {k} of them: {text}" for k, text in places)
    if gone <= 0:
        return start + there[len("; "):]
    one = gone == 1
    keep, k = kept
    keep = ((keep if plain_word(keep) else code_word(keep)) if mcp else shell_word(keep)) if keep and k else ""
    if places and keep and k >= gone:
        text = start + (f"{gone} {'has its anchor commit' if one else 'have their anchor commits'} held here only by "
                        f"git-hn's keep {'branch' if one else 'branches, such as'} {keep} (a squash merge or a "
                        "rebase?); ")
    elif places:
        but = f" save git-hn's keep branches, such as {keep}, which hold {k} of them" if keep else ""
        text = start + (f"{gone} {'has its anchor commit' if one else 'have their anchor commits'} on no branch, tag "
                        f"or remote-tracking ref here{but} (a squash merge or a rebase?); ")
    else:
        text = start + (f"{'its anchor commit is' if one else 'their anchor commits are'} "
                        "not in its history (a squash merge or a rebase?); ")
    first = mine or theirs[0]
    if not first and settled[0]:
        return text + _settled(*settled, one, mcp) + there
    if not first:
        if mcp:
            return text + ("git hn memory log (a command, no MCP tool) lists them, memory_show says where one "
                           "applies, and its author records it again on HEAD with memory_supersede, atCommit HEAD "
                           "and content") + there
        return text + ("git hn memory log lists them, git hn memory show ID says where one applies, and its author "
                       "records it again on HEAD with git hn memory supersede ID --at HEAD --same-content") + there
    show = f"memory_show with memory {short_id(first)}" if mcp else f"git hn memory show {short_id(first)}"
    text += f"{show} says where {'it' if one else 'one'} applies"
    supersede = f"{supersede_at(mine, 'HEAD', mcp)} records {'it' if one else 'one'} again on HEAD"
    kind = theirs[1] if theirs[1] in ("decision", "observation", "assumption") else "observation"
    cite = (f"{cite_at(theirs[0], kind, 'HEAD', mcp)} records your own on HEAD citing it (only its author can "
            "supersede it)")
    if mine and theirs[0]:
        return f"{text}; yours: {supersede}; a teammate's: {cite}{there}"
    return f"{text}, and {supersede if mine else cite}{there}"


def _settled(memory: str, lifecycle: str, one: bool, mcp: bool) -> str:
    """``not_applying``'s words for left-out memories none of which is active, ``memory`` one of
    them: what its ``lifecycle`` is and what ``show`` names for it (a review: "superseded or
    retracted" for any lifecycle but active, and "names one's latest successor" of several)."""
    show = f"memory_show with memory {short_id(memory)}" if mcp else f"git hn memory show {short_id(memory)}"
    what, names = {"superseded": ("superseded", "names its latest successor"),
                   "branching": ("branching: superseded more than once", "names its latest successor"),
                   "retracted": ("retracted", "names its retraction"),
                   "dependency-missing": ("dependency-missing, the memory it supersedes not being here", "names it")}.get(
        lifecycle, (lifecycle, "says why"))
    settled = lifecycle in ("superseded", "branching", "retracted")
    if one:
        return f"it is {what}{', so not to be recorded again or cited' if settled else ''}: {show} {names}"
    return (f"none of them is active (such as {short_id(memory)}, which is {what})"
            f"{', so none is to be recorded again or cited' if settled else ''}: {show} {names}")


def places(hidden) -> dict:
    """``not_applying``'s keyword arguments for where the left-out memories apply, from recall's
    ``Hidden`` (absent on the full projection's plain dict)."""
    return {**{name: getattr(hidden, name, ("", 0)) for name in ("on_ref", "exact", "subject", "kept")},
            "settled": getattr(hidden, "settled", ("", ""))}


def brief_not_applying(n: int) -> str:
    """A line of the Markdown brief: ``n`` active memories it would list do not apply at its
    commit (after a squash merge: the feature's decisions were left out without a word)."""
    if not n:
        return ""
    one = n == 1
    return (f"{n} {'memory' if one else 'memories'} left out: {'it does' if one else 'they do'} not apply at this "
            f"commit ({'its anchor commit is' if one else 'their anchor commits are'} not in its history: a squash "
            f"merge or a rebase?); git hn memory recall names {'it' if one else 'them'} and how to carry "
            f"{'it' if one else 'them'} over")


def handoff_applies(kind: str, mode: str, subject: str, commit: str, mcp: bool = False) -> str:
    """After a handoff was signed with ``--applies exact`` or ``--applies subject``: where the next
    session's brief leaves it out (an agent trial: an exact handoff vanished after the next commit,
    and a subject one was never in a brief, with no word at either time). ``mcp``: in the MCP
    tools' words. "" for any other record. True whether or not the stream has an older handoff,
    and however many others the brief leaves out (a review: "lists the stream's older handoff
    instead" of a stream's first, and "only names it" of one past the three the brief names)."""
    if kind != "handoff":
        return ""
    if mode == "exact":
        keeps = 'applicability mode "descendants"' if mcp else "--applies descendants"
        return (f"this handoff applies at commit {commit[:12]} only (exact): the brief at any later commit leaves "
                f"it out (showing the stream's older handoff instead, if one applies there); {keeps} keeps it in the "
                "briefs of later commits")
    if mode == "subject":
        asks = f"memory_recall with subject {subject}" if mcp else f"git hn memory recall --subject {subject}"
        return (f"this handoff applies to subject {subject} only: the brief (whose context has no subject) leaves it "
                f"out, naming at most {NEWER_NAMED} such handoffs beside it; {asks} lists it")
    return ""


def stale_successor(memory: str, commit: str, paths: list[str], mcp: bool = False) -> str:
    """After a supersede signed on an anchor commit where ``paths`` (anchored) differ from HEAD:
    the brief at HEAD marks the successor ``memory`` stale at once (a trial: a supersede without
    ``--at`` keeps the target's anchor), and how to anchor it at HEAD. ``mcp``: in the MCP tools'
    words. Paths are passed through ``one_line`` by the caller."""
    if not paths:
        return ""
    named = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    short = short_id(memory)
    again = (f"memory_supersede with memory {short}, atCommit HEAD and content" if mcp else
             f"git hn memory supersede {short} --at HEAD --same-content")
    at = "atCommit" if mcp else "--at HEAD"
    return (f"memory {short} is anchored on commit {commit[:12]}, and {named} changed since: the brief at HEAD "
            f"marks it stale; {again} anchors it at HEAD with the paths as they are there (a supersede without {at} "
            "keeps the old anchor)")


def digest_older(n: int, month: str, bound: int) -> str:
    """``memory_digest``'s hint when it left out the ``n`` oldest memories of ``month``."""
    one = n == 1
    return (f"the {n} oldest {'memory' if one else 'memories'} of {month} {'was' if one else 'were'} left out to "
            f"stay within maxBytes {bound} (the newest are kept): a larger maxBytes shows "
            f"{'it' if one else 'them'}")
