#!/usr/bin/env python3
"""Sync benchmark: one stream of N memories (default 10,000) on a local bare remote.

Measured in one run:
- ``git hn sync`` into a clone that has the anchors (a fresh clone each run);
- a plain ``git fetch`` of the same ref into an empty repository;
- the bare cost of verifying N Ed25519 signatures with the same library as git-hn, on one core
  (``sigcost``: libsodium where installed; the cryptography library's time is reported too).
Target: sync <= 1.5 x (fetch + verification). Nothing is timed in the minute after a large
deletion (a previous benchmark's sandbox removed just before): ``settle``.
Usage: python bench/bench_sync.py [--memories N] [--runs R] [--settle S]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memgen  # noqa: E402
import settle  # noqa: E402
import sigcost  # noqa: E402
from bench_record import in_sandbox  # noqa: E402


def _run(args, cwd, env):
    t0 = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True)
    if proc.returncode != 0:
        raise SystemExit(f"{args[:3]} failed: {proc.stderr.decode()[-400:]}")
    return time.perf_counter() - t0, proc.stdout


def verify_cost(remote: str, ref: str, env: dict) -> dict:
    """Verifying every signature of the stream on one core, with git-hn's verifier
    (``sigcost.baseline``)."""
    commits = subprocess.run(["git", "rev-list", ref], cwd=remote, env=env, capture_output=True,
                             text=True, check=True).stdout.split()
    return sigcost.baseline(sigcost.signed_pairs(remote, commits, env))


def bench(root: str, env: dict, memories: int, runs: int, settle_seconds: float = settle.WINDOW) -> dict:
    src = os.path.join(root, "src")
    subprocess.run(["git", "init", "-q", src], check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "init"], cwd=src, check=True, env=env)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=src, env=env, capture_output=True,
                          text=True, check=True).stdout.strip()
    actor = memgen.Actor(bytes([9]) * 32, "Publisher")
    memgen.write_streams(src, env, [actor], memories, head, random.Random(3))
    remote = os.path.join(root, "remote.git")
    subprocess.run(["git", "clone", "-q", "--bare", "--mirror", src, remote], check=True, env=env)
    ref = f"refs/hn/memory/{actor.actor}/{actor.stream[7:]}"
    cost = verify_cost(remote, ref, env)
    t_verify = cost["seconds"]
    settle.settle(root, settle_seconds)  # (what was removed before: a previous benchmark's sandbox)
    fetches, syncs = [], []
    for i in range(runs):
        empty = os.path.join(root, f"empty{i}")
        subprocess.run(["git", "init", "-q", "--bare", empty], check=True, env=env)
        fetches.append(_run(["git", "fetch", "-q", "--no-tags", remote, f"+{ref}:{ref}"], empty, env)[0])
        clone = os.path.join(root, f"clone{i}")
        # file:// so that the clone gets only the branch, as over a network (no local hardlinks)
        subprocess.run(["git", "clone", "-q", "file://" + remote, clone], check=True, env=env)
        _run(["git", "hn", "replication", "select", "--memory", actor.stream], clone, env)
        t, _out = _run(["git", "hn", "sync"], clone, env)
        syncs.append(t)
    f, s = statistics.median(fetches), statistics.median(syncs)
    return {"name": "sync", "memories": memories, "runs": runs, "syncSeconds": round(s, 3),
            "fetchSeconds": round(f, 3), "verifySeconds": round(t_verify, 3), "verifier": cost["verifier"],
            "ratio": round(s / (f + t_verify), 2), "target": 1.5,
            "verifyCryptographySeconds": round(cost["cryptographySeconds"], 3),
            "ratioWithCryptography": round(s / (f + cost["cryptographySeconds"]), 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--settle", type=float, default=settle.WINDOW,
                    help="seconds waited after a large deletion on ext4 without a journal (0: none)")
    args = ap.parse_args(argv)
    result = in_sandbox("git-hn-bench-sync-", lambda root, env: bench(root, env, args.memories, args.runs,
                                                                      args.settle))
    return 0 if result["ratio"] <= result["target"] else 1


if __name__ == "__main__":
    sys.exit(main())
