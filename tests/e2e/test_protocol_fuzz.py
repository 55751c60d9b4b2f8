"""Malformed protocol lines, written as raw bytes to one installed server over its pipes.

Each line gets what JSON-RPC 2.0 and MCP require: -32700 for a line that is not JSON,
-32600 for JSON that is no request, the request's id when it can be read (else null),
and nothing for a notification or a response; after each, a ping is still answered.
The table names every kind; a seeded, bounded generator adds lines no table lists.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.rawwire import (
    ANY_ID,
    BAD_PARAMS,
    CASES,
    INVALID,
    NO_METHOD,
    PARSE,
    Expected,
    RawWire,
    request,
)
from tmux_contract_mcp.stdio import LINE_LIMIT


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
