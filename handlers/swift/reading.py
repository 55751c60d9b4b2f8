"""Reading what panes print: captures, snapshots, following with a cursor, and search."""

from __future__ import annotations

import anyio

from ...generated.swift.models.capture_pane import CapturePaneInput, CapturePaneOutput
from ...generated.swift.models.capture_since import CaptureSinceInput, CaptureSinceOutput
from ...generated.swift.models.search_panes import SearchPanesInput, SearchPanesOutput
from ...generated.swift.models.snapshot_pane import SnapshotPaneInput, SnapshotPaneOutput
from ..tmux import capture, search
from ..tmux.formats import PaneRow, each_pane_once
from ..tmux.refs import Refs
from ..tmux.waits import WatchLost
from . import shapes
from .lookup import Lookups, given

DEFAULT_SCROLLBACK = 500
DEFAULT_MATCHES_PER_PANE = 20
MAX_WAIT_MS = 10_000


class Reading:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def capture_pane(self, params: CapturePaneInput) -> CapturePaneOutput:
        lookup = self.lookups()
        pane_id = await lookup.pane_target(params.paneId)
        end = given(params.end)
        lines = await lookup.on_pane(
            pane_id,
            capture.capture_lines(
                lookup.server, pane_id, given(params.start), end, given(params.joinWrapped, False)
            ),
        )
        if end is None:
            lines = capture.trim_blank_tail(lines)
        kept = capture.newest(lines, given(params.maxLines, capture.DEFAULT_MAX_LINES))
        return CapturePaneOutput.model_validate(shapes.capture(pane_id, kept.lines, kept.dropped))

    async def snapshot_pane(self, params: SnapshotPaneInput) -> SnapshotPaneOutput:
        lookup = self.lookups()
        row = await lookup.pane(params.paneId)
        lines = capture.trim_blank_tail(await capture.capture_lines(lookup.server, row.pane_id))
        kept = capture.newest(lines, given(params.maxLines, capture.DEFAULT_MAX_LINES))
        return SnapshotPaneOutput.model_validate(
            {
                "pane": shapes.pane(self.refs, row),
                "capture": shapes.capture(row.pane_id, kept.lines, kept.dropped),
            }
        )

    async def capture_since(self, params: CaptureSinceInput) -> CaptureSinceOutput:
        lookup = self.lookups()
        row = await lookup.pane(params.paneId)
        token = given(params.cursor)
        cursor = capture.open_cursor(self.refs, token, row.pane_id) if token is not None else None
        max_lines = given(params.maxLines, capture.DEFAULT_MAX_LINES)
        wait_ms = min(given(params.waitMs, 0), MAX_WAIT_MS)
        since = await capture.read_since(lookup.server, row, cursor, max_lines)
        if not since.lines and wait_ms > 0:
            since, row = await self._wait_for_rows(row, cursor, max_lines, wait_ms / 1000)
        return CaptureSinceOutput.model_validate(
            {
                "paneRef": self.refs.make("pane", row.pane_id, row.server_tag),
                "pane": row.pane_id,
                "lines": since.lines,
                "cursor": capture.seal_cursor(self.refs, since.cursor),
                "linesMissed": since.missed > 0,
                "restarted": since.restarted,
                "droppedLines": since.dropped,
            }
        )

    async def _wait_for_rows(
        self, row: PaneRow, cursor: capture.Cursor | None, max_lines: int, timeout: float
    ) -> tuple[capture.Since, PaneRow]:
        """Sleep until the pane prints a complete row after the cursor, or until ``timeout``.

        The watch starts before the re-read, so output printed in between still wakes it.
        """
        lookup = self.lookups()
        deadline = anyio.current_time() + timeout
        async with lookup.server.output_watch(row) as watch:
            while True:
                row = await lookup.pane(row.pane_id)
                since = await capture.read_since(lookup.server, row, cursor, max_lines)
                if since.lines:
                    return since, row
                with anyio.move_on_after(deadline - anyio.current_time()) as scope:
                    try:
                        await watch.changed()
                    except WatchLost:
                        scope.cancel()
                if scope.cancel_called:
                    return since, row

    async def search_panes(self, params: SearchPanesInput) -> SearchPanesOutput:
        lookup = self.lookups()
        test = search.matcher(params.pattern, given(params.regex, False))
        session = given(params.session)
        if session is not None:
            row = await lookup.session(session)
            rows = await lookup.server.list_panes("-s", "-t", row.session_id)
        else:
            rows = each_pane_once(await lookup.server.list_panes("-a"))
        found = await search.search(
            lookup.server,
            rows,
            test,
            given(params.scrollbackLines, DEFAULT_SCROLLBACK),
            given(params.maxMatchesPerPane, DEFAULT_MATCHES_PER_PANE),
        )
        return SearchPanesOutput.model_validate(
            {
                "matches": [
                    {
                        "paneRef": self.refs.make("pane", m.pane.pane_id, m.pane.server_tag),
                        "pane": m.pane.pane_id,
                        "line": m.line,
                        "text": m.text,
                    }
                    for m in found.matches
                ],
                "panesSearched": found.panes_searched,
                "panesAvailable": len(rows),
                "truncated": bool(found.truncated_by),
                "truncatedBy": found.truncated_by,
            }
        )
