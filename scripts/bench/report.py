"""What a run reports: Markdown tables per group (per call, scale, start and memory), the
notes that say what each cell called, and the raw samples as JSON.

Cells are p50 / p95 in ms. A blank cell is a column that does not serve that profile (the
peer serves python's surface only, the subprocess transport is measured on python only);
``n/a`` and ``failed`` are explained in the notes, and so is a cell marked ✂, whose answer
says one of its server's bounds cut it short (rust's search stops at 8,192 lines).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scripts.bench.calls import (
    CALL_ROWS,
    LIVE,
    PER_PANE_ROWS,
    PING,
    ROW_TITLES,
    SCALE_ROWS,
    SCALE_TITLES,
    TOOLS_LIST,
)
from scripts.bench.layout import Scale
from scripts.bench.measure import Cell, Results, RowId
from scripts.bench.peer import peer_mode
from scripts.bench.servers import (
    HTTP_LABEL,
    HTTP_ROWS,
    PEER_LABEL,
    REMOTE_LABEL,
    STUB_LABEL,
    Column,
    Server,
)
from scripts.bench.starting import Start
from scripts.bench.tmuxalone import TMUX_ALONE, TMUX_ALONE_LABEL

PEER_RATIO = "peer ÷ control"
FLOOR_PING = "floor − ping"
TMUX_PART = "control − floor"
SSH_PART = "ssh − control"
NO_FLOOR = ("wait", LIVE)  # rows the stub cannot answer: no floor, no tmux part
# The rows of the per-call table: the calls, then live (print → resources/updated).
TABLE_ROWS = (*CALL_ROWS, LIVE)
NO_TMUX = (PING, TOOLS_LIST)  # rows that never reach tmux: no tmux part, no ssh part


@dataclass
class Run:
    """Everything one run measured, and what it ran on."""

    args: argparse.Namespace
    columns: list[Column]
    profiles: list[str]
    results: Results
    servers: list[Server] = field(default_factory=list)
    starts: list[Start] = field(default_factory=list)
    imports: dict[str, Cell] = field(default_factory=dict)  # by interpreter
    scales: list[Scale] = field(default_factory=list)
    machine: dict[str, str] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    importtime: str = ""

    def cell(self, rid: RowId, column: str) -> Cell | None:
        return self.results.get(rid.key, {}).get(column)

    def column(self, key: str) -> Column | None:
        return next((c for c in self.columns if c.key == key), None)


# --- cells -----------------------------------------------------------------------------------


CUT = "✂"  # the answer says a bound cut it short: the notes say which


def fmt(cell: Cell | None) -> str:
    if cell is None:
        return ""
    summary = cell.summary()
    if not summary:
        return cell.status
    mark = f" {CUT}" if cell.cut_short else ""
    return f"{summary['p50_ms']:.2f} / {summary['p95_ms']:.2f}{mark}"


def ratio(peer: Cell | None, ours: Cell | None) -> str:
    a, b = p50(peer), p50(ours)
    if a is None or b is None or b == 0:
        return ""
    return f"{a / b:.1f}x"


def difference(a: Cell | None, b: Cell | None) -> str:
    x, y = p50(a), p50(b)
    if x is None or y is None:
        return ""
    return f"{x - y:.2f} ms"


def p50(cell: Cell | None) -> float | None:
    return None if cell is None else cell.p50()


def per_pane(cell: Cell | None, panes: int) -> str:
    value = p50(cell)
    return "" if value is None else f"{value / panes:.3f}"


def markdown(header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """A Markdown table, its columns padded to line up in plain text too."""
    rows = [list(header), *(list(r) for r in body)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]

    def render(r: list[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([render(rows[0]), rule, *(render(r) for r in rows[1:])])


def keys(run: Run, *wanted: str) -> list[str]:
    """The columns of the run among ``wanted``, in that order."""
    have = {c.key for c in run.columns}
    return [k for k in wanted if k in have]


def label(run: Run, key: str) -> str:
    column = run.column(key)
    if column is None and key == TMUX_ALONE:
        return TMUX_ALONE_LABEL
    return column.label if column is not None else key


# --- per call --------------------------------------------------------------------------------


def call_table(run: Run) -> str:
    """One row per (row, profile): every column, then the ratio to the peer (the peer ran
    python's call), what is left over ping without tmux, what tmux and the control client
    add, and what ssh adds."""
    measured = keys(run, "peer", "control", "subprocess", "ssh", "stub")
    header = ["row (ms: p50 / p95)", "profile", *(label(run, k) for k in measured)]
    header += [PEER_RATIO, FLOOR_PING, TMUX_PART]
    if "ssh" in measured:
        header.append(SSH_PART)
    body = []
    for row in (r for r in TABLE_ROWS if r in run.args.rows):
        for profile in run.profiles:
            rid = RowId(row, profile)
            if rid.key not in run.results:
                continue
            cells = {k: run.cell(rid, k) for k in measured}
            peer = run.cell(RowId(row, "python"), "peer")
            line = [ROW_TITLES[row], profile, *(fmt(cells[k]) for k in measured)]
            line.append(ratio(peer, cells.get("control")))
            floor, tmux = row not in NO_FLOOR, row not in NO_TMUX
            ping = run.cell(RowId(PING, profile), "stub")
            line.append(difference(cells.get("stub"), ping) if floor and row != PING else "")
            tmux_part = difference(cells.get("control"), cells.get("stub"))
            line.append(tmux_part if floor and tmux else "")
            if "ssh" in measured:
                line.append(difference(cells.get("ssh"), cells.get("control")) if tmux else "")
            body.append(line)
    return markdown(header, body)


def http_table(run: Run) -> str:
    """The HTTP rows: ours over Streamable HTTP beside ours and the peer over stdio, measured
    turn by turn with them in the same run; ``http - stdio`` is what HTTP adds to a call
    (p50s), ``http/stdio`` the ratio of the p50s, ``peer/http`` the peer's p50 over it."""
    http = run.column("http")
    shown = [row for row in CALL_ROWS if row in HTTP_ROWS and row in run.args.rows]
    if http is None or not shown:
        return ""
    here = keys(run, "peer", "control")
    header = ["over HTTP (ms: p50 / p95)", "profile", *(f"{label(run, k)} (stdio)" for k in here)]
    header += [http.label, "http - stdio (p50)", "http/stdio (p50)", "peer/http"]
    body = []
    for row in shown:
        for profile in run.profiles:
            rid = RowId(row, profile)
            if rid.key not in run.results:
                continue
            cells = {k: run.cell(rid, k) for k in (*here, "http")}
            peer = run.cell(RowId(row, "python"), "peer")
            line = [ROW_TITLES[row], profile, *(fmt(cells[k]) for k in here)]
            line.append(fmt(cells["http"]))
            line.append(difference(cells["http"], cells.get("control")))
            line.append(ratio(cells["http"], cells.get("control")))
            line.append(ratio(peer, cells["http"]))
            body.append(line)
    return markdown(header, body)


# --- scale -----------------------------------------------------------------------------------


def scale_table(run: Run) -> str:
    """One row per (row, profile, size): the columns, the ratio to the peer, and for what
    grows with the pane count the p50 per pane."""
    alone = [TMUX_ALONE] if any(TMUX_ALONE in cells for cells in run.results.values()) else []
    measured = [*keys(run, "peer", "control", "ssh", "stub"), *alone]
    header = ["row (ms: p50 / p95)", "profile", "panes", *(label(run, k) for k in measured)]
    header.append(PEER_RATIO)
    per = [*keys(run, "peer", "control", "stub"), *alone]
    header += [f"ms/pane: {label(run, k)}" for k in per]
    body = []
    for row in (r for r in SCALE_ROWS if r in run.args.scale_rows):
        for profile in run.profiles:
            for scale in run.scales:
                rid = RowId(f"scale:{row}", profile, scale.panes)
                if rid.key not in run.results:
                    continue
                cells = {k: run.cell(rid, k) for k in measured}
                peer = run.cell(RowId(f"scale:{row}", "python", scale.panes), "peer")
                line = [SCALE_TITLES[row], profile, str(scale.panes)]
                line += [fmt(cells[k]) for k in measured]
                line.append(ratio(peer, cells.get("control")))
                for k in per:
                    line.append(per_pane(cells.get(k), scale.panes) if row in PER_PANE_ROWS else "")
                body.append(line)
    return markdown(header, body)


def scale_sizes(run: Run) -> str:
    return "; ".join(scale.label for scale in run.scales)


# --- start and memory ------------------------------------------------------------------------


def mib(kib: float | None) -> str:
    return "" if kib is None else f"{kib / 1024:.1f}"


def held_open(run: Run, column: Column, profile: str) -> str:
    """RSS of the run's own server of that column and profile: at open → at the end."""
    for server in run.servers:
        if server.column.key == column.key and server.profile == profile:
            start, end = server.rss_open_kib, server.rss_end_kib
            if start is None or end is None:
                return ""
            return f"{mib(start)} → {mib(end)} ({(end - start) / start * 100:+.1f} %)"
    return ""


def start_table(run: Run) -> str:
    """Each server's cold start beside its interpreter's bare SDK import, and its memory."""
    header = [
        "server (ms: p50 / p95)",
        "cold start to tools/list",
        "import mcp.server.lowlevel (to imported)",
        "start − import",
        "RSS after start (MiB)",
        "RSS held open: at open → after the run (MiB)",
    ]
    body = []
    for start in run.starts:
        imported = run.imports.get(start.column.python)
        rss = statistics.median(start.rss_kib) if start.rss_kib else None
        body.append(
            [
                f"{start.column.label} [{start.profile}]",
                fmt(start.cell),
                fmt(imported),
                difference(start.cell, imported),
                mib(rss),
                held_open(run, start.column, start.profile),
            ]
        )
    return markdown(header, body)


# --- the whole report ------------------------------------------------------------------------


def header(run: Run) -> list[str]:
    """What ran, where, and what the columns are."""
    args = run.args
    lines = [f"machine: {m}" for m in [describe_machine(run.machine)] if m]
    lines += [
        f"{PEER_LABEL} ran {peer_mode(args.peer_as_shipped)}",
        f"{STUB_LABEL}: ours over control with every tmux command (reads and writes) "
        "answered from answers recorded before timing; no tmux process, no control client",
    ]
    if not args.no_ssh:
        lines.append(
            f"{REMOTE_LABEL}: ours over control with --ssh to a private sshd on 127.0.0.1 "
            "(loopback), reaching the same tmux server"
        )
    if not args.no_http and any(row in HTTP_ROWS for row in args.rows):
        era = (
            "with the initialize handshake, as the stdio columns are"
            if args.http_mode == "legacy"
            else "in 2026-07-28 (no handshake, the version in every request), the stdio "
            "columns in the handshake"
        )
        lines.append(
            f"{HTTP_LABEL}: ours over control served with --http 127.0.0.1:0 (a bearer token, "
            "every check of the listener on), timed by a raw HTTP client (a socket, one "
            "keep-alive connection: one POST per call, from just before it is sent to the last "
            f"byte of its answer) {era}; on its rows it is compared with ours and the peer "
            "over stdio, measured turn by turn in the same run"
        )
    if any(TMUX_ALONE in cells for cells in run.results.values()):
        lines.append(
            f"{TMUX_ALONE_LABEL}: the list-panes -a command each profile's list_panes sends, "
            "through one bare tmux -C client and nothing else: tmux's own part of the row"
        )
    lines.append(
        "every stdio call is timed by a raw JSON-RPC client (a line written to the server's "
        "stdin to the last byte of its answer's line); answers are checked after the clock stops"
    )
    if LIVE in args.rows:
        lines.append(
            "live: print → notifications/resources/updated on a subscribed pane (python "
            "profile), heard by the SDK's ClientSession over stdio: a notification, not an "
            "answer the raw client waits for"
        )
    lines.append(
        f"cells are p50 / p95 in ms; blank: the column does not serve that profile; {CUT}: "
        "the answer says a bound of its server cut it short (see the notes)"
    )
    return [*lines, "samples: " + ", ".join(samples(args))]


def describe_machine(machine: dict[str, str]) -> str:
    return "; ".join(f"{k} {v}" for k, v in machine.items())


def samples(args: argparse.Namespace) -> list[str]:
    counts = []
    if any(row not in ("batch_16", TOOLS_LIST, "wait") for row in args.rows if row in CALL_ROWS):
        counts.append(f"{args.iterations} per per-call row")
    if "batch_16" in args.rows or TOOLS_LIST in args.rows:
        counts.append(f"{args.batch_iterations} batches and tools/lists")
    if "wait" in args.rows:
        counts.append(f"{args.wait_iterations} waits")
    if LIVE in args.rows:
        counts.append(f"{args.live_iterations} live updates")
    if not args.no_scale and args.scale_rows:
        counts.append(f"{args.scale_iterations} per scale row and size")
    if "cold_start" in args.rows or "import_mcp" in args.rows:
        counts.append(f"{args.cold_iterations} starts and imports per server")
    return counts


def notes(run: Run) -> list[str]:
    """What each row called on each profile with the bytes of each server's answer, and
    every cell that was not measured, why."""
    lines = []
    for key, cells in run.results.items():
        call = next((cell.call for cell in cells.values() if cell.call), "")
        sizes = ", ".join(
            f"{label(run, column)} {cell.answer_bytes:,} B"
            for column, cell in cells.items()
            if cell.answer_bytes
        )
        lines.append(f"- {key}: {call}" + (f"; answer: {sizes}" if sizes else ""))
    for key, cells in run.results.items():
        for column, cell in cells.items():
            if cell.status != "ok":
                lines.append(f"- {key} / {label(run, column)}: {cell.status}: {cell.note}")
            elif cell.cut_short:
                lines.append(f"- {key} / {label(run, column)}: {CUT} cut short: {cell.cut_short}")
    return lines


def report(run: Run) -> str:
    """Everything printed once the run is over."""
    out = ["", *header(run)]
    if any(row in TABLE_ROWS for row in run.args.rows):
        out += ["", "## Per call", "", call_table(run)]
    if http := http_table(run):
        out += ["", "## Over HTTP", "", http]
    if run.scales:
        out += ["", "## Scale", "", f"sizes: {scale_sizes(run)}", "", scale_table(run)]
    if run.starts:
        out += ["", "## Start and memory", "", start_table(run)]
    if run.importtime:
        out += ["", run.importtime]
    out += ["", "what each row called, and the cells not measured:", *notes(run)]
    out.append(f"\n{run.versions}; {run.seconds:.0f} s; raw samples: {run.args.out}")
    return "\n".join(out)


def raw(run: Run) -> dict[str, Any]:
    """The run as JSON: every sample, and what produced it."""
    args = run.args
    return {
        "header": header(run),
        "machine": run.machine,
        "versions": run.versions,
        "iterations": {
            "per_call": args.iterations,
            "batch": args.batch_iterations,
            "wait": args.wait_iterations,
            "live": args.live_iterations,
            "scale": args.scale_iterations,
            "cold": args.cold_iterations,
        },
        "peer_as_shipped": args.peer_as_shipped,
        "http_mode": args.http_mode,
        "seconds": run.seconds,
        "scales": [vars(scale) for scale in run.scales],
        "columns": {
            c.key: {"label": c.label, "command": c.command, "args": c.args("python"), "env": c.env}
            for c in run.columns
        },
        "servers": {
            s.key: {
                "tools": len(s.tools),
                "error": s.error,
                "rss_open_kib": s.rss_open_kib,
                "rss_end_kib": s.rss_end_kib,
            }
            for s in run.servers
        },
        "starts": {
            f"{s.column.key}/{s.profile}": {"rss_kib": s.rss_kib, "samples_ns": s.cell.samples}
            for s in run.starts
        },
        "imports": {python: cell.samples for python, cell in run.imports.items()},
        "rows": {
            row: {
                key: {
                    "call": cell.call,
                    "status": cell.status,
                    "note": cell.note,
                    "answer_bytes": cell.answer_bytes,
                    "summary": cell.summary(),
                    "samples_ns": cell.samples,
                }
                for key, cell in cells.items()
            }
            for row, cells in run.results.items()
        },
    }
