"""``git hn mcp``'s wire end to end: a real server process fed raw lines (what a broken or hostile
client may send), answered with the JSON-RPC error a client can act on, and still serving after.
The screening itself is unit-tested in tests/unit/test_mcp_wire.py."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading

import pytest

INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "pipe", "version": "1"}}}).encode()
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class Server:
    """``git-hn mcp`` with its answers read on a thread, each awaited with a timeout."""

    def __init__(self, cwd, *args):
        self.proc = subprocess.Popen(["git-hn", "mcp", *args], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.answers.put(json.loads(x)) for x in self.proc.stdout],
                         daemon=True).start()

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, timeout: float = 60) -> dict:
        return self.answers.get(timeout=timeout)

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


def _peak_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak memory from /proc")
def test_a_line_over_the_bound_is_refused_at_once_without_holding_it(inited):
    """Denial of service by one message: a trial's 1 GiB request line took 29 s and 4.7 GiB
    before any answer. A line over 4 MiB is answered -32600 with its id as soon as the bound is
    passed (before its end is even sent), its rest is dropped as it comes, and the next request
    is served; the server's peak memory grows by far less than the line."""
    server = Server(inited)
    try:
        server.send(INIT + b"\n" + INITIALIZED + b"\n")
        assert server.answer()["id"] == 1
        before = _peak_kib(server.proc.pid)
        server.send(b'{"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{"name":"memory_recall",'
                    b'"arguments":{"query":"' + b"a" * (5 << 20))
        error = server.answer(timeout=30)  # (the line has no end yet)
        assert error["id"] == 1000 and error["error"]["code"] == -32600
        assert error["error"]["message"].startswith("Invalid Request: the message is longer than 4194304 bytes")
        chunk = b"a" * (1 << 20)
        for _ in range(64):
            server.send(chunk)
        server.send(b'"}}}\n{"jsonrpc":"2.0","id":1001,"method":"ping"}\n')
        assert server.answer() == {"jsonrpc": "2.0", "id": 1001, "result": {}}
        assert _peak_kib(server.proc.pid) - before < 24 << 10  # (the line: 69 MiB)
        server.send(b'{"jsonrpc":"2.0","method":"x","params":{"a":"' + b"a" * (5 << 20) + b'"},"id":3}\n')
        assert server.answer()["id"] is None  # (its id was beyond the part read)
    finally:
        assert server.close() == 0


def test_protocol_errors_say_what_to_do_and_keep_the_id(inited):
    """An agent trial's cases: a tool called before ``initialize`` got ``-32602 Invalid request
    parameters`` with empty data; a message with an id and no method was answered with a null
    id (the client waited for its own for ever); a batch got a bare "Invalid Request"; a blank
    line got a parse error. The code stays where the SDK's was, the message says what to do,
    the id is the request's, a blank line is ignored, and the session goes on."""
    server = Server(inited)
    try:
        server.send(b'{"jsonrpc":"2.0","id":"early","method":"tools/call","params":{"name":"memory_brief"}}\n')
        assert server.answer() == {"jsonrpc": "2.0", "id": "early", "error": {
            "code": -32602, "message": "Not initialized: send initialize first (then notifications/initialized)"}}
        server.send(b'{"jsonrpc":"2.0","id":"list","method":"tools/list"}\n')
        assert server.answer()["error"]["message"].startswith("Not initialized")
        server.send(b'{"jsonrpc":"2.0","id":"p","method":"ping"}\n')  # (ping needs no handshake)
        assert server.answer() == {"jsonrpc": "2.0", "id": "p", "result": {}}
        server.send(INIT + b"\n" + INITIALIZED + b"\n")
        assert server.answer()["id"] == 1
        server.send(b'{"jsonrpc":"2.0","id":42}\n\n   \n[{"jsonrpc":"2.0","id":43,"method":"ping"}]\n'
                    b'{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"memory_brief","arguments":{}}}\n')
        no_method, batch, brief = server.answer(), server.answer(), server.answer()
        assert no_method == {"jsonrpc": "2.0", "id": 42, "error": {"code": -32600, "message": (
            'Invalid Request: method is missing; a request names its method, such as "tools/call"')}}
        assert batch["id"] is None and "a batch (a JSON array) is not supported" in batch["error"]["message"]
        assert brief["id"] == 44 and not brief["result"].get("isError")  # (the blank lines got no answer)
        server.send(b'{"jsonrpc":"2.0","id":45,"method":"tools/call","params":{"name":"memory_brief",'
                    b'"arguments":{"maxBytes":"x"}}}\n')
        assert server.answer()["result"]["isError"]  # (after the handshake, the tool's own error)
    finally:
        assert server.close() == 0


def test_a_string_that_never_closes_is_screened_at_once(inited):
    """Denial of service by one line: the screen's string finder rescanned to the end from every
    quote of a string that never closes, so a 64 KB line of ``\\"`` held the server 14 s before it
    answered anything (a 4 MiB line: hours). Now the line gets its parse error and the next
    request its answer within seconds."""
    server = Server(inited)
    try:
        server.send(INIT + b"\n" + INITIALIZED + b"\n")
        assert server.answer()["id"] == 1
        server.send(b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"' + b'\\"' * 32000 + b"\n"
                    b'{"jsonrpc":"2.0","id":8,"method":"ping"}\n')
        assert server.answer(timeout=5)["error"]["code"] == -32700  # (not JSON: the SDK's parse error)
        assert server.answer(timeout=5) == {"jsonrpc": "2.0", "id": 8, "result": {}}
    finally:
        assert server.close() == 0


def test_a_deeply_nested_notification_gets_no_answer(inited):
    """JSON-RPC 2.0 never answers a notification (a method and no id), but a notification nested
    past the bound got ``-32600 … nested deeper than 128 levels`` with a null id. It is dropped
    unanswered, as a blank line is; a deep message with neither id nor method still gets
    ``-32600`` with a null id (the spec's answer when the id cannot be told), and a deep request
    its ``-32602`` with its id."""
    deep = b"[" * 300 + b"1" + b"]" * 300
    server = Server(inited)
    try:
        server.send(INIT + b"\n" + INITIALIZED + b"\n")
        assert server.answer()["id"] == 1
        server.send(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":' + deep + b'}}\n'
                    b'{"jsonrpc":"2.0","params":{"x":' + deep + b'}}\n'
                    b'{"jsonrpc":"2.0","method":"ping","params":{"x":' + deep + b'},"id":9}\n'
                    b'{"jsonrpc":"2.0","id":10,"method":"ping"}\n')
        answers = [server.answer(timeout=30) for _ in range(3)]
        assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [(None, -32600), (9, -32602),
                                                                               (10, None)]
        assert answers[0]["error"]["message"] == "Invalid Request: nested deeper than 128 levels; it was not read"
    finally:
        assert server.close() == 0


CALL = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_brief","arguments":{}}}'


def test_a_client_that_went_away_ends_the_server_quietly(inited):
    """A client that closed its end (``| head -c 0``): the SDK's writer met the closed pipe inside
    an anyio task group, and the server said ``internal error: ExceptionGroup``. Now it ends as
    any git-hn whose reader went away: no line."""
    proc = subprocess.Popen(["git-hn", "mcp"], cwd=inited, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    _out, err = proc.communicate(INIT + b"\n" + CALL + b"\n", timeout=60)
    assert err == b"" and proc.returncode == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_under_the_servers_output_is_said_with_its_reason(inited):
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(["git-hn", "mcp"], cwd=inited, input=INIT + b"\n" + CALL + b"\n", stdout=full,
                              stderr=subprocess.PIPE, timeout=60)
    assert proc.stderr == b"git-hn: cannot write the output: No space left on device\n"
    assert proc.returncode == 1
