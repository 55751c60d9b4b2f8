"""A tool result handed to the SDK as a dict is what the SDK makes of the model: the same
dump, and the same wire form once the SDK has checked it for each protocol version."""

from __future__ import annotations

from typing import Any

import mcp.types as types
import pytest
from mcp_types import methods
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

from tmux_contract_mcp.dispatch import error_result, success_result, wire_result
from tmux_contract_mcp.reply import compact_json

STRUCTURED: dict[str, Any] = {
    "result": [
        {"pane_id": "%1", "pane_title": "naïve ✓ \u2028", "pane_left": 0, "pane_at_top": True},
        {"pane_id": "%2", "pane_title": "", "pane_left": None, "ratio": 0.5, "deep": [[{}]]},
    ]
}

RESULTS: dict[str, types.CallToolResult] = {
    "structured": success_result(STRUCTURED),
    "structured with notes": success_result(STRUCTURED, "two panes", ("Pane %2 is dead.",)),
    "an error": error_result("pane_id: no pane %9 on socket s; list_panes shows the panes."),
    "text only": types.CallToolResult(content=[types.TextContent(type="text", text="ok")]),
    "an annotated block": types.CallToolResult(
        content=[
            types.TextContent(
                type="text", text="x", annotations=types.Annotations(audience=["user"])
            )
        ]
    ),
    "an image": types.CallToolResult(
        content=[types.ImageContent(type="image", data="AAAA", mime_type="image/png")]
    ),
    "a _meta": types.CallToolResult(
        content=[types.TextContent(type="text", text="x")], _meta={"k": "v"}
    ),
    "nothing": types.CallToolResult(content=[]),
}


def sdk_dump(result: types.CallToolResult) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


@pytest.mark.parametrize("name", RESULTS)
def test_wire_result_is_the_sdk_dump_of_the_model(name: str) -> None:
    result = RESULTS[name]
    assert wire_result(result) == sdk_dump(result)


@pytest.mark.parametrize("version", SUPPORTED_PROTOCOL_VERSIONS)
@pytest.mark.parametrize("name", RESULTS)
def test_wire_result_goes_on_the_wire_as_the_model_would(name: str, version: str) -> None:
    result = RESULTS[name]
    ours = methods.serialize_server_result("tools/call", version, wire_result(result))
    sdk = methods.serialize_server_result("tools/call", version, sdk_dump(result))
    assert compact_json(ours) == compact_json(sdk)


def test_wire_result_passes_the_structured_content_on_without_copying_it() -> None:
    result = success_result(STRUCTURED)
    assert wire_result(result)["structuredContent"] is result.structured_content
