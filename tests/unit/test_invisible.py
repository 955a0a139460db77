"""Invisible characters in author text are spelled ``\\u{…}`` on every human view (*Trojan
Source*, *ASCII smuggling*, *emoji smuggling*, *impersonation* by a look-alike display name)."""

from __future__ import annotations

import unicodedata

import pytest

from git_hn.core.gostr import one_line
from git_hn.core.invisible import lookalikes, remove_invisible, spell_invisible

BIDI = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
# one of each kind the module names, at the edges of every range
HIDDEN = BIDI + [0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180E, 0x180F,
                 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x2060, 0x2061, 0x2064, 0x2065, 0x206A,
                 0x206F, 0x3164, 0xFE00, 0xFE0D, 0xFEFF, 0xFFA0, 0xFFF0, 0xFFF9, 0xFFFB,
                 0x1BCA0, 0x1BCA3, 0x1D173, 0x1D17A, 0xE0000, 0xE0001, 0xE0020, 0xE0041, 0xE007F,
                 0xE0100, 0xE01EF, 0xE0FFF]


@pytest.mark.parametrize("cp", HIDDEN, ids=hex)
def test_every_invisible_character_is_spelled_in_lowercase_hex(cp):
    assert spell_invisible("a" + chr(cp) + "b") == "a\\u{%x}b" % cp
    assert spell_invisible(chr(cp)) == "\\u{%x}" % cp


def test_a_sentence_in_tag_characters_becomes_visible():
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "IGNORE ALL")
    shown = spell_invisible("Fine." + hidden)
    assert shown.startswith("Fine.\\u{e0049}\\u{e0047}") and shown.isascii()


def test_visible_text_and_the_joiners_between_drawn_characters_stay():
    for text in ("é", "👨\u200d👩\u200d👧", "\u2764\ufe0f\u200d🔥", "\u0645\u06cc\u200c\u062e",
                 "\u0915\u094d\u200d\u0937", "\u20e3", "日本語", "ok"):
        assert spell_invisible(text) == text


def test_a_selector_or_joiner_after_a_letter_of_a_script_that_needs_none_is_spelled():
    """A review: ``Zoë`` + U+FE0F and ``Ал`` + U+200C + ``иса`` looked like ``Zoë`` and ``Алиса``."""
    assert spell_invisible("Zo\u00eb\ufe0f") == "Zo\u00eb\\u{fe0f}"
    assert spell_invisible("\u0410\u043b\u200c\u0438\u0441\u0430") == "\u0410\u043b\\u{200c}\u0438\u0441\u0430"
    assert spell_invisible("\u7530\ufe0e\u7530") == "\u7530\\u{fe0e}\u7530"  # (a bit per ideograph)
    assert spell_invisible("👋🏽\u200d👋") == "👋🏽\u200d👋"  # (a skin tone before the joiner)


def test_a_review_s_look_alikes_are_spelled_and_its_emoji_and_words_stay():
    assert spell_invisible("Kim 👨\u200c👩") == "Kim 👨\\u{200c}👩"  # a non-joiner between emoji
    assert spell_invisible("Bob\u2500\ufe0f") == "Bob\u2500\\u{fe0f}"  # box drawing has no emoji form
    assert spell_invisible("Alice\u2800") == "Alice\\u{2800}"  # the blank Braille pattern draws nothing
    for emoji in ("\u203c\ufe0f", "\u2139\ufe0f", "\u2194\ufe0f", "\u3030\ufe0f", "\u25fb\ufe0f", "\u2934\ufe0f"):
        assert spell_invisible(emoji) == emoji
    assert spell_invisible("\u0d05\u0d35\u0d28\u0d4d\u200d") == "\u0d05\u0d35\u0d28\u0d4d\u200d"  # (a chillu)
    assert spell_invisible("\u0647\u200d ") == "\u0647\u200d "


def test_a_joiner_beside_ascii_or_alone_is_spelled():
    """A review: ``Alice`` and ``Alice`` + U+200C looked the same in the log (impersonation)."""
    assert spell_invisible("Alice\u200c") == "Alice\\u{200c}"
    assert spell_invisible("\u200dAlice") == "\\u{200d}Alice"
    assert spell_invisible("ab\u200dcd") == "ab\\u{200d}cd"
    assert spell_invisible("\u200c") == "\\u{200c}"
    assert spell_invisible("日\u200c\u200c本") == "日\\u{200c}\\u{200c}本"  # (a run hides data)


def test_the_three_subdivision_flags_keep_their_tags_and_no_other_tag_sequence_does():
    tags = lambda s: "".join(chr(0xE0000 + ord(c)) for c in s)  # noqa: E731
    for region in ("gbeng", "gbsct", "gbwls"):
        flag = "\U0001f3f4" + tags(region) + "\U000e007f"
        assert spell_invisible(f"go {flag}!") == f"go {flag}!"
    odd = "\U0001f3f4" + tags("gbx") + "\U000e007f"
    assert spell_invisible(odd) == "\U0001f3f4\\u{e0067}\\u{e0062}\\u{e0078}\\u{e007f}"


def test_one_presentation_selector_after_a_non_ascii_character_stays():
    assert spell_invisible("\u2764\ufe0f") == "\u2764\ufe0f"  # ❤️
    assert spell_invisible("\u26a0\ufe0e x") == "\u26a0\ufe0e x"
    assert spell_invisible("1\ufe0f\u20e3") == "1\ufe0f\u20e3"  # keycap 1️⃣
    assert spell_invisible("🏳\ufe0f\u200d🌈") == "🏳\ufe0f\u200d🌈"


def test_selectors_that_carry_data_or_disguise_a_name_are_spelled():
    assert spell_invisible("Alice\ufe0f") == "Alice\\u{fe0f}"  # after an ASCII letter
    assert spell_invisible("\ufe0fx") == "\\u{fe0f}x"  # at the start
    assert spell_invisible("\u2764\ufe0f\ufe0f") == "\u2764\ufe0f\\u{fe0f}"  # a second one
    assert spell_invisible("\u2764\ufe01") == "\u2764\\u{fe01}"  # not a presentation selector
    assert spell_invisible("\u200b\ufe0f") == "\\u{200b}\\u{fe0f}"  # after an invisible one
    assert spell_invisible("1\ufe0f") == "1\\u{fe0f}"  # a keycap base without the keycap


def test_sanitizers_compose_for_human_output():
    hostile = "evil\x1b[31m\u202eTXT.exe\n"
    assert spell_invisible(one_line(hostile)) == "evil [31m\\u{202e}TXT.exe "


def test_the_lint_spelling_removes_the_invisible_characters_and_the_joiners():
    assert remove_invisible("a\u200bb\u200cc\u200dd\U000e0041e\ufe0f") == "abcde"
    assert remove_invisible("ascii only") == "ascii only"


# every space separator (category Zs) but U+0020, from the Unicode database
SPACES = [cp for cp in range(0x110000) if unicodedata.category(chr(cp)) == "Zs" and cp != 0x20]


@pytest.mark.parametrize("cp", SPACES, ids=hex)
def test_every_space_separator_but_the_ascii_one_is_spelled(cp):
    """A trial (S93 #5): ``nor`` U+00A0 ``mal.txt`` looked like ``nor mal.txt`` in every view."""
    assert spell_invisible("nor" + chr(cp) + "mal") == "nor\\u{%x}mal" % cp
    assert remove_invisible("a" + chr(cp) + "b") == "a" + chr(cp) + "b"  # (the lint reads two words)


def test_lookalike_names_are_told_apart_and_a_name_alone_is_not():
    nfc, nfd = "caf\u00e9.txt", "cafe\u0301.txt"
    assert lookalikes([nfc, nfd, "r\u00e9sum\u00e9", "plain"]) == {nfc: "composed U+00E9",
                                                                   nfd: "decomposed e + U+0301"}
    assert lookalikes([nfd, nfd, "r\u00e9sum\u00e9"]) == {}
    # three spellings of two accented letters: each note differs from the others
    names = ["\u00e9\u00e9", "e\u0301e\u0301", "\u00e9e\u0301"]
    told = lookalikes(names)
    assert told["\u00e9e\u0301"] == "composed U+00E9, decomposed e + U+0301" and len(set(told.values())) == 3
