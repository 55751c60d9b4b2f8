"""Newline-delimited JSON-RPC over a pair of FIFOs: for a server started inside a tmux pane."""

from __future__ import annotations

import json
import os
import select
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer


class FifoPeer:
    """The client side of an MCP server whose stdin/stdout are two FIFOs."""

    def __init__(self, directory: Path) -> None:
        self.inbound = directory / "in.fifo"  # the server reads this
        self.outbound = directory / "out.fifo"  # the server writes this
        os.mkfifo(self.inbound)
        os.mkfifo(self.outbound)
        self._writer: int | None = None
        self._reader: int | None = None
        self._buffer = b""
        self._next_id = 0
        self.initialized: dict[str, Any] = {}  # the server's answer to initialize

    def shell_command(self, command: str) -> str:
        return f"exec {command} <{self.inbound} >{self.outbound}"

    def connect(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self._writer is None:
            try:
                self._writer = os.open(self.inbound, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # no reader yet: the pane has not started the server
                if time.monotonic() > deadline:
                    raise TimeoutError("the server never opened its stdin FIFO") from None
                time.sleep(0.02)
        os.set_blocking(self._writer, True)
        self._reader = os.open(self.outbound, os.O_RDONLY | os.O_NONBLOCK)

    def send(self, message: dict[str, Any]) -> None:
        assert self._writer is not None
        os.write(self._writer, json.dumps(message).encode() + b"\n")

    def receive(self, timeout: float = 15.0) -> dict[str, Any]:
        assert self._reader is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the server")
            ready, _, _ = select.select([self._reader], [], [], left)
            if ready:
                chunk = os.read(self._reader, 65536)
                if not chunk:
                    time.sleep(0.01)  # writer not connected yet, or gone
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return dict(json.loads(line))

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self._next_id:
                return message

    def initialize(self) -> None:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "0"},
            },
        )
        assert "result" in answer, answer
        self.initialized = dict(answer["result"])
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in answer, answer
        return dict(answer["result"])

    def close(self) -> None:
        for fd in (self._writer, self._reader):
            if fd is not None:
                os.close(fd)
        self._writer = self._reader = None


@contextmanager
def server_in_pane(tmux: TmuxServer, pane: str, profile: str, **env: str) -> Iterator[FifoPeer]:
    """Replace ``pane``'s process with the MCP server; its stdin and stdout are two FIFOs.

    stderr stays on the pane's terminal: with no descriptor left on it, tmux
    would see the pane hang up and send the server SIGHUP.
    """
    peer = FifoPeer(Path(tempfile.mkdtemp(dir=tmux.tmpdir)))
    variables = [
        arg for name, value in {**tmux.env, **env}.items() for arg in ("-e", f"{name}={value}")
    ]
    tmux.tmux(
        "respawn-pane",
        "-k",
        "-t",
        pane,
        *variables,
        peer.shell_command(f"{COMMAND} --profile {profile}"),
    )
    try:
        peer.connect()
        peer.initialize()
        yield peer
    finally:
        peer.close()


def structured(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("isError"), result
    return dict(result["structuredContent"])
