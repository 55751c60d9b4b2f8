"""Read batches: several inspect calls in one request, run in order, in one bounded answer.

Each operation goes through the same dispatch as a direct call (its own
contract, its own output check), so a row's result is exactly what the tool
would have answered alone. An operation whose arguments the flavour checked
before the batch began (``check_arguments``) runs on those checked arguments. The answer must fit one JSON-RPC line of at most
1,000,000 bytes whatever the request id costs: row results are elided newest
first (lowest index first where the profile's family does so) while every
row's metadata stays. The profiles differ only in the
shape of a row and of the answer (``Flavour``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import mcp.types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from ..reply import compact_json
from ..seam import Answering, Call
from .services import Runtime, WireSize

ERROR_CAP = 4096  # bytes of one row's error message
SHORT_ERROR_CAP = 256  # when even metadata is tight (a huge request id)
RUNNING_BUDGET = 900_000  # bytes of results kept while the batch runs
ROW_METADATA = 256  # bytes of a row's fixed keys and values, at most
INTERNAL_ERROR = -32603


def cap_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, marked when cut."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    marker = " [... cut]"
    return data[: limit - len(marker)].decode("utf-8", "ignore") + marker


def result_text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def texts(result: types.CallToolResult) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": block.text}
        for block in result.content
        if isinstance(block, types.TextContent)
    ]


@dataclass
class Row:
    """One executed operation: its metadata, and its result while it is kept."""

    index: int
    tool: str
    error: str | None
    result: types.CallToolResult | None
    elapsed: float
    size: int = 0  # encoded bytes of the row's result part, as the flavour shapes it
    elided: bool = False
    outside: bool = False  # it failed before reaching a tool (the tool is not served)

    @property
    def success(self) -> bool:
        return self.error is None


class Flavour(Protocol):
    """How one profile shapes a batch's rows and answer."""

    def row(self, row: Row) -> dict[str, Any]: ...

    def result_part(self, row: Row) -> Any:
        """The part of a row that elision removes (its encoded size is what is saved)."""
        ...

    def answer(self, batch: Answer) -> dict[str, Any]: ...

    def text(self, batch: Answer, structured: dict[str, Any]) -> str | None:
        """The text content beside the structured answer; None for its JSON."""
        ...


@dataclass
class Answer:
    rows: list[Row]
    on_error: str
    stopped_at: int | None
    flavour: Flavour
    wire: WireSize
    answering: Answering
    truncated_bytes: int = 0
    oldest_first: bool = False  # which results elision drops first: lowest index, or newest

    @property
    def succeeded(self) -> int:
        return sum(1 for row in self.rows if row.success)

    @property
    def failed(self) -> int:
        return len(self.rows) - self.succeeded

    @property
    def elided(self) -> int:
        return sum(1 for row in self.rows if row.elided)

    def structured(self) -> dict[str, Any]:
        return self.flavour.answer(self)

    def rendered(self) -> tuple[dict[str, Any], str | None]:
        structured = self.structured()
        return structured, self.flavour.text(self, structured)

    def line_bytes(self) -> int:
        structured, text = self.rendered()
        return self.wire.result_bytes(structured, text, self.answering)

    def elide(self, row: Row) -> None:
        """Drop a row's result; the bytes saved count as the reference says (minus ``null``)."""
        if not row.elided:
            self.truncated_bytes += max(0, row.size - len("null"))
            row.elided = True
            row.result = None

    def line_bytes_bound(self) -> int:
        """At least the bytes of the exact response line, counted without rendering it.

        A row's result part is counted at its encoded size; its metadata at a
        bound (every byte of its tool name and error escaped); the text beside the
        answer at most the answer's JSON again.
        """
        structured = 256 + sum(
            (0 if row.elided else row.size)
            + ROW_METADATA
            + self.wire.escape_factor * (len(row.tool.encode()) + len((row.error or "").encode()))
            for row in self.rows
        )
        return self.wire.line_bound(structured, structured, self.answering)

    def next_to_elide(self) -> Row | None:
        """The row whose result goes next: the oldest or the newest kept, by the flavour's order."""
        order = self.rows if self.oldest_first else reversed(self.rows)
        return next((r for r in order if not r.elided), None)

    def fit(self) -> None:
        """Elide results (newest or oldest first) until the exact response line fits the cap."""
        cap = self.wire.line_cap
        if self.line_bytes_bound() <= cap:
            return  # even the worst escaping fits: no need to render the line to count it
        while (size := self.line_bytes()) > cap:
            chosen = self.next_to_elide()
            if chosen is not None:
                self.elide(chosen)
                continue
            if self._shorten_errors():
                continue
            raise MCPError(
                code=INTERNAL_ERROR,
                message=(
                    f"The batch ran {len(self.rows)} operations, but even its row metadata "
                    f"({size} bytes with this request id) exceeds the {cap:,}-byte "
                    "response cap; use a shorter request id."
                ),
            )

    def _shorten_errors(self) -> bool:
        changed = False
        for row in self.rows:
            if row.error is not None and len(row.error.encode()) > SHORT_ERROR_CAP:
                row.error = cap_text(row.error, SHORT_ERROR_CAP)
                changed = True
        return changed


@dataclass(frozen=True)
class Operation:
    """One operation; ``params`` when its arguments were checked before the batch began."""

    tool: str
    arguments: dict[str, Any] | None
    params: BaseModel | None = None


class Batch:
    """Runs operations through the runtime's dispatch, on the tools as served."""

    def __init__(self, runtime: Runtime, flavour: Flavour, oldest_first: bool = False) -> None:
        self.runtime = runtime
        self.flavour = flavour
        self.oldest_first = oldest_first

    async def run(self, call: Call, operations: Sequence[Operation], on_error: str) -> Answer:
        """Run in order; with ``stop``, nothing after the first failed row runs."""
        rows: list[Row] = []
        stopped_at: int | None = None
        kept = 0
        answer = Answer(rows, on_error, None, self.flavour, self.runtime, call.answering)
        answer.oldest_first = self.oldest_first
        for index, operation in enumerate(operations):
            rows.append(await self._run_one(call, index, operation))
            row = rows[-1]
            row.size = len(compact_json(self.flavour.result_part(row)).encode())
            kept += row.size
            if self.oldest_first:
                while kept > RUNNING_BUDGET and (oldest := answer.next_to_elide()) is not None:
                    kept -= oldest.size
                    answer.elide(oldest)
            elif kept > RUNNING_BUDGET or any(r.elided for r in rows[:-1]):
                answer.elide(row)  # newest first: once one result is out, every later one is
            if not row.success and on_error == "stop":
                stopped_at = index
                break
        answer.stopped_at = stopped_at
        answer.fit()
        return answer

    async def _run_one(self, call: Call, index: int, operation: Operation) -> Row:
        started = time.perf_counter()
        runtime = self.runtime
        if (
            runtime.tool(operation.tool) is None
        ):  # callers check names first; a stale one is harmless
            message = f"{operation.tool} is not served by the {runtime.profile} profile."
            return Row(index, operation.tool, message, None, 0.0, outside=True)
        if operation.params is not None:
            result = await runtime.run_checked(operation.tool, operation.params, call)
        else:
            result = await runtime.call(operation.tool, operation.arguments or {}, call)
        elapsed = time.perf_counter() - started
        error = cap_text(result_text(result), ERROR_CAP) if result.is_error else None
        if error is not None:  # the row's own result carries the capped message too
            result = types.CallToolResult(
                content=[types.TextContent(type="text", text=error)], is_error=True
            )
        return Row(index, operation.tool, error, result, elapsed)


def arguments_json(arguments: Any) -> dict[str, Any]:
    """Arguments as the caller sent them, from a generated model or a plain mapping."""
    if isinstance(arguments, BaseModel):
        dumped: dict[str, Any] = arguments.model_dump(mode="json", by_alias=True)
        return dumped
    return dict(arguments)
