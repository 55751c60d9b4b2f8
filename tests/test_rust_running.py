"""run_shell_command and wait_for_text of the rust profile, against real shells in real tmux.

One tmux server and one rust MCP server serve the module; every test works in a
window of its own. Outputs are checked against the output schema by the client,
and what a command did is checked in the pane's shell itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def envelope(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert set(value) == {"message", "data"}, value
    return dict(value)


def shell_window(shared: TmuxServer, shell: str) -> str:
    """A new window running ``shell`` at its prompt; its pane id."""
    window = shared.new_window()
    pane = shared.tmux("display-message", "-p", "-t", window, "#{pane_id}").strip()
    if shell != "sh":
        shared.tmux(
            "respawn-pane",
            "-k",
            "-t",
            pane,
            f"env PS1='$ ' {shell} --norc -i" if shell == "bash" else shell,
        )
    shared.wait_for_prompt(pane)
    return pane


def command_of(shared: TmuxServer, pane: str) -> str:
    return shared.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}").strip()


@pytest.mark.parametrize("shell", ["bash", "sh"])
async def test_run_shell_command_reports_exit_status_and_output_and_keeps_cd_inside(
    shared: TmuxServer, rust_client: Client, shell: str
) -> None:
    pane = shell_window(shared, shell)
    ok = await rust_client.ok(
        "run_shell_command", {"pane": pane, "command": "cd /; echo out; echo err >&2; pwd"}
    )
    assert ok["outcome"] == "completed" and ok["exit_status"] == 0, ok
    assert ok["output"] == "out\nerr\n/\n", ok
    assert ok["truncated"] is False and ok["bytes"] >= len(ok["output"])
    failed = await rust_client.ok("run_shell_command", {"pane": pane, "command": "exit 3"})
    assert failed["outcome"] == "completed" and failed["exit_status"] == 3, failed
    after = await rust_client.ok("run_shell_command", {"pane": pane, "command": "pwd"})
    assert after["output"] != "/\n" and after["exit_status"] == 0, after
