"""One benchmark run: the private tmux server, the columns, every row, the report."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import anyio

import scripts.bench
from scripts.bench.calls import ALL_ROWS, FAST_ROWS, Layout, prepare_tmux
from scripts.bench.measure import Cell, Results, bench_fast, bench_ping
from scripts.bench.peer import PEER_QUIET, ensure_peer, peer_mode
from scripts.bench.record import record
from scripts.bench.report import notes, table
from scripts.bench.servers import OURS, OUT, ROOT, Column, Conn, open_all
from scripts.bench.starting import bench_cold
from scripts.bench.waiting import bench_wait
from scripts.lab.tmuxserver import TmuxServer

STUB_LABEL = "no tmux, no transport"
STUB_ANSWERS = OUT / "stub-answers"
STUBBED = ("-m", "scripts.bench.stubbed")


def make_columns(tmux: TmuxServer, peer: Path, peer_as_shipped: bool) -> list[Column]:
    """Every server gets the same socket path; ours its transport as a flag."""
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
    return columns


def recorder(stub: Column) -> Column:
    """The stubbed column's server over the real control transport, writing down every answer."""
    launcher = (*STUBBED, "--record", str(STUB_ANSWERS))
    return Column(
        "record", "recording for the stub", stub.command, stub.env, stub.profiles, stub.python,
        stub.flags, launcher, stub.cwd,
    )  # fmt: skip


async def run(
    args: argparse.Namespace, columns: Sequence[Column], lay: Layout, results: Results
) -> list[Conn]:
    fast = [row for row in FAST_ROWS if row in args.rows]
    shutil.rmtree(STUB_ANSWERS, ignore_errors=True)
    for stub in (c for c in columns if c.is_stub):
        await record(recorder(stub), lay, fast)
    conns = [Conn(column, profile) for column in columns for profile in column.profiles]
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        await open_all(conns, stop, tg)
        try:
            if "ping" in args.rows:
                await bench_ping(columns, conns, args.iterations, results)
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


def peer_stderr(conns: Sequence[Conn]) -> str:
    """How much the peer wrote to stderr while it was held open: what its logging cost it."""
    logs = [conn.log for conn in conns if conn.column.is_peer]
    lines = sum(len(log.read_text(errors="replace").splitlines()) for log in logs)
    return (
        f"libtmux-mcp wrote {lines} lines to stderr while held open ({', '.join(map(str, logs))})"
    )


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
    doc = scripts.bench.__doc__ or ""
    p = argparse.ArgumentParser(prog="python -m scripts.bench", description=doc.splitlines()[0])
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
        "--peer-as-shipped",
        action="store_true",
        help="run the peer with its default logging, a stderr line per request "
        "(default: quiet, FASTMCP_LOG_LEVEL=WARNING)",
    )
    args = p.parse_args(argv)
    requested = {row for row in args.rows.split(",") if row}
    unknown = requested - set(ALL_ROWS)
    args.rows = [row for row in ALL_ROWS if row in requested]
    if unknown:
        p.error(f"unknown rows: {', '.join(sorted(unknown))} (known: {', '.join(ALL_ROWS)})")
    return args


def header(args: argparse.Namespace) -> list[str]:
    """What the table is: the peer's logging, what the stubbed column replaces, the sizes."""
    return [
        f"libtmux-mcp ran {peer_mode(args.peer_as_shipped)}",
        f"{STUB_LABEL}: ours over control with every tmux command (reads and writes) "
        "answered from answers recorded before timing; no tmux process, no control client",
        "samples: " + ", ".join(samples(args)),
    ]


def samples(args: argparse.Namespace) -> list[str]:
    counts = []
    if any(row != "batch_16" for row in args.rows if row in ("ping", *FAST_ROWS)):
        counts.append(f"{args.iterations} per row from ping to find_pane_by_position")
    if "batch_16" in args.rows:
        counts.append(f"{args.batch_iterations} batches")
    if "wait" in args.rows:
        counts.append(f"{args.wait_iterations} waits")
    if "cold_start" in args.rows or "import_mcp" in args.rows:
        counts.append(f"{args.cold_iterations} starts and imports per server")
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    peer = ensure_peer(args.peer_venv)
    began = time.monotonic()
    with private_tmux() as tmux:
        lay = prepare_tmux(tmux)
        columns = make_columns(tmux, peer, args.peer_as_shipped)
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
    print("\n".join(header(args)))
    print()
    print(table(columns, args.rows, results))
    print("\nwhat each cell called (profile:tool):")
    print("\n".join(notes(columns, args.rows, results)))
    print(f"\n{peer_stderr(conns)}")
    print(f"{versions}; {seconds:.0f} s; raw samples: {args.out}")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "header": header(args),
        "versions": versions,
        "iterations": {
            "fast": args.iterations,
            "batch": args.batch_iterations,
            "wait": args.wait_iterations,
            "cold": args.cold_iterations,
        },
        "peer_as_shipped": args.peer_as_shipped,
        "peer_stderr": peer_stderr(conns),
        "seconds": seconds,
        "columns": {
            c.key: {"label": c.label, "command": c.command, "args": c.args("python"), "env": c.env}
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
