"""A whole workflow through the python profile: create, split, build, wait, read, clean up.

It runs over each transport here, and with ``--ssh`` through the lab sshd (the control
transport: the remote is the default one), as ``make workflow-ssh`` prints it.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from scripts.lab.client import open_client
from scripts.lab.tmuxserver import TmuxServer
from scripts.workflow import TOOLSETS, Workflow, over_ssh, run

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("transport", ["control", "subprocess", "ssh"])
async def test_an_agent_builds_in_a_new_session_and_cleans_up_without_leaving_the_server(
    tmux: TmuxServer, tmp_path: Path, transport: str, request: pytest.FixtureRequest
) -> None:
    if transport == "ssh":
        sshd = request.getfixturevalue("sshd")
        printed = io.StringIO()
        flow = await over_ssh(tmux, sshd, tmp_path, printed)
        transcript = printed.getvalue()
        assert f"# tmux-contract-mcp --profile python --ssh {sshd.target}\n" in transcript
        assert transcript.count("→ ") == len(flow.steps)
        assert '"session_name": "build"' in transcript.split("→ split_window")[0]
        assert "# sshd accepted 1 login(s)" in transcript
    else:
        env = tmux.server_env(LIBTMUX_TOOLSETS=TOOLSETS, TMUX_CONTRACT_MCP_TRANSPORT=transport)
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
