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
