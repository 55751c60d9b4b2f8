"""One benchmark run: its options, the private tmux server, and every group in turn."""

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
import psutil

import scripts.bench
from scripts.bench.calls import (
    ALL_ROWS,
    CALL_ROWS,
    LIVE,
    SCALE_ROWS,
    TOOLS_LIST,
    Call,
    per_call,
)
from scripts.bench.hosts import bench_hosts
from scripts.bench.imports import imports_report
from scripts.bench.layout import SCALE_SIZES, Layout, prepare_tmux
from scripts.bench.live import bench_live
from scripts.bench.measure import Cell, Results, RowId, prepare, progress, time_units
from scripts.bench.peer import ensure_peer
from scripts.bench.record import record
from scripts.bench.report import Run, raw, report
from scripts.bench.scale import bench_scale
from scripts.bench.servers import (
    OURS,
    OUT,
    PROFILES,
    STUB_ANSWERS,
    Column,
    Server,
    close_servers,
    make_columns,
    open_servers,
    replaying,
    servers_for,
)
from scripts.bench.sizes import sizes_report
from scripts.bench.starting import Start, bench_cold
from scripts.bench.waiting import bench_wait
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer


def iterations_of(args: argparse.Namespace, row: str) -> int:
    """The batch and tools/list (each some 20 times a read's work) get fewer samples."""
    return int(args.batch_iterations if row in ("batch_16", TOOLS_LIST) else args.iterations)


def bench_calls(run: Run, lay: Layout, servers: Sequence[Server]) -> None:
    """The per-call rows, every server of every profile taking turns within each row."""
    for row in (r for r in CALL_ROWS if r in run.args.rows):
        for profile in run.profiles:
            run.results[RowId(row, profile).key] = {
                s.column.key: Cell()
                for s in servers
                if s.profile == profile and s.column.measures(row)
            }

        def cell_of(server: Server, row: str = row) -> Cell:
            return run.results[RowId(row, server.profile).key][server.column.key]

        if row == "wait":
            cells = {s.key: cell_of(s) for s in servers if s.column.measures(row)}
            bench_wait(servers, lay, run.args.wait_iterations, cells)
            continue

        def choose(server: Server, row: str = row) -> tuple[Call | None, str]:
            call = per_call(row, server.profile, lay)
            return call, "" if call else f"{server.profile}: no equivalent"

        units = prepare(row, servers, choose, cell_of)
        progress(row, len(units))
        time_units(units, iterations_of(run.args, row))


def record_calls(stub: Column, lay: Layout, rows: Sequence[str]) -> Path:
    answers = STUB_ANSWERS / "calls"
    recorded = [(row, lambda profile, row=row: per_call(row, profile, lay)) for row in rows]
    record(stub, answers, recorded, lay.cycle)
    return answers


def bench_starts(run: Run) -> None:
    """Fresh servers: the peer, ours over control per profile, ours over subprocess."""
    wanted = [c for c in run.columns if c.measures("cold_start") and not c.is_stub]
    if "cold_start" in run.args.rows:
        run.starts = [Start(c, p, Cell()) for c in wanted for p in c.profiles]
    if "import_mcp" in run.args.rows:
        run.imports = {python: Cell() for python in dict.fromkeys(c.python for c in wanted)}
    bench_cold(run.starts, run.imports, run.args.cold_iterations)


def run_all(run: Run, tmux: TmuxServer) -> None:
    args = run.args
    lay = prepare_tmux(tmux)
    print(
        f"private tmux server {tmux.socket_path}: window {lay.window}, panes {' '.join(lay.panes)}",
        file=sys.stderr,
    )
    stub = next((c for c in run.columns if c.is_stub), None)
    live_columns = [c for c in run.columns if not c.is_stub]
    columns = list(live_columns)
    if stub is not None:
        timed = [r for r in CALL_ROWS if r in args.rows and r != "wait"]
        columns.append(replaying(stub, record_calls(stub, lay, timed)))
    servers = open_servers(servers_for(columns))
    run.servers = [s for s in servers if not s.column.is_stub]
    try:
        try:
            bench_calls(run, lay, servers)
            if LIVE in args.rows:
                anyio.run(bench_live, run.columns, lay, args.live_iterations, run.results)
        finally:
            close_servers(s for s in servers if s.column.is_stub)
        if not args.no_scale and args.scale_rows and args.sizes:
            run.scales = bench_scale(
                tmux, run.servers, stub, args.scale_rows, args.sizes, run.profiles,
                args.scale_iterations, run.results,
            )  # fmt: skip
    finally:
        close_servers(run.servers)
    if "cold_start" in args.rows or "import_mcp" in args.rows:
        bench_starts(run)


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


def machine() -> dict[str, str]:
    """What the run ran on: the CPU, its cores, memory and load."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "cpu": f"{model}, {os.cpu_count()} cores",
        "memory": f"{psutil.virtual_memory().total / 2**30:.1f} GiB",
        "system": platform.platform(),
        "load average (1, 5, 15 min) at start": load,
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


def comma_list(text: str, known: Sequence[str], what: str, p: argparse.ArgumentParser) -> list[str]:
    requested = [item for item in text.split(",") if item]
    unknown = set(requested) - set(known)
    if unknown:
        p.error(f"unknown {what}: {', '.join(sorted(unknown))} (known: {', '.join(known)})")
    return [item for item in known if item in requested]


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    doc = scripts.bench.__doc__ or ""
    p = argparse.ArgumentParser(prog="python -m scripts.bench", description=doc.splitlines()[0])
    p.add_argument("--iterations", type=int, default=200, help="samples per per-call row (200)")
    p.add_argument(
        "--batch-iterations",
        type=int,
        default=100,
        help="samples of the 16-read batch and of tools/list (100)",
    )
    p.add_argument("--wait-iterations", type=int, default=15, help="samples of the wait (15)")
    p.add_argument("--live-iterations", type=int, default=40, help="samples of live (40)")
    p.add_argument(
        "--scale-iterations", type=int, default=10, help="samples per scale row and size (10)"
    )
    p.add_argument("--cold-iterations", type=int, default=8, help="cold starts per server (8)")
    p.add_argument(
        "--rows", default=",".join(ALL_ROWS), help="comma list of per-call and start rows"
    )
    p.add_argument("--scale-rows", default=",".join(SCALE_ROWS), help="comma list of scale rows")
    p.add_argument(
        "--sizes",
        default=",".join(map(str, SCALE_SIZES)),
        help="pane counts the scale rows run at (10,50,200)",
    )
    p.add_argument("--no-scale", action="store_true", help="leave out the scale rows")
    p.add_argument(
        "--profiles", default=",".join(PROFILES), help="comma list of our profiles to measure"
    )
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
        "--no-imports",
        action="store_true",
        help="leave out what a stdio server imports beyond mcp.server.lowlevel (-X importtime)",
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
    args.rows = comma_list(args.rows, ALL_ROWS, "rows", p)
    args.scale_rows = comma_list(args.scale_rows, SCALE_ROWS, "scale rows", p)
    args.profiles = comma_list(args.profiles, PROFILES, "profiles", p)
    try:
        args.sizes = sorted({int(size) for size in args.sizes.split(",") if size})
    except ValueError:
        p.error(f"--sizes takes pane counts, e.g. 10,50,200: {args.sizes!r}")
    if any(size < 6 for size in args.sizes):
        p.error("--sizes: at least 6 panes (the per-call window's four, the two fixed panes)")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    peer = ensure_peer(args.peer_venv)
    began = time.monotonic()
    shutil.rmtree(STUB_ANSWERS, ignore_errors=True)
    with private_tmux() as tmux, private_sshd(not args.no_ssh) as sshd:
        ssh = (sshd.target, sshd.client_config) if sshd is not None else None
        columns = make_columns(
            tmux, peer, args.peer_as_shipped, ssh, args.profiles,
            http=not args.no_http, http_mode=args.http_mode,
        )  # fmt: skip
        # The rows of every surface a column serves: the peer's python too, for its ratios.
        profiles = [p for p in PROFILES if any(p in c.profiles for c in columns)]
        run = Run(args, columns, profiles, Results(), machine=machine())
        run_all(run, tmux)
        hosts = bench_hosts(tmux, sshd, args.iterations) if sshd is not None else None
    if not args.no_imports:
        profile = args.profiles[0] if args.profiles else "python"
        run.importtime = imports_report(profile)
    run.versions = tool_versions(peer)
    run.machine["load average (1, 5, 15 min) at the end"] = " ".join(
        f"{x:.2f}" for x in os.getloadavg()
    )
    run.seconds = time.monotonic() - began
    print(report(run))
    if hosts is not None:
        print("\n" + hosts)
    if not args.no_sizes:
        print("\n" + sizes_report(peer))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(raw(run), indent=1) + "\n")
    print(f"\nmake bench took {time.monotonic() - began:.0f} s in all")
