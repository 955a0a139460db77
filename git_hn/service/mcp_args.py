"""How ``git hn mcp``'s tool calls bind their arguments (``mcp_calls``): strictly, as ``--input``
documents are read, with the same texts for what they refuse; and how a tool joins its hints
into one ``hint``.

Arguments are re-encoded as JSON and read with the strict reader (unknown keys, wrong types and
bad versions are refused); a null value counts as absent. Trust boundary: arguments come from a
model that may have read hostile memory; nothing here executes or follows anything they say.
"""

from __future__ import annotations

import json
import re

from ..core.limits import LIMITS
from ..errors import InputError


def request_bytes(arguments) -> bytes:
    # ASCII with \u escapes: the strict reader then sees exactly what a client sent, lone
    # surrogates included, and refuses what --input would refuse
    try:
        return json.dumps(arguments, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii")
    except ValueError:  # a number too large for a float (1e400) the client's JSON became inf:
        pass            # written back as such a number, the strict reader words it as --input does
    text = json.dumps(arguments, ensure_ascii=True, separators=(",", ":"), allow_nan=True)
    return re.sub(r'(?<=[:\[,])(-?)Infinity(?=[,\]}])', r"\g<1>1e400", text).encode("ascii")


def jtype(v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "null" if v is None else "object"


def as_object(arguments, prefix: str) -> dict:
    if not isinstance(arguments, dict):
        raise InputError(f"{prefix}invalid JSON: json: cannot unmarshal {jtype(arguments)} into request")
    return arguments


def bind(arguments, prefix: str, fields: dict[str, str]) -> dict:
    """Strict binding of a flat argument object: the strict reader first (so what ``--input``
    refuses is refused), then known keys only, each of its declared type (``string``,
    ``strings``, ``bool``; ``any`` is checked by the caller). A null value counts as absent."""
    from ..core.gostr import quoted
    from ..core.strictjson import JsonFloat, read_document

    doc = as_object(read_document(request_bytes(arguments), prefix=prefix, max_bytes=LIMITS.max_request,
                                error=InputError), prefix)
    out = {}
    for key, value in doc.items():
        kind = fields.get(key)
        if kind is None:
            from ..core.secretlint import shown_key
            from .requests import unknown_key_hint

            raise InputError(unknown_argument(prefix, shown_key(key, quoted),
                                              unknown_key_hint(key, fields) or f"; it takes {', '.join(fields)}"))
        if value is None:
            continue
        ok = {"string": lambda v: isinstance(v, str) and not isinstance(v, JsonFloat),
              "strings": lambda v: isinstance(v, list) and all(
                  isinstance(x, str) and not isinstance(x, JsonFloat) for x in v),
              "bool": lambda v: isinstance(v, bool), "any": lambda v: True}[kind](value)
        if not ok:
            from ..core.hints import append, field_type

            go = {"string": "string", "strings": "[]string", "bool": "bool"}[kind]
            raise InputError(append(f"{prefix}invalid JSON: json: cannot unmarshal {jtype(value)} into field "
                                    f"{key} of type {go}", field_type(key, go)))
        out[key] = value
    return out


def unknown_argument(prefix: str, key: str, hint: str) -> str:
    """An argument the tool does not take, by name (``key``: shown as ``secretlint.shown_key``
    shows it), and ``hint`` (``; did you mean …?``, or what it takes). An agent trial was told
    ``show input: invalid JSON: json: unknown field "atCommit"`` of valid JSON: the ``--input``
    reader's words; every tool's unknown argument says this (``mcp`` wordings of the readers'
    errors where a tool's arguments are read as a request, ``requests`` and ``core.recall``)."""
    return f'{prefix}unknown argument "{key}"{hint}'


def version(doc: dict, what: str) -> None:
    """``version`` may be left out (it means 0); given, it must be the integer 0."""
    from ..core.strictjson import JsonFloat, integer_rule

    version = doc.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or isinstance(version, JsonFloat) \
            or version != 0:
        raise InputError(integer_rule(f"{what} input field version must be integer 0", version, 0, 0))


def commit(repo, rev: str) -> str:
    """``atCommit``: any revision, resolved as the CLI resolves ``--at`` (CONTRACT §10.0)."""
    from ..core.gostr import quoted

    if "\x00" in rev:  # not expressible as an argv element: no revision of Git has one
        raise InputError(f"revision {quoted(rev)} is not a commit")
    return repo.resolve_commit(rev or "HEAD")


def sentences(*texts: str) -> str:
    """Hints, each worded for a line of its own (as the CLI prints them), as one ``hint``: each a
    sentence (a capital first, a full stop last), joined with a space. An agent trial: joined
    bare, "…then git hn sync This clone holds no memory…" ran together."""
    out = []
    for text in texts:
        text = text.strip()
        if text:
            out.append(text[:1].upper() + text[1:] + ("" if text[-1] in ".?!" else "."))
    return " ".join(out)


def positive(bound, tool: str, name: str = "maxBytes", least: int = 1) -> int:
    """``bound`` when it is an integer of at least 1; ``least``: the least the tool takes, for the
    words of a whole number written with a fraction or exponent (``strictjson.integer_rule``)."""
    from ..core.strictjson import JsonFloat, integer_rule

    if isinstance(bound, bool) or not isinstance(bound, int) or isinstance(bound, JsonFloat):
        raise InputError(integer_rule(f"{tool} input field {name} must be an integer", bound, least))
    if bound <= 0:
        raise InputError(f"{tool} input field {name} must be a positive integer (1 or more)")
    return bound


def allow(value, prefix: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InputError(f"{prefix}invalid JSON: json: cannot unmarshal {jtype(value)} into "
                         "field request.allowSecretShaped of type bool")
    return value
