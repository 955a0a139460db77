"""Which failed publication gets the way out of a server that refuses memory refs at once
(``push_refused.refused_memory``, ``background.Failure.line``; f144): Git's ``[remote rejected]``
does, a ref another push was updating and a refusal of access or credentials do not (their
own ways out, the access advice only once the same refusal repeats, as before)."""

from __future__ import annotations

import pytest

from git_hn.service.replication.background import Failure
from git_hn.service.replication.push_refused import refused_memory, stop_publishing
from git_hn.store.transport import ACCESS_REFUSED, NO_ACCESS, NO_CREDENTIALS

FAILED = "replication memory publication failed for remote origin: [remote rejected] (pre-receive hook declined)"
READS = "if you only read from origin, stop publishing there: git config remote.origin.hnPublish false"


@pytest.mark.parametrize("cause", ["[remote rejected] (pre-receive hook declined)", "[remote rejected] (hook declined)",
                                   "[remote rejected] (deny updating a hidden ref)"])
def test_a_refusal_of_memory_refs_is_one(cause):
    assert refused_memory(cause)


@pytest.mark.parametrize("cause", ["[remote rejected] (cannot lock ref 'refs/hn/memory/a/b': is at 1 but expected 2)",
                                   "[rejected] (fetch first)", *NO_ACCESS, ACCESS_REFUSED, NO_CREDENTIALS, ""])
def test_a_busy_ref_a_refusal_of_access_or_a_stale_tip_is_not(cause):
    assert not refused_memory(cause)


def test_the_first_report_of_a_refusal_of_memory_refs_says_the_way_out_and_of_access_does_not():
    refused = Failure(FAILED, stop_publishing("origin"), False, True)
    assert refused.line("origin", again=True) == (
        f"the last background publication to origin failed (publishing again now): {FAILED}; if origin never accepts "
        "memory refs, stop publishing there: git config remote.origin.hnPublish false")
    access = Failure("replication memory publication failed for remote origin: the remote refused access", READS, False)
    assert READS not in access.line("origin", again=True)
    assert access._replace(repeated=True).line("origin", again=False).endswith(f"failed again: {access.message}; {READS}")
