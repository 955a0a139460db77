"""``git hn memory record|handoff`` without importing typer (the agent hot path).

Parses with the shared option tables (``options.parse``) and calls the same command function the
typer commands call, so both entries behave identically; a test compares them.
"""

from __future__ import annotations

from . import options
from .commands import record_command

HANDOFF_USAGE = "usage: git hn memory handoff --at REV --applies MODE --input FILE|- --json"
RECORD_USAGE = "usage: git hn memory record --kind KIND --at REV --applies MODE --content TEXT"


def run_record(args: list[str], handoff: bool) -> int:
    opts = options.HANDOFF_OPTS if handoff else options.RECORD_OPTS
    values, positional = options.parse(args, opts, HANDOFF_USAGE if handoff else RECORD_USAGE)
    return record_command(values, positional, handoff=handoff)


def run_recall(args: list[str]) -> int:
    from .commands import RECALL_USAGE, recall_command
    from ..errors import UsageError

    values, positional = options.parse(args, options.RECALL_OPTS, RECALL_USAGE)
    if positional:
        raise UsageError(RECALL_USAGE)
    return recall_command(values)
