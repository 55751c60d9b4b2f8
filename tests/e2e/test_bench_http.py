"""The benchmark's HTTP column: ours served with --http, timed by a raw HTTP POST client
(scripts/bench/httprpc.py), on a simple read, the batch and the wait only, on every profile,
in a table of its own beside ours and the peer over stdio. No time is asserted: only that the rows are there."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from scripts.bench.calls import ALL_ROWS
from scripts.bench.main import parse, run_all
from scripts.bench.measure import Cell, Results, RowId
from scripts.bench.report import Run, call_table, header, http_table, report
from scripts.bench.servers import HTTP_LABEL, HTTP_ROWS, PROFILES, make_columns
from scripts.lab.tmuxserver import TmuxServer

NOT_STARTED = TmuxServer(Path("/nonexistent"), "bench-http")  # only its paths are read
PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")


def cells(line: str) -> list[str]:
    """A Markdown table line's cells."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def test_the_http_column_runs_ours_over_control_on_its_rows_only() -> None:
    columns = {c.key: c for c in make_columns(NOT_STARTED, PEER, False, http=True)}
    http = columns["http"]
    assert http.is_http and http.label == HTTP_LABEL
    assert http.env == columns["control"].env  # the same tmux server, the same socket path
    assert http.args("python")[-2:] == ["--transport", "control"]
    assert [row for row in ALL_ROWS if http.measures(row)] == list(HTTP_ROWS)
    assert http.profiles == PROFILES and not http.measures("scale:list_panes")
    assert "http" not in {c.key for c in make_columns(NOT_STARTED, PEER, False)}


def test_the_http_rows_get_a_table_of_their_own_with_the_ratio_to_stdio() -> None:
    args = parse(["--rows", ",".join(ALL_ROWS), "--no-ssh"])
    columns = make_columns(NOT_STARTED, PEER, False, http=True)
    results: Results = {
        RowId(row, profile).key: {
            c.key: Cell(samples=[3_000_000 if c.key == "http" else 2_000_000])
            for c in columns
            if profile in c.profiles and c.measures(row)
        }
        for row in args.rows
        for profile in PROFILES
    }
    run = Run(args, columns, list(PROFILES), results)
    assert HTTP_LABEL not in call_table(run).splitlines()[0]
    lines = http_table(run).splitlines()
    assert cells(lines[0]) == [
        "over HTTP (ms: p50 / p95)", "profile", "libtmux-mcp (stdio)", "ours/control (stdio)",
        HTTP_LABEL, "http - stdio (p50)", "http/stdio (p50)", "peer/http",
    ]  # fmt: skip
    assert [cells(line)[:2] for line in lines[2:]] == [
        [title, profile]
        for title in ("list_sessions", "capture_pane", "batch of 16 reads", "wait reaction (print→result)")
        for profile in PROFILES
    ]  # fmt: skip
    assert all(cells(line)[-3:] == ["1.00 ms", "1.5x", "0.7x"] for line in lines[2:])
    assert "\n".join(lines) in report(run)
    assert any(line.startswith(f"{HTTP_LABEL}: ") for line in header(run))
    without = Run(parse(["--no-http"]), columns, list(PROFILES), results)
    assert not any(line.startswith(f"{HTTP_LABEL}: ") for line in header(without))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_short_run_measures_the_http_rows_in_either_era(tmux: TmuxServer, mode: str) -> None:
    args = parse(
        ["--iterations", "2", "--batch-iterations", "1", "--wait-iterations", "1", "--no-scale",
         "--rows", ",".join(HTTP_ROWS)]
    )  # fmt: skip
    both = make_columns(tmux, PEER, False, http=True, http_mode=mode)
    columns = [c for c in both if c.key in ("control", "http")]
    run = Run(args, columns, list(PROFILES), {})
    run_all(run, tmux)
    for row in HTTP_ROWS:
        for profile in PROFILES:
            cell = run.results[RowId(row, profile).key]["http"]
            assert cell.status == "ok" and cell.samples, (row, profile, cell.note)
            assert len(cell.samples) == (1 if row in ("batch_16", "wait") else 2), row
    logs = [s.log.read_text() for s in run.servers if s.column.is_http]
    assert len(logs) == len(PROFILES) and all(
        "serving MCP over Streamable HTTP at http://127.0.0.1:" in log for log in logs
    )


def test_the_http_client_answers_after_its_connection_sat_idle_past_the_servers_keep_alive(
    tmux: TmuxServer,
) -> None:
    from scripts.bench.httprpc import SERVER_KEEPS_IDLE, RawHttpClient
    from scripts.lab.httpserver import HttpServer

    server = HttpServer.start(tmux.server_env(), "python")
    try:
        client = RawHttpClient(server)
        client.initialize(30)
        assert client.request("ping").error() is None
        time.sleep(SERVER_KEEPS_IDLE + 0.5)  # the server has closed the kept-alive connection
        assert client.request("ping").error() is None
    finally:
        server.stop()


def test_the_http_client_reads_an_answer_sent_as_an_event_stream(
    tmux: TmuxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scripts.bench.httprpc import RawHttpClient, Wire
    from scripts.lab.httpserver import HttpServer

    made = tmux.new_session("streamed", "cat", width=80, height=10)
    server = HttpServer.start(tmux.server_env(), "python")
    kinds: list[str] = []
    exchange = Wire.exchange

    def seen(self: Wire, *args: Any) -> tuple[int, dict[str, str], bytes]:
        answer = exchange(self, *args)
        kinds.append(answer[1].get("content-type", ""))
        return answer

    try:
        client = RawHttpClient(server)
        client.initialize(30)
        monkeypatch.setattr(Wire, "exchange", seen)
        wait = {"pane_id": made.pane, "patterns": ["NEVER_SHOWN"], "timeout": 3}
        progress = {"name": "wait_for_text", "arguments": wait, "_meta": {"progressToken": "p"}}
        streamed = client.request("tools/call", progress)
        assert kinds[-1].startswith("text/event-stream")  # progress, then the answer
        assert streamed.error() is None and streamed.result["isError"] is False
        assert client.request("ping").error() is None  # the connection is kept after a stream
    finally:
        server.stop()
