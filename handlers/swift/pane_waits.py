"""wait_for_text in the swift family's shapes: it reads what the pane prints from
its output stream (``tmux.objects.textwait``) for ``timeoutMs`` (30 s when
omitted) cut to the server's ceiling, and ``effectiveTimeout`` says what applied.
A pane that goes while it waits is an error naming what went.
"""

from __future__ import annotations

import time

from ...generated.swift.models.wait_for_text import WaitForTextInput, WaitForTextOutput
from ...seam import Call
from ..tmux.objects import capture
from ..tmux.objects.patterns import Patterns
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import FOLLOWED_FIELDS, PaneRow
from ..tmux.objects.textwait import Found, TextWait, first_matching_row, screen_rows
from ..tmux.objects.waits import gone_while_waiting
from ..tmux.policy.ledger import Ledger
from .arguments import given, wait_limit
from .config import SwiftConfig
from .targets import Lookups


class PaneWaitTools:
    def __init__(self, lookups: Lookups, refs: Refs, config: SwiftConfig, ledger: Ledger) -> None:
        self.lookups = lookups
        self.refs = refs
        self.config = config
        self.ledger = ledger

    async def wait_for_text(self, call: Call, params: WaitForTextInput) -> WaitForTextOutput:
        regex = given(params.regex, False) is True
        patterns = Patterns.build("patterns", params.patterns, regex, True)
        stop = Patterns.build("stop", given(params.stop, None), regex, True)
        max_lines = given(params.maxLines, capture.DEFAULT_MAX_LINES)
        limit = wait_limit(params.timeoutMs, self.config)
        lookup = self.lookups.for_call()
        row = await lookup.pane(params.paneId)
        token = given(params.cursor)
        cursor = capture.open_cursor(self.refs, token, row.pane_id) if token is not None else None
        server = lookup.server
        pane = server.pane(row.pane_id, "paneId")
        started = time.monotonic()
        wait = TextWait(server, row, patterns, stop, self.ledger, limit, call.progress)

        async def entry(now: PaneRow) -> Found | None:
            """Without a cursor the screen counts; with one, the rows printed after it."""
            recent = self.ledger.recent(row.pane_id)
            if cursor is None:
                rows, _ = await screen_rows(pane, now)
            else:
                rows = (await capture.read_since(pane, now, cursor, max_lines)).lines
            return first_matching_row(rows, recent, stop, patterns, complete=True)

        found = await wait.run(entry)
        if found.outcome == "pane_closed":
            raise await gone_while_waiting(server, row, time.monotonic() - started)
        now = await pane.display_message(FOLLOWED_FIELDS)
        tail: list[str] = []
        next_cursor = None
        if now is not None:
            screen = capture.trim_blank_tail(await pane.capture_pane())
            tail = capture.newest(screen, max_lines).lines
            full = await pane.display_message()
            if full is not None:
                since = await capture.read_since(pane, full, None, 1, count=True)
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
