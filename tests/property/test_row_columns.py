"""A memory's row columns computed the faster way (``store.rowcolumns``, f132: the size of a
content with nothing to escape from its length; ASCII tokens through ``gostr.token_sequence``'s
one byte table, pinned below against the letter-and-digit runs) equal the
columns as ``state.row_columns`` computed them before: the reference below is that function
verbatim but for names, run on the same records (any text: ASCII and not, control characters,
quotes, backslashes, HTML's ``<>&``, U+2028, astral characters; topics, evidence of every type,
anchor paths in any order).

Runs under the fixed "ci" hypothesis profile of tests/conftest.py (200 examples, derandomized).
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from git_hn.core import canonical
from git_hn.core.chain import VerifiedMemory
from git_hn.core.envelope import Anchor, Applicability, Envelope, PathAnchor, Record
from git_hn.core.gostr import token_sequence
from git_hn.core.grammar import utc_of_valid
from git_hn.store import rowcolumns
from git_hn.store.rowcolumns import FRESH_EVIDENCE, FRESH_LIFECYCLE


def _reference(m):
    """``state.row_columns`` before f132, verbatim but for names."""
    env = m.envelope
    rec = env.record
    anchor = rec.anchor
    listed = sorted(anchor.paths, key=lambda p: p.path.encode("utf-8")) if anchor.paths else ()
    evidence = sorted(set(rec.evidence or ()))
    topics = sorted(set(rec.topics or ()))
    paths = "".join([f"{p.path}\t{p.blob}\n" for p in listed])
    git = "\n".join([e[4:] for e in evidence if e.startswith("git:")])
    event = int(any(e.startswith("event:") for e in evidence))
    key = (anchor.commit, rec.applicability.mode, rec.applicability.subject, anchor.subject or "", paths, git, event)
    refs = [(e.split(":", 1)[0], e.split(":", 1)[1]) for e in evidence if e.startswith(("memory:", "event:"))]
    seq = token_sequence(rec.content + "\n" + "\n".join(topics))
    toks = sorted(set(seq))
    size = len(canonical.compact_plain(rec.content))
    cols = (m.memory_id, rec.kind, *FRESH_LIFECYCLE, env.timestamp, utc_of_valid(env.timestamp), size,
            FRESH_EVIDENCE, env.actor, env.stream, env.sequence, rec.attempt_outcome, "\n".join(["", *topics, ""]),
            "\n".join(["", *[p.path for p in listed], ""]), " " + " ".join(toks) + " ")
    return cols, key, refs, len(toks), seq


# every character class the fast paths decide on, ASCII weighted
ASCII = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=60)
ANY = st.text(max_size=40)
TEXT = st.one_of(ASCII, ANY, st.text(st.sampled_from("aZ9 _-\"\\<>&\n\t\x7f\x00é\u2028\U0001f600"), max_size=30))
WORD = st.text(st.sampled_from("abcXYZ019 é-"), min_size=1, max_size=8)
EVIDENCE = st.one_of(st.builds(lambda p, w: p + w, st.sampled_from(["memory:", "event:", "git:", "url:"]), WORD), WORD)
PATHS = st.lists(st.builds(PathAnchor, WORD, st.sampled_from(["a" * 40, "b" * 40])), max_size=4)


@st.composite
def memories(draw):
    record = Record(draw(st.sampled_from(["observation", "decision", "attempt"])), draw(TEXT),
                    Anchor("c" * 40, tuple(draw(PATHS)), draw(st.sampled_from(["", "sub"]))),
                    Applicability(draw(st.sampled_from(["descendants", "exact"])), draw(st.sampled_from(["", "x"]))),
                    draw(st.one_of(st.none(), st.lists(WORD, max_size=4).map(tuple))),
                    draw(st.one_of(st.none(), st.lists(EVIDENCE, max_size=5).map(tuple))),
                    draw(st.sampled_from(["", "failed"])))
    ts = draw(st.sampled_from(["2026-01-03T00:02:00Z", "2026-01-03T02:02:00+02:00"]))
    env = Envelope("hn-memory/v0", "record", "a" * 64, "", "", "b" * 64, draw(st.integers(1, 9)), ts, record=record)
    return VerifiedMemory("sha256:" + "d" * 64, "e" * 40, env, b"", "")


@given(memories())
def test_row_columns_equal_the_reference(m):
    assert rowcolumns.row_columns(m) == _reference(m)


@given(TEXT)
def test_the_ascii_token_sequence_is_the_letter_and_digit_runs(text):
    """(``gostr.token_sequence``'s byte table for ASCII text, which the rows' tokens use.)"""
    ascii_text = text.encode("ascii", "replace").decode("ascii")
    assert token_sequence(ascii_text) == re.findall("[a-z0-9]+", ascii_text.lower())


@given(TEXT)
def test_json_size_is_the_compact_length(text):
    assert rowcolumns.json_size(text) == len(canonical.compact_plain(text))


def test_json_size_with_the_fast_codec_loaded():
    """(orjson, once a bulk caller loaded it, is what ``compact_plain`` uses.)"""
    canonical.load_fast_codec()
    for text in ["plain words 123", 'a "quoted" <b> & \\ \x7f', "\u2028", "é\U0001f600", ""]:
        assert rowcolumns.json_size(text) == len(canonical.compact_plain(text))
