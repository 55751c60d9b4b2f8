"""The stdio wire as the SDK's message streams, read and written on the event loop.

The SDK's own stdio transport wraps the standard streams in worker-thread file
objects and puts a task and a memory stream on each side: a thread hop and two
task hops for every message. Pipes (what an MCP client gives its server) can be
driven by the event loop directly, so here a line is parsed where its bytes
land and a response is written by the task that produced it. Parsing and
serialising are the SDK's own (``jsonrpc_message_adapter``, ``model_dump_json``),
so the bytes on the wire are the same, with two differences: a line the SDK's
JSON parser refuses is read with Python's (JSON allows a lone surrogate, that
parser does not) and checked by the same adapter, and a line that is not JSON,
or a request that is not JSON-RPC, is answered with its JSON-RPC error instead
of being dropped. As with the SDK, file descriptors 0 and 1
are pointed at /dev/null and stderr while serving, so nothing else can write
onto the wire. Anything that is not a pipe goes to the SDK's transport.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from types import TracebackType
from typing import Any, Self

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage

from .text_rule import text_problems

LINE_LIMIT = 1 << 30  # a request line may be large (a long request id, a big batch)
QUEUE_LIMIT = 64  # parsed messages waiting for the server loop before reading pauses
HIGH_WATER = 1 << 20  # bytes buffered for the client before a writer waits for it


def _is_pipe_like(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


Item = SessionMessage | Exception


class _Stream:
    """What the SDK's loop expects of a stream besides sending or receiving:
    ``async with`` closes it, and ``aclose`` is ``close``."""

    def close(self) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class MessageReader(asyncio.Protocol, _Stream):
    """The read stream the server loop consumes: one item per line, as the SDK parses it.

    A line that is not JSON, or a request that is not JSON-RPC, is answered with
    the JSON-RPC error for it through ``answer`` (when given) instead of being
    met with silence; any other unreadable line becomes the exception the SDK's
    reader would have passed on. Reading pauses while ``QUEUE_LIMIT`` items wait.
    """

    def __init__(self, answer: Callable[[types.JSONRPCError], None] | None = None) -> None:
        self._answer = answer
        self._items: deque[Item] = deque()
        self._buffer = b""
        self._ended = False
        self._waiters: list[asyncio.Future[None]] = []
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False

    # --- asyncio.Protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        if b"\n" not in data:
            self._buffer += data
            if len(self._buffer) > LINE_LIMIT:
                self._buffer = b""
                self._push(ValueError(f"a request line longer than {LINE_LIMIT} bytes"))
            return
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        for line in lines:
            self._take(_parse(line))
        if len(self._items) >= QUEUE_LIMIT and self._transport is not None and not self._paused:
            self._paused = True
            self._transport.pause_reading()

    def eof_received(self) -> bool:
        self._end()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    # --- the stream the SDK reads ---------------------------------------------------------

    async def receive(self) -> Item:
        while not self._items:
            if self._ended:
                raise anyio.EndOfStream
            wakeup = asyncio.get_running_loop().create_future()
            self._waiters.append(wakeup)
            try:
                await wakeup
            finally:
                self._waiters.remove(wakeup)
        item = self._items.popleft()
        if self._paused and len(self._items) < QUEUE_LIMIT // 2 and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()
        return item

    def __aiter__(self) -> MessageReader:
        return self

    async def __anext__(self) -> Item:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._end()
        if self._transport is not None:
            self._transport.close()

    # --- inside ---------------------------------------------------------------------------

    def _push(self, item: Item) -> None:
        self._items.append(item)
        self._wake()

    def _take(self, parsed: Item | types.JSONRPCError | None) -> None:
        if parsed is None:
            return
        if not isinstance(parsed, types.JSONRPCError):
            self._push(parsed)
        elif self._answer is not None:
            self._answer(parsed)
        else:
            self._push(ValueError(parsed.error.message))

    def _end(self) -> None:
        if self._buffer:  # a last line without its newline still counts, as in the SDK
            line, self._buffer = self._buffer, b""
            self._take(_parse(line))
        self._ended = True
        self._wake()

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)


def _parse(line: bytes) -> Item | types.JSONRPCError | None:
    """One line as a message; else the error to answer it with, the SDK's exception, or None.

    The SDK's JSON parser refuses a lone surrogate (``"\\ud800"``), which JSON
    allows; such a line is read with Python's parser instead, so a call
    carrying one reaches the server and is refused by the text rule, with an
    answer. A blank line is nothing.
    """
    text = line.decode("utf-8", "replace")
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except Exception as exc:
        refusal = exc
    try:
        value = json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError):
        if not text.strip():
            return None
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
    if not isinstance(value, dict) or "method" in value:
        envelope = (
            {k: v for k, v in value.items() if k != "params"} if isinstance(value, dict) else {}
        )
        if not text_problems(envelope):
            try:
                return SessionMessage(
                    types.jsonrpc_message_adapter.validate_python(value, by_name=False)
                )
            except Exception:
                pass
        return _error(
            _request_id(envelope),
            types.INVALID_REQUEST,
            "Invalid Request: the line is JSON but not a JSON-RPC 2.0 request "
            "(its id and method must be valid Unicode without NUL)",
        )
    return refusal  # a response or error the SDK cannot read: never answered


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _request_id(envelope: dict[str, Any]) -> int | str | None:
    rid = envelope.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool):
        return rid
    if isinstance(rid, str) and not text_problems(rid):
        return rid
    return None


def _error(rid: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message)
    )


class MessageWriter(_Stream):
    """The write stream the server loop sends to: each message is one line, written at once.

    Writes never reorder (they go to the pipe's buffer in the order sent); a
    sender waits only when the client has fallen ``HIGH_WATER`` bytes behind.
    """

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._writer.transport.set_write_buffer_limits(high=HIGH_WATER)
        self._closed = False

    async def send(self, message: SessionMessage) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        if self._writer.transport.is_closing():
            raise anyio.BrokenResourceError
        line = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        self._writer.write(line.encode("utf-8"))
        try:
            await self._writer.drain()  # returns at once unless the client is behind
        except ConnectionError as exc:
            raise anyio.BrokenResourceError from exc

    def send_now(self, message: types.JSONRPCError) -> None:
        """Write an answer from the reader's side, without waiting for the client."""
        if self._closed or self._writer.transport.is_closing():
            return
        line = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        self._writer.write(line.encode("utf-8"))

    def close(self) -> None:
        self._closed = True

    async def flush(self) -> None:
        """Wait until everything written has reached the pipe (or the client has gone)."""
        transport = self._writer.transport
        transport.set_write_buffer_limits(high=0)
        with suppress(ConnectionError):
            await self._writer.drain()


@asynccontextmanager
async def loop_stdio() -> AsyncIterator[tuple[MessageReader, MessageWriter] | None]:
    """The wire as (read stream, write stream) on private descriptors; None when stdio is not
    a pipe."""
    if not (_is_pipe_like(0) and _is_pipe_like(1)):
        yield None
        return
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), 0)
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    in_file = os.fdopen(wire_in, "rb", buffering=0)
    out_file = os.fdopen(wire_out, "wb", buffering=0)
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, out_file
    )
    writer = MessageWriter(asyncio.StreamWriter(write_transport, protocol, None, loop))
    read_transport, reader = await loop.connect_read_pipe(
        lambda: MessageReader(writer.send_now), in_file
    )
    try:
        yield reader, writer
    finally:
        read_transport.close()
        await writer.flush()
        write_transport.close()
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
        sys.stdout.flush()
