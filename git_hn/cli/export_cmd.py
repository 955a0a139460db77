"""``git hn memory export`` and ``git hn memory import`` (issue 14 item 6): parse, call one service
function, write the result.

Export writes bytes, never through rich: JSON Lines are canonical JSON, and Markdown has already
made author text inert (``core.export``). ``--output FILE`` creates a new file and never
overwrites one.
"""

from __future__ import annotations

import sys

from ..errors import UsageError

EXPORT_USAGE = ("usage: git hn memory export [--format jsonl|markdown] [filters] [--output FILE]")
IMPORT_USAGE = "usage: git hn memory import FILE|- [--stream ID] [--allow-secret-shaped] [--json]"

__all__ = ["EXPORT_USAGE", "IMPORT_USAGE", "export", "import_"]


def export(values: dict, positional: list[str]) -> int:
    from .options import stray

    if positional:
        raise stray(EXPORT_USAGE, positional)
    output = values.get("output")
    if output is not None and output == "":
        raise UsageError(f"{EXPORT_USAGE}; --output needs a file name")
    if output == "-":  # (as --input - and import - read stdin: never a file named "-")
        output = None
    from ..service import export as service
    from ..service.names import actor_filters
    from ..store.repo import open_repo

    repo = open_repo()
    req = service.request(kind=values.get("kind") or (), actor=actor_filters(repo, values.get("actor")),
                          topic=values.get("topic") or (), path=values.get("path"),
                          subject=values.get("subject"), lifecycle=values.get("lifecycle") or (),
                          trust_=values.get("trust") or (), query=values.get("query"))
    found: list = []
    chunks = service.chunks_of(repo, req, values.get("at") or "HEAD", values.get("format") or "jsonl", found)
    if output is not None:
        service.write_new_file(output, chunks)
        _hints(repo, req, values, found)
        return 0
    out = sys.stdout.buffer
    human = (values.get("format") or "jsonl") == "markdown"
    from . import render

    for chunk in chunks:
        out.write(render.for_terminal(chunk) if human else chunk)
    out.flush()
    _hints(repo, req, values, found)
    return 0


def _hints(repo, req, values: dict, found: list) -> None:
    """recall's and log's hints for a ``--path`` that matched nothing (``advice.path_hint``), on
    stderr: stdout (or the file) holds the export alone (a trial: ``export --path sub``, a
    directory, printed nothing at all and said nothing)."""
    if req.path and not sum(found):
        from . import advice

        advice.path_hint(repo, 0, req.path, None, values.get("at") or "HEAD", req, "export")


def import_(values: dict, positional: list[str]) -> int:
    from .options import stray

    if len(positional) > 1:
        raise stray(IMPORT_USAGE, positional[1:])
    if not positional or positional[0] == "":
        raise UsageError(f"{IMPORT_USAGE}; missing FILE (- reads stdin)")
    from ..service import import_drafts as service
    from ..store.repo import open_repo
    from . import render

    repo = open_repo()
    data = service.read_file(positional[0])
    result = service.import_drafts(repo, data, stream=values.get("stream"),
                                   allow_secret_shaped=bool(values.get("allow_secret_shaped")))
    if values.get("json"):
        render.json_line(service.result_json(result))
    elif render.on_terminal():  # (record's layout: short IDs, the author's name; a pipe keeps the lines)
        from ..service.names import author_names
        from . import terminal

        first = [line.memory_id for line in result.lines][:1]
        render.write(terminal.imported(result, author_names(repo, first).get(first[0], "") if first else "",
                                       bool(values.get("no_color"))))
    else:
        render.lines(service.result_lines(result))
    if result.oversized:  # (stderr, with --json too: an agent reads it)
        from ..service.requests import recall_bound_note
        from .advice import warn

        many = len(result.oversized) > 1
        numbers = ", ".join(str(n) for n, _size in result.oversized)
        warn(recall_bound_note(max(size for _n, size in result.oversized),
                               what=f"import line{'s' if many else ''} {numbers}: the content is"
                                    + (" up to" if many else ""), it="one of them" if many else "it"))
    return 0
