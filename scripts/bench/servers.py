"""The servers under test: the columns (what runs, with which environment and flags), how
each is started, and one open session per profile."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from anyio.abc import TaskGroup
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from scripts.bench.peer import PEER_QUIET
from scripts.lab.httpserver import HttpServer
from scripts.lab.tmuxserver import TmuxServer

ROOT = Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "build" / "bench"
OURS = str(Path(sys.executable).parent / "tmux-contract-mcp")
STUB_LABEL = "no tmux, no transport"
STUB_ANSWERS = OUT / "stub-answers"
STUBBED = ("-m", "scripts.bench.stubbed")
# The rows the remote column is measured on: a simple read, the batch, the wait.
REMOTE_ROWS = ("list_sessions", "capture_pane", "batch_16", "wait")
REMOTE_LABEL = "ours/ssh"
# The HTTP column: the same rows, ours served over Streamable HTTP on 127.0.0.1.
HTTP_ROWS = REMOTE_ROWS
HTTP_LABEL = "ours/http"


@dataclass(frozen=True)
class Column:
    """One server under test; ``profiles`` are the tool surfaces it is opened with.

    Ours is started as ``command [*launcher] --profile P [*flags]`` from ``cwd``;
    the peer takes no arguments.
    """

    key: str
    label: str
    command: str
    env: dict[str, str]
    profiles: tuple[str, ...]
    python: str
    flags: tuple[str, ...] = ()
    launcher: tuple[str, ...] = ()
    cwd: Path | None = None
    is_peer: bool = False
    is_stub: bool = False  # ours with every tmux answer replayed: no tmux, no transport
    rows: tuple[str, ...] | None = None  # the rows it is measured on (None: every row)
    is_remote: bool = False  # ours reaching the tmux server through ssh
    is_http: bool = False  # ours served over Streamable HTTP (--http 127.0.0.1:0)
    http_mode: str = "legacy"  # the SDK client's mode: "legacy" (handshake) or "auto" (2026)

    def measures(self, row: str) -> bool:
        return self.rows is None or row in self.rows

    def args(self, profile: str) -> list[str]:
        if self.is_peer:
            return []
        return [*self.launcher, "--profile", profile, *self.flags]


def make_columns(
    tmux: TmuxServer,
    peer: Path,
    peer_as_shipped: bool,
    ssh: tuple[str, Path] | None = None,
    http: bool = False,
    http_mode: str = "legacy",
) -> list[Column]:
    """Every server gets the same socket path; ours its transport as a flag.

    ``ssh`` (a target and its ssh config file) adds ours over control through ssh to that
    target, where the same socket path names the same tmux server (the remote is this
    machine), measured on the remote rows only. ``http`` adds ours over control served
    with ``--http 127.0.0.1:0`` to the SDK's Streamable HTTP client, on the HTTP rows only;
    ``http_mode`` is that client's era: "legacy" (the initialize handshake, as the stdio
    columns speak) or "auto" (2026-07-28 with this server).
    """
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/root"),
        "TMUX_TMPDIR": str(tmux.tmpdir),
        "LIBTMUX_SOCKET_PATH": tmux.socket_path,
    }
    peer_env = env if peer_as_shipped else {**env, **PEER_QUIET}
    surfaces = ("python", "swift")
    columns = [
        Column(
            "peer", "libtmux-mcp", str(peer), peer_env, ("peer",), str(peer.parent / "python"),
            is_peer=True,
        ),
    ]  # fmt: skip
    for transport in ("control", "subprocess"):
        flags = ("--transport", transport)
        columns.append(
            Column(transport, f"ours/{transport}", OURS, env, surfaces, sys.executable, flags)
        )
    columns.append(
        Column(
            "stub", STUB_LABEL, sys.executable, env, surfaces, sys.executable,
            ("--transport", "control"), (*STUBBED, "--replay", str(STUB_ANSWERS)), ROOT,
            is_stub=True,
        )
    )  # fmt: skip
    if ssh is not None:
        target, config = ssh
        remote = {
            **env,
            "LIBTMUX_TMUX_BIN": shutil.which("tmux") or "tmux",
            "TMUX_CONTRACT_MCP_SSH": target,
            "TMUX_CONTRACT_MCP_SSH_CONFIG": str(config),
        }
        columns.append(
            Column(
                "ssh", REMOTE_LABEL, OURS, remote, surfaces, sys.executable,
                ("--transport", "control"), rows=REMOTE_ROWS, is_remote=True,
            )
        )  # fmt: skip
    if http:
        columns.append(
            Column(
                "http", HTTP_LABEL, OURS, env, surfaces, sys.executable,
                ("--transport", "control"), rows=HTTP_ROWS, is_http=True, http_mode=http_mode,
            )
        )  # fmt: skip
    return columns


def recorder(stub: Column) -> Column:
    """The stubbed column's server over the real control transport, writing down every answer."""
    launcher = (*STUBBED, "--record", str(STUB_ANSWERS))
    return Column(
        "record", "recording for the stub", stub.command, stub.env, stub.profiles, stub.python,
        stub.flags, launcher, stub.cwd,
    )  # fmt: skip


@dataclass
class Conn:
    """A server process kept open for the whole run, one per (column, profile)."""

    column: Column
    profile: str
    ready: anyio.Event = field(default_factory=anyio.Event)
    session: ClientSession | None = None
    tools: frozenset[str] = frozenset()
    error: str | None = None

    @property
    def log(self) -> Path:
        return OUT / "logs" / f"{self.column.key}-{self.profile}.log"


def describe(exc: BaseException) -> str:
    """The innermost messages of an exception group: the SDK nests them deeply."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def log_tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:])


def params(column: Column, profile: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=column.command, args=column.args(profile), env=column.env, cwd=column.cwd
    )


async def hold(conn: Conn, stop: anyio.Event) -> None:
    """Open one server, publish its session, keep it until ``stop`` is set."""
    conn.log.parent.mkdir(parents=True, exist_ok=True)
    if conn.column.is_http:
        await hold_http(conn, stop)
        return
    with conn.log.open("w") as log:
        try:
            async with (
                stdio_client(params(conn.column, conn.profile), errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await serve_until(conn, session, stop)
        except Exception as exc:
            log.flush()
            tail = log_tail(conn.log)
            conn.error = describe(exc) + (f" (stderr: {tail})" if tail else "")
        finally:
            conn.session = None
            conn.ready.set()


async def hold_http(conn: Conn, stop: anyio.Event) -> None:
    """The HTTP column: the command started with ``--http 127.0.0.1:0``, then the SDK's
    ClientSession over its Streamable HTTP client: with the initialize handshake as the
    stdio columns use it (the era clients speak today), or in 2026-07-28 through the SDK's
    ``Client`` (``http_mode="auto"``)."""
    column = conn.column
    server: HttpServer | None = None
    try:
        server = await anyio.to_thread.run_sync(
            lambda: HttpServer.start(column.env, conn.profile, *column.flags, log=conn.log)
        )
        async with create_mcp_http_client(headers=server.headers) as client:
            transport = streamable_http_client(server.url, http_client=client)
            if column.http_mode == "legacy":
                async with transport as (read, write), ClientSession(read, write) as session:
                    await serve_until(conn, session, stop)
            else:
                async with Client(transport, mode=column.http_mode, cache=None) as sdk:
                    await serve_until(conn, sdk.session, stop, handshake=False)
    except Exception as exc:
        tail = log_tail(conn.log)
        conn.error = describe(exc) + (f" (stderr: {tail})" if tail else "")
    finally:
        conn.session = None
        conn.ready.set()
        if server is not None:
            await anyio.to_thread.run_sync(server.stop)


async def serve_until(
    conn: Conn, session: ClientSession, stop: anyio.Event, handshake: bool = True
) -> None:
    with anyio.fail_after(60):
        if handshake:
            await session.initialize()
        listed = await session.list_tools()
    conn.tools = frozenset(tool.name for tool in listed.tools)
    conn.session = session
    conn.ready.set()
    await stop.wait()


async def open_all(conns: Sequence[Conn], stop: anyio.Event, tg: TaskGroup) -> None:
    """Start every server in ``tg`` and return once each is ready or has failed."""
    for conn in conns:
        tg.start_soon(hold, conn, stop)
    for conn in conns:
        await conn.ready.wait()
    for conn in conns:
        state = f"{len(conn.tools)} tools" if conn.session else f"unavailable: {conn.error}"
        print(f"· {conn.column.label} [{conn.profile}]: {state}", file=sys.stderr)


def conn_for(conns: Sequence[Conn], column: Column, profile: str) -> Conn | None:
    for conn in conns:
        if conn.column is column and conn.profile == profile and conn.session is not None:
            return conn
    return None
