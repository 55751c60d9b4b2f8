"""What a run reports: the header, the table, the notes, and the raw samples as JSON."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from scripts.bench.calls import FAST_ROWS, ROW_TITLES
from scripts.bench.measure import Cell, Results
from scripts.bench.peer import peer_mode
from scripts.bench.servers import (
    HTTP_LABEL,
    HTTP_ROWS,
    REMOTE_LABEL,
    REMOTE_ROWS,
    STUB_LABEL,
    Column,
    Conn,
)

TMUX_PART = "tmux + transport (control - no tmux, p50)"


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


def difference(ours: Cell, stub: Cell) -> str:
    a, b = ours.summary(), stub.summary()
    if not a or not b:
        return "-"
    return f"{a['p50_ms'] - b['p50_ms']:.2f} ms"


def table(columns: Sequence[Column], rows: Sequence[str], results: Results) -> str:
    """Cells are p50 / p95 in ms; the ratios divide the peer's p50 by ours.

    The last column is what tmux and the control transport add to a call: only
    for the rows that send tmux commands the stub answers (not ping, waits, starts).
    """
    columns = [c for c in columns if not c.is_remote and not c.is_http]  # tables of their own
    ours = [c for c in columns if not c.is_peer and not c.is_stub]
    stub = next((c for c in columns if c.is_stub), None)
    header = ["row (ms: p50 / p95)", *(c.label for c in columns)]
    header += [f"peer/{c.key}" for c in ours]
    if stub is not None:
        header.append(TMUX_PART)
    body = []
    for row in rows:
        cells = results[row]
        line = [ROW_TITLES[row], *(fmt(cells[c.key]) for c in columns)]
        # The import row is a floor beside the cold start, not a race.
        line += ["-" if row == "import_mcp" else ratio(cells["peer"], cells[c.key]) for c in ours]
        if stub is not None:
            line.append(difference(cells["control"], cells[stub.key]) if row in FAST_ROWS else "")
        body.append(line)
    return aligned(header, body)


def aligned(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    rule = "  ".join("-" * w for w in widths)

    def render(r: list[str]) -> str:
        first = r[0].ljust(widths[0])
        return "  ".join([first, *(v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True))])

    return "\n".join([render(header), rule, *(render(r) for r in body)])


def remote_table(columns: Sequence[Column], rows: Sequence[str], results: Results) -> str:
    """The remote rows: ours through ssh beside ours and the peer here, measured turn by
    turn with them in the same run; ``ssh - control`` is what ssh adds to a call (p50s)."""
    remote = [c for c in columns if c.is_remote]
    shown = [row for row in rows if row in REMOTE_ROWS]
    if not remote or not shown:
        return ""
    here = [c for c in columns if c.key in ("peer", "control")]
    header = ["over ssh (ms: p50 / p95)", *(f"{c.label} (here)" for c in here)]
    for column in remote:
        header += [column.label, f"{column.key} - control (p50)", f"peer/{column.key}"]
    body = []
    for row in shown:
        cells = results[row]
        line = [ROW_TITLES[row], *(fmt(cells[c.key]) for c in here)]
        for column in remote:
            line.append(fmt(cells[column.key]))
            line.append(difference(cells[column.key], cells["control"]))
            line.append(ratio(cells["peer"], cells[column.key]))
        body.append(line)
    return aligned(header, body)


def http_table(columns: Sequence[Column], rows: Sequence[str], results: Results) -> str:
    """The HTTP rows: ours over Streamable HTTP beside ours and the peer over stdio, measured
    turn by turn with them in the same run; ``http - stdio`` is what HTTP adds to a call
    (p50s), ``http/stdio`` the ratio of the p50s."""
    http = next((c for c in columns if c.is_http), None)
    shown = [row for row in rows if row in HTTP_ROWS]
    if http is None or not shown:
        return ""
    here = [c for c in columns if c.key in ("peer", "control")]
    header = ["over HTTP (ms: p50 / p95)", *(f"{c.label} (stdio)" for c in here)]
    header += [http.label, "http - stdio (p50)", "http/stdio (p50)", "peer/http"]
    body = []
    for row in shown:
        cells = results[row]
        line = [ROW_TITLES[row], *(fmt(cells[c.key]) for c in here)]
        line.append(fmt(cells[http.key]))
        line.append(difference(cells[http.key], cells["control"]))
        line.append(ratio(cells[http.key], cells["control"]))
        line.append(ratio(cells["peer"], cells[http.key]))
        body.append(line)
    return aligned(header, body)


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


def header(args: argparse.Namespace) -> list[str]:
    """What the table is: the peer's logging, what the stubbed column replaces, what the
    remote column compares, the sizes."""
    lines = [
        f"libtmux-mcp ran {peer_mode(args.peer_as_shipped)}",
        f"{STUB_LABEL}: ours over control with every tmux command (reads and writes) "
        "answered from answers recorded before timing; no tmux process, no control client",
    ]
    if not args.no_ssh and any(row in REMOTE_ROWS for row in args.rows):
        lines.append(
            f"{REMOTE_LABEL}: ours over control with --ssh to a private sshd on 127.0.0.1 "
            "(loopback), reaching the same tmux server; on its rows it is compared with ours "
            "and the peer here, measured turn by turn in the same run"
        )
    if not args.no_http and any(row in HTTP_ROWS for row in args.rows):
        era = (
            "with the initialize handshake, as the stdio columns are"
            if args.http_mode == "legacy"
            else "in 2026-07-28 (the SDK Client's auto mode), the stdio columns in the handshake"
        )
        lines.append(
            f"{HTTP_LABEL}: ours over control served with --http 127.0.0.1:0 (a bearer token, "
            "every check of the listener on), driven by the SDK's ClientSession over its "
            f"Streamable HTTP client {era}; on its rows it is compared with ours and the peer "
            "over stdio, measured turn by turn in the same run"
        )
    return [*lines, "samples: " + ", ".join(samples(args))]


def samples(args: argparse.Namespace) -> list[str]:
    counts = []
    if any(row != "batch_16" for row in args.rows if row in ("ping", *FAST_ROWS)):
        counts.append(f"{args.iterations} per row from ping to find_pane_by_position")
    if "batch_16" in args.rows:
        counts.append(f"{args.batch_iterations} batches")
    if "wait" in args.rows:
        counts.append(f"{args.wait_iterations} waits")
    if "live" in args.rows:
        counts.append(f"{args.live_iterations} live updates")
    if "cold_start" in args.rows or "import_mcp" in args.rows:
        counts.append(f"{args.cold_iterations} starts and imports per server")
    return counts


def peer_stderr(conns: Sequence[Conn]) -> str:
    """How much the peer wrote to stderr while it was held open: what its logging cost it."""
    logs = [conn.log for conn in conns if conn.column.is_peer]
    lines = sum(len(log.read_text(errors="replace").splitlines()) for log in logs)
    return (
        f"libtmux-mcp wrote {lines} lines to stderr while held open ({', '.join(map(str, logs))})"
    )


def report(
    args: argparse.Namespace,
    columns: Sequence[Column],
    conns: Sequence[Conn],
    results: Results,
    versions: dict[str, str],
    seconds: float,
) -> str:
    """Everything printed once the run is over."""
    return "\n".join(
        [
            "",
            *header(args),
            "",
            table(columns, args.rows, results),
            *(["", remote] if (remote := remote_table(columns, args.rows, results)) else []),
            *(["", http] if (http := http_table(columns, args.rows, results)) else []),
            "\nwhat each cell called (profile:tool):",
            *notes(columns, args.rows, results),
            f"\n{peer_stderr(conns)}",
            f"{versions}; {seconds:.0f} s; raw samples: {args.out}",
        ]
    )


def raw(
    args: argparse.Namespace,
    columns: Sequence[Column],
    conns: Sequence[Conn],
    results: Results,
    versions: dict[str, str],
    seconds: float,
) -> dict[str, Any]:
    """The run as JSON: every sample, and what produced it."""
    return {
        "header": header(args),
        "versions": versions,
        "iterations": {
            "fast": args.iterations,
            "batch": args.batch_iterations,
            "wait": args.wait_iterations,
            "live": args.live_iterations,
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
