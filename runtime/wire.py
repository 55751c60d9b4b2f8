"""What a response costs on the wire, measured the way the SDK writes it.

A tool that must keep its answer under a byte cap (the batch) needs the exact
size of the JSON-RPC line its result becomes: the request id, the per-version
shaping of the result and the server-info stamp of 2026-era protocols all
count. The call's ``Answering`` (``seam``) carries those facts for the request being
answered; this module replays the SDK's outbound steps (mcp 2.3: ``ServerRunner`` result
shaping, then the stdio writer) on a result.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
from mcp_types import SERVER_INFO_META_KEY, methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .seam import Answering

LINE_CAP = 1_000_000
"""The most bytes one response line may take, newline included."""


def _shaped(result: types.CallToolResult, out: Answering) -> dict[str, Any]:
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    version = out.protocol_version
    if version is None:
        return dumped
    dumped = methods.serialize_server_result("tools/call", version, dumped)
    if version in MODERN_PROTOCOL_VERSIONS:
        if dumped.get("resultType") is None:
            dumped["resultType"] = "complete"
        meta = dumped.get("_meta")
        if meta is None:
            dumped["_meta"] = {SERVER_INFO_META_KEY: out.server_info}
        elif isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None:
            dumped["_meta"] = {**meta, SERVER_INFO_META_KEY: out.server_info}
    return dumped


def response_line(result: types.CallToolResult, out: Answering) -> bytes:
    """The bytes the stdio transport writes for ``result``, newline included."""
    message = types.JSONRPCResponse(jsonrpc="2.0", id=out.request_id, result=_shaped(result, out))
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"


def response_line_bytes(result: types.CallToolResult, out: Answering) -> int:
    return len(response_line(result, out))


ESCAPE_FACTOR = 6
"""The most bytes JSON can spend on one byte of a string (``\\u001f``)."""


def line_bound(structured_bytes: int, text_bytes: int, out: Answering) -> int:
    """An upper bound on ``response_line_bytes`` for a result of these sizes.

    The structured content appears once as JSON and the text once as a JSON
    string; everything else is the envelope: the id, the version's shaping and
    the server-info stamp. When the bound is under the cap, nothing exact is needed.
    """
    # ASCII-only JSON spends at least as many bytes on a character as UTF-8 does.
    envelope = 512 + len(json.dumps(out.request_id)) + len(json.dumps(out.server_info))
    return envelope + structured_bytes + text_bytes * ESCAPE_FACTOR
