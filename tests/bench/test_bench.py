"""Benchmarks with their targets (skipped by default; run with ``pytest -m bench``)."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import bench_record  # noqa: E402
import bench_recall  # noqa: E402

pytestmark = pytest.mark.bench


def _env(tmp):
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    return bench_record._env(home)


def test_record_within_8x_plain_git():
    with tempfile.TemporaryDirectory() as tmp:
        result = bench_record.bench_record_vs_git(tmp, _env(tmp), runs=11)
    print(result)
    assert result["ratio"] <= result["target"], result


def test_append_cost_does_not_grow_with_the_stream():
    with tempfile.TemporaryDirectory() as tmp:
        result = bench_record.bench_stream_growth(tmp, _env(tmp), runs=11, long=10_000)
    print(result)
    assert result["ratio"] <= result["target"], result


def test_recall_against_git_grep_reports_a_ratio():
    """Issue "lifecycle and recall" established this measurement (1,000 memories, 3 actors)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = bench_recall.bench(tmp, _env(tmp), memories=1000, runs=5)
    print(result)
    assert result["matched"] > 0 and result["ratio"] > 0


def test_index_targets_at_100k():
    import bench_index

    with tempfile.TemporaryDirectory() as tmp:
        result = bench_index.bench(tmp, _env(tmp), memories=100_000, runs=5)
    print(result)
    t = result["targets"]
    assert result["ratio"] <= t["ratio"], result
    assert result["rebuildPerSecond"] >= t["rebuildPerSecond"], result
    assert result["recallPeakMiB"] <= t["recallPeakMiB"], result


def test_sync_target_at_10k():
    import bench_sync

    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        result = bench_sync.bench(tmp, _env(home), memories=10_000, runs=3)
    print(result)
    assert result["ratio"] <= result["target"], result


def test_hooks_fetch_overhead():
    import bench_hooks

    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        result = bench_hooks.bench(tmp, _env(home), runs=10)
    print(result)
    assert result["overheadMs"] <= result["targetOverheadMs"], result


def test_incremental_targets_at_100k():
    """Issue 11: show, supersede, brief and digest at 100k memories against 1, recall after a
    record against a warm recall, warm recall against git grep at 10k and 100k, fixed costs."""
    import bench_incremental

    with tempfile.TemporaryDirectory() as tmp:
        result = bench_incremental.bench(tmp, _env(tmp), memories=100_000, also=10_000, runs=3,
                                         timeout=600)
    print(result)
    assert bench_incremental.failures(result) == [], result


def test_organisation_targets_at_10k_streams():
    """Issue 11: sync (no-op, 100 streams, --all into a fresh clone) and hook overheads with
    1,000 actors × 10 streams."""
    import bench_org

    with tempfile.TemporaryDirectory() as tmp:
        result = bench_org.bench(tmp, _env(tmp), actors=1000, runs=3, timeout=300, only=None)
    print(result)
    assert bench_org.failures(result) == [], result
