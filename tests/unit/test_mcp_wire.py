"""The MCP server's line screening (``service.mcp_wire``) on an in-memory stream: what each line
becomes before the SDK reads it. The server end to end is tests/integration/test_agent_mcp.py."""

from __future__ import annotations

import io
import json

import pytest

from git_hn.core.limits import LIMITS
from git_hn.service.mcp_wire import SKIP_PIECE, Screened, cut_id


class Raw(io.BytesIO):
    """A byte stream that notes the size of every ``readline`` asked of it."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.asked: list[int] = []

    def readline(self, size=-1):
        self.asked.append(size)
        return super().readline(size)


PING = b'{"jsonrpc":"2.0","id":2,"method":"ping"}'


def test_a_line_over_the_bound_is_answered_at_once_and_dropped_a_piece_at_a_time():
    """Denial of service by one message: a trial's 1 GiB line was read whole (29 s, 4.7 GiB).
    The part read names the id; the answer comes before the rest is read; the rest is read in
    pieces no larger than ``SKIP_PIECE``; the next line is served as usual."""
    bound = 1000
    head = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"'
    raw = Raw(head + b"a" * (3 * SKIP_PIECE) + b'"}}}\n' + PING + b"\n")
    lines = Screened(raw, max_line=bound)
    answer = json.loads(lines.readline())
    assert answer == {"jsonrpc": "2.0", "id": 7, "error": {
        "code": -32600, "data": {"gitHnScreened": True},
        "message": f"Invalid Request: the message is longer than {bound} bytes, the most one line may hold (a "
                   f"tool's arguments take at most {LIMITS.max_request}); it was not read"}}
    assert raw.tell() == bound + 1  # (answered before the rest was read)
    assert lines.readline() == PING.decode() + "\n"
    assert lines.readline() == ""
    assert -1 not in raw.asked and max(raw.asked) == SKIP_PIECE and raw.asked[0] == bound + 1
    assert LIMITS.max_mcp_line == 4 << 20 and Screened(Raw(b"")).max_line == LIMITS.max_mcp_line


def test_a_line_of_exactly_the_bound_is_read():
    line = PING + b" " * (100 - len(PING))
    lines = Screened(Raw(line + b"\n"), max_line=100)
    assert lines.readline() == line.decode() + "\n"


@pytest.mark.parametrize("head,ident", [
    (b'{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"aaaa', 7),
    (b' { "id" : "req-1" , "params": [1, 2, {"x": "aaaa', "req-1"),
    (b'{"jsonrpc":"2.0","method":"x","params":{"a":"aaaa","id":3', None),  # (the id is beyond the cut)
    (b'{"jsonrpc":"2.0","params":{"id":5,"a":"aaaa', None),  # (not the message's id)
    (b'{"jsonrpc":"2.0","id":12', None),  # (12, or the start of 123)
    (b'{"jsonrpc":"2.0","id":12,', 12),
    (b'{"id":2.5,"x":"aaaa', None),
    (b'{"id":null,"x":"aaaa', None),
    (b'{"id":true,"x":"aaaa', None),
    (b'{"id":"caf\xc3\xa9","x":"\xc3', "caf\u00e9"),  # (the cut splits a character)
    (b'{"id":"\xff","x":"aaaa', None),
    (b'[{"id":1,"x":"aaaa', None),
    (b'"aaaa', None),
])
def test_the_id_of_a_cut_message_is_known_only_when_the_part_read_shows_it(head, ident):
    assert cut_id(head) == ident


def _screened(*lines: bytes) -> list:
    screened = Screened(Raw(b"".join(line + b"\n" for line in lines)))
    out = []
    while (text := screened.readline()) != "":
        out.append(json.loads(text))
    return out


def test_a_batch_an_id_without_a_method_and_blank_lines():
    """A batch got a bare "Invalid Request"; ``{"jsonrpc":"2.0","id":42}`` was answered with a
    null id (a client waiting for 42 hung); a blank line got a parse error nobody waits for."""
    batch, empty, no_method, odd_id, response, ping = _screened(
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', b"[]", b"", b"  \t\r",
        b'{"jsonrpc":"2.0","id":42}', b'{"jsonrpc":"2.0","id":[1]}',
        b'{"jsonrpc":"2.0","id":5,"result":{}}', PING)
    assert batch == empty and (batch["id"], batch["error"]["code"]) == (None, -32600)
    assert batch["error"]["message"] == ("Invalid Request: a batch (a JSON array) is not supported (MCP no longer "
                                         "has batches); send each message on a line of its own")
    assert (no_method["id"], no_method["error"]["code"]) == (42, -32600)
    assert no_method["error"]["message"] == ('Invalid Request: method is missing; a request names its method, such '
                                             'as "tools/call"')
    assert odd_id["id"] is None and odd_id["error"] == no_method["error"]
    assert response == {"jsonrpc": "2.0", "id": 5, "result": {}}  # (a response, for the SDK)
    assert ping == json.loads(PING)
