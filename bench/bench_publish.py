#!/usr/bin/env python3
"""First publication of many streams: ``git hn sync`` in a clone holding N unpublished local
streams (one actor, two memories each), against a plain ``git push`` of the same refs with one
wildcard refspec from an identical copy, each into its own empty bare remote (median of paired
runs).

``git push`` matches each explicit refspec against every local ref, so a publication of N
streams one refspec each grew with N x (refs in the clone): 3,000 streams took 23 s of Git's
CPU, 10,000 minutes. git-hn now pushes them through an outbox and one wildcard refspec
(``store.outbox``). Reported: the ratio to the plain push (no target of its own in issue 11;
it keeps publication within a small factor of what Git itself costs).

Usage: python bench/bench_publish.py [--streams N] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memgen  # noqa: E402
from bench_record import in_sandbox  # noqa: E402


def _git(args, cwd, env):
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _timed(args, cwd, env) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True)
    if proc.returncode != 0:
        raise SystemExit(f"{args[:4]} failed: {proc.stderr.decode()[-400:]}")
    return time.perf_counter() - t0


def bench(root: str, env: dict, streams: int, runs: int) -> dict:
    seed = os.path.join(root, "seed")
    _git(["init", "-q", "-b", "main", seed], root, env)
    _git(["commit", "-q", "--allow-empty", "-m", "x"], seed, env)
    head = _git(["rev-parse", "HEAD"], seed, env).strip()
    writer = memgen.Actor(bytes(range(1, 33)), "Many Streams")
    memgen.write_streams(seed, dict(env, HN_HOOK_ACTIVE="1"), [writer], 2 * streams, head,
                         random.Random(7), streams_per_actor=streams)
    hn_times, plain_times = [], []
    for i in range(runs):
        pair = {}
        for kind in ("hn", "plain"):
            remote = os.path.join(root, f"{kind}-{i}.git")
            _git(["init", "-q", "--bare", remote], root, env)
            _git(["push", "-q", remote, "main"], seed, env)
            work = os.path.join(root, f"{kind}-{i}")
            shutil.copytree(seed, work, symlinks=True)
            _git(["remote", "add", "origin", remote], work, env)
            _git(["fetch", "-q", "origin"], work, env)
            pair[kind] = (work, remote)
        for kind in (("hn", "plain") if i % 2 == 0 else ("plain", "hn")):
            work, remote = pair[kind]
            if kind == "hn":
                hn_times.append(_timed(["git", "hn", "sync", "origin"], work, env))
            else:
                plain_times.append(_timed(["git", "push", "-q", "origin", "refs/hn/memory/*:refs/hn/memory/*"],
                                          work, env))
            got = _git(["for-each-ref", "--format=%(refname)", "refs/hn/memory/"], remote, env).split()
            assert len(got) == streams, (kind, len(got))
    h, p = statistics.median(hn_times), statistics.median(plain_times)
    return {"name": "publish-many", "streams": streams, "runs": runs, "gitHnMs": round(h * 1000, 1),
            "baselineMs": round(p * 1000, 1), "ratio": round(h / p, 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    in_sandbox("git-hn-bench-publish-", lambda root, env: bench(root, env, args.streams, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
