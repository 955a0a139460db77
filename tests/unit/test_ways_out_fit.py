"""Every way out ``store.transport`` gives a remote that could not be reached or refused fits the
200 characters the sync's stderr line keeps of one (``WAY_MAX``, ``outcomes.failure_pointer``),
whatever the remote's name (f165: the HTTPS credentials advice was 206 characters for ``origin``,
233 with a credential helper set, and the line gave no way out at all). Each reason git-hn has fixed
words for, each kind of URL, a fetch and a push, with and without a credential helper (asked of a
real repository's configuration), and the ssh variables the ssh advice reads."""

from __future__ import annotations

import pytest

from git_hn.store import transport
from git_hn.store.git import Git
from helpers import git

# every reason ``known_reason`` and the advertisement can give, and none
REASONS = sorted({said for _found, said in transport._UNREACHABLE}
                 | {transport.CONNECTION_LOST, transport.UNREADABLE_PATH, ""})
URLS = {"https": "https://example.invalid/team.git", "http": "http://example.invalid/team.git",
        "ssh": "ssh://example.invalid/team.git", "scp": "example.invalid:team.git", "git": "git://example.invalid/team",
        "path": "/srv/team.git", "file": "file:///srv/team.git", "unknown": ""}
SSH_VARIABLES = ({}, {"SSH_AUTH_SOCK": "/tmp/agent.sock"}, {"DISPLAY": ":0"},
                 {"DISPLAY": ":0", "SSH_AUTH_SOCK": "/tmp/agent.sock"})
# Git takes long remote names (CONTRACT §3.2: 128 characters); the ways were worded for "origin"
NAMES = ("origin", "a-remote-whose-name-takes-sixty-characters-of-the-sync-line0", "r" * 128)


def _said(reason: str, kind: str) -> bool:
    """Whether the way out was given before f165 (each way is still given where it was, and only
    there): ``without_terminal`` for a prompt that could not be shown, credentials an HTTP(S) server
    refused and access an ssh remote refused; ``refused_way`` always."""
    ssh = kind in ("ssh", "scp") or reason == transport.NO_PASSPHRASE
    return (reason in (transport.NO_CREDENTIALS, transport.NO_PASSPHRASE)
            or (reason == transport.CREDENTIALS_REFUSED and kind in ("https", "http"))
            or (reason == transport.ACCESS_REFUSED and ssh))


@pytest.fixture(params=[False, True], ids=["no-helper", "helper"])
def asked(request, tmp_path):
    """(a ``Git`` of a real repository, whether a credential helper is set in it)."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    if request.param:
        git(repo, "config", "credential.helper", "cache")
    return Git(str(repo)), request.param


@pytest.mark.parametrize("variables", SSH_VARIABLES, ids=lambda v: "+".join(v) or "none")
def test_every_way_out_fits_the_sync_line_for_any_remote_name(asked, variables, monkeypatch):
    runner, _helper = asked
    for name in ("SSH_AUTH_SOCK", "DISPLAY", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    seen = 0
    for remote in NAMES:
        for reason in REASONS:
            for kind, url in URLS.items():
                for push in (False, True):
                    way = transport.without_terminal(reason, remote, url, runner, push)
                    assert len(way) <= transport.WAY_MAX, (remote, reason, kind, push, way)
                    assert bool(way) == _said(reason, kind), (remote, reason, kind, push, way)
                    refused = transport.refused_way(reason, remote, url, runner, push)
                    assert refused and len(refused) <= transport.WAY_MAX, (remote, reason, kind, push, refused)
                    for said in (way, refused):  # (the remote named, or "that remote" beside its name)
                        assert not said or remote in said or "that remote" in said, said
                    seen += 1
    assert seen == len(NAMES) * len(REASONS) * len(URLS) * 2


def test_a_way_that_fits_names_the_remote_in_its_command():
    """The fallback only past the bound: for ``origin`` each way ends with its pasteable sync."""
    for way in (transport.without_terminal(transport.NO_CREDENTIALS, "origin", URLS["https"]),
                transport.without_terminal(transport.NO_CREDENTIALS, "origin", ""),
                transport.refused_way(transport.ACCESS_REFUSED, "origin", URLS["git"])):
        assert way.endswith(", then git hn sync origin"), way
    long = "r" * 128
    assert transport.without_terminal(transport.NO_CREDENTIALS, long, "").endswith(transport.SYNC_IT_AGAIN)
