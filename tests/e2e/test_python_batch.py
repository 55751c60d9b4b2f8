"""The python batch under the 1,000,000-byte line: raw JSON-RPC lines over the command's pipes,
where the bytes on the wire are (the batch itself: tests/profiles/python/test_python_batch.py)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import ELIDED_META, is_elided, long_histories
from tests.helpers.batch import check_python_batch_answer as check_answer
from tests.helpers.batch import operation as op
from tests.helpers.wire import HANDSHAKE, RawServer, compact, encoded_size

pytestmark = pytest.mark.anyio

BATCH = "call_read_tools_batch"
LINE_CAP = 1_000_000  # bytes of one response line, newline included
MISSING_PANE = op("get_pane_info", {"pane_id": "%999"})


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
