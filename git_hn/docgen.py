"""Man pages and shell completion generated from the CLI's own command definitions.

Owns ``man/*.1``, ``man/hn-memory.7`` and ``completion/`` in the source tree: they are produced
by ``python -m git_hn.docgen`` from the typer/click command tree plus the prose of ``manprose``,
and a test regenerates them and compares, so documentation and completion cannot drift from the
options the CLI actually accepts.
"""

from __future__ import annotations

import os
import sys

from .manprose import HN_MEMORY_7, PROSE
from .version import VERSION

DATE = "2026-11-30"


# the top-level commands in the order of ``git hn -h`` (``main.SUMMARY``): the memory commands
# together, then whose memory to trust, then how it travels
TOP_ORDER = ("init", "identity", "memory", "policy", "replication", "sync", "hooks", "mcp", "setup", "demo",
             "version")


def tree():
    """(path, command) pairs for every leaf command: the top-level ones in ``TOP_ORDER``, the
    others in definition order."""
    from .cli.app import USAGE, click_command

    out = []

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            names = list(subs)
            if not path:
                names.sort(key=lambda n: TOP_ORDER.index(n) if n in TOP_ORDER else len(TOP_ORDER))
            for name, sub in ((n, subs[n]) for n in names):
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
    "git-hn-identity.1": ("git-hn-identity", "1", "the signing identities of a clone", "identity"),
    "git-hn-memory.1": ("git-hn-memory", "1", "record, correct, inspect and recall memory", "memory"),
    "git-hn-policy.1": ("git-hn-policy", "1", "whose memory to trust, committed in .hn/policy.json", "policy"),
    "git-hn-replication.1": ("git-hn-replication", "1", "choose which remote streams sync imports",
                             "replication"),
    "git-hn-sync.1": ("git-hn-sync", "1", "import selected memory streams and publish your own", "sync"),
    "git-hn-hooks.1": ("git-hn-hooks", "1", "memory that follows git push and git fetch", "hooks"),
}


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
    from .core.limits import LIFECYCLES, TRUSTS

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
    # ``git hn hooks run HOOK``: the hook names (its operand; what the wrappers run)
    from .service.hook_location import HOOKS

    if "hooks run" in words:
        words["hooks run"] = [*HOOKS, *words["hooks run"]]
    # ``git hn help [COMMAND]`` (main.dispatch, outside typer): that command's -h; after a group,
    # its subcommands (a review: nothing was offered after ``help memory``)
    for path, following in list(words.items()):
        if path:
            words["help " + path] = [w for w in following if not w.startswith("-")]
    words["help"] = list(words[""])
    words[""].append("help")
    return {path: following for path, following in words.items() if following or not path.startswith("help ")}


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
