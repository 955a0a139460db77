"""Issue 13: ``git hn mcp`` start-up against the SDK's own import time, and ``memory_brief`` at
10k memories against 1 (skipped by default; run with ``pytest -m bench``)."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import bench_mcp  # noqa: E402
import bench_record  # noqa: E402

pytestmark = pytest.mark.bench


def test_mcp_start_up_and_brief_targets_at_10k():
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        result = bench_mcp.bench(tmp, bench_record._env(home), memories=10_000, runs=5)
    print(result)
    assert bench_mcp.failures(result) == [], result
