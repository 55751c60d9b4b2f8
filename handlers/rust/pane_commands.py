"""run_shell_command in the rust family's shapes: a command run at a pane's shell,
followed through the pane's output stream (``tmux.objects.shell``), for ``seconds``
(30 when omitted, at most 600).
"""

from __future__ import annotations

from typing import Any

from ...generated.rust.models.run_shell_command import RunShellCommandInput, RunShellCommandOutput
from ...seam import Call
from ..tmux.objects import Tmux
from ..tmux.objects.input import PaneInput
from ..tmux.objects.shell import check_command, start_run
from ..tmux.objects.targets import check_pane_id
from ..tmux.policy.ledger import Ledger
from .arguments import seconds_of
from .pane_input import LEAVE_MODE


class PaneCommandTools:
    def __init__(self, tmux: Tmux, ledger: Ledger) -> None:
        self.tmux = tmux
        self.input = PaneInput(tmux, ledger, leave=LEAVE_MODE)

    async def run_shell_command(
        self, call: Call, params: RunShellCommandInput
    ) -> RunShellCommandOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        command = check_command(params.command)
        limit = seconds_of(params.seconds if isinstance(params.seconds, int) else None)
        server = self.tmux.server()
        run = await start_run(server, pane_id, self.input, "run_shell_command", field="pane")
        answer: dict[str, Any]
        if run is None:  # nothing typed: no shell at the prompt to take the line
            answer = {"outcome": "no_shell", "output": "", "bytes": 0, "truncated": False}
            answer |= {"pane": pane_id, "exit_status": None}
            return RunShellCommandOutput.model_validate(answer)
        result = await run.run(command, params.suppress_history, limit)
        return RunShellCommandOutput.model_validate(
            {
                "pane": result.pane_id,
                "outcome": result.outcome,
                "output": result.output,
                "bytes": result.bytes,
                "truncated": result.truncated,
                "exit_status": result.exit_status,
            }
        )
