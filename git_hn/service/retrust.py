"""A push whose memory policy trusts again a key the remote's branch had revoked (a team trial):
merging a branch made before the revocation conflicted in ``.hn/policy.json``, ``git checkout
--theirs`` took the side that still trusted the stolen key, and the push said nothing; the
thief's memories were trusted again for everyone who pulled.

For each branch update the pre-push hook is given (``refs/heads/*``, the remote's old commit
known: no new branch, no deletion), the policy file's blob at the old commit and at the new one;
when they differ, the actors the new policy trusts and the old one does not are asked of
``service.revoked``'s lookup at the OLD commit (the remote's history, where the revocation is the
newest change for them; at most ``revoked.SHOWN``): each one found is one warning line naming
the commit that untrusted it and the command that shows the pushed policy. The other way round
(a later trial): a feature branch made before the revocation merges the remote's main, or is
rebased onto it, and the policy conflict is resolved to the branch's side. Its pushed policy is
then the remote branch's own (or adds only someone else), and the revocation is among the
commits the push brings: the actors the new policy trusts are asked of ``revoked.dropped_in``
over ``OLD..NEW``, and each one a brought commit untrusted is one warning line naming it; when a
brought commit of one parent that descends from that one trusts it again, the line names that
commit as the re-trust and says nothing is to do if it was meant. Nothing silences the line (a
review of b29bc2e, which took a later author date for a meant re-trust: a rebased or merged side
from before the revocation passed as one, and an author date is the author's to write): a
warning that may be unneeded, given on the pushes that bring the revocation, over a silence that
may be wrong. A warning, never a refusal, in both ``hn.prePush`` modes: a key trusted again may
be meant (``policy trust`` warned the maintainer who did it), and the lookup is advisory. A new
branch (no old commit on the remote) is asked against what it was built on there: the merge base
of the pushed commit and the remote's default branch as last fetched (``<remote>/HEAD``, else
``<remote>/main`` or ``<remote>/master``; for a remote with none of them, a fork never fetched,
``origin``'s), taken as the old commit (a review: a branch rebased onto the revocation keeping
the side from before it, pushed first as a new branch, was not warned of); a branch never built
on the revocation (its base is older) is not warned of, as an update of it would not be. No such
ref, or no merge base: not asked.

Cost: the two blobs of each update asked through the batch reader the hook starts early (one
exchange, no Git process; in a partial clone through the view that never fetches, since a lazy
fetch from a hook is not a hint's price); only when a pushed update carries a policy file, the
policies read (bounded by ``LIMITS.max_policy``) and one ``git log`` of ``OLD..NEW`` (the pushed
commits, bounded as ``revoked``'s), and when the update changes the blob, the lookup at OLD (one
``git log``, bounded); a new branch carrying a policy file costs one ``git merge-base`` more (the
remote's default branch asked in the same exchange; within the push's budget). At most ``UPDATES``
branch updates carrying a policy are asked, and a push of more says how many were not. Any failure says nothing, but
for a ``git log`` that does not end within its time (``revoked.LOG_SECONDS``): that says it could
not check, with the ``git log`` to read by hand (a long range's silence hid a re-trust). Trusts:
the hook's input as Git gives it; the policies as committed (author text is printed inert).
"""

from __future__ import annotations

from ..core.lines import lines_of
from ..errors import HnError
from ..store.repo import Repo

UPDATES = 8  # branch updates of one push carrying a policy that are asked (more: said, not asked)
POLICY_PATH = ".hn/policy.json"


def warnings(repo: Repo, data: bytes, seconds: float | None = None, remote: str = "") -> list[str]:
    """The warning lines for the pre-push hook's input ``data`` (without the ``git-hn: ``
    prefix); [] when no pushed branch update trusts again an actor its old commit's history
    revoked, and whenever the question cannot be answered, but for a ``git log`` of the policy's
    history that did not end in ``seconds`` (``revoked.LOG_SECONDS`` unless given): that one
    says it could not check, and what to run by hand (``unchecked``). ``remote``: the remote's
    name, whose default branch a new branch is asked against ("": new branches are not asked)."""
    from .revoked import LOG_SECONDS

    try:
        return _warnings(repo, data, LOG_SECONDS if seconds is None else seconds, remote)
    except (HnError, OSError, ValueError):
        return []  # (advisory: a hint never fails a push)


UNCHECKED = "warning: could not check the policy's history"


def _left(deadline: float, seconds: float) -> float:
    """One question's budget within the push's: ``seconds``, or what is left of ``deadline``
    (at least a microsecond: a question that needs no Git still answers)."""
    import time

    return max(1e-6, min(seconds, deadline - time.monotonic()))


def unchecked(seconds: float, log: str) -> str:
    """A lookup that did not end in time: said, not silent (a review: at 60,000 commits the
    range's ``git log`` passed its second, and a re-trust of a revoked key went unwarned)."""
    return (f"{UNCHECKED} within {seconds:g} s, so a key this push trusts again "
            f"after a revocation is not warned of: {log} shows each change of the policy, to read by hand")


def _updates(data: bytes) -> list[tuple[str, str]]:
    """(old, new) of each pushed branch update, at most ``LISTED`` + 1; old is "" for a new branch."""
    from ..core.grammar import is_oid

    out = []
    for line in lines_of(data.decode("ascii", "replace")):
        parts = line.split(" ")
        if len(parts) != 4 or not parts[2].startswith("refs/heads/"):
            continue
        new, old = parts[1], parts[3]
        if is_oid(new) and is_oid(old) and new.strip("0") and new != old:
            out.append((old if old.strip("0") else "", new))
            if len(out) > LISTED:
                break
    return list(dict.fromkeys(out))


BASES = ("HEAD", "main", "master")  # a remote's default branch as last fetched, in this order
LISTED = 4096  # branch updates of one push whose policy blobs are asked (more are "not checked")


def _based_on(remote: str) -> list[str]:
    """The remotes whose default branch a new branch pushed to ``remote`` is asked against, in
    order: ``remote``'s, then ``origin``'s (a fork never fetched has no branch here to ask: a
    trial's branch rebased onto the revocation and pushed to it first went unwarned; what it was
    built on is most likely the repository it was cloned from)."""
    return [remote] if remote == "origin" else [remote, "origin"]


def _merge_base(git, base: str | None, new: str, seconds: float) -> str:
    """A new branch's old commit: its merge base with ``base`` (the remote's default branch), or
    "" when there is none to ask (no such ref, unrelated histories). ``GitTimedOut`` passes."""
    if not base:
        return ""
    proc = git.run(["merge-base", base, new], timeout=seconds)
    return proc.stdout.decode("ascii", "replace").strip() if proc.returncode == 0 else ""


def unchecked_branches(count: int) -> str:
    """The line for the pushed branches past ``UPDATES`` (a review: a tenth new branch that
    trusted a revoked key again was not asked, and nothing said so)."""
    return (f"warning: this push updates {count + UPDATES} branches that carry a memory policy; {count} of them were "
            f"not checked for a key trusted again after a revocation (the first {UPDATES} were): push those in "
            f"groups of at most {UPDATES} branches to have them checked")


def _warnings(repo: Repo, data: bytes, seconds: float, remote: str = "") -> list[str]:
    updates = _updates(data)
    if not updates:
        return []
    git = repo.git.without_lazy_fetch()  # (itself, unless a partial clone)
    names = [f"{c}:{POLICY_PATH}" for pair in updates for c in pair if c]
    bases = [f"refs/remotes/{r}/{b}" for r in _based_on(remote) for b in BASES] \
        if remote and any(not o for o, _ in updates) else []
    infos = git.object_infos(names + bases)
    blob = {n: (i[0] if i is not None and i[1] == "blob" else None) for n, i in zip(names, infos)}
    base = next((i[0] for i in infos[len(names):] if i is not None and i[1] == "commit"), None)
    pushed = [(old, new, blob.get(f"{old}:{POLICY_PATH}"), blob[f"{new}:{POLICY_PATH}"]) for old, new in updates]
    pushed = [c for c in pushed if c[3] is not None]
    if not pushed:
        return []  # (no policy pushed: one exchange with the batch reader, and nothing else)
    pushed, left_out = pushed[:UPDATES], len(pushed) - UPDATES
    from ..core.gostr import short_id
    from ..core.limits import LIMITS
    from ..core.hints import quoted_text
    from ..core.policy import load
    from ..errors import GitTimedOut
    from .revoked import dropped_in, revocations

    trusted: dict = {}

    def read(oids) -> None:  # the trusted actors of each policy blob of ``oids`` not read yet
        wanted = [o for o in dict.fromkeys(oids) if o and o not in trusted]
        for oid, got in zip(wanted, git.read_objects_bounded(wanted, LIMITS.max_policy) if wanted else []):
            trusted[oid] = None  # (no valid policy: the push's other checks say so)
            if got is None or got[0] != "blob" or got[2] is None:
                continue
            try:
                memory = load(got[2]).memory
            except HnError:
                continue
            trusted[oid] = set(memory.trusted_actors) if memory is not None else set()

    read(b for c in pushed for b in c[2:])
    import time

    # one budget for the push, twice one question's: a history too long to read within it is
    # said once, and the rest of the push is not asked (a reread: every branch of a push waited
    # out its own budget twice and said so twice)
    out, said, deadline = [], set(), time.monotonic() + 2 * seconds
    for old, new, before, after in pushed:
        if trusted.get(after) is None:
            continue
        if out and out[-1].startswith(UNCHECKED):
            break
        if not old:  # a new branch: asked from its merge base with the remote's default branch
            try:
                old = _merge_base(git, base, new, _left(deadline, seconds))
            except GitTimedOut:  # (a review: it raised past every other branch's warning)
                out.append(unchecked(seconds, f"git log -p {new[:12]} --not --remotes={remote} -- {POLICY_PATH}"))
                continue
            if not old:
                continue
            got = git.object_infos([f"{old}:{POLICY_PATH}"])[0]
            before = got[0] if got is not None and got[1] == "blob" else None
            read([before])
        added = sorted(trusted[after] - (trusted.get(before) or set()) - said) if before != after else []
        try:
            found = revocations(repo, old, added, _left(deadline, seconds), timeouts=True)
        except GitTimedOut:
            found = {}
            out.append(unchecked(seconds, f"git log -p {old[:12]} -- {POLICY_PATH}"))
            continue
        for actor, gone in found.items():
            said.add(actor)
            # (not "the merge resolution": a re-trust commit, or a force push back, does this too)
            out.append(f'warning: this push trusts {short_id(actor)} again, untrusted in {gone.commit[:12]} '
                       f'{quoted_text(gone.subject)}: check what it changes (git diff {old[:12]} {new[:12]} -- {POLICY_PATH}; a '
                       f'merge that took a side from before the revocation does this); if it is a mistake, git hn '
                       f'policy untrust {short_id(actor)}, commit and push again')
        # the commits this push brings revoked it and the pushed policy trusts it still: a merge or
        # rebase that brought the revocation in and kept the side from before it (the policy then
        # equals the remote's branch's, or differs from it only by someone else)
        kept = sorted(trusted[after] - said)
        try:
            found = dropped_in(repo, old, new, kept, _left(deadline, seconds), timeouts=True) if kept else {}
        except GitTimedOut:
            found = {}
            out.append(unchecked(seconds, f"git log -p --full-history {old[:12]}..{new[:12]} -- {POLICY_PATH}"))
        for actor, gone in found.items():
            said.add(actor)
            who, log = short_id(actor), f'git log --oneline --full-history {old[:12]}..{new[:12]} -- {POLICY_PATH}'
            if gone.again:  # (named, never taken as meant: a rebased or resolved side is one too)
                out.append(f'warning: {gone.again[:12]} {quoted_text(gone.again_subject)} trusts {who} again after '
                           f'{gone.commit[:12]} {quoted_text(gone.subject)} untrusted it: if that was meant, nothing to '
                           f'do; if it came from resolving a conflict or a rebase ({log}), git hn policy untrust {who}, '
                           'commit and push again')
                continue
            out.append(f'warning: this push brings {gone.commit[:12]} {quoted_text(gone.subject)}, which untrusted '
                       f'{who}, and its policy still trusts {who}: a merge or rebase that kept the side from before the '
                       f'revocation does this ({log}); if it is a mistake, git hn policy untrust {who}, commit and push '
                       'again')
    if left_out > 0 and not (out and out[-1].startswith(UNCHECKED)):
        out.append(unchecked_branches(left_out))
    return out
