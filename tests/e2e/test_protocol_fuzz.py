"""Malformed protocol lines, written as raw bytes to one installed server over its pipes.

Each line gets what JSON-RPC 2.0 and MCP require: -32700 for a line that is not JSON,
-32600 for JSON that is no request, the request's id when it can be read (else null),
and nothing for a notification or a response; after each, a ping is still answered.
The table names every kind; a seeded, bounded generator adds lines no table lists.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.wire import INITIALIZE, INITIALIZED
from tmux_contract_mcp.stdio import DEPTH_LIMIT, LINE_LIMIT

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


@pytest.fixture(scope="module")
def raw(shared: TmuxServer) -> Iterator[RawWire]:
    """The module's one server, not yet initialized."""
    opened = RawWire(shared)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def wire(raw: RawWire) -> RawWire:
    """The module's server, initialized."""
    if not raw.initialized:
        raw.initialize()
    return raw


def test_a_request_before_initialize_is_answered_and_ping_works(
    raw: RawWire, shared: TmuxServer
) -> None:
    # First in the file, so it finds the module's server uninitialized (else it starts one).
    fresh = raw if not raw.initialized else RawWire(shared)
    try:
        # Without initialize the SDK reads a request as one of the stateless protocol
        # (2026-07-28), whose params must carry the version: an error, with the id.
        (listed,) = fresh.answers_to(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}', 1)
        assert shape(listed) == (2, BAD_PARAMS)
        (broken,) = fresh.answers_to(b"{", 1)
        assert shape(broken) == (None, PARSE)
    finally:
        if fresh is not raw:
            fresh.close()


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


@pytest.mark.parametrize("case", list(CASES))
def test_each_kind_of_malformed_line_gets_its_answer_and_the_server_serves_on(
    wire: RawWire, case: str
) -> None:
    line, expected, says = CASES[case]
    answers = wire.answers_to(line, len(expected))
    got = sorted((shape(answer) for answer in answers), key=repr)
    assert got == sorted(expected, key=repr), answers
    if says:
        assert says in answers[0]["error"]["message"], answers[0]


def shape(answer: dict[str, Any]) -> tuple[Any, int | None]:
    return answer["id"], answer["error"]["code"] if "error" in answer else None


def test_a_line_over_the_limit_is_skipped_and_answered_with_its_id(wire: RawWire) -> None:
    start = request("60", more=', "params": {"pad": "')
    line = start + b"x" * (LINE_LIMIT + 1 - len(start) - 2) + b'"}'
    assert len(line) == LINE_LIMIT + 1
    (answer,) = wire.answers_to(line, 1)
    assert shape(answer) == (60, INVALID)
    assert str(LINE_LIMIT) in answer["error"]["message"], answer


# --- generated lines ----------------------------------------------------------------------------

KEYS = st.text("abcdefghij", min_size=1, max_size=5)  # never a member the SDK reads (_meta, cursor)
TEXT = st.text(
    st.characters(codec=None, exclude_categories=()), max_size=6
)  # NUL and surrogates too
SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def envelopes(draw: st.DrawFn) -> dict[str, Any]:
    """A request or notification, most members well formed, any of them wrong or missing."""
    ids = st.integers(-(2**70), 2**70) | TEXT
    choices: dict[str, tuple[st.SearchStrategy[Any], ...]] = {
        # member: (well formed, wrong); each is also missing a tenth of the time
        "jsonrpc": (st.just("2.0"), VALUES),
        "id": (ids, VALUES),
        "method": (st.sampled_from(["ping", "nope"]), TEXT | VALUES),
        "params": (st.dictionaries(KEYS, VALUES, max_size=2), VALUES),
    }
    envelope = {}
    for member, (good, bad) in choices.items():
        pick = draw(st.integers(0, 9))
        if pick == 0 or (member == "id" and pick == 1):  # a notification a fifth of the time
            continue
        envelope[member] = draw(bad if pick == 9 else good)
    return envelope


RESPONSES = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": st.integers(1000, 2000)},
    optional={"result": VALUES, "error": VALUES},
).filter(lambda response: "result" in response or "error" in response)
MESSAGES = envelopes() | RESPONSES | VALUES


@st.composite
def lines(draw: st.DrawFn) -> tuple[bytes, Any]:
    """A message as JSON, whole or with one byte cut, inserted or changed; and the message."""
    message = draw(MESSAGES)
    line = json.dumps(message).encode()
    edit = draw(st.sampled_from(["none", "none", "none", "cut", "insert", "replace", "delete"]))
    if edit == "none":
        return line, message
    at = draw(st.integers(0, len(line) - 1))
    byte = bytes([draw(st.integers(0, 255).filter(lambda b: b != ord("\n")))])
    edited = {
        "cut": line[:at],
        "insert": line[:at] + byte + line[at:],
        "replace": line[:at] + byte + line[at + 1 :],
        "delete": line[:at] + line[at + 1 :],
    }[edit]
    return edited, message


def writable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except (UnicodeEncodeError, ValueError):
        return False
    return True


def valid_id(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and writable(value)
    )


def refuse_constant(name: str) -> None:
    raise ValueError(name)


def expected_answers(line: bytes) -> Expected:
    """What JSON-RPC 2.0 and MCP ask of a line, worked out apart from the server's code."""
    text = line.decode("utf-8", "replace")
    if not text.strip():
        return []
    try:
        value = json.loads(text, parse_constant=refuse_constant)
    except ValueError:
        return [(ANY_ID, PARSE)]
    if not isinstance(value, dict):
        return [(None, INVALID)]
    if "method" not in value and ("result" in value or "error" in value):
        return []  # a response
    rid = value.get("id")
    method = value.get("method")
    if (
        value.get("jsonrpc") != "2.0"
        or not isinstance(method, str)
        or not writable(method)
        or ("id" in value and not valid_id(rid))
        or not (value.get("params") is None or isinstance(value["params"], dict))
    ):
        return [(rid if valid_id(rid) else None, INVALID)]
    if "id" not in value:
        return []  # a notification
    return [(rid, None if method == "ping" else NO_METHOD)]


@seed(15)
@settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(drawn=lines())
def test_generated_lines_get_what_json_rpc_asks_and_the_server_serves_on(
    wire: RawWire, drawn: tuple[bytes, Any]
) -> None:
    line, message = drawn
    expected = expected_answers(line)
    got = [shape(answer) for answer in wire.answers_to(line, len(expected))]
    assert len(got) == len(expected), (line, got)
    for (rid, code), (want_id, want_code) in zip(got, expected, strict=True):
        assert code == want_code, (line, got)
        if want_id is ANY_ID:  # read from the line's start only where that is still JSON
            sent = message.get("id") if isinstance(message, dict) else None
            assert rid is None or (rid == sent and valid_id(rid)), (line, got)
        else:
            assert rid == want_id, (line, got)
