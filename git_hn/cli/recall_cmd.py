"""``git hn memory recall`` (CONTRACT §7.2): the flags or the strict ``--input`` request, one call
to the recall service, the document, then the hints on stderr.

Typer (``app``) and the fast path (``fast``) both call ``recall_command``. Nothing here imports
typer.
"""

from __future__ import annotations

from ..core.limits import LIMITS
from ..errors import InputError
from . import advice, render
from .commands import parse_int

RECALL_USAGE = "usage: git hn memory recall [filters] [bounds] [--json]"
RECALL_FILTERS = ("at", "subject", "path", "topic", "kind", "actor", "lifecycle", "trust", "query", "rank",
                  "max_records", "n", "max_content_bytes", "max_bytes", "cursor", "include_untrusted")


def recall_command(values: dict) -> int:
    from ..core import recall as core
    from ..service import recall as service
    from ..store.repo import open_repo

    stopped: list[str] = []  # the bounds a truncated page stopped at (the terminal names them)
    if values.get("input") is not None:
        from ..service.requests import read_explicit

        if not values.get("json") or any(values.get(k) not in (None, [], False) for k in RECALL_FILTERS):
            raise InputError("--input requires --json and cannot be combined with recall flags")
        repo = open_repo()
        req, _at = core.parse_request(read_explicit(values["input"], LIMITS.max_request, option="--input"))
        doc, hidden = service.recall_counted(repo, req, from_input=True)
    else:
        records = "--max-records"
        if values.get("n") is not None:  # (git-hn: log's -n N, for a newcomer who typed recall -n 1)
            if values.get("max_records") is not None:
                from ..errors import UsageError

                raise UsageError(f"{RECALL_USAGE}; give -n N or --max-records N once")
            records, values = "-n", {**values, "max_records": values["n"]}
        bounds = {name: parse_int(values.get(key), RECALL_USAGE, name)
                  for name, key in ((records, "max_records"), ("--max-content-bytes", "max_content_bytes"),
                                    ("--max-bytes", "max_bytes"))}
        for name, value in bounds.items():
            if value is not None and value <= 0:  # §7.4's text first, then which bound (a newcomer trial)
                raise InputError(f"recall bounds must be positive; {name} takes 1 or more")
        max_records, max_content = bounds[records], bounds["--max-content-bytes"]
        from ..service.names import actor_filters

        repo = open_repo()
        req = core.RecallRequest(
            at_commit=values.get("at") or "HEAD", subject=values.get("subject") or "",
            path=values.get("path") or "", topic=tuple(values.get("topic") or ()),
            kind=tuple(values.get("kind") or ()), actor=actor_filters(repo, values.get("actor")),
            lifecycle=tuple(values.get("lifecycle") or ()), trust=tuple(values.get("trust") or ()),
            query=values.get("query") or "",
            max_records=core.DEFAULT_MAX_RECORDS if max_records is None else max_records,
            max_content_bytes=core.DEFAULT_MAX_CONTENT if max_content is None else max_content,
            cursor=values.get("cursor") or "", include_untrusted=bool(values.get("include_untrusted")),
            rank=values.get("rank") or "", max_bytes=bounds["--max-bytes"] or 0)
        doc, hidden = service.recall_counted(repo, req, stopped=stopped)
    if values.get("json"):
        render.json_line(doc)
    elif render.on_terminal():
        from ..service.names import author_names, known_authors
        from . import terminal

        names = author_names(repo, [row["id"] for row in doc["memories"]])
        render.write(terminal.recall(doc, names, bool(values.get("no_color")),
                                     known=known_authors(repo) if doc["memories"] else (), stopped=stopped))
    else:
        render.lines(core.human_lines(doc))
        advice.challenged_recall(doc)
    from .trust import empty_hint, hint

    # issue 13: say what the trust policy hid, on stderr; with --json too (an agent trial: the form
    # agents are told to use left an untrusted memory out without a word; the document is the contract's)
    hint(hidden, repo, req.at_commit)
    asked = core.normalize(req) if req.path and not doc["matched"] else None  # (as the service took it)
    said = advice.path_hint(repo, doc["matched"], req.path, hidden, req.at_commit, asked) \
        or (not any(hidden.values()) and advice.shallow_hint(repo, doc))
    said = advice.elsewhere_hint(repo, hidden) if not said else said  # (also when others matched)
    if not values.get("json"):  # (f163: others matched; those of work not merged here, counted)
        advice.unmerged_hint(repo, hidden)
    empty = not said and not doc["matched"] and not any(hidden.values()) and not values.get("json")
    if not (empty and empty_hint(repo)):  # (the empty answer's hint says it in its own words: once)
        advice.no_selection(repo, saved_any=True)  # (the brief's header line: an answer without the team's memory)
    from ..service.policy_drift import shown_trusted

    advice.policy_drift(repo, req.at_commit or "HEAD", shown_trusted(doc))
    advice.not_imported(repo)
    advice.failed_imports(repo)
    advice.lost_streams(repo)
    return 0
