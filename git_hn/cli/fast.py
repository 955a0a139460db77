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
    from .log_cmd import git_counts
    from .recall_cmd import RECALL_USAGE, recall_command

    values, positional = options.parse(git_counts(args, options.RECALL_OPTS, bare=False), options.RECALL_OPTS,
                                       RECALL_USAGE, operands=False)
    if positional:
        raise options.stray(RECALL_USAGE, positional)
    return recall_command(values)


# -- the read and lifecycle commands, typer-free (``app`` registers the same bodies) --------------


SHOW_USAGE = "usage: git hn memory show MEMORY [--json]"


def show(values: dict, positional: list[str]) -> int:
    from ..errors import UsageError
    from .commands import show_command

    if not positional:
        raise UsageError(f"{SHOW_USAGE}; missing MEMORY")
    if len(positional) > 1:
        raise options.stray(SHOW_USAGE, positional[1:])
    return show_command(positional[0], bool(values.get("json")), bool(values.get("no_color")))


def brief(values: dict, positional: list[str]) -> int:
    from .commands import BRIEF_USAGE, brief_command

    if positional:
        raise options.stray(BRIEF_USAGE, positional)
    return brief_command(values.get("at"), values.get("max_bytes"), bool(values.get("include_untrusted")),
                         bool(values.get("json")), bool(values.get("markdown")), values.get("base"),
                         list(values.get("path") or ()), list(values.get("topic") or ()))


def digest(values: dict, positional: list[str]) -> int:
    from .commands import DIGEST_USAGE, digest_command

    if positional:
        raise options.stray(DIGEST_USAGE, positional)
    return digest_command(values.get("month"), bool(values.get("include_untrusted")), bool(values.get("json")),
                          bool(values.get("no_color")))


def lifecycle(operation: str):
    def body(values: dict, positional: list[str]) -> int:
        from .lifecycle_cmd import LIFECYCLE_USAGE, lifecycle_command

        if len(positional) > 1:
            raise options.stray(LIFECYCLE_USAGE[operation], positional[1:])
        return lifecycle_command(operation, positional[0] if positional else None, values.get("reason"),
                                 list(values.get("evidence") or []), values.get("stream"),
                                 bool(values.get("json")), bool(values.get("allow_secret_shaped")),
                                 bool(values.get("no_color")))

    return body


def supersede(values: dict, positional: list[str]) -> int:
    from .lifecycle_cmd import supersede_command

    return supersede_command(values, positional)


# (options table, body, usage) of every ``git hn memory`` subcommand parsed without typer
TABLES = {
    "show": ("SHOW_OPTS", show, SHOW_USAGE),
    "brief": ("BRIEF_OPTS", brief, None),
    "digest": ("DIGEST_OPTS", digest, None),
    "retract": ("RETRACT_OPTS", lifecycle("retract"), None),
    "challenge": ("CHALLENGE_OPTS", lifecycle("challenge"), None),
    "supersede": ("SUPERSEDE_OPTS", supersede, None),
    "log": ("LOG_OPTS", lambda values, positional: _log(values, positional), None),
    "export": ("EXPORT_OPTS", lambda values, positional: _export("export", values, positional), None),
    "import": ("IMPORT_OPTS", lambda values, positional: _export("import_", values, positional), None),
    "view": ("VIEW_OPTS", lambda values, positional: _view(values, positional), None),
}


def _export(name: str, values: dict, positional: list[str]) -> int:
    from . import export_cmd

    return getattr(export_cmd, name)(values, positional)


def _view(values: dict, positional: list[str]) -> int:
    from .view_cmd import view

    return view(values, positional)


def _log(values: dict, positional: list[str]) -> int:
    from .log_cmd import log

    return log(values, positional)


def usage_of(sub: str) -> str:
    """The usage line of one fast-path command (only its own module is loaded for it)."""
    from . import commands

    if sub in ("retract", "challenge", "supersede"):
        from . import lifecycle_cmd

        return lifecycle_cmd.SUPERSEDE_USAGE if sub == "supersede" else lifecycle_cmd.LIFECYCLE_USAGE[sub]
    if sub == "show":
        return SHOW_USAGE
    if sub in ("brief", "digest"):
        return getattr(commands, f"{sub.upper()}_USAGE")
    if sub == "log":
        from .log_cmd import LOG_USAGE

        return LOG_USAGE
    if sub in ("export", "import"):
        from . import export_cmd

        return getattr(export_cmd, f"{sub.upper()}_USAGE")
    from .view_cmd import VIEW_USAGE

    return VIEW_USAGE


def run_memory(sub: str, args: list[str]) -> int:
    table, body, _usage = TABLES[sub]
    if sub == "log":
        from .log_cmd import git_counts

        args = git_counts(args)
    values, positional = options.parse(args, getattr(options, table), usage_of(sub), sub not in NO_OPERANDS)
    return body(values, positional)


NO_OPERANDS = ("brief", "digest", "log", "export", "view")  # (the commands of ``TABLES`` that take no word)
