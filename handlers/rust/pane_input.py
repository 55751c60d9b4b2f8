"""Input in the rust profile: send_keys, send_keys_batch and paste_text.

Raw ids only. The checks and the typing are the shared core's (``tmux.objects.input``);
this part gives them the family's fields and shapes. A batch's rows are the
read batch's envelope with ``tool: "send_keys"`` and a row error in JSON-RPC's
``{code, message, data}`` form carrying the failure's kind.
"""

from __future__ import annotations

from typing import Any

from pydantic import MISSING

from ...errors import ToolError, envelope_data
from ...generated.rust.models.paste_text import PasteTextInput, PasteTextOutput
from ...generated.rust.models.send_keys import SendKeysInput, SendKeysOutput
from ...generated.rust.models.send_keys_batch import (
    SendKeysBatchInput,
    SendKeysBatchOutput,
    SendOperation,
)
from ...seam import Call
from ..tmux.objects.blocked import NO_MODE_TOOL
from ..tmux.objects.input import PaneInput, Typing, check_batch_size, sends_something
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import check_pane_id
from ..tmux.policy.ledger import Ledger

INVALID_PARAMS = -32602

# The family has no tool that leaves a mode: a refusal says how, and what shows a mode.
LEAVE_MODE = NO_MODE_TOOL + " snapshot_pane says whether a pane is in a mode (in_mode, mode)."

INTERNAL_ERROR = -32603


def typing_of(params: SendKeysInput | SendOperation, prefix: str = "") -> Typing:
    """What a send_keys call (or a batch row) types, shapes checked before tmux runs."""
    check_pane_id(params.pane, f"{prefix}pane")
    text = params.text if isinstance(params.text, str) else ""
    keys = tuple(params.keys) if isinstance(params.keys, list) else ()
    return sends_something(
        Typing(text, keys, params.enter is True),
        f"{prefix}text",
        None if params.text is MISSING else params.text,
        "Give `text` to type, `keys` to send, or `enter: true`.",
    )


def row_error(exc: ToolError) -> dict[str, Any]:
    """A failed row's error: JSON-RPC's shape, with the kind the direct call would send."""
    code = INVALID_PARAMS if exc.kind == "invalid_input" else INTERNAL_ERROR
    return {"code": code, "message": exc.message, "data": envelope_data(exc.kind)}


class PaneInputTools:
    def __init__(self, tmux: Tmux, ledger: Ledger) -> None:
        self.tmux = tmux
        self.input = PaneInput(tmux, ledger, leave=LEAVE_MODE)

    async def send_keys(self, call: Call, params: SendKeysInput) -> SendKeysOutput:
        typing = typing_of(params)
        return SendKeysOutput.model_validate(await self._send(self.tmux.server(), params, typing))

    async def _send(
        self,
        server: Server,
        params: SendKeysInput | SendOperation,
        typing: Typing,
        prefix: str = "",
    ) -> dict[str, Any]:
        found = await self.input.send(
            server, params.pane, typing, tool="send_keys", field=f"{prefix}pane"
        )
        return {"pane": params.pane, "panes": found.ids}

    async def send_keys_batch(self, call: Call, params: SendKeysBatchInput) -> SendKeysBatchOutput:
        operations = params.operations
        check_batch_size(len(operations))
        typings = [typing_of(op, f"operations[{at}].") for at, op in enumerate(operations)]
        stop = params.on_error == "stop"
        server = self.tmux.server()
        results: list[dict[str, Any]] = []
        stopped_at: int | None = None
        for at, (operation, typing) in enumerate(zip(operations, typings, strict=True)):
            row: dict[str, Any] = {"index": at, "tool": "send_keys", "resultTruncated": False}
            try:
                sent = await self._send(server, operation, typing, f"operations[{at}].")
            except ToolError as exc:
                results.append({**row, "success": False, "result": None, "error": row_error(exc)})
                if stop:
                    stopped_at = at
                    break
            else:
                results.append({**row, "success": True, "result": sent, "error": None})
        succeeded = sum(1 for row in results if row["success"])
        return SendKeysBatchOutput.model_validate(
            {
                "results": results,
                "succeeded": succeeded,
                "failed": len(results) - succeeded,
                "stoppedAt": stopped_at,
                "truncated": False,
                "truncatedBytes": 0,
                "onError": params.on_error,
            }
        )

    async def paste_text(self, call: Call, params: PasteTextInput) -> PasteTextOutput:
        pane_id = check_pane_id(params.pane, "pane")
        await self.input.paste(
            self.tmux.server(),
            pane_id,
            params.text,
            enter=params.enter is True,
            tool="paste_text",
            field="pane",
        )
        return PasteTextOutput(pane=pane_id, bytes=len(params.text.encode("utf-8")))
