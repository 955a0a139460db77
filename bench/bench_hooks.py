#!/usr/bin/env python3
"""Hook overhead benchmark: ``git fetch`` of an up-to-date remote with and without git-hn's hooks
installed (median of N runs each, interleaved), plus one fetch that does update a
remote-tracking ref (which runs the post-fetch import for a remote with a saved selection).

Target (issue "Git-native integration"): the up-to-date fetch is at most 100 ms slower with
the hooks. Usage: python bench/bench_hooks.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_record import in_sandbox  # noqa: E402


def _git(args, cwd, env):
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _fetch(repo, env) -> float:
    t0 = time.perf_counter()
    _git(["fetch", "-q"], repo, env)
    return time.perf_counter() - t0


def bench(root: str, env: dict, runs: int) -> dict:
    remote = os.path.join(root, "remote.git")
    _git(["init", "-q", "--bare", remote], root, env)
    seed = os.path.join(root, "seed")
    _git(["init", "-q", seed], root, env)
    _git(["commit", "-q", "--allow-empty", "-m", "x"], seed, env)
    _git(["push", "-q", remote, "HEAD:refs/heads/main"], seed, env)
    plain, hooked = os.path.join(root, "plain"), os.path.join(root, "hooked")
    for path in (plain, hooked):
        _git(["clone", "-q", remote, path], root, env)
    _git(["hn", "init"], hooked, env)
    _git(["hn", "hooks", "install"], hooked, env)
    _git(["hn", "replication", "select", "--memory", "sha256:" + "1" * 64], hooked, env)
    for path in (plain, hooked):
        _fetch(path, env)
    a, b = [], []
    for _ in range(runs):
        a.append(_fetch(plain, env))
        b.append(_fetch(hooked, env))
    _git(["commit", "-q", "--allow-empty", "-m", "y"], seed, env)
    _git(["push", "-q", remote, "HEAD:refs/heads/main"], seed, env)
    t0 = time.perf_counter()
    subprocess.run(["git", "fetch", "-q"], cwd=hooked, env=env, capture_output=True)
    updating = time.perf_counter() - t0
    p, h = statistics.median(a), statistics.median(b)
    return {"name": "hooks-fetch", "runs": runs, "plainFetchMs": round(p * 1000, 1),
            "hookedFetchMs": round(h * 1000, 1), "overheadMs": round((h - p) * 1000, 1),
            "targetOverheadMs": 100, "updatingFetchWithImportMs": round(updating * 1000, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args(argv)
    result = in_sandbox("git-hn-bench-hooks-", lambda root, env: bench(root, env, args.runs))
    return 0 if result["overheadMs"] <= result["targetOverheadMs"] else 1


if __name__ == "__main__":
    sys.exit(main())
