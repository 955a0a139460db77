"""Publication to a remote that pushes elsewhere than it fetches: several push URLs (``git remote
set-url --add --push``: a team repository and its mirror), or one push URL that is another
repository (fetch from upstream, push to your fork).

``git push <remote>`` pushes to each push URL in turn, and Git moves ``refs/remotes/<remote>/*``
as soon as one of them accepts (and a fetch from the fetch URL moves them back): those refs say
nothing of what each push URL holds, so the gate cannot count them. A trial: a push the mirror
rejected still published the memory anchored on the rejected commit to the mirror, whose readers
were stopped at it; with a fork, every fetch turned a published memory back into one that
"waits", and every push turned it back again. So each push URL is asked what it holds (one
bounded ``ls-remote`` of its branches and memory refs), its streams are gated on its own branches
(``gate.gate``'s ``there``), and it is given what it may hold by a push to that URL alone
(``publish.push``'s ``to``).

What each URL took is recorded under a key of its own (``given_record.url_key``; re-anchoring
never signs again what any of them holds), and what every one of them holds under the key of
the set of push URLs (``given_record.set_key``; and under the remote's name when the fetch URL is
one of them): the pre-push hook's
bookkeeping (``publish.moved_since_given``) reads that set's key, so it keeps offering a stream
one of them lacks (a URL that refused it is tried again on every push and sync, and its failure
is said each time, until it takes it), and a push URL added or changed starts with nothing
recorded (each URL is asked again). One push URL (a fork) has a key of its own too: what the
remote's name records was given to the fetch URL.

Owns nothing on disk. Trusts what each push URL advertises only to spare pushing to it: a URL that
claims a branch or a tip it lacks misleads its own readers alone, as its remote-tracking refs would.
"""

from __future__ import annotations

import os

from ...core.gostr import and_joined
from ...errors import HnError
from ...store.repo import Repo
from .given_record import contains, note_held, published_heads, push_urls, remember, set_key, url_key
from .outcomes import PhaseError, phase
from .remote_branches import ask


def split(repo: Repo, remote: str, fetch_url: str = "") -> list[str] | None:
    """The push URLs of ``remote`` when it pushes elsewhere than it fetches (several, or one that
    is not its fetch URL, nor that URL respelled by ``pushInsteadOf``): each is asked and given on
    its own. None in the usual case (one push URL, the fetch URL's repository), or when Git cannot say (the usual publication reports it).
    ``fetch_url``: the fetch URL, when the caller knows it (``git remote get-url``'s answer)."""
    urls = push_urls(repo, remote)
    if len(urls) != 1:
        return urls or None
    fetch_url = fetch_url or _fetch_url(repo, remote) or urls[0]
    if fetch_url == urls[0]:
        return None
    # no ``pushurl``: the one push URL is the fetch URL respelled by ``url.<base>.pushInsteadOf``
    # (fetch over https, push over ssh), which Git documents for the same repository; its
    # remote-tracking refs count, as for any remote (a review: a branch tip of it this clone
    # lacked, someone's push since the last fetch, left every memory waiting "until it is there")
    proc = repo.git.run(["config", "--get-all", "--end-of-options", f"remote.{remote}.pushurl"])
    return None if proc.returncode == 1 else urls


def _fetch_url(repo: Repo, remote: str) -> str:
    """``remote``'s fetch URL as Git uses it (``insteadOf`` applied), "" when Git cannot say."""
    proc = repo.git.run(["remote", "get-url", "--end-of-options", remote])
    return proc.stdout.decode("utf-8", "surrogateescape").strip() if proc.returncode == 0 else ""


def where(remote: str, index: int, count: int) -> str:
    """A push URL as a person reads it: by its place in ``git remote get-url --push --all``'s list,
    never by the URL (it may carry credentials)."""
    return f"{remote}'s push URL" if count == 1 else f"push URL {index + 1} of {remote}"


def publish_streams(repo: Repo, remote: str, urls: list[str], held: list | None = None,
                    local: list[str] | None = None, sent: list | None = None, own: list | None = None,
                    timeout: float = 20.0, lately: list | None = None) -> int:
    """``publish.publish_streams`` for a remote that pushes elsewhere than it fetches: the sync's
    advertisement is the fetch URL's, which says nothing of what the push URLs hold (a trial: a
    memory the fork took "waited" again after every fetch), so each push URL is asked
    (``publish_each``). The streams are linted above what every push URL was given (the remote's
    own record: what one of them took was linted when it was given). ``lately``: as
    ``publish.publish_streams``', for the streams every push URL holds at the tip a ``git push``
    gave that URL lately (``publish_each``)."""
    from . import publish

    refs, listing, valid, why = publish.own_streams(repo, remote, local, own)
    if not refs:
        return 0
    heads = publish.current_heads(repo) if listing is None else {s.ref: s.head for s in listing if s.remote is None}
    given = published_heads(repo, set_key(remote, urls))
    withheld = publish.secret_shaped(repo, listing, [r for r in valid if given.get(r) != heads.get(r)], given)
    tips = {r: heads[r] for r in valid if r not in withheld and heads.get(r)}
    published = publish_each(repo, remote, urls, tips, listing, timeout, sent, held, lately=lately)
    if len(valid) < len(refs):
        raise publish.invalid_streams(remote, published, why)  # §9.13: the valid refs still go
    if withheld:
        ref = min(withheld)
        raise PhaseError(f"{phase('memory publication', remote).message}: {withheld[ref]}", published)
    return published


def publish_each(repo: Repo, remote: str, urls: list[str], tips: dict[str, str], listing: list | None,
                 timeout: float, sent: list | None = None, held: list | None = None, only: str = "",
                 pushed: bool = False, lately: list | None = None) -> int:
    """Give each of ``remote``'s push URLs ``urls`` the streams of ``tips`` (ref -> verified tip),
    each up to its first memory anchored on a commit that URL's branches do not hold; the number
    of refs every URL now holds as far as it may. ``held`` gets the ``gate.Held`` lines (one for
    what every URL waits for alike), ``sent`` the refs a push moved on any URL. The remote's own
    name records what every URL holds when its fetch URL is one of them. Every URL is tried; then the first failure is raised (a
    ``PhaseError`` naming that URL by its place), with the count of the others that failed.
    ``only``: one of ``urls``, the one asked and given (block mode's hook runs once for each push
    URL, right before Git pushes there: a review saw each run ask every URL, N² ``ls-remote``s,
    and say a refusing URL's failure once per run); what every URL holds is still recorded.

    ``pushed``: this is a ``git push``'s own publication (its pre-push hook's, or the background
    publisher's), so what it moves on each URL is written down under that URL's key
    (``given.note_pushed``). ``lately`` (a sync's) gets, for each stream every URL holds at a tip
    a ``git push`` gave that very URL lately, when (f159: the record of a push to a push URL says
    nothing of what the fetch URL holds, so a sync's "up to date" names the push URLs)."""
    from . import publish
    from .gate import gate

    count, failures, counts, holds, hits = len(urls), [], [], [], []
    moved: list[str] = []
    settings = None  # (``_settings``: read before the first URL is asked)
    for index, url in enumerate(urls):
        if only and url != only:
            continue
        key = url_key(remote, url)
        why: list[str] = []
        if settings is None:
            settings = _settings(repo, remote)
        carried = _as_remote(repo, url, settings)
        asked = ask(repo, url, timeout, why, carried, remote, where(remote, index, count))
        if asked is None:
            from ...store.transport import without_terminal
            from .advertise import unreadable_said

            reason = unreadable_said(repo, why[0], url) if why else "it did not answer git ls-remote"
            way = without_terminal(reason, remote, url, repo.git)  # (a review: the credential advice was lost here)
            failures.append(_failed(remote, index, count, f"{reason}; nothing was published there; " +
                                    (way or f"git hn sync {remote} asks it again"), url=url))
            counts.append(0)
            continue
        there, memory, lacking = asked
        _settle(repo, key, memory)
        if count == 1:  # (one push URL: the remote's own offers went there, and are its record's)
            _settle(repo, remote, memory, key)
        same = {r: t for r, t in tips.items() if memory.get(r) == t}
        note_held(repo, key, same)  # (a memory there that no record says was given: never signed again)
        if lately is not None and same:
            from ...store.given import pushed_lately

            hits.append(pushed_lately(repo, key, same))
        todo = {r: t for r, t in tips.items() if r not in same}
        bases = {r: memory[r] for r in todo if r in memory}
        allowed, waiting = gate(repo, remote, todo, bases, listing, there) if todo else ({}, [])
        if lacking:  # (that URL may hold the commit, in a history this clone has not fetched)
            waiting = [h._replace(unseen=True) if h.commit and not h.discarded else h for h in waiting]
        holds.append((index, waiting))
        waits = {h.ref for h in waiting}
        idle = sum(r not in allowed and r not in waits for r in todo)
        ready = sorted(r for r in allowed if bases.get(r) != allowed[r])
        done = len(same) + idle + sum(bases.get(r) == allowed[r] for r in allowed)
        before = len(moved)
        try:
            done += publish.push(repo, remote, ready, allowed, exact=True, sent=moved, to=(url, key, carried))
        except PhaseError as exc:
            done += exc.published
            failures.append(_failed(remote, index, count, _reason(exc, remote), exc, url))
        finally:
            if pushed and len(moved) > before:
                from ...store.given import note_pushed

                note_pushed(repo, key, {r: allowed[r] for r in moved[before:] if r in allowed})
        counts.append(done)
    if sent is not None:
        sent.extend(r for r in dict.fromkeys(moved) if r not in sent)
    if lately is not None and hits and len(hits) == count and not failures:  # (every URL asked, and each holds it)
        lately.extend(max(h[r] for h in hits) for r in set.intersection(*(set(h) for h in hits)))
    _record_everywhere(repo, remote, urls, tips)
    published = min(counts) if counts else 0
    if held is not None:
        held.extend(_merged(holds, remote, count))
    if failures:
        first = failures[0]
        if len(failures) > 1:
            first.message += f"; {len(failures) - 1} more of {remote}'s push URLs failed too"
        first.published = published
        raise first
    return published


# a remote's settings a push to one of its push URLs, and the question before it, carry (a review:
# pushing by URL dropped them; another: asking by URL dropped ``uploadpack`` and ``proxy``)
CARRIED = ("receivepack", "uploadpack", "proxy", "proxyauthmethod", "vcs")
AS_REMOTE = "hn-push-url"  # the name the push gives that URL (no remote has it: else the URL is pushed to)


def _settings(repo: Repo, remote: str) -> list[tuple[str, str]] | None:
    """``remote``'s ``CARRIED`` settings (one ``git config``); None when they cannot be carried
    (a remote named ``AS_REMOTE`` exists, or Git cannot say)."""
    proc = repo.git.run(["config", "--get-regexp", r"^remote\..*\.(url|" + "|".join(CARRIED) + ")$"])
    if proc.returncode not in (0, 1):
        return None
    out = []
    for line in proc.stdout.decode("utf-8", "surrogateescape").split("\n"):
        name, _sp, value = line.partition(" ")
        if name.startswith(f"remote.{AS_REMOTE}."):
            return None
        if name.startswith(f"remote.{remote}.") and name[len(remote) + 8:] in CARRIED:
            out.append((name[len(remote) + 8:], value))
    return out


def _as_remote(repo: Repo, url: str, settings: list[tuple[str, str]] | None) -> dict[str, str]:
    """The environment that makes ``url`` the remote ``AS_REMOTE`` with ``settings``
    (``GIT_CONFIG_COUNT`` entries after the caller's own: never on a command line, where a URL's
    credentials would show), its name under ""; {} when there is nothing to carry."""
    if not settings:
        return {}
    base = {**os.environ, **repo.git.env}
    count = base.get("GIT_CONFIG_COUNT", "0")
    n = int(count) if count.isdigit() else 0
    env = {"": AS_REMOTE}
    for i, (name, value) in enumerate([("url", url), *settings]):
        env[f"GIT_CONFIG_KEY_{n + i}"] = f"remote.{AS_REMOTE}.{name}"
        env[f"GIT_CONFIG_VALUE_{n + i}"] = value
    env["GIT_CONFIG_COUNT"] = str(n + 1 + len(settings))
    return env


def _failed(remote: str, index: int, count: int, reason: str, exc: PhaseError | None = None,
            url: str = "") -> PhaseError:
    """The publication's error for one push URL (``url``, kept for the background publication's
    advice, never said): the remote's phase error, naming the URL by its place (``git remote
    get-url --push --all`` lists them), with the advice that fits one URL of several
    (``hnPublish`` would stop the others too)."""
    place = "at its push URL" if count == 1 else f"at push URL {index + 1} of {count}"
    lists = f"git remote get-url --push --all {remote} lists them" if count > 1 else f"git remote get-url --push {remote}"
    cause = getattr(exc, "cause", "") if exc is not None else ""
    from ...store.transport import NOT_PUSHABLE
    from .push_refused import refused_memory

    advice = ""
    if exc is not None and not exc.published and (refused_memory(cause) or cause in NOT_PUSHABLE) \
            and "cannot lock ref" not in reason:
        advice = (f"if that repository never takes memory refs, stop publishing there: git config "
                  f"remote.{remote}.hnPublish false" if count == 1 else
                  f"if that repository never takes memory refs, push to it through a remote of its own (git remote "
                  f"add NAME URL; git config remote.NAME.hnPublish false) and take it off {remote}'s push URLs "
                  f"(git remote set-url --delete --push {remote} URL)")
    error = PhaseError(f"{phase('memory publication', remote).message} {place} ({lists}): {reason}"
                       + (f"; {advice}" if advice else ""))
    error.cause, error.advice, error.url = cause, advice, url
    return error


def _reason(exc: PhaseError, remote: str) -> str:
    """What a push to one URL said, without the phase's own words (``_failed`` says them)."""
    head = f"{phase('memory publication', remote).message}: "
    return exc.message[len(head):] if exc.message.startswith(head) else "the push failed"


def _settle(repo: Repo, key: str, memory: dict[str, str], into: str = "") -> None:
    """What stopped publications offered under ``key``, settled by this push URL's answer
    (``store.given``) and recorded under ``into`` (else ``key``)."""
    from ...store import given

    if not os.path.lexists(given.offered_path(repo)):
        return  # (the usual case: one stat)
    try:
        settled = given.settle_stopped(repo, key, memory, lambda pairs: contains(repo, pairs))
    except (HnError, OSError):
        return
    remember(repo, into or key, settled)


def _record_everywhere(repo: Repo, remote: str, urls: list[str], tips: dict[str, str]) -> None:
    """The tips of ``tips`` that every push URL's record holds now, under the key of that set
    of push URLs (``set_key``: what the pre-push hook's bookkeeping reads) and, when the fetch URL
    is one of them (a team repository and its mirror), under ``remote``'s own name (what the
    reminders of lost anchors read: "this clone gave it"). That name is what the fetch URL was
    given: the hook reads it once the remote pushes where it fetches again (a review: a fork's
    memory recorded there was never given to upstream after the push URL was unset). An offer
    made under that name (memory refs the user pushed by hand) is settled when every push URL
    holds exactly its tip, as a push of the remote's own settled it."""
    from ...store import given

    records = [published_heads(repo, url_key(remote, url)) for url in urls]
    everywhere = {r: t for r, t in tips.items() if all(rec.get(r) == t for rec in records)}
    keys = [set_key(remote, urls)]
    if everywhere and len(urls) > 1 and _fetch_url(repo, remote) in urls:  # (one URL: a fork, ``split``)
        keys.append(remote)
    for key in keys:
        known = published_heads(repo, key)
        remember(repo, key, {r: t for r, t in everywhere.items() if known.get(r) != t})
    if everywhere and os.path.lexists(given.offered_path(repo)):
        given.settled(repo, remote, everywhere, set())


def _merged(holds: list[tuple[int, list]], remote: str, count: int) -> list:
    """The held lines of every URL ((its index, its ``gate.Held`` lines)), one per ref and reason:
    a memory several URLs wait for the same commit for says so once, naming them ("push URLs 2
    and 3 of origin", "every push URL of origin"; a review: three push URLs made two identical
    lines, and the sync counted the stream twice)."""
    seen: dict = {}
    for index, held in holds:
        for h in held:
            seen.setdefault(h, []).append(index)
    out = []
    for h, indexes in seen.items():
        if not h.commit or h.discarded:
            out.append(h)  # (not about what one URL lacks)
        elif len(indexes) == count and count > 1:
            out.append(h._replace(where=f"every push URL of {remote}"))
        elif len(indexes) == 1:
            out.append(h._replace(where=where(remote, indexes[0], count)))
        else:
            places = [str(i + 1) for i in sorted(set(indexes))]
            out.append(h._replace(where=f"push URLs {and_joined(places)} of {remote}"))
    return sorted(out, key=lambda h: (h.ref, h.where))
