#!/usr/bin/env python3
"""Incremental git-hn at scale: what each read and lifecycle command costs at N memories
(default 100,000: 8 actors, 16 streams, ~500-byte contents, as ``memgen`` builds them) against the
same command on a 1-memory repository, measured in one run.

Reported, each a median of paired runs (large and small repository interleaved):
- ``show``, ``supersede``, ``brief --json`` and ``digest --json``: ratio large / 1-memory
  (target <= 2), and the peak RSS of each at scale (target <= 256 MiB);
- the first ``recall --query TERM --json`` after one new ``record`` against a warm recall
  (target <= 2), and warm recall against ``git grep -c TERM`` over a worktree of the same texts
  (target <= 2, also at ``--also`` memories, default 10,000);
- fixed cost in the 1-memory repository: ``record``, ``recall``, ``show`` and ``brief`` against
  ``python -c pass`` of the same interpreter, alternated run by run (target <= 5).

Usage: python bench/bench_incremental.py [--memories N] [--also N] [--runs R] [--timeout S]
Run it with the interpreter whose environment has git-hn installed (``git-hn`` on PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_recall import setup  # noqa: E402
from bench_record import in_sandbox  # noqa: E402

ACTORS, STREAMS_PER_ACTOR, WORDS = 8, 2, 65
TERM = "quarantine"


class TimedOut(Exception):
    pass


def alone(args, cwd, env, timeout=None):
    """(seconds, peak RSS in MiB, stdout) of one process, measured in a fresh child so that the
    peak is this process's own."""
    code = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
            "p = subprocess.run(sys.argv[2:], capture_output=True, timeout=float(sys.argv[1]) or None); "
            "t = time.perf_counter() - t; "
            "print(json.dumps([t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
            "p.returncode, p.stdout.decode(), p.stderr.decode()[-300:]]))")
    try:
        out = subprocess.run([sys.executable, "-c", code, str(timeout or 0), *args], cwd=cwd, env=env,
                             capture_output=True, text=True, check=True).stdout
    except subprocess.CalledProcessError as exc:
        if "TimeoutExpired" in exc.stderr:
            raise TimedOut(" ".join(args[:4])) from None
        raise
    seconds, peak, code_, stdout, stderr = json.loads(out)
    if code_ != 0:
        raise SystemExit(f"{args[:4]} failed: {stderr}")
    return seconds, round(peak / 1024, 1), stdout


def _ids(repo, env, actor=None):
    """Recall rows of decisions (of ``actor``, if given), newest first."""
    args = ["git", "hn", "memory", "recall", "--json", "--include-untrusted", "--max-records", "64",
            "--kind", "decision"]
    if actor:
        args += ["--actor", actor]
    out = subprocess.run(args, cwd=repo, env=env, capture_output=True, check=True).stdout
    return json.loads(out)["memories"]


def _active_actor(repo):
    with open(os.path.join(repo, ".git", "hn", "active")) as fh:
        return fh.read().strip()


def _paired(large_args, small_args, large, small, env, runs, timeout, prepare=None):
    """Median seconds of each side, runs interleaved; ``prepare(i)`` returns per-run arguments."""
    lt, st = [], []
    for i in range(runs):
        la, sa = prepare(i) if prepare else (large_args, small_args)
        st.append(alone(sa, small, env)[0])
        lt.append(alone(la, large, env, timeout)[0])
    return statistics.median(lt), statistics.median(st)


def bench(root, env, memories, also, runs, timeout):
    os.makedirs(os.path.join(root, "large"))
    os.makedirs(os.path.join(root, "small"))
    large, _ = setup(os.path.join(root, "large"), env, memories, actors=ACTORS,
                     streams_per_actor=STREAMS_PER_ACTOR, words=WORDS)
    small, _ = setup(os.path.join(root, "small"), env, 1, actors=1, streams_per_actor=1, words=WORDS)
    os.sync()
    result = {"name": "incremental", "memories": memories, "runs": runs, "commands": {}}
    # the first read builds the verified state (or whatever each version keeps); not timed here
    t_first, peak_first, _ = alone(["git", "hn", "memory", "recall", "--json", "--query", TERM],
                                   large, env, timeout)
    result["firstReadSeconds"] = round(t_first, 2)
    result["firstReadPeakMiB"] = peak_first
    alone(["git", "hn", "memory", "recall", "--json", "--query", TERM], small, env)
    me = _active_actor(large)
    mine = [m["id"] for m in _ids(large, env, me)]
    small_id = _ids(small, env)[0]["id"] if _ids(small, env) else None
    if small_id is None:  # the 1-memory repository holds an observation or assumption
        out = subprocess.run(["git", "hn", "memory", "recall", "--json", "--include-untrusted"],
                             cwd=small, env=env, capture_output=True, check=True).stdout
        small_id = json.loads(out)["memories"][0]["id"]
    show_id = mine[len(mine) // 2]

    def cmd(name, large_args, small_args, prepare=None):
        try:
            lt, st = _paired(large_args, small_args, large, small, env, runs, timeout, prepare)
            la = prepare(runs)[0] if prepare else large_args
            _t, peak, _out = alone(la, large, env, timeout)
            result["commands"][name] = {"largeMs": round(lt * 1000, 1), "smallMs": round(st * 1000, 1),
                                        "ratio": round(lt / st, 2), "peakMiB": peak,
                                        "targets": {"ratio": 2.0, "peakMiB": 256}}
        except TimedOut:
            result["commands"][name] = {"timedOutAfterSeconds": timeout}

    cmd("show", ["git", "hn", "memory", "show", show_id], ["git", "hn", "memory", "show", small_id])
    cmd("brief", ["git", "hn", "memory", "brief", "--json"], ["git", "hn", "memory", "brief", "--json"])
    cmd("digest", ["git", "hn", "memory", "digest", "--json"], ["git", "hn", "memory", "digest", "--json"])
    targets = iter(mine[:runs + 2])
    small_targets = [small_id]

    def supersede(i):
        t = next(targets)
        args = ["git", "hn", "memory", "supersede", t, "--kind", "decision", "--at", "HEAD",
                "--applies", "descendants", "--content", f"correction {i}"]
        sargs = ["git", "hn", "memory", "supersede", small_targets[-1], "--kind", "decision", "--at",
                 "HEAD", "--applies", "descendants", "--content", f"correction {i}", "--json"]
        return args, sargs

    # each small supersede targets the previous correction (the only active record there)
    lt, st, peaks = [], [], []
    try:
        for i in range(runs + 1):
            args, sargs = supersede(i)
            s, _p, out = alone(sargs, small, env)
            small_targets.append(json.loads(out)["memoryId"])
            t, peak, _out = alone(args, large, env, timeout)
            if i:  # the first pair warms both sides
                st.append(s)
                lt.append(t)
                peaks.append(peak)
        result["commands"]["supersede"] = {
            "largeMs": round(statistics.median(lt) * 1000, 1), "smallMs": round(statistics.median(st) * 1000, 1),
            "ratio": round(statistics.median(lt) / statistics.median(st), 2), "peakMiB": max(peaks),
            "targets": {"ratio": 2.0, "peakMiB": 256}}
    except TimedOut:
        result["commands"]["supersede"] = {"timedOutAfterSeconds": timeout}

    # recall: warm, then the first recall after one new record
    recall = ["git", "hn", "memory", "recall", "--json", "--include-untrusted", "--query", TERM]
    grep = ["git", "grep", "-c", TERM, "--", "texts"]
    result["recall"] = _recall_pair(large, env, recall, grep, runs, timeout)
    try:
        after, warm = [], []
        for i in range(runs):
            subprocess.run(["git", "hn", "memory", "record", "--kind", "decision", "--at", "HEAD",
                            "--applies", "descendants", "--content", f"one more {TERM} {i}"],
                           cwd=large, env=env, check=True, capture_output=True)
            t, peak, _ = alone(recall, large, env, timeout)
            after.append((t, peak))
            warm.append(alone(recall, large, env, timeout)[0])
        a, w = statistics.median(t for t, _ in after), statistics.median(warm)
        result["recallAfterRecord"] = {"firstMs": round(a * 1000, 1), "warmMs": round(w * 1000, 1),
                                       "ratio": round(a / w, 2), "peakMiB": max(p for _, p in after),
                                       "targets": {"ratio": 2.0, "peakMiB": 256}}
    except TimedOut:
        result["recallAfterRecord"] = {"timedOutAfterSeconds": timeout}

    # fixed cost in the 1-memory repository: each command's runs alternate with ``python -c
    # pass`` (a drift of the machine's speed then moves both sides of its ratio alike), after the
    # large repository's dirty pages were written back (otherwise a command that writes,
    # ``record``, waits behind that writeback and ``pass`` does not)
    os.sync()
    py = [sys.executable, "-c", "pass"]
    record = ["git", "hn", "memory", "record", "--kind", "observation", "--at", "HEAD", "--applies",
              "exact", "--content"]
    fixed, passes = {}, []
    for name, args in (("record", record),
                       ("recall", ["git", "hn", "memory", "recall"]),
                       ("show", ["git", "hn", "memory", "show", small_targets[-1]]),
                       ("brief", ["git", "hn", "memory", "brief"])):
        base, t = [], []
        for i in range(runs * 2 + 1):
            base.append(alone(py, small, env)[0])
            # each record appends (equal content would be answered as a replay, writing nothing)
            t.append(alone(args + [f"fixed cost {i}"] if name == "record" else args, small, env)[0])
        passes += base
        b, c = statistics.median(base), statistics.median(t)
        fixed[name] = {"ms": round(c * 1000, 1), "passMs": round(b * 1000, 1), "ratio": round(c / b, 2),
                       "target": 5.0}
    base = statistics.median(passes)
    result["fixedCost"] = {"pythonPassMs": round(base * 1000, 1), "commands": fixed}

    if also:
        os.makedirs(os.path.join(root, "also"))
        mid, _ = setup(os.path.join(root, "also"), env, also, actors=ACTORS,
                       streams_per_actor=STREAMS_PER_ACTOR, words=WORDS)
        os.sync()
        alone(recall, mid, env, timeout)
        result["recallAlso"] = _recall_pair(mid, env, recall, grep, runs, timeout)
        result["recallAlso"]["memories"] = also
    return result


def _recall_pair(repo, env, recall, grep, runs, timeout):
    try:
        alone(recall, repo, env, timeout)
        subprocess.run(grep, cwd=repo, env=env, capture_output=True)
        h, g = [], []
        for _ in range(runs):
            g.append(alone(grep, repo, env)[0])
            h.append(alone(recall, repo, env, timeout)[0])
        _t, peak, out = alone(recall, repo, env, timeout)
        return {"recallMs": round(statistics.median(h) * 1000, 1),
                "gitGrepMs": round(statistics.median(g) * 1000, 1),
                "ratio": round(statistics.median(h) / statistics.median(g), 2), "peakMiB": peak,
                "matched": json.loads(out)["matched"], "targets": {"ratio": 2.0, "peakMiB": 256}}
    except TimedOut:
        return {"timedOutAfterSeconds": timeout}


def failures(result) -> list[str]:
    """The targets a result misses, one line each (empty when every target is met)."""
    out = []

    def check(name, item):
        if "timedOutAfterSeconds" in item:
            out.append(f"{name}: timed out")
            return
        t = item.get("targets", {})
        if "ratio" in t and item["ratio"] > t["ratio"]:
            out.append(f"{name}: ratio {item['ratio']} > {t['ratio']}")
        if "peakMiB" in t and item.get("peakMiB", 0) > t["peakMiB"]:
            out.append(f"{name}: peak {item['peakMiB']} MiB > {t['peakMiB']}")

    for name, item in result["commands"].items():
        check(name, item)
    check("recall", result["recall"])
    check("recallAfterRecord", result["recallAfterRecord"])
    if "recallAlso" in result:
        check("recall@also", result["recallAlso"])
    for name, item in result["fixedCost"]["commands"].items():
        if item["ratio"] > item["target"]:
            out.append(f"fixed {name}: ratio {item['ratio']} > {item['target']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--also", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=0, help="seconds per command (0: none)")
    args = ap.parse_args(argv)
    result = in_sandbox("git-hn-bench-incremental-",
                        lambda root, env: bench(root, env, args.memories, args.also, args.runs,
                                                args.timeout or None))
    missed = failures(result)
    for line in missed:
        print(line, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
