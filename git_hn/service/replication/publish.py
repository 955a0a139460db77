"""Publishing local memory streams to a remote (CONTRACT §9.13, §10.7; issues 11 and 12).

Only local streams (``refs/hn/memory/*``) are published, never accepted copies or branches, and
only after their chains verified (through the verified state, which checks only what moved).
A stream is published up to the memory before the first one that must wait (``gate``: its anchor
commit, or a memory of another stream it cites, is not on the remote yet); git-hn never pushes
a code commit itself.
A stream the remote already holds at the same tip is counted as published without being pushed;
the rest go in one ``git push --porcelain`` with one explicit, non-forced refspec per ref, or,
from ``OUTBOX_FROM`` refs, one wildcard refspec over an outbox holding the verified tips
(``store.outbox``: Git matches every explicit refspec against every local ref). What was given
to each remote is remembered in the state, so that the pre-push hook pushes only what moved
since; when many streams are missing from that bookkeeping (a state rebuilt after an upgrade
forgets it), the remote is asked once what it holds (``remote_bases``) rather than every stream
being checked and pushed again. What a push Git did not complete means (never sent, a refused
stream already there further, a server refusing memory refs) is ``push_refused``'s.
"""

from __future__ import annotations

import os

from ...core.grammar import LOCAL_PREFIX, is_oid, parse_accepted_ref, parse_local_ref, uniform_lines
from ...core.lines import lines_of
from ...errors import HnError, ValidationError
from ...store import state as statemod
from ...store import statedb, stateview, streams
from ...store.transport import NOT_PUSHABLE, remote_env, transport_allowed, unmirrored
from ...store.repo import Repo
from .gate import gate, tracking
from .given_record import note_held, published_heads, remember, settle_stopped
from .outcomes import PhaseError, counted, phase
from .push_said import not_pushed, refusal

SLICE = 1000  # refspecs per push command line
OUTBOX_FROM = 16  # refs from which a push names them through one wildcard refspec (``push``)
ASK_FROM = 64  # streams missing from the bookkeeping from which the remote is asked what it holds
ASK_TIMEOUT = 20.0  # seconds that question may take (a hook must not hang on a silent remote)


def local_refs(repo: Repo, remote: str) -> list[str]:
    proc = repo.git.run(["for-each-ref", "--format=%(refname)", "refs/hn/memory"])
    if proc.returncode != 0:
        raise phase("memory publication inspection", remote)
    data = proc.stdout
    refs = lines_of(data.decode("utf-8", "replace"))  # (one a line: ``str.split`` splits at U+00A0 too)
    if uniform_lines(data, _LOCAL_REF_LINE) is None and any(parse_local_ref(r) is None for r in refs):
        raise phase("memory publication inspection", remote)  # (each ref is parsed only then)
    return refs


_LOCAL_REF_LINE = (LOCAL_PREFIX.encode("ascii"), 64, b"/", 64, b"\n")  # ``local_refs``' usual line


def verified(repo: Repo, refs: list[str], on_view=None, listing: list | None = None):
    """Bring the state up to date for the streams of ``refs`` (and their accepted copies, for
    §11(a)); ``on_view(view)`` runs while it is current. Raises ``ValidationError`` (the full
    verification's) when one of those streams is invalid. ``listing``: the memory sources, when
    the caller listed them."""
    if listing is None:
        mine = {parse_local_ref(r) for r in refs}
        listing = streams.list_sources(repo)
    else:  # the listing parsed them
        wanted = set(refs)
        mine = {(s.actor, s.stream) for s in listing if s.remote is None and s.ref in wanted}
    listing = [s for s in listing if (s.actor, s.stream) in mine]
    try:
        with stateview.current(repo, listing=listing, scope=mine) as view:
            return on_view(view) if on_view else None
    except (stateview.Unavailable, statedb.Unwritable, statedb.WriteFailed, stateview.Corrupt):
        streams.collect(repo, listing)  # raises what full verification raises
        return None


def own_streams(repo: Repo, remote: str, local: list[str] | None,
                own: list | None) -> tuple[list, list | None, list, str]:
    """(the user's own stream refs, ``local`` or listed; the memory refs' listing, None when it
    cannot be read; the refs that verify: ``valid_refs`` names what is wrong, stream by stream;
    the first reason a stream does not, or ""), the refs added to ``own``: how each publication
    phase starts (``publish_streams``, and ``push_targets``' for a remote that pushes elsewhere
    than it fetches)."""
    refs = local if local is not None else local_refs(repo, remote)
    if own is not None:
        own.extend(refs)
    if not refs:
        return refs, None, [], ""
    try:
        listing = streams.list_sources(repo)
    except HnError:
        listing = None
    why: list[str] = []
    return refs, listing, valid_refs(repo, refs, listing, why), why[0] if why else ""


def invalid_streams(remote: str, published: int, why: str) -> PhaseError:
    """§9.13's phase error when an own stream does not verify (the others were still published),
    with the first stream's reason: alone, the phase's text named no stream and no cause (a
    trial: a pruned commit)."""
    error = phase("memory publication", remote, published)
    return PhaseError(f"{error.message}: {why}", published) if why else error


def publish_streams(repo: Repo, remote: str, advertised: dict | None = None,
                    held: list | None = None, local: list[str] | None = None,
                    sent: list | None = None, own: list | None = None, url: str | None = None,
                    lately: list | None = None) -> int:
    """The publication phase of ``git hn sync``: every verified local stream, each up to its
    first memory anchored on a commit the remote does not have (those go to ``held``);
    ``advertised`` (ref -> tip, from this run's advertisement) spares pushing what the remote
    already has. ``local`` is the listing of the user's own stream refs when the import already
    read it (its exact fetch asked the remote for those streams' copies, ``run._fetch_exact``):
    a stream created after that listing waits for the next sync or push, as one created after
    this phase would. One listing of the memory refs serves verification, the tips and the gate
    (the tips pushed are the ones verified). For the summary a person reads: ``sent`` gets the
    refs the push moved on the remote, ``own`` the user's own stream refs. ``url``: the URL the
    advertisement came from (it settles stopped offers only where the remote pushes there);
    ``lately``, when a ``git push`` published the streams the remote holds at their tips (``note_held``)."""
    refs, listing, valid, why = own_streams(repo, remote, local, own)
    if not refs:
        return 0
    heads = _heads(repo, valid, listing)
    if advertised is not None and url is not None:
        settle_stopped(repo, remote, advertised, url)
    todo = [r for r in valid if advertised is None or advertised.get(r) != heads.get(r)]
    note_held(repo, remote, {r: heads[r] for r in valid if r in heads and r not in todo}, lately)
    bases = {r: advertised[r] for r in todo if advertised and r in advertised}
    withheld = secret_shaped(repo, listing, todo, bases)
    todo = [r for r in todo if r not in withheld]
    allowed, waiting = gate(repo, remote, {r: heads[r] for r in todo}, bases, listing) if todo else ({}, [])
    if waiting and url is not None:  # (a bare clone: no remote-tracking ref says what the remote holds)
        from .remote_branches import untracked_gate

        allowed, waiting = untracked_gate(repo, remote, url, {r: heads[r] for r in todo}, bases, listing,
                                          (allowed, waiting), ASK_TIMEOUT)
    if waiting and held is not None:  # (a branch behind the remote's: its push was refused, f166)
        from .refused_branches import said_behind

        held.extend(said_behind(repo, remote, waiting))
    ready = sorted(r for r in allowed if bases.get(r) != allowed[r])
    waits = {h.ref for h in waiting}
    idle = sum(r not in allowed and r not in waits for r in todo)  # nothing above what the remote has
    done = len(valid) - len(todo) - len(withheld) + idle  # already there (a withheld one is not)
    try:
        published = push(repo, remote, ready, allowed, exact=True, sent=sent) + done
    except PhaseError as exc:  # the same text (the server's reason included), with this count
        error = PhaseError(exc.message, exc.published + done)
        error.cause, error.advice = exc.cause, exc.advice  # (``SyncResult.replaced`` reads the cause)
        raise error from None
    if len(valid) < len(refs):
        raise invalid_streams(remote, published, why)  # §9.13: the valid refs still go
    if withheld:
        ref = min(withheld)
        raise PhaseError(f"{phase('memory publication', remote).message}: {withheld[ref]}", published)
    return published


def secret_shaped(repo: Repo, listing: list | None, refs: list[str], bases: dict[str, str]) -> dict[str, str]:
    """ref -> why it is withheld, for each of ``refs`` with secret-shaped text (or ``git:``
    evidence of the other object format's length: ``lint.finding``) in a memory the
    remote does not have yet (above ``bases``): the pre-push hook's lint (§10.6), so that
    ``git hn sync`` never publishes what a push withholds (git-hn). Only what is new is read."""
    if not refs:
        return {}
    from .lint import check_moved, valid_sources, withheld

    found: list = []
    if listing is None:
        listing = valid_sources(repo, found)
    findings = check_moved(repo, listing, sorted(refs), bases, found)
    out = {}
    for ref, hits in findings.items():
        if hits:
            out[ref] = withheld(repo, ref, hits[0])
    return out


def valid_refs(repo: Repo, refs: list[str], listing: list | None = None, why: list | None = None) -> list[str]:
    """``refs`` whose streams verify (§9.13: an invalid local stream is not published, and does
    not stop the others). The common case costs the incremental check of ``verified``; only when
    a stream is invalid are the streams verified in full, each on its own. ``listing``: the
    memory sources, when the caller listed them; ``why`` gets the first failure's text."""
    try:
        verified(repo, refs, listing=listing)
        return refs
    except HnError as exc:
        if why is not None:
            why.append(exc.message)
    mine = {parse_local_ref(r) for r in refs}
    failed: set = set()
    try:
        streams.collect(repo, [s for s in streams.list_sources(repo) if (s.actor, s.stream) in mine],
                        failed=failed)
    except HnError:
        return []
    return [r for r in refs if parse_local_ref(r) not in failed] if failed else []


def removed_by_push(repo: Repo, remote: str, data: bytes) -> tuple[list[str], list[str], list[tuple[str, str, bool]]]:
    """The commits a push (the pre-push hook's input ``data``) takes off ``remote``: reachable
    from a remote ref it force-updates or deletes, and from no new tip it sends and no other
    remote-tracking ref of ``remote``; and the tips of those commits (none is a parent of another
    of them), which contain them all: an old tip that is an annotated tag is peeled so (a review:
    a force-pushed tag gave a keep command naming no commit). A tag does not keep a commit: a
    local one may never be pushed, and an importer's plain fetch does not follow a tag to a commit
    on no branch. One ``rev-list``, only when the push moves or deletes an existing remote ref (a
    fast-forward lists nothing). Also the remote's old tips this clone lacks (remote ref, old tip,
    whether the push deletes it): the walk cannot start there, so what the push takes off behind
    them is not in the list (a team trial: a force-push over a teammate's unfetched commit, which
    a memory was anchored on, went on unsaid under ``block``); asked of the object reader already
    open, no process more."""
    zero = "0" * repo.oid_hex_len
    prefix = "refs/heads/"
    lines, updated, kept, olds = [], [], [], []
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split(" ")
        if len(parts) != 4 or parts[1] == parts[3]:
            continue
        _lref, loid, rref, roid = parts
        if roid == zero:  # a new ref: what it sends stays (a keep branch pushed along, a review)
            if loid != zero:
                kept.append(f"^{loid}")
            continue
        lines.append(roid)
        if is_oid(roid):  # (Git's hook input: an object ID, never a name the reader would resolve)
            olds.append((rref, roid, loid == zero))
        if loid != zero:
            lines.append(f"^{loid}")
        if rref.startswith(prefix):
            branch = rref[len(prefix):]
            updated.append(branch)
            # the old tip as this clone knows it: the remote's may be a teammate's commit not
            # fetched here (a review: a plain --force over it warned of nothing)
            lines.append(f"refs/remotes/{remote}/{branch}")
    if not lines:
        return [], [], []
    infos = repo.git.object_infos([oid for _r, oid, _d in olds]) if olds else []
    unfetched = [old for old, info in zip(olds, infos) if info is None]
    lines += kept
    # (refs/remotes/<remote>/HEAD names the old tip of the default branch while pre-push runs: a
    # team trial's force-push of main took its anchor off the remote without a word)
    many = len(updated) > EXCLUDED_MAX
    if many:  # (the other tracking refs' tips, on the standard input)
        lines += _other_tips(repo, remote, {*updated, "HEAD"})
    walk = repo.git.run(["rev-list", "--parents", "--ignore-missing", "--stdin",
                         *(() if many else ("--not", *tracking(repo, remote, (*updated, "HEAD"))))],
                        input="".join(f"{x}\n" for x in lines).encode())
    rows = [row.split() for row in walk.stdout.decode("ascii", "replace").splitlines()] if walk.returncode == 0 else []
    removed = [row[0] for row in rows if row]
    parents = {p for row in rows for p in row[1:]}
    return removed, [c for c in removed if c not in parents], unfetched


EXCLUDED_MAX = 1000  # branches a push moves or deletes that ``removed_by_push`` names on a command line


def _other_tips(repo: Repo, remote: str, excluded: set[str]) -> list[str]:
    """``^<tip>`` of each of ``remote``'s own remote-tracking refs but its branches ``excluded``
    (one ``for-each-ref``): ``tracking``'s answer for a push that moves or deletes more branches
    than ``EXCLUDED_MAX`` (an ``--exclude`` each on the command line went over the system's
    limit, and the push was refused: an audit)."""
    from .gate import nested_prefixes

    base, others = f"refs/remotes/{remote}/", nested_prefixes(repo, remote)
    proc = repo.git.run(["for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/"])
    out = []
    for line in proc.stdout.decode("utf-8", "surrogateescape").split("\n") if proc.returncode == 0 else []:
        oid, _sp, ref = line.partition(" ")
        if ref.startswith(base) and not ref.startswith(others) and ref[len(base):] not in excluded:
            out.append(f"^{oid}")
    return out


def current_heads(repo: Repo) -> dict[str, str]:
    """ref -> tip of every local memory ref (one ``for-each-ref``)."""
    proc = repo.git.run(["for-each-ref", "--format=%(refname) %(objectname)", "refs/hn/memory"])
    out = {}
    for line in lines_of(proc.stdout.decode("utf-8", "replace")):
        ref, _sp, oid = line.partition(" ")
        out[ref] = oid
    return out


def _heads(repo: Repo, refs: list[str], listing: list | None = None) -> dict[str, str]:
    """ref -> tip ("" when gone) of ``refs``: from ``listing`` (the tips just verified) when given."""
    out = current_heads(repo) if listing is None else {s.ref: s.head for s in listing if s.remote is None}
    return {r: out.get(r, "") for r in refs}


def push(repo: Repo, remote: str, refs: list[str], heads: dict[str, str], exact: bool = False,
         sent: list | None = None, to: tuple[str, str] = ()) -> int:
    """``git push --porcelain`` of non-forced refspecs; the number of refs pushed (or already
    up to date there); ``sent`` gets those the push moved (created or fast-forwarded). ``exact``
    pushes each ref's tip in ``heads`` (the one that was verified and linted) rather than
    whatever the ref names when the push runs: one explicit refspec per ref for a few, and from
    ``OUTBOX_FROM`` refs one wildcard over an outbox holding those tips (``store.outbox``: Git
    matches each explicit refspec against every local ref). A rejected ref or a failed push is a
    phase error after every slice was tried.

    Until the push's answer is read, the tips it sends are recorded as offered
    (``store.given.offer``): a publication stopped there (Ctrl-C, a killed background publisher,
    a push that timed out) may leave its ``git push`` running on, or the server still applying
    it, and the remote may hold them; re-anchoring and ``sync --rebase`` then sign none of them
    again (they signed a published memory a second time, the clone equivocated, and the rebase
    that followed held it twice). Only a push whose answer was read settles its offers.

    A ref that cites what another ref of the same publication gives (``gate.Allowed.after``) is
    pushed after it, in a push of its own, and only once the remote took what it cites: a push
    is not atomic, and a server that refused the cited stream took the citing one alone (every
    importer then failed with dependency-missing). A ref whose cited stream was refused waits
    for the next publication; the others go on, and the first refusal is raised at the end.

    ``to``: (one push URL of ``remote``, the key what it takes is recorded under[, the environment
    that names it as a remote carrying ``remote``'s settings, its name under ""]), for a remote
    that pushes elsewhere than it fetches (``push_targets``): the push goes to that URL alone."""
    after = getattr(heads, "after", None) or {}
    rounds, left = [], list(refs)
    while left:
        now = [r for r in left if not after.get(r, set()) & set(left)] or left  # (a circle: together)
        rounds.append(now)
        left = [r for r in left if r not in now]
    published, taken, failed, waiting = 0, {}, None, []
    for now in rounds:
        ready = [r for r in now if all(d in taken or d in now for d in after.get(r, ()))]
        waiting += [r for r in now if r not in ready]
        if not ready:
            continue
        try:
            published += _push_round(repo, remote, ready, heads, exact, sent, taken, to)
        except PhaseError as exc:
            published += exc.published
            failed = failed or exc
    _note_at_risk(repo, remote, heads, taken)
    if failed is not None:
        failed.published = published
        if waiting:  # (an audit: such a stream was left out without a word)
            failed.message += (f"; {counted(len(waiting), 'stream waits', 'streams wait')} for the next publication, "
                               f"since {'it cites' if len(waiting) == 1 else 'they cite'} what was refused "
                               f"({waiting[0]}{' and others' if len(waiting) > 1 else ''})")
        raise failed
    return published


def _note_at_risk(repo: Repo, remote: str, heads: dict[str, str], taken: dict[str, str]) -> None:
    """The anchors of what the remote just took at the tips offered (``gate.Allowed.anchors``),
    for ``atrisk``: those on no default branch of the remote may be lost there later (a branch
    squash-merged and deleted on the server). Nothing without such memories."""
    anchors = getattr(heads, "anchors", None)
    pairs = [pair for ref, tip in taken.items() if anchors and heads.get(ref) == tip for pair in anchors.get(ref, ())]
    if pairs:
        from . import atrisk

        atrisk.note(repo, remote, pairs)


def _push_round(repo: Repo, remote: str, refs: list[str], heads: dict[str, str], exact: bool,
                sent: list | None, taken: dict, to: tuple[str, str] = ()) -> int:
    """One push of ``refs`` (``push``); ``taken`` gets what the remote holds now of them."""
    from ...store import given

    key = to[1] if to else remote
    given.offer(repo, key, {r: heads[r] for r in refs if r in heads})
    answered: dict[str, str] = {}  # ref -> the tip the remote now holds, from the push's answer
    reported: set[str] = set()  # the refs the push's answer named (given or refused)
    try:
        published = _push_slices(repo, remote, refs, heads, exact, sent, answered, reported, to)
    except PhaseError:  # (an answer was read, for the refs it named: what it gave is journalled)
        from .given_record import push_urls

        if not to and len(push_urls(repo, remote)) != 1:  # one URL's refusal says nothing of what another took
            reported = set(answered)
        given.settled(repo, key, answered, reported)
        taken.update(answered)
        raise
    # anything else (a signal, a timeout): the offer stays, ``settle_stopped``'s
    given.settled(repo, key, answered, None)
    taken.update(answered)
    return published


def _push_slices(repo: Repo, remote: str, refs: list[str], heads: dict[str, str], exact: bool,
                 sent: list | None, answered: dict, reported: set, to: tuple[str, str] = ()) -> int:
    if exact and len(refs) >= OUTBOX_FROM:
        from ...store import outbox

        with outbox.staged(repo, {r: heads[r] for r in refs}) as spec:
            if spec is not None:  # (else nothing was written: one refspec per ref)
                return _push(repo, remote, [[spec]], heads, sent, answered, reported, to)
    slices = [[f"{heads[r]}:{r}" if exact else f"{r}:{r}" for r in refs[i:i + SLICE]]
              for i in range(0, len(refs), SLICE)]
    return _push(repo, remote, slices, heads, sent, answered, reported, to)


def _push(repo: Repo, remote: str, slices: list[list[str]], heads: dict[str, str],
          sent: list | None = None, answered: dict | None = None, reported: set | None = None,
          to: tuple[str, str] = ()) -> int:
    """One ``git push`` per slice of refspecs, their porcelain read (see ``push``)."""
    from ...store import given

    published, rejected = 0, False
    dest, key = to[:2] or (remote, remote)  # (where the push goes; what it took is recorded under)
    carried = to[2] if len(to) > 2 else {}  # (the push URL as a remote carrying ``remote``'s settings)
    # started by the pre-push of a push the user's hooks approved (the wrapper's variable): the
    # hooks do not run again for git-hn's own push (a team trial: with pre-commit installed after
    # git-hn, its pre-push stage ran twice per push); git-hn's own wrapper would skip them alike
    checked = ["--no-verify"] if os.environ.get("HN_PRE_PUSH_CHECKED") else []
    # otherwise they run, and keep the terminal (git hn sync's, as the user's own git push would): a
    # team's hook that asks there (``read </dev/tty``) failed every sync (a review of F67, whose
    # sessions of their own keep ssh from asking; the advertisement got through without asking)
    reason = ""  # the server's word on the first refused ref (issue 14)
    done: dict[str, str] = {}
    behind: dict[str, str] = {}  # ref -> refusal, as non-fast-forwards: the remote may hold more already
    for specs in slices:
        refused_behind = len(behind)
        proc = repo.git.run(["push", "--porcelain", *checked, "--end-of-options", carried.get("", dest), *specs],
                            env=unmirrored(carried.get("", dest), repo.git.env,
                                           {**remote_env(), "HN_HOOK_ACTIVE": "1",
                                            **{k: v for k, v in carried.items() if k}}),
                            on_start=lambda pid: given.pushing(repo, key, pid), tty=not checked)
        for line in lines_of(proc.stdout.decode("utf-8", "replace")):
            parts = line.split("\t")
            if len(parts) >= 2 and ":" in parts[1]:
                ref = parts[1].split(":", 1)[1]
                if reported is not None:
                    reported.add(ref)
                if parts[0] == "!" and len(parts) > 2 and parts[2] == "[rejected] (non-fast-forward)" \
                        and ref in heads:
                    behind[ref] = refusal(parts[2], proc.stderr.decode("utf-8", "replace"))
                elif parts[0] == "!":
                    rejected = True
                    reason = reason or refusal(parts[2] if len(parts) > 2 else "",
                                               proc.stderr.decode("utf-8", "replace"))
                else:
                    published += 1
                    if sent is not None and parts[0] in (" ", "*", "+"):  # ("=": already there)
                        sent.append(ref)
                    if ref in heads:
                        done[ref] = heads[ref]
        if proc.returncode != 0 and reported is not None and not any(
                line.count("\t") >= 1 for line in lines_of(proc.stdout.decode("utf-8", "replace"))):
            from .push_refused import never_sent

            if never_sent(proc.stderr or b""):  # (nothing was sent: no ref is in doubt)
                reported.update(spec.rsplit(":", 1)[-1] for spec in specs)
        if proc.returncode != 0 and len(behind) == refused_behind:  # (else decided below)
            rejected = True
            if not reason:  # (no ref refused: a local hook refused it, or the remote was not reached)
                reason = not_pushed(repo, remote, proc.returncode, proc.stdout or b"", proc.stderr or b"",
                                    dest if to else "")
    ahead = {}
    if behind:  # (refused as non-fast-forwards: the remote may hold more already)
        from .push_refused import already_beyond

        ahead = already_beyond(repo, remote, {r: heads[r] for r in behind}, dest if to else "", carried)
    for ref in behind:
        if ref in ahead:  # the remote has this tip inside a longer chain: nothing to publish
            published += 1
            done[ref] = ahead[ref]
        else:
            rejected = True
            reason = reason or behind[ref]
    remember(repo, key, done)
    if answered is not None:
        answered.update(done)
    if rejected:
        error = phase("memory publication", remote, published)
        advice = ""
        if reason:
            from .push_refused import refused_memory, stop_publishing

            if reason.startswith("[rejected] (fetch first)"):
                reason += (f"; the remote's copy of your stream has memories this clone lacks (did your "
                           f"identity append in another clone?): git hn sync {remote} --rebase, with the "
                           "stream selected, signs yours again on top of them")
            elif reason.startswith("[remote rejected]") and "cannot lock ref" in reason:
                reason += f"; another push to {remote} was updating that ref: git hn sync {remote} again"
            elif refused_memory(reason) and not published and not to:  # (``push_targets`` advises)
                advice = stop_publishing(remote)
            elif reason.split(";")[0] in NOT_PUSHABLE and not published and not to:  # (a remote one only reads from)
                advice = (f"if you only read from {remote}, stop publishing there: git config "
                          f"remote.{remote}.hnPublish false")
            error = PhaseError(f"{error.message}: {reason}" + (f"; {advice}" if advice else ""), published)
            error.cause = reason.split(";")[0]  # (the fixed words alone: ``background`` advises otherwise)
            error.advice = advice
        raise error
    return published


def remote_bases(repo: Repo, remote: str, heads: dict[str, str], given: dict[str, str]) -> dict[str, str]:
    """``given`` (ref -> the tip ``remote`` was last given: ``published_heads``) completed from
    the remote itself when at least ``ASK_FROM`` of ``heads`` (ref -> local tip) are not in it at
    their tip. The bookkeeping lives in the verified state, which a rebuild (a new git-hn, a
    damaged file) starts empty; without this, the next push would lint every stream again and
    push all of them, and ``git push`` matches each explicit refspec against every ref the
    remote advertises (10,000 streams to a remote of 20,000 refs: minutes of Git's CPU). One
    advertisement of the push URL answers instead: a stream it holds at the local tip is
    remembered as given (nothing to check or push), and for the others its tip is the base the
    gate counts from (a stream the remote lacks keeps no base). The remote's answer only ever
    spares work: a remote that claims a tip it lacks is not given that stream, as if it had
    dropped it. Anything unusual (no push URL, a refused transport, no answer in
    ``ASK_TIMEOUT``, an answer that does not parse) leaves ``given`` as it was."""
    unknown = [r for r, h in heads.items() if given.get(r) != h]
    if len(unknown) < ASK_FROM:
        return given
    there = _remote_tips(repo, remote)
    if not there:
        return given
    bases, same = dict(given), {}
    for ref in unknown:
        tip = there.get(ref)
        if tip is not None:
            bases[ref] = tip
            if tip == heads[ref]:
                same[ref] = tip
    remember(repo, remote, same)
    return bases


def _remote_tips(repo: Repo, remote: str):
    """ref -> tip of the memory refs ``remote``'s push URL advertises (an ``AdvertisedRefs``),
    or {} when it cannot be asked or does not answer well, or it has several push URLs (one of
    them holding a stream is not ``remote`` holding it: ``push_targets``)."""
    from .advertise import AdvertisedRefs, advertise
    from .given_record import push_urls

    urls = push_urls(repo, remote)
    url = urls[0] if len(urls) == 1 else ""
    if not transport_allowed(url):
        return {}
    try:
        advertised, _others = advertise(repo, url, remote, timeout=ASK_TIMEOUT)
    except HnError:  # no answer in time, a failed listing, one that does not parse
        return {}
    return AdvertisedRefs(advertised)


QUICK_MOVED = 16  # moved streams up to which ``moved_since_given`` answers


def moved_since_given(repo: Repo, remote: str, text: str):
    """For the pre-push hook, from the memory listing's ``text`` (``streams.listing_text``):
    ``(sources, heads, given)`` of the user's streams whose tip ``remote`` was not given yet:
    their sources with their accepted copies' (sorted by ref), their tips, and what ``remote``
    was last given of them. The listing's lines are compared with the bookkeeping's as text
    (``state.published_lines``), so the streams that did not move are never parsed: 10,000
    streams and one new memory cost ~20 ms here instead of ~57 ms (building every ``Source``,
    reading every pair; one slow hour). None when this is not the usual case (a moved line that is
    not a local ref, a local ref Git does not list, no verified state, more than
    ``QUICK_MOVED`` moved): the caller then reads the whole listing, which words each problem."""
    from ...store.statedb import sqlite3

    mine, accepted = streams.split_listing(text)
    lines = mine.split("\n")
    lines.pop()  # (after the last newline)
    try:
        with statedb.locked(repo, exclusive=False, wait=2.0):
            conn = statedb.open_sealed(repo, readonly=True)
            if conn is None:
                return None
            try:
                moved = sorted(set(lines).difference(statemod.published_lines(conn, remote)))
                if len(moved) > QUICK_MOVED:
                    return None
                heads = _parsed(moved)
                if heads is None:
                    return None
                given = statemod.published_of(conn, remote, sorted(heads))
            finally:
                conn.close()
    except (HnError, OSError, sqlite3.Error):  # (damage the seal cannot see: the slow path)
        return None
    unrecorded = [ref for ref in heads if ref not in given]
    if unrecorded:  # a new stream, or a state rebuilt since: the journal may know (``store.given``)
        from ...store import given as journal

        given = {**journal.newest(repo, remote, unrecorded), **given}
    loose = streams.unlisted_local_refs(repo.common_dir, _Listed(mine))
    if loose:
        return None
    sources = []
    for ref, head in heads.items():
        actor, stream = parse_local_ref(ref)
        sources.append(streams.Source(ref, head, actor, stream))
        tail = f"/memory/{actor}/{stream[len('sha256:'):]} "
        at = accepted.find(tail)
        while at >= 0:  # its accepted copies (one per remote that has it)
            start = accepted.rfind("\n", 0, at) + 1
            line = accepted[start:accepted.find("\n", at)]
            ref2, _sp, head2 = line.partition(" ")
            parsed = parse_accepted_ref(ref2)
            if parsed is not None and (parsed[1], parsed[2]) == (actor, stream):
                sources.append(streams.Source(ref2, head2, actor, stream, parsed[0]))
            at = accepted.find(tail, at + len(tail))
    sources.sort(key=lambda s: s.ref)
    return sources, heads, given


def _parsed(lines: list[str]) -> dict[str, str] | None:
    """ref -> head of listing lines that are each a local ref and an object ID, else None. (The
    lines that did not move need no check: each equals a line recorded for a verified stream.)"""
    out = {}
    for line in lines:
        ref, _sp, head = line.partition(" ")
        if parse_local_ref(ref) is None or len(head) not in (40, 64) or head.strip("0123456789abcdef"):
            return None
        out[ref] = head
    return out


class _Listed:
    """``in`` for the local refs of a listing's lines (``unlisted_local_refs`` asks about the few
    loose ref files there are, not about every listed ref)."""

    def __init__(self, block: str):
        self.block = block

    def __contains__(self, ref: str) -> bool:
        return self.block.startswith(f"{ref} ") or f"\n{ref} " in self.block


__all__ = ["publish_streams", "push", "verified", "local_refs", "published_heads", "remote_bases",
           "moved_since_given",
           "ValidationError"]
