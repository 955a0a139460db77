"""``Import._accepted_set``: an error raised inside the context (measurement, validation,
continuity, classification) leaves it as raised, and the state's lock is released. A review found
the context's generator catching four error types around its ``yield`` and then yielding again,
so that one of them raised by the body would have become contextlib's internal error "generator
didn't stop after throw()". No path of a sync is known to raise one there today, so the body is
this test's own; the repository, its state and its lock are real."""

from __future__ import annotations

import pytest

from git_hn.errors import ConflictError, StateUnavailable, StateUnwritable, StateWriteFailed, ValidationError
from git_hn.service.replication.outcomes import SyncResult
from git_hn.service.replication.run import Import
from git_hn.store import replication as rstate
from git_hn.store.repo import open_repo
from helpers import hn, shared_remote


@pytest.mark.parametrize("error", [ValidationError, StateUnavailable, StateUnwritable, StateWriteFailed,
                                   ConflictError])
def test_an_error_inside_the_accepted_set_leaves_as_raised_and_frees_the_state(tmp_path, error):
    remote, (alice,) = shared_remote(tmp_path, "Alice")
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "one").code == 0
    assert hn(alice, "replication", "select", "--all").code == 0
    repo = open_repo(str(alice))
    try:
        selection, _ = rstate.read_selection(repo, "origin")
        run = Import(repo, "origin", f"file://{remote}", selection, SyncResult("origin"), None, False, wait=0)
        thrown = error("from the body")
        with pytest.raises(error) as raised:
            with run._accepted_set():
                assert run.accepted is not None
                raise thrown
        assert raised.value is thrown
        with run._accepted_set():  # (the lock was released: taken again at once, with no wait)
            assert run.accepted is not None
    finally:
        repo.close()
    assert hn(alice, "memory", "recall").code == 0
