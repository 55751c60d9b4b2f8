"""The table and the notes printed at the end of a run."""

from __future__ import annotations

from collections.abc import Sequence

from scripts.bench.calls import FAST_ROWS, ROW_TITLES
from scripts.bench.measure import Cell, Results
from scripts.bench.servers import Column

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
