"""call_read_tools_batch: up to 16 inspect calls, run in order, in one bounded answer.

Each operation goes through the same dispatch as a direct call (its own
contract, its own output check), so a row's result is exactly what that tool
would have answered alone. The whole answer must fit one JSON-RPC line of at
most 1,000,000 bytes, whatever the request id costs: results are elided
newest first, while every row's metadata stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp.types as types
from mcp.shared.exceptions import MCPError
from pydantic import MISSING, BaseModel

from ...dispatch import call_tool, compact_json, success_result
from ...profiles import Profile, load_profile
from ...reply import Reply
from ...wire import LINE_CAP, response_line_bytes

ERROR_CAP = 4096  # bytes of one row's error message
SHORT_ERROR_CAP = 256  # when even metadata is tight (a huge request id)
RUNNING_BUDGET = 900_000  # bytes of results kept while the batch runs
INTERNAL_ERROR = -32603


def cap_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, marked when cut."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    marker = " [... cut]"
    return data[: limit - len(marker)].decode("utf-8", "ignore") + marker


def envelope(result: types.CallToolResult) -> dict[str, Any]:
    """A nested result as the tool would have sent it on its own."""
    return {
        "content": [
            {"type": "text", "text": block.text}
            for block in result.content
            if isinstance(block, types.TextContent)
        ],
        "structuredContent": result.structured_content,
        "isError": bool(result.is_error),
    }


def result_text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


@dataclass
class Row:
    index: int
    tool: str
    error: str | None
    result: dict[str, Any] | None
    size: int  # encoded bytes of ``result``

    @property
    def success(self) -> bool:
        return self.error is None

    def elide(self) -> int:
        """Drop the result; the bytes saved as the reference counts them (minus ``null``)."""
        saved = self.size - len("null")
        self.result = None
        return saved

    def as_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "tool": self.tool,
            "success": self.success,
            "error": self.error,
            "result": self.result,
            "resultTruncated": self.result is None,
        }


def failed_row(index: int, tool: str, message: str) -> Row:
    message = cap_text(message, ERROR_CAP)
    result = {
        "content": [{"type": "text", "text": message}],
        "structuredContent": None,
        "isError": True,
    }
    return Row(index, tool, message, result, len(compact_json(result).encode()))


class Batch:
    """Runs a batch through the dispatch of the profile it belongs to."""

    def __init__(self, profile_name: str, handlers: Any) -> None:
        self.profile_name = profile_name
        self.handlers = handlers
        self._profile: Profile | None = None

    @property
    def profile(self) -> Profile:
        if self._profile is None:
            self._profile = load_profile(self.profile_name)
        return self._profile

    async def run(self, params: Any, output: type[BaseModel]) -> Reply[Any]:
        on_error = params.onError if params.onError is not MISSING else "stop"
        rows: list[Row] = []
        stopped_at: int | None = None
        kept = 0
        for index, operation in enumerate(params.operations):
            name = operation.tool
            arguments = operation.arguments
            args = {} if arguments is MISSING else arguments_json(arguments)
            tool = self.profile.tool(name)
            if tool is None:  # the schema's oneOf lists only served tools
                rows.append(failed_row(index, name, f"{name} is not served by this profile."))
            else:
                result = await call_tool(tool, self.handlers, args)
                if result.is_error:
                    rows.append(failed_row(index, name, result_text(result)))
                else:
                    body = envelope(result)
                    rows.append(Row(index, name, None, body, len(compact_json(body).encode())))
            row = rows[-1]
            kept += row.size
            if kept > RUNNING_BUDGET or any(r.result is None for r in rows[:-1]):
                row.elide()  # newest first: once one result is out, every later one is too
            if not row.success and on_error == "stop":
                stopped_at = index
                break
        answer = Answer(rows, on_error, stopped_at)
        answer.fit()
        return Reply(output.model_validate(answer.structured()), answer.summary())


def arguments_json(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, BaseModel):
        dumped: dict[str, Any] = arguments.model_dump(mode="json", by_alias=True)
        return dumped
    return dict(arguments)


@dataclass
class Answer:
    rows: list[Row]
    on_error: str
    stopped_at: int | None
    truncated_bytes: int = 0

    def structured(self) -> dict[str, Any]:
        succeeded = sum(1 for row in self.rows if row.success)
        return {
            "results": [row.as_json() for row in self.rows],
            "succeeded": succeeded,
            "failed": len(self.rows) - succeeded,
            "stoppedAt": self.stopped_at,
            "onError": self.on_error,
            "truncated": any(row.result is None for row in self.rows),
            "truncatedBytes": self.truncated_bytes,
        }

    def summary(self) -> str:
        data = self.structured()
        text = (
            f"Ran {len(self.rows)} operation{'s' if len(self.rows) != 1 else ''}: "
            f"{data['succeeded']} succeeded, {data['failed']} failed"
        )
        if self.stopped_at is not None:
            text += f"; stopped at operation {self.stopped_at} (onError: stop)"
        elided = sum(1 for row in self.rows if row.result is None)
        if elided:
            text += (
                f"; {elided} result{'s' if elided != 1 else ''} left out newest first "
                f"({self.truncated_bytes} bytes) to stay under the {LINE_CAP:,}-byte response cap"
            )
        return text + "."

    def line_bytes(self) -> int:
        return response_line_bytes(success_result(self.structured(), self.summary()))

    def fit(self) -> None:
        """Elide results newest first until the exact response line fits the cap."""
        for row in self.rows:  # results elided while running count too
            if row.result is None and row.size:
                self.truncated_bytes += row.size - len("null")
                row.size = 0
        while (size := self.line_bytes()) > LINE_CAP:
            newest = next((r for r in reversed(self.rows) if r.result is not None), None)
            if newest is not None:
                self.truncated_bytes += newest.elide()
                newest.size = 0
                continue
            if self._shorten_errors():
                continue
            raise MCPError(
                code=INTERNAL_ERROR,
                message=(
                    f"The batch ran {len(self.rows)} operations, but even its row metadata "
                    f"({size} bytes with this request id) exceeds the {LINE_CAP:,}-byte "
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
