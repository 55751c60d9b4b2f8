"""call_read_tools_batch (python profile): rows, on_error, refusals and the 1,000,000-byte cap.

Real tmux, the real server over stdio: the SDK client where behaviour is the
point, raw JSON-RPC lines over plain pipes where the bytes on the wire are.
Every batch only reads, so each later section shares one tmux server and one
server for the module (each test's answers are its own); the first section, which
sets up a rich state, has its own.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
import pytest
from jsonschema import Draft202012Validator

from scripts.lab.client import COMMAND, Client, contracts, error_text, open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import long_histories
from tests.helpers.batch import operation as op
from tests.helpers.tmux import wait_for
from tests.helpers.wire import HANDSHAKE, RawServer, compact, encoded_size

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

BATCH = "call_read_tools_batch"
LINE_CAP = 1_000_000  # bytes of one response line, newline included
ROW_KEYS = {
    "index",
    "tool",
    "success",
    "error",
    "content",
    "structured_content",
    "meta",
    "elapsed_seconds",
}
ELIDED_META = {"result_truncated": True}
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


def is_elided(row: dict[str, Any]) -> bool:
    return bool(row["meta"] == ELIDED_META)


def check_answer(
    answer: dict[str, Any], operations: list[dict[str, Any]], wall: float | None = None
) -> None:
    """What every accepted batch answer satisfies, whatever ran and whatever was elided.

    ``wall``: the seconds the client waited for the answer, if measured.
    """
    Draft202012Validator(contracts("python")[BATCH]["outputSchema"]).validate(answer)
    rows = answer["results"]
    if wall is not None:
        # The rows run one after another inside the call (rounded to microseconds).
        assert sum(row["elapsed_seconds"] for row in rows) <= wall + 1e-6 * len(rows)
    assert len(rows) <= len(operations)
    assert answer["succeeded"] + answer["failed"] == len(rows)
    assert answer["succeeded"] == sum(1 for row in rows if row["success"])
    for index, row in enumerate(rows):
        assert set(row) == ROW_KEYS, sorted(row)
        assert row["index"] == index
        assert row["tool"] == operations[index]["tool"]
        assert row["success"] is (row["error"] is None), row
        if is_elided(row):
            assert row["content"] == [] and row["structured_content"] is None, row["index"]
            continue
        assert row["meta"] is None  # no tool of the profile answers with a _meta
        if row["success"]:
            assert row["structured_content"] is not None
            assert row["content"] and all(block["type"] == "text" for block in row["content"])
        else:
            assert row["error"]
            assert row["content"] == [{"type": "text", "text": row["error"]}]
            assert row["structured_content"] is None
    assert answer["response_truncated"] is any(is_elided(row) for row in rows)
    if answer["response_truncated"]:
        assert answer["response_truncated_bytes"] > 0
    else:
        assert answer["response_truncated_bytes"] == 0
    if answer["stopped_at"] is not None:
        assert answer["stopped_at"] == len(rows) - 1
        assert rows[-1]["success"] is False


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

    async with open_client(tmux.server_env(), "python") as client:
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
    async with open_client(plain.server_env(), "python") as opened:
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
    async with open_client(shared.server_env(), "python") as opened:
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


# --- 4. the 1,000,000-byte line ----------------------------------------------------------------


@asynccontextmanager
async def raw_server(tmux: TmuxServer) -> AsyncIterator[RawServer]:
    """The python profile over plain pipes, after the 2025-06-18 handshake."""
    command = [COMMAND, "--profile", "python"]
    async with await anyio.open_process(
        command, env=tmux.server_env(), stderr=subprocess.DEVNULL
    ) as process:
        server = RawServer(process, HANDSHAKE)
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
        yield server


@pytest.fixture(scope="module")
def histories() -> Iterator[tuple[TmuxServer, list[str]]]:
    """One tmux server with four panes of long history, and those panes."""
    server = TmuxServer.start()
    try:
        yield server, long_histories(server)
    finally:
        server.kill()


@pytest.fixture(scope="module")
async def raw(histories: tuple[TmuxServer, list[str]]) -> AsyncIterator[RawServer]:
    """One server over plain pipes for the section: each test reads its own answers."""
    async with raw_server(histories[0]) as server:
        yield server


def capture(pane: str, max_lines: int | None, start: int = -2000) -> dict[str, Any]:
    return op("capture_pane", {"pane_id": pane, "start": start, "max_lines": max_lines})


async def alone_results(
    server: RawServer, operations: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each operation's result as its tool answers it alone, in the row's shape."""
    cache: dict[str, dict[str, Any]] = {}
    found = []
    for operation in operations:
        key = json.dumps(operation, sort_keys=True)
        if key not in cache:
            _, result = await server.call(
                f"alone-{len(cache)}", operation["tool"], operation.get("arguments", {})
            )
            cache[key] = {
                "content": result["content"],
                "structured_content": None
                if result.get("isError")
                else result.get("structuredContent"),
            }
        found.append(cache[key])
    return found


def line_cost(value: Any) -> int:
    """Bytes ``value`` adds to the line: once as structured content, once inside the text."""
    text = compact(value)
    return len(text.encode()) + len(json.dumps(text, ensure_ascii=False).encode()) - 2


def restored_line(raw: bytes, row: dict[str, Any], result: dict[str, Any]) -> int:
    """The line's size had ``row`` kept ``result`` (both copies: structured and text)."""
    kept = {**row, **result, "meta": None}
    return len(raw) + line_cost(kept) - line_cost(row)


def check_line(raw: bytes, request_id: str | int) -> None:
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    assert len(raw) <= LINE_CAP, len(raw)
    assert json.loads(raw)["id"] == request_id


def check_elision(
    raw: bytes,
    answer: dict[str, Any],
    operations: list[dict[str, Any]],
    alone: list[dict[str, Any]],
) -> int:
    """A prefix of rows kept whole, the rest elided, and the cut was needed; the kept count."""
    check_answer(answer, operations)
    rows = answer["results"]
    assert [row["index"] for row in rows] == list(range(len(operations)))  # every row reported
    kept = sum(1 for row in rows if not is_elided(row))
    assert [not is_elided(row) for row in rows] == [True] * kept + [False] * (len(rows) - kept)
    assert 0 < kept < len(rows)
    assert answer["response_truncated"] is True
    for row, own in zip(rows[:kept], alone[:kept], strict=True):
        assert {k: row[k] for k in ("content", "structured_content")} == own, row["index"]
    for row in rows[kept:]:
        assert row["meta"] == ELIDED_META
        assert row["content"] == [] and row["structured_content"] is None
    # The oldest elided result really did not fit beside the ones kept.
    assert restored_line(raw, rows[kept], alone[kept]) > LINE_CAP
    # The bytes reported cut: at least each elided structured result, at most the whole rows.
    elided = alone[kept:]
    low = sum(encoded_size(own["structured_content"]) - len("null") for own in elided)
    high = sum(encoded_size(own) for own in elided)
    assert low <= answer["response_truncated_bytes"] <= high
    return kept


async def test_an_oversized_batch_elides_results_newest_first_into_one_line_under_the_cap(
    histories: tuple[TmuxServer, list[str]], raw: RawServer
) -> None:
    _, panes = histories
    small = [capture(pane, 100) for pane in panes]
    large = [capture(pane, None) for pane in panes]
    operations = [*small, *large, MISSING_PANE]
    line, result = await raw.call(1, BATCH, {"operations": operations, "on_error": "continue"})
    alone = await alone_results(raw, operations)

    check_line(line, 1)
    assert result.get("isError", False) is False
    answer = result["structuredContent"]
    assert json.loads(result["content"][0]["text"]) == answer
    # Each large capture is bigger than the whole line on its own.
    assert all(encoded_size(own["structured_content"]) > 500_000 for own in alone[4:8])
    assert sum(encoded_size(own) for own in alone) > LINE_CAP
    kept = check_elision(line, answer, operations, alone)
    assert kept == 4  # the small ones, in order
    assert all(len(own["structured_content"]["result"].splitlines()) >= 100 for own in alone[:4])
    # Counts and the failing row's error are unchanged by the elision.
    assert answer["succeeded"] == 8 and answer["failed"] == 1
    assert answer["stopped_at"] is None
    last = answer["results"][8]
    assert last["success"] is False and "%999" in last["error"]


async def test_a_160000_character_request_id_costs_results_not_the_line_cap(
    histories: tuple[TmuxServer, list[str]], raw: RawServer
) -> None:
    _, panes = histories
    operations = [capture(panes[i % len(panes)], 100) for i in range(14)] + [MISSING_PANE]
    arguments = {"operations": operations, "on_error": "continue"}
    request_id = "i" * 160_000
    short_line, short = await raw.call(1, BATCH, arguments)
    line, result = await raw.call(request_id, BATCH, arguments)
    alone = await alone_results(raw, operations)

    check_line(short_line, 1)
    check_line(line, request_id)
    whole = short["structuredContent"]
    answer = result["structuredContent"]
    assert result.get("isError", False) is False
    assert json.loads(result["content"][0]["text"]) == answer
    kept_short = check_elision(short_line, whole, operations, alone)
    kept = check_elision(line, answer, operations, alone)
    assert kept < kept_short  # the id's bytes cost results
    assert answer["response_truncated_bytes"] > whole["response_truncated_bytes"]
    # Every row's metadata stays, and the counts do not move.
    assert [(r["index"], r["tool"], r["success"], r["error"]) for r in answer["results"]] == [
        (r["index"], r["tool"], r["success"], r["error"]) for r in whole["results"]
    ]
    assert answer["succeeded"] == whole["succeeded"] == 14
    assert answer["failed"] == whole["failed"] == 1


HUGE = "x" * 1_100_000  # more than the whole line may hold

# (operations, the field the refusal must name, the rule it must state)
HUGE_REFUSALS: dict[str, tuple[list[dict[str, Any]], str, str]] = {
    "unknown tool name": ([op(HUGE)], "`operations[0].tool`", "not a tool"),
    "invalid arguments": (
        [op("capture_pane", {"pane_id": HUGE, "max_lines": "many"})],
        "`operations[0].arguments.max_lines`",
        "rule: type",
    ),
}


@pytest.mark.parametrize("case", sorted(HUGE_REFUSALS))
async def test_a_refusal_quoting_a_huge_value_still_fits_the_line_cap(
    raw: RawServer, case: str
) -> None:
    operations, field, rule = HUGE_REFUSALS[case]
    line, result = await raw.call(1, BATCH, {"operations": operations})
    _, after = await raw.call(2, BATCH, {"operations": [op("list_sessions")]})
    check_line(line, 1)
    assert result["isError"] is True
    message = result["content"][0]["text"]
    assert field in message and rule in message, message[:300]
    assert len(message.encode()) <= 4096  # quoted short, like a row's error
    assert after["structuredContent"]["succeeded"] == 1


async def test_a_request_id_that_leaves_no_room_gets_a_json_rpc_error_and_the_server_lives_on(
    raw: RawServer,
) -> None:
    operations = [op("get_session_info", {"session_name": "s" * 5000}) for _ in range(16)]
    hopeless_id = "h" * 999_000
    await raw.send(
        {
            "jsonrpc": "2.0",
            "id": hopeless_id,
            "method": "tools/call",
            "params": {
                "name": BATCH,
                "arguments": {"operations": operations, "on_error": "continue"},
            },
        }
    )
    refused = await raw.line()
    _, after = await raw.call(2, BATCH, {"operations": [op("list_sessions")]})
    assert len(refused) <= LINE_CAP
    message = json.loads(refused)
    assert message["id"] == hopeless_id
    assert "error" in message and "result" not in message
    assert "16 operations" in message["error"]["message"]
    assert after["structuredContent"]["succeeded"] == 1
