"""One benchmark run: its options, the private tmux server, and every row in turn."""

from __future__ import annotations

import argparse
import json
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
from scripts.bench.live import bench_live
from scripts.bench.measure import Cell, Results, bench_fast, bench_ping
from scripts.bench.peer import ensure_peer
from scripts.bench.record import record
from scripts.bench.report import raw, report
from scripts.bench.servers import (
    OURS,
    OUT,
    STUB_ANSWERS,
    Column,
    Conn,
    make_columns,
    open_all,
    recorder,
)
from scripts.bench.sizes import sizes_report
from scripts.bench.starting import bench_cold
from scripts.bench.waiting import bench_wait
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer


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
            if "live" in args.rows:
                await bench_live(columns, lay, args.live_iterations, results)
        finally:
            stop.set()
    if "cold_start" in args.rows or "import_mcp" in args.rows:
        await bench_cold(columns, args.rows, args.cold_iterations, results)
    return conns


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


@contextmanager
def private_sshd(wanted: bool) -> Iterator[SshServer | None]:
    """The lab's sshd on 127.0.0.1 for the remote column, killed at the end (None: not wanted)."""
    if not wanted:
        yield None
        return
    sshd = SshServer.start()
    try:
        yield sshd
    finally:
        sshd.kill()


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    doc = scripts.bench.__doc__ or ""
    p = argparse.ArgumentParser(prog="python -m scripts.bench", description=doc.splitlines()[0])
    p.add_argument("--iterations", type=int, default=200, help="samples per fast row (200)")
    p.add_argument(
        "--batch-iterations", type=int, default=100, help="samples of the 16-read batch (100)"
    )
    p.add_argument("--wait-iterations", type=int, default=15, help="samples of the wait (15)")
    p.add_argument("--live-iterations", type=int, default=40, help="samples of live (40)")
    p.add_argument("--cold-iterations", type=int, default=10, help="cold starts per server (10)")
    p.add_argument("--rows", default=",".join(ALL_ROWS), help="comma list of rows to run")
    p.add_argument("--out", type=Path, default=OUT / "results.json", help="raw samples, JSON")
    p.add_argument("--peer-venv", type=Path, default=OUT / "peer-venv")
    p.add_argument(
        "--no-ssh",
        action="store_true",
        help="leave out ours over ssh (by default measured through a private sshd it starts)",
    )
    p.add_argument(
        "--no-http",
        action="store_true",
        help="leave out ours over Streamable HTTP (by default served on 127.0.0.1 and measured)",
    )
    p.add_argument(
        "--http-mode",
        choices=("legacy", "auto"),
        default="legacy",
        help="the HTTP column's client era: legacy, the initialize handshake as the stdio "
        "columns speak it (default); auto, 2026-07-28",
    )
    p.add_argument(
        "--no-sizes",
        action="store_true",
        help="leave out what each answer costs an agent to read (bytes and tokens)",
    )
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


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    peer = ensure_peer(args.peer_venv)
    began = time.monotonic()
    with private_tmux() as tmux, private_sshd(not args.no_ssh) as sshd:
        lay = prepare_tmux(tmux)
        ssh = (sshd.target, sshd.client_config) if sshd is not None else None
        columns = make_columns(
            tmux, peer, args.peer_as_shipped, ssh, http=not args.no_http, http_mode=args.http_mode
        )
        results: Results = {row: {c.key: Cell() for c in columns} for row in args.rows}
        print(
            f"private tmux server {tmux.socket_path}: window {lay.window}, panes "
            f"{' '.join(lay.panes)}; {args.iterations} iterations per fast row",
            file=sys.stderr,
        )
        conns = anyio.run(run, args, columns, lay, results)
        versions = tool_versions(peer)
    seconds = time.monotonic() - began
    print(report(args, columns, conns, results, versions, seconds))
    if not args.no_sizes:
        print("\n" + sizes_report(peer))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(raw(args, columns, conns, results, versions, seconds), indent=1) + "\n"
    )
