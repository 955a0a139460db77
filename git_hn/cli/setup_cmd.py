"""``git hn setup AGENT [--remove] [--print]``: parse, call ``service.setup.run``, print its lines.

Kept out of ``commands`` so that the typer app imports it only when the command runs.
"""

from __future__ import annotations

from ..errors import UsageError
from . import render

SETUP_USAGE = "usage: git hn setup claude|codex|cursor|agents-md [--remove] [--print]"


def setup_command(agent: str | None, remove: bool, print_only: bool) -> int:
    from ..service import setup
    from ..store.repo import open_repo

    if not agent:
        raise UsageError(f"{SETUP_USAGE}; missing AGENT")
    setup.check_agent(agent)
    repo = open_repo()
    try:
        render.lines(setup.run(repo, agent, remove=remove, dry_run=print_only))
        text = None if remove or print_only else _trust_hint(setup, repo)
        if text:
            render.hint(text)
    finally:
        repo.close()
    return 0


def _trust_hint(setup, repo) -> str | None:
    """``setup.trust_hint``, advice only: a policy that cannot be read (the brief will say why)
    or any other refusal never fails a setup that succeeded."""
    from ..errors import HnError

    try:
        return setup.trust_hint(repo)
    except HnError:
        return None
