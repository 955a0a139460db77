"""recall's hint for memories left out as not applying (``core.hints.not_applying``) where only
git-hn's ``hn-anchor/*`` keep branches hold some anchors (a review: it said "no branch, tag or
remote-tracking ref here" of them). Pure text; the walk that finds them is tested in
tests/integration/test_squash_left_out.py."""

from __future__ import annotations

from git_hn.core.hints import not_applying

MINE = "sha256:" + "a" * 64


def test_all_of_the_others_held_by_a_keep_branch_are_said_so():
    text = not_applying(3, MINE, on_ref=("feat", 1), kept=("origin/hn-anchor/0123456789ab", 2))
    assert text.startswith("3 matching memories do not apply at this commit and were left out: 2 have their anchor "
                           "commits held here only by git-hn's keep branches, such as origin/hn-anchor/0123456789ab "
                           "(a squash merge or a rebase?); "), text
    assert "no branch" not in text


def test_some_held_by_a_keep_branch_are_counted_apart():
    text = not_applying(4, MINE, on_ref=("feat", 1), kept=("hn-anchor/x", 1))
    assert ("3 have their anchor commits on no branch, tag or remote-tracking ref here save git-hn's keep branches, "
            "such as hn-anchor/x, which hold 1 of them (a squash merge or a rebase?); ") in text, text


def test_a_hostile_keep_branch_name_is_one_shell_word():
    text = not_applying(2, MINE, on_ref=("feat", 1), kept=("origin/hn-anchor/$(touch x)", 1))
    assert "keep branch 'origin/hn-anchor/$(touch x)' (" in text, text


def test_without_a_keep_branch_the_words_are_as_before():
    text = not_applying(2, MINE, on_ref=("feat", 1))
    assert "1 has its anchor commit on no branch, tag or remote-tracking ref here (a squash merge or a rebase?)" in text


def test_a_left_out_memory_that_is_not_active_is_named_by_its_own_lifecycle():
    """F93 (review S89, finding 9): every lifecycle but active read "superseded or retracted".
    Each is said as it is; one whose superseded target is missing is not called settled."""
    one = {life: not_applying(1, settled=(MINE, life)) for life in ("branching", "dependency-missing")}
    assert one["branching"].endswith("it is branching: superseded more than once, so not to be recorded again or "
                                     "cited: git hn memory show aaaaaaaaaaaa names its latest successor"), one
    assert one["dependency-missing"].endswith("it is dependency-missing, the memory it supersedes not being here: git "
                                              "hn memory show aaaaaaaaaaaa names it"), one
    assert "superseded or retracted" not in "".join(one.values())
