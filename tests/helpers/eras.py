"""The test matrix of both protocol eras: the SDK's own ``Client`` in ``mode="legacy"`` (the
initialize handshake, 2025-11-25) and ``mode="auto"`` (it probes ``server/discover`` and
speaks 2026-07-28 to this server), over stdio and over Streamable HTTP.

A test takes ``era`` and ``wire`` from ``MATRIX`` (``@pytest.mark.parametrize(("era",
"wire"), MATRIX)``) and connects with ``era_client``; over HTTP it reuses one server of its
module (``HttpServer``), over stdio each client is its own process. ``watch`` subscribes to
resources the way each era does (``resources/subscribe``; a ``subscriptions/listen`` stream)
and records every ``notifications/resources/updated`` either way, so one test body proves
both.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import mcp.types as types
import pytest
from mcp.client.client import Client as SdkClient
from mcp.client.session import IncomingMessage, LoggingFnT
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.subscriptions import ResourceUpdated

from scripts.lab.client import COMMAND
from scripts.lab.httpserver import HttpServer
from scripts.lab.updates import Updates

ERAS = ("legacy", "auto")
WIRES = ("stdio", "http")
MATRIX = [pytest.param(era, wire, id=f"{era}-{wire}") for era in ERAS for wire in WIRES]
VERSIONS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


@asynccontextmanager
async def era_client(
    era: str,
    wire: str,
    env: Mapping[str, str],
    http: HttpServer | None = None,
    profile: str = "python",
    *,
    updates: Updates | None = None,
    logging_callback: LoggingFnT | None = None,
    log_level: types.LoggingLevel | None = None,
) -> AsyncIterator[SdkClient]:
    """The SDK ``Client`` in mode ``era`` over ``wire``: a new stdio process on ``env``, or a
    connection to ``http`` (a running ``--http`` server of the same profile). ``updates``
    keeps the handshake era's resource updates (2026-07-28's: ``watch``); ``log_level`` is 2026-07-28's per-request
    opt-in to log lines."""

    async def handler(message: IncomingMessage) -> None:
        # On 2026-07-28 a listen stream's events reach this handler too; ``watch`` records
        # those from the stream itself.
        if updates is not None and era == "legacy":
            await updates(message)

    options: dict[str, Any] = {
        "mode": era,
        "cache": None,
        "message_handler": handler,
        "logging_callback": logging_callback,
        "log_level": log_level,
    }
    if wire == "stdio":
        params = StdioServerParameters(command=COMMAND, args=["--profile", profile], env=dict(env))
        async with SdkClient(params, **options) as sdk:
            assert sdk.protocol_version == VERSIONS[era]
            yield sdk
        return
    assert http is not None and http.profile == profile
    async with (
        create_mcp_http_client(headers=http.headers) as client,
        SdkClient(streamable_http_client(http.url, http_client=client), **options) as sdk,
    ):
        assert sdk.protocol_version == VERSIONS[era]
        yield sdk


@asynccontextmanager
async def watch(sdk: SdkClient, updates: Updates, uris: Sequence[str]) -> AsyncIterator[None]:
    """Subscribe to ``uris`` as the connection's era does, while the block runs; every update
    lands in ``updates`` (on the handshake era through the client's message handler, which
    ``era_client`` gave it). The block's end unsubscribes, or closes the listen stream."""
    if sdk.protocol_version == VERSIONS["legacy"]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            for uri in uris:
                await sdk.session.subscribe_resource(uri)
        try:
            yield
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                for uri in uris:
                    await sdk.session.unsubscribe_resource(uri)
        return
    async with sdk.listen(resource_subscriptions=list(uris)) as sub:
        assert sub.honored.resource_subscriptions == list(uris)

        async def pump() -> None:
            async for event in sub:
                if isinstance(event, ResourceUpdated):
                    updates.record(event.uri)

        task = asyncio.get_running_loop().create_task(pump())
        try:
            yield
        finally:
            task.cancel()
