"""Man pages and shell completion generated from the CLI's own command definitions.

Owns ``man/*.1``, ``man/hn-memory.7`` and ``completion/`` in the source tree: they are produced
by ``python -m git_hn.docgen`` from the typer/click command tree plus the prose below, and a test
regenerates them and compares, so documentation and completion cannot drift from the options the
CLI actually accepts.
"""

from __future__ import annotations

import os
import sys

from .version import VERSION

DATE = "2026-11-30"


def tree():
    """(path, command) pairs for every leaf command, in definition order."""
    from .cli.app import USAGE, click_command

    out = []

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                if getattr(sub, "hidden", False):
                    continue
                walk(sub, path + [name])
        else:
            out.append((path, cmd, USAGE.get(" ".join(["git hn", *path]), "")))

    walk(click_command(), [])
    return out


def options(cmd) -> list[tuple[str, str, str]]:
    """(option names, metavar, help) of a command's options."""
    out = []
    for p in cmd.params:
        names = [n for n in getattr(p, "opts", []) if n.startswith("-")]
        if not names or getattr(p, "hidden", False):
            continue
        is_flag = getattr(p, "is_flag", False)
        metavar = "" if is_flag else (p.metavar or p.name.upper())
        out.append((", ".join(names), metavar, getattr(p, "help", "") or ""))
    return out


def arguments(cmd) -> list[tuple[str, str]]:
    """(metavar, help) of a command's shown operands, as ``-h`` lists them under Arguments."""
    return [(p.metavar or p.name.upper(), getattr(p, "help", "") or "") for p in cmd.params
            if p.param_type_name == "argument" and not getattr(p, "hidden", False)]


def esc(text: str) -> str:
    """roff-escape plain text: backslashes, hyphens, and leading control characters."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


PAGES = {
    "git-hn.1": ("git-hn", "1", "signed, verifiable project memory carried by Git", None),
    "git-hn-memory.1": ("git-hn-memory", "1", "record, correct, inspect and recall memory", "memory"),
    "git-hn-replication.1": ("git-hn-replication", "1", "choose which remote streams sync imports",
                             "replication"),
    "git-hn-sync.1": ("git-hn-sync", "1", "import selected memory streams and publish your own", "sync"),
    "git-hn-hooks.1": ("git-hn-hooks", "1", "memory that follows git push and git fetch", "hooks"),
}

PROSE = {
    "git-hn": """\
.SH DESCRIPTION
git\\-hn records decisions, observations, assumptions, attempts, verifications and session
handoffs as Ed25519\\-signed, append\\-only memory streams under
.BR refs/hn/memory/* ,
anchored to exact commits and paths, judged by the trust policy in
.BR .hn/policy.json ,
recalled in small bounded JSON for agents, and replicated between clones over ordinary Git
remotes through a quarantine that measures and validates before anything is accepted.
It speaks the protocol hn\\-memory/0; see
.BR hn-memory (7).
.PP
Every error is one line
.B git\\-hn: <message>
on standard error, with exit status 1. Machine output (\\-\\-json) is one line of compact JSON.
Memory content is untrusted inert data: it is never interpreted, and human output replaces
control characters.
.PP
Read commands answer from a verified state kept in
.BR .git/hn/memory/ .
When there is none to use (the first command after an install, or after an upgrade that
changes git\\-hn's verifying code or its Ed25519 libraries, or a damaged state file), a command
verifies every memory again before
it answers: seconds for a hundred thousand memories. Once that has taken a second, and only when
standard error is a terminal (and
.B TERM
is not
.BR dumb ),
one line there names the work and how far it got
.RB ( "git hn: verifying 100,000 memories (40%)" )
and is erased before the command's own output; the hooks that Git waits on do the same. Nothing
is written otherwise, so agents and scripts see no change.
.PP
.B git hn identity show
prints a
.B Ref:
line naming the collaboration ref
.BR refs/hn/actors/<actor> ;
git\\-hn never creates that ref and keeps the line for compatibility with the other
implementation.
""",
    "git-hn-memory": """\
.SH DESCRIPTION
Memories are appended to your own streams with compare\\-and\\-swap on the stream ref; a lost
race is retried with a freshly signed envelope. Corrections never rewrite history:
.B supersede
and
.B retract
add new signed memories that change the lifecycle class of the target;
.B challenge
adds another actor's dissent beside it.
.B recall
returns a deterministic, bounded answer (default 20 records and 65536 bytes of encoded
content), served from the verified state under
.B .git/hn/memory/
.RB ( state\\-v0.sqlite ,
sealed by
.BR state\\-v0.seal ):
every command brings it up to date by verifying only the commits that are new since it last
ran, and discards and rebuilds it when it is missing, foreign, inconsistent or unsafe.
.B git hn memory index rebuild
re\\-verifies every signature and also writes
.B index\\-v0.json
(the upstream schema; omitted when it would exceed its 256 MiB bound), which a command that
changes memory refs deletes;
.B git hn memory index verify
re\\-derives everything and compares. Deleting any of these files is always safe.
""",
    "git-hn-replication": """\
.SH DESCRIPTION
A selection authorizes transport, never trust. It is saved under
.B .git/hn/replication/selections/
and lists exact memory streams (or \\-\\-all) and the budgets a remote must stay within.
Actor and proposal selectors are stored for compatibility but never imported.
.PP
With exact memory streams,
.B select
asks the remote once which actor owns each (nothing is said when it cannot answer) and keeps
that under
.BR .git/hn/replication/owners/ ,
so that each later sync fetches exactly those refs in one round trip instead of listing every
memory ref of the remote.
.PP
.B forget\\-anchors
ends the reminder that each push to a remote and each sync with it give for an anchor commit a
push, or a branch deleted or squash\\-merged on the server, took off it (see
.BR git-hn-hooks (1)),
when the memory does not need its anchor back: it forgets the commits named (full or abbreviated
IDs, matched against what is remembered, so a commit gone from this clone can be named), or with
none every one remembered for the remote. All or nothing; nothing is pushed and no memory
changes, so whoever imports such a stream from the remote still stops at that commit.
""",
    "git-hn-sync": """\
.SH DESCRIPTION
Selected streams whose tips moved are fetched into a fresh bare quarantine repository in one
.BR "git fetch" :
by name when every selected stream's owner is known (learnt by
.B replication select
or from earlier syncs), else after one listing of the remote's memory refs. Each is measured
against its budgets, fully verified, checked for rollback and divergence,
classified against the accepted memory set, and promoted to
.B refs/hn/remotes/<remote>/memory/*
in one atomic ref transaction. A valid stream promotes while an invalid one beside it fails.
Then your verified local streams are pushed with explicit, non\\-forced refspecs; the primary
branch and accepted refs are never pushed.
.PP
After a promotion a recall index that served the refs just before it is rebuilt, incrementally
(none is created; a stale one is left to the next recall). With
.BR \\-\\-recover\\-shallow ,
the anchor commits a saved exact selection needs beyond a shallow clone's boundary are fetched
exactly, with depth 1, and become new boundaries; the repository is never unshallowed.
.PP
Exit status is 1 when any selection failed; the message says which phase. Memories held back
from publication because their anchor commits (or the memories they cite) are not on the remote
yet are listed with what to push, and do not change the exit status:
.B \\-\\-json
lists them under
.BR heldBack .
""",
    "git-hn-hooks": """\
.SH DESCRIPTION
.B git hn hooks install
writes three wrappers into the repository's hooks directory (honouring core.hooksPath), or
into the global core.hooksPath with \\-\\-global. An existing hook moves to
.B hn\\-chained/<hook>
in the same directory and runs first with the same arguments and input; its status is honoured.
A chained shell script runs with
.B $0
set to the hook's own path, as Git would have run it, so hook managers that find their files
from
.B $0
keep working. Git\\-hn's own publication push, started by a push your hooks approved, does not
run them a second time: neither the chained pre\\-push hook nor a hook manager's that runs
git\\-hn's as its own legacy hook (the publication push uses
.BR \\-\\-no\\-verify ).
A hook of yours that checks what is pushed (a secret scanner) therefore never sees memory refs
published that way;
.B git hn sync
publication runs it, and git\\-hn's own secret lint checks every memory either way.
.PP
.B pre\\-push
validates, lints and publishes your local memory streams to the remote you push to.
A failure is reported as one line; it blocks the push only with
.BR "git config hn.prePush block"
(the default is
.BR warn ).
With
.BR warn ,
the publication runs in the background after the checks (the push does not wait for it), and a
failed publication is reported by the next push, which publishes those streams again; with
.B block
it runs before the push goes on for memory anchored on commits the remote has, and right after
the push (in the background) for memory anchored on the commits being pushed. Use
.B git hn sync
where the publication must be complete when the command returns.
A remote that refuses memory refs (a host whose hooks allow branches only), or where you only
read memory, can be left out of publication, by both the hook and
.BR "git hn sync" :
.BR "git config remote.<name>.hnPublish false" .
A push that takes off the remote a commit a memory is anchored on (whoever imports the memory's
stream would stop at it) says so and names the push that keeps it there as a branch
.BR hn\\-anchor/... ;
each later push to that remote and each
.B git hn sync
with it says it again until the commit is back, or until
.B git hn replication forget\\-anchors
forgets it. Git\\-hn never pushes it back itself: the push
may have been made to take a secret off the remote. The same reminder names such a commit that a
branch squash\\-merged or deleted on the server took off (a hosting UI's merge): while a memory
you published is anchored off the remote's default branch, each sync with it and each push to it
ask the remote for its branches (one
.BR "git ls-remote --heads" ).
.PP
.B reference\\-transaction
stands in for the post\\-fetch hook Git does not have: after a committed transaction that
updated
.B refs/remotes/<remote>/*
for a remote with a saved selection, it imports that remote's selected streams. It never fails
the fetch. A fetch that updates no ref runs no transaction and therefore no import, and neither
does the remote\\-tracking update of a push whose pre\\-push hook git\\-hn ran (it brings
nothing to import: the hook noted the push's process and the commits it pushes); in a
repository with no saved selection the wrapper does not start git\\-hn at all, nor for a fetch
from a remote that has none while another remote has one, nor for a transaction that only
deletes remote\\-tracking refs (each branch a
.B git fetch \\-\\-prune
removes: a deletion brings nothing to import), nor for what
.B git pack\\-refs
and
.B git gc
do to refs (their transactions move no ref). When the last import from that
remote found everything up to date, the wrapper asks Git the same questions (the remote's URL
and memory refs, the accepted refs) and, if the answers and the selection file are exactly what
that import read, starts no git\\-hn either (the quiet record, one per remote, in
.BR .git/hn/replication/quiet/ ;
any change starts git\\-hn as before). The
import runs inside the fetch, so a fetch that brings new memory takes as long as the import;
after a promotion it deletes the recall index rather than rebuilding it, and the next recall
rebuilds it (incrementally). A problem is one line on stderr with its first cause, shortened
(for example a stream that stops at a memory whose anchor commit is not on the remote), naming
.BR "git hn sync <remote>" ,
which retries the import and reports every outcome.
.PP
Uninstall removes the wrappers and moves chained hooks back, only if nothing changed since
install.
.PP
.B post\\-rewrite
re\\-anchors, after
.B git commit \\-\\-amend
or
.BR "git rebase" ,
your memories that were never published and are anchored on a rewritten commit, on its
replacement (signed anew). A memory is published only once its anchor commit is on the remote
(reachable from its remote\\-tracking refs): after a rejected push nothing anchored on the
rejected commits goes out, and after the rebase and the next push the re\\-anchored memories do.
.PP
When the recorded
.B git\\-hn
is gone, the wrappers use
.B git\\-hn
on PATH; when there is none, they say so once and let the push or fetch go on.
.SH HOOK MANAGERS
husky v9 generates
.B .husky/_
(ignored by Git): install chains its stubs and the team's scripts in
.B .husky/
keep running. husky writes its stubs again whenever its own install runs (the
.B prepare
script
.BR husky ,
which every
.B npm install
runs), over git\\-hn's pre\\-push and post\\-rewrite wrappers (the reference\\-transaction
wrapper is not one of husky's hooks and stays): pushes then publish no memory and an amend
re\\-anchors nothing, until
.B git hn hooks install
chains the new stubs again.
.B git hn sync
and
.B git hn memory record
say so in one warning line, and
.B git hn hooks status
says
.BR "not installed" .
.B pre\\-commit install
run after git\\-hn's moves the wrapper to
.B <hook>.legacy
and runs it there (hooks status says so); when git\\-hn had chained pre\\-commit's own hook, the
wrapper skips that copy while pre\\-commit runs it (it would run inside itself and fail the
push), and
.B git hn hooks install
removes it.
Install refuses to write into a hooks directory whose files are tracked or would
show in
.B git status
(a committed core.hooksPath such as
.BR .husky ),
because those files are the team's. Call git\\-hn from the team's own pre\\-push hook instead,
where that is agreed, so that teammates without git\\-hn are not blocked:
.PP
.nf
if command \\-v git\\-hn >/dev/null; then git hn hooks run pre\\-push "$@"; fi
.fi
.PP
git\\-hn publishes memory with a push of its own (in the background, after the checks), which
runs the team's pre\\-push hook again with
.B HN_HOOK_ACTIVE=1
set; a team hook that does slow work (tests, linters) can skip it then:
.PP
.nf
[ \\-n "$HN_HOOK_ACTIVE" ] && exit 0
.fi
.PP
Or run
.B git hn sync
after pushing. Likewise, so that an amend or a rebase re\\-anchors your unpublished memories, the
team's post\\-rewrite hook can call (it passes Git's list of rewritten commits on, so it must not
read its standard input first):
.PP
.nf
if command \\-v git\\-hn >/dev/null; then git hn hooks run post\\-rewrite "$@"; fi
.fi
.PP
Without it, after an amend or a rebase the push and
.B git hn sync
name the memories left on the old commits, and
.B git hn memory reanchor OLD NEW
moves them. The reference\\-transaction wrapper has no such stand\\-in: run
.B git hn sync
to import.
""",
}

HN_MEMORY_7 = """\
.TH HN-MEMORY 7 "{date}" "git-hn {version}" "git-hn Manual"
.SH NAME
hn-memory \\- the Agent Memory Protocol hn\\-memory/0: format, trust model and safety limits
.SH FORMAT
Each memory is a Git commit with exactly two mode\\-100644 blobs:
.B memory.json
(the canonical UTF\\-8 JSON envelope) and
.B signature
(unpadded base64 Ed25519 over those exact bytes). The memory ID is sha256 of memory.json.
Streams are append\\-only chains under refs/hn/memory/<actor>/<stream>; sequence starts at 1 and
both the Git parent and the signed previous ID name the predecessor.
.SH TRUST MODEL
Five judgments stay separate: signature validity proves attribution and integrity; policy
qualification says the actor and kind are listed in the memory section of .hn/policy.json at the
exact query commit; evidence resolution says named objects exist; semantic truth is a human or
agent judgment; and no memory, handoff, signature or selection ever grants prompt authority.
Without a policy every memory is policy\\-missing and default recall returns nothing.
.SH SAFETY LIMITS
Content at most 65536 bytes; 32 topics of at most 128 bytes; 64 evidence items; 128 anchored
paths (4096 bytes each, 65536 in total); handoff lists of 64 entries of 4096 bytes, 65536 bytes
in total; memory.json at most 512 KiB when read. Weak Ed25519 keys (small order, non\\-canonical
encodings) are refused. Requests, policies and private files are read as strict UTF\\-8 JSON
without duplicate keys. Replication budgets bound events, objects and bytes per stream, and a
byte watchdog stops oversized fetches.
.SH SEE ALSO
.BR git-hn (1),
.BR git-hn-memory (1),
.BR git-hn-replication (1),
.BR git-hn-sync (1),
.BR git-hn-hooks (1)
"""


def page(filename: str) -> str:
    name, section, summary, group = PAGES[filename]
    out = [f'.TH {name.upper()} {section} "{DATE}" "git-hn {VERSION}" "git-hn Manual"',
           ".SH NAME", f"{esc(name)} \\- {esc(summary)}", ".SH SYNOPSIS"]
    commands = [(p, c, u) for p, c, u in tree() if group is None or (p and p[0] == group)]
    shown = set()
    from .cli.app import SYNOPSIS

    for path, _cmd, usage in commands:
        text = usage[len("usage: "):] if usage.startswith("usage: ") else "git hn " + " ".join(path)
        for line in SYNOPSIS.get("git hn " + " ".join(path), (text,)):
            if line not in shown:  # subcommands that share one usage line show it once
                shown.add(line)
                out += [".nf", esc(line), ".fi"]
    out.append(PROSE[name].rstrip("\n"))
    out.append(".SH COMMANDS")
    for path, cmd, _usage in commands:
        out += [".SS " + esc("git hn " + " ".join(path))]
        # everything -h shows: each paragraph of the help, the operands, then the options
        paragraphs = [p.replace("\n", " ") for p in (cmd.help or "").strip().split("\n\n") if p.strip()]
        for i, paragraph in enumerate(paragraphs):
            out += ([".PP"] if i else []) + [esc(paragraph)]
        for metavar, help_text in arguments(cmd):
            out += [".TP", "\\fI" + esc(metavar) + "\\fR"]
            if help_text:
                out.append(esc(help_text))
        for names, metavar, help_text in options(cmd):
            out += [".TP", "\\fB" + esc(names) + "\\fR" + (" \\fI" + esc(metavar) + "\\fR" if metavar else "")]
            if help_text:
                out.append(esc(help_text))
    out += [".SH SEE ALSO", ".BR hn-memory (7),"]
    others = [PAGES[f][0] for f in PAGES if f != filename]
    out += [f".BR {o} (1)" + ("," if i < len(others) - 1 else "") for i, o in enumerate(others)]
    return "\n".join(out) + "\n"


def pages() -> dict[str, str]:
    out = {f: page(f) for f in PAGES}
    out["hn-memory.7"] = HN_MEMORY_7.format(date=DATE, version=VERSION)
    return out


# -- shell completion --------------------------------------------------------------------------
#
# Both scripts hold the same generated tables (what follows each command path, the values of
# options that take one, what each command's operands are) and walk the command line the same
# way: words that name subcommands extend the command path, an option that takes a value skips
# it (also as --opt=VALUE), and the word under the cursor is completed from the tables. Memory
# IDs come from the hidden ``git-hn __complete memory-ids`` (``cli.main.complete``), which
# prints verified IDs only. A completed word gets its trailing space in bash under git's own
# completion too, which completes with ``-o nospace`` (``compopt +o nospace``).


def _known_values() -> dict[str, tuple[str, ...]]:
    """Option name -> the fixed set of values it accepts, wherever a command has it."""
    from .core.limits import APPLICABILITY_MODES, ATTEMPT_OUTCOMES, KINDS
    from .core.projection import LIFECYCLES, TRUSTS

    return {"--kind": KINDS, "--applies": APPLICABILITY_MODES, "--outcome": ATTEMPT_OUTCOMES,
            "--lifecycle": LIFECYCLES, "--trust": TRUSTS, "--format": ("jsonl", "markdown"),
            "--rank": ("default", "relevance")}


OPERANDS = {  # command path -> what its operands complete to (memory IDs come from git-hn)
    "memory show": "memory-ids",
    "memory supersede": "memory-targets",
    "memory retract": "memory-targets",
    "memory challenge": "memory-targets",
}


def completion_words() -> dict[str, list[str]]:
    """Command path -> the words that may follow it (subcommands, or a command's options)."""
    words: dict[str, list[str]] = {}
    for path, cmd, _u in tree():
        for i in range(len(path)):
            words.setdefault(" ".join(path[:i]), [])
            if path[i] not in words[" ".join(path[:i])]:
                words[" ".join(path[:i])].append(path[i])
        words[" ".join(path)] = [n.split(", ")[0] for n, _m, _h in options(cmd)]
    return words


def completion_values() -> dict[str, list[str]]:
    """"<command path> <option>" -> the option's values, for every option that takes a value
    (an empty list: any value; the shells then complete file names)."""
    known = _known_values()
    out: dict[str, list[str]] = {}
    for path, cmd, _u in tree():
        for names, metavar, _h in options(cmd):
            if metavar:
                for name in names.split(", "):
                    out[" ".join([*path, name])] = list(known.get(name, ()))
    if "memory recall --lifecycle" in out:
        out["memory recall --lifecycle"].append("all")  # recall's single value all (CONTRACT §7.8)
    return out


def _agents() -> str:
    from .service.setup_content import AGENTS

    return " ".join(AGENTS)


def _arms(patterns: list[str], body: str, indent: str, opener: str = "") -> str:
    """One case arm ``p1|p2|...) body``, its patterns wrapped with backslash-newlines."""
    lines, line = [], indent + opener
    for i, pat in enumerate(patterns):
        piece = pat + ("|" if i < len(patterns) - 1 else ")")
        if len(line) + len(piece) > 100 and line.strip(" " + opener):
            lines.append(line + "\\")
            line = indent + "    "
        line += piece
    lines.append(line + " " + body)
    return "\n".join(lines)


def _grouped(table: dict[str, list[str]]) -> list[tuple[list[str], str]]:
    """(keys, words) pairs: keys sharing the same words, so each case arm is written once."""
    groups: dict[str, list[str]] = {}
    for key, values in sorted(table.items()):
        groups.setdefault(" ".join(values), []).append(key)
    return [(keys, words) for words, keys in groups.items()]


def completion_bash() -> str:
    words = completion_words()
    cases = [f'        "{key}") words="{" ".join(values)}" ;;' for key, values in sorted(words.items())]
    values = [_arms([f'"{k}"' for k in keys], f'values="{vals}" ;;', "        ")
              for keys, vals in _grouped(completion_values())]
    operands = [f'        "{key}") operand={kind} ;;' for key, kind in sorted(OPERANDS.items())]
    agents = _agents()
    return r"""# bash completion for git-hn (generated by python -m git_hn.docgen; do not edit).
# Loaded by git's completion for `git hn` (function _git_hn) and for the git-hn executable.
_git_hn_words() {
    case "$1" in
%s
        *) words="" ;;
    esac
}
# Option $2 of command $1: 0 when it takes a value, with its known values in $values.
_git_hn_value() {
    values=""
    case "$1 $2" in
%s
        *) return 1 ;;
    esac
}
_git_hn_operand() {
    operand=""
    case "$1" in
%s
        "setup") operand=agents ;;
    esac
}
# $1: index of the first word after the command; $2...: how to run git-hn.
_git_hn_complete() {
    local start=$1 cur="${COMP_WORDS[COMP_CWORD]}" prev="" path="" w i words values operand given=0
    shift
    for ((i = start; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        case "$w" in
            -*) if _git_hn_value "$path" "$w"; then
                    [[ ${COMP_WORDS[i + 1]} == "=" ]] && ((i++))  # --opt=VALUE: bash splits at =
                    ((i++))
                fi
                continue ;;
        esac
        _git_hn_words "$path"
        case " $words " in
            *" $w "*) path="${path:+$path }$w" ;;
            *) [[ $w == sha256 || $w == ":" ]] || ((given++)) ;;  # an operand (sha256:ID is three words)
        esac
    done
    ((COMP_CWORD > start)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
    if [[ $cur == "=" ]] && _git_hn_value "$path" "$prev"; then
        cur=""  # right after --opt=: complete the value, which follows the =
    elif [[ $prev == "=" ]] && ((COMP_CWORD - 2 >= start)) && _git_hn_value "$path" "${COMP_WORDS[COMP_CWORD - 2]}"; then
        :
    elif [[ $prev == -* ]] && _git_hn_value "$path" "$prev"; then
        :
    else
        _git_hn_words "$path"
        _git_hn_operand "$path"
        if [[ $cur != -* && -n $operand ]] && ((given == 0)); then
            case "$operand" in
                agents) words="%s" ;;
                memory-*)
                    local -a ids=() targets=()
                    [[ $operand == memory-targets ]] && targets=(--targets)
                    [[ $cur == ":" && $prev == sha256 ]] && cur=""  # bash splits sha256: at the :
                    # IDs are hex words: plain word splitting reads them (no mapfile: bash 3.2)
                    [[ $cur == *[!0-9a-f]* ]] || ids=($("$@" __complete memory-ids \
                        "${targets[@]}" "$cur" 2>/dev/null))
                    COMPREPLY=("${ids[@]}")
                    compopt +o default +o bashdefault 2>/dev/null  # no file names in place of an ID
                    return 0 ;;
            esac
        fi
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return 0
    fi
    COMPREPLY=($(compgen -W "$values" -- "$cur"))
}
# `git hn ...` (git's completion calls _git_hn, with -o nospace: completed words get their space)
_git_hn() {
    local i=1
    while ((i < COMP_CWORD)) && [[ ${COMP_WORDS[i]} != hn ]]; do ((i++)); done
    compopt +o nospace 2>/dev/null
    if declare -F __git >/dev/null; then
        _git_hn_complete $((i + 1)) __git hn  # git's own runner: honours -C and --git-dir
    else
        _git_hn_complete $((i + 1)) git hn
    fi
}
_git_hn_standalone() { _git_hn_complete 1 "$1"; }
complete -o bashdefault -o default -F _git_hn_standalone git-hn
""" % ("\n".join(cases), "\n".join(values), "\n".join(operands), agents)


def completion_zsh() -> str:
    words = completion_words()
    cases = [f"    ({_zsh_pattern(key)}) reply=({' '.join(vals)}) ;;" for key, vals in sorted(words.items())]
    values = [_arms([_zsh_pattern(k) for k in keys], f"reply=({vals}) ;;", "    ", "(")
              for keys, vals in _grouped(completion_values())]
    operands = [f"    ({_zsh_pattern(key)}) REPLY={kind} ;;" for key, kind in sorted(OPERANDS.items())]
    agents = _agents()
    return r"""#compdef git-hn
# zsh completion for git-hn (generated by python -m git_hn.docgen; do not edit).
# Also used by `git hn`, through zsh's git completion (which calls _git-hn); to describe hn
# among git's commands: zstyle ':completion:*:*:git:*' user-commands hn:'project memory'

_git_hn_words() {
  reply=()
  case $1 in
%s
  esac
}

# Option $2 of command $1: 0 when it takes a value, with its known values in $reply.
_git_hn_value() {
  reply=()
  case "$1 $2" in
%s
    (*) return 1 ;;
  esac
}

_git_hn_operand() {
  REPLY=
  case $1 in
%s
    (setup) REPLY=agents ;;
  esac
}

_git-hn() {
  local cmdpath= w cur=${words[CURRENT]} prev=${words[CURRENT-1]} REPLY
  local -a reply ids runner targets
  integer i given=0
  for (( i = 2; i < CURRENT; i++ )); do
    w=${words[i]}
    if [[ $w == -* ]]; then
      [[ $w != *=* ]] && _git_hn_value "$cmdpath" "$w" && (( i++ ))
      continue
    fi
    _git_hn_words "$cmdpath"
    if (( ${reply[(Ie)$w]} )); then cmdpath=${cmdpath:+$cmdpath }$w; else (( given++ )); fi
  done
  if [[ $cur == -*=* ]] && _git_hn_value "$cmdpath" "${cur%%%%=*}"; then
    compset -P '*='
  elif (( CURRENT > 2 )) && [[ $prev == -* && $prev != *=* ]] && _git_hn_value "$cmdpath" "$prev"; then
    :
  else
    _git_hn_operand "$cmdpath"
    if [[ $cur != -* && $REPLY == memory-* ]] && (( given == 0 )); then
      # git-hn by any path; under `git hn`, the -C of the git command line (zsh's _git keeps it)
      if [[ $words[1] == (*/|)git-hn ]]; then runner=($words[1])
      else runner=(git ${opt_args[-C]:+-C} ${opt_args[-C]:+${(Q)${~opt_args[-C]}}} hn); fi
      [[ $REPLY == memory-targets ]] && targets=(--targets)
      [[ $cur == (sha256:|)[0-9a-f]# ]] && ids=(${(f)"$($runner __complete memory-ids \
          $targets $cur 2>/dev/null)"})
      compadd -Q -- $ids
      return
    fi
    if [[ $cur != -* && $REPLY == agents ]] && (( given == 0 )); then
      compadd -- %s
      return
    fi
    _git_hn_words "$cmdpath"
    compadd -- $reply
    return
  fi
  if (( $#reply )); then compadd -- $reply; else _files; fi
}

_git-hn "$@"
""" % ("\n".join(cases), "\n".join(values), "\n".join(operands), agents)


def _zsh_pattern(key: str) -> str:
    """A case pattern matching exactly ``key`` (spaces quoted; the empty path as '')."""
    return "'" + key + "'" if key else "''"


def outputs() -> dict[str, str]:
    out = {os.path.join("man", name): text for name, text in pages().items()}
    out[os.path.join("completion", "git-hn.bash")] = completion_bash()
    out[os.path.join("completion", "_git-hn")] = completion_zsh()
    return out


def main(argv=None) -> int:
    root = (argv or sys.argv[1:] or ["."])[0]
    for rel, text in outputs().items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
