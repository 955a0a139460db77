"""The memory ref listing read in blocks (``streams._local_block`` for the user's own refs,
``streams._accepted_block`` for one remote's accepted copies) gives exactly what reading it line
by line gives (``streams._parse_lines``, sorted), errors included, for listings of valid and
damaged lines in any order.

Runs under the fixed "ci" hypothesis profile of tests/conftest.py (200 examples, derandomized).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_hn.errors import ValidationError
from git_hn.store import streams

HEX = "0123456789abcdef"
hex64 = st.text(HEX, min_size=64, max_size=64)


@st.composite
def line(draw) -> str:
    oid = draw(st.text(HEX, min_size=40, max_size=40) | st.text(HEX, min_size=64, max_size=64))
    kind = draw(st.sampled_from(["local", "local", "local", "accepted", "accepted", "other", "damaged",
                                 "damaged accepted"]))
    if kind == "local":
        return f"refs/hn/memory/{draw(hex64)}/{draw(hex64)} {oid}"
    if kind == "accepted":
        remote = draw(st.sampled_from(["origin", "origin", "up", "team-a", "cafe"]))
        return f"refs/hn/remotes/{remote}/memory/{draw(hex64)}/{draw(hex64)} {oid}"
    if kind == "other":
        return f"refs/hn/remotes/origin/actors/{draw(hex64)} {oid}"
    good = f"refs/hn/memory/{draw(hex64)}/{draw(hex64)} {oid}"
    if kind == "damaged accepted":
        good = f"refs/hn/remotes/origin/memory/{draw(hex64)}/{draw(hex64)} {oid}"
    at = draw(st.integers(0, len(good) - 1))
    return good[:at] + draw(st.sampled_from(["A", "g", " ", "/", "é", "", "0"])) + good[at + 1:]


def _slow(text: str):
    try:
        return sorted(streams._parse_lines(text), key=lambda s: s.ref)
    except ValidationError as exc:
        return exc.message


@given(st.lists(line(), max_size=12), st.booleans())
def test_the_block_reading_agrees_with_line_by_line(lines, in_git_order):
    if in_git_order:
        lines = sorted(lines, key=lambda s: s.split(" ")[0])
    text = "".join(f"{x}\n" for x in lines)
    expected = _slow(text)
    if isinstance(expected, str):
        with pytest.raises(ValidationError) as raised:
            streams._parse_listing(text)
        assert raised.value.message == expected
    else:
        assert streams._parse_listing(text) == expected


def test_a_uniform_block_is_read_as_one():
    lines = [f"refs/hn/memory/{'a' * 64}/{i:064x} {'b' * 40}" for i in range(50)]
    text = "".join(f"{x}\n" for x in lines) + f"refs/hn/remotes/origin/memory/{'c' * 64}/{'d' * 64} {'e' * 40}\n"
    block = streams._local_block("".join(f"{x}\n" for x in lines))
    assert block is not None and len(block) == 50
    assert block[7] == streams.Source(lines[7].split(" ")[0], "b" * 40, "a" * 64, f"sha256:{7:064x}")
    assert streams._parse_listing(text) == _slow(text)
    assert streams._local_block(lines[0] + "\n" + lines[1][:-1] + "\n") is None  # two widths


def test_one_remotes_uniform_block_is_read_as_one():
    lines = [f"refs/hn/remotes/team-a/memory/{'a' * 64}/{i:064x} {'b' * 64}" for i in range(50)]
    text = "".join(f"{x}\n" for x in lines)
    block = streams._accepted_block(text)
    assert block is not None and len(block) == 50
    assert block[7] == streams.Source(lines[7].split(" ")[0], "b" * 64, "a" * 64, f"sha256:{7:064x}", "team-a")
    assert streams._parse_listing(text) == _slow(text)
    two = text + f"refs/hn/remotes/up/memory/{'a' * 64}/{'c' * 64} {'b' * 64}\n"
    assert streams._accepted_block(two) is None  # two remotes: line by line
    assert streams._parse_listing(two) == _slow(two)
    other = text + f"refs/hn/remotes/team-a/actors/{'a' * 64} {'b' * 64}\n"
    assert streams._accepted_block(other) is None and streams._parse_listing(other) == _slow(other)


def test_a_listing_as_git_out_returns_it_is_read_in_blocks(monkeypatch):
    """``Git.out`` strips the listing's last newline: the blocks are still taken (a listing of
    only the user's own refs, or ending with one remote's, used to go line by line)."""
    local = "".join(f"refs/hn/memory/{'a' * 64}/{i:064x} {'b' * 40}\n" for i in range(20))
    accepted = "".join(f"refs/hn/remotes/origin/memory/{'c' * 64}/{i:064x} {'d' * 40}\n" for i in range(20))
    expected = {text: _slow(text) for text in (local, accepted, local + accepted)}

    def refuse(_text):
        raise AssertionError("read line by line")

    monkeypatch.setattr(streams, "_parse_lines", refuse)
    for text, want in expected.items():
        assert streams._parse_listing(text.rstrip("\n")) == want
        assert streams._parse_listing(text) == want
