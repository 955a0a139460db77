"""The credentials advice fits the remote's URL and what is configured (store.transport.
without_terminal; docs/decisions.md, f59). A team trial (S54): over HTTPS with a credential
helper (``store``) holding a wrong password, Git erased it after "Authentication failed", and
``git hn sync`` advised loading an ssh key and setting a credential helper, which was set. Real
repositories, a real smart-HTTP server (``git http-backend``) with HTTP Basic authentication."""

from __future__ import annotations

import json

from helpers import git, hn, make_repo


def _bob_over_http(tmp_path, bare_remote, http_backend):
    """A bare remote with Alice's published memory, served over HTTP with Basic auth, and Bob's
    clone whose ``origin`` is that URL."""
    bare = bare_remote()
    url = http_backend(bare, basic="u:pw")
    alice = make_repo(tmp_path / "alice")
    git(alice, "remote", "add", "origin", str(bare))
    git(alice, "push", "-q", "origin", "main")
    assert hn(alice, "init", "--name", "Alice").code == 0
    assert hn(alice, "memory", "record", "--kind", "decision", "--at", "HEAD", "--applies", "descendants",
              "--content", "over http").code == 0
    assert hn(alice, "sync").code == 0
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    git(bob, "remote", "set-url", "origin", url)
    assert hn(bob, "init", "--name", "Bob").code == 0
    return bob, url


def test_a_wrong_password_in_a_credential_helper_is_advised_a_fetch_at_a_terminal(tmp_path, bare_remote,
                                                                                   http_backend):
    bob, url = _bob_over_http(tmp_path, bare_remote, http_backend)
    store = tmp_path / "credentials"
    store.write_text(f"http://u:wrong@{url.split('/')[2]}\n")
    git(bob, "config", "credential.helper", f"store --file={store}")
    fix = "run git fetch origin once at a terminal so your credential helper saves the password, then git hn sync origin"
    first = hn(bob, "sync")  # (Git erases the stored password the server refused)
    assert first.code == 1 and first.err.rstrip("\n").endswith(
        f"the remote refused the credentials given; {fix}"), first.err
    again = hn(bob, "sync")
    assert again.code == 1 and again.err.rstrip("\n").endswith(
        f"the remote needs credentials and none were given; {fix}"), again.err
    assert "ssh" not in first.err + again.err and "wrong" not in first.err + again.err
    assert json.loads(hn(bob, "sync", "--json").out)["error"].endswith(fix)


def test_without_a_credential_helper_https_is_advised_one_and_no_ssh_key(tmp_path, bare_remote, http_backend):
    bob, _url = _bob_over_http(tmp_path, bare_remote, http_backend)
    r = hn(bob, "sync")
    assert r.code == 1 and r.err.rstrip("\n").endswith(
        "the remote needs credentials and none were given; give Git the credentials without a prompt: set a "
        "credential helper (git config --global credential.helper cache) and run git fetch origin once at a "
        "terminal so it saves the password, then git hn sync origin"), r.err
    assert "ssh" not in r.err
