"""Which memories a publication may give a remote now (CONTRACT §9.13, §10.7; issues 11 and 12).

A memory is published only once its anchor commit is on the remote (reachable from
``refs/remotes/<remote>/*``, which a successful push moves), and once the remote holds every
memory of this clone's own streams it cites (``cited``): a stream goes up to the memory before
the first one that must wait, and the rest waits (``gate``, the ``Held`` lines). A push the
server rejected, followed by a rebase, therefore never leaves a published memory anchored on a
commit that exists nowhere but in the author's old history. Also: which commits no push will
carry (``discarded``), and which memories name given commits (``anchored_on``).

Owns nothing on disk; reads the verified state (else a full collection of the streams asked
about) and asks Git about commits. Trusts the state and the remote-tracking refs.
"""

from __future__ import annotations

from ...core.grammar import LOCAL_PREFIX, parse_local_ref
from ...core.lines import lines_of
from ...core.tuples import NamedTuple
from ...errors import HnError
from ...store import statedb, stateview, streams
from ...store.repo import Repo
from . import cited
from .given_record import published_heads
from .outcomes import counted


class Held(NamedTuple):
    """A stream published only up to the memory before ``memory`` (or not at all), because the
    anchor ``commit`` of that memory is not on the remote yet; ``waiting`` memories wait.
    ``discarded``: no branch, tag or remote-tracking ref here contains that commit, nor HEAD
    (``git reset`` left it behind), so no push will carry it: ``git hn memory reanchor``."""

    ref: str
    memory: str
    commit: str
    waiting: int
    discarded: bool = False
    cites: str = ""  # or: ``memory`` cites this memory of another stream, which the remote lacks (``cited``)
    elsewhere: bool = False  # (discarded:) only another remote's branches contain the commit
    untracked: str = ""  # or: this push sends the commit to this remote ref, which no fetch refspec tracks
    successor: str = ""  # (discarded:) the one commit of HEAD's history that makes the same change
    where: str = ""  # or: the push URL that was asked and lacks the commit ("push URL 2 of origin": ``push_targets``)
    unseen: bool = False  # (where, unmapped:) that URL's branches name commits this clone lacks, which may contain it
    unmapped: bool = False  # or: no fetch refspec maps the remote's branches (a bare clone: ``remote_branches``)
    absent: bool = False  # (discarded:) the commit is not in this clone at all (``git gc`` pruned it)
    behind: tuple = ()  # or: (a local branch that contains it, the remote-tracking branch it is behind) (``refused_branches``)
    unhooked: bool = False  # (where, behind:) git-hn's hooks do not run here: no push carries it (``hooks_here``)
    branch: str = ""  # (plain, where, unmapped:) a local branch that contains the commit (``named_branches``)

    def line(self, remote: str) -> str:
        """What a person reads about it (``git hn sync`` and the pre-push hook); every name inside a
        command is shell-quoted (a branch may be named ``$(…)``: pasting the command ran it)."""
        from shlex import quote

        from ...core.gostr import short_id
        from ...core.grammar import parse_local_ref
        from ..unpushed import push_branch, push_command

        # (a team trial: two 64-hex halves of the ref and full IDs made one line of 300 characters;
        # ``--json`` gives them whole, and Git and git-hn take the 12-character forms back)
        local = parse_local_ref(self.ref)
        what = f"of stream {short_id(local[1])}" if local else self.ref
        memory, commit = short_id(self.memory), self.commit[:12]
        waiting = counted(self.waiting, "memory waits", "memories wait")
        self_remote, remote = remote, quote(remote)  # (a no-op for a name CONTRACT §3.2 allows)
        if self.cites:
            return (f"Publication {what}: {waiting} until memory {short_id(self.cites)}, which memory {memory} "
                    f"cites, is on {remote} (it is in another stream of this clone: what holds that one is said "
                    "on its own line, or in the publication's error)")
        if self.discarded:
            later = f" (with the {counted(self.waiting - 1, 'memory', 'memories')} after it)" if self.waiting > 1 else ""
            keep = (f"keep the commit on the remote: git push {remote} {commit}:refs/heads/hn-anchor/"
                    f"{commit}")
            if self.absent:  # (a trial: the push above failed, "fatal: bad object": nothing here to push)
                return (f"Publication {what}: memory {memory}{later} waits for commit {commit}, which is not in "
                        f"this clone at all (pruned after a rebase or a deleted branch?): git fetch {remote} "
                        f"{self.commit} && git push {remote} {self.commit}:refs/heads/hn-anchor/{commit} keeps it "
                        f"on the remote if {remote} still has the object; if no one has it, move the memory to a "
                        f"commit you push with git hn memory reanchor {commit} NEW, or discard it with git hn "
                        f"memory reanchor {commit} --drop")
            if self.elsewhere:  # (a team trial: kept on a fork after a rebase, it held the stream for good)
                return (f"Publication {what}: memory {memory}{later} waits for commit {commit}, which "
                        f"only another remote's branches contain here, no branch or tag of yours: it reaches "
                        f"{remote} when such a branch is merged there (not squashed); else {keep}")
            if self.successor:  # (a team trial: after a rebase, "NEW" left the reader to find it)
                return (f"Publication {what}: memory {memory}{later} waits for commit {commit}, "
                        f"which no branch, tag or remote-tracking ref here contains; commit {self.successor[:12]} of "
                        f"HEAD makes the same change (a rebase?): git hn memory reanchor {commit} "
                        f"{self.successor[:12]} moves it there; git hn memory reanchor {commit} --drop discards it; "
                        f"or {keep}")
            # (a team trial dropped the commit in rebase -i: discarding the note was the one way
            # out not offered, and pushing the dropped commit or re-anchoring then retracting it
            # were the only ones)
            return (f"Publication {what}: memory {memory}{later} waits for commit {commit}, which "
                    f"no branch, tag or remote-tracking ref here contains; move it to a commit you push with "
                    f"git hn memory reanchor {commit} NEW, NEW being the commit to name instead, discard it with "
                    f"git hn memory reanchor {commit} --drop (a commit dropped on purpose), or {keep}")
        if self.untracked:  # (a review: a single-branch clone's push of a new branch was taken as carried)
            name = self.untracked.removeprefix("refs/heads/")
            return (f"Publication {what}: {waiting} until commit {commit} is on a branch of {remote} "
                    f"this clone tracks: this push sends it to {self.untracked}, which remote.{remote}.fetch "
                    f"does not map (a single-branch clone?); git remote set-branches --add {remote} {quote(name)} and "
                    f"git fetch {remote} track it, then git hn sync {remote}")
        if self.where and self.unseen:  # (a review: "push a branch that contains it" when one there did)
            return (f"Publication {what}: {waiting} until commit {commit} is on {self.where}, whose branches name "
                    f"commits this clone lacks (pushed there since you last fetched from it?), which may contain it: fetch "
                    f"them (git remote add NAME URL, with the URL git remote get-url --push --all {remote} lists, "
                    f"and git fetch NAME), then git hn sync {remote}")
        # (a branch named: the command, as the record's hint gives it; else the generic words)
        command = push_command(self_remote, self.branch) if self.branch else ""
        push = f"{command} (branch {self.branch} contains it)" if command else "push a branch that contains it"
        push_to = f"branch {self.branch} contains it: {command}" if command else f"{push} to {remote}"
        follows = ";" if command else ":"
        if self.unmapped:  # (a trial: a bare clone was told to fetch, which moved nothing, for good)
            spec = quote(f"+refs/heads/*:refs/remotes/{self_remote}/*")
            if self.unseen:  # (a review: told to push a branch that contains it, when the remote's did)
                return (f"Publication {what}: {waiting} until commit {commit} is on a branch of {remote}, whose "
                        f"branches name commits this clone lacks (pushed there since this clone last fetched?), "
                        f"which may contain it, and no remote.{remote}.fetch maps them (a bare clone?): fetch "
                        f"them (git config --add remote.{remote}.fetch {spec} && git fetch {remote}), then git hn "
                        f"sync {remote}")
            return (f"Publication {what}: {waiting} until commit {commit} is on a branch of {remote}, and no "
                    f"remote.{remote}.fetch maps its branches (a bare clone?): {push}, "
                    f"then git hn sync {remote}; to track them, git config --add remote.{remote}.fetch {spec} "
                    f"&& git fetch {remote}")
        # (f170: "the memory follows that push" only where git-hn's hooks run: ``unhooked``)
        if self.unhooked:
            from ..hooks_here import NO_HOOKS_SO, REANCHOR_NAMED
        if self.where and self.unhooked:
            return (f"Publication {what}: {waiting} until commit {commit} is on {self.where} ({push_to}, then git "
                    f"hn sync {remote}; {NO_HOOKS_SO} the push does not carry the memory)")
        if self.where:  # (that URL was asked: no fetch makes it true)
            return (f"Publication {what}: {waiting} until commit {commit} is on {self.where} ({push_to}{follows} the "
                    f"memory follows that push, or git hn sync {remote})")
        if self.behind:  # (f166: that branch was pushed, and Git refused it as a non-fast-forward)
            branch = self.behind[0].removeprefix("refs/heads/")
            then = (f", then git hn sync {remote}, {REANCHOR_NAMED}; {NO_HOOKS_SO} neither the rebase nor the push "
                    "carries it)"
                    if self.unhooked else f"; the memory follows that push, or git hn sync {remote})")
            return (f"Publication {what}: {waiting} until commit {commit} is on {remote} (branch {branch} "
                    f"contains it but is behind {self.behind[1].removeprefix('refs/remotes/')}, so Git refuses "
                    f"its push: on that branch, git pull --rebase {remote} {quote(branch)}, then git push {remote} "
                    f"{quote(branch)}{then}")
        if self.branch:  # (the record's hint names it so: ``unpushed.push_branch``)
            return (f"Publication {what}: {waiting} until commit {commit} is on {remote} "
                    f"({push_branch(self_remote, self.branch)}; then git hn sync {remote})")
        return (f"Publication {what}: {waiting} until commit {commit} is on {remote} (push a branch "
                f"that contains it, or git fetch {remote} if one is there already; then git hn sync {remote})")


def named_branches(repo: Repo, held: list) -> list:
    """``held``, with ``branch`` set on each line that would say "push a branch that contains it"
    (plain, a push URL's, a bare clone's; not a discarded, citing, untracked, unseen or behind one)
    to a local branch that contains its commit, so that the line gives the push to run, as the
    record's hint does (f176: sync and the pre-push hook said only "a branch"). No Git process when
    no such line is held; else one ``name-rev`` for all their commits (``unpushed.branches_of``,
    bounded in time: words only, never what is published); the generic words stay for a commit
    no local branch contains."""
    from ..unpushed import branches_of

    says = [h for h in held if _says_push(h)]
    if not says:
        return held
    found = branches_of(repo, {h.commit for h in says})
    return [h._replace(branch=found[h.commit]) if _says_push(h) and h.commit in found else h for h in held]


def _says_push(h: Held) -> bool:
    return bool(h.commit) and not (h.discarded or h.cites or h.untracked or h.unseen or h.behind)


def gate(repo: Repo, remote: str, tips: dict[str, str], bases: dict[str, str],
         listing: list | None = None, there: list[str] | None = None) -> tuple[dict[str, str], list[Held]]:
    """For each ``ref -> tip`` (verified), the newest commit of its chain that may be published
    to ``remote``: every memory above ``bases[ref]`` (what the remote already has, if anything)
    up to it is anchored on a commit reachable from ``refs/remotes/<remote>/*``. Refs with nothing
    publishable (``behind`` included) are left out; those held back are listed. Two Git processes for all streams
    (the remote-tracking tips, one ``rev-list``), none when nothing is above its base.
    ``listing``: the memory sources, when the caller listed them. ``there``: the commits one push
    URL's branches name (those this clone has), counted instead of the remote-tracking refs
    (``push_targets``: a remote that pushes elsewhere than it fetches)."""
    listing = streams.list_sources(repo) if listing is None else listing
    ahead = behind(repo, remote, tips, listing)
    if ahead:
        tips = {r: t for r, t in tips.items() if r not in ahead}
    chains, citing = _chains_above(repo, tips, bases, listing, remote)
    anchors = {a for links in chains.values() for link in links for a in [link.anchor] if a}
    missing = _not_on_remote(repo, remote, anchors, there) if anchors else set()
    cut = {ref: next((i for i, link in enumerate(links) if link.anchor in missing), len(links))
           for ref, links in chains.items()}
    waits = cited.waits(remote, chains, cut, *citing) if citing is not None else {}
    allowed = Allowed()
    held: list[Held] = []
    for ref, links in sorted(chains.items()):
        k = cut[ref]
        if ref in waits:
            k, cites = waits[ref]
            held.append(Held(ref, links[k].memory_id, "", len(links) - k, cites=cites))
        elif k < len(links):
            held.append(Held(ref, links[k].memory_id, links[k].anchor, len(links) - k))
        if k:
            allowed[ref] = links[k - 1].commit
            allowed.anchors[ref] = [(link.memory_id, link.anchor) for link in links[:k] if link.anchor]
    if any(h.commit for h in held):
        gone, elsewhere, absent = discarded_for(repo, {h.commit for h in held if h.commit}, remote)
        same = same_change(repo, gone - elsewhere - absent) if gone - elsewhere - absent else {}
        held = [h._replace(discarded=h.commit in gone, elsewhere=h.commit in elsewhere,
                           successor=same.get(h.commit, ""), absent=h.commit in absent) for h in held]
    if citing is not None:
        final = {ref: waits[ref][0] if ref in waits else cut[ref] for ref in chains}
        allowed.after = _acyclic(remote, chains, final, citing, allowed, held)
    return allowed, held


def _acyclic(remote: str, chains: dict, final: dict[str, int], citing, allowed: "Allowed",
             held: list) -> dict[str, set[str]]:
    """``Allowed.after`` (ref -> the refs of this publication whose part holds a memory its part
    cites), with every circle broken: two of the user's streams citing each other's new
    memories (A2 cites B1, which cites A1) were pushed together, and a server that refused one
    took the other alone (an audit: importers failed with dependency-missing). A ref in a circle
    is cut before its first memory that cites another ref of this publication (that memory and
    the rest wait for the next publication, held and said as a citing wait), until none is left:
    cuts only shrink, so this ends."""
    while True:
        after = {ref: deps & set(allowed) for ref, deps in cited.relies(remote, chains, final, *citing).items()
                 if ref in allowed and deps & set(allowed)}
        circle = _in_circle(after)
        if not circle:
            return after
        # the member whose first citing memory comes latest: the most of the circle goes now
        firsts = {ref: cited.first_relying(remote, chains, final, *citing, ref) for ref in circle}
        ref = max(sorted(circle), key=lambda r: firsts[r][0])
        k, cites = firsts[ref]
        if k >= final[ref]:  # (cannot happen: a ref in a circle relies on another; never loop)
            return after
        _cut(ref, k, cites, chains, final, allowed, held)
        # what cited the memories cut off waits too (a cut only shrinks: this settles)
        for other, (j, what) in cited.waits(remote, chains, final, *citing).items():
            if j < final[other]:
                _cut(other, j, what, chains, final, allowed, held)


def _cut(ref: str, k: int, cites: str, chains: dict, final: dict[str, int], allowed: "Allowed", held: list) -> None:
    """``ref`` published up to the memory before its ``k``-th link this time; that link waits
    for the memory ``cites``."""
    links = chains[ref]
    final[ref] = k
    held[:] = sorted([h for h in held if h.ref != ref] +
                     [Held(ref, links[k].memory_id, "", len(links) - k, cites=cites)], key=lambda h: h.ref)
    if k:
        allowed[ref] = links[k - 1].commit
    else:
        allowed.pop(ref, None)


def _in_circle(after: dict[str, set[str]]) -> set[str]:
    """The refs that ``after`` leads back to themselves (empty when there is no circle)."""
    out = set()
    for start in sorted(after):
        seen, todo = set(), list(after[start])
        while todo:
            ref = todo.pop()
            if ref == start:
                out.add(start)
                break
            if ref not in seen:
                seen.add(ref)
                todo.extend(after.get(ref, ()))
    return out


class Allowed(dict):
    """ref -> the newest commit that may be published (``gate``), and ``after``: ref -> the refs
    whose part in the same publication holds a memory it cites (``cited.relies``), which
    ``publish.push`` gives the remote first; ``anchors``: ref -> (memory, anchor commit) of the
    memories that publication gives, root first (``atrisk``)."""

    after: dict[str, set[str]] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.anchors: dict[str, list[tuple[str, str]]] = {}


def behind(repo: Repo, remote: str, tips: dict[str, str], listing: list) -> set[str]:
    """The refs of ``tips`` whose tip the remote already holds inside a longer chain: the stream's
    accepted copy from ``remote`` (verified as that remote advertised it) contains it. The same
    identity appended there from another clone (``identity export``/``import``): this clone has
    nothing to publish, and pushing its tip would be refused as a non-fast-forward. (Its next
    append continues the longer chain, §4.4.) One ``rev-list`` for all of them, none when no
    accepted copy differs from the local tip."""
    accepted = {(s.actor, s.stream): s.head for s in listing if s.remote == remote}
    pairs = {}
    for ref, tip in tips.items():
        head = accepted.get(parse_local_ref(ref))
        if head and head != tip:
            pairs[ref] = (tip, head)
    if not pairs:
        return set()
    walk = repo.git.run(["rev-list", "--stdin"],
                        input="".join(f"{tip}\n^{head}\n" for tip, head in pairs.values()).encode())
    if walk.returncode != 0:
        return set()
    beyond = set(walk.stdout.decode("ascii", "replace").split())
    return {ref for ref, (tip, _head) in pairs.items() if tip not in beyond}


def anchored_on(repo: Repo, commits: list[str], view) -> list[tuple[str, str]]:
    """(memory ID, anchor commit) of every verified memory anchored on one of ``commits``, from
    ``view``, the state as last verified (``stateview.checking``: the caller says when the state
    is busy); none when there is none, or it cannot answer."""
    from ...store.state import chunks, marks

    if not commits or view is None:
        return []
    try:
        out = []
        for part in chunks(sorted(set(commits))):
            out += view.conn.execute(
                f"SELECT r.id, a.anchor FROM akeys a JOIN rows r ON r.akey = a.akey "
                f"WHERE a.anchor IN ({marks(len(part))}) ORDER BY r.utc, r.id", part).fetchall()
        return out
    except (HnError, OSError, statedb.sqlite3.Error):
        return []


def discarded_for(repo: Repo, anchors: set[str], remote: str) -> tuple[set[str], set[str], set[str]]:
    """(the ``anchors`` no push to ``remote`` of this repository's branches or tags can carry, of
    those the ones that another remote's branches contain, and the ones that are not in this
    clone at all): ``discarded`` with only ``remote``'s
    own remote-tracking refs counted, then one more ``rev-list`` for what it names. A commit
    only another remote holds (a fork's branch, or a commit kept there after a rebase) reaches
    ``remote`` only if that branch is merged there: without a word it held the stream for good."""
    if not anchors:
        return set(), set(), set()
    head = repo.head_commit()
    absent, beyond = _beyond(repo, anchors, ["--not", "--branches", "--tags", *tracking(repo, remote)],
                             [head] if head else [])
    if not beyond:  # (None: Git could not answer, and nothing is named)
        return absent, set(), absent
    _absent, nowhere = _beyond(repo, beyond, ["--not", "--remotes"], [])
    return absent | beyond, set() if nowhere is None else beyond - nowhere, absent


def not_carried(repo: Repo, anchors: set[str], remote: str, pushed: set[str]) -> set[str]:
    """The ``anchors`` that neither ``remote``'s tracking refs nor the tips of this push
    (``pushed``) contain: commits the remote will not have after it. One ``rev-list``."""
    if not anchors:
        return set()
    absent, beyond = _beyond(repo, anchors, ["--not", *tracking(repo, remote)], sorted(pushed))
    return absent | (beyond or set())


def sent_to(repo: Repo, anchors: set[str], tips: dict[str, str]) -> dict[str, str]:
    """anchor -> a remote ref this push sends it to, for the ``anchors`` some tip of ``tips``
    (tip -> remote ref) contains: one ``rev-list`` for them all (a review: one a tip made a push
    of 300 tags start 300); the ref named is the one tip's, or the first of several."""
    absent, beyond = _beyond(repo, anchors, [], sorted(tips))
    if beyond is None:
        return {}
    first = min(tips.values())
    return {a: first for a in anchors - beyond - absent}


def tracking(repo: Repo, remote: str, excluded: tuple[str, ...] = ()) -> list[str]:
    """``rev-list`` arguments that name ``remote``'s own remote-tracking refs, less its branches
    ``excluded``: ``--remotes=<remote>/*`` alone also matches ``refs/remotes/<remote>/<x>/…``, the
    refs of another configured remote named ``<remote>/<x>`` (an audit: a memory anchored on a
    commit pushed only to ``team/fork`` was published to ``team``), so those are excluded. Glob
    characters in a name (Git allows them in a hand-written configuration) are escaped."""
    nested = sorted(n for n in repo.remote_names() if n.startswith(remote + "/"))
    return [*(f"--exclude={_escaped(remote)}/{b}" for b in excluded),
            *(f"--exclude={_escaped(n)}/*" for n in nested), f"--remotes={_escaped(remote)}/*"]


def nested_prefixes(repo: Repo, remote: str) -> tuple[str, ...]:
    """The ``refs/remotes/<remote>/<x>/`` prefixes that belong to other remotes (``tracking``)."""
    return tuple(f"refs/remotes/{n}/" for n in sorted(repo.remote_names()) if n.startswith(remote + "/"))


def branch_refspecs(repo: Repo, remote: str) -> list[str]:
    """The fetch refspecs of ``remote`` that map its branches into its own remote-tracking refs
    (and its negative ones for branches), as configured."""
    proc = repo.git.run(["config", "--get-all", "--end-of-options", f"remote.{remote}.fetch"])
    others = nested_prefixes(repo, remote)
    specs = []
    for spec in lines_of(proc.stdout.decode("utf-8", "replace")) if proc.returncode == 0 else []:
        spec = spec.strip()
        src, colon, dst = spec.lstrip("+").partition(":")
        if spec.startswith("^refs/heads/") and not colon:
            specs.append(spec)
        elif colon and src.startswith("refs/heads/") and dst.startswith(f"refs/remotes/{remote}/") \
                and not dst.startswith(others) and ".." not in dst:
            specs.append(spec)
    return specs


def fetches_every_branch(repo: Repo, remote: str) -> bool:
    """Whether ``remote``'s fetch refspecs take all of its branches (``refs/heads/*``, none left
    out by a negative refspec): not a ``--single-branch`` clone's. One ``git config``."""
    specs = branch_refspecs(repo, remote)
    return "refs/heads/*" in [s.lstrip("+").partition(":")[0] for s in specs if not s.startswith("^")] \
        and not any(s.startswith("^") for s in specs)


def _escaped(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[\\" else c for c in name)


ALL_REFS = ("--branches", "--tags", "--remotes")  # (``discarded``'s refs: every branch, tag and tracking ref)


def discarded(repo: Repo, anchors: set[str], refs: tuple[str, ...] = ALL_REFS, head: bool = True) -> set[str]:
    """The ``anchors`` that no push of this repository's history can carry: commits that no
    branch, tag or remote-tracking ref contains, nor HEAD (or that are not here at all). One
    ``rev-list`` for all of them; none is named when Git cannot answer (the caller only warns).
    ``refs``: the ``rev-list`` options naming the refs that count (``held.off_branches``: without
    git-hn's keep branches); ``head`` false: HEAD does not count (``reanchor``: whether only a
    detached HEAD holds one)."""
    if not anchors:
        return set()
    head = repo.head_commit() if head else ""
    found = _beyond(repo, anchors, ["--not", *refs], [head] if head else [])
    return found[0] if found[1] is None else found[0] | found[1]


SAME_CHANGE_WINDOW = 1000  # commits of HEAD's history (since the discarded ones) compared


def same_change(repo: Repo, commits: set[str]) -> dict[str, str]:
    """commit -> the one commit of HEAD's history, among the newest ``SAME_CHANGE_WINDOW`` that
    the ``commits`` do not contain, that a rebase made of it: the same author, author date and
    subject (a ``log`` without diffs), then the same ``git patch-id --stable`` (diffs of those
    pairs only); a commit with no such copy, or several, is left out. Only for discarded anchors."""
    present = [c for c, info in zip(sorted(commits), repo.git.infos_bulk(sorted(commits)))
               if info is not None and info[1] == "commit"]
    if not present or repo.head_commit() is None:
        return {}
    fmt = "--format=%H %ae%x00%at%x00%s"
    # (the commits on standard input: one a held stream, more than a command line holds)
    old = repo.git.run(["log", fmt, "--no-walk=unsorted", "--stdin"], input="".join(f"{c}\n" for c in present).encode())
    new = repo.git.run(["log", fmt, "--no-merges", f"-n{SAME_CHANGE_WINDOW}", "--stdin", "HEAD", "--"],
                       input="".join(f"^{c}\n" for c in present).encode())
    if old.returncode != 0 or new.returncode != 0:
        return {}
    keyed: dict[str, list[str]] = {}
    for line in lines_of(new.stdout.decode("utf-8", "replace")):
        commit, _sp, key = line.partition(" ")
        keyed.setdefault(key, []).append(commit)
    pairs = {}
    for line in lines_of(old.stdout.decode("utf-8", "replace")):
        commit, _sp, key = line.partition(" ")
        if len(keyed.get(key, ())) == 1:
            pairs[commit] = keyed[key][0]
    if not pairs:
        return {}
    diffs = repo.git.run(["log", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "--format=commit %H",
                          "--no-walk=unsorted", "--stdin"], input="".join(f"{c}\n" for c in (*pairs, *pairs.values())).encode())
    ids = repo.git.run(["patch-id", "--stable"], input=diffs.stdout) if diffs.returncode == 0 else diffs
    if ids.returncode != 0:
        return {}
    pid = dict(reversed(line.split(" ", 1)) for line in ids.stdout.decode("ascii", "replace").splitlines()
               if " " in line)
    return {c: n for c, n in pairs.items() if pid.get(c) is not None and pid.get(c) == pid.get(n)}


def _beyond(repo: Repo, anchors: set[str], args: list[str], negatives: list[str]):
    """(the ``anchors`` that are no commit here, those reachable from none of ``negatives`` and of
    what ``args`` name), with one ``rev-list``; the second is None when Git could not answer."""
    ordered = sorted(anchors)
    infos = repo.git.infos_bulk(ordered)
    present = [a for a, info in zip(ordered, infos) if info is not None and info[1] == "commit"]
    absent = set(ordered) - set(present)
    if not present:
        return absent, set()
    walk = repo.git.run(["rev-list", "--stdin", *args],
                        input="".join(f"{a}\n" for a in present).encode()
                        + "".join(f"^{t}\n" for t in negatives).encode())
    if walk.returncode != 0:
        return absent, None
    beyond = set(walk.stdout.decode("ascii", "replace").split())
    return absent, {a for a in present if a in beyond}


class Link(NamedTuple):
    """What the gate reads of one memory: its commit, ID and anchor commit ("" without a record),
    the memories it cites and its sequence (``cited``; from the verified state only)."""

    commit: str
    memory_id: str
    anchor: str
    cites: tuple = ()
    seq: int = 0


def _chains_above(repo: Repo, tips: dict[str, str], bases: dict[str, str],
                  listing: list | None = None, remote: str = "") -> tuple[dict[str, list[Link]], tuple | None]:
    """ref -> the ``Link`` of each verified memory above ``bases[ref]`` up to ``tips[ref]``, root
    first: from the verified state's chain and rows in one query per ref (no memory read again
    from Git: a first publication of 10,000 streams re-read and re-decoded 20,000), else from a
    full collection of those streams. With them, when a link cites memories (``cited``): where
    those are, and the sequence ``remote`` was given of each local stream that holds one."""
    mine = {parse_local_ref(r) for r in tips}
    listing = [s for s in (streams.list_sources(repo) if listing is None else listing)
               if (s.actor, s.stream) in mine]

    def cut(ref: str, links: list[Link]) -> list[Link]:
        commits = [link.commit for link in links]
        tip, base = tips[ref], bases.get(ref, "")
        if tip not in commits:
            return []
        start = commits.index(base) + 1 if base in commits else 0
        return links[start:commits.index(tip) + 1]

    try:
        with stateview.current(repo, listing=listing, scope=mine) as view:
            out = {}
            for ref in tips:
                rows = view.conn.execute(
                    'SELECT c."commit", c.id, a.anchor, c.seq FROM chain c JOIN sources s ON s.sid = c.sid '
                    "LEFT JOIN rows r ON r.id = c.id LEFT JOIN akeys a ON a.akey = r.akey "
                    "WHERE s.ref = ? ORDER BY c.seq", (ref,)).fetchall()
                out[ref] = cut(ref, [Link(c, i, a or "", (), q) for c, i, a, q in rows])
            cites = cited.cites_of(view.conn, [link.memory_id for links in out.values() for link in links])
            if not cites:
                return out, None
            out = {ref: [link._replace(cites=cites.get(link.memory_id, ())) for link in links]
                   for ref, links in out.items()}
            places = cited.located(view.conn, {c for ids in cites.values() for c in ids})
            refs = {ref for found in places.values() for ref, _seq in found if ref.startswith(LOCAL_PREFIX)}
            given = {**published_heads(repo, remote), **bases} if refs else {}
            given_seq = {ref: cited.sequence_of(view.conn, ref, given[ref]) for ref in refs if ref in given}
            return out, (places, {r: q for r, q in given_seq.items() if q is not None})
    except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
        collection = streams.collect(repo, listing)
        return {ref: cut(ref, [Link(m.commit, m.memory_id,
                                    m.envelope.record.anchor.commit if m.envelope.record is not None else "")
                               for m in collection.chains.get(ref, [])])
                for ref in tips}, None


def _not_on_remote(repo: Repo, remote: str, anchors: set[str], there: list[str] | None = None) -> set[str]:
    """The ``anchors`` that are not reachable from ``remote``'s remote-tracking refs (or from the
    commits ``there``, when given), or are not in this repository at all. One listing and one
    ``rev-list`` for all of them."""
    if there is not None:
        absent, beyond = _beyond(repo, anchors, [], sorted(there)) if there else (set(), None)
        return set(anchors) if beyond is None else absent | beyond
    proc = repo.git.run(["for-each-ref", "--format=%(objectname) %(refname)", f"refs/remotes/{remote}/"])
    others = nested_prefixes(repo, remote)
    rows = [row.split(" ", 1) for row in lines_of(proc.stdout.decode("utf-8", "replace"))] \
        if proc.returncode == 0 else []
    remote_tips = sorted({row[0] for row in rows if len(row) == 2 and not row[1].startswith(others)})
    if not remote_tips:
        return set(anchors)
    absent, beyond = _beyond(repo, anchors, [], remote_tips)
    return set(anchors) if beyond is None else absent | beyond
