#!/usr/bin/env python3
"""Recall benchmark: ``git hn memory recall --query`` (whole process) against ``git grep`` over the
same texts written as files, measured in the same run.

N memories (default 1,000) spread over 3 actors are written as signed streams; the same contents
are committed as one file each. Both sides search for one word; the median of several runs is
reported with the ratio. Usage: python bench/bench_recall.py [--memories N] [--runs R]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memgen  # noqa: E402
from bench_record import in_sandbox  # noqa: E402


def _time(args, cwd, env) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args[:3]} failed: {proc.stderr.decode()[:300]}")
    return elapsed, proc.stdout


def setup(root: str, env: dict, memories: int, actors: int = 3, streams_per_actor: int = 1,
          words: int = 12) -> tuple[str, str]:
    repo = os.path.join(root, "repo")
    subprocess.run(["git", "init", "-q", repo], check=True, env=env)
    # a commit of many new files starts "git gc --auto"; in the foreground it is done before
    # anything is timed (detached, it ran during the first timed command)
    subprocess.run(["git", "config", "gc.autoDetach", "false"], cwd=repo, check=True, env=env)
    rng = random.Random(42)
    texts: list[str] = []
    os.makedirs(os.path.join(repo, "texts"))
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "init"], cwd=repo, check=True, env=env)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=env, capture_output=True,
                          text=True, check=True).stdout.strip()
    people = [memgen.Actor(bytes([i + 1]) * 32, f"Actor {i}") for i in range(actors)]
    people[0].install(repo)
    memgen.write_streams(repo, env, people, memories // actors, head, rng, texts,
                         streams_per_actor=streams_per_actor, words=words)
    for i, text in enumerate(texts):
        with open(os.path.join(repo, "texts", f"{i:06d}.txt"), "w") as fh:
            fh.write(text)
    subprocess.run(["git", "add", "texts"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "texts"], cwd=repo, check=True, env=env)
    return repo, "quarantine"


def bench(root: str, env: dict, memories: int, runs: int) -> dict:
    repo, word = setup(root, env, memories)
    recall = ["git", "hn", "memory", "recall", "--json", "--include-untrusted", "--lifecycle", "all",
              "--max-records", "1000000", "--max-content-bytes", str(1 << 40), "--query", word]
    grep = ["git", "grep", "-l", "-w", "-i", word, "--", "texts"]
    first, out = _time(recall, repo, env)  # the first recall may build private state
    matched = json.loads(out)["matched"]
    greps = len(_time(grep, repo, env)[1].splitlines())
    hn_times, grep_times = [], []
    for _ in range(runs):
        grep_times.append(_time(grep, repo, env)[0])
        hn_times.append(_time(recall, repo, env)[0])
    h, g = statistics.median(hn_times), statistics.median(grep_times)
    return {"name": "recall-vs-git-grep", "memories": memories, "runs": runs,
            "firstRecallMs": round(first * 1000, 1), "recallMs": round(h * 1000, 1),
            "gitGrepMs": round(g * 1000, 1), "ratio": round(h / g, 2), "matched": matched,
            "grepFiles": greps}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    in_sandbox("git-hn-bench-recall-", lambda root, env: bench(root, env, args.memories, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
