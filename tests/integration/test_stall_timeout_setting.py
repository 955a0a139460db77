"""``hn.syncStallTimeout`` (``replication/transfer.stall_timeout``): a number of seconds above 0
and at most a day, else the sync is refused in one line that names the key and the range, before
it asks the remote anything. Real repositories and a real bare remote."""

from __future__ import annotations

import pytest

from helpers import git, hn, shared_remote


@pytest.mark.parametrize("value", ["inf", "3000000", "nan", "0", "-1", "sixty"])
def test_a_stall_timeout_out_of_range_is_refused_naming_the_key_and_the_range(tmp_path, value):
    """An audit: ``inf`` (or anything over ~2,150,000 s) failed every sync with ``internal error:
    OverflowError``; ``0`` or ``sixty`` silently stood for 60."""
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    git(a, "config", "hn.syncStallTimeout", value)
    r = hn(a, "sync")
    assert r.code == 1 and r.out == "", r
    assert r.err == (f'git-hn: hn.syncStallTimeout must be a number of seconds above 0 and at most 86400 '
                     f'(it is "{value}"); git config hn.syncStallTimeout 60\n')


@pytest.mark.parametrize("value", ["86400", "0.5", " 7 "])
def test_a_stall_timeout_in_range_is_taken(tmp_path, value):
    _remote, (a,) = shared_remote(tmp_path, "Alice")
    git(a, "config", "hn.syncStallTimeout", value)
    r = hn(a, "sync")
    assert r.code == 0, r.err
