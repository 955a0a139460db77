"""``core.log`` (issue 14): the timeline's order and the fitting of human lines, pure."""

from __future__ import annotations

from rich.cells import cell_len

from git_hn.core import log


def _item(ident="a", ts="2026-12-01T00:00:00Z", name="Alice", content="hello", relations=(), actor="c"):
    return log.Item("sha256:" + ident * 64, "s", actor * 64, name, ts, ts, "decision", "active", "qualified",
                    log.summary(content), tuple(relations))


def test_order_is_by_instant_not_by_text_then_by_id():
    # "…00Z" sorts after "…00.5Z" as text, but is the earlier instant
    whole, half, quarter = (_item("a", "2026-12-01T10:00:00Z"), _item("b", "2026-12-01T10:00:00.5Z"),
                            _item("c", "2026-12-01T10:00:00.25Z"))
    tie = _item("0", "2026-12-01T10:00:00.5Z")
    assert log.ordered([whole, half, quarter, tie]) == [tie, half, quarter, whole]


def test_summary_is_the_first_non_blank_line_bounded():
    assert log.summary("\n  first  \nsecond") == "first"
    # a line cut says so (a newcomer trial: the page's timeline and piped log cut without a sign)
    assert log.summary("x" * 500) == "x" * (log.MAX_SUMMARY - 1) + "\u2026"
    assert log.summary("x" * log.MAX_SUMMARY) == "x" * log.MAX_SUMMARY  # whole: no sign
    assert log.summary("") == ""


def test_fit_cuts_summary_then_name_never_the_id():
    it = _item(name="A rather long author name", content="word " * 80)
    for width in (60, 80, 160):
        line = log.lines([it], False, width, cell_len)[0]
        assert cell_len(line) <= width and line.startswith("a" * 12 + " 2026-12-01 ")
    narrow = log.lines([it], False, 10, cell_len)[0]
    assert narrow.startswith("a" * 12)  # too narrow for the fixed columns: longer, never cut


def test_a_name_two_actors_sign_with_is_told_apart_by_their_actor_ids():
    alice, impostor, bob = (_item("a", actor="c"), _item("b", actor="d", name=" Alice\t"),
                            _item("e", name="Bob", actor="f"))
    lines = log.lines([alice, impostor, bob], False)
    assert lines[0].startswith(f"{'a' * 12} 2026-12-01 Alice ({'c' * 12}) decision ")
    assert lines[1].startswith(f"{'b' * 12} 2026-12-01 Alice ({'d' * 12}) decision ")
    assert lines[2].startswith(f"{'e' * 12} 2026-12-01 Bob decision ")  # a name of its own: no tag
    assert log.lines([alice, _item("b", actor="c")], False)[1].startswith(f"{'b' * 12} 2026-12-01 Alice decision")
    for width in (72, 80):  # the actor is never cut
        narrow = log.lines([alice, impostor], False, width, cell_len)[1]
        assert cell_len(narrow) <= width and f" ({'d' * 12}) decision active qualified" in narrow


def test_fit_counts_terminal_cells_of_wide_characters():
    it = _item(name="世界世界", content="世界" * 100)
    line = log.lines([it], False, 80, cell_len)[0]
    assert 79 <= cell_len(line) <= 80 and line.endswith("\u2026")  # the one sign of a cut


def test_author_text_is_inert_in_human_lines():
    it = _item(name="Eve\u202e", content="\x1b[2J\tclear")
    line = log.lines([it], False)[0]
    assert "\x1b" not in line and "\u202e" not in line
    assert line.endswith("\ufffd[2J clear") and "Eve\\u{202e}" in line


def test_graph_lines_are_ascii_and_ordered():
    it = _item(relations=log.relations({"successors": ["sha256:" + "2" * 64],
                                        "retractions": [], "challengers": ["sha256:" + "1" * 64]},
                                       "sha256:" + "3" * 64))
    assert log.relation_lines(it) == ["    |- supersedes 333333333333", "    |- superseded by 222222222222",
                                      "    `- challenged by 111111111111"]
    doc = log.document([it])
    assert doc["memories"][0]["relations"][0] == {"type": "supersedes", "memoryId": "sha256:" + "3" * 64}


def test_inert_spells_out_bidi_marks_and_invisible_characters_but_keeps_joiners():
    """git-hn's views show what could hide a difference or reorder text; ZWJ/ZWNJ stay (emoji and
    several scripts need them)."""
    from git_hn.core.log import inert

    assert inert("a\u200eb\u200fc\u061cd") == "a\\u{200e}b\\u{200f}c\\u{61c}d"
    assert inert("pay\u200bpal\u2060x\ufeff") == "pay\\u{200b}pal\\u{2060}x\\u{feff}"
    assert inert("\u202eevil\u2066") == "\\u{202e}evil\\u{2066}"
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    assert inert(family) == family and inert("\u0645\u200c\u0647") == "\u0645\u200c\u0647"
