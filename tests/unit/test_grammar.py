"""CONTRACT §1.6 grammars, §1.8 timestamps, §3.1–§3.5 refs and remote names, §3.3 default stream."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_hn.core import grammar
from git_hn.core.grammar import (
    accepted_ref,
    default_stream,
    format_timestamp,
    is_actor,
    is_blob,
    is_digest_id,
    is_oid,
    is_path,
    is_remote_name,
    is_timestamp,
    is_token,
    is_topic,
    is_typed_evidence,
    is_typed_subject,
    local_ref,
    normalize_topic,
    parse_accepted_ref,
    parse_local_ref,
    quarantine_ref,
)

VECTORS = {v["name"]: v for v in json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "hn-memory-v0.json").read_text("utf-8"))}
ACTOR = "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
HEX = "f298f9e0f0a75b23be66e545312634172c9f0c207ebc99725c680aebe17ed5ce"
STREAM = "sha256:" + HEX
H64 = "0123456789abcdef" * 4
H40 = H64[:40]


# ---------------------------------------------------------------------------------------------
# §1.6


@pytest.mark.parametrize("s,ok", [
    (H64, True), (ACTOR, True), ("0" * 64, True),
    (H64.upper(), False), (H64[:63] + "A", False), (H64[:63], False), (H64 + "0", False),
    ("g" * 64, False), ("", False), ("sha256:" + H64, False), (H64 + "\n", False),
    (" " + H64[1:], False), (H64[:63] + "\u0660", False), (H40, False),
])
def test_actor_grammar(s, ok):
    assert is_actor(s) is ok


@pytest.mark.parametrize("s,ok", [
    (H40, True), (H64, True), ("0" * 40, True),
    (H40[:39], False), (H40 + "0", False), (H64[:63], False), (H64 + "0", False),
    (H40.upper(), False), ("A" * 40, False), ("g" * 40, False), ("", False), (H40 + "\n", False),
    ("sha256:" + H64, False), ("x" * 48, False), (H64[:50], False),
])
def test_oid_grammar(s, ok):
    assert is_oid(s) is ok


@pytest.mark.parametrize("s,ok", [
    ("sha256:" + H64, True),
    ("sha256:" + H64.upper(), False),          # uppercase hex
    ("SHA256:" + H64, False),                  # uppercase prefix
    ("Sha256:" + H64, False),
    (H64, False),                              # bare
    ("sha256:sha256:" + H64, False),           # double prefix
    ("sha256:" + H64[:63], False), ("sha256:" + H64 + "0", False), ("sha256:" + H40, False),
    ("sha256:", False), ("sha256 " + H64, False), ("sha1:" + H40, False), ("sha512:" + H64, False),
    ("sha256:" + H64 + "\n", False), (" sha256:" + H64, False), ("", False),
])
def test_digest_id_grammar(s, ok):
    assert is_digest_id(s) is ok


SUBJECT_TYPES = ["issue:", "proposal:", "event:", "policy:", "pipeline:", "run:"]


@pytest.mark.parametrize("prefix", SUBJECT_TYPES)
def test_typed_subject_valid(prefix):
    assert is_typed_subject(prefix + "sha256:" + H64)


@pytest.mark.parametrize("s", [
    "", "sha256:" + H64, "proposal:" + H64, "proposal:sha256:" + H64.upper(),
    "Proposal:sha256:" + H64, "PROPOSAL:sha256:" + H64, "memory:sha256:" + H64,
    "commit:sha256:" + H64, "git:" + H40, "proposal:sha256:sha256:" + H64, "proposal:",
    "proposal::sha256:" + H64, "proposal: sha256:" + H64, "proposal:sha256:" + H64 + "\n",
    "issue:proposal:sha256:" + H64, "proposal:sha256:" + H64[:63],
])
def test_typed_subject_invalid(s):
    assert not is_typed_subject(s)


@pytest.mark.parametrize("s", ["git:" + H40, "git:" + H64, "event:sha256:" + H64,
                               "memory:sha256:" + H64])
def test_typed_evidence_valid(s):
    assert is_typed_evidence(s)


@pytest.mark.parametrize("s", [
    "", "memory:" + H64, "event:" + H64, "proposal:sha256:" + H64, "issue:sha256:" + H64,
    "git:sha256:" + H64, "git:" + H40.upper(), "git:" + H40[:39], "GIT:" + H40,
    "Memory:sha256:" + H64, "memory:sha256:" + H64.upper(), "memory:sha256:sha256:" + H64,
    "sha256:" + H64, H40, "git:", "event:", "memory:", "git: " + H40, "event:sha256:" + H40,
    "memory:sha256:" + H64 + " ",
])
def test_typed_evidence_invalid(s):
    assert not is_typed_evidence(s)


@pytest.mark.parametrize("s", ["incorrect", "evidence-mismatch", "failed", "invalidated", "a",
                               "0", "a--b", "x-1", "123"])
def test_token_valid(s):
    assert is_token(s, 128)


@pytest.mark.parametrize("s", ["", "BAD value", "Evidence Mismatch", "-x", "x-", "-", "--",
                               "a b", "a_b", "a.b", "Failed", "é", "a\n", "\na", "ａ", "a\x00"])
def test_token_invalid(s):
    assert not is_token(s, 128)


def test_token_byte_limit():
    assert is_token("a" * 64, 64)
    assert not is_token("a" * 65, 64)
    assert is_token("a" * 128, 128)
    assert not is_token("a" * 129, 128)


@pytest.mark.parametrize("s", ["memory", "inner space", "a, b; c!", "σας", "σασ", "ß", "世界",
                               "a\u00a0b", "a\u200bb", "é" * 64, "a" * 128, "€" * 42 + "aa",
                               "\U00031350", "i"])
def test_normalized_topic_valid(s):
    assert is_topic(s)
    assert normalize_topic(s) == s


@pytest.mark.parametrize("s", ["", " ", "Memory", " memory", "memory ", "memory\n", "\u3000memory",
                               "memory\u0085", "a\x00b", "a\tb", "\x1c", "a\x1fb", "a\x7f",
                               "a\x9fb", "\u0130", "ΣΑΣ", "\u212a", "é" * 64 + "a", "a" * 129,
                               "a\udcff"])
def test_normalized_topic_invalid(s):
    assert not is_topic(s)


def test_normalize_topic_uses_go_semantics():
    assert normalize_topic("  Memory\u3000") == "memory"
    assert normalize_topic("\u0130stanbul") == "istanbul"
    assert normalize_topic("ΣΑΣ") == "σασ"          # no final-sigma rule
    assert normalize_topic("\x1cA\x1c") == "\x1ca\x1c"  # U+001C is not Go space
    assert normalize_topic("\u0085\u00a0X\u2029") == "x"


@pytest.mark.parametrize("s", ["README.md", "a", "a/b", "docs/README.md", ".a", "a/.b", "...",
                               "a/...", "..a", "a..", "a b", " a", "a ", "世界/ファイル", "a\u200b",
                               "a:b", "a*b", "-a", "é" * 2048, "a" * 4096])
def test_path_valid(s):
    assert is_path(s)


@pytest.mark.parametrize("s", [
    "", "../x", "docs/../README.md", "..", "a/..", "./a", "a/./b", ".", "a/.", "a//b", "a/",
    "/a", "/", "//a", "a\\b", "\\a", "a\\", "a\x00b", "a\nb", "a\tb", "a\rb", "\x1f",
    "a\x7fb", "a\x85b", "a\x9f", "é" * 2048 + "a", "a" * 4097, "a\udcff",
])
def test_path_invalid(s):
    assert not is_path(s)
    assert grammar.path_problem(s)  # (why, as a refusal says it after the path)


def test_path_problem_is_empty_exactly_for_a_valid_path():
    """``path_problem`` says why a path is no anchor path: never for a valid one, always for an
    invalid one (the refusal names the first invalid path and this reason)."""
    pytest.importorskip("hypothesis")
    from hypothesis import given, settings
    from hypothesis import strategies as st

    parts = st.sampled_from(["a", "b", ".", "..", "", "/", "\\", "\t", "\n", " ", "é", "\udcff", "\x85", "\u200b"])

    @settings(max_examples=400, derandomize=True)
    @given(st.lists(parts, max_size=8).map("".join))
    def check(s):
        assert (grammar.path_problem(s) == "") is is_path(s), s

    check()
    assert grammar.path_problem("a" * 4097) == "is 4097 bytes long (at most 4096)"


@pytest.mark.parametrize("s,ok", [("absent", True), (H40, True), (H64, True), ("Absent", False),
                                  ("ABSENT", False), ("", False), ("absent\n", False),
                                  (H40.upper(), False), ("missing", False)])
def test_blob_grammar(s, ok):
    assert is_blob(s) is ok


# ---------------------------------------------------------------------------------------------
# §1.8


@pytest.mark.parametrize("s", [
    "2026-08-30T12:34:56.123456789Z", "2026-08-30T12:34:56Z", "2026-08-30T12:34:56.1Z",
    "2026-08-30T14:34:56+02:00", "2026-08-30T12:34:56.5-05:30", "2026-08-30T12:34:56+23:59",
    "2026-08-30T12:34:56-23:59", "2026-08-30T12:34:56+00:01", "2026-08-30T12:34:56-00:01",
    "2000-02-29T00:00:00Z", "2024-02-29T23:59:59Z", "0000-02-29T00:00:00Z", "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00Z", "2026-12-31T00:00:00Z",
    "2026-01-31T00:00:00Z", "2026-04-30T00:00:00Z", "2026-08-30T12:34:56.000000001Z",
    "2026-08-30T12:34:56.12Z", "2026-08-30T12:34:56.00000001Z",
])
def test_timestamp_accepted(s):
    assert is_timestamp(s)


@pytest.mark.parametrize("s", [
    "2026-08-30T12:34:56.100Z", "2026-08-30T12:34:56.000000000Z", "2026-08-30T12:34:56.0Z",
    "2026-08-30T12:34:56.1234567891Z", "2026-08-30T12:34:56.1000000000Z",
    "2026-08-30T12:34:56,1Z", "2026-08-30T12:34:56.Z",
    "2026-08-30T12:34:56+00:00", "2026-08-30T12:34:56-00:00", "2026-08-30T12:34:56+24:00",
    "2026-08-30T12:34:56+00:60", "2026-08-30T12:34:56+0200", "2026-08-30T12:34:56+02",
    "2026-08-30T12:34:56+2:00", "2026-08-30t12:34:56Z", "2026-08-30T12:34:56z",
    "2026-08-30 12:34:56Z", "2026-08-30T12:34:60Z", "2026-08-30T24:00:00Z",
    "2026-08-30T12:60:00Z", "2026-08-30T12:34Z", "2026-08-30T12:34:56", "2026-08-30",
    "1900-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
    "2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2026-06-31T00:00:00Z",
    "2026-09-31T00:00:00Z", "2026-11-31T00:00:00Z", "2026-01-32T00:00:00Z",
    "2026-00-10T00:00:00Z", "2026-13-10T00:00:00Z", "2026-08-00T00:00:00Z",
    "10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "226-08-30T12:34:56Z",
    "2026-8-30T12:34:56Z", "2026-08-30T1:34:56Z", " 2026-08-30T12:34:56Z",
    "2026-08-30T12:34:56Z ", "2026-08-30T12:34:56Z\n", "２０２６-08-30T12:34:56Z",
    "2026-08-30T12:34:56.１Z", "2026-08-30T12:34:56\u0660Z", "2026-08-30T12:34:56UTC",
    "2026-08-30T12:34:56+02:00Z", "2026-08-30T12:34:56ZZ", "",
])
def test_timestamp_rejected(s):
    assert not is_timestamp(s)


def test_every_day_of_a_leap_and_a_common_year():
    import datetime

    for year in (2023, 2024, 2000, 1900):
        day = datetime.date(year, 1, 1)
        while day.year == year:
            assert is_timestamp(f"{day.isoformat()}T00:00:00Z"), day
            day += datetime.timedelta(days=1)
    assert not is_timestamp("1900-02-29T00:00:00Z")


@pytest.mark.parametrize("seconds,nanos,text", [
    (0, 0, "1970-01-01T00:00:00Z"),
    (1_788_093_296, 123_456_789, "2026-08-30T12:34:56.123456789Z"),
    (1_788_093_296, 0, "2026-08-30T12:34:56Z"),
    (1_788_093_296, 100_000_000, "2026-08-30T12:34:56.1Z"),
    (1_788_093_296, 120_000_000, "2026-08-30T12:34:56.12Z"),
    (1_788_093_296, 1, "2026-08-30T12:34:56.000000001Z"),
    (1_788_093_296, 999_999_999, "2026-08-30T12:34:56.999999999Z"),
    (951_782_400, 0, "2000-02-29T00:00:00Z"),
    (253_402_300_799, 0, "9999-12-31T23:59:59Z"),
])
def test_format_timestamp(seconds, nanos, text):
    assert format_timestamp(seconds, nanos) == text
    assert is_timestamp(text)


def test_format_timestamp_output_is_always_accepted():
    for nanos in (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
                  500_000_000, 123_000_000, 987_654_321, 10_000_001):
        out = format_timestamp(1_700_000_000, nanos)
        assert is_timestamp(out), out
        assert not out.endswith("0Z")


# ---------------------------------------------------------------------------------------------
# §3.1 / §3.5 refs


LOCAL = f"refs/hn/memory/{ACTOR}/{HEX}"
ACCEPTED = f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX}"


def test_ref_builders():
    assert local_ref(ACTOR, STREAM) == LOCAL
    assert accepted_ref("origin", ACTOR, STREAM) == ACCEPTED
    assert quarantine_ref(ACTOR, STREAM) == f"refs/hn/quarantine/memory/{ACTOR}/{HEX}"


def test_parse_local_ref():
    assert parse_local_ref(LOCAL) == (ACTOR, STREAM)
    assert parse_accepted_ref(LOCAL) is None


@pytest.mark.parametrize("remote", ["origin", "origin.v1", "up_stream-2", "_", "9", "a" * 128])
def test_parse_accepted_ref(remote):
    ref = accepted_ref(remote, ACTOR, STREAM)
    assert parse_accepted_ref(ref) == (remote, ACTOR, STREAM)
    assert parse_local_ref(ref) is None


HOSTILE_LOCAL = [
    f"refs/hn/memory/{ACTOR.upper()}/{HEX}",
    f"refs/hn/memory/{ACTOR}/{HEX.upper()}",
    f"refs/hn/memory/{ACTOR[:63]}/{HEX}",
    f"refs/hn/memory/{ACTOR}0/{HEX}",
    f"refs/hn/memory/{ACTOR}/{HEX[:63]}",
    f"refs/hn/memory/{ACTOR}/{HEX}0",
    f"refs/hn/memory/{ACTOR}/{HEX[:40]}",
    f"refs/hn/memory/{ACTOR}/{HEX}/x",
    f"refs/hn/memory/x/{ACTOR}/{HEX}",
    f"refs/hn/memory/{ACTOR}/{HEX}.lock",
    f"refs/hn/memory/{ACTOR}.lock/{HEX}",
    f"refs/hn/memory/{ACTOR}/{HEX}@{{1}}",
    f"refs/hn/memory/{ACTOR}/{HEX} ",
    f"refs/hn/memory/{ACTOR}/{HEX}\n",
    f"refs/hn/memory/{ACTOR}\n/{HEX}",
    f"refs/hn/memory/{ACTOR}/sha256:{HEX}",
    f"refs/hn/memory/{ACTOR}//{HEX}",
    f"refs/hn/memory/{ACTOR}/",
    f"refs/hn/memory/{ACTOR}",
    f"refs/hn/memory/{HEX}",
    f"refs/hn/memory//{ACTOR}/{HEX}",
    f"refs/nh/memory/{ACTOR}/{HEX}",
    f"refs/HN/memory/{ACTOR}/{HEX}",
    f"refs/hn/memories/{ACTOR}/{HEX}",
    f"refs/hn/quarantine/memory/{ACTOR}/{HEX}",
    f"refs/hn/actors/{ACTOR}/{HEX}",
    f" refs/hn/memory/{ACTOR}/{HEX}",
    f"refs/hn/memory/{ACTOR}/{HEX[:63]}\u0660",
    "",
]


@pytest.mark.parametrize("ref", HOSTILE_LOCAL)
def test_hostile_local_refs_do_not_parse(ref):
    assert parse_local_ref(ref) is None
    assert parse_accepted_ref(ref) is None


HOSTILE_ACCEPTED = [
    f"refs/hn/remotes/origin/memory/{ACTOR.upper()}/{HEX}",
    f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX.upper()}",
    f"refs/hn/remotes/origin/memory/{ACTOR[:63]}/{HEX}",
    f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX}0",
    f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX}/x",
    f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX}.lock",
    f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX}@{{1}}",
    f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX} ",
    f"refs/hn/remotes/origin/memory/{ACTOR}/{HEX}\n",
    f"refs/hn/remotes/origin.lock/memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/a/b/memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/../memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/./memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/a..b/memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/.origin/memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/-origin/memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/origin./memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/origin@{{1}}/memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/origin /memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes//memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/{'a' * 129}/memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/origin/Memory/{ACTOR}/{HEX}",
    f"refs/hn/remotes/origin/actors/{ACTOR}/{HEX}",
    f"refs/hn/remotes/origin/{ACTOR}/{HEX}",
    f"refs/hn/remotes/origin/memory/{ACTOR}",
    f"refs/hn/remotes/origin/memory/{ACTOR}/sha256:{HEX}",
    f"refs/hn/remotes/memory/{ACTOR}/{HEX}",
]


@pytest.mark.parametrize("ref", HOSTILE_ACCEPTED)
def test_hostile_accepted_refs_do_not_parse(ref):
    assert parse_accepted_ref(ref) is None
    assert parse_local_ref(ref) is None


# §3.2 remote names


@pytest.mark.parametrize("name", ["origin", "origin.v1", "up_stream-2", "_", "9", "A", "a-",
                                  "a_", "a.b.c", "a-.b", "a" * 128, "origin.lock2", "lock"])
def test_remote_name_valid(name):
    assert is_remote_name(name)
    assert is_remote_name(name, memory=False)


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "/a", "a/", "a..b", "..a", ".a", ".origin",
                                  "-a", "-origin", "a.", "origin.", "a b", "a\n", "a\x00",
                                  "a@{1}", "a~1", "a^", "a:b", "a*", "a?", "a[", "é",
                                  "a" * 129, "origin\u0660"])
def test_remote_name_invalid(name):
    assert not is_remote_name(name)
    assert not is_remote_name(name, memory=False)


@pytest.mark.parametrize("name", ["origin.lock", "a.lock", "x.y.lock"])
def test_remote_name_lock_suffix_invalid_for_memory_only(name):
    assert not is_remote_name(name)
    assert not is_remote_name(name, memory=True)
    assert is_remote_name(name, memory=False)


# §3.3 default stream


def test_default_stream_golden():
    assert default_stream(ACTOR) == STREAM
    assert default_stream(ACTOR) == VECTORS["default-stream-hn"]["stream"]
    assert is_digest_id(default_stream(ACTOR))


def test_default_stream_recipe_and_legacy_tag():
    import hashlib

    legacy = "sha256:" + hashlib.sha256(
        b"nh-memory-stream-v0\x00" + ACTOR.encode() + b"\x00default").hexdigest()
    assert legacy == VECTORS["default-stream-nh"]["stream"]
    assert default_stream(ACTOR) != legacy
    assert default_stream("0" * 64) != default_stream(ACTOR)


def test_memory_id_and_content_digest():
    payload = VECTORS["hn-record"]["payload"].encode("utf-8")
    assert grammar.memory_id(payload) == VECTORS["hn-record"]["memoryId"]
    assert grammar.content_digest("é") == \
        "sha256:" + __import__("hashlib").sha256("é".encode()).hexdigest()


# -- the hand-written timestamp reader against the regular expressions it replaced ----------------

import re  # noqa: E402

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

WRITER_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                       r"(\.[0-9]{0,8}[1-9])?(Z|[+-]([0-9]{2}):([0-9]{2}))")
READER_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                       r"(?:\.([0-9]{1,9}))?(?:Z|([+-])([0-9]{2}):([0-9]{2}))")


def _oracle(s: str, writer: bool):
    m = (WRITER_RE if writer else READER_RE).fullmatch(s)
    if m is None:
        return None
    fields = [int(m.group(i)) for i in range(1, 7)]
    if writer:
        fraction = (m.group(7) or ".")[1:]
        sign = "" if m.group(8) == "Z" else m.group(8)[0]
        zone = (int(m.group(9)), int(m.group(10))) if sign else (0, 0)
    else:
        fraction, sign = m.group(7) or "", m.group(8) or ""
        zone = (int(m.group(9)), int(m.group(10))) if sign else (0, 0)
    return (*fields, fraction, sign, *zone)


_PIECES = st.sampled_from(["0", "1", "9", "00", "12", "2026", "-", "T", ":", ".", "Z", "+", "-05:30",
                           "+00:00", "\u0663", "\u00b2", "a", " ", "\n", "5", "000000000", "1234567891"])


@st.composite
def _near_timestamps(draw):
    """Timestamps and strings a few edits away from one (digits that are not ASCII, a missing
    or extra character, fractions of every length, zones)."""
    base = draw(st.sampled_from([
        "2026-12-02T07:31:13Z", "2026-12-02T07:31:13.5Z", "2026-12-02T07:31:13.123456789Z",
        "2026-12-02T07:31:13.120Z", "2026-12-02T07:31:13+05:30", "2026-12-02T07:31:13.000000001-00:01",
        "0000-00-00T00:00:00Z", "9999-99-99T99:99:99.9999999999Z"]))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(base)))
        how = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(_PIECES)
        if how == "insert":
            base = base[:i] + piece + base[i:]
        elif how == "delete":
            base = base[:i] + base[i + 1:]
        else:
            base = base[:i] + piece + base[i + len(piece):]
    return base


@settings(max_examples=3000, deadline=None)
@given(st.one_of(_near_timestamps(), st.text(max_size=40)), st.booleans())
@example("2026-12-02T07:31:13.Z", True)
@example("2026-12-02T07:31:13.1234567890Z", False)
@example("2026-12-02T07:31:13\u0663Z", False)
def test_split_timestamp_reads_what_the_regular_expressions_read(s, writer):
    assert grammar.split_timestamp(s, writer=writer) == _oracle(s, writer)


def test_utc_instants_of_reader_forms():
    assert grammar.utc_instant("1970-01-01T01:00:00.5+01:00") == (0, 500_000_000)
    assert grammar.utc_instant("1970-01-01T00:00:00.000000001-00:01") == (60, 1)
    assert grammar.utc_timestamp("2026-12-02T07:31:13.120+00:30") == "2026-12-02T07:01:13.12Z"


def test_uniform_lines_checks_hex_places_and_literal_text_of_every_line():
    from git_hn.core.grammar import uniform_lines

    parts = (b"refs/hn/remotes/origin0/memory/", 4, b" ", 3, b"\n")
    good = b"refs/hn/remotes/origin0/memory/0a9f 12c\n"
    assert uniform_lines(good * 3, parts) == 3
    assert uniform_lines(b"", parts) is None
    for bad in (good.replace(b"refs", b"rafs"),  # a hex letter of the text
                good.replace(b"origin0", b"origin5"),  # a digit of the text
                good.replace(b"0a9f", b"0A9f"),  # not lowercase hex
                good.replace(b" 12c", b"-12c"), good[:-1] + b"\r"):
        assert uniform_lines(good + bad + good, parts) is None, bad
    assert uniform_lines(good + good[:-2] + b"\n", parts) is None  # another width


@settings(max_examples=2000, deadline=None)
@given(st.one_of(_near_timestamps(), st.text(max_size=40)))
def test_a_valid_timestamp_in_utc_is_its_own_utc_form(s):
    """``utc_of_valid`` returns a valid ``Z`` timestamp unchanged: ``utc_timestamp`` agrees."""
    if grammar.is_timestamp(s):
        assert grammar.utc_of_valid(s) == grammar.utc_timestamp(s)


def test_valid_utc_timestamps_of_every_day_keep_their_spelling():
    import datetime

    day = datetime.date(1999, 12, 25)
    for i in range(3 * 366):
        d = day + datetime.timedelta(days=i)
        for clock in ("00:00:00", "23:59:59.5", "12:34:56.000000001", "07:08:09.987654321"):
            ts = f"{d.isoformat()}T{clock}Z"
            assert grammar.is_timestamp(ts)
            assert grammar.utc_of_valid(ts) == grammar.utc_timestamp(ts) == ts
    assert grammar.utc_of_valid("2026-12-02T07:31:13.120+00:30") == "2026-12-02T07:01:13.12Z"
