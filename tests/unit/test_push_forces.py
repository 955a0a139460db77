"""Which ``git push`` command lines force (push_removals._forces): Git runs pre-push also for an
update it then refuses as "fetch first", and only a forced one takes anything off."""

from __future__ import annotations

import pytest

from git_hn.service.push_removals import _forces


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
