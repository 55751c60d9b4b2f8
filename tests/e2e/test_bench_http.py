"""The benchmark's HTTP column: ours served with --http, driven by the SDK's Streamable HTTP
client, on a simple read, the batch and the wait only, in a table of its own beside ours and
the peer over stdio. No time is asserted: only that the rows are there."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from scripts.bench.calls import ALL_ROWS, prepare_tmux
from scripts.bench.main import parse, run
from scripts.bench.measure import Cell, Results
from scripts.bench.report import header, http_table, report, table
from scripts.bench.servers import HTTP_LABEL, HTTP_ROWS, make_columns
from scripts.lab.tmuxserver import TmuxServer

NOT_STARTED = TmuxServer(Path("/nonexistent"), "bench-http")  # only its paths are read
PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")


def test_the_http_column_runs_ours_over_control_on_its_rows_only() -> None:
    columns = {c.key: c for c in make_columns(NOT_STARTED, PEER, False, http=True)}
    http = columns["http"]
    assert http.is_http and http.label == HTTP_LABEL
    assert http.env == columns["control"].env  # the same tmux server, the same socket path
    assert http.args("python")[-2:] == ["--transport", "control"]
    assert [row for row in ALL_ROWS if http.measures(row)] == list(HTTP_ROWS)
    assert "http" not in {c.key for c in make_columns(NOT_STARTED, PEER, False)}


def test_the_http_rows_get_a_table_of_their_own_with_the_ratio_to_stdio() -> None:
    args = parse(["--rows", ",".join(ALL_ROWS), "--no-ssh"])
    columns = make_columns(NOT_STARTED, PEER, False, http=True)
    results: Results = {
        row: {c.key: Cell(samples=[3_000_000 if c.key == "http" else 2_000_000]) for c in columns}
        for row in args.rows
    }
    assert HTTP_LABEL not in table(columns, args.rows, results).splitlines()[0]
    lines = http_table(columns, args.rows, results).splitlines()
    assert lines[0].split() == [
        "over", "HTTP", "(ms:", "p50", "/", "p95)", "libtmux-mcp", "(stdio)", "ours/control",
        "(stdio)", HTTP_LABEL, "http", "-", "stdio", "(p50)", "http/stdio", "(p50)", "peer/http",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[2:]] == [
        "list_sessions",
        "capture_pane",
        "batch",
        "wait",
    ]
    assert all(line.split()[-4:] == ["1.00", "ms", "1.5x", "0.7x"] for line in lines[2:])
    assert "\n".join(lines) in report(args, columns, [], results, {}, 1.0)
    assert any(line.startswith(f"{HTTP_LABEL}: ") for line in header(args))
    assert not any(line.startswith(f"{HTTP_LABEL}: ") for line in header(parse(["--no-http"])))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_short_run_measures_the_http_rows_in_either_era(tmux: TmuxServer, mode: str) -> None:
    args = parse(["--iterations", "2", "--batch-iterations", "1", "--wait-iterations", "1"])
    args.rows = list(HTTP_ROWS)
    lay = prepare_tmux(tmux)
    both = make_columns(tmux, PEER, False, http=True, http_mode=mode)
    columns = [c for c in both if c.key in ("control", "http")]
    results: Results = {row: {c.key: Cell() for c in columns} for row in args.rows}
    conns = anyio.run(run, args, columns, lay, results)
    for row in HTTP_ROWS:
        cell = results[row]["http"]
        assert cell.status == "ok" and cell.samples, (row, cell.note)
        assert len(cell.samples) == (1 if row in ("batch_16", "wait") else 2), row
    logs = [conn.log.read_text() for conn in conns if conn.column.is_http]
    assert logs and all(
        "serving MCP over Streamable HTTP at http://127.0.0.1:" in log for log in logs
    )
