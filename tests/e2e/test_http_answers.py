"""How the listener answers a POST: an event stream whose first event is the answer goes out
as that answer in a JSON body (runtime/http.py's AnswerAsJson); anything else flows as it
came. Driven with the messages the SDK's transport sends, no server."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from starlette.types import Message

from tmux_contract_mcp.http import AnswerAsJson

SSE_START: Message = {
    "type": "http.response.start",
    "status": 200,
    "headers": [
        (b"cache-control", b"no-cache, no-transform"),
        (b"connection", b"keep-alive"),
        (b"content-type", b"text/event-stream"),
        (b"mcp-session-id", b"abc123"),
    ],
}


def event(payload: dict[str, Any]) -> Message:
    data = json.dumps(payload, separators=(",", ":")).encode()
    body = b"event: message\r\ndata: " + data + b"\r\n\r\n"
    return {"type": "http.response.body", "body": body, "more_body": True}


END: Message = {"type": "http.response.body", "body": b"", "more_body": False}
ANSWER = {"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": False}}
PROGRESS = {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {"progressToken": 1, "progress": 1.0},
}


def run(request_id: Any, messages: list[Message]) -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def main() -> None:
        sender = AnswerAsJson(send, request_id)
        for message in messages:
            await sender(message)

    anyio.run(main)
    return sent


def test_a_stream_that_only_answers_becomes_one_json_body() -> None:
    start, body = run(7, [SSE_START, event(ANSWER), END])
    headers = dict(start["headers"])
    assert headers[b"content-type"] == b"application/json"
    assert headers[b"mcp-session-id"] == b"abc123"  # the session's header stays
    assert b"cache-control" not in headers and b"connection" not in headers
    assert json.loads(body["body"]) == ANSWER
    assert int(headers[b"content-length"]) == len(body["body"])
    assert not body.get("more_body")


@pytest.mark.parametrize("first", [PROGRESS, {"ping": True}])
def test_a_stream_with_anything_before_the_answer_flows_as_it_came(first: dict[str, Any]) -> None:
    messages = [SSE_START, event(first), event(ANSWER), END]
    assert run(7, messages) == messages


def test_an_event_answering_another_request_is_no_answer_to_this_one() -> None:
    messages = [SSE_START, event({**ANSWER, "id": 8}), END]
    assert run(7, messages) == messages
    assert run("7", [SSE_START, event(ANSWER), END]) == [SSE_START, event(ANSWER), END]


def test_a_json_answer_and_a_stream_without_a_request_pass_through() -> None:
    plain: Message = {"type": "http.response.start", "status": 202, "headers": []}
    assert run(7, [plain, END]) == [plain, END]
    assert run(None, [SSE_START, event(PROGRESS)]) == [SSE_START, event(PROGRESS)]
