"""call_read_tools_batch (swift profile): validation, execution and the 1,000,000-byte cap.

Real tmux, the server built in process and reached by the SDK client; the bytes of the
answer line, read as raw JSON-RPC over the command's pipes, are tests/e2e/test_swift_batch.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import mcp.types as types
import pytest

from scripts.lab.client import Client, contracts, error_text, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import check_swift_answer as check_answer
from tests.helpers.batch import operation as op
from tests.helpers.batch import swift_failure as failure
from tests.helpers.tmux import wait_for

pytestmark = pytest.mark.anyio

BATCH = "call_read_tools_batch"
LINE_CAP = 1_000_000  # bytes of one response line, newline included
ERROR_CAP = 4096  # bytes of one row's error: "a few KB"
INSPECT_TOOLS = (
    "capture_pane",
    "capture_since",
    "find_pane_by_position",
    "get_pane_info",
    "get_server_info",
    "get_session_info",
    "get_tmux_variables",
    "get_window_info",
    "list_panes",
    "list_sessions",
    "list_windows",
    "search_panes",
    "show_environment",
    "show_hooks",
    "show_option",
    "snapshot_pane",
)


@pytest.fixture(scope="module")
def gridded() -> Iterator[TmuxServer]:
    """One tmux server for the module's refusals, its first window split into a 2x2 grid."""
    server = TmuxServer.start()
    try:
        server.grid()
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
async def gridded_client(gridded: TmuxServer) -> AsyncIterator[Client]:
    """One swift MCP server on ``gridded`` for every test that only checks refusals."""
    async with open_in_process(gridded.server_env(), "swift") as opened:
        yield opened


def envelope(result: types.CallToolResult) -> dict[str, Any]:
    """A direct call's result in the batch's row shape."""
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return {
        "content": [{"type": "text", "text": block.text}],
        "structuredContent": result.structured_content,
        "isError": bool(result.is_error),
    }


async def batch(
    client: Client, operations: list[dict[str, Any]], on_error: str | None = None
) -> dict[str, Any]:
    """Run a batch that must be accepted (isError false, whatever its rows say)."""
    arguments: dict[str, Any] = {"operations": operations}
    if on_error is not None:
        arguments["onError"] = on_error
    result = await client.session.call_tool(BATCH, arguments)
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    structured = dict(result.structured_content)
    check_answer(structured, operations, result.content[0].text)
    assert structured["onError"] == (on_error or "stop")
    return structured


async def rejected(client: Client, arguments: dict[str, Any]) -> str:
    """Send a batch that must be refused as a whole; return the message."""
    result = await client.session.call_tool(BATCH, arguments)
    assert result.is_error, result.structured_content
    assert not result.structured_content
    return error_text(result)


# --- 1. every inspect tool through the batch ------------------------------------------------


def every_inspect_tool(tmux: TmuxServer) -> list[dict[str, Any]]:
    grid = tmux.grid()
    tmux.tmux("new-session", "-d", "-s", "second", "-x", "120", "-y", "30")
    pane = grid["top-left"]
    window = tmux.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    tmux.tmux("respawn-pane", "-k", "-t", pane, "echo MARK-$((6*7)); exec sleep 100000")
    wait_for(tmux, pane, "MARK-42")
    return [
        op("capture_pane", {"paneId": pane}),
        op("capture_since", {"paneId": pane}),
        op("find_pane_by_position", {"corner": "bottom-right", "windowId": window}),
        op("get_pane_info", {"paneId": grid["top-right"]}),
        op("get_server_info"),
        op("get_session_info", {"session": "second"}),
        op("get_tmux_variables", {"names": ["pane_id", "session_name"], "paneId": pane}),
        op("get_window_info", {"windowId": window}),
        op("list_panes"),
        op("list_sessions"),
        op("list_windows", {"session": "main"}),
        op("search_panes", {"pattern": "MARK-42"}),
        op("show_environment", {"session": "main"}),
        op("show_hooks"),
        op("show_option", {"name": "history-limit"}),
        op("snapshot_pane", {"paneId": pane, "maxLines": 10}),
    ]


def without_cursor(row_result: dict[str, Any]) -> dict[str, Any]:
    """capture_since's cursor is sealed per call; everything else must match."""
    structured = dict(row_result["structuredContent"])
    structured.pop("cursor")
    text = json.loads(row_result["content"][0]["text"])
    text.pop("cursor")
    return {"structured": structured, "text": text, "isError": row_result["isError"]}


async def test_a_batch_of_all_16_inspect_tools_answers_what_each_tool_answers_alone(
    tmux: TmuxServer,
) -> None:
    operations = every_inspect_tool(tmux)
    branches = contracts("swift")[BATCH]["inputSchema"]["properties"]["operations"]["items"]
    served = {branch["properties"]["tool"]["const"] for branch in branches["oneOf"]}
    assert [o["tool"] for o in operations] == sorted(served) == list(INSPECT_TOOLS)

    async with open_in_process(tmux.server_env(), "swift") as client:
        answer = await batch(client, operations)
        assert answer["succeeded"] == 16
        assert answer["failed"] == 0
        assert answer["stoppedAt"] is None
        assert answer["truncated"] is False
        assert answer["truncatedBytes"] == 0
        assert len(answer["results"]) == 16
        for operation, row in zip(operations, answer["results"], strict=True):
            alone = await client.session.call_tool(
                operation["tool"], operation.get("arguments", {})
            )
            assert not alone.is_error, error_text(alone)
            assert row["success"] is True and row["error"] is None
            assert row["resultTruncated"] is False
            expected = envelope(alone)
            if operation["tool"] == "capture_since":
                assert without_cursor(row["result"]) == without_cursor(expected)
                assert row["result"]["structuredContent"]["cursor"]
            else:
                assert row["result"] == expected, operation["tool"]

    by_tool = {row["tool"]: row["result"]["structuredContent"] for row in answer["results"]}
    assert "MARK-42" in by_tool["capture_pane"]["lines"]
    assert any(m["text"] == "MARK-42" for m in by_tool["search_panes"]["matches"])
    assert by_tool["get_session_info"]["session"]["name"] == "second"
    assert by_tool["get_server_info"]["running"] is True


# --- 2. the whole call is validated before anything runs -----------------------------------

VALID = [op("list_sessions"), op("list_panes"), op("get_server_info")]

# (batch arguments, words the message must contain)
REJECTED: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "17 operations": (
        {"operations": [op("list_sessions")] * 17},
        ("`operations`", "maxItems 16"),
    ),
    "0 operations": ({"operations": []}, ("`operations`", "minItems 1")),
    "operations missing": ({}, ("`operations`", "required")),
    "unknown inner tool": (
        {"operations": [*VALID, {"tool": "nope"}]},
        ("`operations[3].tool`", "'nope'", "rule:"),
    ),
    "mutating inner tool": (
        {"operations": [*VALID, {"tool": "send_keys", "arguments": {"paneId": "%0"}}]},
        ("`operations[3].tool`", "'send_keys'", "rule:"),
    ),
    "extra key on an operation": (
        {"operations": [*VALID, {"tool": "list_sessions", "extra": 1}]},
        ("`extra`", "`operations[3]`", "additionalProperties"),
    ),
    "inner argument of the wrong type": (
        {
            "operations": [
                *VALID,
                {"tool": "capture_pane", "arguments": {"paneId": "%0", "maxLines": "many"}},
            ]
        },
        ("`operations[3].arguments.maxLines`", "'many'", "rule: type"),
    ),
    "inner argument of the wrong type, a later branch": (
        {"operations": [*VALID, op("snapshot_pane", {"paneId": "%0", "maxLines": 2.5})]},
        ("`operations[3].arguments.maxLines`", "rule: type"),
    ),
    "inner required field missing": (
        {"operations": [*VALID, op("get_pane_info", {})]},
        ("`operations[3].arguments.paneId`", "rule: required"),
    ),
    "inner argument out of bounds": (
        {"operations": [*VALID, op("capture_since", {"paneId": "%0", "waitMs": 10_001})]},
        ("`operations[3].arguments.waitMs`", "rule: maximum 10000"),
    ),
    "inner enum": (
        {"operations": [*VALID, op("show_option", {"name": "status", "scope": "all"})]},
        ("`operations[3].arguments.scope`", "'all'", "rule: enum"),
    ),
    "inner undeclared argument": (
        {"operations": [*VALID, op("list_sessions", {"all": True})]},
        ("`all`", "`operations[3].arguments`", "additionalProperties"),
    ),
    "inner format variable that would run a shell": (
        {"operations": [*VALID, op("get_tmux_variables", {"names": ["pane_id", "#(id)"]})]},
        ("`operations[3].arguments.names[1]`", "rule: pattern"),
    ),
    "onError outside the enum": (
        {"operations": VALID, "onError": "ignore"},
        ("`onError`", "'ignore'", "rule: enum"),
    ),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
async def test_an_invalid_batch_is_refused_whole_naming_path_and_rule_and_runs_nothing(
    gridded: TmuxServer, gridded_client: Client, case: str
) -> None:
    tmux, client = gridded, gridded_client
    arguments, words = REJECTED[case]
    before = tmux.state()
    mark = tmux.mark()
    message = await rejected(client, arguments)
    for word in words:
        assert word in message, (word, message)
    # The complaint is about the branch whose `tool` matched, not another branch's const.
    if "arguments" in words[0]:
        assert "is not valid under any of the given schemas" not in message
        assert "was expected" not in message
    tmux.assert_nothing_sent_since(mark)
    assert tmux.state() == before


# --- 3. an operation without arguments fails as a row -------------------------------------


async def test_an_operation_without_arguments_fails_as_one_row_when_its_tool_needs_some(
    gridded: TmuxServer, gridded_client: Client
) -> None:
    tmux, client = gridded, gridded_client
    mark = tmux.mark()
    answer = await batch(client, [op("get_pane_info")])
    assert answer["succeeded"] == 0 and answer["failed"] == 1
    assert answer["stoppedAt"] == 0  # the default onError is stop
    (row,) = answer["results"]
    assert row["success"] is False
    assert "paneId" in row["error"] and "required" in row["error"]
    assert row["result"] == failure(row["error"])
    assert row["result"]["isError"] is True and row["result"]["structuredContent"] is None
    assert row["resultTruncated"] is False
    tmux.assert_nothing_sent_since(mark)  # the nested call was refused before tmux


async def test_an_operation_without_arguments_runs_when_its_tool_needs_none(
    tmux: TmuxServer,
) -> None:
    async with open_in_process(tmux.server_env(), "swift") as client:
        answer = await batch(client, [op("list_sessions"), op("get_server_info")])
    assert answer["succeeded"] == 2
    names = [s["name"] for s in answer["results"][0]["result"]["structuredContent"]["sessions"]]
    assert names == ["main"]


# --- 4. onError: stop and continue ---------------------------------------------------------

MISSING_PANE = op("get_pane_info", {"paneId": "%999"})
HEAD = [op("list_sessions"), MISSING_PANE]
TAIL = [op("list_windows"), op("list_panes"), op("get_pane_info", {"paneId": "%0"})]


async def commands_for(
    tmux: TmuxServer, client: Client, operations: list[dict[str, Any]], on_error: str | None
) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """A batch's answer and every tmux command it sent (argv or control line)."""
    mark = tmux.mark()
    answer = await batch(client, operations, on_error)
    return answer, [sent.words for sent in tmux.sent_since(mark)]


@pytest.mark.parametrize("on_error", ["stop", None])
async def test_on_error_stop_ends_the_batch_at_the_first_failure(
    tmux: TmuxServer, on_error: str | None
) -> None:
    async with open_in_process(tmux.server_env(), "swift") as client:
        await batch(client, [op("list_sessions")])  # connect before counting
        _, head_commands = await commands_for(tmux, client, HEAD, "continue")
        answer, commands = await commands_for(tmux, client, HEAD + TAIL, on_error)
    assert head_commands
    assert answer["onError"] == "stop"
    assert answer["stoppedAt"] == 1
    assert [row["index"] for row in answer["results"]] == [0, 1]  # the failing row is included
    assert [row["success"] for row in answer["results"]] == [True, False]
    assert "%999" in answer["results"][1]["error"]
    assert answer["succeeded"] == 1 and answer["failed"] == 1
    # Later operations neither appear nor run: tmux ran what the first two need, no more.
    assert commands == head_commands


async def test_on_error_continue_runs_every_operation(tmux: TmuxServer) -> None:
    async with open_in_process(tmux.server_env(), "swift") as client:
        await batch(client, [op("list_sessions")])
        _, head_commands = await commands_for(tmux, client, HEAD, "continue")
        answer, commands = await commands_for(tmux, client, HEAD + TAIL, "continue")
    assert answer["stoppedAt"] is None
    assert [row["success"] for row in answer["results"]] == [True, False, True, True, True]
    assert answer["succeeded"] == 4 and answer["failed"] == 1
    # The first two rows send what they sent alone, and the later rows send more.
    assert commands[: len(head_commands)] == head_commands
    assert len(commands) > len(head_commands)
    panes = answer["results"][3]["result"]["structuredContent"]["panes"]
    assert [p["id"] for p in panes] == ["%0"]


async def test_a_batch_whose_every_row_failed_is_still_not_an_error(tmux: TmuxServer) -> None:
    operations = [
        MISSING_PANE,
        op("get_window_info", {"windowId": "@999"}),
        op("get_session_info", {"session": "no-such-session"}),
        op("get_tmux_variables", {"names": []}),  # the batch allows it; the tool does not
        op("capture_since", {"paneId": "%0", "cursor": "not-a-cursor"}),
    ]
    async with open_in_process(tmux.server_env(), "swift") as client:
        answer = await batch(client, operations, "continue")
        stopped = await batch(client, operations, "stop")
    assert answer["succeeded"] == 0 and answer["failed"] == 5
    assert len(answer["results"]) == 5
    assert answer["stoppedAt"] is None
    assert all(row["result"]["isError"] for row in answer["results"])
    assert stopped["stoppedAt"] == 0 and len(stopped["results"]) == 1


# --- 5. the 1,000,000-byte line: tests/e2e/test_swift_batch.py (it needs the command as a process)


# --- 6. x-libtmux-max-utf8-bytes through the batch -----------------------------------------


@pytest.mark.parametrize(
    "pattern",
    ["a" * 4096, "é" * 2048],
    ids=["4096 ASCII bytes", "2048 two-byte characters"],
)
async def test_a_search_pattern_of_4096_utf8_bytes_is_accepted(
    gridded_client: Client, pattern: str
) -> None:
    answer = await batch(gridded_client, [op("search_panes", {"pattern": pattern})])
    (row,) = answer["results"]
    assert row["success"] is True, row["error"]
    assert row["result"]["structuredContent"]["matches"] == []


@pytest.mark.parametrize(
    ("pattern", "size"),
    [("a" * 4097, 4097), ("é" * 2049, 4098), ("€" * 1366, 4098)],
    ids=["4097 ASCII bytes", "2049 two-byte characters", "1366 three-byte characters"],
)
async def test_a_search_pattern_over_4096_utf8_bytes_is_refused_before_anything_runs(
    gridded: TmuxServer, gridded_client: Client, pattern: str, size: int
) -> None:
    tmux, client = gridded, gridded_client
    mark = tmux.mark()
    message = await rejected(
        client,
        {"operations": [op("search_panes", {"pattern": pattern}), op("list_sessions")]},
    )
    assert "`operations[0].arguments.pattern`" in message
    assert "x-libtmux-max-utf8-bytes" in message
    assert str(size) in message
    tmux.assert_nothing_sent_since(mark)


# --- 7. nested errors are capped ------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_session_info", {"session": "x" * 100_000}),
        ("get_pane_info", {"paneId": "%" + "9" * 50_000}),
    ],
    ids=["long session name", "long pane id"],
)
async def test_a_nested_error_becomes_a_failed_row_with_a_capped_message(
    gridded_client: Client, tool: str, arguments: dict[str, Any]
) -> None:
    client = gridded_client
    alone = await client.session.call_tool(tool, arguments)
    answer = await batch(client, [op(tool, arguments), op("list_sessions")], "continue")
    assert alone.is_error
    full = error_text(alone)
    assert len(full.encode()) > ERROR_CAP  # the cap has something to cut
    first, second = answer["results"]
    assert first["success"] is False
    assert 0 < len(first["error"].encode()) <= ERROR_CAP
    assert first["error"][:60] == full[:60]  # the same message, cut
    assert first["result"] == failure(first["error"])
    assert second["success"] is True
    assert answer["succeeded"] == 1 and answer["failed"] == 1
