"""``git hn policy init|trust|untrust`` (issue 13): trust without hand-written JSON.

Each command reads the working tree's ``.hn/policy.json`` (``store.worktree``), refuses a file
that ``policy show`` would refuse (same validation, ``core.policy``), applies one edit
(``core.policyedit``) and writes the canonical result atomically. The commit stays the user's:
nothing is staged or committed, and recall keeps reading the policy at the query commit until the
edit is committed.

An ACTOR argument is resolved against the actors git-hn knows: the local identities, the authors
of verified memory (from the verified state, one newest memory per stream for its name) and the
actors the file already lists. Trusts: the verified state for who authored what; the names are
the authors' own and are only ever used when they identify exactly one actor.
"""

from __future__ import annotations

from ..core import policyedit
from ..core.policyedit import Edit, Known
from ..core.tuples import NamedTuple
from ..errors import InputError, PolicyError
from ..store import worktree
from ..store.repo import Repo


class Outcome(NamedTuple):
    who: Known | None
    edit: Edit
    maintainers: tuple[str, ...] = ()  # the file's (``self_trust_warning``)
    named: str = ""  # the display name ACTOR named ``who`` by ("": its ID or a prefix; ``name_warning``)
    alikes: tuple[Known, ...] = ()  # other known actors whose name looks like ``named``
    twins: tuple[Known, ...] = ()  # other known actors with ``who``'s short ID (``policyedit.twins``)


FIX_BY_HAND = "fix it by hand, or remove it and run git hn policy init"
# (a trial: with a valid policy at HEAD, FIX_BY_HAND's init was refused next, and only that refusal
# named the command that restores the committed file)
RESTORE = f"git checkout HEAD -- {worktree.POLICY} restores the committed one, or fix it by hand"
# (a trial: during a merge conflict in the policy, both advices above were dangerous: an edit of
# the markers' file, or a new policy trusting only you, dropping the maintainers)
UNMERGED = (f"{worktree.POLICY} is in a merge conflict: resolve the merge first, keeping every actor either side "
            f"untrusted (one side taken whole, git checkout --ours or --theirs, can trust a revoked key again), then "
            f"git add {worktree.POLICY}")


def _top(repo: Repo) -> str:
    top = worktree.toplevel(repo)
    if top is None:
        raise InputError(f"git hn policy edits {worktree.POLICY} in a working tree; this repository "
                         "has none")
    return top


def init(repo: Repo) -> tuple[Known, tuple[str, ...]]:
    """Create the policy trusting the active identity (also its only maintainer) for the
    default kinds; refuses to overwrite any existing file."""
    from ..store import identity

    ident = identity.load_active(repo)
    top = _top(repo)
    worktree.check_dir(top)
    found = _read(repo, top)
    if found is not None:
        try:
            policyedit.canonical_document(found[0])
        except PolicyError as exc:
            raise PolicyError(f"{worktree.POLICY} already exists in the working tree and is invalid: "
                              f"{exc.message}; {_repair(found[0], repo)}") from None
        raise InputError(f"{worktree.POLICY} already exists in the working tree; change it with "
                         "git hn policy trust|untrust")
    # (a trial: the file removed, init wrote a policy trusting only you, dropping the committed
    # one's maintainers; rev-parse reads trees only: no lazy fetch of the blob in a partial clone)
    if repo.git.run(["rev-parse", "--verify", "-q", f"HEAD:{worktree.POLICY}"]).returncode == 0:
        raise InputError(f"HEAD has a {worktree.POLICY} (its maintainers and trusted actors) that the working tree "
                         f"lacks: git checkout HEAD -- {worktree.POLICY} restores it; to start over, git rm "
                         f"{worktree.POLICY} and commit first")
    worktree.write_policy(top, policyedit.initial(ident.actor), expected=None)
    return Known(ident.actor, (ident.name,)), policyedit.DEFAULT_KINDS


def _read(repo: Repo, top: str):
    """``worktree.read_policy``, its refusal of a file over the policy's bound with the way out."""
    try:
        return worktree.read_policy(top)
    except PolicyError as exc:
        raise PolicyError(f"{exc.message}; {fix_invalid(repo)}") from None


def _repair(data: bytes, repo: Repo) -> str:
    """What repairs an invalid working-tree policy: resolving the merge, when it is in a conflict
    (``unmerged``); an edit, when only its lists' order is wrong; else ``fix_invalid``."""
    if unmerged(repo, data):
        return UNMERGED
    try:
        policyedit.canonical_document(data, in_order=False)
    except PolicyError:
        return fix_invalid(repo)
    return "git hn policy trust or untrust writes it sorted"


def fix_invalid(repo: Repo) -> str:
    """The way out of an invalid working-tree policy: ``RESTORE`` when HEAD has a policy that is
    valid (``policy show`` would show it), else ``FIX_BY_HAND``. Only on an error or hint path:
    one ``cat-file`` of HEAD's blob, as ``policy_working`` reads it."""
    return RESTORE if _valid_at_head(repo) else FIX_BY_HAND


def _valid_at_head(repo: Repo) -> bool:
    """Whether HEAD holds a valid policy (one ``cat-file`` of its blob)."""
    proc = repo.git.run(["cat-file", "blob", f"HEAD:{worktree.POLICY}"])
    if proc.returncode != 0:
        return False
    try:
        policyedit.canonical_document(proc.stdout)
    except PolicyError:
        return False
    return True


# what ``policy show`` says of a working-tree policy git hn does not read (f160: it said nothing,
# and with no policy at HEAD advised policy init, which refuses either)
LINKED = f"{worktree.POLICY} in the working tree is a symbolic link, which git hn neither follows nor edits"
UNREADABLE = (f"{worktree.POLICY} in the working tree cannot be read: this user may not read it, or search .hn "
              f"(ls -ld .hn {worktree.POLICY} shows their owners and modes); make them readable (chmod u+r "
              f"{worktree.POLICY}, chmod u+rx .hn), or ask their owner")


def unusable_working(repo: Repo) -> str:
    """For ``policy show``'s hint, a working-tree policy git hn does not read (``worktree.unusable``):
    what is wrong and the way out; "" otherwise. A symbolic link is never followed, so its way out
    is a regular file in its place: HEAD's, when HEAD has a valid policy (one ``cat-file``), or a
    copy of the file it points to."""
    top = worktree.toplevel(repo)
    why = "" if top is None else worktree.unusable(top)
    if why == "unreadable":
        return UNREADABLE
    if why != "link":
        return ""
    if _valid_at_head(repo):
        return (f"{LINKED}; git checkout HEAD -- {worktree.POLICY} puts the committed file in its place, or "
                "replace the link with a copy of the file it points to")
    return f"{LINKED}; replace the link with a copy of the file it points to, or remove it and run git hn policy init"


def invalid_working(repo: Repo) -> str:
    """``<POLICY> in the working tree is invalid: <cause>; <way out>`` when the working tree's
    policy is invalid (also when only its lists' order is wrong: committed, no read would take it),
    for ``policy show``'s hint; "" otherwise (no file, a valid one, one that cannot be read)."""
    from ..errors import HnError

    top = worktree.toplevel(repo)
    try:
        found = None if top is None else _read(repo, top)
    except PolicyError as exc:  # (over the policy's bound: ``_read`` says it whole)
        return exc.message
    except HnError:
        return ""
    try:
        if found is not None:
            policyedit.canonical_document(found[0])
    except PolicyError as exc:
        return f"{worktree.POLICY} in the working tree is invalid: {exc.message}; {_repair(found[0], repo)}"
    return ""


def _editing(repo: Repo, top: str):
    """The lock git hn's policy edits of the working tree ``top`` take turns under: two at once
    each read the file, and the second's write could replace the first's edit between its check
    and its rename (an untrust that said it was done, lost)."""
    import os

    from ..core import hashing
    from ..store.lock import stream_lock

    name = hashing.sha256(os.path.realpath(top).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return stream_lock(repo.hn_dir, os.path.join(repo.hn_dir, "locks", f"policy-{name}.lock"), top,
                       busy=f"another git hn policy command is editing {worktree.POLICY}; run the command again")


def change(repo: Repo, *, trust: bool, actor: str | None, kinds) -> Outcome:
    """Trust or untrust one actor and/or kinds in the working-tree policy."""
    top = _top(repo)
    # (its refusals come before the lock file is made: an audit found one left by each refused edit;
    # what is written is decided again under the lock)
    _change(repo, top, trust, actor, kinds, write=False)
    with _editing(repo, top):
        return _change(repo, top, trust, actor, kinds)


def _change(repo: Repo, top: str, trust: bool, actor: str | None, kinds, write: bool = True) -> Outcome:
    found = _read(repo, top)
    if found is None:
        raise InputError(f"no {worktree.POLICY} in the working tree; create one with git hn policy init")
    data, mode = found
    try:
        doc = policyedit.canonical_document(data, in_order=False)  # (an edit writes them sorted)
    except PolicyError as exc:
        raise PolicyError(f"{worktree.POLICY} in the working tree is invalid: {exc.message}; "
                          f"{_repair(data, repo)}") from None
    kinds = policyedit.check_kinds(kinds)
    who, named, alikes, twins = None, "", (), ()
    if actor is not None:
        trusted = list((doc.get("memory") or {}).get("trustedActors") or ())
        listed = trusted + list(doc["maintainers"])
        known = known_actors(repo, listed)
        prefer = frozenset() if trust else frozenset(trusted)
        who = policyedit.resolve_actor(actor, known, prefer=prefer, notes=_ambiguous_notes(repo, actor, known, prefer))
        named = policyedit.named_by(actor, who) if trust else ""
        alikes = tuple(policyedit.look_alikes(named, who, known)) if named else ()
        twins = tuple(policyedit.twins(who, known))
    result = policyedit.edit(data, trust=trust, actor=who.actor if who else None, kinds=kinds)
    if result.data is not None and write:
        worktree.write_policy(top, result.data, expected=data, mode=mode)
    return Outcome(who, result, tuple(doc["maintainers"]), named, alikes, twins)


def _ambiguous_notes(repo: Repo, actor: str, known, prefer: frozenset) -> dict[str, str]:
    """When ``actor`` is a name (or prefix) that ``resolve_actor`` will refuse as ambiguous: of
    its matches, those the policy at HEAD no longer trusts (``service.revoked``), actor -> ``no
    longer trusted since …`` (a newcomer trial: ``Bob (19b05949310c), Bob (5eb6bb9f544e)`` did not
    say which key was revoked); {} otherwise, without a lookup."""
    from ..core.grammar import is_actor

    found = policyedit.matching(actor, known)
    if is_actor(actor.lower()) or len(found) < 2 or len(found & prefer) == 1:
        return {}
    from ..core.hints import since
    from .revoked import revocations

    ordered = sorted(found, key=lambda a: (policyedit.fold_name(next(
        (k.names[0] for k in known if k.actor == a and k.names), "")), a))
    gone = revocations(repo, repo.head_commit(), ordered[:policyedit.AMBIGUOUS_SHOWN])
    return {a: f"no longer trusted {since(r.commit, r.subject)}" for a, r in gone.items()}


def revoked_warning(repo: Repo, outcome: Outcome) -> str:
    """When ``policy trust`` just added an actor that the policy at HEAD no longer trusts (``service
    .revoked``): one line naming the commit that untrusted it (a newcomer trial: ``policy trust bob``
    trusted a stolen key again without a word); "" otherwise. Advisory: a lookup that cannot answer
    is no warning."""
    from ..core.gostr import short_id
    from ..core.hints import quoted_text
    from .revoked import revocations

    who = outcome.who
    if who is None or not any(c.what == "actor" and c.done for c in outcome.edit.changes):
        return ""
    gone = revocations(repo, repo.head_commit(), [who.actor]).get(who.actor)
    if gone is None:
        return ""
    return (f"{short_id(who.actor)} was untrusted in {gone.commit[:12]} {quoted_text(gone.subject)}: trusting it "
            "again undoes that")  # (quoted one way: ``Revert "trust mallory"`` ended the quoted subject early)


ALIKES_SHOWN = 3  # other actors whose name looks the same that ``name_warning`` names


def name_warning(repo: Repo, outcome: Outcome) -> str:
    """When ``policy trust`` just added an actor named by its display name (not its ID or a
    prefix), one line: the name is the one that actor chose, and anyone may sign under any name
    (*name squatting*: a trial's impostor signed as "Carol" before Carol joined, and ``policy
    trust Carol`` trusted the impostor without a word), so the short ID is to be compared with
    what the person's ``git hn identity public`` prints before the edit is committed; and the
    other known actors whose name looks the same (``policyedit.look_alike``). Not for an identity
    of this keyring (the name is the user's own); "" otherwise."""
    from ..core.gostr import one_line, short_id
    from ..store import identity

    who = outcome.who
    added = any(c.what == "actor" and c.done for c in outcome.edit.changes)
    if who is None or not added or not outcome.named:
        return ""
    if any(ident.actor == who.actor for ident, _active in identity.list_identities(repo)):
        return ""
    name = one_line(outcome.named).strip()
    text = (f"{name} is a name its actor chose, and anyone can sign under any name: before you commit, compare "
            f"{short_id(who.actor)} with the actor ID that {name}'s git hn identity public prints")
    if outcome.alikes:
        listed = ", ".join(policyedit.label(k) for k in outcome.alikes[:ALIKES_SHOWN])
        more = f" and {len(outcome.alikes) - ALIKES_SHOWN} more" if len(outcome.alikes) > ALIKES_SHOWN else ""
        text += (f"; other known actors' names look the same, differing by a letter of another script or an "
                 f"invisible character: {listed}{more}")
    return text


def unknown_warning(outcome: Outcome) -> tuple[str, str]:
    """When ``policy trust`` just added an actor given by its full ID that no identity here and
    no memory here names (``who`` has no name): ("warning", line) when a known actor has its short
    ID (``Outcome.twins``: a trial's ID mistyped in its last digit printed as the teammate's short
    ID, and the maintainer took it for done, *mistyped ID*; each twin with the leading digits that
    tell it from the ID given, ``policyedit.distinct_width``), else ("hint", line): nothing here
    can tell whose ID it is, so it is to be compared whole with what its owner's ``git hn identity
    public`` prints before the edit is committed. ("", "") otherwise."""
    from ..core.gostr import short_id

    who = outcome.who
    added = any(c.what == "actor" and c.done for c in outcome.edit.changes)
    if who is None or not added or who.names:
        return "", ""
    if outcome.twins:  # (f151: by its short ID alone, a twin read as a part of the ID given)
        shown = outcome.twins[:ALIKES_SHOWN]
        width = policyedit.distinct_width([who.actor, *(k.actor for k in shown)])
        listed = ", ".join(policyedit.label(k, width=width) for k in shown)
        return "warning", (f"no identity or memory here is {who.actor}, yet its short ID is that of {listed}: an "
                           "ID mistyped after its twelfth character trusts no one; compare it whole with the Actor: "
                           f"line of that person's git hn identity public; git hn policy untrust {who.actor} "
                           "takes it out")
    return "hint", (f"no identity or memory here is {short_id(who.actor)} yet, so nothing here checks that ID: "
                    "before you commit, compare it whole with the Actor: line of that person's git hn identity "
                    "public (git hn sync brings their memory, with the name they sign under)")


def self_trust_warning(repo: Repo, outcome: Outcome) -> str:
    """When ``policy trust`` just added the active identity itself and that identity is none of
    the file's maintainers: one line saying what the edit is worth (a team trial: a newcomer
    trusted themselves and took it for done). The policy is exactly as strong as the branch that
    carries it (README); git-hn enforces no approval, so it is a maintainer's review and commit
    on that branch that make it trust; "" otherwise."""
    from ..store import identity

    who = outcome.who
    added = any(c.what == "actor" and c.done for c in outcome.edit.changes)
    if who is None or not added or who.actor != identity.active_actor(repo) or who.actor in outcome.maintainers:
        return ""
    return ("you trusted your own identity, which is not a maintainer in .hn/policy.json: the policy is only as "
            "strong as the branch that carries it, so this counts once a maintainer reviews and commits it there "
            "(trusting yourself in your own clone changes nothing for the team)")


def unmerged(repo: Repo, data: bytes | None = None) -> bool:
    """Whether the working tree's policy is in a merge conflict not resolved: ``data`` (its bytes)
    holds conflict markers, or the index holds it in stages (one ``git ls-files -u``: only on an
    error or hint path, never on a read's quiet one)."""
    if data is not None and b"\n<<<<<<< " in b"\n" + data and b"\n>>>>>>> " in data:
        return True
    top = worktree.toplevel(repo)
    if top is None:
        return False
    proc = repo.git.run(["-C", top, "ls-files", "-u", "-z", "--", worktree.POLICY])
    return proc.returncode == 0 and bool(proc.stdout.strip())


def not_maintainer(repo: Repo) -> bool:
    """Whether the active identity is known not to be a maintainer of the policy at HEAD (it names
    maintainers, and not this actor): a trust hint then says what a maintainer runs
    (``core.hints.MAINTAINER_RUNS``). False whenever it cannot tell (no identity, no commit, no
    valid policy). For a hint only: one small file and HEAD's policy blob."""
    from ..errors import HnError
    from ..store import identity
    from ..store.resolver import Resolver, load_policy

    actor, head = identity.active_actor(repo), repo.head_commit()
    if not actor or not head:
        return False
    try:
        maintainers = load_policy(repo, Resolver(repo), head).maintainers
    except HnError:
        return False
    return bool(maintainers) and actor not in maintainers


def uncommitted(repo: Repo) -> bool:
    """Whether the working tree's policy differs from HEAD's (or is not tracked yet)."""
    proc = repo.git.run(["-C", _top(repo), "status", "--porcelain", "--untracked-files=all", "--",
                         worktree.POLICY])
    return proc.returncode == 0 and bool(proc.stdout.strip())


def known_actors(repo: Repo, listed=()) -> list[Known]:
    """Local identities first, then authors of verified memory (newest name first), then the
    actors ``listed`` (by the policy file itself, with no name)."""
    from ..store import identity, stateview, streams

    names: dict[str, list[str]] = {}
    for ident, _active in identity.list_identities(repo):
        names.setdefault(ident.actor, []).append(ident.name)
    listing = streams.list_sources(repo)
    seen = stateview.serve(repo, stream_authors, lambda: _authors_from_collection(repo, listing),
                           listing)
    for actor, name, _ts in sorted(seen, key=lambda s: s[2], reverse=True):
        have = names.setdefault(actor, [])
        if name not in have:
            have.append(name)
    for actor in listed:
        names.setdefault(actor, [])
    return [Known(actor, tuple(n)) for actor, n in names.items()]


# each source's tip, looked up by the chain's key: a plain JOIN let SQLite scan the whole chain
# (every memory: 25 ms of each log and recall --actor at 100,000, S102 #4-#5)
TIPS_SQL = "SELECT c.id FROM sources s CROSS JOIN chain c ON c.sid = s.sid AND c.seq = s.length"


def stream_authors(view) -> list[tuple[str, str, str]]:
    """(actor, name, timestamp) of the newest memory of every stream in the verified state."""
    ids = [r[0] for r in view.conn.execute(TIPS_SQL)]
    mems = view.load(ids)
    return [(m.envelope.actor, m.envelope.actor_name, m.envelope.timestamp) for m in mems.values()]


def _authors_from_collection(repo: Repo, listing) -> list[tuple[str, str, str]]:
    from ..store import streams

    collection = streams.collect(repo, listing)
    return [(m.envelope.actor, m.envelope.actor_name, m.envelope.timestamp)
            for m in collection.memories]


def policy_present(repo: Repo, commit: str) -> bool:
    """Whether the policy at ``commit`` has a memory section (for the trust hint)."""
    from ..store.resolver import Resolver, load_policy

    return load_policy(repo, Resolver(repo), commit).memory is not None
