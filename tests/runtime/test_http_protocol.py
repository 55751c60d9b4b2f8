"""The listener's HTTP protocol (runtime/http_protocol.py) on a real socket: an answer's
head and body go out in one write, a head whose body does not follow at once goes out by
itself, and a request whose body arrived whole is marked so for the listener."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from tmux_contract_mcp.http_protocol import WHOLE_BODY_KEY, DeadlineProtocol

pytestmark = pytest.mark.anyio

BODY = b'{"ok":true}'


class App:
    """Answers every request with ``BODY``; ``pause`` seconds between head and body."""

    def __init__(self, pause: float = 0.0) -> None:
        self.pause = pause
        self.whole: list[bool] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.whole.append(bool(scope.get(WHOLE_BODY_KEY)))
        more = True
        while more:
            more = bool((await receive()).get("more_body"))
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(BODY))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if self.pause:
            await anyio.sleep(self.pause)
        await send({"type": "http.response.body", "body": BODY})


@asynccontextmanager
async def serving(app: App) -> AsyncIterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, http=DeadlineProtocol, lifespan="off", ws="none", log_config=None, access_log=False
    )
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve, [sock])
        while not server.started:
            await anyio.sleep(0.01)
        try:
            yield int(sock.getsockname()[1])
        finally:
            server.should_exit = True


def post_parts(port: int, body: bytes = b"{}") -> tuple[bytes, bytes]:
    head = (
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\n\r\n" % (port, len(body))
    )
    return head, body


async def answer(stream: anyio.abc.ByteStream) -> bytes:
    got = b""
    while not got.endswith(BODY):
        got += await stream.receive()
    return got


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every write to a socket transport of the event loop, in order."""
    seen: list[bytes] = []
    kind: Any = asyncio.selector_events._SelectorSocketTransport  # type: ignore[attr-defined]
    write = kind.write

    def spied(self: Any, data: bytes) -> None:
        seen.append(bytes(data))
        write(self, data)

    monkeypatch.setattr(kind, "write", spied)
    return seen


async def test_an_answers_head_and_body_go_out_in_one_write(writes: list[bytes]) -> None:
    app = App()
    async with serving(app) as port, await anyio.connect_tcp("127.0.0.1", port) as stream:
        head, body = post_parts(port)
        await stream.send(head + body)
        got = await answer(stream)
    assert got.startswith(b"HTTP/1.1 200 OK\r\n")
    assert [w for w in writes if w.startswith(b"HTTP/1.1 ")] == [got]


async def test_a_head_whose_body_comes_later_goes_out_by_itself(writes: list[bytes]) -> None:
    app = App(pause=0.3)
    async with serving(app) as port, await anyio.connect_tcp("127.0.0.1", port) as stream:
        head, body = post_parts(port)
        await stream.send(head + body)
        got = await answer(stream)
    answered = [w for w in writes if w.startswith(b"HTTP/1.1 ") or w == BODY]
    assert len(answered) == 2 and answered[0].endswith(b"\r\n\r\n") and answered[1] == BODY
    assert b"".join(answered) == got


async def test_a_body_that_arrived_whole_is_marked_and_one_still_coming_is_not() -> None:
    app = App()
    async with serving(app) as port, await anyio.connect_tcp("127.0.0.1", port) as stream:
        head, body = post_parts(port)
        await stream.send(head + body)
        await answer(stream)
        await stream.send(head)
        await anyio.sleep(0.3)  # the listener starts on the headers, the body still to come
        await stream.send(body)
        await answer(stream)
    assert app.whole == [True, False]
