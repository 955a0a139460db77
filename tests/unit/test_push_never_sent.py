"""Which failed pushes never reached the remote (``push_refused.never_sent``): their offers are
settled at once; any other failure keeps them (the server may have taken the push). Only Git's
and ssh's own lines count: a server's text is its to choose."""

from __future__ import annotations

import pytest

from git_hn.service.replication.push_refused import never_sent as _never_sent


@pytest.mark.parametrize("stderr", [
    # an HTTPS host's refusal of the credentials: its "remote:" body, then Git's own line
    "remote: Invalid username or token. Password authentication is not supported.\n"
    "fatal: Authentication failed for 'https://example.com/team/repo.git/'\n",
    "remote: Repository not found.\nfatal: repository 'https://example.com/team/repo.git/' not found\n",
    "fatal: unable to access 'https://example.com/r.git/': Could not resolve host: example.com\n",
    "ssh: Could not resolve hostname example: Name or service not known\n"
    "fatal: Could not read from remote repository.\n",
    "git@example.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n",
    "Host key verification failed.\nfatal: Could not read from remote repository.\n",
])
def test_git_and_ssh_saying_it_never_left(stderr):
    assert _never_sent(stderr.encode())


@pytest.mark.parametrize("stderr", [
    # a CI hook on the server (reference-transaction output is not multiplexed) after it took the push
    "curl: (6) Could not resolve host: ci.internal\nfatal: the remote end hung up unexpectedly\n",
    "remote: fatal: Could not resolve host: ci.internal\nfatal: the remote end hung up unexpectedly\n",
    "fatal: remote error: could not resolve host\n",
    "fatal: the remote end hung up unexpectedly\n",
    "",
])
def test_anything_else_may_have_been_taken(stderr):
    assert not _never_sent(stderr.encode())
