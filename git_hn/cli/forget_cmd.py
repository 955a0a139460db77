"""``git hn replication forget-anchors REMOTE [COMMIT]... [--dry-run] [--json]``: parse, call
``service.replication.forget``, render. Nothing here imports typer."""

from __future__ import annotations

from ..errors import UsageError
from . import render

FORGET_USAGE = "usage: git hn replication forget-anchors REMOTE [COMMIT]... [--dry-run] [--json]"


def forget_anchors_command(words: list[str], dry_run: bool, as_json: bool) -> int:
    from ..service.replication import forget
    from ..store.repo import open_repo

    if not words:
        raise UsageError(f"{FORGET_USAGE}; missing REMOTE")
    remote = words[0]
    forgotten = forget.forget(open_repo(), remote, words[1:], dry_run)
    if as_json:
        render.json_line(forget.result_json(remote, forgotten, dry_run))
        return 0
    render.lines(forget.result_lines(remote, forgotten, dry_run, everything=len(words) == 1))
    if forgotten:
        render.hint(forget.after_hint(remote, forgotten, dry_run))
    return 0
