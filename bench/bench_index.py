#!/usr/bin/env python3
"""Index benchmark at scale: rebuild throughput, recall latency against ``git grep`` over the same
texts as files, and recall's peak memory, measured in one run.

Scale (issue "Disposable local index"): 8 actors, 16 streams, contents of about 500 bytes. Also
reports one recall with the verified state deleted (the recall builds it first, a full
verification) and one recall after one new record (the state verifies only the new commit).
Targets: recall at 100k memories at most 2x ``git grep``; rebuild at least 5,000 memories/s;
peak memory of recall under 1 GiB.
Usage: python bench/bench_index.py [--memories N] [--runs R]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_recall import setup  # noqa: E402
from bench_record import in_sandbox  # noqa: E402


def _timed(args, cwd, env):
    """(seconds, stdout, peak RSS of the child in KiB) for one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args[:4]} failed: {proc.stderr.decode()[:300]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, proc.stdout, max(peak, before)


def _alone(args, cwd, env):
    """(seconds, peak RSS in KiB, stdout) of one process measured alone in a fresh child."""
    code = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
            "p = subprocess.run(sys.argv[1:], capture_output=True); t = time.perf_counter() - t; "
            "print(json.dumps([t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
            "p.returncode, p.stdout.decode()]))")
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True,
                         text=True, check=True).stdout
    seconds, peak, code_, stdout = json.loads(out)
    if code_ != 0:
        raise SystemExit(f"{args[:4]} failed")
    return seconds, peak, stdout


# the scale: 8 actors, 16 streams, contents of about 500 bytes (65 words)
ACTORS, STREAMS_PER_ACTOR, WORDS = 8, 2, 65


def bench(root: str, env: dict, memories: int, runs: int) -> dict:
    repo, word = setup(root, env, memories, actors=ACTORS, streams_per_actor=STREAMS_PER_ACTOR,
                       words=WORDS)
    os.sync()  # let the setup's 100k freshly written files reach the disk before timing
    rebuilds = []
    for _ in range(3):
        t, out, _ = _timed(["git", "hn", "memory", "index", "rebuild"], repo, env)
        rebuilds.append(t)
    t_rebuild = statistics.median(rebuilds)
    lines = out.decode().splitlines()
    records = int(lines[0].rsplit("records ", 1)[1])
    # at this scale index-v0.json may exceed the contract's 256 MiB bound: it is then omitted
    # (the rebuild says so on a second line); recall is always served from the verified state
    written = len(lines) == 1
    recall = ["git", "hn", "memory", "recall", "--json", "--include-untrusted", "--query", word]
    grep = ["git", "grep", "-l", "-w", "-i", word, "--", "texts"]
    _timed(recall, repo, env)  # warm the page cache for both
    _timed(grep, repo, env)
    hn_times, grep_times = [], []
    for _ in range(runs):
        grep_times.append(_timed(grep, repo, env)[0])
        t, out, _ = _timed(recall, repo, env)
        hn_times.append(t)
    peak_kib = _alone(recall, repo, env)[1]
    doc = json.loads(out)
    h, g = statistics.median(hn_times), statistics.median(grep_times)
    index_path = os.path.join(repo, ".git", "hn", "memory", "index-v0.json")
    index_bytes = os.path.getsize(index_path) if written else 0
    db_bytes = os.path.getsize(os.path.join(repo, ".git", "hn", "memory", "state-v0.sqlite"))
    content_bytes = statistics.mean(len(m["data"]["content"].encode()) for m in doc["memories"])
    # recall with the index and the verified state deleted: the recall builds the state first
    for name in ("index-v0.json", "state-v0.sqlite", "state-v0.seal"):
        if os.path.exists(os.path.join(repo, ".git", "hn", "memory", name)):
            os.remove(os.path.join(repo, ".git", "hn", "memory", name))
    t_cold, cold_peak, cold_out = _alone(recall, repo, env)
    assert json.loads(cold_out)["matched"] == doc["matched"]
    # one new record, then recall: the state update verifies only the new commit
    subprocess.run(["git", "hn", "memory", "record", "--kind", "decision", "--at", "HEAD",
                    "--applies", "descendants", "--content", f"one more {word}"], cwd=repo, env=env,
                   check=True, capture_output=True)
    t_after, after_peak, after_out = _alone(recall, repo, env)
    assert json.loads(after_out)["matched"] == doc["matched"] + 1
    return {"name": "index", "memories": records, "runs": runs,
            "rebuildSeconds": round(t_rebuild, 2), "rebuildPerSecond": round(records / t_rebuild),
            "firstRebuildSeconds": round(rebuilds[0], 2),
            "recallMs": round(h * 1000, 1), "gitGrepMs": round(g * 1000, 1), "ratio": round(h / g, 2),
            "recallWithoutIndexSeconds": round(t_cold, 2),
            "recallWithoutIndexPeakMiB": round(cold_peak / 1024, 1),
            "recallAfterOneRecordSeconds": round(t_after, 2),
            "recallAfterOneRecordPeakMiB": round(after_peak / 1024, 1),
            "matched": doc["matched"], "recallPeakMiB": round(peak_kib / 1024, 1),
            "indexMiB": round(index_bytes / 2**20, 1), "indexWritten": written,
            "stateDatabaseMiB": round(db_bytes / 2**20, 1), "actors": ACTORS,
            "streams": ACTORS * STREAMS_PER_ACTOR, "meanContentBytes": round(content_bytes),
            "targets": {"ratio": 2.0, "rebuildPerSecond": 5000, "recallPeakMiB": 1024}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    result = in_sandbox("git-hn-bench-index-", lambda root, env: bench(root, env, args.memories, args.runs))
    t = result["targets"]
    ok = (result["ratio"] <= t["ratio"] and result["rebuildPerSecond"] >= t["rebuildPerSecond"]
          and result["recallPeakMiB"] <= t["recallPeakMiB"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
