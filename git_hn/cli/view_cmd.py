"""``git hn memory view`` (issue 14 item 3): parse, call one service function, write the page."""

from __future__ import annotations

from ..errors import HnError, UsageError

VIEW_USAGE = "usage: git hn memory view [--at REV] [--output FILE] [--open]"


def view(values: dict, positional: list[str]) -> int:
    if positional:
        raise UsageError(VIEW_USAGE)
    raise HnError("memory view is not built yet")
