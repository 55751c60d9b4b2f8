"""The MCP server over stdio: list the profile's contracts, dispatch calls."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from . import __version__
from .dispatch import call_tool
from .instructions import instructions_for
from .profiles import Profile
from .progress import reporter
from .wire import Outgoing, answering

INVALID_PARAMS = -32602


def build_server(
    profile: Profile, handlers: Any, environ: Mapping[str, str] | None = None
) -> Server[Any]:
    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=profile.listed)

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = profile.tool(params.name)
        if tool is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Unknown tool: {params.name!r} is not served by the {profile.name} profile",
            )
        rid = 0 if ctx.request_id is None else ctx.request_id
        answering.set(Outgoing(rid, ctx.protocol_version, stamp))
        reporter.set(ctx.session.report_progress)
        return await call_tool(tool, handlers, params.arguments)

    server: Server[Any] = Server(
        "tmux-contract-mcp",
        version=__version__,
        instructions=instructions_for(
            profile, handlers, os.environ if environ is None else environ
        ),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
    stamp = server.server_info_stamp  # fixed for the server's life; read-only from here on
    return server


async def serve_stdio(profile: Profile, handlers: Any) -> None:
    from mcp.server.stdio import stdio_server

    from .stdio import loop_stdio

    server = build_server(profile, handlers)
    try:
        async with loop_stdio() as wire:
            if wire is not None:
                await server.run(*wire, server.create_initialization_options())
                return
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
    finally:
        close = getattr(handlers, "aclose", None)  # handlers may hold connections
        if close is not None:
            with anyio.CancelScope(shield=True):
                await close()
