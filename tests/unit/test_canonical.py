"""CONTRACT §1.3: Go ``encoding/json`` Marshal (compact) and MarshalIndent (private files)."""

from __future__ import annotations

import pytest

from git_hn.core.canonical import compact, compact_line, indented

SHORT_ESCAPES = {0x08: b"\\b", 0x0C: b"\\f", 0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t"}


def enc(s: str) -> bytes:
    """The compact encoding of one string, without its quotes."""
    out = compact(s)
    assert out[:1] == b'"' and out[-1:] == b'"'
    return out[1:-1]


def test_quote_and_backslash():
    assert enc('"') == b'\\"'
    assert enc("\\") == b"\\\\"
    assert enc('a"b\\c') == b'a\\"b\\\\c'


@pytest.mark.parametrize("cp,escaped", sorted(SHORT_ESCAPES.items()))
def test_short_escapes(cp, escaped):
    assert enc(chr(cp)) == escaped


def test_every_other_control_is_lowercase_u00xx():
    for cp in range(0x20):
        if cp in SHORT_ESCAPES:
            continue
        assert enc(chr(cp)) == b"\\u%04x" % cp, hex(cp)
    assert enc("\x00") == b"\\u0000"
    assert enc("\x1b") == b"\\u001b"
    assert enc("\x1f") == b"\\u001f"
    assert enc("\x0b") == b"\\u000b"


def test_del_and_c1_controls_are_raw():
    assert enc("\x7f") == b"\x7f"
    assert enc("\x80") == b"\xc2\x80"
    assert enc("\x9f") == b"\xc2\x9f"


@pytest.mark.parametrize("ch,escaped", [("<", b"\\u003c"), (">", b"\\u003e"), ("&", b"\\u0026"),
                                        ("\u2028", b"\\u2028"), ("\u2029", b"\\u2029")])
def test_html_and_line_separator_escapes(ch, escaped):
    assert enc(ch) == escaped
    assert enc("a" + ch + "b") == b"a" + escaped + b"b"


def test_non_ascii_is_raw_utf8_without_surrogate_pairs():
    for s in ("é", "€", "世界", "😀", "\U0010ffff", "\ufffd", "\ufeff", "\u202e", "\u200b",
              "\u00a0", "\u2027", "\u202a"):
        assert enc(s) == s.encode("utf-8"), repr(s)
    assert b"\\u" not in compact("😀 é 世界")
    assert b"\\ud83d" not in compact("😀")


def test_printable_ascii_is_raw():
    text = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in '"\\<>&')
    assert enc(text) == text.encode("ascii")
    assert enc("/") == b"/"  # no escaping of the solidus
    assert enc("'") == b"'"


def test_compact_layout():
    value = {"b": 1, "a": [1, "x", {}], "c": {"d": []}, "e": None, "f": True, "g": 18446744073709551615,
             "h": 0}
    assert compact(value) == \
        b'{"b":1,"a":[1,"x",{}],"c":{"d":[]},"e":null,"f":true,"g":18446744073709551615,"h":0}'


def test_compact_keeps_insertion_order_and_has_no_trailing_newline():
    out = compact({"z": "1", "a": "2"})
    assert out == b'{"z":"1","a":"2"}'
    assert not out.endswith(b"\n")
    assert b" " not in compact({"k": [1, 2, {"x": "y"}]})


def test_compact_line_adds_exactly_one_newline():
    assert compact_line({"a": "<"}) == b'{"a":"\\u003c"}\n'


def test_mixed_string():
    s = 'He said "<hi> & bye"\n\t\x00\x7f\u2028é😀'
    assert enc(s) == (b'He said \\"\\u003chi\\u003e \\u0026 bye\\"\\n\\t\\u0000\x7f\\u2028'
                      + "é😀".encode("utf-8"))


def test_nan_and_infinity_are_refused():
    for value in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ValueError):
            compact({"x": value})


# ---------------------------------------------------------------------------------------------
# MarshalIndent


def test_indented_layout():
    value = {"a": [], "b": {}, "c": [1, "x"], "d": None, "e": {"f": "<&>", "g": [{"h": 1}]}}
    assert indented(value) == (
        b'{\n'
        b'  "a": [],\n'
        b'  "b": {},\n'
        b'  "c": [\n'
        b'    1,\n'
        b'    "x"\n'
        b'  ],\n'
        b'  "d": null,\n'
        b'  "e": {\n'
        b'    "f": "\\u003c\\u0026\\u003e",\n'
        b'    "g": [\n'
        b'      {\n'
        b'        "h": 1\n'
        b'      }\n'
        b'    ]\n'
        b'  }\n'
        b'}\n'
    )


def test_indented_empty_containers_and_trailing_newline():
    assert indented({}) == b"{}\n"
    assert indented([]) == b"[]\n"
    assert indented({"a": {}}) == b'{\n  "a": {}\n}\n'
    assert indented([[]]) == b"[\n  []\n]\n"
    out = indented({"k": "v"})
    assert out.endswith(b"}\n") and not out.endswith(b"\n\n")


def test_indented_uses_the_same_string_escaping():
    s = "\x00\x1b\n\u2028\u2029é😀\x7f"
    assert indented({"s": s}) == b'{\n  "s": ' + compact(s) + b"\n}\n"
    assert indented({"s": s}) == b'{\n  "s": "\\u0000\\u001b\\n\\u2028\\u2029' + \
        "é😀".encode("utf-8") + b'\x7f"\n}\n'


def test_indented_separator_is_colon_space_and_no_trailing_spaces():
    out = indented({"a": 1, "b": [1, 2]})
    assert b'"a": 1,' in out
    assert all(not line.endswith(b" ") for line in out.split(b"\n"))
    assert all((len(line) - len(line.lstrip(b" "))) % 2 == 0 for line in out.split(b"\n"))


@pytest.mark.parametrize("value", [
    {"a": "<tag> & \u2028\u2029 \b\f\n\r\t\x00\x1f\x7f é 😀 \\ \"q\""},
    {"n": -9223372036854775808, "m": 9223372036854775807, "t": True, "f": False, "z": None},
    {"list": [], "obj": {}, "nested": [{"k": ["v", 1]}]},
    {"big": 2 ** 70},
])
def test_compact_plain_equals_compact(value):
    from git_hn.core.canonical import compact_plain, load_fast_codec

    load_fast_codec()  # compare the orjson path, not the stdlib fallback

    assert compact_plain(value) == compact(value)


def test_compact_plain_refuses_lone_surrogates_like_compact():
    from git_hn.core.canonical import compact_plain, load_fast_codec

    load_fast_codec()

    for encode in (compact, compact_plain):
        with pytest.raises(UnicodeEncodeError):
            encode({"s": "\ud800"})


def test_replication_state_files_are_the_same_bytes_with_either_encoder():
    """Receipts and anchors below ``LARGE_DOCUMENT`` IDs use the stdlib encoder (orjson's import
    costs more than they do); the bytes must not depend on which one wrote them."""
    from git_hn.core import canonical
    from git_hn.store.replication import LARGE_DOCUMENT

    ids = [f"{i:040x}" for i in range(LARGE_DOCUMENT + 3)]
    doc = {"version": 2, "id": "txn-" + "a" * 24, "remote": "origin", "state": "promoted",
           "outcomes": [{"kind": "memory", "id": "sha256:" + "b" * 64, "status": "promoted",
                         "diagnostic": "<&> \u2028 quote\" back\\\\ \u00e9"}],
           "promotions": [{"ref": "refs/hn/remotes/origin/memory/x/y", "old": "", "new": "c" * 40}],
           "pendingObjects": ids[:7], "acceptedObjects": ids}
    assert canonical.indented(doc) == canonical.indented_large(doc)
    assert canonical.indented({**doc, "acceptedObjects": []}) == canonical.indented_large({**doc, "acceptedObjects": []})


def test_receipts_and_anchors_join_their_object_ids_into_the_encoders_bytes():
    """Below ``LARGE_DOCUMENT`` IDs a receipt's and an anchor's arrays of object IDs are joined as
    text after the rest is encoded (f126): the bytes are the encoder's for the whole document,
    with empty arrays, no outcomes or promotions, and values that are not IDs (escaped)."""
    from git_hn.core import canonical
    from git_hn.store import replication as r

    ids = [f"{i:040x}" for i in range(r.LARGE_DOCUMENT + 3)]
    outcomes = [{"kind": "memory", "id": "sha256:" + "b" * 64, "status": "promoted", "diagnostic": "<&> \u00e9"}]
    promotions = [{"ref": "refs/hn/remotes/origin/memory/x/y", "newOid": "c" * 40}]
    for pending, accepted in [([], []), (ids[:1], []), ([], ids[:2]), (ids[:3], ids[:9]), (ids[:2], ids),
                              (["a<b", "c"], ["\u00e9"]), (ids[:2], ["x\u2028"]), (ids[:7], [""])]:
        for outs, proms in [([], []), (None, promotions), (outcomes, promotions)]:
            doc = {"version": 2, "id": "txn-" + "a" * 24, "remote": "origin", "state": "validated",
                   "outcomes": outs or None}
            if proms:
                doc["promotions"] = proms
            doc = {**doc, "pendingObjects": pending, "acceptedObjects": accepted}
            want = canonical.indented(doc)
            assert r.receipt_bytes("txn-" + "a" * 24, "origin", "validated", outs, proms, pending, accepted) == want
        anchor = {"version": 1, "id": "txn-" + "a" * 24, "remote": "origin", "pendingObjects": pending}
        assert r._with_ids({k: v for k, v in anchor.items() if k != "pendingObjects"},
                           {"pendingObjects": pending}) == canonical.indented(anchor)
    # an element's bytes in the plan: orjson's once it is loaded, the same (a value it refuses: the encoder's)
    canonical.load_fast_codec()
    for value in (*outcomes, *promotions, {"kind": "memory", "id": "x", "measurements": {"n": 1 << 70}}):
        text = canonical.indented(value)
        assert r.element_bytes(value) == len(text) + 4 * text.count(b"\n") + 1


def test_receipts_under_the_threshold_are_read_without_importing_orjson():
    """The first command after a sync reads its receipt: below ``OWN_PARSE_FROM`` bytes the strict
    parser reads it (faster than orjson's import), from it the orjson path; both give the same
    document. Run in a fresh interpreter, where nothing has imported orjson yet."""
    import subprocess
    import sys

    code = r'''
import sys
from git_hn.core import canonical
from git_hn.errors import LocalStateError
from git_hn.store import receipt_files as f
from git_hn.store import replication as r

def doc(n):
    ids = [f"{i:040x}" for i in range(n)]
    return {"version": 2, "id": "txn-" + "a" * 24, "remote": "origin", "state": "complete",
            "outcomes": None, "pendingObjects": [], "acceptedObjects": ids}

small, large = canonical.indented(doc(2000)), canonical.indented(doc(8000))
assert 65536 < len(small) < f.OWN_PARSE_FROM < len(large) < r.RECEIPT_MAX, (len(small), len(large))
assert f.read_own(small, r.RECEIPT_MAX) is None and "orjson" not in sys.modules
strict = f.read_document(small, prefix="", max_bytes=r.RECEIPT_MAX, error=LocalStateError)
assert strict == doc(2000) and "orjson" not in sys.modules
assert f.read_own(large, r.RECEIPT_MAX) == doc(8000) and "orjson" in sys.modules
assert f.read_own(small, r.RECEIPT_MAX) == doc(2000)  # once loaded, orjson reads every large-ish file
print("ok")
'''
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_the_bytes_of_a_receipts_elements_are_counted_from_one_encoding_of_them(monkeypatch):
    """``groups.elements_bytes`` (the plan's sum of its elements' bytes, f133) equals the sum of
    ``element_bytes`` over the elements, with either codec, for empty containers, HTML escapes,
    non-ASCII text, U+2028 and nested values."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from git_hn.core import canonical
    from git_hn.service.replication.groups import elements_bytes
    from git_hn.store import replication as r

    text = st.text(alphabet=st.sampled_from(["a", "<", ">", "&", "\u00e9", "\u2028", "\u2029", '"', "\\", "\n", " "]),
                   max_size=8)
    leaf = st.one_of(text, st.integers(-(1 << 40), 1 << 40), st.booleans(), st.none())
    value = st.recursive(leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(text, inner, max_size=3)), max_leaves=12)
    elements = st.lists(st.dictionaries(text, value, max_size=4), max_size=5)

    @settings(max_examples=150, deadline=None)
    @given(elements)
    def check(values):
        assert elements_bytes(values) == sum(r.element_bytes(v) for v in values)

    canonical.load_fast_codec()
    check()
    monkeypatch.setattr(canonical, "_FAST", None)  # the encoder's bytes, before orjson is loaded
    check()
    assert elements_bytes([]) == 0
