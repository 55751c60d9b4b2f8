"""A raw JSON-RPC client over Streamable HTTP for timing: one POST per request, nothing else.

The HTTP column's counterpart of ``scripts.bench.rpc.RawClient``, with the same methods, so
every row times it the same way: the clock starts just before the POST is sent and stops
once the whole answer has been read (a JSON body, or the event stream the server closes
after the answer's event); the answer is parsed and checked after the clock has stopped.
One keep-alive connection (the standard library's ``http.client``: the request's headers
and body in one write, the answer read by its length or its chunks, nothing more; a client
library such as httpx spends some 0.4 ms of its own per POST, which the stdio client does
not), the bearer token, the session id the server gives at initialize. ``mode="legacy"`` speaks the initialize handshake, as the stdio columns do;
``mode="auto"`` speaks 2026-07-28: no handshake, every request carries its protocol version,
client info and capabilities in ``_meta`` and the routing headers (``ping`` is gone there).

A wait is sent and read apart (``send`` then ``receive``, as ``scripts.bench.waiting`` does
on stdio): its POST runs on a thread of its own and ``receive`` takes its answer and the
moment it was complete.
"""

from __future__ import annotations

import contextlib
import http.client
import inspect
import json
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

    def _connection(self) -> http.client.HTTPConnection:
        """This thread's keep-alive connection (made on first use, and anew once it has been
        idle for most of the time the server keeps it)."""
        connection: http.client.HTTPConnection | None = getattr(self._connections, "it", None)
        idle = time.monotonic() - getattr(self._connections, "used", 0.0)
        if connection is not None and idle > SERVER_KEEPS_IDLE / 2:
            connection.close()
            connection = None
        if connection is None:
            connection = http.client.HTTPConnection(*self.address, timeout=TIMEOUT)
            self._connections.it = connection
        return connection

    def _exchange(
        self, method: str, data: bytes | None, headers: dict[str, str], timeout: float
    ) -> tuple[int, int, bytes, str]:
        """One request on this thread's connection: the moment its answer was read whole,
        its status, its body and its type."""
        connection = self._connection()
        try:
            if connection.sock is not None:
                connection.sock.settimeout(timeout)
            else:
                connection.timeout = timeout
            connection.request(method, self.path, body=data, headers=headers)
            response = connection.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise RpcError(f"the HTTP server (pid {self.pid}): {exc!r}") from exc
        stamp = time.perf_counter_ns()
        self._connections.used = time.monotonic()
        session = response.getheader(SESSION_HEADER)
        if session:
            self.headers[SESSION_HEADER] = session
        return stamp, response.status, body, response.getheader("content-type", "")

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
