"""Which stream a write appends to (CONTRACT §3.3, §3.4, §10.2 ``--stream``; git-hn's labels).

Owns the one rule every write follows (record, handoff, supersede, retract, challenge, import,
the CLI and the MCP tools alike), first given first:

1. the stream the request names: ``--stream``, or a request's ``stream``;
2. ``GIT_HN_STREAM``, for one process (an agent host starts each agent with its own);
3. ``git config hn.stream``, for a repository or, with ``extensions.worktreeConfig``, one
   worktree (``git config --worktree hn.stream label:NAME``);
4. the signer's default stream (§3.3).

Each is a full stream ID or ``label:NAME`` (``grammar.is_stream_choice``), which names the stream
§3.3's derivation gives for the signer and that label. An agent trial: six agents of one identity
in one clone all wrote to the default stream, so the brief (one latest handoff per stream, §7.15)
showed one handoff of six, and two worktrees on one stream made memories anchored on an
unpushed feature branch hold back the later main memories (a stream publishes in order).

Trusts the environment and the configuration only to name a stream of the signer's own: the
value is checked like ``--stream`` (a bad one is refused, naming where it came from, before
anything is signed), never read for anything else, and a stream another actor holds in this
clone is still refused where every append checks it (``streams.check_stream_owner``).
"""

from __future__ import annotations

import os

from ..core.grammar import STREAM_CHOICE_RULE, chosen_stream, default_stream, is_stream_choice
from ..core.tuples import NamedTuple
from ..errors import InputError
from .repo import Repo

ENV = "GIT_HN_STREAM"
CONFIG = "hn.stream"


class Choice(NamedTuple):
    value: str  # a full stream ID, ``label:NAME``, or "" (the default stream)
    origin: str  # where it came from: ``--stream``, ``stream``, ENV, CONFIG, or "" (nothing chose)

    def stream(self, actor: str) -> str:
        return chosen_stream(actor, self.value) if self.value else default_stream(actor)

    def label(self) -> str:
        """``label:NAME`` when a label chose the stream, else ""."""
        return self.value if self.value.startswith("label:") else ""


def configured(repo: Repo) -> Choice:
    """The stream ``GIT_HN_STREAM`` or ``hn.stream`` chooses, else the default (``hn.stream``
    read once per repository object: ``Repo.stream_config``, asked early by the write commands)."""
    value = os.environ.get(ENV, "")
    if value:
        return _checked(Choice(value, ENV))
    value = repo.stream_config()
    return _checked(Choice(value, CONFIG) if value else Choice("", ""))


def choose(repo: Repo, given: str | None, origin: str = "--stream") -> Choice:
    """The stream choice of a write whose request names ``given`` (None: it names none)."""
    return Choice(given, origin) if given else configured(repo)


def stream_for(repo: Repo, actor: str, given: str | None, origin: str = "--stream") -> str:
    """The stream ID a write of ``actor`` appends to (the module's rule)."""
    return choose(repo, given, origin).stream(actor)


def _checked(choice: Choice) -> Choice:
    if not choice.value or is_stream_choice(choice.value):
        return choice
    if choice.origin == ENV:
        where, fix = f"{ENV} in the environment", f"set it to one, or unset it ({ENV}= works too)"
    else:
        where, fix = (f"git config {CONFIG}", f"git config --show-origin {CONFIG} shows where it is set; git config "
                      f"{CONFIG} label:NAME (--worktree: for this worktree only) sets one, git config --unset "
                      f"{CONFIG} removes it")
    raise InputError(f"{where} is not a stream: it takes {STREAM_CHOICE_RULE}; nothing was signed: {fix}")
