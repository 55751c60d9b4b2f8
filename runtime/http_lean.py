"""The common POST answered without an event stream: the SDK's session transport with a
lean path in front of its server-sent-event machinery.

For every request POST of the handshake era the SDK's transport opens a server-sent-event
response (sse_starlette: a task group with a writer, a ping and a disconnect watcher), a
memory stream to feed it and a task to forward into it; ``runtime/http.AnswerAsJson`` then
turns that stream back into the JSON body it mostly is. Measured under a loop of ``ping``
and ``list_sessions``, that cost the server some 0.35 ms of CPU per request; the layers
in front of it (the manager's routing, the session's checks, a second parse of the body)
and the message router's hop back some 0.1 ms more.

``LeanTransport`` keeps everything of the SDK's transport but that: the request still
goes, as the same ``SessionMessage`` (``_create_session_message``), through the session's
read stream to its dispatcher, so cancellation (``notifications/cancelled``, a client
hanging up), the session's log level, a request's ``_meta`` and the session's isolation
are the SDK's, untouched. What changes is how its answer comes back and is written: the
first event on the request's stream is awaited in the request's own task, and

- when it is the answer, it goes out as one ``application/json`` body, with the headers
  ``AnswerAsJson`` gives the SDK's stream answered the same way (``json_answer_start``);
- when it is anything else (a notification or a request of the server tied to this
  request), or nothing comes within sse_starlette's ping interval (when the SDK's stream
  would send its first keep-alive ping), or the session ends first, the request is handed to
  sse_starlette's ``EventSourceResponse`` with the same headers the SDK gives it: the
  event (or a ping) first, then the rest of the request stream up to the answer.

The answer reaches that stream without the message router's hop when it can: the session's
write stream is a ``Shortcut``, which puts the answer to a lean request on the request's
stream itself (the event the router would have put there), unless something else was sent
for that request first; then the answer follows it through the router, in order.

The listener (``runtime/http.Gate``) has read the body already. When the SDK's parser reads
it alike (``runtime/http.read_alike``) it hands the request, as read, to
``LeanSessionManager.answer``, which answers it on the lean path if every check the SDK's
path makes before ``_handle_post_request`` would let it through without a word: the
manager's (body size, protocol version, a known session of no other credential), the
session's (not terminated, not idle past its time, whose countdown it holds as the SDK's
``handle_request`` does), its host, origin and content-type checks (named exactly), and
the transport's own (``LeanTransport.takes``). Anything else goes the SDK's whole way,
from the manager down, and is read again there.

A POST the lean path does not take goes to the SDK's own ``_handle_post_request`` as it
comes: an ``initialize``, a notification or a response, a request carrying a
``progressToken`` (its progress is a stream from the start), a body the SDK parses
differently or refuses, a request whose ``Accept``, ``Content-Type`` or session id the SDK
answers with an error, a request id already in flight. Everything before
``_handle_post_request`` (the SDK's host, origin and content-type checks, a terminated
session's 404, the idle countdown, GET streams, DELETE) is then the SDK's unchanged.

This replicates a part of SDK logic, by necessity (the SDK has no hook between parsing a
POST and writing its answer, nor between its dispatcher's answer and the router): the few
lines of ``_handle_post_request`` that register a request stream, send the message and map a
failure to a 500; the preconditions the SDK checks before that, in the manager, the session
and the transport; the idle bookkeeping of the session's ``handle_request``; and the
router's delivery of an answer. It leans on private members of the transport
(``_request_streams``, ``_read_stream_writer``, ``_create_session_message``,
``_create_event_data``, ``_clean_up_memory_streams``, ``_check_content_type``,
``_get_session_id``, ``_event_store``, ``_security``, ``_idle_timeout``,
``_requests_in_flight``) and the manager (``_admit_session``, ``_server_instances``,
``_session_owners``, ``_discard_session``, ``_task_group``), so it is written for mcp
``SDK_VERSION``, and ``tests/runtime/test_http_lean.py`` fails on any other version; the same
tests send every kind of request both ways (the lean path, and the SDK's alone) and require
the same answers, byte for byte.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from http import HTTPStatus
from importlib.metadata import version
from types import TracebackType
from typing import Any, Self

import anyio
import pydantic_core
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.streamable_http import (
    CONTENT_TYPE_SSE,
    MCP_SESSION_ID_HEADER,
    REQUEST_STREAM_BUFFER_SIZE,
    EventMessage,
    StreamableHTTPServerTransport,
    check_accept_headers,
)
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    INTERNAL_ERROR,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

SDK_VERSION = "2.3.0"
"""The mcp release whose transport internals this module is written against."""

log = logging.getLogger(__name__)

STREAM_HEADERS = frozenset(
    {b"content-type", b"content-length", b"transfer-encoding", b"cache-control",
     b"connection", b"x-accel-buffering"}
)  # fmt: skip
"""The headers of an event stream that say it is one: an answer sent as JSON drops them."""


def sdk_version() -> str:
    return version("mcp")


def json_answer_start(
    stream_headers: Iterable[tuple[bytes, bytes]], length: int
) -> list[tuple[bytes, bytes]]:
    """The headers of an answer sent as one JSON body instead of the event stream whose
    headers are ``stream_headers``: theirs but the stream's own, then the body's type and
    length."""
    kept = [(k, v) for k, v in stream_headers if k not in STREAM_HEADERS]
    return [*kept, (b"content-type", b"application/json"), (b"content-length", b"%d" % length)]


def _wants_progress(message: JSONRPCRequest) -> bool:
    meta = message.params.get("_meta") if message.params else None
    return isinstance(meta, dict) and "progressToken" in meta


class LeanTransport(StreamableHTTPServerTransport):
    """The SDK's session transport, answering a plain request POST without a stream."""

    lean = True
    """False: every POST takes the SDK's path (the tests compare both ways)."""
    _lean_ids: set[str]
    """The requests in flight on the lean path whose answer may skip the message router."""

    def _stream_headers(self) -> dict[str, str]:
        """The headers the SDK gives a request's event stream."""
        return {
            "Cache-Control": "no-cache, no-transform",
            "Connection": "keep-alive",
            "Content-Type": CONTENT_TYPE_SSE,
            **({MCP_SESSION_ID_HEADER: self.mcp_session_id} if self.mcp_session_id else {}),
        }

    def takes(self, request: Request, message: JSONRPCMessage) -> bool:
        """Whether the lean path answers ``message``, a POST's body as the SDK's parser read
        it: a plain request on this session, which the SDK's checks let through."""
        return (
            self.lean
            and self._read_stream_writer is not None
            and not self.is_json_response_enabled
            and self._event_store is None
            and bool(self.mcp_session_id)
            and self._get_session_id(request) == self.mcp_session_id
            and self._check_content_type(request)
            and all(check_accept_headers(request))
            and isinstance(message, JSONRPCRequest)
            and message.method != "initialize"
            and not _wants_progress(message)
            and str(message.id) not in self._request_streams
            and str(message.id) not in self._sse_stream_writers
        )

    async def _lean_request(self, request: Request) -> JSONRPCRequest | None:
        """The request this POST carries when the lean path may answer it, else None."""
        if not self.lean:
            return None
        try:
            message = jsonrpc_message_adapter.validate_python(
                pydantic_core.from_json(await request.body()), by_name=False
            )
        except (ValueError, ValidationError):
            return None  # the SDK answers it as it does
        if not self.takes(request, message):
            return None
        assert isinstance(message, JSONRPCRequest)
        return message

    async def _handle_post_request(
        self, scope: Scope, request: Request, receive: Receive, send: Send
    ) -> None:
        message = await self._lean_request(request)
        if message is None:
            await super()._handle_post_request(scope, request, receive, send)
            return
        await self.answer_plain(scope, request, message, receive, send)

    async def answer_plain(
        self, scope: Scope, request: Request, message: JSONRPCRequest, receive: Receive, send: Send
    ) -> None:
        """Answer a request ``takes`` took: on to the session's dispatcher, its answer back."""
        writer = self._read_stream_writer
        assert writer is not None
        request_id = str(message.id)
        version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER, DEFAULT_NEGOTIATED_VERSION)
        streams = anyio.create_memory_object_stream[EventMessage](REQUEST_STREAM_BUFFER_SIZE)
        self._request_streams[request_id] = streams
        self._lean_ids.add(request_id)
        try:
            await writer.send(self._create_session_message(message, request, request_id, version))
            await self._answer(message, streams[1], scope, receive, send)
        except Exception as err:  # as the SDK's _handle_post_request answers a failure
            log.exception("Error handling POST request")
            response = self._create_error_response(
                "Error handling POST request", HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR
            )
            await response(scope, receive, send)
            await writer.send(Exception(err))
        finally:
            self._lean_ids.discard(request_id)
            await self._clean_up_memory_streams(request_id)

    @asynccontextmanager
    async def connect(
        self,
    ) -> AsyncIterator[tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]]:
        """The SDK's streams, the session's write stream delivering a lean request's answer
        itself (``Shortcut``)."""
        async with super().connect() as (read_stream, write_stream):
            yield read_stream, Shortcut(write_stream, self)

    def deliver(self, item: SessionMessage) -> bool:
        """Put ``item`` on its request's stream as the message router would, when it is the
        answer to a lean request nothing else was sent for; whether it was."""
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            if message.id is None:
                return False
            key = str(message.id)
            if key not in self._lean_ids or key not in self._request_streams:
                return False
            self._lean_ids.discard(key)
            try:
                self._request_streams[key][0].send_nowait(EventMessage(message, None))
            except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return False
            return True
        metadata = item.metadata
        if isinstance(metadata, ServerMessageMetadata) and metadata.related_request_id is not None:
            # Something for the request goes the router's way: so does its answer, after it.
            self._lean_ids.discard(str(metadata.related_request_id))
        return False

    async def _answer(
        self,
        message: JSONRPCRequest,
        reader: MemoryObjectReceiveStream[EventMessage],
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """Wait for the request's first event: the answer goes out as JSON; anything else
        (or a silence as long as a ping's interval, or the session's end) as a stream."""
        first: EventMessage | None = None
        ended = False
        with anyio.move_on_after(EventSourceResponse.DEFAULT_PING_INTERVAL):
            try:
                first = await reader.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                ended = True
        if (
            first is not None
            and isinstance(first.message, JSONRPCResponse | JSONRPCError)
            and first.message.id == message.id
        ):
            body = first.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
            session = self.mcp_session_id
            kept = [(MCP_SESSION_ID_HEADER.encode(), session.encode())] if session else []
            start = json_answer_start(kept, len(body))
            await send({"type": "http.response.start", "status": 200, "headers": start})
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        pinged = first is None and not ended
        events = self._events(first, pinged, None if ended else reader)
        response = EventSourceResponse(content=events, headers=self._stream_headers())
        await response(scope, receive, send)

    async def _events(
        self,
        first: EventMessage | None,
        pinged: bool,
        reader: MemoryObjectReceiveStream[EventMessage] | None,
    ) -> AsyncIterator[Any]:
        """The rest of a request's stream as the SDK's writer sends it, up to its answer."""
        if pinged:
            yield ServerSentEvent(comment=f"ping - {datetime.now(UTC)}")
        if first is not None:
            yield self._create_event_data(first)
            if isinstance(first.message, JSONRPCResponse | JSONRPCError):
                return
        if reader is None:
            return
        try:
            async for event in reader:
                yield self._create_event_data(event)
                if isinstance(event.message, JSONRPCResponse | JSONRPCError):
                    return
        except anyio.ClosedResourceError:
            log.debug("a request's stream closed before its answer")


class Shortcut:
    """The session's write stream: the answer to a lean request goes straight onto its
    request's stream (``LeanTransport.deliver``), everything else to the SDK's message router,
    in the order it was sent."""

    def __init__(self, inner: WriteStream[SessionMessage], transport: LeanTransport) -> None:
        self._inner = inner
        self._transport = transport

    async def send(self, item: SessionMessage, /) -> None:
        if not self._transport.deliver(item):
            await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


class LeanSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager whose sessions are ``LeanTransport``s (``lean=False``: the
    SDK's own path for every POST)."""

    def __init__(self, *args: Any, lean: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lean = lean

    def _admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        transport = super()._admit_session(requestor)
        if transport is not None:
            # The SDK builds the transport (its arguments are its own); it serves as ours.
            transport.__class__ = LeanTransport
            assert isinstance(transport, LeanTransport)
            transport.lean = self.lean
            transport._lean_ids = set()
        return transport

    async def answer(
        self, scope: Scope, message: JSONRPCMessage, body: bytes, receive: Receive, send: Send
    ) -> bool:
        """Answer ``message``, the request POST ``scope`` carries, read from its ``body`` as
        the SDK's parser reads it, on the lean path when every check of the SDK's path up to
        its ``_handle_post_request`` lets it through (the manager's, the session's, the
        transport's); True once answered, False (nothing read, nothing sent) when the SDK's
        path must take the POST."""
        request = Request(scope, receive)
        headers = request.headers
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        length = headers.get("content-length")
        transport = self._server_instances.get(session_id) if session_id is not None else None
        if (
            not self.lean
            or self.stateless
            or self._task_group is None
            or not isinstance(transport, LeanTransport)
            or self._session_owners.get(session_id) is not None
            or scope.get("user") is not None
            or (version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS)
            or len(body) > self.max_request_body_size
            or (length is not None and not (length.isdigit() and int(length) == len(body)))
            or transport.is_terminated
            or (transport.idle_scope is not None and transport.idle_scope.cancel_called)
            or not _secure(transport._security, headers)
            or not transport.takes(request, message)
        ):
            return False
        assert isinstance(message, JSONRPCRequest)
        # As the session's handle_request does: a request in flight holds the session.
        idle = transport.idle_scope if transport._idle_timeout is not None else None
        if idle is not None:
            transport._requests_in_flight += 1
            idle.deadline = math.inf
        try:
            await transport.answer_plain(scope, request, message, receive, send)
        finally:
            if idle is not None and transport._idle_timeout is not None:
                transport._requests_in_flight -= 1
                if not transport._requests_in_flight:
                    idle.deadline = anyio.current_time() + transport._idle_timeout
        if transport.is_terminated:
            await self._discard_session(session_id, transport)
        return True


def _secure(security: TransportSecurityMiddleware, headers: Headers) -> bool:
    """Whether the SDK's DNS rebinding checks let a POST with ``headers`` through without a
    word: its content type, and (when they are on) its Host and Origin named exactly."""
    if not security._validate_content_type(headers.get("content-type")):
        return False
    settings = security.settings
    if not settings.enable_dns_rebinding_protection:
        return True
    origin = headers.get("origin")
    return headers.get("host") in settings.allowed_hosts and (
        origin is None or origin in settings.allowed_origins
    )
