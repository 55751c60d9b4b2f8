"""Reading what panes print: captures, snapshots, following with a cursor, and search."""

from __future__ import annotations

import anyio

from ...errors import ToolError
from ...generated.swift.models.capture_pane import CapturePaneInput, CapturePaneOutput
from ...generated.swift.models.capture_since import CaptureSinceInput, CaptureSinceOutput
from ...generated.swift.models.search_panes import SearchPanesInput, SearchPanesOutput
from ...generated.swift.models.snapshot_pane import SnapshotPaneInput, SnapshotPaneOutput
from ...reply import Reply
from ...seam import Call
from ..tmux.errors import NoServer, NotFound, WatchLost
from ..tmux.objects import capture, search
from ..tmux.objects.deadpanes import dead_notes
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import PANE_FIELDS, PaneRow, each_pane_once
from ..tmux.objects.waits import died, server_went, went_away
from . import rows
from .arguments import given
from .targets import Lookup, Lookups

DEFAULT_SCROLLBACK = 500
DEFAULT_MATCHES_PER_PANE = 20
MAX_WAIT_MS = 10_000
WATCH_RESTARTS = 3  # a watch whose tmux client ended is started again this many times
WAIT_FIELDS = (*PANE_FIELDS, "pane_dead_status")


class PaneTextTools:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def capture_pane(self, call: Call, params: CapturePaneInput) -> CapturePaneOutput:
        lookup = self.lookups.for_call()
        pane_id = await lookup.pane_target(params.paneId)
        end = given(params.end)
        lines = await lookup.server.pane(pane_id, "paneId").capture_pane(
            given(params.start), end, join_wrapped=given(params.joinWrapped, False)
        )
        if end is None:
            lines = capture.trim_blank_tail(lines)
        kept = capture.newest(lines, given(params.maxLines, capture.DEFAULT_MAX_LINES))
        return CapturePaneOutput.model_validate(rows.capture(pane_id, kept.lines, kept.dropped))

    async def snapshot_pane(
        self, call: Call, params: SnapshotPaneInput
    ) -> Reply[SnapshotPaneOutput]:
        lookup = self.lookups.for_call()
        row = await lookup.pane(params.paneId)
        pane = lookup.server.pane(row.pane_id, "paneId")
        lines = capture.trim_blank_tail(await pane.capture_pane())
        kept = capture.newest(lines, given(params.maxLines, capture.DEFAULT_MAX_LINES))
        snapshot = SnapshotPaneOutput.model_validate(
            {
                "pane": rows.pane(self.refs, row),
                "capture": rows.capture(row.pane_id, kept.lines, kept.dropped),
            }
        )
        return Reply(snapshot, notes=dead_notes([row]))

    async def capture_since(self, call: Call, params: CaptureSinceInput) -> CaptureSinceOutput:
        lookup = self.lookups.for_call()
        row = await lookup.pane(params.paneId)
        token = given(params.cursor)
        cursor = capture.open_cursor(self.refs, token, row.pane_id) if token is not None else None
        max_lines = given(params.maxLines, capture.DEFAULT_MAX_LINES)
        wait_ms = min(given(params.waitMs, 0), MAX_WAIT_MS)
        pane = lookup.server.pane(row.pane_id, "paneId")
        since = await capture.read_since(pane, row, cursor, max_lines, count=True)
        if not since.lines and wait_ms > 0:
            if row["pane_dead"] == "1":  # nothing more will print: waiting is pointless
                raise died(lookup.server.socket, row, None)
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
        A pane that goes (or whose window, session or server goes) or dies under
        remain-on-exit ends the wait at once with an error saying so; a pane moved to
        another session is watched there.
        """
        waiting = _Waiting(self.lookups.for_call(), row, cursor, max_lines, timeout)
        lost = 0
        while True:
            try:
                found = await waiting.watch()
            except WatchLost:
                lost += 1
                if lost > WATCH_RESTARTS:
                    raise ToolError(
                        f"The tmux client watching pane {row.pane_id} on "
                        f"{waiting.lookup.server.socket} kept ending ({lost} times). Check that "
                        "the tmux server is healthy, then call capture_since again."
                    ) from None
                await waiting.reread()  # the pane, its session or its server may have gone
                continue
            if found is not None:
                return found

    async def search_panes(self, call: Call, params: SearchPanesInput) -> SearchPanesOutput:
        lookup = self.lookups.for_call()
        test = search.matcher(params.pattern, given(params.regex, False))
        session = given(params.session)
        if session is not None:
            row = await lookup.session(session)
            scope = await lookup.server.list_panes("-s", "-t", row.session_id)
        else:
            scope = each_pane_once(await lookup.server.list_panes("-a"))
        found = await search.search(
            lookup.server,
            scope,
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
                "panesAvailable": len(scope),
                "truncated": bool(found.truncated_by),
                "truncatedBy": found.truncated_by,
            }
        )


class _Waiting:
    """One capture_since wait: the pane as first read, and reading it again on each wake."""

    def __init__(
        self,
        lookup: Lookup,
        row: PaneRow,
        cursor: capture.Cursor | None,
        max_lines: int,
        timeout: float,
    ) -> None:
        self.lookup = lookup
        self.row = self.first = row
        self.cursor = cursor
        self.max_lines = max_lines
        self.started = anyio.current_time()
        self.deadline = self.started + timeout

    async def watch(self) -> tuple[capture.Since, PaneRow] | None:
        """The rows (or none, at the deadline) seen through one watch of the pane's session;
        None when the pane moved to another session, to be watched there."""
        server = self.lookup.server
        watched = self.row.session_id
        async with server.output_watch(self.row) as watch:
            while True:
                row = self.row = await self.reread()
                since = await self.read(row)
                if since.lines:
                    return since, row
                if row["pane_dead"] == "1":
                    raise died(server.socket, row, anyio.current_time() - self.started)
                if row.session_id != watched:
                    return None
                with anyio.move_on_after(self.deadline - anyio.current_time()):
                    await watch.changed()
                    continue
                return since, row

    async def reread(self) -> PaneRow:
        server = self.lookup.server
        waited = anyio.current_time() - self.started
        try:
            row = await server.pane(self.row.pane_id).display_message(WAIT_FIELDS)
        except NoServer:
            raise server_went(server.socket, self.row.pane_id, waited) from None
        if row is None:
            raise await went_away(server, self.row, waited)
        if row.server_tag != self.first.server_tag:  # the same id on a new server run
            raise server_went(server.socket, self.row.pane_id, waited)
        return row

    async def read(self, row: PaneRow) -> capture.Since:
        server = self.lookup.server
        try:
            return await capture.read_since(
                server.pane(row.pane_id), row, self.cursor, self.max_lines, count=True
            )
        except NotFound:
            waited = anyio.current_time() - self.started
            raise await went_away(server, self.row, waited) from None
