"""The stdio wire as the SDK's message streams, read and written on the event loop.

The SDK's own stdio transport wraps the standard streams in worker-thread file
objects and puts a task and a memory stream on each side: a thread hop and two
task hops for every message. Pipes (what an MCP client gives its server) can be
driven by the event loop directly, so here a line is parsed where its bytes
land and a response is written by the task that produced it. Parsing and
serialising are the SDK's own (``jsonrpc_message_adapter``, ``model_dump_json``),
so the bytes on the wire are the same, except that every line that may be a
request gets an answer instead of silence:

- a line the SDK's JSON parser refuses is read with Python's (JSON allows a
  lone surrogate, that parser does not) and checked by the same adapter;
- a line that is not JSON gets -32700, with the request's id when its start
  shows one (``{"jsonrpc": "2.0", "id": 7, "method": ...``), else ``null``;
- JSON that is not a JSON-RPC request or notification gets -32600 with its id
  or ``null``: a JSON array (a batch: MCP has none since 2025-06-18), ``{}``, a
  missing or mistyped member, or an ``id`` that is neither a string nor an
  integer (MCP), which the SDK would have taken for a notification;
- a line that nests arrays and objects more than ``DEPTH_LIMIT`` deep is not
  parsed (a parser would recurse that deep) and gets -32600 naming the bound;
- a line longer than ``LINE_LIMIT`` bytes is skipped unread as it arrives
  (only its first ``HEAD_LIMIT`` bytes are kept, to find its id) and gets
  -32600 naming the bound.

In each case the server reads on from the next line. A response (``result``
or ``error`` without ``method``) is never answered, and a blank line is
nothing; a leading UTF-8 byte order mark is ignored, and bytes that are not
UTF-8 are read as U+FFFD, as the SDK does. As with the SDK, file descriptors 0
and 1 are pointed at /dev/null and stderr while serving, so nothing else can
write onto the wire. Anything that is not a pipe goes to the SDK's transport.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from itertools import accumulate
from types import TracebackType
from typing import Any, Self

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage

LINE_LIMIT = 1 << 24  # bytes in one line (16 MiB; the newline not counted); a longer one is skipped
HEAD_LIMIT = 1 << 16  # bytes of a skipped line kept to find its id
DEPTH_LIMIT = 64  # arrays and objects inside one another in a line, the message itself counted
BOM = b"\xef\xbb\xbf"
BATCH = "the line is a JSON array (a batch); MCP has no batches: send each message on its own line"
QUEUE_LIMIT = 64  # parsed messages waiting for the server loop before reading pauses
HIGH_WATER = 1 << 20  # bytes buffered for the client before a writer waits for it


def _is_pipe_like(fd: int) -> bool:
    """A pipe, a socket or a terminal: what the event loop can poll (``/dev/null``, a
    character device too, cannot be: epoll refuses it)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


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

    def __init__(
        self,
        answer: Callable[[types.JSONRPCError], None] | None = None,
        line_limit: int = LINE_LIMIT,
    ) -> None:
        self._answer = answer
        self._line_limit = line_limit
        self._items: deque[Item] = deque()
        self._buffer = bytearray()
        self._skipped: bytes | None = None  # the head of the over-long line being skipped
        self._ended = False
        self._waiters: list[asyncio.Future[None]] = []
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False

    # --- asyncio.Protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            self._hold(data, start, newline)
            self._line_ended()
            start = newline + 1
        self._hold(data, start, len(data))
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

    def _hold(self, data: bytes, start: int, end: int) -> None:
        """Add ``data[start:end]`` to the line being read, or skip it once the line is too long."""
        if self._skipped is not None or start == end:
            return
        if len(self._buffer) + end - start <= self._line_limit:
            self._buffer += memoryview(data)[start:end]
            return
        head = bytes(self._buffer[:HEAD_LIMIT])
        self._skipped = head + data[start : min(end, start + HEAD_LIMIT - len(head))]
        self._buffer = bytearray()

    def _line_ended(self) -> None:
        if self._skipped is not None:
            head, self._skipped = self._skipped, None
            reason = f"the line is longer than {self._line_limit} bytes, the most this server reads"
            self._take(_unread(head, reason))
        else:
            line, self._buffer = self._buffer, bytearray()
            self._take(_parse(line))

    def _end(self) -> None:
        if self._buffer or self._skipped is not None:
            self._line_ended()  # a last line without its newline still counts, as in the SDK
        self._ended = True
        self._wake()

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)


def _parse(line: bytes | bytearray) -> Item | types.JSONRPCError | None:
    """One line as a message; else the error to answer it with, the SDK's exception (for a
    response it cannot read: never answered), or None (a blank line).

    The SDK's parser reads nearly every line; Python's reads the rest (a lone surrogate,
    which JSON allows and a call must be able to carry to the text rule), and what is
    read is sorted by the members it has, as JSON-RPC 2.0 does.
    """
    if line.startswith(BOM):
        line = line[len(BOM) :]
    text = line.decode("utf-8", "replace")
    if not text.strip():
        return None
    if _nests_deeper(line, DEPTH_LIMIT):
        return _unread(line, f"arrays and objects nest more than {DEPTH_LIMIT} deep in the line")
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as exc:
        refusal: Exception = exc
    else:
        # The SDK's parser takes NaN and Infinity, which are not JSON, and its adapter takes
        # a message with an unusable id for a notification; both go the long way.
        if isinstance(message, types.JSONRPCNotification) and _has_id(line):
            refusal = ValueError("a request whose id is neither a string nor an integer")
        elif b"NaN" in line or b"Infinity" in line:
            refusal = ValueError("NaN or Infinity, perhaps outside a string")
        else:
            return SessionMessage(message)
    try:
        value = json.loads(text, parse_constant=_not_json)
    except ValueError as exc:  # no recursion error: the depth is bounded
        members = _members(line)
        rid = _request_id(members) if members is not None and "method" in members else None
        why = str(exc).split(";")[0]  # Python's advice on its own limits is not for a client
        return _error(rid, types.PARSE_ERROR, f"Parse error: the line is not JSON ({why})")
    return _classified(value, refusal)


def read_message(text: bytes | bytearray) -> Item | types.JSONRPCError | None:
    """``text`` read as this wire reads one line: the message; or the error it answers it
    with (-32700, -32600); or the exception a response it cannot read becomes (never
    answered); or None (nothing to answer). The HTTP listener reads a request body so."""
    return _parse(text)


def refusal(text: bytes | bytearray) -> types.JSONRPCError | None:
    """The error this wire answers ``text`` with as one line (-32700, -32600), or None when
    it reads as a message or is nothing to answer: the HTTP listener answers a request
    body with the same words."""
    parsed = _parse(text)
    return parsed if isinstance(parsed, types.JSONRPCError) else None


def oversize(head: bytes | bytearray, why: str) -> types.JSONRPCError:
    """The -32600 for a message refused unread for its size, with the id its ``head`` shows."""
    answer = _unread(head, why)
    return answer if isinstance(answer, types.JSONRPCError) else _invalid(None, why)


def _classified(value: Any, refusal: Exception) -> Item | types.JSONRPCError:
    """A JSON value as a message by the members it has, as JSON-RPC 2.0 reads them; else
    the error to answer it with, or (a response) ``refusal``, never answered."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            return _invalid(None, BATCH)
        return _invalid(None, "the line is JSON but not an object")
    if "method" not in value and ("result" in value or "error" in value):
        kinds: tuple[type, ...] = (types.JSONRPCResponse, types.JSONRPCError)
    elif "method" in value and "id" not in value:
        kinds = (types.JSONRPCNotification,)
    else:
        kinds = (types.JSONRPCRequest,)
    envelope = {k: v for k, v in value.items() if k != "params"}
    if _writable(envelope):
        with suppress(Exception):
            message = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
            if isinstance(message, kinds):
                return SessionMessage(message)
    if kinds[0] is types.JSONRPCResponse:
        return refusal
    return _invalid(_request_id(envelope), _fault(envelope))


def _fault(envelope: dict[str, Any]) -> str:
    """What makes a JSON object no JSON-RPC 2.0 request or notification, as MCP reads them."""
    if envelope.get("jsonrpc") != "2.0":
        return 'its "jsonrpc" must be "2.0"'
    if "method" not in envelope:
        return 'it has no "method" (and no "result" or "error", so it is no response either)'
    if not isinstance(envelope["method"], str):
        return 'its "method" must be a string'
    if not _writable(envelope):
        return "its id and method must be valid Unicode (a lone surrogate is not)"
    if "id" in envelope and _request_id(envelope) is None:
        return 'its "id" must be a string or an integer (MCP allows no other id, not even null)'
    return 'its "params" must be an object'


def _invalid(rid: int | str | None, why: str) -> types.JSONRPCError:
    return _error(rid, types.INVALID_REQUEST, f"Invalid Request: {why}")


def _unread(line: bytes | bytearray, why: str) -> Item | types.JSONRPCError:
    """The answer to a line refused by a bound before it is parsed: its id and kind are read
    from its top-level members, whatever is nested (or cut off) below them."""
    members = _members(line)
    if members is None:
        return _invalid(None, why)
    if "method" not in members and ("result" in members or "error" in members):
        return ValueError(why)  # a response: never answered
    return _invalid(_request_id(members), why)


# A string runs to its closing quote or, unclosed, to the end of the line: either way one
# pass, never a retry from each quote inside it (which would take time squared).
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}:,]|[^\s\[\]{}:,"]+', re.DOTALL)
_PLAIN_STRING = re.compile(rb'"[^"]*"?')  # a string once its escapes are gone
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NESTED = object()  # a member whose value is an array or object, not read


def _members(line: bytes | bytearray) -> dict[str, Any] | None:
    """The top-level members of the JSON object the line starts with, read without
    recursion from its first ``HEAD_LIMIT`` bytes; None when it starts with no object.

    A value that is an array or object is left unread. Reading stops where the object
    stops being JSON; a member's value is read only once the comma or brace after it is
    seen, so a value cut short or broken is never taken for a whole one (the member is
    there all the same, its value unread).
    """
    tokens = _TOKEN.finditer(bytes(line[:HEAD_LIMIT]).decode("utf-8", "replace"))
    first = next(tokens, None)
    if first is None or first.group() != "{":
        return None
    members: dict[str, Any] = {}
    depth, expect, key, value = 1, "key", "", None
    for match in tokens:
        token = match.group()
        if depth > 1:
            depth += (token in ("[", "{")) - (token in ("]", "}"))
            if depth == 1:
                expect = "end"
            continue
        if expect == "end" and token in (",", "}"):
            members[key] = value
            if token == "}":
                break
            expect = "key"
        elif expect == "key" and token.startswith('"'):
            key, expect = _scalar(token), ":"
        elif expect == ":" and token == ":":
            expect, members[key] = "value", _NESTED
        elif expect == "value" and token in ("[", "{"):
            depth, value = 2, _NESTED
        elif expect == "value" and token not in ("]", "}", ":", ","):
            value, expect = _scalar(token), "end"
        else:
            break  # no longer JSON (or the end of an empty object)
    return members


def _scalar(token: str) -> Any:
    try:
        return json.loads(token, parse_constant=_not_json)
    except ValueError:  # not JSON, or an integer too long for Python to read
        return _NESTED


def _has_id(line: bytes | bytearray) -> bool:
    """Whether the line's top-level object has an ``id`` member (cheap when no "id" is in it
    at all)."""
    if b'"id"' not in line:
        return False
    members = _members(line)
    return members is not None and "id" in members


def _nests_deeper(line: bytes | bytearray, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep, brackets in strings aside.

    A line with no more than ``limit`` opening brackets cannot, which two byte counts
    show. Only a line with more is scanned, in passes that each run at C speed: escapes
    out (``\\\\`` first, then ``\\"``, as JSON pairs backslashes), strings out, then the
    depth after each bracket until one is too deep.
    """
    if line.count(b"[") + line.count(b"{") <= limit:
        return False
    plain = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = _PLAIN_STRING.sub(b"", plain).translate(None, _NOT_BRACKETS)
    depths = accumulate(map(_STEP.__getitem__, skeleton))
    return next(filter(limit.__lt__, depths), None) is not None


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _request_id(envelope: dict[str, Any]) -> int | str | None:
    rid = envelope.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool):
        return rid
    if isinstance(rid, str) and _writable(rid):
        return rid
    return None


def _writable(value: Any) -> bool:
    """Whether ``value`` can be written back as UTF-8 (a lone surrogate cannot), e.g. in an
    answer that echoes a request's id, or the SDK's that names an unknown method."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return False
    return True


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
