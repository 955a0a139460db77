"""``git hn init`` and ``git hn identity show|list|public|remove``: parse, call the identity store
(and ``service.identity_trust`` for what the trust policy at HEAD says of the identity), render.
Kept out of ``commands`` so that the identity commands stay one room.
"""

from __future__ import annotations

import os

from ..errors import UsageError
from . import render


def init_command(name: str | None, extra: list[str]) -> int:
    from ..core.hints import named_actor
    from ..store import identity
    from ..store.repo import open_repo

    if extra:
        from ..core import hints, mistyped

        raise UsageError(hints.append("usage: git hn init [--name NAME]", mistyped.unexpected(extra)))
    from ..service.secretscan import scan

    repo = open_repo()
    fresh = not os.path.lexists(repo.hn_dir)
    try:
        ident, path = identity.create(repo, name, scan)
    except identity.IdentityExists as exc:
        from ..service.identity_trust import init_refusal

        raise init_refusal(repo, exc) from None
    from ..core.hints import shell_path

    render.lines([f"Created identity {named_actor(ident.actor, ident.name)}",
                  f"Private identity stored in {shell_path(path)}"])
    if repo.looks_like_server():  # (a newcomer trial: init in the team's bare repository, silently)
        from shlex import quote

        undo = f" (rm -r {quote(repo.hn_dir)} takes out what it made here)" if fresh else ""
        render.warnings(["this is a bare repository with no remote: a server's repository? the private key stored "
                         "here is readable by whoever can read the repository; run git hn init in your clone "
                         f"instead{undo}"])
        return 0
    if repo.remote_names():  # (a team trial: a new machine's clone, init as the README's first step)
        # (a newcomer trial: worded for a new teammate too, who has no identity anywhere else)
        render.hint(f"if you already sign as an identity in another clone or on another machine, use it here instead: "
                    f"export it there (git hn identity export --output FILE), run git hn identity import FILE "
                    f"--activate here, then git hn identity remove {ident.actor[:12]} removes this new one, which "
                    "has signed nothing")
    _newcomer_hint(repo, ident)
    return 0


def _newcomer_hint(repo, ident) -> None:
    """After ``init`` in a clone whose policy at HEAD has a memory section that does not trust
    the new identity (a team trial: a newcomer learnt it from an empty brief, and did not know
    what to ask for): what to send a maintainer, and where to find one."""
    from ..service import identity_trust

    if identity_trust.trust_at_head(repo, ident.actor)["trust"] == "actor-untrusted":
        render.hint("the policy at HEAD does not trust this new identity yet, so recall and the brief leave its "
                    "memory out: send a maintainer (git hn policy show names them) what git hn identity public "
                    "prints, for them to trust its actor ID and commit .hn/policy.json")


# CONTRACT §13.11: upstream's identity show --json has no specified schema, so it stays a usage
# error; the error says where the same facts are (a trial asked for it)
SHOW_JSON = ("usage: git hn identity show; --json is not taken here (upstream's schema for it is not specified); "
             "git hn identity public --json prints the actor, name, public key and trust at HEAD")


def identity_command(which: str, no_color: bool = False, as_json: bool = False) -> int:
    from ..core.gostr import echoed
    from ..store import identity
    from ..store.repo import open_repo

    if which == "show" and as_json:
        raise UsageError(SHOW_JSON)
    repo = open_repo()
    if which != "list":
        return _identity_lines(repo, which, no_color, as_json)
    identity.sweep_killed_writes(repo)
    rows = identity.list_identities(repo)
    if render.on_terminal():
        from . import terminal

        if rows:  # no keyring: nothing, as off a terminal (not a bare header)
            render.write(terminal.identities(rows, no_color))
    else:
        render.lines([f"{ident.actor}  {('active' if active else 'stored'):<7}  {echoed(ident.name)}"
                      for ident, active in rows])
    lost = identity.lost_active(repo, rows)
    if lost:  # (a trial: a lost key's list printed nothing)
        from .advice import warn

        warn(lost)
    return 0


def _identity_lines(repo, which: str, no_color: bool, as_json: bool) -> int:
    """``identity show|public``: the contract's lines (§2.7), then on stderr what the trust
    policy at HEAD says of the identity (a team trial: a newcomer learned it from an empty brief),
    and the policy drift line when the reference branch's policy does not trust what HEAD's does;
    ``public --json`` (git-hn) carries it in ``trustAtHead``."""
    from ..core.gostr import echoed
    from ..service import identity_trust
    from ..store import identity

    ident = identity.load_active(repo)
    found = identity_trust.trust_at_head(repo, ident.actor)
    if as_json:
        render.json_line(identity_trust.public_json(ident, found))
        return 0
    if render.on_terminal():
        from . import terminal

        render.write(terminal.identity(ident, which, no_color))
    elif which == "show":
        render.lines([f"Name:   {echoed(ident.name)}", f"Actor:  {ident.actor}",
                      f"Ref:    refs/hn/actors/{ident.actor}"])
    else:
        render.lines([f"Name:       {echoed(ident.name)}", f"Actor:      {ident.actor}",
                      f"Public key: {ident.public_key}"])
    render.hint(identity_trust.trust_line(repo, ident.actor, found))
    drift = identity_trust.drift_line(repo, ident.actor, found)
    if drift:
        render.hint(drift)
    return 0


REMOVE_USAGE = "usage: git hn identity remove ACTOR [--backup FILE]"


def remove_command(words: list[str], backup: str | None) -> int:
    """``git hn identity remove`` (git-hn): ``service.identity_transfer.remove``, then what was
    deleted and where a copy is."""
    from ..core.gostr import echoed
    from ..service import identity_transfer
    from ..service.names import named_identity
    from ..store.repo import open_repo

    if len(words) != 1:
        from .options import stray

        raise stray(REMOVE_USAGE, words[1:]) if words else UsageError(
            f"{REMOVE_USAGE}; missing ACTOR (git hn identity list shows them)")
    from ..store.argpath import os_path

    done = identity_transfer.remove(open_repo(), words[0], None if backup is None else os_path(backup))
    lines = [f"Removed identity {named_identity(done.ident.actor, done.ident.name)}: its private key "
             "is deleted from this clone"]
    if done.backup:
        lines.append(f"A copy is in {echoed(done.backup)}: git hn identity import FILE puts it back")
    render.lines(lines)
    return 0
