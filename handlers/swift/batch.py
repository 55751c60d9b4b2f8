"""The swift flavour of call_read_tools_batch: seed 002's rows, counts and summary."""

from __future__ import annotations

from typing import Any

from pydantic import MISSING, BaseModel

from ...errors import InvalidArgument, ToolError
from ...generated.swift.models.call_read_tools_batch import (
    CallReadToolsBatchInput,
    CallReadToolsBatchOutput,
)
from ...reply import Reply
from ...seam import Call
from ..batch import Answer, Batch, Operation, Row, arguments_json, texts
from ..services import ArgumentsRefused, Runtime


class SwiftRows:
    """A row carries the nested call's whole envelope, as the tool answered alone."""

    def result_part(self, row: Row) -> Any:
        if row.result is None:
            return None
        return {
            "content": texts(row.result),
            "structuredContent": None if row.result.is_error else row.result.structured_content,
            "isError": bool(row.result.is_error),
        }

    def row(self, row: Row) -> dict[str, Any]:
        return {
            "index": row.index,
            "tool": row.tool,
            "success": row.success,
            "error": row.error,
            "result": self.result_part(row),
            "resultTruncated": row.elided,
        }

    def answer(self, batch: Answer) -> dict[str, Any]:
        return {
            "results": [self.row(row) for row in batch.rows],
            "succeeded": batch.succeeded,
            "failed": batch.failed,
            "stoppedAt": batch.stopped_at,
            "onError": batch.on_error,
            "truncated": batch.elided > 0,
            "truncatedBytes": batch.truncated_bytes,
        }

    def text(self, batch: Answer, structured: dict[str, Any]) -> str:
        """One line, not JSON: the counts, where it stopped, what was left out."""
        count = len(batch.rows)
        line = (
            f"Ran {count} operation{'s' if count != 1 else ''}: "
            f"{batch.succeeded} succeeded, {batch.failed} failed"
        )
        if batch.stopped_at is not None:
            line += f"; stopped at operation {batch.stopped_at} (onError: stop)"
        if batch.elided:
            line += (
                f"; {batch.elided} result{'s' if batch.elided != 1 else ''} left out newest "
                f"first ({batch.truncated_bytes} bytes) to stay under the {batch.wire.line_cap:,}-byte "
                "response cap"
            )
        return line + "."


class BatchTools:
    """call_read_tools_batch: rows carrying whole envelopes, and a one-line summary as text."""

    def __init__(self, runtime: Runtime) -> None:
        self.batch = Batch(runtime, SwiftRows())

    async def call_read_tools_batch(
        self, call: Call, params: CallReadToolsBatchInput
    ) -> Reply[CallReadToolsBatchOutput]:
        """Check every operation's arguments as a direct call would, then run them in order.

        An operation naming a tool the selection hides (the batch's nested authority is
        the reads served) refuses the whole call before anything runs.

        The batch's schema already admitted each operation; checking each with its
        own tool's ``check_arguments`` too means a row runs on exactly what a direct
        call would run on. An operation without ``arguments`` is checked when it is
        reached, so one whose tool needs some fails as its own row.
        """
        on_error = params.onError if params.onError is not MISSING else "stop"
        operations = []
        for index, op in enumerate(params.operations):
            if self.batch.runtime.tool(op.tool) is None:
                raise InvalidArgument(
                    f"operations[{index}].tool",
                    op.tool,
                    "is not served by this server (the tool selection leaves it out: "
                    "LIBTMUX_TOOLSETS, LIBTMUX_EXCLUDE_TOOLS), so the batch may not call it "
                    "either; nothing was run",
                    "Remove that operation, or read tmux://capabilities for the tools served.",
                )
            if op.arguments is MISSING:
                operations.append(Operation(op.tool, None))
                continue
            arguments = arguments_json(op.arguments)
            operations.append(Operation(op.tool, arguments, self._check(op.tool, arguments, index)))
        answer = await self.batch.run(call, operations, on_error)
        structured, text = answer.rendered()
        assert text is not None
        return Reply(CallReadToolsBatchOutput.model_validate(structured), text)

    def _check(self, name: str, arguments: dict[str, Any], index: int) -> BaseModel:
        try:
            return self.batch.runtime.check_arguments(
                name, arguments, ("operations", index, "arguments")
            )
        except ArgumentsRefused as exc:
            raise ToolError(exc.message) from None
