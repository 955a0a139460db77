#!/usr/bin/env python3
"""Organisation scale: sync and hooks against a remote with 1,000 actors x 10 streams x 2 memories
(10,000 memory refs, 20,000 memories), measured in one run against plain Git doing the same work.

Reported (median of paired runs; targets from the incremental issue):
- ``sync-all-fresh``: ``git hn sync`` with ``--all`` selected into a fresh clone, against a plain
  fetch of all 10,000 refs plus verifying the 20,000 signatures on one core (target <= 1.5);
- ``sync-noop``: the same sync again (nothing changed), once the first one's background
  ``pack-refs`` has ended, against a plain
  ``git fetch origin '+refs/hn/memory/*:refs/scratch/*'`` that already fetched once (<= 3);
- ``sync-100``: a first sync of 100 selected streams into a fresh clone, against a plain fetch of
  exactly those 100 refs plus verifying their 200 signatures (<= 1.5); with it, the floor: what
  any implementation of that sync must spend in Git and in starting Python (``floor_100``),
  and the same sync through ``resident.py``'s fork server (``residentProbeMs``/``Ratio``: what a
  resident process that keeps git-hn imported would cost at best; a probe, not git-hn).
  Signatures are verified with git-hn's own verifier (``sigcost``: libsodium where installed);
  ``ratioWithCryptography`` is the ratio against the cryptography library's slower time;
- ``push-hooks``: ``git push`` of a new commit with the hooks installed, 10,000 local streams and
  one new memory, against ``git push --no-verify`` (<= 200 ms more);
- ``fetch-hooks``: a ``git fetch`` that moves a branch and brings no memory, in a clone holding
  10,000 accepted memories (500 actors x 10 streams x 2), with the hooks and a saved ``--all``
  selection, against the same fetch without hooks (<= 100 ms more); the fetches after the first
  find git-hn's quiet record and start no git-hn (``hookscripts``), and ``startedOverheadMs`` is
  the same fetch with the record removed first (the first fetch after any change: git-hn runs);
  ``exactSelectionOverheadMs``: a clone that selected 100 streams by name (``--memory``, owners
  learnt), its hooked fetch against the same clone's fetch with ``core.hooksPath=/dev/null``;
  ``unselectedRemoteOverheadMs``: the hooked clone's fetch from a second remote that has no
  selection (a fork's ``upstream``), against the same fetch with ``core.hooksPath=/dev/null``.

Nothing is timed in the minute after a large deletion (a previous benchmark's sandbox, a
promotion's background ``pack-refs``): on ext4 without a journal, creating files is slow in that
minute (``settle``), and a ratio measured in it is the deletion's, not the commands'.

Usage: python bench/bench_org.py [--actors N] [--runs R] [--timeout S] [--only NAME] [--settle S]
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memgen  # noqa: E402
import settle  # noqa: E402
import sigcost  # noqa: E402
from bench_record import in_sandbox  # noqa: E402

STREAMS, PER_STREAM = 10, 2


class TimedOut(Exception):
    pass


def run(args, cwd, env, timeout=None, check=True) -> float:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TimedOut(" ".join(args[:4])) from None
    if check and proc.returncode != 0:
        raise SystemExit(f"{args[:5]} failed: {proc.stderr.decode()[-400:]}")
    return time.perf_counter() - t0


def git(args, cwd, env):
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True,
                          text=True).stdout


def make_remote(root, env, actors, name) -> tuple[str, list[tuple[str, str]]]:
    """A bare remote with a main branch and ``actors`` x 10 streams x 2 memories anchored to it;
    returns its path and the (ref, stream) of every stream."""
    src = os.path.join(root, name + "-src")
    git(["init", "-q", src], root, env)
    git(["commit", "-q", "--allow-empty", "-m", "init"], src, env)
    head = git(["rev-parse", "HEAD"], src, env).strip()
    people = [memgen.Actor(i.to_bytes(4, "big") * 8, f"Actor {i}") for i in range(1, actors + 1)]
    memgen.write_streams(src, env, people, STREAMS * PER_STREAM, head, random.Random(11),
                         streams_per_actor=STREAMS, words=12)
    remote = os.path.join(root, name + ".git")
    git(["clone", "-q", "--bare", "--mirror", src, remote], root, env)
    git(["gc", "-q"], remote, env)
    refs = git(["for-each-ref", "--format=%(refname)", "refs/hn/memory"], remote, env).split()
    return remote, [(r, "sha256:" + r.rsplit("/", 1)[1]) for r in refs]


def verify_cost(repo, refs, env) -> dict:
    """Verifying every signature of ``refs``' chains on one core, with git-hn's verifier
    (``sigcost.baseline``)."""
    commits = subprocess.run(["git", "rev-list", "--stdin"], cwd=repo, env=env, capture_output=True,
                             text=True, check=True, input="\n".join(refs) + "\n").stdout.split()
    return sigcost.baseline(sigcost.signed_pairs(repo, commits, env))


def with_cost(r: dict, cost: dict, hn_times) -> dict:
    """``r`` (a ``pair`` result whose baseline includes ``cost``) with the verifier named and the
    ratio the cryptography library's time would give (the slower baseline, for comparison)."""
    crypto = cost["cryptographySeconds"]
    r["verifyMs"] = round(cost["seconds"] * 1000, 1)
    r["verifier"] = cost["verifier"]
    r["verifyCryptographyMs"] = round(crypto * 1000, 1)
    base = r["baselineMs"] / 1000 - cost["seconds"] + crypto
    r["ratioWithCryptography"] = round(statistics.median(hn_times) / base, 2)
    return r


def clone(remote, path, env):
    git(["clone", "-q", "file://" + remote, path], os.path.dirname(path), env)
    git(["config", "gc.auto", "0"], path, env)
    return path


def pair(name, hn_times, base_times, extra=0.0, kind="ratio", target=1.5):
    h, b = statistics.median(hn_times), statistics.median(base_times) + extra
    out = {"name": name, "gitHnMs": round(h * 1000, 1), "baselineMs": round(b * 1000, 1)}
    if kind == "ratio":
        out.update(ratio=round(h / b, 2), target=target)
    else:
        out.update(overheadMs=round((h - b) * 1000, 1), targetOverheadMs=target)
    return out


def bench_sync(root, env, actors, runs, timeout, only, settle_seconds):
    remote, streams = make_remote(root, env, actors, "org")
    refs = [r for r, _ in streams]
    results = []
    settle.settle(root, settle_seconds)  # (what was removed before: a previous benchmark's sandbox)
    if only in (None, "sync-all-fresh", "sync-noop"):
        cost = verify_cost(remote, refs, env)
        t_verify = cost["seconds"]
        hn, base, noop_hn, noop_base = [], [], [], []
        for i in range(runs):
            plain = clone(remote, os.path.join(root, f"plain-all-{i}"), env)
            base.append(run(["git", "fetch", "-q", "origin", "+refs/hn/memory/*:refs/scratch/*"], plain, env))
            noop_base.append(run(["git", "fetch", "-q", "origin", "+refs/hn/memory/*:refs/scratch/*"], plain, env))
            c = clone(remote, os.path.join(root, f"hn-all-{i}"), env)
            run(["git", "hn", "replication", "select", "--all"], c, env)
            hn.append(run(["git", "hn", "sync"], c, env, timeout))
            wait_packed(c, len(streams))  # (its detached pack-refs would slow what is timed next)
            noop_hn.append(run(["git", "hn", "sync"], c, env, timeout))
            settle.settle(root, settle_seconds)  # (that packing removed 10,000 loose refs)
        results.append(with_cost(pair("sync-all-fresh", hn, base, t_verify), cost, hn))
        results.append(pair("sync-noop", noop_hn, noop_base, target=3.0))
    if only in (None, "sync-100"):
        rng = random.Random(5)
        chosen = sorted(rng.sample(streams, 100))
        cost = verify_cost(remote, [r for r, _ in chosen], env)
        t_verify = cost["seconds"]
        hn, base, floor, warm = [], [], [], []
        sel = ["git", "hn", "replication", "select"]
        for _r, s in chosen:
            sel += ["--memory", s]
        with resident_server(root, env) as through_server:  # (None: the probe could not start)
            for i in range(runs):
                plain = os.path.join(root, f"plain-100-{i}")
                git(["init", "-q", "--bare", plain], root, env)
                base.append(run(["git", "fetch", "-q", "--no-tags", "file://" + remote,
                                 *[f"+{r}:{r}" for r, _ in chosen]], plain, env))
                c = clone(remote, os.path.join(root, f"hn-100-{i}"), env)
                run(sel, c, env)
                hn.append(run(["git", "hn", "sync"], c, env, timeout))
                floor.append(floor_100(remote, chosen, os.path.join(root, f"floor-100-{i}"), env))
                if through_server is None:
                    continue
                w = clone(remote, os.path.join(root, f"resident-100-{i}"), env)
                run(sel, w, env)
                warm.append(run(through_server("sync"), w, env, timeout))
                if accepted_count(w, env) != len(chosen):  # the probe's sync did the same work
                    raise SystemExit("the resident probe's sync did not promote every stream")
        r = with_cost(pair("sync-100", hn, base, t_verify), cost, hn)
        f, b = statistics.median(floor), statistics.median(base) + t_verify
        r.update(floorMs=round(f * 1000, 1), floorRatio=round(f / b, 2))
        if warm:
            w = statistics.median(warm)
            r.update(residentProbeMs=round(w * 1000, 1), residentProbeRatio=round(w / b, 2))
        else:
            r.update(residentProbe="did not start")
        results.append(r)
    return results


@contextlib.contextmanager
def resident_server(root, env):
    """``resident.py``'s fork server, started with this interpreter (which must import the
    git-hn under test) and stopped after; yields, once it listens (its imports done), a function
    giving the command line of one ``git-hn`` command through it, or None if it did not start
    (the sync's own measurement goes on without it)."""
    probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resident.py")
    directory = tempfile.mkdtemp(prefix="hn-probe-")  # (a socket path is short)
    sock = os.path.join(directory, "s")
    server = subprocess.Popen([sys.executable, probe, "--serve", sock], env=env, cwd=root,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(sock) and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        started = os.path.exists(sock) and server.poll() is None
        yield (lambda *args: [sys.executable, "-I", "-S", probe, sock, *args]) if started else None
    finally:
        shutil.rmtree(directory, ignore_errors=True)  # the server sees its socket gone and ends
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def accepted_count(repo, env) -> int:
    return len(git(["for-each-ref", "--format=%(refname)", "refs/hn/remotes"], repo, env).split())


def floor_100(remote, chosen, path, env) -> float:
    """Seconds of the work no implementation of this sync can skip, each step timed alone: a
    quarantine fetch of the selected refs (alternates to the clone, no ref written),
    ``update-ref --stdin`` of the accepted refs in the clone, and starting the interpreter
    (``python -c pass``). Signatures are left out: the baseline counts them on one core, and an
    implementation may use both. What remains of ``1.5 x baseline`` after the floor is what
    git-hn's own work (measurement, validation, the state, receipts) could ever spend."""
    clone(remote, path, env)
    gitdir = os.path.join(path, ".git")
    q = os.path.join(gitdir, "floor-quarantine")
    git(["init", "-q", "--bare", "--template=", q], path, env)
    with open(os.path.join(q, "objects", "info", "alternates"), "w") as f:
        f.write(os.path.join(gitdir, "objects") + "\n")
    t = run(["git", "fetch", "-q", "--no-tags", "file://" + remote, *[r for r, _ in chosen]], q, env)
    pack = os.path.join(q, "objects", "pack")
    for name in os.listdir(pack):
        os.rename(os.path.join(pack, name), os.path.join(gitdir, "objects", "pack", name))
    tips = {}
    with open(os.path.join(q, "FETCH_HEAD")) as f:
        for line in f:
            oid, _flag, rest = line.rstrip("\n").split("\t", 2)
            tips[rest.split("'")[1]] = oid
    lines = "".join(f"create {r.replace('refs/hn/memory/', 'refs/hn/remotes/origin/memory/')} {tips[r]}\n"
                    for r, _ in chosen)
    t0 = time.perf_counter()
    subprocess.run(["git", "update-ref", "--stdin"], cwd=path, env=env, input=lines.encode(), check=True)
    t += time.perf_counter() - t0
    return t + run([sys.executable, "-c", "pass"], path, env)


def wait_publication(repo, timeout: float = 600.0) -> None:
    """Until no background publication (started by a push's pre-push hook) is in flight."""
    directory = os.path.join(repo, ".git", "hn", "replication")
    deadline = time.monotonic() + timeout
    while os.path.isdir(directory) and any(n.endswith(".running") for n in os.listdir(directory)):
        if time.monotonic() > deadline:
            raise RuntimeError("a background publication did not end")
        time.sleep(0.02)


PACKED_FROM = 512  # refs written loose since git-hn last packed from which a sync packs (promote.PACK_REFS_FROM)


def wait_packed(repo, promoted: int, timeout: float = 600.0) -> None:
    """Until the refs a large promotion wrote are packed: the sync packs them in a detached
    ``git pack-refs`` (seconds of file system work for 10,000 refs), which nothing measured
    next should share the machine with. ``promoted`` is the number of refs written loose in
    ``repo`` since it was last packed (each clone here starts from none): fewer than
    ``PACKED_FROM`` are left loose, nothing to wait for."""
    if promoted < PACKED_FROM:
        return
    refs = os.path.join(repo, ".git", "refs", "hn")
    deadline = time.monotonic() + timeout
    while any(files for _d, _s, files in os.walk(refs)) or \
            os.path.exists(os.path.join(repo, ".git", "packed-refs.lock")):
        if time.monotonic() > deadline:
            raise RuntimeError("the accepted refs were not packed")
        time.sleep(0.02)


def bench_push(root, env, runs, timeout, settle_seconds, streams=10_000):
    remote = os.path.join(root, "push.git")
    git(["init", "-q", "--bare", remote], root, env)
    repo = os.path.join(root, "pusher")
    git(["init", "-q", repo], root, env)
    git(["config", "gc.auto", "0"], repo, env)
    git(["commit", "-q", "--allow-empty", "-m", "init"], repo, env)
    git(["remote", "add", "origin", remote], repo, env)
    git(["push", "-q", "-u", "origin", "HEAD:refs/heads/main"], repo, env)
    head = git(["rev-parse", "HEAD"], repo, env).strip()
    me = memgen.Actor(bytes([77]) * 32, "Pusher")
    me.install(repo)
    memgen.write_streams(repo, env, [me], streams, head, random.Random(2), streams_per_actor=streams,
                         words=12)
    run(["git", "hn", "hooks", "install"], repo, env)
    run(["git", "push", "-q", "origin", "HEAD:refs/heads/main"], repo, env, timeout)  # first: publishes all
    wait_publication(repo)  # (in the background: a push measured meanwhile would find none published)
    # 10,000 refs as loose files make every ref listing slow, on both sides and for plain Git too;
    # pack them, as git gc (and any Git server's housekeeping) leaves them
    git(["pack-refs", "--all"], repo, env)
    git(["pack-refs", "--all"], remote, env)
    settle.settle(root, settle_seconds)  # (the packing removed 20,000 loose refs)
    hooked, plain = [], []
    for i in range(runs + 1):
        run(["git", "hn", "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies",
             "exact", "--content", f"push bench {i}"], repo, env)
        git(["commit", "-q", "--allow-empty", "-m", f"a{i}"], repo, env)
        t = run(["git", "push", "-q", "origin", "HEAD:refs/heads/main"], repo, env, timeout)
        wait_publication(repo)  # its memory's publication, after the push, is not the push's time
        git(["commit", "-q", "--allow-empty", "-m", f"b{i}"], repo, env)
        p = run(["git", "push", "-q", "--no-verify", "origin", "HEAD:refs/heads/main"], repo, env)
        if i:
            hooked.append(t)
            plain.append(p)
    published = git(["ls-remote", remote, "refs/hn/memory/*"], repo, env).count("\n")
    r = pair("push-hooks", hooked, plain, kind="overhead", target=200)
    r.update(localStreams=streams, publishedRefs=published)
    return r


def bench_fetch(root, env, runs, timeout, settle_seconds, actors=500):
    remote, streams = make_remote(root, env, actors, "team")
    seed = clone(remote, os.path.join(root, "seed"), env)
    hooked = clone(remote, os.path.join(root, "hooked"), env)
    plain = clone(remote, os.path.join(root, "plain"), env)
    exact = clone(remote, os.path.join(root, "exact"), env)
    run(["git", "hn", "replication", "select", "--all"], hooked, env)
    run(["git", "hn", "sync"], hooked, env, timeout)
    run(["git", "hn", "hooks", "install"], hooked, env)
    run(["git", "hn", "replication", "select", "--all"], plain, env)
    run(["git", "hn", "sync"], plain, env, timeout)
    select = ["git", "hn", "replication", "select"]
    for _ref, stream in sorted(random.Random(3).sample(streams, 100)):
        select += ["--memory", stream]
    run(select, exact, env)  # learns the owners: git hn sync fetches these by name
    run(["git", "hn", "sync"], exact, env, timeout)
    run(["git", "hn", "hooks", "install"], exact, env)
    for repo in (hooked, plain):  # each promoted every stream: packed in the background, then
        wait_packed(repo, len(streams))  # the minute after that removal of loose refs is waited out
    settle.settle(root, settle_seconds)
    # origin's quiet record: named as its selection file (unpadded URL-safe base64), no ".json"
    quiet = os.path.join(hooked, ".git", "hn", "replication", "quiet",
                         base64.urlsafe_b64encode(b"origin").decode().rstrip("="))
    upstream = os.path.join(root, "upstream.git")
    git(["init", "-q", "--bare", upstream], root, env)
    git(["remote", "add", "upstream", upstream], hooked, env)
    a, b, started, started_plain, e, e_plain, u, u_plain = [], [], [], [], [], [], [], []

    def move(i):
        git(["commit", "-q", "--allow-empty", "-m", f"move {i}"], seed, env)
        git(["push", "-q", "origin", "HEAD"], seed, env)
        git(["push", "-q", upstream, "HEAD:refs/heads/main"], seed, env)

    for i in range(2 * runs + 1):
        move(i)
        t_plain = run(["git", "fetch", "-q", "origin"], plain, env)
        if i > runs and os.path.exists(quiet):
            os.remove(quiet)  # as after any change: the wrapper starts git-hn, which decides
        t_hooked = run(["git", "fetch", "-q", "origin"], hooked, env, timeout)
        if 0 < i <= runs:
            a.append(t_hooked)
            b.append(t_plain)
        elif i > runs:
            started.append(t_hooked)
            started_plain.append(t_plain)
        if i <= runs:  # the exact selection, and the unselected remote: each in the same clone
            for repo, name, tag, (with_hooks, without) in ((exact, "origin", "b", (e, e_plain)),
                                                           (hooked, "upstream", "c", (u, u_plain))):
                t_with = run(["git", "fetch", "-q", name], repo, env, timeout)
                move(f"{i}{tag}")
                t_without = run(["git", "-c", "core.hooksPath=/dev/null", "fetch", "-q", name], repo, env)
                if i:
                    with_hooks.append(t_with)
                    without.append(t_without)
    accepted = git(["for-each-ref", "--format=x", "refs/hn/remotes"], hooked, env).count("\n")
    r = pair("fetch-hooks", a, b, kind="overhead", target=100)

    def overhead_ms(with_hooks, without):
        return round((statistics.median(with_hooks) - statistics.median(without)) * 1000, 1)

    r.update(acceptedStreams=accepted, memories=accepted * PER_STREAM,
             startedOverheadMs=overhead_ms(started, started_plain),
             exactSelectionOverheadMs=overhead_ms(e, e_plain),
             unselectedRemoteOverheadMs=overhead_ms(u, u_plain))
    return r


def bench(root, env, actors, runs, timeout, only, settle_seconds=settle.WINDOW):
    results = []

    def attempt(name, fn):
        try:
            out = fn()
            results.extend(out if isinstance(out, list) else [out])
        except TimedOut as exc:
            results.append({"name": name, "timedOutAfterSeconds": timeout, "step": str(exc)})
        except SystemExit as exc:  # a command failed: reported, and the other parts still run
            results.append({"name": name, "failed": str(exc)[:300]})

    if only in (None, "sync-all-fresh", "sync-noop", "sync-100"):
        attempt(only or "sync", lambda: bench_sync(root, env, actors, runs, timeout, only, settle_seconds))
    if only in (None, "push-hooks"):
        attempt("push-hooks", lambda: bench_push(root, env, runs, timeout, settle_seconds))
    if only in (None, "fetch-hooks"):
        attempt("fetch-hooks", lambda: bench_fetch(root, env, runs, timeout, settle_seconds))
    return {"name": "org", "actors": actors, "streams": actors * STREAMS, "runs": runs,
            "results": results}


def failures(result) -> list[str]:
    out = []
    for r in result["results"]:
        if "timedOutAfterSeconds" in r:
            out.append(f"{r['name']}: timed out")
        elif "failed" in r:
            out.append(f"{r['name']}: failed")
        elif "ratio" in r and r["ratio"] > r["target"]:
            out.append(f"{r['name']}: ratio {r['ratio']} > {r['target']}")
        elif "overheadMs" in r and r["overheadMs"] > r["targetOverheadMs"]:
            out.append(f"{r['name']}: overhead {r['overheadMs']} ms > {r['targetOverheadMs']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actors", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=0, help="seconds per git-hn command (0: none)")
    ap.add_argument("--only", choices=["sync-all-fresh", "sync-noop", "sync-100", "push-hooks",
                                       "fetch-hooks"])
    ap.add_argument("--settle", type=float, default=settle.WINDOW,
                    help="seconds waited after a large deletion on ext4 without a journal (0: none)")
    args = ap.parse_args(argv)
    result = in_sandbox("git-hn-bench-org-", lambda root, env: bench(
        root, env, args.actors, args.runs, args.timeout or None, args.only, args.settle))
    missed = failures(result)
    for line in missed:
        print(line, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
