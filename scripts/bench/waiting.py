"""The wait row: how soon a waiting call answers once the pane prints what it waits for."""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

import anyio
import mcp.types as types
from mcp.client.session import ClientSession

from scripts.bench.calls import Args, Call, Layout, wait_call
from scripts.bench.measure import CALL_TIMEOUT, Results, progress, result_error, rotation
from scripts.bench.servers import Column, Conn, conn_for, describe

WAIT_MS = 5000
PRINT_DELAY = 0.3


def print_marker(tty: str, marker: str) -> None:
    """Write straight to the pane's terminal: output appears at once, nothing is typed."""
    fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY)
    try:
        os.write(fd, f"{marker}\n".encode())
    finally:
        os.close(fd)


async def wait_once(session: ClientSession, call: Call, lay: Layout, marker: str) -> int:
    """Start the wait, print the marker 0.3 s later, time print → result."""
    pane = lay.wait_pane
    if call.tool == "wait_for_text":
        arguments: Args = {"patterns": [marker], "pane_id": pane, "timeout": WAIT_MS / 1000}
    else:
        with anyio.fail_after(CALL_TIMEOUT):
            first = await session.call_tool("capture_since", {"paneId": pane})
        error = result_error(first, "capture_since")
        if error or not isinstance(first, types.CallToolResult):
            raise RuntimeError(f"taking a cursor: {error}")
        cursor = (first.structured_content or {}).get("cursor")
        arguments = {"paneId": pane, "cursor": cursor, "waitMs": WAIT_MS}
    answer: dict[str, Any] = {}

    async def waiter() -> None:
        result = await session.call_tool(call.tool, arguments)
        answer["at"] = time.perf_counter_ns()
        answer["result"] = result

    with anyio.fail_after(CALL_TIMEOUT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await anyio.sleep(PRINT_DELAY)
            printed = time.perf_counter_ns()
            print_marker(lay.wait_tty, marker)
    result = answer["result"]
    error = result_error(result, call.tool)
    if error:
        raise RuntimeError(error)
    assert isinstance(result, types.CallToolResult)
    data = result.structured_content or {}
    if call.tool == "wait_for_text":
        if data.get("outcome") != "matched":
            raise RuntimeError(f"wait ended with outcome {data.get('outcome')!r}")
    elif not any(marker in str(line) for line in data.get("lines", [])):
        raise RuntimeError(f"capture_since returned without the marker: {data.get('lines')}")
    return int(answer["at"]) - printed


async def bench_wait(
    columns: Sequence[Column],
    conns: Sequence[Conn],
    lay: Layout,
    iterations: int,
    results: Results,
) -> None:
    calls: dict[str, Call] = {}
    for column in columns:
        cell = results["wait"][column.key]
        if column.is_stub:  # a wait must see new output; a replayed answer never changes
            cell.status, cell.note = "n/a", "a wait needs tmux to print"
            continue
        call, why = wait_call(column, conns)
        if call is None:
            cell.status, cell.note = "n/a", why
            continue
        cell.call = call.label
        calls[column.key] = call
    progress("wait", calls)
    token = uuid.uuid4().hex[:6]
    for i in range(-1, iterations):  # -1: the untimed check
        for column in rotation(columns, max(i, 0)):
            call = calls.get(column.key)
            cell = results["wait"][column.key]
            if call is None or cell.status != "ok":
                continue
            conn = conn_for(conns, column, call.profile)
            assert conn is not None and conn.session is not None
            marker = f"BENCH{token}{column.key[:3].upper()}{i + 1:04d}"
            try:
                elapsed = await wait_once(conn.session, call, lay, marker)
            except Exception as exc:
                cell.fail(f"iteration {i}: {describe(exc)}")
                print(
                    f"  wait / {column.label} ({call.label}) FAILED: {cell.note}", file=sys.stderr
                )
                continue
            if i >= 0:
                cell.samples.append(elapsed)
