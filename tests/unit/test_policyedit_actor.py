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


def test_names_that_look_alike_on_screen_are_found_and_an_id_names_no_one_by_name():
    """*Homoglyph impersonation*: a letter of another script, or a character drawn as nothing that
    is no format character (U+2800, so ``fold_name`` keeps it), makes a different name that looks
    the same; ``look_alikes`` finds them for ``policy trust``'s warning after a grant by name."""
    from git_hn.core.policyedit import look_alike, look_alikes, named_by

    carol = Known("c" * 64, ("Carol",))
    impostors = [Known("1" * 64, ("\u0421\u0430r\u043el",)), Known("2" * 64, ("Carol\u2800",)),
                 Known("3" * 64, ("  CAROL ",)), Known("4" * 64, ("\u039aarol",)), Known("5" * 64, ("Karol",))]
    assert {look_alike(k.names[0]) for k in [carol, *impostors[:3]]} == {"carol"}
    assert [k.actor[0] for k in look_alikes("Carol", carol, [carol, *impostors])] == ["1", "2", "3"]
    assert look_alike("\u039aarol") == look_alike("Karol") == "karol"
    assert named_by("carol", carol) == "Carol" and named_by("c" * 8, carol) == named_by("c" * 64, carol) == ""
    assert look_alikes("", carol, [carol, Known("6" * 64, ("\u200b",))]) == []
