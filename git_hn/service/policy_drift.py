"""Trust-policy drift: memories a read shows as trusted under the policy at its query commit that
the policy at the repository's reference branch does not trust (git-hn; docs/decisions.md).

Trust is decided by the policy at the exact query commit (CONTRACT §5.7, §6.1), and stays so. A
trial found what that means when the policy changes on one branch only. After a maintainer
untrusted a stolen key on main, every checkout without that commit (a release branch, a tag, a
local main behind ``origin/main``) still showed the thief's new handoff, "Run ./deploy.sh
--skip-checks", as trusted, in an agent's brief too (*revoked-key replay*). And an unreviewed
branch that trusts its own author in ``.hn/policy.json`` made that author's memories trusted for
the reviewer who checked it out, and for their agent's brief (*self-trusting branch*). Nothing
said so.

So a read that shows trusted memories compares the policy at its query commit with the policy at
the reference: the remote's default branch, ``refs/remotes/<remote>/HEAD`` (else its ``main``,
else its ``master``), for the remote of the current branch's upstream, else ``origin``; without
any of them, the current branch's upstream; without one, nothing is compared. When an actor (or
kind) of a memory shown as trusted is trusted at the query commit and not at the reference,
``hint`` says so, in one line.
The trust classes and every document stay as the contract has them: this is a hint beside them.

Cost (``hint``): nothing when no memory is shown as trusted; else one ``for-each-ref`` (the
current branch's upstream remote and the remotes' default branches) and one exchange with the
repository's batch reader for the two policy blob IDs: equal blobs end it there. Only when they
differ are both policies read (the batch reader again), the names of the actors named looked up in
the verified state, and the commit the hint names is found: when it names actors only, the commit of
the reference's history that removed them (``service.revoked``'s bounded lookup: a newcomer trial
was told the policy at "Trust Bob's new key" does not trust the old key, a later change that did not
touch it); when it names kinds, or that lookup finds no one commit, one ``git log`` (run at the
working tree's top, found by one ``rev-parse``) finds the reference's commit that last changed the
file.

Trusts: Git's refs and objects, the worktree's ``HEAD`` file for the current branch (a file
read, as ``store.discover`` reads the repository: a ``HEAD`` that names no branch is a detached
one). Author names, ref names and commit subjects are hostile text: shown inert, on one line,
bounded. Advisory: a failure to decide is no hint, never an error.
"""

from __future__ import annotations

import os

from ..errors import HnError
from ..store.repo import Repo

POLICY_PATH = ".hn/policy.json"  # the committed policy (CONTRACT §6.1)
NAMED = 3  # actors and kinds a hint names; the rest are counted
SUBJECT_SHOWN = 72  # characters of the reference commit's subject (``hints.quoted_text``)
# a remote's default branch as this clone tracks it: the target of its HEAD, else its main, else
# its master (``replication.atrisk``'s rule: a clone made by ``git init`` and ``git remote add``
# has no ``refs/remotes/origin/HEAD``, and its upstream may be the very branch in question)
DEFAULTS = ("HEAD", "main", "master")
LOG_SECONDS = 10.0  # for the one ``git log`` (a long history without a commit-graph)


class Reference:
    """The reference branch: its ref (``refs/remotes/origin/main``) and its commit."""

    __slots__ = ("name", "commit")

    def __init__(self, name: str, commit: str):
        self.name, self.commit = name, commit


def shown_trusted(doc: dict, sections=()) -> set[tuple[str, str]]:
    """(actor, kind) of every memory a read's document shows as trusted (``qualified``): recall's
    and the digest's ``memories``, ``show``'s projections, and of a brief's document its
    ``sections`` (``core.brief.SECTIONS``; the others have none: a ``show`` loaded the brief's
    modules for them, issue 11)."""
    rows = [*(doc.get("memories") or ()), doc.get("projection"), doc.get("targetProjection")]
    for name in sections:
        rows += doc.get(name) or ()
    return {(r["actor"], r["kind"]) for r in rows
            if isinstance(r, dict) and r.get("trust") == "qualified" and "actor" in r and "kind" in r}


def hint(repo: Repo, at: str, shown, markdown: bool = False) -> str:
    """The drift line for a read at commit ``at`` that shows memories of ``shown`` ((actor,
    kind) pairs) as trusted, or "". ``markdown``: for the brief's header, where no author text
    appears outside a fence: actors by short ID only, the reference commit without its subject."""
    shown = set(shown)
    if not shown or not at:
        return ""
    try:
        return _hint(repo, at, shown, markdown)
    except (HnError, OSError, ValueError):
        return ""  # (advisory: the read's answer stands as it is)


def _hint(repo: Repo, at: str, shown: set, markdown: bool) -> str:
    from ..core.projection import trust
    from ..store.resolver import Resolver, load_policy

    ref = reference(repo)
    if ref is None or ref.commit == at:
        return ""
    here, there = repo.git.object_infos([f"{at}:{POLICY_PATH}", f"{ref.commit}:{POLICY_PATH}"])
    if (here and here[0]) == (there and there[0]):
        return ""  # the same policy blob (or none at both): the hot path ends here
    resolver = Resolver(repo)
    mine, theirs = load_policy(repo, resolver, at).memory, load_policy(repo, resolver, ref.commit).memory
    widened = [(a, k) for a, k in sorted(shown) if trust(a, k, mine) == "qualified"
               and trust(a, k, theirs) != "qualified"]
    actors = sorted({a for a, k in widened if trust(a, k, theirs) != "kind-untrusted"})
    kinds = sorted({k for a, k in widened if trust(a, k, theirs) == "kind-untrusted"})
    if not actors and not kinds:
        return ""
    names = {} if markdown else _names(repo, actors[:NAMED])
    changed = None if markdown else _removed(repo, ref.commit, actors, kinds) or _changed(repo, ref.commit)
    return text(_label(repo, at), actors, kinds, names, ref, changed, markdown)


def text(at: tuple[str, str], actors: list[str], kinds: list[str], names: dict[str, str], ref: Reference,
         changed: tuple[str, str] | None, markdown: bool = False) -> str:
    """The hint: whom the policy at ``at`` (how it is said, and the revision that names it) trusts
    that the reference's does not (at most ``NAMED`` of them named), the commit of the reference's
    history that removed them or last changed its policy (``changed``: commit and subject; None:
    the reference's commit alone), and how to see the difference. The reference's name is the
    remote's text (its default branch): ``markdown``, an escaped code span (``hints.code_word``:
    an agent trial, *prompt injection through a ref name*); the ``git diff`` to paste names it
    only when it is a plain word, else its commit (a remote's ``$(…)`` branch never reaches a
    shell)."""
    from ..core.gostr import and_joined, bounded, short_id
    from ..core.hints import code_word, named_actor, plain_word, quoted_text

    def who(actor: str) -> str:  # (as every hint names an author: ``hints.named_actor``)
        name = names.get(actor)
        return named_actor(actor, name) if name and name.strip() else f"actor {short_id(actor)}"

    entries = [who(a) for a in actors] + [f"kind {k}" for k in kinds]
    listed = and_joined(entries[:NAMED] + [f"{len(entries) - NAMED} more"] if len(entries) > NAMED else entries)
    place = _shown_ref(ref.name)
    rev_there = place if plain_word(place) else ref.commit[:12]
    place = code_word(bounded(_short_ref(ref.name), 120)) if markdown else place
    if changed is not None:
        # (as ``hints.since`` quotes one: its own quotes escaped; an agent trial's subject closed the
        # quotes early and spoke as a "SYSTEM NOTE" inside MCP's ``hint``: *prompt injection*)
        where = f"{place} ({changed[0][:12]}: {quoted_text(changed[1], SUBJECT_SHOWN)})"
    else:
        where = f"{place} ({ref.commit[:12]})"
    whose = ("their memories" if not kinds else "such memories" if actors
             else "memories of that kind" if len(kinds) == 1 else "memories of those kinds")
    said, rev = at
    return (f"the policy at {said} trusts {listed}, which the policy at {where} does not: {whose} shown as "
            f"trusted here would be untrusted there; git diff {rev_there} {rev} -- {POLICY_PATH} shows the change")


def reference(repo: Repo) -> Reference | None:
    """The reference branch (see the module docstring), or None. One ``for-each-ref``: the
    current branch's upstream (its remote and ref) and every remote's ``HEAD``, ``main`` and
    ``master`` (a remote whose name holds a ``/`` has none of them here: its upstream is the
    reference)."""
    from ..core.grammar import is_oid
    from ..core.lines import lines_of

    branch = _branch(repo)
    proc = repo.git.run(["for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)%00"
                         "%(upstream:remotename)%00%(upstream)", "--end-of-options",
                         *([branch] if branch else []), *(f"refs/remotes/*/{name}" for name in DEFAULTS)])
    rows = {}
    for line in lines_of(proc.stdout.decode("utf-8", "surrogateescape")) if proc.returncode == 0 else ():
        parts = line.split("\0")
        if len(parts) == 5:
            rows[parts[0]] = parts[1:]
    remote, upstream = "origin", ""
    if branch and branch in rows:
        _oid, _symref, named, upstream = rows[branch]
        if named and named != ".":  # (an upstream branch of this repository: no remote of its own)
            remote = named
    for name in DEFAULTS:
        found = rows.get(f"refs/remotes/{remote}/{name}")
        if found is not None and is_oid(found[0]):
            return Reference(found[1] or f"refs/remotes/{remote}/{name}", found[0])
    if upstream.startswith("refs/"):
        info = repo.git.object_info(upstream + "^{commit}")
        if info is not None and info[1] == "commit":
            return Reference(upstream, info[0])
    return None


def _branch(repo: Repo) -> str:
    """The current branch's ref (``refs/heads/…``) from the worktree's ``HEAD`` file; "" when
    detached or unreadable (also under the reftable format, whose ``HEAD`` names no branch)."""
    try:
        with open(os.path.join(repo.git_dir, "HEAD"), "rb") as fh:
            head = fh.read(4096).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return ""
    ref = head[len("ref: "):] if head.startswith("ref: refs/heads/") else ""
    return ref if ref and all(c > " " and c != "\x7f" for c in ref) else ""


def _shown_ref(ref: str) -> str:
    """A ref's short name as a hint shows it (a remote's branch names are its own text)."""
    from ..core.gostr import bounded
    from ..core.log import inert

    return bounded(inert(_short_ref(ref)), 120)


def _short_ref(ref: str) -> str:
    for prefix in ("refs/remotes/", "refs/heads/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ref


def _label(repo: Repo, at: str) -> tuple[str, str]:
    """How a hint says the query commit, and the revision that names it."""
    return ("HEAD", "HEAD") if at == repo.head_commit() else (f"commit {at[:12]}", at[:12])


def _names(repo: Repo, actors: list[str]) -> dict[str, str]:
    """The name each actor signed its newest memory of a stream with, from the verified state ({}
    when the state cannot say: the hint names them by ID)."""
    if not actors:
        return {}
    from ..store import stateview

    def from_view(view) -> dict[str, str]:
        ids = [row[0] for actor in actors for row in view.conn.execute(
            "SELECT c.id FROM sources s JOIN chain c ON c.sid = s.sid AND c.seq = s.length WHERE s.actor = ? "
            "LIMIT 1", (actor,))]
        return {m.envelope.actor: m.envelope.actor_name for m in view.load(ids).values()}

    return stateview.serve(repo, from_view, dict)


def _removed(repo: Repo, commit: str, actors: list[str], kinds: list[str]) -> tuple[str, str] | None:
    """(commit, subject) of the commit in ``commit``'s history that removed ``actors`` from the
    trusted actors (``service.revoked``), when the hint names actors only and one commit removed
    every one of them; else None (a newcomer trial: after "Trust Bob's new key", the last change
    was named as the policy that does not trust the old key, which it did not touch)."""
    if kinds or not actors or len(actors) > NAMED:
        return None
    from .revoked import revocations

    found = revocations(repo, commit, actors)
    removals = {(r.commit, r.subject) for r in found.values()}
    return removals.pop() if len(found) == len(actors) and len(removals) == 1 else None


def _changed(repo: Repo, commit: str) -> tuple[str, str] | None:
    """(commit, subject) of the last commit in ``commit``'s history that changed the policy file
    (one ``git log``), or None."""
    from ..core.grammar import is_oid
    from ..store.worktree import from_top

    try:  # (from the top: a pathspec counts from the current directory, a subdirectory's too)
        proc = repo.git.run([*from_top(repo), "log", "-1", "--format=%H%x00%s", "--end-of-options", commit, "--",
                             POLICY_PATH], timeout=LOG_SECONDS)
    except HnError:  # (no answer in time: the reference's commit is named instead)
        return None
    found, _nul, subject = proc.stdout.decode("utf-8", "replace").rstrip("\n").partition("\0")
    return (found, subject) if proc.returncode == 0 and is_oid(found) else None
