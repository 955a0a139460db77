"""``canonical.indented`` (the private files' encoder, Go ``MarshalIndent``) gives the bytes of the
stdlib's indenting encoder it replaced on the usual values, for any nesting of dicts, lists,
strings (controls, HTML characters, U+2028, astral, lone surrogates), integers, booleans and
None; floats and other values still go through the stdlib encoder."""

from __future__ import annotations

import json
import random

import pytest

from git_hn.core import canonical

_STDLIB = json.JSONEncoder(ensure_ascii=False, indent=2, allow_nan=False)
# Go's HTML escaping, as the encoder spelled it before it escaped the bytes instead
_HTML = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                       "\u2029": "\\u2029"})
_ALPHABET = ["a", "é", "\u2028", "\u2029", "<", ">", "&", "\x00", "\x1f", '"', "\\", "\ud800", "😀",
             "\x7f", " ", "\n", "\t"]


def _stdlib(value):
    try:
        return (_STDLIB.encode(value).translate(_HTML) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return UnicodeEncodeError


def _ours(value):
    try:
        return canonical.indented(value)
    except UnicodeEncodeError:
        return UnicodeEncodeError


def _value(rng, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.3:
        return "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(6)))
    if r < 0.4:
        return rng.choice([None, True, False, 0, -5, 2**70, 7, 1.5])
    if r < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if r < 0.75:
        return tuple(_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    return {"".join(rng.choice(_ALPHABET) for _ in range(3)) + str(i): _value(rng, depth + 1)
            for i in range(rng.randrange(4))}


@pytest.mark.parametrize("seed", range(4))
def test_random_documents_encode_as_the_stdlib_does(seed):
    rng = random.Random(seed)
    for _ in range(1500):
        value = _value(rng)
        assert _ours(value) == _stdlib(value), value


def test_a_receipt_shape_and_the_edge_values():
    receipt = {"version": 2, "id": "txn-1", "remote": "origin", "state": "complete",
               "outcomes": [{"kind": "memory", "id": "sha256:" + "a" * 64, "status": "promoted",
                             "measurements": {"events": 3, "bytes": 1200}}],
               "promotions": [], "pendingObjects": [], "acceptedObjects": ["%040x" % i for i in range(50)],
               "empty": {}, "none": None}
    assert _ours(receipt) == _stdlib(receipt)
    for edge in ({}, [], "", 0, None, True, {"k": [[], {}]}, {1: "a"}, [float("inf")]):
        if edge == [float("inf")]:
            with pytest.raises(ValueError):
                canonical.indented(edge)  # allow_nan=False, as before
        else:
            assert _ours(edge) == _stdlib(edge)
