"""Timing calls: the cells, the fair order of columns, the ping and the fast rows."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.types as types
from mcp.client.session import ClientSession

from scripts.bench.calls import BATCH_SIZE, Call, Layout, choose
from scripts.bench.servers import Column, Conn, conn_for, describe

CALL_TIMEOUT = 30.0
WARM_UPS = 3


@dataclass
class Cell:
    """One (row, column): what it called and every sample, in nanoseconds."""

    call: str = ""
    status: str = "ok"
    note: str = ""
    samples: list[int] = field(default_factory=list)

    def fail(self, why: str) -> None:
        if self.status == "ok":
            self.status, self.note = "failed", why

    def summary(self) -> dict[str, Any]:
        data = sorted(self.samples)
        if not data or self.status != "ok":
            return {}
        return {
            "n": len(data),
            "p50_ms": percentile(data, 0.50) / 1e6,
            "p95_ms": percentile(data, 0.95) / 1e6,
            "min_ms": data[0] / 1e6,
            "max_ms": data[-1] / 1e6,
            "mean_ms": sum(data) / len(data) / 1e6,
        }


def percentile(data: Sequence[int], q: float) -> float:
    """Nearest-rank percentile of sorted data: always an observed sample."""
    return float(data[max(0, math.ceil(q * len(data)) - 1)])


def result_error(result: types.Result, tool: str) -> str | None:
    """Why a tool result does not count as a success (batch rows included)."""
    if not isinstance(result, types.CallToolResult):
        return f"unexpected result type {type(result).__name__}"
    if result.is_error:
        text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
        return f"tool error: {text[:300]}"
    data = result.structured_content
    if tool == "call_read_tools_batch" and isinstance(data, dict):
        rows = data.get("results") or []
        if data.get("failed") or len(rows) != BATCH_SIZE:
            bad = [r.get("error") for r in rows if isinstance(r, dict) and not r.get("success")]
            return f"batch ran {len(rows)} rows, failed {data.get('failed')}: {bad[:2]}"
    return None


async def call_tool(session: ClientSession, call: Call, seq: int) -> tuple[int, str | None]:
    """One timed tools/call; the timeout scope stays outside the timed span."""
    arguments = call.build(seq)
    with anyio.fail_after(CALL_TIMEOUT):
        start = time.perf_counter_ns()
        result = await session.call_tool(call.tool, arguments)
        elapsed = time.perf_counter_ns() - start
    return elapsed, result_error(result, call.tool)


def rotation(columns: Sequence[Column], i: int) -> list[Column]:
    """The columns in a different order each iteration, from a balanced Latin square.

    A call made right after one of the peer's is measurably slower (0.1-0.25 ms here),
    whichever server makes it. The square's orders (a Williams design: n of them for n
    columns, 2n when n is odd) make each column come first, and follow each other column,
    equally often within a few iterations; cycling through every permutation did too, but
    only over n! iterations (720 for six columns, more than a row runs), and a plain
    rotation put the same column after the peer every time and charged it alone for it.
    """
    orders = balanced_orders(len(columns))
    return [columns[k] for k in orders[i % len(orders)]]


def balanced_orders(n: int) -> list[list[int]]:
    """A Williams design: orders of 0..n-1 where each ordered pair is adjacent equally often."""
    first, low, high = [0], 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    orders = [[(k + shift) % n for k in first] for shift in range(n)]
    if n % 2:
        orders += [list(reversed(order)) for order in orders]
    return orders


Results = dict[str, dict[str, Cell]]


async def bench_fast(
    columns: Sequence[Column],
    conns: Sequence[Conn],
    lay: Layout,
    rows: Mapping[str, int],
    results: Results,
) -> None:
    """Each row: check every chosen call, warm up, then alternate the columns ``rows[row]`` times."""
    for row, iterations in rows.items():
        calls: dict[str, Call] = {}
        for column in columns:
            cell = results[row][column.key]
            call, why = choose(row, column, conns, lay)
            if call is None:
                cell.status, cell.note = "n/a", why
                continue
            cell.call = call.label
            conn = conn_for(conns, column, call.profile)
            assert conn is not None and conn.session is not None
            try:
                for warm in range(WARM_UPS):
                    _, error = await call_tool(conn.session, call, warm)
                    if error:
                        raise RuntimeError(error)
            except Exception as exc:
                cell.fail(describe(exc))
                print(
                    f"  {row} / {column.label} ({call.label}) FAILED: {cell.note}", file=sys.stderr
                )
                continue
            calls[column.key] = call
        progress(row, calls)
        for i in range(iterations):
            for k, column in enumerate(rotation(columns, i)):
                call_or_none = calls.get(column.key)
                cell = results[row][column.key]
                if call_or_none is None or cell.status != "ok":
                    continue
                conn = conn_for(conns, column, call_or_none.profile)
                assert conn is not None and conn.session is not None
                try:
                    elapsed, error = await call_tool(
                        conn.session, call_or_none, i * len(columns) + k
                    )
                except Exception as exc:
                    cell.fail(describe(exc))
                    continue
                if error:
                    cell.fail(f"iteration {i}: {error}")
                else:
                    cell.samples.append(elapsed)


async def bench_ping(
    columns: Sequence[Column], conns: Sequence[Conn], iterations: int, results: Results
) -> None:
    """An MCP ping round trip per server: the cost of the client and the stdio hop."""
    sessions: dict[str, ClientSession] = {}
    for column in columns:
        profile = "peer" if column.is_peer else "python"
        conn = conn_for(conns, column, profile)
        cell = results["ping"][column.key]
        if not column.measures("ping"):
            cell.status, cell.note = "n/a", "not measured on this row"
            continue
        if conn is None or conn.session is None:
            cell.status, cell.note = "n/a", f"{profile}: server unavailable"
            continue
        cell.call = f"{profile}:ping"
        sessions[column.key] = conn.session
        await conn.session.send_ping()
    progress("ping", sessions)
    for i in range(iterations):
        for column in rotation(columns, i):
            session = sessions.get(column.key)
            if session is None:
                continue
            with anyio.fail_after(CALL_TIMEOUT):
                start = time.perf_counter_ns()
                await session.send_ping()
                results["ping"][column.key].samples.append(time.perf_counter_ns() - start)


STARTED = time.monotonic()


def progress(row: str, measured: Any) -> None:
    clock = time.monotonic() - STARTED
    print(f"· [{clock:5.0f} s] {row}: {len(measured)} server(s)", file=sys.stderr, flush=True)
