"""uvicorn's HTTP/1.1 protocol (httptools) with a deadline for a request's headers,
acknowledging what it receives at once.

uvicorn closes a connection that stays silent between requests (its keep-alive
timeout), but a client that sends its headers a byte at a time is waited for without
end, holding a connection (and a slot under the connection limit) for as long as it
likes. Here a connection must deliver a request's headers whole within
``HEADER_SECONDS`` of connecting, or of the previous answer; else it is answered
408 and closed. A request whose headers arrived is the ASGI application's to bound
(its body: ``runtime/http.py``).

A request whose body has arrived whole is marked so in its scope (``WHOLE_BODY_KEY``): the
listener reads it then without a deadline, which would have nothing left to bound.

A connection that closes while its request still waits for an answer fires that
request's ``Hangup`` (``runtime/hangup.py``; the listener put it in the request's scope):
the transport is where a client's going away is known first, whatever the request does.

An answer's head and body go out in one write (``JoinedWrites``): uvicorn writes them
apart, and a client reading the head first then waited for a second segment, a second
wake-up of each side per request.

It also acknowledges a request's first part at once (``TCP_QUICKACK``, Linux): a client
that writes a request's headers and body apart, with Nagle's algorithm on, holds the body
until the headers are acknowledged, and a delayed acknowledgement made every such
request 40 ms slower. A request that arrived whole is acknowledged with its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .hangup import hangup_in

WHOLE_BODY_KEY = "tmux_contract_mcp.whole_body"
"""Set in a request's ASGI scope once its body has arrived whole: reading it waits no more."""
HEADER_SECONDS = 5.0
"""The longest a connection may take to send a request's headers."""

_SAID = f"the request's headers took longer than {HEADER_SECONDS:g} s\n".encode()
TOO_SLOW = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\n"
    b"content-length: %d\r\n\r\n%s" % (len(_SAID), _SAID)
)
QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)


class JoinedWrites:
    """A connection's transport whose answer goes out in one write: a response's head
    (what uvicorn writes for ``http.response.start``) is held until the first bytes of its
    body, and written with them, or at the event loop's next turn when none come in this
    one (a stream that waits for its first event, a body sent later)."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._head = b""
        self._flush: asyncio.Handle | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._head:
            data = self._head + data
            self._head = b""
            if self._flush is not None:
                self._flush.cancel()
                self._flush = None
        elif data[:9] == b"HTTP/1.1 " and data[-4:] == b"\r\n\r\n":
            self._head = bytes(data)
            self._flush = self._loop.call_soon(self.flush)
            return
        self._transport.write(data)

    def flush(self) -> None:
        """Write a head still held."""
        self._flush = None
        head, self._head = self._head, b""
        if head and not self._transport.is_closing():
            self._transport.write(head)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class DeadlineProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` plus the header deadline (one timer per connection), writing
    each answer's head and body together (``JoinedWrites``)."""

    _header_timer: asyncio.TimerHandle | None = None
    _partial = False
    """Whether a request has begun to arrive and not ended."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        joined = JoinedWrites(transport, self.loop)
        super().connection_made(cast(asyncio.Transport, joined))
        self._ack_now()
        self._await_headers()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._partial:
            self._ack_now()  # the rest is awaited: no delayed acknowledgement may hold it

    def on_message_begin(self) -> None:
        self._partial = True
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        self._stop_timer()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._partial = False
        super().on_message_complete()
        if self.cycle is not None and not self.cycle.more_body:
            self.cycle.scope[WHOLE_BODY_KEY] = True  # type: ignore[literal-required]

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.pipeline and not self.transport.is_closing():
            self._await_headers()  # the next request's, on this kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            hangup = hangup_in(cycle.scope)
            if hangup is not None:
                hangup.hang_up()
        super().connection_lost(exc)

    def _ack_now(self) -> None:
        """Acknowledge without delay (the kernel turns it off again by itself, so each time)."""
        sock = self.transport.get_extra_info("socket")
        if QUICKACK is not None and sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, QUICKACK, 1)

    def _await_headers(self) -> None:
        self._stop_timer()
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._headers_too_slow)

    def _stop_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.write(TOO_SLOW)
            self.transport.close()
