"""A python server's channel waits leave no process behind: the server's own children, so the
server is the installed command (the tools: tests/profiles/python/test_python_panes.py)."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread
import pytest

from scripts.lab.client import Client
from scripts.lab.processes import children
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.processes import mcp_server_pid, tmux_processes
from tests.helpers.processes import waiting_clients as waiters
from tests.helpers.tmux import socket_label, tag
from tests.helpers.waiting import eventually

TRANSPORTS = ("control", "subprocess")
pytestmark = [pytest.mark.anyio, pytest.mark.transports(*TRANSPORTS)]


async def test_wait_for_channel_times_out_with_an_error_and_leaves_no_process(
    shared: TmuxServer, python_client: Client, transport: str
) -> None:
    channel = f"never-{tag()}"
    server = mcp_server_pid(shared, transport)
    processes_before, children_before = tmux_processes(shared), children(server)
    message = await python_client.error("wait_for_channel", {"channel": channel, "timeout": 0.3})
    assert repr(channel) in message and "0.3 s" in message
    assert socket_label(shared) in message
    assert tmux_processes(shared) == processes_before
    assert children(server) == children_before


async def test_a_cancelled_wait_for_channel_leaves_no_process_and_the_server_lives_on(
    shared: TmuxServer, python_client: Client, transport: str
) -> None:
    channel = f"cancel-{tag()}"
    server = mcp_server_pid(shared, transport)
    processes_before, children_before = tmux_processes(shared), children(server)
    waiting_before = waiters(shared)
    answered: list[Any] = []
    scope = anyio.CancelScope()

    async def wait() -> None:
        with scope:
            arguments = {"channel": channel, "timeout": 15}
            answered.append(await python_client.session.call_tool("wait_for_channel", arguments))

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await eventually(
            lambda: len(waiters(shared)) == len(waiting_before) + 1, "the wait's process"
        )
        scope.cancel()  # the SDK sends notifications/cancelled
    assert answered == []

    def nothing_left() -> bool:
        return tmux_processes(shared) == processes_before and children(server) == children_before

    # Well inside the 15 s the wait would have lasted.
    await eventually(nothing_left, "the wait's process to go", deadline=7.0)
    other = f"after-{tag()}"
    await python_client.ok("signal_channel", {"channel": other})
    await python_client.ok("wait_for_channel", {"channel": other, "timeout": 5})
