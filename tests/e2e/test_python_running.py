"""A cancelled run_command leaves no process behind the installed command (the tool:
tests/profiles/python/test_python_running.py)."""

from __future__ import annotations

import anyio
import mcp.types as types
import pytest

from scripts.lab.client import Client
from scripts.lab.processes import children
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.processes import mcp_server_pid, tmux_processes
from tests.helpers.running import DEADLINE, current_command
from tests.helpers.running import run_ok as run
from tests.helpers.running import shell_at_prompt as shell
from tests.helpers.waiting import eventually, until

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]


async def test_a_cancelled_run_leaves_no_process_behind(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    await python_client.ok("list_sessions")  # the transport's own client, if any, is up
    server = mcp_server_pid(shared)
    processes_before = set(tmux_processes(shared))
    children_before = set(children(server))
    answered: list[types.CallToolResult] = []
    scope = anyio.CancelScope()

    async def call() -> None:
        with scope:
            arguments = {"pane_id": pane, "command": "sleep 30", "timeout": 15}
            answered.append(await python_client.session.call_tool("run_command", arguments))

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await until(lambda: current_command(shared, pane) == "sleep", "the command")
            # The SDK sends notifications/cancelled for a request whose caller gives up.
            scope.cancel()
    assert answered == []

    def nothing_left() -> bool:
        return (
            set(tmux_processes(shared)) <= processes_before
            and set(children(server)) <= children_before
        )

    await eventually(nothing_left, "the wait-for process and the output client to go", 7.0)
    # The command itself was not the call's to stop: it runs on until interrupted.
    assert current_command(shared, pane) == "sleep"
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "C-c", "enter": False})
    await until(lambda: current_command(shared, pane) == "sh", "the interrupt")
    assert (await run(python_client, pane, "echo again"))["output"] == ["again"]
