"""One tool call: validate against the contract, run the handler, check the result.

No tmux command can run before the arguments have passed ``check_arguments``
(the text rule, the contract's JSON Schema, the strict generated model), and
no result is sent that the output schema refuses. Every failure becomes a
tool result with ``isError: true`` so the agent sees it; nothing escapes as a
protocol error except an unknown tool.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import mcp.types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from .arguments import check_arguments
from .errors import ToolError, envelope_data
from .handlers import services
from .handlers.services import ArgumentsRefused
from .handlers.tmux.transport.hosts import Hosts
from .profiles import Profile, Tool
from .reply import Reply, compact_json
from .seam import Answering, Call, HandlerSet
from .wire import ESCAPE_FACTOR, LINE_CAP, line_bound, response_line_bytes

log = logging.getLogger(__name__)


def error_result(
    message: str, tool: Tool | None = None, kind: str = "other"
) -> types.CallToolResult:
    """A failed call as sent: the message, or, for a profile whose error text is the
    envelope, ``{"message", "data": {"kind", "retryable", "stale"}}`` as compact JSON."""
    text = message
    if tool is not None and tool.error_text == "envelope":
        text = compact_json({"message": message, "data": envelope_data(kind)})
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def structured_text(structured: dict[str, Any], key: str | None = None) -> str:
    """The text beside a structured result: the value of ``key`` when the result only wraps
    it (a string as it is, anything else as compact JSON), else the result's compact JSON."""
    if key is None:
        return compact_json(structured)
    value = structured[key]
    return value if isinstance(value, str) else compact_json(value)


def success_result(
    structured: dict[str, Any], text: str | None = None, notes: tuple[str, ...] = ()
) -> types.CallToolResult:
    """The result as sent: structured content, and as text its JSON unless a text is given,
    then one more text block per note."""
    if text is None:
        text = compact_json(structured)
    blocks = [types.TextContent(type="text", text=block) for block in (text, *notes)]
    return types.CallToolResult(content=list(blocks), structured_content=structured)


def wire_result(result: types.CallToolResult) -> dict[str, Any]:
    """``result`` as the SDK dumps a handler's model (by alias, as JSON, without ``None``),
    but for the structured content, which is JSON already (``checked_result`` dumped it from
    the output model) and goes in as it is: dumped again, every field of a 200-pane list
    would be walked once more for nothing. The SDK still checks the result against the
    protocol version's own type, and writes the wire form from that check."""
    dumped = result.model_dump(
        by_alias=True, mode="json", exclude_none=True, exclude={"structured_content"}
    )
    if result.structured_content is not None:
        dumped["structuredContent"] = result.structured_content
    return dumped


async def call_tool(
    tool: Tool, handlers: HandlerSet, call: Call, arguments: Mapping[str, Any] | None
) -> types.CallToolResult:
    """One call, top-down: check the arguments, run the handler, check the result, reply.

    Logged for a client that asked for the server's log (logging/setLevel): errors at
    info, every answer's time at debug.
    """
    started = time.perf_counter()
    try:
        params = check_arguments(tool, arguments)
    except ArgumentsRefused as exc:
        result = error_result(exc.message, tool, "invalid_input")
    else:
        result = await run_checked(tool, handlers, call, params)
    if log.isEnabledFor(logging.INFO):
        _log_answer(tool, result, started)
    return result


async def run_checked(
    tool: Tool, handlers: HandlerSet, call: Call, params: BaseModel
) -> types.CallToolResult:
    """Run a call whose arguments ``check_arguments`` admitted, check what it answers, and
    reply; a batch runs its admitted operations through here too. A tool carrying a guard
    (a configuration file's scope or audit log) runs through it (``guard.Guard.run``)."""
    if tool.guard is not None:
        return await tool.guard.run(
            tool, handlers, call, params, lambda: _run(tool, handlers, call, params)
        )
    return await _run(tool, handlers, call, params)


async def _run(
    tool: Tool, handlers: HandlerSet, call: Call, params: BaseModel
) -> types.CallToolResult:
    try:
        output = await handlers.tool(tool.entry.method)(call, params)
    except ToolError as exc:
        return error_result(exc.message, tool, exc.kind)
    except MCPError:  # a handler's deliberate protocol-level answer
        raise
    except Exception as exc:  # a bug: tell the agent, keep the server up
        log.exception("%s failed", tool.entry.name)
        return error_result(
            f"{tool.entry.name} failed inside the server ({type(exc).__name__}: {exc}).", tool
        )
    try:
        structured, text = checked_result(tool, output)
    except BrokenResult as exc:
        return error_result(str(exc), tool)
    return success_result(structured, text, output.notes if isinstance(output, Reply) else ())


class BrokenResult(Exception):
    """A handler's answer the contract refuses: a server bug, never sent."""


def checked_result(tool: Tool, output: object) -> tuple[dict[str, Any], str]:
    """The structured result and its text, once the output model and schema admit them."""
    name = tool.entry.name
    text: str | None = None
    if isinstance(output, Reply):
        text = output.text
        output = output.model
    if not isinstance(output, BaseModel) or not isinstance(output, tool.output_model):
        log.error("%s returned %r, not %s", name, type(output), tool.entry.output_model)
        raise BrokenResult(f"{name} produced a result of the wrong type; this is a server bug.")
    structured = output.model_dump(mode="json", by_alias=True)
    if not tool.checks.output.accepts(structured):
        broken = tool.checks.output.problems(structured)
        log.error("%s result breaks its output schema: %s", name, broken)
        raise BrokenResult(
            f"{name} produced a result that breaks its output schema ({'; '.join(broken)}); "
            "this is a server bug."
        )
    if text is None:  # a handler's own text (a Reply) wins over the profile's rule
        text = structured_text(structured, tool.text_key)
    return structured, text


def _log_answer(tool: Tool, result: types.CallToolResult, started: float) -> None:
    if result.is_error:
        text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
        log.info("%s answered with an error: %s", tool.entry.name, text)
    else:
        elapsed = (time.perf_counter() - started) * 1000
        log.debug("%s answered in %.1f ms", tool.entry.name, elapsed)


class ServedRuntime:
    """``handlers.services.Runtime`` over the one profile this process serves.

    Nested calls see the tools as served (a tool the toolset choice hides is
    unknown to them too) and go through this module's dispatch with the
    handlers ``serve`` binds, so a nested call and a direct call are one thing.
    """

    line_cap = LINE_CAP
    escape_factor = ESCAPE_FACTOR

    def __init__(self, served: Profile, hosts: Hosts | None = None) -> None:
        self.served = served
        self.hosts = hosts if hosts is not None else Hosts()
        self._handlers: HandlerSet | None = None

    def show(self, served: Profile) -> None:
        """Serve ``served`` instead: the tool list as fixed at startup (``served_after_startup``)."""
        self.served = served

    def serve(self, handlers: HandlerSet) -> None:
        """Bind the handler object nested calls run on (created after this runtime)."""
        self._handlers = handlers

    @property
    def profile(self) -> str:
        return self.served.name

    def tool(self, name: str) -> services.ServedTool | None:
        tool = self.served.tool(name)
        if tool is None:
            return None
        return services.ServedTool(
            tool.entry.name, tool.entry.toolset, tool.entry.tags, tool.contract
        )

    def check_arguments(
        self, name: str, arguments: Mapping[str, Any] | None, at: Sequence[str | int] = ()
    ) -> BaseModel:
        return check_arguments(self._served_tool(name), arguments, at)

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, call: Call
    ) -> types.CallToolResult:
        return await call_tool(self._served_tool(name), self._bound(), call, arguments)

    async def run_checked(self, name: str, params: BaseModel, call: Call) -> types.CallToolResult:
        return await run_checked(self._served_tool(name), self._bound(), call, params)

    def result_bytes(
        self, structured: dict[str, Any], text: str | None, answering: Answering
    ) -> int:
        return response_line_bytes(success_result(structured, text), answering)

    def line_bound(self, structured_bytes: int, text_bytes: int, answering: Answering) -> int:
        return line_bound(structured_bytes, text_bytes, answering)

    def _served_tool(self, name: str) -> Tool:
        tool = self.served.tool(name)
        if tool is None:  # callers look names up first (``tool``)
            raise LookupError(f"{name} is not served by the {self.served.name} profile")
        return tool

    def _bound(self) -> HandlerSet:
        if self._handlers is None:
            raise RuntimeError("nested call before the handlers were bound (ServedRuntime.serve)")
        return self._handlers
