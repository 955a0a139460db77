"""What a mistyped or unexpected word on a command line or in a request is told (issue 14 item 4,
"errors that say what to do"): the closest valid choice (``did_you_mean``, ``choice``), an unknown
option (``unknown_option``: a synonym from another tool, another command's option), a stray
argument (``unexpected``), and each invalid value of a record's options said together
(``also_unsupported``). The texts go after the error's own, as ``core.hints`` appends them.

Pure. Trusts nothing of the user's input: a suggestion names only values from the fixed
vocabulary it is given (option names, kinds, modes), and repeats an option name only when it looks
like one and an argument only when it is a short word, a small number or a revision's shape
(``_safe``): a pasted token or a password never reaches a terminal log or CI output. Loaded only
on those error paths (``difflib`` only when a choice is sought).
"""

from __future__ import annotations

from .gostr import Lazy

# what a mistyped option name looks like; anything else that starts with "-" (content, a pasted
# token) is never echoed into a terminal log or CI output
_OPTION_SHAPED = Lazy(r"--?[a-z][a-z0-9-]{0,30}")
# a stray argument that is quoted back: a short lowercase word of letters ("extra", "main",
# "hooks"); a pasted token, a password with a digit, content or an ID is not (*secret disclosure*
# into terminal logs and CI output; a review found "hunter2password" quoted)
# (and since a newcomer trial: a small number, "5", a count given without its option, and a
# revision shape, "HEAD", "HEAD~5", "main^2": they say which argument was meant and carry no secret)
_SAFE_ARGUMENT = Lazy(r"(?:[a-z][a-z._-]{0,15}|[0-9]{1,4}|HEAD|FETCH_HEAD|ORIG_HEAD|@)(?:[~^][0-9]{0,3}){0,4}")


def _safe(word: str) -> bool:
    """Whether an error may repeat ``word``: ``_SAFE_ARGUMENT``, after one or two dashes (``-5``,
    a count given as ``git log`` spells it to a command that has none: ``git hn memory log --
    -5`` said only "unexpected argument", naming nothing)."""
    return bool(_SAFE_ARGUMENT.fullmatch(word[2:] if word.startswith("--") else word[1:] if word.startswith("-")
                                         else word))


# options of other tools (or other commands) a user types for one of ours
SYNONYMS = {"-n": ("--max-records",), "--limit": ("--max-records", "--max-count"),
            "--max-count": ("--max-records",), "--count": ("--max-records", "--max-count")}


def closest(value: str, choices) -> str | None:
    """The choice closest to ``value`` (difflib's ratio, cutoff 0.6), or None."""
    import difflib  # only on the error path: the record hot path never pays for it

    found = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(value: str, choices) -> str:
    """``did you mean X?`` for the closest choice, or "" when nothing is close."""
    best = closest(value, choices)
    return f"did you mean {best}?" if best else ""


def unknown_option(name: str, choices, elsewhere=(), operands: bool = True) -> str:
    """``unknown option --qurey; did you mean --query?`` (the suggestion only when one is close).
    An option of another command (``elsewhere``: ``log --at HEAD~5`` was told "did you mean
    --path?") is said to be no option of this one, with no suggestion; a synonym (``recall -n``)
    gets this command's option. A word that is no option's shape (``-5``) is named when
    ``_safe``, and told to go after ``--`` only for a command that takes ``operands``: for one
    that takes none, following that advice led to "unexpected argument" (a differential trial)."""
    if not _OPTION_SHAPED.fullmatch(name):
        text = f'unknown option "{name}"' if _safe(name) else "unknown option"
        return f"{text}; an argument that starts with - goes after --" if operands else text
    text = f"unknown option {name}"
    choices = list(choices)
    synonym = next((c for c in SYNONYMS.get(name, ()) if c in choices), None)
    if synonym:
        return f"{text}; did you mean {synonym}?"
    if name in elsewhere:
        return f"{text} for this command (other git hn commands take it)"
    # compared without the dashes, which every name shares and which would make "--bogus" look
    # like "--base"
    bare = {c.lstrip("-"): c for c in choices}
    best = closest(name.lstrip("-"), bare)
    hint = f"did you mean {bare[best]}?" if best else ""
    return f"{text}; {hint}" if hint else text


def unexpected(args) -> str:
    """``unexpected argument "extra"``: what a command was given beyond its operands. The first
    one is quoted only when it is a short lowercase word (``_safe``); the others are counted."""
    args = list(args)
    if not args:
        return ""
    text = "unexpected argument"
    if _safe(args[0]):
        text += f' "{args[0]}"'
    return text + (f" and {len(args) - 1} more" if len(args) > 1 else "")


def choice(value: str, choices) -> str:
    """``did you mean decision? (valid: a, b, c)``, or ``valid: a, b, c`` when none is close (a
    newcomer trial read ``did you mean decision?; valid: …`` as a stray ``?;``). The value itself
    is not repeated: it is on the user's command line, and need not reach a log."""
    hint = did_you_mean(value, choices)
    valid = "valid: " + ", ".join(choices)
    return f"{hint} ({valid})" if hint else valid


def also_unsupported(given) -> str:
    """After the options a record misses: each of ``given`` (option name, value, valid values)
    whose value is given and not valid, said together (a trial: ``--kind note`` without --at was
    told only of the --at, then of the kind on the next try); "" when none. §10.3's usage text
    stays first: this goes after git-hn's reason."""
    return "".join(f"; also, that {name} is unsupported: {choice(value, choices)}"
                   for name, value, choices in given if value and value not in choices)
