"""The batch readers' questions are written as one join (``reader.object_names``, f134): the
same bytes as each name's ``object_name`` after its verb, and the same refusal of a name holding
a newline or a carriage return (it would desynchronise the protocol: an injected question)."""

import pytest

from git_hn.errors import GitError
from git_hn.store.reader import object_name, object_names


@pytest.mark.parametrize("verb", ["", "contents ", "info "])
def test_joined_names_are_the_bytes_of_each_name_asked_alone(verb):
    names = ["a" * 40, "HEAD:a b.txt", "HEAD:caf\u00e9", "x\udcff", "b" * 64 + "~1:memory.json", "", "  "]
    for some in (names, names[:1], [], names * 50):
        assert object_names(some, verb) == b"".join(verb.encode() + object_name(n) for n in some)


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "\n", "tail\n"])
def test_a_name_holding_a_line_break_is_refused_as_when_asked_alone(bad):
    """Attack: a name such as ``HEAD\\ncontents OTHER`` would ask a second question."""
    with pytest.raises(GitError, match="object name contains a newline"):
        object_names(["a" * 40, bad, "b" * 40], "contents ")
    with pytest.raises(GitError, match="object name contains a newline"):
        object_names([bad])
