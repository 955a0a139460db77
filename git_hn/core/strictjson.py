"""Strict JSON reading for everything git-hn parses (CONTRACT §1.4, §10.5, §11(e)).

Pure functions over bytes. Two entry points share one parser:

- ``parse_payload`` reads a memory payload with Go decoding semantics (lone ``\\u`` surrogates become
  U+FFFD so that the canonical check, not the parser, reports them). Its caller maps every failure
  to ``invalid memory JSON``.
- ``read_document`` reads a request, policy, cursor, selection, identity or index document under
  git-hn's hardening: strict UTF-8 without a byte-order mark, no duplicate key at any depth (also
  when spelled with escapes), no NaN or Infinity, integers within the signed 64-bit range, nesting
  at most 64 deep, and a size bound checked before parsing.

Attacks this module defends against: parser-differential duplicates (``{"a":1,"a":2}`` or
``{"a":1,"\\u0061":2}``) that make two readers see different values; stack exhaustion by deep
nesting; memory exhaustion by huge documents or integer literals; invalid UTF-8 and encoded
surrogates that other tools decode differently.

Schema binding (unknown keys, types) is done by ``Obj`` helpers used by each document's reader;
``whole_number_words`` words what their refusal of a number with a fraction or exponent adds
(``integer_rule``: after the rule of every integer field).
"""

from __future__ import annotations

from ..errors import HnError
from .gostr import Lazy, is_utf8

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_WS = " \t\n\r"
# A string, or one that never closes taken to the end: each byte is looked at once. (The former
# ``"(?:[^"\\]|\\.)*"`` rescanned to the end from every quote of a string that never closes, so
# 64 KB of ``\"`` took 14 s: a denial of service by one MCP line or one pushed policy.)
_STRING = Lazy(rb'(?s)"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)')
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_SURROGATES = "[\ud800-\udfff]"  # compiled only to replace them (``gostr.is_utf8`` finds them)


class JsonFloat(str):
    """A JSON number with a fraction or exponent, kept as its text; no schema accepts one."""


def whole_number_words(v, least: int = 1, most: int = INT64_MAX) -> str:
    """What an integer field given ``v`` says after its rule when ``v`` is a number with a fraction
    or exponent (a newcomer trial: ``"maxBytes": 1e3`` was told "must be a positive integer" and
    looked like one): ``a number with a fraction or exponent was given: write 1000`` (the integer,
    when the field takes it: ``least`` to ``most``), or ``1.5 is not a whole number``; "" for
    anything else. Refused all the same, as Go's decoder refuses it for an int. The text is not
    repeated when whole: an MCP client's JSON decoder has made ``1000.0`` of ``1e3`` before git-hn
    reads it. Read as a ``Decimal``, exact and never expanded (``1e999999999`` is a digit and an
    exponent); on an error path only."""
    if not isinstance(v, JsonFloat):
        return ""
    text = str(v)
    if not {".", "e"} & set(text.lower()):
        return ""  # -0: an integer as written, refused as not positive
    from decimal import Decimal

    number, given = Decimal(text), "a number with a fraction or exponent was given"
    if number != number.to_integral_value():
        from .gostr import quoted

        return f"{quoted(text)} is not a whole number"
    if number.adjusted() > 18 or not least <= number <= most:
        return given
    return f"{given}: write {int(number)}"


def integer_rule(rule: str, v, least: int = 1, most: int = INT64_MAX) -> str:
    """``rule``, the refusal of an integer field (``least`` to ``most``) given ``v``, with what
    ``whole_number_words`` says of ``v`` after "; ": every such refusal is worded here, so that
    ``"version": 0.0`` is told what ``"maxBytes": 1e3`` is (f151; the contract's rule first)."""
    words = whole_number_words(v, least, most)
    return f"{rule}; {words}" if words else rule


def json_type(v) -> str:
    """The JSON type name of a parsed value, for "cannot unmarshal <type>" messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, JsonFloat)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


class JsonSyntaxError(HnError):
    """Raised by the parser; callers turn it into their own ``HnError`` with a prefix."""


class DuplicateField(JsonSyntaxError):
    """A field given twice in one object; ``key`` is its name as written."""

    def __init__(self, key: str):
        super().__init__(f'duplicate JSON field "{key}"')
        self.key = key


_FOLD = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_FOLD.update({0x212A: ord("k"), 0x017F: ord("s")})


def fold_key(key: str) -> str:
    """Go's ``encoding/json`` key folding: ASCII case, U+212A KELVIN SIGN → k, U+017F → s."""
    return key.translate(_FOLD)


def _fold_key_reference(key: str) -> str:
    """The same folding spelled out rune by rune (kept for the tests that pin ``fold_key``)."""
    out = []
    for ch in key:
        if "A" <= ch <= "Z":
            out.append(chr(ord(ch) + 32))
        elif ch == "\u212a":
            out.append("k")
        elif ch == "\u017f":
            out.append("s")
        else:
            out.append(ch)
    return "".join(out)


def _pairs_hook(fold: bool):
    def hook(pairs):
        out = {}
        seen = set()
        for key, value in pairs:
            probe = fold_key(key) if fold else key
            if probe in seen:
                raise DuplicateField(key)
            seen.add(probe)
            out[key] = value
        return out

    return hook


def _reject_constant(name):
    raise JsonSyntaxError(f"{name} is not allowed")


def _parse_int(text: str) -> int:
    if len(text) > 20:  # (its first digits, marked as cut: never a different number)
        raise JsonSyntaxError(f"number {text[:20]}… ({len(text)} characters) is out of range")
    value = int(text)
    if text == "-0":
        # Go rejects -0 for unsigned fields; keep it distinguishable as a float-like literal.
        return JsonFloat(text)
    if value < INT64_MIN or value > 2**64 - 1:
        raise JsonSyntaxError(f"number {text} is out of range")
    return value


def _depth_ok(data: bytes, max_depth: int) -> bool:
    if len(data) - len(data.translate(None, b"[]{}")) <= max_depth:
        return True  # (no more brackets in all: strings need not be told apart, nor ``re`` loaded)
    brackets = _STRING.sub(b"", data).translate(None, _BRACKETS)
    if len(brackets) <= max_depth:
        return True
    depth = 0
    for b in brackets:
        if b == 0x5B or b == 0x7B:
            depth += 1
            if depth > max_depth:
                return False
        else:
            depth -= 1
    return True


def nesting_within(data: bytes, max_depth: int) -> bool:
    """Whether ``data`` nests arrays and objects at most ``max_depth`` levels, decided without
    parsing it (brackets counted outside strings), so that a value nested past the parser's
    recursion limit is told by its nesting (*stack exhaustion*), as ``read_document`` tells it."""
    return _depth_ok(data, max_depth)


class _Settings:
    """What ``json.JSONDecoder`` hands its scanner (``_json.make_scanner`` reads these attributes)."""

    def __init__(self, pairs_hook, parse_float, parse_int, parse_constant):
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = pairs_hook
        self.parse_float = parse_float
        self.parse_int = parse_int
        self.parse_constant = parse_constant


def scanner(pairs_hook=None, parse_float=float, parse_int=int, parse_constant=None):
    """The scanner ``json.JSONDecoder(strict=True, ...)`` parses with (its ``scan_once``:
    ``scan(text, index)`` is (value, end), StopIteration(index) where no value starts), built
    from ``_json`` without importing ``json``: the package costs every command that loads it
    ~4.5 M instructions, 3% of a record (issue 11, fixed cost). Errors: ``scan_errors``.
    ``parse_constant`` None: NaN and Infinity are refused as any other syntax error."""
    try:
        from _json import make_scanner
    except ImportError:  # pragma: no cover - an interpreter without json's C accelerator
        import json

        return json.JSONDecoder(object_pairs_hook=pairs_hook, parse_float=parse_float, parse_int=parse_int,
                                parse_constant=parse_constant or _no_constant, strict=True).scan_once
    return make_scanner(_Settings(pairs_hook, parse_float, parse_int, parse_constant or _no_constant))


def _no_constant(name):
    raise ValueError(f"{name} is not allowed")


def scan_error(scan, text: str, start: int, exc: Exception) -> Exception:
    """The error ``json.JSONDecoder.raw_decode`` raises where ``scan(text, start)`` raised ``exc``:
    "Expecting value" for StopIteration, else ``exc``. Python 3.11's C scanner words a syntax
    error through ``json.decoder`` only when that module is loaded (else a SystemError): then it
    is loaded and the text scanned again, which gives the stdlib's error. Loading ``json``
    costs nothing that an error still pays for."""
    import json.decoder

    if isinstance(exc, StopIteration):
        return json.decoder.JSONDecodeError("Expecting value", text, exc.value)
    if isinstance(exc, SystemError):
        try:
            scan(text, start)
        except StopIteration as again:
            return json.decoder.JSONDecodeError("Expecting value", text, again.value)
        except Exception as again:  # noqa: BLE001 - handed back to the caller
            return again
    return exc


_SCANNERS = {}


def _parse(text: str, fold: bool):
    """Parse one JSON value; returns (value, rest-of-text-after-leading-whitespace-stripped)."""
    scan = _SCANNERS.get(fold)
    if scan is None:
        scan = _SCANNERS[fold] = scanner(_pairs_hook(fold), JsonFloat, _parse_int, _reject_constant)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = scan(text, start)
    except JsonSyntaxError:
        raise
    except (StopIteration, SystemError, RecursionError, ValueError) as exc:
        error = scan_error(scan, text, start, exc)
        if isinstance(error, JsonSyntaxError):
            raise error from None
        from json import JSONDecodeError

        if isinstance(error, JSONDecodeError):
            raise JsonSyntaxError(_decode_cause(error)) from None
        if isinstance(error, (RecursionError, ValueError)):
            raise JsonSyntaxError(type(error).__name__) from None
        raise error from None
    return value, text[end:]


def _decode_cause(exc) -> str:
    """The cause of a ``json.JSONDecodeError``."""
    msg = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg  # "Invalid control character at"
    return f"{msg} at offset {exc.pos} (line {exc.lineno}, column {exc.colno})"


def _walk_strings(value, fix: bool):
    """Find (or replace with U+FFFD) lone surrogates in every string and key."""
    if isinstance(value, str):
        if not is_utf8(value):
            if not fix:
                raise JsonSyntaxError("lone surrogate escape in string")
            import re

            return re.sub(_SURROGATES, "\ufffd", value)
        return value
    if isinstance(value, list):
        return [_walk_strings(v, fix) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            k2 = _walk_strings(k, fix)
            if k2 in out:
                raise DuplicateField(k2)
            out[k2] = _walk_strings(v, fix)
        return out
    return value


class PayloadError(HnError):
    """Internal: which §1.4 step failed (``encoding``, ``json``, ``trailing``).

    For ``trailing``, ``value`` is the first JSON value: binding it to the envelope (§1.4 step 2)
    comes before the trailing-data check (step 3), as in Go's ``Decoder``.
    """

    def __init__(self, step: str, value=None):
        super().__init__(step)
        self.step = step
        self.value = value


def parse_payload(data: bytes, max_depth: int = 64):
    """Parse a memory payload: §1.4 steps 1–3 with Go semantics. Raises ``PayloadError``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PayloadError("encoding") from None
    if not _depth_ok(data, max_depth):
        raise PayloadError("json")
    try:
        value, rest = _parse(text, fold=True)
    except JsonSyntaxError:
        raise PayloadError("json") from None
    if "\\u" in text or not is_utf8(text):
        try:
            value = _walk_strings(value, fix=True)
        except JsonSyntaxError:
            raise PayloadError("json") from None
    if rest.strip(_WS):
        raise PayloadError("trailing", value)
    return value


def read_document(data: bytes, *, prefix: str, max_bytes: int, fold_keys: bool = False,
                  error=HnError, max_depth: int = 64,
                  trailing: str = "JSON must contain exactly one value", shown=None):
    """Read one strict JSON document; errors are ``error(prefix + cause)``. ``shown`` maps a
    field name to how an error may show it (an identity file's: never key material)."""
    if len(data) > max_bytes:
        raise error(f"{prefix}JSON exceeds {max_bytes} bytes")
    if data.startswith(b"\xef\xbb\xbf"):  # (valid UTF-8, but not JSON: RFC 8259 §8.1)
        raise error(f"{prefix}invalid JSON: a byte order mark (U+FEFF) starts the document; "
                    "save it without one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{prefix}JSON is not valid UTF-8") from None
    if not _depth_ok(data, max_depth):
        raise error(f"{prefix}invalid JSON: nesting exceeds {max_depth} levels")
    try:
        value, rest = _parse(text, fold=fold_keys)
        if rest.strip(_WS):
            raise error(prefix + trailing)
        if "\\u" in text:
            value = _walk_strings(value, fix=False)
        _check_ints(value)
    except JsonSyntaxError as exc:
        cause = str(exc)
        if isinstance(exc, DuplicateField):
            key = exc.key if shown is None else shown(exc.key)
            raise error(prefix + _cut(f'duplicate JSON field "{key}"')) from None
        raise error(prefix + "invalid JSON: " + _cut(cause)) from None
    return value


def _check_ints(value):
    """Integers above the signed 64-bit range are refused in documents (§11(e))."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if value > INT64_MAX:
            raise JsonSyntaxError(f"number {value} is out of range")
        return
    if isinstance(value, list):
        for v in value:
            _check_ints(v)
    elif isinstance(value, dict):
        for v in value.values():
            _check_ints(v)


def _cut(cause: str) -> str:
    """oneLine and at most 240 bytes at a character boundary (CONTRACT §0.5)."""
    from .gostr import bounded

    return bounded(cause)
