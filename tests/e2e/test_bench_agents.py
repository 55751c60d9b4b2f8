"""The agents bench (scripts/bench/agents.py) measures what docs/agents.md reports: a short
run against the installed command prints every row, each with a number."""

from __future__ import annotations

import re
import subprocess
import sys

from scripts.lab.client import ROOT


def test_a_short_agents_bench_prints_its_four_rows() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scripts.bench.agents", "--samples", "3", "--window", "1"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][2:]
    assert [row.split(" | ")[0] for row in rows] == [
        "| wait_for_quiet reaction after quiet_seconds, p50 (3 samples)",
        "| wait_for_quiet reaction, p90",
        "| watching 50 idle panes: server CPU (with its tmux clients)",
        "| watching 50 idle panes: tmux commands sent in 1 s",
    ]
    assert all(re.search(r"\| -?[0-9.]+( ms| \|)", row) for row in rows), rows
    # Idle panes cost no tmux command: nothing re-reads them.
    assert rows[-1].endswith("| 0 |")
