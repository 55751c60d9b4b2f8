"""The benchmark's remote column: ours through ssh, on its rows only, in a table of its own
beside ours and the peer here. No time is asserted: only that the rows are there."""

from __future__ import annotations

from pathlib import Path

from scripts.bench.calls import ALL_ROWS
from scripts.bench.main import parse
from scripts.bench.measure import Cell, Results
from scripts.bench.report import header, remote_table, report, table
from scripts.bench.servers import REMOTE_LABEL, REMOTE_ROWS, make_columns
from scripts.lab.tmuxserver import TmuxServer

NOT_STARTED = TmuxServer(Path("/nonexistent"), "bench-remote")  # only its paths are read
PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")
SSH = ("127.0.0.1:2222", Path("/nonexistent/ssh_config"))


def test_the_remote_column_runs_ours_over_control_through_ssh_on_its_rows_only() -> None:
    columns = {c.key: c for c in make_columns(NOT_STARTED, PEER, False, SSH)}
    remote = columns["ssh"]
    assert remote.is_remote and remote.label == REMOTE_LABEL
    assert remote.env["TMUX_CONTRACT_MCP_SSH"] == "127.0.0.1:2222"
    assert remote.env["TMUX_CONTRACT_MCP_SSH_CONFIG"] == "/nonexistent/ssh_config"
    assert remote.env["LIBTMUX_SOCKET_PATH"] == columns["control"].env["LIBTMUX_SOCKET_PATH"]
    assert remote.args("python")[-2:] == ["--transport", "control"]
    assert [row for row in ALL_ROWS if remote.measures(row)] == list(REMOTE_ROWS)
    assert "ssh" not in {c.key for c in make_columns(NOT_STARTED, PEER, False)}


def test_the_remote_rows_get_a_table_of_their_own_and_the_header_says_what_it_compares() -> None:
    args = parse(["--rows", ",".join(ALL_ROWS)])
    columns = make_columns(NOT_STARTED, PEER, False, SSH)
    results: Results = {
        row: {c.key: Cell(samples=[4_000_000 if c.key == "ssh" else 2_000_000]) for c in columns}
        for row in args.rows
    }
    assert REMOTE_LABEL not in table(columns, args.rows, results).splitlines()[0]
    lines = remote_table(columns, args.rows, results).splitlines()
    assert lines[0].split() == [
        "over", "ssh", "(ms:", "p50", "/", "p95)", "libtmux-mcp", "(here)", "ours/control",
        "(here)", REMOTE_LABEL, "ssh", "-", "control", "(p50)", "peer/ssh",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[2:]] == [
        "list_sessions",
        "capture_pane",
        "batch",
        "wait",
    ]
    assert all(line.split()[-2:] == ["ms", "0.5x"] and "2.00 ms" in line for line in lines[2:])
    assert "\n".join(lines) in report(args, columns, [], results, {}, 1.0)
    assert any(line.startswith(f"{REMOTE_LABEL}: ") for line in header(args))
    without = parse(["--no-ssh"])
    assert not any(line.startswith(f"{REMOTE_LABEL}: ") for line in header(without))
