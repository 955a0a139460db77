"""Resolving an ACTOR argument of ``git hn policy trust|untrust`` (``core.policyedit.resolve_actor``)."""

from __future__ import annotations

import pytest

from git_hn.core.policyedit import Known, resolve_actor
from git_hn.errors import InputError

BOB = Known("b" * 64, ("Bob Builder",))
ALICE = Known("a" * 64, ("Alice",))


def test_a_name_matches_exactly_and_a_part_of_one_is_refused_with_the_names_it_is_part_of():
    """An agent trial: ``policy trust Bob`` with "Bob Builder" known said no actor was known at
    all, and to sync first. A name is still matched whole only (anyone can sign under any name),
    but the refusal names the known actors whose name that word starts or is part of."""
    assert resolve_actor("bob builder", [BOB, ALICE]) == BOB
    for query in ("Bob", "builder"):
        with pytest.raises(InputError) as raised:
            resolve_actor(query, [BOB, ALICE])
        assert raised.value.message == (f"no known actor is named {query} exactly; known actors whose name starts "
                                        "with or contains that word: Bob Builder (bbbbbbbbbbbb); give the whole "
                                        "name or the actor ID")
    with pytest.raises(InputError, match="^no known actor matches Mallory: a teammate is known once"):
        resolve_actor("Mallory", [BOB, ALICE])
