"""The rust flavour of call_read_tools_batch: rows carrying the nested call's whole result,
a JSON-RPC error object for a call that never reached its tool, and the family's counts.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ...errors import ToolError, envelope_data
from ...generated.rust.models.call_read_tools_batch import (
    CallReadToolsBatchInput,
    CallReadToolsBatchOutput,
)
from ...seam import Call
from ..batch import Answer, Batch, Operation, Row, arguments_json, texts
from ..services import ArgumentsRefused, Runtime

INVALID_PARAMS = -32602


class RustRows:
    """Rows as the family writes them; the answer's text is its JSON (the profile's rule)."""

    def result_part(self, row: Row) -> Any:
        if row.result is None:
            return None
        part: dict[str, Any] = {"content": texts(row.result)}
        if not row.result.is_error and row.result.structured_content is not None:
            part["structuredContent"] = row.result.structured_content
        part["isError"] = bool(row.result.is_error)
        return part

    def error_part(self, row: Row) -> dict[str, Any] | None:
        if not row.outside or row.error is None:
            return None
        return {
            "code": INVALID_PARAMS,
            "message": row.error,
            "data": envelope_data("invalid_input"),
        }

    def row(self, row: Row) -> dict[str, Any]:
        return {
            "index": row.index,
            "tool": row.tool,
            "success": row.success,
            "resultTruncated": row.elided,
            "result": self.result_part(row),
            "error": self.error_part(row),
        }

    def answer(self, batch: Answer) -> dict[str, Any]:
        return {
            "results": [self.row(row) for row in batch.rows],
            "succeeded": batch.succeeded,
            "failed": batch.failed,
            "stoppedAt": batch.stopped_at,
            "truncated": batch.elided > 0,
            "truncatedBytes": batch.truncated_bytes,
            "onError": batch.on_error,
        }

    def text(self, batch: Answer, structured: dict[str, Any]) -> str | None:
        return None


class BatchTools:
    """call_read_tools_batch: the shared engine, results dropped lowest index first."""

    def __init__(self, runtime: Runtime) -> None:
        self.batch = Batch(runtime, RustRows(), oldest_first=True)

    async def call_read_tools_batch(
        self, call: Call, params: CallReadToolsBatchInput
    ) -> CallReadToolsBatchOutput:
        """Check every served operation's arguments as a direct call would (left out means
        ``{}``), then run them in order; one refused refuses the batch before anything runs.

        A tool the selection does not serve is not refused up front: its row fails with a
        JSON-RPC error, as the family's batch answers it.
        """
        on_error = str(params.on_error)
        operations = []
        for index, op in enumerate(params.operations):
            given = op.arguments
            arguments = arguments_json(given) if isinstance(given, (BaseModel, dict)) else {}
            if self.batch.runtime.tool(op.tool) is None:
                operations.append(Operation(op.tool, arguments))
                continue
            checked = self._check(op.tool, arguments, index)
            operations.append(Operation(op.tool, arguments, checked))
        answer = await self.batch.run(call, operations, on_error)
        structured, _ = answer.rendered()
        return CallReadToolsBatchOutput.model_validate(structured)

    def _check(self, name: str, arguments: dict[str, Any], index: int) -> BaseModel:
        try:
            return self.batch.runtime.check_arguments(
                name, arguments, ("operations", index, "arguments")
            )
        except ArgumentsRefused as exc:
            raise ToolError(exc.message, kind="invalid_input") from None
