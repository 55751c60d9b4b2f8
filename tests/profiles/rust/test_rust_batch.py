"""call_read_tools_batch in the rust profile: rows carrying each nested call's whole result,
on_error, refusals before anything runs, tools not served, and the response size bound.

The nested tools called here: capture_pane, get_tmux_variables, search_panes, show_hooks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import LONG_VALUE as LONG
from tests.helpers.tmux import printed
from tests.helpers.wire import compact

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def without_hooks(shared: TmuxServer) -> AsyncIterator[Client]:
    """A rust server whose selection leaves show_hooks out."""
    env = shared.server_env(LIBTMUX_TOOLSETS="inspect", LIBTMUX_EXCLUDE_TOOLS="show_hooks")
    async with open_in_process(env, "rust") as opened:
        yield opened


async def batch(client: Client, operations: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return await client.ok("call_read_tools_batch", {"operations": operations, **extra})


async def test_rows_carry_each_nested_call_whole_result_as_a_direct_call_answers(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "seq 3")
    shared.tmux("set-hook", "-g", "after-new-window[5]", "display-message batch")
    operations: list[dict[str, Any]] = [
        {"tool": "get_tmux_variables", "arguments": {"names": ["pane_id"], "pane": pane}},
        {"tool": "capture_pane", "arguments": {"pane": pane}},
        {"tool": "show_hooks"},
    ]
    got = await batch(rust_client, operations)
    counts = (got["succeeded"], got["failed"], got["stoppedAt"], got["onError"])
    assert counts == (3, 0, None, "stop")
    assert (got["truncated"], got["truncatedBytes"]) == (False, 0)
    for index, (operation, row) in enumerate(zip(operations, got["results"], strict=True)):
        direct = await rust_client.ok(operation["tool"], operation.get("arguments", {}))
        assert row == {
            "index": index,
            "tool": operation["tool"],
            "success": True,
            "resultTruncated": False,
            "result": {
                "content": [{"type": "text", "text": compact(direct)}],
                "structuredContent": direct,
                "isError": False,
            },
            "error": None,
        }


async def test_stop_ends_at_the_first_failed_row_and_continue_runs_every_row(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "true")
    operations = [
        {"tool": "capture_pane", "arguments": {"pane": "%9999"}},
        {"tool": "search_panes", "arguments": {"pattern": "(?=x)", "regex": True}},
        {"tool": "capture_pane", "arguments": {"pane": pane}},
    ]
    stopped = await batch(rust_client, operations)
    assert [r["index"] for r in stopped["results"]] == [0] and stopped["stoppedAt"] == 0
    row = stopped["results"][0]
    assert row["success"] is False and row["error"] is None and row["result"]["isError"] is True
    sent = json.loads(row["result"]["content"][0]["text"])
    assert sent["data"]["kind"] == "object_gone" and "%9999" in sent["message"]
    went_on = await batch(rust_client, operations, on_error="continue")
    assert [r["success"] for r in went_on["results"]] == [False, False, True]
    assert (went_on["succeeded"], went_on["failed"], went_on["stoppedAt"]) == (1, 2, None)
    refused = json.loads(went_on["results"][1]["result"]["content"][0]["text"])
    assert refused["data"]["kind"] == "invalid_input" and "look-ahead" in refused["message"]


@pytest.mark.parametrize(
    "operations",
    [
        [{"tool": "show_hooks"}, {"tool": "capture_pane", "arguments": {"pane": 3}}],
        [{"tool": "show_hooks"}, {"tool": "capture_pane"}],
        [{"tool": "show_hooks"}, {"tool": "get_tmux_variables", "arguments": {"names": ["a b"]}}],
        [{"tool": "wait_for_text", "arguments": {"pane": "%0"}}],
        [{"tool": "show_hooks"}] * 17,
        [],
    ],
)
async def test_arguments_a_direct_call_refuses_refuse_the_batch_before_anything_runs(
    shared: TmuxServer, rust_client: Client, operations: list[dict[str, Any]]
) -> None:
    mark = shared.mark()
    text = await rust_client.error("call_read_tools_batch", {"operations": operations})
    sent = json.loads(text)
    assert sent["data"]["kind"] == "invalid_input" and "operations" in sent["message"]
    shared.assert_nothing_sent_since(mark)


async def test_a_tool_not_served_is_a_failed_row_carrying_a_json_rpc_error(
    shared: TmuxServer, without_hooks: Client
) -> None:
    operations: list[dict[str, Any]] = [
        {"tool": "show_hooks"},
        {"tool": "get_tmux_variables", "arguments": {"names": ["pid"]}},
    ]
    got = await batch(without_hooks, operations, on_error="continue")
    row = got["results"][0]
    assert (row["success"], row["result"], row["resultTruncated"]) == (False, None, False)
    assert row["error"]["code"] == -32602 and "show_hooks" in row["error"]["message"]
    assert row["error"]["data"] == {"kind": "invalid_input", "retryable": False, "stale": False}
    assert got["results"][1]["success"] is True and got["failed"] == 1


async def test_results_are_left_out_lowest_index_first_so_the_response_fits(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, f"yes {LONG} | head -n 2500")
    capture = {"tool": "capture_pane", "arguments": {"pane": pane, "start": -600, "end": -1}}
    result = await rust_client.call("call_read_tools_batch", {"operations": [capture] * 5})
    assert not result.is_error
    got = result.structured_content
    assert got is not None
    rows = got["results"]
    left_out = [row["resultTruncated"] for row in rows]
    assert left_out == sorted(left_out, reverse=True) and True in left_out and False in left_out
    assert all(row["success"] and row["error"] is None for row in rows)
    assert all((row["result"] is None) == row["resultTruncated"] for row in rows)
    assert got["truncated"] is True and got["succeeded"] == 5
    kept = next(row["result"] for row in rows if not row["resultTruncated"])
    part = len(compact(kept).encode()) - len("null")
    assert got["truncatedBytes"] == part * left_out.count(True)
    line = compact({"jsonrpc": "2.0", "id": 1, "result": result.model_dump(by_alias=True, exclude_none=True)})  # fmt: skip
    assert len(line.encode()) < 1_000_000
