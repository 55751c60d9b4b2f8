"""The lean POST path (runtime/http_lean.py) answers every request as the SDK's own path
does, byte for byte: the same requests are sent to two listeners over the same server and
tmux, one with the lean path and one without, and their answers compared; a plain request
is answered without an event stream, without the SDK's layers and without its message
router, a request that goes quiet streams as the SDK's does, the listener's reading of a
body serves the SDK's session only when the SDK's parser reads it alike, and the SDK
release the module is written against is the one installed."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
import pydantic_core
import pytest
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import (
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from sse_starlette import EventSourceResponse

from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.http import INITIALIZE, JSON_HEADERS
from tmux_contract_mcp.http import Gate, read_alike
from tmux_contract_mcp.http_lean import (
    SDK_VERSION,
    LeanSessionManager,
    LeanTransport,
    sdk_version,
)
from tmux_contract_mcp.listener import PATH, Bound, Listener, bind
from tmux_contract_mcp.logs import ClientLog
from tmux_contract_mcp.profiles import create_handlers, load_profile
from tmux_contract_mcp.server import build_server
from tmux_contract_mcp.stdio import read_message
from tmux_contract_mcp.tokens import Token

pytestmark = pytest.mark.anyio

SECRET = "lean-test-token"
SESSION = "mcp-session-id"


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass
class Stack:
    """One listener (lean or not) and a client session on it."""

    client: httpx2.AsyncClient
    session: str = ""
    protocol: str = ""

    async def post(self, message: Any, **headers: str) -> Answer:
        sent = {**JSON_HEADERS, "Authorization": f"Bearer {SECRET}"}
        if self.session:
            sent[SESSION] = self.session
        if self.protocol:
            sent["mcp-protocol-version"] = self.protocol
        sent.update(headers)
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        response = await self.client.post(PATH, content=body, headers=sent)
        if response.headers.get(SESSION) and not self.session:
            self.session = response.headers[SESSION]
            self.protocol = response.json()["result"]["protocolVersion"]
        kept = [(k.lower(), v) for k, v in response.headers.multi_items()]
        return Answer(response.status_code, kept, response.content)


def same(answer: Answer, session: str) -> Answer:
    """``answer`` with its session id written as one placeholder."""
    mark = session.encode()
    return Answer(
        answer.status,
        [(k, v.replace(session, "<session>")) for k, v in answer.headers],
        answer.body.replace(mark, b"<session>"),
    )


@asynccontextmanager
async def stack(tmux: TmuxServer, lean: bool) -> AsyncIterator[Stack]:
    """A listener in this process over the python profile's handlers on ``tmux``."""
    profile = load_profile("python")
    handlers = create_handlers(profile, tmux.server_env())
    client_log = ClientLog(logging.getLogger("tmux_contract_mcp"))
    server = build_server(profile, handlers, client_log=client_log)
    sock = bind(Listener("127.0.0.1", 0))  # for a port of its own: Host is checked against it
    port = int(sock.getsockname()[1])
    bound = Bound(Listener("127.0.0.1", port), sock, Token(SECRET.encode()))
    manager = LeanSessionManager(server, max_request_body_size=1 << 20, lean=lean)
    gate = Gate(manager, bound)
    transport = httpx2.ASGITransport(app=gate)
    try:
        async with (
            manager.run(),
            httpx2.AsyncClient(transport=transport, base_url=f"http://127.0.0.1:{port}") as client,
        ):
            yield Stack(client)
    finally:
        sock.close()
        await client_log.aclose()
        await handlers.aclose()


def rpc(ident: int | str, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return message


NOTIFICATION = {"jsonrpc": "2.0", "method": "notifications/initialized"}
EXCHANGES: list[tuple[Any, dict[str, str]]] = [
    (rpc(2, "ping"), {}),
    (rpc(3, "tools/list"), {}),
    (rpc(4, "tools/call", {"name": "list_sessions", "arguments": {}}), {}),
    (rpc("five", "tools/call", {"name": "capture_pane", "arguments": {"pane_id": 7}}), {}),
    (rpc(6, "tools/call", {"name": "no_such_tool", "arguments": {}}), {}),
    (rpc(7, "tools/call", {"name": 5}), {}),
    (rpc(8, "no/such_method"), {}),
    (rpc(9, "resources/list"), {}),
    (rpc(10, "prompts/list"), {}),
    (rpc(11, "logging/setLevel", {"level": "debug"}), {}),
    (rpc(12, "tools/list", {"_meta": {"level": "debug"}}), {}),
    (rpc(13, "tools/list", {"_meta": {"progressToken": "p"}}), {}),
    ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}, {}),
    ({"jsonrpc": "2.0", "id": 14, "result": {}}, {}),
    (rpc(15, "ping"), {"Accept": "application/json"}),
    (rpc(16, "ping"), {"Content-Type": "text/plain"}),
    (rpc(17, "ping"), {SESSION: "not-this-session"}),
    (rpc(18, "ping"), {"mcp-protocol-version": "1999-01-01"}),
    (rpc(19, "initialize", INITIALIZE["params"]), {}),
    (b'{"jsonrpc": "2.0", "id": 20, "method": "ping", "params": []}', {}),
    # Bodies the SDK's parser reads otherwise than the listener, or may: read again its way.
    (b'\xef\xbb\xbf{"jsonrpc": "2.0", "id": 21, "method": "ping"}', {}),
    (b'{"jsonrpc": "2.0", "id": 22, "method": "ping", "params": {"x": "\\ud800"}}', {}),
    (b'{"jsonrpc": "2.0", "id": 23, "method": "ping", "params": {"x": NaN}}', {}),
    (b'{"jsonrpc": "2.0", "id": 24, "method": "ping", "params": {"x": "\xff"}}', {}),
    # Bodies it reads alike: answered on the lean path from the listener's reading.
    ('{"jsonrpc": "2.0", "id": 25, "method": "ping", "params": {"x": "é ✓"}}'.encode(), {}),
    (b'{"jsonrpc": "2.0", "id": 26, "id": 27, "method": "ping"}', {}),
    (b'{"jsonrpc": "2.0", "id": 28.0, "method": "ping", "params": {"x": 1e400}}', {}),
    (b'{"jsonrpc": "2.0", "id": 29, "method": "ping", "params": {"x": "\\u00e9"}}', {}),
]


async def test_every_request_is_answered_byte_for_byte_as_the_sdks_path_answers_it(
    tmux: TmuxServer,
) -> None:
    tmux.new_session("lean", "cat", width=80, height=10)
    answers: dict[bool, list[Answer]] = {}
    for lean in (True, False):
        async with stack(tmux, lean) as web:
            opened = await web.post(INITIALIZE)
            assert opened.status == 200 and web.session
            answered = [opened, await web.post(NOTIFICATION)]
            for message, headers in EXCHANGES:
                answered.append(await web.post(message, **headers))
            answers[lean] = [same(answer, web.session) for answer in answered]
    lean_answers, sdk_answers = answers[True], answers[False]
    assert len(lean_answers) == len(sdk_answers) == len(EXCHANGES) + 2
    for sent, mine, theirs in zip(
        [INITIALIZE, NOTIFICATION, *(m for m, _ in EXCHANGES)],
        lean_answers,
        sdk_answers,
        strict=True,
    ):
        assert mine == theirs, sent
    statuses = [answer.status for answer in lean_answers]
    assert statuses[1] == 202  # a notification is accepted, no body
    bodies = [json.loads(a.body) for a in lean_answers[2:] if a.body.startswith(b"{")]
    by_id = {body["id"]: body for body in bodies if isinstance(body, dict) and "id" in body}
    assert by_id[2]["result"] == {}
    assert "list_sessions" in json.dumps(by_id[3]["result"])
    assert by_id["five"]["result"]["isError"] is True
    assert by_id[7]["error"]["code"] == -32602
    assert by_id[8]["error"]["code"] == -32601
    assert by_id[13]["result"]["tools"] == by_id[3]["result"]["tools"]


async def test_a_plain_request_is_answered_without_an_event_stream_and_a_progress_one_with(
    tmux: TmuxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    streams: list[object] = []
    opened = EventSourceResponse.__call__

    async def counted(self: EventSourceResponse, *args: Any) -> None:
        streams.append(self)
        await opened(self, *args)

    monkeypatch.setattr(EventSourceResponse, "__call__", counted)
    async with stack(tmux, lean=True) as web:
        await web.post(INITIALIZE)
        await web.post(NOTIFICATION)
        streams.clear()
        plain = await web.post(rpc(2, "tools/call", {"name": "list_sessions", "arguments": {}}))
        assert plain.status == 200 and ("content-type", "application/json") in plain.headers
        assert streams == []
        progress = {"name": "list_sessions", "arguments": {}, "_meta": {"progressToken": 1}}
        await web.post(rpc(3, "tools/call", progress))
        assert len(streams) == 1


PING = re.compile(rb"^: ping - [^\r\n]*\r\n\r\n")


async def test_a_request_quiet_past_the_ping_interval_streams_a_ping_then_its_answer(
    tmux: TmuxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(EventSourceResponse, "DEFAULT_PING_INTERVAL", 0.3)
    made = tmux.new_session("quiet", "cat", width=80, height=10)
    tmux.until_started(made.pane)
    async with stack(tmux, lean=True) as web:
        await web.post(INITIALIZE)
        await web.post(NOTIFICATION)
        wait = {"pane_id": made.pane, "patterns": ["LEAN_DONE"], "timeout": 20}
        answer: list[Answer] = []

        async def call() -> None:
            message = rpc(2, "tools/call", {"name": "wait_for_text", "arguments": wait})
            answer.append(await web.post(message))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await anyio.sleep(1.0)
            tmux.tmux("send-keys", "-t", made.pane, "-l", "LEAN_DONE")
            tmux.tmux("send-keys", "-t", made.pane, "Enter")
    (streamed,) = answer
    assert streamed.status == 200
    assert dict(streamed.headers)["content-type"].startswith("text/event-stream")
    assert PING.match(streamed.body), streamed.body[:80]
    events = [e for e in PING.sub(b"", streamed.body).split(b"\r\n\r\n") if e.strip()]
    data = json.loads(events[-1].split(b"data: ", 1)[1])
    assert data["id"] == 2 and data["result"]["isError"] is False


async def test_a_plain_request_is_answered_past_the_sdks_layers_and_its_message_router(
    tmux: TmuxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[bool] = []
    delivered: list[bool] = []
    answer, deliver = LeanSessionManager.answer, LeanTransport.deliver

    async def answering(self: LeanSessionManager, *args: Any) -> bool:
        taken.append(await answer(self, *args))
        return taken[-1]

    def delivering(self: LeanTransport, item: SessionMessage) -> bool:
        delivered.append(deliver(self, item))
        return delivered[-1]

    monkeypatch.setattr(LeanSessionManager, "answer", answering)
    monkeypatch.setattr(LeanTransport, "deliver", delivering)
    async with stack(tmux, lean=True) as web:
        await web.post(INITIALIZE)
        await web.post(NOTIFICATION)
        taken.clear()
        delivered.clear()
        plain = await web.post(rpc(2, "tools/call", {"name": "list_sessions", "arguments": {}}))
        assert plain.status == 200 and json.loads(plain.body)["id"] == 2
        assert taken == [True] and delivered == [True]
        await web.post(rpc(3, "ping"), **{SESSION: "not-this-session"})
        await web.post(b'{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"x": NaN}}')
        assert taken == [True, False]  # the SDK's path takes the foreign session at once


async def test_the_answer_to_a_request_something_else_was_sent_for_follows_it_through_the_router(
    tmux: TmuxServer,
) -> None:
    async with stack(tmux, lean=True) as web:
        await web.post(INITIALIZE)
        manager = web.client._transport.app.manager  # type: ignore[attr-defined]
        (transport,) = manager._server_instances.values()
        assert isinstance(transport, LeanTransport)
        for key in ("7", "8"):
            transport._lean_ids.add(key)
            transport._request_streams[key] = anyio.create_memory_object_stream(8)
        related = ServerMessageMetadata(related_request_id=7)
        note = JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={})
        assert not transport.deliver(SessionMessage(note, metadata=related))
        assert not transport.deliver(
            SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=7, result={}))
        )
        assert transport.deliver(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=8, result={})))
        event = transport._request_streams["8"][1].receive_nowait()
        assert event.message == JSONRPCResponse(jsonrpc="2.0", id=8, result={})
        for key in ("7", "8"):
            await transport._clean_up_memory_streams(key)


READ_ALIKE = [
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}',
    '{"jsonrpc":"2.0","id":"é","method":"m","params":{"text":"✓ \\u00e9 \\u2713"}}'.encode(),
    b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "m", "method": "n"}',
    b'{"jsonrpc": "2.0", "id": 3, "method": "m", "params": {"a": 1e400, "b": -0.0, "c": 1.5}}',
    b'{"jsonrpc": "2.0", "id": 4, "method": "m", "params": {"big": 123456789012345678901234567890}}',
    b'{"jsonrpc": "2.0", "id": 5, "method": "m", "params": {"deep": [[[{"a": [null, true]}]]]}}',
    b'  {"params": {"_meta": {"level": "debug"}}, "method": "m", "id": "6", "jsonrpc": "2.0"}\n',
]
READ_OTHERWISE = [  # the last: a surrogate pair, read alike, but any escaped surrogate goes
    b'\xef\xbb\xbf{"jsonrpc": "2.0", "id": 1, "method": "m"}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": "\\uD800"}}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": NaN}}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": -Infinity}}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": "\xc3"}}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": "\\ud83d\\ude00"}}',
]


@pytest.mark.parametrize("body", READ_ALIKE)
def test_a_body_read_alike_is_the_message_the_sdks_parser_reads(body: bytes) -> None:
    assert read_alike(body)
    mine = read_message(body)
    assert isinstance(mine, SessionMessage) and isinstance(mine.message, JSONRPCRequest)
    sdks = jsonrpc_message_adapter.validate_python(pydantic_core.from_json(body), by_name=False)
    assert mine.message == sdks
    assert mine.message.model_dump_json(by_alias=True) == sdks.model_dump_json(by_alias=True)


@pytest.mark.parametrize("body", READ_OTHERWISE)
def test_a_body_the_sdks_parser_may_read_otherwise_is_read_again_its_way(body: bytes) -> None:
    assert not read_alike(body)


def test_the_installed_sdk_is_the_release_the_lean_path_is_written_against() -> None:
    assert sdk_version() == SDK_VERSION
