"""The python flavour of call_read_tools_batch: libtmux-mcp's rows and counts.

Only inspect tools may be named, never the batch itself and never a tool
that waits on its own clock (wait_for_text): a read batch must end quickly.
Every operation is checked before any runs, its arguments exactly as a direct
call's are (``check_arguments``): a tool the batch may not call, or arguments
the tool's contract or model rejects, refuse the whole call, and nothing runs.
"""

from __future__ import annotations

from typing import Any

from pydantic import MISSING, BaseModel

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.call_read_tools_batch import (
    CallReadToolsBatchInput,
    CallReadToolsBatchOutput,
)
from ...seam import Call
from ..batch import Answer, Batch, Operation, Row, texts
from ..services import ArgumentsRefused, Runtime, ServedTool

BATCH_TOOL = "call_read_tools_batch"
SELF_BOUNDED = "self-bounded"


class PythonRows:
    """A row carries the nested call's content and structured result side by side."""

    def result_part(self, row: Row) -> Any:
        if row.result is None:
            return {"content": [], "structured_content": None}
        return {
            "content": texts(row.result),
            "structured_content": None if row.result.is_error else row.result.structured_content,
        }

    def row(self, row: Row) -> dict[str, Any]:
        return {
            "index": row.index,
            "tool": row.tool,
            "success": row.success,
            "error": row.error,
            **self.result_part(row),
            "meta": {"result_truncated": True} if row.elided else None,
            "elapsed_seconds": round(row.elapsed, 6),
        }

    def answer(self, batch: Answer) -> dict[str, Any]:
        return {
            "results": [self.row(row) for row in batch.rows],
            "succeeded": batch.succeeded,
            "failed": batch.failed,
            "stopped_at": batch.stopped_at,
            "response_truncated": batch.elided > 0,
            "response_truncated_bytes": batch.truncated_bytes,
        }

    def text(self, batch: Answer, structured: dict[str, Any]) -> None:
        return None  # the JSON of the answer, as every other tool of the profile


class BatchTools:
    """call_read_tools_batch: every operation judged before the first runs, rows side by side."""

    def __init__(self, runtime: Runtime) -> None:
        self.batch = Batch(runtime, PythonRows())

    async def call_read_tools_batch(
        self, call: Call, params: CallReadToolsBatchInput
    ) -> CallReadToolsBatchOutput:
        operations = []
        for index, op in enumerate(params.operations):
            arguments = None if op.arguments is MISSING else dict(op.arguments)
            checked = check_operation(self.batch.runtime, op.tool, arguments, index)
            operations.append(Operation(op.tool, arguments, checked))
        answer = await self.batch.run(call, operations, params.on_error or "stop")
        return CallReadToolsBatchOutput.model_validate(answer.structured())


def check_operation(
    runtime: Runtime, name: str, arguments: dict[str, Any] | None, index: int
) -> BaseModel:
    """Refuse, before anything runs, an operation the batch may not or cannot run.

    The arguments get the whole check a direct call gets (``check_arguments``);
    what it admits is what the operation runs with.
    """
    field = f"operations[{index}].tool"
    tool: ServedTool | None = runtime.tool(name)
    if tool is None:
        raise InvalidArgument(
            field, name, "is not a tool of this server", "Name an inspect tool, e.g. list_panes."
        )
    if name == BATCH_TOOL:
        raise InvalidArgument(field, name, "cannot be nested", "List its operations directly.")
    if tool.toolset != "inspect":
        raise InvalidArgument(
            field,
            name,
            f"is a {tool.toolset} tool; a read batch runs inspect tools only",
            "Call it on its own.",
        )
    if SELF_BOUNDED in tool.tags:
        raise InvalidArgument(
            field,
            name,
            "waits on its own clock and cannot run inside a batch",
            "Call it on its own.",
        )
    try:
        return runtime.check_arguments(name, arguments or {}, ("operations", index, "arguments"))
    except ArgumentsRefused as exc:
        raise ToolError(
            f"Invalid arguments for {name} in operations[{index}]: "
            + "; ".join(exc.problems)
            + ". Nothing was run; fix them (see that tool's input schema) and call again."
        ) from None
