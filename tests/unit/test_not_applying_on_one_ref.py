"""Recall's hint on matching memories left out because a ref not merged here holds their anchor
(``hints.not_applying``'s ``on_ref``, f175, a newcomer trial): all on one commit, or all on one
ref, is said plainly, with the recall that lists them; "refs ... such as" only for several refs."""

from __future__ import annotations

from git_hn.core.hints import not_applying


def test_one_commit_one_ref_several_refs():
    assert not_applying(1, on_ref=("origin/feature/x", 1, "commit")) == (
        "1 matching memory does not apply at this commit and was left out: its anchor commit is on "
        "origin/feature/x, not merged here: git hn memory recall --at origin/feature/x lists it there")
    assert not_applying(3, on_ref=("origin/feature/x", 3, "commit")) == (
        "3 matching memories do not apply at this commit and were left out: their anchor commit is on "
        "origin/feature/x, not merged here: git hn memory recall --at origin/feature/x lists them there")
    assert not_applying(3, on_ref=("origin/feature/x", 3, "ref")) == (
        "3 matching memories do not apply at this commit and were left out: their anchor commits are on "
        "origin/feature/x, not merged here: git hn memory recall --at origin/feature/x lists them there")
    assert not_applying(3, on_ref=("origin/feature/x", 3, "refs")) == (
        "3 matching memories do not apply at this commit and were left out: their anchor commits are on refs not "
        "merged here, such as origin/feature/x: git hn memory recall --at origin/feature/x lists what applies there")
    # (MCP: the tool's words; a ref that is not a plain word is an escaped code span)
    assert "their anchor commit is on origin/f, not merged here: memory_recall with atCommit origin/f lists them " \
        "there" in not_applying(2, on_ref=("origin/f", 2, "commit"), mcp=True)
