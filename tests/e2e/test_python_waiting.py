"""A cancelled wait leaves no tmux client and no process behind the installed command (the
tool: tests/profiles/python/test_python_waiting.py)."""

from __future__ import annotations

import anyio
import anyio.to_thread
import mcp.types as types
import pytest

from scripts.lab.client import Client
from scripts.lab.processes import children
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.processes import mcp_server_pid, tmux_processes
from tests.helpers.tmux import echoing
from tests.helpers.tmux import tmux_clients as clients
from tests.helpers.waiting import eventually, wait_while, waiting_on

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

DEADLINE = 20.0  # only there to turn a hang into a failure


async def test_a_cancelled_wait_leaves_no_client_and_no_process_behind(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *echoing())
    session, pane = made.name, made.pane
    await python_client.ok("list_sessions")  # the transport's own client, if any, is up
    server = mcp_server_pid(shared)
    processes_before = set(tmux_processes(shared))
    children_before = set(children(server))
    answered: list[types.CallToolResult] = []
    scope = anyio.CancelScope()

    async def wait() -> None:
        with scope:
            arguments = {"pane_id": pane, "patterns": ["never"], "timeout": 15}
            answered.append(await python_client.session.call_tool("wait_for_text", arguments))

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await waiting_on(shared, session)
            # The SDK sends notifications/cancelled for a request whose caller gives up.
            scope.cancel()
    assert answered == []

    def nothing_left() -> bool:
        return (
            session not in {name for _, name in clients(shared)}
            and set(tmux_processes(shared)) <= processes_before
            and set(children(server)) <= children_before
        )

    # Bounded well inside the 15 s the wait would have lasted had it not been cancelled.
    await eventually(nothing_left, "the wait's client and process to go", deadline=7.0)

    # The server lives on, and a new wait on the same pane still wakes.
    again = await wait_while(
        python_client, shared, session, {"pane_id": pane, "patterns": ["still"], "timeout": 15},
        "still here",
    )  # fmt: skip
    assert again["outcome"] == "matched"
