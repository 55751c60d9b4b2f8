"""What a response costs on the wire, measured the way the stdio transport writes it.

A tool that must keep its answer under a byte cap (the batch) needs the exact
size of the JSON-RPC line its result becomes, request id included. The server
records the id of the request being answered; this module serialises a result
exactly as the SDK's stdio writer does.
"""

from __future__ import annotations

import contextvars

import mcp.types as types

LINE_CAP = 1_000_000
"""The most bytes one response line may take, newline included."""

request_id: contextvars.ContextVar[types.RequestId | None] = contextvars.ContextVar(
    "request_id", default=None
)


def response_line(result: types.CallToolResult, rid: types.RequestId | None = None) -> bytes:
    """The bytes the stdio transport writes for ``result``, newline included."""
    body = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    if rid is None:
        rid = request_id.get()
    message = types.JSONRPCResponse(jsonrpc="2.0", id=0 if rid is None else rid, result=body)
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"


def response_line_bytes(result: types.CallToolResult) -> int:
    return len(response_line(result))


def overhead_bytes() -> int:
    """Bytes of the line that do not depend on the result: the envelope and the request id."""
    empty = types.CallToolResult(content=[])
    return len(response_line(empty))
