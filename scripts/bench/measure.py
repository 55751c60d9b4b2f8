"""Timing calls: the cells, the fair order of the servers, one row at a time.

Every call goes through the raw client (``scripts.bench.rpc``): a sample is the time from
writing the request to reading the last byte of its answer. Each answer is then checked
(outside the sample): a JSON-RPC error, ``isError`` or a batch with a failed row ends the
cell. Before a cell is timed, its first answer is also checked against the output schema
its server advertises (ours: the contract's; the peer: its own), and ours' text against the
structured content as the lab's client checks it (unless the text is not JSON: a tool that
words its own text, such as swift's batch summary).
"""

from __future__ import annotations

import gc
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from jsonschema import Draft202012Validator

from scripts.bench.calls import BATCH_SIZE, Call
from scripts.bench.rpc import Reply
from scripts.bench.servers import Server, describe
from scripts.lab.client import contracts, expected_text_value, text_holds

CALL_TIMEOUT = 60.0
WARM_UPS = 3


@dataclass
class Cell:
    """One (row, column): what it called and every sample, in nanoseconds."""

    call: str = ""
    status: str = "ok"
    note: str = ""
    samples: list[int] = field(default_factory=list)
    answer_bytes: int = 0  # of the checked answer's line
    cut_short: str = ""  # what the checked answer says cut it short (capped, truncated...)

    def fail(self, why: str) -> None:
        if self.status == "ok":
            self.status, self.note = "failed", why

    def skip(self, why: str) -> None:
        self.status, self.note = "n/a", why

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

    def p50(self) -> float | None:
        summary = self.summary()
        return float(summary["p50_ms"]) if summary else None


def percentile(data: Sequence[int], q: float) -> float:
    """Nearest-rank percentile of sorted data: always an observed sample."""
    return float(data[max(0, math.ceil(q * len(data)) - 1)])


@dataclass(frozen=True)
class RowId:
    """One printed row: a row of a group, on one profile's surface, at one size."""

    name: str
    profile: str
    panes: int | None = None

    @property
    def key(self) -> str:
        size = f"@{self.panes}" if self.panes is not None else ""
        return f"{self.name}/{self.profile}{size}"


Results = dict[str, dict[str, Cell]]  # RowId.key -> column key -> cell


def williams(count: int, i: int) -> list[int]:
    """Row ``i`` of a balanced Latin square (Williams' design) on ``count`` items.

    Over ``count`` rows (even count) or ``2 * count`` (odd count, the square and its mirror),
    every item comes first equally often and follows every other item equally often.
    """
    first = [0]
    low, high = 1, count - 1
    while len(first) < count:
        first.append(low)
        low += 1
        if len(first) < count:
            first.append(high)
            high -= 1
    shift = i % count
    order = [(item + shift) % count for item in first]
    if count % 2 == 1 and (i // count) % 2 == 1:
        order.reverse()
    return order


T = TypeVar("T")


def rotation(items: Sequence[T], i: int) -> list[T]:
    """The items in a different order each iteration, so that each follows each other
    equally often.

    A call made right after one of the peer's is measurably slower (0.1-0.25 ms here),
    whichever server makes it. A plain rotation put the same server after the peer every
    time and charged that server alone for it.
    """
    return [items[k] for k in williams(len(items), i)]


def period(count: int) -> int:
    """Iterations after which ``rotation`` has given every order it gives equally often."""
    return count if count % 2 == 0 else 2 * count


# --- what counts as a success ------------------------------------------------------------------


def reply_error(reply: Reply, call: Call) -> str | None:
    """Why an answer does not count as a success (every row of a batch included)."""
    error = reply.error()
    if error or call.method != "tools/call":
        if call.method == "tools/list" and not error and not reply.result.get("tools"):
            return "tools/list listed no tools"
        return error
    data = reply.structured
    if call.tool == "call_read_tools_batch":
        data = data.get("result", data) if isinstance(data, dict) else data  # the peer wraps
        if not isinstance(data, dict):
            return f"batch answered {type(data).__name__}, not an object"
        ran = data.get("succeeded", len(data.get("results") or []))
        if data.get("failed") or ran != BATCH_SIZE:
            rows = data.get("results") or []
            bad = [r.get("error") for r in rows if isinstance(r, dict) and r.get("error")]
            return f"batch ran {ran} rows, failed {data.get('failed')}: {bad[:2]}"
    return None


@cache
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def contract_error(server: Server, call: Call, reply: Reply) -> str | None:
    """The first answer of a cell against the output schema its server advertises, and
    ours' text against its structured content; why it fails, or None."""
    if call.method != "tools/call":
        return None
    if server.column.is_peer:
        schema = server.tools.get(call.tool, {}).get("outputSchema")
    else:
        schema = contracts(call.profile)[call.tool]["outputSchema"]
    structured = reply.structured
    if schema is not None:
        errors = sorted(
            _validator(json.dumps(schema, sort_keys=True)).iter_errors(structured), key=str
        )
        if errors:
            return f"answer outside the output schema: {errors[0].message[:300]}"
    if server.column.is_peer:
        return None
    content = reply.result.get("content") or []
    if len(content) != 1 or content[0].get("type") != "text":
        return f"expected one text block, got {len(content)} blocks"
    expected = expected_text_value(call.profile, call.tool, structured)
    try:
        held = text_holds(str(content[0]["text"]), expected)
    except ValueError:  # not JSON: a text the tool words itself (swift's batch summary)
        return None
    return None if held else "the text content does not hold the structured content"


def cut_short(reply: Reply) -> str:
    """The flags of an answer that say a bound cut it short (``capped``, ``truncated``,
    ``truncated_by``...), as ``name=value``; empty when none is set."""
    data = reply.structured
    if not isinstance(data, dict):
        return ""
    return ", ".join(
        f"{key}={value}"
        for key, value in data.items()
        if ("capped" in key.lower() or "truncat" in key.lower()) and value
    )


def invoke(server: Server, call: Call, seq: int) -> Reply:
    client = server.client
    assert client is not None
    if call.method == "ping":
        return client.ping(CALL_TIMEOUT)
    if call.method == "tools/list":
        return client.list_tools(CALL_TIMEOUT)
    return client.call(call.tool, call.build(seq), CALL_TIMEOUT)


# --- a row -----------------------------------------------------------------------------------

Choose = Callable[[Server], tuple[Call | None, str]]


@dataclass
class Unit:
    """One cell being timed: its server, its call and where its samples go."""

    server: Server
    call: Call
    cell: Cell


def prepare(
    row: str,
    servers: Sequence[Server],
    choose: Choose,
    cell_of: Callable[[Server], Cell],
    warm_ups: int = WARM_UPS,
) -> list[Unit]:
    """Every server's cell on ``row``: n/a where it has no such call, failed where its first
    answer is not a success or not what its contract says; then warmed up."""
    units = []
    for server in servers:
        if not server.column.measures(row):
            continue  # no cell: a blank in the table
        cell = cell_of(server)
        if server.client is None:
            cell.skip(f"server unavailable: {server.error}")
            continue
        call, why = choose(server)
        if call is None:
            cell.skip(why)
            continue
        if call.method == "tools/call" and call.tool not in server.tools:
            cell.skip(f"{call.profile}: no {call.tool}")
            continue
        cell.call = call.label
        try:
            first = invoke(server, call, 0)
            error = reply_error(first, call) or contract_error(server, call, first)
            cell.answer_bytes = len(first.raw)
            cell.cut_short = cut_short(first)
            for warm in range(1, warm_ups):
                error = error or reply_error(invoke(server, call, warm), call)
        except Exception as exc:
            error = describe(exc)
        if error:
            cell.fail(error)
            print(f"  {row} / {server.label} ({call.label}) FAILED: {error}", file=sys.stderr)
            continue
        units.append(Unit(server, call, cell))
    return units


def time_units(units: Sequence[Unit], iterations: int) -> None:
    """``iterations`` rounds, each unit once a round, in an order that changes every round.

    Each round's calls get consecutive seqs, so a call never repeats the arguments of the
    one just before it (select_pane always changes the active pane)."""
    gc.collect()
    gc.disable()
    try:
        for i in range(iterations):
            for k, unit in enumerate(rotation(units, i)):
                if unit.cell.status != "ok":
                    continue
                try:
                    reply = invoke(unit.server, unit.call, i * len(units) + k)
                except Exception as exc:
                    unit.cell.fail(f"iteration {i}: {describe(exc)}")
                    continue
                error = reply_error(reply, unit.call)
                if error:
                    unit.cell.fail(f"iteration {i}: {error}")
                else:
                    unit.cell.samples.append(reply.elapsed_ns)
    finally:
        gc.enable()


STARTED = time.monotonic()


def progress(what: str, count: int) -> None:
    clock = time.monotonic() - STARTED
    print(f"· [{clock:5.0f} s] {what}: {count} cell(s)", file=sys.stderr, flush=True)
