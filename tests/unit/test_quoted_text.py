"""``core.hints.quoted_text`` and ``of_author``: author text in a line, shown one way everywhere
(a reread: four copies of the quoting, and a new one, the dependent failure's ``of "NAME"``, left
a name's invisible characters raw and its quotes unescaped)."""

from __future__ import annotations

from git_hn.core.hints import of_author, quoted_text, since


def test_author_text_is_quoted_spelled_and_bounded():
    assert quoted_text('Bob "the" \\ one') == '"Bob \\"the\\" \\\\ one"'
    assert quoted_text("Mal\u202elory") == '"Mal\\u{202e}lory"'
    assert quoted_text("a\nb") == "\"a b\""  # (one line)
    assert quoted_text("x" * 50, 40) == '"' + "x" * 40 + '…"'  # (cut after spelling out: the bound holds)


def test_a_stream_is_named_by_its_author_as_every_line_names_it():
    assert of_author("Mal\u202elory") == ' of "Mal\\u{202e}lory"'
    assert of_author('Bob" (000000000000) and "Eve') == ' of "Bob\\" (000000000000) and \\"Eve"'
    assert of_author("") == "" and of_author(None) == ""
    assert of_author("   ") == ' of "?"'
    assert since("a" * 40, 'Revert "x"') == 'since aaaaaaaaaaaa "Revert \\"x\\""'
