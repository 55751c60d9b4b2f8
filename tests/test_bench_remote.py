"""The benchmark's remote column: ours through ssh, on every per-call and scale row of every
profile, beside ours and the peer here. No time is asserted: only that the cells are there."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.bench.calls import CALL_ROWS, START_ROWS
from scripts.bench.main import parse, private_sshd, run_all
from scripts.bench.measure import RowId
from scripts.bench.report import SSH_PART, Run, call_table, header
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


@pytest.mark.e2e
@pytest.mark.timeout(300)
def test_a_short_run_measures_every_profile_through_the_sshd_it_starts(tmux: TmuxServer) -> None:
    args = parse(
        ["--iterations", "2", "--batch-iterations", "1", "--wait-iterations", "1",
         "--rows", "list_sessions,capture_pane,batch_16,wait", "--no-scale"]
    )  # fmt: skip
    with private_sshd(not args.no_ssh) as sshd:
        assert sshd is not None
        both = make_columns(tmux, PEER, False, (sshd.target, sshd.client_config))
        columns = [c for c in both if c.key in ("control", "ssh")]
        run = Run(args, columns, list(PROFILES), {})
        run_all(run, tmux)
        assert (sshd.tmpdir / "sshd.log").read_text().count("Accepted publickey") >= 3
    assert sshd.process.poll() is not None  # stopped with the run
    for row in args.rows:
        for profile in PROFILES:
            cell = run.results[RowId(row, profile).key]["ssh"]
            assert cell.status == "ok" and cell.samples, (row, profile, cell.note)
            assert len(cell.samples) == (1 if row in ("batch_16", "wait") else 2), row
    assert SSH_PART in call_table(run).splitlines()[0]
    assert all(s.rss_end_kib for s in run.servers)  # closed, its memory read first
    with private_sshd(not parse(["--no-ssh"]).no_ssh) as none:
        assert none is None
