"""What the installed hook wrappers run (CONTRACT §10.7): ``git hn hooks run <hook> ...``.

``pre-push`` validates, lints and publishes local streams to the pushed remote (with
``hn.prePush`` at its default, ``warn``, the publication runs in the background after the checks,
so the user's push does not wait for a second push; ``block`` publishes before the push goes on,
and a failure stops it), and warns of pushes that take anchors or memory refs off the remote
(``push_removals``; with ``block`` it refuses them), and of a pushed branch whose policy trusts
again a key the remote's branch revoked (``retrust``; a warning in both modes);
``reference-transaction`` stands in for the post-fetch hook Git does not have (``fetch_hook``);
``post-rewrite`` re-anchors unpublished memories on rewritten commits (``post_rewrite``; it names
the published ones it leaves there: ``left_behind``). Each does nothing for
git-hn's own Git processes (``HN_HOOK_ACTIVE``), so they never recurse, and none fails the
user's Git command for a reason of git-hn's own unless ``hn.prePush`` is ``block``. Installing
the wrappers is ``hooks``'. Trusts: Git's hook input, as Git gives it.
"""

from __future__ import annotations

import os
import sys

from ..core.lines import lines_of
from ..core.remotes import is_remote_name
from ..core.tuples import NamedTuple
from ..errors import ConflictError, HnError
from ..store.git import PRE_PUSH_QUESTIONS
from ..store.process_tree import is_pid
from ..store.repo import Repo

PUBLICATION_WAIT = 60.0  # seconds a block-mode pre-push waits for another publication to the remote
ATRISK_TIMEOUT = 10.0  # seconds a pre-push waits for each question to the remote (``atrisk``'s list of
# branches, the memory refs a mirror push deletes, the streams not imported, the keep branches)


WAYS_OUT = ("to push the code without publishing memory: git config hn.prePush warn "
            "(publish in the background), or git push --no-verify (this push only)")
# the way out of a refusal of what the push itself does (takes anchors or memory refs off): not
# about publishing, and ``--no-verify`` would skip the team's chained pre-push checks too (a review)
ANYWAY = "{command} repeats this push with a warning instead"
# a mirror push, or one of many refs: no command that repeats it fits (or is true) on one line
ANYWAY_AGAIN = ("git -c hn.prePush=warn push with this push's own arguments, as you typed them, repeats it "
                "with a warning instead")
ANYWAY_REFS = 8  # refs a push may hold for the way out to name each of them


def anyway(repo: Repo, remote: str, data: bytes) -> str:
    """``ANYWAY`` with the command that repeats this push (the pre-push hook's input ``data``)
    under ``hn.prePush=warn``, to paste as printed (a review: "push ..." was a placeholder, and
    pasted, Git took "..." for a remote): each ref sent as the object it sends, a deletion as
    ``:REF``, and for each ref the remote had, a lease on what this push expected there
    (``--force-with-lease=REF:OID``): it lets the non-fast-forward update the push made go, and
    refuses the ref when a teammate moved it since (a review: a ``+`` on every ref let the pasted
    command reset a branch the push never forced, losing the teammate's commit); every word
    shell-quoted. ``ANYWAY_AGAIN`` for a mirror push (its refs/remotes/* and refs/hn/remotes/* are
    no refspec of a plain push) and for one of more than ``ANYWAY_REFS`` refs. "" when a ref's tip
    there is not the one this clone last saw (``push_removals.seen_tips``): a lease names only that
    (a soak trial: it named the remote's tip, unfetched, and pasted, deleted a teammate's commits)."""
    from ..core.grammar import is_oid
    from ..core.hints import shell_word

    rows = [parts for line in lines_of(data.decode("utf-8", "surrogateescape"))
            for parts in [line.split(" ")] if len(parts) == 4 and is_oid(parts[1])]
    mirrored = ("refs/remotes/", "refs/hn/remotes/")
    if len(rows) > ANYWAY_REFS or any(p[0].startswith(mirrored) or p[2].startswith(mirrored) for p in rows):
        return ANYWAY_AGAIN
    from .push_removals import seen_tips

    seen = seen_tips(repo, remote, data)
    if any(seen.get(p[2]) != p[3] for p in rows if p[3].strip("0")):
        return ""
    leases = [f"--force-with-lease={p[2]}:{p[3]}" for p in rows if p[3].strip("0") and is_oid(p[3])]
    specs = [f"{p[1]}:{p[2]}" if p[1].strip("0") else f":{p[2]}" for p in rows]
    words = ["git", "-c", "hn.prePush=warn", "push", *(shell_word(w) for w in (*leases, remote, *specs))]
    return ANYWAY.format(command=" ".join(words))


def _sends_memory(data: bytes) -> bool:
    """Whether a push (the pre-push hook's input ``data``) sends a memory ref (not only deletes)."""
    return b"refs/hn/memory/" in data and any(
        len(p) == 4 and p[2].startswith("refs/hn/memory/") and p[1].strip("0")
        for p in (line.split(" ") for line in lines_of(data.decode("utf-8", "replace"))))


def _offer_pushed_memory(repo: Repo, remote: str, data: bytes) -> None:
    """Memory refs the user's own push sends (``git push origin 'refs/hn/memory/*:...'``, a
    mirror): recorded as offered (``store.given``) for that push's process, since nothing
    journals what such a push gives; a later sync settles them by what the remote holds."""
    if b"refs/hn/memory/" not in data:
        return
    from ..core.grammar import is_oid
    from ..store import given

    sent = {}
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split(" ")
        if len(parts) == 4 and parts[2].startswith("refs/hn/memory/") and is_oid(parts[1]) \
                and parts[1].strip("0"):
            sent[parts[2]] = parts[1]
    if sent:
        push = _push_process()
        given.offer(repo, remote, sent, int(push) if is_pid(push) else 0, theirs=True)


def _retrusts(repo: Repo, data: bytes, remote: str = "") -> None:
    """A pushed branch whose policy trusts again a key its remote history revoked: one warning
    each (``retrust``; a merge resolution of the policy took the side before the revocation).
    ``remote``: the remote's name, whose default branch a new branch is asked against."""
    from .retrust import warnings

    sys.stderr.writelines(f"git-hn: {line}\n" for line in warnings(repo, data, remote=remote))


def run_pre_push(repo: Repo, remote: str, data: bytes = b"", url: str = "") -> int:
    """Verify, lint and publish the local streams that moved since ``remote`` last got them;
    the exit status per hn.prePush. Imported streams are never published; a stream whose tip the
    remote already has costs nothing (issue 11). ``data``: the hook's input (what is pushed);
    ``url``: the URL Git pushes to (the hook's second argument, once for each of a remote's push
    URLs; "" when not given)."""
    if os.environ.get("HN_HOOK_ACTIVE"):
        return 0
    # pre-commit's "migration mode" runs this wrapper as pre-push.legacy with this variable set;
    # inherited by git-hn's own publication push, it makes pre-commit's hook there refuse the push
    # (``cli.main`` drops it before anything starts; here for a caller that did not)
    os.environ.pop("PRE_COMMIT_RUNNING_LEGACY", None)
    repo.git.env.pop("PRE_COMMIT_RUNNING_LEGACY", None)
    if remote not in repo.remote_names():
        # a push to a URL: Git updates no remote-tracking ref, so nothing could be gated
        # (the URL itself is never echoed: it may carry credentials)
        from .remote_urls import remote_of_url

        # (the URL Git pushes to, ``insteadOf`` applied: the typed one may be another's spelling, a review)
        named = remote_of_url(repo, url or remote)
        named = named if is_remote_name(named) else ""  # (a name §3.2 refuses is no remote to git-hn)
        from .push_removals import deleting_memory, deleting_memory_at_url, mirror_push, only_deletes

        if named and mirror_push(data, False, _push_process(), remote):  # what it prunes there, asked of the URL
            # Git pushes to, as for the remote's name (a review: ``git push --mirror`` to backup's URL
            # deleted its memory refs unsaid, where ``git push --mirror backup`` is refused)
            deleting = deleting_memory(repo, named, data, True, url or remote, ATRISK_TIMEOUT)
        else:
            deleting = deleting_memory_at_url(repo, data)  # (as to a remote's name: a review)
        # (one ``git config`` for all three questions below, none when none is asked)
        settings = _push_settings(repo, named) if deleting or named else None
        _retrusts(repo, data, named)  # (a warning in both modes: before any refusal)
        if deleting and settings.block:
            sys.stderr.write(f"git-hn: {deleting}; only if that is meant: {ANYWAY_AGAIN}\n")
            return 1
        if deleting:
            sys.stderr.write(f"git-hn: {deleting}\n")
        # a URL that is a remote's: that remote's checks of what the push takes off (a review: a
        # force-push to origin's URL under block went on unsaid); the way out names no URL
        refused = _removals(repo, named, data, settings.block, ANYWAY_AGAIN, settings.forcing)[0] if named else []
        if refused:
            sys.stderr.writelines(f"git-hn: {line}\n" for line in refused)
            return 1
        sends = _sends_memory(data)
        if sends and named:  # memory refs pushed by hand: offered as to that remote
            _offer_pushed_memory(repo, named, data)
        elif sends:
            sys.stderr.write("git-hn: warning: this push sends memory refs to a URL that is no remote here, so "
                             "git-hn cannot learn what it took, and re-anchoring after a rewrite may sign "
                             "one of them again; push memory with a remote's name (git remote add NAME URL)\n")
        elif named and not only_deletes(data) and not settings.off:
            sys.stderr.write(f"git-hn: a push to a URL publishes no memory; that URL is remote {named}'s: "
                             f"git hn sync {named} publishes it (or push with git push {named})\n")
        return 0
    if not is_remote_name(remote):
        # CONTRACT §3.2 (an audit: memory was published to a remote named x$(touch${IFS}/tmp/PWNED),
        # and the reminders' commands, meant to be pasted, ran that when they were)
        # (Git takes any name a config gives a remote, U+202E in it too: spelled as every
        # ``git-hn:`` line that repeats the user's value is, ``invisible.diagnostic``)
        from ..core.gostr import quoted
        from ..core.invisible import diagnostic
        from ..core.remotes import REMOTE_NAME_RULE

        sys.stderr.write("git-hn: " + diagnostic(f'this push publishes no memory and keeps no reminder for it: '
                                                 f'invalid remote name "{quoted(remote)}"; {REMOTE_NAME_RULE}') + "\n")
        return 0
    settings = _push_settings(repo, remote)
    block, off, specs, mirrors = settings.block, settings.off, settings.specs, settings.mirror
    # (pushes elsewhere than it fetches: what every push URL holds is recorded under that set's key)
    targets = _push_targets(repo, remote, settings) if settings.several or settings.push is None or \
        settings.push[0] != settings.fetch else None
    from .replication.given_record import set_key

    key = set_key(remote, targets) if targets else remote
    place = _push_url_place(remote, targets, url) if settings.several and url else ""
    from .push_removals import deleting_memory, mirror_push

    if place and not block and not place.startswith("push URL 1 "):
        # the first push URL's run warned once, and its publication asks and gives each push URL;
        # what this push deletes at this URL is this run's alone to say (a review: a mirror push
        # deleted the memory refs at push URL 2 unsaid, since only this run asks that URL)
        deleting = deleting_memory(repo, remote, data, mirror_push(data, mirrors, _push_process(), remote), url,
                                   ATRISK_TIMEOUT, place)
        if deleting:
            sys.stderr.write(f"git-hn: {deleting}\n")
        return 0
    _note_push(repo, remote, data)
    _offer_pushed_memory(repo, remote, data)
    _retrusts(repo, data, remote)
    from ..store import streams
    from .replication import PhaseError, background, gate, lint, publish

    found: list[tuple[str, str]] = []  # (ref, problem): reported one line each, in ref order
    try:
        text = streams.listing_text(repo)  # one for-each-ref (started early: cli.main)
    except HnError:
        text = None
    quick = publish.moved_since_given(repo, key, text) if text is not None and not off else None
    if off:  # (this remote refuses memory refs, or its owner chose so: nothing is read or pushed)
        listing, heads, given = [], {}, {}
    elif quick is not None:  # the usual case: only the few streams that moved are read
        listing, heads, given = quick
    else:
        try:
            listing = streams.list_sources(repo, text)  # a malformed ref fails it
        except HnError:
            listing = None
        if listing is None:  # name every malformed local ref, and go on with the valid ones
            listing = lint.valid_sources(repo, found)
        heads = {s.ref: s.head for s in listing if s.remote is None}
        given = publish.published_heads(repo, key)
        # (``remote_bases`` asks the fetch URL's repository; each push URL is asked by the publication)
        given = given if targets else publish.remote_bases(repo, remote, heads, given)
    moved = sorted(r for r, h in heads.items() if given.get(r) != h)
    publishable = []
    anchors: dict = {}
    if moved:
        findings = lint.check_moved(repo, listing, moved, given, found, anchors)
        for ref in moved:
            if ref not in findings:
                continue  # its stream did not verify: already reported
            for hit in findings[ref]:
                found.append((ref, lint.withheld(repo, ref, hit)))
            if not findings[ref]:
                publishable.append(ref)
    problems = [p for _r, p in sorted(found, key=lambda f: f[0])]
    for line in _held_for_good(repo, remote, {r: anchors.get(r, []) for r in publishable}, data, specs):
        # a warning: the push itself may go on. Sync's stdout line (``Publication of stream …``),
        # after ``git-hn: `` lowercase as every sentence there (the record's hint: ``publication of
        # stream …``; f171: the hook's began with a capital)
        sys.stderr.write(f"git-hn: {line[:1].lower() + line[1:]}\n")
    from .replication import lost

    # (nothing asked while none is remembered; the remote's keep branches within the hook's bound)
    earlier = lost.still_lost(repo, remote, _sent_tips(repo, data), timeout=ATRISK_TIMEOUT)
    from .replication import atrisk, tracked  # (a branch squash-merged, deleted or force-pushed on the
    # server: nothing asked while no anchor is at risk there; once an hour while none is gone)
    # (the record takes the tracking refs as this push moves them: Git's own move is seen by no git-hn)
    # (written only once this hook lets the push go on: a refused push moves nothing, a review)
    handed, landing = tracked.check_push(repo, remote, tracked.after_push(remote, specs, data))
    ask = atrisk.asker(repo, remote, ATRISK_TIMEOUT)  # (the remote's branches, asked once for both)
    if handed or atrisk.due(repo, remote):
        gone = atrisk.check(repo, remote, sent=_sent_tips(repo, data), timeout=ATRISK_TIMEOUT, branches=ask)
    else:  # (the remote's last answer, when it did not answer since)
        gone = atrisk.gone(repo, remote) if atrisk.remembered(repo, remote) else {}
    earlier = {**earlier, **{c: m for c, m in gone.items() if c not in earlier}}  # (lost's order first)
    deleting = deleting_memory(repo, remote, data, mirror_push(data, mirrors, _push_process(), remote), url,
                               ATRISK_TIMEOUT, place)
    # (block: what the push itself does, refused before anything is published; only the first
    # refusal line carries the way out, the deletion's when there is one)
    refused, hits = _removals(repo, remote, data, block, "" if deleting and block else None, settings.forcing)
    earlier = {c: m for c, m in earlier.items() if all(c != h for _m, h in hits)}
    lost.note_keeps(repo, remote, data)  # (the next push or sync asks whether it landed)
    there = ask() if earlier else None  # (a team trial: this clone's tracking refs were older than a
    # teammate's push of the anchor, and the reminder told to push what was there; said "as of
    # your last fetch" when the remote does not answer)
    earlier = lost.off_branches(repo, remote, earlier, there) if there is not None else earlier
    if earlier:  # (a team trial: the one warning scrolled by, and the stream was held for good)
        sys.stderr.write(f"git-hn: {lost.reminder(repo, remote, earlier, stale=there is None)}\n")
    if deleting and block:  # refused (below)
        way = anyway(repo, remote, data)
        refused.insert(0, f"{deleting}; only if that is meant: {way}" if way else deleting)
    elif deleting:
        sys.stderr.write(f"git-hn: {deleting}\n")
    earlier = background.take_failure(repo, remote)  # (said below, once this push's own publication is done)
    push_pid = _push_process()  # the git push this hook runs in (the wrapper says)
    # a refusal changes nothing: block publishes nothing for a push it refuses (a review: the memory
    # that could go was pushed, then the code push was refused)
    refusing = block and bool(refused or problems)
    if publishable and block and not refusing:
        # what is anchored on commits the remote already has goes now; the rest waits for this
        # push to succeed (publication after it, in the background, as with warn)
        from .replication import serial

        held, still = [], {}
        try:  # (under the publication lock, as every publication: a re-anchoring waits for it)
            with serial.publishing(repo, remote, PUBLICATION_WAIT, lambda: sys.stderr.write(
                    f"git-hn: waiting for another memory publication to {remote} to end\n")):
                # a stream replaced while this waited (a re-anchoring) is not published from
                # what was read before: the next push or sync publishes what it is now (one that
                # only grew still gives what was read, which the new tip continues)
                now = publish.current_heads(repo)
                replaced = _replaced(repo, {r: (heads[r], now.get(r, "")) for r in publishable
                                            if now.get(r) != heads[r]})
                still = {r: heads[r] for r in publishable if r not in replaced}
                for ref in sorted(replaced):
                    sys.stderr.write(f"git-hn: {ref} was deleted while this push waited: nothing of it is published\n"
                                     if not now.get(ref) else
                                     f"git-hn: {ref} was rewritten while this push waited: not published now; "
                                     f"git hn sync {remote} publishes it once the commits it names are on {remote}\n")
                from .replication import push_targets

                if targets and still:  # (it pushes elsewhere than it fetches: each push URL is asked what it holds)
                    push_targets.publish_each(repo, remote, targets, still, listing, ATRISK_TIMEOUT, held=held,
                                              only=url if url in targets else "", pushed=True)  # (each URL's own run)
                else:
                    allowed, held = gate.gate(repo, remote, still, given, listing) if still else ({}, [])
                    ready = sorted(r for r in allowed if given.get(r) != allowed[r])
                    background.push_now(repo, remote, ready, allowed)
        except PhaseError as exc:  # this push stops here: say how to go on (issue 14)
            problems.append(f"{exc.message}; {WAYS_OUT}")
        except ConflictError as exc:
            problems.append(f"{exc.message}; {WAYS_OUT}")
        else:
            serial.forget_failure(repo, remote)  # (a failure said before is no longer the last one)
        # the rest waits for this push, in the background, unless this push stops: refused, it
        # lands nothing those memories wait for, and the publisher only tried again what just
        # failed, its record then said a second time by the next push (a newcomer trial)
        # (pushing elsewhere than it fetches: Git runs this hook once per push URL, and one publisher
        # per push asks and gives every URL what it may hold, so it gets every stream; a review saw one
        # per URL: N + N² ``ls-remote``s, and a first refusal recorded as a repeated one)
        if held and not problems and not (targets and background.started_for(repo, remote, push_pid)):
            background.start(repo, remote, still if targets else {h.ref: heads[h.ref] for h in held},
                             push_pid, targets)
    elif publishable and not block:
        background.start(repo, remote, {r: heads[r] for r in publishable}, push_pid, targets)
    # a background publication failed: said once; its streams go again with this push's
    # publication, unless this push publishes nothing (refused, or nothing left to give). With
    # block, when this push's own publication failed, its line says why (the earlier one was said
    # twice, a newcomer trial)
    if earlier and not off and not (block and problems and publishable and not refusing):
        sys.stderr.write(f"git-hn: {earlier.line(remote, again=bool(publishable) and not refusing)}\n")
    if block and problems and WAYS_OUT not in problems[-1]:  # this push stops: the last line says how to go on
        problems[-1] = f"{problems[-1]}; {WAYS_OUT}"
    for problem in refused + problems:
        sys.stderr.write(f"git-hn: {problem}\n")
    if block and (problems or refused):
        return 1
    landing()
    return 0


def _removals(repo: Repo, remote: str, data: bytes, block: bool, way_out: str | None,
              forcing: bool = False) -> tuple[list[str], list]:
    """The lines refusing a push (``block``) that takes off ``remote`` commits memories are
    anchored on, or commits while ``remote`` holds streams this clone has not imported, or that
    forces or deletes a ref of ``remote`` whose tip this clone has not fetched (``forcing``: a push
    refspec of the remote forces); with warn, each is written as a warning (the anchors remembered
    by ``lost``). Also the (memory, commit) pairs. Only the first refusal line carries ``way_out``
    (a review: two lines each repeated the long command); none does when it is "" (a line before
    them carries it); None: ``anyway``'s, asked only for a refusal (it reads the tracking refs). A
    push that forces nothing is judged by its deletions alone (``without_updates``: Git makes its
    updates only as fast-forwards, and refuses the rest itself, "fetch first")."""
    from .push_removals import forced_push, removing_anchors, unimported_there, without_updates
    from .replication import lost

    refused = []
    removing, hits, takes, unfetched = removing_anchors(repo, remote, data, block)
    kept = without_updates(data) if takes or unfetched else data
    forced = forced_push(forcing, _push_process(), remote) if kept != data else True
    if forced is False:  # (recounted without the updates: none takes anything off)
        removing, hits, takes, unfetched = removing_anchors(repo, remote, kept, block) if kept else ("", [], 0, [])
    if forced is None or way_out is None and not block:  # (forced or not, unknown: never a way out
        way_out = ""  # that forces it, see forced_push)
    elif way_out is None:
        way_out = anyway(repo, remote, data) if removing or takes or unfetched else ""
    if removing and block:  # refused (below), so nothing was taken off: nothing to remember
        refused.append(f"{removing}; only if it goes on purpose (a secret): {way_out}" if way_out else removing)
    elif removing:
        sys.stderr.write(f"git-hn: {removing}\n")
        lost.remember(repo, remote, hits)
    # (only a push that takes commits off asks the remote for its memory refs: a team trial)
    unknown = unimported_there(repo, remote, block, ATRISK_TIMEOUT, unfetched) if takes or unfetched else ""
    if unknown and block:
        refused.append(unknown if refused or not way_out else f"{unknown}; only if it goes on purpose: {way_out}")
    elif unknown:
        sys.stderr.write(f"git-hn: {unknown}\n")
    return refused, hits


class PushSettings(NamedTuple):
    """What the pre-push hook reads of the configuration (one ``git config``)."""

    block: bool  # ``hn.prePush`` is ``block``
    off: bool  # ``remote.<remote>.hnPublish`` is false
    specs: list  # the remote's fetch refspecs
    mirror: bool  # ``remote.<remote>.mirror`` is true: every push there mirrors
    several: bool  # several push URLs: ``pushurl`` given more than once, or ``url`` and no ``pushurl``
    push: tuple | None  # the push URLs, as configured; None when Git must say (a URL rewritten, none set)
    fetch: str  # the fetch URL, as configured ("" when none)
    forcing: bool = False  # a push refspec of the remote forces (``+``): ``push_removals.forced_push``


def _push_settings(repo: Repo, remote: str) -> PushSettings:
    """The remote's ``PushSettings`` from one answer."""
    from ..store.git import config_false

    block = off = mirror = rewritten = forcing = False
    specs: list[str] = []
    urls: dict[str, list[str]] = {"url": [], "pushurl": []}
    key = f"remote.{remote}.hnpublish"
    for line in lines_of(repo.git.run(list(PRE_PUSH_QUESTIONS[1])).stdout.decode("utf-8", "surrogateescape")):
        name, sp, value = line.partition(" ")
        if name == "hn.prepush":
            block = value.strip() == "block"
        elif name == key:
            off = config_false(value if sp else None)
        elif name == f"remote.{remote}.fetch" and sp:
            specs.append(value.strip())
        elif name == f"remote.{remote}.push" and sp:
            forcing = forcing or value.strip().startswith("+")
        elif name == f"remote.{remote}.mirror":
            mirror = not config_false(value if sp else None)
        elif name.startswith(f"remote.{remote}.") and name[len(remote) + 8:] in urls:
            urls[name[len(remote) + 8:]].append(value)
        elif name.startswith("url.") and name.endswith(("insteadof", "pushinsteadof")):
            rewritten = True
    push = urls["pushurl"] or urls["url"]
    # (one ``url`` and no ``pushurl``: it pushes where it fetches, ``pushInsteadOf`` or not: ``push_targets.split``)
    known = tuple(push) if push and (not rewritten or not urls["pushurl"] and len(push) == 1) else None
    return PushSettings(block, off, specs, mirror, len(push) > 1, known, urls["url"][0] if urls["url"] else "",
                        forcing or mirror)


def _push_targets(repo: Repo, remote: str, settings: PushSettings) -> list[str] | None:
    """``push_targets.split`` from what the hook's one ``git config`` read (a review: asking Git
    again cost the quiet push two processes), Git asked only when a URL is rewritten
    (``insteadOf``) or none is configured."""
    if settings.push is None:
        from .replication import push_targets

        return push_targets.split(repo, remote)
    urls = list(settings.push)
    return None if len(urls) == 1 and urls[0] == settings.fetch else urls


def _push_url_place(remote: str, urls: list[str] | None, url: str) -> str:
    """Which of ``remote``'s several push URLs ``urls`` the URL ``url`` is, as a person reads it
    ("push URL 2 of origin"; ``push_targets.where``); "" when it is none of them. Git runs
    pre-push once for each, in their order (a trial saw every warning twice)."""
    from .replication.push_targets import where

    return where(remote, urls.index(url), len(urls)) if urls and len(urls) > 1 and url in urls else ""


def _tracked_tips(remote: str, specs: list[str], data: bytes) -> tuple[set[str], dict[str, str]]:
    """Of the tips this push sends (the hook's input ``data``): those whose remote ref the
    remote's fetch refspecs map under ``refs/remotes/<remote>/`` (the only refs the gate counts
    as the remote's), and the others (tip -> the remote ref it goes to): a single-branch clone's
    push of a new branch, a tag, a refspec that maps elsewhere."""
    tracked: set[str] = set()
    other: dict[str, str] = {}
    for line in lines_of(data.decode("utf-8", "replace")):
        parts = line.split(" ")
        if len(parts) != 4 or not parts[1].strip("0"):  # (a deletion carries nothing)
            continue
        oid, dst = parts[1], parts[2]
        if any(_maps(spec.lstrip("+"), dst, f"refs/remotes/{remote}/") for spec in specs):
            tracked.add(oid)
        else:
            other.setdefault(oid, dst)
    return tracked, other


def _maps(spec: str, ref: str, under: str) -> bool:
    """Whether the fetch refspec ``spec`` (``src:dst``, at most one ``*`` each) maps ``ref``
    to a ref under ``under``."""
    from ..core.remotes import refspec_star

    src, sep, dst = spec.partition(":")
    star = refspec_star(src, ref) if sep and src.count("*") == dst.count("*") else None
    return star is not None and dst.replace("*", star).startswith(under)


def _replaced(repo: Repo, moved: dict[str, tuple[str, str]]) -> set[str]:
    """Of ``moved`` (ref -> (tip read, tip now)), the refs whose tip now does not continue the
    one read (rewritten, or gone): two Git processes for them all, none when nothing moved."""
    from .replication.given_record import contains

    if not moved:
        return set()
    grew = contains(repo, [(new, old) for old, new in moved.values() if new])
    return {r for r, (old, new) in moved.items() if not new or grew.get((new, old)) is not True}


def _held_for_good(repo: Repo, remote: str, anchors: dict, data: bytes, specs: list[str]) -> list[str]:
    """What ``git hn sync`` says of a stream held back (``gate.Held``), for each stream about to
    be published whose new memories (``anchors``: ref -> (memory ID, anchor commit or "") above
    what the remote was given) wait for a commit that no push can carry, or that neither the
    remote nor this push holds (a branch not pushed yet), or that this push sends only to a ref
    the remote's fetch refspecs do not track here (``specs``: a single-branch clone's new branch;
    the gate counts only ``refs/remotes/<remote>/*``). Not an anchor on a branch Git refuses to push
    as a non-fast-forward (``refused_branches``: Git gives this hook no line for it, and its own
    rejection says what to do). An anchor this push sends to a tracked ref
    (a tip in the hook's input ``data``) is not asked about, so the usual push (a memory recorded
    at the commit pushed) starts no Git process here."""
    from .replication import gate

    carried, untracked = _tracked_tips(remote, specs, data)
    # a stream whose memory ref this push sends itself (a mirror, a refspec of refs/hn/memory/*)
    # reaches the remote with it: nothing of it waits (a review: a mirror push warned falsely)
    direct = {parts[2] for line in lines_of(data.decode("utf-8", "replace"))
              for parts in [line.split(" ")] if len(parts) == 4 and parts[2].startswith("refs/hn/memory/")}
    anchors = {ref: links for ref, links in anchors.items() if ref not in direct}
    doubtful = {a for links in anchors.values() for _m, a in links if a and a not in carried}
    gone, elsewhere, absent = gate.discarded_for(repo, doubtful, remote) if doubtful else (set(), set(), set())
    # and those that wait for a commit of a branch not pushed yet (a worktree's): the stream's later
    # memories wait too, and with the publication in the background nothing said so (an agent trial)
    waits = gate.not_carried(repo, doubtful - gone, remote, carried) if doubtful - gone else set()
    if waits:  # on a branch Git refuses to push as behind, said by Git alone, as "fetch first" is (f162)
        from .replication.refused_branches import on_refused_branches

        waits -= on_refused_branches(repo, remote, specs, waits)
    branches = {tip: dst for tip, dst in untracked.items() if dst.startswith("refs/heads/")}
    sent_to = gate.sent_to(repo, waits, branches) if waits and branches else {}
    out = []
    for ref, links in sorted(anchors.items()):
        k = next((i for i, (_m, a) in enumerate(links) if a in gone or a in waits), None)
        if k is not None:
            out.append(gate.Held(ref, links[k][0], links[k][1], len(links) - k, links[k][1] in gone,
                                 elsewhere=links[k][1] in elsewhere, absent=links[k][1] in absent,
                                 untracked=sent_to.get(links[k][1], "")))
    # (f176: a line that would say "push a branch that contains it" names one, as sync's does)
    return [h.line(remote) for h in gate.named_branches(repo, out)]


def _sent_tips(repo: Repo, data: bytes) -> tuple[str, ...]:
    """The object IDs a push (the pre-push hook's input) sends, once each (an audit's push of
    80,000 tags of one commit named it 80,000 times)."""
    from ..core.grammar import is_oid

    zero = "0" * repo.oid_hex_len
    return tuple(dict.fromkeys(p[1] for p in (line.split(" ") for line in lines_of(data.decode("utf-8", "replace")))
                               if len(p) == 4 and p[1] != zero and is_oid(p[1])))


def _note_push(repo: Repo, remote: str, data: bytes) -> None:
    """Tell the ``reference-transaction`` wrapper which update is this push's own: when it
    succeeds, Git moves ``refs/remotes/<remote>/*`` to the commits pushed, in transactions of
    this same ``git push`` process, and such an update brings nothing to import (this hook
    publishes). The note (``hn/replication/pushing/<name>``, named as the remote's selection
    file) holds the push's process ID and the pushed object IDs; the wrapper skips a transaction
    only when its parent is that process and every remote-tracking ref it moves goes to one of
    them, so a note that outlives its push matches nothing else. Only for a remote with a saved
    selection (without one the wrapper imports nothing anyway); best effort."""
    from ..core.grammar import is_oid
    from ..store import private
    from ..store import replication as rstate

    push_pid = _push_process()
    if not is_pid(push_pid) or not os.path.isfile(rstate.selection_path(repo, remote)):
        return
    oids = set()
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) != 4 or not is_oid(parts[1]):
            return  # not Git's pre-push input: no note
        oids.add(parts[1])
    try:
        private.write_private(repo.hn_dir, rstate.pushing_path(repo, remote),
                              f"{push_pid}\n{' '.join(sorted(oids))}\n".encode("ascii"), derived=True)
    except (HnError, OSError):
        pass


def _push_process() -> str:
    """The ``git push`` this pre-push hook runs in (``HN_PUSH_PID``, the wrapper's parent, or
    the Git above a hook manager that ran it): the background publisher waits for it. Asked
    once a process (a reread: the pre-push run walked ``/proc`` up to four times)."""
    from ..store.process_tree import git_above

    given = os.environ.get("HN_PUSH_PID", "")
    if given not in _PUSH_PROCESS:
        _PUSH_PROCESS[given] = git_above(given)
    return _PUSH_PROCESS[given]


_PUSH_PROCESS: dict[str, str] = {}  # (``_push_process``'s answer by ``HN_PUSH_PID``)


def run_background_publication(repo: Repo, remote: str, data: bytes, push_pid: str = "") -> int:
    """The background half of ``pre-push`` (``git hn hooks run publish REMOTE [PID]``)."""
    from .replication import background

    background.publish_given(repo, remote, data, push_pid)
    return 0
