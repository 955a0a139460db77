"""``core.remotes`` and ``store.transport`` answer without ``re`` exactly as the regular
expressions they replaced did (issue 11: the fetch hook asks the remote before it loads ``re``).
The expressions are kept here as the oracle, over chosen edge cases and random strings."""

from __future__ import annotations

import base64
import random
import re

import pytest

from git_hn.core import grammar, selection
from git_hn.core.remotes import is_remote_name, refspec_star, selection_file_name
from git_hn.store import transport

REMOTE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")
NAME = re.compile(r"[a-z][a-z0-9-]*")


def oracle_remote(s: str, memory: bool = True) -> bool:
    if REMOTE.fullmatch(s) is None or s.endswith(".") or ".." in s:
        return False
    return not (memory and s.endswith(".lock"))


def oracle_allowed(url: str) -> bool:
    if not url or "\n" in url or "\x00" in url:
        return False
    if HELPER.match(url):
        return False
    m = SCHEME.match(url)
    if m:
        return m.group(1).lower() in ("file", "git", "http", "https", "ssh")
    return "://" not in url


def oracle_local(url: str) -> bool:
    m = SCHEME.match(url)
    if m:
        return m.group(1).lower() == "file"
    colon, slash = url.find(":"), url.find("/")
    return colon < 0 or 0 <= slash < colon


ALPHABET = "aZ09_.-+:/@ \n\x00é٣ﬁK" + "lock"
EDGES = ["", "a", "_", ".", "-a", "a.", "a..b", "a.lock", "A.LOCK", "x" * 128, "x" * 129, "origin",
         "up-stream_2.x", "é", "٣", "a\n", "a b", "ext::sh -c x", "EXT::x", "a::b", "1ab::x", "::x",
         "ssh://h/r", "SSH://h/r", "git+ssh://h/r", "file:///tmp/r", "File://x", "https://h/r",
         "ftp://h/r", "h:path", "user@h:path", "/abs/path", "./rel:x", "C:/x", "a:b://c",
         "ssh://host::x", "://x", "1http://x", "http:/x", "ht tp://x", "http//x", "k\x00"]


def _random(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12)))


@pytest.mark.parametrize("s", EDGES)
def test_edge_cases_agree_with_the_expressions(s):
    assert is_remote_name(s) == oracle_remote(s)
    assert is_remote_name(s, memory=False) == oracle_remote(s, memory=False)
    assert transport.transport_allowed(s) == oracle_allowed(s)
    assert transport.is_local(s) == oracle_local(s)


def test_random_strings_agree_with_the_expressions():
    rng = random.Random(20261203)
    for _ in range(20000):
        s = _random(rng)
        assert is_remote_name(s) == oracle_remote(s), s
        assert is_remote_name(s, memory=False) == oracle_remote(s, memory=False), s
        assert transport.transport_allowed(s) == oracle_allowed(s), s
        assert transport.is_local(s) == oracle_local(s), s
        name = s.lower()
        assert transport._is_key_name(name) == (NAME.fullmatch(name) is not None), name


def test_non_text_is_not_a_remote_name():
    assert not is_remote_name(None)  # type: ignore[arg-type]
    assert not is_remote_name(b"origin")  # type: ignore[arg-type]


def test_the_selection_file_name_is_unpadded_url_safe_base64():
    rng = random.Random(7)
    for s in ["origin", "a", "ab", "abc", "up-stream_2.x", "~?>", "é٣"] + [_random(rng) for _ in range(2000)]:
        want = base64.urlsafe_b64encode(s.encode("utf-8")).decode("ascii").rstrip("=") + ".json"
        assert selection_file_name(s) == want


def test_grammar_and_selection_re_export_the_same_names():
    assert grammar.is_remote_name is is_remote_name
    assert selection.file_name is selection_file_name
    assert grammar.REMOTES_PREFIX == "refs/hn/remotes/" and grammar.LOCAL_PREFIX == "refs/hn/memory/"


def test_the_transport_settings_keep_only_well_formed_key_names():
    listing = ("local\0http.proxy\nx\0local\0http.Bad_Name\ny\0local\0core.sshcommand\nssh -v\0"
               "global\0http.proxy\nz\0command\0credential.https://h.helper\nstore\0local\0http.9x\nq\0"
               "local\0http.sslverify\0").encode()
    assert transport.transport_settings(listing) == [
        ("http", None, "proxy", "x"), ("core", None, "sshcommand", "ssh -v"),
        ("credential", "https://h", "helper", "store"), ("http", None, "sslverify", None)]


@pytest.mark.parametrize("pattern, ref, star", [
    ("refs/heads/*", "refs/heads/main", "main"),
    ("refs/heads/*", "refs/heads/a/b", "a/b"),            # any characters, '/' included, as Git's
    ("refs/heads/*", "refs/heads/", ""),
    ("refs/heads/main", "refs/heads/main", ""),
    ("refs/heads/main", "refs/heads/mainline", None),
    ("refs/heads/fo*o", "refs/heads/foo", ""),
    ("refs/heads/fo*o", "refs/heads/fo", None),           # head and tail may not overlap
    ("refs/heads/*-wip", "refs/heads/x-wip", "x"),
    ("refs/heads/*/*", "refs/heads/a/b", None),           # two stars: never a match
    ("refs/tags/*", "refs/heads/main", None),
])
def test_refspec_star_says_what_the_star_stands_for(pattern, ref, star):
    assert refspec_star(pattern, ref) == star
