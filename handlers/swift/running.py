"""run_shell_command and wait_for_text in the swift family's shapes.

Both read what the pane prints from the pane's output stream (``tmux.shell``,
``tmux.textwait``); their time is ``timeoutMs`` (30 s when omitted) cut to the
server's ceiling, and ``effectiveTimeout`` says what applied. A pane that goes
while they wait is an error naming what went.
"""

from __future__ import annotations

import time

from ...errors import ToolError
from ...generated.swift.models.run_shell_command import (
    RunShellCommandInput,
    RunShellCommandOutput,
)
from ...generated.swift.models.wait_for_text import WaitForTextInput, WaitForTextOutput
from ..tmux.errors import NoServer
from ..tmux.objects import capture
from ..tmux.objects.input import PaneInput
from ..tmux.objects.patterns import Patterns
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import FOLLOWED_FIELDS, PaneRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.shell import check_command, start_run
from ..tmux.objects.textwait import Found, TextWait, judge_rows, screen_rows
from ..tmux.objects.waits import server_went, went_away
from ..tmux.policy.ledger import Ledger
from .config import SwiftConfig
from .lookup import Lookups, given

DEFAULT_TIMEOUT_MS = 30_000


class Running:
    def __init__(
        self, tmux: Tmux, lookups: Lookups, refs: Refs, config: SwiftConfig, ledger: Ledger
    ) -> None:
        self.tmux = tmux
        self.lookups = lookups
        self.refs = refs
        self.config = config
        self.ledger = ledger
        self.input = PaneInput(tmux, ledger, forceable=True)

    def limit(self, timeout_ms: object) -> float:
        milliseconds: int = given(timeout_ms, DEFAULT_TIMEOUT_MS)
        return min(milliseconds / 1000, self.config.wait_ceiling)

    async def run_shell_command(self, params: RunShellCommandInput) -> RunShellCommandOutput:
        command = check_command(params.command)
        max_lines = given(params.maxLines, capture.DEFAULT_MAX_LINES)
        limit = self.limit(params.timeoutMs)
        lookup = self.lookups()
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
            raise await gone(lookup.server, row, time.monotonic() - started)
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

    async def wait_for_text(self, params: WaitForTextInput) -> WaitForTextOutput:
        regex = given(params.regex, False) is True
        patterns = Patterns.build("patterns", params.patterns, regex, True)
        stop = Patterns.build("stop", given(params.stop, None), regex, True)
        max_lines = given(params.maxLines, capture.DEFAULT_MAX_LINES)
        limit = self.limit(params.timeoutMs)
        lookup = self.lookups()
        row = await lookup.pane(params.paneId)
        token = given(params.cursor)
        cursor = capture.open_cursor(self.refs, token, row.pane_id) if token is not None else None
        server = lookup.server
        pane = server.pane(row.pane_id, "paneId")
        started = time.monotonic()
        wait = TextWait(server, row, patterns, stop, self.ledger, limit)

        async def entry(now: PaneRow) -> Found | None:
            """Without a cursor the screen counts; with one, the rows printed after it."""
            recent = self.ledger.recent(row.pane_id)
            if cursor is None:
                rows, _ = await screen_rows(pane, now)
            else:
                rows = (await capture.read_since(pane, now, cursor, max_lines)).lines
            return judge_rows(rows, recent, stop, patterns, complete=True)

        found = await wait.run(entry)
        if found.outcome == "pane_closed":
            raise await gone(server, row, time.monotonic() - started)
        now = await pane.display_message(FOLLOWED_FIELDS)
        tail: list[str] = []
        next_cursor = None
        if now is not None:
            screen = capture.trim_blank_tail(await pane.capture_pane())
            tail = capture.newest(screen, max_lines).lines
            full = await pane.display_message()
            if full is not None:
                since = await capture.read_since(pane, full, None, 1)
                next_cursor = capture.seal_cursor(self.refs, since.cursor)
        outcome = {"matched": "matched", "stopped": "stopped"}.get(found.outcome, "timeout")
        return WaitForTextOutput.model_validate(
            {
                "paneRef": self.refs.make("pane", row.pane_id, row.server_tag),
                "outcome": outcome,
                "matched": found.line if outcome != "timeout" else None,
                "matchedIndex": found.index if outcome != "timeout" else None,
                "matchedAtEntry": wait.at_entry,
                "sawNewOutput": wait.printed,
                "tail": tail,
                "cursor": next_cursor,
                "seconds": round(time.monotonic() - started, 3),
                "effectiveTimeout": limit,
            }
        )


async def gone(server: Server, row: PaneRow, waited: float) -> ToolError:
    """The error for a pane that went (or died) while a call waited on it."""
    try:
        return await went_away(server, row, waited)
    except NoServer:
        return server_went(server.socket, row.pane_id, waited)
