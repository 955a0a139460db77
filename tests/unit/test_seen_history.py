"""``seen.seen_history``: what a chain that does not descend from the accepted head is (§11(a)
calls each an equivocation): the author's two histories, or the remote's rollback or rewrite."""

from __future__ import annotations

from git_hn.service.replication.seen import seen_history

ACCEPTED = {1: "sha256:" + "a" * 64, 2: "sha256:" + "b" * 64}


def test_another_memory_at_a_common_sequence_is_the_authors_two_histories():
    assert seen_history("origin", ACCEPTED, 2, [ACCEPTED[1], "sha256:" + "c" * 64]) == (
        "diverged", "its author signed two histories (another memory at sequence 2)")


def test_an_earlier_prefix_is_a_rollback_by_the_remote():
    assert seen_history("origin", {1: ACCEPTED[1]}, 2, [ACCEPTED[1]]) == (
        "rolled-back", "origin rolled the stream back (to sequence 1 of 2), not its author")


def test_the_same_memories_in_other_commits_is_a_rewrite_by_the_remote():
    for longer in ([], ["sha256:" + "d" * 64]):
        assert seen_history("origin", ACCEPTED, 2, [ACCEPTED[1], ACCEPTED[2], *longer])[0] == "rewritten"


def test_an_accepted_chain_that_cannot_say_says_nothing():
    assert seen_history("origin", {}, 2, [ACCEPTED[1]]) == ("", "")
    assert seen_history("origin", {}, 0, [ACCEPTED[1]]) == ("", "")
