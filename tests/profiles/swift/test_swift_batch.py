"""call_read_tools_batch (swift profile): validation, execution and the 1,000,000-byte cap.

Real tmux, the real server over stdio: the SDK client where behaviour is the
point, raw JSON-RPC lines over plain pipes where the bytes on the wire are.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
import pytest

from scripts.lab.client import COMMAND, Client, contracts, error_text, open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import HISTORY_LINES, long_histories
from tests.helpers.batch import check_swift_answer as check_answer
from tests.helpers.batch import operation as op
from tests.helpers.batch import swift_failure as failure
from tests.helpers.tmux import wait_for
from tests.helpers.wire import HANDSHAKE, PER_REQUEST, RawServer, encoded_size

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

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
    async with open_client(gridded.server_env(), "swift") as opened:
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

    async with open_client(tmux.server_env(), "swift") as client:
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
    async with open_client(tmux.server_env(), "swift") as client:
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
    async with open_client(tmux.server_env(), "swift") as client:
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
    async with open_client(tmux.server_env(), "swift") as client:
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
    async with open_client(tmux.server_env(), "swift") as client:
        answer = await batch(client, operations, "continue")
        stopped = await batch(client, operations, "stop")
    assert answer["succeeded"] == 0 and answer["failed"] == 5
    assert len(answer["results"]) == 5
    assert answer["stoppedAt"] is None
    assert all(row["result"]["isError"] for row in answer["results"])
    assert stopped["stoppedAt"] == 0 and len(stopped["results"]) == 1


# --- 5. the 1,000,000-byte line -------------------------------------------------------------


@asynccontextmanager
async def raw_server(tmux: TmuxServer, protocol: str = HANDSHAKE) -> AsyncIterator[RawServer]:
    command = [COMMAND, "--profile", "swift"]
    async with await anyio.open_process(
        command, env=tmux.server_env(), stderr=subprocess.DEVNULL
    ) as process:
        server = RawServer(process, protocol)
        if protocol == HANDSHAKE:
            _, hello = await server.request(
                0,
                "initialize",
                {
                    "protocolVersion": HANDSHAKE,
                    "capabilities": {},
                    "clientInfo": {"name": "tests", "version": "0"},
                },
            )
            assert hello["result"]["protocolVersion"] == HANDSHAKE, hello
            await server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        else:
            _, hello = await server.request(0, "server/discover", {})
            assert PER_REQUEST in hello["result"]["supportedVersions"], hello
        yield server


def capture(pane: str, max_lines: int) -> dict[str, Any]:
    return op(
        "capture_pane", {"paneId": pane, "start": -5000, "maxLines": max_lines, "joinWrapped": True}
    )


def oversized(panes: list[str]) -> list[dict[str, Any]]:
    """4 small captures, 11 of ~1 MB each, and a failure last: far more than one line holds."""
    small = [capture(pane, 100) for pane in panes[:4]]
    large = [capture(panes[i % len(panes)], HISTORY_LINES) for i in range(11)]
    return [*small, *large, MISSING_PANE]


async def expected_results(
    server: RawServer, operations: list[dict[str, Any]], rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each operation's result as its tool answers it alone (failures: the row's own error)."""
    alone: dict[str, dict[str, Any]] = {}
    found = []
    for operation, row in zip(operations, rows, strict=True):
        if not row["success"]:
            found.append(failure(row["error"]))
            continue
        key = json.dumps(operation, sort_keys=True)
        if key not in alone:
            _, result = await server.call(
                f"alone-{len(alone)}", operation["tool"], operation["arguments"]
            )
            assert not result.get("isError"), result["content"]
            alone[key] = {
                "content": result["content"],
                "structuredContent": result["structuredContent"],
                "isError": False,
            }
        found.append(alone[key])
    return found


async def test_an_oversized_batch_elides_results_newest_first_into_one_line_under_the_cap(
    tmux: TmuxServer,
) -> None:
    panes = long_histories(tmux)
    operations = oversized(panes)
    async with raw_server(tmux) as server:
        raw, result = await server.call(1, BATCH, {"operations": operations, "onError": "continue"})
        answer = result["structuredContent"]
        check_answer(answer, operations, result["content"][0]["text"])
        rows = answer["results"]
        expected = await expected_results(server, operations, rows)

    assert raw.count(b"\n") == 1 and raw.endswith(b"\n")
    assert len(raw) <= LINE_CAP
    assert result.get("isError", False) is False
    # Every executed operation stays visible, and the counts ignore truncation.
    assert [row["index"] for row in rows] == list(range(16))
    assert answer["succeeded"] == 15 and answer["failed"] == 1
    assert answer["stoppedAt"] is None
    assert rows[15]["success"] is False and "%999" in rows[15]["error"]
    # Newest first: a prefix keeps its results (the four small ones), the rest are null.
    assert [row["result"] is not None for row in rows] == [True] * 4 + [False] * 12
    assert all(row["resultTruncated"] for row in rows[4:])
    assert answer["truncated"] is True
    for row, own in zip(rows[:4], expected[:4], strict=True):
        assert row["result"] == own  # a kept row carries the full nested envelope
        assert len(own["structuredContent"]["lines"]) == 100
    assert all(encoded_size(own["structuredContent"]) > 800_000 for own in expected[4:15])
    # truncatedBytes: each elided result's encoded size, minus the 4 bytes of `null`.
    elided = sum(encoded_size(own) - len("null") for own in expected[4:])
    assert answer["truncatedBytes"] == elided
    assert len(raw) + elided > LINE_CAP  # they really would not have fit


@pytest.mark.parametrize("protocol", [HANDSHAKE, PER_REQUEST])
async def test_the_cap_counts_the_request_id_and_the_newline_to_the_byte(
    tmux: TmuxServer, protocol: str
) -> None:
    """A line of exactly 1,000,000 bytes is sent whole; one byte more costs a result.

    Whatever the protocol era adds to the envelope (``resultType``, a ``_meta``
    stamp) is part of the line the cap is about.
    """
    panes = long_histories(tmux)
    operations = oversized(panes)
    arguments = {"operations": operations, "onError": "continue"}
    async with raw_server(tmux, protocol) as server:
        short, first = await server.call("a", BATCH, arguments)
        whole = first["structuredContent"]
        assert [row["result"] is not None for row in whole["results"]] == [True] * 4 + [False] * 12
        # An id of n characters costs n + 2 bytes where "a" cost 3: this one fills the line exactly.
        exact_id = "a" * (LINE_CAP + 1 - len(short))
        answers = {}
        for extra in (0, 1, 50):
            request_id = exact_id + "a" * extra
            answers[extra] = await server.call(request_id, BATCH, arguments)
            assert json.loads(answers[extra][0])["id"] == request_id

    dropped = whole["results"][3]["result"]
    for extra in (1, 50):
        over, past_cap = answers[extra]
        assert len(over) <= LINE_CAP, f"id {extra} byte(s) past the exact fit: {len(over)} bytes"
        answer = past_cap["structuredContent"]
        rows = answer["results"]
        assert [row["result"] is not None for row in rows] == [True] * 3 + [False] * 13
        assert answer["truncatedBytes"] == (
            whole["truncatedBytes"] + encoded_size(dropped) - len("null")
        )
        assert answer["succeeded"] == 15 and answer["failed"] == 1
        check_answer(answer, operations, past_cap["content"][0]["text"])

    exact, at_cap = answers[0]
    assert len(exact) == LINE_CAP, "a line of exactly the cap fits: nothing needed eliding"
    assert at_cap["structuredContent"] == whole


async def test_a_160000_byte_request_id_costs_results_not_the_line_cap(
    tmux: TmuxServer,
) -> None:
    panes = long_histories(tmux)
    # ~125 KB each: seven fit under the running budget with a short id.
    operations = [capture(panes[i % len(panes)], 120) for i in range(15)] + [MISSING_PANE]
    arguments = {"operations": operations, "onError": "continue"}
    request_id = "i" * 160_000
    async with raw_server(tmux) as server:
        _, short = await server.call(1, BATCH, arguments)
        raw, result = await server.call(request_id, BATCH, arguments)

    assert len(raw) <= LINE_CAP
    assert json.loads(raw)["id"] == request_id
    answer = result["structuredContent"]
    check_answer(answer, operations, result["content"][0]["text"])
    whole = short["structuredContent"]
    kept = sum(1 for row in whole["results"] if row["result"] is not None)
    assert kept == 7
    # The id's 160,000 bytes cost exactly one more result, the newest kept one.
    assert [row["result"] is not None for row in answer["results"]] == [True] * 6 + [False] * 10
    dropped = whole["results"][6]["result"]
    assert len(raw) + encoded_size(dropped) > LINE_CAP  # it really did not fit
    assert answer["truncatedBytes"] == whole["truncatedBytes"] + encoded_size(dropped) - 4
    # Every row's metadata stays, and the counts do not move.
    assert [(r["index"], r["tool"], r["success"]) for r in answer["results"]] == [
        (r["index"], r["tool"], r["success"]) for r in whole["results"]
    ]
    assert answer["succeeded"] == whole["succeeded"] == 15
    assert answer["failed"] == whole["failed"] == 1


async def test_a_request_id_that_leaves_no_room_gets_a_json_rpc_error_and_the_server_lives_on(
    tmux: TmuxServer,
) -> None:
    operations = [op("get_session_info", {"session": "s" * 5000}) for _ in range(16)]
    arguments = {"operations": operations, "onError": "continue"}
    async with raw_server(tmux) as server:
        # Room for the rows once their errors are cut short: the answer still reports them.
        tight_id = "t" * 950_000
        raw, result = await server.call(tight_id, BATCH, arguments)
        assert len(raw) <= LINE_CAP
        answer = result["structuredContent"]
        check_answer(answer, operations, result["content"][0]["text"])
        assert answer["failed"] == 16 and len(answer["results"]) == 16
        assert all(row["error"] and row["result"] is None for row in answer["results"])

        # No room even for the metadata: a JSON-RPC error with the id, not a crash.
        hopeless_id = "h" * 999_000
        await server.send(
            {
                "jsonrpc": "2.0",
                "id": hopeless_id,
                "method": "tools/call",
                "params": {"name": BATCH, "arguments": arguments},
            }
        )
        refused = await server.line()
        message = json.loads(refused)
        assert message["id"] == hopeless_id
        assert "error" in message and "result" not in message
        assert "16 operations" in message["error"]["message"]
        assert len(refused) <= LINE_CAP

        _, after = await server.call(2, BATCH, {"operations": [op("list_sessions")]})
        assert after["structuredContent"]["succeeded"] == 1


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
