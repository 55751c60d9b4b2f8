"""The installed command serving Streamable HTTP (``--http 127.0.0.1:0``), and the SDK's HTTP
client against it.

The server picks a free port and says where it listens on stderr, so nothing races for a
port: ``HttpServer.start`` reads that line from the log file stderr goes to (a file, so a
chatty server never blocks on a full pipe). The token is given through
``TMUX_CONTRACT_MCP_TOKEN`` unless a test asks the server to make one.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
from mcp.client.client import Client as SdkClient
from mcp.client.session import LoggingFnT, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from scripts.lab.client import COMMAND, Client

SERVING = re.compile(r"serving MCP over Streamable HTTP at (\S+)")
TOKEN_IN = re.compile(r"the token is in (\S+)")
START_TIMEOUT = 60.0


@dataclass(frozen=True)
class Endpoint:
    """Where an MCP server listens and the token it asks for: what a client needs."""

    url: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class HttpServer:
    """One ``tmux-contract-mcp --http`` process and what a client needs to reach it."""

    process: subprocess.Popen[bytes]
    url: str
    token: str
    log: Path
    profile: str = "python"
    lines: list[str] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        env: Mapping[str, str],
        profile: str = "python",
        *args: str,
        address: str = "127.0.0.1:0",
        token: str | None = "",
        log_dir: Path | None = None,
        log: Path | None = None,
    ) -> HttpServer:
        """Start the command and wait until it listens. ``token`` "" makes a random one and
        passes it in ``TMUX_CONTRACT_MCP_TOKEN``; None lets the server make its own. Its
        stderr goes to ``log``, else to a new file in ``log_dir`` (else a new folder)."""
        environ = dict(env)
        if token == "":
            token = secrets.token_urlsafe(24)
        if token is not None:
            environ["TMUX_CONTRACT_MCP_TOKEN"] = token
        if log is None:
            folder = log_dir or Path(tempfile.mkdtemp(prefix="tcm-http-"))
            log = folder / f"server-{secrets.token_hex(3)}.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [COMMAND, "--profile", profile, "--http", address, *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=sink,
                env=environ,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while True:  # the announcement's lines may arrive one by one: wait for the last read
            text = log.read_text(errors="replace")
            found = SERVING.search(text)
            path = TOKEN_IN.search(text)
            if found and (token is not None or path):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait()
                raise RuntimeError(f"the HTTP server did not start: {text.strip()}")
            time.sleep(0.02)
        if path is not None and token is None:
            token = Path(path.group(1)).read_text().strip()
        assert token is not None
        return cls(process, found.group(1), token, log, profile, text.splitlines())

    @classmethod
    @contextlib.contextmanager
    def running(
        cls,
        env: Mapping[str, str],
        profile: str = "python",
        *args: str,
        address: str = "127.0.0.1:0",
        token: str | None = "",
        log_dir: Path | None = None,
    ) -> Iterator[HttpServer]:
        server = cls.start(env, profile, *args, address=address, token=token, log_dir=log_dir)
        try:
            yield server
        finally:
            server.stop()

    @property
    def host(self) -> str:
        return self.url.split("//", 1)[1].split("/", 1)[0]

    @property
    def port(self) -> int:
        return int(self.host.rsplit(":", 1)[1])

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM, as a service manager stops it; its exit status (killed if it hangs)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@asynccontextmanager
async def open_http_client(
    server: HttpServer | Endpoint,
    profile: str = "python",
    mode: str = "auto",
    *,
    logging_callback: LoggingFnT | None = None,
    message_handler: MessageHandlerFnT | None = None,
) -> AsyncIterator[Client]:
    """The SDK's ``Client`` over its Streamable HTTP transport, with the token, wrapped in the
    lab's checks. ``mode="auto"`` speaks 2026-07-28 to this server; ``"legacy"`` the handshake."""
    async with (
        create_mcp_http_client(headers=server.headers) as http,
        SdkClient(
            streamable_http_client(server.url, http_client=http),
            mode=mode,
            logging_callback=logging_callback,
            message_handler=message_handler,
            cache=None,
        ) as sdk,
    ):
        yield Client(sdk.session, profile)


@asynccontextmanager
async def open_stdio_client(
    env: Mapping[str, str], profile: str = "python", mode: str = "auto"
) -> AsyncIterator[Client]:
    """The same SDK ``Client`` in the same ``mode`` over stdio: what an HTTP answer is
    compared with (the eras shape results differently, the wires must not)."""
    params = StdioServerParameters(command=COMMAND, args=["--profile", profile], env=dict(env))
    async with SdkClient(params, mode=mode, cache=None) as sdk:
        yield Client(sdk.session, profile)


def raw_client(server: HttpServer) -> httpx2.AsyncClient:
    """A plain HTTP client for the listener's own answers (no MCP client in between)."""
    return httpx2.AsyncClient(base_url=server.url.rsplit("/", 1)[0], timeout=30)
