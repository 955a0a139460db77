"""``core.recall.fill``'s ``why`` (f162): the bounds a truncated page stopped at, which the terminal's
"More memories match" line names (a newcomer trial: a page of the default 20 records was told to
raise --max-content-bytes too, a bound it never reached). Pure: items and their sizes."""

from __future__ import annotations

import pytest

from git_hn.core import recall as core


def _why(items: list[int], **bounds) -> tuple[int, bool, list[str]]:
    why: list[str] = []
    page, more = core.fill(core.RecallRequest("c" * 40, **bounds), ((i, n) for i, n in enumerate(items)), why)
    return len(page), more, why


@pytest.mark.parametrize("items,bounds,expected", [
    ([10] * 5, {"max_records": 2}, (2, True, ["records"])),
    ([10] * 5, {"max_content_bytes": 25}, (2, True, ["content"])),
    ([10] * 5, {"max_records": 2, "max_content_bytes": 25}, (2, True, ["records", "content"])),
    ([10] * 5, {"max_records": 2, "max_content_bytes": 30}, (2, True, ["records"])),  # (a third would fit)
    ([10] * 5, {"max_bytes": 1100}, (2, True, ["bytes"])),  # (three need 3 × (10 + ROW_FLOOR))
    ([10] * 3, {"max_records": 3, "max_content_bytes": 30}, (3, False, [])),  # (nothing left: no bound stopped it)
])
def test_fill_says_which_bounds_stopped_the_page(items, bounds, expected):
    assert _why(items, **bounds) == expected


def test_fill_without_why_pages_as_before():
    req = core.RecallRequest("c" * 40, max_records=2)
    assert core.fill(req, ((i, 10) for i in range(5))) == ([0, 1], True)
