"""``git hn memory reanchor OLD NEW``: parse, call ``service.reanchor``, render; warn of the
paths the new commit no longer has. Nothing here imports typer."""

from __future__ import annotations

from ..errors import UsageError
from . import advice, render

REANCHOR_USAGE = "usage: git hn memory reanchor OLD NEW [--json]"


def reanchor_command(words: list[str], as_json: bool) -> int:
    from ..core.gostr import one_line
    from ..service import reanchor
    from ..store.repo import open_repo

    if len(words) != 2:
        from ..core import hints

        missing = ("missing OLD and NEW", "missing NEW")[len(words)] if len(words) < 2 else ""
        raise UsageError(hints.append(REANCHOR_USAGE, missing or hints.unexpected(words[2:])))
    result = reanchor.reanchor(open_repo(), words[0], words[1])
    if as_json:
        render.json_line(reanchor.result_json(result))
    else:
        render.lines(reanchor.result_lines(result))
    advice.signed_notes([(path, f"memory {mid} names --path {one_line(path)}, which is not in commit "
                                f"{result.new}; it is recorded as absent") for mid, path in result.absent])
    return 0
