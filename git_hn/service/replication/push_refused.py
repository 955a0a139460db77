"""What a publication push that Git did not complete means (CONTRACT §9.13; git-hn): whether it
never reached the remote (``never_sent``: its offers are settled, nothing is in doubt), whether a
stream it offered and the remote refused as a non-fast-forward is already there further
(``already_beyond``: counted as published), and whether the server refuses memory refs
(``refused_memory``), with the one way out that sync, the pre-push hook and the background
publication say (``stop_publishing``).

Used by ``publish._push`` only once a push failed or a ref was refused (loaded then: a push that
went through never loads it), by ``push_targets`` and ``background`` for their refusal's advice.
Trusts Git's own lines on the client side (``fatal:``, ``error:``, ssh's) and this clone's objects
and history; a server's words and its advertisement may lie, and only ever spare work here (a
remote claiming a tip this clone lacks decides nothing: the refusal stands).
"""

from __future__ import annotations

import re

from ...core.lines import lines_of
from ...store.repo import Repo
from ...store.transport import remote_env, transport_allowed


# Git's words for a push that never reached the remote (nothing was sent): its offers are settled
NEVER_SENT = frozenset(("read_passphrase", "can't open /dev/tty", "host key verification failed",
                        "does not appear to be a git repository", "repository not found", "could not resolve host",
                        "connection refused", "couldn't connect to server", "authentication failed",
                        "could not read username", "could not read password", "terminal prompts disabled",
                        "permission denied"))


def never_sent(stderr: bytes) -> bool:
    """Whether a failed push's stderr says, in Git's or ssh's own lines, that it never reached
    the remote. A server's hook can write to stderr unprefixed (``reference-transaction``'s
    output is not multiplexed, and ssh passes the server's stderr through): only lines in the
    client's forms count, so a CI hook's ``curl: (6) Could not resolve host`` after the server
    took the push is not "never sent"; ``remote:`` lines are the server's (an HTTPS host's
    ``remote: Invalid username or token`` comes before Git's own ``fatal: Authentication
    failed``, which counts). (A hostile server can still lie, in its words or in its
    advertisement, about what it holds.)"""
    lines = lines_of(stderr.decode("utf-8", "replace").lower())
    own = [line for line in lines if (line.startswith(("fatal:", "error:", "ssh:", "read_passphrase:",
                                                        "host key verification failed"))
                                      or re.match(r"[^ ]+@[^ ]+: permission denied", line))
           and "remote error:" not in line]
    return any(words in line for line in own for words in NEVER_SENT) \
        or any(re.match(r"fatal: repository '.*' not found", line) for line in own)


def refused_memory(cause: str) -> bool:
    """Whether ``cause`` (a refusal's fixed words, ``PhaseError.cause``) is the server refusing
    memory refs: Git's ``[remote rejected]`` (its hook's or its configuration's), not a ref another
    push was updating (``cannot lock ref``: the next try may well pass)."""
    return cause.startswith("[remote rejected]") and "cannot lock ref" not in cause


def stop_publishing(remote: str) -> str:
    """The way out of a server that refuses memory refs (``refused_memory``), in the one wording
    sync's line, the block pre-push's and the next push's line about the last background
    publication (``background.Failure``) say; an unreachable remote or refused credentials have
    their own."""
    return f"if {remote} never accepts memory refs, stop publishing there: git config remote.{remote}.hnPublish false"


def already_beyond(repo: Repo, remote: str, tips: dict[str, str], url: str = "",
                    carried: dict | None = None) -> dict[str, str]:
    """Of ``tips`` (ref -> the tip a push offered and the remote refused as a non-fast-forward),
    the refs whose remote tip already contains that tip (ref -> the remote's tip): the remote
    got the stream further from elsewhere (a mirror of another remote, another clone of the same
    identity), while this clone offered what its gate allowed. One ``ls-remote`` and one
    ``rev-list``, only after such a refusal. ``url``: the push URL the push went to, when one, and
    ``carried`` the environment it was pushed to as a remote with (``push_targets._as_remote``)."""
    if not tips:
        return {}
    from .given_record import push_urls

    urls = [url] if url else push_urls(repo, remote)
    if len(urls) != 1 or not transport_allowed(urls[0]):
        return {}  # (where the push went is not one repository this can ask: the refusal stands)
    from ...errors import OutputTooLarge
    from ...store.transport import advertisement_limit

    try:  # (ls-remote matches names by their end: junk refs ending alike are listed too)
        carried = carried or {}
        listed = repo.git.run(["ls-remote", "--refs", "--", carried.get("", urls[0]), *sorted(tips)],
                              env={**remote_env(), **{k: v for k, v in carried.items() if k}},
                              limit=advertisement_limit())
    except OutputTooLarge:
        return {}
    theirs = {}
    for line in lines_of(listed.stdout.decode("utf-8", "replace")):
        oid, _tab, ref = line.partition("\t")
        if ref in tips and theirs.setdefault(ref, oid) != oid:
            return {}  # (a ref listed twice with two tips: this remote's answer decides nothing)
    theirs = {ref: oid for ref, oid in theirs.items() if oid != tips[ref]}
    if listed.returncode != 0 or not theirs:
        return {}
    present = repo.git.presence(sorted(set(theirs.values())))
    known = {oid for oid, here in zip(sorted(set(theirs.values())), present) if here}
    pairs = {ref: oid for ref, oid in theirs.items() if oid in known}
    if not pairs:
        return {}  # the remote's commits are not here: this clone cannot tell (the refusal stands)
    walk = repo.git.run(["rev-list", "--stdin"],
                        input="".join(f"{tips[r]}\n^{oid}\n" for r, oid in pairs.items()).encode())
    if walk.returncode != 0:
        return {}
    outside = set(walk.stdout.decode("ascii", "replace").split())
    return {ref: oid for ref, oid in pairs.items() if tips[ref] not in outside}
