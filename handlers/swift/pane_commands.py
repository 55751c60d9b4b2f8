"""run_shell_command in the swift family's shapes: a command run at a pane's shell,
followed through the pane's output stream (``tmux.objects.shell``), for
``timeoutMs`` (30 s when omitted) cut to the server's ceiling; ``effectiveTimeout``
says what applied. A pane that goes while it runs is an error naming what went.
"""

from __future__ import annotations

import time

from ...errors import ToolError
from ...generated.swift.models.run_shell_command import RunShellCommandInput, RunShellCommandOutput
from ...seam import Call
from ..tmux.objects import capture
from ..tmux.objects.input import PaneInput
from ..tmux.objects.refs import Refs
from ..tmux.objects.shell import check_command, start_run
from ..tmux.objects.waits import gone_while_waiting
from ..tmux.policy.ledger import Ledger
from .arguments import given, wait_limit
from .config import SwiftConfig
from .pane_input import LEAVE_MODE
from .targets import Lookups


class PaneCommandTools:
    def __init__(self, lookups: Lookups, refs: Refs, config: SwiftConfig, ledger: Ledger) -> None:
        self.lookups = lookups
        self.refs = refs
        self.config = config
        self.input = PaneInput(lookups.tmux, ledger, forceable=True, leave=LEAVE_MODE)

    async def run_shell_command(
        self, call: Call, params: RunShellCommandInput
    ) -> RunShellCommandOutput:
        command = check_command(params.command)
        max_lines = given(params.maxLines, capture.DEFAULT_MAX_LINES)
        limit = wait_limit(params.timeoutMs, self.config)
        lookup = self.lookups.for_call()
        row = await lookup.pane(params.paneId)
        started = time.monotonic()
        run = await start_run(
            lookup.server,
            row.pane_id,
            self.input,
            "run_shell_command",
            field="paneId",
            force=given(params.force, False) is True,
        )
        if run is None:
            raise ToolError(
                f"Pane {row.pane_id} on tmux {lookup.server.socket} is not at the prompt of sh, "
                "ash, bash, dash, ksh, mksh, pdksh or zsh (it runs "
                f"{row['pane_current_command'] or 'an unknown program'!r}); nothing was typed. "
                "Wait for its program to finish (wait_for_text) or use a pane at a shell prompt.",
                kind="refused",
            )
        result = await run.run(command, True, limit)
        if result.outcome == "pane_closed":
            raise await gone_while_waiting(lookup.server, row, time.monotonic() - started)
        if result.outcome == "no_shell":
            raise ToolError(
                f"No shell took the command in pane {row.pane_id} on tmux "
                f"{lookup.server.socket} within {limit:g}s: its start marker never printed. The "
                "pane stays reserved until the line runs or the pane exits; look at it with "
                "snapshot_pane.",
                kind="timeout",
            )
        lines = result.output.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        kept = capture.newest(lines, max_lines)
        return RunShellCommandOutput.model_validate(
            {
                "paneRef": self.refs.make("pane", row.pane_id, row.server_tag),
                "pane": row.pane_id,
                "exitStatus": result.exit_status,
                "timedOut": result.outcome == "deadline",
                "output": kept.lines,
                "linesMissed": result.truncated,
                "droppedLines": kept.dropped,
                "seconds": round(time.monotonic() - started, 3),
                "effectiveTimeout": limit,
            }
        )
