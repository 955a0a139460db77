"""Fetching the requested streams into the quarantine (CONTRACT §9.5 and its one-round-trip
amendment; issue 11).

All requested streams are fetched by one ``git fetch`` of exactly their advertised tips: the
object IDs the advertisement named, never a ref pattern, passed on standard input so that any
number fits. Fetching object IDs writes no ref in the quarantine (at 10,000 streams, writing that
many loose refs costs more than the transfer) and avoids Git's quadratic comparison of explicit
refspecs with one another; what is then measured and validated is the advertised object itself.
Under a watchdog bounded by the sum of the streams' ``max-total-bytes``. If that fetch fails,
stalls or is killed, the same streams are fetched again one at a time with each stream's own
watchdog, so that one bad stream never fails a good one beside it.

When every selected stream's owner is known (``advertise.exact_owners``), ``run`` skips the
advertisement: one ``git fetch`` of exactly those refs (no destination: the tips are read from
``FETCH_HEAD``), which protocol v2 lists alone, as a plain fetch of them does.
"""

from __future__ import annotations

from .outcomes import Outcome, counted


STALL_QUESTION = ("config", "--get", "hn.syncStallTimeout")


STALL_DEFAULT = 60.0  # seconds (CONTRACT §9.5's watchdog)
STALL_MAX = 86400.0  # the most ``hn.syncStallTimeout`` may say: a day


def stall_timeout(repo, early: bool = False) -> float:
    """``hn.syncStallTimeout``'s seconds (``STALL_DEFAULT`` without one). A value that is not a
    number above 0 and at most ``STALL_MAX`` is refused (``InputError``), naming the key and the
    range: an audit's ``inf`` (or 3,000,000) failed every sync with ``internal error:
    OverflowError`` (a poll wait in milliseconds over C's int), and a value such as ``0`` or
    ``sixty`` used to stand for 60 without a word. ``early``: read the answer started early
    (``cli.main``) and leave it for the next call to collect (a sync's first look costs no
    process of its own)."""
    from ...core.gostr import bounded, spell_backslash
    from ...errors import InputError

    proc = (repo.git.early_answer(STALL_QUESTION) if early else None) or repo.git.run(list(STALL_QUESTION))
    if proc.returncode != 0:  # (often started early)
        return STALL_DEFAULT
    text = proc.stdout.decode("utf-8", "replace").strip()
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= STALL_MAX:  # (nan is in no range)
        raise InputError(f'hn.syncStallTimeout must be a number of seconds above 0 and at most {STALL_MAX:g} '
                         f'(it is "{spell_backslash(bounded(text, 64))}"); git config hn.syncStallTimeout {STALL_DEFAULT:g}')
    return value


def fetch_all(q, repo, url: str, remote: str, wanted: list[Outcome], max_total: int, say,
              meanwhile=None) -> int:
    """Fetch ``wanted`` into quarantine ``q``; returns the number of fetch processes run.
    ``meanwhile()`` runs once while the first fetch does (``Quarantine.fetch``)."""
    if not wanted:
        return 0
    stall = stall_timeout(repo)
    say(f"fetch {counted(len(wanted), 'stream', 'streams')}")
    verdict = q.fetch(url, sorted({o.advertised for o in wanted}), max_total * len(wanted), stall,
                      meanwhile=meanwhile)
    runs = 1
    if verdict:  # fall back: one stream at a time, each under its own watchdog
        for out in wanted:
            say(f"fetch {out.id}")
            runs += 1
            verdict = q.fetch(url, [out.advertised], max_total, stall)
            if verdict == "size":
                out.measurements["TotalBytes"] = q.measured
                out.over("max-total-bytes", max_total, q.measured, remote)
            elif verdict == "stall":
                out.fetch_failed(remote, f"nothing arrived for {stall:g} s (hn.syncStallTimeout)", unreached=True)
            elif verdict:  # (Git's own words are never repeated: they may quote a URL)
                out.fetch_failed(remote, q.failure or f"git fetch {remote} {out.advertised} shows Git's own "
                                 "message", url=url, git=repo.git)  # (the memory ref's tip: a plain git fetch
                # never asks for it)
    check_fetched(q, wanted, remote)
    return runs


def check_fetched(q, wanted: list[Outcome], remote: str) -> None:
    """Each live stream's tip must be in the quarantine (or the main store it borrows from)."""
    alive = [o for o in wanted if o.alive]
    for out, info in zip(alive, q.git.infos_bulk([o.advertised for o in alive])):
        if info is None:  # the fetch ended well but the object is not there
            out.fetch_failed(remote)
        else:
            out.root_type = info[1]
