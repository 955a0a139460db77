"""Go-compatible JSON encoders (CONTRACT §1.3): compact ``Marshal`` and ``MarshalIndent``.

Pure functions over plain values (dict, list, str, int, bool, None). Key order is the caller's
insertion order, which each document builder sets to the contract's order. The output is what Go's
``encoding/json`` writes: raw UTF-8, lowercase ``\\u00xx`` for other controls, and HTML escaping of
``<``, ``>``, ``&`` plus U+2028/U+2029. The replacement after ``json.dumps`` is safe because every
key in every document is fixed ASCII without those characters.
"""

from __future__ import annotations

try:
    from _json import encode_basestring as _encode_str, make_encoder as _make_encoder
except ImportError:  # pragma: no cover - an interpreter without json's C accelerator
    _make_encoder = None
    from json.encoder import encode_basestring as _encode_str

# ``json.dumps`` is used through the C functions it calls, taken from ``_json``: the ``json``
# package (its decoder, encoder and scanner modules and their six regular expressions) costs every
# command that loads it ~4.5 M instructions, 3% of a record (issue 11, fixed cost). ``json`` is
# loaded only for what this module leaves to it (``_stdlib_compact``, ``indented``'s unusual values).


def compact(value) -> bytes:
    """Go ``json.Marshal`` bytes: no whitespace, no trailing newline."""
    return _html_bytes(_compact_text(value).encode("utf-8"))


def _compact_text(value) -> str:
    """``json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode``:
    what its ``encode`` and ``iterencode`` run for one value, a new C encoder (with a fresh
    circular-reference memo) each call, as they build one."""
    if isinstance(value, str):
        return _encode_str(value)
    if _make_encoder is None:  # pragma: no cover
        return _stdlib_compact(value)
    chunks = _make_encoder({}, _default, _encode_str, None, ":", ",", False, False, False)(value, 0)
    if not isinstance(chunks, (list, tuple)):  # pragma: no cover - what ``encode`` guards against
        chunks = list(chunks)
    return "".join(chunks)


def _default(o):
    """``JSONEncoder.default``: what cannot be encoded is a TypeError with the stdlib's words."""
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _stdlib_compact(value) -> str:
    import json

    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(value)


_FAST = None  # the orjson module, once a bulk caller loaded it (see load_fast_codec)


def load_fast_codec():
    """Load orjson for bulk work and return it.

    Importing orjson costs ~13 ms (it pulls in dataclasses, uuid, datetime, ...), more than a
    single record can afford, so one-payload paths keep the stdlib codec and bulk paths (stream
    verification of many commits, index rebuilds) call this first. Both codecs give the same
    bytes for what ``compact_plain`` and the envelope fast path accept (tested).
    """
    global _FAST
    if _FAST is None:
        import orjson

        _FAST = orjson
    return _FAST


def fast_codec():
    """orjson if a bulk caller loaded it, else None."""
    return _FAST


def compact_plain(value) -> bytes:
    """``compact`` for documents of strings, integers, booleans, lists and objects only (no
    floats: orjson spells those differently), such as a memory envelope.

    With the fast codec loaded, orjson's output (equal to ``json.dumps`` for these, and several
    times faster) is used; a value it refuses (a lone surrogate, an integer beyond 64 bits)
    takes the stdlib path.
    """
    if _FAST is None:
        return _html_bytes(_plain_text(value).encode("utf-8"))
    try:
        data = _FAST.dumps(value)
    except TypeError:
        return compact(value)
    return _html_bytes(data)


_PLAIN = None  # the C encoder of ``_plain_text``, made once


def _plain_text(value) -> str:
    """``_compact_text`` for a plain document, through one C encoder made once and without the
    circular-reference memo (a document a builder made is a tree: nothing to detect), which
    costs a third of a memory envelope's encoding when made per call. The same text."""
    global _PLAIN
    if type(value) is not dict or _make_encoder is None:
        return _compact_text(value)
    if _PLAIN is None:
        _PLAIN = _make_encoder(None, _default, _encode_str, None, ":", ",", False, False, False)
    return "".join(_PLAIN(value, 0))


def _html_bytes(data: bytes) -> bytes:
    """Go's HTML escaping of UTF-8 bytes: each byte string is searched at C speed and replaced
    only when present (``str.translate`` with a mapping costs ~40 instructions per character,
    and most documents contain none of them). Replacing the UTF-8 sequences of U+2028/U+2029
    equals escaping the characters: no other character's encoding contains them."""
    if b"<" not in data and b">" not in data and b"&" not in data and b"\xe2\x80" not in data:
        return data  # (most documents: four memchr-fast checks and no loop)
    for raw, esc in _HTML_BYTES[:3]:
        if raw in data:
            data = data.replace(raw, esc)
    if b"\xe2\x80" in data:
        for raw, esc in _HTML_BYTES[3:]:
            data = data.replace(raw, esc)
    return data


def compact_line(value) -> bytes:
    """One machine-output line: compact bytes plus ``\\n``."""
    return compact(value) + b"\n"


def indented(value) -> bytes:
    """Go ``json.MarshalIndent(v, "", "  ")`` plus one ``\\n`` (private files, CONTRACT §1.3)."""
    try:
        text = _indented(value, "\n")
    except _Unusual:
        import json

        text = json.JSONEncoder(ensure_ascii=False, indent=2, allow_nan=False).encode(value)
    return _html_bytes((text + "\n").encode("utf-8"))


class _Unusual(Exception):
    """A value ``_indented`` leaves to the stdlib encoder (a float, a non-string key...)."""


def _indented(value, newline: str) -> str:
    """What ``json.JSONEncoder(ensure_ascii=False, indent=2).encode`` gives for dicts with string
    keys, lists, strings, integers, booleans and None, with the C string encoder (the stdlib's
    indenting encoder is pure Python: ~12 ms for a receipt of a few thousand object IDs). Strings
    go through ``_encode_str``, the C encoder json.dumps uses with ensure_ascii=False.
    ``newline`` is a newline followed by the current indentation."""
    kind = type(value)
    if kind is str:
        return _encode_str(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = newline + "  "
        parts = []
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            kind = type(item)  # (a string or an integer spelled here: no call per scalar, the same text)
            parts.append(_encode_str(key) + ": " + (_encode_str(item) if kind is str else int.__repr__(item)
                                                    if kind is int else _indented(item, inner)))
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = newline + "  "
        if all(type(item) is str for item in value):
            body = ("," + inner).join(map(_encode_str, value))
        else:
            body = ("," + inner).join(_indented(item, inner) for item in value)
        return "[" + inner + body + newline + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    raise _Unusual


_HTML_BYTES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
               ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


def indented_large(value) -> bytes:
    """``indented`` for large documents (the index), through orjson's C encoder.

    orjson's ``OPT_INDENT_2`` layout and string escapes equal Python's and Go's for these
    documents (two-space indent, ``": "``, ``[]``/``{}`` for empty containers, lowercase
    ``\\u00xx``); the HTML escaping is applied on the bytes afterwards, which is safe because
    every key is fixed ASCII. A test compares it with ``indented`` on real indexes.
    """
    orjson = load_fast_codec()
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    return _html_bytes(data)
