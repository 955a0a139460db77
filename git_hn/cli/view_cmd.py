"""``git hn memory view`` (issue 14 item 3): parse, call one service function, write the page.

Prints the path written, one line on stdout. ``--open`` then hands the page's ``file://`` URL to
Python's ``webbrowser`` (which honours ``BROWSER``); when no browser can be started the page is
still written and a warning says where it is.
"""

from __future__ import annotations

import sys

from ..errors import UsageError

VIEW_USAGE = "usage: git hn memory view [--at REV] [--output FILE] [--open]"


def view(values: dict, positional: list[str]) -> int:
    from .options import stray

    if positional:
        raise stray(VIEW_USAGE, positional)
    output = values.get("output")
    if output is not None and output == "":
        raise UsageError(f"{VIEW_USAGE}; --output needs a file name")
    if output == "-":
        raise UsageError(f"{VIEW_USAGE}; the page is a file: name one (./- for a file called -), or leave "
                         "--output out for the default")
    from ..core.gostr import one_line
    from ..service import view as service
    from ..store.repo import open_repo

    path, drift, empty = service.write_page(open_repo(), values.get("at") or "HEAD", output)
    sys.stdout.write(one_line(path) + "\n")
    sys.stdout.flush()
    from . import render

    for text in (drift, empty):  # (the page says them too: under its heading, in its empty timeline)
        if text:
            render.hint(text)
    if values.get("open"):
        import pathlib
        import webbrowser

        try:
            opened = webbrowser.open(pathlib.Path(path).as_uri())
        except webbrowser.Error:
            opened = False
        if not opened:
            from ..core.gostr import echoed

            render.warnings([f"no browser could be opened; the page is {echoed(path)}"])
    return 0
