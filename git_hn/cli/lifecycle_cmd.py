"""``git hn memory supersede``, ``retract`` and ``challenge``: parse, find the target, call one
``service.lifecycle`` function, render, and add the hints a correction needs. A stop that comes
once the new memory is stored waits for the command's output, so its ID is still printed
(``store.process.stops_after_write``, as ``memory record``'s). Nothing here imports typer."""

from __future__ import annotations

from ..core.limits import LIMITS
from ..errors import InputError, UsageError
from . import advice, render
from .commands import RECORD_FIELD_DESTS, _emit_result, _evidence, _target

SUPERSEDE_USAGE = "usage: git hn memory supersede MEMORY [record fields]"
LIFECYCLE_USAGE = {  # retract takes no --evidence, so its usage names none (issue 14)
    "retract": "usage: git hn memory retract MEMORY --reason REASON",
    "challenge": "usage: git hn memory challenge MEMORY --reason REASON [--evidence TYPED-ID]",
}


def _after_write(command):
    """``command`` in a ``stops_after_write`` scope (imported when the command runs)."""
    def scoped(*args, **kwargs):
        from ..store.process import stops_after_write

        with stops_after_write():
            return command(*args, **kwargs)
    return scoped


@_after_write
def supersede_command(values: dict, positional: list[str]) -> int:
    from ..service import lifecycle
    from ..service.requests import RecordFlags, read_explicit, request_from_flags, request_from_input
    from ..service.show import is_query
    from ..store.repo import open_repo

    if not positional or not is_query(positional[0]):
        raise UsageError(_named(SUPERSEDE_USAGE, positional[0] if positional else None))
    query, rest = positional[0], positional[1:]
    refuse = not values.get("allow_retracted")
    flags = RecordFlags(**{k: values[k] for k in RECORD_FIELD_DESTS if k in values}, positional=rest)
    if values.get("input") is not None:
        extra = flags.items()
        if values.get("edit") or values.get("same_content") or any(v not in (None, []) for v in extra.values()):
            raise InputError("--input cannot be combined with record flags or positional content")
        if not values.get("json"):
            raise InputError("--input requires --json")
        repo = open_repo()
        target = _target(repo, query)
        req = request_from_input(repo, read_explicit(values["input"], LIMITS.max_request, option="--input"),
                                 whole=True)
        earlier = lifecycle.successors(repo, target)
        result = lifecycle.supersede(repo, target, req, from_input=True, refuse_retracted=refuse,
                                     allow_secret_shaped=bool(values.get("allow_secret_shaped")),
                                     refuse_branch=not values.get("allow_branch"))
    else:
        from ..service.editor import EditFile

        repo = open_repo()
        target = _target(repo, query)
        flags.evidence = _evidence(repo, flags.evidence)
        # an edited text is kept, and named by the error, until it is signed (as COMMIT_EDITMSG)
        with EditFile(repo) as edit:
            notes: list = []
            flags = lifecycle.inherit(repo, target, flags, edit=edit if values.get("edit") else None,
                                      refuse_retracted=refuse, refuse_branch=not values.get("allow_branch"),
                                      notes=notes, same_content=bool(values.get("same_content")))
            req = request_from_flags(repo, flags, notes=notes, typed=list(values.get("path") or []))
            if values.get("same_content") or values.get("edit"):
                lifecycle.check_changed(repo, target, req.record, edit if values.get("edit") else None)
            if values.get("outcome") is not None:  # an outcome typed here, as for record (issue 14)
                from ..service.requests import check_flag_outcome

                check_flag_outcome(req.record)
            earlier = lifecycle.successors(repo, target)
            result = lifecycle.supersede(repo, target, req, refuse_retracted=refuse,
                                         allow_secret_shaped=bool(values.get("allow_secret_shaped")),
                                         refuse_branch=not values.get("allow_branch"))
        advice.signed_notes(notes)
    advice.recall_bound(req.record.content)
    advice.hooks_gone(repo)
    code = _emit_result(result, bool(values.get("json")), bool(values.get("no_color")))
    branched = lifecycle.branching_hint(target, earlier, result)
    if branched:
        render.hint(branched)
    advice.challenges_left(repo, target, result)
    if not result.replayed:
        advice.stale_successor(repo, result)
    advice.new_stream(result, repo, req.stream)
    advice.hidden(repo, result)
    advice.waits(repo, result)
    return code


def _named(usage: str, target: str | None, missing: str = "") -> str:
    """The usage line, and what is wrong: ``missing MEMORY`` when no target is given (a newcomer
    trial: ``supersede --content x`` printed the usage alone), what names a memory when
    ``target`` names none, else ``missing`` (such as ``--reason``)."""
    from ..service.show import is_query, not_a_name

    if target is None:
        return f"{usage}; missing MEMORY" + (f" and {missing}" if missing else "")
    if is_query(target):
        return f"{usage}; missing {missing}" if missing else usage
    return (f"{usage}; MEMORY is a memory ID (sha256: and 64 lowercase hex digits) or at least 8 of its first ones "
            f"({not_a_name(target)})")


@_after_write
def lifecycle_command(operation: str, target: str | None, reason: str | None, evidence: list[str],
                      stream: str | None, as_json: bool, allow_secret_shaped: bool = False,
                      no_color: bool = False) -> int:
    from ..service import lifecycle
    from ..service.show import is_query
    from ..store.repo import open_repo

    usage = LIFECYCLE_USAGE[operation]
    if target is None or not is_query(target) or reason is None:
        raise UsageError(_named(usage, target, "--reason" if reason is None else ""))
    repo = open_repo()
    target = _target(repo, target)
    if operation == "retract":
        result = lifecycle.retract(repo, target, reason, stream,
                                   allow_secret_shaped=allow_secret_shaped)
    else:
        result = lifecycle.challenge(repo, target, reason, _evidence(repo, evidence), stream,
                                     allow_secret_shaped=allow_secret_shaped)
    if as_json:
        render.json_line(lifecycle.result_json(result))
    elif render.on_terminal():
        from . import terminal

        if isinstance(result, lifecycle.AlreadyRetracted):
            render.write(terminal.already_retracted(result.target, result.retraction.memory_id, no_color))
        else:
            render.write(terminal.result(result.memory_id, result.envelope, result.replayed, no_color))
    else:
        render.lines(lifecycle.result_lines(result))
    advice.new_stream(result, repo, stream)
    return 0
