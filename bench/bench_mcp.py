#!/usr/bin/env python3
"""``git hn mcp`` at scale: start-up and ``memory_brief`` against their own baselines, measured
in the same run.

Reported, each a median of interleaved runs:
- start-up: from starting ``git hn mcp`` to the answer of ``tools/list`` (after ``initialize``),
  in a repository of N memories (default 10,000: 8 actors, 16 streams, as ``memgen`` builds them)
  and in a 1-memory one, against ``python -c 'import <the SDK modules the server imports>'``
  (``mcp_server.SDK_MODULES``) of the same interpreter; target: at most the import time + 300 ms,
  whatever the history size;
- ``memory_brief``: one call to a running server at N memories against the same call on the
  1-memory repository (target: ratio <= 2). As in ``bench_incremental``, the verified state is
  built once before anything is timed (a fresh clone pays that once, on its first read).

The client speaks newline-delimited JSON-RPC over the server's stdio itself, so no client
library's start-up is counted. Usage: python bench/bench_mcp.py [--memories N] [--runs R]
Run it with the interpreter whose environment has git-hn installed (``git-hn`` on PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_recall import setup  # noqa: E402
from bench_record import in_sandbox  # noqa: E402

ACTORS, STREAMS_PER_ACTOR, WORDS = 8, 2, 65
START_MARGIN_MS = 300
BRIEF_RATIO = 2.0


class Server:
    """One ``git hn mcp`` process and a minimal JSON-RPC client over its stdio."""

    def __init__(self, repo: str, env: dict):
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(["git", "hn", "mcp"], cwd=repo, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.ids = 0

    def _send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict | None = None) -> dict:
        self.ids += 1
        self._send({"jsonrpc": "2.0", "id": self.ids, "method": method, **({"params": params} if params else {})})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"git hn mcp exited during {method}")
            answer = json.loads(line)
            if answer.get("id") == self.ids:
                if "error" in answer:
                    raise SystemExit(f"{method} failed: {answer['error']}")
                return answer["result"]

    def start(self) -> float:
        """Seconds from process start to the answer of ``tools/list``."""
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "0"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = self.request("tools/list")["tools"]
        elapsed = time.perf_counter() - self.t0
        if not any(t["name"] == "memory_brief" for t in tools):
            raise SystemExit("tools/list has no memory_brief")
        return elapsed

    def brief(self) -> float:
        t = time.perf_counter()
        result = self.request("tools/call", {"name": "memory_brief", "arguments": {}})
        elapsed = time.perf_counter() - t
        if result.get("isError"):
            raise SystemExit(f"memory_brief failed: {result['content'][0]['text']}")
        return elapsed

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _sdk_import(env: dict) -> float:
    from git_hn.service.mcp_server import SDK_MODULES

    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import " + ", ".join(SDK_MODULES)], env=env, check=True)
    return time.perf_counter() - t


def _start(repo: str, env: dict) -> float:
    server = Server(repo, env)
    try:
        return server.start()
    finally:
        server.close()


def bench(root: str, env: dict, memories: int, runs: int) -> dict:
    os.makedirs(os.path.join(root, "large"))
    os.makedirs(os.path.join(root, "small"))
    large, _ = setup(os.path.join(root, "large"), env, memories, actors=ACTORS,
                     streams_per_actor=STREAMS_PER_ACTOR, words=WORDS)
    small, _ = setup(os.path.join(root, "small"), env, 1, actors=1, streams_per_actor=1, words=WORDS)
    os.sync()
    first = {}
    for name, repo in (("large", large), ("small", small)):  # build the verified state, untimed
        t = time.perf_counter()
        subprocess.run(["git", "hn", "memory", "brief", "--json"], cwd=repo, env=env, check=True,
                       capture_output=True)
        first[name] = round((time.perf_counter() - t) * 1000, 1)
    _sdk_import(env)
    _start(small, env)  # warm bytecode and page cache for both sides
    base, start_large, start_small = [], [], []
    for _ in range(runs):  # interleaved, so that machine noise hits all three alike
        base.append(_sdk_import(env))
        start_small.append(_start(small, env))
        start_large.append(_start(large, env))
    b, sl, ss = (statistics.median(x) for x in (base, start_large, start_small))

    servers = {"large": Server(large, env), "small": Server(small, env)}
    try:
        for s in servers.values():
            s.start()
            s.brief()  # the first call imports the read path
        bl, bs = [], []
        for _ in range(runs * 3):
            bs.append(servers["small"].brief())
            bl.append(servers["large"].brief())
    finally:
        for s in servers.values():
            s.close()
    ml, ms = statistics.median(bl), statistics.median(bs)
    return {
        "name": "mcp", "memories": memories, "runs": runs, "stateBuildMs": first,
        "startup": {"sdkImportMs": round(b * 1000, 1), "largeMs": round(sl * 1000, 1),
                    "smallMs": round(ss * 1000, 1), "marginMs": round((sl - b) * 1000, 1),
                    "ratioToImport": round(sl / b, 2), "largeToSmall": round(sl / ss, 2),
                    "targets": {"marginMs": START_MARGIN_MS}},
        "brief": {"largeMs": round(ml * 1000, 1), "smallMs": round(ms * 1000, 1),
                  "ratio": round(ml / ms, 2), "targets": {"ratio": BRIEF_RATIO}},
    }


def failures(result) -> list[str]:
    """The targets a result misses, one line each (empty when every target is met)."""
    out = []
    st, br = result["startup"], result["brief"]
    if st["marginMs"] > st["targets"]["marginMs"]:
        out.append(f"start-up: {st['largeMs']} ms > SDK import {st['sdkImportMs']} ms + "
                   f"{st['targets']['marginMs']} ms")
    if br["ratio"] > br["targets"]["ratio"]:
        out.append(f"memory_brief: ratio {br['ratio']} > {br['targets']['ratio']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    result = in_sandbox("git-hn-bench-mcp-", lambda root, env: bench(root, env, args.memories, args.runs))
    missed = failures(result)
    for line in missed:
        print(line, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
