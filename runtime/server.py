"""The MCP server: list the profile's contracts, dispatch calls and reads.

One ``Server`` per process, whatever the wire: stdio here (``serve_stdio``), Streamable
HTTP in ``runtime/http.py``. Resources, resource templates, prompts and completion are
served when the profile declares any; logging is always offered. Every handler that
does work runs ``served``: in its client's conversation (whose log lines it makes), and
over HTTP cancelled when that client hangs up.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from . import __version__, middleware
from .completion import complete
from .dispatch import call_tool, wire_result
from .eras import Server as OneCapabilitySet
from .errors import envelope_data
from .hangup import hangup_of
from .instructions import instructions_for
from .live import add_subscriptions
from .logs import ClientLog, conversation, lines_asked, request_lines, send_asked
from .profiles import Profile
from .prompts import get_prompt
from .resources import read_resource
from .seam import Answering, Call, HandlerSet
from .toolsets import EXCLUDE_TOOLS_ENV, TOOLS_ENV, TOOLSETS_ENV

SESSION_HEADER = "mcp-session-id"
ONE_CLIENT = "the one client"
"""The conversation of a server that has one client only (stdio)."""

P = TypeVar("P")
R = TypeVar("R")
Handler = Callable[[ServerRequestContext[Any], P], Awaitable[R]]


def conversation_of(ctx: ServerRequestContext[Any]) -> object:
    """Whose request this is: over HTTP its session, or (a request of the stateless era,
    or one that opens a session) that request alone; on stdio the one client."""
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return ONE_CLIENT
    session = headers.get(SESSION_HEADER)
    return session if session is not None else object()


def client_of(ctx: ServerRequestContext[Any]) -> str:
    """Who sent a request, for the audit log: ``stdio``, or the HTTP client's address."""
    peer = getattr(getattr(ctx.request, "client", None), "host", None)
    if peer is None:
        return "stdio" if getattr(ctx.request, "headers", None) is None else "http"
    return f"{peer}:{ctx.request.client.port}"  # type: ignore[union-attr]


def served(handler: Handler[P, R]) -> Handler[P, R]:
    """``handler`` run in its client's conversation, and cancelled if that client hangs up."""

    async def serving(ctx: ServerRequestContext[Any], params: P) -> R:
        token = conversation.set(conversation_of(ctx))
        wanted = lines_asked(ctx.protocol_version, ctx.meta)  # 2026-07-28's per-request level
        lines_token = request_lines.set(wanted)
        try:
            hangup = hangup_of(ctx.request)
            if hangup is None:
                answer = await handler(ctx, params)
            else:
                answer = await hangup.unless_gone(lambda: handler(ctx, params))
        except Exception:
            if wanted is not None:
                await send_asked(ctx.session, wanted)
            raise
        finally:
            request_lines.reset(lines_token)
            conversation.reset(token)
        if wanted is not None:
            await send_asked(ctx.session, wanted)
        return answer

    return serving


def unknown_tool(profile: Profile, name: str) -> MCPError:
    """The protocol error for a tool this process does not serve: a tool the selection
    hides says which toolset holds it and how to show it; for a profile whose errors are
    the family's envelope, ``data`` carries its kind."""
    toolset = profile.catalog.get(name)
    if toolset is None:
        message = f"Unknown tool: {name!r} is not served by the {profile.name} profile"
    else:
        message = (
            f"Unknown tool: {name!r} is hidden by the tool selection (it is in the {toolset} "
            f"toolset); show it with {TOOLSETS_ENV} or {TOOLS_ENV}, and check "
            f"{EXCLUDE_TOOLS_ENV}, when starting this server"
        )
    data = None
    if profile.error_text == "envelope":
        data = envelope_data("invalid_input")
    return MCPError(code=types.INVALID_PARAMS, message=message, data=data)


def build_server(
    profile: Profile,
    handlers: HandlerSet,
    environ: Mapping[str, str] | None = None,
    client_log: ClientLog | None = None,
) -> Server[Any]:
    client_log = client_log or ClientLog(logging.getLogger(__package__))

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=profile.listed)

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> dict[str, Any]:
        tool = profile.tool(params.name)
        if tool is None:
            raise unknown_tool(profile, params.name)
        rid = 0 if ctx.request_id is None else ctx.request_id
        answering = Answering(rid, ctx.protocol_version, stamp)
        call = Call(answering, ctx.session.report_progress, client_of(ctx))
        return wire_result(await call_tool(tool, handlers, call, params.arguments))

    server: Server[Any] = OneCapabilitySet(
        "tmux-contract-mcp",
        version=__version__,
        instructions=instructions_for(
            profile, handlers, os.environ if environ is None else environ
        ),
        on_list_tools=on_list_tools,
        # The SDK takes a dict from any handler (``HandlerResult``); its type for this
        # one names only the models.
        on_call_tool=cast(Any, served(on_call_tool)),
        get_tool_input_schema=input_schema_of(profile),
    )
    stamp = server.server_info_stamp  # fixed for the server's life; read-only from here on
    middleware.install(server)
    add_resources_and_prompts(server, profile, handlers)
    add_subscriptions(
        server, profile.resources.values(), handlers, os.environ if environ is None else environ
    )
    add_logging(server, client_log)
    return server


def input_schema_of(profile: Profile) -> Callable[[str], Mapping[str, Any] | None]:
    """A served tool's input schema by name: the SDK's 2026-07-28 HTTP path checks
    ``Mcp-Param-*`` headers against it (without it, it would run tools/list per call)."""

    def lookup(name: str) -> Mapping[str, Any] | None:
        tool = profile.tool(name)
        return None if tool is None else tool.contract["inputSchema"]

    return lookup


def add_resources_and_prompts(server: Server[Any], profile: Profile, handlers: HandlerSet) -> None:
    """The resource, prompt and completion methods, for a profile that declares any."""

    async def on_list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=profile.listed_resources)

    async def on_list_resource_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=profile.listed_templates)

    async def on_read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await read_resource(profile.resources.values(), handlers, str(params.uri))

    async def on_list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=profile.listed_prompts)

    async def on_get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        prompt = profile.prompts.get(params.name)
        if prompt is None:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown prompt: {params.name!r}; this server's prompts are "
                f"{', '.join(profile.prompts) or 'none'}",
            )
        return await get_prompt(prompt, handlers, params.arguments)

    async def on_completion(
        ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        return await complete(params, profile.prompts, profile.resources, handlers)

    if profile.resources:
        server.add_request_handler(
            "resources/list", types.PaginatedRequestParams, on_list_resources
        )
        server.add_request_handler(
            "resources/templates/list", types.PaginatedRequestParams, on_list_resource_templates
        )
        server.add_request_handler(
            "resources/read", types.ReadResourceRequestParams, served(on_read_resource)
        )
    if profile.prompts:
        server.add_request_handler("prompts/list", types.PaginatedRequestParams, on_list_prompts)
        server.add_request_handler(
            "prompts/get", types.GetPromptRequestParams, served(on_get_prompt)
        )
    if profile.completes:
        server.add_request_handler(
            "completion/complete", types.CompleteRequestParams, served(on_completion)
        )


def add_logging(server: Server[Any], client_log: ClientLog) -> None:
    """``logging/setLevel``: from then on the server's log lines go to the client (over
    HTTP: those of its own session's requests, and the process's own).

    Registered as a request handler rather than the constructor's keyword, which
    warns that 2026-07-28 sessions drop the method; earlier sessions still use it.
    """

    async def on_set_logging_level(
        ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        client_log.set_level(ctx.session, params.level, conversation_of(ctx))
        return types.EmptyResult()

    server.add_request_handler(
        "logging/setLevel", types.SetLevelRequestParams, on_set_logging_level
    )


async def serve_stdio(profile: Profile, handlers: HandlerSet) -> None:
    from mcp.server.stdio import stdio_server

    from .stdio import loop_stdio

    client_log = ClientLog(logging.getLogger(__package__))
    server = build_server(profile, handlers, client_log=client_log)
    try:
        async with loop_stdio() as wire:
            if wire is not None:
                await server.run(*wire, server.create_initialization_options())
                return
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
    finally:
        with anyio.CancelScope(shield=True):
            await client_log.aclose()
        with anyio.CancelScope(shield=True):  # handlers may hold connections
            await handlers.aclose()
