"""uvicorn's HTTP/1.1 protocol (httptools) with a deadline for a request's headers,
acknowledging what it receives at once.

uvicorn closes a connection that stays silent between requests (its keep-alive
timeout), but a client that sends its headers a byte at a time is waited for without
end, holding a connection (and a slot under the connection limit) for as long as it
likes. Here a connection must deliver a request's headers whole within
``HEADER_SECONDS`` of connecting, or of the previous answer; else it is answered
408 and closed. A request whose headers arrived is the ASGI application's to bound
(its body: ``runtime/http.py``).

A connection that closes while its request still waits for an answer fires that
request's ``Hangup`` (``runtime/hangup.py``; the listener put it in the request's scope):
the transport is where a client's going away is known first, whatever the request does.

It also acknowledges what it receives at once (``TCP_QUICKACK``, Linux): a client that
writes a request's headers and body apart, with Nagle's algorithm on, holds the body
until the headers are acknowledged, and a delayed acknowledgement made every such
request 40 ms slower.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .hangup import hangup_in

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


class DeadlineProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` plus the header deadline (one timer per connection)."""

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._ack_now()
        self._await_headers()

    def data_received(self, data: bytes) -> None:
        self._ack_now()
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._stop_timer()
        super().on_headers_complete()

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
