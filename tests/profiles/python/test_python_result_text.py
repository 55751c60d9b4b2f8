"""What a model reads: the text content beside the structured result.

The python profile declares (contracts/python-profile.json) that a result
which only wraps one value, ``{"result": X}``, is sent as text as X itself, as
libtmux-mcp sends it: a string as it is, anything else as compact JSON. Every
other result, and every result of the other profiles, keeps the compact JSON
of the whole structured result. ``structuredContent`` is the contract's in
every case.

One tmux server and one python-profile server for the module: every call here
reads, and a test that types into a pane or splits one works in its own window.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp.types as types
import pytest

from scripts.lab.client import Client, contracts, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.wire import compact

pytestmark = pytest.mark.anyio


def only_text(result: types.CallToolResult) -> str:
    assert not result.is_error, result.content
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    return result.content[0].text


def wraps_result(contract: dict[str, Any]) -> bool:
    schema = contract["outputSchema"]
    return list(schema.get("properties", {})) == ["result"] and schema.get("required") == ["result"]


WRAPPED_INSPECT = sorted(
    name
    for name, contract in contracts("python").items()
    if wraps_result(contract) and contract["x-tmux-contract-mcp"]["toolset"] == "inspect"
)
ARGUMENTS: dict[str, dict[str, Any]] = {"display_message": {"format_string": "#{pane_id}"}}


def test_the_wrapped_inspect_tools_are_found_from_the_contracts() -> None:
    # The list the next test walks is derived, not written out: it must hold the
    # tools libtmux-mcp answers with a bare string or a bare array.
    assert {"capture_pane", "display_message", "list_panes", "list_sessions"} <= set(
        WRAPPED_INSPECT
    )
    assert {"list_windows", "list_servers"} <= set(WRAPPED_INSPECT)


@pytest.mark.parametrize("tool", WRAPPED_INSPECT)
async def test_a_wrapped_result_is_sent_as_its_value(python_client: Client, tool: str) -> None:
    result = await python_client.session.call_tool(tool, ARGUMENTS.get(tool, {}))
    text = only_text(result)
    assert result.structured_content is not None
    value = result.structured_content["result"]
    if isinstance(value, str):
        assert text == value
    else:
        assert text == compact(value)


async def test_capture_pane_text_is_the_screen_with_real_newlines(
    shared: TmuxServer, python_client: Client
) -> None:
    window = shared.new_window()
    pane = shared.active_pane(window)
    shared.wait_for_prompt(pane)
    shared.tmux(
        "send-keys", "-t", pane, 'for w in one \'two "q"\' three; do echo "$w"; done', "Enter"
    )
    deadline = anyio.current_time() + 10
    while True:
        result = await python_client.session.call_tool("capture_pane", {"pane_id": pane})
        if "three" in only_text(result).splitlines() or anyio.current_time() > deadline:
            break
        await anyio.sleep(0.05)
    text = only_text(result)
    assert result.structured_content == {"result": text}
    lines = text.splitlines()
    assert lines[lines.index("one") : lines.index("three") + 1] == ["one", 'two "q"', "three"]
    assert not text.startswith("{") and "\\n" not in text


async def test_list_panes_text_is_a_json_array_of_the_panes(
    shared: TmuxServer, python_client: Client
) -> None:
    window = shared.new_window()
    corners = shared.grid(window)
    window_id = shared.tmux("display-message", "-p", "-t", window, "#{window_id}").strip()
    result = await python_client.session.call_tool("list_panes", {"window_id": window_id})
    text = only_text(result)
    assert text.startswith("[")
    panes = json.loads(text)
    assert result.structured_content is not None
    assert panes == result.structured_content["result"]
    assert sorted(p["pane_id"] for p in panes) == sorted(corners.values())
    assert text == compact(panes)


async def test_a_result_that_is_not_a_wrapper_is_sent_as_its_compact_json(
    python_client: Client,
) -> None:
    result = await python_client.session.call_tool("get_pane_info", {})
    assert result.structured_content is not None and "pane_id" in result.structured_content
    assert only_text(result) == compact(result.structured_content)


async def test_batch_rows_carry_each_calls_own_text_and_the_batch_its_json(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.active_pane()
    operations = [
        {"tool": "capture_pane", "arguments": {"pane_id": pane}},
        {"tool": "list_panes"},
        {"tool": "get_pane_info", "arguments": {"pane_id": pane}},
    ]
    result = await python_client.session.call_tool(
        "call_read_tools_batch", {"operations": operations}
    )
    answer = result.structured_content
    assert answer is not None
    assert only_text(result) == compact(answer)
    capture, listing, info = answer["results"]
    assert capture["content"] == [{"type": "text", "text": capture["structured_content"]["result"]}]
    assert json.loads(listing["content"][0]["text"]) == listing["structured_content"]["result"]
    assert listing["content"][0]["text"].startswith("[")
    assert info["content"] == [{"type": "text", "text": compact(info["structured_content"])}]


async def test_other_profiles_keep_the_json_of_a_single_property_result(
    shared: TmuxServer,
) -> None:
    # swift's list_panes answers {"panes": [...]}: one required property, yet its
    # profile declares no unwrapping, so the text stays the whole result.
    async with open_in_process(shared.server_env(), "swift") as swift:
        result = await swift.session.call_tool("list_panes", {})
    assert result.structured_content is not None
    assert list(result.structured_content) == ["panes"]
    assert only_text(result) == compact(result.structured_content)
