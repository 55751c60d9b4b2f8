"""A raw JSON-RPC client for timing: newline-delimited JSON over a server's stdio, nothing else.

The SDK's ``ClientSession`` does work of its own on every answer (it builds pydantic models,
and checks every structuredContent against the tool's output schema with jsonschema), and
that work was inside every sample, the same few milliseconds on every server, hiding their
difference. Here a timed call is only: the request's bytes written to the server's stdin,
and its stdout read up to the end of the line that answers it. The clock starts just
before the write and stops the moment that line is complete; the line is parsed and
checked (the id, a JSON-RPC error, ``isError``) after the clock has stopped.

A line that answers another id, a notification or a request from the server is read past
(a request gets a JSON-RPC error back, so the server never waits on this client).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

PROTOCOL = "2025-06-18"
TIMEOUT = 60.0
CHUNK = 1 << 20


class RpcError(Exception):
    """The server cannot be talked to: it closed its output, or it did not answer in time."""


@dataclass(frozen=True)
class Reply:
    """One answer: how long it took, its line as it crossed the pipe, and the line parsed."""

    elapsed_ns: int
    raw: bytes
    message: dict[str, Any]

    @property
    def result(self) -> dict[str, Any]:
        result = self.message.get("result")
        return result if isinstance(result, dict) else {}

    @property
    def structured(self) -> Any:
        return self.result.get("structuredContent")

    def error(self) -> str | None:
        """Why this answer is not a success, or None: a JSON-RPC error, or a tool result
        with ``isError`` true (its text, shortened)."""
        if "error" in self.message:
            error = self.message["error"]
            return f"JSON-RPC error {error.get('code')}: {str(error.get('message'))[:300]}"
        if "result" not in self.message:
            return "an answer with neither result nor error"
        if self.result.get("isError"):
            text = " ".join(
                str(block.get("text", ""))
                for block in self.result.get("content", [])
                if isinstance(block, dict)
            )
            return f"tool error: {text[:300]}"
        return None


def encode(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


CLIENT_INFO = {"name": "bench", "version": "0"}


class McpMethods:
    """The MCP requests a bench client makes, over whatever ``request`` and ``notify`` its
    transport gives (stdio lines here, HTTP POSTs in ``httprpc``)."""

    initialized: dict[str, Any]  # the server's answer to initialize ({} until then)

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = TIMEOUT
    ) -> Reply:
        raise NotImplementedError

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        raise NotImplementedError

    def initialize(self, timeout: float = TIMEOUT) -> Reply | None:
        """The handshake-era handshake: initialize, then its notification."""
        reply = self.request(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": CLIENT_INFO},
            timeout,
        )
        if reply.error():
            raise RpcError(f"initialize failed: {reply.error()}")
        self.initialized = reply.result
        self.notify("notifications/initialized")
        return reply

    def call(self, tool: str, arguments: Mapping[str, Any], timeout: float = TIMEOUT) -> Reply:
        return self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)

    def ping(self, timeout: float = TIMEOUT) -> Reply:
        return self.request("ping", None, timeout)

    def list_tools(self, timeout: float = TIMEOUT) -> Reply:
        return self.request("tools/list", None, timeout)


class RawClient(McpMethods):
    """One server process and the client end of its stdio."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        stderr: IO[Any] | int | None = subprocess.DEVNULL,
    ) -> None:
        self.process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already searched for a newline
        self._next = 0
        self.initialized: dict[str, Any] = {}  # the server's answer to initialize
        self.skipped = 0  # lines read past: notifications, other ids, requests

    @property
    def pid(self) -> int:
        return self.process.pid

    # --- the wire -------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._in, view)
            except BrokenPipeError as exc:
                raise RpcError(f"the server (pid {self.pid}) closed its input") from exc
            view = view[written:]

    def _line(self, deadline: float) -> tuple[bytes, int]:
        """The next whole line and the moment (perf_counter_ns) it was complete."""
        while True:
            at = self._buffer.find(b"\n", self._scanned)
            if at >= 0:
                stamp = time.perf_counter_ns()
                line = bytes(self._buffer[:at])
                del self._buffer[: at + 1]
                self._scanned = 0
                return line, stamp
            self._scanned = len(self._buffer)
            left = deadline - time.monotonic()
            if left <= 0:
                raise RpcError(f"no answer from the server (pid {self.pid}) in time")
            if not self._poll.poll(left * 1000):
                continue
            chunk = os.read(self._out, CHUNK)
            if not chunk:
                code = self.process.poll()
                raise RpcError(f"the server (pid {self.pid}) closed its output (exit {code})")
            self._buffer += chunk

    def send(self, method: str, params: Mapping[str, Any] | None = None) -> int:
        """Write a request; its id. The answer is read with ``receive``."""
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        self._write(encode(message))
        return self._next

    def receive(self, ident: int, timeout: float = TIMEOUT) -> tuple[int, bytes, dict[str, Any]]:
        """Read lines until the one answering ``ident``: the moment it was complete, its
        bytes and the message parsed (parsing happens after the moment is taken)."""
        deadline = time.monotonic() + timeout
        while True:
            line, stamp = self._line(deadline)
            message = self._parse(line)
            if message.get("id") == ident and "method" not in message:
                return stamp, line, message
            self.skipped += 1
            if "method" in message and "id" in message:  # a request to the client
                error = {"code": -32601, "message": "the bench client serves no requests"}
                self._write(encode({"jsonrpc": "2.0", "id": message["id"], "error": error}))

    @staticmethod
    def _parse(line: bytes) -> dict[str, Any]:
        try:
            message = json.loads(line)
        except ValueError as exc:
            raise RpcError(f"a line that is not JSON: {line[:200]!r}") from exc
        if not isinstance(message, dict):
            raise RpcError(f"a line that is not a JSON object: {line[:200]!r}")
        return message

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = TIMEOUT
    ) -> Reply:
        """One timed round trip: from just before the request is written to its answer's
        last byte. Everything else (building the request, parsing the answer) is outside."""
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        data = encode(message)
        start = time.perf_counter_ns()
        self._write(data)
        stamp, line, answer = self.receive(self._next, timeout)
        return Reply(stamp - start, line, answer)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(encode(message))

    # --- the process ----------------------------------------------------------------------

    def close(self, grace: float = 10.0) -> None:
        """Close its input (an MCP server's cue to exit), wait, then kill what is left."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
