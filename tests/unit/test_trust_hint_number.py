"""``core.hints.trust_hidden``'s words agree in number with the count (a trial: "1 memory hidden
by the trust policy; …, or trust their authors"), pure."""

from __future__ import annotations

from git_hn.core.hints import trust_hidden


def test_one_hidden_memory_is_its_authors_or_its_kinds():
    assert trust_hidden({"actor-untrusted": 1}) == (
        "1 memory hidden by the trust policy; see it with --include-untrusted, or trust its author with "
        "git hn policy trust ACTOR")
    assert trust_hidden({"kind-untrusted": 1}).endswith(", or trust its kind with git hn policy trust --kind KIND")


def test_several_hidden_memories_are_their_authors_or_their_kinds():
    assert trust_hidden({"actor-untrusted": 2}) == (
        "2 memories hidden by the trust policy; see them with --include-untrusted, or trust their authors with "
        "git hn policy trust ACTOR")
    assert trust_hidden({"kind-untrusted": 3}).endswith(", or trust their kinds with git hn policy trust --kind KIND")
    assert trust_hidden({"actor-untrusted": 1, "kind-untrusted": 1}).endswith(
        ", or trust their authors or kinds with git hn policy trust ACTOR|--kind KIND")
