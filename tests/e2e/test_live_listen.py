"""Live panes on 2026-07-28: a ``subscriptions/listen`` stream carries what
``resources/subscribe`` carries on the handshake era, from the same topics, over stdio and
over HTTP; the SDK's own ``Client`` in ``mode="auto"`` is the client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp.client.client import Client as SdkClient
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import Subscription
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated, ServerEvent

from scripts.lab.client import COMMAND
from scripts.lab.httpserver import HttpServer
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import output_clients
from tests.helpers.waiting import eventually

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
WIRES = ["stdio", "http"]


@asynccontextmanager
async def modern_client(tmux: TmuxServer, wire: str) -> AsyncIterator[SdkClient]:
    """The SDK's Client in its default mode, which probes server/discover first."""
    env = tmux.server_env()
    if wire == "stdio":
        params = StdioServerParameters(command=COMMAND, args=["--profile", "python"], env=env)
        async with SdkClient(params, mode="auto", cache=None) as sdk:
            yield sdk
        return
    with HttpServer.running(env, "python") as server:
        async with (
            create_mcp_http_client(headers=server.headers) as http,
            SdkClient(
                streamable_http_client(server.url, http_client=http), mode="auto", cache=None
            ) as sdk,
        ):
            yield sdk


async def next_event(sub: Subscription) -> ServerEvent:
    with anyio.fail_after(10):
        return await sub.__anext__()


def cat_pane(tmux: TmuxServer) -> str:
    return tmux.new_session(None, "sh", "-c", "stty -echo; exec cat", width=80, height=24).pane


@pytest.mark.parametrize("wire", WIRES)
async def test_a_listen_stream_carries_a_panes_updates_and_ends_its_watch(
    tmux: TmuxServer, wire: str
) -> None:
    pane = cat_pane(tmux)
    uri = f"tmux://panes/{pane}/content"
    async with modern_client(tmux, wire) as sdk:
        assert sdk.protocol_version == MODERN
        assert sdk.server_capabilities.resources is not None
        assert sdk.server_capabilities.resources.subscribe is True
        async with sdk.listen(resource_subscriptions=[uri]) as sub:
            assert sub.honored.resource_subscriptions == [uri]
            assert output_clients(tmux)  # the topic's watch holds the session's output client
            tmux.tmux("send-keys", "-t", pane, "-l", "built ok")
            tmux.tmux("send-keys", "-t", pane, "Enter")
            event = await next_event(sub)
            assert event == ResourceUpdated(uri=uri)
            await eventually(
                lambda: "built ok" in tmux.tmux("capture-pane", "-p", "-t", pane), "the echo"
            )
            read = await sdk.read_resource(uri)
            assert "built ok" in str(read.contents[0])
        # The stream is closed: its topic let go, nothing of it stays attached to tmux.
        await eventually(lambda: not output_clients(tmux), "the watch's client to go")


@pytest.mark.parametrize("wire", WIRES)
async def test_a_pane_that_goes_gets_its_last_update_on_the_stream(
    tmux: TmuxServer, wire: str
) -> None:
    pane = cat_pane(tmux)
    uri = f"tmux://panes/{pane}/content"
    async with (
        modern_client(tmux, wire) as sdk,
        sdk.listen(resource_subscriptions=[uri]) as sub,
    ):
        tmux.tmux("kill-pane", "-t", pane)
        assert await next_event(sub) == ResourceUpdated(uri=uri)
        with pytest.raises(MCPError) as caught:
            await sdk.read_resource(uri)
        assert pane in caught.value.error.message


@pytest.mark.parametrize("wire", WIRES)
async def test_a_stream_naming_a_missing_pane_is_refused_by_name(
    tmux: TmuxServer, wire: str
) -> None:
    uri = "tmux://panes/%9999/content"
    async with modern_client(tmux, wire) as sdk:
        with pytest.raises(MCPError) as caught:
            async with sdk.listen(resource_subscriptions=[uri]):
                pass
        assert "%9999" in caught.value.error.message
        assert not output_clients(tmux)
