"""The MCP server over Streamable HTTP (``--http``): a listener that refuses by default, in
front of the SDK's session manager and the same ``Server`` stdio serves.

Every request meets the ``Gate`` first, which answers it itself unless all of this holds:

- its ``Host`` is one the listener answers to (421 otherwise) and its ``Origin``, when it
  has one, is an allowed origin (403): a page on another site, or a DNS name rebound
  to this address, gets nothing;
- its URL has no query string (400): the token never travels in a URL, where logs and
  histories keep it;
- it carries ``Authorization: Bearer <the token>`` (401 with ``WWW-Authenticate``
  otherwise), so no request without the token reaches the SDK, let alone tmux;
- it asks for ``/mcp`` (404);
- its body is at most ``LINE_LIMIT`` bytes, the stdio line limit (413), and never pauses
  longer than ``BODY_GAP_SECONDS`` (408);
- its body is one JSON-RPC message: otherwise it gets the same -32700 or -32600 stdio
  gives that text as a line (``runtime/stdio.refusal``), with HTTP status 400.

The connection itself is bounded by ``runtime/http_protocol.py`` (headers within 5 s)
and uvicorn (``MAX_CONNECTIONS``, keep-alive); sessions by the manager (how many at
once, how long idle). A request passed on carries a ``Hangup`` that its protocol fires
when the client hangs up before the answer (``runtime/hangup.py``). Stopping (a signal, like the
end of input on stdio) answers or cancels everything in flight, ends every session and
closes the handlers, so nothing is left in tmux.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import anyio
import anyio.abc
import mcp.types as types
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from starlette.types import Message, Receive, Scope, Send

from .hangup import SCOPE_KEY, Hangup
from .http_lean import LeanSessionManager, json_answer_start
from .http_protocol import WHOLE_BODY_KEY, DeadlineProtocol
from .listener import PATH, Bound, Listener
from .logs import ClientLog
from .profiles import Profile
from .seam import HandlerSet
from .server import build_server
from .stdio import BOM, HEAD_LIMIT, LINE_LIMIT, oversize, read_message
from .tokens import bearer

MAX_CONNECTIONS = 512
"""Connections at once (uvicorn answers 503 past it): far above the session limit, so
only a flood meets it."""
BODY_GAP_SECONDS = 10.0
"""The longest a request body may pause."""
DRAIN_LIMIT = 4 * LINE_LIMIT
"""The most of a body over the limit that is read and dropped before it is answered 413."""
STOP_SECONDS = 3.0
"""How long stopping waits for connections to finish once their requests are cancelled."""
REALM = 'Bearer realm="tmux-contract-mcp"'

log = logging.getLogger(__name__)


def _error_body(error: types.JSONRPCError) -> bytes:
    return error.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")


def _refusal(message: str) -> bytes:
    """A JSON-RPC error without an id, for a request refused before it was read: the SDK
    client shows its message."""
    error = types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=types.INVALID_REQUEST, message=message)
    )
    return _error_body(error)


async def respond(
    send: Send, status: int, body: bytes, headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


CLOSE = ((b"connection", b"close"),)


class Gate:
    """The ASGI application: every refusal above, then the SDK's session manager."""

    def __init__(self, manager: LeanSessionManager, bound: Bound) -> None:
        self.manager = manager
        self.token = bound.token
        self.hosts = frozenset(h.encode() for h in bound.listener.allowed_hosts(bound.port))
        self.origins = frozenset(o.encode() for o in bound.listener.allowed_origins(bound.port))
        self.path = PATH
        self.stopping = False
        self._in_flight: set[anyio.CancelScope] = set()

    def stop(self) -> None:
        """Refuse what comes next and cancel what is in flight (each answered 503 if it had
        no answer started yet)."""
        self.stopping = True
        for scope in self._in_flight:
            scope.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # uvicorn runs no lifespan and no websocket here
        refused = self.refuse(scope)
        if refused is not None:
            status, answer, headers = refused
            await respond(send, status, answer, headers)
            return
        downstream = receive
        answering: types.RequestId | None = None
        plain: types.JSONRPCRequest | None = None
        body = b""
        if scope["method"] == "POST":
            read = await self.read_body(scope, receive, send)
            if read is None:
                return
            body = read
            message = read_message(body)
            if isinstance(message, types.JSONRPCError):
                await respond(send, 400, _error_body(message))
                return
            if isinstance(message, SessionMessage) and isinstance(
                message.message, types.JSONRPCRequest
            ):
                answering = message.message.id
                plain = message.message if read_alike(body) else None
            downstream = replaying(body, receive)
        scope[SCOPE_KEY] = Hangup()  # fired by the protocol if the client goes first
        sender = AnswerAsJson(send, answering)
        with anyio.CancelScope() as cancel:
            self._in_flight.add(cancel)
            try:
                if plain is None or not await self.manager.answer(
                    scope, plain, body, downstream, sender
                ):
                    await self.manager.handle_request(scope, downstream, sender)
            finally:
                self._in_flight.discard(cancel)
        if cancel.cancelled_caught and not sender.started:
            await respond(send, 503, _refusal("the server is stopping"), CLOSE)

    def refuse(self, scope: Scope) -> tuple[int, bytes, tuple[tuple[bytes, bytes], ...]] | None:
        """The answer to a request that gets no further (status, body, headers), or None."""
        host: bytes | None = None
        origin: bytes | None = None
        authorization: list[bytes] = []
        for name, value in scope["headers"]:
            if name == b"host":
                host = value
            elif name == b"origin":
                origin = value
            elif name == b"authorization":
                authorization.append(value)
        if self.stopping:
            return 503, _refusal("the server is stopping"), CLOSE
        if host not in self.hosts:
            return (
                421,
                _refusal("Misdirected Request: this server does not answer to that Host"),
                (),
            )
        if origin is not None and origin not in self.origins:
            return 403, _refusal("Forbidden: requests from that Origin are refused"), ()
        if scope["query_string"]:
            return (
                400,
                _refusal(
                    "Bad Request: this endpoint takes no query string; the token goes in the "
                    "Authorization header, never in the URL"
                ),
                (),
            )
        presented = bearer(authorization[0]) if len(authorization) == 1 else None
        if presented is None or not self.token.admits(presented):
            challenge = REALM if presented is None else f'{REALM}, error="invalid_token"'
            return (
                401,
                _refusal(
                    "Unauthorized: send the header Authorization: Bearer <token> "
                    "(the token this server was started with)"
                ),
                ((b"www-authenticate", challenge.encode()),),
            )
        if scope["path"] != self.path:
            return 404, _refusal(f"Not Found: this server answers at {self.path}"), ()
        return None

    async def read_body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The whole body, or None once the request has been answered (too long, too slow)
        or its client has gone.

        A body over the limit is read on and dropped (up to ``DRAIN_LIMIT`` bytes) before the
        413, so a client still sending it can read the answer instead of a reset; past that
        the connection is closed at once."""
        too_long = f"the request body is longer than {LINE_LIMIT} bytes, the most this server reads"
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > DRAIN_LIMIT:
                await respond(send, 413, _error_body(oversize(b"", too_long)), CLOSE)
                return None
        body = bytearray()
        head = b""
        seen = 0
        more = True
        while more:
            message: Message | None = None
            if scope.get(WHOLE_BODY_KEY):
                message = await receive()  # all there: no wait, no deadline to keep
            else:
                with anyio.move_on_after(BODY_GAP_SECONDS):
                    message = await receive()
            if message is None:
                why = f"the request body paused longer than {BODY_GAP_SECONDS:g} s"
                await respond(send, 408, _refusal(why), CLOSE)
                return None
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            seen += len(chunk)
            more = bool(message.get("more_body"))
            if seen <= LINE_LIMIT:
                body += chunk
            elif not head:
                head = bytes((body + chunk)[:HEAD_LIMIT])  # for its id; the rest is dropped
                body = bytearray()
            if seen > DRAIN_LIMIT:
                break
        if head:
            await respond(send, 413, _error_body(oversize(head, too_long)), CLOSE)
            return None
        return bytes(body)


class AnswerAsJson:
    """The ``send`` of one request: an event stream whose first event is the answer to the
    POST goes out as that answer in a JSON body instead.

    The SDK answers every handshake-era POST with a server-sent-event stream that ends
    right after the event carrying the JSON-RPC response. A client that stops reading at
    that event (the SDK's does) closes the response before the stream's end has arrived,
    cannot reuse the connection, and opens a new one for its next call; and it parses an
    event stream where one JSON object would do. MCP lets a server answer each POST either
    way. So the stream's start is held until its first event: when that event is the
    answer, the response is that JSON object alone (headers kept but the stream's own, the
    rest of the stream dropped); when it is anything else (progress, a ping a long call
    sends every 15 s), the held start goes out and the stream flows as it came.
    """

    def __init__(self, send: Send, request_id: types.RequestId | None) -> None:
        self._send = send
        self._id = request_id
        self._held: Message | None = None
        self._answered = False
        self.started = False  # whether anything went out

    async def _out(self, message: Message) -> None:
        self.started = True
        await self._send(message)

    @functools.cached_property
    def _prefix(self) -> bytes:
        """How the event carrying the answer to the POST begins (b"": no request, no answer)."""
        if self._id is None:
            return b""
        rid = json.dumps(self._id, ensure_ascii=False, separators=(",", ":"))
        return b'event: message\r\ndata: {"jsonrpc":"2.0","id":' + rid.encode() + b","

    def _answer_in(self, chunk: bytes) -> bytes | None:
        """The JSON-RPC response this event chunk carries, when it answers the POST."""
        if (
            not self._prefix
            or not chunk.startswith(self._prefix)
            or not chunk.endswith(b"\r\n\r\n")
        ):
            return None
        data = chunk[len(b"event: message\r\ndata: ") : -4]
        rest = chunk[len(self._prefix) : len(self._prefix) + 8]
        if b"\n" in data or not rest.startswith((b'"result"', b'"error"')):
            return None
        return data

    async def __call__(self, message: Message) -> None:
        if self._answered:
            return  # what the stream sends after its answer
        if message["type"] == "http.response.start":
            headers = dict(message.get("headers", []))
            stream = headers.get(b"content-type", b"").startswith(b"text/event-stream")
            if self._id is not None and message["status"] == 200 and stream:
                self._held = message
                return
            await self._out(message)
            return
        if self._held is not None:
            start, self._held = self._held, None
            answer = self._answer_in(message.get("body", b""))
            if answer is not None:
                kept = json_answer_start(start.get("headers", []), len(answer))
                await self._out({"type": "http.response.start", "status": 200, "headers": kept})
                await self._out({"type": "http.response.body", "body": answer})
                self._answered = True
                return
            await self._out(start)
        await self._out(message)


SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""An escaped UTF-16 surrogate: the SDK's parser refuses a lone one, the listener reads it."""


def read_alike(body: bytes) -> bool:
    """Whether the SDK's parser reads ``body`` as the listener read it (``read_message``), so
    the message read once serves the SDK's session too: UTF-8 without a byte order mark,
    no ``NaN`` or ``Infinity``, no escaped surrogate. Such a body ``read_message`` reads
    with the SDK's own message adapter, over the same JSON parser the SDK's transport runs
    (``tests/runtime/test_http_lean.py`` holds the two readings equal); anything else is read
    again the SDK's way, where it may be refused."""
    if b"NaN" in body or b"Infinity" in body or SURROGATE.search(body):
        return False
    if body.isascii():
        return True
    if body.startswith(BOM):
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def replaying(body: bytes, receive: Receive) -> Receive:
    """``receive`` with the body already read given back first."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replay


class _Uvicorn(uvicorn.Server):
    """uvicorn without its own signal handlers: stopping is ``runtime/stopping.py``'s, the
    same for every wire."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _config(gate: Gate, listener: Listener) -> uvicorn.Config:
    cert, key = listener.tls if listener.tls is not None else (None, None)
    return uvicorn.Config(
        gate,
        http=DeadlineProtocol,
        interface="asgi3",
        lifespan="off",
        ws="none",
        log_config=None,
        access_log=False,
        server_header=False,
        date_header=False,
        proxy_headers=False,
        limit_concurrency=MAX_CONNECTIONS,
        timeout_graceful_shutdown=int(STOP_SECONDS),
        ssl_certfile=cert,
        ssl_keyfile=key,
    )


async def serve_http(profile: Profile, handlers: HandlerSet, bound: Bound) -> None:
    """Serve ``profile`` on ``bound`` until cancelled (a stop signal), then stop cleanly."""
    logging.getLogger("uvicorn.error").setLevel(logging.ERROR)  # not a line per bad request
    client_log = ClientLog(logging.getLogger(__package__))
    server = build_server(profile, handlers, client_log=client_log)
    listener = bound.listener
    manager = LeanSessionManager(
        server,
        security_settings=TransportSecuritySettings(
            allowed_hosts=list(listener.allowed_hosts(bound.port)),
            allowed_origins=list(listener.allowed_origins(bound.port)),
        ),
        session_idle_timeout=listener.idle_seconds,
        max_request_body_size=LINE_LIMIT,
        max_sessions=listener.max_sessions,
    )
    gate = Gate(manager, bound)
    web = _Uvicorn(_config(gate, listener))

    async def run_web(group: anyio.abc.TaskGroup) -> None:
        with anyio.CancelScope(shield=True):  # its own shutdown runs to the end
            await web.serve(sockets=[bound.sock])
        group.cancel_scope.cancel()

    try:
        async with manager.run(), anyio.create_task_group() as group:
            group.start_soon(run_web, group)
            try:
                await anyio.sleep_forever()
            finally:
                gate.stop()
                web.should_exit = True
    finally:
        with anyio.CancelScope(shield=True):
            await client_log.aclose()
        with anyio.CancelScope(shield=True):  # handlers may hold connections
            await handlers.aclose()
