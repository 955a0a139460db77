"""Which ``git push`` command lines force (push_removals._forces): Git runs pre-push also for an
update it then refuses as "fetch first", and only a forced one takes anything off."""

from __future__ import annotations

import pytest

from git_hn.service.push_removals import _forces, _unsure


@pytest.mark.parametrize("argv", [
    ["git", "push", "--force"], ["git", "push", "-f", "origin", "main"], ["git", "push", "-qf"],
    ["git", "push", "--forc"], ["git", "push", "--force-with-lease=main:abc"], ["git", "push", "--force-if-includes"],
    ["git", "push", "origin", "+main"], ["git", "push", "--mirror"], ["git", "push", "--mirr", "backup"],
    ["git", "push", "origin", "--", "+main:main"],
])
def test_a_forcing_command_line_forces(argv):
    assert _forces(argv)


@pytest.mark.parametrize("argv", [
    ["git", "push"], ["git", "push", "origin", "main"], ["git", "push", "-u", "origin", "feat"],
    ["git", "push", "-o", "-f", "origin"], ["git", "push", "-of", "origin"], ["git", "push", "--push-option", "+x"],
    ["git", "push", "--follow-tags"], ["git", "push", "--no-verify", "origin", "main:+x"],
    ["git", "-c", "a.b=-f", "push", "origin"],
])
def test_an_ordinary_command_line_does_not(argv):
    assert not _forces(argv)


@pytest.mark.parametrize("words, remote", [
    ("git push -o title=Fix -f flag origin main", "origin"), ("git push --push-option=x --force origin", "origin"),
    ("git push -qo x --mirror backup", "backup"), ("git -c x=y push origin", "origin"),
    ("git -C /a -f push origin", "origin"), ("/opt/My Git/git push -f origin", "origin"),
    ("git push /srv/a -f main", "/srv/a -f"), ("git push origin HEAD^{/fix -f}:main", "origin"),
])
def test_words_ps_split_at_blanks_that_may_be_an_option_s_value_are_unsure(words, remote):
    """ps(1) joins a command line's arguments with blanks: a review's ``-o "title=Fix -f flag"``
    read as ``-f`` and refused an ordinary push with a way out that forced it."""
    assert _unsure(words.split(), remote)


@pytest.mark.parametrize("words", ["git push origin main", "git push -f origin main", "git --no-pager push --mirror",
                                   "git push -u origin +feat"])
def test_a_plain_command_line_from_ps_is_read(words):
    assert not _unsure(words.split(), "origin")
