"""A raw JSON-RPC client over Streamable HTTP for timing: one POST per request, nothing else.

The HTTP column's counterpart of ``scripts.bench.rpc.RawClient``, with the same methods, so
every row times it the same way: the clock starts just before the POST is sent and stops
once the whole answer has been read (a JSON body, or the event stream the server closes
after the answer's event); the answer is parsed and checked after the clock has stopped.
One keep-alive connection (httpx2), the bearer token, the session id the server gives at
initialize. ``mode="legacy"`` speaks the initialize handshake, as the stdio columns do;
``mode="auto"`` speaks 2026-07-28: no handshake, every request carries its protocol version,
client info and capabilities in ``_meta`` and the routing headers (``ping`` is gone there).

A wait is sent and read apart (``send`` then ``receive``, as ``scripts.bench.waiting`` does
on stdio): its POST runs on a thread of its own and ``receive`` takes its answer and the
moment it was complete.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import httpx2
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
        self.http = httpx2.Client(timeout=TIMEOUT)
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

    def _post(self, data: bytes, headers: dict[str, str], timeout: float) -> tuple[int, bytes, str]:
        """POST ``data``; the moment its answer was read whole, the answer and its type."""
        try:
            response = self.http.post(
                self.server.url, content=data, headers=headers, timeout=timeout
            )
        except httpx2.HTTPError as exc:
            raise RpcError(f"the HTTP server (pid {self.pid}): {exc!r}") from exc
        stamp = time.perf_counter_ns()
        session = response.headers.get(SESSION_HEADER)
        if session:
            self.headers[SESSION_HEADER] = session
        if response.status_code >= 400 and not response.content.strip().startswith(b"{"):
            raise RpcError(f"HTTP {response.status_code}: {response.content[:200]!r}")
        return stamp, response.content, response.headers.get("content-type", "")

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
            with contextlib.suppress(httpx2.HTTPError):
                self.http.delete(self.server.url, headers=self.headers, timeout=grace)
        self.http.close()
        self.server.stop(timeout=grace)
