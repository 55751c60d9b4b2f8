"""Latency of this server against libtmux-mcp, both driven by the real MCP client.

Run with ``make bench``. Every server talks stdio to the SDK's ClientSession and
reaches the same private tmux server (own TMUX_TMPDIR, own socket, killed at
the end). Columns are measured round-robin inside each iteration, so machine
noise lands on all of them alike. The peer (libtmux-mcp from PyPI) is
installed into its own venv under build/bench on first use.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp.types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.tmuxenv import TmuxServer

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "bench"
OURS = str(Path(sys.executable).parent / "tmux-contract-mcp")
PEER_PACKAGE = "libtmux-mcp"
PEER_VERSION = "0.1.0a22"
TRANSPORT_ENV = "TMUX_CONTRACT_MCP_TRANSPORT"
CALL_TIMEOUT = 30.0
WAIT_MS = 5000
PRINT_DELAY = 0.3
BATCH_SIZE = 16

Args = dict[str, Any]
Builder = Callable[[int], Args]


# --- the servers -------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One server under test; ``profiles`` are the tool surfaces it is opened with."""

    key: str
    label: str
    command: str
    env: dict[str, str]
    profiles: tuple[str, ...]
    python: str
    flags: tuple[str, ...] = ()

    @property
    def is_peer(self) -> bool:
        return self.key == "peer"

    @property
    def is_floor(self) -> bool:
        """Ours with tmux stubbed out (repeated reads answered from memory)."""
        return self.key == "memo"

    def args(self, profile: str) -> list[str]:
        if self.is_peer:
            return []
        return ["--profile", profile, *self.flags]


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
    return StdioServerParameters(command=column.command, args=column.args(profile), env=column.env)


async def hold(conn: Conn, stop: anyio.Event) -> None:
    """Open one server, publish its session, keep it until ``stop`` is set."""
    conn.log.parent.mkdir(parents=True, exist_ok=True)
    with conn.log.open("w") as log:
        try:
            async with (
                stdio_client(params(conn.column, conn.profile), errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                with anyio.fail_after(60):
                    await session.initialize()
                    listed = await session.list_tools()
                conn.tools = frozenset(tool.name for tool in listed.tools)
                conn.session = session
                conn.ready.set()
                await stop.wait()
        except Exception as exc:
            log.flush()
            tail = log_tail(conn.log)
            conn.error = describe(exc) + (f" (stderr: {tail})" if tail else "")
        finally:
            conn.session = None
            conn.ready.set()


# --- what each row calls -----------------------------------------------------


@dataclass(frozen=True)
class Call:
    """The call one cell times: which process (profile) and tool, and its arguments."""

    profile: str
    tool: str
    build: Builder

    @property
    def label(self) -> str:
        return f"{self.profile}:{self.tool}"


@dataclass(frozen=True)
class Layout:
    """What the private tmux server holds: one window of four panes."""

    window: str
    panes: tuple[str, ...]
    wait_pane: str
    wait_tty: str

    def pane(self, seq: int) -> str:
        return self.panes[seq % len(self.panes)]


CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")


def python_calls(lay: Layout) -> dict[str, tuple[str, Builder]]:
    """The libtmux-mcp surface (the peer, and ours under ``--profile python``)."""

    def batch(seq: int) -> Args:
        ops: list[Args] = []
        for n in range(BATCH_SIZE):
            pane = lay.pane(seq + n)
            kind = n % 4
            if kind == 0:
                ops.append({"tool": "list_panes", "arguments": {"window_id": lay.window}})
            elif kind == 2:
                ops.append(
                    {"tool": "capture_pane", "arguments": {"pane_id": pane, "max_lines": 50}}
                )
            else:
                ops.append({"tool": "get_pane_info", "arguments": {"pane_id": pane}})
        return {"operations": ops, "on_error": "stop"}

    return {
        "list_sessions": ("list_sessions", lambda seq: {}),
        "list_panes": ("list_panes", lambda seq: {"window_id": lay.window}),
        "get_pane_info": ("get_pane_info", lambda seq: {"pane_id": lay.pane(seq)}),
        "capture_pane": (
            "capture_pane",
            lambda seq: {"pane_id": lay.pane(seq), "start": -100, "max_lines": 200},
        ),
        "select_pane": ("select_pane", lambda seq: {"pane_id": lay.pane(seq)}),
        "find_pane_by_position": (
            "find_pane_by_position",
            lambda seq: {"corner": CORNERS[seq % 4], "window_id": lay.window},
        ),
        "batch_16": ("call_read_tools_batch", batch),
    }


def swift_calls(lay: Layout) -> dict[str, tuple[str, Builder]]:
    """The same reads in the swift family's camelCase arguments."""

    def batch(seq: int) -> Args:
        ops: list[Args] = []
        for n in range(BATCH_SIZE):
            pane = lay.pane(seq + n)
            kind = n % 4
            if kind == 0:
                ops.append({"tool": "list_panes", "arguments": {"window": lay.window}})
            elif kind == 2:
                ops.append({"tool": "capture_pane", "arguments": {"paneId": pane, "maxLines": 50}})
            else:
                ops.append({"tool": "get_pane_info", "arguments": {"paneId": pane}})
        return {"operations": ops, "onError": "stop"}

    return {
        "list_sessions": ("list_sessions", lambda seq: {}),
        "list_panes": ("list_panes", lambda seq: {"window": lay.window}),
        "get_pane_info": ("get_pane_info", lambda seq: {"paneId": lay.pane(seq)}),
        "capture_pane": (
            "capture_pane",
            lambda seq: {"paneId": lay.pane(seq), "start": -100, "maxLines": 200},
        ),
        "find_pane_by_position": (
            "find_pane_by_position",
            lambda seq: {"corner": CORNERS[seq % 4], "windowId": lay.window},
        ),
        "batch_16": ("call_read_tools_batch", batch),
    }


FAST_ROWS = (
    "list_sessions",
    "list_panes",
    "get_pane_info",
    "capture_pane",
    "select_pane",
    "find_pane_by_position",
    "batch_16",
)
ROW_TITLES = {
    "ping": "ping (no-op floor)",
    "list_sessions": "list_sessions",
    "list_panes": "list_panes",
    "get_pane_info": "get_pane_info",
    "capture_pane": "capture_pane",
    "select_pane": "select_pane by id",
    "find_pane_by_position": "find_pane_by_position",
    "batch_16": "batch of 16 reads",
    "wait": "wait reaction (print→result)",
    "cold_start": "cold start to tools/list",
    "import_mcp": "ref: python -c 'import mcp.server.lowlevel' (to exit)",
}
ALL_ROWS = ("ping", *FAST_ROWS, "wait", "cold_start", "import_mcp")


def conn_for(conns: Sequence[Conn], column: Column, profile: str) -> Conn | None:
    for conn in conns:
        if conn.column is column and conn.profile == profile and conn.session is not None:
            return conn
    return None


def choose(row: str, column: Column, conns: Sequence[Conn], lay: Layout) -> tuple[Call | None, str]:
    """The python-surface call when served, else the swift one, else why it is n/a."""
    if column.is_peer:
        options = [("peer", python_calls(lay))]
    else:
        options = [("python", python_calls(lay)), ("swift", swift_calls(lay))]
    missing = []
    for profile, calls in options:
        conn = conn_for(conns, column, profile)
        if row not in calls:
            missing.append(f"{profile}: no equivalent")
            continue
        tool, build = calls[row]
        if conn is None:
            missing.append(f"{profile}: server unavailable")
        elif tool not in conn.tools:
            missing.append(f"{profile}: no {tool}")
        else:
            return Call(profile, tool, build), ""
    return None, "; ".join(missing)


def wait_call(column: Column, conns: Sequence[Conn]) -> tuple[Call | None, str]:
    """wait_for_text on the python surface, else swift capture_since with waitMs."""
    if column.is_peer:
        options = [("peer", "wait_for_text")]
    else:
        options = [("python", "wait_for_text"), ("swift", "capture_since")]
    missing = []
    for profile, tool in options:
        conn = conn_for(conns, column, profile)
        if conn is None:
            missing.append(f"{profile}: server unavailable")
        elif tool not in conn.tools:
            missing.append(f"{profile}: no {tool}")
        else:
            return Call(profile, tool, lambda seq: {}), ""
    return None, "; ".join(missing)


# --- measuring ---------------------------------------------------------------


@dataclass
class Cell:
    """One (row, column): what it called and every sample, in nanoseconds."""

    call: str = ""
    status: str = "ok"
    note: str = ""
    samples: list[int] = field(default_factory=list)

    def fail(self, why: str) -> None:
        if self.status == "ok":
            self.status, self.note = "failed", why

    def summary(self) -> dict[str, Any]:
        data = sorted(self.samples)
        if not data or self.status != "ok":
            return {}
        return {
            "n": len(data),
            "p50_ms": percentile(data, 0.50) / 1e6,
            "p95_ms": percentile(data, 0.95) / 1e6,
            "min_ms": data[0] / 1e6,
            "max_ms": data[-1] / 1e6,
            "mean_ms": sum(data) / len(data) / 1e6,
        }


def percentile(data: Sequence[int], q: float) -> float:
    """Nearest-rank percentile of sorted data: always an observed sample."""
    return float(data[max(0, math.ceil(q * len(data)) - 1)])


def result_error(result: types.Result, tool: str) -> str | None:
    """Why a tool result does not count as a success (batch rows included)."""
    if not isinstance(result, types.CallToolResult):
        return f"unexpected result type {type(result).__name__}"
    if result.is_error:
        text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
        return f"tool error: {text[:300]}"
    data = result.structured_content
    if tool == "call_read_tools_batch" and isinstance(data, dict):
        rows = data.get("results") or []
        if data.get("failed") or len(rows) != BATCH_SIZE:
            bad = [r.get("error") for r in rows if isinstance(r, dict) and not r.get("success")]
            return f"batch ran {len(rows)} rows, failed {data.get('failed')}: {bad[:2]}"
    return None


async def call_tool(session: ClientSession, call: Call, seq: int) -> tuple[int, str | None]:
    """One timed tools/call; the timeout scope stays outside the timed span."""
    arguments = call.build(seq)
    with anyio.fail_after(CALL_TIMEOUT):
        start = time.perf_counter_ns()
        result = await session.call_tool(call.tool, arguments)
        elapsed = time.perf_counter_ns() - start
    return elapsed, result_error(result, call.tool)


def rotation(columns: Sequence[Column], i: int) -> list[Column]:
    """The columns in a different order each iteration, cycling through every order.

    A call made right after one of the peer's is measurably slower (0.1-0.25 ms here),
    whichever server makes it. Cycling through every permutation makes each column
    follow each other column equally often; a plain rotation put the same column
    after the peer every time and charged that column alone for it.
    """
    orders = list(itertools.permutations(columns))  # 24 at most: four columns
    return list(orders[i % len(orders)])


Results = dict[str, dict[str, Cell]]


async def bench_fast(
    columns: Sequence[Column],
    conns: Sequence[Conn],
    lay: Layout,
    rows: Mapping[str, int],
    results: Results,
) -> None:
    """Each row: check every chosen call, warm up, then alternate the columns ``rows[row]`` times."""
    for row, iterations in rows.items():
        calls: dict[str, Call] = {}
        for column in columns:
            cell = results[row][column.key]
            call, why = choose(row, column, conns, lay)
            if call is None:
                cell.status, cell.note = "n/a", why
                continue
            cell.call = call.label
            conn = conn_for(conns, column, call.profile)
            assert conn is not None and conn.session is not None
            try:
                for warm in range(3):
                    _, error = await call_tool(conn.session, call, warm)
                    if error:
                        raise RuntimeError(error)
            except Exception as exc:
                cell.fail(describe(exc))
                print(
                    f"  {row} / {column.label} ({call.label}) FAILED: {cell.note}", file=sys.stderr
                )
                continue
            calls[column.key] = call
        progress(row, calls)
        for i in range(iterations):
            for k, column in enumerate(rotation(columns, i)):
                call_or_none = calls.get(column.key)
                cell = results[row][column.key]
                if call_or_none is None or cell.status != "ok":
                    continue
                conn = conn_for(conns, column, call_or_none.profile)
                assert conn is not None and conn.session is not None
                try:
                    elapsed, error = await call_tool(
                        conn.session, call_or_none, i * len(columns) + k
                    )
                except Exception as exc:
                    cell.fail(describe(exc))
                    continue
                if error:
                    cell.fail(f"iteration {i}: {error}")
                else:
                    cell.samples.append(elapsed)


async def bench_ping(
    columns: Sequence[Column], conns: Sequence[Conn], iterations: int, results: Results
) -> None:
    """An MCP ping round trip per server: the cost of the client and the stdio hop."""
    sessions: dict[str, ClientSession] = {}
    for column in columns:
        profile = "peer" if column.is_peer else "python"
        conn = conn_for(conns, column, profile)
        cell = results["ping"][column.key]
        if conn is None or conn.session is None:
            cell.status, cell.note = "n/a", f"{profile}: server unavailable"
            continue
        cell.call = f"{profile}:ping"
        sessions[column.key] = conn.session
        await conn.session.send_ping()
    progress("ping", sessions)
    for i in range(iterations):
        for column in rotation(columns, i):
            session = sessions.get(column.key)
            if session is None:
                continue
            with anyio.fail_after(CALL_TIMEOUT):
                start = time.perf_counter_ns()
                await session.send_ping()
                results["ping"][column.key].samples.append(time.perf_counter_ns() - start)


def print_marker(tty: str, marker: str) -> None:
    """Write straight to the pane's terminal: output appears at once, nothing is typed."""
    fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY)
    try:
        os.write(fd, f"{marker}\n".encode())
    finally:
        os.close(fd)


async def wait_once(session: ClientSession, call: Call, lay: Layout, marker: str) -> int:
    """Start the wait, print the marker 0.3 s later, time print → result."""
    pane = lay.wait_pane
    if call.tool == "wait_for_text":
        arguments: Args = {"patterns": [marker], "pane_id": pane, "timeout": WAIT_MS / 1000}
    else:
        with anyio.fail_after(CALL_TIMEOUT):
            first = await session.call_tool("capture_since", {"paneId": pane})
        error = result_error(first, "capture_since")
        if error or not isinstance(first, types.CallToolResult):
            raise RuntimeError(f"taking a cursor: {error}")
        cursor = (first.structured_content or {}).get("cursor")
        arguments = {"paneId": pane, "cursor": cursor, "waitMs": WAIT_MS}
    answer: dict[str, Any] = {}

    async def waiter() -> None:
        result = await session.call_tool(call.tool, arguments)
        answer["at"] = time.perf_counter_ns()
        answer["result"] = result

    with anyio.fail_after(CALL_TIMEOUT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await anyio.sleep(PRINT_DELAY)
            printed = time.perf_counter_ns()
            print_marker(lay.wait_tty, marker)
    result = answer["result"]
    error = result_error(result, call.tool)
    if error:
        raise RuntimeError(error)
    assert isinstance(result, types.CallToolResult)
    data = result.structured_content or {}
    if call.tool == "wait_for_text":
        if data.get("outcome") != "matched":
            raise RuntimeError(f"wait ended with outcome {data.get('outcome')!r}")
    elif not any(marker in str(line) for line in data.get("lines", [])):
        raise RuntimeError(f"capture_since returned without the marker: {data.get('lines')}")
    return int(answer["at"]) - printed


async def bench_wait(
    columns: Sequence[Column],
    conns: Sequence[Conn],
    lay: Layout,
    iterations: int,
    results: Results,
) -> None:
    calls: dict[str, Call] = {}
    for column in columns:
        cell = results["wait"][column.key]
        if column.is_floor:  # a wait must see new output; memory never has any
            cell.status, cell.note = "n/a", "a wait needs tmux"
            continue
        call, why = wait_call(column, conns)
        if call is None:
            cell.status, cell.note = "n/a", why
            continue
        cell.call = call.label
        calls[column.key] = call
    progress("wait", calls)
    token = uuid.uuid4().hex[:6]
    for i in range(-1, iterations):  # -1: the untimed check
        for column in rotation(columns, max(i, 0)):
            call = calls.get(column.key)
            cell = results["wait"][column.key]
            if call is None or cell.status != "ok":
                continue
            conn = conn_for(conns, column, call.profile)
            assert conn is not None and conn.session is not None
            marker = f"BENCH{token}{column.key[:3].upper()}{i + 1:04d}"
            try:
                elapsed = await wait_once(conn.session, call, lay, marker)
            except Exception as exc:
                cell.fail(f"iteration {i}: {describe(exc)}")
                print(
                    f"  wait / {column.label} ({call.label}) FAILED: {cell.note}", file=sys.stderr
                )
                continue
            if i >= 0:
                cell.samples.append(elapsed)


async def cold_once(column: Column, log: TextIO) -> int:
    """Spawn → initialize → tools/list answered; shutting down is not timed."""
    profile = "peer" if column.is_peer else "python"
    elapsed = 0
    with anyio.fail_after(120):
        start = time.perf_counter_ns()
        async with (
            stdio_client(params(column, profile), errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            elapsed = time.perf_counter_ns() - start
    return elapsed


async def import_once(python: str) -> int:
    start = time.perf_counter_ns()
    await anyio.run_process([python, "-c", "import mcp.server.lowlevel"], check=True)
    return time.perf_counter_ns() - start


async def bench_cold(
    columns: Sequence[Column], rows: Sequence[str], iterations: int, results: Results
) -> None:
    """Fresh processes, alternating: each server's start, and the bare SDK import as a floor.

    The import runs once per interpreter and iteration; both of our columns share it.
    """
    cold = "cold_start" in rows
    for column in columns:
        if column.is_floor:  # the same process start as ours/control
            for row in ("cold_start", "import_mcp"):
                results[row][column.key].status = "n/a"
                results[row][column.key].note = "same start as ours/control"
    columns = [c for c in columns if not c.is_floor]
    pythons = {c.python for c in columns} if "import_mcp" in rows else set()
    for column in columns:
        profile = "peer" if column.is_peer else "python"
        if cold:
            results["cold_start"][column.key].call = f"{profile}:initialize+tools/list"
        if pythons:
            venv = Path(column.python).parent.parent.name
            results["import_mcp"][column.key].call = f"{venv} python"
    progress("cold start / import", columns)
    path = OUT / "logs" / "cold.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as log:
        for i in range(iterations):
            imported: set[str] = set()
            for column in rotation(columns, i):
                cell = results["cold_start"][column.key] if cold else None
                if cell is not None and cell.status == "ok":
                    try:
                        cell.samples.append(await cold_once(column, log))
                    except Exception as exc:
                        log.flush()
                        cell.fail(f"{describe(exc)} (stderr: {log_tail(path)})")
                if column.python not in pythons or column.python in imported:
                    continue
                imported.add(column.python)
                cells = [results["import_mcp"][c.key] for c in columns if c.python == column.python]
                try:
                    elapsed = await import_once(column.python)
                except Exception as exc:
                    for each in cells:
                        each.fail(describe(exc))
                    continue
                for each in cells:
                    if each.status == "ok":
                        each.samples.append(elapsed)


STARTED = time.monotonic()


def progress(row: str, measured: Any) -> None:
    clock = time.monotonic() - STARTED
    print(f"· [{clock:5.0f} s] {row}: {len(measured)} server(s)", file=sys.stderr, flush=True)


# --- the tmux side -----------------------------------------------------------


def prepare_tmux(tmux: TmuxServer) -> Layout:
    """One session, one window of four panes, a few hundred lines of scrollback each."""
    corners = tmux.grid()
    panes = tuple(corners[c] for c in CORNERS)
    window = tmux.tmux("display-message", "-p", "-t", "main:0", "#{window_id}").strip()
    for pane in panes:
        tmux.tmux("send-keys", "-t", pane, "seq -f 'scrollback line %g' 1 400", "Enter")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        tails = [tmux.tmux("capture-pane", "-p", "-t", p) for p in panes]
        if all("scrollback line 400" in tail for tail in tails):
            break
        time.sleep(0.1)
    wait_pane = corners["bottom-right"]
    tty = tmux.tmux("display-message", "-p", "-t", wait_pane, "#{pane_tty}").strip()
    return Layout(window, panes, wait_pane, tty)


# --- the peer's venv ---------------------------------------------------------


def run_quiet(argv: Sequence[str], log: Path) -> None:
    with log.open("a") as out:
        done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed; see {log}")


def peer_version(python: Path) -> str | None:
    if not python.exists():
        return None
    probe = f"import importlib.metadata as m; print(m.version({PEER_PACKAGE!r}))"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def ensure_peer(venv: Path) -> Path:
    """The peer's console script, from its own venv (made and filled once, then reused)."""
    python = venv / "bin" / "python"
    if peer_version(python) != PEER_VERSION:
        log = venv.parent / "peer-install.log"
        venv.parent.mkdir(parents=True, exist_ok=True)
        print(f"installing {PEER_PACKAGE}=={PEER_VERSION} into {venv} (log: {log})")
        if not python.exists():
            base = shutil.which("python3.11") or sys.executable
            run_quiet([base, "-m", "venv", str(venv)], log)
        run_quiet([str(python), "-m", "pip", "install", f"{PEER_PACKAGE}=={PEER_VERSION}"], log)
    probe = (
        "import importlib.metadata as m, json; "
        f"d = m.distribution({PEER_PACKAGE!r}); "
        "print(json.dumps([e.name for e in d.entry_points if e.group == 'console_scripts']))"
    )
    names: list[str] = json.loads(subprocess.check_output([str(python), "-c", probe], text=True))
    if not names:
        sys.exit(f"{PEER_PACKAGE} declares no console script")
    script = venv / "bin" / str(names[0])
    if not script.exists():
        sys.exit(f"{script} is missing")
    return script


# --- the run -----------------------------------------------------------------


def our_help() -> str:
    return subprocess.run([OURS, "--help"], capture_output=True, text=True).stdout


# FastMCP logs every request at INFO to stderr unless told otherwise.
PEER_QUIET = {"FASTMCP_LOG_LEVEL": "WARNING", "FASTMCP_SHOW_SERVER_BANNER": "false"}


def make_columns(
    tmux: TmuxServer, peer: Path, transport_flag: bool, peer_quiet: bool
) -> list[Column]:
    """Both servers get the same socket path; ours also gets its transport choice."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/root"),
        "TMUX_TMPDIR": str(tmux.tmpdir),
        "LIBTMUX_SOCKET_PATH": tmux.socket_path,
    }
    peer_env = {**env, **PEER_QUIET} if peer_quiet else env
    columns = [
        Column("peer", "libtmux-mcp", str(peer), peer_env, ("peer",), str(peer.parent / "python"))
    ]
    for transport in ("control", "subprocess", "memo"):
        columns.append(
            Column(
                transport,
                "ours/tmux stubbed" if transport == "memo" else f"ours/{transport}",
                OURS,
                {**env, TRANSPORT_ENV: transport},
                ("python", "swift"),
                sys.executable,
                ("--transport", transport) if transport_flag else (),
            )
        )
    return columns


async def run(
    args: argparse.Namespace, columns: Sequence[Column], lay: Layout, results: Results
) -> list[Conn]:
    conns = [Conn(column, profile) for column in columns for profile in column.profiles]
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        for conn in conns:
            tg.start_soon(hold, conn, stop)
        for conn in conns:
            await conn.ready.wait()
        for conn in conns:
            state = f"{len(conn.tools)} tools" if conn.session else f"unavailable: {conn.error}"
            print(f"· {conn.column.label} [{conn.profile}]: {state}", file=sys.stderr)
        try:
            if "ping" in args.rows:
                await bench_ping(columns, conns, args.iterations, results)
            fast = [row for row in FAST_ROWS if row in args.rows]
            counts = {row: args.iterations for row in fast}
            if "batch_16" in counts:
                counts["batch_16"] = args.batch_iterations
            await bench_fast(columns, conns, lay, counts, results)
            if "wait" in args.rows:
                await bench_wait(columns, conns, lay, args.wait_iterations, results)
        finally:
            stop.set()
    if "cold_start" in args.rows or "import_mcp" in args.rows:
        await bench_cold(columns, args.rows, args.cold_iterations, results)
    return conns


def fmt(cell: Cell) -> str:
    summary = cell.summary()
    if not summary:
        return cell.status
    return f"{summary['p50_ms']:.2f} / {summary['p95_ms']:.2f}"


def ratio(peer: Cell, ours: Cell) -> str:
    a, b = peer.summary(), ours.summary()
    if not a or not b or b["p50_ms"] == 0:
        return "-"
    return f"{a['p50_ms'] / b['p50_ms']:.1f}x"


def difference(ours: Cell, floor: Cell) -> str:
    a, b = ours.summary(), floor.summary()
    if not a or not b:
        return "-"
    return f"{a['p50_ms'] - b['p50_ms']:.2f} ms"


def table(columns: Sequence[Column], rows: Sequence[str], results: Results) -> str:
    """Cells are p50 / p95 in ms; the ratios divide the peer's p50 by ours."""
    ours = [c for c in columns if not c.is_peer and not c.is_floor]
    floor = next((c for c in columns if c.is_floor), None)
    header = ["row (ms: p50 / p95)", *(c.label for c in columns)]
    header += [f"peer/{c.key}" for c in ours]
    if floor is not None:
        header.append("tmux part (control - stubbed, p50)")
    body = []
    for row in rows:
        cells = results[row]
        line = [ROW_TITLES[row], *(fmt(cells[c.key]) for c in columns)]
        # The import row is a floor beside the cold start, not a race.
        line += ["-" if row == "import_mcp" else ratio(cells["peer"], cells[c.key]) for c in ours]
        if floor is not None:
            line.append(difference(cells["control"], cells[floor.key]))
        body.append(line)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    rule = "  ".join("-" * w for w in widths)

    def render(r: list[str]) -> str:
        first = r[0].ljust(widths[0])
        return "  ".join([first, *(v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True))])

    return "\n".join([render(header), rule, *(render(r) for r in body)])


def notes(columns: Sequence[Column], rows: Sequence[str], results: Results) -> list[str]:
    lines = []
    for row in rows:
        parts = []
        for column in columns:
            cell = results[row][column.key]
            what = cell.call or "-"
            if cell.status != "ok":
                what += f" [{cell.status}: {cell.note}]" if cell.call else f" [{cell.note}]"
            parts.append(f"{column.label}={what}")
        lines.append(f"  {row}: " + "; ".join(parts))
    return lines


def tool_versions(peer: Path) -> dict[str, str]:
    def out(argv: list[str]) -> str:
        done = subprocess.run(argv, capture_output=True, text=True)
        return (done.stdout or done.stderr).strip()

    return {
        "tmux": out([shutil.which("tmux") or "tmux", "-V"]),
        "peer": out([str(peer), "--version"]),
        "ours": out([OURS, "--version"]),
        "python": platform.python_version(),
    }


@contextmanager
def private_tmux() -> Iterator[TmuxServer]:
    tmux = TmuxServer.start()
    try:
        yield tmux
    finally:
        tmux.kill()


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench", description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=200, help="samples per fast row (200)")
    p.add_argument(
        "--batch-iterations", type=int, default=100, help="samples of the 16-read batch (100)"
    )
    p.add_argument("--wait-iterations", type=int, default=15, help="samples of the wait (15)")
    p.add_argument("--cold-iterations", type=int, default=10, help="cold starts per server (10)")
    p.add_argument("--rows", default=",".join(ALL_ROWS), help="comma list of rows to run")
    p.add_argument("--out", type=Path, default=OUT / "results.json", help="raw samples, JSON")
    p.add_argument("--peer-venv", type=Path, default=OUT / "peer-venv")
    p.add_argument(
        "--peer-quiet",
        action="store_true",
        help="run the peer with FastMCP's per-request INFO logging off (default: as shipped)",
    )
    args = p.parse_args(argv)
    requested = {row for row in args.rows.split(",") if row}
    unknown = requested - set(ALL_ROWS)
    args.rows = [row for row in ALL_ROWS if row in requested]
    if unknown:
        p.error(f"unknown rows: {', '.join(sorted(unknown))} (known: {', '.join(ALL_ROWS)})")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    peer = ensure_peer(args.peer_venv)
    help_text = our_help()
    transport_flag = "--transport" in help_text
    began = time.monotonic()
    with private_tmux() as tmux:
        lay = prepare_tmux(tmux)
        columns = make_columns(tmux, peer, transport_flag, args.peer_quiet)
        results: Results = {row: {c.key: Cell() for c in columns} for row in args.rows}
        print(
            f"private tmux server {tmux.socket_path}: window {lay.window}, panes "
            f"{' '.join(lay.panes)}; {args.iterations} iterations per fast row",
            file=sys.stderr,
        )
        conns = anyio.run(run, args, columns, lay, results)
        versions = tool_versions(peer)
    seconds = time.monotonic() - began

    print()
    print(table(columns, args.rows, results))
    print("\nwhat each cell called (profile:tool):")
    print("\n".join(notes(columns, args.rows, results)))
    transports = "--transport flag and " if transport_flag else ""
    print(f"\nours got {transports}{TRANSPORT_ENV}=control|subprocess", end="")
    if not transport_flag and TRANSPORT_ENV not in help_text:
        print(" (neither is in its --help: both columns may run the same transport)", end="")
    print(f"\n{versions}; {seconds:.0f} s; raw samples: {args.out}")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "versions": versions,
        "iterations": {
            "fast": args.iterations,
            "batch": args.batch_iterations,
            "wait": args.wait_iterations,
            "cold": args.cold_iterations,
        },
        "transport_flag": transport_flag,
        "peer_quiet": args.peer_quiet,
        "seconds": seconds,
        "columns": {
            c.key: {"label": c.label, "command": c.command, "flags": list(c.flags), "env": c.env}
            for c in columns
        },
        "servers": {
            f"{c.column.key}/{c.profile}": {"tools": sorted(c.tools), "error": c.error}
            for c in conns
        },
        "rows": {
            row: {
                key: {
                    "call": cell.call,
                    "status": cell.status,
                    "note": cell.note,
                    "summary": cell.summary(),
                    "samples_ns": cell.samples,
                }
                for key, cell in cells.items()
            }
            for row, cells in results.items()
        },
    }
    args.out.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
