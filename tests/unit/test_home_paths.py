"""A local URL that starts with ``~`` names a home directory's path, as Git's ``enter_repo``
expands it, wherever the asking process runs (f168): the path git-hn checks for permissions
(``transport.local_path``) and the repository a pushed-to URL is compared by
(``remote_urls.repository_key``)."""

from __future__ import annotations

import os
from pathlib import Path

from git_hn.service.remote_urls import repository_key, same_repository
from git_hn.store.transport import local_path


def test_local_path_expands_a_home_directory_and_names_none_for_a_user_there_is_not():
    home = os.environ["HOME"]
    assert local_path("~/team.git") == os.path.join(home, "team.git")
    assert local_path("../team.git") == "../team.git"  # (relative as given: the caller joins it)
    # Git finds no repository at a ~user with no such user, and looks in no directory
    assert local_path("~no-such-user-f168/team.git") == ""


def test_a_home_directory_url_is_the_repository_at_its_absolute_path(tmp_path, monkeypatch):
    home = Path(os.environ["HOME"])
    (home / "team.git" / "objects").mkdir(parents=True)
    (home / "team.git" / "HEAD").write_text("ref: refs/heads/main\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # (the pre-push hook runs at the top of the working tree)
    assert same_repository(repository_key("~/team.git"), repository_key(str(home / "team.git")))
    assert same_repository(repository_key("~/team"), repository_key(str(home / "team.git")))  # (Git's suffixes)
    assert not same_repository(repository_key("~/team.git"), repository_key(str(elsewhere / "~" / "team.git")))
