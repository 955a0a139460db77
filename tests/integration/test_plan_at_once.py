"""The plan of a sync's transactions made at once (``groups.plan``, f133): when every stream fits
one receipt by the sum of their costs, the one group is made without weighing each stream in
turn; it is the group the stream-by-stream plan (``groups._greedy``, kept as the reference)
makes, and a sync too large for one receipt is still planned stream by stream."""

from __future__ import annotations

import pytest

from helpers import hn
from test_receipt_bound import BOUND, _converged, _remote


def _shape(groups) -> list:
    return [([(o.kind, o.id, o.advertised) for o in g.streams], list(g.objects), list(g.shallow), g.listed)
            for g in groups]


@pytest.mark.parametrize("bound", [None, BOUND])
def test_the_plan_made_at_once_is_the_stream_by_stream_plan(tmp_path, monkeypatch, bound):
    from git_hn.service.replication import groups

    remote, b = _remote(tmp_path, 2, 10, 15)  # 300 memories, 20 streams: ~2.5 receipts' worth of BOUND
    if bound is not None:
        monkeypatch.setattr("git_hn.store.replication.RECEIPT_MAX", bound)
    real_plan = groups.plan
    planned = []

    def plan(run, promotable, bound=None):
        reference = _shape(real_plan(run, promotable, bound, at_once=False))
        got = real_plan(run, promotable, bound)
        assert _shape(got) == reference
        planned.append(len(got))
        return got

    monkeypatch.setattr(groups, "plan", plan)
    r = hn(b, "sync")
    assert r.code == 0, r.err
    assert planned == ([1] if bound is None else [planned[0]]) and (bound is None or planned[0] >= 2), planned
    _converged(remote, b, 300)
