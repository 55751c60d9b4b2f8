"""call_read_tools_batch (python profile): rows, on_error, refusals and the 1,000,000-byte cap.

Real tmux, the server built in process and reached by the SDK client; the bytes of the
answer line, read as raw JSON-RPC over the command's pipes, are tests/e2e/test_python_batch.py.
Every batch only reads, so each later section shares one tmux server and one
server for the module (each test's answers are its own); the first section, which
sets up a rich state, has its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import mcp.types as types
import pytest

from scripts.lab.client import Client, contracts, error_text, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import check_python_batch_answer as check_answer
from tests.helpers.batch import operation as op
from tests.helpers.tmux import wait_for

pytestmark = pytest.mark.anyio

BATCH = "call_read_tools_batch"
LINE_CAP = 1_000_000  # bytes of one response line, newline included
NOT_IN_A_BATCH = {BATCH, "wait_for_text"}  # the batch itself and the self-bounded wait
BUFFER = "batch-buffer"
BUFFER_TEXT = "first buffer line\nsecond buffer line"
HOOK = "after-new-window"


def direct(result: types.CallToolResult) -> dict[str, Any]:
    """A direct call's result in the row's shape (content blocks and structured result)."""
    return {
        "content": [
            {"type": "text", "text": block.text}
            for block in result.content
            if isinstance(block, types.TextContent)
        ],
        "structured_content": None if result.is_error else result.structured_content,
    }


async def batch(
    client: Client, operations: list[dict[str, Any]], on_error: str | None = None
) -> dict[str, Any]:
    """Run a batch that must be accepted (isError false, whatever its rows say).

    ``Client.call`` checks the answer against the advertised output schema and
    that the text content is the JSON of the structured answer.
    """
    arguments: dict[str, Any] = {"operations": operations}
    if on_error is not None:
        arguments["on_error"] = on_error
    started = time.monotonic()
    answer = await client.ok(BATCH, arguments)
    check_answer(answer, operations, time.monotonic() - started)
    return answer


# --- 1. every other inspect tool through the batch ------------------------------------------


def every_inspect_tool(tmux: TmuxServer) -> list[dict[str, Any]]:
    grid = tmux.grid()
    tmux.tmux("new-session", "-d", "-s", "second", "-x", "120", "-y", "30")
    pane = grid["top-left"]
    window = tmux.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    tmux.tmux("respawn-pane", "-k", "-t", pane, "echo MARK-$((6*7)); exec sleep 100000")
    wait_for(tmux, pane, "MARK-42")
    tmux.tmux("set-buffer", "-b", BUFFER, BUFFER_TEXT)
    tmux.tmux("set-hook", "-g", HOOK, "display-message batch-hook")
    tmux.tmux("set-environment", "-t", "main", "BATCH_VARIABLE", "batch-value")
    return [
        op("list_servers"),
        op("get_server_info"),
        op("list_sessions"),  # no `arguments` at all
        op("get_session_info", {"session_name": "second"}),
        op("list_windows", {"session_name": "main"}),
        op("get_window_info", {"window_id": window}),
        op("list_panes", {"window_id": window}),
        op("get_pane_info", {"pane_id": grid["top-right"]}),
        op("capture_pane", {"pane_id": pane}),
        op("capture_since", {"pane_id": pane}),
        op("find_pane_by_position", {"corner": "bottom-right", "window_id": window}),
        op("search_panes", {"pattern": "MARK-42"}),
        op("snapshot_pane", {"pane_id": pane, "max_lines": 10}),
        op("display_message", {"format_string": "#{session_name}:#{pane_id}", "pane_id": pane}),
        op("show_option", {"option": "history-limit", "global_": True}),
        op("show_environment", {"session_name": "main"}),
        op("show_buffer", {"buffer_name": BUFFER}),
        op("show_hooks", {"global_": True}),
        op("show_hook", {"hook_name": HOOK, "global_": True}),
    ]


def stable(tool: str, result: dict[str, Any]) -> dict[str, Any]:
    """A row's result without what legitimately differs between two calls."""
    if tool != "capture_since":
        return result
    # The cursor is opaque and may be sealed per call; the rows read must match.
    structured = dict(result["structured_content"])
    assert structured.pop("cursor")
    content = []
    for block in result["content"]:
        try:
            text = json.loads(block["text"])
        except json.JSONDecodeError:
            content.append(block)
            continue
        if isinstance(text, dict):
            text.pop("cursor", None)
        content.append({"type": block["type"], "text": text})
    return {"content": content, "structured_content": structured}


async def test_a_batch_of_every_other_inspect_tool_answers_what_each_tool_answers_alone(
    tmux: TmuxServer,
) -> None:
    operations = every_inspect_tool(tmux)
    inspect = {
        name
        for name, contract in contracts("python").items()
        if contract["x-tmux-contract-mcp"]["toolset"] == "inspect"
    }
    assert sorted(o["tool"] for o in operations) == sorted(inspect - NOT_IN_A_BATCH)
    assert len(operations) == 19

    async with open_in_process(tmux.server_env(), "python") as client:
        answer = await batch(client, operations)
        assert answer["succeeded"] == 19, [r["error"] for r in answer["results"] if r["error"]]
        assert answer["failed"] == 0
        assert answer["stopped_at"] is None
        assert answer["response_truncated"] is False
        assert answer["response_truncated_bytes"] == 0
        assert len(answer["results"]) == 19
        for operation, row in zip(operations, answer["results"], strict=True):
            tool = operation["tool"]
            alone = await client.session.call_tool(tool, operation.get("arguments", {}))
            assert not alone.is_error, (tool, error_text(alone))
            assert row["success"] is True and row["error"] is None, tool
            assert row["meta"] is None
            got = {"content": row["content"], "structured_content": row["structured_content"]}
            assert stable(tool, got) == stable(tool, direct(alone)), tool

    by_tool = {row["tool"]: row["structured_content"] for row in answer["results"]}
    arguments = {o["tool"]: o.get("arguments", {}) for o in operations}
    assert "MARK-42" in by_tool["capture_pane"]["result"]
    assert "MARK-42" in by_tool["capture_since"]["lines"]
    marked = arguments["capture_pane"]["pane_id"]
    assert [m["pane_id"] for m in by_tool["search_panes"]["matches"]] == [marked]
    assert by_tool["display_message"]["result"] == f"main:{marked}"
    assert by_tool["get_session_info"]["session_name"] == "second"
    assert by_tool["get_server_info"]["is_alive"] is True
    assert by_tool["get_pane_info"]["pane_id"] == arguments["get_pane_info"]["pane_id"]
    assert by_tool["show_buffer"]["content"] == BUFFER_TEXT
    history_limit = tmux.tmux("show-options", "-gv", "history-limit").strip()
    assert by_tool["show_option"]["value"] == int(history_limit)
    assert by_tool["show_environment"]["variables"]["BATCH_VARIABLE"] == "batch-value"
    assert any(e["hook_name"] == HOOK for e in by_tool["show_hook"]["entries"])
    assert any(e["hook_name"] == HOOK for e in by_tool["show_hooks"]["entries"])
    assert [s["session_name"] for s in by_tool["list_sessions"]["result"]] == ["main", "second"]
    assert len(by_tool["list_panes"]["result"]) == 4


# --- 2. on_error: stop (the default) and continue --------------------------------------------

MISSING_PANE = op("get_pane_info", {"pane_id": "%999"})
HEAD = [op("list_sessions"), MISSING_PANE]
TAIL = [op("list_windows"), op("list_panes"), op("get_pane_info", {"pane_id": "%0"})]


@pytest.fixture(scope="module")
def plain() -> Iterator[TmuxServer]:
    """One tmux server with its one pane, %0, for the on_error tests."""
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
async def plain_client(plain: TmuxServer) -> AsyncIterator[Client]:
    async with open_in_process(plain.server_env(), "python") as opened:
        await batch(opened, [op("list_sessions")])  # connect before any test counts
        yield opened


async def commands_for(
    tmux: TmuxServer, client: Client, operations: list[dict[str, Any]], on_error: str | None
) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """A batch's answer and every tmux command it sent (argv or control line)."""
    mark = tmux.mark()
    answer = await batch(client, operations, on_error)
    return answer, [sent.words for sent in tmux.sent_since(mark)]


async def test_a_failing_row_carries_the_tools_own_error(plain_client: Client) -> None:
    alone = await plain_client.error("get_pane_info", {"pane_id": "%999"})
    answer = await batch(plain_client, [MISSING_PANE])
    (row,) = answer["results"]
    assert row["success"] is False
    assert "%999" in row["error"]
    assert row["error"] == alone
    assert row["content"] == [{"type": "text", "text": alone}]
    assert row["structured_content"] is None and row["meta"] is None
    assert answer["succeeded"] == 0 and answer["failed"] == 1
    assert answer["stopped_at"] == 0  # the default on_error is stop


@pytest.mark.parametrize("on_error", ["stop", None])
async def test_on_error_stop_ends_the_batch_at_the_first_failure(
    plain: TmuxServer, plain_client: Client, on_error: str | None
) -> None:
    head, head_commands = await commands_for(plain, plain_client, HEAD, "continue")
    answer, commands = await commands_for(plain, plain_client, HEAD + TAIL, on_error)
    assert head_commands
    assert head["stopped_at"] is None
    assert answer["stopped_at"] == 1
    assert [row["index"] for row in answer["results"]] == [0, 1]  # the failing row is included
    assert [row["success"] for row in answer["results"]] == [True, False]
    assert "%999" in answer["results"][1]["error"]
    assert answer["succeeded"] == 1 and answer["failed"] == 1
    # Later operations neither appear nor run: tmux ran what the first two need, no more.
    assert commands == head_commands


async def test_on_error_continue_runs_every_operation(
    plain: TmuxServer, plain_client: Client
) -> None:
    _, head_commands = await commands_for(plain, plain_client, HEAD, "continue")
    answer, commands = await commands_for(plain, plain_client, HEAD + TAIL, "continue")
    assert answer["stopped_at"] is None
    assert [row["success"] for row in answer["results"]] == [True, False, True, True, True]
    assert [row["index"] for row in answer["results"]] == [0, 1, 2, 3, 4]
    assert answer["succeeded"] == 4 and answer["failed"] == 1
    # The first two rows send what they sent alone, and the later rows send more.
    assert commands[: len(head_commands)] == head_commands
    assert len(commands) > len(head_commands)
    assert answer["results"][4]["structured_content"]["pane_id"] == "%0"
    assert [p["pane_id"] for p in answer["results"][3]["structured_content"]["result"]] == ["%0"]


async def test_a_batch_whose_every_row_failed_is_still_not_an_error(
    plain_client: Client,
) -> None:
    operations = [
        MISSING_PANE,
        op("get_window_info", {"window_id": "@999"}),
        op("get_session_info", {"session_name": "no-such-session"}),
        op("show_buffer", {"buffer_name": "no-such-buffer"}),
        op("capture_since", {"pane_id": "%0", "cursor": "not-a-cursor"}),
    ]
    answer = await batch(plain_client, operations, "continue")
    stopped = await batch(plain_client, operations, "stop")
    assert answer["succeeded"] == 0 and answer["failed"] == 5
    assert len(answer["results"]) == 5
    assert answer["stopped_at"] is None
    assert stopped["stopped_at"] == 0 and len(stopped["results"]) == 1


# --- 3. the whole call is checked before anything runs ---------------------------------------

VALID = [op("list_sessions"), op("list_panes"), op("get_server_info")]

# (batch arguments, words the message must contain)
REJECTED: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "manage tool": (
        {"operations": [*VALID, op("select_pane", {"pane_id": "%3"})]},
        ("`operations[3].tool`", "'select_pane'", "manage", "inspect tools only"),
    ),
    "self-bounded tool": (
        {"operations": [*VALID, op("wait_for_text", {"patterns": ["x"], "timeout": 1})]},
        ("`operations[3].tool`", "'wait_for_text'", "cannot run inside a batch"),
    ),
    "nested batch": (
        {"operations": [*VALID, op(BATCH, {"operations": [op("list_sessions")]})]},
        ("`operations[3].tool`", f"'{BATCH}'", "nested"),
    ),
    "unknown tool": (
        {"operations": [*VALID, op("nope")]},
        ("`operations[3].tool`", "'nope'", "not a tool"),
    ),
    "argument of the wrong type": (
        {"operations": [*VALID, op("capture_pane", {"max_lines": "many"})]},
        ("`operations[3].arguments.max_lines`", "capture_pane", "'many'", "rule: type"),
    ),
    "required argument missing": (
        {"operations": [*VALID, op("display_message", {"pane_id": "%0"})]},
        ("`operations[3].arguments.format_string`", "display_message", "rule: required"),
    ),
    "undeclared argument": (
        {"operations": [*VALID, op("list_sessions", {"all": True})]},
        ("`all` in `operations[3].arguments`", "additionalProperties"),
    ),
    "argument outside its enum": (
        {"operations": [*VALID, op("show_option", {"option": "status", "scope": "all"})]},
        ("`operations[3].arguments.scope`", "'all'", "rule: enum"),
    ),
    "arguments not an object": (
        {"operations": [*VALID, {"tool": "list_sessions", "arguments": ["x"]}]},
        ("`operations[3].arguments`", "rule: type"),
    ),
    "extra key on an operation": (
        {"operations": [*VALID, {"tool": "list_sessions", "extra": 1}]},
        ("`extra`", "`operations[3]`", "additionalProperties"),
    ),
    "operation without a tool": (
        {"operations": [*VALID, {"arguments": {}}]},
        ("`operations[3].tool`", "rule: required"),
    ),
    "on_error outside the enum": (
        {"operations": VALID, "on_error": "ignore"},
        ("`on_error`", "'ignore'", "rule: enum"),
    ),
    "refused operation first": (
        {"operations": [op("select_pane", {"pane_id": "%3"}), *VALID]},
        ("`operations[0].tool`", "'select_pane'"),
    ),
}


@pytest.fixture(scope="module")
def shared() -> Iterator[TmuxServer]:
    """One tmux server (a 2x2 grid) for the refusals: none of them may change it."""
    server = TmuxServer.start()
    try:
        server.grid()
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
async def shared_client(shared: TmuxServer) -> AsyncIterator[Client]:
    async with open_in_process(shared.server_env(), "python") as opened:
        yield opened


@pytest.mark.parametrize("case", sorted(REJECTED))
async def test_an_invalid_batch_is_refused_whole_naming_path_and_rule_and_runs_nothing(
    shared: TmuxServer, shared_client: Client, case: str
) -> None:
    arguments, words = REJECTED[case]
    before = shared.state()
    mark = shared.mark()
    result = await shared_client.session.call_tool(BATCH, arguments)
    assert result.is_error, result.structured_content
    assert not result.structured_content
    message = error_text(result)
    for word in words:
        assert word in message, (word, message)
    shared.assert_nothing_sent_since(mark)
    assert shared.state() == before
    # The valid operations alone run, and what they send shows in the same log.
    after = await batch(shared_client, VALID)
    assert after["succeeded"] == 3
    assert shared.sent_since(mark)


# --- 4. the 1,000,000-byte line: tests/e2e/test_python_batch.py (it needs the command as a process)
