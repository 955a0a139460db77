#!/usr/bin/env python3
"""Benchmarks for ``git hn memory record`` against plain Git, measured in the same run.

1. record-vs-git: a whole ``git hn memory record`` process versus the same objects written by
   plain Git plumbing from a shell script (two ``hash-object``, one ``mktree``, one
   ``commit-tree``, one ``update-ref``). Target: ratio <= 8.
2. stream-growth: appending to a 10,000-memory stream versus appending to a 1-memory stream.
   Target: ratio <= 1.2. The long stream is built with one ``git fast-import`` process from
   validly signed memories, then verified once by git-hn (which caches the verified head).

Usage: python bench/bench_record.py [--runs N] [--long N] [--json]
Run it with the interpreter whose environment has git-hn installed (``git-hn`` on PATH).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BASELINE = r"""#!/bin/sh
set -e
m=$(printf '%s' "$1" | git hash-object -w --stdin)
s=$(printf '%s' 'c2lnbmF0dXJl' | git hash-object -w --stdin)
t=$(printf '100644 blob %s\tmemory.json\n100644 blob %s\tsignature\n' "$m" "$s" | git mktree)
c=$(git commit-tree "$t" -m "hn memory x")
git update-ref refs/hn/bench/base "$c"
"""


def _env(home: str) -> dict:
    env = dict(os.environ)
    env.update({"HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.path.join(home, ".gitconfig"),
                "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    bindir = os.path.dirname(sys.executable)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def in_sandbox(prefix: str, work):
    """``work(root, env)`` in a fresh temporary directory with its own HOME, removed afterwards;
    its result is printed as one JSON line and returned."""
    import json
    import shutil
    import tempfile

    root = tempfile.mkdtemp(prefix=prefix)
    try:
        home = os.path.join(root, "home")
        os.mkdir(home)
        result = work(root, _env(home))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result))
    return result


def _run(args, cwd, env, input=None) -> float:
    t0 = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True, input=input)
    return time.perf_counter() - t0


def _new_repo(root: str, name: str, env: dict) -> str:
    path = os.path.join(root, name)
    subprocess.run(["git", "init", "-q", path], check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "init"], cwd=path, check=True, env=env)
    subprocess.run(["git", "hn", "init", "--name", "Bench"], cwd=path, check=True, env=env,
                   capture_output=True)
    return path


def _record_args(i: int) -> list[str]:
    return ["git", "hn", "memory", "record", "--kind", "observation", "--at", "HEAD",
            "--applies", "exact", "--topic", "bench", "--content", f"benchmark memory {i}"]


def bench_record_vs_git(root: str, env: dict, runs: int) -> dict:
    repo = _new_repo(root, "record", env)
    script = os.path.join(root, "baseline.sh")
    with open(script, "w") as fh:
        fh.write(BASELINE)
    os.chmod(script, 0o755)
    for i in range(3):  # warm both paths (page cache, bytecode)
        _run(_record_args(-i - 1), repo, env)
        _run([script, f'{{"warm":{i}}}'], repo, env)
    hn_times, git_times = [], []
    for i in range(runs):  # interleaved so that machine noise hits both alike
        git_times.append(_run([script, f'{{"n":{i}}}'], repo, env))
        hn_times.append(_run(_record_args(i), repo, env))
    g, h = statistics.median(git_times), statistics.median(hn_times)
    return {"name": "record-vs-git", "runs": runs, "plainGitMs": round(g * 1000, 2),
            "gitHnMs": round(h * 1000, 2), "ratio": round(h / g, 2), "target": 8.0}


def _fast_import_stream(repo: str, env: dict, count: int) -> None:
    """Write ``count`` validly signed memories with the repository's identity, in one process."""
    import random

    import memgen

    hn_dir = os.path.join(repo, ".git", "hn")
    actor = open(os.path.join(hn_dir, "active")).read().strip()
    ident = json.load(open(os.path.join(hn_dir, "identities", actor + ".json")))
    raw = base64.b64decode(ident["privateKey"] + "==")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=env, capture_output=True,
                          check=True, text=True).stdout.strip()
    memgen.write_streams(repo, env, [memgen.Actor(raw[:32], ident["name"])], count, head,
                         random.Random(7))


def bench_stream_growth(root: str, env: dict, runs: int, long: int) -> dict:
    short = _new_repo(root, "short", env)
    _run(_record_args(0), short, env)
    longrepo = _new_repo(root, "long", env)
    _fast_import_stream(longrepo, env, long)
    t_first = _run(_record_args(0), longrepo, env)  # full verification once, then cached
    for i in range(2):
        _run(_record_args(100 + i), short, env)
        _run(_record_args(100 + i), longrepo, env)
    s_times, l_times = [], []
    for i in range(runs):
        s_times.append(_run(_record_args(200 + i), short, env))
        l_times.append(_run(_record_args(200 + i), longrepo, env))
    s, l = statistics.median(s_times), statistics.median(l_times)
    return {"name": "stream-growth", "runs": runs, "streamLength": long,
            "firstAppendFullVerifyMs": round(t_first * 1000, 1), "shortStreamMs": round(s * 1000, 2),
            "longStreamMs": round(l * 1000, 2), "ratio": round(l / s, 3), "target": 1.2}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--long", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", choices=["record-vs-git", "stream-growth"])
    args = ap.parse_args(argv)
    root = tempfile.mkdtemp(prefix="git-hn-bench-")
    try:
        home = os.path.join(root, "home")
        os.mkdir(home)
        env = _env(home)
        results = []
        if args.only in (None, "record-vs-git"):
            results.append(bench_record_vs_git(root, env, args.runs))
        if args.only in (None, "stream-growth"):
            results.append(bench_stream_growth(root, env, args.runs, args.long))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(results))
    else:
        for r in results:
            print(json.dumps(r))
    return 0 if all(r["ratio"] <= r["target"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
