"""JSON-RPC as it travels: the lines of a handshake, a server over plain pipes, byte counts."""

from __future__ import annotations

import json
import select
from typing import IO, Any

import anyio
from anyio.abc import Process

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


INITIALIZED: dict[str, object] = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def read_line(stream: IO[bytes], timeout: float = 30.0) -> bytes:
    """One line, or a failed test instead of a hang."""
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"no answer within {timeout:g}s"
    return stream.readline()


HANDSHAKE = "2025-06-18"  # initialize, then plain requests


PER_REQUEST = "2026-07-28"  # no initialize: every request carries its version in _meta


class RawServer:
    """The server over plain pipes: JSON-RPC written and read as newline-ended bytes."""

    def __init__(self, process: Process, protocol: str) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.stdin = process.stdin
        self.stdout = process.stdout
        self.protocol = protocol
        self.buffer = b""

    async def send(self, message: dict[str, Any]) -> None:
        if self.protocol == PER_REQUEST and "id" in message:
            message["params"]["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": PER_REQUEST,
                "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        await self.stdin.send(json.dumps(message).encode() + b"\n")

    async def line(self) -> bytes:
        """The next line exactly as written, newline included."""
        with anyio.fail_after(60):
            while b"\n" not in self.buffer:
                self.buffer += await self.stdout.receive(1 << 20)
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line + b"\n"

    async def request(
        self, request_id: str | int, method: str, params: dict[str, Any]
    ) -> tuple[bytes, dict[str, Any]]:
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        raw = await self.line()
        message = json.loads(raw)
        assert message["id"] == request_id
        return raw, dict(message)

    async def call(
        self, request_id: str | int, tool: str, arguments: dict[str, Any]
    ) -> tuple[bytes, dict[str, Any]]:
        """A tool call's raw response line and its parsed result."""
        raw, message = await self.request(
            request_id, "tools/call", {"name": tool, "arguments": arguments}
        )
        assert "result" in message, str(message)[:500]
        return raw, dict(message["result"])


def encoded_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON, the way it travels on the wire."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
