"""What runs around every request before the SDK's own steps: fixed lists and tracing.

The lists a client asks for first and again (tools, resources, resource templates,
prompts) cannot change while this process runs: the tool selection is fixed at startup.
The SDK would rebuild each answer on every request, dumping ~100 KB of models and then
checking the dump against the protocol version's own result type (about 15 ms for the
python profile's tools). ``FixedLists`` lets the first request of each protocol version
go the SDK's whole way, keeps the wire dict that came back, and answers the same request
with it from then on. A handshake-era connection that has not been initialized still goes
the whole way, so the SDK's gate still refuses it; a 2026-07-28 request has no handshake.

The SDK wraps every request in an OpenTelemetry span. With no tracer provider set (the
API's proxy, which makes no-op spans) that costs each call for nothing, so the span's
middleware stays only when a real provider is configured at startup (for example by
``opentelemetry-instrument``).
"""

from __future__ import annotations

from typing import Any

from mcp.server import Server
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from opentelemetry import trace

FIXED = frozenset({"tools/list", "resources/list", "resources/templates/list", "prompts/list"})


class FixedLists:
    """Answers a list request with the wire dict the SDK made for it the first time."""

    def __init__(self) -> None:
        self._answers: dict[tuple[str, str], dict[str, Any]] = {}

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method not in FIXED or _paged(ctx.params):
            return await call_next(ctx)
        key = (ctx.method, ctx.protocol_version)
        answer = self._answers.get(key)
        if answer is not None and _past_the_gate(ctx):
            return answer
        result = await call_next(ctx)
        if isinstance(result, dict):
            self._answers.setdefault(key, result)
        return result


def _past_the_gate(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the SDK would serve this request at all: a 2026-07-28 request always, a
    handshake-era one once its connection is initialized."""
    version = ctx.protocol_version
    return version in MODERN_PROTOCOL_VERSIONS or ctx.session.client_params is not None


def _paged(params: Any) -> bool:
    """A request for a later page (a cursor): this server has one page, but such a
    request is the SDK's to answer."""
    return isinstance(params, dict) and params.get("cursor") is not None


def tracing_configured() -> bool:
    """Whether a real tracer provider was set (not the API's no-op proxy)."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def install(server: Server[Any]) -> None:
    """The middleware this server runs: fixed lists, and tracing only when configured."""
    kept = [m for m in server.middleware if not isinstance(m, OpenTelemetryMiddleware)]
    if tracing_configured():
        kept = list(server.middleware)
    server.middleware = [*kept, FixedLists()]
