"""JSONTestSuite (nst/JSONTestSuite, tests/vectors/jsontestsuite/test_parsing) against git-hn's readers.

Two readers are exercised on every file:

- ``strictjson.read_document``, the strict request reader (CONTRACT §10.5, §11(e)): every ``n_``
  file must be refused with git-hn's own error type, every ``y_`` file must parse unless it hits a
  documented limit (listed in ``Y_REFUSED`` with the exact message), and ``i_`` files may go
  either way but may only ever raise ``HnError``.
- ``envelope.decode``, the memory payload decoder (CONTRACT §1.4): no file is a valid envelope, so
  every one must raise ``ValidationError`` with a §1.4 text; which text is pinned per class.

The second half tests the §11(e)/§10.5 hardening directly: byte-order mark, duplicate keys at any
depth (also spelled with escapes), NaN/Infinity, huge exponents, the signed 64-bit range, the
nesting bound, lone surrogate escapes, and the size bound being checked before any parsing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_hn.core import envelope, strictjson
from git_hn.core.strictjson import JsonFloat, read_document
from git_hn.errors import HnError, InputError, ValidationError

SUITE = Path(__file__).resolve().parent.parent / "vectors" / "jsontestsuite" / "test_parsing"
FILES = sorted(p.name for p in SUITE.iterdir() if p.suffix == ".json")
Y_FILES = [f for f in FILES if f.startswith("y_")]
N_FILES = [f for f in FILES if f.startswith("n_")]
I_FILES = [f for f in FILES if f.startswith("i_")]

PREFIX = "record input: "
MAX = 1_048_576


def data_of(name: str) -> bytes:
    return (SUITE / name).read_bytes()


def read(data: bytes, **kw):
    kw.setdefault("prefix", PREFIX)
    kw.setdefault("max_bytes", MAX)
    kw.setdefault("error", InputError)
    return read_document(data, **kw)


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# The only `y_` files git-hn refuses, each for a documented limit: filename -> exact message.
# Reason: §10.5/§11(e) refuse a duplicate key at any depth (a parser-differential hazard), although
# RFC 8259 only says names SHOULD be unique.
Y_REFUSED = {
    "y_object_duplicated_key.json": PREFIX + 'duplicate JSON field "a"',
    "y_object_duplicated_key_and_value.json": PREFIX + 'duplicate JSON field "a"',
}

# `i_` files read_document accepts. All are numbers whose value overflows or underflows a double:
# the reader keeps them as their text (JsonFloat), which no schema accepts, so no `inf` or `0.0`
# is ever produced silently.
I_ACCEPTED = {
    "i_number_double_huge_neg_exp.json",
    "i_number_huge_exp.json",
    "i_number_neg_int_huge_exp.json",
    "i_number_pos_double_huge_exp.json",
    "i_number_real_neg_overflow.json",
    "i_number_real_pos_overflow.json",
    "i_number_real_underflow.json",
}

# The shapes every refusal of read_document takes (§10.5), after the prefix.
DOC_MESSAGES = (
    "JSON is not valid UTF-8",
    "JSON must contain exactly one value",
    "invalid JSON: ",
    'duplicate JSON field "',
)

# §1.4 texts; §1.4 step 4 (validation) can only be reached by a top-level `{}` or `null`, which
# decode to the zero envelope and fail the first validation rule.
PAYLOAD_STEP_TEXTS = {
    "invalid memory JSON encoding",
    "invalid memory JSON",
    "invalid memory JSON trailing data",
    "memory JSON is not canonical",
    "memory protocol is unsupported",
}
PAYLOAD_PROTOCOL_UNSUPPORTED = {"y_object_empty.json", "y_structure_lonely_null.json"}
# Trailing data is reported only when the first value binds to the envelope (§1.4 step 2 before
# step 3): `{}}` binds `{}`; every other file with trailing bytes has a first value that is not an
# envelope object (an array, a number, an unknown key) and reports `invalid memory JSON`.
PAYLOAD_TRAILING = {"n_structure_object_followed_by_closing_object.json"}


def test_suite_is_complete():
    """The vendored copy holds the documented counts (tests/vectors/README.md)."""
    assert (len(Y_FILES), len(N_FILES), len(I_FILES)) == (95, 188, 35)
    assert len(FILES) == 318
    for name in (*Y_REFUSED, *I_ACCEPTED, *PAYLOAD_PROTOCOL_UNSUPPORTED, *PAYLOAD_TRAILING):
        assert name in FILES, name


# ---------------------------------------------------------------------------------------------
# read_document over the suite


def _tag(value):
    """Make parsed values comparable: JSON floats as ("float", text) on both sides."""
    if isinstance(value, JsonFloat):
        return ("float", str(value))
    if isinstance(value, list):
        return [_tag(v) for v in value]
    if isinstance(value, dict):
        return {k: _tag(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name", N_FILES)
def test_n_files_are_refused_with_input_error(name):
    with pytest.raises(HnError) as exc:
        read(data_of(name))
    assert type(exc.value) is InputError
    msg = exc.value.message
    assert msg.startswith(PREFIX)
    assert msg[len(PREFIX):].startswith(DOC_MESSAGES), msg
    if not is_utf8(data_of(name)):
        assert msg == PREFIX + "JSON is not valid UTF-8"


@pytest.mark.parametrize("name", Y_FILES)
def test_y_files_parse_or_hit_a_documented_limit(name):
    data = data_of(name)
    if name in Y_REFUSED:
        with pytest.raises(HnError) as exc:
            read(data)
        assert type(exc.value) is InputError
        assert exc.value.message == Y_REFUSED[name]
        return
    value = read(data)
    # Cross-check the value with the standard library (floats compared as their text). `-0` is
    # kept as text too (JsonFloat), so that no unsigned field can take it, as in Go.
    want = json.loads(data.decode("utf-8"), parse_float=lambda s: ("float", s),
                      parse_int=lambda s: ("float", s) if s == "-0" else int(s))
    assert _tag(value) == want


@pytest.mark.parametrize("name", I_FILES)
def test_i_files_only_ever_raise_hn_error(name):
    data = data_of(name)
    try:
        value = read(data)
    except HnError as exc:
        assert name not in I_ACCEPTED
        assert type(exc) is InputError
        assert exc.message.startswith(PREFIX)
        assert exc.message[len(PREFIX):].startswith(DOC_MESSAGES), exc.message
        if not is_utf8(data):
            assert exc.message == PREFIX + "JSON is not valid UTF-8"
        elif data.startswith(b"\xef\xbb\xbf"):
            assert exc.message.startswith(PREFIX + "invalid JSON: a byte order mark (U+FEFF)")
    else:
        assert name in I_ACCEPTED
        # Accepted ones are the out-of-double-range numbers, kept as text inside one array.
        assert isinstance(value, list) and len(value) == 1
        assert isinstance(value[0], JsonFloat)
        assert value[0] == data.decode("ascii").strip()[1:-1]


def test_i_surrogate_and_range_files_are_refused_with_specific_causes():
    """i_ outcomes git-hn chose, pinned: lone surrogate escapes and out-of-range integers."""
    for name in ("i_string_1st_surrogate_but_2nd_missing.json", "i_string_lone_second_surrogate.json",
                 "i_object_key_lone_2nd_surrogate.json", "i_string_inverted_surrogates_U+1D11E.json"):
        with pytest.raises(InputError) as exc:
            read(data_of(name))
        assert exc.value.message == PREFIX + "invalid JSON: lone surrogate escape in string", name
    for name in ("i_number_too_big_pos_int.json", "i_number_too_big_neg_int.json",
                 "i_number_very_big_negative_int.json"):
        with pytest.raises(InputError) as exc:
            read(data_of(name))
        assert exc.value.message.startswith(PREFIX + "invalid JSON: number "), name
        assert exc.value.message.endswith(" is out of range"), name
    with pytest.raises(InputError) as exc:
        read(data_of("i_structure_500_nested_arrays.json"))
    assert exc.value.message == PREFIX + "invalid JSON: nesting exceeds 64 levels"


@pytest.mark.parametrize("name", FILES)
def test_default_error_type_is_hn_error(name):
    """Without an explicit error type the reader still raises only HnError."""
    try:
        read_document(data_of(name), prefix="", max_bytes=MAX)
    except HnError as exc:
        assert not name.startswith("y_") or name in Y_REFUSED
        assert exc.message.startswith(DOC_MESSAGES)
    else:
        assert not name.startswith("n_")


@pytest.mark.parametrize("name", FILES)
def test_policy_folding_reader_refuses_every_n_file(name):
    """The policy reader (keys folded as in Go, §6.2) has the same strictness."""
    try:
        read_document(data_of(name), prefix="parse policy: ", max_bytes=MAX, fold_keys=True,
                      error=InputError)
    except InputError as exc:
        assert exc.message.startswith("parse policy: ")
        assert not name.startswith("y_") or name in Y_REFUSED
    else:
        assert not name.startswith("n_")


# ---------------------------------------------------------------------------------------------
# envelope.decode over the suite


@pytest.mark.parametrize("name", FILES)
def test_no_suite_file_is_a_valid_envelope(name):
    data = data_of(name)
    with pytest.raises(ValidationError) as exc:
        envelope.decode(data)
    assert type(exc.value) is ValidationError
    msg = exc.value.message
    assert msg in PAYLOAD_STEP_TEXTS
    if not is_utf8(data):
        want = "invalid memory JSON encoding"
    elif name in PAYLOAD_PROTOCOL_UNSUPPORTED:
        want = "memory protocol is unsupported"
    elif name in PAYLOAD_TRAILING:
        want = "invalid memory JSON trailing data"
    else:
        want = "invalid memory JSON"
    assert msg == want


# ---------------------------------------------------------------------------------------------
# §1.4 order: binding the first value precedes the trailing-data check


@pytest.mark.parametrize("data,message", [
    (b'{"a":"b"}#', "invalid memory JSON"),            # unknown key in the first value
    (b'["x"]]', "invalid memory JSON"),                 # array where an object is expected
    (b'1 2', "invalid memory JSON"),                    # number where an object is expected
    (b'{"sequence":"1"} {}', "invalid memory JSON"),    # type mismatch in the first value
    (b'{"a":1,"a":1} x', "invalid memory JSON"),        # duplicate key in the first value
    (b'{} {}', "invalid memory JSON trailing data"),
    (b'null x', "invalid memory JSON trailing data"),
    (b'{"protocol":"x"}]', "invalid memory JSON trailing data"),
    (b'{}\n', "memory protocol is unsupported"),        # whitespace is not trailing data
    (b'{} \xff', "invalid memory JSON encoding"),       # encoding is step 1, before everything
])
def test_payload_step_order(data, message):
    with pytest.raises(ValidationError) as exc:
        envelope.decode(data)
    assert exc.value.message == message


# ---------------------------------------------------------------------------------------------
# §11(e)/§10.5 hardening of read_document, directly


def refused(data: bytes, **kw) -> str:
    with pytest.raises(HnError) as exc:
        read(data, **kw)
    assert type(exc.value) is kw.get("error", InputError)
    return exc.value.message


def test_bom_refused():
    bom = "invalid JSON: a byte order mark (U+FEFF) starts the document; save it without one"
    assert refused(b"\xef\xbb\xbf{}") == PREFIX + bom
    assert refused(b"\xef\xbb\xbf") == PREFIX + bom
    # UTF-16 and UTF-32 (with or without BOM) are not UTF-8 documents either.
    assert refused('{"a":1}'.encode("utf-16")) == PREFIX + "JSON is not valid UTF-8"
    assert refused('{"a":1}'.encode("utf-32")) == PREFIX + "JSON is not valid UTF-8"
    assert refused('{"a":1}'.encode("utf-16-le")).startswith(PREFIX + "invalid JSON: ")
    # A BOM inside a string is ordinary text.
    assert read('"\ufeff"'.encode("utf-8")) == "\ufeff"


@pytest.mark.parametrize("data,name", [
    (b'{"a":1,"a":2}', "a"),
    (b'{"a":1,"a":1}', "a"),
    (b'{"a":{"b":1,"b":2}}', "b"),
    (b'[{"x":[{"k":1,"k":null}]}]', "k"),
    (b'{"o":{"p":{"q":{"r":[1,{"s":[],"s":{}}]}}}}', "s"),
    (b'{"a":1,"\\u0061":2}', "a"),
    (b'{"\\u0061":1,"a":2}', "a"),
    (b'{"\\u00e9":1,"\xc3\xa9":2}', "\u00e9"),
    (b'{"\\ud83d\\ude00":1,"\xf0\x9f\x98\x80":2}', "\U0001f600"),
])
def test_duplicate_keys_refused_at_any_depth(data, name):
    assert refused(data) == PREFIX + f'duplicate JSON field "{name}"'


def test_duplicate_keys_are_case_sensitive_in_requests_but_folded_in_policies():
    assert read(b'{"a":1,"A":2}') == {"a": 1, "A": 2}
    kw = dict(prefix="parse policy: ", fold_keys=True)
    assert refused(b'{"memory":1,"Memory":2}', **kw) == 'parse policy: duplicate JSON field "Memory"'
    assert refused('{"kinds":1,"\u212ainds":2}'.encode(), **kw) == (
        'parse policy: duplicate JSON field "\u212ainds"')
    assert refused(b'{"s":1,"\\u017f":2}', **kw) == 'parse policy: duplicate JSON field "\u017f"'
    assert refused(b'{"x":{"ab":1,"aB":2}}', **kw) == 'parse policy: duplicate JSON field "aB"'


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity_refused(literal):
    for data in (literal, b"[" + literal + b"]", b'{"a":' + literal + b"}"):
        msg = refused(data)
        assert msg == PREFIX + "invalid JSON: " + literal.decode() + " is not allowed"


def test_non_finite_spellings_never_become_floats():
    for data in (b"1e400", b"-1e400", b"1E+999", b"123.456e789", b"1e-400"):
        value = read(data)
        assert isinstance(value, JsonFloat) and value == data.decode()
    assert read(b'{"a":1.5}') == {"a": "1.5"}
    assert isinstance(read(b"[0.0]")[0], JsonFloat)


def test_integers_outside_signed_64_bit_refused():
    assert read(b"9223372036854775807") == 2**63 - 1
    assert read(b"-9223372036854775808") == -(2**63)
    assert read(b"[0,-1,1]") == [0, -1, 1]
    for text in ("9223372036854775808", "-9223372036854775809", "18446744073709551615",
                 "18446744073709551616", "99999999999999999999"):
        assert refused(text.encode()) == PREFIX + f"invalid JSON: number {text} is out of range"
        assert refused(b'{"a":[' + text.encode() + b"]}").startswith(PREFIX + "invalid JSON: number ")
    huge = b"1" + b"0" * 5000  # would exceed Python's int-string limit; refused before int()
    msg = refused(huge)
    assert msg == PREFIX + "invalid JSON: number 10000000000000000000… (5001 characters) is out of range"
    assert len(msg.encode()) <= len(PREFIX) + len("invalid JSON: ") + 240


def nest(depth: int, kind: str = "array") -> bytes:
    if kind == "array":
        return b"[" * depth + b"]" * depth
    if kind == "object":
        return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)
    half = depth // 2
    inner = b"[]" if depth % 2 else b"0"
    return b'[{"a":' * half + inner + b"}]" * half


@pytest.mark.parametrize("kind", ["array", "object", "mixed"])
def test_depth_64_accepted_65_refused(kind):
    read(nest(64, kind))
    assert refused(nest(65, kind)) == PREFIX + "invalid JSON: nesting exceeds 64 levels"
    assert refused(nest(100_000, kind)) == PREFIX + "invalid JSON: nesting exceeds 64 levels"


def test_depth_counts_structure_not_brackets_in_strings():
    inside = b'"' + b"[{" * 200 + b'\\"]' + b'"'
    assert read(b"[" + inside + b"]") == ["[{" * 200 + '"]']
    value = read(b"[" * 63 + inside + b"]" * 63)
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert depth == 63
    assert refused(b"[" * 65 + inside + b"]" * 65) == PREFIX + "invalid JSON: nesting exceeds 64 levels"


def test_custom_depth_bound():
    read(nest(3), max_depth=3)
    assert refused(nest(4), max_depth=3) == PREFIX + "invalid JSON: nesting exceeds 3 levels"


@pytest.mark.parametrize("data", [
    b'"\\ud800"', b'"\\udfff"', b'{"a":"x\\ud800"}', b'{"\\udc00":1}', b'["\\ud800\\ud800"]',
    b'"\\ude00\\ud83d"', b'"\\ud83d\\u0041"',
])
def test_lone_surrogate_escapes_refused_in_documents(data):
    assert refused(data) == PREFIX + "invalid JSON: lone surrogate escape in string"


def test_paired_and_escaped_backslash_surrogates_are_fine_in_documents():
    assert read(b'"\\ud83d\\ude00"') == "\U0001f600"
    assert read(b'"\\\\ud800"') == "\\ud800"  # an escaped backslash, then plain text


def test_encoded_surrogates_are_not_utf8():
    assert refused(b'"\xed\xa0\x80"') == PREFIX + "JSON is not valid UTF-8"
    assert refused(b'"\xc0\xaf"') == PREFIX + "JSON is not valid UTF-8"


def test_lone_surrogates_become_replacement_char_in_payloads():
    """§1.4: Go decodes a lone surrogate escape to U+FFFD; the canonical check then refuses it."""
    assert strictjson.parse_payload(b'{"a":"x\\ud800y"}') == {"a": "x\ufffdy"}
    assert strictjson.parse_payload(b'["\\udc00\\ud800"]') == ["\ufffd\ufffd"]
    assert strictjson.parse_payload(b'["\\ud83d\\ude00"]') == ["\U0001f600"]
    # In a real envelope field: validation sees valid text, the canonical check refuses.
    rec = json.loads((Path(__file__).resolve().parent.parent / "vectors"
                      / "hn-memory-v0.json").read_text(encoding="utf-8"))
    payload = next(v for v in rec if v["name"] == "hn-record")["payload"].encode("utf-8")
    for escape in (b"\\ud800", b"\\udfff", b"\\ude00\\ud83d"):
        bad = payload.replace(b"inert data.", b"inert " + escape + b" data.")
        with pytest.raises(ValidationError) as exc:
            envelope.decode(bad)
        assert exc.value.message == "memory JSON is not canonical"
    # The same text written canonically (raw U+FFFD) is a valid payload.
    good = payload.replace(b"inert data.", "inert \ufffd data.".encode("utf-8"))
    assert envelope.decode(good).record.content == "Memory content remains inert \ufffd data."
    # A lone surrogate in a key becomes U+FFFD too: an unknown key.
    with pytest.raises(ValidationError) as exc:
        envelope.decode(payload[:-1] + b',"\\ud800":1}')
    assert exc.value.message == "invalid memory JSON"


def test_trailing_values_and_whitespace_in_documents():
    assert read(b" \t\r\n{} \t\r\n") == {}
    for data in (b"{} {}", b"{}x", b"[]]", b"1 2", b'"a""b"', b"{}\x00"):
        assert refused(data) == PREFIX + "JSON must contain exactly one value", data
    assert refused(b"").startswith(PREFIX + "invalid JSON: ")
    assert refused(b"  ").startswith(PREFIX + "invalid JSON: ")


def test_size_bound_checked_before_parsing(monkeypatch):
    def boom(*a, **k):  # pragma: no cover - reaching it is the failure
        raise AssertionError("parser reached before the size bound")

    monkeypatch.setattr(strictjson, "_parse", boom)
    monkeypatch.setattr(strictjson, "_depth_ok", boom)
    # Oversized input of every kind reports the size, not its other faults.
    for data in (b"\xff" * (MAX + 1), b"[" * (MAX + 1), b"\xef\xbb\xbf" + b" " * MAX,
                 b'{"a":1,"a":2}' + b" " * MAX):
        assert len(data) > MAX
        assert refused(data) == PREFIX + f"JSON exceeds {MAX} bytes"
    assert refused(b"{}  ", max_bytes=3) == PREFIX + "JSON exceeds 3 bytes"


def test_size_bound_is_inclusive():
    data = b"[" + b" " * (MAX - 2) + b"]"
    assert len(data) == MAX
    assert read(data) == []
    assert read(b"{}", max_bytes=2) == {}


def test_error_causes_are_one_line_and_bounded():
    # A decoder cause never carries raw control characters and stays within 240 bytes.
    for data in (b'"a\x01"', b'{"a" 1}', b"[1,]", b'"' + b"x" * 100_000, b"\x00" * 1000):
        msg = refused(data)
        assert msg.startswith(PREFIX + "invalid JSON: ")
        cause = msg[len(PREFIX + "invalid JSON: "):]
        assert len(cause.encode("utf-8")) <= 240
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in msg)


def test_payload_reader_hardening():
    """The payload decoder refuses the same hazards, each as `invalid memory JSON`."""
    for data in (b"\xef\xbb\xbf{}", b'{"a":1,"\\u0061":2}', b'{"record":{"kind":1,"kind":2}}',
                 b'{"sequence":NaN}', b'{"sequence":Infinity}', b'{"sequence":1e400}',
                 b'{"sequence":18446744073709551616}', b'{"sequence":' + b"9" * 5000 + b"}",
                 b'{"x":' + nest(64) + b"}", b'{"sequence":-0}'):
        with pytest.raises(ValidationError) as exc:
            envelope.decode(data)
        assert exc.value.message == "invalid memory JSON", data[:40]
    with pytest.raises(ValidationError) as exc:
        envelope.decode(b'{"protocol":' + nest(200_000) + b"}")
    assert exc.value.message == "invalid memory JSON"


@pytest.mark.parametrize("reader", ["nesting_within", "read_document", "parse_payload", "top_level_id"])
def test_a_string_that_never_closes_is_scanned_in_linear_time(reader):
    """Denial of service by one line: the string finder rescanned to the end from every quote of a
    string that never closes, so 64 KB of ``\\"`` took 14 s (4 MiB, the longest MCP line: hours),
    in the screen of every MCP line and in every policy blob a push reads. 64 KB now takes well
    under a second, and the document is still refused or told as before."""
    import time

    from git_hn.service.mcp_wire import top_level_id

    data = b'{"a":"' + b'\\"' * (1 << 15)
    start = time.monotonic()
    if reader == "nesting_within":
        assert strictjson.nesting_within(data, 128)
    elif reader == "top_level_id":
        assert top_level_id(data.decode()) is None
    elif reader == "parse_payload":
        with pytest.raises(strictjson.PayloadError):
            strictjson.parse_payload(data)
    else:
        with pytest.raises(HnError, match="Unterminated string"):
            read_document(data, prefix="", max_bytes=1 << 21)
    assert time.monotonic() - start < 1
    assert strictjson.nesting_within(b'["' + b'\\"' * 99 + b'[[[', 1)  # (what a string hides is no nesting)
    assert not strictjson.nesting_within(b'[[' + b'"\\\\"' * 9 + b'[', 2)  # (an escaped backslash ends)
