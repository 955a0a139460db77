"""Which remotes git-hn talks to, and how it asks them (CONTRACT §9.4, §9.5).

A leaf module (no git-hn imports) so that ``git hn sync`` can validate the remote and start the
advertisement before it imports anything else: the advertisement's round trip then overlaps with
the imports (see ``store.git.start_early``).

Owns: the transport check (a local path, scp-like ssh, or file/git/http/https/ssh URLs; every
``<helper>::`` form refused before any process contacts the remote), the environment every
remote-facing Git process runs with (``GIT_ALLOW_PROTOCOL`` limits Git itself, prompts are off),
and the exact arguments of the advertisement and of the remote URL question.
"""

from __future__ import annotations

import re

ALLOWED_PROTOCOLS = "file:git:http:https:ssh"
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")


def transport_allowed(url: str) -> bool:
    """§9.5: a local path, scp-like ssh, or file/git/http/https/ssh URLs; nothing else."""
    if not url or "\n" in url or "\x00" in url:
        return False
    if _HELPER.match(url):
        return False
    m = _SCHEME.match(url)
    if m:
        return m.group(1).lower() in ("file", "git", "http", "https", "ssh")
    if "://" in url:
        return False
    return True  # a local path, or scp-like [user@]host:path (ssh)


def remote_env() -> dict:
    return {"GIT_ALLOW_PROTOCOL": ALLOWED_PROTOCOLS, "GIT_TERMINAL_PROMPT": "0"}


def url_question(remote: str) -> tuple[str, ...]:
    """The arguments that ask for ``remote``'s fetch URL (``insteadOf`` applied)."""
    return ("remote", "get-url", "--end-of-options", remote)


def advertisement(url: str) -> tuple[str, ...]:
    """The arguments of the one advertisement a sync asks for: every memory ref, and the actor
    and proposal refs §11(c) reports as skipped."""
    return ("ls-remote", "--refs", "--", url, "refs/hn/actors/*", "refs/hn/proposals/*",
            "refs/hn/memory/*/*")
