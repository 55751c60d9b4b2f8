"""Typing into panes: send_keys, send_keys_batch and paste_text.

send_keys uses ``send-keys``: ``-l`` for text, a bare argument for a key name, always
after ``--`` so a value starting with ``-`` is never a flag. tmux expands nothing
in send-keys arguments (no ``-F``), and every value travels as an argument of its
own, so ``#{…}``, ``#(…)`` and ``;`` are typed as they are. Long text goes in
pieces: a tmux client refuses a command of more than about 16 KB.

paste_text pastes through a paste buffer of its own, with a random name, deleted by
``paste-buffer -d``; its text is written with ``set-buffer`` (``Buffer.set_buffer``).

Every one of them types or pastes only while tmux finds the pane (and, for keys, the
panes synchronized with it) in no mode, alive and taking input, in the same command
that types (``tmux.objects.blocked``); otherwise it is refused, nothing typed, with
``exit_copy_mode`` named as the way out of a mode.
"""

from __future__ import annotations

import contextlib
import math
import secrets

import anyio

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.paste_text import PasteTextInput, PasteTextOutput
from ...generated.python.models.send_keys import SendKeysInput, SendKeysOutput
from ...generated.python.models.send_keys_batch import (
    SendKeysBatchInput,
    SendKeysBatchInputOperation,
    SendKeysBatchOutput,
    SendKeysBatchOutputResult,
)
from ...seam import Call
from ..tmux.objects.blocked import InputCheck, type_checked
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import WindowSelector, check_pane_id, check_session_pair
from ..tmux.transport.quoting import CHUNK_BYTES, pieces
from .arguments import checked_timeout, typeable
from .targets import pane_to_type_into, selector_of, target_pane


def key_commands(
    pane_id: str, keys: str, *, literal: bool, enter: bool, suppress_history: bool
) -> list[tuple[str, ...]]:
    """The send-keys commands typing ``keys`` into ``pane_id``.

    Not literal, one value is one tmux argument: a key name sends that key and any
    other string is typed as text (tmux's own rule). A value too long for one command
    is no key name, so it is typed as text in pieces.
    """
    prefix = " " if suppress_history else ""
    if not literal and len(keys.encode("utf-8")) <= CHUNK_BYTES:
        keys_args = [arg for arg in (prefix, keys) if arg]
        tail = ["Enter"] if enter else []
        if not keys_args and not tail:
            return []
        return [("send-keys", "-t", pane_id, "--", *keys_args, *tail)]
    commands: list[tuple[str, ...]] = [
        ("send-keys", "-l", "-t", pane_id, "--", piece) for piece in pieces(prefix + keys)
    ]
    if enter:
        commands.append(("send-keys", "-t", pane_id, "Enter"))
    return commands


# The family's way out of a mode, as a refusal says it (``blocked.InputCheck``).
LEAVE_MODE = "Call exit_copy_mode (pane_id {pane}) to leave the mode, then call {tool} again."


def typing_check(tool: str, field: str = "pane_id", *, cohort: bool = True) -> InputCheck:
    """How ``tool``'s typing is checked by tmux as it types (``cohort``: keys, not a paste)."""
    return InputCheck(tool, LEAVE_MODE, field, cohort)


async def send(
    server: Server,
    pane_id: str,
    keys: str,
    *,
    literal: bool,
    enter: bool,
    suppress_history: bool,
    tool: str,
    field: str = "pane_id",
) -> None:
    """Type ``keys`` (nothing to type: the check alone, which names a missing pane too)."""
    commands = key_commands(
        pane_id, keys, literal=literal, enter=enter, suppress_history=suppress_history
    )
    await type_checked(server, pane_id, commands, typing_check(tool, field))


class PaneInputTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def send_keys(self, call: Call, params: SendKeysInput) -> SendKeysOutput:
        keys = typeable("keys", params.keys)
        server, pane_id = await pane_to_type_into(self.tmux, params)
        await send(
            server,
            pane_id,
            keys,
            literal=params.literal is True,
            enter=params.enter is not False,
            suppress_history=params.suppress_history is True,
            tool="send_keys",
        )
        return SendKeysOutput(result=f"Keys sent to pane {pane_id}")

    async def send_keys_batch(self, call: Call, params: SendKeysBatchInput) -> SendKeysBatchOutput:
        # Every operation is checked before anything is typed.
        selectors: list[WindowSelector] = []
        for index, operation in enumerate(params.operations):
            prefix = f"operations[{index}]."
            typeable(f"{prefix}keys", operation.keys)
            if operation.pane_id is not None:
                check_pane_id(operation.pane_id, f"{prefix}pane_id")
            selectors.append(
                selector_of(
                    operation.window_id, operation.session_name, operation.session_id, prefix
                )
            )
        timeout = params.timeout
        if timeout is not None and not (checked_timeout("timeout", timeout) > 0):
            raise InvalidArgument(
                "timeout",
                timeout,
                "must be more than 0",
                "Pass the seconds the whole batch may take, or null for no limit.",
            )
        stop_on_error = params.on_error != "continue"
        server = self.tmux.server(params.socket_name)
        for index, operation in enumerate(params.operations):
            await check_session_pair(
                server, operation.session_id, operation.session_name, f"operations[{index}]."
            )
        deadline = None if timeout is None else anyio.current_time() + timeout
        results: list[SendKeysBatchOutputResult] = []
        stopped_at: int | None = None
        for index, (operation, selector) in enumerate(
            zip(params.operations, selectors, strict=True)
        ):
            began = anyio.current_time()
            row, timed_out = await self._batch_one(server, index, operation, selector, deadline)
            row.elapsed_seconds = round(anyio.current_time() - began, 3)
            results.append(row)
            if not row.success and (stop_on_error or timed_out):
                stopped_at = index
                break
        succeeded = sum(1 for row in results if row.success)
        return SendKeysBatchOutput(
            results=results,
            succeeded=succeeded,
            failed=len(results) - succeeded,
            stopped_at=stopped_at,
        )

    async def _batch_one(
        self,
        server: Server,
        index: int,
        operation: SendKeysBatchInputOperation,
        selector: WindowSelector,
        deadline: float | None,
    ) -> tuple[SendKeysBatchOutputResult, bool]:
        """One operation's row, and whether it ran out of the batch's time."""
        pane_id = operation.pane_id
        left = math.inf if deadline is None else deadline - anyio.current_time()
        if left <= 0:
            return (
                SendKeysBatchOutputResult(
                    index=index,
                    pane_id=pane_id,
                    success=False,
                    error=(
                        "Not started: the batch's timeout ran out before this operation. "
                        "Send it again, with a larger timeout if needed."
                    ),
                    elapsed_seconds=0.0,
                ),
                True,
            )
        try:
            with anyio.fail_after(None if math.isinf(left) else left):
                pane_id = await target_pane(server, operation.pane_id, selector)
                await send(
                    server,
                    pane_id,
                    operation.keys,
                    literal=operation.literal is True,
                    enter=operation.enter is not False,
                    suppress_history=operation.suppress_history is True,
                    tool="send_keys_batch",
                    field=f"operations[{index}].pane_id",
                )
        except TimeoutError:
            error = (
                "Did not finish before the batch's timeout ran out; its keys may have been "
                "sent in part. Look at the pane (capture_pane) before sending it again."
            )
            return self._failed(index, pane_id, error), True
        except ToolError as exc:
            return self._failed(index, pane_id, str(exc)), False
        return (
            SendKeysBatchOutputResult(
                index=index, pane_id=pane_id, success=True, error=None, elapsed_seconds=0.0
            ),
            False,
        )

    @staticmethod
    def _failed(index: int, pane_id: str | None, error: str) -> SendKeysBatchOutputResult:
        return SendKeysBatchOutputResult(
            index=index, pane_id=pane_id, success=False, error=error, elapsed_seconds=0.0
        )

    async def paste_text(self, call: Call, params: PasteTextInput) -> PasteTextOutput:
        text = typeable("text", params.text, nul=True)
        if not text:
            raise InvalidArgument("text", text, "is empty", "Pass the text to paste.")
        server, pane_id = await pane_to_type_into(self.tmux, params)
        buffer = server.buffer(f"tcm-paste-{secrets.token_hex(8)}")
        await buffer.set_buffer(text)
        try:
            await buffer.paste_buffer(
                server.pane(pane_id),
                bracket=params.bracket is not False,
                delete=True,
                check=typing_check("paste_text", cohort=False),
            )
        except BaseException:
            with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
                await buffer.delete_buffer()
            raise
        return PasteTextOutput(result=f"Text pasted to pane {pane_id}")
