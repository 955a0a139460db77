#!/usr/bin/env python3
"""Recall's search syntax at scale (issue 13 item 5): ``recall --query 'pars*' --rank relevance
--json`` against ``git grep -c -E 'pars[a-z]*'`` over a worktree of the same texts, measured in
the same run (target: ratio <= 2 at 100,000 memories).

The repository is ``bench_incremental``'s (8 actors, 16 streams, ~500-byte contents of 65 words
from ``memgen``'s vocabulary, so ``pars*`` matches about 80% of the memories: the worst case for
ranking, which scores every match). Recall runs with ``--include-untrusted`` so that every match
is ranked (the generated repository has no policy, so default recall would hide them all). Also
reported, as measurements only: the same prefix query in the default order, ``OR`` and a phrase
in relevance order, and the same at ``--also`` memories (default 10,000). Since f172 also one term
in about 80% of the memories (``quarantine``), a prefix in about 11% (``4*``, of the numbers
``memgen`` ends each content with) and a term in one memory (the first memory's number), in
relevance order, each also against the same command on a 1-memory repository (``ratioTo1Memory``,
runs interleaved with the large repository's).

Each figure is the median of ``--runs`` interleaved runs (recall, then grep), each a fresh
process, after one warm-up run of each. ``--data DIR`` builds the repositories under DIR once
and reuses them on later runs (a 100k repository takes a minute or so to build, and the first
recall builds the verified state, ~20 s).

Usage: python bench/bench_search.py [--memories N] [--also N] [--runs R] [--data DIR]
Run it with the interpreter whose environment has git-hn installed (``git-hn`` on PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_incremental import ACTORS, STREAMS_PER_ACTOR, WORDS, alone  # noqa: E402
from bench_recall import setup  # noqa: E402
from bench_record import _env, in_sandbox  # noqa: E402

RECALL = ["git", "hn", "memory", "recall", "--json", "--include-untrusted"]
GREP = ["git", "grep", "-c", "-E", "pars[a-z]*", "--", "texts"]
CASES = {
    "prefixRelevance": ["--query", "pars*", "--rank", "relevance"],
    "prefixDefaultOrder": ["--query", "pars*"],
    "orRelevance": ["--query", "parser OR codec", "--rank", "relevance"],
    "phraseRelevance": ["--query", '"parser codec"', "--rank", "relevance"],
    "termRelevance": ["--query", "quarantine", "--rank", "relevance"],  # ~80% of the memories
    "tenthRelevance": ["--query", "4*", "--rank", "relevance"],  # ~11%
    "rareRelevance": ["--query", "RARE", "--rank", "relevance"],  # one memory (its number)
}
AGAINST_ONE = ("termRelevance", "tenthRelevance", "rareRelevance")
HEADLINE = "prefixRelevance"


def _repo(root: str, env: dict, memories: int) -> str:
    """The repository for ``memories`` under ``root``, built unless it is there already."""
    base = os.path.join(root, f"search-{memories}")
    repo = os.path.join(base, "repo")
    if not os.path.isdir(os.path.join(repo, ".git")):
        os.makedirs(base, exist_ok=True)
        if memories == 1:
            setup(base, env, 1, actors=1, streams_per_actor=1, words=WORDS)
        else:
            setup(base, env, memories, actors=ACTORS, streams_per_actor=STREAMS_PER_ACTOR, words=WORDS)
        os.sync()
    return repo


def _rare(repo: str) -> str:
    """The number the first memory's content ends with: a term of one memory."""
    with open(os.path.join(repo, "texts", "000000.txt")) as fh:
        return [w for w in fh.read().split() if w.isdigit()][-1]


def measure(repo: str, env: dict, runs: int, small: str | None = None) -> dict:
    t_first, _peak, _out = alone(RECALL + ["--query", "x"], repo, env)  # builds the state if needed
    alone(GREP, repo, env)
    out = {"firstReadSeconds": round(t_first, 2), "cases": {}}
    grep_times = []
    rare = _rare(repo)
    for name, args in CASES.items():
        args = [rare if a == "RARE" else a for a in args]
        alone(RECALL + args, repo, env)
        against = small if name in AGAINST_ONE else None
        if against:
            alone(RECALL + args, against, env)
        times, small_times = [], []
        for _ in range(runs):
            if against:
                small_times.append(alone(RECALL + args, against, env)[0])
            times.append(alone(RECALL + args, repo, env)[0])
            grep_times.append(alone(GREP, repo, env)[0])
        _t, peak, stdout = alone(RECALL + args, repo, env)
        doc = json.loads(stdout)
        out["cases"][name] = {"ms": round(statistics.median(times) * 1000, 1), "peakMiB": peak,
                              "matched": doc["matched"], "returned": doc["returned"]}
        if against:
            one = statistics.median(small_times)
            out["cases"][name].update(oneMemoryMs=round(one * 1000, 1),
                                      ratioTo1Memory=round(statistics.median(times) / one, 2))
    grep = statistics.median(grep_times)
    out["gitGrepMs"] = round(grep * 1000, 1)
    for item in out["cases"].values():
        item["ratioToGitGrep"] = round(item["ms"] / 1000 / grep, 2)
    out["cases"][HEADLINE]["target"] = 2.0
    return out


def bench(root: str, env: dict, memories: int, also: int, runs: int) -> dict:
    result = {"name": "search", "runs": runs, "sizes": {}}
    small = _repo(root, env, 1)
    for n in [memories] + ([also] if also else []):
        result["sizes"][str(n)] = measure(_repo(root, env, n), env, runs, small)
    return result


def failures(result: dict, memories: int) -> list[str]:
    item = result["sizes"][str(memories)]["cases"][HEADLINE]
    if item["ratioToGitGrep"] > item["target"]:
        return [f"{HEADLINE} at {memories}: ratio {item['ratioToGitGrep']} > {item['target']}"]
    return []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--also", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--data", help="build the repositories here once and reuse them")
    args = ap.parse_args(argv)
    if args.data:
        home = os.path.join(args.data, "home")
        os.makedirs(home, exist_ok=True)
        result = bench(args.data, _env(home), args.memories, args.also, args.runs)
        print(json.dumps(result))
    else:
        result = in_sandbox("git-hn-bench-search-",
                            lambda root, env: bench(root, env, args.memories, args.also, args.runs))
    missed = failures(result, args.memories)
    for line in missed:
        print(line, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
