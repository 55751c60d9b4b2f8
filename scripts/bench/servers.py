"""The servers under test: the columns (what runs, with which environment and flags), and one
process per column and profile, held open for the whole run behind a raw JSON-RPC client."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import psutil

from scripts.bench.httprpc import RawHttpClient
from scripts.bench.peer import PEER_QUIET
from scripts.bench.rpc import RawClient
from scripts.lab.httpserver import HttpServer
from scripts.lab.tmuxserver import TmuxServer

ROOT = Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "build" / "bench"
OURS = str(Path(sys.executable).parent / "tmux-contract-mcp")
PROFILES = ("python", "rust", "swift")
STUB_LABEL = "no tmux, no transport"
STUB_ANSWERS = OUT / "stub-answers"
STUBBED = ("-m", "scripts.bench.stubbed")
REMOTE_LABEL = "ours/ssh"
# The HTTP column: ours served over Streamable HTTP on 127.0.0.1, on a simple read, the
# batch and the wait (each profile), timed by a raw HTTP POST client (scripts.bench.httprpc).
HTTP_ROWS = ("list_sessions", "capture_pane", "batch_16", "wait")
HTTP_LABEL = "ours/http"
PEER_LABEL = "libtmux-mcp"
# The rows no column but the ones named measures: the starts are measured on fresh
# processes of their own (not through ssh, not stubbed), the wait needs tmux to print.
START_ROWS = ("cold_start", "import_mcp")


@dataclass(frozen=True)
class Column:
    """One way of running a server; ``profiles`` are the tool surfaces it is opened with
    (the peer serves the python surface: ours under ``--profile python`` copies it).

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
    is_remote: bool = False  # ours reaching the tmux server through ssh
    is_http: bool = False  # ours served over Streamable HTTP (--http 127.0.0.1:0)
    http_mode: str = "legacy"  # the HTTP client's era: "legacy" (handshake) or "auto" (2026)
    skips: tuple[str, ...] = ()  # the rows it is not measured on
    at_scale: bool = True  # measured on the scale rows ("scale:...")
    rows: tuple[str, ...] | None = None  # the only rows it is measured on (None: all but skips)

    def measures(self, row: str) -> bool:
        if row.startswith("scale:"):
            return self.at_scale
        if self.rows is not None:
            return row in self.rows
        return row not in self.skips

    def args(self, profile: str) -> list[str]:
        if self.is_peer:
            return []
        return [*self.launcher, "--profile", profile, *self.flags]

    def argv(self, profile: str) -> list[str]:
        return [self.command, *self.args(profile)]


def base_env(tmux: TmuxServer) -> dict[str, str]:
    """What every server gets: the same tmux server, by socket path."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/root"),
        "TMUX_TMPDIR": str(tmux.tmpdir),
        "LIBTMUX_SOCKET_PATH": tmux.socket_path,
    }


def make_columns(
    tmux: TmuxServer,
    peer: Path,
    peer_as_shipped: bool,
    ssh: tuple[str, Path] | None = None,
    profiles: Sequence[str] = PROFILES,
    http: bool = False,
    http_mode: str = "legacy",
) -> list[Column]:
    """Every server gets the same socket path; ours its transport as a flag.

    ``ssh`` (a target and its ssh config file) adds ours over control through ssh to that
    target, where the same socket path names the same tmux server (the remote is this
    machine). ``profiles`` narrows our profiles; the subprocess transport runs python's only.
    ``http`` adds ours over control served with ``--http 127.0.0.1:0``, timed by a raw HTTP
    client, on the HTTP rows only; ``http_mode`` is that client's era: "legacy" (the
    initialize handshake, as the stdio columns speak) or "auto" (2026-07-28 with this server).
    """
    env = base_env(tmux)
    peer_env = env if peer_as_shipped else {**env, **PEER_QUIET}
    surfaces = tuple(p for p in PROFILES if p in profiles)
    columns = [
        Column(
            "peer", PEER_LABEL, str(peer), peer_env, ("python",), str(peer.parent / "python"),
            is_peer=True,
        ),
        Column("control", "ours/control", OURS, env, surfaces, sys.executable,
               ("--transport", "control")),
    ]  # fmt: skip
    if "python" in surfaces:
        columns.append(
            Column(
                "subprocess", "ours/subprocess", OURS, env, ("python",), sys.executable,
                ("--transport", "subprocess"), at_scale=False,
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
                ("--transport", "control"), is_remote=True, skips=START_ROWS,
            )
        )  # fmt: skip
    if http:
        columns.append(
            Column(
                "http", HTTP_LABEL, OURS, env, surfaces, sys.executable,
                ("--transport", "control"), is_http=True, http_mode=http_mode,
                at_scale=False, rows=HTTP_ROWS,
            )
        )  # fmt: skip
    columns.append(stub_column(env, surfaces, STUB_ANSWERS))
    return columns


def stub_column(env: dict[str, str], profiles: tuple[str, ...], answers: Path) -> Column:
    return Column(
        "stub", STUB_LABEL, sys.executable, env, profiles, sys.executable,
        ("--transport", "control"), (*STUBBED, "--replay", str(answers)), ROOT,
        is_stub=True, skips=(*START_ROWS, "wait"),
    )  # fmt: skip


def replaying(stub: Column, answers: Path) -> Column:
    """The stubbed column answering from ``answers`` (a recording of its own)."""
    return replace(stub, launcher=(*STUBBED, "--replay", str(answers)))


def recorder(stub: Column, answers: Path) -> Column:
    """The stubbed column's server over the real control transport, writing every answer
    to ``answers``."""
    return replace(
        stub, key="record", label="recording for the stub",
        launcher=(*STUBBED, "--record", str(answers)), is_stub=False,
    )  # fmt: skip


def log_tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:])


def describe(exc: BaseException) -> str:
    """The innermost messages of an exception group."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def rss_kib(pid: int) -> int | None:
    """Resident memory of ``pid`` in KiB (None: gone)."""
    try:
        return int(psutil.Process(pid).memory_info().rss // 1024)
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


@dataclass
class Server:
    """One server process held open for the run: a column's server of one profile."""

    column: Column
    profile: str
    client: RawClient | RawHttpClient | None = None
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)  # as tools/list has them
    error: str | None = None
    rss_open_kib: int | None = None  # once it has answered tools/list
    rss_end_kib: int | None = None  # when the run is over

    @property
    def key(self) -> str:
        return f"{self.column.key}/{self.profile}"

    @property
    def label(self) -> str:
        return f"{self.column.label} [{self.profile}]"

    @property
    def log(self) -> Path:
        return OUT / "logs" / f"{self.column.key}-{self.profile}.log"

    def spawn(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        if self.column.is_http:
            try:
                server = HttpServer.start(
                    self.column.env, self.profile, *self.column.flags, log=self.log
                )
                self.client = RawHttpClient(server, self.column.http_mode)
            except Exception as exc:
                tail = log_tail(self.log)
                self.error = describe(exc) + (f" (stderr: {tail})" if tail else "")
            return
        with self.log.open("wb") as log:  # the child keeps its own descriptor
            try:
                self.client = RawClient(
                    self.column.argv(self.profile), self.column.env, self.column.cwd, log
                )
            except OSError as exc:
                self.error = describe(exc)

    def ready(self) -> None:
        """Initialize and list the tools of a spawned server; on failure, say why."""
        if self.client is None:
            return
        try:
            self.client.initialize()
            listed = self.client.list_tools()
            if listed.error():
                raise RuntimeError(listed.error())
            self.tools = {t["name"]: t for t in listed.result.get("tools", [])}
            self.rss_open_kib = rss_kib(self.client.pid)
        except Exception as exc:
            tail = log_tail(self.log)
            self.error = describe(exc) + (f" (stderr: {tail})" if tail else "")
            self.client.close(grace=2)
            self.client = None

    def close(self) -> None:
        if self.client is not None:
            self.rss_end_kib = rss_kib(self.client.pid)
            self.client.close()
            self.client = None


def open_servers(servers: Iterable[Server]) -> list[Server]:
    """Start every server at once, then wait for each to answer tools/list."""
    servers = list(servers)
    for server in servers:
        server.spawn()
    for server in servers:
        server.ready()
        state = f"{len(server.tools)} tools" if server.client else f"unavailable: {server.error}"
        print(f"· {server.label}: {state}", file=sys.stderr, flush=True)
    return servers


def close_servers(servers: Iterable[Server]) -> None:
    for server in servers:
        server.close()


def servers_for(columns: Iterable[Column]) -> list[Server]:
    return [Server(column, profile) for column in columns for profile in column.profiles]
