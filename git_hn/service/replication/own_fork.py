"""An import's divergence from the user's own stream (CONTRACT §11(a); git-hn's ``sync --rebase``):
the active identity appended to one of its streams in another clone as well (``identity
export``/``import``), so that the remote's chain and this clone's unpublished memories part at one
sequence. Owns deciding whether such an equivocation is the user's own fork that a rebase can
mend (``own_fork``: the plan ``o.rebase``, or the recovery that names ``--rebase`` or says why it
would not help) and which local memories it would sign again (``unpublished_tail``: only those no
remote was given, nor may have been by a publication stopped while pushing).

Run by ``run.Import.continuity`` only once a stream diverges from another verified source of it
(an import that finds none never loads it), with that import (``imp``: its repository, remote,
accepted set and ``--rebase`` choice). Trusts the verified state's accepted set and the
publication journal's record of what each remote was given; never another actor's stream.
"""

from __future__ import annotations

from ...errors import HnError
from .outcomes import Outcome, counted


def own_fork(imp, o: Outcome, parted: list) -> None:
    """An equivocation ``o`` whose only other side is the user's own local stream: the active
    identity appended to it in another clone as well (``identity export``/``import``), and
    the remote's chain and this clone's unpublished memories part at one sequence. With
    ``--rebase`` (git-hn extension) the outcome goes on as a plan (``o.rebase``): the
    promotion signs those memories again on top of the remote's chain and moves the local
    ref in its own ref transaction. Otherwise the recovery names that flag, or says why it
    would not help. Never for another actor's stream, nor for memories any remote was given
    (re-signing them would split the stream there)."""
    from ...core.grammar import local_ref
    from ...store.identity import active_actor

    own = local_ref(o.actor, o.id)
    if len(parted) != 1 or parted[0][0] != own or o.actor != active_actor(imp.repo):
        return
    n = parted[0][1]
    why, tail = unpublished_tail(imp, own, n)
    if why:
        if imp.rebase:
            o.fields["recovery"] += f"; not rebased: {why}"
        return
    if imp.rebase and imp.identity is None:
        from ...store.identity import load_active

        try:
            imp.identity = load_active(imp.repo)
        except HnError as exc:
            o.fields["recovery"] += f"; not rebased: {exc.message}"
            return
    if not imp.rebase:
        o.fields["recovery"] += (f"; your identity appended to this stream in another clone too: "
                                 f"git hn sync {imp.remote} --rebase signs your "
                                 f"{counted(len(tail), 'unpublished memory', 'unpublished memories')} "
                                 f"of it again on top of {imp.remote}'s chain")
        return
    o.status, o.fields = "fetched", None
    o.rebase = (own, tail[-1].commit, tail)


def unpublished_tail(imp, ref: str, n: int) -> tuple[str, list]:
    """The memories of the local stream ``ref`` from sequence ``n`` to its tip (root first),
    when no remote was given any of them; else why not, in words."""
    from . import accepted as acceptedmod

    from ...store.reanchor import given as given_of

    # (with the state open, its lock is held: its record is asked through it)
    conn = imp.accepted.conn if isinstance(imp.accepted, acceptedmod.FromState) else None
    given = given_of(imp.repo, ref, conn)
    if given is None:
        return "neither the publication journal nor the verified state can say what each remote was given", []
    length, _head = imp.accepted.source(ref) or (0, "")
    ids = imp.accepted.ids_at(ref, list(range(n, length + 1)))
    loaded = imp.accepted.load([ids[k] for k in sorted(ids)])
    tail = [loaded.get(ids[k]) for k in sorted(ids)]
    if not tail or None in tail or len(tail) != length - n + 1:
        return "the local stream could not be read from the verified state", []
    commits = {m.commit: m for m in tail}
    from ...store import given as journal

    try:
        offered = {(r, h) for r, f, h in journal.offered(imp.repo) if f == ref}
    except HnError:
        offered = set()
    if offered:  # (what is journalled as given, offers apart: read once, only when any is offered)
        offered -= {(r, h) for r, _f, h in given_of(imp.repo, ref, conn, offered=False) or ()}
    for key, _ref, head in given:
        remote = journal.remote_of(key)  # (a key of one of its push URLs names it)
        if head in commits and (key, head) in offered:
            return (f"memory {commits[head].memory_id} of it may have been published to {remote} by a "
                    f"publication that was stopped while pushing; what {remote} holds of it is not known here "
                    f"(if that push never reached {remote}, remove its line from "
                    f"{journal.offered_path(imp.repo)})"), []
        if head in commits:
            return f"memory {commits[head].memory_id} of it was published to {remote}", []
    return "", tail

