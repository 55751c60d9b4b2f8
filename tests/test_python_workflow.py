"""A whole workflow through the python profile: create, split, build, wait, read, clean up."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.lab.client import open_client
from scripts.lab.tmuxserver import TmuxServer
from scripts.workflow import Workflow, run

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.mark.parametrize("transport", ["control", "subprocess"])
async def test_an_agent_builds_in_a_new_session_and_cleans_up_without_leaving_the_server(
    tmux: TmuxServer, tmp_path: Path, transport: str
) -> None:
    env = tmux.server_env(
        LIBTMUX_TOOLSETS="inspect,manage,execute,teardown", TMUX_CONTRACT_MCP_TRANSPORT=transport
    )
    async with open_client(env, "python") as client:
        flow = Workflow(client, echo=False)
        await run(flow, tmp_path)
    steps = {step.tool: step.result for step in flow.steps}
    assert [step.tool for step in flow.steps] == [
        "create_session",
        "split_window",
        "send_keys",
        "wait_for_text",
        "capture_pane",
        "run_command",
        "kill_session",
        "list_sessions",
    ]
    assert steps["create_session"]["session_name"] == "build"
    # tmux may not have read a brand-new pane's directory yet
    assert steps["split_window"]["pane_current_path"] in (str(tmp_path), "", None)
    assert steps["wait_for_text"]["outcome"] == "matched"
    assert steps["wait_for_text"]["matched_lines"] == ["BUILD OK"]
    assert "BUILD OK" in steps["capture_pane"]["result"].splitlines()
    assert steps["run_command"]["exit_status"] == 0
    assert steps["run_command"]["output"] == ["BUILD OK"]
    assert (tmp_path / "build.log").read_text() == "BUILD OK\n"
    assert [s["session_name"] for s in steps["list_sessions"]["result"]] == ["main"]
    assert tmux.lines("list-sessions", "-F", "#{session_name}") == ["main"]
