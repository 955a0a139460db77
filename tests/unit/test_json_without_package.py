"""git-hn encodes and parses JSON through the C functions ``json`` calls (``_json``), without
importing the ``json`` package (~4.5 M instructions of every command: issue 11, fixed cost):
``core.canonical.compact`` and ``core.strictjson``'s scanner. Each case runs in a fresh
interpreter, where ``json`` is not loaded (Python 3.11's C scanner words a syntax error only when
``json.decoder`` is loaded: ``strictjson.scan_error``), and must give what the ``json`` package
gives: the same bytes, values, errors and words."""

from __future__ import annotations

import json
import subprocess
import sys

from git_hn.core import canonical, strictjson

DOCS = [b'{"a" 1}', b"", b"   ", b"[1,", b'{"a":1,"a":2}', b'{"a":1,"\\u0041":2}', b"NaN", b"[Infinity]",
        b'"\\ud800"', b'{"x": 1.5}', b"1 2", b"[" * 70 + b"]" * 70, b'"\x01"', b'{"a":99999999999999999999999}',
        b"-", b"tru", b'{"a":"b"', b"[1,]", b"{,}", b'{"k": [true, false, null, -0, 12, "\xc3\xa9"]}',
        b'"\\x"', b"[1e400]", b'{"a": {"b": [1, {"c": "d"}]}}', b"\xef\xbb\xbf{}", b"\xff"]

# (a source text: the fresh interpreter evaluates it too)
VALUES_SOURCE = ("[{'a': [1, 'x<y>&', None, True, False, -3], 'b': {'c': '\\u2028\\u00e9\\x01'}}, 'str', 7, [], {}, "
                 "1.5, [1e300, -0.0], {1: 'int key', None: 0, True: 1, 2.5: 'f'}, strictjson.JsonFloat('1.0'), "
                 "{'t': (1, 2)}, float('nan'), {'s': {1, 2}}, [object()], {(1,): 2}]")
VALUES = eval(VALUES_SOURCE)  # noqa: S307


PROBE = r"""
import sys
from git_hn.core import canonical, strictjson
first = "json" in sys.modules
docs, values = eval(sys.stdin.read())
out = []
for doc in docs:
    try:
        out.append(("ok", repr(strictjson.read_document(doc, prefix="p: ", max_bytes=1 << 20, fold_keys=True))))
    except Exception as exc:
        out.append((type(exc).__name__, str(exc)))
    try:
        out.append(("ok", repr(strictjson.parse_payload(doc))))
    except strictjson.PayloadError as exc:
        out.append(("payload", exc.step, repr(exc.value)))
for value in values:
    try:
        out.append(("ok", canonical.compact(value)))
    except Exception as exc:
        out.append((type(exc).__name__, str(exc)))
print(repr((first, out)))
"""


def _outcomes(docs, values):
    out = []
    for doc in docs:
        try:
            out.append(("ok", repr(strictjson.read_document(doc, prefix="p: ", max_bytes=1 << 20, fold_keys=True))))
        except Exception as exc:  # noqa: BLE001 - compared as they are
            out.append((type(exc).__name__, str(exc)))
        try:
            out.append(("ok", repr(strictjson.parse_payload(doc))))
        except strictjson.PayloadError as exc:
            out.append(("payload", exc.step, repr(exc.value)))
    for value in values:
        try:
            out.append(("ok", canonical.compact(value)))
        except Exception as exc:  # noqa: BLE001
            out.append((type(exc).__name__, str(exc)))
    return out


def test_a_fresh_interpreter_parses_and_encodes_as_the_json_package_does():
    proc = subprocess.run([sys.executable, "-c", PROBE], input=f"({DOCS!r}, {VALUES_SOURCE})", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-800:]
    first, fresh = eval(proc.stdout)  # noqa: S307 - our own probe's repr
    assert first is False  # importing both modules loads no json
    assert "json" in sys.modules  # (here the package is loaded: the C scanner words errors itself)
    assert fresh == _outcomes(DOCS, VALUES)


def test_the_words_of_a_syntax_error_are_the_json_package_s():
    """The reference for the fresh interpreter's words: the stdlib decoder's, here."""
    try:
        strictjson.read_document(b'{"a" 1}', prefix="p: ", max_bytes=100)
    except Exception as exc:  # noqa: BLE001
        assert str(exc) == "p: invalid JSON: Expecting ':' delimiter at offset 5 (line 1, column 6)"
    else:  # pragma: no cover
        raise AssertionError("parsed")
    try:
        strictjson.read_document(b"  ", prefix="p: ", max_bytes=100)
    except Exception as exc:  # noqa: BLE001
        assert str(exc) == "p: invalid JSON: Expecting value at offset 2 (line 1, column 3)"
    else:  # pragma: no cover
        raise AssertionError("parsed")


def test_compact_is_the_stdlib_encoder_s_text():
    """``canonical.compact`` is ``json.JSONEncoder(ensure_ascii=False, separators=(",", ":"),
    allow_nan=False).encode`` (then Go's HTML escaping): the same text, or the same error."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for value in VALUES:
        try:
            want = ("ok", canonical._html_bytes(encoder.encode(value).encode("utf-8")))
        except Exception as exc:  # noqa: BLE001
            want = (type(exc).__name__, str(exc))
        try:
            got = ("ok", canonical.compact(value))
        except Exception as exc:  # noqa: BLE001
            got = (type(exc).__name__, str(exc))
        assert got == want, value
