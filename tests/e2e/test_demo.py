"""`make demo` is the tour docs/development.md describes and the README shows, and it leaves
nothing behind."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest

from scripts.demo import main_async
from scripts.lab.client import ROOT
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.readme import README, code_blocks, transcript_disagreements

TOUR = [
    "list_sessions",
    "list_panes",
    "split_window",
    "send_keys",
    "wait_for_text",
    "capture_pane",
    "snapshot_pane",
    "search_panes",
    "run_command",
    "run_command",
    "capture_pane",
    "kill_pane",
    "list_panes",
]


@pytest.mark.anyio
async def test_the_tour_lists_splits_types_waits_reads_runs_searches_and_cleans_up(
    tmux: TmuxServer,
) -> None:
    panes_before = tmux.lines("list-panes", "-a", "-F", "#{pane_id}")
    out = io.StringIO()
    run = await main_async(tmux, out)
    assert [step.tool for step in run.steps] == TOUR

    (
        sessions,
        panes,
        split,
        typed,
        waited,
        captured,
        snapshot,
        search,
        ok,
        failed,
        bad,
        killed,
        after,
    ) = run.steps
    assert [s["session_name"] for s in sessions.result["result"]] == ["main"]
    assert [p["pane_id"] for p in panes.result["result"]] == panes_before
    work = split.result["pane_id"]
    assert work not in panes_before
    assert not typed.is_error
    assert waited.result["outcome"] == "matched"
    assert waited.result["matched_lines"] == ["test ok"]
    assert captured.result["result"].splitlines()[-4:-1] == ["fetch ok", "compile ok", "test ok"]
    assert snapshot.result["pane_id"] == work
    assert "compile ok\ntest ok" in snapshot.result["content"]
    assert [(m["pane_id"], m["matched_lines"]) for m in search.result["matches"]] == [
        (work, ["compile ok"])
    ]
    assert (ok.result["exit_status"], ok.result["output"]) == (0, ["42"])
    assert failed.result["exit_status"] == 2  # ls: no such directory
    assert "/no/such/directory" in failed.result["output"][0]
    assert bad.is_error and "`max_lines`" in bad.text
    assert not killed.is_error
    assert [p["pane_id"] for p in after.result["result"]] == panes_before
    assert tmux.lines("list-panes", "-a", "-F", "#{pane_id}") == panes_before

    transcript = out.getvalue()
    for step in run.steps:  # every call is printed, then the text the agent read
        assert f"→ {step.tool} " in transcript
    assert transcript.count("\n✗ ") == 1
    assert '"exit_status":2' in transcript


@pytest.mark.timeout(240)  # 5 s; the demo's own limit, 180 s, fails first with its output
def test_the_demo_runs_on_its_own_tmux_server_and_kills_it() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    done = subprocess.run(
        [sys.executable, "-m", "scripts.demo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    found = re.fullmatch(r"a private tmux server on (\S+), session main, one pane", lines[0])
    assert found is not None, lines[0]
    socket = found[1]
    assert socket.startswith("/tmp/tcm-")  # its own TMUX_TMPDIR
    assert not os.path.exists(socket)  # killed, and its directory removed
    assert lines[-1] == "the private tmux server is killed"
    assert '"exit_status":0' in done.stdout and '"exit_status":2' in done.stdout
    assert done.stderr == ""
    shown = next(block for block in code_blocks(README) if "→ " in block)  # the README's transcript
    assert transcript_disagreements(shown, done.stdout) == []
