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


def test_a_name_with_quotes_stays_inside_its_own_quotes_and_the_command_has_the_full_id():
    """A review: a name's own quotes posed as a second author with a fake ID (``"Bob "the
    builder" (000000000000) and "Mallory"``), and the command's short ID was taken as a name by
    ``policy trust`` (another actor had chosen it as its name)."""
    from git_hn.core.hints import named_authors

    actor = "b75d2c9f4993" + "6" * 52
    line = named_authors("1 memory", "see it with --include-untrusted", "its",
                         {actor: 'B" (000000000000) and "M\\'})
    assert line.startswith('1 memory hidden by the trust policy, signed by b75d2c9f4993 ("B\\" (000000000000) and '
                           '\\"M\\\\", a self-chosen name); '), line
    assert line.endswith(f"trust its author with git hn policy trust {actor}"), line
