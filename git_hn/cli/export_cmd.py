"""``git hn memory export`` and ``git hn memory import`` (issue 14 item 6): parse, call one service
function, write the result."""

from __future__ import annotations

from ..errors import HnError, UsageError

EXPORT_USAGE = ("usage: git hn memory export [--format jsonl|markdown] [filters] [--output FILE]")
IMPORT_USAGE = "usage: git hn memory import FILE|- [--stream ID] [--allow-secret-shaped] [--json]"


def export(values: dict, positional: list[str]) -> int:
    if positional:
        raise UsageError(EXPORT_USAGE)
    raise HnError("memory export is not built yet")


def import_(values: dict, positional: list[str]) -> int:
    if len(positional) != 1:
        raise UsageError(IMPORT_USAGE)
    raise HnError("memory import is not built yet")
