"""Fetching the requested streams into the quarantine (CONTRACT §9.5 and its one-round-trip
amendment; issue 11).

All requested streams are fetched by one ``git fetch`` with one explicit refspec per stream
(never a wildcard), under a watchdog bounded by the sum of their ``max-total-bytes``. If that
fetch fails, stalls or is killed, the same streams are fetched again one at a time with each
stream's own watchdog, so that one bad stream never fails a good one beside it. Every fetched
tip must be the advertised one.
"""

from __future__ import annotations

from ...core.grammar import QUARANTINE_PREFIX, quarantine_ref
from .outcomes import Outcome


def refspec(out: Outcome) -> str:
    return f"+refs/hn/memory/{out.actor}/{out.id[len('sha256:'):]}:{quarantine_ref(out.actor, out.id)}"


def stall_timeout(repo) -> float:
    proc = repo.git.run(["config", "--get", "hn.syncStallTimeout"])
    try:
        value = float(proc.stdout.decode().strip()) if proc.returncode == 0 else 60.0
        return value if value > 0 else 60.0
    except ValueError:
        return 60.0


def fetch_all(q, repo, url: str, remote: str, wanted: list[Outcome], max_total: int, say) -> int:
    """Fetch ``wanted`` into quarantine ``q``; returns the number of fetch processes run."""
    if not wanted:
        return 0
    stall = stall_timeout(repo)
    say(f"fetch {len(wanted)} streams")
    verdict = q.fetch(url, [refspec(o) for o in wanted], max_total * len(wanted), stall)
    runs = 1
    if verdict:  # fall back: one stream at a time, each under its own watchdog
        for out in wanted:
            say(f"fetch {out.id}")
            runs += 1
            verdict = q.fetch(url, [refspec(out)], max_total, stall)
            if verdict == "size":
                out.measurements["TotalBytes"] = q.measured
                out.over("max-total-bytes", max_total, q.measured)
            elif verdict:
                out.fetch_failed(remote)
    fetched = _quarantine_tips(q)
    for out in wanted:
        if not out.alive:
            continue
        got = fetched.get(quarantine_ref(out.actor, out.id), "")
        if got != out.advertised:
            out.fail("structurally-invalid", f"selection memory {out.id} fetched unexpected object: "
                     f"advertised={out.advertised} fetched={got}")
    return runs


def _quarantine_tips(q) -> dict[str, str]:
    proc = q.git.run(["for-each-ref", "--format=%(refname) %(objectname)", QUARANTINE_PREFIX])
    out = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        ref, _sp, oid = line.partition(" ")
        out[ref] = oid
    return out
