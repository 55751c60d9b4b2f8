"""A short bench run (scripts/bench.py) whose remote rows reach the installed command through
the sshd it starts (the columns and the table: tests/scripts/test_bench_remote.py)."""

from __future__ import annotations

from pathlib import Path

import anyio

from scripts.bench.calls import prepare_tmux
from scripts.bench.main import parse, private_sshd, run
from scripts.bench.measure import Cell, Results
from scripts.bench.servers import REMOTE_ROWS, make_columns
from scripts.lab.tmuxserver import TmuxServer

PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")


def test_a_short_run_measures_the_remote_rows_through_the_sshd_it_starts(
    tmux: TmuxServer,
) -> None:
    args = parse(["--iterations", "2", "--batch-iterations", "1", "--wait-iterations", "1"])
    args.rows = list(REMOTE_ROWS)
    lay = prepare_tmux(tmux)
    with private_sshd(not args.no_ssh) as sshd:
        assert sshd is not None
        both = make_columns(tmux, PEER, False, (sshd.target, sshd.client_config))
        columns = [c for c in both if c.key in ("control", "ssh")]
        results: Results = {row: {c.key: Cell() for c in columns} for row in args.rows}
        anyio.run(run, args, columns, lay, results)
        assert (sshd.tmpdir / "sshd.log").read_text().count("Accepted publickey") >= 1
    assert sshd.process.poll() is not None  # stopped with the run
    for row in REMOTE_ROWS:
        cell = results[row]["ssh"]
        assert cell.status == "ok" and cell.samples, (row, cell.note)
        assert len(cell.samples) == (1 if row in ("batch_16", "wait") else 2), row
    with private_sshd(not parse(["--no-ssh"]).no_ssh) as none:
        assert none is None
