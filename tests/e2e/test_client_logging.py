"""logging/setLevel: the server's own log lines reach the client once it asks, and not before.

Notifications travel in order on the one stdio stream, so "the first line the
client receives is the one logged after setLevel" proves that nothing logged
before it was sent.
"""

from __future__ import annotations

import math
import warnings

import anyio
import mcp.types as types
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.exceptions import MCPDeprecationWarning

from scripts.lab.client import Client, open_client
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

DEADLINE = 20.0  # only there to turn a hang into a failure
BAD_CALL = ("get_pane_info", {"pane_id": "%9999"})  # logged at info: answered with an error


async def next_line(
    lines: MemoryObjectReceiveStream[types.LoggingMessageNotificationParams],
) -> types.LoggingMessageNotificationParams:
    with anyio.fail_after(DEADLINE):
        return await lines.receive()


async def test_log_lines_flow_only_after_set_level_and_at_or_above_it(tmux: TmuxServer) -> None:
    send, lines = anyio.create_memory_object_stream[types.LoggingMessageNotificationParams](
        math.inf
    )

    async def received(params: types.LoggingMessageNotificationParams) -> None:
        await send.send(params)

    env = tmux.server_env()
    async with open_client(env, "python", logging_callback=received) as client:
        initialized = client.session.initialize_result
        assert initialized is not None and initialized.capabilities.logging is not None

        await client.error("get_pane_info", {"pane_id": "%8888"})  # before anyone asked: unsent
        await client.ok("list_sessions")

        await set_level(client, "info")
        await client.ok("list_sessions")  # a debug line: below the level asked for
        await client.error(*BAD_CALL)
        first = await next_line(lines)
        assert first.level == "info"
        assert first.logger == "tmux_contract_mcp.dispatch"
        assert "get_pane_info answered with an error" in str(first.data)
        assert "%9999" in str(first.data)

        await set_level(client, "debug")
        await client.ok("list_sessions")
        debug = await next_line(lines)
        assert debug.level == "debug"
        assert str(debug.data).startswith("list_sessions answered in ")

        await read_and_expect_line(client, lines)


async def set_level(client: Client, level: types.LoggingLevel) -> None:
    with warnings.catch_warnings():  # the SDK marks logging deprecated from 2026-07-28 on;
        warnings.simplefilter("ignore", MCPDeprecationWarning)  # this handshake is 2025-11-25
        await client.session.set_logging_level(level)


async def read_and_expect_line(
    client: Client, lines: MemoryObjectReceiveStream[types.LoggingMessageNotificationParams]
) -> None:
    """Resource reads log too, from their own logger."""
    await client.session.read_resource("tmux://sessions")
    line = await next_line(lines)
    assert line.logger == "tmux_contract_mcp.resources"
    assert "tmux://sessions" in str(line.data)
