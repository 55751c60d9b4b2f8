"""The benchmark's remote column: ours through ssh, on every per-call and scale row of every
profile, beside ours and the peer here (a short run through the sshd it starts:
tests/e2e/test_bench_remote.py). No time is asserted: only that the cells are there."""

from __future__ import annotations

from pathlib import Path

from scripts.bench.calls import CALL_ROWS, START_ROWS
from scripts.bench.main import parse
from scripts.bench.report import Run, header
from scripts.bench.servers import PROFILES, REMOTE_LABEL, make_columns
from scripts.lab.tmuxserver import TmuxServer

NOT_STARTED = TmuxServer(Path("/nonexistent"), "bench-remote")  # only its paths are read
PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")
SSH = ("127.0.0.1:2222", Path("/nonexistent/ssh_config"))


def test_the_remote_column_runs_every_profile_over_control_through_ssh() -> None:
    columns = {c.key: c for c in make_columns(NOT_STARTED, PEER, False, SSH)}
    remote = columns["ssh"]
    assert remote.is_remote and remote.label == REMOTE_LABEL
    assert remote.profiles == PROFILES
    assert remote.env["TMUX_CONTRACT_MCP_SSH"] == "127.0.0.1:2222"
    assert remote.env["TMUX_CONTRACT_MCP_SSH_CONFIG"] == "/nonexistent/ssh_config"
    assert remote.env["LIBTMUX_SOCKET_PATH"] == columns["control"].env["LIBTMUX_SOCKET_PATH"]
    assert remote.args("rust")[-2:] == ["--transport", "control"]
    assert all(remote.measures(row) for row in CALL_ROWS)
    assert remote.measures("scale:search_panes")
    assert not any(remote.measures(row) for row in START_ROWS)
    assert "ssh" not in {c.key for c in make_columns(NOT_STARTED, PEER, False)}


def test_the_header_says_what_the_remote_column_is_unless_it_is_left_out() -> None:
    columns = make_columns(NOT_STARTED, PEER, False, SSH)
    with_ssh = Run(parse([]), columns, list(PROFILES), {})
    assert any(line.startswith(f"{REMOTE_LABEL}: ") for line in header(with_ssh))
    without = Run(parse(["--no-ssh"]), columns, list(PROFILES), {})
    assert not any(line.startswith(f"{REMOTE_LABEL}: ") for line in header(without))
