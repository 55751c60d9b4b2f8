"""A short bench run (scripts/bench) whose columns reach the installed command, ours also
through the sshd it starts, on every profile (the columns and the header:
tests/scripts/test_bench_remote.py). No time is asserted: only that the cells are there."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.bench.main import parse, private_sshd, run_all
from scripts.bench.measure import RowId
from scripts.bench.report import SSH_PART, Run, call_table
from scripts.bench.servers import PROFILES, make_columns
from scripts.lab.tmuxserver import TmuxServer

PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")


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
