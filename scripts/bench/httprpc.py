"""A raw JSON-RPC client over Streamable HTTP for timing: one POST per request, nothing else.

The HTTP column's counterpart of ``scripts.bench.rpc.RawClient``, with the same methods, so
every row times it the same way: the clock starts just before the POST is sent and stops
once the whole answer has been read (a JSON body, or the event stream the server closes
after the answer's event); the answer is parsed and checked after the clock has stopped.
One keep-alive connection (``Wire``, a socket: the request's headers and body in one write,
the answer read by its length or its chunks, nothing more; a client library such as httpx
spends some 0.4 ms of its own per POST, and the standard library's ``http.client`` some
0.1 ms, which the stdio client does not), the bearer token, the session id the server gives
at initialize. ``mode="legacy"`` speaks the initialize handshake, as the stdio columns do;
``mode="auto"`` speaks 2026-07-28: no handshake, every request carries its protocol version,
client info and capabilities in ``_meta`` and the routing headers (``ping`` is gone there).

A wait is sent and read apart (``send`` then ``receive``, as ``scripts.bench.waiting`` does
on stdio): its POST runs on a thread of its own and ``receive`` takes its answer and the
moment it was complete.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import socket
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
)
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
)

from scripts.bench.rpc import CLIENT_INFO, PROTOCOL, TIMEOUT, McpMethods, Reply, RpcError, encode
from scripts.lab.httpserver import HttpServer

MODERN = "2026-07-28"
SESSION_HEADER = "mcp-session-id"
SERVER_KEEPS_IDLE = float(
    inspect.signature(uvicorn.Config).parameters["timeout_keep_alive"].default
)
"""How long the server keeps an idle keep-alive connection open (uvicorn's default, which
``--http`` keeps): a connection idle nearly that long is closed and made anew before a request,
so no request is written into one the server is closing."""


def answer_in(body: bytes, content_type: str, ident: int | None) -> tuple[bytes, dict[str, Any]]:
    """The message answering ``ident`` in a POST's answer: a JSON body, or the ``data`` of an
    event of an event stream (other events, notifications and requests, are read past)."""
    if content_type.startswith("application/json"):
        return body.strip(), RawHttpClient.parse(body)
    if not content_type.startswith("text/event-stream"):
        raise RpcError(f"an answer of type {content_type!r}: {body[:200]!r}")
    for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = b"\n".join(
            line[5:].removeprefix(b" ") for line in event.split(b"\n") if line.startswith(b"data:")
        )
        if not data.strip():
            continue
        message = RawHttpClient.parse(data)
        if message.get("id") == ident and "method" not in message:
            return data, message
    raise RpcError(f"no answer to request {ident} in the event stream: {body[:200]!r}")


class Wire:
    """One HTTP/1.1 keep-alive connection, as raw as the stdio client's pipe: a request's
    head and body in one write, the answer's head read up to its blank line and its body by
    its length or its chunks (an event stream), nothing more (``http.client`` parses every
    head with the email package, some 0.1 ms a request the stdio client does not spend)."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.host = f"{address[0]}:{address[1]}"
        self.sock = socket.create_connection(address, timeout=TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self.sock.close()

    def _fill(self) -> None:
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            self.closed = True
            raise RpcError("the server closed the connection before its answer")
        self.buffer += chunk

    def _until(self, mark: bytes) -> bytes:
        """The buffered bytes up to ``mark``, taken with it."""
        while (end := self.buffer.find(mark)) < 0:
            self._fill()
        taken = bytes(self.buffer[:end])
        del self.buffer[: end + len(mark)]
        return taken

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        taken = bytes(self.buffer[:size])
        del self.buffer[:size]
        return taken

    def exchange(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        body: bytes | None,
        timeout: float,
    ) -> tuple[int, dict[str, str], bytes]:
        """Send one request; its answer's status, headers (names lower-cased) and body."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines.append(f"Content-Length: {len(body or b'')}")
        self.sock.settimeout(timeout)
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        head = self._until(b"\r\n\r\n").decode("latin-1").split("\r\n")
        version, _, rest = head[0].partition(" ")
        if not version.startswith("HTTP/1.") or not rest[:3].isdigit():
            raise RpcError(f"not an HTTP answer: {head[0]!r}")
        got: dict[str, str] = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            got[name.strip().lower()] = value.strip()
        if "content-length" in got:
            answer = self._exactly(int(got["content-length"]))
        elif got.get("transfer-encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while size := int(self._until(b"\r\n").split(b";")[0], 16):
                parts.append(self._exactly(size))
                self._exactly(2)
            while self._until(b"\r\n"):
                pass  # trailers, up to the blank line
            answer = b"".join(parts)
        else:
            raise RpcError(f"an answer with neither a length nor chunks: {head!r}")
        if got.get("connection", "").lower() == "close":
            self.close()
        return int(rest[:3]), got, answer


class RawHttpClient(McpMethods):
    """One ``--http`` server process and a keep-alive HTTP connection to it."""

    def __init__(self, server: HttpServer, mode: str = "legacy") -> None:
        if mode not in ("legacy", "auto"):
            raise ValueError(f"mode {mode!r}: legacy or auto")
        self.server = server
        self.mode = mode
        url = urlsplit(server.url)
        if url.scheme != "http" or url.hostname is None or url.port is None:
            raise ValueError(
                f"{server.url}: the bench's HTTP client speaks plain http to host:port"
            )
        self.address = (url.hostname, url.port)
        self.path = url.path
        self._connections = threading.local()  # one keep-alive connection per thread
        self.headers = {
            **server.headers,
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self._next = 0
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[int, Future[tuple[int, bytes, str]]] = {}
        self.initialized: dict[str, Any] = {}

    @property
    def pid(self) -> int:
        return self.server.process.pid

    # --- the wire -------------------------------------------------------------------------

    @staticmethod
    def parse(data: bytes) -> dict[str, Any]:
        try:
            message = json.loads(data)
        except ValueError as exc:
            raise RpcError(f"an answer that is not JSON: {data[:200]!r}") from exc
        if not isinstance(message, dict):
            raise RpcError(f"an answer that is not a JSON object: {data[:200]!r}")
        return message

    def _message(
        self, method: str, params: Mapping[str, Any] | None, ident: int | None
    ) -> tuple[bytes, dict[str, str]]:
        """The body and headers of a request (``ident`` None: a notification)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if ident is not None:
            message["id"] = ident
        headers = dict(self.headers)
        if self.mode == "auto":
            body = dict(params or {})
            body["_meta"] = {
                **body.get("_meta", {}),
                PROTOCOL_VERSION_META_KEY: MODERN,
                CLIENT_INFO_META_KEY: CLIENT_INFO,
                CLIENT_CAPABILITIES_META_KEY: {},
            }
            message["params"] = body
            headers[MCP_PROTOCOL_VERSION_HEADER] = MODERN
            headers[MCP_METHOD_HEADER] = method
            name_key = NAME_BEARING_METHODS.get(method)
            name = body.get(name_key) if name_key else None
            if isinstance(name, str):
                headers[MCP_NAME_HEADER] = encode_header_value(name)
        else:
            if params is not None:
                message["params"] = params
            if self.initialized:
                headers[MCP_PROTOCOL_VERSION_HEADER] = str(
                    self.initialized.get("protocolVersion", PROTOCOL)
                )
        return encode(message), headers

    def _connection(self) -> Wire:
        """This thread's keep-alive connection (made on first use, and anew once it has been
        idle for most of the time the server keeps it, or the server closed it)."""
        connection: Wire | None = getattr(self._connections, "it", None)
        idle = time.monotonic() - getattr(self._connections, "used", 0.0)
        if connection is not None and (idle > SERVER_KEEPS_IDLE / 2 or connection.closed):
            connection.close()
            connection = None
        if connection is None:
            connection = Wire(self.address)
            self._connections.it = connection
        return connection

    def _exchange(
        self, method: str, data: bytes | None, headers: dict[str, str], timeout: float
    ) -> tuple[int, int, bytes, str]:
        """One request on this thread's connection: the moment its answer was read whole,
        its status, its body and its type."""
        connection = self._connection()
        try:
            status, got, body = connection.exchange(method, self.path, headers, data, timeout)
        except (OSError, RpcError) as exc:
            connection.close()
            raise RpcError(f"the HTTP server (pid {self.pid}): {exc!r}") from exc
        stamp = time.perf_counter_ns()
        self._connections.used = time.monotonic()
        session = got.get(SESSION_HEADER)
        if session:
            self.headers[SESSION_HEADER] = session
        return stamp, status, body, got.get("content-type", "")

    def _post(self, data: bytes, headers: dict[str, str], timeout: float) -> tuple[int, bytes, str]:
        """POST ``data``; the moment its answer was read whole, the answer and its type."""
        stamp, status, body, kind = self._exchange("POST", data, headers, timeout)
        if status >= 400 and not body.strip().startswith(b"{"):
            raise RpcError(f"HTTP {status}: {body[:200]!r}")
        return stamp, body, kind

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = TIMEOUT
    ) -> Reply:
        """One timed round trip: from just before the POST to its answer's last byte."""
        self._next += 1
        data, headers = self._message(method, params, self._next)
        start = time.perf_counter_ns()
        stamp, body, kind = self._post(data, headers, timeout)
        raw, message = answer_in(body, kind, self._next)
        return Reply(stamp - start, raw, message)

    def send(self, method: str, params: Mapping[str, Any] | None = None) -> int:
        """POST a request on a thread of its own; its id. The answer is read with ``receive``."""
        self._next += 1
        data, headers = self._message(method, params, self._next)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bench-http")
        self._pending[self._next] = self._pool.submit(self._post, data, headers, TIMEOUT)
        return self._next

    def receive(self, ident: int, timeout: float = TIMEOUT) -> tuple[int, bytes, dict[str, Any]]:
        """The answer to a request ``send`` made: the moment it was complete, its bytes and
        the message parsed."""
        future = self._pending.pop(ident)
        stamp, body, kind = future.result(timeout)
        raw, message = answer_in(body, kind, ident)
        return stamp, raw, message

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        data, headers = self._message(method, params, None)
        self._post(data, headers, TIMEOUT)

    # --- MCP ------------------------------------------------------------------------------

    def initialize(self, timeout: float = TIMEOUT) -> Reply | None:
        """The handshake in legacy mode; in 2026-07-28 there is none (None)."""
        if self.mode == "auto":
            return None
        return super().initialize(timeout)

    # --- the process ----------------------------------------------------------------------

    def close(self, grace: float = 10.0) -> None:
        """End the session (legacy: DELETE), close the connection, stop the server."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        if SESSION_HEADER in self.headers:
            with contextlib.suppress(RpcError):
                self._exchange("DELETE", None, self.headers, grace)
        self._connection().close()
        self.server.stop(timeout=grace)
