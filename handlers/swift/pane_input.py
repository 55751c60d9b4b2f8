"""Input in the swift profile: send_keys, send_keys_batch and paste_text.

Panes are named by raw id or ref; ``force`` lifts only the check that a pane is
the one this MCP server runs in. The checks and the typing are the shared
core's (``tmux.objects.input``).
"""

from __future__ import annotations

import regex

from ...errors import InvalidArgument, ToolError
from ...generated.swift.models.paste_text import PasteTextInput, PasteTextOutput
from ...generated.swift.models.send_keys import SendKeysInput, SendKeysOutput
from ...generated.swift.models.send_keys_batch import (
    SendKeysBatchInput,
    SendKeysBatchInputOperation,
    SendKeysBatchOutput,
)
from ...seam import Call
from ..tmux.objects.blocked import NO_MODE_TOOL
from ..tmux.objects.input import PaneInput, Typing, check_batch_size
from ..tmux.objects.refs import Refs
from ..tmux.policy.ledger import Ledger
from .arguments import given
from .targets import Lookup, Lookups

_GRAPHEME = regex.compile(r"\X")

Sending = SendKeysInput | SendKeysBatchInputOperation


def typing_of(params: Sending, lookup: Lookup, prefix: str = "") -> Typing:
    """What a send_keys call (or a batch row) types, shapes checked before tmux runs."""
    lookup.pane_id(params.paneId, f"{prefix}paneId")
    if not params.keys:
        raise InvalidArgument(
            f"{prefix}keys",
            params.keys,
            "is empty",
            "Give at least one key name, or text with literal: true.",
        )
    enter = given(params.enter, False) is True
    if given(params.literal, False) is True:
        return Typing("".join(params.keys), (), enter)
    return Typing("", tuple(params.keys), enter)


def characters(text: str) -> int:
    """User-perceived characters: extended grapheme clusters, as the family counts them."""
    return len(_GRAPHEME.findall(text))


# The family has no tool that leaves a mode: a refusal says how, and what shows a mode.
LEAVE_MODE = NO_MODE_TOOL + " get_pane_info's modeCount says whether a pane is in a mode."


class PaneInputTools:
    def __init__(self, lookups: Lookups, refs: Refs, ledger: Ledger) -> None:
        self.lookups = lookups
        self.refs = refs
        self.input = PaneInput(lookups.tmux, ledger, forceable=True, leave=LEAVE_MODE)

    async def send_keys(self, call: Call, params: SendKeysInput) -> SendKeysOutput:
        lookup = self.lookups.for_call()
        typing = typing_of(params, lookup)
        return SendKeysOutput.model_validate(await self._send(lookup, params, typing))

    async def _send(
        self, lookup: Lookup, params: Sending, typing: Typing, prefix: str = ""
    ) -> dict[str, object]:
        field = f"{prefix}paneId"
        pane_id = await lookup.pane_target(params.paneId, field)
        found = await self.input.send(
            lookup.server,
            pane_id,
            typing,
            tool="send_keys",
            field=field,
            force=given(params.force, False) is True,
        )
        return {
            "keys": list(params.keys),
            "pane": found.pane.pane_id,
            "paneRef": self.refs.make("pane", found.pane.pane_id, found.pane.server_tag),
            "resolvedPaneIds": found.ids,
        }

    async def send_keys_batch(self, call: Call, params: SendKeysBatchInput) -> SendKeysBatchOutput:
        operations = params.operations
        check_batch_size(len(operations))
        lookup = self.lookups.for_call()
        typings = [typing_of(op, lookup, f"operations[{at}].") for at, op in enumerate(operations)]
        stop = given(params.onError, "stop") == "stop"
        failures: list[dict[str, object]] = []
        targets: list[dict[str, object]] = []
        for at, (operation, typing) in enumerate(zip(operations, typings, strict=True)):
            try:
                sent = await self._send(lookup, operation, typing, f"operations[{at}].")
            except ToolError as exc:
                failures.append({"index": at, "reason": exc.message})
                if stop:
                    break
            else:
                targets.append({"index": at, "resolvedPaneIds": sent["resolvedPaneIds"]})
        return SendKeysBatchOutput.model_validate(
            {"completed": len(targets), "failures": failures, "targets": targets}
        )

    async def paste_text(self, call: Call, params: PasteTextInput) -> PasteTextOutput:
        lookup = self.lookups.for_call()
        pane_id = await lookup.pane_target(params.paneId, "paneId")
        found = await self.input.paste(
            lookup.server,
            pane_id,
            params.text,
            enter=given(params.enter, False) is True,
            tool="paste_text",
            field="paneId",
            force=given(params.force, False) is True,
        )
        return PasteTextOutput(
            characters=characters(params.text),
            pane=found.pane.pane_id,
            paneRef=self.refs.make("pane", found.pane.pane_id, found.pane.server_tag),
        )
