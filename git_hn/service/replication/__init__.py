"""``git hn sync``: import selected streams through a quarantine, then publish local streams
(CONTRACT §9.3–§9.19, §11(a); issue 11).

One advertisement; streams whose advertised tip is the accepted tip are up to date and cost
nothing more; the rest come in one quarantine fetch and are measured, validated above their
accepted tips, checked for continuity, classified against the accepted set and promoted in one
atomic ref transaction (``run``, ``promote``). Each selection has its own outcome. Publication
pushes verified local streams the remote does not already hold (``publish``).

Modules: ``outcomes`` (results and wording), ``advertise``, ``transfer`` (the fetch),
``measure``, ``accepted`` (what the main repository verified), ``run`` (the transaction),
``promote``, ``publish`` (``push_said``: what a failed push said, and a bundle remote that takes
no push), ``shallow``, ``renamed`` (a selection ``git remote rename`` left under the old name); the
pure classification is ``core.dependencies``.
"""

from __future__ import annotations

import os

from ...core.gostr import quoted
from ...core.grammar import is_remote_name
from ...core.lines import lines_of
from ...errors import ConflictError, HnError, InputError, Interrupted, Signalled
from ...store import replication as rstate
from ...store.transport import transport_allowed, url_question
from ...store.repo import Repo
from .outcomes import PhaseError, SyncResult, counted, phase, redact


def resolve_remote(repo: Repo, remote: str) -> str:
    if not is_remote_name(remote):
        from ...core.remotes import REMOTE_NAME_RULE

        if ("/" in remote or ":" in remote) and repo.git.run(list(url_question(remote))).returncode != 0:
            # (a trial: a bundle's path was told to rename a remote; Git's own "team/main" is one)
            from shlex import quote

            raise InputError(f'invalid remote name "{quoted(remote)}": git hn sync takes the name of a remote, not '
                             f"a URL or a path; git remote add NAME {quote(remote)} names it, then git hn sync NAME")
        raise InputError(f'invalid remote name "{quoted(remote)}"; {REMOTE_NAME_RULE}')
    proc = repo.git.run(list(url_question(remote)))
    if proc.returncode != 0:
        known, usable = remotes_here(repo)
        from shlex import quote

        other = f"name one of them (git hn sync {quote(usable[0])}), or " if usable else ""  # (a trial: the
        # only remote was my-origin.v2, and the line said only to add an "origin")
        raise InputError(f'remote "{remote}" does not exist{known}; {other}add it with git remote add {remote} URL')
    url = proc.stdout.decode("utf-8", "surrogateescape").strip()
    if not transport_allowed(url):
        raise InputError(f'remote "{remote}" uses a refused transport')
    return url


def remotes_here(repo: Repo) -> tuple[str, list[str]]:
    """After a remote that does not exist: `` (the remotes here: a, b)`` ("" with none), and those
    of them git-hn takes (a review: "team/main" was named, which §3.2 refuses)."""
    names = lines_of(repo.git.run(["remote"]).stdout.decode("utf-8", "replace"))
    known = f" (the remotes here: {', '.join(names[:10])}{', ...' if len(names) > 10 else ''})" if names else ""
    return known, [n for n in names if is_remote_name(n)]


LEARN_TIMEOUT = 20.0  # seconds ``replication select`` waits for the remote's advertisement


def learn_owners(repo: Repo, sel) -> None:
    """``replication select`` (git-hn, issue 11): when the remote answers, remember the one actor
    that advertises each selected stream, so that later syncs ask for exactly those refs in one
    fetch (protocol v2 then lists only them, as a plain fetch of those refs does) instead of
    listing every memory ref of the remote. Best effort and silent: a remote that is missing,
    refused, unreachable or slow, an ambiguous or absent stream, all leave that stream's owner
    unknown, and a sync that lacks an owner lists the whole advertisement as before."""
    from .advertise import advertise

    if not sel.streams_only:
        return
    try:
        advertised, _others = advertise(repo, resolve_remote(repo, sel.remote), sel.remote,
                                        timeout=LEARN_TIMEOUT, max_streams=sel.max_streams)
    except HnError:
        return
    owners = {}
    for stream in sel.memories:
        found = advertised.get(stream, [])
        if len(found) == 1:
            owners[stream] = found[0][0]
    try:
        rstate.save_owners(repo, sel.remote, owners)
    except (HnError, OSError):
        pass


WAIT = 600.0  # seconds a sync waits for another one with the same remote (``serial``)
HOOK_ASK = 10.0  # seconds the fetch hook's import waits for the remote's list of branches (``atrisk``)


def sync(repo: Repo, remote: str, *, recover_shallow: bool = False, progress=None,
         publish: bool = True, interrupt_after: str | None = None, by_name: bool = True,
         wait: float = WAIT, rebase: bool = False, named: frozenset[str] = frozenset()) -> SyncResult:
    """Run the import and (unless ``publish`` is False, as in the fetch hook) publication.
    ``by_name``: a selection of streams whose owners are known is fetched by name, without the
    advertisement (``run.Import._fetch_exact``); False reads the advertisement in any case.
    Another sync with ``remote`` is waited for (``serial``) at most ``wait`` seconds, else
    ``ConflictError``.

    ``rebase`` (``--rebase``): a stream of the user's own that the remote holds a different
    continuation of (the same identity appended in another clone) is rebased: this clone's
    unpublished memories of it are signed again on top of the remote's chain (``own_fork``).

    ``named`` (the fetch hook's): anchors an earlier run of the same fetch named in its reminder,
    left out of this one's (``_gone_now``).

    ``interrupt_after`` names a crash seam (§9.19) at which to stop as if the process died; the
    CLI passes it only under the testing switch.

    A stopping signal (``errors.Signalled``) leaves with ``promoted``: the streams this sync had
    promoted, which the CLI's line names."""
    results: list[SyncResult] = []
    try:
        return _sync(repo, remote, results, recover_shallow, progress, publish, interrupt_after, by_name,
                     wait, rebase, named)
    except Signalled as stop:
        stop.promoted = sum(r.promoted for r in results)
        raise


def _sync(repo: Repo, remote: str, results: list, recover_shallow: bool, progress, publish: bool,
          interrupt_after: str | None, by_name: bool, wait: float, rebase: bool, named: frozenset[str]) -> SyncResult:
    from . import serial

    url = resolve_remote(repo, remote)
    stall = _stall(repo, early=True)  # (a setting out of range is refused before anything is asked)
    result = SyncResult(remote)
    results.append(result)
    # (asked now, while its early answer stands: the import's ref writes would drop it)
    off = publish and _publication_off(repo, remote)
    waiting = (lambda: progress(f"waiting for another git hn sync with {remote}")) if progress else None
    with serial.importing(repo, remote, wait, waiting), _publications_held(repo, remote, wait, progress, rebase):
        run, ended = _import(repo, remote, url, result, recover_shallow, progress, publish, interrupt_after,
                             by_name, rebase, wait)
        if publish and not ended and not recover_shallow and interrupt_after is None and _fetched_anchors(
                repo, remote, result, progress):
            again = SyncResult(remote)
            results.append(again)
            run, ended = _import(repo, remote, url, again, False, progress, publish, None, by_name, rebase, wait)
            result = _merged(result, again)
    if run is not None and not ended and not result.unreachable and _anchors_missing(result):
        # (a review: a --single-branch clone was told to have a commit put back that a branch it
        # does not fetch held; asked of the remote, bounded, only when the refspecs leave any out)
        result.unfetched = _unfetched_branches(repo, remote, url, _stall(repo) if publish else
                                               min(_stall(repo), HOOK_ASK), result)
    if run is not None and not ended and not result.import_error:  # (recall and the brief name them)
        from .failures import note

        note(repo, remote, result)
    from . import atrisk, tracked

    # (a teammate's force-push took an anchor of ours off the remote's branches: one
    # for-each-ref while its tracking refs have not moved)
    moved = not ended and not result.unreachable and tracked.check(repo, remote)
    if publish and not ended:
        from . import lost

        left = lost.still_lost(repo, remote, timeout=stall)  # (no Git process while nothing is remembered)
        if left and not result.branch_fetch and not result.unreachable and not _fetch_branches(repo, remote, result):
            left = lost.still_lost(repo, remote, timeout=stall)  # (a teammate may have put it back: a trial)
        if left and not result.unreachable:  # (kept on a branch this clone does not fetch)
            left = lost.kept_there(repo, remote, url, left, timeout=stall)
        if not result.unreachable and atrisk.remembered(repo, remote):  # (no Git process otherwise)
            gone = atrisk.check(repo, remote, fetch=lambda: _fetched_branches(repo, remote, result),
                                timeout=stall)
            left = {**left, **{c: m for c, m in gone.items() if c not in left}}  # (the record's order first)
        if left:
            result.reminders.append("Anchors of " + remote + ": " + lost.reminder(repo, remote, left))
    elif moved:  # (the fetch hook's import: asked now, then left to the next push or sync)
        result.reminders += _gone_now(repo, remote, named)
    if publish and not ended and off:
        result.publication_off = True
        advertised = getattr(run, "advertised_refs", None) if run is not None else None
        if advertised is not None:  # (what a stopped publication offered there, settled all the same)
            from .given_record import settle_stopped

            settle_stopped(repo, remote, advertised, url)
    elif publish and not ended and not result.unreachable and _bundle_only(repo, remote, url, result):
        pass  # (a bundle file takes no push: said on its line, and the sync's status is the import's)
    elif publish and not ended and result.unreachable and _pushes_where_it_fetches(repo, remote, url):
        # (a push would meet the same refusal, and the streams it would hold back for anchors
        # "not on the remote" would only say what this clone cannot see of it)
        if _has_local_streams(repo) and not result.other_format:  # (that one line says why: a review)
            result.publication_error = f"{phase('memory publication', remote).message}: not tried, the " \
                                       "remote could not be reached"
    elif publish and not ended:
        from . import push_targets
        from .publish import publish_streams

        advertised = getattr(run, "advertised_refs", None) if run is not None else None
        local = getattr(run, "local_refs", None) if run is not None else None
        try:
            with serial.publishing(repo, remote, wait):
                # (pushes elsewhere: each push URL is asked; not when this clone has no stream of
                # its own: either way publishes nothing, and the question is two Git processes)
                if local is None:
                    from .publish import local_refs

                    local = local_refs(repo, remote)
                urls = push_targets.split(repo, remote, url) if local else None
                result.push_urls = len(urls or ())  # (a push's record there says nothing of the fetch URL)
                result.published = push_targets.publish_streams(
                    repo, remote, urls, result.held, local, result.sent, result.own, stall, result.by_push) \
                    if urls else \
                    publish_streams(repo, remote, advertised, result.held, local, result.sent, result.own, url,
                                    result.by_push)
                serial.forget_failure(repo, remote)  # (what a push's background publication failed is published now)
        except PhaseError as exc:
            result.publication_error = exc.message
            result.publication_cause = exc.cause
            result.published = exc.published
            result.other_format = exc.other_format
        except ConflictError as exc:
            result.publication_error = exc.message
        if result.held:  # (f176: the line names a local branch that contains the commit; no process without one)
            from .gate import named_branches

            result.held[:] = named_branches(repo, result.held)
        if any(h.behind or h.where for h in result.held):  # (f170: "the memory follows that push" only with hooks)
            from ..hooks_here import unhooked

            result.held[:] = unhooked(repo, result.held)
        if result.sent or result.publication_error:  # the remote's advertisement moved (or may have):
            rstate.forget_quiet(repo, remote, served=False)  # its quiet record no longer matches (the
            # import's ``served`` mark stands: what was published is this clone's own). ``published``
            # also counts the streams the remote already held: dropped on every sync of a clone with
            # streams of its own, the record never let the fetch hook's wrapper start nothing
        if result.own:  # "your own" in the summary: the active identity's streams, not every local
            from ...core.grammar import parse_local_ref  # one (a mirror clone holds everyone's)
            from ...store.identity import active_actor

            actor = active_actor(repo)
            result.own = [r for r in result.own if actor and (parse_local_ref(r) or ("",))[0] == actor]
    # (a state of another git-hn, or none: §8.4's index fresh after a sync, issue 11 item 4; a soak
    # trial: a first sync from a remote holding no memory yet left none, and index verify said
    # "missing" right after it, one lstat)
    if publish:
        from ...store import statedb, stateview

        if repo.state_behind or not os.path.lexists(statedb.paths(repo)[1]):
            stateview.catch_up(repo, wait=10.0)  # (as the promotion waits: a rebuild elsewhere is left to finish)
    return result


def anchors_left(repo: Repo, remote: str, named: frozenset[str] = frozenset()) -> list[str]:
    """The fetch hook's check when the remote was found quiet (nothing to import) and a tracking
    ref of ``remote`` moved off a commit (``hookscripts``): ``tracked.check`` alone, without the
    import and its round trip, and the reminder (as the hook's import gives it) for anchors of
    this clone's publications that no branch of the remote holds now; ``atrisk`` asks the remote
    only when such an anchor left the tracking refs. Best effort: nothing when Git, the state or
    the remote cannot answer."""
    from . import tracked

    if not is_remote_name(remote):
        return []
    try:
        return _gone_now(repo, remote, named) if tracked.check(repo, remote) else []
    except HnError:
        return []


def _gone_now(repo: Repo, remote: str, named: frozenset[str] = frozenset()) -> list[str]:
    """The fetch hook's reminder once ``tracked`` handed ``atrisk`` anchors that left: the remote
    asked now (bounded), then left to the next push or sync. ``named``: anchors an earlier run of
    the same fetch named (``fetch_hook._named_earlier``), left out: nothing when none else is gone
    (a review: the fetch's second run repeated the first's anchor)."""
    from . import atrisk, lost

    gone = atrisk.check(repo, remote, timeout=min(_stall(repo), HOOK_ASK))
    gone = {c: m for c, m in gone.items() if c not in named}
    return ["Anchors of " + remote + ": " + lost.reminder(repo, remote, gone)] if gone else []


def _fetched_anchors(repo: Repo, remote: str, result: SyncResult, progress) -> bool:
    """After an import that stopped at anchor commits this clone lacks (a teammate pushed a commit
    and a memory on it, and this clone has not fetched since: a team trial's everyday case, which
    failed until a ``git fetch``): one ``git fetch <remote>`` of the remote's branches, as the
    advice says, and whether it brought any of them (then the import runs again). Not in a
    shallow clone (``--recover-shallow``'s case), nor for a hook's import (a fetch just ran)."""
    missing = _anchors_missing(result)
    if not missing:
        return False
    if progress:
        progress(f"fetch {remote}'s branches: {counted(len(missing), 'anchor commit is', 'anchor commits are')} "
                 "not here")
    return not _fetch_branches(repo, remote, result) and any(repo.git.presence(missing))


def _anchors_missing(result: SyncResult) -> list[str]:
    """The anchor commits the outcomes wait for that a branch of the remote may hold (their
    recovery: "fetch a branch that contains C")."""
    return sorted({o.fields.get("missingId") or "" for o in result.outcomes
                   if o.fields.get("dependencyKind") == "anchor-commit"
                   and (o.fields.get("recovery") or "").startswith("fetch a branch that contains")} - {""})


def _unfetched_branches(repo: Repo, remote: str, url: str, timeout: float, result: SyncResult) -> bool:
    """Whether ``remote`` may hold branches this clone's fetch refspecs leave out (a
    ``--single-branch`` clone's ``refs/heads/main`` alone, or negative refspecs), where a
    missing anchor commit may be (``git fetch REMOTE C`` brings it). No Git process but the
    configuration's when a refspec takes every branch; else one ``ls-remote`` of its branches,
    bounded by ``timeout``: True when one is left out, or when the remote cannot say in time.
    A missing anchor commit that is the tip of such a branch under ``refs/heads/hn-anchor/``
    (where the put-back advice keeps one) goes to ``result.kept``: a single-branch clone (``git
    clone --depth 1``, unshallowed or not) never fetches them, and each sync named one missing
    commit per stream (a trial); tracking them (``git remote set-branches --add``) ends that."""
    from ...store.transport import listed
    from .gate import branch_refspecs

    specs = branch_refspecs(repo, remote)
    taken = [s.lstrip("+").partition(":")[0] for s in specs if not s.startswith("^")]
    left = [s[1:] for s in specs if s.startswith("^")]
    if "refs/heads/*" in taken and not left:
        return False
    branches = listed(repo, url, patterns=("refs/heads/*",), timeout=timeout)
    from ...core.remotes import refspec_star

    def named(patterns: list[str], ref: str) -> bool:
        return any(refspec_star(p, ref) is not None for p in patterns)

    if branches is None:
        return True
    out = [(oid, ref) for oid, ref in branches
           if ref.startswith("refs/heads/") and (not named(taken, ref) or named(left, ref))]
    missing = set(_anchors_missing(result))
    result.kept = {oid: ref for oid, ref in sorted(out, key=lambda x: x[1])
                   if oid in missing and ref.startswith("refs/heads/hn-anchor/")}
    return bool(out)


def _fetch_branches(repo: Repo, remote: str, result: SyncResult) -> str:
    """One ``git fetch <remote>`` of the remote's branches, at most once a sync (``result.
    branch_fetch`` says how it went); "" when it succeeded, else why not. Only the clone's own
    refspecs that map ``refs/heads/*`` under ``refs/remotes/<remote>/`` are given, with no tags,
    no ``FETCH_HEAD`` and no submodules (an audit: a mirror refspec, ``+refs/*:refs/*``, let a
    hostile remote write ``refs/hn/*`` past the quarantine), and the fetch is bounded by the
    stall timeout (an audit: a remote that did not answer held the sync for 300 s, and a second
    fetch could follow). The fetch hook's import is not started: the sync imports."""
    from ...errors import GitError
    from ...store.transport import remote_env
    from .gate import branch_refspecs
    from .transfer import stall_timeout

    specs = branch_refspecs(repo, remote)
    if not any(not s.startswith("^") for s in specs):
        result.branch_fetch = (f"this clone fetches no branch of {remote} under refs/remotes/{remote}/ "
                               f"(git config --get-all remote.{remote}.fetch)")
        return result.branch_fetch
    timeout = stall_timeout(repo)
    try:
        proc = repo.git.run(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
                             "--end-of-options", remote, *specs], env={**remote_env(), "HN_HOOK_ACTIVE": "1"},
                            timeout=timeout)
        result.branch_fetch = "" if proc.returncode == 0 else f"git fetch {remote} failed"
    except GitError:
        result.branch_fetch = f"git fetch {remote} did not end within {timeout:g} s (git config hn.syncStallTimeout)"
    result.branches_fetched = not result.branch_fetch
    result.branch_fetch = result.branch_fetch or "fetched"
    return "" if result.branches_fetched else result.branch_fetch


def _fetched_branches(repo: Repo, remote: str, result: SyncResult) -> bool:
    """For ``atrisk.check``: the remote's branches fetched now (when this sync has not tried
    yet), and whether that worked (a branch tip this clone lacks, such as a squash commit made on
    the server, can then be walked)."""
    return not result.branch_fetch and not _fetch_branches(repo, remote, result)


def _stall(repo: Repo, early: bool = False) -> float:
    from .transfer import stall_timeout

    return stall_timeout(repo, early)


def _merged(first: SyncResult, again: SyncResult) -> SyncResult:
    """The result of an import run twice (``_fetched_anchors``): the second's outcomes, and the
    first's promotions it did not see again (those streams are up to date in the second); a
    stream the first promoted a part of and the second the rest counts once, with both parts'
    memories (a review: "promoted 2 selections, imported 1 memory" for one stream)."""
    seen = {(o.kind, o.id) for o in again.outcomes}
    kept = [o for o in first.outcomes if (o.kind, o.id) not in seen and o.status in ("promoted", "skipped")]
    done = {o.id for o in kept}
    again.outcomes[:0] = kept
    again.current = [s for s in again.current if s not in done]
    again.promoted += sum(o.status == "promoted" for o in kept)
    again.earlier_imported = sum(o.imported for o in first.outcomes if (o.kind, o.id) in seen and o.prefix)
    again.rebased[:0] = first.rebased
    again.compatibility, again.branches_fetched, again.every = first.compatibility, first.branches_fetched, first.every
    again.branch_fetch = first.branch_fetch
    return again


def _publications_held(repo: Repo, remote: str, wait: float, progress, rebase: bool):
    """For ``--rebase``: the publication lock of every other remote, from the check that the
    tail it signs again was never given anywhere to the ref transaction that replaces it (a
    publication to another remote in between, such as a push's background publisher, gave the
    old tail away, and the rebase then signed it again). ``remote``'s own publications are
    refused by its remote as non-fast-forwards, and it publishes after its import."""
    from contextlib import ExitStack

    from . import serial

    stack = ExitStack()
    if rebase:
        names = lines_of(repo.git.run(["remote"]).stdout.decode("utf-8", "surrogateescape"))
        try:
            for other in sorted(set(names) - {remote}):
                said = (lambda other=other: progress(f"waiting for the memory publication to {other} to end")) \
                    if progress else None
                stack.enter_context(serial.publishing(repo, other, wait, said))
        except BaseException:
            stack.close()
            raise
    return stack


def _publication_off(repo: Repo, remote: str) -> bool:
    """``remote.<remote>.hnPublish`` is false: memory is imported from ``remote``, never published
    there (a host that refuses ``refs/hn/*``, a read-only mirror)."""
    from ...store.git import publication_off_question

    proc = repo.git.run(list(publication_off_question(remote)))
    # (a bare key is true, as the pre-push hook reads it; a value Git cannot read as a boolean
    # leaves publication on there too)
    return proc.returncode == 0 and proc.stdout.strip() == b"false"


def _bundle_only(repo: Repo, remote: str, url: str, result: SyncResult) -> bool:
    """Whether ``remote`` fetches from a bundle file and pushes only to bundle files: publication
    is not tried, and ``result`` says why and how to silence it (``push_said.bundle_only``)."""
    from .push_said import bundle_only

    result.publication_skipped = bundle_only(repo, remote, url)
    return bool(result.publication_skipped)


def _pushes_where_it_fetches(repo: Repo, remote: str, url: str) -> bool:
    """Whether ``remote`` pushes to the URL it fetches from (no ``pushurl``, no
    ``pushInsteadOf``): only then does an unreachable fetch URL say the push would fail too."""
    proc = repo.git.run(["remote", "get-url", "--push", "--end-of-options", remote])
    return proc.returncode != 0 or proc.stdout.decode("utf-8", "surrogateescape").strip() == url


def _has_local_streams(repo: Repo) -> bool:
    proc = repo.git.run(["for-each-ref", "--count=1", "--format=%(refname)", "refs/hn/memory/"])
    return proc.returncode != 0 or bool(proc.stdout.strip())  # (in doubt: there may be some)


def _import(repo: Repo, remote: str, url: str, result: SyncResult, recover_shallow: bool, progress,
            publish: bool, interrupt_after: str | None, by_name: bool, rebase: bool = False, wait: float = WAIT):
    """The import phase into ``result``: the ``run.Import`` it ran (None without a selection), and
    whether the sync ends with it (a shallow recovery that cannot begin)."""
    from .run import Import

    if not os.path.exists(rstate.selection_path(repo, remote)):  # (``git remote rename`` left it behind)
        from .renamed import adopt

        moved = adopt(repo, remote, url)
        if moved:
            result.reminders.append(moved)
    try:
        selection, selection_bytes = rstate.read_selection(repo, remote)
    except HnError as exc:
        result.import_error = exc.message
        selection = selection_bytes = None
    run = None
    result.compatibility = selection is not None and selection_bytes is None
    result.every = selection is not None and (result.compatibility or selection.all)
    if selection is not None:
        if recover_shallow:
            from . import shallow
            from .promote import repair_pending

            if shallow.before_recovery(repo, remote, selection, result, repair_pending):
                return None, True
        run = Import(repo, remote, url, selection, result, progress, recover_shallow, interrupt_after,
                     publish=publish, selection_bytes=selection_bytes, by_name=by_name, rebase=rebase,
                     wait=wait)
        try:
            run.run()
        except ConflictError as exc:  # (another remote's import is accepting: a hook's does not wait)
            if wait <= 0:
                raise
            result.import_error = exc.message
        except PhaseError as exc:
            result.import_error, result.unreachable = exc.message, exc.unreachable
            result.other_format = exc.other_format
        except Interrupted:
            result.import_error = run.seam_error
        except HnError as exc:
            result.import_error = redact(exc.message, url, repo.git_dir)
        if not result.import_error and selection_bytes is not None:  # (``unimported``, the brief's line)
            from .renamed import note_url  # (imported after the fetch: ``shlex`` loads ``re``)

            rstate.mark_served(repo, remote)
            note_url(repo, remote, url)  # (a rename of the remote keeps its selection: ``renamed``)
        for o in result.outcomes:
            if o.alive and result.import_error:
                o.fields.setdefault("diagnostic", result.import_error)
    return run, False


__all__ = ["sync", "SyncResult", "publish_streams", "resolve_remote", "PhaseError"]
