"""The checks every record, recall, show and brief makes are written without ``re`` (issue 11,
fixed cost): importing it and ``enum`` costs ~13 M instructions (a record was 130.6 M in all; the
``functools`` and ``collections`` it loads come with the state's ``_sqlite3`` anyway). Each hand-written check answers as the regular
expression it replaced, which stays the reference here (property tests over the characters that
matter), and a fresh interpreter that loads the hot modules and runs the checks on ordinary text
has not loaded ``re``."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from git_hn.core import gostr, grammar, secretlint, strictjson

# the characters the replaced patterns tell apart, and a few others
_NEAR = "0123456789abcdefABCDEFgxzAPsha:256_-+/='\"` \t\n\x00\x1f\x7f\x85\x9f\u00a0\u200b\U0001f600é"
TEXT = st.text(alphabet=st.sampled_from(_NEAR), max_size=80)
ASCII_TEXT = st.text(alphabet=st.characters(max_codepoint=127), max_size=80)
MIXED = st.one_of(TEXT, ASCII_TEXT, st.text(max_size=40))


@settings(max_examples=400)
@given(MIXED)
def test_the_control_checks_answer_as_their_patterns(s):
    assert gostr.has_control(s) == (re.search("[\u0000-\u001f\u007f-\u009f]", s) is not None)
    assert gostr.one_line(s) == re.sub("[\u0000-\u001f\u007f-\u009f]", " ", s)
    assert gostr.safe_text(s) == re.sub("[\u0000-\u0008\u000b-\u001f\u007f-\u009f]", "\ufffd", s)


@settings(max_examples=400)
@given(st.one_of(TEXT, ASCII_TEXT))
def test_ascii_tokens_are_the_runs_of_letters_and_digits(s):
    if s.isascii():
        assert gostr.token_sequence(s) == re.findall("[A-Za-z0-9]+", s.lower())


@settings(max_examples=400)
@given(st.one_of(TEXT, st.text(alphabet="0123456789abcdefABCDEF:sha256g", min_size=38, max_size=72),
                 st.builds(lambda h: "sha256:" + h, st.text(alphabet="0123456789abcdefA", min_size=63,
                                                            max_size=65))))
def test_the_identifier_checks_answer_as_their_patterns(s):
    assert grammar.is_actor(s) == (re.fullmatch(r"[0-9a-f]{64}", s) is not None)
    assert grammar.is_oid(s) == (re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", s) is not None)
    assert grammar.is_digest_id(s) == (re.fullmatch(r"sha256:[0-9a-f]{64}", s) is not None)
    assert gostr.is_lower_hex(s) == (re.fullmatch(r"[0-9a-f]+", s) is not None)
    for n in (8, 40, 64):
        assert gostr.is_lower_hex(s, n) == (re.fullmatch(r"[0-9a-f]{%d}" % n, s) is not None)
    from git_hn.service.show import _query_hex

    assert _query_hex(s) == (re.fullmatch(r"[0-9a-f]{8,64}", s) is not None)


@settings(max_examples=400)
@given(st.text(alphabet=st.sampled_from("az09-_.A é"), max_size=12), st.integers(min_value=0, max_value=12))
def test_the_topic_check_answers_as_its_pattern(s, max_bytes):
    assert grammar.is_token(s, max_bytes) == (
        0 < len(s) <= max_bytes and re.fullmatch(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?", s) is not None)


def test_the_identifier_checks_on_their_edges():
    h = "0123456789abcdef" * 4
    assert grammar.is_actor(h) and not grammar.is_actor(h[:-1]) and not grammar.is_actor(h + "0")
    assert not grammar.is_actor(h[:-1] + "A") and not grammar.is_actor(h[:-1] + "\n")
    assert grammar.is_oid(h[:40]) and grammar.is_oid(h) and not grammar.is_oid(h[:41]) and not grammar.is_oid("")
    assert grammar.is_digest_id("sha256:" + h) and not grammar.is_digest_id("sha256:" + h[:63])
    assert not grammar.is_digest_id("SHA256:" + h) and not grammar.is_digest_id(h)
    assert not any(f(None) or f(7) for f in (grammar.is_actor, grammar.is_oid, grammar.is_digest_id))
    assert not gostr.is_lower_hex("") and gostr.is_lower_hex("0") and not gostr.is_lower_hex("0", 2)


GATE = st.text(alphabet=st.sampled_from("aZ09_-+/='\":AP8F. xG"), max_size=60)


@settings(max_examples=600)
@given(st.one_of(GATE, ASCII_TEXT))
def test_the_library_gate_s_checks_answer_as_their_patterns(s):
    assert secretlint._has_run(s) == (re.search(secretlint._GATE_RUN, s, re.A) is not None)
    assert secretlint._has_quoted(s) == (re.search(secretlint._GATE_QUOTED, s, re.A) is not None)
    assert secretlint._has_telegram(s) == (re.search(secretlint._GATE_TELEGRAM, s, re.A) is not None)
    assert secretlint._has_artifactory(s) == (re.search(secretlint._GATE_ARTIFACTORY, s, re.A) is not None)


def test_the_library_gate_s_checks_on_their_edges():
    assert secretlint._has_run("x" * 24) and not secretlint._has_run("x" * 23 + " " + "x")
    assert secretlint._has_quoted("'abcdefghi'") and not secretlint._has_quoted("'abcdefgh'")
    assert secretlint._has_quoted("\"a+b/c=d_e\"") and not secretlint._has_quoted("'abcde fghij'")
    assert secretlint._has_quoted("x'abcdefghi\"y") and not secretlint._has_quoted("'abcdefghi")
    assert secretlint._has_telegram("12345678:") and not secretlint._has_telegram("1234567:")
    assert secretlint._has_artifactory("xAPF") and not secretlint._has_artifactory("AP") \
        and not secretlint._has_artifactory("APG")


@settings(max_examples=300)
@given(st.text(alphabet='[]{}"\\ a', max_size=40), st.integers(min_value=0, max_value=6))
def test_the_nesting_check_answers_as_before(text, depth):
    data = text.encode()
    brackets = re.sub(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', b"", data, flags=re.S).translate(None, b"x")
    level, deepest = 0, 0
    for b in brackets:
        if b in b"[{":
            level += 1
            deepest = max(deepest, level)
        elif b in b"]}":
            level -= 1
    assert strictjson.nesting_within(data, depth) == (deepest <= depth)


def test_the_longest_backtick_run():
    from git_hn.core.brief import _longest_backticks

    for text in ("", "plain", "`", "a ``` b `` c", "````"):
        assert _longest_backticks(text) == max((len(m) for m in re.findall("`+", text)), default=0)


PROBE = """
import sys
from git_hn.core import chain, gostr, grammar, invisible, secretlint, strictjson
from git_hn.service import show
from git_hn.store import append, repo, replication, resolver
h = "ab" * 32
assert grammar.is_actor(h) and grammar.is_oid(h[:40]) and grammar.is_digest_id("sha256:" + h)
assert show.is_query(h[:12]) and not gostr.has_control("a topic")
assert grammar.is_token("cache-key", 64) and grammar.normalize_topic(" Perf ") == "perf"
assert gostr.one_line("one\\nline") == "one line" and gostr.safe_text("a\\x00") == "a\\ufffd"
assert gostr.tokens("The cache, keyed by path: 2 hits") == ["2", "by", "cache", "hits", "keyed", "path", "the"]
prose = "The cache holds the path's SHA; don't flush it: see ADR 12 at 10:30 (APPROVED)."
assert secretlint.first_in_text(prose, lambda t: ()) is None and secretlint.library_gate(prose) is False
assert strictjson.nesting_within(b'{"a": [1, {"b": "[[["}]}', 64)
print(sorted(m for m in ("re", "enum") if m in sys.modules))
"""


def test_ordinary_text_is_checked_without_loading_re():
    """The hot modules imported, and their checks run on ordinary prose and identifiers: neither
    ``re`` nor ``enum`` is loaded (``-S``: the development install's import hook loads ``re``
    itself)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import site

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *site.getsitepackages()]))
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stdout.strip() == "[]"
