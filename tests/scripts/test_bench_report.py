"""What the benchmark's report says: which peer mode ran, and a tmux part only where it means one."""

from __future__ import annotations

import json
from pathlib import Path

from scripts.bench.calls import ALL_ROWS, FAST_ROWS
from scripts.bench.main import parse
from scripts.bench.measure import Cell, Results
from scripts.bench.peer import PEER_QUIET
from scripts.bench.report import TMUX_PART, header, raw, report, table
from scripts.bench.servers import make_columns
from scripts.lab.tmuxserver import TmuxServer

NOT_STARTED = TmuxServer(Path("/nonexistent"), "bench-report")  # only its paths are read
PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")


def test_the_peer_runs_quiet_unless_asked_for_as_shipped() -> None:
    quiet = make_columns(NOT_STARTED, PEER, peer_as_shipped=False)[0]
    shipped = make_columns(NOT_STARTED, PEER, peer_as_shipped=True)[0]
    assert quiet.is_peer and shipped.is_peer
    assert quiet.env.items() >= PEER_QUIET.items()
    assert not set(PEER_QUIET) & set(shipped.env)


def test_the_header_says_which_peer_mode_ran() -> None:
    assert "ran quiet (FASTMCP_LOG_LEVEL=WARNING" in header(parse([]))[0]
    assert "ran as shipped" in header(parse(["--peer-as-shipped"]))[0]


def test_ours_gets_its_transport_as_a_flag_and_the_stub_replays_over_control() -> None:
    columns = {c.key: c for c in make_columns(NOT_STARTED, PEER, peer_as_shipped=False)}
    assert columns["control"].args("python")[-2:] == ["--transport", "control"]
    assert columns["subprocess"].args("python")[-2:] == ["--transport", "subprocess"]
    stub = columns["stub"]
    assert stub.is_stub and stub.label == "no tmux, no transport"
    assert stub.args("swift")[:3] == ["-m", "scripts.bench.stubbed", "--replay"]
    assert stub.args("swift")[-4:] == ["--profile", "swift", "--transport", "control"]


def test_the_tmux_part_is_printed_only_for_rows_the_stub_answers() -> None:
    columns = make_columns(NOT_STARTED, PEER, peer_as_shipped=False)
    results: Results = {
        row: {
            c.key: Cell(samples=[2_000_000 if c.key == "control" else 1_000_000]) for c in columns
        }
        for row in ALL_ROWS
    }
    lines = table(columns, ALL_ROWS, results).splitlines()
    assert lines[0].endswith(TMUX_PART)
    for row, line in zip(ALL_ROWS, lines[2:], strict=True):
        tmux_part = line[len(lines[0]) - len(TMUX_PART) :].strip()
        assert tmux_part == ("1.00 ms" if row in FAST_ROWS else ""), row


def test_the_printed_report_and_the_raw_samples_hold_every_row_and_column() -> None:
    args = parse(["--iterations", "3", "--rows", "ping,list_panes"])
    columns = make_columns(NOT_STARTED, PEER, peer_as_shipped=False)
    results: Results = {
        row: {c.key: Cell(call=f"python:{row}", samples=[1_000_000, 3_000_000]) for c in columns}
        for row in args.rows
    }
    versions = {"tmux": "tmux 3.4"}
    printed = report(args, columns, [], results, versions, 12.0).splitlines()
    assert printed[1 : 1 + len(header(args))] == header(args)
    assert "\n".join(table(columns, args.rows, results).splitlines()) in "\n".join(printed)
    assert printed[-1] == f"{versions}; 12 s; raw samples: {args.out}"
    saved = json.loads(json.dumps(raw(args, columns, [], results, versions, 12.0)))
    assert saved["header"] == header(args)
    assert saved["iterations"]["fast"] == 3
    assert set(saved["rows"]) == {"ping", "list_panes"}
    assert saved["rows"]["ping"]["control"]["samples_ns"] == [1_000_000, 3_000_000]
    assert set(saved["columns"]) == {c.key for c in columns}
