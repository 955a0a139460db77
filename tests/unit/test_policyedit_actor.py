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
                                        "with or contains that word: bbbbbbbbbbbb (\"Bob Builder\", a self-chosen "
                                        "name); give the whole name or the actor ID")
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


def test_greek_capitals_and_a_capital_i_drawn_as_an_l_look_alike():
    """*Homoglyph impersonation*, a review: Greek "\u039d" folded to "\u03bd" (drawn as "v") and "\u03a5" to "\u03c5"
    (drawn as "u"), so "\u039dick" and "\u03a5ann" were not found to look like "Nick" and "Yann"; and "AIice",
    with a capital I, which many fonts draw as an "l", not like "Alice". A capital of another
    script is read as the Latin capital it is drawn as, and a capital I either way."""
    from git_hn.core.policyedit import look_alike, look_alikes

    assert look_alike("\u039dick") == look_alike("Nick") == "nick"
    assert look_alike("\u03a5ann") == look_alike("Yann") == "yann"
    assert look_alike("\u0399van") == look_alike("\u0406van") == look_alike("Ivan") == "ivan"
    alice = Known("a" * 64, ("Alice",))
    others = [Known("1" * 64, ("AIice",)), Known("2" * 64, ("ALICE\u2800",)), Known("3" * 64, ("\u0391\u0399ice",)),
              Known("4" * 64, ("Aiice",)), Known("5" * 64, ("Alvce",))]
    assert [k.actor[0] for k in look_alikes("Alice", alice, [alice, *others])] == ["1", "2", "3"]
    from git_hn.core.policyedit import shapes

    assert shapes("AIice") == {"aiice", "alice"} and shapes("Alice") == {"alice"}
    assert [k.actor[0] for k in look_alikes("AIice", others[0], [alice, *others])] == ["2", "3", "4", "a"]
    nick = Known("6" * 64, ("Nick",))
    assert [k.actor[0] for k in look_alikes("Nick", nick, [nick, Known("7" * 64, ("\u039d\u0399CK",))])] == ["7"]
