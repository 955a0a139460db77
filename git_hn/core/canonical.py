"""Go-compatible JSON encoders (CONTRACT §1.3): compact ``Marshal`` and ``MarshalIndent``.

Pure functions over plain values (dict, list, str, int, bool, None). Key order is the caller's
insertion order, which each document builder sets to the contract's order. The output is what Go's
``encoding/json`` writes: raw UTF-8, lowercase ``\\u00xx`` for other controls, and HTML escaping of
``<``, ``>``, ``&`` plus U+2028/U+2029. The replacement after ``json.dumps`` is safe because every
key in every document is fixed ASCII without those characters.
"""

from __future__ import annotations

import json

_HTML = str.maketrans({
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
})
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_indent = json.JSONEncoder(ensure_ascii=False, indent=2, allow_nan=False)


def compact(value) -> bytes:
    """Go ``json.Marshal`` bytes: no whitespace, no trailing newline."""
    return _compact.encode(value).translate(_HTML).encode("utf-8")


def compact_line(value) -> bytes:
    """One machine-output line: compact bytes plus ``\\n``."""
    return compact(value) + b"\n"


def indented(value) -> bytes:
    """Go ``json.MarshalIndent(v, "", "  ")`` plus one ``\\n`` (private files, CONTRACT §1.3)."""
    return (_indent.encode(value).translate(_HTML) + "\n").encode("utf-8")


_HTML_BYTES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
               ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


def indented_large(value) -> bytes:
    """``indented`` for large documents (the index), through orjson's C encoder.

    orjson's ``OPT_INDENT_2`` layout and string escapes equal Python's and Go's for these
    documents (two-space indent, ``": "``, ``[]``/``{}`` for empty containers, lowercase
    ``\\u00xx``); the HTML escaping is applied on the bytes afterwards, which is safe because
    every key is fixed ASCII. A test compares it with ``indented`` on real indexes.
    """
    import orjson

    data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    for raw, esc in _HTML_BYTES[:3]:  # single bytes: memchr-fast checks first
        if raw in data:
            data = data.replace(raw, esc)
    if b"\xe2\x80" in data:
        for raw, esc in _HTML_BYTES[3:]:
            if raw in data:
                data = data.replace(raw, esc)
    return data
