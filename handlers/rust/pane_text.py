"""Reading what panes show, in the rust family's shapes: captures, snapshots, following
with a cursor, and bounded search. Every read is bounded in memory and bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ...errors import InvalidArgument, ToolError
from ...generated.rust.models.capture_pane import CapturePaneInput, CapturePaneOutput
from ...generated.rust.models.capture_since import CaptureSinceInput, CaptureSinceOutput
from ...generated.rust.models.search_panes import SearchPanesInput, SearchPanesOutput
from ...generated.rust.models.snapshot_pane import SnapshotPaneInput, SnapshotPaneOutput
from ...reply import Reply
from ...seam import Call
from ..tmux.objects import Server, Tmux, capture, search
from ..tmux.objects.deadpanes import dead_notes
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import PANE_FIELDS, PaneRow, each_pane_once
from ..tmux.objects.targets import check_pane_id, check_window_id
from .arguments import given
from .regex_crate import check_pattern_size, line_test
from .rows import pane_view
from .targets import pane_of, session_id_of

INT32 = (-(2**31), 2**31 - 1)
MAX_CELLS = 1_000_000  # rows times columns one capture may ask tmux for
MAX_TEXT_BYTES = 400_000  # of text in one answer (it is sent twice: structured and as text)
SINCE_MAX_LINES = 2000  # new lines one capture_since call hands out
SNAPSHOT_FIELDS = (*PANE_FIELDS, "cursor_x", "pane_mode", "scroll_position")
SEARCH = search.Ceilings(panes=64, lines=8192, bytes=1 << 20, seconds=5.0)
MATCH_SECONDS = 0.25
MAX_MATCHES = 200
MATCH_CHARS = 1000


def within(test: Callable[[str], bool], seconds: float) -> Callable[[str], bool]:
    """``test`` bounded to ``seconds`` from now, checked between lines (the crate never
    backtracks, so one line's match is linear in its length)."""
    deadline = time.monotonic() + seconds

    def bounded(line: str) -> bool:
        if time.monotonic() >= deadline:
            raise search.TimeBudgetSpent
        return test(line)

    return bounded


def _capacity(message: str) -> ToolError:
    return ToolError(message, kind="capacity")


class PaneTextTools:
    def __init__(self, tmux: Tmux, refs: Refs) -> None:
        self.tmux = tmux
        self.refs = refs

    async def capture_pane(self, call: Call, params: CapturePaneInput) -> CapturePaneOutput:
        start: int | None = given(params.start)
        end: int | None = given(params.end)
        for field, line in (("start", start), ("end", end)):
            if line is not None and not INT32[0] <= line <= INT32[1]:
                raise InvalidArgument(
                    field, line, "is outside int32", "Pass a line number tmux can hold."
                )
        server = self.tmux.server()
        pane = pane_of(server, params.pane)
        row = await pane.row()
        pane_id, width = row.pane_id, max(row.count("pane_width"), 1)
        history, height = row.count("history_size"), row.count("pane_height")
        marks = "not_asked"
        if params.last_command:  # this server cannot read tmux's command marks
            marks, start, end = "unsupported", None, None
        elif start is None and params.history:
            start = -history
        first, last = capture.captured_range(start, end, history, height)
        rows = last - first + 1
        if rows * width > MAX_CELLS:
            fits = MAX_CELLS // width
            raise _capacity(
                f"Lines {first}..{last} of pane {pane_id} are {rows:,} rows of {width} columns, "
                f"more than the {MAX_CELLS:,} cells one capture may read. Ask at most {fits:,} "
                f"rows with start and end (e.g. start {last - fits + 1}, end {last})."
            )
        lines = await pane.capture_pane(start, end)
        if end is None:
            lines = capture.trim_blank_tail(lines)
        text = "\n".join(lines)
        if len(text.encode("utf-8")) > MAX_TEXT_BYTES:
            raise _capacity(
                f"Lines {first}..{last} of pane {pane_id} hold more than {MAX_TEXT_BYTES:,} "
                "bytes of text, more than one answer may carry. Ask fewer rows with start "
                "and end."
            )
        return CapturePaneOutput.model_validate(
            {"pane": pane_id, "text": text, "lines": len(lines), "marks": marks}
        )

    async def snapshot_pane(
        self, call: Call, params: SnapshotPaneInput
    ) -> Reply[SnapshotPaneOutput]:
        server = self.tmux.server()
        pane = pane_of(server, params.pane)
        row = await pane.row(SNAPSHOT_FIELDS)
        width, height = row.count("pane_width"), row.count("pane_height")
        history = row.count("history_size") if params.history else 0
        wanted: int | None = given(params.max_lines)
        room = max(height, MAX_CELLS // max(width, 1)) - height  # history rows one read may take
        above = min(history, room if wanted is None else min(wanted, room))
        lines = capture.trim_blank_tail(await pane.capture_pane(-above if above else None))
        total = history - above + len(lines)
        kept = lines if wanted is None else lines[max(0, len(lines) - wanted) :]
        kept = search.newest_fitting(kept, MAX_TEXT_BYTES)
        snapshot = SnapshotPaneOutput.model_validate(
            {
                "pane": pane_view(server, row),
                "width": width,
                "height": height,
                "cursor_x": row.number("cursor_x"),
                "cursor_y": row.number("cursor_y"),
                "in_mode": row.flag("pane_in_mode") is True,
                "mode": row.text("pane_mode"),
                "scroll_position": row.number("scroll_position"),
                "dead": row.flag("pane_dead") is True,
                "content": "\n".join(kept),
                "lines": len(kept),
                "dropped": total - len(kept),
            }
        )
        return Reply(snapshot, notes=dead_notes([row]))

    async def capture_since(self, call: Call, params: CaptureSinceInput) -> CaptureSinceOutput:
        server = self.tmux.server()
        pane_id = check_pane_id(params.pane, field="pane")
        token: str | None = given(params.cursor)
        cursor = None if token is None else capture.open_cursor(self.refs, token, pane_id)
        pane = server.pane(pane_id, "pane")
        row = await pane.display_message()
        if row is None and token is not None:  # the pane this cursor followed has ended
            return CaptureSinceOutput.model_validate(
                {
                    "pane": pane_id,
                    "text": "",
                    "cursor": token,
                    "missed": False,
                    "closed": True,
                    "first": False,
                }
            )
        if row is None:
            raise pane.not_found()
        if cursor is None:
            lines, opened = await capture.read_screen(pane, row, count=True)
            missed, first = False, True
        else:
            since = await capture.read_since(pane, row, cursor, SINCE_MAX_LINES, count=True)
            lines, opened, first = since.lines, since.cursor, False
            missed = since.missed > 0 or since.restarted or since.dropped > 0
        return CaptureSinceOutput.model_validate(
            {
                "pane": pane_id,
                "text": "\n".join(lines),
                "cursor": capture.seal_cursor(self.refs, opened),
                "missed": missed,
                "closed": row.flag("pane_dead") is True,
                "first": first,
            }
        )

    async def search_panes(self, call: Call, params: SearchPanesInput) -> SearchPanesOutput:
        check_pattern_size(params.pattern)
        crate = line_test(params.pattern, params.regex, match_case=params.match_case)
        server = self.tmux.server()
        panes = await self._scope(server, given(params.session), given(params.window))
        read, capped = await search.read_bounded(server, panes, params.history, SEARCH)
        test = within(crate, MATCH_SECONDS)
        budget = search.Budget(
            max_bytes=SEARCH.bytes, max_matches=MAX_MATCHES, line_chars=MATCH_CHARS
        )
        matches: list[dict[str, object]] = []
        searched = 0
        for text in read:
            searched += 1
            hits, cut = search.scan(text.lines, test, MAX_MATCHES + 1, budget)
            matches += [
                {
                    "pane": text.pane.pane_id,
                    "window_id": text.pane.window_id,
                    "line": text.first + offset,
                    "text": line,
                }
                for offset, line in hits
            ]
            if cut is not None:
                capped = True
                break
        return SearchPanesOutput.model_validate(
            {"matches": matches, "panes_searched": searched, "capped": capped}
        )

    async def _scope(
        self, server: Server, session: str | None, window: str | None
    ) -> list[PaneRow]:
        """The panes to search: one window's, one session's, or every pane once."""
        session_id = None if session is None else await session_id_of(server, session, "session")
        if window is None:
            if session_id is not None:
                return await server.list_panes("-s", "-t", session_id)
            return each_pane_once(await server.list_panes("-a"))
        window_id = check_window_id(window, field="window")
        links = await server.window(window_id, "window").links()
        if session_id is not None and all(row.session_id != session_id for row in links):
            raise ToolError(
                f"Window {window_id} is not in session {session!r} on tmux {server.socket}, "
                "so the two name no panes together. Pass only one of them, or a window of "
                "that session (list_windows shows each window's session_id).",
                kind="invalid_input",
            )
        return await server.list_panes("-t", window_id)
