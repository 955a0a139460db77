"""click's usage errors in git-hn's words (CONTRACT §0.5, §10.1): the command path a failed
argv names, and what click found wrong as one short clause for the ``usage: …`` line
(``app.run_app`` raises it as a ``UsageError``). Never click's own text (multi-line, with a "Try"
hint).

Owns no state. Trusts click's exception types and fields (``typer._click``, the copy typer
ships) and the command tree ``app.click_command`` built; an unknown word the user gave is said
back only through ``core.mistyped``, which quotes it.
"""

from __future__ import annotations

import re

from ..core import hints, mistyped


def command_path(cmd, argv: list[str]) -> str:
    """The command path named by the leading words of argv (click's error context may be absent)."""
    path = "git hn"
    for word in argv:
        sub = getattr(cmd, "commands", {}).get(word)
        if sub is None:
            break
        cmd, path = sub, f"{path} {word}"
    return path


# click's text for operands beyond a command's: "Got unexpected extra argument(s) (a b)"
_EXTRA = re.compile(r"Got unexpected extra argument(?:s|\(s\))? \((.*)\)\Z", re.DOTALL)


def click_hint(exc, cmd, argv: list[str]) -> str:
    """What click found wrong, as one short clause: the unknown option and the closest known one,
    an option without its value, or the missing option. Never click's own text (multi-line,
    with a "Try" hint). click's error context may be absent: the command is found from argv."""
    from typer import _click

    for word in argv:
        sub = getattr(cmd, "commands", {}).get(word)
        if sub is None:
            break
        cmd = sub
    params = list(getattr(cmd, "params", ()))
    if isinstance(exc, _click.exceptions.NoSuchOption):
        known = [n for p in params for n in getattr(p, "opts", ()) if n.startswith("--")]
        from .options import every_option

        operands = any(p.param_type_name == "argument" and not p.hidden for p in params)
        return mistyped.unknown_option(exc.option_name.partition("=")[0], known, every_option(), operands)
    if isinstance(exc, _click.exceptions.BadOptionUsage):
        param = next((p for p in params if exc.option_name in getattr(p, "opts", ())), None)
        if param is None:
            return ""
        if getattr(param, "is_flag", False):
            return f"{exc.option_name} takes no value"
        return f"{exc.option_name} needs a value {param.metavar or param.name.upper()}"
    if isinstance(exc, _click.exceptions.MissingParameter) and exc.param is not None:
        names = [n for n in getattr(exc.param, "opts", ()) if n.startswith("--")]
        return f"missing {names[0]}" if names else ""
    if isinstance(exc, _click.exceptions.BadParameter) and exc.param is not None:
        # click's text quotes the value given; ours says what the option takes
        names = [n for n in getattr(exc.param, "opts", ()) if n.startswith("--")]
        name = names[0] if names else exc.param.human_readable_name
        if isinstance(exc.param.type, _click.types.IntParamType):
            return hints.whole_number(name)
        return f"invalid value for {name}"
    extra = _EXTRA.match(exc.message) if type(exc) is _click.exceptions.UsageError else None
    if extra:
        # the arguments are joined by spaces, so only one word alone is taken for one argument
        # (and quoted when ``mistyped.unexpected`` may)
        inside = extra.group(1)
        return mistyped.unexpected([inside]) if " " not in inside else "unexpected arguments"
    return ""
