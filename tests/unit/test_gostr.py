"""CONTRACT §1.7 Go string semantics (pinned Unicode 15.0.0), §7.9 tokenizer, §0.5 sanitizers
(the spelling of invisible characters is tested in ``test_invisible.py``).

The pinned-version tests must hold on every Python version: Python 3.11 ships Unicode 14.0,
3.12 ships 15.0 and 3.13 ships 15.1, but git-hn never consults ``unicodedata`` at run time.
"""

from __future__ import annotations

import pytest

from git_hn.core import _unicode15
from git_hn.core.gostr import (
    and_joined,
    has_control,
    is_blank,
    one_line,
    safe_text,
    short_id,
    to_lower,
    tokens,
    trim_space,
    utf8_len,
)

GO_SPACE = ["\t", "\n", "\v", "\f", "\r", " ", "\u0085", "\u00a0", "\u1680", "\u2000", "\u2001",
            "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009",
            "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]


# ---------------------------------------------------------------------------------------------
# TrimSpace


@pytest.mark.parametrize("ch", GO_SPACE)
def test_trim_space_strips_go_space(ch):
    assert trim_space(ch + "x" + ch) == "x"
    assert trim_space(ch * 3) == ""
    assert is_blank(ch)
    assert trim_space("a" + ch + "b") == "a" + ch + "b"  # inner runes are kept


@pytest.mark.parametrize("ch", ["\x1c", "\x1d", "\x1e", "\x1f", "\x00", "\x7f", "\u200b", "\u180e",
                                "\ufeff", "\u2060", "\u00ad", "\x80", "\x9f", "\u3164"])
def test_trim_space_keeps_non_go_space(ch):
    assert trim_space(ch + "x" + ch) == ch + "x" + ch
    assert not is_blank(ch)


def test_python_strip_differs_for_information_separators():
    # The reason for the explicit set: Python's str.strip() removes U+001C..U+001F.
    assert "\x1cx\x1f".strip() == "x"
    assert trim_space("\x1cx\x1f") == "\x1cx\x1f"


def test_trim_space_only_the_go_set():
    go = set(GO_SPACE)
    for cp in range(0x3001):
        ch = chr(cp)
        assert (trim_space(ch) == "") is (ch in go), hex(cp)


# ---------------------------------------------------------------------------------------------
# ToLower


@pytest.mark.parametrize("src,dst", [
    ("ABC", "abc"), ("\u0130", "i"), ("\u0130STANBUL", "istanbul"), ("ΣΑΣ", "σασ"), ("ΟΔΟΣ", "οδοσ"),
    ("\u212a", "k"), ("\u2126", "ω"), ("\u1e9e", "ß"), ("ß", "ß"), ("Ǆ", "ǆ"), ("ǅ", "ǆ"),
    ("ÀÉÎ", "àéî"), ("Ⅻ", "ⅻ"), ("Ⓐ", "ⓐ"), ("\U00010400", "\U00010428"), ("世界", "世界"),
    ("123 !?", "123 !?"), ("i", "i"), ("\u0049", "i"), ("ǈ", "ǉ"), ("ϴ", "θ"),
])
def test_to_lower_simple_mapping(src, dst):
    assert to_lower(src) == dst


def test_to_lower_differs_from_python_where_go_differs():
    assert "ΣΑΣ".lower() == "σας" and to_lower("ΣΑΣ") == "σασ"      # no final sigma
    assert "\u0130".lower() == "i\u0307" and to_lower("\u0130") == "i"  # one-to-one
    assert len(to_lower("\u0130" * 5)) == 5


def test_to_lower_is_length_preserving_on_all_bmp_letters():
    text = "".join(chr(cp) for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF)
    assert len(to_lower(text)) == len(text)


def test_lower_table_is_one_to_one():
    assert len(_unicode15.LOWER_FROM) == len(_unicode15.LOWER_TO)
    assert len(set(_unicode15.LOWER_FROM)) == len(_unicode15.LOWER_FROM)
    assert _unicode15.UNICODE_VERSION == "15.0.0"


# ---------------------------------------------------------------------------------------------
# IsControl


@pytest.mark.parametrize("cp", [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1B, 0x1C, 0x1F, 0x7F, 0x80, 0x85,
                                0x9F])
def test_control_is_cc(cp):
    assert has_control(chr(cp))
    assert has_control("abc" + chr(cp) + "def")


@pytest.mark.parametrize("ch", [" ", "a", "\u00a0", "\u00ad", "\u200b", "\u200e", "\u202e",
                                "\u2028", "\u2029", "\u2066", "\ufeff", "\ufffd", "\U000e0001",
                                "\ue000", "\u0600"])
def test_format_and_other_characters_are_not_control(ch):
    assert not has_control(ch)


def test_control_set_exactly():
    for cp in range(0x200):
        assert has_control(chr(cp)) is (cp <= 0x1F or 0x7F <= cp <= 0x9F), hex(cp)


# ---------------------------------------------------------------------------------------------
# §7.9 tokenizer


@pytest.mark.parametrize("text,expected", [
    ("cafe\u0301", ["cafe"]),                  # decomposed é: the combining mark is a boundary
    ("caf\u00e9", ["café"]),                   # precomposed stays in the word
    ("e\u0301x", ["e", "x"]),
    ("世界", ["世界"]),                          # no segmentation inside CJK runs
    ("世界 和平", ["世界", "和平"]),
    ("b a B A", ["a", "b"]),                   # lowercased, sorted, unique
    ("Zeta alpha ALPHA", ["alpha", "zeta"]),
    ("ΣΑΣ", ["σασ"]),
    ("\u0130stanbul", ["istanbul"]),
    ("foo_bar", ["bar", "foo"]),
    ("don't stop-now", ["don", "now", "stop", "t"]),
    ("x² ½ ٣", ["x²", "½", "٣"]),              # N* (No, Nd) are word runes
    ("Ⅻ", ["ⅻ"]),                              # Nl
    ("a\u200bb", ["a", "b"]),                  # format characters split
    ("a\u00a0b\tc\nd", ["a", "b", "c", "d"]),
    ("ǅ", ["ǆ"]),                              # Lt
    ("ʰ", ["ʰ"]),                              # Lm
    ("", []),
    ("!!! ... ---", []),
    ("\x00a\x1fb", ["a", "b"]),
    ("memory\narchitecture\nmemory", ["architecture", "memory"]),
])
def test_tokens(text, expected):
    assert tokens(text) == expected


def test_tokens_sort_by_code_point_equals_bytewise():
    out = tokens("z é a \U00010428 \uff41")
    assert out == sorted(out, key=lambda s: s.encode("utf-8"))
    assert out == ["a", "z", "é", "ａ", "\U00010428"]


# Pinned Unicode 15.0.0 — independent of the interpreter's unicodedata.


def test_u31350_is_a_letter_in_unicode_15():
    # CJK Unified Ideographs Extension H (added in Unicode 15.0).
    assert tokens("\U00031350") == ["\U00031350"]
    assert tokens("a\U00031350b") == ["a\U00031350b"]


def test_u2ebf0_is_not_a_letter_in_unicode_15():
    # CJK Unified Ideographs Extension I (added in Unicode 15.1): unassigned in 15.0.
    assert tokens("\U0002ebf0") == []
    assert tokens("a\U0002ebf0b") == ["a", "b"]


@pytest.mark.parametrize("ch", ["\U00011f04", "\U0001e4d0", "\U0001e030", "\U0001d2c0", "\U0001e4f0"])
def test_other_unicode_15_additions_are_word_runes(ch):
    # Kawi letter, Nag Mundari letter and digit, Cyrillic modifier letter, Kaktovik numeral.
    assert tokens(ch) == [ch]


@pytest.mark.parametrize("ch", ["\U00031350", "\U00011f04", "\U0001e4d0"])
def test_pinned_letters_regardless_of_python(ch):
    import unicodedata

    # On Python 3.11 (Unicode 14.0) these are unassigned; the tables must still say "letter".
    if unicodedata.unidata_version < "15.0.0":
        assert unicodedata.category(ch) == "Cn"
    assert tokens("x" + ch) == ["x" + ch]


def test_pinned_non_letter_regardless_of_python():
    import unicodedata

    if unicodedata.unidata_version >= "15.1.0":  # pragma: no cover - depends on the interpreter
        assert unicodedata.category("\U0002ebf0") == "Lo"
    assert tokens("x\U0002ebf0") == ["x"]


# ---------------------------------------------------------------------------------------------
# §0.5 sanitizers


def test_one_line_replaces_every_cc_with_space():
    assert one_line("a\nb\tc\rd\x00e\x1bf\x1fg\x7fh\x80i\x85j\x9fk") == "a b c d e f g h i j k"
    src = "keep \u00a0\u200b\u202e\u2028é世界"
    assert one_line(src) == src
    assert len(one_line("\x00" * 7)) == 7


def test_one_line_every_control():
    for cp in list(range(0x20)) + list(range(0x7F, 0xA0)):
        assert one_line("x" + chr(cp) + "y") == "x y"


def test_safe_text_keeps_newline_and_tab():
    assert safe_text("a\nb\tc") == "a\nb\tc"
    assert safe_text("a\rb\x00c\x1bd\x7fe\x85f\x9fg\x0bh\x0ci") == \
        "a\ufffdb\ufffdc\ufffdd\ufffde\ufffdf\ufffdg\ufffdh\ufffdi"
    assert safe_text("\u202e\u00a0é") == "\u202e\u00a0é"


def test_safe_text_every_control():
    for cp in list(range(0x20)) + list(range(0x7F, 0xA0)):
        expected = chr(cp) if cp in (0x09, 0x0A) else "\ufffd"
        assert safe_text(chr(cp)) == expected, hex(cp)


def test_utf8_len_and_short_id():
    assert utf8_len("é") == 2 and utf8_len("€") == 3 and utf8_len("😀") == 4 and utf8_len("") == 0
    assert short_id("sha256:0123456789abcdef") == "0123456789ab"
    assert short_id("0123456789abcdef") == "0123456789ab"
    assert short_id("abc") == "abc"


def test_and_joined_spells_the_lists_every_message_wrote_out_by_hand():
    """One English list (a reread: seven call sites wrote it out, each its own way): no comma
    before "and", the lone item as it is, nothing for none; a generator is taken too."""
    assert [and_joined(x) for x in ([], ["a"], ["a", "b"], ["a", "b", "c"], ["a", "b", "c", "2 more"])] \
        == ["", "a", "a and b", "a, b and c", "a, b, c and 2 more"]
    assert and_joined(w.upper() for w in ("x", "y")) == "X and Y"


def test_memory_ids_are_shortened_by_short_id_alone():
    """A reread found ``memory[7:19]`` cut by hand in five modules: ``short_id`` gives the same
    12 characters for a memory ID (``sha256:`` and 64 hex digits), and is the only way git_hn
    shortens one now (no ``[7:19]`` slice is left in the package)."""
    import ast
    from pathlib import Path

    ident = "sha256:" + "0123456789abcdef" * 4
    assert short_id(ident) == ident[7:19] == "0123456789ab"
    cut = []
    for path in (Path(__file__).resolve().parents[2] / "git_hn").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Slice) and isinstance(node.lower, ast.Constant) and node.lower.value == 7 \
                    and isinstance(node.upper, ast.Constant) and node.upper.value == 19:
                cut.append(f"{path.name}:{node.lineno}")
    assert cut == []


def test_the_challenge_hint_names_its_ids_as_before():
    """``advice._named``, now through ``and_joined``: byte for byte what it wrote before."""
    from git_hn.cli.advice import _named

    ids = ["sha256:" + str(n) * 64 for n in range(1, 6)]
    one, two, three = ("1" * 12, "2" * 12, "3" * 12)
    assert _named(ids[:1]) == one
    assert _named(ids[:2]) == f"{one} and {two}"
    assert _named(ids[:3]) == f"{one}, {two} and {three}"
    assert _named(ids) == f"{one}, {two}, {three} and 2 more"


# ---------------------------------------------------------------------------------------------
# The pinned tables against the interpreter's database where both must agree


def _stable_code_points():
    """Code points whose class is the same in Unicode 14.0 through 15.1: Basic Latin to Armenian,
    Latin/Greek Extended, and the core CJK block."""
    return list(range(0x590)) + list(range(0x1E00, 0x2000)) + list(range(0x4E00, 0xA000))


def test_simple_lowercase_matches_python_except_dotted_capital_i():
    import unicodedata

    points = _stable_code_points()
    if unicodedata.unidata_version <= "15.0.0":
        points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
                  and unicodedata.category(chr(cp)) != "Cn"]
    for cp in points:
        ch = chr(cp)
        expected = "i" if cp == 0x130 else ch.lower()
        assert to_lower(ch) == expected, hex(cp)


def test_letter_number_class_matches_python_on_assigned_code_points():
    import unicodedata

    points = _stable_code_points()
    if unicodedata.unidata_version <= "15.0.0":
        points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
                  and unicodedata.category(chr(cp)) != "Cn"]
    for cp in points:
        ch = chr(cp)
        word = unicodedata.category(ch)[0] in "LN"
        assert (tokens(ch) == [to_lower(ch)]) is word, hex(cp)


def test_lowercasing_never_changes_letter_or_number_class():
    """The tokenizer lowercases whole texts before splitting; that is only equivalent to
    splitting first if the simple lowercase mapping keeps every rune's L*/N* membership."""
    import re

    from git_hn.core import _unicode15 as u

    cls = re.compile("[" + u.LETTER_NUMBER_CLASS + "]")
    for a, b in zip(u.LOWER_FROM, u.LOWER_TO):
        assert bool(cls.match(a)) == bool(cls.match(b)), (hex(ord(a)), hex(ord(b)))


def test_ascii_fast_path_equals_the_unicode_tables():
    """For ASCII text the tokenizer takes a shortcut; it must agree with the pinned tables."""
    import re

    from git_hn.core import _unicode15 as u
    from git_hn.core.gostr import tokens

    cls = re.compile("[" + u.LETTER_NUMBER_CLASS + "]")
    ascii_letters_numbers = "".join(chr(c) for c in range(128) if cls.match(chr(c)))
    assert ascii_letters_numbers == "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    text = "".join(chr(c) for c in range(128)) + " Hello-World_42 x"
    slow = sorted(set(m.lower() for m in re.findall("[" + u.LETTER_NUMBER_CLASS + "]+", text)))
    assert tokens(text) == slow


def test_ascii_text_needs_no_unicode_table():
    """The Unicode 15 tables are imported, and the lowercase table made, at their first use
    (~1.3 M instructions of every command otherwise): ASCII text is lowercased, tokenized and
    checked without them; non-ASCII text still gets the pinned mapping."""
    import os
    import subprocess
    import sys

    code = ("import sys\n"
            "from git_hn.core import gostr, grammar\n"
            "assert gostr.to_lower('ABC') == 'abc' and gostr.tokens('A b, C1') == ['a', 'b', 'c1']\n"
            "assert grammar.normalize_topic(' Perf ') == 'perf'\n"
            "print('git_hn.core._unicode15' in sys.modules)\n"
            "assert gostr.to_lower('\\u0130') == 'i'\n"  # (Go's simple mapping: Python's gives i + U+0307)
            "assert gostr.tokens('\\u00c9t\\u00c9') == ['\\u00e9t\\u00e9']\n"
            "print('git_hn.core._unicode15' in sys.modules)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, PYTHONPATH=root))
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.split() == ["False", "True"]
