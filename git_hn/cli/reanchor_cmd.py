"""``git hn memory reanchor OLD NEW`` and ``OLD --drop``: parse, call ``service.reanchor``,
render; warn of the paths the new commit no longer has. Nothing here imports typer."""

from __future__ import annotations

from ..errors import UsageError
from . import advice, render

REANCHOR_USAGE = "usage: git hn memory reanchor OLD NEW [--files-only]|--drop [--json]"


def reanchor_command(words: list[str], as_json: bool, drop: bool = False, files_only: bool = False) -> int:
    from ..service import reanchor
    from ..store.repo import open_repo

    if drop and files_only:
        from ..core import hints

        raise UsageError(hints.append(REANCHOR_USAGE, "--files-only moves memories to NEW, --drop discards them: "
                                      "give one"))
    if drop:
        return _drop(words, as_json)
    if len(words) != 2:
        from ..core import hints, mistyped

        missing = ("missing OLD and NEW", "missing NEW")[len(words)] if len(words) < 2 else ""
        raise UsageError(hints.append(REANCHOR_USAGE, missing or mistyped.unexpected(words[2:])))
    result = reanchor.reanchor(open_repo(), words[0], words[1], files_only)
    if as_json:
        render.json_line(reanchor.result_json(result))
    else:
        render.lines(_capitalised(reanchor.result_lines(result)))
    advice.signed_notes(list(result.absent))
    if result.detached:
        render.hint(reanchor.detached_hint(result))
    return 0


def _drop(words: list[str], as_json: bool) -> int:
    """``reanchor OLD --drop`` (git-hn): ``service.reanchor.drop``."""
    from ..service import reanchor
    from ..store.repo import open_repo

    if len(words) != 1:
        from ..core import hints, mistyped

        raise UsageError(hints.append(REANCHOR_USAGE, "missing OLD" if not words else
                                      f"--drop takes no NEW ({mistyped.unexpected(words[1:])})"))
    result = reanchor.drop(open_repo(), words[0])
    if as_json:
        render.json_line(reanchor.drop_json(result))
    else:
        render.lines(_capitalised(reanchor.drop_lines(result)))
    return 0


def _capitalised(lines: list[str]) -> list[str]:
    """The command's own lines start with a capital, as every other command's do (a newcomer
    trial: ``dropped 1 unpublished memory …``); the hooks print the same text after ``git-hn: ``,
    where it stays lowercase."""
    return [line[:1].upper() + line[1:] for line in lines]
