"""Command bodies: each turns parsed values into one service call and renders the result.

Typer (``app``) and the fast path (``fast``) both call these, so argument semantics live in one
place. Nothing here imports typer.
"""

from __future__ import annotations

from ..core.limits import LIMITS
from ..errors import InputError, UsageError
from . import render

RECORD_FIELD_DESTS = ("kind", "at", "applies", "content", "content_file", "subject", "outcome",
                      "stream", "actor", "topic", "evidence", "path", "blob", "completed",
                      "assumption", "blocker", "next_action")


def record_command(values: dict, positional: list[str], *, handoff: bool) -> int:
    from ..service import memory as service
    from ..service.requests import RecordFlags, read_explicit, request_from_flags, request_from_input
    from ..store.repo import open_repo

    flags = RecordFlags(**{k: values[k] for k in RECORD_FIELD_DESTS if k in values},
                        positional=list(positional))
    if values.get("input") is not None:
        extra = flags.items()
        extra.pop("positional")
        if handoff:
            extra.pop("at")
            extra.pop("applies")
        if positional or any(v not in (None, []) for v in extra.values()):
            raise InputError("--input cannot be combined with record flags or positional content")
        if not values.get("json"):
            raise InputError("--input requires --json")
        repo = open_repo()
        data = read_explicit(values["input"], LIMITS.max_request)
        req = request_from_input(repo, data, handoff=handoff, handoff_at=flags.at,
                                 handoff_applies=flags.applies)
        result = service.record(repo, req, from_input=True)
    else:
        repo = open_repo()
        req = request_from_flags(repo, flags, kind="handoff" if handoff else None)
        result = service.record(repo, req)
    if values.get("json"):
        render.json_line(service.result_json(result))
    else:
        render.lines(service.result_lines(result))
    return 0


def init_command(name: str | None, extra: list[str]) -> int:
    from ..core.gostr import one_line, short_id
    from ..store import identity
    from ..store.repo import open_repo

    if extra:
        raise UsageError("usage: git hn init [--name NAME]")
    repo = open_repo()
    ident, path = identity.create(repo, name)
    render.lines([f"Created identity {one_line(ident.name)} ({short_id(ident.actor)})",
                  f"Private identity stored in {path}"])
    return 0


def identity_command(which: str) -> int:
    from ..core.gostr import one_line
    from ..store import identity
    from ..store.repo import open_repo

    repo = open_repo()
    if which == "list":
        render.lines([f"{ident.actor}  {('active' if active else 'stored'):<7}  {one_line(ident.name)}"
                      for ident, active in identity.list_identities(repo)])
        return 0
    ident = identity.load_active(repo)
    if which == "show":
        render.lines([f"Name:   {one_line(ident.name)}", f"Actor:  {ident.actor}",
                      f"Ref:    refs/hn/actors/{ident.actor}"])
    else:
        render.lines([f"Name:       {one_line(ident.name)}", f"Actor:      {ident.actor}",
                      f"Public key: {ident.public_key}"])
    return 0


def show_command(query: str, as_json: bool) -> int:
    from ..service import show
    from ..store.repo import open_repo

    repo = open_repo()
    doc = show.show(repo, query)
    if as_json:
        render.json_line(doc)
    else:
        render.lines(show.human_lines(doc))
    return 0


def demo_command() -> int:
    from ..service.demo import run_demo

    run_demo(render.lines)
    return 0
