"""What panes show: captures, continued reads, snapshots, searches."""

from __future__ import annotations

from typing import Literal, TypeVar

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.capture_pane import CapturePaneInput, CapturePaneOutput
from ...generated.python.models.capture_since import CaptureSinceInput, CaptureSinceOutput
from ...generated.python.models.search_panes import (
    SearchPanesInput,
    SearchPanesOutput,
    SearchPanesOutputMatch,
)
from ...generated.python.models.snapshot_pane import SnapshotPaneInput, SnapshotPaneOutput
from ...reply import Reply
from ...seam import Call
from ..tmux.errors import NotFound
from ..tmux.objects import capture, linedrawing, search
from ..tmux.objects.deadpanes import DEAD_FIELDS, dead_notes
from ..tmux.objects.pane import ACTIVE_ONLY
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import PaneRow, each_pane_once
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import check_pane_id, check_session_id
from ..tmux.transport.formats import as_int, format_of, parse_rows
from .arguments import checked_cap
from .targets import selector_of, target_pane

T = TypeVar("T")

Cut = Literal["max_matched_lines_per_pane", "time", "bytes"]

SNAPSHOT_FIELDS: tuple[str, ...] = (
    "pane_id",
    "cursor_x",
    "cursor_y",
    "pane_width",
    "pane_height",
    "pane_in_mode",
    "pane_mode",
    "scroll_position",
    "history_size",
    "alternate_on",
    "pane_current_command",
    "pane_current_path",
    *DEAD_FIELDS,
)

SNAPSHOT_FORMAT = format_of(SNAPSHOT_FIELDS)


class PaneTextTools:
    def __init__(self, tmux: Tmux, cursor_refs: Refs) -> None:
        self.tmux = tmux
        self.cursor_refs = cursor_refs  # seals capture_since cursors: one secret per process

    async def capture_pane(self, call: Call, params: CapturePaneInput) -> CapturePaneOutput:
        max_lines = checked_cap("max_lines", params.max_lines)
        server = self.tmux.server(params.socket_name)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        pane_id = await target_pane(server, params.pane_id, selector)
        lines = await server.pane(pane_id).capture_pane(params.start, params.end)
        if params.end is None:
            lines = capture.trim_blank_tail(lines)
        kept = capture.newest(lines, max_lines)
        if kept.dropped:
            return CapturePaneOutput(
                result="\n".join([truncation_header(kept.dropped), *kept.lines])
            )
        return CapturePaneOutput(result="\n".join(kept.lines))

    async def capture_since(self, call: Call, params: CaptureSinceInput) -> CaptureSinceOutput:
        max_lines = checked_cap("max_lines", params.max_lines)
        max_bytes = checked_cap("max_bytes", params.max_bytes)
        refs = self.cursor_refs
        server = self.tmux.server(params.socket_name)
        token = params.cursor
        cursor: capture.Cursor | None = None
        pane_id = check_pane_id(params.pane_id) if params.pane_id is not None else None
        named = (params.window_id, params.session_name, params.session_id)
        if token is not None and (pane_id is not None or named == (None, None, None)):
            # A bad cursor is refused before tmux is asked anything; with no target
            # named, the cursor names the pane it was issued for.
            cursor = capture.open_cursor(refs, token, pane_id)
            pane_id = cursor.pane_id
        pane = await self._since_pane(server, params, pane_id)
        if token is not None and cursor is None:
            cursor = capture.open_cursor(refs, token, pane.pane_id)
        if pane["pane_dead"] == "1":
            raise ToolError(
                f"Pane {pane.pane_id} on tmux {server.socket} is dead: its command exited "
                "(remain-on-exit keeps its last screen). Read that screen with capture_pane; "
                "once the pane is respawned, call capture_since without a cursor to start afresh."
            )
        missed = False
        target = server.pane(pane.pane_id)
        if cursor is None:
            lines, next_cursor = await capture.read_screen(target, pane, count=True)
            dropped = 0
        else:
            self._check_same_process(server, pane, cursor, token or "")
            since = await capture.read_since(target, pane, cursor, max_lines, count=True)
            if since.missed:
                missed = True
                lines, next_cursor = await capture.read_screen(target, pane, count=True)
                dropped = 0
            else:
                lines, next_cursor, dropped = since.lines, since.cursor, since.dropped
        by_lines = capture.newest(lines, max_lines)
        by_bytes = capture.newest_within(by_lines.lines, max_bytes)
        dropped += by_lines.dropped + by_bytes.dropped
        return CaptureSinceOutput(
            pane_id=pane.pane_id,
            cursor=capture.seal_cursor(refs, next_cursor),
            lines=by_bytes.lines,
            lines_missed=missed,
            truncated=dropped > 0,
            dropped_lines=dropped,
        )

    async def _since_pane(
        self, server: Server, params: CaptureSinceInput, pane_id: str | None
    ) -> PaneRow:
        """The pane to read: ``pane_id`` (given, or the cursor's), else the active pane of
        the window or session named, else of the first session's active window."""
        if pane_id is not None:
            return await server.pane(pane_id, "pane_id" if params.pane_id else "cursor").row()
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        return (await selector.resolve_window(server, ACTIVE_ONLY)).active_pane

    @staticmethod
    def _check_same_process(
        server: Server, pane: PaneRow, cursor: capture.Cursor, token: str
    ) -> None:
        """read_since's ``restarted``, as an error: the server or the pane's process changed."""
        if cursor.server_tag != pane.server_tag:
            raise InvalidArgument(
                "cursor",
                token,
                f"was issued for pane {cursor.pane_id} of an earlier run of the tmux server on "
                f"{server.socket}, which has restarted since (pane ids are reused)",
                "Call capture_since without a cursor to start reading afresh.",
            )
        if cursor.pane_pid != pane["pane_pid"]:
            raise ToolError(
                f"Pane {pane.pane_id} on tmux {server.socket} was respawned since the cursor "
                "was issued: its output now comes from a new process, so the cursor no longer "
                "applies. Call capture_since without a cursor to start reading afresh."
            )

    async def snapshot_pane(
        self, call: Call, params: SnapshotPaneInput
    ) -> Reply[SnapshotPaneOutput]:
        max_lines = checked_cap("max_lines", params.max_lines)
        server = self.tmux.server(params.socket_name)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        pane_id = await target_pane(server, params.pane_id, selector)
        info, lines = await server.pane(pane_id).run(
            ("display-message", "-p", "-t", pane_id, SNAPSHOT_FORMAT),
            ("capture-pane", "-p", linedrawing.FLAG, "-t", pane_id),
        )
        rows = parse_rows(info, SNAPSHOT_FIELDS)
        if not rows or rows[0]["pane_id"] != pane_id:
            raise server.pane(pane_id).not_found()
        row = rows[0]
        kept = capture.newest(capture.trim_blank_tail(linedrawing.plain_lines(lines)), max_lines)
        snapshot = SnapshotPaneOutput(
            pane_id=pane_id,
            content="\n".join(kept.lines),
            cursor_x=as_int(row["cursor_x"]) or 0,
            cursor_y=as_int(row["cursor_y"]) or 0,
            pane_width=as_int(row["pane_width"]) or 0,
            pane_height=as_int(row["pane_height"]) or 0,
            pane_in_mode=(as_int(row["pane_in_mode"]) or 0) > 0,
            pane_mode=row["pane_mode"] or None,
            scroll_position=as_int(row["scroll_position"]),
            history_size=as_int(row["history_size"]) or 0,
            alternate_on=row["alternate_on"] == "1",
            pane_current_command=row["pane_current_command"] or None,
            pane_current_path=row["pane_current_path"] or None,
            truncated_lines=kept.dropped,
        )
        return Reply(snapshot, notes=dead_notes([PaneRow(row)]))

    async def search_panes(self, call: Call, params: SearchPanesInput) -> SearchPanesOutput:
        per_pane = checked_cap(
            "max_matched_lines_per_pane", params.max_matched_lines_per_pane, "leave it at 50"
        )
        limit = checked_cap("limit", params.limit, "null for every pane after offset")
        offset = params.offset or 0
        if offset < 0:
            raise InvalidArgument(
                "offset", offset, "must be 0 or more", "Pass 0 for the first page."
            )
        if params.session_id is not None:
            check_session_id(params.session_id)
        is_regex, match_case = bool(params.regex), bool(params.match_case)
        # Checks the pattern: an invalid regex is refused before tmux is asked anything.
        search.matcher(params.pattern, is_regex, match_case=match_case)
        server = self.tmux.server(params.socket_name)
        scope = await self._search_scope(server, params.session_id, params.session_name)
        page = scope[offset : offset + limit]
        texts = await capture.capture_numbered(
            server, [pane.pane_id for pane in page], params.content_start, params.content_end
        )
        # The time budget starts now, after the captures.
        test = search.matcher(params.pattern, is_regex, match_case=match_case)
        matches: list[SearchPanesOutputMatch] = []
        truncated_by: list[Cut] = []
        budget = search.Budget(max_matches=None, line_chars=None)
        covered = 0
        for pane in page:
            numbered = texts.get(pane.pane_id, capture.Numbered(0, []))
            lines = numbered.lines
            if params.content_end is None:
                lines = capture.trim_blank_tail(lines)
            hits, cut = search.scan(lines, test, per_pane, budget)
            if hits:
                matches.append(
                    SearchPanesOutputMatch(
                        pane_id=pane.pane_id,
                        session_id=pane.session_id,
                        window_id=pane.window_id,
                        matched_lines=[text for _, text in hits],
                        line_numbers=[numbered.first + index for index, _ in hits],
                    )
                )
            if cut == "per_pane":
                if "max_matched_lines_per_pane" not in truncated_by:
                    truncated_by.append("max_matched_lines_per_pane")
            elif cut == "time" or cut == "bytes":
                truncated_by.append(cut)
                # The page ends at this pane: with it when it was searched in part (its
                # other lines are lost, as truncated_by says) or is the page's first,
                # else it starts the next page.
                if cut == "time" or hits or covered == 0:
                    covered += 1
                break
            covered += 1
        cut_short = "time" in truncated_by or "bytes" in truncated_by
        return SearchPanesOutput(
            matches=matches,
            total_panes=len(scope),
            offset=offset,
            # When a budget ended the page early, the page size is what was covered,
            # so offset + limit is where the next page starts.
            limit=covered if cut_short else params.limit,
            has_more=offset + covered < len(scope),
            truncated_by=truncated_by,
        )

    async def _search_scope(
        self, server: Server, session_id: str | None, session_name: str | None
    ) -> list[PaneRow]:
        """The panes to search, in tmux's order: one session's, or every pane once."""
        rows = await server.list_panes("-a")
        if session_id is not None:
            rows = [row for row in rows if row.session_id == session_id]
            if not rows:
                raise NotFound("session", session_id, socket=server.socket, field="session_id")
            return rows
        if session_name is not None:
            rows = [row for row in rows if row.raw["session_name"] == session_name]
            if not rows:
                raise NotFound(
                    "session",
                    session_name,
                    socket=server.socket,
                    field="session_name",
                    by="name",
                )
            return rows
        return each_pane_once(rows)


def truncation_header(dropped: int) -> str:
    return f"[... truncated {dropped} lines ...]"
