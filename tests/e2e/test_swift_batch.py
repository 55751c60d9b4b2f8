"""The swift batch under the 1,000,000-byte line: raw JSON-RPC lines over the command's pipes,
where the bytes on the wire are (the batch itself: tests/profiles/swift/test_swift_batch.py)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import HISTORY_LINES, long_histories
from tests.helpers.batch import check_swift_answer as check_answer
from tests.helpers.batch import operation as op
from tests.helpers.batch import swift_failure as failure
from tests.helpers.wire import HANDSHAKE, PER_REQUEST, RawServer, encoded_size

pytestmark = pytest.mark.anyio

BATCH = "call_read_tools_batch"
LINE_CAP = 1_000_000  # bytes of one response line, newline included
MISSING_PANE = op("get_pane_info", {"paneId": "%999"})


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
