"""The wire of ``git hn mcp``: each line of the client's input as the SDK's stdio transport reads
it, screened first (``Screened``), and the JSON-RPC errors git-hn gives for what the SDK would
misread, answer late or not at all.

Trust boundary: everything here is read from the client, which may send anything (a model's
tool calls, a broken or hostile client): a line is parsed only by ``json``, with no hook but one
that notes duplicate fields, and nothing of it reaches the SDK but the line itself or the error
that replaces it. Owns no state beyond the line being read.
"""

from __future__ import annotations

from ..core.limits import LIMITS

SCREENED = "gitHnScreened"  # marks an error ``Screened`` made, for ``relay`` to send back


class Screened:
    """The client's input, one line at a time as the SDK's transport reads it, with what the
    SDK would misread turned into the JSON-RPC error it should get (sent back by ``relay``):

    - a line that is not UTF-8: the SDK decoded it with replacement characters, so a tool call
      holding a stray byte signed U+FFFD in its place; now ``-32700`` parse error;
    - a request whose ``id`` is null, an object, an array, a boolean or a number written with a
      fraction or exponent (``2.0``): the SDK read it as a notification and never answered; now
      ``-32600`` invalid request, with a null id;
    - a request with a valid ``id`` whose ``jsonrpc`` is not ``"2.0"`` or whose ``method`` is not
      a string: ``-32600`` with its id (the SDK's answer had a null id), and one nested deeper than
      ``MAX_DEPTH``: ``-32602`` with its id (the SDK's parser gave up with a null id), told
      before parsing (``strictjson.nesting_within``) and the id found by a scan of the top-level
      object (``top_level_id``): past Python's recursion limit the SDK answered a bare "Parse
      error" with a null id; without an id, ``-32600`` saying the nesting, but for a notification
      (a ``method`` and no ``id``), which is dropped unanswered: JSON-RPC 2.0 never answers one;
    - a request whose ``params`` is not an object, a ``tools/call`` without a tool name or whose
      ``arguments`` is not an object: ``-32602`` invalid params, with its id and what is wrong
      (the SDK's own answer said only "Invalid request parameters");
    - a request holding a lone surrogate escape (``"\\ud800"``, valid JSON but no character):
      the SDK answered ``-32700`` with a null id, and the client waited for its id for ever; now
      ``-32602`` with its id;
    - a batch (a JSON array): ``-32600`` saying batches are not supported (the SDK's answer was a
      bare "Invalid Request"); a request with an ``id`` and no ``method`` (nor ``result`` or
      ``error``, which make it a response): ``-32600`` with its id (the SDK's had a null id);
    - a blank line: ignored (the SDK answered ``-32700`` with a null id, which no client waits for);
    - a line longer than ``max_line`` bytes: the SDK read it whole (a trial's 1 GiB line took
      29 s and 4.7 GiB of memory: a denial of service by one message); now ``-32600`` at once,
      with the request's id when the part read shows it (``cut_id``), and the rest of the line
      is read and dropped a piece at a time, when the next line is asked for.

    Every other line is passed on unchanged, for the SDK to read."""

    def __init__(self, raw, max_line: int = LIMITS.max_mcp_line):
        self.raw, self.max_line, self.cut = raw, max_line, False

    def readline(self) -> str:
        while True:
            text = self._screened()
            if text is not None:
                return text

    def _screened(self) -> str | None:
        """The next line, screened; None for one ignored, not answered: a blank one, or a
        notification too deeply nested to read."""
        if self.cut:
            self.cut = False
            self._skip()
        line = self.raw.readline(self.max_line + 1)
        if not line:
            return ""
        if not line.strip(b" \t\r\n"):
            return None
        if len(line) > self.max_line and not line.endswith(b"\n"):
            self.cut = True
            return _error(cut_id(line), -32600, f"Invalid Request: the message is longer than {self.max_line} "
                                                f"bytes, the most one line may hold (a tool's arguments take at most "
                                                f"{LIMITS.max_request}); it was not read")
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return _error(None, -32700, "Parse error: the message is not valid UTF-8")
        from ..core.strictjson import nesting_within

        if not nesting_within(line, MAX_DEPTH):  # (before parsing: past Python's depth, the SDK said "Parse
            members = top_level(text)            # error" with a null id; an agent trial)
            if "method" in members and "id" not in members:
                return None  # (a notification: JSON-RPC 2.0 §4.1, never answered, nor is it read)
            ident = top_level_id(text)
            if ident is None:
                return _error(None, -32600, f"Invalid Request: nested deeper than {MAX_DEPTH} levels; it was not "
                                            "read")
            return _error(ident, -32602, f"Invalid params: nested deeper than {MAX_DEPTH} levels")
        try:
            import json

            message = json.loads(text, object_pairs_hook=_Object)
        except ValueError:
            return text  # (the SDK's parse error)
        if isinstance(message, list):  # (the SDK's answer was a bare "Invalid Request")
            return _error(None, -32600, "Invalid Request: a batch (a JSON array) is not supported (MCP no longer "
                                        "has batches); send each message on a line of its own")
        if not isinstance(message, dict) or "id" not in message:
            return text
        if "method" not in message:
            if "result" in message or "error" in message:
                return text  # (a response to a request of the server's)
            ident = message["id"]  # (the SDK answered with a null id: the client waited for its own)
            return _error(ident if isinstance(ident, str) or type(ident) is int else None, -32600,
                          'Invalid Request: method is missing; a request names its method, such as "tools/call"')
        params = message.get("params")
        twice = (getattr(params, "twice", None) or _twice(params.get("arguments"))) \
            if isinstance(params, dict) and message["method"] in ("tools/call", "prompts/get") else None
        if twice is not None and (isinstance(message["id"], str) or type(message["id"]) is int):
            from ..core.gostr import bounded

            # (the SDK keeps the last value, silently: a memory signed with a kind not meant; the
            # CLI's --input refuses a field given twice, and so does this, in a tool's arguments)
            return _error(message["id"], -32602, f'Invalid params: duplicate JSON field "{bounded(twice)}"')
        ident = message["id"]
        if not (isinstance(ident, str) or type(ident) is int):
            return _error(None, -32600, "Invalid Request: id must be a string or an integer")
        if message.get("jsonrpc") != "2.0":  # (the SDK refused it with a null id: the client waited)
            return _error(ident, -32600, 'Invalid Request: jsonrpc must be "2.0"')
        if not isinstance(message["method"], str):
            return _error(ident, -32600, "Invalid Request: method must be a string")
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return _error(ident, -32602, "Invalid params: params must be an object")
        if message["method"] == "tools/call":  # (the SDK's answer says only "Invalid request parameters")
            if not isinstance((params or {}).get("name"), str):
                return _error(ident, -32602, "Invalid params: tools/call needs name, the tool's name as a string "
                                             "(tools/list lists them)")
            if (params or {}).get("arguments") is not None and not isinstance(params["arguments"], dict):
                return _error(ident, -32602, "Invalid params: tools/call arguments must be an object")
        if "\\ud" in text.lower() and _lone_surrogate(message):  # (valid JSON; the SDK then loses the id)
            return _error(ident, -32602, "Invalid params: a string holds a lone surrogate escape "
                                         "(\\ud800-\\udfff alone is no character); send UTF-8 text")
        return text


    def _skip(self) -> None:
        """Read the rest of a line over the bound, ``SKIP_PIECE`` bytes at most at a time."""
        while True:
            piece = self.raw.readline(SKIP_PIECE)
            if not piece or piece.endswith(b"\n"):
                return


SKIP_PIECE = 1 << 20  # what is held at a time of a line too long to read


def cut_id(head: bytes):
    """The ``id`` of a message of which only ``head`` was read: the value of a member ``id`` of
    the top-level object that ends within ``head``, when it is a string or an integer; None when
    the part read does not show it (the id comes after the cut, or the text is no object). Each
    member before it is parsed once by ``json`` (bounded by ``head``)."""
    import json
    import re

    for drop in range(4):  # (the cut may split a character)
        try:
            text = head[:len(head) - drop].decode("utf-8")
            break
        except UnicodeDecodeError:
            continue
    else:
        return None
    space = re.compile(r"[ \t\n\r]*")
    decoder = json.JSONDecoder()
    at = space.match(text).end()
    if text[at:at + 1] != "{":
        return None
    at += 1
    while True:
        at = space.match(text, at).end()
        if text[at:at + 1] != '"':
            return None
        try:
            key, at = decoder.raw_decode(text, at)
            at = space.match(text, at).end()
            if text[at:at + 1] != ":":
                return None
            value, at = decoder.raw_decode(text, space.match(text, at + 1).end())
        except (ValueError, RecursionError):
            return None  # (a value the cut ends: the id, if any, is beyond it)
        at = space.match(text, at).end()
        if at >= len(text):
            return None  # (a number the cut may have ended early)
        if key == "id":
            return value if isinstance(value, str) or type(value) is int else None
        if text[at] != ",":
            return None
        at += 1


_TOKEN = None  # a JSON string, or a bracket (compiled on first use)


def top_level_id(text: str):
    """The ``id`` of a message too deeply nested to parse: the value of a member ``id`` of the
    top-level object when it is a string or an integer, else None (``top_level``)."""
    value = top_level(text).get("id")
    return value if isinstance(value, str) or type(value) is int else None


_UNREAD = object()  # a member's value too deeply nested to read


def top_level(text: str) -> dict:
    """The members ``id`` and ``method`` of the top-level object of a message too deeply nested to
    parse, those present, each with its value (``_UNREAD`` when it cannot be read); {} when the
    text is no object. One scan of strings and brackets (no recursion, whatever the nesting);
    only those members' own values are parsed."""
    import json
    import re

    global _TOKEN
    if _TOKEN is None:
        # (a string that never closes is taken to the end: each character is looked at once,
        # where ``"(?:[^"\\]|\\.)*"`` rescanned to the end from each of its quotes)
        _TOKEN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)|[\[\]{}]', re.S)
    space = re.compile(r"[ \t\n\r]*")
    if text[space.match(text).end():][:1] != "{":
        return {}
    depth, found = 0, {}
    for token in _TOKEN.finditer(text):
        word = token.group()
        if word in ("{", "["):
            depth += 1
        elif word in ("}", "]"):
            depth -= 1
        elif depth == 1 and len(word) <= 16:  # (a member's key, or a short string value)
            at = space.match(text, token.end()).end()
            if text[at:at + 1] != ":":
                continue  # (a value, not a key)
            try:
                key = json.loads(word)
            except ValueError:
                continue
            if key not in ("id", "method") or key in found:
                continue
            try:
                found[key], _end = json.JSONDecoder().raw_decode(text, space.match(text, at + 1).end())
            except (ValueError, RecursionError):
                found[key] = _UNREAD
            if len(found) == 2:
                break
    return found


class _Object(dict):
    """A JSON object as ``json.loads`` builds it, with the first field given twice (or None)."""

    def __init__(self, pairs):
        super().__init__(pairs)
        self.twice = None
        if len(self) != len(pairs):
            seen: set = set()
            self.twice = next(k for k, _v in pairs if k in seen or seen.add(k))


def _twice(value):
    """The first field given twice in any object within ``value``, or None (a walk of its own:
    arguments nested as deep as ``json.loads`` takes them do not exhaust the stack)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            if getattr(item, "twice", None) is not None:
                return item.twice
            todo.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            todo.extend(reversed(item))
    return None


MAX_DEPTH = 128  # arrays and objects in one message (git-hn's requests take 64; the SDK's parser ~200)


def _lone_surrogate(message) -> bool:
    import json

    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _error(ident, code: int, message: str) -> str:
    import json

    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {
        "code": code, "message": message, "data": {SCREENED: True}}}) + "\n"




def screened(message) -> bool:
    data = message.error.data
    return isinstance(data, dict) and data.get(SCREENED) is True


def malformed(types, exc: Exception):
    """The JSON-RPC error for a line the transport could not read as a message."""
    errors = getattr(exc, "errors", None)
    kinds = {e.get("type") for e in errors()} if callable(errors) else set()
    if "json_invalid" in kinds:
        code, text = types.PARSE_ERROR, "Parse error"
    else:
        code, text = types.INVALID_REQUEST, "Invalid Request"
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=text))
