"""A server over raw pipes and the malformed lines it is fed: the stdio protocol tests and
the HTTP tests (which expect the same answers for the same bodies) share them."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from typing import Any

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.wire import INITIALIZE, INITIALIZED
from tmux_contract_mcp.stdio import DEPTH_LIMIT

PARSE, INVALID, NO_METHOD, BAD_PARAMS = -32700, -32600, -32601, -32602
ANY_ID = object()  # an expectation: null, or the id of the message the line was made from


class RawWire:
    """One server process; bytes in, answers (one JSON object a line) out."""

    def __init__(self, tmux: TmuxServer) -> None:
        self.process = subprocess.Popen(
            [COMMAND, "--profile", "python"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=tmux.server_env(),
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin.fileno(), self.process.stdout.fileno()
        self.pending = b""
        self.pings = 0
        self.initialized = False

    def initialize(self) -> None:
        self.send(json.dumps(INITIALIZE).encode() + b"\n")
        assert self.answer()["id"] == 1
        self.send(json.dumps(INITIALIZED).encode() + b"\n")
        self.initialized = True

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.stdin, view) :]

    def answer(self, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.stdout], [], [], max(left, 0))
            assert ready, f"no answer within {timeout:g}s"
            chunk = os.read(self.stdout, 1 << 16)
            assert chunk, "the server closed its stdout: it is no longer serving"
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        answer = json.loads(line)
        assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0", line[:200]
        assert ("result" in answer) != ("error" in answer), line[:200]
        return answer

    def answers_to(self, line: bytes, expected: int) -> list[dict[str, Any]]:
        """What ``line`` is answered with: every answer that arrives until a ping sent after
        it is answered and at least ``expected`` answers have come, the ping's left out."""
        self.pings += 1
        ping = f"ping-{self.pings}"
        self.send(
            line
            + b"\n"
            + json.dumps({"jsonrpc": "2.0", "id": ping, "method": "ping"}).encode()
            + b"\n"
        )
        answers: list[dict[str, Any]] = []
        pinged = False
        while not pinged or len(answers) < expected:
            answer = self.answer()
            if answer.get("id") == ping:
                assert answer["result"] == {}, answer
                pinged = True
            else:
                answers.append(answer)
        return answers

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def request(rid: str = "7", method: str = '"ping"', more: str = "") -> bytes:
    """A request line with ``rid`` and ``method`` as raw JSON text."""
    return f'{{"jsonrpc": "2.0", "id": {rid}, "method": {method}{more}}}'.encode()


def nested(depth: int, inner: str = "0") -> str:
    return "[" * depth + inner + "]" * depth


# line -> the answers it must get: (id, error code), a code of None meaning a result; and
# a text the first answer's message must hold, if any.
Expected = list[tuple[Any, int | None]]
CASES: dict[str, tuple[bytes, Expected, str]] = {
    # not JSON
    "not JSON at all": (b"hello", [(None, PARSE)], "not JSON"),
    "an object cut short": (b'{"jsonrpc": "2.0", "id": 5, "method": "ping"', [(5, PARSE)], ""),
    "cut short in its id": (b'{"jsonrpc": "2.0", "method": "ping", "id": 5', [(None, PARSE)], ""),
    "broken after its id and method": (
        request("6", more=', "params": {"a": tru}'),
        [(6, PARSE)],
        "",
    ),
    "a trailing comma": (request("6", more=","), [(6, PARSE)], ""),
    "NaN": (request("8", more=', "params": {"a": NaN}'), [(8, PARSE)], "NaN"),
    "Infinity": (request("8", more=', "params": {"a": -Infinity}'), [(8, PARSE)], "Infinity"),
    "a NUL byte after the object": (request("21") + b"\x00", [(21, PARSE)], ""),
    "a raw NUL byte in a string": (request('"a\x00b"'), [(None, PARSE)], ""),
    "a raw control character in a string": (
        request("9", more=', "params": {"a": "\x01"}'),
        [(9, PARSE)],
        "",
    ),
    "invalid UTF-8 outside a string": (request("30") + b"\xff", [(30, PARSE)], ""),
    "an integer id of 5,000 digits": (request("1" + "0" * 5000), [(None, PARSE)], "4300"),
    # JSON, but not a request
    "a batch": (b'[{"jsonrpc": "2.0", "id": 10, "method": "ping"}]', [(None, INVALID)], "batch"),
    "an empty batch": (b"[]", [(None, INVALID)], "batch"),
    "a batch of notifications": (
        b'[{"jsonrpc": "2.0", "method": "notifications/initialized"}]',
        [(None, INVALID)],
        "batch",
    ),
    "a number": (b"5", [(None, INVALID)], "not an object"),
    "a string": (b'"ping"', [(None, INVALID)], "not an object"),
    "null": (b"null", [(None, INVALID)], "not an object"),
    "an empty object": (b"{}", [(None, INVALID)], ""),
    "no jsonrpc": (b'{"id": 11, "method": "ping"}', [(11, INVALID)], '"jsonrpc"'),
    "jsonrpc 1.0": (
        b'{"jsonrpc": "1.0", "id": 12, "method": "ping"}',
        [(12, INVALID)],
        '"jsonrpc"',
    ),
    "jsonrpc as a number": (
        b'{"jsonrpc": 2.0, "id": 12, "method": "ping"}',
        [(12, INVALID)],
        '"jsonrpc"',
    ),
    "an id and no method": (b'{"jsonrpc": "2.0", "id": 14}', [(14, INVALID)], '"method"'),
    "a method that is a number": (request("13", "5"), [(13, INVALID)], '"method"'),
    "a method that is null": (request("13", "null"), [(13, INVALID)], '"method"'),
    "a method that is an object": (request("13", "{}"), [(13, INVALID)], '"method"'),
    "a method with a lone surrogate": (
        request("13", '"pi\\ud800ng"'),
        [(13, INVALID)],
        "surrogate",
    ),
    "params that are an array": (
        request("15", more=', "params": [1]'),
        [(15, INVALID)],
        '"params"',
    ),
    "params that are a string": (
        request("16", more=', "params": "x"'),
        [(16, INVALID)],
        '"params"',
    ),
    "params that are a number": (request("16", more=', "params": 5'), [(16, INVALID)], '"params"'),
    # ids of every JSON type
    "a string id": (request('"s"'), [("s", None)], ""),
    "an empty string id": (request('""'), [("", None)], ""),
    "a negative id": (request("-3"), [(-3, None)], ""),
    "an id of 10**400": (request(str(10**400)), [(10**400, None)], ""),
    "an id with an escaped NUL": (request('"a\\u0000b"'), [("a\x00b", None)], ""),
    "a float id": (request("1.5"), [(None, INVALID)], '"id"'),
    "an integral float id": (request("1.0"), [(None, INVALID)], '"id"'),
    "an id of 1e400": (request("1e400"), [(None, INVALID)], '"id"'),
    "a true id": (request("true"), [(None, INVALID)], '"id"'),
    "a null id": (request("null"), [(None, INVALID)], '"id"'),
    "an object id": (request('{"a": 1}'), [(None, INVALID)], '"id"'),
    "an array id": (request("[1]"), [(None, INVALID)], '"id"'),
    "an id with a lone surrogate": (request('"\\ud800"'), [(None, INVALID)], "surrogate"),
    # framing and text
    "a byte order mark": (b"\xef\xbb\xbf" + request("19"), [(19, None)], ""),
    "a CRLF line end": (request("20") + b"\r", [(20, None)], ""),
    "invalid UTF-8 in a string": (
        request("18", more=', "params": {"a": "\xff"}'),
        [(18, None)],
        "",
    ),
    "a lone surrogate in params": (
        request("9", more=', "params": {"a": "\\ud800"}'),
        [(9, None)],
        "",
    ),
    "NaN inside a string": (request("8", more=', "params": {"a": "NaN"}'), [(8, None)], ""),
    "params null": (request("17", more=', "params": null'), [(17, None)], ""),
    "a duplicate id, the last taken": (
        b'{"jsonrpc": "2.0", "id": 24, "id": 25, "method": "ping"}',
        [(25, None)],
        "",
    ),
    "a blank line": (b"  \t", [], ""),
    "an empty line": (b"", [], ""),
    "a line of several MB": (
        request("31", more=', "params": {"pad": "' + "x" * 4_000_000 + '"}'),
        [(31, None)],
        "",
    ),
    # nesting
    f"{DEPTH_LIMIT} deep, the message counted": (
        request("40", more=f', "params": {{"a": {nested(DEPTH_LIMIT - 2)}}}'),
        [(40, None)],
        "",
    ),
    f"{DEPTH_LIMIT + 1} deep": (
        request("41", more=f', "params": {{"a": {nested(DEPTH_LIMIT - 1)}}}'),
        [(41, INVALID)],
        str(DEPTH_LIMIT),
    ),
    "200 deep in params": (
        request("42", more=f', "params": {{"a": {nested(200)}}}'),
        [(42, INVALID)],
        str(DEPTH_LIMIT),
    ),
    "100,000 deep in params": (
        request("43", more=f', "params": {{"a": {nested(100_000)}}}'),
        [(43, INVALID)],
        str(DEPTH_LIMIT),
    ),
    "200 deep in the id": (request(nested(200)), [(None, INVALID)], str(DEPTH_LIMIT)),
    "100,000 deep in the id": (request(nested(100_000)), [(None, INVALID)], str(DEPTH_LIMIT)),
    "200 deep, the id after it": (
        b'{"jsonrpc": "2.0", "method": "ping", "params": {"a": '
        + nested(200).encode()
        + b'}, "id": 44}',
        [(44, INVALID)],
        str(DEPTH_LIMIT),
    ),
    "100,000 deep and cut short": (
        request("45", more=', "params": ' + "[" * 100_000),
        [(45, INVALID)],
        str(DEPTH_LIMIT),
    ),
    "brackets inside a string do not nest": (
        request("46", more=', "params": {"a": "' + "[" * 500 + '"}'),
        [(46, None)],
        "",
    ),
    "an escaped quote then brackets, all in a string": (
        request("47", more=', "params": {"a": "\\"' + "[" * 200 + '\\""}'),
        [(47, None)],
        "",
    ),
    "an escaped backslash ending a string, then too deep": (
        request("48", more=', "params": {"a": ["\\\\", ' + nested(DEPTH_LIMIT - 2) + "]}"),
        [(48, INVALID)],
        str(DEPTH_LIMIT),
    ),
    "200 deep in a response": (
        b'{"jsonrpc": "2.0", "id": 99, "result": {"a": ' + nested(200).encode() + b"}}",
        [],
        "",
    ),
    # notifications and responses: never answered
    "initialized again": (b'{"jsonrpc": "2.0", "method": "notifications/initialized"}', [], ""),
    "an unknown notification": (b'{"jsonrpc": "2.0", "method": "notifications/nope"}', [], ""),
    "a cancellation with bad params": (
        b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": []}}',
        [],
        "",
    ),
    "progress with bad params": (
        b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": "x"}}',
        [],
        "",
    ),
    "a notification whose params are no object": (
        b'{"jsonrpc": "2.0", "method": "notifications/initialized", "params": 5}',
        [(None, INVALID)],
        '"params"',
    ),
    "a notification whose method is a number": (
        b'{"jsonrpc": "2.0", "method": 5}',
        [(None, INVALID)],
        '"method"',
    ),
    "a response to nothing": (b'{"jsonrpc": "2.0", "id": 99, "result": {}}', [], ""),
    "an error to nothing": (
        b'{"jsonrpc": "2.0", "id": 99, "error": {"code": 1, "message": "x"}}',
        [],
        "",
    ),
    "a response with a lone surrogate": (
        b'{"jsonrpc": "2.0", "id": 99, "result": {"a": "\\ud800"}}',
        [],
        "",
    ),
    "a response whose result is no object": (b'{"jsonrpc": "2.0", "id": 99, "result": 5}', [], ""),
    # requests the server reads and refuses
    "an unknown method": (request("50", '"nope"'), [(50, NO_METHOD)], ""),
    "a notification method as a request": (
        request("51", '"notifications/nope"'),
        [(51, NO_METHOD)],
        "",
    ),
    "tools/call with a name that is a number": (
        request("52", '"tools/call"', ', "params": {"name": 5}'),
        [(52, BAD_PARAMS)],
        "",
    ),
}
